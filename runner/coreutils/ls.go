package coreutils

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

type lsFlags struct {
	long, all, almostAll, recursive, human, si, dirSelf, reverse bool
	sortBy                                                       byte // 0 name, 't' time, 'S' size, 'U' none, 'X' extension, 'v' version
	classify, slash, inode, blocks, numeric, noOwner, noGroup    bool
	deref, derefArgs, fullTime, comma                            bool
	timeField                                                    byte // 0 mtime, 'u' atime, 'c' ctime
	timeStyle                                                    string
	oneLine, columns, across                                     bool
	width                                                        int
	widthSet                                                     bool
}

var lsSpec = getopt.Spec{
	UsageStatus: 2,
	Options: []getopt.Option{
		{Short: 'l'}, {Short: 'a', Long: "all"}, {Short: 'A', Long: "almost-all"}, {Short: 'R', Long: "recursive"},
		{Short: 'h', Long: "human-readable"}, {Long: "si"}, {Short: 'd', Long: "directory"}, {Short: 'r', Long: "reverse"},
		{Short: 't'}, {Short: 'S'}, {Short: 'U'}, {Short: 'X'}, {Short: 'v'}, {Short: 'f'},
		{Long: "sort", Arg: getopt.Required, ArgName: "WORD"}, {Short: 'F', Key: "classify"},
		{Long: "classify", Arg: getopt.Optional, ArgName: "WHEN"}, {Short: 'p'}, {Short: 'i', Long: "inode"},
		{Short: 's', Long: "size"}, {Short: 'n', Long: "numeric-uid-gid"}, {Short: 'g'}, {Short: 'o'},
		{Short: 'G', Long: "no-group"}, {Short: 'L', Long: "dereference"}, {Short: 'H', Long: "dereference-command-line"},
		{Short: 'u'}, {Short: 'c'}, {Short: '1'}, {Short: 'C'}, {Short: 'x'},
		{Short: 'w', Long: "width", Arg: getopt.Required, ArgName: "COLS"}, {Short: 'm'}, {Long: "full-time"},
		{Long: "time-style", Arg: getopt.Required, ArgName: "STYLE"}, {Long: "color", Arg: getopt.Optional, ArgName: "WHEN"},
		{Long: "group-directories-first"}, {Short: 'N', Long: "literal"}, {Long: "show-control-chars"},
		{Short: 'Z', Long: "context"}, {Short: 'k', Long: "kibibytes"},
		{Long: "indicator-style", Arg: getopt.Required, ArgName: "WORD"},
	},
}

// set applies one of ls's options; a refused value is a usage error.
func (f *lsFlags) set(o getopt.Opt) error {
	switch o.Key {
	case "l":
		f.long = true
	case "all":
		f.all, f.almostAll = true, false
	case "almost-all":
		f.almostAll, f.all = true, false
	case "recursive":
		f.recursive = true
	case "human-readable":
		f.human = true
	case "si":
		f.human, f.si = true, true
	case "directory":
		f.dirSelf = true
	case "reverse":
		f.reverse = true
	case "t", "S", "U", "X", "v":
		f.sortBy = o.Key[0]
	case "f":
		f.sortBy, f.all = 'U', true
	case "sort":
		m := map[string]byte{"none": 'U', "time": 't', "size": 'S', "extension": 'X', "version": 'v', "name": 0}
		b, ok := m[o.Value]
		if !ok {
			return fmt.Errorf("invalid argument %s for '--sort'", lquote(o.Value))
		}
		f.sortBy = b
	case "classify":
		f.classify, f.slash = true, false
	case "p":
		f.slash, f.classify = true, false
	case "inode":
		f.inode = true
	case "size":
		f.blocks = true
	case "numeric-uid-gid":
		f.long, f.numeric = true, true
	case "g":
		f.long, f.noOwner = true, true
	case "o":
		f.long, f.noGroup = true, true
	case "no-group":
		f.noGroup = true
	case "dereference":
		f.deref = true
	case "dereference-command-line":
		f.derefArgs = true
	case "u", "c":
		f.timeField = o.Key[0]
	case "1":
		f.oneLine, f.columns, f.comma = true, false, false
	case "C":
		f.columns, f.across, f.oneLine, f.comma = true, false, false, false
	case "x":
		f.columns, f.across, f.oneLine, f.comma = true, true, false, false
	case "width":
		n, err := strconv.Atoi(o.Value)
		if err != nil || n < 0 {
			return fmt.Errorf("invalid line width: %s", lquote(o.Value))
		}
		f.width, f.widthSet = n, true
	case "m":
		f.comma, f.columns = true, false
	case "full-time":
		f.long, f.fullTime = true, true
	case "time-style":
		v := strings.TrimPrefix(o.Value, "posix-")
		if !(v == "full-iso" || v == "long-iso" || v == "iso" || v == "locale" || strings.HasPrefix(v, "+")) {
			return fmt.Errorf("invalid argument %s for 'time style'", lquote(v))
		}
		f.timeStyle = v
	case "indicator-style":
		switch o.Value {
		case "none":
			f.classify, f.slash = false, false
		case "slash":
			f.slash, f.classify = true, false
		case "classify", "file-type":
			f.classify, f.slash = true, false
		default:
			return fmt.Errorf("invalid argument %s for '--indicator-style'", lquote(o.Value))
		}
	}
	return nil
}

// lsEntry is one name to show.
type lsEntry struct {
	name   string // as shown
	path   string // for stat and readdir
	fi     fs.FileInfo
	target string // a symlink's target, for -l
	tfi    fs.FileInfo
}

func runLs(ctx context.Context, env *command.Env) int {
	opts, args, code, ok := lsSpec.Run(env)
	if !ok {
		return code
	}
	var f lsFlags
	for _, o := range opts {
		if err := f.set(o); err != nil {
			return usageFail(env, 1, err.Error())
		}
	}
	l := &lister{ctx: ctx, env: env, f: f, o: newOut(env), now: time.Now()}
	return l.run(args)
}

type lister struct {
	ctx    context.Context
	env    *command.Env
	f      lsFlags
	o      *out
	now    time.Time
	status int
	first  bool // nothing printed yet
	// widthsFrom, when set, are the entries whose fields size the columns.
	widthsFrom []lsEntry
}

func (l *lister) run(args []string) int {
	f := l.f
	noArgs := len(args) == 0
	if noArgs {
		args = []string{"."}
	}
	var files, dirs []lsEntry
	for _, a := range args {
		// GNU follows a command-line link to a directory unless -l, -d or
		// -F ask about the link itself.
		followLinks := f.deref || f.derefArgs
		followDirLinks := !f.long && !f.dirSelf && !f.classify
		fi, err := l.env.FS.Lstat(a)
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 && (followLinks || followDirLinks) {
			tfi, terr := l.env.FS.Stat(a)
			switch {
			case terr == nil && (followLinks || tfi.IsDir()):
				fi = tfi
			case terr != nil && f.deref:
				err = terr // -L on a dangling link: nothing to show
			}
		}
		if err != nil {
			l.env.Errorf("cannot access %s: %s", quote(a), command.Strerror(err))
			l.status = 2
			continue
		}
		e := l.entry(a, a, fi)
		if fi.IsDir() && !f.dirSelf {
			dirs = append(dirs, e)
		} else {
			files = append(files, e)
		}
	}
	l.sort(files)
	l.sort(dirs)
	l.first = true
	if len(files) > 0 {
		// GNU sizes the columns of the file operands over every operand,
		// directories included.
		l.widthsFrom = append(append([]lsEntry{}, files...), dirs...)
		l.print(files, false)
		l.widthsFrom = nil
		l.first = false
	}
	showHeader := len(files) > 0 || len(dirs) > 1 || f.recursive || (l.status != 0 && len(dirs) > 0)
	for _, d := range dirs {
		if done(l.ctx) || l.o.failed() {
			break
		}
		l.listDir(d.path, d.name, showHeader)
	}
	if done(l.ctx) {
		return l.o.finish(l.env, statusCanceled)
	}
	return l.o.finish(l.env, l.status)
}

// entry builds an lsEntry, reading a symlink's target for -l and -F.
func (l *lister) entry(name, p string, fi fs.FileInfo) lsEntry {
	e := lsEntry{name: name, path: p, fi: fi}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if l.f.long {
			e.target, _ = l.env.FS.Readlink(p)
		}
		if tfi, err := l.env.FS.Stat(p); err == nil {
			e.tfi = tfi
		}
	}
	return e
}

func (l *lister) listDir(p, name string, header bool) {
	ents, err := l.env.FS.ReadDir(p)
	if err != nil {
		l.o.Flush()
		l.env.Errorf("cannot open directory %s: %s", quote(name), command.Strerror(err))
		if l.status == 0 {
			l.status = 2
			if !l.first {
				l.status = 1
			}
		}
		return
	}
	if header {
		if !l.first {
			l.o.WriteString("\n")
		}
		l.o.WriteString(name + ":\n")
	}
	l.first = false
	var list []lsEntry
	if l.f.all {
		for _, dot := range []string{".", ".."} {
			if fi, err := l.env.FS.Stat(joinPath(p, dot)); err == nil {
				list = append(list, lsEntry{name: dot, path: joinPath(p, dot), fi: fi})
			}
		}
	}
	for i, de := range ents {
		if i%256 == 0 && done(l.ctx) {
			return
		}
		n := de.Name()
		if strings.HasPrefix(n, ".") && !l.f.all && !l.f.almostAll {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		cp := joinPath(p, n)
		if l.f.deref && fi.Mode()&fs.ModeSymlink != 0 {
			if tfi, err := l.env.FS.Stat(cp); err == nil {
				fi = tfi
			}
		}
		list = append(list, l.entry(n, cp, fi))
	}
	l.sort(list)
	if l.f.long || l.f.blocks {
		var blocks uint64
		for _, e := range list {
			blocks += statOf(e.fi).blocks
		}
		total := strconv.FormatUint(ceilDiv(blocks, 2), 10)
		if l.f.human {
			total = l.humanBlocks(blocks)
		}
		l.o.WriteString("total " + total + "\n")
	}
	l.print(list, true)
	if !l.f.recursive {
		return
	}
	for _, e := range list {
		if done(l.ctx) || l.o.failed() {
			return
		}
		if e.fi.IsDir() && e.name != "." && e.name != ".." {
			l.listDir(e.path, joinPath(name, e.name), true)
		}
	}
}

func (l *lister) humanBlocks(blocks uint64) string {
	base := uint64(1024)
	if l.f.si {
		base = 1000
	}
	return humanSize(blocks, 512, base)
}

func (l *lister) sortTime(fi fs.FileInfo) time.Time {
	switch l.f.timeField {
	case 'u':
		return statOf(fi).atime
	case 'c':
		return statOf(fi).ctime
	}
	return fi.ModTime()
}

func (l *lister) sort(list []lsEntry) {
	byName := func(i, j int) bool { return list[i].name < list[j].name }
	var less func(i, j int) bool
	switch l.f.sortBy {
	case 'U':
		if l.f.reverse {
			for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
				list[i], list[j] = list[j], list[i]
			}
		}
		return
	case 't':
		less = func(i, j int) bool {
			ti, tj := l.sortTime(list[i].fi), l.sortTime(list[j].fi)
			if !ti.Equal(tj) {
				return ti.After(tj)
			}
			return byName(i, j)
		}
	case 'S':
		less = func(i, j int) bool {
			if si, sj := list[i].fi.Size(), list[j].fi.Size(); si != sj {
				return si > sj
			}
			return byName(i, j)
		}
	case 'X':
		ext := func(n string) string {
			if k := strings.LastIndex(n, "."); k >= 0 {
				return n[k:]
			}
			return ""
		}
		less = func(i, j int) bool {
			if ei, ej := ext(list[i].name), ext(list[j].name); ei != ej {
				return ei < ej
			}
			return byName(i, j)
		}
	case 'v':
		less = func(i, j int) bool { return versionLess(list[i].name, list[j].name) }
	default:
		less = byName
	}
	if l.f.reverse {
		sort.SliceStable(list, func(i, j int) bool { return less(j, i) })
		return
	}
	sort.SliceStable(list, less)
}

// versionLess compares names as ls -v / sort -V: digit runs by value.
func versionLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := a[0] >= '0' && a[0] <= '9', b[0] >= '0' && b[0] <= '9'
		if da && db {
			i, j := 0, 0
			for i < len(a) && a[i] >= '0' && a[i] <= '9' {
				i++
			}
			for j < len(b) && b[j] >= '0' && b[j] <= '9' {
				j++
			}
			na, nb := strings.TrimLeft(a[:i], "0"), strings.TrimLeft(b[:j], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			a, b = a[i:], b[j:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

// indicator is -F's or -p's suffix for an entry.
func (l *lister) indicator(e lsEntry) string {
	m := e.fi.Mode()
	switch {
	case m.IsDir():
		if l.f.classify || l.f.slash {
			return "/"
		}
	case !l.f.classify:
	case m&fs.ModeSymlink != 0:
		if l.f.long {
			return ""
		}
		return "@"
	case m&fs.ModeNamedPipe != 0:
		return "|"
	case m&fs.ModeSocket != 0:
		return "="
	case m.IsRegular() && m&0o111 != 0:
		return "*"
	}
	return ""
}

// lsRow is one entry's formatted fields.
type lsRow struct {
	ino, blocks, mode, nlink, owner, group, size, date, name string
}

func (l *lister) row(e lsEntry) lsRow {
	f := l.f
	st := statOf(e.fi)
	r := lsRow{mode: modeString(e.fi.Mode()), nlink: strconv.FormatUint(st.nlink, 10)}
	r.owner, r.group = ownerName, groupName
	if f.numeric {
		r.owner, r.group = strconv.FormatUint(uint64(st.uid), 10), strconv.FormatUint(uint64(st.gid), 10)
	}
	if e.fi.Mode()&fs.ModeDevice != 0 {
		r.size = fmt.Sprintf("%d, %d", st.rdev>>8&0xfff, st.rdev&0xff|st.rdev>>12&0xfff00)
	} else if f.human {
		base := uint64(1024)
		if f.si {
			base = 1000
		}
		r.size = humanSize(uint64(e.fi.Size()), 1, base)
	} else {
		r.size = strconv.FormatInt(e.fi.Size(), 10)
	}
	if f.inode {
		r.ino = strconv.FormatUint(st.ino, 10)
	}
	if f.blocks {
		r.blocks = strconv.FormatUint(ceilDiv(st.blocks, 2), 10)
		if f.human {
			r.blocks = l.humanBlocks(st.blocks)
		}
	}
	r.date = l.formatTime(l.sortTime(e.fi))
	r.name = e.name + l.indicator(e)
	if f.long && e.fi.Mode()&fs.ModeSymlink != 0 && e.target != "" {
		r.name += " -> " + e.target
		if e.tfi != nil && f.classify {
			r.name += l.indicator(lsEntry{fi: e.tfi})
		}
	}
	return r
}

func (l *lister) print(list []lsEntry, inDir bool) {
	f := l.f
	rows := make([]lsRow, len(list))
	for i, e := range list {
		rows[i] = l.row(e)
	}
	sizing := rows
	if l.widthsFrom != nil {
		sizing = nil
		for _, e := range l.widthsFrom {
			sizing = append(sizing, l.row(e))
		}
	}
	var w struct{ ino, blocks, nlink, owner, group, size int }
	for _, r := range sizing {
		w.ino = max(w.ino, len(r.ino))
		w.blocks = max(w.blocks, len(r.blocks))
		w.nlink = max(w.nlink, len(r.nlink))
		w.owner = max(w.owner, len(r.owner))
		w.group = max(w.group, len(r.group))
		w.size = max(w.size, len(r.size))
	}
	if !f.long {
		var names []string
		for _, r := range rows {
			prefix := ""
			if f.inode {
				prefix = padTo(r.ino, w.ino, ' ') + " "
			}
			if f.blocks {
				prefix += padTo(r.blocks, w.blocks, ' ') + " "
			}
			names = append(names, prefix+r.name)
		}
		if f.comma {
			l.printCommas(names)
			return
		}
		if f.columns && !f.oneLine {
			l.printColumns(names, f.across)
			return
		}
		for _, n := range names {
			l.o.WriteString(n + "\n")
		}
		return
	}
	for _, r := range rows {
		var b strings.Builder
		if f.inode {
			b.WriteString(padTo(r.ino, w.ino, ' ') + " ")
		}
		if f.blocks {
			b.WriteString(padTo(r.blocks, w.blocks, ' ') + " ")
		}
		b.WriteString(r.mode + " " + padTo(r.nlink, w.nlink, ' ') + " ")
		if !f.noOwner {
			b.WriteString(r.owner + strings.Repeat(" ", w.owner-len(r.owner)) + " ")
		}
		if !f.noGroup {
			b.WriteString(r.group + strings.Repeat(" ", w.group-len(r.group)) + " ")
		}
		b.WriteString(padTo(r.size, w.size, ' ') + " " + r.date + " " + r.name + "\n")
		l.o.WriteString(b.String())
	}
}

// printColumns lays names out as ls -C (down columns) or -x (across) do:
// as many columns as fit the line width, padded with tabs and spaces.
func (l *lister) printColumns(names []string, across bool) {
	width := l.lineWidth()
	n := len(names)
	if n == 0 {
		return
	}
	if width == 0 {
		// No limit: one line, spaces only.
		l.o.WriteString(strings.Join(names, "  ") + "\n")
		return
	}
	lens := make([]int, n)
	for i, name := range names {
		lens[i] = utf8.RuneCountInString(name)
	}
	maxCols := n
	if width > 0 && width/3 < maxCols {
		maxCols = max(1, width/3)
	}
	cols, colWidths := 1, []int{0}
	for c := maxCols; c >= 1; c-- {
		rows := (n + c - 1) / c
		widths := make([]int, c)
		total := 0
		for i, ln := range lens {
			col := i / rows
			if across {
				col = i % c
			}
			if col >= c {
				continue
			}
			real := ln
			if col != c-1 {
				real += 2
			}
			if real > widths[col] {
				total += real - widths[col]
				widths[col] = real
			}
		}
		if total < width || c == 1 {
			cols, colWidths = c, widths
			break
		}
	}
	rows := (n + cols - 1) / cols
	for r := 0; r < rows; r++ {
		pos := 0
		for c := 0; c < cols; c++ {
			i := c*rows + r
			if across {
				i = r*cols + c
			}
			if i >= n {
				break
			}
			l.o.WriteString(names[i])
			next := c*rows + r + rows
			if across {
				next = i + 1
			}
			if c == cols-1 || next >= n || across && (c+1) >= cols {
				break
			}
			indent(l.o, pos+lens[i], pos+colWidths[c])
			pos += colWidths[c]
		}
		l.o.WriteString("\n")
	}
}

// printCommas is ls -m: names joined by ", ", wrapped before a name that
// would reach the line width.
func (l *lister) printCommas(names []string) {
	width := l.lineWidth()
	pos := 0
	for i, name := range names {
		n := utf8.RuneCountInString(name)
		if i > 0 {
			if width == 0 || pos+n+2 < width {
				l.o.WriteString(", ")
				pos += 2
			} else {
				l.o.WriteString(",\n")
				pos = 0
			}
		}
		l.o.WriteString(name)
		pos += n
	}
	if len(names) > 0 {
		l.o.WriteString("\n")
	}
}

// lineWidth is -w, else $COLUMNS, else 80.
func (l *lister) lineWidth() int {
	if l.f.widthSet {
		return l.f.width
	}
	if n, err := strconv.Atoi(getenv(l.env, "COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 80
}

// indent moves from column from to column to with tabs (every 8) and
// spaces, as GNU ls does.
func indent(o *out, from, to int) {
	for from < to {
		if to/8 > (from+1)/8 {
			o.WriteByte('\t')
			from += 8 - from%8
		} else {
			o.WriteByte(' ')
			from++
		}
	}
}

// sixMonths is GNU ls's limit between recent and old dates.
const sixMonths = 31556952 / 2 * time.Second

func (l *lister) formatTime(t time.Time) string {
	t = t.In(time.Local)
	style := l.f.timeStyle
	if l.f.fullTime {
		style = "full-iso"
	}
	recent := t.After(l.now.Add(-sixMonths)) && !t.After(l.now.Add(time.Second))
	switch {
	case style == "full-iso":
		return strftime("%Y-%m-%d %H:%M:%S.%N %z", t)
	case style == "long-iso":
		return strftime("%Y-%m-%d %H:%M", t)
	case style == "iso":
		if recent {
			return strftime("%m-%d %H:%M", t)
		}
		return strftime("%Y-%m-%d ", t)
	case strings.HasPrefix(style, "+"):
		formats := strings.SplitN(style[1:], "\n", 2)
		if !recent && len(formats) == 2 {
			return strftime(formats[1], t)
		}
		return strftime(formats[0], t)
	}
	if recent {
		return strftime("%b %e %H:%M", t)
	}
	return strftime("%b %e  %Y", t)
}
