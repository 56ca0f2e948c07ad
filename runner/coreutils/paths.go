package coreutils

import (
	"context"
	"io/fs"
	"path"
	"strings"
	"syscall"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
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

var readlinkSpec = getopt.Spec{
	Usage: []string{"[OPTION]... FILE..."},
	Options: []getopt.Option{
		{Short: 'f', Long: "canonicalize"}, {Short: 'e', Long: "canonicalize-existing"},
		{Short: 'm', Long: "canonicalize-missing"}, {Short: 'n', Long: "no-newline"}, {Short: 'z', Long: "zero"},
		{Short: 'v', Long: "verbose"}, {Short: 'q', Long: "quiet"}, {Short: 's', Long: "silent"},
	},
}

func runReadlink(ctx context.Context, env *command.Env) int {
	opts, names, code, ok := readlinkSpec.Run(env)
	if !ok {
		return code
	}
	mode := canonMode(-1)
	var noNewline, zero, verbose bool
	for _, o := range opts {
		switch o.Key {
		case "canonicalize":
			mode = canonAllButLast
		case "canonicalize-existing":
			mode = canonAll
		case "canonicalize-missing":
			mode = canonNone
		case "no-newline":
			noNewline = true
		case "zero":
			zero = true
		case "verbose":
			verbose = true
		case "quiet", "silent":
			verbose = false
		}
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

var realpathSpec = getopt.Spec{
	Usage: []string{"[OPTION]... FILE..."},
	Options: []getopt.Option{
		{Short: 'e', Long: "canonicalize-existing"}, {Short: 'm', Long: "canonicalize-missing"}, {Short: 'E'},
		{Short: 's', Long: "strip"}, {Long: "no-symlinks", Key: "strip"}, {Short: 'L', Long: "logical"},
		{Short: 'P', Long: "physical"}, {Short: 'q', Long: "quiet"}, {Short: 'z', Long: "zero"},
		{Long: "relative-to", Arg: getopt.Required, ArgName: "DIR"},
		{Long: "relative-base", Arg: getopt.Required, ArgName: "DIR"},
	},
}

func runRealpath(ctx context.Context, env *command.Env) int {
	opts, names, code, ok := realpathSpec.Run(env)
	if !ok {
		return code
	}
	mode := canonAllButLast
	var noSymlinks, quiet, zero bool
	var relTo, relBase string
	for _, o := range opts {
		switch o.Key {
		case "canonicalize-existing":
			mode = canonAll
		case "canonicalize-missing":
			mode = canonNone
		case "E":
			mode = canonAllButLast
		case "strip":
			noSymlinks = true
		case "physical":
			noSymlinks = false
		case "quiet":
			quiet = true
		case "zero":
			zero = true
		case "relative-to":
			relTo = o.Value
		case "relative-base":
			relBase = o.Value
		}
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
