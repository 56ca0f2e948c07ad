package fusefs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/wsfs/wsfs/objects"
)

// blobCache keeps verified copies of blobs in the spool folder, so reads of
// a file never see unverified bytes: a blob is read whole from the store,
// which checks its size and hash, before any byte of it is served.
type blobCache struct {
	store objects.Store
	dir   string

	mu       sync.Mutex
	inflight map[objects.Digest]*sync.Mutex
}

func newBlobCache(store objects.Store, dir string) (*blobCache, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("fusefs: blob cache %s: %w", dir, err)
	}
	return &blobCache{store: store, dir: dir, inflight: map[objects.Digest]*sync.Mutex{}}, nil
}

func (c *blobCache) path(d objects.Digest) string { return filepath.Join(c.dir, d.String()) }

// open returns a read-only file holding blob d (size bytes), fetching and
// verifying it first if needed. The caller closes it.
func (c *blobCache) open(ctx context.Context, d objects.Digest, size int64) (*os.File, error) {
	p := c.path(d)
	if f, err := os.Open(p); err == nil {
		if fi, err := f.Stat(); err == nil && fi.Size() == size {
			return f, nil
		}
		f.Close()
	}
	c.mu.Lock()
	lk, ok := c.inflight[d]
	if !ok {
		lk = &sync.Mutex{}
		c.inflight[d] = lk
	}
	c.mu.Unlock()
	lk.Lock()
	defer lk.Unlock()
	if f, err := os.Open(p); err == nil {
		if fi, err := f.Stat(); err == nil && fi.Size() == size {
			return f, nil
		}
		f.Close()
	}
	b, err := objects.Get(ctx, c.store, d)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) != size {
		return nil, fmt.Errorf("fusefs: blob %s: %w: %d bytes, the tree says %d", d.Short(), objects.ErrCorrupt, len(b), size)
	}
	tmp, err := os.CreateTemp(c.dir, ".fetch-*")
	if err != nil {
		return nil, fmt.Errorf("fusefs: blob cache: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("fusefs: blob cache: %w", err)
	}
	tmp.Close()
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("fusefs: blob cache: %w", err)
	}
	return os.Open(p)
}
