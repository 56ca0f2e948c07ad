package bash

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/wsfs/wsfs/runner/command"
)

// openFile is an open file description: what a descriptor refers to,
// shared by every descriptor dup'd from it and by the copies a subshell
// inherits. Reads go through one buffer of its own, so that `read`, which
// takes a line at a time, and a command reading the same descriptor
// afterwards see each byte once and in order.
type openFile struct {
	name string
	file command.File // a file of the agent's view, when it is one
	r    io.Reader    // nil: not open for reading
	w    io.Writer    // nil: not open for writing
	c    io.Closer    // closed when the last descriptor goes
	refs atomic.Int32

	mu      sync.Mutex
	pending []byte // read from r, not yet consumed
	counted bool   // counts against the run's open-file limit
	run     *run
}

func (f *openFile) acquire() *openFile {
	if f != nil {
		f.refs.Add(1)
	}
	return f
}

// release drops one descriptor's reference, closing the file with the
// last one.
func (f *openFile) release() {
	if f == nil {
		return
	}
	if f.refs.Add(-1) > 0 {
		return
	}
	if f.c != nil {
		f.c.Close()
	}
	if f.counted && f.run != nil {
		f.run.openFiles.Add(-1)
	}
}

// Read reads through the description's buffer.
func (f *openFile) Read(p []byte) (int, error) {
	if f.r == nil {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: syscall.EBADF}
	}
	f.mu.Lock()
	if len(f.pending) > 0 {
		n := copy(p, f.pending)
		f.pending = f.pending[n:]
		f.mu.Unlock()
		return n, nil
	}
	f.mu.Unlock()
	return f.r.Read(p)
}

// readUntil reads up to and including delim (or to the end), for the
// read and mapfile builtins. It reads in chunks and keeps what follows
// the delimiter for the next reader.
func (f *openFile) readUntil(delim byte, limit int) ([]byte, error) {
	if f.r == nil {
		return nil, &fs.PathError{Op: "read", Path: f.name, Err: syscall.EBADF}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []byte
	for {
		if i := bytes.IndexByte(f.pending, delim); i >= 0 && (limit <= 0 || len(out)+i < limit) {
			out = append(out, f.pending[:i+1]...)
			f.pending = f.pending[i+1:]
			return out, nil
		}
		if limit > 0 && len(out)+len(f.pending) >= limit {
			k := limit - len(out)
			out = append(out, f.pending[:k]...)
			f.pending = f.pending[k:]
			return out, nil
		}
		out = append(out, f.pending...)
		f.pending = f.pending[:0]
		buf := make([]byte, readChunk(f))
		n, err := f.r.Read(buf)
		f.pending = append(f.pending, buf[:n]...)
		if n == 0 && err != nil {
			if err == io.EOF {
				return out, io.EOF
			}
			return out, err
		}
	}
}

// readChunk is how much readUntil asks for at once: a whole buffer from
// a file, less from a pipe or terminal where the writer may be waiting
// for an answer.
func readChunk(f *openFile) int {
	if f.file != nil {
		return 4096
	}
	return 512
}

// Write writes to the description.
func (f *openFile) Write(p []byte) (int, error) {
	if f.w == nil {
		return 0, &fs.PathError{Op: "write", Path: f.name, Err: syscall.EBADF}
	}
	f.syncOffset()
	return f.w.Write(p)
}

// syncOffset gives a file read ahead into the buffer its true offset
// back (a write after `read` on <> lands where the reading stopped).
func (f *openFile) syncOffset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.pending) == 0 || f.file == nil {
		return
	}
	if _, err := f.file.Seek(-int64(len(f.pending)), io.SeekCurrent); err == nil {
		f.pending = nil
	}
}

// fdTable is a shell's descriptors: index n holds descriptor n.
type fdTable struct {
	fds []*openFile
}

// maxFd is one past the highest descriptor number a script may use
// (bash's limit is the process's, usually 1024).
const maxFd = 1024

func (t *fdTable) get(n int) *openFile {
	if n < 0 || n >= len(t.fds) {
		return nil
	}
	return t.fds[n]
}

// set installs f at n (taking the caller's reference) and returns what n
// held, still referenced: the caller releases or keeps it.
func (t *fdTable) swap(n int, f *openFile) *openFile {
	for n >= len(t.fds) {
		t.fds = append(t.fds, nil)
	}
	old := t.fds[n]
	t.fds[n] = f
	return old
}

// set installs f at n and releases what n held.
func (t *fdTable) set(n int, f *openFile) { t.swap(n, f).release() }

// clone copies the table for a subshell: every description gains a
// reference.
func (t *fdTable) clone() *fdTable {
	c := &fdTable{fds: make([]*openFile, len(t.fds))}
	for i, f := range t.fds {
		c.fds[i] = f.acquire()
	}
	return c
}

// closeAll releases every descriptor.
func (t *fdTable) closeAll() {
	for i, f := range t.fds {
		f.release()
		t.fds[i] = nil
	}
	t.fds = nil
}

// free returns the lowest closed descriptor from min up.
func (t *fdTable) free(min int) int {
	for n := min; ; n++ {
		if t.get(n) == nil {
			return n
		}
	}
}

// reader returns descriptor n as a command's input.
func (t *fdTable) reader(n int) io.Reader {
	if f := t.get(n); f != nil {
		return f
	}
	return closedFd{n}
}

// writer returns descriptor n as a command's output.
func (t *fdTable) writer(n int) io.Writer {
	if f := t.get(n); f != nil {
		return f
	}
	return closedFd{n}
}

// closedFd stands for a closed descriptor: every call fails with EBADF.
type closedFd struct{ n int }

func (c closedFd) Read([]byte) (int, error)  { return 0, syscall.EBADF }
func (c closedFd) Write([]byte) (int, error) { return 0, syscall.EBADF }

// newOpenFile wraps a file of the agent's view.
func (r *run) newOpenFile(name string, f command.File, read, write bool) *openFile {
	of := &openFile{name: name, file: f, c: f, run: r, counted: true}
	r.openFiles.Add(1)
	if read {
		of.r = f
	}
	if write {
		of.w = f
	}
	of.refs.Store(1)
	return of
}

// streamFile wraps a stream of the caller (the command's own stdin,
// stdout or stderr); it is never closed by the shell.
func streamFile(name string, r io.Reader, w io.Writer) *openFile {
	of := &openFile{name: name, r: r, w: w}
	of.refs.Store(1)
	return of
}

// stringFile is a here-document or here-string.
func stringFile(text string) *openFile {
	sr := &seekableString{r: bytes.NewReader([]byte(text))}
	of := &openFile{name: "here-document", r: sr, file: sr}
	of.refs.Store(1)
	return of
}

// fdView is a descriptor handed to a command as a file (/dev/fd/N):
// closing it leaves the descriptor open.
type fdView struct {
	of *openFile
	n  int
}

func (v *fdView) Read(p []byte) (int, error)  { return v.of.Read(p) }
func (v *fdView) Write(p []byte) (int, error) { return v.of.Write(p) }
func (v *fdView) Close() error                { return nil }
func (v *fdView) Name() string {
	if v.of.file != nil {
		return v.of.file.Name()
	}
	return "/dev/fd/" + itoa(v.n)
}
func (v *fdView) Seek(off int64, whence int) (int64, error) {
	if v.of.file != nil {
		v.of.syncOffset()
		return v.of.file.Seek(off, whence)
	}
	return 0, &fs.PathError{Op: "seek", Path: v.Name(), Err: syscall.ESPIPE}
}
func (v *fdView) ReadAt(p []byte, off int64) (int, error) {
	if v.of.file != nil {
		return v.of.file.ReadAt(p, off)
	}
	return 0, &fs.PathError{Op: "read", Path: v.Name(), Err: syscall.ESPIPE}
}
func (v *fdView) Stat() (fs.FileInfo, error) {
	if v.of.file != nil {
		return v.of.file.Stat()
	}
	return pipeInfo{name: itoa(v.n)}, nil
}
func (v *fdView) ReadDir(int) ([]fs.DirEntry, error) {
	return nil, &fs.PathError{Op: "readdirent", Path: v.Name(), Err: syscall.ENOTDIR}
}
func (v *fdView) Truncate(size int64) error {
	if v.of.file != nil {
		return v.of.file.Truncate(size)
	}
	return &fs.PathError{Op: "truncate", Path: v.Name(), Err: syscall.EINVAL}
}

// pipeInfo describes a pipe (or another stream) for Stat.
type pipeInfo struct{ name string }

func (p pipeInfo) Name() string       { return p.name }
func (p pipeInfo) Size() int64        { return 0 }
func (p pipeInfo) Mode() fs.FileMode  { return fs.ModeNamedPipe | 0o600 }
func (p pipeInfo) ModTime() time.Time { return time.Time{} }
func (p pipeInfo) IsDir() bool        { return false }
func (p pipeInfo) Sys() any           { return nil }

// seekableString is a here-document as a file: readable, seekable.
type seekableString struct {
	r *bytes.Reader
}

func (s *seekableString) Read(p []byte) (int, error)              { return s.r.Read(p) }
func (s *seekableString) ReadAt(p []byte, off int64) (int, error) { return s.r.ReadAt(p, off) }
func (s *seekableString) Seek(off int64, whence int) (int64, error) {
	return s.r.Seek(off, whence)
}
func (s *seekableString) Write([]byte) (int, error) { return 0, syscall.EBADF }
func (s *seekableString) Close() error              { return nil }
func (s *seekableString) Name() string              { return "here-document" }
func (s *seekableString) Stat() (fs.FileInfo, error) {
	return pipeInfo{name: "here-document"}, nil
}
func (s *seekableString) ReadDir(int) ([]fs.DirEntry, error) { return nil, syscall.ENOTDIR }
func (s *seekableString) Truncate(int64) error               { return syscall.EINVAL }

// pipeSize is the buffer of an in-process pipe, as the kernel's.
const pipeSize = 64 << 10

// errBrokenPipe is a write to a pipe whose reader is gone.
var errBrokenPipe = &fs.PathError{Op: "write", Path: "pipe", Err: syscall.EPIPE}

// pipe is an in-process pipe between two parts of a script (pipeline
// stages, process substitution): a bounded buffer, EOF when the writers
// are gone, EPIPE when the reader is.
type pipe struct {
	mu      sync.Mutex
	cond    sync.Cond
	buf     []byte
	rClosed bool
	wClosed bool
}

func newPipe(r *run) (*pipeReader, *pipeWriter) {
	p := &pipe{}
	p.cond.L = &p.mu
	if r != nil {
		r.trackPipe(p)
	}
	return &pipeReader{p}, &pipeWriter{p}
}

// breakAll wakes every waiter for good (the run is over).
func (p *pipe) breakAll() {
	p.mu.Lock()
	p.rClosed, p.wClosed = true, true
	p.cond.Broadcast()
	p.mu.Unlock()
}

type pipeReader struct{ p *pipe }
type pipeWriter struct{ p *pipe }

func (r *pipeReader) Read(b []byte) (int, error) {
	p := r.p
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.buf) == 0 {
		if p.wClosed || p.rClosed {
			return 0, io.EOF
		}
		p.cond.Wait()
	}
	n := copy(b, p.buf)
	p.buf = p.buf[n:]
	if len(p.buf) == 0 {
		p.buf = nil
	}
	p.cond.Broadcast()
	return n, nil
}

func (r *pipeReader) Close() error {
	p := r.p
	p.mu.Lock()
	p.rClosed = true
	p.buf = nil
	p.cond.Broadcast()
	p.mu.Unlock()
	return nil
}

func (w *pipeWriter) Write(b []byte) (int, error) {
	p := w.p
	p.mu.Lock()
	defer p.mu.Unlock()
	written := 0
	for len(b) > 0 {
		if p.rClosed {
			return written, errBrokenPipe
		}
		if p.wClosed {
			return written, os.ErrClosed
		}
		room := pipeSize - len(p.buf)
		if room <= 0 {
			p.cond.Wait()
			continue
		}
		n := min(room, len(b))
		p.buf = append(p.buf, b[:n]...)
		b = b[n:]
		written += n
		p.cond.Broadcast()
	}
	return written, nil
}

func (w *pipeWriter) Close() error {
	p := w.p
	p.mu.Lock()
	p.wClosed = true
	p.cond.Broadcast()
	p.mu.Unlock()
	return nil
}

// pipeFiles makes a pipe as two open file descriptions.
func (r *run) pipeFiles() (rd, wr *openFile) {
	pr, pw := newPipe(r)
	rd = &openFile{name: "pipe", r: pr, c: pr}
	wr = &openFile{name: "pipe", w: pw, c: pw}
	rd.refs.Store(1)
	wr.refs.Store(1)
	return rd, wr
}

// isEPIPE reports a write into a pipe whose reader is gone.
func isEPIPE(err error) bool { return errors.Is(err, syscall.EPIPE) }

// readN reads at most n bytes (at least one unless at the end) through
// the description's buffer.
func (f *openFile) readN(n int) ([]byte, error) {
	if f.r == nil {
		return nil, &fs.PathError{Op: "read", Path: f.name, Err: syscall.EBADF}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.pending) == 0 {
		buf := make([]byte, readChunk(f))
		m, err := f.r.Read(buf)
		f.pending = append(f.pending[:0], buf[:m]...)
		if m == 0 {
			if err == nil {
				err = io.EOF
			}
			return nil, err
		}
	}
	k := min(n, len(f.pending))
	out := append([]byte(nil), f.pending[:k]...)
	f.pending = f.pending[k:]
	return out, nil
}

// peekByte returns the next byte without consuming it.
func (f *openFile) peekByte() (byte, error) {
	if f.r == nil {
		return 0, syscall.EBADF
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.pending) == 0 {
		buf := make([]byte, readChunk(f))
		m, err := f.r.Read(buf)
		f.pending = append(f.pending[:0], buf[:m]...)
		if m == 0 {
			if err == nil {
				err = io.EOF
			}
			return 0, err
		}
	}
	return f.pending[0], nil
}
