package fusefs

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/wsfs/wsfs/objects"
)

// DefaultBlobCacheBytes bounds the verified blob copies kept in the spool
// folder when Options.BlobCacheBytes is zero.
const DefaultBlobCacheBytes = 512 << 20

// blobCache keeps verified copies of blobs in the spool folder, so reads of
// a file never see unverified bytes: a blob is read whole from the store,
// which checks its size and hash, before any byte of it is served. The
// spool file of a committed file joins the cache too (adopt), so a file
// just written reads from disk, not from the store.
//
// The copies are bounded by max bytes: the least recently opened are
// removed first. A removed copy stays readable through descriptors already
// open on it, and is fetched again from the store when next opened.
type blobCache struct {
	store objects.Store
	dir   string
	max   int64

	mu       sync.Mutex
	inflight map[objects.Digest]*sync.Mutex
	lru      *list.List // of cachedBlob, most recently opened first
	items    map[objects.Digest]*list.Element
	used     int64
}

type cachedBlob struct {
	digest objects.Digest
	size   int64
}

// CopiesDir is the folder under a spool folder where the mount keeps its
// verified copies of blobs, each a file named by the digest of its
// content (objects.OpenCopies reads them): after a crash, a source of good
// copies for `wsfs fsck --repair`.
func CopiesDir(spoolDir string) string { return filepath.Join(spoolDir, "blobs") }

func newBlobCache(store objects.Store, dir string, maxBytes int64) (*blobCache, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("fusefs: blob cache %s: %w", dir, err)
	}
	return &blobCache{store: store, dir: dir, max: maxBytes, inflight: map[objects.Digest]*sync.Mutex{},
		lru: list.New(), items: map[objects.Digest]*list.Element{}}, nil
}

func (c *blobCache) path(d objects.Digest) string { return filepath.Join(c.dir, d.String()) }

// open returns a read-only file holding blob d (size bytes), fetching and
// verifying it first if needed. The caller closes it.
func (c *blobCache) open(ctx context.Context, d objects.Digest, size int64) (*os.File, error) {
	if f := c.openCached(d, size); f != nil {
		return f, nil
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
	if f := c.openCached(d, size); f != nil {
		return f, nil
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
	// Opened before the rename, so that an eviction racing with it
	// cannot take the copy away from under this reader.
	f, err := os.Open(tmp.Name())
	if err == nil {
		err = os.Rename(tmp.Name(), c.path(d))
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("fusefs: blob cache: %w", err)
	}
	c.added(d, size)
	return f, nil
}

// openCached opens the cached copy of d if the cache holds one of the
// right size. Every copy in the folder is one the cache made (the spool
// folder is emptied at mount), so its list is the truth and a miss costs
// no system call.
func (c *blobCache) openCached(d objects.Digest, size int64) *os.File {
	c.mu.Lock()
	el, ok := c.items[d]
	if ok && el.Value.(cachedBlob).size == size {
		c.lru.MoveToFront(el)
	}
	c.mu.Unlock()
	if !ok || el.Value.(cachedBlob).size != size {
		return nil
	}
	f, err := os.Open(c.path(d))
	if err != nil {
		return nil // evicted meanwhile
	}
	return f
}

// adopt takes over the file at path name, size bytes that hash to d (its
// content has just been committed, or was copied from the committed blob
// and not changed since): it becomes the cached copy of d, or is removed
// if the cache has one already.
func (c *blobCache) adopt(d objects.Digest, size int64, name string) error {
	fi, err := os.Stat(name)
	if err != nil || fi.Size() != size || size == 0 {
		return errors.Join(err, os.Remove(name))
	}
	c.mu.Lock()
	_, have := c.items[d]
	c.mu.Unlock()
	if have {
		return os.Remove(name)
	}
	if err := os.Rename(name, c.path(d)); err != nil {
		return errors.Join(err, os.Remove(name))
	}
	c.added(d, size)
	return nil
}

// added records a new copy of d and removes the least recently opened
// copies beyond the bound.
func (c *blobCache) added(d objects.Digest, size int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[d]; ok {
		c.used -= el.Value.(cachedBlob).size
		c.lru.Remove(el)
	}
	c.items[d] = c.lru.PushFront(cachedBlob{digest: d, size: size})
	c.used += size
	for c.used > c.max {
		el := c.lru.Back()
		old := el.Value.(cachedBlob)
		c.lru.Remove(el)
		delete(c.items, old.digest)
		c.used -= old.size
		os.Remove(c.path(old.digest))
	}
}
