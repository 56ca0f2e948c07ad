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
	name  string // as printed
	lines [][]byte
	noEOL bool // last line lacks its newline
	mtime time.Time
	data  []byte
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

func (r *run) loadDiffText(o *diffOpts, name string, missingOK bool) (*diffText, error) {
	t := &diffText{name: name}
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
	t.data = data
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			t.lines = append(t.lines, data)
			t.noEOL = true
			break
		}
		t.lines = append(t.lines, data[:i])
		data = data[i+1:]
	}
	return t, nil
}

func (o *diffOpts) key(line []byte) string {
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

// identicalEnds counts the lines of the common prefix and suffix that GNU
// diff leaves out of the comparison (io.c find_identical_ends), keeping
// horizon lines of each next to the changes.
func identicalEnds(d0, d1 []byte, miss0, miss1 bool, horizon int) (int, int) {
	n0, n1 := len(d0), len(d1)
	p := 0
	for p < n0 && p < n1 && d0[p] == d1[p] {
		p++
	}
	if (n0-boolInt(miss0) < p) != (n1-boolInt(miss1) < p) {
		p--
	}
	for i := horizon; p > 0; {
		if d0[p-1] != '\n' {
			p--
			continue
		}
		if i > 0 {
			i--
			p--
			continue
		}
		break
	}
	prefix := bytes.Count(d0[:p], []byte{'\n'})
	if miss0 != miss1 {
		return prefix, 0
	}
	q0, q1 := n0, n1
	beg := p + max(n0-n1, 0)
	for q0 != beg {
		q0--
		q1--
		if d0[q0] != d1[q1] {
			q0++
			q1++
			break
		}
	}
	atStart := (q0 == 0 || d0[q0-1] == '\n') && (q1 == 0 || d1[q1-1] == '\n')
	for i := horizon + boolInt(!atStart); i > 0 && q0 != n0; i-- {
		for q0 < n0 && d0[q0] != '\n' {
			q0++
		}
		q0++
	}
	q0 = min(q0, n0)
	suffix := bytes.Count(d0[q0:], []byte{'\n'})
	if miss0 && q0 < n0 {
		suffix++
	}
	return prefix, suffix
}

func isBinary(data []byte) bool {
	n := min(len(data), 32<<10)
	return bytes.IndexByte(data[:n], 0) >= 0
}

// diffFiles compares two files and prints the result; inDir prints the
// "diff -r a b" header line for directory walks.
func (r *run) diffFiles(o *diffOpts, a, b string, inDir bool) int {
	ta, err := r.loadDiffText(o, a, o.newFile)
	if err != nil {
		r.env.Errorf("%s: %s", a, command.Strerror(err))
		return 2
	}
	tb, err := r.loadDiffText(o, b, o.newFile)
	if err != nil {
		r.env.Errorf("%s: %s", b, command.Strerror(err))
		return 2
	}
	if bytes.Equal(ta.data, tb.data) {
		if o.reportSame {
			fmt.Fprintf(r.out, "Files %s and %s are identical\n", a, b)
		}
		return 0
	}
	if !o.text && (isBinary(ta.data) || isBinary(tb.data)) {
		if inDir && !o.brief {
			r.out.WriteString(o.commandLine(a, b))
		}
		fmt.Fprintf(r.out, "Binary files %s and %s differ\n", a, b)
		return 1
	}
	classes := map[string]int{}
	eq := func(t *diffText) []int {
		out := make([]int, len(t.lines))
		for i, l := range t.lines {
			k := o.key(l)
			if i == len(t.lines)-1 && t.noEOL {
				k += "\x00noeol"
			}
			c, ok := classes[k]
			if !ok {
				c = len(classes) + 1
				classes[k] = c
			}
			out[i] = c
		}
		return out
	}
	horizon := 0
	if o.format != 'n' {
		horizon = o.context
	}
	pre, suf := identicalEnds(ta.data, tb.data, ta.noEOL, tb.noEOL, horizon)
	if o.ignoreCase || o.ignoreAllWS || o.ignoreWSAmt || o.stripCR {
		// Lines that differ only in ignored ways are not byte-identical.
		pre, suf = 0, 0
	}
	suf = min(suf, len(ta.lines)-pre, len(tb.lines)-pre)
	mid0 := &diffText{lines: ta.lines[pre : len(ta.lines)-suf], noEOL: ta.noEOL && suf == 0}
	mid1 := &diffText{lines: tb.lines[pre : len(tb.lines)-suf], noEOL: tb.noEOL && suf == 0}
	e0, e1 := eq(mid0), eq(mid1)
	changes := diffLines(e0, e1, len(classes), o.minimal, func() bool { return r.ctx.Err() != nil })
	for i := range changes {
		changes[i].line0 += pre
		changes[i].line1 += pre
	}
	if o.ignoreBlank {
		kept := changes[:0]
		for _, c := range changes {
			blank := true
			for i := c.line0; i < c.line0+c.deleted && blank; i++ {
				blank = len(bytes.TrimSpace(ta.lines[i])) == 0
			}
			for i := c.line1; i < c.line1+c.inserted && blank; i++ {
				blank = len(bytes.TrimSpace(tb.lines[i])) == 0
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
	r.out.WriteString(prefix)
	r.out.Write(t.lines[i])
	r.out.WriteByte('\n')
	if i == len(t.lines)-1 && t.noEOL {
		r.out.WriteString("\\ No newline at end of file\n")
	}
}

func rangeNormal(a, b int) string {
	ta, tb := a+1, b+1
	if tb > ta {
		return fmt.Sprintf("%d,%d", ta, tb)
	}
	return strconv.Itoa(tb)
}

func (r *run) normalHunk(ta, tb *diffText, c diffChange) {
	first0, last0 := c.line0, c.line0+c.deleted-1
	first1, last1 := c.line1, c.line1+c.inserted-1
	letter := byte('c')
	switch {
	case c.inserted == 0:
		letter = 'd'
	case c.deleted == 0:
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

func (r *run) contextOutput(o *diffOpts, ta, tb *diffText, changes []diffChange) {
	if o.format == 'u' {
		fmt.Fprintf(r.out, "--- %s\n+++ %s\n", o.header(ta, 0), o.header(tb, 1))
	} else {
		fmt.Fprintf(r.out, "*** %s\n--- %s\n", o.header(ta, 0), o.header(tb, 1))
	}
	thresh := 2*o.context + 1
	for start := 0; start < len(changes); {
		if r.stopped() {
			return
		}
		end := start
		for end+1 < len(changes) {
			top0 := changes[end].line0 + changes[end].deleted
			if changes[end+1].line0-top0 >= thresh {
				break
			}
			end++
		}
		hunk := changes[start : end+1]
		first0, first1 := hunk[0].line0, hunk[0].line1
		last := hunk[len(hunk)-1]
		last0, last1 := last.line0+last.deleted-1, last.line1+last.inserted-1
		first0, first1 = max(first0-o.context, 0), max(first1-o.context, 0)
		if last0 < len(ta.lines)-o.context {
			last0 += o.context
		} else {
			last0 = len(ta.lines) - 1
		}
		if last1 < len(tb.lines)-o.context {
			last1 += o.context
		} else {
			last1 = len(tb.lines) - 1
		}
		if o.format == 'u' {
			r.unifiedHunk(ta, tb, hunk, first0, last0, first1, last1)
		} else {
			r.contextHunk(ta, tb, hunk, first0, last0, first1, last1)
		}
		start = end + 1
	}
}

func rangeUnified(a, b int) string {
	ta, tb := a+1, b+1
	switch {
	case tb < ta:
		return fmt.Sprintf("%d,0", tb)
	case tb == ta:
		return strconv.Itoa(ta)
	}
	return fmt.Sprintf("%d,%d", ta, tb-ta+1)
}

func (r *run) unifiedHunk(ta, tb *diffText, hunk []diffChange, first0, last0, first1, last1 int) {
	fmt.Fprintf(r.out, "@@ -%s +%s @@\n", rangeUnified(first0, last0), rangeUnified(first1, last1))
	i, j := first0, first1
	k := 0
	for i <= last0 || j <= last1 {
		if k >= len(hunk) || i < hunk[k].line0 {
			r.printLine(" ", ta, i)
			i++
			j++
			continue
		}
		for n := 0; n < hunk[k].deleted; n++ {
			r.printLine("-", ta, i)
			i++
		}
		for n := 0; n < hunk[k].inserted; n++ {
			r.printLine("+", tb, j)
			j++
		}
		k++
	}
}

func rangeContext(a, b int) string {
	ta, tb := a+1, b+1
	if tb <= ta {
		return strconv.Itoa(tb)
	}
	return fmt.Sprintf("%d,%d", ta, tb)
}

func (r *run) contextHunk(ta, tb *diffText, hunk []diffChange, first0, last0, first1, last1 int) {
	r.out.WriteString("***************\n")
	fmt.Fprintf(r.out, "*** %s ****\n", rangeContext(first0, last0))
	anyDel, anyIns := false, false
	for _, c := range hunk {
		anyDel = anyDel || c.deleted > 0
		anyIns = anyIns || c.inserted > 0
	}
	if anyDel {
		k := 0
		for i := first0; i <= last0; i++ {
			for k < len(hunk) && hunk[k].line0+hunk[k].deleted <= i {
				k++
			}
			prefix := "  "
			if k < len(hunk) && hunk[k].line0 <= i {
				prefix = "- "
				if hunk[k].inserted > 0 {
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
			for k < len(hunk) && hunk[k].line1+hunk[k].inserted <= i {
				k++
			}
			prefix := "  "
			if k < len(hunk) && hunk[k].line1 <= i {
				prefix = "+ "
				if hunk[k].deleted > 0 {
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
