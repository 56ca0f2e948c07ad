// Package objectstest is the conformance suite of objects.Store. Every store
// (memory, local folder, read cache, S3) runs it from its own tests:
//
//	func TestConformance(t *testing.T) {
//		objectstest.Run(t, func(t *testing.T) objects.Store { return newStore(t) })
//	}
//
// The suite checks the contract written on objects.Store: round trips, byte
// ranges, idempotent and verified Put, Stat, Delete, List, concurrency,
// not-found classification, cancellation, that bytes damaged behind the
// store's back are reported as objects.ErrCorrupt and never returned as
// data, and that writing the content again (objects.Rewrite) heals them. Damaging a blob needs a hook: the store implements Tamperer, or the
// caller passes WithTamper. Fuzz is a fuzz target body for Put and Open.
package objectstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/wsfs/wsfs/objects"
)

// Tamperer is implemented by stores that can overwrite a blob's stored
// bytes without any check, as a disk fault would. objects.Memory does.
type Tamperer interface {
	Tamper(ctx context.Context, d objects.Digest, content []byte) error
}

// TamperFunc overwrites the stored bytes of d in s with content, bypassing
// the store's checks (for S3: a raw PutObject on the blob's key).
type TamperFunc func(ctx context.Context, s objects.Store, d objects.Digest, content []byte) error

// Option changes how Run tests a store.
type Option func(*config)

type config struct {
	tamper      TamperFunc
	concurrency int
	largeSize   int
}

// WithTamper sets how the suite damages stored blobs. Without it, the store
// must implement Tamperer, or the tamper tests fail.
func WithTamper(fn TamperFunc) Option { return func(c *config) { c.tamper = fn } }

// WithConcurrency sets how many goroutines the concurrency test runs
// (default 16). Remote stores may want fewer.
func WithConcurrency(n int) Option { return func(c *config) { c.concurrency = max(n, 2) } }

// Run runs the conformance suite against stores made by newStore. Every
// subtest calls newStore for a fresh, empty store of its own (for remote
// stores, a fresh key prefix is enough); newStore should register its own
// cleanup with t.Cleanup.
func Run(t *testing.T, newStore func(t *testing.T) objects.Store, opts ...Option) {
	c := config{concurrency: 16, largeSize: 1<<20 + 17}
	for _, o := range opts {
		o(&c)
	}
	s := &suite{newStore: newStore, cfg: c}
	t.Run("RoundTrip", s.testRoundTrip)
	t.Run("ChunkedReaders", s.testChunkedReaders)
	t.Run("OpenRanges", s.testOpenRanges)
	t.Run("PutIdempotent", s.testPutIdempotent)
	t.Run("PutMismatch", s.testPutMismatch)
	t.Run("PutReaderError", s.testPutReaderError)
	t.Run("Stat", s.testStat)
	t.Run("Delete", s.testDelete)
	t.Run("List", s.testList)
	t.Run("ListStopsOnError", s.testListStops)
	t.Run("NotFound", s.testNotFound)
	t.Run("Concurrency", s.testConcurrency)
	t.Run("Tampered", s.testTampered)
	t.Run("RewriteHeals", s.testRewriteHeals)
	t.Run("CancelledContext", s.testCancelled)
	t.Run("CancelDuringPut", s.testCancelDuringPut)
	t.Run("CancelDuringRead", s.testCancelDuringRead)
}

type suite struct {
	newStore func(t *testing.T) objects.Store
	cfg      config
}

// Content returns size deterministic pseudo-random bytes; different seeds
// give different bytes.
func Content(seed uint64, size int) []byte {
	r := rand.New(rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), byte(seed >> 16), byte(seed >> 24),
		byte(seed >> 32), byte(seed >> 40), byte(seed >> 48), byte(seed >> 56), 'w', 's', 'f', 's'}))
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func put(t *testing.T, s objects.Store, b []byte) objects.Digest {
	t.Helper()
	d, err := objects.PutBytes(t.Context(), s, b)
	if err != nil {
		t.Fatalf("Put of %d bytes: %v", len(b), err)
	}
	return d
}

func mustGet(t *testing.T, s objects.Store, d objects.Digest, want []byte) {
	t.Helper()
	got, err := objects.Get(t.Context(), s, d)
	if err != nil {
		t.Fatalf("Get %s: %v", d.Short(), err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Get %s: got %d bytes that differ from the %d put", d.Short(), len(got), len(want))
	}
}

func mustBeMissing(t *testing.T, s objects.Store, d objects.Digest) {
	t.Helper()
	if info, err := s.Stat(t.Context(), d); !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("Stat %s: got (%+v, %v), want ErrNotFound", d.Short(), info, err)
	}
	rc, err := s.Open(t.Context(), d, 0, -1)
	if err == nil {
		rc.Close()
	}
	if !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("Open %s: got %v, want ErrNotFound", d.Short(), err)
	}
}

func listAll(t *testing.T, s objects.Store) map[objects.Digest]objects.Info {
	t.Helper()
	got := map[objects.Digest]objects.Info{}
	err := s.List(t.Context(), func(info objects.Info) error {
		if _, dup := got[info.Digest]; dup {
			return fmt.Errorf("list returned %s twice", info.Digest.Short())
		}
		got[info.Digest] = info
		return nil
	})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	return got
}

func (s *suite) testRoundTrip(t *testing.T) {
	st := s.newStore(t)
	for i, size := range []int{0, 1, 4 << 10, 256 << 10, s.cfg.largeSize} {
		b := Content(uint64(i), size)
		d := put(t, st, b)
		if d != objects.Sum(b) {
			t.Fatalf("PutBytes returned %s, want %s", d.Short(), objects.Sum(b).Short())
		}
		mustGet(t, st, d, b)
		info, err := st.Stat(t.Context(), d)
		if err != nil {
			t.Fatalf("Stat after Put of %d bytes: %v", size, err)
		}
		if info.Digest != d || info.Size != int64(size) {
			t.Fatalf("Stat = {%s, %d}, want {%s, %d}", info.Digest.Short(), info.Size, d.Short(), size)
		}
	}
}

// testChunkedReaders puts through readers that return a byte at a time,
// half of what was asked, or their last bytes together with io.EOF.
func (s *suite) testChunkedReaders(t *testing.T) {
	st := s.newStore(t)
	wrappers := map[string]func(io.Reader) io.Reader{
		"OneByte": iotest.OneByteReader,
		"Half":    iotest.HalfReader,
		"DataErr": iotest.DataErrReader,
	}
	seed := uint64(100)
	for name, wrap := range wrappers {
		seed++
		b := Content(seed, 3000)
		d := objects.Sum(b)
		if err := st.Put(t.Context(), d, wrap(bytes.NewReader(b)), int64(len(b))); err != nil {
			t.Fatalf("Put through %s reader: %v", name, err)
		}
		mustGet(t, st, d, b)
	}
}

func (s *suite) testOpenRanges(t *testing.T) {
	st := s.newStore(t)
	const size = 1000
	b := Content(7, size)
	d := put(t, st, b)
	empty := put(t, st, nil)
	cases := []struct{ off, length int64 }{
		{0, -1}, {0, 0}, {0, 1}, {0, size - 1}, {0, size}, {0, size + 1}, {0, 1 << 40},
		{1, -1}, {1, 1}, {500, 100}, {500, 500}, {500, 501}, {size - 1, -1}, {size - 1, 1},
		{size - 1, 10}, {size, -1}, {size, 0}, {size, 5}, {size + 1, -1}, {5000, 10}, {1 << 40, -1},
	}
	for _, c := range cases {
		want := b[min(c.off, size):]
		if c.length >= 0 && c.length < int64(len(want)) {
			want = want[:c.length]
		}
		rc, err := st.Open(t.Context(), d, c.off, c.length)
		if err != nil {
			t.Fatalf("Open(off=%d, length=%d): %v", c.off, c.length, err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("reading Open(off=%d, length=%d): %v", c.off, c.length, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("Open(off=%d, length=%d): got %d bytes, want %d (content differs: %v)",
				c.off, c.length, len(got), len(want), len(got) == len(want))
		}
		// The empty blob gives an empty reader for every range.
		rc, err = st.Open(t.Context(), empty, c.off, c.length)
		if err != nil {
			t.Fatalf("Open(empty blob, off=%d, length=%d): %v", c.off, c.length, err)
		}
		got, err = io.ReadAll(rc)
		rc.Close()
		if err != nil || len(got) != 0 {
			t.Fatalf("Open(empty blob, off=%d, length=%d): got %d bytes, %v", c.off, c.length, len(got), err)
		}
	}
	if rc, err := st.Open(t.Context(), d, -1, 10); err == nil {
		rc.Close()
		t.Fatalf("Open with a negative offset succeeded, want an error")
	}
}

func (s *suite) testPutIdempotent(t *testing.T) {
	st := s.newStore(t)
	b := Content(11, 5000)
	d := put(t, st, b)
	for range 3 {
		if err := st.Put(t.Context(), d, bytes.NewReader(b), int64(len(b))); err != nil {
			t.Fatalf("second Put of the same blob: %v", err)
		}
	}
	mustGet(t, st, d, b)
	if n := len(listAll(t, st)); n != 1 {
		t.Fatalf("List after repeated Put: %d blobs, want 1", n)
	}
}

func (s *suite) testPutMismatch(t *testing.T) {
	st := s.newStore(t)
	b := Content(12, 4096)
	d := objects.Sum(b)
	wrong := bytes.Clone(b)
	wrong[2048] ^= 1
	cases := []struct {
		name string
		data []byte
		size int64
	}{
		{"WrongBytes", wrong, int64(len(wrong))},
		{"ReaderShorterThanSize", b[:len(b)-1], int64(len(b))},
		{"ReaderLongerThanSize", append(bytes.Clone(b), 'x'), int64(len(b))},
		{"SizeTooLarge", b, int64(len(b)) + 1},
		{"SizeTooSmall", b, int64(len(b)) - 1},
		{"Empty", nil, 0},
		{"EmptyReaderNonZeroSize", nil, int64(len(b))},
	}
	for _, c := range cases {
		err := st.Put(t.Context(), d, bytes.NewReader(c.data), c.size)
		if !errors.Is(err, objects.ErrDigestMismatch) {
			t.Fatalf("%s: Put = %v, want ErrDigestMismatch", c.name, err)
		}
		mustBeMissing(t, st, d)
	}
	// Bytes hashing to the empty digest but announced with a wrong size.
	if err := st.Put(t.Context(), objects.Sum(nil), bytes.NewReader(nil), 1); !errors.Is(err, objects.ErrDigestMismatch) {
		t.Fatalf("Put of the empty blob with size 1 = %v, want ErrDigestMismatch", err)
	}
	mustBeMissing(t, st, objects.Sum(nil))
	if n := len(listAll(t, st)); n != 0 {
		t.Fatalf("List after failed Puts: %d blobs, want 0", n)
	}

	// A failed Put over a stored blob leaves it intact.
	put(t, st, b)
	for _, c := range cases {
		if err := st.Put(t.Context(), d, bytes.NewReader(c.data), c.size); err != nil && !errors.Is(err, objects.ErrDigestMismatch) {
			t.Fatalf("%s over a stored blob: Put = %v, want nil or ErrDigestMismatch", c.name, err)
		}
		mustGet(t, st, d, b)
	}
}

var errReader = errors.New("objectstest: reader failed")

func (s *suite) testPutReaderError(t *testing.T) {
	st := s.newStore(t)
	b := Content(13, 100<<10)
	d := objects.Sum(b)
	r := io.MultiReader(bytes.NewReader(b[:50<<10]), iotest.ErrReader(errReader))
	if err := st.Put(t.Context(), d, r, int64(len(b))); err == nil {
		t.Fatalf("Put from a failing reader succeeded")
	}
	mustBeMissing(t, st, d)
}

func (s *suite) testStat(t *testing.T) {
	st := s.newStore(t)
	before := time.Now()
	b := Content(14, 777)
	d := put(t, st, b)
	info, err := st.Stat(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	if info.Digest != d || info.Size != 777 {
		t.Fatalf("Stat = {%s, %d}, want {%s, 777}", info.Digest.Short(), info.Size, d.Short())
	}
	// Clocks of remote stores may drift a little; an hour tells a real
	// store time from a zero or made-up one.
	if info.ModTime.IsZero() || info.ModTime.Before(before.Add(-time.Hour)) || info.ModTime.After(time.Now().Add(time.Hour)) {
		t.Fatalf("Stat ModTime = %v, want about %v", info.ModTime, before)
	}
}

func (s *suite) testDelete(t *testing.T) {
	st := s.newStore(t)
	keep := put(t, st, Content(15, 100))
	b := Content(16, 100)
	d := put(t, st, b)
	if err := st.Delete(t.Context(), d); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	mustBeMissing(t, st, d)
	if err := st.Delete(t.Context(), d); err != nil {
		t.Fatalf("Delete of a deleted blob: %v", err)
	}
	if err := st.Delete(t.Context(), objects.Sum([]byte("never stored"))); err != nil {
		t.Fatalf("Delete of a missing blob: %v", err)
	}
	mustGet(t, st, keep, Content(15, 100))
	put(t, st, b)
	mustGet(t, st, d, b)
	if n := len(listAll(t, st)); n != 2 {
		t.Fatalf("List after Delete and re-Put: %d blobs, want 2", n)
	}
}

func (s *suite) testList(t *testing.T) {
	st := s.newStore(t)
	if n := len(listAll(t, st)); n != 0 {
		t.Fatalf("List of a new store: %d blobs, want 0", n)
	}
	want := map[objects.Digest]int64{}
	for i := range 60 {
		b := Content(uint64(1000+i), i*37)
		want[put(t, st, b)] = int64(len(b))
	}
	got := listAll(t, st)
	if len(got) != len(want) {
		t.Fatalf("List: %d blobs, want %d", len(got), len(want))
	}
	for d, size := range want {
		info, ok := got[d]
		if !ok {
			t.Fatalf("List is missing %s", d.Short())
		}
		if info.Size != size || info.ModTime.IsZero() {
			t.Fatalf("List gave %s size %d, time %v; want size %d and a time", d.Short(), info.Size, info.ModTime, size)
		}
	}
}

func (s *suite) testListStops(t *testing.T) {
	st := s.newStore(t)
	for i := range 10 {
		put(t, st, Content(uint64(2000+i), 10))
	}
	stop := errors.New("stop here")
	calls := 0
	err := st.List(t.Context(), func(objects.Info) error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("List = %v, want the error fn returned", err)
	}
	if calls != 3 {
		t.Fatalf("List called fn %d times, want it to stop after the 3rd", calls)
	}
}

func (s *suite) testNotFound(t *testing.T) {
	st := s.newStore(t)
	put(t, st, Content(17, 10))
	missing := objects.Sum([]byte("missing"))
	for _, r := range []struct{ off, length int64 }{{0, -1}, {0, 5}, {3, 2}, {100, -1}} {
		rc, err := st.Open(t.Context(), missing, r.off, r.length)
		if err == nil {
			rc.Close()
		}
		if !errors.Is(err, objects.ErrNotFound) || errors.Is(err, objects.ErrCorrupt) {
			t.Fatalf("Open(missing, %d, %d) = %v, want ErrNotFound only", r.off, r.length, err)
		}
	}
	if _, err := st.Stat(t.Context(), missing); !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("Stat(missing) = %v, want ErrNotFound", err)
	}
	if _, err := objects.Get(t.Context(), st, missing); !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("Get(missing) = %v, want ErrNotFound", err)
	}
}

// testConcurrency has writers putting one shared blob and blobs of their
// own while readers read the shared blob: a reader sees either ErrNotFound
// or the exact bytes, never part of them.
func (s *suite) testConcurrency(t *testing.T) {
	st := s.newStore(t)
	ctx := t.Context()
	n := s.cfg.concurrency
	shared := Content(18, 64<<10)
	sd := objects.Sum(shared)
	var wg sync.WaitGroup
	errs := make(chan error, 4*n)
	done := make(chan struct{})
	var readers sync.WaitGroup
	for range n / 2 {
		readers.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				got, err := objects.Get(ctx, st, sd)
				switch {
				case errors.Is(err, objects.ErrNotFound):
				case err != nil:
					errs <- fmt.Errorf("reader: %w", err)
					return
				case !bytes.Equal(got, shared):
					errs <- fmt.Errorf("reader got %d bytes that differ from the shared blob", len(got))
					return
				}
			}
		})
	}
	own := make([][]byte, n)
	for i := range n {
		own[i] = Content(uint64(3000+i), 1000+i)
		wg.Go(func() {
			for j := range 4 {
				if err := st.Put(ctx, sd, bytes.NewReader(shared), int64(len(shared))); err != nil {
					errs <- fmt.Errorf("writer %d: Put shared: %w", i, err)
					return
				}
				if j == 0 {
					if _, err := objects.PutBytes(ctx, st, own[i]); err != nil {
						errs <- fmt.Errorf("writer %d: Put own: %w", i, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(done)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	mustGet(t, st, sd, shared)
	for _, b := range own {
		mustGet(t, st, objects.Sum(b), b)
	}
	if got := len(listAll(t, st)); got != n+1 {
		t.Fatalf("List after concurrent Puts: %d blobs, want %d", got, n+1)
	}
}

func (s *suite) tamper(t *testing.T, st objects.Store, d objects.Digest, content []byte) {
	t.Helper()
	var err error
	switch {
	case s.cfg.tamper != nil:
		err = s.cfg.tamper(t.Context(), st, d, content)
	case isTamperer(st):
		err = st.(Tamperer).Tamper(t.Context(), d, content)
	default:
		t.Fatalf("the store %T cannot be tampered with: implement objectstest.Tamperer or pass objectstest.WithTamper", st)
	}
	if err != nil {
		t.Fatalf("tampering with %s: %v", d.Short(), err)
	}
}

func isTamperer(st objects.Store) bool { _, ok := st.(Tamperer); return ok }

// testTampered damages stored blobs behind the store's back. Every whole
// read must then fail with ErrCorrupt; no read may return the damaged
// bytes as a complete, valid blob.
func (s *suite) testTampered(t *testing.T) {
	st := s.newStore(t)
	const size = 4096
	flip := func(b []byte) []byte { c := bytes.Clone(b); c[size/2] ^= 0x40; return c }
	damages := []struct {
		name string
		fn   func([]byte) []byte
	}{
		{"FlippedBit", flip},
		{"FlippedLastByte", func(b []byte) []byte { c := bytes.Clone(b); c[len(c)-1]++; return c }},
		{"Truncated", func(b []byte) []byte { return b[:size-100] }},
		{"TruncatedToEmpty", func([]byte) []byte { return nil }},
		{"Appended", func(b []byte) []byte { return append(bytes.Clone(b), "more"...) }},
		{"Replaced", func([]byte) []byte { return Content(99, size) }},
	}
	for i, dm := range damages {
		t.Run(dm.name, func(t *testing.T) {
			b := Content(uint64(4000+i), size)
			d := put(t, st, b)
			mustGet(t, st, d, b)
			s.tamper(t, st, d, dm.fn(b))
			for _, length := range []int64{-1, size, size + 1000} {
				rc, err := st.Open(t.Context(), d, 0, length)
				if err != nil {
					if !errors.Is(err, objects.ErrCorrupt) {
						t.Fatalf("Open(0, %d) of a damaged blob = %v, want ErrCorrupt (or success with ErrCorrupt on read)", length, err)
					}
					continue
				}
				got, err := io.ReadAll(rc)
				rc.Close()
				if length == size && err == nil && bytes.Equal(got, b) {
					// The stored blob grew, so (0, size) is a range of
					// it for the store, not a whole read; it gave the
					// right bytes, which is all a range read promises.
					continue
				}
				if !errors.Is(err, objects.ErrCorrupt) {
					t.Fatalf("whole read (0, %d) of a damaged blob: got %d bytes, err %v; want ErrCorrupt", length, len(got), err)
				}
			}
			if _, err := objects.Get(t.Context(), st, d); !errors.Is(err, objects.ErrCorrupt) {
				t.Fatalf("Get of a damaged blob = %v, want ErrCorrupt", err)
			}
		})
	}
}

// testRewriteHeals damages stored blobs and writes the same content again
// with objects.Rewrite: every read must then give the right bytes. A
// store whose Put checks the stored copy (Memory, the folder store) must
// heal through Put as well.
func (s *suite) testRewriteHeals(t *testing.T) {
	st := s.newStore(t)
	for i, size := range []int{0, 1, 4096, 300 << 10} {
		b := Content(uint64(6000+i), size)
		d := put(t, st, b)
		// A flipped byte keeps the size, which a store cannot tell from
		// a good copy without reading it.
		damaged := append(bytes.Clone(b), 'x')
		if size > 0 {
			damaged = bytes.Clone(b)
			damaged[size/2] ^= 0x20
		}
		s.tamper(t, st, d, damaged)
		if _, err := objects.Get(t.Context(), st, d); !errors.Is(err, objects.ErrCorrupt) {
			t.Fatalf("Get of a damaged %d-byte blob = %v, want ErrCorrupt", size, err)
		}
		if err := objects.Rewrite(t.Context(), st, d, bytes.NewReader(b), int64(len(b))); err != nil {
			t.Fatalf("Rewrite of a damaged %d-byte blob: %v", size, err)
		}
		mustGet(t, st, d, b)
		if info, err := st.Stat(t.Context(), d); err != nil || info.Size != int64(size) {
			t.Fatalf("Stat after Rewrite = %+v, %v; want size %d", info, err, size)
		}
		if _, ok := st.(objects.Rewriter); ok {
			continue
		}
		s.tamper(t, st, d, damaged)
		if err := st.Put(t.Context(), d, bytes.NewReader(b), int64(len(b))); err != nil {
			t.Fatalf("Put over a damaged %d-byte blob: %v", size, err)
		}
		mustGet(t, st, d, b)
	}
}

func (s *suite) testCancelled(t *testing.T) {
	st := s.newStore(t)
	b := Content(19, 1000)
	d := put(t, st, b)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	other := Content(20, 1000)
	od := objects.Sum(other)
	if err := st.Put(ctx, od, bytes.NewReader(other), int64(len(other))); !errors.Is(err, context.Canceled) {
		t.Fatalf("Put with a cancelled context = %v, want context.Canceled", err)
	}
	mustBeMissing(t, st, od)
	if rc, err := st.Open(ctx, d, 0, -1); !errors.Is(err, context.Canceled) {
		if err == nil {
			// Opening may be lazy, but reading must then fail.
			_, err = io.ReadAll(rc)
			rc.Close()
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Open with a cancelled context = %v, want context.Canceled", err)
		}
	}
	if _, err := st.Stat(ctx, d); !errors.Is(err, context.Canceled) {
		t.Fatalf("Stat with a cancelled context = %v, want context.Canceled", err)
	}
	if err := st.Delete(ctx, d); !errors.Is(err, context.Canceled) {
		t.Fatalf("Delete with a cancelled context = %v, want context.Canceled", err)
	}
	mustGet(t, st, d, b)
	if err := st.List(ctx, func(objects.Info) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("List with a cancelled context = %v, want context.Canceled", err)
	}
	// Cancelled while listing.
	for i := range 5 {
		put(t, st, Content(uint64(5000+i), 10))
	}
	ctx, cancel = context.WithCancel(t.Context())
	defer cancel()
	err := st.List(ctx, func(objects.Info) error { cancel(); return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("List cancelled by fn = %v, want context.Canceled", err)
	}
}

// cancellingReader cancels its context once it has handed out after bytes
// and keeps handing out the rest, like a slow client that hung up.
type cancellingReader struct {
	r      io.Reader
	after  int
	n      int
	cancel context.CancelFunc
}

func (c *cancellingReader) Read(p []byte) (int, error) {
	if c.n >= c.after {
		c.cancel()
	}
	if len(p) > 4096 {
		p = p[:4096]
	}
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func (s *suite) testCancelDuringPut(t *testing.T) {
	st := s.newStore(t)
	b := Content(21, s.cfg.largeSize)
	d := objects.Sum(b)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	r := &cancellingReader{r: bytes.NewReader(b), after: 64 << 10, cancel: cancel}
	if err := st.Put(ctx, d, r, int64(len(b))); !errors.Is(err, context.Canceled) {
		t.Fatalf("Put cancelled midway = %v, want context.Canceled", err)
	}
	mustBeMissing(t, st, d)
}

func (s *suite) testCancelDuringRead(t *testing.T) {
	st := s.newStore(t)
	b := Content(22, s.cfg.largeSize)
	d := put(t, st, b)
	for _, length := range []int64{-1, int64(len(b)) - 1} {
		ctx, cancel := context.WithCancel(t.Context())
		rc, err := st.Open(ctx, d, 0, length)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		buf := make([]byte, 100)
		if _, err := io.ReadFull(rc, buf); err != nil {
			cancel()
			t.Fatalf("first read: %v", err)
		}
		cancel()
		got, err := io.ReadAll(rc)
		rc.Close()
		if err == nil {
			t.Fatalf("read after cancel (length %d): got the remaining %d bytes and no error", length, len(got))
		}
	}
}

// Fuzz is the body of a fuzz target of Put and Open:
//
//	func FuzzPutOpen(f *testing.F) { objectstest.Fuzz(f, newStore(f)) }
//
// Each input puts data, reads it back whole and at the range (off,
// length), and checks that a Put of the same digest with altered bytes or
// size fails. The store is shared by all inputs.
func Fuzz(f *testing.F, st objects.Store) {
	f.Add([]byte(""), int64(0), int64(-1), uint16(0))
	f.Add([]byte("a"), int64(0), int64(1), uint16(1))
	f.Add([]byte("hello, world"), int64(3), int64(4), uint16(5))
	f.Add([]byte("hello, world"), int64(12), int64(4), uint16(100))
	f.Add(Content(1, 5000), int64(4000), int64(2000), uint16(4999))
	f.Fuzz(func(t *testing.T, data []byte, off, length int64, flip uint16) {
		ctx := t.Context()
		d, err := objects.PutBytes(ctx, st, data)
		if err != nil {
			t.Fatalf("Put of %d bytes: %v", len(data), err)
		}
		got, err := objects.Get(ctx, st, d)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("Get: %d bytes, %v; want %d bytes", len(got), err, len(data))
		}
		rc, err := st.Open(ctx, d, off, length)
		if off < 0 {
			if err == nil {
				rc.Close()
				t.Fatalf("Open with negative offset %d succeeded", off)
			}
		} else {
			if err != nil {
				t.Fatalf("Open(%d, %d): %v", off, length, err)
			}
			got, err := io.ReadAll(rc)
			rc.Close()
			want := data[min(off, int64(len(data))):]
			if length >= 0 && length < int64(len(want)) {
				want = want[:length]
			}
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("Open(%d, %d): %d bytes, %v; want %d bytes", off, length, len(got), err, len(want))
			}
		}
		// Altered content under a digest must be refused. A store may
		// accept a Put of a stored digest without reading it, so test
		// against a digest that is not stored (earlier inputs share st).
		fresh := append(bytes.Clone(data), byte(flip), 'f', 'u', 'z', 'z')
		fd := objects.Sum(fresh)
		if _, err := st.Stat(ctx, fd); err == nil {
			return
		}
		altered := bytes.Clone(fresh)
		altered[int(flip)%len(altered)] ^= 1
		if err := st.Put(ctx, fd, bytes.NewReader(altered), int64(len(altered))); !errors.Is(err, objects.ErrDigestMismatch) {
			t.Fatalf("Put of altered bytes = %v, want ErrDigestMismatch", err)
		}
		if err := st.Put(ctx, fd, bytes.NewReader(fresh), int64(len(fresh))+1); !errors.Is(err, objects.ErrDigestMismatch) {
			t.Fatalf("Put with a wrong size = %v, want ErrDigestMismatch", err)
		}
		if _, err := st.Stat(ctx, fd); !errors.Is(err, objects.ErrNotFound) {
			t.Fatalf("Stat after refused Puts = %v, want ErrNotFound", err)
		}
	})
}
