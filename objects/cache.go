package objects

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"
)

// wholeInMemory is the largest cached blob read into memory to be verified
// and served in one pass; larger ones are hashed, then read again.
const wholeInMemory = 4 << 20

// Cache is a bounded local read cache in front of a remote store. It is a
// Store itself:
//
//   - Open serves blobs from a folder of verified copies; a missing one is
//     fetched whole from the remote (once, however many readers ask for it
//     at the same time), verified, and kept; a part of a blob larger than
//     the whole cache is read from the remote directly. A copy is verified
//     again every time it is read whole, and before a part of it is served
//     unless the file is unchanged (same inode and ctime) since it was last
//     verified. A damaged cache file is dropped and fetched again, never
//     served.
//   - Put writes through to the remote and keeps a copy of the bytes once
//     the remote has accepted them.
//   - Stat and List ask the remote, which holds the truth (store times
//     included); Delete removes the blob from both.
//
// The cache holds at most maxBytes of blob content and evicts the least
// recently used blobs beyond that. Its folder belongs to one Cache at a
// time; it is not durable (a crash may leave a damaged copy, which the
// verification then drops).
type Cache struct {
	remote   Store
	dir      string
	blobs    string
	tmp      string
	maxBytes int64

	mu      sync.Mutex
	lru     *list.List // of *cacheEntry, most recently used first
	entries map[Digest]*list.Element
	filling map[Digest]chan struct{} // closed when a fetch into the cache ends
	used    int64
	deletes uint64 // bumped by Delete, so a fill racing with it is dropped
	stats   CacheStats
}

type cacheEntry struct {
	d        Digest
	size     int64
	verified fileStamp // the cache file as it was when last verified
}

// fileStamp identifies one state of a file: any write, truncation or
// replacement through the file system changes its inode or ctime (which,
// unlike mtime, cannot be set back).
type fileStamp struct {
	dev, ino uint64
	size     int64
	ctime    int64
}

// racyWindow is how old a file's ctime must be for its stamp to be
// trusted. File systems take ctime from a coarse clock, so a change made
// within the same tick as the verification could keep the same ctime; a
// change made after a verification that happened well after ctime cannot
// (git's "racy clean" problem, solved the same way).
const racyWindow = 2 * time.Second

// trustedStamp returns the stamp of a file just verified, or the zero
// stamp (never trusted) if the file changed too recently to tell a later
// change by its ctime.
func trustedStamp(info fs.FileInfo) fileStamp {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{}
	}
	s := stampOf(info)
	if time.Since(time.Unix(st.Ctim.Unix())) < racyWindow {
		return fileStamp{}
	}
	return s
}

func stampOf(info fs.FileInfo) fileStamp {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{} // never matches: verify every time
	}
	return fileStamp{dev: uint64(st.Dev), ino: st.Ino, size: st.Size, ctime: st.Ctim.Nano()}
}

// CacheStats counts what a Cache did since it was made.
type CacheStats struct {
	Hits      int64 // Opens served from the cache
	Misses    int64 // Opens that went to the remote
	Evictions int64 // blobs dropped to stay under the size limit
	Corrupt   int64 // damaged cache files found and dropped
	Blobs     int64 // blobs in the cache now
	Bytes     int64 // bytes in the cache now
}

var _ Store = (*Cache)(nil)

// NewCache returns a read cache of at most maxBytes in folder dir in front
// of remote. Blobs already in dir are kept (and verified when served).
func NewCache(remote Store, dir string, maxBytes int64) (*Cache, error) {
	if maxBytes <= 0 {
		return nil, fmt.Errorf("objects: cache %s: size limit %d: give a positive number of bytes", dir, maxBytes)
	}
	if dir == "" {
		return nil, errors.New("objects: cache: empty folder path; give a folder for the cache")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("objects: cache %s: %w", dir, err)
	}
	c := &Cache{
		remote: remote, dir: abs, blobs: filepath.Join(abs, "blobs"), tmp: filepath.Join(abs, "tmp"),
		maxBytes: maxBytes, lru: list.New(), entries: map[Digest]*list.Element{},
		filling: map[Digest]chan struct{}{},
	}
	for _, p := range []string{abs, c.blobs, c.tmp} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return nil, fmt.Errorf("objects: cache folder %s: cannot create %s: %w; fix its permissions or choose another folder", abs, p, err)
		}
	}
	// Temporary files are only ever written by this Cache, so all of them
	// are leftovers.
	if err := os.RemoveAll(c.tmp); err != nil {
		return nil, fmt.Errorf("objects: cache folder %s: removing temporary files: %w", abs, err)
	}
	if err := os.Mkdir(c.tmp, 0o755); err != nil {
		return nil, fmt.Errorf("objects: cache folder %s is not writable: %w; fix its permissions or choose another folder", abs, err)
	}
	if err := c.loadIndex(); err != nil {
		return nil, err
	}
	return c, nil
}

// loadIndex indexes the blobs already in the folder, oldest modification
// first in eviction order, and evicts down to the size limit.
func (c *Cache) loadIndex() error {
	var found []Info
	local := &Dir{root: c.dir, blobs: c.blobs, tmp: c.tmp}
	err := local.List(context.Background(), func(i Info) error { found = append(found, i); return nil })
	if err != nil {
		return fmt.Errorf("objects: cache folder %s: %w", c.dir, err)
	}
	slices.SortFunc(found, func(a, b Info) int { return b.ModTime.Compare(a.ModTime) })
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, i := range found {
		c.entries[i.Digest] = c.lru.PushBack(&cacheEntry{d: i.Digest, size: i.Size})
		c.used += i.Size
	}
	c.evictLocked()
	return nil
}

// Remote returns the store the cache is in front of.
func (c *Cache) Remote() Store { return c.remote }

// Path returns the cache file of blob d (which may not exist), for tests
// and messages.
func (c *Cache) Path(d Digest) string {
	h := d.String()
	return filepath.Join(c.blobs, h[:2], h)
}

// Stats returns the cache's counters.
func (c *Cache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Blobs = int64(len(c.entries))
	s.Bytes = c.used
	return s
}

// Contains reports whether d is in the cache now.
func (c *Cache) Contains(d Digest) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.entries[d]
	return ok
}

// Put implements Store: it writes through to the remote and keeps a copy
// of the bytes the remote read, if they are the whole, verified blob.
func (c *Cache) Put(ctx context.Context, d Digest, r io.Reader, size int64) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("objects: put %s: %w", d.Short(), err)
	}
	if size < 0 || size > c.maxBytes {
		return c.remote.Put(ctx, d, r, size)
	}
	c.mu.Lock()
	_, cached := c.entries[d]
	deletes := c.deletes
	c.mu.Unlock()
	if cached {
		return c.remote.Put(ctx, d, r, size)
	}
	tee, err := newTeeFile(c.tmp, d, r)
	if err != nil {
		slog.Warn("objects: cache: cannot keep a copy of a blob being put", "folder", c.dir, "err", err)
		return c.remote.Put(ctx, d, r, size)
	}
	if err := c.remote.Put(ctx, d, tee, size); err != nil {
		tee.discard()
		return err
	}
	// A remote that already had the blob may not have read it all.
	if tee.err != nil || tee.n != size || Digest(tee.h.Sum(nil)) != d {
		tee.discard()
		return nil
	}
	if err := c.insert(tee.f, d, size, deletes); err != nil {
		slog.Warn("objects: cache: cannot keep a blob", "folder", c.dir, "blob", d.Short(), "err", err)
	}
	tee.f.Close()
	return nil
}

// teeFile copies what is read through it into a temporary file, hashing
// it. A failed write to the file never fails the read.
type teeFile struct {
	r   io.Reader
	f   *os.File
	h   hash.Hash
	n   int64
	err error
}

func newTeeFile(tmpDir string, d Digest, r io.Reader) (*teeFile, error) {
	f, err := os.CreateTemp(tmpDir, d.String()[:16]+"-*"+tempSuffix)
	if err != nil {
		return nil, err
	}
	return &teeFile{r: r, f: f, h: sha256.New()}, nil
}

func (t *teeFile) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 && t.err == nil {
		if _, werr := t.f.Write(p[:n]); werr != nil {
			t.err = werr
		}
		t.h.Write(p[:n])
		t.n += int64(n)
	}
	return n, err
}

func (t *teeFile) discard() {
	t.f.Close()
	os.Remove(t.f.Name())
}

// insert renames the verified temporary file f holding blob d into the
// cache and evicts what no longer fits. If a Delete ran since deletes was
// read, the copy may be of a deleted blob and is dropped instead. The
// caller still owns (and closes) f.
func (c *Cache) insert(f *os.File, d Digest, size int64, deletes uint64) error {
	final := c.Path(d)
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		os.Remove(f.Name())
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.deletes != deletes || size > c.maxBytes {
		os.Remove(f.Name())
		return nil
	}
	if err := os.Rename(f.Name(), final); err != nil {
		os.Remove(f.Name())
		return err
	}
	// f holds bytes verified as they were written: stamp it as verified.
	var stamp fileStamp
	if info, err := f.Stat(); err == nil {
		stamp = trustedStamp(info)
	}
	if el, ok := c.entries[d]; ok {
		e := el.Value.(*cacheEntry)
		c.used -= e.size
		e.size, e.verified = size, stamp
		c.lru.MoveToFront(el)
	} else {
		c.entries[d] = c.lru.PushFront(&cacheEntry{d: d, size: size, verified: stamp})
	}
	c.used += size
	c.evictLocked()
	return nil
}

func (c *Cache) evictLocked() {
	for c.used > c.maxBytes && c.lru.Len() > 0 {
		e := c.lru.Remove(c.lru.Back()).(*cacheEntry)
		delete(c.entries, e.d)
		c.used -= e.size
		c.stats.Evictions++
		if err := os.Remove(c.Path(e.d)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			slog.Warn("objects: cache: cannot evict a blob", "folder", c.dir, "blob", e.d.Short(), "err", err)
		}
	}
}

// drop forgets d and removes its cache file.
func (c *Cache) drop(d Digest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[d]; ok {
		c.used -= el.Value.(*cacheEntry).size
		c.lru.Remove(el)
		delete(c.entries, d)
	}
	if err := os.Remove(c.Path(d)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		slog.Warn("objects: cache: cannot remove a blob", "folder", c.dir, "blob", d.Short(), "err", err)
	}
}

// Open implements Store.
func (c *Cache) Open(ctx context.Context, d Digest, off, length int64) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("objects: open %s: %w", d.Short(), err)
	}
	if off < 0 {
		return nil, fmt.Errorf("objects: open %s: negative offset %d", d.Short(), off)
	}
	waited := false
	for {
		c.mu.Lock()
		el, cached := c.entries[d]
		var verified fileStamp
		if cached {
			c.lru.MoveToFront(el)
			verified = el.Value.(*cacheEntry).verified
		}
		deletes := c.deletes
		filling, isFilling := c.filling[d]
		if !cached && !isFilling {
			// This Open fetches the blob; others wait for it.
			filling = make(chan struct{})
			c.filling[d] = filling
		}
		c.mu.Unlock()

		if cached {
			rc, err := c.openCached(ctx, d, off, length, verified)
			if err == nil {
				c.count(func(s *CacheStats) { s.Hits++ })
				return rc, nil
			}
			if ctx.Err() != nil {
				return nil, fmt.Errorf("objects: open %s: %w", d.Short(), ctx.Err())
			}
			if errors.Is(err, ErrCorrupt) {
				slog.Warn("objects: cache: dropping a damaged cache file; fetching the blob again", "folder", c.dir, "blob", d.Short(), "err", err)
				c.count(func(s *CacheStats) { s.Corrupt++ })
			} else {
				slog.Warn("objects: cache: cannot read a cache file; fetching the blob again", "folder", c.dir, "blob", d.Short(), "err", err)
			}
			c.drop(d)
			continue
		}
		if isFilling && !waited {
			select {
			case <-filling:
			case <-ctx.Done():
				return nil, fmt.Errorf("objects: open %s: %w", d.Short(), ctx.Err())
			}
			waited = true
			continue
		}
		if isFilling {
			// The fill waited for failed; try once more on our own.
			return c.openMissing(ctx, d, off, length, deletes)
		}
		defer func() {
			c.mu.Lock()
			delete(c.filling, d)
			c.mu.Unlock()
			close(filling)
		}()
		return c.openMissing(ctx, d, off, length, deletes)
	}
}

// openMissing reads a blob that is not in the cache: it fetches the whole
// blob into the cache and serves the range from there, except for a range
// of a blob too large to keep, which it reads from the remote as is.
func (c *Cache) openMissing(ctx context.Context, d Digest, off, length int64, deletes uint64) (io.ReadCloser, error) {
	c.count(func(s *CacheStats) { s.Misses++ })
	whole := off == 0 && length < 0
	if off != 0 || length >= 0 {
		info, err := c.remote.Stat(ctx, d)
		if err != nil {
			return nil, err
		}
		if info.Size > c.maxBytes {
			return c.remote.Open(ctx, d, off, length)
		}
		whole = IsWholeRange(off, length, info.Size)
	}
	f, size, err := c.fill(ctx, d, deletes)
	if errors.Is(err, errCacheFolder) && ctx.Err() == nil {
		slog.Warn("objects: cache: cannot keep a blob; reading it from the remote store", "blob", d.Short(), "err", err)
		return c.remote.Open(ctx, d, off, length)
	}
	if errors.Is(err, ErrCorrupt) && ctx.Err() == nil && !whole {
		// A range of a damaged blob is still served, unverified, as by
		// any store: the bytes asked for may be intact (an object of a
		// pack whose other bytes are damaged), and their reader checks
		// them.
		return c.remote.Open(ctx, d, off, length)
	}
	if err != nil {
		return nil, err
	}
	return serveFile(ctx, f, d, size, off, length)
}

// fill fetches the whole blob d from the remote (verified) into the cache
// and returns its file, open and positioned at the start.
func (c *Cache) fill(ctx context.Context, d Digest, deletes uint64) (*os.File, int64, error) {
	f, err := os.CreateTemp(c.tmp, d.String()[:16]+"-*"+tempSuffix)
	if err != nil {
		return nil, 0, fmt.Errorf("%w %s: %w", errCacheFolder, c.dir, err)
	}
	discard := func() {
		f.Close()
		os.Remove(f.Name())
	}
	rc, err := c.remote.Open(ctx, d, 0, -1)
	if err != nil {
		discard()
		return nil, 0, err
	}
	defer rc.Close()
	h := sha256.New()
	size, err := io.Copy(io.MultiWriter(cacheFileWriter{f, c.dir}, h), contextReader{ctx, rc})
	if err == nil && Digest(h.Sum(nil)) != d {
		// The remote's reader verifies; this guards against one that does not.
		err = fmt.Errorf("%w: the remote store returned bytes that hash to %s", ErrCorrupt, Digest(h.Sum(nil)).Short())
	}
	if err != nil {
		discard()
		if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
			err = fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		return nil, 0, fmt.Errorf("objects: open %s: %w", d.Short(), err)
	}
	if err := c.insert(f, d, size, deletes); err != nil {
		slog.Warn("objects: cache: cannot keep a blob", "folder", c.dir, "blob", d.Short(), "err", err)
	}
	// f stays readable whether it was kept, dropped or evicted meanwhile.
	return f, size, nil
}

// errCacheFolder marks failures of the cache's own folder (full disk, lost
// folder): reads then go to the remote instead of failing.
var errCacheFolder = errors.New("objects: cache folder")

type cacheFileWriter struct {
	f   *os.File
	dir string
}

func (w cacheFileWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		err = fmt.Errorf("%w %s: %w", errCacheFolder, w.dir, err)
	}
	return n, err
}

// openCached serves a range of the cached blob d. It verifies the whole
// cache file first, unless only a part is read and the file still has the
// stamp it had when last verified. It fails with ErrCorrupt if the file is
// damaged.
func (c *Cache) openCached(ctx context.Context, d Digest, off, length int64, verified fileStamp) (io.ReadCloser, error) {
	f, err := os.Open(c.Path(d))
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	size := info.Size()
	if stamp := stampOf(info); !IsWholeRange(off, length, size) && stamp == verified && verified != (fileStamp{}) {
		return serveFile(ctx, f, d, size, off, length)
	}
	if size <= wholeInMemory {
		buf := make([]byte, size+1)
		n, err := io.ReadFull(contextReader{ctx, f}, buf)
		f.Close()
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return nil, err
		}
		if int64(n) != size || Sum(buf[:n]) != d {
			return nil, fmt.Errorf("%w: cache file %s changed or does not hash to its digest", ErrCorrupt, c.Path(d))
		}
		c.setVerified(d, trustedStamp(info))
		start, n64 := ClipRange(off, length, size)
		return io.NopCloser(contextReader{ctx, bytes.NewReader(buf[start : start+n64])}), nil
	}
	h := sha256.New()
	if _, err := io.Copy(h, contextReader{ctx, io.NewSectionReader(f, 0, size)}); err != nil {
		f.Close()
		return nil, err
	}
	if Digest(h.Sum(nil)) != d {
		f.Close()
		return nil, fmt.Errorf("%w: cache file %s does not hash to its digest", ErrCorrupt, c.Path(d))
	}
	c.setVerified(d, trustedStamp(info))
	return serveFile(ctx, f, d, size, off, length)
}

func (c *Cache) setVerified(d Digest, stamp fileStamp) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[d]; ok {
		el.Value.(*cacheEntry).verified = stamp
	}
}

// serveFile returns a reader of a range of the blob d in f; whole reads
// are verified again as they are read.
func serveFile(ctx context.Context, f *os.File, d Digest, size, off, length int64) (io.ReadCloser, error) {
	start, n := ClipRange(off, length, size)
	r := &contextReadCloser{contextReader{ctx, io.NewSectionReader(f, start, n)}, f}
	if IsWholeRange(off, length, size) {
		return VerifyingReader(r, d, size), nil
	}
	return r, nil
}

func (c *Cache) count(fn func(*CacheStats)) {
	c.mu.Lock()
	fn(&c.stats)
	c.mu.Unlock()
}

// Stat implements Store by asking the remote.
func (c *Cache) Stat(ctx context.Context, d Digest) (Info, error) { return c.remote.Stat(ctx, d) }

// List implements Store by listing the remote.
func (c *Cache) List(ctx context.Context, fn func(Info) error) error { return c.remote.List(ctx, fn) }

// Delete implements Store: it removes the blob from the cache and from the
// remote.
func (c *Cache) Delete(ctx context.Context, d Digest) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("objects: delete %s: %w", d.Short(), err)
	}
	c.mu.Lock()
	c.deletes++
	c.mu.Unlock()
	c.drop(d)
	return c.remote.Delete(ctx, d)
}

// Rewrite implements Rewriter: it drops the cached copy and rewrites the
// blob in the remote store (objects.Rewrite), keeping no copy of the new
// bytes (the next read fetches and verifies them).
func (c *Cache) Rewrite(ctx context.Context, d Digest, r io.Reader, size int64) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("objects: put %s: %w", d.Short(), err)
	}
	c.mu.Lock()
	c.deletes++ // a fill racing with the rewrite may hold the damaged bytes
	c.mu.Unlock()
	c.drop(d)
	return Rewrite(ctx, c.remote, d, r, size)
}
