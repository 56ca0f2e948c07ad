package coreutils

import (
	"context"
	"io/fs"
	"path"
	"strings"
	"syscall"

	"github.com/wsfs/wsfs/runner/command"
)

// canonMode says which components of a name must exist.
type canonMode int

const (
	canonAllButLast canonMode = iota // readlink -f, realpath
	canonAll                         // -e
	canonNone                        // -m
)

// canonicalize resolves name to an absolute agent path without . , .. or
// symlinks, as readlink -f / realpath do, in the agent's namespace.
func canonicalize(fsys command.FS, name string, mode canonMode) (string, error) {
	if name == "" {
		return "", &fs.PathError{Op: "canonicalize", Path: name, Err: syscall.ENOENT}
	}
	raw := name
	if !path.IsAbs(raw) {
		raw = fsys.Abs(".") + "/" + raw
	}
	todo := splitPath(raw)
	done := "/"
	hops := 0
	missing := false
	for len(todo) > 0 {
		comp := todo[0]
		todo = todo[1:]
		if comp == ".." {
			done = path.Dir(done)
			continue
		}
		next := path.Join(done, comp)
		if missing {
			done = next
			continue
		}
		fi, err := fsys.Lstat(next)
		if err != nil {
			last := len(todo) == 0
			if mode == canonNone || mode == canonAllButLast && last && isNotExist(err) {
				if mode == canonNone {
					missing = true
				}
				done = next
				continue
			}
			return "", &fs.PathError{Op: "canonicalize", Path: name, Err: errnoOf(err)}
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			hops++
			if hops > 40 {
				return "", &fs.PathError{Op: "canonicalize", Path: name, Err: syscall.ELOOP}
			}
			target, err := fsys.Readlink(next)
			if err != nil {
				return "", &fs.PathError{Op: "canonicalize", Path: name, Err: errnoOf(err)}
			}
			if path.IsAbs(target) {
				done = "/"
			}
			todo = append(splitPath(target), todo...)
			continue
		}
		if len(todo) > 0 && !fi.IsDir() {
			if mode == canonNone {
				missing = true
				done = next
				continue
			}
			return "", &fs.PathError{Op: "canonicalize", Path: name, Err: syscall.ENOTDIR}
		}
		done = next
	}
	return done, nil
}

func splitPath(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

func isNotExist(err error) bool {
	var pe *fs.PathError
	if e, ok := err.(*fs.PathError); ok {
		pe = e
		return pe.Err == syscall.ENOENT || pe.Err == fs.ErrNotExist
	}
	return false
}

// errnoOf is the error inside a *fs.PathError.
func errnoOf(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

func runReadlink(ctx context.Context, env *command.Env) int {
	mode := canonMode(-1)
	var noNewline, zero, verbose bool
	c := cmdline{env: env, usage: "readlink [OPTION]... FILE...", opts: []option{
		act("f", "canonicalize", func() { mode = canonAllButLast }),
		act("e", "canonicalize-existing", func() { mode = canonAll }),
		act("m", "canonicalize-missing", func() { mode = canonNone }),
		flag("n", "no-newline", &noNewline),
		flag("z", "zero", &zero),
		flag("v", "verbose", &verbose),
		act("q", "quiet", func() { verbose = false }),
		act("s", "silent", func() { verbose = false }),
	}}
	names, code, ok := c.parse()
	if !ok {
		return code
	}
	if len(names) == 0 {
		return usageFail(env, 1, "missing operand")
	}
	if noNewline && len(names) > 1 {
		env.Errorf("ignoring --no-newline with multiple arguments")
		noNewline = false
	}
	end := "\n"
	switch {
	case zero:
		end = "\x00"
	case noNewline:
		end = ""
	}
	o := newOut(env)
	status := 0
	for _, n := range names {
		var res string
		var err error
		if mode < 0 {
			res, err = env.FS.Readlink(n)
		} else {
			res, err = canonicalize(env.FS, n, mode)
		}
		if err != nil {
			if verbose {
				o.Flush()
				env.Errorf("%s: %s", n, command.Strerror(err))
			}
			status = 1
			continue
		}
		o.WriteString(res + end)
	}
	return o.finish(env, status)
}

func runRealpath(ctx context.Context, env *command.Env) int {
	mode := canonAllButLast
	var noSymlinks, quiet, zero bool
	var relTo, relBase string
	c := cmdline{env: env, usage: "realpath [OPTION]... FILE...", opts: []option{
		act("e", "canonicalize-existing", func() { mode = canonAll }),
		act("m", "canonicalize-missing", func() { mode = canonNone }),
		act("E", "", func() { mode = canonAllButLast }),
		flag("s", "strip", &noSymlinks),
		flag("", "no-symlinks", &noSymlinks),
		act("L", "logical", func() {}),
		act("P", "physical", func() { noSymlinks = false }),
		flag("q", "quiet", &quiet),
		flag("z", "zero", &zero),
		valued("", "relative-to", func(v string) error { relTo = v; return nil }),
		valued("", "relative-base", func(v string) error { relBase = v; return nil }),
	}}
	names, code, ok := c.parse()
	if !ok {
		return code
	}
	if len(names) == 0 {
		return usageFail(env, 1, "missing operand")
	}
	resolve := func(n string, m canonMode) (string, error) {
		if noSymlinks {
			if n == "" {
				return "", &fs.PathError{Op: "realpath", Path: n, Err: syscall.ENOENT}
			}
			abs := env.FS.Abs(n)
			if m != canonNone {
				if _, err := env.FS.Stat(abs); err != nil && (m == canonAll || !isNotExist(err)) {
					return "", err
				}
			}
			return abs, nil
		}
		return canonicalize(env.FS, n, m)
	}
	if relTo != "" {
		r, err := resolve(relTo, mode)
		if err != nil {
			env.Errorf("%s: %s", relTo, command.Strerror(err))
			return 1
		}
		relTo = r
	}
	if relBase != "" {
		r, err := resolve(relBase, mode)
		if err != nil {
			env.Errorf("%s: %s", relBase, command.Strerror(err))
			return 1
		}
		relBase = r
		if relTo == "" {
			relTo = relBase
		}
	}
	end := "\n"
	if zero {
		end = "\x00"
	}
	o := newOut(env)
	status := 0
	for _, n := range names {
		res, err := resolve(n, mode)
		if err != nil {
			if !quiet {
				o.Flush()
				env.Errorf("%s: %s", n, command.Strerror(err))
			}
			status = 1
			continue
		}
		if relTo != "" && (relBase == "" || within(res, relBase) && within(relTo, relBase)) {
			res = relativePath(relTo, res)
		}
		o.WriteString(res + end)
	}
	return o.finish(env, status)
}

func within(p, base string) bool {
	return p == base || base == "/" || strings.HasPrefix(p, base+"/")
}

// relativePath is target relative to dir, both absolute and clean.
func relativePath(dir, target string) string {
	d, t := splitPath(dir), splitPath(target)
	i := 0
	for i < len(d) && i < len(t) && d[i] == t[i] {
		i++
	}
	var parts []string
	for range d[i:] {
		parts = append(parts, "..")
	}
	parts = append(parts, t[i:]...)
	if len(parts) == 0 {
		return "."
	}
	return strings.Join(parts, "/")
}
