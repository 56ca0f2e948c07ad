package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/wsfs/wsfs/runner/command"
)

// goFramesPerCall is about how many Go frames one nested shell function
// call costs in mvdan/sh (stmt → cmd → call → stmts …); the depth limit is
// checked against the Go stack, since the interpreter keeps no count.
const goFramesPerCall = 12

// call runs before every simple command: it bounds recursion and answers
// `type` and `command -v` from the command table (the interpreter's own
// versions stat host paths).
func (st *runState) call(ctx context.Context, args []string) ([]string, error) {
	// Walking the stack costs its depth, so look every few calls; a
	// recursion overshoots the limit by at most that many levels.
	var pc [1]uintptr
	if st.calls.Add(1)%8 == 0 && runtime.Callers(st.lim.MaxCallDepth*goFramesPerCall, pc[:]) > 0 {
		line := fmt.Sprintf("wsfs: function nesting limit %d reached", st.lim.MaxCallDepth)
		st.hit("call-depth", line)
		return nil, &limitError{line}
	}
	if runtime.NumGoroutine() > st.goroutineBase+DefaultMaxGoroutines {
		line := fmt.Sprintf("wsfs: limit of %d concurrent pipeline stages reached", DefaultMaxGoroutines)
		st.hit("goroutines", line)
		return nil, &limitError{line}
	}
	switch args[0] {
	case "eval", "source", ".", "trap":
		prog, msg := st.preflightNested(ctx, args)
		if msg != "" {
			fmt.Fprintf(interp.HandlerCtx(ctx).Stderr, "wsfs: %s: %s\n", args[0], msg)
			return statusArgs(StatusUsage), nil
		}
		// The interpreter parses this code itself: hand it the rewritten
		// text (descriptors, PIPESTATUS, pipeline stages; rewrite.go).
		if prog != nil && args[0] != "trap" {
			if text, ok := rewriteSource(prog); ok {
				if args[0] == "eval" {
					return []string{"eval", text}, nil
				}
				scopeOf(ctx).setPendingSource(args[1], text)
			}
		}
	case fdCommand:
		return st.fdBuiltin(ctx, args), nil
	case pipeStatusCommand:
		return st.pipeStatusBuiltin(ctx, args), nil
	case "set":
		return st.setBuiltin(args), nil
	case "shopt":
		// lastpipe is decided when the script is rewritten (setsLastpipe)
		if i := slices.Index(args, "lastpipe"); i > 1 && (args[1] == "-s" || args[1] == "-u") {
			args = slices.Delete(slices.Clone(args), i, i+1)
			if len(args) == 2 {
				return statusArgs(0), nil
			}
		}
	case "printf":
		return printfBuiltin(interp.HandlerCtx(ctx), args), nil
	case "echo":
		return echoBuiltin(interp.HandlerCtx(ctx), args), nil
	case "help":
		return st.help(interp.HandlerCtx(ctx), args), nil
	case "history":
		// mvdan/sh's history builtin knows no history; the runner's command
		// answers from the workspace's revision log (Config.History).
		hc := interp.HandlerCtx(ctx)
		return statusArgs(st.execCommand(ctx, args, strings.NewReader(""), hc.Stdout, hc.Stderr, agentEnviron(hc), hc.Dir)), nil
	case "alias", "unalias":
		return st.aliasStatus(ctx, args), nil
	case "type":
		return st.typeBuiltin(ctx, args), nil
	case "command":
		if len(args) > 1 && (args[1] == "-v" || args[1] == "-V") {
			return st.commandV(ctx, args), nil
		}
	}
	return args, nil
}

// statusCommand is a name only the call handler produces (no script can
// spell a NUL byte): the exec handler answers it with the status in its
// argument.
const statusCommand = "\x00status"

// statusArgs is a call giving status code.
func statusArgs(code int) []string {
	switch code {
	case 0:
		return []string{"true"}
	case 1:
		return []string{"false"}
	}
	return []string{statusCommand, strconv.Itoa(code)}
}

// preflightNested applies the preflight to code the interpreter parses
// itself: eval's arguments, a sourced file, a trap's action.
func (st *runState) preflightNested(ctx context.Context, args []string) (*syntax.File, string) {
	var src string
	switch args[0] {
	case "eval":
		src = strings.Join(args[1:], " ")
	case "trap":
		if len(args) < 3 || args[1] == "-" || strings.HasPrefix(args[1], "-") {
			return nil, ""
		}
		src = args[1]
	default:
		if len(args) < 2 {
			return nil, ""
		}
		hc := interp.HandlerCtx(ctx)
		f, err := st.fsys.WithDir(hc.Dir, nil, nil, nil).Open(args[1])
		if err != nil {
			return nil, "" // the interpreter reports the failure
		}
		data, err := io.ReadAll(io.LimitReader(f, 16<<20))
		f.Close()
		if err != nil {
			return nil, ""
		}
		src = string(data)
	}
	prog, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return nil, ""
	}
	return prog, Preflight(prog)
}

func (st *runState) kindOf(name string) string {
	switch {
	case syntax.IsKeyword(name):
		return "keyword"
	case interp.IsBuiltin(name):
		return "builtin"
	}
	if _, ok := st.table[name]; ok {
		return "file"
	}
	return ""
}

func (st *runState) typeBuiltin(ctx context.Context, args []string) []string {
	hc := interp.HandlerCtx(ctx)
	mode := ""
	names := args[1:]
	for len(names) > 0 && strings.HasPrefix(names[0], "-") && names[0] != "-" {
		if names[0] == "--" {
			names = names[1:]
			break
		}
		mode = names[0]
		names = names[1:]
	}
	if mode != "" && mode != "-t" && mode != "-p" && mode != "-P" && mode != "-a" {
		fmt.Fprintf(hc.Stderr, "bash: type: %s: invalid option\n", mode)
		return statusArgs(2)
	}
	code := 0
	for _, n := range names {
		k := st.kindOf(n)
		if k == "" && isFunc(ctx, n) {
			k = "function"
		}
		switch {
		case k == "":
			if mode != "-t" && mode != "-p" && mode != "-P" {
				fmt.Fprintf(hc.Stderr, "bash: type: %s: not found\n", n)
			}
			code = 1
		case mode == "-t":
			fmt.Fprintln(hc.Stdout, k)
		case mode == "-p" || mode == "-P":
			if k == "file" {
				fmt.Fprintln(hc.Stdout, "/bin/"+n)
			} else if mode == "-P" {
				code = 1
			}
		case k == "keyword":
			fmt.Fprintf(hc.Stdout, "%s is a shell keyword\n", n)
		case k == "builtin":
			fmt.Fprintf(hc.Stdout, "%s is a shell builtin\n", n)
		case k == "function":
			fmt.Fprintf(hc.Stdout, "%s is a function\n", n)
		default:
			fmt.Fprintf(hc.Stdout, "%s is /bin/%s\n", n, n)
		}
	}
	return statusArgs(code)
}

func (st *runState) commandV(ctx context.Context, args []string) []string {
	hc := interp.HandlerCtx(ctx)
	verbose := args[1] == "-V"
	code := 0
	for _, n := range args[2:] {
		k := st.kindOf(n)
		if k == "" && isFunc(ctx, n) {
			k = "function"
		}
		switch {
		case k == "":
			if verbose {
				fmt.Fprintf(hc.Stderr, "bash: command: %s: not found\n", n)
			}
			code = 1
		case verbose && k == "file":
			fmt.Fprintf(hc.Stdout, "%s is /bin/%s\n", n, n)
		case verbose:
			fmt.Fprintf(hc.Stdout, "%s is a %s\n", n, map[string]string{"keyword": "shell keyword", "builtin": "shell builtin", "function": "function"}[k])
		case k == "file":
			fmt.Fprintln(hc.Stdout, "/bin/"+n)
		default:
			fmt.Fprintln(hc.Stdout, n)
		}
	}
	return statusArgs(code)
}

// help lists the runner's commands with their one-line summaries, or
// the flags of the commands named.
func (st *runState) help(hc interp.HandlerContext, args []string) []string {
	names := args[1:]
	if len(names) == 0 {
		for n := range st.table {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintln(hc.Stdout, "Commands (shell builtins such as cd, echo, printf, read, test also work):")
		for _, n := range names {
			fmt.Fprintf(hc.Stdout, "  %-10s %s\n", n, st.table[n].Summary)
		}
		return statusArgs(0)
	}
	code := 0
	for _, n := range names {
		spec, ok := st.table[n]
		if !ok {
			fmt.Fprintf(hc.Stderr, "bash: help: no help topics match `%s'\n", n)
			code = 1
			continue
		}
		fmt.Fprintf(hc.Stdout, "%s: %s\n", n, spec.Summary)
		if len(spec.Flags) > 0 {
			// Two spaces: a flag such as "-n [-]N" has one inside it.
			fmt.Fprintf(hc.Stdout, "  flags: %s\n", strings.Join(spec.Flags, "  "))
		}
	}
	return statusArgs(code)
}

// aliasStatus tracks the aliases a script defines so that `alias NAME`
// and `unalias NAME` of an unknown name fail as in bash (mvdan/sh's
// succeed); everything else goes on to the interpreter's builtins.
func (st *runState) aliasStatus(ctx context.Context, args []string) []string {
	sc := scopeOf(ctx)
	sc.mu.Lock()
	defer sc.mu.Unlock()
	names := args[1:]
	if len(names) > 0 && strings.HasPrefix(names[0], "-") {
		if args[0] == "unalias" && names[0] == "-a" {
			clear(sc.aliases)
		}
		return args
	}
	var missing []string
	for _, n := range names {
		name, _, isDef := strings.Cut(n, "=")
		switch {
		case args[0] == "alias" && isDef:
			sc.aliases[name] = true
		case sc.aliases[name]:
			if args[0] == "unalias" {
				delete(sc.aliases, name)
			}
		default:
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return args
	}
	hc := interp.HandlerCtx(ctx)
	for _, n := range missing {
		fmt.Fprintf(hc.Stderr, "bash: %s: %s: not found\n", args[0], n)
	}
	return statusArgs(1)
}

// isFunc reports whether the shell's script defines a function of that
// name.
func isFunc(ctx context.Context, name string) bool {
	sc := scopeOf(ctx)
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.funcs[name]
}

// exec runs a command from the table. It never runs a host program.
func (st *runState) exec(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	stdin := hc.Stdin
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	code := st.execCommand(ctx, args, stdin, hc.Stdout, hc.Stderr, agentEnviron(hc), hc.Dir)
	if code != 0 {
		return interp.ExitStatus(uint8(code))
	}
	return nil
}

// notYet are commands the runner will offer but has no implementation
// for yet: they answer so, never with a host binary.
var notYet []string

func (st *runState) execCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string, dir string) int {
	if ctx.Err() != nil {
		return StatusTimeout
	}
	name := args[0]
	if name == statusCommand && len(args) == 2 {
		code, _ := strconv.Atoi(args[1])
		return code
	}
	if v, ok := command.EnvironFrom(ctx); ok {
		environ = v
	}
	if strings.Contains(name, "/") {
		base := path.Base(name)
		if _, ok := st.table[base]; (ok || base == "bash" || base == "sh") && hostBinDirs[path.Dir(name)] {
			return st.execCommand(ctx, append([]string{base}, args[1:]...), stdin, stdout, stderr, environ, dir)
		}
		return st.runFile(ctx, args, stdin, stdout, stderr, environ, dir)
	}
	if name == "bash" || name == "sh" {
		return st.runShell(ctx, args, stdin, stdout, stderr, environ, dir)
	}
	spec, ok := st.table[name]
	if !ok && interp.IsBuiltin(name) {
		return st.execBuiltin(ctx, args, stdin, stdout, stderr, environ, dir)
	}
	if !ok || spec.Func == nil {
		for _, n := range notYet {
			if n == name {
				fmt.Fprintf(stderr, "%s: not available yet\n", name)
				return StatusNotFound
			}
		}
		fmt.Fprintf(stderr, "%s: command not found\n", name)
		return StatusNotFound
	}
	// A command writing into a pipe whose reader is gone stops quietly
	// with 141, as a GNU tool killed by SIGPIPE does under bash.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pipeOut := &commandOutput{w: stdout, cancel: cancel}
	stdout = pipeOut
	stderr = &quietAfterEPIPE{w: stderr, p: pipeOut}
	env := &command.Env{Args: args, Stdin: stdin, Stdout: stdout, Stderr: stderr, Dir: dir,
		FS: st.fsFor(dir, stdin, stdout, stderr), Environ: environ, History: st.cfg.History,
		HasCommand: func(n string) bool { _, ok := st.table[n]; return ok }, LimitHit: st.recordLimit}
	env.Getenv = func(n string) string {
		for i := len(environ) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(environ[i], "="); ok && k == n {
				return v
			}
		}
		return ""
	}
	env.Exec = func(ctx context.Context, a []string, in io.Reader, o, e io.Writer) int {
		if len(a) == 0 {
			return 0
		}
		if in == nil {
			in = strings.NewReader("")
		}
		return st.execCommand(ctx, a, in, o, e, environ, dir)
	}
	code := spec.Func(ctx, env)
	broken, werr := pipeOut.state()
	switch {
	case broken:
		return 141
	case werr != nil && code == 0:
		fmt.Fprintf(stderr, "%s: write error: %s\n", name, command.Strerror(werr))
		return 1
	}
	return code
}

// execBuiltin runs a shell builtin for a command that runs others (xargs
// echo, find -exec test …) in a fresh interpreter with the same handlers.
func (st *runState) execBuiltin(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string, dir string) int {
	words := make([]string, len(args))
	for i, a := range args {
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			fmt.Fprintf(stderr, "%s: cannot pass argument %q\n", args[0], a)
			return 2
		}
		words[i] = q
	}
	prog, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(strings.Join(words, " ")), "")
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", args[0], err)
		return 2
	}
	r, err := st.newInterp(append(environ, noFIFOs), stdin, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", args[0], err)
		return 1
	}
	r.Dir = dir
	err = r.Run(ctx, prog)
	var status interp.ExitStatus
	if errors.As(err, &status) {
		return int(status)
	}
	if err != nil {
		return 1
	}
	return 0
}

// openHandler opens redirection targets in the agent's view.
func (st *runState) openHandler(ctx context.Context, name string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	hc := interp.HandlerCtx(ctx)
	st.mu.Lock()
	n := len(st.open)
	st.mu.Unlock()
	if n >= st.lim.MaxOpenFiles {
		st.hit("open-files", fmt.Sprintf("wsfs: open file limit %d reached", st.lim.MaxOpenFiles))
		return nil, &os.PathError{Op: "open", Path: name, Err: syscall.EMFILE}
	}
	if n := devFd(name); n >= 0 {
		return st.openDevFd(hc, name, n)
	}
	if text, ok := scopeOf(ctx).takePendingSource(name); ok && flag == os.O_RDONLY {
		return streamEnd{r: strings.NewReader(text)}, nil
	}
	if unmarked, ok := strings.CutPrefix(name, clobberMark); ok {
		name = unmarked
	} else if err := st.clobberCheck(hc.Dir, name, flag); err != nil {
		return nil, err
	}
	fsys := st.fsFor(hc.Dir, hc.Stdin, hc.Stdout, hc.Stderr)
	f, err := fsys.OpenFile(name, flag, perm)
	if err != nil {
		return nil, redirError(name, err)
	}
	tf := &trackedFile{File: f, st: st}
	st.mu.Lock()
	st.open[tf] = struct{}{}
	st.mu.Unlock()
	return tf, nil
}

// trackedFile is a file the shell opened; Run closes what the script left
// open (exec 3>file).
type trackedFile struct {
	command.File
	st *runState
}

// Write drops xtrace lines of the hidden commands (see traceFilter).
func (f *trackedFile) Write(p []byte) (int, error) {
	if isHiddenTrace(p) {
		return len(p), nil
	}
	return f.File.Write(p)
}

func (f *trackedFile) Close() error {
	f.st.mu.Lock()
	_, ok := f.st.open[f]
	delete(f.st.open, f)
	f.st.mu.Unlock()
	if !ok {
		return nil
	}
	return f.File.Close()
}

func (st *runState) closeAll() {
	st.fdt.closeAll()
	st.mu.Lock()
	files := make([]*trackedFile, 0, len(st.open))
	for f := range st.open {
		files = append(files, f)
	}
	st.mu.Unlock()
	for _, f := range files {
		f.Close()
	}
}

// readDir lists a folder for globbing.
func (st *runState) readDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, &os.PathError{Op: "readdir", Path: name, Err: syscall.EINTR}
	}
	entries, err := st.fsys.ReadDir(name)
	if err != nil {
		return nil, osPathError("readdir", name, err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, nil
}

func (st *runState) stat(ctx context.Context, name string, follow bool) (fs.FileInfo, error) {
	var fi fs.FileInfo
	var err error
	if follow {
		fi, err = st.fsys.Stat(name)
	} else {
		fi, err = st.fsys.Lstat(name)
	}
	if err != nil {
		return nil, osPathError("stat", name, err)
	}
	return fi, nil
}

// access answers test -r/-w/-x and cd's check as root would: anything
// that exists is readable and writable, executable with an x bit.
func (st *runState) access(ctx context.Context, name string, mode interp.AccessMode) error {
	fi, err := st.fsys.Stat(name)
	if err != nil {
		return osPathError("access", name, err)
	}
	if mode&interp.AccessExec != 0 && !fi.IsDir() && fi.Mode().Perm()&0o111 == 0 {
		return &os.PathError{Op: "access", Path: name, Err: syscall.EACCES}
	}
	return nil
}

// limitFS is the agent's view with the entry limit applied to creations.
type limitFS struct {
	*command.RootFS
	st *runState
}

// reserve counts n new entries, or fails once the limit is reached.
func (l *limitFS) reserve(op, name string, n int) error {
	if n <= 0 {
		return nil
	}
	st := l.st
	st.mu.Lock()
	ok := st.created+n <= st.lim.MaxVisibleEntries
	if ok {
		st.created += n
	}
	st.mu.Unlock()
	if !ok {
		st.hit("entries", fmt.Sprintf("wsfs: entry limit %d reached: no more files or folders can be created by this command", st.lim.MaxVisibleEntries))
		return &fs.PathError{Op: op, Path: name, Err: syscall.EDQUOT}
	}
	return nil
}

func (l *limitFS) missing(name string) bool {
	_, err := l.RootFS.Lstat(name)
	return err != nil
}

func (l *limitFS) Open(name string) (command.File, error) {
	return l.OpenFile(name, os.O_RDONLY, 0)
}

func (l *limitFS) OpenFile(name string, flag int, perm fs.FileMode) (command.File, error) {
	if flag&os.O_CREATE != 0 {
		if _, err := l.RootFS.Stat(name); err != nil && l.missing(name) {
			if err := l.reserve("open", name, 1); err != nil {
				return nil, err
			}
		}
	}
	f, err := l.RootFS.OpenFile(name, flag, perm)
	if err == nil && l.st.wrapFile != nil {
		f = l.st.wrapFile(f)
	}
	return f, err
}

func (l *limitFS) Mkdir(name string, perm fs.FileMode) error {
	if l.missing(name) {
		if err := l.reserve("mkdir", name, 1); err != nil {
			return err
		}
	}
	return l.RootFS.Mkdir(name, perm)
}

func (l *limitFS) MkdirAll(name string, perm fs.FileMode) error {
	n := 0
	for p := l.Abs(name); p != "/" && l.missing(p); p = path.Dir(p) {
		n++
	}
	if err := l.reserve("mkdir", name, n); err != nil {
		return err
	}
	return l.RootFS.MkdirAll(name, perm)
}

func (l *limitFS) Symlink(target, linkname string) error {
	if err := l.reserve("symlink", linkname, 1); err != nil {
		return &os.LinkError{Op: "symlink", Old: target, New: linkname, Err: syscall.EDQUOT}
	}
	return l.RootFS.Symlink(target, linkname)
}

func (l *limitFS) Link(oldname, newname string) error {
	if err := l.reserve("link", newname, 1); err != nil {
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: syscall.EDQUOT}
	}
	return l.RootFS.Link(oldname, newname)
}

// Preflight returns why a parsed script cannot run confined, naming the
// construct and its position, or "" when it can.
func Preflight(f *syntax.File) string {
	var msg string
	syntax.Walk(f, func(n syntax.Node) bool {
		if msg != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.Stmt:
			if n.Background {
				msg = fmt.Sprintf("%s: background jobs (&) are not supported: every command runs to completion; drop the & or use ; or &&", n.Pos())
			}
		case *syntax.CoprocClause:
			msg = fmt.Sprintf("%s: coprocesses (coproc) are not supported; use a pipeline", n.Pos())
		case *syntax.ProcSubst:
			op := "<("
			if n.Op == syntax.CmdOut {
				op = ">("
			}
			msg = fmt.Sprintf("%s: process substitution %s...) is not supported; write to a file under /tmp or use a pipeline", n.Pos(), op)
		}
		return true
	})
	return msg
}
