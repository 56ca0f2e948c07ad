package coreutils

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

type cpFlags struct {
	recursive, preserve, noClobber, force, verbose, update, noDeref, deref bool
	noTargetDir                                                            bool
	targetDir                                                              string
	parents                                                                bool
}

var cpSpec = getopt.Spec{
	Usage: []string{"[OPTION]... SOURCE... DEST"},
	Options: []getopt.Option{
		{Short: 'r', Long: "recursive"}, {Short: 'R', Key: "recursive"}, {Short: 'p'},
		{Long: "preserve", Arg: getopt.Optional, ArgName: "ATTR_LIST"},
		{Long: "no-preserve", Arg: getopt.Required, ArgName: "ATTR_LIST"}, {Short: 'n', Long: "no-clobber"},
		{Short: 'f', Long: "force"}, {Short: 'i', Long: "interactive"}, {Short: 'v', Long: "verbose"},
		{Short: 'u', Long: "update"}, {Short: 'a', Long: "archive"}, {Short: 'd'}, {Short: 'P', Long: "no-dereference"},
		{Short: 'L', Long: "dereference"}, {Short: 'H'}, {Short: 'T', Long: "no-target-directory"},
		{Short: 't', Long: "target-directory", Arg: getopt.Required, ArgName: "DIRECTORY"}, {Long: "parents"},
		{Long: "sparse", Arg: getopt.Required, ArgName: "WHEN"}, {Long: "reflink", Arg: getopt.Optional, ArgName: "WHEN"},
		{Short: 'x', Long: "one-file-system"}, {Short: 'l', Long: "link"}, {Short: 's', Long: "symbolic-link"},
	},
}

// set applies one of cp's options (mv's are a subset).
func (f *cpFlags) set(o getopt.Opt) {
	switch o.Key {
	case "recursive":
		f.recursive = true
	case "p", "preserve":
		f.preserve = true
	case "no-preserve":
		f.preserve = false
	case "no-clobber":
		f.noClobber, f.force = true, false
	case "force":
		f.force, f.noClobber = true, false
	case "interactive":
		f.noClobber = false
	case "verbose":
		f.verbose = true
	case "update":
		f.update = true
	case "archive":
		f.recursive, f.preserve, f.noDeref = true, true, true
	case "d":
		f.noDeref = true
	case "no-dereference":
		f.noDeref, f.deref = true, false
	case "dereference":
		f.deref, f.noDeref = true, false
	case "H":
		f.deref = true
	case "no-target-directory":
		f.noTargetDir = true
	case "target-directory":
		f.targetDir = o.Value
	case "parents":
		f.parents = true
	}
}

// copier copies files and trees for cp and for mv across mounts.
type copier struct {
	ctx  context.Context
	env  *command.Env
	o    *out
	f    cpFlags
	name string // "cp" or "mv", for messages
}

func (c *copier) errorf(format string, a ...any) {
	c.o.Flush()
	c.env.Errorf(format, a...)
}

func runCp(ctx context.Context, env *command.Env) int {
	opts, args, code, ok := cpSpec.Run(env)
	if !ok {
		return code
	}
	var f cpFlags
	for _, o := range opts {
		f.set(o)
	}
	pairs, code, ok := targets(env, args, f.targetDir, f.noTargetDir)
	if !ok {
		return code
	}
	cp := &copier{ctx: ctx, env: env, o: newOut(env), f: f, name: "cp"}
	status := 0
	for _, p := range pairs {
		if done(ctx) {
			return cp.o.finish(env, statusCanceled)
		}
		if !cp.copyTop(p.src, p.dst) {
			status = 1
		}
	}
	return cp.o.finish(env, status)
}

type srcDst struct{ src, dst string }

// targets works out (source, destination) pairs for cp and mv: the last
// operand is a directory to copy into, or the one destination.
func targets(env *command.Env, args []string, targetDir string, noTargetDir bool) ([]srcDst, int, bool) {
	if targetDir != "" {
		if len(args) == 0 {
			return nil, usageFail(env, 1, "missing file operand"), false
		}
		fi, err := env.FS.Stat(targetDir)
		if err != nil {
			env.Errorf("target directory %s: %s", quote(targetDir), command.Strerror(err))
			return nil, 1, false
		}
		if !fi.IsDir() {
			env.Errorf("target %s is not a directory", quote(targetDir))
			return nil, 1, false
		}
		var out []srcDst
		for _, a := range args {
			out = append(out, srcDst{a, joinPath(targetDir, baseName(a))})
		}
		return out, 0, true
	}
	switch len(args) {
	case 0:
		return nil, usageFail(env, 1, "missing file operand"), false
	case 1:
		return nil, usageFail(env, 1, "missing destination file operand after "+quote(args[0])), false
	}
	dst := args[len(args)-1]
	srcs := args[:len(args)-1]
	fi, err := env.FS.Stat(dst)
	isDir := err == nil && fi.IsDir()
	if noTargetDir {
		if len(srcs) > 1 {
			return nil, usageFail(env, 1, "extra operand "+quote(args[2])), false
		}
		return []srcDst{{srcs[0], dst}}, 0, true
	}
	if len(srcs) > 1 && !isDir {
		if err != nil && !isNotExist(err) || err == nil {
			env.Errorf("target %s is not a directory", quote(dst))
		} else {
			env.Errorf("target %s: %s", quote(dst), command.Strerror(err))
		}
		return nil, 1, false
	}
	if !isDir {
		return []srcDst{{srcs[0], dst}}, 0, true
	}
	var out []srcDst
	for _, s := range srcs {
		out = append(out, srcDst{s, joinPath(dst, baseName(s))})
	}
	return out, 0, true
}

// copyTop copies one command-line source.
func (c *copier) copyTop(src, dst string) bool {
	follow := !c.f.noDeref && (!c.f.recursive || c.f.deref)
	var fi fs.FileInfo
	var err error
	if follow {
		fi, err = c.env.FS.Stat(src)
	} else {
		fi, err = c.env.FS.Lstat(src)
	}
	if err != nil {
		c.errorf("cannot stat %s: %s", quote(src), command.Strerror(err))
		return false
	}
	if fi.IsDir() {
		if !c.f.recursive {
			c.errorf("-r not specified; omitting directory %s", quote(src))
			return false
		}
		sa, da := c.env.FS.Abs(src), c.env.FS.Abs(dst)
		if canon, err := canonicalize(c.env.FS, src, canonAll); err == nil {
			sa = canon
		}
		if canon, err := canonicalize(c.env.FS, path.Dir(da), canonNone); err == nil {
			da = path.Join(canon, path.Base(da))
		}
		if da == sa || strings.HasPrefix(da, sa+"/") {
			c.errorf("cannot copy a directory, %s, into itself, %s", quote(src), quote(dst))
			return false
		}
	}
	return c.copy(src, dst, fi, true)
}

// copy copies src (described by fi) to dst.
func (c *copier) copy(src, dst string, fi fs.FileInfo, top bool) bool {
	if done(c.ctx) {
		return false
	}
	dfi, derr := c.env.FS.Lstat(dst)
	exists := derr == nil
	if exists && dfi.Mode()&fs.ModeSymlink != 0 && !fi.IsDir() && fi.Mode()&fs.ModeSymlink == 0 {
		t, err := c.env.FS.Stat(dst)
		if err != nil {
			c.errorf("not writing through dangling symlink %s", quote(dst))
			return false
		}
		dfi = t
	}
	if exists && os.SameFile(fi, dfi) {
		c.errorf("%s and %s are the same file", quote(src), quote(dst))
		return false
	}
	if fi.IsDir() {
		if exists && !dfi.IsDir() {
			c.errorf("cannot overwrite non-directory %s with directory %s", quote(dst), quote(src))
			return false
		}
		if !exists {
			if err := c.env.FS.Mkdir(dst, fi.Mode().Perm()|0o700); err != nil {
				c.errorf("cannot create directory %s: %s", quote(dst), command.Strerror(err))
				return false
			}
		}
		if c.f.verbose {
			fmt.Fprintf(c.o, "%s -> %s\n", quote(src), quote(dst))
		}
		ents, err := c.env.FS.ReadDir(src)
		if err != nil {
			c.errorf("cannot access %s: %s", quote(src), command.Strerror(err))
			return false
		}
		ok := true
		for _, e := range ents {
			if done(c.ctx) {
				return false
			}
			s, d := joinPath(src, e.Name()), joinPath(dst, e.Name())
			var efi fs.FileInfo
			var err error
			if c.f.deref {
				efi, err = c.env.FS.Stat(s)
			} else {
				efi, err = c.env.FS.Lstat(s)
			}
			if err != nil {
				c.errorf("cannot stat %s: %s", quote(s), command.Strerror(err))
				ok = false
				continue
			}
			if !c.copy(s, d, efi, false) {
				ok = false
			}
		}
		if !exists || c.f.preserve {
			mode := fi.Mode().Perm()
			if !c.f.preserve {
				mode &^= agentUmask
			}
			c.env.FS.Chmod(dst, goMode(unixMode(fi.Mode())&^0o7000|uint32(mode)))
		}
		if c.f.preserve {
			c.env.FS.Chtimes(dst, statOf(fi).atime, fi.ModTime())
		}
		return ok
	}
	if exists {
		if c.f.noClobber {
			return true
		}
		if dfi.IsDir() {
			c.errorf("cannot overwrite directory %s with non-directory", quote(dst))
			return false
		}
		if c.f.update && !fi.ModTime().After(dfi.ModTime()) {
			return true
		}
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := c.env.FS.Readlink(src)
		if err != nil {
			c.errorf("cannot read symbolic link %s: %s", quote(src), command.Strerror(err))
			return false
		}
		if exists {
			c.env.FS.Remove(dst)
		}
		if err := c.env.FS.Symlink(target, dst); err != nil {
			c.errorf("cannot create symbolic link %s: %s", quote(dst), command.Strerror(err))
			return false
		}
		if c.f.verbose {
			fmt.Fprintf(c.o, "%s -> %s\n", quote(src), quote(dst))
		}
		return true
	}
	if !fi.Mode().IsRegular() && fi.Mode()&fs.ModeCharDevice == 0 {
		c.errorf("cannot copy special file %s", quote(src))
		return false
	}
	if err := c.copyFile(src, dst, fi, exists); err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return false
		}
		c.errorf("%s", err.Error())
		return false
	}
	if c.f.verbose {
		fmt.Fprintf(c.o, "%s -> %s\n", quote(src), quote(dst))
	}
	return true
}

func (c *copier) copyFile(src, dst string, fi fs.FileInfo, exists bool) error {
	in, err := c.env.FS.Open(src)
	if err != nil {
		return fmt.Errorf("cannot open %s for reading: %s", quote(src), command.Strerror(err))
	}
	defer in.Close()
	perm := fi.Mode().Perm()
	outf, err := c.env.FS.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil && exists && c.f.force {
		c.env.FS.Remove(dst)
		outf, err = c.env.FS.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	}
	if err != nil {
		return fmt.Errorf("cannot create regular file %s: %s", quote(dst), command.Strerror(err))
	}
	_, err = io.Copy(outf, ctxReader{c.ctx, in})
	cerr := outf.Close()
	if err != nil {
		if ce := c.ctx.Err(); ce != nil {
			return ce
		}
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Op == "read" {
			return fmt.Errorf("error reading %s: %s", quote(src), command.Strerror(err))
		}
		return fmt.Errorf("error writing %s: %s", quote(dst), command.Strerror(err))
	}
	if cerr != nil {
		return fmt.Errorf("failed to close %s: %s", quote(dst), command.Strerror(cerr))
	}
	if c.f.preserve {
		if err := c.env.FS.Chmod(dst, goMode(unixMode(fi.Mode()))); err != nil {
			return fmt.Errorf("preserving permissions for %s: %s", quote(dst), command.Strerror(err))
		}
		if err := c.env.FS.Chtimes(dst, statOf(fi).atime, fi.ModTime()); err != nil {
			return fmt.Errorf("preserving times for %s: %s", quote(dst), command.Strerror(err))
		}
	}
	return nil
}

// ctxReader stops a copy when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (r ctxReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.r.Read(p)
}

var mvSpec = getopt.Spec{
	Usage: []string{"[OPTION]... SOURCE... DEST"},
	Options: []getopt.Option{
		{Short: 'f', Long: "force"}, {Short: 'n', Long: "no-clobber"}, {Short: 'i', Long: "interactive"},
		{Short: 'v', Long: "verbose"}, {Short: 'u', Long: "update"}, {Short: 'T', Long: "no-target-directory"},
		{Short: 't', Long: "target-directory", Arg: getopt.Required, ArgName: "DIRECTORY"}, {Long: "strip-trailing-slashes"},
	},
}

func runMv(ctx context.Context, env *command.Env) int {
	opts, args, code, ok := mvSpec.Run(env)
	if !ok {
		return code
	}
	var f cpFlags
	for _, o := range opts {
		f.set(o)
	}
	pairs, code, ok := targets(env, args, f.targetDir, f.noTargetDir)
	if !ok {
		return code
	}
	o := newOut(env)
	status := 0
	for _, p := range pairs {
		if done(ctx) {
			return o.finish(env, statusCanceled)
		}
		if !moveOne(ctx, env, o, f, p.src, p.dst) {
			status = 1
		}
	}
	return o.finish(env, status)
}

func moveOne(ctx context.Context, env *command.Env, o *out, f cpFlags, src, dst string) bool {
	fail := func(format string, a ...any) bool {
		o.Flush()
		env.Errorf(format, a...)
		return false
	}
	sfi, err := env.FS.Lstat(src)
	if err != nil {
		return fail("cannot stat %s: %s", quote(src), command.Strerror(err))
	}
	dfi, derr := env.FS.Lstat(dst)
	exists := derr == nil
	if exists {
		if os.SameFile(sfi, dfi) {
			return fail("%s and %s are the same file", quote(src), quote(dst))
		}
		if f.noClobber {
			return true
		}
		if f.update && !sfi.ModTime().After(dfi.ModTime()) {
			return true
		}
		if dfi.IsDir() && !sfi.IsDir() {
			return fail("cannot overwrite directory %s with non-directory", quote(dst))
		}
		if !dfi.IsDir() && sfi.IsDir() {
			return fail("cannot overwrite non-directory %s with directory %s", quote(dst), quote(src))
		}
	}
	if sfi.IsDir() {
		sa := env.FS.Abs(src)
		if canon, err := canonicalize(env.FS, src, canonAll); err == nil {
			sa = canon
		}
		da := env.FS.Abs(dst)
		if canon, err := canonicalize(env.FS, path.Dir(da), canonNone); err == nil {
			da = path.Join(canon, path.Base(da))
		}
		if strings.HasPrefix(da, sa+"/") {
			return fail("cannot move %s to a subdirectory of itself, %s", quote(src), quote(dst))
		}
	}
	err = env.FS.Rename(src, dst)
	if errors.Is(err, syscall.EXDEV) {
		// Across mounts: copy everything, then remove the source.
		if exists {
			if err := env.FS.RemoveAll(dst); err != nil {
				return fail("cannot remove %s: %s", quote(dst), command.Strerror(err))
			}
		}
		cp := &copier{ctx: ctx, env: env, o: o, f: cpFlags{recursive: true, preserve: true, noDeref: true}, name: "mv"}
		if !cp.copy(src, dst, sfi, true) {
			return false
		}
		if err := removeTree(ctx, env.FS, src); err != nil {
			return fail("cannot remove %s: %s", quote(src), command.Strerror(err))
		}
		err = nil
	}
	if err != nil {
		return fail("cannot move %s to %s: %s", quote(src), quote(dst), command.Strerror(err))
	}
	if f.verbose {
		fmt.Fprintf(o, "renamed %s -> %s\n", quote(src), quote(dst))
	}
	return true
}

// removeTree removes name and everything below it, checking ctx.
func removeTree(ctx context.Context, fsys command.FS, name string) error {
	fi, err := fsys.Lstat(name)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		ents, err := fsys.ReadDir(name)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := removeTree(ctx, fsys, joinPath(name, e.Name())); err != nil {
				return err
			}
		}
	}
	return fsys.Remove(name)
}
