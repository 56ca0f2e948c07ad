package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/wsfs/wsfs/runner/command"
)

// The version nested shells and $BASH_VERSION report: the GNU bash whose
// behaviour the runner follows.
const (
	bashVersion     = "5.2.15(1)-release"
	bashVersionLine = "GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu), wsfs runner"
)

// maxScriptBytes bounds a script file or stdin script a nested shell reads.
const maxScriptBytes = 16 << 20

// hostBinDirs are the folders whose programs scripts name by absolute path
// (#!/bin/bash, $(command -v jq), /usr/bin/env); a name there runs the
// runner's command of the same name. No such folder exists in the agent's
// view, so no file can be hidden by this.
var hostBinDirs = map[string]bool{"/bin": true, "/usr/bin": true, "/usr/local/bin": true, "/sbin": true, "/usr/sbin": true}

// shellInvocation is a parsed `bash …` or `sh …` command line.
type shellInvocation struct {
	shell     string   // "/bin/bash" or "/bin/sh": $BASH and $SH
	name      string   // $0
	opts      []string // for interp.Params: "-e", "-o", "pipefail" …
	params    []string // $1 …
	script    string   // -c's command string
	hasScript bool     // -c given
	file      string   // the script file, when neither -c nor stdin
	fromStdin bool
}

// parseShellArgs reads bash's command line: [options] [-c STRING [NAME
// [ARGS]] | -s [ARGS] | FILE [ARGS]]. It returns a message and status
// for a bad one.
func parseShellArgs(args []string) (inv shellInvocation, msg string, code int, done bool) {
	inv.shell = "/bin/bash"
	if path.Base(args[0]) == "sh" {
		inv.shell = "/bin/sh"
	}
	inv.name = path.Base(args[0])
	rest := args[1:]
	hasC := false
	for len(rest) > 0 {
		a := rest[0]
		if a == "--" || a == "-" {
			rest = rest[1:]
			break
		}
		if strings.HasPrefix(a, "--") {
			switch a {
			case "--norc", "--noprofile", "--posix", "--login", "--noediting", "--restricted":
			case "--version":
				return inv, bashVersionLine + "\n", 0, true
			case "--help":
				return inv, "Usage: bash [option] [-c string | -s | file] [arguments]\n", 0, true
			default:
				return inv, fmt.Sprintf("%s: %s: invalid option\n", inv.name, a), 2, true
			}
			rest = rest[1:]
			continue
		}
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			break
		}
		rest = rest[1:]
		sign := a[:1]
		for _, c := range a[1:] {
			switch c {
			case 'c':
				hasC = true
			case 's':
				inv.fromStdin = true
			case 'e', 'u', 'x', 'f', 'n', 'a':
				inv.opts = append(inv.opts, sign+string(c))
			case 'o', 'O':
				if len(rest) == 0 {
					return inv, fmt.Sprintf("%s: %s%c: option requires an argument\n", inv.name, sign, c), 2, true
				}
				if c == 'o' && rest[0] != "noclobber" {
					inv.opts = append(inv.opts, sign+"o", rest[0])
				}
				rest = rest[1:]
			case 'i', 'l', 'r', 'v', 'h', 'm', 'B', 'H', 'P', 'T', 'b', 'k', 't', 'C', 'E', 'p':
				// interactive, login, verbose … change nothing here
			default:
				return inv, fmt.Sprintf("%s: %s%c: invalid option\n", inv.name, sign, c), 2, true
			}
		}
	}
	switch {
	case hasC:
		if len(rest) == 0 {
			return inv, fmt.Sprintf("%s: -c: option requires an argument\n", inv.name), 2, true
		}
		inv.script, inv.hasScript = rest[0], true
		rest = rest[1:]
		if len(rest) > 0 {
			inv.name = rest[0]
			rest = rest[1:]
		}
	case inv.fromStdin || len(rest) == 0:
		inv.fromStdin = true
	default:
		inv.file, inv.name = rest[0], rest[0]
		rest = rest[1:]
	}
	inv.params = rest
	return inv, "", 0, false
}

// runShell runs `bash …` or `sh …`: a nested shell in the same sandbox,
// limits and revision, with the caller's exported variables.
func (st *runState) runShell(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string, dir string) int {
	inv, msg, code, done := parseShellArgs(args)
	if done {
		if code == 0 {
			io.WriteString(stdout, msg)
		} else {
			io.WriteString(stderr, msg)
		}
		return code
	}
	var src []byte
	switch {
	case inv.hasScript:
		src = []byte(inv.script)
	case inv.fromStdin:
		data, err := io.ReadAll(io.LimitReader(stdin, maxScriptBytes))
		if err != nil {
			fmt.Fprintf(stderr, "%s: cannot read the script from stdin: %v\n", inv.name, err)
			return 1
		}
		src, stdin = data, strings.NewReader("")
	default:
		data, code := st.readScript(inv.file, dir, stderr)
		if code != 0 {
			return code
		}
		src = data
	}
	return st.runNested(ctx, inv, src, stdin, stdout, stderr, environ, dir)
}

// readScript reads a script file named on a command line, with bash's
// messages for a missing file or a folder.
func (st *runState) readScript(name, dir string, stderr io.Writer) ([]byte, int) {
	fsys := st.fsys.WithDir(dir, nil, nil, nil)
	fi, err := fsys.Stat(name)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "bash: %s: No such file or directory\n", name)
		return nil, StatusNotFound
	case fi.IsDir():
		fmt.Fprintf(stderr, "bash: %s: Is a directory\n", name)
		return nil, 126
	}
	f, err := fsys.Open(name)
	if err != nil {
		fmt.Fprintf(stderr, "bash: %s: %s\n", name, command.Strerror(err))
		return nil, 126
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxScriptBytes+1))
	if err != nil {
		fmt.Fprintf(stderr, "bash: %s: %s\n", name, command.Strerror(err))
		return nil, 126
	}
	if len(data) > maxScriptBytes {
		fmt.Fprintf(stderr, "bash: %s: script larger than %d MiB\n", name, maxScriptBytes>>20)
		return nil, 126
	}
	return data, 0
}

// runNested parses, preflights and runs a nested shell's script.
func (st *runState) runNested(ctx context.Context, inv shellInvocation, src []byte, stdin io.Reader, stdout, stderr io.Writer, environ []string, dir string) int {
	if bytes.IndexByte(firstLine(src), 0) >= 0 {
		fmt.Fprintf(stderr, "bash: %s: cannot execute binary file\n", inv.name)
		return 126
	}
	prog, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(src), "")
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s: syntax error: %v\n", path.Base(inv.shell), inv.name, err)
		return StatusUsage
	}
	if msg := Preflight(prog); msg != "" {
		fmt.Fprintf(stderr, "wsfs: %s: %s\n", inv.name, msg)
		return StatusUsage
	}
	rewriteFile(prog)
	prog.Name = inv.name
	params := append(append(append([]string(nil), inv.opts...), "--"), inv.params...)
	r, err := st.newInterp(append(environ, noFIFOs), stdin, stdout, stderr, interp.Params(params...))
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", inv.name, err)
		return 2
	}
	r.Dir = dir
	if code := st.runPrelude(ctx, r, inv.shell); code != 0 {
		return code
	}
	if inv.file != "" {
		// BASH_SOURCE=(FILE), for the idiom cd "$(dirname "${BASH_SOURCE[0]}")"
		set := &syntax.Stmt{Cmd: &syntax.CallExpr{Assigns: []*syntax.Assign{{
			Name: &syntax.Lit{Value: "BASH_SOURCE"},
			Array: &syntax.ArrayExpr{Elems: []*syntax.ArrayElem{{
				Value: &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: inv.file}}}}}},
		}}}}
		if err := r.Run(ctx, set); err != nil {
			return st.statusOf(err, stderr)
		}
	}
	return st.statusOf(r.Run(withScope(ctx, prog), prog), stderr)
}

// firstLine is data up to its first newline (at most 512 bytes), where
// bash looks for NUL bytes before running a file as a script.
func firstLine(data []byte) []byte {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data = data[:i]
	}
	return data[:min(len(data), 512)]
}

// runPrelude sets up a fresh interpreter as bash would start: no TMPDIR
// (see noFIFOs), $BASH, $SH and the version variables.
func (st *runState) runPrelude(ctx context.Context, r *interp.Runner, shell string) int {
	for _, s := range prelude(shell) {
		if err := r.Run(ctx, s); err != nil {
			return st.statusOf(err, io.Discard)
		}
	}
	return 0
}

// prelude returns the statements runPrelude runs for shell ("/bin/bash"
// or "/bin/sh"), parsed once.
func prelude(shell string) []*syntax.Stmt {
	if shell == "/bin/sh" {
		return shPrelude()
	}
	return bashPrelude()
}

var (
	bashPrelude = sync.OnceValue(func() []*syntax.Stmt { return parsePrelude("/bin/bash") })
	shPrelude   = sync.OnceValue(func() []*syntax.Stmt { return parsePrelude("/bin/sh") })
)

func parsePrelude(shell string) []*syntax.Stmt {
	src := "unset TMPDIR; BASH=" + shell + " SH=" + shell + " BASH_VERSION='" + bashVersion +
		"'; BASH_VERSINFO=(5 2 15 1 release x86_64-pc-linux-gnu)"
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil {
		return nil // constant text
	}
	return f.Stmts
}

// statusOf turns what an interpreter's Run returned into an exit status.
// A limit reached in a nested shell stops the whole command.
func (st *runState) statusOf(err error, stderr io.Writer) int {
	var status interp.ExitStatus
	var limErr *limitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &status):
		return int(status)
	case errors.As(err, &limErr):
		st.cancel(limErr)
		return 1
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return StatusTimeout
	}
	fmt.Fprintf(stderr, "wsfs: %v\n", err)
	return 1
}

// runFile runs a file named by path (./build.sh, scripts/x.sh,
// /workspace/x.sh) as bash would: a shell script by its #! line, or as
// bash when it has none; other interpreters are refused.
func (st *runState) runFile(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string, dir string) int {
	name := args[0]
	fsys := st.fsys.WithDir(dir, nil, nil, nil)
	fi, err := fsys.Stat(name)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "bash: %s: No such file or directory\n", name)
		return StatusNotFound
	case fi.IsDir():
		fmt.Fprintf(stderr, "bash: %s: Is a directory\n", name)
		return 126
	case fi.Mode().Perm()&0o111 == 0:
		fmt.Fprintf(stderr, "bash: %s: Permission denied\n", name)
		return 126
	}
	src, code := st.readScript(name, dir, stderr)
	if code != 0 {
		return code
	}
	inv := shellInvocation{shell: "/bin/bash", name: name, file: name, params: args[1:]}
	if line, ok := bytes.CutPrefix(firstLine(src), []byte("#!")); ok {
		interpreter, opts, ok := shebangShell(string(line))
		if !ok {
			fmt.Fprintf(stderr, "bash: %s: %s: bad interpreter: %s\n", name, strings.TrimSpace(string(line)), interpreterAdvice(interpreter))
			return 126
		}
		inv.shell = "/bin/" + interpreter
		sub, msg, code, done := parseShellArgs(append([]string{interpreter}, opts...))
		if done {
			io.WriteString(stderr, msg)
			return code
		}
		inv.opts = sub.opts
	}
	return st.runNested(ctx, inv, src, stdin, stdout, stderr, environ, dir)
}

// shebangShell reads a #! line (without the #!): the shell it names
// ("bash" or "sh") and its options, or the interpreter's name and false.
func shebangShell(line string) (string, []string, bool) {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return "", nil, false
	}
	prog := path.Base(fields[0])
	args := fields[1:]
	if prog == "env" {
		for len(args) > 0 && strings.HasPrefix(args[0], "-") {
			args = args[1:] // env -S …
		}
		if len(args) == 0 {
			return "env", nil, false
		}
		prog, args = path.Base(args[0]), args[1:]
	}
	if prog == "bash" || prog == "sh" {
		return prog, args, true
	}
	return prog, nil, false
}

// interpreterAdvice says why a script's interpreter does not run.
func interpreterAdvice(prog string) string {
	msg := fmt.Sprintf("%s is not available: wsfs runs shell scripts (bash, sh) only", prog)
	switch strings.TrimRight(prog, "0123456789.") {
	case "node", "nodejs", "deno", "bun", "tsx", "ts-node":
		msg += "; run JavaScript with js-exec FILE"
	case "python", "python3", "perl", "ruby", "php":
		msg += "; rewrite it as a shell script or in JavaScript for js-exec"
	}
	return msg
}

// shellSpecs are bash and sh in the command table, for help, which,
// command -v and `wsfs commands`. The runner runs them itself (runShell)
// before it looks at the table, so Func answers only a caller outside it.
func shellSpecs() []command.Spec {
	flags := []string{"-c STRING [NAME [ARGS]]", "-s [ARGS]", "FILE [ARGS]", "-e", "-u", "-x", "-f", "-n", "-a", "-o OPTION", "--version"}
	outside := func(_ context.Context, env *command.Env) int {
		env.Errorf("a nested shell runs only inside wsfs run")
		return 126
	}
	return []command.Spec{
		{Name: "bash", Summary: "run a script or a command string in a nested shell (same sandbox, limits and revision)", Flags: flags, Func: outside},
		{Name: "sh", Summary: "bash under another name (bash's dialect, not dash)", Flags: flags, Func: outside},
	}
}
