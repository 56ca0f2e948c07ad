package bash

import (
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// Nested shells (bash and sh, also /bin/bash, $BASH, $SH, scripts run by
// path) run in the same process, sandbox and limits as the command: a
// fresh shell with the caller's exported variables, its streams and
// descriptors, its directory. Nothing comes back but the exit status.

// parseShellArgs reads bash's command line: [options] [-c STRING [NAME
// [ARGS]] | -s [ARGS] | FILE [ARGS]]. For --version, --help or a bad
// option it returns what to print, the status and done.
func parseShellArgs(args []string) (inv Invocation, msg string, code int, done bool) {
	base := path.Base(args[0])
	inv.Shell = "/bin/bash"
	if base == "sh" {
		inv.Shell = "/bin/sh"
	}
	inv.Name = base
	rest := args[1:]
	hasC, fromStdin := false, false
	for len(rest) > 0 {
		a := rest[0]
		if a == "--" || a == "-" {
			rest = rest[1:]
			break
		}
		if strings.HasPrefix(a, "--") {
			switch a {
			case "--norc", "--noprofile", "--posix", "--login", "--noediting", "--restricted", "--rcfile", "--init-file":
				if a == "--rcfile" || a == "--init-file" {
					rest = rest[1:]
				}
				if a == "--posix" {
					inv.Options = append(inv.Options, "-o", "posix")
				}
			case "--version":
				return inv, VersionLine + "\n", 0, true
			case "--help":
				return inv, "Usage: bash [option] [-c string | -s | file] [arguments]\n", 0, true
			default:
				return inv, fmt.Sprintf("%s: %s: invalid option\n", base, a), 2, true
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
				fromStdin = true
			case 'e', 'u', 'x', 'f', 'n', 'a', 'v', 'h', 'b', 'C', 'E', 'T', 'B', 'H', 'P', 't', 'k', 'p':
				inv.Options = append(inv.Options, sign+string(c))
			case 'o', 'O':
				if len(rest) == 0 {
					return inv, fmt.Sprintf("%s: %s%c: option requires an argument\n", base, sign, c), 2, true
				}
				if c == 'o' {
					inv.Options = append(inv.Options, sign+"o", rest[0])
				} else {
					inv.Options = append(inv.Options, sign+"O", rest[0])
				}
				rest = rest[1:]
			case 'i':
				inv.interactive = true
			case 'l', 'r', 'm', 'D':
				// interactive, login, restricted, monitor … change nothing here
			default:
				return inv, fmt.Sprintf("%s: %s%c: invalid option\n", base, sign, c), 2, true
			}
		}
	}
	switch {
	case hasC:
		if len(rest) == 0 {
			return inv, fmt.Sprintf("%s: -c: option requires an argument\n", base), 2, true
		}
		inv.Script = rest[0]
		inv.hasScript = true
		rest = rest[1:]
		if len(rest) > 0 {
			inv.Name = rest[0]
			rest = rest[1:]
		}
	case fromStdin || len(rest) == 0:
		inv.fromStdin = true
	default:
		inv.File, inv.Name = rest[0], rest[0]
		rest = rest[1:]
	}
	inv.Args = rest
	return inv, "", 0, false
}

// runShellCommand runs `bash …` or `sh …`.
func (sh *Shell) runShellCommand(args, env []string, sio stdio) int {
	inv, msg, code, done := parseShellArgs(args)
	if done {
		if code == 0 {
			sio.out.Write([]byte(msg))
		} else {
			sio.err.Write([]byte(msg))
		}
		return code
	}
	inv.Env, inv.Dir = env, sh.dir
	switch {
	case inv.hasScript:
	case inv.fromStdin:
		data, err := readAllLimited(sio.in, maxScriptBytes)
		if err != nil {
			fmt.Fprintf(sio.err, "%s: cannot read the script from stdin: %v\n", inv.Name, err)
			return 1
		}
		inv.Script = string(data)
		sio.in = strings.NewReader("")
		sio.fds = nil
	default:
		fi, err := sh.view().Stat(inv.File)
		switch {
		case err != nil:
			fmt.Fprintf(sio.err, "%s: %s: No such file or directory\n", path.Base(args[0]), inv.File)
			return 127
		case fi.IsDir():
			fmt.Fprintf(sio.err, "%s: %s: Is a directory\n", path.Base(args[0]), inv.File)
			return 126
		}
		data, code := sh.readScript(inv.File, inv.File, sio.err)
		if code != 0 {
			return code
		}
		inv.Script = string(data)
	}
	return sh.nested(inv, sio)
}

func readAllLimited(r io.Reader, n int64) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, n))
}

// nested runs a nested shell and returns its status.
func (sh *Shell) nested(inv Invocation, sio stdio) int {
	if !sh.checkDepth() {
		return 1
	}
	inv.Stdin, inv.Stdout, inv.Stderr = sio.in, sio.out, sio.err
	if inv.Dir == "" {
		inv.Dir = sh.dir
	}
	// Without a PWD naming its folder, a new shell starts from the
	// physical path (bash checks $PWD against ".").
	pwdOK := false
	for _, kv := range inv.Env {
		if v, ok := strings.CutPrefix(kv, "PWD="); ok {
			a, errA := sh.run.cfg.FS.Stat(v)
			b, errB := sh.run.cfg.FS.Stat(inv.Dir)
			pwdOK = errA == nil && errB == nil && os.SameFile(a, b)
			if pwdOK {
				inv.Dir = v
			}
		}
	}
	if !pwdOK {
		if p, err := sh.physical(inv.Dir); err == nil {
			inv.Dir = p
		}
	}
	if inv.Name == "" {
		inv.Name = "bash"
	}
	n := newShell(sh.run, sh.ctx, inv)
	n.depth = sh.depth + 1
	n.subshell = 0
	n.killed = sh.killed
	if sio.fds != nil {
		// The caller's other descriptors (3 and up) stay open in it.
		for i := 3; i < len(sio.fds.fds); i++ {
			if of := sio.fds.get(i); of != nil {
				n.fds.set(i, of.acquire())
			}
		}
	}
	if inv.File != "" {
		n.scriptFile = inv.File
	}
	status := n.runScript(inv.Script, inv.File)
	status = n.exitShell(status)
	n.fds.closeAll()
	n.waitJobsAtExit()
	return status
}
