package objects

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// Memory is a Store that keeps blobs in memory. It is meant for unit tests:
// it follows the whole Store contract (verification included) and adds a
// few hooks that let tests damage or age blobs behind the store's back.
type Memory struct {
	mu    sync.RWMutex
	blobs map[Digest]memBlob
	now   func() time.Time
}

type memBlob struct {
	data    []byte // never modified in place: replaced as a whole
	modTime time.Time
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{blobs: make(map[Digest]memBlob), now: time.Now}
}

// Put implements Store.
func (m *Memory) Put(ctx context.Context, d Digest, r io.Reader, size int64) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("objects: put %s: %w", d.Short(), err)
	}
	if size < 0 {
		return fmt.Errorf("objects: put %s: negative size %d", d.Short(), size)
	}
	// Read one byte more than announced so that a longer stream is caught.
	var buf bytes.Buffer
	if size < 64<<20 {
		buf.Grow(int(size) + 1)
	}
	if _, err := io.Copy(&buf, io.LimitReader(contextReader{ctx, r}, size+1)); err != nil {
		return fmt.Errorf("objects: put %s: %w", d.Short(), err)
	}
	data := buf.Bytes()
	if err := checkContent(d, data, size); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	// A stored copy is kept, with its time, unless it was damaged.
	if b, ok := m.blobs[d]; !ok || !bytes.Equal(b.data, data) {
		m.blobs[d] = memBlob{data: data, modTime: m.now()}
	}
	return nil
}

// checkContent reports ErrDigestMismatch unless data is exactly size bytes
// hashing to d.
func checkContent(d Digest, data []byte, size int64) error {
	if int64(len(data)) != size {
		return fmt.Errorf("objects: put %s: %w: got more or fewer than the announced %d bytes", d.Short(), ErrDigestMismatch, size)
	}
	if Sum(data) != d {
		return fmt.Errorf("objects: put %s: %w: the %d bytes hash to %s", d.Short(), ErrDigestMismatch, size, Sum(data).Short())
	}
	return nil
}

// Open implements Store.
func (m *Memory) Open(ctx context.Context, d Digest, off, length int64) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("objects: open %s: %w", d.Short(), err)
	}
	if off < 0 {
		return nil, fmt.Errorf("objects: open %s: negative offset %d", d.Short(), off)
	}
	m.mu.RLock()
	b, ok := m.blobs[d]
	m.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("objects: open %s: %w", d.Short(), ErrNotFound)
	}
	size := int64(len(b.data))
	r := io.NopCloser(contextReader{ctx, bytes.NewReader(b.data)})
	if IsWholeRange(off, length, size) {
		// The memory store cannot know the true size of a tampered blob;
		// the digest is the truth, so verification catches any change.
		return VerifyingReader(r, d, -1), nil
	}
	start, n := ClipRange(off, length, size)
	return io.NopCloser(contextReader{ctx, bytes.NewReader(b.data[start : start+n])}), nil
}

// Stat implements Store.
func (m *Memory) Stat(ctx context.Context, d Digest) (Info, error) {
	if err := ctx.Err(); err != nil {
		return Info{}, fmt.Errorf("objects: stat %s: %w", d.Short(), err)
	}
	m.mu.RLock()
	b, ok := m.blobs[d]
	m.mu.RUnlock()
	if !ok {
		return Info{}, fmt.Errorf("objects: stat %s: %w", d.Short(), ErrNotFound)
	}
	return Info{Digest: d, Size: int64(len(b.data)), ModTime: b.modTime}, nil
}

// Delete implements Store.
func (m *Memory) Delete(ctx context.Context, d Digest) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("objects: delete %s: %w", d.Short(), err)
	}
	m.mu.Lock()
	delete(m.blobs, d)
	m.mu.Unlock()
	return nil
}

// List implements Store. It works on a snapshot taken when it starts, so fn
// may call other methods of the store.
func (m *Memory) List(ctx context.Context, fn func(Info) error) error {
	m.mu.RLock()
	infos := make([]Info, 0, len(m.blobs))
	for d, b := range m.blobs {
		infos = append(infos, Info{Digest: d, Size: int64(len(b.data)), ModTime: b.modTime})
	}
	m.mu.RUnlock()
	for _, info := range infos {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("objects: list: %w", err)
		}
		if err := fn(info); err != nil {
			return err
		}
	}
	return nil
}

// IsLocal implements Local.
func (m *Memory) IsLocal() bool { return true }

// Len returns the number of stored blobs.
func (m *Memory) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.blobs)
}

// Tamper replaces the stored bytes of d with content without any check, as
// a disk fault or a careless operator would, or stores them if d is
// missing. It is a test hook (it implements objectstest.Tamperer); the
// blob's ModTime is kept.
func (m *Memory) Tamper(ctx context.Context, d Digest, content []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.blobs[d]
	if !ok {
		b.modTime = m.now()
	}
	b.data = bytes.Clone(content)
	m.blobs[d] = b
	return nil
}

// SetModTime changes the store time of a stored blob, so that tests of
// grace periods need not wait. It returns ErrNotFound for a missing blob.
func (m *Memory) SetModTime(d Digest, t time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.blobs[d]
	if !ok {
		return fmt.Errorf("objects: set mod time %s: %w", d.Short(), ErrNotFound)
	}
	b.modTime = t
	m.blobs[d] = b
	return nil
}

// contextReader fails reads once ctx is done, so long copies stop promptly.
type contextReader struct {
	ctx context.Context
	r   io.Reader
}

func (c contextReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// IsWholeRange reports whether Open(off, length) of a blob of the given
// size reads the whole blob, and must therefore be verified.
func IsWholeRange(off, length, size int64) bool {
	return off == 0 && (length < 0 || length >= size)
}

// ClipRange clips the range [off, off+length) to a blob of the given size
// (length < 0 means to the end) and returns the start and length to read.
// An offset at or beyond the end yields length 0.
func ClipRange(off, length, size int64) (start, n int64) {
	if off >= size {
		return size, 0
	}
	n = size - off
	if length >= 0 && length < n {
		n = length
	}
	return off, n
}
