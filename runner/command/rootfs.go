package command

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"syscall"
	"time"
)

// maxSymlinkHops bounds symlink resolution, as the kernel's 40 (ELOOP).
const maxSymlinkHops = 40

// RootFS is the agent's view of files: a synthetic "/" holding one
// directory per mount (each an os.Root over a host folder, for example
// /workspace and /tmp) and /dev with null, stdin, stdout and stderr. It
// resolves symlinks itself in the agent's namespace, so a link to
// "/workspace/a" works and a link to "/etc/passwd" names a file that does
// not exist; the os.Root underneath is the second guard against escapes.
type RootFS struct {
	mounts map[string]*os.Root // "/workspace" → root
	dir    string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// NewRootFS maps each agent directory (a direct child of "/", such as
// "/workspace") onto a host folder. dir is the working directory that
// relative names resolve against. The caller closes the FS.
func NewRootFS(mounts map[string]string, dir string) (*RootFS, error) {
	r := &RootFS{mounts: map[string]*os.Root{}, dir: path.Clean(dir)}
	for agent, host := range mounts {
		agent = path.Clean(agent)
		if path.Dir(agent) != "/" || agent == "/dev" {
			r.Close()
			return nil, fmt.Errorf("command: mount %q: must be a direct child of / other than /dev", agent)
		}
		root, err := os.OpenRoot(host)
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("command: mount %s: %w", agent, err)
		}
		r.mounts[agent] = root
	}
	return r, nil
}

// WithDir returns a view of the same mounts with another working directory
// and standard streams (used by /dev/stdin, /dev/stdout, /dev/stderr). The
// returned FS shares the roots: close only the original.
func (r *RootFS) WithDir(dir string, stdin io.Reader, stdout, stderr io.Writer) *RootFS {
	c := *r
	c.dir = path.Clean(dir)
	c.stdin, c.stdout, c.stderr = stdin, stdout, stderr
	return &c
}

// Close releases the roots.
func (r *RootFS) Close() error {
	var first error
	for _, root := range r.mounts {
		if err := root.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Abs implements FS.
func (r *RootFS) Abs(name string) string {
	if name == "" {
		return r.dir
	}
	if !path.IsAbs(name) {
		name = r.dir + "/" + name
	}
	return path.Clean(name)
}

// location is a resolved agent path: the mount it lies in and the path
// inside that mount ("." for the mount's top).
type location struct {
	abs   string
	mount string
	root  *os.Root
	rel   string
}

func (r *RootFS) locate(abs string) location {
	loc := location{abs: abs}
	if abs == "/" {
		return loc
	}
	first, rest, _ := strings.Cut(abs[1:], "/")
	m := "/" + first
	if root, ok := r.mounts[m]; ok {
		loc.mount, loc.root = m, root
		loc.rel = "."
		if rest != "" {
			loc.rel = rest
		}
	} else if m == "/dev" {
		loc.mount = "/dev"
		loc.rel = rest
	}
	return loc
}

// resolve follows symlinks in every component of name (and in the last one
// too when followLast) and returns where the name lands.
func (r *RootFS) resolve(op, name string, followLast bool) (location, error) {
	abs := r.Abs(name)
	hops := 0
	done := "/"
	todo := strings.Split(strings.TrimPrefix(abs, "/"), "/")
	for len(todo) > 0 {
		comp := todo[0]
		todo = todo[1:]
		switch comp {
		case "", ".":
			continue
		case "..":
			done = path.Dir(done)
			continue
		}
		next := path.Join(done, comp)
		last := len(todo) == 0
		if last && !followLast {
			done = next
			break
		}
		loc := r.locate(next)
		if loc.root == nil || loc.rel == "." {
			done = next
			continue
		}
		fi, err := loc.root.Lstat(loc.rel)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			// A missing component is reported by the operation itself.
			done = next
			continue
		}
		hops++
		if hops > maxSymlinkHops {
			return location{}, &fs.PathError{Op: op, Path: name, Err: syscall.ELOOP}
		}
		target, err := loc.root.Readlink(loc.rel)
		if err != nil {
			return location{}, &fs.PathError{Op: op, Path: name, Err: unwrapErrno(err)}
		}
		var rest []string
		if path.IsAbs(target) {
			done = "/"
			rest = strings.Split(strings.TrimPrefix(target, "/"), "/")
		} else {
			rest = strings.Split(target, "/")
		}
		todo = append(rest, todo...)
	}
	return r.locate(path.Clean(done)), nil
}

// unwrapErrno strips os.Root's own PathError so the caller can name the
// agent path instead of the host path.
func unwrapErrno(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

func pathErr(op, name string, err error) error {
	return &fs.PathError{Op: op, Path: name, Err: unwrapErrno(err)}
}

// dirOnly reports the synthetic directories ("/", "/dev") and missing
// top-level names.
func (r *RootFS) synthetic(op, name string, loc location) error {
	if loc.abs == "/" || (loc.mount == "/dev" && loc.rel == "") {
		return &fs.PathError{Op: op, Path: name, Err: syscall.EROFS}
	}
	return &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
}

// Open implements FS.
func (r *RootFS) Open(name string) (File, error) { return r.OpenFile(name, os.O_RDONLY, 0) }

// OpenFile implements FS.
func (r *RootFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	follow := flag&syscall.O_NOFOLLOW == 0
	loc, err := r.resolve("open", name, follow)
	if err != nil {
		return nil, err
	}
	if loc.root != nil {
		f, err := loc.root.OpenFile(loc.rel, flag, perm)
		if err != nil {
			return nil, pathErr("open", name, err)
		}
		return f, nil
	}
	if loc.mount == "/dev" && loc.rel != "" {
		return r.openDev(name, loc.rel, flag)
	}
	if loc.abs == "/" || loc.mount == "/dev" {
		if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC) != 0 {
			return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EISDIR}
		}
		return &syntheticDir{name: loc.abs, entries: r.syntheticEntries(loc.abs)}, nil
	}
	if flag&os.O_CREATE != 0 {
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EACCES}
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

func (r *RootFS) openDev(name, dev string, flag int) (File, error) {
	switch dev {
	case "null":
		f, err := os.OpenFile(os.DevNull, flag&^(os.O_CREATE|os.O_EXCL), 0)
		if err != nil {
			return nil, pathErr("open", name, err)
		}
		return f, nil
	case "stdin":
		if r.stdin != nil {
			return &streamFile{name: "/dev/stdin", r: r.stdin}, nil
		}
	case "stdout":
		if r.stdout != nil {
			return &streamFile{name: "/dev/stdout", w: r.stdout}, nil
		}
	case "stderr":
		if r.stderr != nil {
			return &streamFile{name: "/dev/stderr", w: r.stderr}, nil
		}
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

func (r *RootFS) syntheticEntries(dir string) []fs.DirEntry {
	var out []fs.DirEntry
	if dir == "/" {
		for m := range r.mounts {
			out = append(out, syntheticEntry{name: m[1:], mode: fs.ModeDir | 0o755})
		}
		out = append(out, syntheticEntry{name: "dev", mode: fs.ModeDir | 0o755})
	} else {
		for _, d := range []string{"null", "stderr", "stdin", "stdout"} {
			out = append(out, syntheticEntry{name: d, mode: fs.ModeCharDevice | fs.ModeDevice | 0o666})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

func (r *RootFS) statSynthetic(op, name string, loc location) (fs.FileInfo, error) {
	if loc.abs == "/" || (loc.mount == "/dev" && loc.rel == "") {
		return syntheticEntry{name: path.Base(loc.abs), mode: fs.ModeDir | 0o755}, nil
	}
	if loc.mount == "/dev" {
		switch loc.rel {
		case "null", "stdin", "stdout", "stderr":
			return syntheticEntry{name: loc.rel, mode: fs.ModeCharDevice | fs.ModeDevice | 0o666}, nil
		}
	}
	return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
}

// Stat implements FS.
func (r *RootFS) Stat(name string) (fs.FileInfo, error) {
	loc, err := r.resolve("stat", name, true)
	if err != nil {
		return nil, err
	}
	if loc.root == nil {
		return r.statSynthetic("stat", name, loc)
	}
	fi, err := loc.root.Stat(loc.rel)
	if err != nil {
		return nil, pathErr("stat", name, err)
	}
	return fi, nil
}

// Lstat implements FS.
func (r *RootFS) Lstat(name string) (fs.FileInfo, error) {
	loc, err := r.resolve("lstat", name, false)
	if err != nil {
		return nil, err
	}
	if loc.root == nil {
		return r.statSynthetic("lstat", name, loc)
	}
	fi, err := loc.root.Lstat(loc.rel)
	if err != nil {
		return nil, pathErr("lstat", name, err)
	}
	return fi, nil
}

// ReadDir implements FS; entries are sorted by name.
func (r *RootFS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := r.Open(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: unwrapErrno(err)}
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, pathErr("readdirent", name, err)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents, nil
}

// inMount resolves the parent of name and returns its location, failing
// for the synthetic directories.
func (r *RootFS) inMount(op, name string) (location, error) {
	loc, err := r.resolve(op, name, false)
	if err != nil {
		return loc, err
	}
	if loc.root == nil || loc.rel == "." {
		if loc.root != nil || loc.abs == "/" || loc.mount == "/dev" {
			return loc, &fs.PathError{Op: op, Path: name, Err: syscall.EPERM}
		}
		return loc, r.synthetic(op, name, loc)
	}
	return loc, nil
}

// Mkdir implements FS.
func (r *RootFS) Mkdir(name string, perm fs.FileMode) error {
	loc, err := r.inMount("mkdir", name)
	if err != nil {
		if loc.root != nil && loc.rel == "." {
			return &fs.PathError{Op: "mkdir", Path: name, Err: fs.ErrExist}
		}
		return err
	}
	return wrap("mkdir", name, loc.root.Mkdir(loc.rel, perm))
}

// MkdirAll implements FS.
func (r *RootFS) MkdirAll(name string, perm fs.FileMode) error {
	abs := r.Abs(name)
	if fi, err := r.Stat(abs); err == nil {
		if fi.IsDir() {
			return nil
		}
		return &fs.PathError{Op: "mkdir", Path: name, Err: syscall.ENOTDIR}
	}
	if parent := path.Dir(abs); parent != abs {
		if err := r.MkdirAll(parent, perm); err != nil {
			return err
		}
	}
	if err := r.Mkdir(abs, perm); err != nil {
		if fi, serr := r.Stat(abs); serr == nil && fi.IsDir() {
			return nil
		}
		return &fs.PathError{Op: "mkdir", Path: name, Err: unwrapErrno(err)}
	}
	return nil
}

// Remove implements FS.
func (r *RootFS) Remove(name string) error {
	loc, err := r.inMount("remove", name)
	if err != nil {
		return err
	}
	return wrap("remove", name, loc.root.Remove(loc.rel))
}

// RemoveAll implements FS.
func (r *RootFS) RemoveAll(name string) error {
	loc, err := r.inMount("remove", name)
	if err != nil {
		return err
	}
	return wrap("remove", name, loc.root.RemoveAll(loc.rel))
}

// Rename implements FS. Both names must lie in the same mount (EXDEV
// otherwise, as between two file systems).
func (r *RootFS) Rename(oldname, newname string) error {
	from, err := r.inMount("rename", oldname)
	if err != nil {
		return err
	}
	to, err := r.inMount("rename", newname)
	if err != nil {
		return err
	}
	if from.mount != to.mount {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: syscall.EXDEV}
	}
	if err := from.root.Rename(from.rel, to.rel); err != nil {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: unwrapErrno(err)}
	}
	return nil
}

// Symlink implements FS. The target is stored as given; it is resolved in
// the agent's namespace when followed.
func (r *RootFS) Symlink(target, linkname string) error {
	loc, err := r.inMount("symlink", linkname)
	if err != nil {
		return err
	}
	if err := loc.root.Symlink(target, loc.rel); err != nil {
		return &os.LinkError{Op: "symlink", Old: target, New: linkname, Err: unwrapErrno(err)}
	}
	return nil
}

// Link implements FS.
func (r *RootFS) Link(oldname, newname string) error {
	from, err := r.inMount("link", oldname)
	if err != nil {
		return err
	}
	to, err := r.inMount("link", newname)
	if err != nil {
		return err
	}
	if from.mount != to.mount {
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: syscall.EXDEV}
	}
	if err := from.root.Link(from.rel, to.rel); err != nil {
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: unwrapErrno(err)}
	}
	return nil
}

// Readlink implements FS.
func (r *RootFS) Readlink(name string) (string, error) {
	loc, err := r.inMount("readlink", name)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: syscall.EINVAL}
	}
	t, err := loc.root.Readlink(loc.rel)
	if err != nil {
		return "", pathErr("readlink", name, err)
	}
	return t, nil
}

// Chmod implements FS.
func (r *RootFS) Chmod(name string, mode fs.FileMode) error {
	loc, err := r.resolve("chmod", name, true)
	if err != nil {
		return err
	}
	if loc.root == nil {
		return r.synthetic("chmod", name, loc)
	}
	return wrap("chmod", name, loc.root.Chmod(loc.rel, mode))
}

// Chtimes implements FS.
func (r *RootFS) Chtimes(name string, atime, mtime time.Time) error {
	loc, err := r.resolve("chtimes", name, true)
	if err != nil {
		return err
	}
	if loc.root == nil {
		return r.synthetic("chtimes", name, loc)
	}
	return wrap("chtimes", name, loc.root.Chtimes(loc.rel, atime, mtime))
}

func wrap(op, name string, err error) error {
	if err == nil {
		return nil
	}
	return pathErr(op, name, err)
}
