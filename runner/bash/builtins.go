package bash

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// builtinFunc is a builtin: it runs in the shell itself, with the
// shell's descriptors, and returns its status.
type builtinFunc func(sh *Shell, args []string) int

// builtins is the table of bash's builtins the shell has. The families
// live in their own files: declare.go (declare, local, export, readonly,
// unset), read.go (read, mapfile), echo.go (echo, printf), test.go (test,
// [, [[ ]]), cd.go (cd, pwd, pushd, popd, dirs), type.go (type, command,
// hash, builtin, enable, help), getopts.go, complete.go (compgen,
// complete, compopt), alias.go, options.go (set, shopt), trap.go,
// jobs.go (wait, jobs, kill, disown, fg, bg).
var builtins map[string]builtinFunc

func init() {
	builtins = map[string]builtinFunc{
		":": builtinTrue, "true": builtinTrue, "false": builtinFalse,
		"exit": builtinExit, "logout": builtinExit, "return": builtinReturn,
		"break": builtinBreak, "continue": builtinBreak, "shift": builtinShift,
		"eval": builtinEval, "source": builtinSource, ".": builtinSource,
		"exec": builtinExec, "times": builtinTimes, "umask": builtinUmask, "ulimit": builtinUlimit,
		"caller": builtinCaller, "let": builtinLet, "history": builtinHistory,
		"suspend": builtinSuspend, "bind": builtinNoop, "fc": builtinFc,
		"set": builtinSet, "shopt": builtinShopt,
		"echo": builtinEcho, "printf": builtinPrintf,
		"read": builtinRead, "mapfile": builtinMapfile, "readarray": builtinMapfile,
		"test": builtinTest, "[": builtinTest,
		"cd": builtinCd, "pwd": builtinPwd, "pushd": builtinPushd, "popd": builtinPopd, "dirs": builtinDirs,
		"type": builtinType, "command": builtinCommand, "hash": builtinHash, "builtin": builtinBuiltin,
		"enable": builtinEnable, "help": builtinHelp,
		"getopts": builtinGetopts,
		"compgen": builtinCompgen, "complete": builtinComplete, "compopt": builtinCompopt,
		"alias": builtinAlias, "unalias": builtinUnalias,
		"trap": builtinTrap, "kill": builtinKill, "wait": builtinWait, "jobs": builtinJobs,
		"disown": builtinDisown, "fg": builtinFg, "bg": builtinFg,
		"declare": builtinDeclare, "typeset": builtinDeclare, "local": builtinDeclare,
		"export": builtinDeclare, "readonly": builtinDeclare, "unset": builtinUnset,
	}
}

// specialBuiltins are POSIX's special builtins.
var specialBuiltins = map[string]bool{":": true, ".": true, "break": true, "continue": true, "eval": true,
	"exec": true, "exit": true, "export": true, "readonly": true, "return": true, "set": true, "shift": true,
	"times": true, "trap": true, "unset": true, "source": false}

func isSpecialBuiltin(name string) bool { return specialBuiltins[name] }

// IsBuiltin reports whether name is one of the shell's builtins.
func IsBuiltin(name string) bool {
	_, ok := builtins[name]
	return ok
}

// builtinEnabled reports whether enable -n turned a builtin off.
func (sh *Shell) builtinEnabled(name string) bool { return !sh.disabled[name] }

func builtinTrue(sh *Shell, args []string) int  { return 0 }
func builtinFalse(sh *Shell, args []string) int { return 1 }
func builtinNoop(sh *Shell, args []string) int  { return 0 }

// numArg parses a builtin's numeric argument as bash does (leading and
// trailing blanks allowed, a sign, decimal).
func numArg(s string) (int, bool) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return 0, false
	}
	return int(n), true
}

func builtinExit(sh *Shell, args []string) int {
	status := sh.status
	if len(args) > 2 {
		sh.errorf("%s: too many arguments", args[0])
		return 1
	}
	if len(args) == 2 {
		a := args[1]
		if a == "--" {
			a = ""
		}
		if a != "" {
			n, ok := numArg(a)
			if !ok {
				sh.errorf("%s: %s: numeric argument required", args[0], a)
				status = 2
			} else {
				status = n & 0xff
			}
		}
	}
	sh.flow = flowExit
	return status
}

func builtinReturn(sh *Shell, args []string) int {
	if sh.returnOK == 0 {
		sh.errorf("return: can only `return' from a function or sourced script")
		return 2
	}
	status := sh.status
	if len(args) > 2 {
		sh.errorf("return: too many arguments")
		return 2
	}
	if len(args) == 2 {
		n, ok := numArg(args[1])
		if !ok {
			sh.errorf("return: %s: numeric argument required", args[1])
			status = 2
		} else {
			status = n & 0xff
		}
	}
	sh.flow = flowReturn
	return status
}

func builtinBreak(sh *Shell, args []string) int {
	n := 1
	if len(args) > 2 {
		sh.errorf("%s: too many arguments", args[0])
		sh.flow = flowExit
		return 1
	}
	if len(args) == 2 {
		v, ok := numArg(args[1])
		if !ok {
			sh.errorf("%s: %s: numeric argument required", args[0], args[1])
			sh.flow = flowExit
			return 128
		}
		if v < 1 {
			sh.errorf("%s: %s: loop count out of range", args[0], args[1])
			return 1
		}
		n = v
	}
	if sh.loops == 0 {
		sh.errorf("%s: only meaningful in a `for', `while', or `until' loop", args[0])
		return 0
	}
	if n > sh.loops {
		n = sh.loops
	}
	if args[0] == "break" {
		sh.flow = flowBreak
	} else {
		sh.flow = flowContinue
	}
	sh.flowN = n
	return 0
}

func builtinShift(sh *Shell, args []string) int {
	n := 1
	if len(args) > 2 {
		sh.errorf("shift: too many arguments")
		return 1
	}
	if len(args) == 2 {
		v, ok := numArg(args[1])
		if !ok {
			sh.errorf("shift: %s: numeric argument required", args[1])
			return 1
		}
		if v < 0 {
			sh.errorf("shift: %s: shift count out of range", args[1])
			return 1
		}
		n = v
	}
	if n > len(sh.params) {
		if sh.shopts.shiftVerbose {
			sh.errorf("shift: %d: shift count out of range", n)
		}
		return 1
	}
	sh.params = append([]string(nil), sh.params[n:]...)
	return 0
}

func builtinEval(sh *Shell, args []string) int {
	args = args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	} else if len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		sh.errorf("eval: %s: invalid option", args[0])
		fmt.Fprintln(sh.stderr(), "eval: usage: eval [arg ...]")
		return 2
	}
	text := strings.Join(args, " ")
	if strings.TrimSpace(text) == "" {
		return 0
	}
	if !sh.checkDepth() {
		return 1
	}
	sh.depth++
	sh.status = 0
	sh.runText(text, "", sh.line-1)
	sh.depth--
	return sh.status
}

// builtinSource is source and ".": the file's commands in this shell.
func builtinSource(sh *Shell, args []string) int {
	name := args[0]
	args = args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		sh.errorf("%s: filename argument required", name)
		fmt.Fprintf(sh.stderr(), "%s: usage: %s filename [arguments]\n", name, name)
		return 2
	}
	file := args[0]
	p, ok := sh.findSourceFile(file)
	if !ok {
		sh.errorf("%s: No such file or directory", file)
		return 1
	}
	f, err := sh.view().Open(p)
	if err != nil {
		sh.errorf("%s: %s", file, errText(unwrapPath(err)))
		return 1
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		sh.errorf("%s: is a directory", file)
		return 1
	}
	data, err := io.ReadAll(io.LimitReader(f, maxScriptBytes))
	f.Close()
	if err != nil {
		sh.errorf("%s: %s", file, errText(err))
		return 1
	}
	if !sh.checkDepth() {
		return 1
	}
	fr := &frame{fn: "source", file: file, callLine: sh.line, level: sh.level(), src: sh.src}
	sh.frames = append(sh.frames, fr)
	savedParams := sh.params
	if len(args) > 1 {
		sh.params = append([]string(nil), args[1:]...)
	}
	sh.depth++
	sh.returnOK++
	sh.status = 0
	savedLine := sh.line
	sh.runText(string(data), file, 0)
	sh.line = savedLine
	if sh.flow == flowReturn {
		sh.flow = flowNone
	}
	sh.returnOK--
	sh.depth--
	if len(args) > 1 {
		sh.params = savedParams
	}
	// A local declared by the sourced file belongs to the enclosing
	// function: move them there.
	if len(fr.locals) > 0 {
		if outer := sh.outerFrame(len(sh.frames) - 1); outer != nil {
			outer.locals = append(outer.locals, fr.locals...)
		}
	}
	sh.frames = sh.frames[:len(sh.frames)-1]
	return sh.status
}

// outerFrame is the frame below index i that is a function call.
func (sh *Shell) outerFrame(i int) *frame {
	for j := i - 1; j >= 0; j-- {
		if sh.frames[j].fn != "source" {
			return sh.frames[j]
		}
	}
	return nil
}

// findSourceFile finds the file source reads: a name with a slash as
// is, else through PATH (sourcepath), then in the current folder.
func (sh *Shell) findSourceFile(name string) (string, bool) {
	fsys := sh.view()
	if strings.Contains(name, "/") {
		_, err := fsys.Stat(name)
		return name, err == nil
	}
	if sh.shopts.sourcepath {
		pathVar, _ := sh.getVar("PATH")
		for _, dir := range strings.Split(pathVar, ":") {
			if dir == "" {
				dir = "."
			}
			cand := dir + "/" + name
			if fi, err := fsys.Stat(cand); err == nil && fi.Mode().IsRegular() {
				return cand, true
			}
		}
	}
	if sh.opts.posix {
		return "", false
	}
	_, err := fsys.Stat(name)
	return name, err == nil
}

// builtinExec replaces the shell with a command (here: runs it and
// exits with its status); with no command its redirections stay.
func builtinExec(sh *Shell, args []string) int {
	args = args[1:]
	argv0 := ""
	clearEnv := false
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
		a := args[0]
		if a == "--" {
			args = args[1:]
			break
		}
		switch a {
		case "-c":
			clearEnv = true
		case "-l":
		case "-a":
			if len(args) < 2 {
				sh.errorf("exec: -a: option requires an argument")
				return 2
			}
			argv0 = args[1]
			args = args[1:]
		default:
			sh.errorf("exec: %s: invalid option", a)
			fmt.Fprintln(sh.stderr(), "exec: usage: exec [-cl] [-a name] [command [argument ...]] [redirection ...]")
			return 2
		}
		args = args[1:]
	}
	if len(args) == 0 {
		return 0
	}
	env := sh.environ()
	if clearEnv {
		env = nil
	}
	name := args[0]
	p := name
	if !strings.Contains(name, "/") {
		found := false
		p, found = sh.lookPath(name)
		if !found {
			sh.errorf("exec: %s: not found", name)
			if !sh.shopts.execfail {
				sh.flow = flowExit
			}
			return 127
		}
	}
	argv := append([]string(nil), args...)
	if argv0 != "" {
		argv[0] = argv0
	}
	status := sh.execPath(p, argv, env, sh.stdio())
	if (status == 126 || status == 127) && sh.shopts.execfail {
		return status
	}
	sh.flow = flowExit
	return status
}

func builtinTimes(sh *Shell, args []string) int {
	fmt.Fprintln(sh.stdout(), "0m0.000s 0m0.000s")
	fmt.Fprintln(sh.stdout(), "0m0.000s 0m0.000s")
	return 0
}

func builtinUmask(sh *Shell, args []string) int {
	args = args[1:]
	symbolic, print := false, false
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
		switch args[0] {
		case "-S":
			symbolic = true
		case "-p":
			print = true
		case "--":
		default:
			sh.errorf("umask: %s: invalid option", args[0])
			fmt.Fprintln(sh.stderr(), "umask: usage: umask [-p] [-S] [mode]")
			return 2
		}
		args = args[1:]
	}
	if len(args) == 0 {
		m := sh.umask
		switch {
		case symbolic:
			fmt.Fprintln(sh.stdout(), umaskSymbolic(m))
		case print:
			fmt.Fprintf(sh.stdout(), "umask %04o\n", m)
		default:
			fmt.Fprintf(sh.stdout(), "%04o\n", m)
		}
		return 0
	}
	n, err := strconv.ParseUint(args[0], 8, 32)
	if err != nil {
		sh.errorf("umask: %s: octal number out of range", args[0])
		return 1
	}
	sh.umask = int(n) & 0o777
	return 0
}

func umaskSymbolic(m int) string {
	part := func(shift int) string {
		bits := (^m >> shift) & 7
		s := ""
		if bits&4 != 0 {
			s += "r"
		}
		if bits&2 != 0 {
			s += "w"
		}
		if bits&1 != 0 {
			s += "x"
		}
		return s
	}
	return "u=" + part(6) + ",g=" + part(3) + ",o=" + part(0)
}

func builtinUlimit(sh *Shell, args []string) int {
	args = args[1:]
	what := "-f"
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			what = a
			continue
		}
		// Setting a limit: accepted and kept, as the runner enforces its own.
		return 0
	}
	switch what {
	case "-n":
		fmt.Fprintln(sh.stdout(), sh.run.cfg.MaxOpenFiles)
	case "-a":
		fmt.Fprintf(sh.stdout(), "open files                  (-n) %d\n", sh.run.cfg.MaxOpenFiles)
	default:
		fmt.Fprintln(sh.stdout(), "unlimited")
	}
	return 0
}

// builtinCaller prints the line, function and file of a call frame.
func builtinCaller(sh *Shell, args []string) int {
	n := -1
	if len(args) > 1 {
		v, ok := numArg(args[1])
		if !ok || v < 0 {
			sh.errorf("caller: %s: invalid number", args[1])
			return 2
		}
		n = v
	}
	funcs := sh.funcnameList()
	lines := sh.bashLinenoList()
	sources := sh.bashSourceList()
	if len(funcs) == 0 {
		return 1
	}
	if n < 0 {
		src := ""
		if len(sources) > 1 {
			src = sources[1]
		}
		if src == "" {
			src = "NULL"
		}
		fmt.Fprintf(sh.stdout(), "%s %s\n", lines[0], src)
		return 0
	}
	if n >= len(funcs) || n+1 >= len(sources) {
		return 1
	}
	src := sources[n+1]
	if src == "" {
		src = "NULL"
	}
	fmt.Fprintf(sh.stdout(), "%s %s %s\n", lines[n], funcs[n+1], src)
	return 0
}

func builtinLet(sh *Shell, args []string) int {
	if len(args) < 2 {
		sh.errorf("let: expression expected")
		return 1
	}
	last := 0
	for _, a := range args[1:] {
		n, err := sh.evalArith(a)
		if err != nil {
			if ae, ok := err.(*arithError); ok && ae.msg != "unbound variable" {
				c := *ae
				c.expr = "let: " + c.expr
				sh.arithFailed(&c, "let")
				return 1
			}
			sh.arithFailed(err, "let")
			return 1
		}
		last = n
	}
	return boolStatus(last != 0)
}

func builtinHistory(sh *Shell, args []string) int {
	return sh.runProgram("history", args, sh.environ(), sh.stdio())
}

func builtinSuspend(sh *Shell, args []string) int {
	sh.errorf("suspend: cannot suspend a login shell")
	return 1
}

func builtinFc(sh *Shell, args []string) int {
	sh.errorf("fc: history specification out of range")
	return 1
}

// funcText prints a function's definition as declare -f does.
func (sh *Shell) funcText(fn *funcDef) string {
	return fn.name + " () \n" + formatBody(fn.body) + "\n"
}

// sortedFuncNames lists the functions.
func (sh *Shell) sortedFuncNames() []string {
	names := make([]string, 0, len(sh.funcs))
	for n := range sh.funcs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
