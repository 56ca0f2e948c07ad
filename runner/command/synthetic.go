package command

import (
	"crypto/rand"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
	"time"
)

type syntheticEntry struct {
	name string
	mode fs.FileMode
}

func (e syntheticEntry) Name() string               { return e.name }
func (e syntheticEntry) IsDir() bool                { return e.mode.IsDir() }
func (e syntheticEntry) Type() fs.FileMode          { return e.mode.Type() }
func (e syntheticEntry) Info() (fs.FileInfo, error) { return e, nil }
func (e syntheticEntry) Size() int64                { return 0 }
func (e syntheticEntry) Mode() fs.FileMode          { return e.mode }
func (e syntheticEntry) ModTime() time.Time         { return viewEpoch }
func (e syntheticEntry) Sys() any                   { return nil }

// syntheticDir is an open "/" or "/dev".
type syntheticDir struct {
	name    string
	entries []fs.DirEntry
	off     int
}

func (d *syntheticDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: syscall.EISDIR}
}
func (d *syntheticDir) Write([]byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: d.name, Err: syscall.EISDIR}
}
func (d *syntheticDir) ReadAt([]byte, int64) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: syscall.EISDIR}
}
func (d *syntheticDir) Seek(int64, int) (int64, error) { return 0, nil }
func (d *syntheticDir) Close() error                   { return nil }
func (d *syntheticDir) Name() string                   { return d.name }
func (d *syntheticDir) Truncate(int64) error {
	return &fs.PathError{Op: "truncate", Path: d.name, Err: syscall.EISDIR}
}
func (d *syntheticDir) Stat() (fs.FileInfo, error) {
	return syntheticEntry{name: d.name, mode: fs.ModeDir | 0o755}, nil
}
func (d *syntheticDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.off:]
	if n <= 0 {
		d.off = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	if n > len(rest) {
		n = len(rest)
	}
	d.off += n
	return rest[:n], nil
}

// streamFile is /dev/stdin, /dev/stdout or /dev/stderr of one command.
type streamFile struct {
	name string
	r    io.Reader
	w    io.Writer
}

func (s *streamFile) Read(p []byte) (int, error) {
	if s.r == nil {
		return 0, &fs.PathError{Op: "read", Path: s.name, Err: syscall.EBADF}
	}
	return s.r.Read(p)
}
func (s *streamFile) Write(p []byte) (int, error) {
	if s.w == nil {
		return 0, &fs.PathError{Op: "write", Path: s.name, Err: syscall.EBADF}
	}
	return s.w.Write(p)
}
func (s *streamFile) ReadAt([]byte, int64) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: s.name, Err: syscall.ESPIPE}
}
func (s *streamFile) Seek(int64, int) (int64, error) {
	return 0, &fs.PathError{Op: "seek", Path: s.name, Err: syscall.ESPIPE}
}
func (s *streamFile) Close() error { return nil }
func (s *streamFile) Name() string { return s.name }
func (s *streamFile) Truncate(int64) error {
	return nil // "> /dev/stdout" truncates nothing
}
func (s *streamFile) Stat() (fs.FileInfo, error) {
	return syntheticEntry{name: s.name[len("/dev/"):], mode: fs.ModeCharDevice | fs.ModeDevice | 0o620}, nil
}
func (s *streamFile) ReadDir(int) ([]fs.DirEntry, error) {
	return nil, &fs.PathError{Op: "readdir", Path: s.name, Err: syscall.ENOTDIR}
}

// renamedInfo gives a mount's top its agent name ("workspace", not ".").
type renamedInfo struct {
	fs.FileInfo
	name string
}

func (i renamedInfo) Name() string { return i.name }

// mountFile is an open file of a mount. It names the agent path and
// rewrites the errors of the host file so they name it too.
type mountFile struct {
	*os.File
	name string
}

func (f *mountFile) Name() string { return f.name }

func (f *mountFile) fix(op string, err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	return &fs.PathError{Op: op, Path: f.name, Err: agentErrno(err)}
}

func (f *mountFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	return n, f.fix("read", err)
}

func (f *mountFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(p, off)
	return n, f.fix("read", err)
}

func (f *mountFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	return n, f.fix("write", err)
}

func (f *mountFile) Seek(off int64, whence int) (int64, error) {
	n, err := f.File.Seek(off, whence)
	return n, f.fix("seek", err)
}

// Stat names the file by its agent path's base, never the host folder's.
func (f *mountFile) Stat() (fs.FileInfo, error) {
	fi, err := f.File.Stat()
	if err != nil {
		return nil, f.fix("stat", err)
	}
	return renamedInfo{FileInfo: fi, name: path.Base(f.name)}, nil
}

func (f *mountFile) ReadDir(n int) ([]fs.DirEntry, error) {
	ents, err := f.File.ReadDir(n)
	return ents, f.fix("readdirent", err)
}

func (f *mountFile) Truncate(size int64) error { return f.fix("truncate", f.File.Truncate(size)) }

func (f *mountFile) Close() error { return f.fix("close", f.File.Close()) }

// ReadFrom lets copies between two mount files use the kernel's
// copy_file_range, as between two *os.File.
func (f *mountFile) ReadFrom(r io.Reader) (int64, error) {
	if mf, ok := r.(*mountFile); ok {
		r = mf.File
	}
	n, err := f.File.ReadFrom(r)
	return n, f.fix("write", err)
}

// WriteTo lets a copy from a mount file use sendfile/splice when the
// destination allows it.
func (f *mountFile) WriteTo(w io.Writer) (int64, error) {
	if mf, ok := w.(*mountFile); ok {
		w = mf.File
	}
	n, err := f.File.WriteTo(w)
	return n, f.fix("read", err)
}

// viewEpoch is the time the synthetic directories and devices show: when
// the process started, stable for the whole command.
var viewEpoch = time.Now()

// programFile is an open /bin/NAME: an empty, read-only file (the program
// is Go code in the runner, not bytes an agent could read).
type programFile struct {
	name string
}

func (p *programFile) Read([]byte) (int, error) { return 0, io.EOF }
func (p *programFile) Write([]byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: p.name, Err: syscall.EBADF}
}
func (p *programFile) ReadAt([]byte, int64) (int, error) { return 0, io.EOF }
func (p *programFile) Seek(int64, int) (int64, error)    { return 0, nil }
func (p *programFile) Close() error                      { return nil }
func (p *programFile) Name() string                      { return p.name }
func (p *programFile) Truncate(int64) error {
	return &fs.PathError{Op: "truncate", Path: p.name, Err: syscall.EACCES}
}
func (p *programFile) Stat() (fs.FileInfo, error) {
	return syntheticEntry{name: path.Base(p.name), mode: programMode}, nil
}
func (p *programFile) ReadDir(int) ([]fs.DirEntry, error) {
	return nil, &fs.PathError{Op: "readdirent", Path: p.name, Err: syscall.ENOTDIR}
}

// devStream is /dev/zero, /dev/full, /dev/random or /dev/urandom: zeros
// or random bytes to read; writes vanish, except into /dev/full (ENOSPC).
type devStream struct{ name string }

func (d *devStream) Read(p []byte) (int, error) {
	if strings.HasSuffix(d.name, "random") {
		return rand.Read(p)
	}
	clear(p)
	return len(p), nil
}
func (d *devStream) ReadAt(p []byte, _ int64) (int, error) { return d.Read(p) }
func (d *devStream) Write(p []byte) (int, error) {
	if d.name == "/dev/full" {
		return 0, &fs.PathError{Op: "write", Path: d.name, Err: syscall.ENOSPC}
	}
	return len(p), nil
}
func (d *devStream) Seek(int64, int) (int64, error) { return 0, nil }
func (d *devStream) Close() error                   { return nil }
func (d *devStream) Name() string                   { return d.name }
func (d *devStream) Truncate(int64) error           { return nil }
func (d *devStream) Stat() (fs.FileInfo, error) {
	return syntheticEntry{name: path.Base(d.name), mode: devMode}, nil
}
func (d *devStream) ReadDir(int) ([]fs.DirEntry, error) {
	return nil, &fs.PathError{Op: "readdirent", Path: d.name, Err: syscall.ENOTDIR}
}
