package bash

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"
	"syscall"

	"github.com/wsfs/wsfs/runner/command"
)

// binDirs are the folders that hold the runner's commands in the agent's
// view (command.RootFS.SetPrograms).
var binDirs = map[string]bool{"/bin": true, "/usr/bin": true}

// stdio is the three streams and the descriptor table a program or a
// nested shell gets.
type stdio struct {
	in       io.Reader
	out, err io.Writer
	fds      *fdTable // descriptors beyond 0–2 (nil: none)
}

// stdio returns the shell's current descriptors as a program's.
func (sh *Shell) stdio() stdio {
	return stdio{in: sh.fds.reader(0), out: sh.fds.writer(1), err: sh.fds.writer(2), fds: sh.fds}
}

// abs returns the agent path of name relative to the shell's directory.
func (sh *Shell) abs(name string) string {
	if path.IsAbs(name) {
		return path.Clean(name)
	}
	return path.Clean(sh.dir + "/" + name)
}

// view is the agent's view from the shell's directory, for the shell's
// own file operations (tests, cd, globbing, redirections).
func (sh *Shell) view() *command.RootFS {
	return sh.run.cfg.FS.WithDir(sh.dir, nil, nil, nil)
}

// program returns the runner command a path names: /bin/NAME or
// /usr/bin/NAME.
func (sh *Shell) program(p string) (string, bool) {
	abs := sh.abs(p)
	if !binDirs[path.Dir(abs)] {
		return "", false
	}
	name := path.Base(abs)
	if _, ok := sh.run.cfg.Commands[name]; ok {
		return name, true
	}
	return "", false
}

// executable reports whether p names something that runs: a program, or
// a regular file of the view with an x bit.
func (sh *Shell) executable(p string) bool {
	if _, ok := sh.program(p); ok {
		return true
	}
	fi, err := sh.view().Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// lookPath finds a command name in PATH (through the hash table). found
// is false when nothing runs by that name; then a missing PATH is
// reported as bash does ("No such file or directory").
func (sh *Shell) lookPath(name string) (p string, found bool) {
	if p, ok := sh.hash[name]; ok {
		return p, true
	}
	pathVar, _ := sh.getVar("PATH")
	for _, dir := range strings.Split(pathVar, ":") {
		if dir == "" {
			dir = "."
		}
		cand := dir + "/" + name
		if dir == "." {
			cand = name
		}
		if sh.executable(cand) {
			if !path.IsAbs(cand) && dir != "." {
				cand = sh.abs(cand)
			}
			if dir == "." {
				cand = "./" + name
			}
			if sh.hash == nil {
				sh.hash = map[string]string{}
			}
			sh.hash[name] = cand
			return cand, true
		}
	}
	return "", false
}

// pathUnset reports whether PATH is unset or empty (bash then looks in
// the current folder and says "No such file or directory").
func (sh *Shell) pathUnset() bool {
	v, ok := sh.getVar("PATH")
	return !ok || v == ""
}

// environWith lists the exported variables plus prefix assignments.
func (sh *Shell) environWith(pre []prefixAssign) []string {
	env := sh.environ()
	if len(pre) == 0 {
		return env
	}
	idx := map[string]int{}
	for i, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		idx[k] = i
	}
	for _, p := range pre {
		if p.hasSub || p.isArray {
			continue
		}
		val := p.value
		if p.appendTo {
			old, _ := sh.getVar(p.name)
			val = old + val
		}
		if i, ok := idx[p.name]; ok {
			env[i] = p.name + "=" + val
		} else {
			idx[p.name] = len(env)
			env = append(env, p.name+"="+val)
		}
	}
	return env
}

// external runs a command found in PATH or named by a path.
func (sh *Shell) external(fields []string, pre []prefixAssign) int {
	name := fields[0]
	env := sh.environWith(pre)
	var p string
	if strings.Contains(name, "/") {
		p = name
	} else {
		found := false
		p, found = sh.lookPath(name)
		if found {
			if sh.hashHits == nil {
				sh.hashHits = map[string]int{}
			}
			sh.hashHits[name]++
		}
		if !found {
			if sh.pathUnset() {
				sh.errorf("%s: No such file or directory", name)
			} else {
				if h, ok := sh.funcs["command_not_found_handle"]; ok {
					sh.callFunction(h, append([]string{"command_not_found_handle"}, fields...))
					return sh.status
				}
				sh.errorf("%s: command not found", name)
			}
			return 127
		}
	}
	return sh.execPath(p, fields, env, sh.stdio())
}

// execPath runs what a path names: a runner command or a script file.
func (sh *Shell) execPath(p string, args, env []string, sio stdio) int {
	if prog, ok := sh.program(p); ok {
		args = append([]string{prog}, args[1:]...)
		if prog == "bash" || prog == "sh" {
			return sh.runShellCommand(args, env, sio)
		}
		return sh.runProgram(prog, args, env, sio)
	}
	return sh.runFile(p, args, env, sio)
}

// fdLookup returns /dev/fd/N's file for a program: a descriptor of t.
func fdLookup(t *fdTable) func(n int) (command.File, bool) {
	return func(n int) (command.File, bool) {
		of := t.get(n)
		if of == nil {
			return nil, false
		}
		return &fdView{of: of, n: n}, true
	}
}

// commandFS is the view a program gets: its directory, its streams as
// /dev/stdin …, the shell's descriptors as /dev/fd/N, the runner's limits.
func (sh *Shell) commandFS(dir string, sio stdio) command.FS {
	v := sh.run.cfg.FS.WithDir(dir, sio.in, sio.out, sio.err)
	t := sio.fds
	if t == nil {
		t = &fdTable{}
		t.set(0, streamFile("/dev/stdin", sio.in, nil))
		t.set(1, streamFile("/dev/stdout", nil, sio.out))
		t.set(2, streamFile("/dev/stderr", nil, sio.err))
	}
	v = v.WithFds(fdLookup(t))
	if sh.run.cfg.WrapFS != nil {
		return sh.run.cfg.WrapFS(v)
	}
	return v
}

// runProgram runs a runner command (Go code) with the shell's streams.
func (sh *Shell) runProgram(name string, args, env []string, sio stdio) int {
	spec := sh.run.cfg.Commands[name]
	if spec.Func == nil {
		fmt.Fprintf(sio.err, "%s: command not found\n", name)
		return 127
	}
	if sh.stopped() {
		return 124
	}
	ctx, cancel := context.WithCancel(sh.ctx)
	defer cancel()
	out := &commandOutput{w: sio.out, cancel: cancel}
	errw := &quietAfterEPIPE{w: sio.err, p: out}
	pio := stdio{in: sio.in, out: out, err: errw, fds: sio.fds}
	e := &command.Env{Args: args, Stdin: sio.in, Stdout: out, Stderr: errw, Dir: sh.dir,
		FS: sh.commandFS(sh.dir, pio), Environ: env, History: sh.run.cfg.History,
		HasCommand: func(n string) bool { _, ok := sh.run.cfg.Commands[n]; return ok }}
	e.LimitHit = sh.run.cfg.Record
	e.Getenv = func(n string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(env[i], "="); ok && k == n {
				return v
			}
		}
		return ""
	}
	dir := sh.dir
	e.Exec = func(ctx context.Context, a []string, in io.Reader, o, er io.Writer) int {
		if len(a) == 0 {
			return 0
		}
		if in == nil {
			in = strings.NewReader("")
		}
		subEnv := env
		if v, ok := command.EnvironFrom(ctx); ok {
			subEnv = v
		}
		return sh.execFromProgram(ctx, a, subEnv, dir, stdio{in: in, out: o, err: er})
	}
	code := spec.Func(ctx, e)
	broken, werr := out.state()
	switch {
	case broken:
		return 141
	case werr != nil && code == 0:
		fmt.Fprintf(sio.err, "%s: write error: %s\n", name, command.Strerror(werr))
		return 1
	}
	return code
}

// execFromProgram runs a command a program asked for (xargs, find
// -exec, env, timeout): found through the PATH of its environment, never
// a builtin or a function, as exec(3) would.
func (sh *Shell) execFromProgram(ctx context.Context, args, env []string, dir string, sio stdio) int {
	sub := sh.forkFor(ctx, dir, env)
	defer sub.finish()
	name := args[0]
	p := name
	if !strings.Contains(name, "/") {
		found := false
		p, found = sub.lookPath(name)
		if !found {
			fmt.Fprintf(sio.err, "%s: command not found\n", name)
			return 127
		}
	}
	if !sub.executableOrScript(p) {
		fi, err := sub.view().Stat(p)
		switch {
		case err != nil:
			fmt.Fprintf(sio.err, "bash: %s: No such file or directory\n", name)
			return 127
		case fi.IsDir():
			fmt.Fprintf(sio.err, "bash: %s: Is a directory\n", name)
			return 126
		}
		fmt.Fprintf(sio.err, "bash: %s: Permission denied\n", name)
		return 126
	}
	return sub.execPath(p, args, env, sio)
}

func (sh *Shell) executableOrScript(p string) bool { return sh.executable(p) }

// forkFor makes a shell for a command a program runs: the environment
// it was given, the program's directory, a fresh descriptor table.
func (sh *Shell) forkFor(ctx context.Context, dir string, env []string) *Shell {
	sub := sh.fork()
	sub.ctx = ctx
	sub.dir = dir
	sub.vars.release()
	sub.vars = newVarTable()
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && isValidName(k) {
			sub.vars.m[k] = &variable{attrs: aExport, set: true, str: v}
		}
	}
	if _, ok := sub.vars.m["PATH"]; !ok {
		sub.vars.m["PATH"] = &variable{set: true, str: DefaultPath}
	}
	return sub
}

// commandOutput watches a program's stdout: a write into a pipe whose
// reader is gone stops the program (status 141, as SIGPIPE would), and
// any other refused write is remembered, so that a program that ignores
// it still fails.
type commandOutput struct {
	w      io.Writer
	cancel func()
	mu     sync.Mutex
	broken bool
	err    error
}

func (c *commandOutput) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil {
		c.mu.Lock()
		if errors.Is(err, syscall.EPIPE) {
			c.broken = true
			c.cancel()
		} else if c.err == nil {
			c.err = err
		}
		c.mu.Unlock()
	}
	return n, err
}

func (c *commandOutput) state() (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.broken, c.err
}

// quietAfterEPIPE drops the diagnostics of a program whose output pipe
// broke ("write error: Broken pipe"), which bash never shows.
type quietAfterEPIPE struct {
	w io.Writer
	p *commandOutput
}

func (q *quietAfterEPIPE) Write(p []byte) (int, error) {
	if broken, _ := q.p.state(); broken {
		return len(p), nil
	}
	return q.w.Write(p)
}

// runFile runs a file named by path as the kernel and bash would: a
// shell script by its #! line (or with none), a runner command named by
// #! (#!/usr/bin/awk -f) with the file as its argument; any other
// interpreter is refused.
func (sh *Shell) runFile(p string, args, env []string, sio stdio) int {
	name := args[0]
	fsys := sh.view()
	fi, err := fsys.Stat(p)
	switch {
	case err != nil:
		fmt.Fprintf(sio.err, "%s%s: No such file or directory\n", sh.prefix(), name)
		return 127
	case fi.IsDir():
		fmt.Fprintf(sio.err, "%s%s: Is a directory\n", sh.prefix(), name)
		return 126
	case fi.Mode().Perm()&0o111 == 0:
		fmt.Fprintf(sio.err, "%s%s: Permission denied\n", sh.prefix(), name)
		return 126
	}
	src, code := sh.readScript(p, name, sio.err)
	if code != 0 {
		return code
	}
	if bytes.IndexByte(firstLine(src), 0) >= 0 {
		fmt.Fprintf(sio.err, "%s%s: cannot execute binary file: Exec format error\n", sh.prefix(), name)
		return 126
	}
	inv := Invocation{Name: name, File: name, Args: args[1:], Env: env, Dir: sh.dir}
	if line, ok := bytes.CutPrefix(firstLine(src), []byte("#!")); ok {
		interp, opts := shebang(string(line))
		base := path.Base(interp)
		switch {
		case base == "bash" || base == "sh":
			sub, msg, code, done := parseShellArgs(append([]string{base}, opts...))
			if done {
				sio.err.Write([]byte(msg))
				return code
			}
			inv.Options = sub.Options
			inv.Shell = "/bin/" + base
		case base != "" && sh.runnerInterpreter(interp):
			// #!/usr/bin/awk -f: the runner's command runs the file.
			a := append(append([]string{base}, opts...), p)
			return sh.runProgram(base, append(a, args[1:]...), env, sio)
		default:
			fmt.Fprintf(sio.err, "%s%s: %s: bad interpreter: %s\n", sh.prefix(), name, strings.TrimSpace(string(line)), interpreterAdvice(base))
			return 126
		}
	}
	inv.Script = string(src)
	return sh.nested(inv, sio)
}

// runnerInterpreter reports whether a #! interpreter names a runner
// command.
func (sh *Shell) runnerInterpreter(interp string) bool {
	_, ok := sh.run.cfg.Commands[path.Base(interp)]
	return ok && (!path.IsAbs(interp) || binDirs[path.Dir(interp)] || path.Dir(interp) == "/usr/local/bin")
}

// shebang reads a #! line (without the #!): the interpreter and its
// options; "#!/usr/bin/env NAME" names NAME.
func shebang(line string) (string, []string) {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return "", nil
	}
	prog, args := fields[0], fields[1:]
	if path.Base(prog) == "env" {
		for len(args) > 0 && strings.HasPrefix(args[0], "-") {
			args = args[1:] // env -S …
		}
		if len(args) == 0 {
			return "env", nil
		}
		prog, args = args[0], args[1:]
	}
	return prog, args
}

// interpreterAdvice says why a script's interpreter does not run.
func interpreterAdvice(prog string) string {
	msg := fmt.Sprintf("%s is not available: wsfs runs shell scripts and the runner's own commands only", prog)
	switch strings.TrimRight(prog, "0123456789.") {
	case "node", "nodejs", "deno", "bun", "tsx", "ts-node":
		msg += "; run JavaScript with js-exec FILE"
	case "python", "python3", "perl", "ruby", "php":
		msg += "; rewrite it as a shell script or in JavaScript for js-exec"
	}
	return msg
}

// maxScriptBytes bounds a script file or stdin script a nested shell
// reads.
const maxScriptBytes = 16 << 20

// readScript reads a script file, with bash's messages for what fails.
func (sh *Shell) readScript(p, name string, stderr io.Writer) ([]byte, int) {
	f, err := sh.view().Open(p)
	if err != nil {
		fmt.Fprintf(stderr, "%s%s: %s\n", sh.prefix(), name, command.Strerror(err))
		return nil, 126
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxScriptBytes+1))
	if err != nil {
		fmt.Fprintf(stderr, "%s%s: %s\n", sh.prefix(), name, command.Strerror(err))
		return nil, 126
	}
	if len(data) > maxScriptBytes {
		fmt.Fprintf(stderr, "%s%s: script larger than %d MiB\n", sh.prefix(), name, maxScriptBytes>>20)
		return nil, 126
	}
	return data, 0
}

// firstLine is data up to its first newline (at most 512 bytes), where
// bash looks for NUL bytes before running a file as a script.
func firstLine(data []byte) []byte {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data = data[:i]
	}
	return data[:min(len(data), 512)]
}

// errText is an error's C-library text ("No such file or directory").
func errText(err error) string { return command.Strerror(err) }
