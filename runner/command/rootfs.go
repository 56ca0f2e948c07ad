package command

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// maxSymlinkHops bounds symlink resolution, as the kernel's 40 (ELOOP).
const maxSymlinkHops = 40

// devFiles are the files of the synthetic /dev.
var devFiles = []string{"full", "null", "random", "stderr", "stdin", "stdout", "urandom", "zero"}

// RootFS is the agent's view of files: a synthetic "/" holding one
// directory per mount (each an os.Root over a host folder, for example
// /workspace and /tmp) and /dev with null, stdin, stdout and stderr. It
// resolves symlinks itself in the agent's namespace, so a link to
// "/workspace/a" works and a link to "/etc/passwd" names a file that does
// not exist; the os.Root underneath is the second guard against escapes.
//
// Errors of one-name operations are *fs.PathError and those of Rename, Link
// and Symlink are *os.LinkError, as the os package returns them, always
// naming the agent's paths, never host paths. Names of open files are agent
// paths too.
//
// With SetPrograms, /bin and /usr/bin list the runner's commands as
// executable files (empty, read-only), so that PATH lookups, ls and test -x
// agree with what runs. With WithFds, /dev/fd/N and /dev/stdin, stdout and
// stderr name the descriptors of the shell that runs the command.
type RootFS struct {
	mounts   map[string]*os.Root // "/workspace" → root
	dir      string
	stdin    io.Reader
	stdout   io.Writer
	stderr   io.Writer
	programs *programSet
	fds      func(n int) (File, bool)
}

// programSet is the names shown in /bin and /usr/bin.
type programSet struct {
	has   func(name string) bool
	names func() []string // sorted, asked for only when a folder is listed
}

// binDirs are the synthetic folders that hold the programs.
var binDirs = map[string]bool{"/bin": true, "/usr/bin": true}

// SetPrograms shows names as executable files in /bin and /usr/bin (and
// makes /usr a folder). Call it before the FS is used; views made by
// WithDir share the set.
func (r *RootFS) SetPrograms(names []string) {
	set := make(map[string]bool, len(names))
	var sorted []string
	for _, n := range names {
		if n != "" && !strings.Contains(n, "/") && n != "." && n != ".." && !set[n] {
			set[n] = true
			sorted = append(sorted, n)
		}
	}
	sort.Strings(sorted)
	r.SetProgramTable(func(n string) bool { return set[n] }, func() []string { return sorted })
}

// SetProgramTable is SetPrograms for a caller that has its names in a
// table already: has answers for one name, names lists them all, sorted
// (it is called only when /bin or /usr/bin is listed). Names with a slash
// never name a program.
func (r *RootFS) SetProgramTable(has func(name string) bool, names func() []string) {
	r.programs = &programSet{has: has, names: names}
}

// WithFds returns a view whose /dev/fd/N, /dev/stdin (0), /dev/stdout (1)
// and /dev/stderr (2) open what fd returns for N: the descriptors of the
// shell running the command. Closing a file it returns must leave the
// descriptor open.
func (r *RootFS) WithFds(fd func(n int) (File, bool)) *RootFS {
	c := *r
	c.fds = fd
	return &c
}

// NewRootFS maps each agent directory (a direct child of "/", such as
// "/workspace") onto a host folder. dir is the working directory that
// relative names resolve against. The caller closes the FS.
func NewRootFS(mounts map[string]string, dir string) (*RootFS, error) {
	r := &RootFS{mounts: map[string]*os.Root{}, dir: path.Clean(dir)}
	for agent, host := range mounts {
		agent = path.Clean(agent)
		if path.Dir(agent) != "/" || agent == "/" || agent == "/dev" {
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

// Abs implements FS. It cleans lexically; the operations themselves walk
// ".." physically, after following symlinks, as the kernel does.
func (r *RootFS) Abs(name string) string {
	if name == "" {
		return r.dir
	}
	if !path.IsAbs(name) {
		name = r.dir + "/" + name
	}
	return path.Clean(name)
}

// kind classifies where an agent path lands.
type kind int

const (
	kindMissing  kind = iota // outside every mount and not a /dev file
	kindMounted              // inside a mount, below its top
	kindMountTop             // the top of a mount, e.g. /workspace
	kindSynthDir             // "/", "/dev", "/dev/fd", "/bin", "/usr", "/usr/bin"
	kindDevFile              // /dev/null, /dev/stdin, …
	kindDevFd                // /dev/fd/N, open in the shell
	kindProgram              // /bin/NAME or /usr/bin/NAME: a runner command
)

// location is a resolved agent path: the mount it lies in and the path
// inside that mount ("." for the mount's top).
type location struct {
	abs   string
	kind  kind
	mount string
	root  *os.Root
	rel   string
	fd    File // kindDevFd
}

func (r *RootFS) locate(abs string) location {
	loc := location{abs: abs}
	if abs == "/" {
		loc.kind = kindSynthDir
		return loc
	}
	first, rest, _ := strings.Cut(abs[1:], "/")
	m := "/" + first
	if root, ok := r.mounts[m]; ok {
		loc.mount, loc.root = m, root
		loc.kind, loc.rel = kindMountTop, "."
		if rest != "" {
			loc.kind, loc.rel = kindMounted, rest
		}
		return loc
	}
	if m == "/dev" {
		loc.mount = "/dev"
		switch {
		case rest == "":
			loc.kind = kindSynthDir
		case r.fds != nil && rest == "fd":
			loc.kind = kindSynthDir
		case r.fds != nil && strings.HasPrefix(rest, "fd/"):
			if n, err := strconv.Atoi(rest[3:]); err == nil && n >= 0 && strconv.Itoa(n) == rest[3:] {
				if f, ok := r.fds(n); ok {
					loc.kind, loc.rel, loc.fd = kindDevFd, rest, f
				}
			}
		case r.fds != nil && (rest == "stdin" || rest == "stdout" || rest == "stderr"):
			if f, ok := r.fds(map[string]int{"stdin": 0, "stdout": 1, "stderr": 2}[rest]); ok {
				loc.kind, loc.rel, loc.fd = kindDevFd, rest, f
			}
		case isDevFile(rest):
			loc.kind, loc.rel = kindDevFile, rest
		}
		return loc
	}
	if r.programs != nil {
		switch {
		case binDirs[abs] || abs == "/usr":
			loc.kind = kindSynthDir
		case binDirs[path.Dir(abs)] && r.programs.has(path.Base(abs)):
			loc.kind, loc.rel = kindProgram, path.Base(abs)
		}
	}
	return loc
}

func isDevFile(name string) bool {
	for _, d := range devFiles {
		if d == name {
			return true
		}
	}
	return false
}

// lstat reports what a resolved location is without following a final
// symlink; ok is false when it does not exist.
func (loc location) lstat() (fi fs.FileInfo, ok bool) {
	switch loc.kind {
	case kindMounted, kindMountTop:
		fi, err := loc.root.Lstat(loc.rel)
		return fi, err == nil
	case kindSynthDir:
		return syntheticEntry{name: path.Base(loc.abs), mode: fs.ModeDir | 0o755}, true
	case kindDevFile:
		return syntheticEntry{name: loc.rel, mode: devMode}, true
	case kindDevFd:
		if fi, err := loc.fd.Stat(); err == nil {
			return renamedInfo{FileInfo: fi, name: path.Base(loc.rel)}, true
		}
		return syntheticEntry{name: path.Base(loc.rel), mode: devMode}, true
	case kindProgram:
		return syntheticEntry{name: loc.rel, mode: programMode}, true
	}
	return nil, false
}

// programMode is the mode of a program in /bin and /usr/bin.
const programMode fs.FileMode = 0o755

const devMode = fs.ModeCharDevice | fs.ModeDevice | 0o666

// resolve follows symlinks in every component of name (and in the last one
// too when followLast) and returns where the name lands. ".." is walked
// physically after symlinks and never leaves "/". A missing or
// non-directory component before the last fails with ENOENT or ENOTDIR; a
// missing last component is left to the operation.
func (r *RootFS) resolve(op, name string, followLast bool) (location, error) {
	if name == "" {
		return location{}, &fs.PathError{Op: op, Path: name, Err: syscall.ENOENT}
	}
	raw := name
	if !path.IsAbs(raw) {
		raw = r.dir + "/" + raw
	}
	trailingSlash := strings.HasSuffix(raw, "/") && strings.Trim(raw, "/") != ""
	if trailingSlash {
		followLast = true
	}
	hops := 0
	done := "/"
	todo := splitPath(raw)
	for len(todo) > 0 {
		comp := todo[0]
		todo = todo[1:]
		if comp == ".." {
			done = path.Dir(done)
			continue
		}
		next := path.Join(done, comp)
		last := len(todo) == 0
		loc := r.locate(next)
		fi, exists := loc.lstat()
		if !exists {
			if last {
				done = next
				break
			}
			if loc.kind == kindDevFile || loc.kind == kindDevFd || loc.kind == kindProgram ||
				loc.kind == kindMissing && loc.mount == "/dev" && strings.Count(next, "/") > 2 {
				return location{}, &fs.PathError{Op: op, Path: name, Err: syscall.ENOTDIR}
			}
			return location{}, &fs.PathError{Op: op, Path: name, Err: syscall.ENOENT}
		}
		if fi.Mode()&fs.ModeSymlink == 0 || (last && !followLast) {
			if !last && !fi.IsDir() {
				return location{}, &fs.PathError{Op: op, Path: name, Err: syscall.ENOTDIR}
			}
			done = next
			continue
		}
		hops++
		if hops > maxSymlinkHops {
			return location{}, &fs.PathError{Op: op, Path: name, Err: syscall.ELOOP}
		}
		target, err := loc.root.Readlink(loc.rel)
		if err != nil {
			return location{}, pathErr(op, name, err)
		}
		if target == "" {
			return location{}, &fs.PathError{Op: op, Path: name, Err: syscall.ENOENT}
		}
		if path.IsAbs(target) {
			done = "/"
		}
		todo = append(splitPath(target), todo...)
	}
	loc := r.locate(done)
	if trailingSlash {
		if fi, ok := loc.lstat(); ok && !fi.IsDir() {
			return location{}, &fs.PathError{Op: op, Path: name, Err: syscall.ENOTDIR}
		}
	}
	return loc, nil
}

// direct returns the mount and the path inside it when name can be
// handed to os.Root as is: it lies below a mount top, with no ".." and no
// trailing slash. os.Root follows the relative symlinks that stay inside
// the mount exactly as the agent's namespace does and refuses every other
// link, so a success is the right answer; on any error the caller falls
// back to resolve, which walks the namespace component by component. This
// keeps the common case at one os.Root call instead of one per component.
func (r *RootFS) direct(name string) (*os.Root, string, bool) {
	if name == "" || strings.HasSuffix(name, "/") {
		return nil, "", false
	}
	raw := name
	if !path.IsAbs(raw) {
		raw = r.dir + "/" + raw
	}
	for _, c := range strings.Split(raw, "/") {
		if c == ".." {
			return nil, "", false
		}
	}
	loc := r.locate(path.Clean(raw))
	if loc.kind != kindMounted {
		return nil, "", false
	}
	return loc.root, loc.rel, true
}

// splitPath splits a slash path into its components, dropping empty ones
// and ".".
func splitPath(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

// agentErrno turns an error of os.Root or *os.File into the errno inside,
// so the caller can name the agent path instead of the host path. os.Root's
// refusal to leave its folder reads as "no such file": outside the mounts
// nothing exists.
func agentErrno(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	var errno syscall.Errno
	if !errors.As(err, &errno) && strings.Contains(err.Error(), "path escapes from parent") {
		return syscall.ENOENT
	}
	return err
}

func pathErr(op, name string, err error) error {
	return &fs.PathError{Op: op, Path: name, Err: agentErrno(err)}
}

func wrap(op, name string, err error) error {
	if err == nil {
		return nil
	}
	return pathErr(op, name, err)
}

// Open implements FS.
func (r *RootFS) Open(name string) (File, error) { return r.OpenFile(name, os.O_RDONLY, 0) }

// OpenFile implements FS.
func (r *RootFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	if root, rel, ok := r.direct(name); ok {
		if f, err := root.OpenFile(rel, flag, perm); err == nil {
			return &mountFile{File: f, name: r.Abs(name)}, nil
		}
	}
	follow := flag&syscall.O_NOFOLLOW == 0
	loc, err := r.resolve("open", name, follow)
	if err != nil {
		return nil, err
	}
	writing := flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0
	switch loc.kind {
	case kindMounted, kindMountTop:
		if writing && strings.HasSuffix(name, "/") {
			// open("x/", O_CREAT) names a directory: Linux says EISDIR.
			return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EISDIR}
		}
		f, err := loc.root.OpenFile(loc.rel, flag, perm)
		if err != nil {
			return nil, pathErr("open", name, err)
		}
		return &mountFile{File: f, name: loc.abs}, nil
	case kindDevFile:
		if flag&os.O_EXCL != 0 && flag&os.O_CREATE != 0 {
			return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EEXIST}
		}
		return r.openDev(name, loc.rel, flag)
	case kindDevFd:
		if flag&os.O_EXCL != 0 && flag&os.O_CREATE != 0 {
			return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EEXIST}
		}
		return loc.fd, nil
	case kindProgram:
		if writing {
			return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EACCES}
		}
		return &programFile{name: loc.abs}, nil
	case kindSynthDir:
		if writing {
			return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EISDIR}
		}
		return &syntheticDir{name: loc.abs, entries: r.syntheticEntries(loc.abs)}, nil
	}
	if flag&os.O_CREATE != 0 {
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EACCES}
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.ENOENT}
}

func (r *RootFS) openDev(name, dev string, flag int) (File, error) {
	switch dev {
	case "null":
		f, err := os.OpenFile(os.DevNull, flag&^(os.O_CREATE|os.O_EXCL|os.O_TRUNC), 0)
		if err != nil {
			return nil, pathErr("open", name, err)
		}
		return f, nil
	case "zero", "full", "random", "urandom":
		return &devStream{name: "/dev/" + dev}, nil
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
	return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.ENXIO}
}

func (r *RootFS) syntheticEntries(dir string) []fs.DirEntry {
	var out []fs.DirEntry
	folder := func(name string) { out = append(out, syntheticEntry{name: name, mode: fs.ModeDir | 0o755}) }
	switch {
	case dir == "/":
		for m := range r.mounts {
			folder(m[1:])
		}
		folder("dev")
		if r.programs != nil {
			folder("bin")
			folder("usr")
		}
	case dir == "/usr":
		folder("bin")
	case binDirs[dir]:
		for _, n := range r.programs.names() {
			out = append(out, syntheticEntry{name: n, mode: programMode})
		}
	case dir == "/dev/fd":
		for n := 0; n < maxListedFd; n++ {
			if _, ok := r.fds(n); ok {
				out = append(out, syntheticEntry{name: strconv.Itoa(n), mode: devMode})
			}
		}
	default:
		for _, d := range devFiles {
			out = append(out, syntheticEntry{name: d, mode: devMode})
		}
		if r.fds != nil {
			folder("fd")
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

func (r *RootFS) stat(op, name string, follow bool) (fs.FileInfo, error) {
	if root, rel, ok := r.direct(name); ok {
		var fi fs.FileInfo
		var err error
		if follow {
			fi, err = root.Stat(rel)
		} else {
			fi, err = root.Lstat(rel)
		}
		if err == nil {
			return fi, nil
		}
	}
	loc, err := r.resolve(op, name, follow)
	if err != nil {
		return nil, err
	}
	switch loc.kind {
	case kindMounted, kindMountTop:
		var fi fs.FileInfo
		if follow {
			fi, err = loc.root.Stat(loc.rel)
		} else {
			fi, err = loc.root.Lstat(loc.rel)
		}
		if err != nil {
			return nil, pathErr(op, name, err)
		}
		if loc.kind == kindMountTop {
			fi = renamedInfo{FileInfo: fi, name: loc.mount[1:]}
		}
		return fi, nil
	case kindMissing:
		return nil, &fs.PathError{Op: op, Path: name, Err: syscall.ENOENT}
	}
	fi, _ := loc.lstat()
	return fi, nil
}

// Stat implements FS.
func (r *RootFS) Stat(name string) (fs.FileInfo, error) { return r.stat("stat", name, true) }

// Lstat implements FS.
func (r *RootFS) Lstat(name string) (fs.FileInfo, error) { return r.stat("lstat", name, false) }

// ReadDir implements FS; entries are sorted by name.
func (r *RootFS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := r.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, &fs.PathError{Op: "readdirent", Path: name, Err: agentErrno(err)}
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents, nil
}

// maxListedFd bounds the descriptors `ls /dev/fd` looks at.
const maxListedFd = 1024

// opClass tells entry operations how to answer for names outside the
// mounts' insides.
type opClass int

const (
	opCreate opClass = iota // mkdir, symlink, link target
	opRemove                // remove, rename source or target
	opRead                  // readlink, link source
)

// entry resolves name for an operation on the directory entry itself (the
// last component is not followed) and returns its location inside a
// mount. For the synthetic parts of the view it returns the errno the
// kernel would give an unprivileged user.
func (r *RootFS) entry(op, name string, class opClass) (location, error) {
	if trimmed := strings.TrimRight(name, "/"); trimmed != name && trimmed != "" {
		// "x/" names the directory x itself: a link there is not one
		// (rmdir, unlink and rename of "link/" fail with ENOTDIR), and the
		// operation must not reach the link's target.
		loc, err := r.resolve(op, trimmed, false)
		if err != nil {
			return loc, err
		}
		if fi, ok := loc.lstat(); ok && !fi.IsDir() && class != opCreate {
			return loc, &fs.PathError{Op: op, Path: name, Err: syscall.ENOTDIR}
		}
		name = trimmed
	}
	loc, err := r.resolve(op, name, false)
	if err != nil {
		return loc, err
	}
	if base := path.Base(name); base == "." || base == ".." {
		if class == opCreate {
			return loc, &fs.PathError{Op: op, Path: name, Err: syscall.EEXIST}
		}
		if op == "remove" && base == "." {
			return loc, &fs.PathError{Op: op, Path: name, Err: syscall.EINVAL}
		}
		if op == "remove" || op == "rename" {
			return loc, &fs.PathError{Op: op, Path: name, Err: syscall.ENOTEMPTY}
		}
	}
	var errno syscall.Errno
	switch loc.kind {
	case kindMounted:
		return loc, nil
	case kindMountTop, kindSynthDir:
		errno = map[opClass]syscall.Errno{opCreate: syscall.EEXIST, opRemove: syscall.EBUSY, opRead: syscall.EINVAL}[class]
		if op == "link" && class == opRead {
			errno = syscall.EPERM
		}
	case kindDevFile, kindDevFd, kindProgram:
		errno = map[opClass]syscall.Errno{opCreate: syscall.EEXIST, opRemove: syscall.EACCES, opRead: syscall.EINVAL}[class]
		if op == "link" && class == opRead {
			errno = syscall.EXDEV
		}
	default:
		errno = syscall.ENOENT
		if class == opCreate {
			errno = syscall.EACCES
		}
	}
	return loc, &fs.PathError{Op: op, Path: name, Err: errno}
}

// Mkdir implements FS.
func (r *RootFS) Mkdir(name string, perm fs.FileMode) error {
	loc, err := r.entry("mkdir", name, opCreate)
	if err != nil {
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
		return &fs.PathError{Op: "mkdir", Path: name, Err: agentErrno(err)}
	}
	return nil
}

// Remove implements FS.
func (r *RootFS) Remove(name string) error {
	loc, err := r.entry("remove", name, opRemove)
	if err != nil {
		return err
	}
	return wrap("remove", name, loc.root.Remove(loc.rel))
}

// RemoveAll implements FS. A name that does not exist is no error.
func (r *RootFS) RemoveAll(name string) error {
	loc, err := r.entry("remove", name, opRemove)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	return wrap("remove", name, loc.root.RemoveAll(loc.rel))
}

func linkErr(op, oldname, newname string, err error) error {
	return &os.LinkError{Op: op, Old: oldname, New: newname, Err: agentErrno(err)}
}

// Rename implements FS. Both names must lie in the same mount (EXDEV
// otherwise, as between two file systems).
func (r *RootFS) Rename(oldname, newname string) error {
	from, err := r.entry("rename", oldname, opRemove)
	if err != nil {
		return linkErr("rename", oldname, newname, err)
	}
	to, err := r.entry("rename", newname, opRemove)
	if err != nil {
		if to.kind == kindMissing && to.abs != "" {
			err = syscall.EACCES // a new top-level name
		}
		return linkErr("rename", oldname, newname, err)
	}
	if from.mount != to.mount {
		return linkErr("rename", oldname, newname, syscall.EXDEV)
	}
	// rename(2) replaces an empty directory with a directory; os.Root's
	// Rename refuses any existing one, so remove it first.
	if ofi, err := from.root.Lstat(from.rel); err == nil && ofi.IsDir() {
		if nfi, err := to.root.Lstat(to.rel); err == nil && nfi.IsDir() && !os.SameFile(ofi, nfi) {
			if err := to.root.Remove(to.rel); err != nil {
				return linkErr("rename", oldname, newname, err)
			}
		}
	}
	return wrapLink("rename", oldname, newname, from.root.Rename(from.rel, to.rel))
}

func wrapLink(op, oldname, newname string, err error) error {
	if err == nil {
		return nil
	}
	return linkErr(op, oldname, newname, err)
}

// Symlink implements FS. The target is stored as given; it is resolved in
// the agent's namespace when followed.
func (r *RootFS) Symlink(target, linkname string) error {
	loc, err := r.entry("symlink", linkname, opCreate)
	if err != nil {
		return linkErr("symlink", target, linkname, err)
	}
	return wrapLink("symlink", target, linkname, loc.root.Symlink(target, loc.rel))
}

// Link implements FS: a hard link, within one mount. A symlink oldname is
// linked itself, not its target, as Linux link(2) does.
func (r *RootFS) Link(oldname, newname string) error {
	from, err := r.entry("link", oldname, opRead)
	if err != nil {
		return linkErr("link", oldname, newname, err)
	}
	to, err := r.entry("link", newname, opCreate)
	if err != nil {
		return linkErr("link", oldname, newname, err)
	}
	if from.mount != to.mount {
		return linkErr("link", oldname, newname, syscall.EXDEV)
	}
	return wrapLink("link", oldname, newname, from.root.Link(from.rel, to.rel))
}

// Readlink implements FS.
func (r *RootFS) Readlink(name string) (string, error) {
	loc, err := r.entry("readlink", name, opRead)
	if err != nil {
		return "", err
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
	switch loc.kind {
	case kindMounted, kindMountTop:
		return wrap("chmod", name, loc.root.Chmod(loc.rel, mode))
	case kindMissing:
		return &fs.PathError{Op: "chmod", Path: name, Err: syscall.ENOENT}
	}
	return &fs.PathError{Op: "chmod", Path: name, Err: syscall.EPERM}
}

// Chtimes implements FS.
func (r *RootFS) Chtimes(name string, atime, mtime time.Time) error {
	loc, err := r.resolve("chtimes", name, true)
	if err != nil {
		return err
	}
	switch loc.kind {
	case kindMounted, kindMountTop:
		return wrap("chtimes", name, loc.root.Chtimes(loc.rel, atime, mtime))
	case kindMissing:
		return &fs.PathError{Op: "chtimes", Path: name, Err: syscall.ENOENT}
	case kindDevFile:
		return nil // touch /dev/null succeeds and changes nothing
	}
	return &fs.PathError{Op: "chtimes", Path: name, Err: syscall.EPERM}
}
