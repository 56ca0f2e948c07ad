package command

import (
	"io"
	"io/fs"
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
func (e syntheticEntry) ModTime() time.Time         { return time.Time{} }
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
