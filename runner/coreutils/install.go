package coreutils

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"syscall"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

type installFlags struct {
	dirs, leading, verbose, preserve, compare, noTargetDir bool
	mode, targetDir                                        string
}

var installSpec = getopt.Spec{
	Usage: []string{"[OPTION]... [-T] SOURCE DEST", "[OPTION]... SOURCE... DIRECTORY", "[OPTION]... -t DIRECTORY SOURCE...", "[OPTION]... -d DIRECTORY..."},
	Options: []getopt.Option{
		{Short: 'd', Long: "directory"}, {Short: 'D'}, {Short: 'm', Long: "mode", Arg: getopt.Required, ArgName: "MODE"},
		{Short: 't', Long: "target-directory", Arg: getopt.Required, ArgName: "DIRECTORY"},
		{Short: 'T', Long: "no-target-directory"}, {Short: 'v', Long: "verbose"}, {Short: 'p', Long: "preserve-timestamps"},
		{Short: 'C', Long: "compare"},
		// Every file is the agent's: owner and group names change nothing.
		{Short: 'o', Long: "owner", Arg: getopt.Required, ArgName: "OWNER"},
		{Short: 'g', Long: "group", Arg: getopt.Required, ArgName: "GROUP"}, {Short: 'c'},
	},
}

// runInstall copies files and sets their mode (0755 unless -m), or makes
// directories with -d. -o and -g are accepted and ignored (every file is
// the agent's); -s (strip) and backups are not supported.
func runInstall(ctx context.Context, env *command.Env) int {
	opts, args, code, ok := installSpec.Run(env)
	if !ok {
		return code
	}
	f := installFlags{dirs: opts.Has("directory"), leading: opts.Has("D"), noTargetDir: opts.Has("no-target-directory"),
		verbose: opts.Has("verbose"), preserve: opts.Has("preserve-timestamps"), compare: opts.Has("compare")}
	f.mode, _ = opts.Value("mode")
	f.targetDir, _ = opts.Value("target-directory")
	mode := uint32(0o755)
	if f.mode != "" {
		m, ok := applyMode(f.mode, 0o755, f.dirs)
		if !ok {
			env.Errorf("invalid mode %s", lquote(f.mode))
			return 1
		}
		mode = m
	}
	o := newOut(env)
	in := &installer{ctx: ctx, env: env, o: o, f: f, mode: mode}
	if f.dirs {
		if len(args) == 0 {
			return usageFail(env, 1, "missing file operand")
		}
		status := 0
		for _, d := range args {
			if done(ctx) {
				return o.finish(env, statusCanceled)
			}
			if !in.makeDir(d, true) {
				status = 1
			}
		}
		return o.finish(env, status)
	}
	if f.leading && f.targetDir != "" && !in.makeDir(f.targetDir, false) {
		return o.finish(env, 1)
	}
	if f.leading && f.targetDir == "" && len(args) == 2 {
		if dir := path.Dir(args[1]); dir != "." && !in.makeDir(dir, false) {
			return o.finish(env, 1)
		}
	}
	pairs, code, ok := in.pairs(args)
	if !ok {
		return o.finish(env, code)
	}
	status := 0
	for _, p := range pairs {
		if done(ctx) {
			return o.finish(env, statusCanceled)
		}
		if err := in.installFile(p.src, p.dst); err != nil {
			in.errorf("%s", err)
			status = 1
		}
	}
	return o.finish(env, status)
}

type installer struct {
	ctx  context.Context
	env  *command.Env
	o    *out
	f    installFlags
	mode uint32
}

func (in *installer) errorf(format string, a ...any) {
	in.o.Flush()
	in.env.Errorf(format, a...)
}

// pairs works out (source, destination) pairs from the operands.
func (in *installer) pairs(args []string) ([]srcDst, int, bool) {
	env := in.env
	if in.f.targetDir != "" {
		return targets(env, args, in.f.targetDir, false)
	}
	switch len(args) {
	case 0:
		return nil, usageFail(env, 1, "missing file operand"), false
	case 1:
		return nil, usageFail(env, 1, "missing destination file operand after "+quote(args[0])), false
	}
	dst := args[len(args)-1]
	fi, err := env.FS.Stat(dst)
	isDir := err == nil && fi.IsDir()
	switch {
	case in.f.noTargetDir && len(args) > 2:
		return nil, usageFail(env, 1, "extra operand "+quote(args[2])), false
	case in.f.noTargetDir || (len(args) == 2 && !isDir):
		return []srcDst{{args[0], dst}}, 0, true
	case !isDir:
		if err == nil {
			err = syscall.ENOTDIR
		}
		env.Errorf("target %s: %s", quote(dst), command.Strerror(err))
		return nil, 1, false
	}
	var out []srcDst
	for _, s := range args[:len(args)-1] {
		out = append(out, srcDst{s, joinPath(dst, baseName(s))})
	}
	return out, 0, true
}

// makeDir makes d and its parents, reporting each with -v; named
// directories (-d operands) get the mode.
func (in *installer) makeDir(d string, named bool) bool {
	made, err := mkdirParents(in.env.FS, d)
	if in.f.verbose {
		for _, m := range made {
			fmt.Fprintf(in.o, "install: creating directory %s\n", quote(m))
		}
	}
	if err != nil {
		in.errorf("cannot create directory %s: %s", quote(errPath(err, d)), command.Strerror(err))
		return false
	}
	if named {
		if err := in.env.FS.Chmod(d, goMode(in.mode)); err != nil {
			in.errorf("cannot change permissions of %s: %s", quote(d), command.Strerror(err))
			return false
		}
	}
	return true
}

// installFile copies src over dst (replacing it, as GNU unlinks it
// first) and sets the mode and, with -p, the times.
func (in *installer) installFile(src, dst string) error {
	fsys := in.env.FS
	sfi, err := fsys.Stat(src)
	if err != nil {
		return fmt.Errorf("cannot stat %s: %s", quote(src), command.Strerror(err))
	}
	if sfi.IsDir() {
		return fmt.Errorf("omitting directory %s", quote(src))
	}
	dfi, derr := fsys.Stat(dst)
	if derr == nil {
		if dfi.IsDir() {
			return fmt.Errorf("cannot overwrite directory %s with non-directory", quote(dst))
		}
		if os.SameFile(sfi, dfi) {
			return fmt.Errorf("%s and %s are the same file", quote(src), quote(dst))
		}
		if in.f.compare && in.unchanged(src, dst, dfi) {
			return nil
		}
	}
	if in.f.verbose {
		fmt.Fprintf(in.o, "%s -> %s\n", quote(src), quote(dst))
	}
	if derr == nil {
		if err := fsys.Remove(dst); err != nil {
			return fmt.Errorf("cannot remove %s: %s", quote(dst), command.Strerror(err))
		}
	}
	r, err := fsys.Open(src)
	if err != nil {
		return fmt.Errorf("cannot open %s for reading: %s", quote(src), command.Strerror(err))
	}
	defer r.Close()
	w, err := fsys.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("cannot create regular file %s: %s", quote(dst), command.Strerror(err))
	}
	_, err = io.Copy(w, ctxReader{in.ctx, r})
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("error writing %s: %s", quote(dst), command.Strerror(err))
	}
	if err := fsys.Chmod(dst, goMode(in.mode)); err != nil {
		return fmt.Errorf("cannot change permissions of %s: %s", quote(dst), command.Strerror(err))
	}
	if in.f.preserve {
		if err := fsys.Chtimes(dst, accessTime(sfi), sfi.ModTime()); err != nil {
			return fmt.Errorf("cannot set timestamps for %s: %s", quote(dst), command.Strerror(err))
		}
	}
	return nil
}

// unchanged is -C's test: dst already has src's content and the mode.
func (in *installer) unchanged(src, dst string, dfi fs.FileInfo) bool {
	sfi, err := in.env.FS.Stat(src)
	if err != nil || !dfi.Mode().IsRegular() || sfi.Size() != dfi.Size() || unixMode(dfi.Mode()) != in.mode {
		return false
	}
	a, err := readAllFS(in.env.FS, src)
	if err != nil {
		return false
	}
	b, err := readAllFS(in.env.FS, dst)
	return err == nil && bytes.Equal(a, b)
}

func readAllFS(fsys command.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
