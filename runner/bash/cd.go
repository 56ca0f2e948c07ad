package bash

import (
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// cd, pwd, pushd, popd and dirs. $PWD is logical (the path as the
// script walked it, symlinks kept); -P resolves symlinks in the agent's
// view.

// physical resolves every symlink of an absolute agent path.
func (sh *Shell) physical(p string) (string, error) {
	fsys := sh.run.cfg.FS
	done := "/"
	todo := strings.Split(strings.TrimPrefix(path.Clean(p), "/"), "/")
	hops := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			done = path.Dir(done)
			continue
		}
		next := path.Join(done, c)
		fi, err := fsys.Lstat(next)
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = next
			continue
		}
		hops++
		if hops > 40 {
			return "", &fs.PathError{Op: "cd", Path: p, Err: fs.ErrInvalid}
		}
		target, err := fsys.Readlink(next)
		if err != nil {
			return "", err
		}
		if path.IsAbs(target) {
			done = "/"
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	return done, nil
}

// chdir makes dir the shell's directory: logical unless physical.
func (sh *Shell) chdir(dir string, physical bool) error {
	var target string
	if path.IsAbs(dir) {
		target = path.Clean(dir)
	} else {
		target = path.Clean(sh.dir + "/" + dir)
	}
	if physical {
		p, err := sh.physical(target)
		if err != nil {
			return err
		}
		target = p
	}
	fi, err := sh.run.cfg.FS.Stat(target)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return &fs.PathError{Op: "cd", Path: dir, Err: errNotDir}
	}
	old := sh.dir
	sh.dir = target
	sh.assign("OLDPWD", old, false)
	if v := sh.vars.m["OLDPWD"]; v != nil {
		_ = v
	}
	sh.setVar("PWD", target)
	return nil
}

var errNotDir = notDirError{}

type notDirError struct{}

func (notDirError) Error() string { return "Not a directory" }

func builtinCd(sh *Shell, args []string) int {
	args = args[1:]
	physical := sh.opts.physical
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		a := args[0]
		if a == "--" {
			args = args[1:]
			break
		}
		ok := true
		for _, c := range a[1:] {
			switch c {
			case 'P':
				physical = true
			case 'L':
				physical = false
			case 'e', '@':
			default:
				ok = false
			}
		}
		if !ok {
			sh.errorf("cd: %s: invalid option", a)
			fmt.Fprintln(sh.stderr(), "cd: usage: cd [-L|[-P [-e]] [-@]] [dir]")
			return 2
		}
		args = args[1:]
	}
	if len(args) > 1 {
		sh.errorf("cd: too many arguments")
		return 1
	}
	var dir string
	printDir := false
	if len(args) == 0 {
		h, ok := sh.getVar("HOME")
		if !ok {
			sh.errorf("cd: HOME not set")
			return 1
		}
		if h == "" {
			return 0
		}
		dir = h
	} else {
		dir = args[0]
	}
	if dir == "-" {
		o, ok := sh.getVar("OLDPWD")
		if !ok || o == "" {
			sh.errorf("cd: OLDPWD not set")
			return 1
		}
		dir, printDir = o, true
	}
	if dir == "" {
		return 0
	}
	// CDPATH, for names that do not start with / . or ..
	if !path.IsAbs(dir) && !strings.HasPrefix(dir, "./") && !strings.HasPrefix(dir, "../") && dir != "." && dir != ".." {
		if cdpath, ok := sh.getVar("CDPATH"); ok && cdpath != "" {
			for _, base := range strings.Split(cdpath, ":") {
				cand := dir
				if base != "" {
					cand = strings.TrimSuffix(base, "/") + "/" + dir
				}
				if err := sh.chdir(cand, physical); err == nil {
					if base != "" {
						fmt.Fprintln(sh.stdout(), sh.dir)
					}
					sh.replaceDirTop()
					return 0
				}
			}
		}
	}
	if err := sh.chdir(dir, physical); err != nil {
		sh.errorf("cd: %s: %s", dir, cdErrText(err))
		return 1
	}
	sh.replaceDirTop()
	if printDir {
		fmt.Fprintln(sh.stdout(), sh.dir)
	}
	return 0
}

func cdErrText(err error) string {
	if pe, ok := err.(*fs.PathError); ok {
		if _, ok := pe.Err.(notDirError); ok {
			return "Not a directory"
		}
	}
	return errText(unwrapPath(err))
}

// replaceDirTop keeps the directory stack's top equal to the current
// directory (cd replaces it).
func (sh *Shell) replaceDirTop() {}

func builtinPwd(sh *Shell, args []string) int {
	physical := sh.opts.physical
	for _, a := range args[1:] {
		switch a {
		case "-P":
			physical = true
		case "-L":
			physical = false
		case "--":
		default:
			if strings.HasPrefix(a, "-") && a != "-" {
				sh.errorf("pwd: %s: invalid option", a)
				fmt.Fprintln(sh.stderr(), "pwd: usage: pwd [-LP]")
				return 2
			}
		}
	}
	dir := sh.dir
	if physical {
		p, err := sh.physical(dir)
		if err != nil {
			sh.errorf("pwd: error retrieving current directory: %s", errText(unwrapPath(err)))
			return 1
		}
		dir = p
	}
	return sh.writeOut("pwd", dir+"\n")
}

// dirStack is the directory stack with the current directory on top.
func (sh *Shell) dirStack() []string {
	return append([]string{sh.dir}, sh.dirs...)
}

// dirStackEntry resolves ~N, ~+N and ~-N.
func (sh *Shell) dirStackEntry(spec string) (string, bool) {
	stack := sh.dirStack()
	neg := false
	s := spec
	switch {
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	case strings.HasPrefix(s, "-"):
		s, neg = s[1:], true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n >= len(stack) {
		return "", false
	}
	if neg {
		n = len(stack) - 1 - n
	}
	return stack[n], true
}

// tildeHome abbreviates $HOME as ~ (dirs without -l).
func (sh *Shell) tildeHome(p string) string {
	home, ok := sh.getVar("HOME")
	if !ok || home == "" || home == "/" {
		return p
	}
	if p == home {
		return "~"
	}
	if strings.HasPrefix(p, home+"/") {
		return "~" + p[len(home):]
	}
	return p
}

func builtinDirs(sh *Shell, args []string) int {
	long, perLine, verbose := false, false, false
	idx := ""
	for _, a := range args[1:] {
		switch {
		case a == "-c":
			sh.dirs = nil
			return 0
		case a == "-l":
			long = true
		case a == "-p":
			perLine = true
		case a == "-v":
			verbose, perLine = true, true
		case len(a) > 1 && (a[0] == '+' || a[0] == '-'):
			if _, err := strconv.Atoi(a[1:]); err != nil {
				sh.errorf("dirs: %s: invalid option", a)
				fmt.Fprintln(sh.stderr(), "dirs: usage: dirs [-clpv] [+N] [-N]")
				return 2
			}
			idx = a
		default:
			sh.errorf("dirs: %s: invalid option", a)
			fmt.Fprintln(sh.stderr(), "dirs: usage: dirs [-clpv] [+N] [-N]")
			return 2
		}
	}
	stack := sh.dirStack()
	show := func(p string) string {
		if long {
			return p
		}
		return sh.tildeHome(p)
	}
	if idx != "" {
		d, ok := sh.dirStackEntry(idx)
		if !ok {
			sh.errorf("dirs: %s: directory stack index out of range", idx[1:])
			return 1
		}
		fmt.Fprintln(sh.stdout(), show(d))
		return 0
	}
	var b strings.Builder
	for i, d := range stack {
		switch {
		case verbose:
			fmt.Fprintf(&b, "%2d  %s\n", i, show(d))
		case perLine:
			b.WriteString(show(d) + "\n")
		default:
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(show(d))
		}
	}
	if !perLine {
		b.WriteByte('\n')
	}
	return sh.writeOut("dirs", b.String())
}

func builtinPushd(sh *Shell, args []string) int {
	args = args[1:]
	noCd := false
	if len(args) > 0 && args[0] == "-n" {
		noCd = true
		args = args[1:]
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	stack := sh.dirStack()
	switch {
	case len(args) == 0:
		if len(stack) < 2 {
			sh.errorf("pushd: no other directory")
			return 1
		}
		stack[0], stack[1] = stack[1], stack[0]
		if err := sh.setStack(stack, noCd); err != nil {
			return 1
		}
	case len(args[0]) > 1 && (args[0][0] == '+' || args[0][0] == '-') && isDigits(args[0][1:]):
		n, _ := strconv.Atoi(args[0][1:])
		if n >= len(stack) {
			sh.errorf("pushd: %s: directory stack index out of range", args[0])
			return 1
		}
		if args[0][0] == '-' {
			n = len(stack) - 1 - n
		}
		rot := append(append([]string(nil), stack[n:]...), stack[:n]...)
		if err := sh.setStack(rot, noCd); err != nil {
			return 1
		}
	default:
		if len(args) > 1 {
			sh.errorf("pushd: too many arguments")
			return 1
		}
		old := sh.dir
		if noCd {
			sh.dirs = append([]string{args[0]}, sh.dirs...)
		} else {
			if err := sh.chdir(args[0], sh.opts.physical); err != nil {
				sh.errorf("pushd: %s: %s", args[0], cdErrText(err))
				return 1
			}
			sh.dirs = append([]string{old}, sh.dirs...)
		}
	}
	return builtinDirs(sh, []string{"dirs"})
}

// setStack makes stack the directory stack, changing to its top.
func (sh *Shell) setStack(stack []string, noCd bool) error {
	if !noCd && stack[0] != sh.dir {
		if err := sh.chdir(stack[0], false); err != nil {
			sh.errorf("%s: %s", stack[0], cdErrText(err))
			return err
		}
	}
	sh.dirs = append([]string(nil), stack[1:]...)
	return nil
}

func builtinPopd(sh *Shell, args []string) int {
	args = args[1:]
	noCd := false
	if len(args) > 0 && args[0] == "-n" {
		noCd = true
		args = args[1:]
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) > 0 {
		a := args[0]
		if !(len(a) > 1 && (a[0] == '+' || a[0] == '-') && isDigits(a[1:])) {
			sh.errorf("popd: %s: invalid argument", a)
			fmt.Fprintln(sh.stderr(), "popd: usage: popd [-n] [+N | -N]")
			return 2
		}
	}
	if len(sh.dirs) == 0 {
		sh.errorf("popd: directory stack empty")
		return 1
	}
	stack := sh.dirStack()
	n := 0
	if len(args) > 0 {
		a := args[0]
		if len(a) > 1 && (a[0] == '+' || a[0] == '-') && isDigits(a[1:]) {
			n, _ = strconv.Atoi(a[1:])
			if n >= len(stack) {
				sh.errorf("popd: %s: directory stack index out of range", a)
				return 1
			}
			if a[0] == '-' {
				n = len(stack) - 1 - n
			}
		} else {
			sh.errorf("popd: %s: invalid argument", a)
			fmt.Fprintln(sh.stderr(), "popd: usage: popd [-n] [+N | -N]")
			return 2
		}
	}
	rest := append(append([]string(nil), stack[:n]...), stack[n+1:]...)
	if n == 0 {
		if !noCd {
			if err := sh.chdir(rest[0], false); err != nil {
				sh.errorf("popd: %s: %s", rest[0], cdErrText(err))
				return 1
			}
		}
		sh.dirs = append([]string(nil), rest[1:]...)
	} else {
		sh.dirs = append([]string(nil), rest[1:]...)
	}
	return builtinDirs(sh, []string{"dirs"})
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
