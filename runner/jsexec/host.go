package jsexec

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	"github.com/fastschema/qjs"

	"github.com/wsfs/wsfs/runner/command"
)

// host holds the Go side of one run: the functions the prelude captures.
type host struct {
	env  *command.Env
	exit int // status given to process.exit, -1 while not called
}

func (h *host) install(c *qjs.Context, file string, args []string) {
	argv := append([]string{"js-exec", file}, args...)
	envMap := map[string]string{}
	for _, kv := range h.env.Environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			envMap[k] = v
		}
	}
	dir := h.env.Dir
	if strings.HasPrefix(file, "/") {
		dir = path.Dir(file)
	}
	info, _ := json.Marshal(map[string]any{"argv": argv, "env": envMap, "cwd": h.env.Dir, "dir": dir})
	c.Global().SetPropertyStr("__wsfs_info", c.NewString(string(info)))
	c.SetFunc("__wsfs_out", h.out)
	c.SetFunc("__wsfs_read", h.read)
	c.SetFunc("__wsfs_write", h.write)
	c.SetFunc("__wsfs_op", h.op)
	c.SetFunc("__wsfs_exit", h.exitFn)
	c.SetFunc("__wsfs_load", h.load)
	c.SetFunc("__wsfs_builtin", nodeSource)
}

func arg(this *qjs.This, i int) *qjs.Value {
	if a := this.Args(); i < len(a) {
		return a[i]
	}
	return nil
}

func argString(this *qjs.This, i int) string {
	if v := arg(this, i); v != nil && !v.IsUndefined() {
		return v.String()
	}
	return ""
}

func argBool(this *qjs.This, i int) bool {
	if v := arg(this, i); v != nil {
		return v.Bool()
	}
	return false
}

func (h *host) out(this *qjs.This) (*qjs.Value, error) {
	w := h.env.Stdout
	if v := arg(this, 0); v != nil && v.Int32() == 2 {
		w = h.env.Stderr
	}
	_, _ = io.WriteString(w, argString(this, 1))
	return this.Context().NewUndefined(), nil
}

func (h *host) exitFn(this *qjs.This) (*qjs.Value, error) {
	code := 0
	if v := arg(this, 0); v != nil {
		code = int(v.Int32()) & 0xff
	}
	h.exit = code
	return nil, errors.New(exitMarker)
}

// nodeError encodes err as the prelude expects: code, message, syscall, path.
func nodeError(syscallName, name string, err error) error {
	code, text := errnoName(err)
	return fmt.Errorf("%s\x1f%s: %s, %s '%s'\x1f%s\x1f%s", code, code, text, syscallName, name, syscallName, name)
}

var errnoCodes = map[syscall.Errno]string{
	syscall.ENOENT: "ENOENT", syscall.EEXIST: "EEXIST", syscall.EACCES: "EACCES", syscall.EPERM: "EPERM",
	syscall.ENOTDIR: "ENOTDIR", syscall.EISDIR: "EISDIR", syscall.ENOTEMPTY: "ENOTEMPTY",
	syscall.EDQUOT: "EDQUOT", syscall.EFBIG: "EFBIG", syscall.ENOSPC: "ENOSPC", syscall.EINVAL: "EINVAL",
	syscall.EXDEV: "EXDEV", syscall.ELOOP: "ELOOP", syscall.EROFS: "EROFS", syscall.ENAMETOOLONG: "ENAMETOOLONG",
	syscall.EBUSY: "EBUSY",
}

// errnoName returns Node's code for err and the message to show: the
// errno's text, or the error's own words when it carries more (a quota
// refusal from the mount names the limit).
func errnoName(err error) (string, string) {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		code, ok := errnoCodes[errno]
		if !ok {
			code = "EIO"
		}
		text := errno.Error()
		var pe *fs.PathError
		var le *os.LinkError
		if errors.As(err, &pe) && pe.Err.Error() != text {
			text = pe.Err.Error()
		} else if errors.As(err, &le) && le.Err.Error() != text {
			text = le.Err.Error()
		}
		return code, text
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "ENOENT", "no such file or directory"
	case errors.Is(err, fs.ErrExist):
		return "EEXIST", "file already exists"
	case errors.Is(err, fs.ErrPermission):
		return "EACCES", "permission denied"
	}
	return "EIO", err.Error()
}

func (h *host) read(this *qjs.This) (*qjs.Value, error) {
	name := argString(this, 0)
	f, err := h.env.FS.Open(name)
	if err != nil {
		return nil, nodeError("open", name, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, nodeError("read", name, syscall.EISDIR)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, nodeError("read", name, err)
	}
	if argBool(this, 1) {
		return this.Context().NewString(string(b)), nil
	}
	return this.Context().NewArrayBuffer(b), nil
}

func (h *host) write(this *qjs.This) (*qjs.Value, error) {
	name := argString(this, 0)
	var data []byte
	if v := arg(this, 1); v != nil && v.IsString() {
		data = []byte(v.String())
	} else if v != nil && v.IsByteArray() {
		data = v.ToByteArray()
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if argBool(this, 2) {
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := h.env.FS.OpenFile(name, flag, 0o644)
	if err != nil {
		return nil, nodeError("open", name, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, nodeError("write", name, err)
	}
	if err := f.Close(); err != nil {
		return nil, nodeError("close", name, err)
	}
	return this.Context().NewUndefined(), nil
}

type statJSON struct {
	Type    string  `json:"type"`
	Size    int64   `json:"size"`
	Mode    uint32  `json:"mode"`
	MtimeMs float64 `json:"mtimeMs"`
}

func statOf(fi fs.FileInfo) statJSON {
	t := "file"
	switch {
	case fi.IsDir():
		t = "dir"
	case fi.Mode()&fs.ModeSymlink != 0:
		t = "symlink"
	case !fi.Mode().IsRegular():
		t = "other"
	}
	return statJSON{Type: t, Size: fi.Size(), Mode: uint32(fi.Mode().Perm()), MtimeMs: float64(fi.ModTime().UnixNano()) / 1e6}
}

// op runs the fs calls that take names and return JSON or nothing.
func (h *host) op(this *qjs.This) (*qjs.Value, error) {
	c := this.Context()
	what, name, other, flag := argString(this, 0), argString(this, 1), argString(this, 2), argBool(this, 3)
	fsys := h.env.FS
	var result any
	switch what {
	case "exists":
		_, err := fsys.Stat(name)
		return c.NewString(fmt.Sprint(err == nil)), nil
	case "isfile":
		fi, err := fsys.Stat(name)
		return c.NewString(fmt.Sprint(err == nil && !fi.IsDir())), nil
	case "stat", "lstat":
		stat := fsys.Stat
		if what == "lstat" {
			stat = fsys.Lstat
		}
		fi, err := stat(name)
		if err != nil {
			return nil, nodeError(what, name, err)
		}
		result = statOf(fi)
	case "readdir":
		ents, err := fsys.ReadDir(name)
		if err != nil {
			return nil, nodeError("scandir", name, err)
		}
		names := make([]string, 0, len(ents))
		for _, e := range ents {
			names = append(names, e.Name())
		}
		result = names
	case "mkdir":
		var err error
		if flag {
			err = fsys.MkdirAll(name, 0o755)
		} else {
			err = fsys.Mkdir(name, 0o755)
		}
		if err != nil {
			return nil, nodeError("mkdir", name, err)
		}
	case "rm":
		fi, err := fsys.Lstat(name)
		if err != nil {
			if other == "force" && errors.Is(err, fs.ErrNotExist) {
				break
			}
			return nil, nodeError("rm", name, err)
		}
		if fi.IsDir() && !flag {
			return nil, nodeError("rm", name, syscall.EISDIR)
		}
		if flag {
			err = fsys.RemoveAll(name)
		} else {
			err = fsys.Remove(name)
		}
		if err != nil {
			return nil, nodeError("rm", name, err)
		}
	case "rmdir", "unlink":
		fi, err := fsys.Lstat(name)
		if err == nil && what == "unlink" && fi.IsDir() {
			err = syscall.EISDIR
		} else if err == nil && what == "rmdir" && !fi.IsDir() {
			err = syscall.ENOTDIR
		}
		if err == nil {
			err = fsys.Remove(name)
		}
		if err != nil {
			return nil, nodeError(what, name, err)
		}
	case "rename":
		if err := fsys.Rename(name, other); err != nil {
			return nil, nodeError("rename", name, err)
		}
	default:
		return nil, fmt.Errorf("js-exec: unknown fs operation %q", what)
	}
	b, err := json.Marshal(result)
	if err != nil {
		return nil, fmt.Errorf("js-exec: %w", err)
	}
	return c.NewString(string(b)), nil
}

// load returns a workspace module's source as CommonJS.
func (h *host) load(this *qjs.This) (*qjs.Value, error) {
	name := argString(this, 0)
	code, err := readAll(h.env.FS, name)
	if err != nil {
		return nil, nodeError("open", name, err)
	}
	src, err := transform(code, name)
	if err != nil {
		return nil, err
	}
	return this.Context().NewString(src), nil
}
