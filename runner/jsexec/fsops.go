package jsexec

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fastschema/qjs"

	"github.com/wsfs/wsfs/runner/command"
)

// The fs module's Go half: every call goes through the command's confined
// FS, so confinement, the runner's entry limit and the mount's quotas
// apply as for shell commands.

// nodeErr is a failed fs call as Node reports it; the prelude rebuilds an
// Error with these fields from the JSON after errPrefix.
type nodeErr struct {
	Code    string `json:"code"`
	Errno   int    `json:"errno"`
	Syscall string `json:"syscall"`
	Path    string `json:"path"`
	Dest    string `json:"dest,omitempty"`
	Message string `json:"message"`
}

const errPrefix = "\x1fnode-error"

func (e *nodeErr) Error() string {
	b, _ := json.Marshal(e)
	return errPrefix + string(b)
}

// libuv's texts, which Node's messages use.
var errnoText = map[syscall.Errno]string{
	syscall.ENOENT: "no such file or directory", syscall.EEXIST: "file already exists",
	syscall.EACCES: "permission denied", syscall.EPERM: "operation not permitted",
	syscall.ENOTDIR: "not a directory", syscall.EISDIR: "illegal operation on a directory",
	syscall.ENOTEMPTY: "directory not empty", syscall.EDQUOT: "disk quota exceeded",
	syscall.EFBIG: "file too large", syscall.ENOSPC: "no space left on device",
	syscall.EINVAL: "invalid argument", syscall.EXDEV: "cross-device link not permitted",
	syscall.ELOOP: "too many symbolic links encountered", syscall.EROFS: "read-only file system",
	syscall.ENAMETOOLONG: "name too long", syscall.EBUSY: "resource busy or locked",
	syscall.EMFILE: "too many open files", syscall.EIO: "i/o error", syscall.EBADF: "bad file descriptor",
}

// quotaHint names the limit behind a quota errno, as the mount and the
// runner map them (meta's quotas: bytes per file → EFBIG; workspace bytes
// and entries, and the runner's per-command entry limit → EDQUOT).
var quotaHint = map[syscall.Errno]string{
	syscall.EDQUOT: "the workspace's byte or entry quota, or the command's entry limit",
	syscall.EFBIG:  "the workspace's per-file size quota",
}

// nodeError describes err from syscall on name (dest for two-path calls).
func nodeError(syscallName, name, dest string, err error) error {
	e := &nodeErr{Code: "EIO", Errno: -int(syscall.EIO), Syscall: syscallName, Path: name, Dest: dest, Message: err.Error()}
	var errno syscall.Errno
	switch {
	case errors.As(err, &errno):
	case errors.Is(err, fs.ErrNotExist):
		errno = syscall.ENOENT
	case errors.Is(err, fs.ErrExist):
		errno = syscall.EEXIST
	case errors.Is(err, fs.ErrPermission):
		errno = syscall.EACCES
	default:
		errno = syscall.EIO
	}
	text, ok := errnoText[errno]
	if !ok {
		text = errno.Error()
	}
	e.Code, e.Errno = errnoCode(errno), -int(errno)
	// A refusal that carries more words than the errno's (a quota error
	// naming its limit) keeps them; a bare quota errno names its limit.
	var pe *fs.PathError
	var le *os.LinkError
	var inner error
	if errors.As(err, &pe) {
		inner = pe.Err
	} else if errors.As(err, &le) {
		inner = le.Err
	}
	extra := ""
	if inner != nil && inner.Error() != errno.Error() && !errors.Is(inner, fs.ErrNotExist) {
		extra = inner.Error()
	} else if h, ok := quotaHint[errno]; ok {
		extra = h
	}
	e.Message = e.Code + ": " + text + ", " + syscallName + " '" + name + "'"
	if dest != "" {
		e.Message += " -> '" + dest + "'"
	}
	if extra != "" {
		e.Message += " (" + extra + ")"
	}
	return e
}

func errnoCode(errno syscall.Errno) string {
	for _, c := range []struct {
		e syscall.Errno
		s string
	}{{syscall.ENOENT, "ENOENT"}, {syscall.EEXIST, "EEXIST"}, {syscall.EACCES, "EACCES"}, {syscall.EPERM, "EPERM"},
		{syscall.ENOTDIR, "ENOTDIR"}, {syscall.EISDIR, "EISDIR"}, {syscall.ENOTEMPTY, "ENOTEMPTY"},
		{syscall.EDQUOT, "EDQUOT"}, {syscall.EFBIG, "EFBIG"}, {syscall.ENOSPC, "ENOSPC"}, {syscall.EINVAL, "EINVAL"},
		{syscall.EXDEV, "EXDEV"}, {syscall.ELOOP, "ELOOP"}, {syscall.EROFS, "EROFS"}, {syscall.ENAMETOOLONG, "ENAMETOOLONG"},
		{syscall.EBUSY, "EBUSY"}, {syscall.EMFILE, "EMFILE"}, {syscall.EBADF, "EBADF"}} {
		if c.e == errno {
			return c.s
		}
	}
	return "EIO"
}

// read returns a file's contents: a string when asked (argument 1), else
// an ArrayBuffer.
func (h *host) read(this *qjs.This) (*qjs.Value, error) {
	name := argString(this, 0)
	f, err := h.env.FS.Open(name)
	if err != nil {
		return nil, nodeError("open", name, "", err)
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err == nil && st.IsDir():
		return nil, nodeError("read", name, "", syscall.EISDIR)
	case err == nil && st.Size() > int64(h.lim.memory):
		// It could not fit in the script's memory: say so before reading.
		return nil, &nodeErr{Code: "ERR_FS_FILE_TOO_LARGE", Syscall: "read", Path: name,
			Message: fmt.Sprintf("File size (%d) is greater than js-exec's memory limit (%s): %s", st.Size(), h.lim.memoryText(), name)}
	}
	// Stdin and devices have no size: read at most the memory limit.
	b, err := io.ReadAll(io.LimitReader(f, int64(h.lim.memory)+1))
	if err != nil {
		return nil, nodeError("read", name, "", err)
	}
	if len(b) > h.lim.memory {
		return nil, &nodeErr{Code: "ERR_FS_FILE_TOO_LARGE", Syscall: "read", Path: name,
			Message: fmt.Sprintf("%s is larger than js-exec's memory limit (%s)", name, h.lim.memoryText())}
	}
	if argBool(this, 1) {
		return this.Context().NewString(string(b)), nil
	}
	return this.Context().NewArrayBuffer(b), nil
}

// openFlags are Node's flag strings for writeFile and friends.
var openFlags = map[string]int{
	"w": os.O_WRONLY | os.O_CREATE | os.O_TRUNC, "wx": os.O_WRONLY | os.O_CREATE | os.O_TRUNC | os.O_EXCL,
	"a": os.O_WRONLY | os.O_CREATE | os.O_APPEND, "ax": os.O_WRONLY | os.O_CREATE | os.O_APPEND | os.O_EXCL,
	"w+": os.O_RDWR | os.O_CREATE | os.O_TRUNC, "a+": os.O_RDWR | os.O_CREATE | os.O_APPEND,
	"r+": os.O_RDWR,
}

// write writes data (a string or bytes, argument 1) to a file opened with
// Node's flag (argument 2, "w" by default) and mode (argument 3).
func (h *host) write(this *qjs.This) (*qjs.Value, error) {
	name := argString(this, 0)
	var data []byte
	if v := arg(this, 1); v != nil && v.IsString() {
		data = []byte(v.String())
	} else if v != nil && v.IsByteArray() {
		data = v.ToByteArray()
	}
	flagName := argString(this, 2)
	if flagName == "" {
		flagName = "w"
	}
	flag, ok := openFlags[flagName]
	if !ok {
		return nil, nodeError("open", name, "", syscall.EINVAL)
	}
	perm := fs.FileMode(0o666)
	if v := arg(this, 3); v != nil && v.IsNumber() {
		perm = fs.FileMode(v.Int32()) & fs.ModePerm
	}
	if fi, err := h.env.FS.Stat(name); err == nil && fi.IsDir() {
		return nil, nodeError("open", name, "", syscall.EISDIR)
	}
	f, err := h.env.FS.OpenFile(name, flag, perm&^0o022)
	if err != nil {
		return nil, nodeError("open", name, "", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, nodeError("write", name, "", err)
	}
	if err := f.Close(); err != nil {
		return nil, nodeError("close", name, "", err)
	}
	return this.Context().NewUndefined(), nil
}

type statJSON struct {
	Type    string  `json:"type"`
	Size    int64   `json:"size"`
	Mode    uint32  `json:"mode"`
	MtimeMs float64 `json:"mtimeMs"`
	AtimeMs float64 `json:"atimeMs"`
	CtimeMs float64 `json:"ctimeMs"`
	Ino     uint64  `json:"ino"`
	Nlink   uint64  `json:"nlink"`
	Dev     uint64  `json:"dev"`
	Blocks  int64   `json:"blocks"`
}

func ms(t time.Time) float64 { return float64(t.UnixNano()) / 1e6 }

func statOf(fi fs.FileInfo) statJSON {
	t, mode := "file", uint32(syscall.S_IFREG)
	switch m := fi.Mode(); {
	case m.IsDir():
		t, mode = "dir", syscall.S_IFDIR
	case m&fs.ModeSymlink != 0:
		t, mode = "symlink", syscall.S_IFLNK
	case m&fs.ModeNamedPipe != 0:
		t, mode = "fifo", syscall.S_IFIFO
	case m&fs.ModeCharDevice != 0:
		t, mode = "chardev", syscall.S_IFCHR
	case !m.IsRegular():
		t, mode = "other", 0
	}
	s := statJSON{Type: t, Size: fi.Size(), Mode: mode | uint32(fi.Mode().Perm()), MtimeMs: ms(fi.ModTime()),
		Nlink: 1, Blocks: (fi.Size() + 511) / 512}
	s.AtimeMs, s.CtimeMs = s.MtimeMs, s.MtimeMs
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.Ino, s.Nlink, s.Dev, s.Blocks = st.Ino, uint64(st.Nlink), uint64(st.Dev), st.Blocks
		s.AtimeMs = float64(st.Atim.Sec)*1e3 + float64(st.Atim.Nsec)/1e6
		s.CtimeMs = float64(st.Ctim.Sec)*1e3 + float64(st.Ctim.Nsec)/1e6
	}
	return s
}

type dirent struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// op runs the fs calls that take names and numbers and return JSON:
// op(what, name, other, n).
func (h *host) op(this *qjs.This) (*qjs.Value, error) {
	what, name, other := argString(this, 0), argString(this, 1), argString(this, 2)
	n := 0.0
	if v := arg(this, 3); v != nil && v.IsNumber() {
		n = v.Float64()
	}
	result, err := fsOp(h.env.FS, what, name, other, n)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(result)
	if err != nil {
		return nil, fmt.Errorf("js-exec: %w", err)
	}
	return this.Context().NewString(string(b)), nil
}

// Bits of op's n for rm and mkdir.
const (
	opRecursive = 1
	opForce     = 2
)

func fsOp(fsys command.FS, what, name, other string, n float64) (any, error) {
	flags := int(n)
	switch what {
	case "exists":
		_, err := fsys.Stat(name)
		return err == nil, nil
	case "isfile":
		fi, err := fsys.Stat(name)
		return err == nil && !fi.IsDir(), nil
	case "access":
		if _, err := fsys.Stat(name); err != nil {
			return nil, nodeError("access", name, "", err)
		}
	case "stat", "lstat":
		stat := fsys.Stat
		if what == "lstat" {
			stat = fsys.Lstat
		}
		fi, err := stat(name)
		if err != nil {
			return nil, nodeError(what, name, "", err)
		}
		return statOf(fi), nil
	case "readdir":
		ents, err := fsys.ReadDir(name)
		if err != nil {
			return nil, nodeError("scandir", name, "", err)
		}
		out := make([]dirent, 0, len(ents))
		for _, e := range ents {
			t := "file"
			switch m := e.Type(); {
			case m.IsDir():
				t = "dir"
			case m&fs.ModeSymlink != 0:
				t = "symlink"
			case !m.IsRegular():
				t = "other"
			}
			out = append(out, dirent{e.Name(), t})
		}
		return out, nil
	case "mkdir":
		mode, _ := strconv.ParseUint(other, 10, 32)
		return mkdir(fsys, name, flags&opRecursive != 0, fs.FileMode(mode)&fs.ModePerm)
	case "rm":
		fi, err := fsys.Lstat(name)
		switch {
		case err != nil && flags&opForce != 0 && errors.Is(err, fs.ErrNotExist):
			return nil, nil
		case err != nil:
			return nil, nodeError("lstat", name, "", err)
		case fi.IsDir() && flags&opRecursive == 0:
			return nil, &nodeErr{Code: "ERR_FS_EISDIR", Errno: -int(syscall.EISDIR), Syscall: "rm", Path: name,
				Message: "Path is a directory: rm returned EISDIR (is a directory) " + name}
		}
		if flags&opRecursive != 0 {
			err = fsys.RemoveAll(name)
		} else {
			err = fsys.Remove(name)
		}
		if err != nil {
			return nil, nodeError("rm", name, "", err)
		}
	case "rmdir", "unlink":
		fi, err := fsys.Lstat(name)
		switch {
		case err != nil:
		case what == "unlink" && fi.IsDir():
			err = syscall.EISDIR
		case what == "rmdir" && !fi.IsDir():
			err = syscall.ENOTDIR
		case what == "rmdir" && flags&opRecursive != 0:
			err = fsys.RemoveAll(name)
		default:
			err = fsys.Remove(name)
		}
		if err != nil {
			return nil, nodeError(what, name, "", err)
		}
	case "rename":
		if err := fsys.Rename(name, other); err != nil {
			return nil, nodeError("rename", name, other, err)
		}
	case "copyfile":
		if err := copyFile(fsys, name, other, flags&opForce != 0); err != nil {
			return nil, err
		}
	case "symlink":
		if err := fsys.Symlink(name, other); err != nil {
			return nil, nodeError("symlink", name, other, err)
		}
	case "link":
		if err := fsys.Link(name, other); err != nil {
			return nil, nodeError("link", name, other, err)
		}
	case "readlink":
		target, err := fsys.Readlink(name)
		if err != nil {
			return nil, nodeError("readlink", name, "", err)
		}
		return target, nil
	case "realpath":
		return realpath(fsys, name)
	case "truncate":
		f, err := fsys.OpenFile(name, os.O_WRONLY, 0)
		if err != nil {
			return nil, nodeError("open", name, "", err)
		}
		err = f.Truncate(int64(n))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, nodeError("ftruncate", name, "", err)
		}
	case "chmod":
		if err := fsys.Chmod(name, fs.FileMode(n)&fs.ModePerm); err != nil {
			return nil, nodeError("chmod", name, "", err)
		}
	case "utimes":
		t := time.UnixMilli(int64(n))
		if err := fsys.Chtimes(name, t, t); err != nil {
			return nil, nodeError("utime", name, "", err)
		}
	default:
		return nil, fmt.Errorf("js-exec: unknown fs operation %q", what)
	}
	return nil, nil
}

// mkdir returns, for a recursive call, the first folder it created (as
// Node's mkdir does), else nothing.
func mkdir(fsys command.FS, name string, recursive bool, perm fs.FileMode) (any, error) {
	if perm == 0 {
		perm = 0o777
	}
	perm &^= 0o022
	if !recursive {
		if err := fsys.Mkdir(name, perm); err != nil {
			return nil, nodeError("mkdir", name, "", err)
		}
		return nil, nil
	}
	first := ""
	for p := fsys.Abs(name); p != "/"; p = path.Dir(p) {
		fi, err := fsys.Stat(p)
		if err == nil {
			if !fi.IsDir() {
				return nil, nodeError("mkdir", name, "", syscall.ENOTDIR)
			}
			break
		}
		first = p
	}
	if err := fsys.MkdirAll(name, perm); err != nil {
		return nil, nodeError("mkdir", name, "", err)
	}
	if first == "" {
		return nil, nil
	}
	if !path.IsAbs(name) {
		// Node answers in the caller's terms: the prefix of name that
		// names the first folder created.
		prefix := strings.TrimRight(name, "/")
		for p := fsys.Abs(name); p != first; p = path.Dir(p) {
			prefix = strings.TrimRight(prefix[:max(strings.LastIndexByte(prefix, '/'), 0)], "/")
		}
		return prefix, nil
	}
	return first, nil
}

func copyFile(fsys command.FS, src, dst string, exclusive bool) error {
	in, err := fsys.Open(src)
	if err != nil {
		return nodeError("copyfile", src, dst, err)
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return nodeError("copyfile", src, dst, err)
	}
	if fi.IsDir() {
		return nodeError("copyfile", src, dst, syscall.EISDIR)
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if exclusive {
		flag |= os.O_EXCL
	}
	out, err := fsys.OpenFile(dst, flag, fi.Mode().Perm())
	if err != nil {
		return nodeError("copyfile", src, dst, err)
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nodeError("copyfile", src, dst, err)
	}
	return nil
}

// realpath resolves every symbolic link in name within the agent's view.
func realpath(fsys command.FS, name string) (string, error) {
	rest := strings.Split(strings.TrimPrefix(fsys.Abs(name), "/"), "/")
	cur := "/"
	for links := 0; len(rest) > 0; {
		part := rest[0]
		rest = rest[1:]
		if part == "" || part == "." {
			continue
		}
		if part == ".." {
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, part)
		fi, err := fsys.Lstat(next)
		if err != nil {
			return "", nodeError("realpath", name, "", err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > 40 {
			return "", nodeError("realpath", name, "", syscall.ELOOP)
		}
		target, err := fsys.Readlink(next)
		if err != nil {
			return "", nodeError("realpath", name, "", err)
		}
		if strings.HasPrefix(target, "/") {
			cur = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return cur, nil
}
