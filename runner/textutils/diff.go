package textutils

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/wsfs/wsfs/internal/linediff"
	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

type diffOpts struct {
	format      byte // 'n' normal, 'u' unified, 'c' context
	context     int
	brief       bool
	reportSame  bool
	recursive   bool
	newFile     bool
	ignoreCase  bool
	ignoreAllWS bool
	ignoreWSAmt bool
	ignoreBlank bool
	stripCR     bool
	text        bool
	minimal     bool
	labels      []string
	switches    string
}

// diffText is one side of a comparison.
type diffText struct {
	*linediff.Text
	name  string // as printed
	mtime time.Time
}

var diffSpec = getopt.Spec{
	Usage: []string{"[OPTION]... FILES"},
	// diff names itself on its "Try" line too.
	Fail: func(name string, w getopt.Writer, msg string) int {
		fmt.Fprintf(w, "%s: %s\n%s: Try '%s --help' for more information.\n", name, msg, name, name)
		return 2
	},
	Options: []getopt.Option{
		{Short: 'u', Key: "u"}, {Short: 'U', Long: "unified", Arg: getopt.Required, Key: "U", ArgName: "NUM"},
		{Short: 'c', Key: "c"}, {Short: 'C', Long: "context", Arg: getopt.Required, Key: "C", ArgName: "NUM"},
		{Short: 'q', Long: "brief"}, {Short: 's', Long: "report-identical-files"}, {Short: 'r', Long: "recursive"},
		{Short: 'N', Long: "new-file"}, {Short: 'i', Long: "ignore-case"}, {Short: 'w', Long: "ignore-all-space"},
		{Short: 'b', Long: "ignore-space-change"}, {Short: 'B', Long: "ignore-blank-lines"}, {Long: "strip-trailing-cr"},
		{Short: 'a', Long: "text"}, {Short: 'd', Long: "minimal"}, {Long: "label", Arg: getopt.Required, ArgName: "LABEL"},
		{Long: "normal"}, {Short: 'y', Long: "side-by-side"}, {Short: 'e', Long: "ed"}, {Short: 'p', Long: "show-c-function"},
		{Long: "color", Arg: getopt.Optional, ArgName: "WHEN"}, {Short: 'T', Long: "initial-tab"}, {Long: "no-dereference"},
		{Digits: true, Key: "digit"},
	},
}

// Diff implements diff: normal, unified and context formats, -q, -s,
// -r and -N over directories, with GNU's choice of hunks.
func Diff(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	flags, operands, st, ok := diffSpec.Run(env)
	if !ok {
		return st
	}
	o := diffOpts{format: 'n', context: 3}
	var sw []string
	for _, a := range env.Args[1:] {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			sw = append(sw, a)
		}
	}
	o.switches = strings.Join(sw, " ")
	digits := "" // GNU's obsolete -NUM context ("-u0", "-5"), digit by digit
	for _, f := range flags {
		switch f.Key {
		case "u", "c":
			o.format = f.Key[0]
		case "U", "C":
			n, err := strconv.Atoi(f.Value)
			if err != nil || n < 0 {
				return diffSpec.Usagef(env, "invalid context length %s", quote(f.Value))
			}
			o.format, o.context = strings.ToLower(f.Key)[0], n
		case "brief":
			o.brief = true
		case "report-identical-files":
			o.reportSame = true
		case "recursive":
			o.recursive = true
		case "new-file":
			o.newFile = true
		case "ignore-case":
			o.ignoreCase = true
		case "ignore-all-space":
			o.ignoreAllWS = true
		case "ignore-space-change":
			o.ignoreWSAmt = true
		case "ignore-blank-lines":
			o.ignoreBlank = true
		case "strip-trailing-cr":
			o.stripCR = true
		case "text":
			o.text = true
		case "minimal":
			o.minimal = true
		case "label":
			o.labels = append(o.labels, f.Value)
		case "digit":
			digits += f.Value
		case "normal":
			o.format = 'n'
		case "side-by-side", "ed", "show-c-function", "initial-tab":
			env.Errorf("--%s is not supported in the runner; use -u", f.Key)
			return 2
		}
	}
	if n, err := strconv.Atoi(digits); err == nil && o.format != 'n' {
		o.context = n
	}
	switch {
	case len(operands) < 2:
		if len(operands) == 0 {
			return diffSpec.Usagef(env, "missing operand")
		}
		return diffSpec.Usagef(env, "missing operand after %s", quote(operands[0]))
	case len(operands) > 2:
		return diffSpec.Usagef(env, "extra operand %s", quote(operands[2]))
	}
	a, b := operands[0], operands[1]
	da, db := r.isDir(a), r.isDir(b)
	switch {
	case da && db:
		return r.finish(r.diffDirs(&o, a, b, true))
	case da && b != "-":
		a = path.Join(a, path.Base(b))
	case db && a != "-":
		b = path.Join(b, path.Base(a))
	case da || db:
		env.Errorf("cannot compare '-' to a directory")
		return r.finish(2)
	}
	return r.finish(r.diffFiles(&o, a, b, false))
}

func (r *run) isDir(name string) bool {
	if name == "-" {
		return false
	}
	fi, err := r.env.FS.Stat(name)
	return err == nil && fi.IsDir()
}

func (r *run) loadDiffText(name string, missingOK bool) (*diffText, error) {
	t := &diffText{Text: linediff.NewText(nil), name: name}
	if name == "-" {
		t.mtime = time.Now()
	} else {
		fi, err := r.env.FS.Stat(name)
		if err != nil {
			if missingOK && isNotExist(err) {
				t.mtime = time.Unix(0, 0)
				return t, nil
			}
			return nil, err
		}
		t.mtime = fi.ModTime()
	}
	data, err := r.readFile(name)
	if err != nil {
		return nil, err
	}
	t.Text = linediff.NewText(data)
	return t, nil
}

// key is what diff compares of a line under -i, -w, -b and
// --strip-trailing-cr; nil when it compares bytes.
func (o *diffOpts) key() func(line []byte) string {
	if !o.ignoreCase && !o.ignoreAllWS && !o.ignoreWSAmt && !o.stripCR {
		return nil
	}
	return o.lineKey
}

func (o *diffOpts) lineKey(line []byte) string {
	if o.stripCR {
		line = bytes.TrimSuffix(line, []byte("\r"))
	}
	if o.ignoreCase {
		// Byte-wise ASCII folding, as GNU's tolower in C.UTF-8.
		low := make([]byte, len(line))
		for i, c := range line {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			low[i] = c
		}
		line = low
	}
	switch {
	case o.ignoreAllWS:
		line = bytes.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\r' || r == '\v' || r == '\f' {
				return -1
			}
			return r
		}, line)
	case o.ignoreWSAmt:
		f := bytes.Fields(line)
		line = bytes.Join(f, []byte(" "))
	}
	return string(line)
}

func isBinary(data []byte) bool {
	n := min(len(data), 32<<10)
	return bytes.IndexByte(data[:n], 0) >= 0
}

// diffFiles compares two files and prints the result; inDir prints the
// "diff -r a b" header line for directory walks.
func (r *run) diffFiles(o *diffOpts, a, b string, inDir bool) int {
	ta, err := r.loadDiffText(a, o.newFile)
	if err != nil {
		r.env.Errorf("%s: %s", a, command.Strerror(err))
		return 2
	}
	tb, err := r.loadDiffText(b, o.newFile)
	if err != nil {
		r.env.Errorf("%s: %s", b, command.Strerror(err))
		return 2
	}
	if bytes.Equal(ta.Data, tb.Data) {
		if o.reportSame {
			fmt.Fprintf(r.out, "Files %s and %s are identical\n", a, b)
		}
		return 0
	}
	if !o.text && (isBinary(ta.Data) || isBinary(tb.Data)) {
		if inDir && !o.brief {
			r.out.WriteString(o.commandLine(a, b))
		}
		fmt.Fprintf(r.out, "Binary files %s and %s differ\n", a, b)
		return 1
	}
	horizon := 0
	if o.format != 'n' {
		horizon = o.context
	}
	changes := linediff.Diff(ta.Text, tb.Text, linediff.Options{Horizon: horizon, Key: o.key(), Minimal: o.minimal,
		Cancelled: func() bool { return r.ctx.Err() != nil }})
	if o.ignoreBlank {
		kept := changes[:0]
		for _, c := range changes {
			blank := true
			for i := c.A; i < c.A+c.Del && blank; i++ {
				blank = len(bytes.TrimSpace(ta.Lines[i])) == 0
			}
			for i := c.B; i < c.B+c.Ins && blank; i++ {
				blank = len(bytes.TrimSpace(tb.Lines[i])) == 0
			}
			if !blank {
				kept = append(kept, c)
			}
		}
		changes = kept
	}
	if len(changes) == 0 {
		if o.reportSame {
			fmt.Fprintf(r.out, "Files %s and %s are identical\n", a, b)
		}
		return 0
	}
	if o.brief {
		fmt.Fprintf(r.out, "Files %s and %s differ\n", a, b)
		return 1
	}
	if inDir {
		r.out.WriteString(o.commandLine(a, b))
	}
	switch o.format {
	case 'n':
		for _, c := range changes {
			r.normalHunk(ta, tb, c)
		}
	default:
		r.contextOutput(o, ta, tb, changes)
	}
	return 1
}

// commandLine is the "diff -r a/x b/x" line GNU prints before each pair
// of files in a directory comparison.
func (o *diffOpts) commandLine(a, b string) string {
	if o.switches == "" {
		return "diff " + a + " " + b + "\n"
	}
	return "diff " + o.switches + " " + a + " " + b + "\n"
}

func (r *run) printLine(prefix string, t *diffText, i int) {
	linediff.WriteLine(r.out, prefix, t.Text, i) // the sticky writer keeps the first error
}

func rangeNormal(a, b int) string {
	ta, tb := a+1, b+1
	if tb > ta {
		return fmt.Sprintf("%d,%d", ta, tb)
	}
	return strconv.Itoa(tb)
}

func (r *run) normalHunk(ta, tb *diffText, c linediff.Change) {
	first0, last0 := c.A, c.A+c.Del-1
	first1, last1 := c.B, c.B+c.Ins-1
	letter := byte('c')
	switch {
	case c.Ins == 0:
		letter = 'd'
	case c.Del == 0:
		letter = 'a'
	}
	fmt.Fprintf(r.out, "%s%c%s\n", rangeNormal(first0, last0), letter, rangeNormal(first1, last1))
	for i := first0; i <= last0; i++ {
		r.printLine("< ", ta, i)
	}
	if letter == 'c' {
		r.out.WriteString("---\n")
	}
	for i := first1; i <= last1; i++ {
		r.printLine("> ", tb, i)
	}
}

func (o *diffOpts) header(t *diffText, idx int) string {
	if idx < len(o.labels) {
		return o.labels[idx]
	}
	ts := t.mtime.Format("2006-01-02 15:04:05.000000000 -0700")
	return t.name + "\t" + ts
}

func (r *run) contextOutput(o *diffOpts, ta, tb *diffText, changes []linediff.Change) {
	if o.format == 'u' {
		linediff.WriteUnified(r.out, o.header(ta, 0), o.header(tb, 1), ta.Text, tb.Text, changes, o.context)
		return
	}
	fmt.Fprintf(r.out, "*** %s\n--- %s\n", o.header(ta, 0), o.header(tb, 1))
	for _, h := range linediff.Hunks(changes, ta.Text, tb.Text, o.context) {
		if r.stopped() {
			return
		}
		r.contextHunk(ta, tb, h)
	}
}

func rangeContext(a, b int) string {
	ta, tb := a+1, b+1
	if tb <= ta {
		return strconv.Itoa(tb)
	}
	return fmt.Sprintf("%d,%d", ta, tb)
}

func (r *run) contextHunk(ta, tb *diffText, h linediff.Hunk) {
	hunk, first0, last0, first1, last1 := h.Changes, h.A0, h.A1, h.B0, h.B1
	r.out.WriteString("***************\n")
	fmt.Fprintf(r.out, "*** %s ****\n", rangeContext(first0, last0))
	anyDel, anyIns := false, false
	for _, c := range hunk {
		anyDel = anyDel || c.Del > 0
		anyIns = anyIns || c.Ins > 0
	}
	if anyDel {
		k := 0
		for i := first0; i <= last0; i++ {
			for k < len(hunk) && hunk[k].A+hunk[k].Del <= i {
				k++
			}
			prefix := "  "
			if k < len(hunk) && hunk[k].A <= i {
				prefix = "- "
				if hunk[k].Ins > 0 {
					prefix = "! "
				}
			}
			r.printLine(prefix, ta, i)
		}
	}
	fmt.Fprintf(r.out, "--- %s ----\n", rangeContext(first1, last1))
	if anyIns {
		k := 0
		for i := first1; i <= last1; i++ {
			for k < len(hunk) && hunk[k].B+hunk[k].Ins <= i {
				k++
			}
			prefix := "  "
			if k < len(hunk) && hunk[k].B <= i {
				prefix = "+ "
				if hunk[k].Del > 0 {
					prefix = "! "
				}
			}
			r.printLine(prefix, tb, i)
		}
	}
}

// diffDirs compares two directories entry by entry (recursively with -r).
func (r *run) diffDirs(o *diffOpts, a, b string, top bool) int {
	ea, erra := r.env.FS.ReadDir(a)
	if erra != nil {
		r.env.Errorf("%s: %s", a, command.Strerror(erra))
		return 2
	}
	eb, errb := r.env.FS.ReadDir(b)
	if errb != nil {
		r.env.Errorf("%s: %s", b, command.Strerror(errb))
		return 2
	}
	kind := func(es []fs.DirEntry) map[string]fs.DirEntry {
		m := map[string]fs.DirEntry{}
		for _, e := range es {
			m[e.Name()] = e
		}
		return m
	}
	ma, mb := kind(ea), kind(eb)
	var names []string
	seen := map[string]bool{}
	for _, e := range append(ea, eb...) {
		if !seen[e.Name()] {
			seen[e.Name()] = true
			names = append(names, e.Name())
		}
	}
	sortStrings(names)
	status := 0
	worse := func(s int) {
		if s > status {
			status = s
		}
	}
	for _, name := range names {
		if r.stopped() {
			break
		}
		pa, pb := path.Join(a, name), path.Join(b, name)
		xa, inA := ma[name]
		xb, inB := mb[name]
		switch {
		case inA && inB:
			dirA, dirB := r.isDir(pa), r.isDir(pb)
			switch {
			case dirA && dirB:
				if o.recursive {
					worse(r.diffDirs(o, pa, pb, false))
				} else {
					fmt.Fprintf(r.out, "Common subdirectories: %s and %s\n", pa, pb)
				}
			case dirA != dirB:
				first, second := "directory", "regular file"
				if !dirA {
					first, second = "regular file", "directory"
				}
				fmt.Fprintf(r.out, "File %s is a %s while file %s is a %s\n", pa, first, pb, second)
				worse(1)
			default:
				worse(r.diffFiles(o, pa, pb, true))
			}
		case o.newFile && (inA && !xa.IsDir() || inB && !xb.IsDir()):
			worse(r.diffFiles(o, pa, pb, true))
		case inA:
			fmt.Fprintf(r.out, "Only in %s: %s\n", a, name)
			worse(1)
		default:
			fmt.Fprintf(r.out, "Only in %s: %s\n", b, name)
			worse(1)
		}
	}
	return status
}

func sortStrings(s []string) { sort.Strings(s) }
