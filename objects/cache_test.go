package objects_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/objects/objectstest"
)

// tamperCache damages a blob everywhere it is kept: in the remote memory
// store and in the cache folder.
func tamperCache(ctx context.Context, s objects.Store, d objects.Digest, content []byte) error {
	c := s.(*objects.Cache)
	if err := c.Remote().(objectstest.Tamperer).Tamper(ctx, d, content); err != nil {
		return err
	}
	if _, err := os.Stat(c.Path(d)); err == nil {
		return tamperFile(c.Path(d), content)
	}
	return nil
}

func newCache(t testing.TB, remote objects.Store, maxBytes int64) *objects.Cache {
	t.Helper()
	c, err := objects.NewCache(remote, t.TempDir(), maxBytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCacheConformance(t *testing.T) {
	objectstest.Run(t, func(t *testing.T) objects.Store { return newCache(t, objects.NewMemory(), 8<<20) },
		objectstest.WithTamper(tamperCache))
}

// TestCacheSmallConformance runs the suite with a cache smaller than most
// blobs, so eviction and reads past the cache happen all the time.
func TestCacheSmallConformance(t *testing.T) {
	objectstest.Run(t, func(t *testing.T) objects.Store { return newCache(t, objects.NewMemory(), 5000) },
		objectstest.WithTamper(tamperCache))
}

func FuzzCachePutOpen(f *testing.F) {
	objectstest.Fuzz(f, newCache(f, objects.NewMemory(), 64<<10))
}

// countingStore counts the Opens that reach the remote.
type countingStore struct {
	objects.Store
	opens atomic.Int64
}

func (s *countingStore) Open(ctx context.Context, d objects.Digest, off, length int64) (io.ReadCloser, error) {
	s.opens.Add(1)
	return s.Store.Open(ctx, d, off, length)
}

func putRemote(t *testing.T, s objects.Store, seed uint64, size int) (objects.Digest, []byte) {
	t.Helper()
	b := objectstest.Content(seed, size)
	d, err := objects.PutBytes(t.Context(), s, b)
	if err != nil {
		t.Fatal(err)
	}
	return d, b
}

func readRange(t *testing.T, s objects.Store, d objects.Digest, off, length int64) []byte {
	t.Helper()
	rc, err := s.Open(t.Context(), d, off, length)
	if err != nil {
		t.Fatalf("Open(%s, %d, %d): %v", d.Short(), off, length, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("reading (%s, %d, %d): %v", d.Short(), off, length, err)
	}
	return b
}

func TestCacheServesFromCache(t *testing.T) {
	remote := &countingStore{Store: objects.NewMemory()}
	c := newCache(t, remote, 1<<20)
	d, b := putRemote(t, remote, 1, 100<<10)
	if !bytes.Equal(readRange(t, c, d, 0, -1), b) {
		t.Fatal("first Get returned other bytes")
	}
	if remote.opens.Load() != 1 || !c.Contains(d) {
		t.Fatalf("after the first read: %d remote opens, cached %v; want 1, true", remote.opens.Load(), c.Contains(d))
	}
	for _, r := range []struct{ off, length int64 }{{0, -1}, {0, 10}, {5000, 4096}, {100 << 10, 1}, {99 << 10, -1}} {
		got := readRange(t, c, d, r.off, r.length)
		want := b[min(r.off, int64(len(b))):]
		if r.length >= 0 && r.length < int64(len(want)) {
			want = want[:r.length]
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("range (%d, %d) from the cache differs", r.off, r.length)
		}
	}
	if n := remote.opens.Load(); n != 1 {
		t.Fatalf("reads of a cached blob reached the remote %d more times", n-1)
	}
	st := c.Stats()
	if st.Hits != 5 || st.Misses != 1 || st.Blobs != 1 || st.Bytes != int64(len(b)) {
		t.Fatalf("stats %+v, want 5 hits, 1 miss, 1 blob of %d bytes", st, len(b))
	}

	// Put keeps a copy: no remote read is needed afterwards.
	b2 := objectstest.Content(2, 3000)
	d2, err := objects.PutBytes(t.Context(), c, b2)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Contains(d2) {
		t.Fatal("Put through the cache did not keep a copy")
	}
	if !bytes.Equal(readRange(t, c, d2, 0, -1), b2) || remote.opens.Load() != 1 {
		t.Fatalf("reading a blob put through the cache: %d remote opens, want 1", remote.opens.Load())
	}
	if _, err := remote.Stat(t.Context(), d2); err != nil {
		t.Fatalf("Put through the cache did not reach the remote: %v", err)
	}
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	remote := objects.NewMemory()
	const size = 4 << 10
	c := newCache(t, remote, 2*size+100) // room for two blobs
	a, _ := putRemote(t, remote, 1, size)
	b, _ := putRemote(t, remote, 2, size)
	x, _ := putRemote(t, remote, 3, size)
	readRange(t, c, a, 0, -1)
	readRange(t, c, b, 0, -1)
	readRange(t, c, a, 0, 10) // a is now more recent than b
	readRange(t, c, x, 0, -1) // evicts b
	if !c.Contains(a) || c.Contains(b) || !c.Contains(x) {
		t.Fatalf("after reading a, b, a, x with room for two: a %v, b %v, x %v; want true, false, true",
			c.Contains(a), c.Contains(b), c.Contains(x))
	}
	if _, err := os.Stat(c.Path(b)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("evicted blob's file still there: %v", err)
	}
	st := c.Stats()
	if st.Evictions != 1 || st.Bytes != 2*size || st.Blobs != 2 {
		t.Fatalf("stats %+v, want 1 eviction, 2 blobs, %d bytes", st, 2*size)
	}
	// A blob larger than the whole cache is served but not kept; its
	// ranges are read from the remote directly.
	big, bigBytes := putRemote(t, remote, 4, 3*size)
	if !bytes.Equal(readRange(t, c, big, 0, -1), bigBytes) || !bytes.Equal(readRange(t, c, big, size, 10), bigBytes[size:size+10]) {
		t.Fatal("a blob larger than the cache read wrong")
	}
	if c.Contains(big) || !c.Contains(a) || !c.Contains(x) {
		t.Fatal("a blob larger than the cache was kept, or evicted others")
	}
}

func TestCacheReopen(t *testing.T) {
	remote := objects.NewMemory()
	dir := t.TempDir()
	c, err := objects.NewCache(remote, dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var ds []objects.Digest
	for i := range 4 {
		d, _ := putRemote(t, remote, uint64(i), 1000)
		readRange(t, c, d, 0, -1)
		ds = append(ds, d)
	}
	// Reopened with room for two blobs, the cache keeps two of them.
	c2, err := objects.NewCache(remote, dir, 2500)
	if err != nil {
		t.Fatal(err)
	}
	if st := c2.Stats(); st.Blobs != 2 || st.Bytes != 2000 {
		t.Fatalf("reopened cache stats %+v, want 2 blobs, 2000 bytes", st)
	}
	for _, d := range ds {
		if c2.Contains(d) {
			if got := readRange(t, c2, d, 0, -1); objects.Sum(got) != d {
				t.Fatal("reopened cache served wrong bytes")
			}
		}
	}
	if st := c2.Stats(); st.Hits != 2 {
		t.Fatalf("reopened cache stats %+v, want 2 hits", st)
	}
	if _, err := objects.NewCache(remote, dir, 0); err == nil {
		t.Fatal("NewCache with a zero size limit succeeded")
	}
}

// TestCacheDamagedFileIsRefetched damages cache files in several ways and
// checks that each read returns the right bytes, fetched again from the
// remote, and never the damaged ones.
func TestCacheDamagedFileIsRefetched(t *testing.T) {
	remote := &countingStore{Store: objects.NewMemory()}
	c := newCache(t, remote, 1<<20)
	damages := map[string]func([]byte) []byte{
		"flipped":   func(b []byte) []byte { b = bytes.Clone(b); b[len(b)/3] ^= 1; return b },
		"truncated": func(b []byte) []byte { return b[:len(b)-1] },
		"empty":     func([]byte) []byte { return nil },
		"longer":    func(b []byte) []byte { return append(bytes.Clone(b), 0) },
	}
	seed := uint64(10)
	for name, damage := range damages {
		for _, r := range []struct{ off, length int64 }{{0, -1}, {10, 20}} {
			seed++
			d, b := putRemote(t, remote, seed, 8000)
			readRange(t, c, d, 0, -1) // fill
			if err := tamperFile(c.Path(d), damage(b)); err != nil {
				t.Fatal(err)
			}
			checkRefetched(t, c, remote, d, b, r.off, r.length, name)
		}
	}
	// Damage written into the cache file itself (same inode, same size,
	// mtime set back), right after the file was verified.
	for _, r := range []struct{ off, length int64 }{{0, -1}, {10, 20}, {10, 20}} {
		seed++
		d, b := putRemote(t, remote, seed, 8000)
		readRange(t, c, d, 0, -1)
		readRange(t, c, d, r.off, r.length)
		info, err := os.Stat(c.Path(d))
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(c.Path(d), os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.WriteAt([]byte{b[15] ^ 0xff}, 15)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(c.Path(d), info.ModTime(), info.ModTime()); err != nil {
			t.Fatal(err)
		}
		checkRefetched(t, c, remote, d, b, r.off, r.length, "overwritten in place")
	}
}

func checkRefetched(t *testing.T, c *objects.Cache, remote *countingStore, d objects.Digest, b []byte, off, length int64, name string) {
	t.Helper()
	before, opens := c.Stats(), remote.opens.Load()
	got := readRange(t, c, d, off, length)
	want := b[off:]
	if length >= 0 {
		want = want[:length]
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s cache file, range (%d, %d): served %d wrong bytes", name, off, length, len(got))
	}
	after := c.Stats()
	if after.Corrupt != before.Corrupt+1 || remote.opens.Load() != opens+1 {
		t.Fatalf("%s cache file, range (%d, %d): corrupt count %d→%d, remote opens %d→%d; want one more of each",
			name, off, length, before.Corrupt, after.Corrupt, opens, remote.opens.Load())
	}
	// The refetched copy replaced the damaged one.
	if f, err := os.ReadFile(c.Path(d)); err != nil || !bytes.Equal(f, b) {
		t.Fatalf("%s cache file was not replaced by the right bytes: %v", name, err)
	}
}

// TestCacheFetchesOnce has many readers ask for the same missing blob at
// once: one fetches it from the remote, the others wait and read the copy.
func TestCacheFetchesOnce(t *testing.T) {
	remote := &countingStore{Store: objects.NewMemory()}
	c := newCache(t, remote, 8<<20)
	d, b := putRemote(t, remote, 1, 1<<20)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			got, err := objects.Get(t.Context(), c, d)
			if err == nil && !bytes.Equal(got, b) {
				err = errors.New("got other bytes")
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := remote.opens.Load(); n != 1 {
		t.Fatalf("16 concurrent reads of a missing blob fetched it %d times, want 1", n)
	}
	if st := c.Stats(); st.Misses != 1 || st.Hits != 15 {
		t.Fatalf("stats %+v, want 1 miss and 15 hits", st)
	}
}

// TestCacheFolderFailure checks that reads and writes keep working, from
// and to the remote, when the cache cannot write its own folder.
func TestCacheFolderFailure(t *testing.T) {
	remote := objects.NewMemory()
	dir := t.TempDir()
	c, err := objects.NewCache(remote, dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	d, b := putRemote(t, remote, 1, 5000)
	if err := os.RemoveAll(filepath.Join(dir, "tmp")); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct{ off, length int64 }{{0, -1}, {100, 50}} {
		got := readRange(t, c, d, r.off, r.length)
		want := b[r.off:]
		if r.length >= 0 {
			want = want[:r.length]
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("read (%d, %d) with a broken cache folder returned other bytes", r.off, r.length)
		}
	}
	if c.Contains(d) {
		t.Fatal("a blob was cached although the cache folder is broken")
	}
	d2, err := objects.PutBytes(t.Context(), c, []byte("written through"))
	if err != nil {
		t.Fatalf("Put with a broken cache folder: %v", err)
	}
	if _, err := remote.Stat(t.Context(), d2); err != nil {
		t.Fatalf("Put with a broken cache folder did not reach the remote: %v", err)
	}
}
