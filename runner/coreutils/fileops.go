package coreutils

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

// agentUmask is the file creation mask commands assume for modes computed
// without one (chmod +w): the runner's worker runs with 022.
const agentUmask = 0o022

// unixMode turns a Go file mode into the 12 permission bits of st_mode.
func unixMode(m fs.FileMode) uint32 {
	u := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		u |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		u |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		u |= 0o1000
	}
	return u
}

// goMode turns st_mode permission bits into a Go file mode for Chmod.
func goMode(u uint32) fs.FileMode {
	m := fs.FileMode(u & 0o777)
	if u&0o4000 != 0 {
		m |= fs.ModeSetuid
	}
	if u&0o2000 != 0 {
		m |= fs.ModeSetgid
	}
	if u&0o1000 != 0 {
		m |= fs.ModeSticky
	}
	return m
}

var mkdirSpec = getopt.Spec{
	Usage: []string{"[OPTION]... DIRECTORY..."},
	Options: []getopt.Option{
		{Short: 'p', Long: "parents"}, {Short: 'v', Long: "verbose"},
		{Short: 'm', Long: "mode", Arg: getopt.Required, ArgName: "MODE"},
	},
}

func runMkdir(ctx context.Context, env *command.Env) int {
	opts, dirs, code, ok := mkdirSpec.Run(env)
	if !ok {
		return code
	}
	parents, verbose := opts.Has("parents"), opts.Has("verbose")
	mode, _ := opts.Value("mode")
	if len(dirs) == 0 {
		return usageFail(env, 1, "missing operand")
	}
	perm := fs.FileMode(0o777)
	setMode := false
	if mode != "" {
		u, ok := applyMode(mode, 0o777&^agentUmask, true)
		if !ok {
			env.Errorf("invalid mode %s", lquote(mode))
			return 1
		}
		perm, setMode = goMode(u), true
	}
	o := newOut(env)
	status := 0
	for _, d := range dirs {
		if done(ctx) {
			return o.finish(env, statusCanceled)
		}
		var made []string
		var err error
		if parents {
			made, err = mkdirParents(env.FS, d)
		} else {
			err = env.FS.Mkdir(d, 0o777)
			made = []string{d}
		}
		if err != nil {
			env.Errorf("cannot create directory %s: %s", lquote(errPath(err, d)), command.Strerror(err))
			status = 1
			continue
		}
		if setMode {
			if err := env.FS.Chmod(d, perm); err != nil {
				env.Errorf("cannot set permissions of %s: %s", quote(d), command.Strerror(err))
				status = 1
			}
		}
		if verbose {
			for _, m := range made {
				fmt.Fprintf(o, "mkdir: created directory %s\n", quote(m))
			}
		}
	}
	return o.finish(env, status)
}

// errPath is the path a *fs.PathError names, or def.
func errPath(err error, def string) string {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path != "" {
		return pe.Path
	}
	return def
}

// mkdirParents makes d and its missing parents and returns the ones it
// made, in order, as spelled from d.
func mkdirParents(fsys command.FS, d string) ([]string, error) {
	var chain []string
	for p := d; ; p = path.Dir(p) {
		if fi, err := fsys.Stat(p); err == nil {
			if !fi.IsDir() {
				return nil, &fs.PathError{Op: "mkdir", Path: p, Err: syscall.ENOTDIR}
			}
			break
		}
		chain = append(chain, p)
		if p == "." || p == "/" || path.Dir(p) == p {
			break
		}
	}
	var made []string
	for i := len(chain) - 1; i >= 0; i-- {
		p := chain[i]
		if err := fsys.Mkdir(p, 0o777); err != nil {
			if fi, serr := fsys.Stat(p); serr == nil && fi.IsDir() {
				continue
			}
			var pe *fs.PathError
			if errors.As(err, &pe) {
				pe.Path = p
			}
			return made, err
		}
		made = append(made, strings.TrimSuffix(p, "/"))
	}
	return made, nil
}

var rmdirSpec = getopt.Spec{
	Usage: []string{"[OPTION]... DIRECTORY..."},
	Options: []getopt.Option{
		{Short: 'p', Long: "parents"}, {Short: 'v', Long: "verbose"}, {Long: "ignore-fail-on-non-empty"},
	},
}

func runRmdir(ctx context.Context, env *command.Env) int {
	opts, dirs, code, ok := rmdirSpec.Run(env)
	if !ok {
		return code
	}
	parents, verbose, ignoreNonEmpty := opts.Has("parents"), opts.Has("verbose"), opts.Has("ignore-fail-on-non-empty")
	if len(dirs) == 0 {
		return usageFail(env, 1, "missing operand")
	}
	o := newOut(env)
	status := 0
	remove := func(d string) bool {
		if verbose {
			fmt.Fprintf(o, "rmdir: removing directory, %s\n", quote(d))
		}
		var err error
		if fi, lerr := env.FS.Lstat(d); lerr != nil {
			err = lerr
		} else if !fi.IsDir() {
			err = syscall.ENOTDIR
		} else {
			err = env.FS.Remove(d)
		}
		if err == nil {
			return true
		}
		if ignoreNonEmpty && (errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)) {
			return false
		}
		o.Flush()
		env.Errorf("failed to remove %s: %s", quote(d), command.Strerror(err))
		status = 1
		return false
	}
	for _, d := range dirs {
		if done(ctx) {
			return o.finish(env, statusCanceled)
		}
		if !remove(d) || !parents {
			continue
		}
		for p := strings.TrimRight(d, "/"); ; {
			p = dirName(p)
			if p == "." || p == "/" {
				break
			}
			if !remove(p) {
				break
			}
		}
	}
	return o.finish(env, status)
}

var touchSpec = getopt.Spec{
	Usage: []string{"[OPTION]... FILE..."},
	Options: []getopt.Option{
		{Short: 'c', Long: "no-create"}, {Short: 'a'}, {Short: 'm'}, {Short: 'f'}, {Short: 'h', Long: "no-dereference"},
		{Short: 'd', Long: "date", Arg: getopt.Required, ArgName: "STRING"},
		{Short: 't', Arg: getopt.Required, ArgName: "STAMP"},
		{Short: 'r', Long: "reference", Arg: getopt.Required, ArgName: "FILE"},
		{Long: "time", Arg: getopt.Required, ArgName: "WORD"},
	},
}

func runTouch(ctx context.Context, env *command.Env) int {
	opts, files, code, ok := touchSpec.Run(env)
	if !ok {
		return code
	}
	noCreate, onlyA, onlyM := opts.Has("no-create"), opts.Has("a"), opts.Has("m")
	dateStr, _ := opts.Value("date")
	stamp, _ := opts.Value("t")
	ref, _ := opts.Value("reference")
	for _, v := range opts.Values("time") {
		switch v {
		case "atime", "access", "use":
			onlyA = true
		case "mtime", "modify":
			onlyM = true
		default:
			return usageFail(env, 1, fmt.Sprintf("invalid argument %s for '--time'", lquote(v)))
		}
	}
	if len(files) == 0 {
		return usageFail(env, 1, "missing file operand")
	}
	now := time.Now()
	atime, mtime := now, now
	switch {
	case ref != "":
		fi, err := env.FS.Stat(ref)
		if err != nil {
			env.Errorf("failed to get attributes of %s: %s", quote(ref), command.Strerror(err))
			return 1
		}
		mtime = fi.ModTime()
		atime = accessTime(fi)
		if dateStr != "" {
			t, err := parseDate(dateStr, mtime, time.Local)
			if err != nil {
				env.Errorf("invalid date format %s", lquote(dateStr))
				return 1
			}
			atime, mtime = t, t
		}
	case dateStr != "":
		t, err := parseDate(dateStr, now, time.Local)
		if err != nil {
			env.Errorf("invalid date format %s", lquote(dateStr))
			return 1
		}
		atime, mtime = t, t
	case stamp != "":
		t, ok := parseTouchStamp(stamp, now)
		if !ok {
			env.Errorf("invalid date format %s", lquote(stamp))
			return 1
		}
		atime, mtime = t, t
	}
	if onlyA && !onlyM {
		mtime = time.Time{}
	}
	if onlyM && !onlyA {
		atime = time.Time{}
	}
	status := 0
	for _, f := range files {
		if done(ctx) {
			return statusCanceled
		}
		if f == "-" {
			continue // touches stdout in GNU; nothing to do here
		}
		if _, err := env.FS.Stat(f); err != nil {
			if noCreate {
				continue
			}
			fh, err := env.FS.OpenFile(f, os.O_WRONLY|os.O_CREATE, 0o666)
			if err != nil {
				env.Errorf("cannot touch %s: %s", quote(f), command.Strerror(err))
				status = 1
				continue
			}
			fh.Close()
		}
		if err := env.FS.Chtimes(f, atime, mtime); err != nil {
			env.Errorf("setting times of %s: %s", quote(f), command.Strerror(err))
			status = 1
		}
	}
	return status
}

// accessTime is a file's atime where the system reports it, else mtime.
func accessTime(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Atim.Sec, st.Atim.Nsec)
	}
	return fi.ModTime()
}

// parseTouchStamp reads touch -t's [[CC]YY]MMDDhhmm[.ss] in local time.
func parseTouchStamp(s string, now time.Time) (time.Time, bool) {
	main, secs, hasSecs := strings.Cut(s, ".")
	sec := 0
	if hasSecs {
		n, err := strconv.Atoi(secs)
		if err != nil || len(secs) != 2 || n > 60 {
			return time.Time{}, false
		}
		sec = n
	}
	for _, ch := range main {
		if ch < '0' || ch > '9' {
			return time.Time{}, false
		}
	}
	year := now.Year()
	switch len(main) {
	case 8:
	case 10:
		yy, _ := strconv.Atoi(main[:2])
		year = 1900 + yy
		if yy < 69 {
			year = 2000 + yy
		}
		main = main[2:]
	case 12:
		year, _ = strconv.Atoi(main[:4])
		main = main[4:]
	default:
		return time.Time{}, false
	}
	num := func(i int) int { n, _ := strconv.Atoi(main[i : i+2]); return n }
	mon, day, hour, min := num(0), num(2), num(4), num(6)
	if mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59 {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(mon), day, hour, min, sec, 0, time.Local)
	if t.Day() != day {
		return time.Time{}, false
	}
	return t, true
}

type rmFlags struct {
	force, recursive, dirs, verbose, noPreserveRoot bool
}

var rmSpec = getopt.Spec{Options: []getopt.Option{
	{Short: 'f', Long: "force"}, {Short: 'r', Long: "recursive"}, {Short: 'R', Key: "recursive"},
	{Short: 'd', Long: "dir"}, {Short: 'v', Long: "verbose"}, {Short: 'i'}, {Short: 'I'},
	{Long: "interactive", Arg: getopt.Optional, ArgName: "WHEN"}, {Long: "no-preserve-root"},
	{Long: "preserve-root", Arg: getopt.Optional, ArgName: "all"}, {Long: "one-file-system"},
}}

func runRm(ctx context.Context, env *command.Env) int {
	opts, files, code, ok := rmSpec.Run(env)
	if !ok {
		return code
	}
	f := rmFlags{recursive: opts.Has("recursive"), dirs: opts.Has("dir"), verbose: opts.Has("verbose")}
	for _, o := range opts {
		switch o.Key {
		case "force", "i":
			f.force = o.Key == "force"
		case "no-preserve-root", "preserve-root":
			f.noPreserveRoot = o.Key == "no-preserve-root"
		}
	}
	if len(files) == 0 {
		if f.force {
			return 0
		}
		return usageFail(env, 1, "missing operand")
	}
	o := newOut(env)
	status := 0
	for _, name := range files {
		if done(ctx) {
			return o.finish(env, statusCanceled)
		}
		if b := baseName(name); (b == "." || b == "..") && !strings.HasSuffix(strings.TrimRight(name, "/"), "/"+b+"/") {
			o.Flush()
			env.Errorf("refusing to remove '.' or '..' directory: skipping %s", quote(name))
			status = 1
			continue
		}
		if f.recursive && !f.noPreserveRoot && env.FS.Abs(name) == "/" {
			o.Flush()
			if name == "/" {
				env.Errorf("it is dangerous to operate recursively on %s", quote(name))
			} else {
				env.Errorf("it is dangerous to operate recursively on %s (same as '/')", quote(name))
			}
			env.Errorf("use --no-preserve-root to override this failsafe")
			status = 1
			continue
		}
		if !rmOne(ctx, env, o, f, name, true) {
			status = 1
		}
		if done(ctx) {
			return o.finish(env, statusCanceled)
		}
	}
	return o.finish(env, status)
}

// rmOne removes name (and its contents with -r) and reports failures.
func rmOne(ctx context.Context, env *command.Env, o *out, f rmFlags, name string, top bool) bool {
	fail := func(err error) bool {
		o.Flush()
		env.Errorf("cannot remove %s: %s", quote(name), command.Strerror(err))
		return false
	}
	fi, err := env.FS.Lstat(name)
	if err != nil {
		if f.force && errors.Is(err, fs.ErrNotExist) && top {
			return true
		}
		return fail(err)
	}
	if !fi.IsDir() {
		if err := env.FS.Remove(name); err != nil {
			return fail(err)
		}
		if f.verbose {
			fmt.Fprintf(o, "removed %s\n", quote(name))
		}
		return true
	}
	if !f.recursive {
		if !f.dirs {
			return fail(syscall.EISDIR)
		}
		if err := env.FS.Remove(name); err != nil {
			return fail(err)
		}
		if f.verbose {
			fmt.Fprintf(o, "removed directory %s\n", quote(name))
		}
		return true
	}
	ents, err := env.FS.ReadDir(name)
	if err != nil {
		o.Flush()
		env.Errorf("cannot remove %s: %s", quote(name), command.Strerror(err))
		return false
	}
	ok := true
	for _, e := range ents {
		if done(ctx) {
			return false
		}
		if !rmOne(ctx, env, o, f, joinPath(name, e.Name()), false) {
			ok = false
		}
	}
	if !ok {
		return false
	}
	if err := env.FS.Remove(name); err != nil {
		return fail(err)
	}
	if f.verbose {
		fmt.Fprintf(o, "removed directory %s\n", quote(name))
	}
	return true
}

// joinPath joins a directory operand and an entry as GNU tools spell it:
// "d/x", "d/x" for "d/", "/x" for "/".
func joinPath(dir, name string) string {
	if strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}

type lnFlags struct {
	symbolic, force, noDeref, verbose, noTargetDir bool
	targetDir                                      string
}

var lnSpec = getopt.Spec{
	Usage: []string{"[OPTION]... TARGET LINK_NAME", "[OPTION]... TARGET", "[OPTION]... TARGET... DIRECTORY"},
	Options: []getopt.Option{
		{Short: 's', Long: "symbolic"}, {Short: 'f', Long: "force"}, {Short: 'n', Long: "no-dereference"},
		{Short: 'v', Long: "verbose"}, {Short: 'T', Long: "no-target-directory"},
		{Short: 't', Long: "target-directory", Arg: getopt.Required, ArgName: "DIRECTORY"}, {Short: 'P', Long: "physical"},
		{Short: 'L', Long: "logical"}, {Short: 'i', Long: "interactive"},
	},
}

func runLn(ctx context.Context, env *command.Env) int {
	opts, args, code, ok := lnSpec.Run(env)
	if !ok {
		return code
	}
	f := lnFlags{symbolic: opts.Has("symbolic"), noDeref: opts.Has("no-dereference"), verbose: opts.Has("verbose"),
		noTargetDir: opts.Has("no-target-directory")}
	f.targetDir, _ = opts.Value("target-directory")
	for _, o := range opts {
		if o.Key == "force" || o.Key == "interactive" {
			f.force = o.Key == "force"
		}
	}
	if len(args) == 0 {
		return usageFail(env, 1, "missing file operand")
	}
	type pair struct{ target, link string }
	var pairs []pair
	isDir := func(p string) bool {
		var fi fs.FileInfo
		var err error
		if f.noDeref {
			fi, err = env.FS.Lstat(p)
		} else {
			fi, err = env.FS.Stat(p)
		}
		return err == nil && fi.IsDir()
	}
	switch {
	case f.targetDir != "":
		for _, t := range args {
			pairs = append(pairs, pair{t, joinPath(f.targetDir, baseName(t))})
		}
	case len(args) == 1:
		pairs = append(pairs, pair{args[0], baseName(args[0])})
	case len(args) == 2 && (f.noTargetDir || !isDir(args[1])):
		pairs = append(pairs, pair{args[0], args[1]})
	default:
		dir := args[len(args)-1]
		if f.noTargetDir {
			return usageFail(env, 1, "extra operand "+lquote(args[2]))
		}
		if !isDir(dir) {
			env.Errorf("target %s is not a directory", quote(dir))
			return 1
		}
		for _, t := range args[:len(args)-1] {
			pairs = append(pairs, pair{t, joinPath(dir, baseName(t))})
		}
	}
	o := newOut(env)
	status := 0
	kind := "hard link"
	if f.symbolic {
		kind = "symbolic link"
	}
	for _, p := range pairs {
		if done(ctx) {
			return o.finish(env, statusCanceled)
		}
		if !f.symbolic {
			tfi, err := env.FS.Lstat(p.target)
			if err != nil {
				env.Errorf("failed to access %s: %s", quote(p.target), command.Strerror(err))
				status = 1
				continue
			}
			if tfi.IsDir() {
				env.Errorf("%s: hard link not allowed for directory", quote(p.target))
				status = 1
				continue
			}
		}
		if f.force {
			if lfi, err := env.FS.Lstat(p.link); err == nil {
				if !f.symbolic && sameFile(env.FS, p.target, p.link) {
					env.Errorf("%s and %s are the same file", quote(p.target), quote(p.link))
					status = 1
					continue
				}
				if lfi.IsDir() {
					env.Errorf("%s: cannot overwrite directory", quote(p.link))
					status = 1
					continue
				}
				env.FS.Remove(p.link)
			}
		}
		var err error
		if f.symbolic {
			err = env.FS.Symlink(p.target, p.link)
		} else {
			err = env.FS.Link(p.target, p.link)
		}
		if err != nil {
			if !f.symbolic && errors.Is(err, fs.ErrExist) && sameFile(env.FS, p.target, p.link) {
				env.Errorf("%s and %s are the same file", quote(p.target), quote(p.link))
			} else {
				env.Errorf("failed to create %s %s: %s", kind, quote(p.link), command.Strerror(err))
			}
			status = 1
			continue
		}
		if f.verbose {
			arrow := "=>"
			if f.symbolic {
				arrow = "->"
			}
			fmt.Fprintf(o, "%s %s %s\n", quote(p.link), arrow, quote(p.target))
		}
	}
	return o.finish(env, status)
}

// sameFile reports whether two names are one file (not following a last
// symlink).
func sameFile(fsys command.FS, a, b string) bool {
	fa, err1 := fsys.Lstat(a)
	fb, err2 := fsys.Lstat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

var chmodSpec = getopt.Spec{
	Usage: []string{"[OPTION]... MODE[,MODE]... FILE...", "[OPTION]... --reference=RFILE FILE..."},
	Options: []getopt.Option{
		{Short: 'R', Long: "recursive"}, {Short: 'v', Long: "verbose"}, {Short: 'c', Long: "changes"},
		{Short: 'f', Long: "silent"}, {Long: "quiet", Key: "silent"},
		{Long: "reference", Arg: getopt.Required, ArgName: "RFILE"}, {Long: "preserve-root"}, {Long: "no-preserve-root"},
	},
}

func runChmod(ctx context.Context, env *command.Env) int {
	// GNU chmod takes "-w", "-x", "-rwx" as a mode, not as options.
	args := env.Args[1:]
	var modeArg string
	rest := []string{env.Args[0]}
	for i, a := range args {
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		if modeArg == "" && len(a) > 1 && a[0] == '-' && strings.Trim(a[1:], "rwxXstugoa,+-=0123456789") == "" && strings.ContainsAny(a[1:], "rwxXst") {
			modeArg = a
			continue
		}
		rest = append(rest, a)
	}
	sub := *env
	sub.Args = rest
	opts, operands, code, ok := chmodSpec.Run(&sub)
	if !ok {
		return code
	}
	recursive, verbose, changes, quiet := opts.Has("recursive"), opts.Has("verbose"), opts.Has("changes"), opts.Has("silent")
	ref, _ := opts.Value("reference")
	if modeArg != "" {
		operands = append([]string{modeArg}, operands...)
	}
	var mode string
	var refMode uint32
	if ref != "" {
		fi, err := env.FS.Stat(ref)
		if err != nil {
			env.Errorf("failed to get attributes of %s: %s", quote(ref), command.Strerror(err))
			return 1
		}
		refMode = unixMode(fi.Mode())
	} else {
		if len(operands) == 0 {
			return usageFail(env, 1, "missing operand")
		}
		mode, operands = operands[0], operands[1:]
		if _, ok := applyMode(mode, 0, false); !ok {
			return usageFail(env, 1, "invalid mode: "+lquote(mode))
		}
	}
	if len(operands) == 0 {
		if mode != "" {
			return usageFail(env, 1, "missing operand after "+lquote(mode))
		}
		return usageFail(env, 1, "missing operand")
	}
	o := newOut(env)
	status := 0
	var walk func(name string, top bool)
	walk = func(name string, top bool) {
		if done(ctx) {
			return
		}
		var fi fs.FileInfo
		var err error
		if top {
			fi, err = env.FS.Stat(name)
		} else {
			fi, err = env.FS.Lstat(name)
		}
		if err != nil {
			if !quiet {
				env.Errorf("cannot access %s: %s", quote(name), command.Strerror(err))
			}
			status = 1
			return
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return // links met while recursing are not followed or changed
		}
		old := unixMode(fi.Mode())
		newMode := refMode
		if ref == "" {
			newMode, _ = applyMode(mode, old, fi.IsDir())
		}
		if newMode != old {
			if err := env.FS.Chmod(name, goMode(newMode)); err != nil {
				if !quiet {
					env.Errorf("changing permissions of %s: %s", quote(name), command.Strerror(err))
				}
				status = 1
			} else if verbose || changes {
				fmt.Fprintf(o, "mode of %s changed from %04o (%s) to %04o (%s)\n", quote(name), old, permString(old), newMode, permString(newMode))
			}
		} else if verbose {
			fmt.Fprintf(o, "mode of %s retained as %04o (%s)\n", quote(name), old, permString(old))
		}
		if recursive && fi.IsDir() {
			ents, err := env.FS.ReadDir(name)
			if err != nil {
				if !quiet {
					env.Errorf("cannot read directory %s: %s", quote(name), command.Strerror(err))
				}
				status = 1
				return
			}
			for _, e := range ents {
				walk(joinPath(name, e.Name()), false)
			}
		}
	}
	for _, name := range operands {
		walk(name, true)
		if done(ctx) {
			return o.finish(env, statusCanceled)
		}
	}
	return o.finish(env, status)
}

// permString is the nine rwx characters of a mode (with s, S, t, T).
func permString(m uint32) string {
	b := []byte("rwxrwxrwx")
	for i := 0; i < 9; i++ {
		if m&(1<<(8-i)) == 0 {
			b[i] = '-'
		}
	}
	special := func(bit uint32, i int, set, unset byte) {
		if m&bit != 0 {
			if b[i] == 'x' {
				b[i] = set
			} else {
				b[i] = unset
			}
		}
	}
	special(0o4000, 2, 's', 'S')
	special(0o2000, 5, 's', 'S')
	special(0o1000, 8, 't', 'T')
	return string(b)
}

// applyMode applies a chmod mode (octal, or symbolic clauses such as
// "u+x,g-w,a=r", "o=u", "+X") to old and reports whether it parsed. Who-less
// clauses honour the umask, as GNU chmod.
func applyMode(spec string, old uint32, isDir bool) (uint32, bool) {
	if spec == "" {
		return 0, false
	}
	if spec[0] >= '0' && spec[0] <= '7' {
		n, err := strconv.ParseUint(spec, 8, 32)
		if err != nil || n > 0o7777 {
			return 0, false
		}
		m := uint32(n)
		// GNU keeps a directory's setuid/setgid bits unless 5+ digits say otherwise.
		if isDir && len(spec) < 5 {
			m |= old & 0o6000
		}
		return m, true
	}
	m := old
	for _, clause := range strings.Split(spec, ",") {
		i := 0
		var who uint32
		for i < len(clause) && strings.IndexByte("ugoa", clause[i]) >= 0 {
			switch clause[i] {
			case 'u':
				who |= 0o4700
			case 'g':
				who |= 0o2070
			case 'o':
				who |= 0o1007
			case 'a':
				who |= 0o7777
			}
			i++
		}
		if i == len(clause) {
			return 0, false
		}
		useUmask := who == 0
		if useUmask {
			who = 0o7777
		}
		for i < len(clause) {
			op := clause[i]
			if op != '+' && op != '-' && op != '=' {
				return 0, false
			}
			i++
			var bits uint32
			copied := false
			for i < len(clause) && strings.IndexByte("rwxXstugo", clause[i]) >= 0 {
				switch ch := clause[i]; ch {
				case 'r':
					bits |= 0o444
				case 'w':
					bits |= 0o222
				case 'x':
					bits |= 0o111
				case 'X':
					if isDir || m&0o111 != 0 {
						bits |= 0o111
					}
				case 's':
					bits |= 0o6000
				case 't':
					bits |= 0o1000
				case 'u', 'g', 'o':
					if copied || bits != 0 {
						return 0, false
					}
					var src uint32
					switch ch {
					case 'u':
						src = (m >> 6) & 7
					case 'g':
						src = (m >> 3) & 7
					case 'o':
						src = m & 7
					}
					bits = src<<6 | src<<3 | src
					copied = true
				}
				i++
			}
			mask := who
			if useUmask {
				mask &^= agentUmask
			}
			switch op {
			case '+':
				m |= bits & mask
			case '-':
				m &^= bits & mask
			case '=':
				clear := who
				if isDir && bits&0o6000 == 0 {
					clear &^= 0o6000 // '=' keeps a directory's setuid/setgid bits
				}
				m = m&^clear | bits&mask
			}
		}
	}
	return m, true
}
