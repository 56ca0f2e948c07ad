// Package patch is the runner's patch: GNU patch 2.7's application of
// unified, context and normal diffs (and git's extended diffs: new and
// deleted files, renames, modes) to the workspace's files.
//
// Hunks are placed as GNU places them (locate_hunk): at the line their
// header and the earlier hunks' offsets predict, then at growing
// distances either side, exactly first and then ignoring up to -F (2)
// context lines at each end; a hunk whose context is shorter at one end
// must sit at that end of the file. The first hunk that fits nowhere but
// fits reversed is a reversed (or already applied) patch: -t assumes -R,
// -N skips, and with no terminal, as in the runner, the questions GNU
// would ask take their defaults (it is skipped). The messages are GNU's
// ("Hunk #2 succeeded at 14 with fuzz 1 (offset 2 lines).", "1 out of 2
// hunks FAILED -- saving rejects to file f.rej"), and so are the exit
// status (0, 1 when a hunk failed, 2 on trouble), the reject files (in
// the patch's format; a normal diff's in context format), and the backups:
// FILE.orig when -b, or when a hunk needed an offset or fuzz or failed
// (--backup-if-mismatch, GNU's default). Files are written through the
// command's confined view, so the workspace's quotas apply.
//
// Without -p a file name is its last component, as in GNU; among the
// names a diff gives (old, new, Index:) the one that exists is used.
//
// Not supported, with a message: ed scripts (-e), -D (#ifdef output) and
// --merge; git binary patches are skipped with a warning.
package patch

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

// Commands lists patch for the runner's command table.
func Commands() []command.Spec {
	return []command.Spec{{Name: "patch", Summary: "apply a diff file to an original", Flags: patchSpec.Flags(), Func: Patch}}
}

var patchSpec = getopt.Spec{
	Usage: []string{"[OPTION]... [ORIGFILE [PATCHFILE]]"},
	// GNU patch names itself on usage errors with "**** " and exits 2.
	Fail: func(name string, w getopt.Writer, msg string) int {
		fmt.Fprintf(w, "%s: %s\n%s: Try '%s --help' for more information.\n", name, msg, name, name)
		return 2
	},
	Options: []getopt.Option{
		{Short: 'p', Long: "strip", Arg: getopt.Required, ArgName: "NUM"},
		{Short: 'R', Long: "reverse"}, {Short: 'i', Long: "input", Arg: getopt.Required, ArgName: "PATCHFILE"},
		{Short: 'o', Long: "output", Arg: getopt.Required, ArgName: "FILE"}, {Long: "dry-run"},
		{Short: 'N', Long: "forward"}, {Short: 'b', Long: "backup"}, {Long: "backup-if-mismatch"},
		{Long: "no-backup-if-mismatch"}, {Short: 'F', Long: "fuzz", Arg: getopt.Required, ArgName: "LINES"},
		{Short: 'r', Long: "reject-file", Arg: getopt.Required, ArgName: "FILE"},
		{Short: 's', Long: "quiet", Key: "silent"}, {Long: "silent", Key: "silent"}, {Short: 't', Long: "batch"},
		{Short: 'f', Long: "force"}, {Short: 'E', Long: "remove-empty-files"},
		{Short: 'd', Long: "directory", Arg: getopt.Required, ArgName: "DIR"},
		{Short: 'u', Long: "unified"}, {Short: 'c', Long: "context"}, {Short: 'n', Long: "normal"},
		{Short: 'l', Long: "ignore-whitespace"}, {Short: 'z', Long: "suffix", Arg: getopt.Required, ArgName: "SUFFIX"},
		{Short: 'B', Long: "prefix", Arg: getopt.Required, ArgName: "PREFIX"},
		{Short: 'V', Long: "version-control", Arg: getopt.Required, ArgName: "STYLE"},
		{Long: "verbose"}, {Long: "posix"}, {Long: "binary"},
		{Short: 'e', Long: "ed"}, {Short: 'D', Long: "ifdef", Arg: getopt.Required, ArgName: "NAME"},
		{Long: "merge", Arg: getopt.Optional, ArgName: "STYLE"},
	},
}

// maxPatchBytes bounds the patch read (it is held whole).
const maxPatchBytes = 64 << 20

// options of one run.
type options struct {
	strip          int // -1: not given
	reverse        bool
	input, output  string
	dryRun         bool
	forward        bool
	backup         bool
	backupMismatch bool
	fuzz           int
	reject         string
	silent         bool
	batch          bool
	force          bool
	removeEmpty    bool
	ignoreSpace    bool
	suffix, prefix string
	verbose        bool
}

// Patch implements patch.
func Patch(ctx context.Context, env *command.Env) int {
	opts, operands, st, ok := patchSpec.Run(env)
	if !ok {
		return st
	}
	o := options{strip: -1, fuzz: 2, backupMismatch: true, suffix: ".orig"}
	fatal := func(format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "%s: **** %s\n", env.Name(), fmt.Sprintf(format, a...))
		return 2
	}
	dir := ""
	for _, f := range opts {
		switch f.Key {
		case "strip":
			n, err := strconv.Atoi(f.Value)
			if err != nil || n < 0 {
				return fatal("strip count %s is not a number", f.Value)
			}
			o.strip = n
		case "reverse":
			o.reverse = true
		case "input":
			o.input = f.Value
		case "output":
			o.output = f.Value
		case "dry-run":
			o.dryRun = true
		case "forward":
			o.forward = true
		case "backup":
			o.backup = true
		case "backup-if-mismatch":
			o.backupMismatch = true
		case "no-backup-if-mismatch":
			o.backupMismatch = false
		case "fuzz":
			n, err := strconv.Atoi(f.Value)
			if err != nil || n < 0 {
				return fatal("fuzz factor %s is not a number", f.Value)
			}
			o.fuzz = n
		case "reject-file":
			o.reject = f.Value
		case "silent":
			o.silent = true
		case "batch":
			o.batch = true
		case "force":
			o.force = true
		case "remove-empty-files":
			o.removeEmpty = true
		case "directory":
			dir = f.Value
		case "ignore-whitespace":
			o.ignoreSpace = true
		case "suffix":
			o.suffix = f.Value
		case "prefix":
			o.prefix = f.Value
		case "verbose":
			o.verbose = true
		case "posix":
			o.backupMismatch = false
		case "ed":
			return fatal("ed scripts (-e) are not supported here; use a unified diff (diff -u)")
		case "ifdef":
			return fatal("-D (#ifdef output) is not supported here")
		case "merge":
			return fatal("--merge is not supported here")
		}
	}
	if len(operands) > 2 {
		return patchSpec.Usagef(env, "extra operand %s", quoteName(operands[2]))
	}
	var origFile string
	if len(operands) > 0 {
		origFile = operands[0]
	}
	if len(operands) > 1 {
		o.input = operands[1]
	}
	fsys := env.FS
	if dir != "" {
		fi, err := fsys.Stat(dir)
		if err == nil && !fi.IsDir() {
			err = syscall.ENOTDIR
		}
		if err != nil {
			return fatal("Can't change to directory %s : %s", quoteName(dir), command.Strerror(err))
		}
		fsys = subdirFS{FS: fsys, dir: fsys.Abs(dir)}
	}
	// The patch itself.
	var in io.Reader = env.Stdin
	if o.input != "" && o.input != "-" {
		f, err := fsys.Open(o.input)
		if err != nil {
			return fatal("Can't open patch file %s : %s", o.input, command.Strerror(err))
		}
		defer f.Close()
		in = f
	}
	// The patch is held whole; more than 64 MiB of it is refused rather
	// than taking the worker's memory.
	data, err := io.ReadAll(io.LimitReader(in, maxPatchBytes+1))
	if err != nil {
		return fatal("read error : %s", command.Strerror(err))
	}
	if len(data) > maxPatchBytes {
		return fatal("the patch is over the runner's limit of 64 MiB; apply it in parts")
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	lines := strings.Split(text, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	r := &run{ctx: ctx, env: env, fs: fsys, o: o, out: bufio.NewWriter(env.Stdout), origFile: origFile}
	defer r.out.Flush()
	p := &parser{lines: lines}
	found := false
	for {
		if ctx.Err() != nil {
			return 2
		}
		fp, ok := p.next()
		if !ok {
			break
		}
		r.first = !found
		found = true
		r.file(fp)
	}
	if !found {
		if strings.TrimSpace(text) != "" {
			r.out.Flush()
			return fatal("Only garbage was found in the patch input.")
		}
		return 0
	}
	if o.verbose {
		r.say("done\n")
	}
	for _, name := range r.toRemove {
		if o.verbose {
			r.say("Removing file %s\n", name)
		}
		if err := r.fs.Remove(name); err != nil && !isNotExist(err) {
			r.writeFailed(name, err)
		}
	}
	if r.writeErr != nil {
		r.out.Flush()
		return 2
	}
	return r.status
}

// quoteName quotes a name as GNU's messages do.
func quoteName(s string) string { return "'" + s + "'" }

// run is one patch run.
type run struct {
	ctx      context.Context
	env      *command.Env
	fs       command.FS
	o        options
	out      *bufio.Writer
	origFile string
	status   int
	first    bool // the first file of the patch
	writeErr error
	// outputMade: -o's file was created.
	outputMade bool
	toRemove   []string // files the patch empties and deletes
}

func (r *run) say(format string, a ...any) {
	if !r.o.silent {
		fmt.Fprintf(r.out, format, a...)
	}
}

func (r *run) setStatus(s int) {
	if s > r.status {
		r.status = s
	}
}

// stripName applies -p: without it, the last component.
func (r *run) stripName(name string) string {
	if name == "" || name == "/dev/null" {
		return ""
	}
	if r.o.strip < 0 {
		return path.Base(name)
	}
	n := name
	for i := 0; i < r.o.strip; i++ {
		j := strings.IndexByte(n, '/')
		if j < 0 {
			return ""
		}
		n = n[j+1:]
		for strings.HasPrefix(n, "/") {
			n = n[1:]
		}
	}
	return n
}

func (r *run) exists(name string) bool {
	if name == "" {
		return false
	}
	_, err := r.fs.Stat(name)
	return err == nil
}

// target chooses the file a diff patches, as GNU's non-POSIX rules: the
// names that exist, the one with the fewest components, then the
// shortest base name, then the shortest name; a new file takes the new
// name.
func (r *run) target(fp *filePatch) (string, bool) {
	if r.origFile != "" {
		return r.origFile, true
	}
	old, nw, idx := fp.oldName, fp.newName, fp.index
	if fp.isGit && old == "" {
		old, nw = fp.gitOld, fp.gitNew
	}
	if fp.oldName == "/dev/null" {
		fp.newFile = true
	}
	if fp.newName == "/dev/null" {
		fp.delFile = true
	}
	cands := []string{r.stripName(old), r.stripName(nw), r.stripName(idx)}
	if fp.isGit && fp.rename {
		// A rename patches the old file and writes the new one.
		cands = []string{r.stripName(fp.gitOld)}
	}
	var existing []string
	for _, c := range cands {
		if r.exists(c) {
			existing = append(existing, c)
		}
	}
	best := func(names []string) string {
		sort.SliceStable(names, func(i, j int) bool {
			ci, cj := strings.Count(names[i], "/"), strings.Count(names[j], "/")
			if ci != cj {
				return ci < cj
			}
			if bi, bj := len(path.Base(names[i])), len(path.Base(names[j])); bi != bj {
				return bi < bj
			}
			return len(names[i]) < len(names[j])
		})
		return names[0]
	}
	if len(existing) > 0 {
		return best(existing), true
	}
	creates := fp.newFile || len(fp.hunks) > 0 && fp.hunks[0].oldLen == 0 && fp.hunks[0].oldFirst <= 1
	if creates {
		var named []string
		for _, c := range []string{r.stripName(nw), r.stripName(old), r.stripName(idx)} {
			if c != "" {
				named = append(named, c)
			}
		}
		if len(named) > 0 {
			return named[0], true
		}
	}
	return "", false
}

// file applies one file's diff.
func (r *run) file(fp *filePatch) {
	o := r.o
	if o.verbose {
		prefix := "Hmm...  Looks like"
		if !r.first {
			prefix = "Hmm...  The next patch looks like"
		}
		r.say("%s %s to me...\n", prefix, fp.format)
		r.showHeader(fp)
	}
	name, ok := r.target(fp)
	nHunks := len(fp.hunks)
	hunkWord := plural(nHunks, "hunk", "hunks")
	if !ok {
		r.say("can't find file to patch at input line %d\n", fp.hunkLine)
		if o.strip < 0 {
			r.say("Perhaps you should have used the -p or --strip option?\n")
		} else {
			r.say("Perhaps you used the wrong -p or --strip option?\n")
		}
		if !o.verbose {
			r.showHeader(fp)
		}
		if o.batch || o.force {
			r.say("No file to patch.  Skipping patch.\n")
		} else {
			// No terminal to ask on: GNU's default answers.
			r.say("File to patch: \nSkip this patch? [y] \nSkipping patch.\n")
		}
		r.say("%d out of %d %s ignored\n", nHunks, nHunks, hunkWord)
		r.setStatus(1)
		return
	}
	if o.reverse {
		for _, h := range fp.hunks {
			h.reverse()
		}
		fp.newFile, fp.delFile = fp.delFile, fp.newFile
	}
	fi, statErr := r.fs.Stat(name)
	exists := statErr == nil
	// A file to create that is there, or one to delete that is not.
	if !o.force && (fp.newFile && exists && fi.Size() > 0 || fp.delFile && !exists) {
		when, ask := "", "Assume -R?"
		if o.reverse {
			when, ask = ", when reversed,", "Ignore -R?"
		}
		what := "create the file %s,\nwhich already exists!"
		if !fp.newFile {
			what = "delete the file %s,\nwhich does not exist!"
		}
		r.say("The next patch%s would "+what, when, name)
		if o.batch || o.forward {
			r.say("  Skipping patch.\n")
		} else {
			r.say("  %s [n] \nApply anyway? [n] \nSkipping patch.\n", ask)
		}
		r.say("%d out of %d %s ignored\n", nHunks, nHunks, hunkWord)
		r.setStatus(1)
		return
	}
	var data string
	var mode fs.FileMode = 0o644
	if exists {
		if fi.IsDir() {
			r.say("File %s is not a regular file -- refusing to patch\n", name)
			r.say("%d out of %d %s ignored -- saving rejects to file %s\n", nHunks, nHunks, hunkWord, r.rejectName(name))
			r.writeRejects(fp, fp.hunks, name)
			r.setStatus(1)
			return
		}
		mode = fi.Mode().Perm()
		b, err := readFile(r.fs, name)
		if err != nil {
			r.out.Flush()
			fmt.Fprintf(r.env.Stderr, "%s: **** Can't open file %s : %s\n", r.env.Name(), name, command.Strerror(err))
			r.setStatus(2)
			return
		}
		data = b
	}
	if fp.isGit && fp.mode != 0 {
		mode = fs.FileMode(fp.mode & 0o777)
	}
	outName := name
	if fp.isGit && fp.rename && !o.reverse {
		outName = r.stripName(fp.gitNew)
	}
	verb := "patching"
	if o.dryRun {
		verb = "checking"
	}
	switch {
	case o.output != "":
		r.say("%s file %s (read from %s)\n", verb, o.output, name)
	case outName != name:
		r.say("%s file %s (renamed from %s)\n", verb, outName, name)
	default:
		r.say("%s file %s\n", verb, name)
	}
	if o.verbose {
		r.say("Using Plan A...\n")
	}
	if o.output != "" && !o.dryRun && !r.outputMade {
		// GNU creates the output file at once, whatever happens next.
		if err := writeFile(r.fs, o.output, "", 0o644); err != nil {
			r.writeFailed(o.output, err)
			return
		}
		r.outputMade = true
	}
	a := &applier{input: splitFile(data), ignoreSpace: o.ignoreSpace}
	var failed []*hunk
	mismatch := false
	skip := false
	for i, h := range fp.hunks {
		if r.ctx.Err() != nil {
			return
		}
		n := i + 1
		maxFuzz := min(o.fuzz, max(h.prefixContext(), h.suffixContext()))
		where, fuzz := 0, 0
		for {
			where = a.locate(h, fuzz)
			if n == 1 && where == 0 && !o.force {
				where, skip = r.reversed(fp, a, fuzz)
				if where != 0 {
					mismatch = true // turned round: the file is backed up
				}
			}
			if skip || where != 0 || fuzz >= maxFuzz {
				break
			}
			fuzz++
		}
		if skip {
			break
		}
		if where != 0 && where <= a.lastFrozen && len(h.oldLines()) > 0 {
			r.say("misordered hunks! output would be garbled\n")
			where = 0
		}
		if where == 0 {
			mismatch = true
			failed = append(failed, h)
			r.say("Hunk #%d FAILED at %d.\n", n, h.newFirst)
			continue
		}
		if fuzz > 0 || a.inOffset != 0 {
			mismatch = true
		}
		a.apply(h, where)
		newWhere := h.newFirst + a.inOffset
		if o.verbose || fuzz > 0 || a.inOffset != 0 {
			msg := fmt.Sprintf("Hunk #%d succeeded at %d", n, newWhere)
			if fuzz > 0 {
				msg += fmt.Sprintf(" with fuzz %d", fuzz)
			}
			if a.inOffset != 0 {
				msg += fmt.Sprintf(" (offset %d %s)", a.inOffset, plural(abs(a.inOffset), "line", "lines"))
			}
			r.say("%s.\n", msg)
		}
	}
	if skip {
		r.setStatus(1)
		if o.dryRun {
			r.say("%d out of %d %s ignored\n", nHunks, nHunks, hunkWord)
			return
		}
		r.say("%d out of %d %s ignored -- saving rejects to file %s\n", nHunks, nHunks, hunkWord, r.rejectName(name))
		r.writeRejects(fp, fp.hunks, name)
		return
	}
	result := joinFile(a.finish())
	if !o.dryRun {
		r.write(fp, name, outName, exists, result, mode, mismatch || len(failed) > 0)
	}
	if len(failed) > 0 {
		r.setStatus(1)
		if o.dryRun {
			r.say("%d out of %d %s FAILED\n", len(failed), nHunks, hunkWord)
			return
		}
		r.say("%d out of %d %s FAILED -- saving rejects to file %s\n", len(failed), nHunks, hunkWord, r.rejectName(name))
		r.writeRejects(fp, failed, name)
	}
}

// reversed handles a first hunk that fits nowhere: if it fits the other
// way round, the patch was reversed (or already applied, or -R was wrong)
// and GNU asks what to do; with no terminal the answers are the
// defaults, so the patch is skipped, unless -t (take the other way) or
// -N (skip without asking). It returns where the hunk fits when the
// patch is turned round, and whether to skip the file.
func (r *run) reversed(fp *filePatch, a *applier, fuzz int) (int, bool) {
	o := r.o
	h := fp.hunks[0]
	h.reverse()
	saved := a.inOffset
	w := a.locate(h, fuzz)
	if w == 0 {
		h.reverse()
		a.inOffset = saved
		return 0, false
	}
	what, assume, assuming := "Reversed (or previously applied)", "Assume -R?", "Assuming -R."
	if o.reverse {
		what, assume, assuming = "Unreversed", "Ignore -R?", "Ignoring -R."
	}
	switch {
	case o.forward:
		r.say("%s patch detected!  Skipping patch.\n", what)
	case o.batch:
		r.say("%s patch detected!  %s\n", what, assuming)
		for _, other := range fp.hunks[1:] {
			other.reverse()
		}
		return w, false
	default:
		r.say("%s patch detected!  %s [n] \nApply anyway? [n] \nSkipping patch.\n", what, assume)
	}
	h.reverse()
	a.inOffset = saved
	return 0, true
}

func (r *run) showHeader(fp *filePatch) {
	if len(fp.header) == 0 {
		return
	}
	r.say("The text leading up to this was:\n--------------------------\n")
	for _, l := range fp.header {
		r.say("|%s\n", l)
	}
	r.say("--------------------------\n")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func (r *run) rejectName(name string) string {
	if r.o.reject != "" {
		return r.o.reject
	}
	if r.o.output != "" {
		return r.o.output + ".rej"
	}
	return name + ".rej"
}

// writeRejects saves failed hunks as GNU does: the file's two header
// lines (names stripped as -p strips them, their timestamps kept; swapped
// under -R) and the hunks, the way round they were tried, in the patch's
// format (a normal diff's in context format).
func (r *run) writeRejects(fp *filePatch, hunks []*hunk, name string) {
	if r.o.reject == "-" {
		return
	}
	oldName, newName := r.rejName(fp.oldName), r.rejName(fp.newName)
	oldRest, newRest := fp.oldRest, fp.newRest
	if r.o.reverse {
		oldName, newName, oldRest, newRest = newName, oldName, newRest, oldRest
	}
	var b strings.Builder
	switch fp.format {
	case formatUnified:
		fmt.Fprintf(&b, "--- %s%s\n+++ %s%s\n", oldName, oldRest, newName, newRest)
		for _, h := range hunks {
			fmt.Fprintf(&b, "@@ -%s +%s @@\n", unifiedRange(h.oldFirst, h.oldLen), unifiedRange(h.newFirst, h.newLen))
			for _, l := range h.lines {
				b.WriteByte(l.kind)
				b.WriteString(l.text + "\n")
				if l.noEOL {
					b.WriteString("\\ No newline at end of file\n")
				}
			}
		}
	case formatContext:
		fmt.Fprintf(&b, "*** %s%s\n--- %s%s\n", oldName, oldRest, newName, newRest)
		for _, h := range hunks {
			fmt.Fprintf(&b, "***************\n*** %s ****\n", normalRange(h.oldFirst, h.oldLen))
			writeSection(&b, h.ctxOld)
			fmt.Fprintf(&b, "--- %s ----\n", normalRange(h.newFirst, h.newLen))
			writeSection(&b, h.ctxNew)
		}
	default:
		b.WriteString("*** /dev/null\n--- /dev/null\n")
		for _, h := range hunks {
			b.WriteString("***************\n")
			fmt.Fprintf(&b, "*** %s\n", normalRange(h.oldFirst, h.oldLen))
			for _, l := range h.lines {
				if l.kind == '-' {
					b.WriteString("- " + l.text + "\n")
				}
			}
			fmt.Fprintf(&b, "--- %s -----\n", normalRange(h.newFirst, h.newLen))
			for _, l := range h.lines {
				if l.kind == '+' {
					b.WriteString("+ " + l.text + "\n")
				}
			}
		}
	}
	if err := writeFile(r.fs, r.rejectName(name), b.String(), 0o644); err != nil {
		r.writeFailed(r.rejectName(name), err)
	}
}

// rejName is a header's name as the reject file shows it.
func (r *run) rejName(name string) string {
	if name == "/dev/null" || name == "" {
		return name
	}
	if s := r.stripName(name); s != "" {
		return s
	}
	return name
}

func writeSection(b *strings.Builder, lines []hunkLine) {
	for _, l := range lines {
		b.WriteByte(l.kind)
		b.WriteString(" " + l.text + "\n")
		if l.noEOL {
			b.WriteString("\\ No newline at end of file\n")
		}
	}
}

// unifiedRange is "start,len" (len 1 left out; an empty range names the
// line before it).
func unifiedRange(first, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", first-1)
	case 1:
		return strconv.Itoa(first)
	}
	return fmt.Sprintf("%d,%d", first, n)
}

func normalRange(first, n int) string {
	if n <= 1 {
		if n == 0 {
			return strconv.Itoa(first - 1)
		}
		return strconv.Itoa(first)
	}
	return fmt.Sprintf("%d,%d", first, first+n-1)
}

// write saves the patched file: a backup first when asked (-b) or when
// the patch did not fit exactly, then the new content (or the file's
// removal when a diff deletes it), through a temporary file renamed over
// it.
func (r *run) write(fp *filePatch, name, outName string, existed bool, result string, mode fs.FileMode, mismatch bool) {
	o := r.o
	dest := outName
	if o.output != "" {
		dest = o.output
	}
	if (o.backup || o.backupMismatch && mismatch) && o.output == "" && existed {
		backup := o.prefix + name + o.suffix
		if old, err := readFile(r.fs, name); err == nil {
			if err := writeFile(r.fs, backup, old, 0o644); err != nil {
				r.writeFailed(backup, err)
				return
			}
		}
	}
	remove := result == "" && (fp.delFile || o.removeEmpty) && o.output == ""
	if remove {
		// As GNU, emptied files go once every diff is applied.
		r.toRemove = append(r.toRemove, name)
		return
	}
	if dir := path.Dir(dest); dir != "." && !r.exists(dir) {
		if err := r.fs.MkdirAll(dir, 0o777); err != nil {
			r.writeFailed(dest, err)
			return
		}
	}
	if err := writeFile(r.fs, dest, result, mode); err != nil {
		r.writeFailed(dest, err)
		return
	}
	if outName != name && o.output == "" {
		r.fs.Remove(name)
	}
}

func (r *run) writeFailed(name string, err error) {
	r.out.Flush()
	fmt.Fprintf(r.env.Stderr, "%s: **** Can't create file %s : %s\n", r.env.Name(), name, command.Strerror(err))
	r.writeErr = err
	r.setStatus(2)
}

func isNotExist(err error) bool {
	return err != nil && strings.Contains(command.Strerror(err), "No such file")
}

func readFile(fsys command.FS, name string) (string, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	return string(b), err
}

// writeFile writes data to name through a temporary file beside it.
func writeFile(fsys command.FS, name, data string, mode fs.FileMode) error {
	tmp := path.Join(path.Dir(name), "."+path.Base(name)+".patch-tmp")
	f, err := fsys.OpenFile(tmp, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, data); err != nil {
		f.Close()
		fsys.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		fsys.Remove(tmp)
		return err
	}
	fsys.Chmod(tmp, mode)
	if err := fsys.Rename(tmp, name); err != nil {
		fsys.Remove(tmp)
		return err
	}
	return nil
}

// subdirFS resolves relative names under another folder (-d).
type subdirFS struct {
	command.FS
	dir string
}

func (s subdirFS) at(name string) string {
	if path.IsAbs(name) {
		return name
	}
	return path.Join(s.dir, name)
}

func (s subdirFS) Open(name string) (command.File, error) { return s.FS.Open(s.at(name)) }
func (s subdirFS) OpenFile(name string, flag int, perm fs.FileMode) (command.File, error) {
	return s.FS.OpenFile(s.at(name), flag, perm)
}
func (s subdirFS) Stat(name string) (fs.FileInfo, error)  { return s.FS.Stat(s.at(name)) }
func (s subdirFS) Lstat(name string) (fs.FileInfo, error) { return s.FS.Lstat(s.at(name)) }
func (s subdirFS) MkdirAll(name string, perm fs.FileMode) error {
	return s.FS.MkdirAll(s.at(name), perm)
}
func (s subdirFS) Remove(name string) error { return s.FS.Remove(s.at(name)) }
func (s subdirFS) Rename(a, b string) error { return s.FS.Rename(s.at(a), s.at(b)) }
func (s subdirFS) Chmod(name string, m fs.FileMode) error {
	return s.FS.Chmod(s.at(name), m)
}
