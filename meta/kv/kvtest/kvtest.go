// Package kvtest is the conformance suite of kv.Engine: every engine
// (bbolt, etcd, the in-memory one) runs it, so that meta can rely on one
// behaviour whichever engine holds its records.
package kvtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta/kv"
)

// Run runs the suite; open returns a new, empty engine for each test (the
// suite closes it).
func Run(t *testing.T, open func(t *testing.T) kv.Engine) {
	tests := []struct {
		name string
		fn   func(t *testing.T, e kv.Engine)
	}{
		{"GetPut", testGetPut},
		{"Buckets", testBuckets},
		{"Scan", testScan},
		{"Delete", testDelete},
		{"ReadYourWrites", testReadYourWrites},
		{"ErrorWritesNothing", testErrorWritesNothing},
		{"Snapshot", testSnapshot},
		{"Counter", testCounter},
		{"ScanConflict", testScanConflict},
		{"Limits", testLimits},
		{"Empty", testEmpty},
		{"BigValue", testBigValue},
		{"Watch", testWatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := open(t)
			defer e.Close()
			tc.fn(t, e)
		})
	}
}

var ctx = context.Background()

func put(t *testing.T, e kv.Engine, b kv.Bucket, kvs ...string) {
	t.Helper()
	err := e.Update(ctx, func(tx kv.Txn) error {
		for i := 0; i+1 < len(kvs); i += 2 {
			if err := tx.Put(b, []byte(kvs[i]), []byte(kvs[i+1])); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("put in %s: %v", b, err)
	}
}

func get(t *testing.T, e kv.Engine, b kv.Bucket, k string) []byte {
	t.Helper()
	var v []byte
	err := e.View(ctx, func(tx kv.Reader) error {
		got, err := tx.Get(b, []byte(k))
		v = bytes.Clone(got)
		if got != nil && v == nil {
			v = []byte{}
		}
		return err
	})
	if err != nil {
		t.Fatalf("get %s %q: %v", b, k, err)
	}
	return v
}

// scan returns "k=v" for each record visited.
func scan(t *testing.T, r kv.Reader, b kv.Bucket, opts kv.ScanOptions) []string {
	t.Helper()
	var out []string
	if err := r.Scan(b, opts, func(k, v []byte) error {
		out = append(out, string(k)+"="+string(v))
		return nil
	}); err != nil {
		t.Fatalf("scan %s: %v", b, err)
	}
	return out
}

func scanView(t *testing.T, e kv.Engine, b kv.Bucket, opts kv.ScanOptions) []string {
	t.Helper()
	var out []string
	if err := e.View(ctx, func(tx kv.Reader) error { out = scan(t, tx, b, opts); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func same(a []string, b ...string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func testGetPut(t *testing.T, e kv.Engine) {
	b := kv.B("things")
	if v := get(t, e, b, "a"); v != nil {
		t.Fatalf("missing key: %q, want nil", v)
	}
	put(t, e, b, "a", "1", "empty", "")
	if v := get(t, e, b, "a"); string(v) != "1" {
		t.Fatalf("get a: %q", v)
	}
	if v := get(t, e, b, "empty"); v == nil || len(v) != 0 {
		t.Fatalf("an empty value reads as %#v, want a non-nil empty slice", v)
	}
	put(t, e, b, "a", "2")
	if v := get(t, e, b, "a"); string(v) != "2" {
		t.Fatalf("overwritten a: %q", v)
	}
	// Keys are bytes: '/' and 0xff inside a key are nothing special.
	bin := string([]byte{'/', 0xff, 0, '/', 'x'})
	put(t, e, b, bin, "bin")
	if v := get(t, e, b, bin); string(v) != "bin" {
		t.Fatalf("binary key: %q", v)
	}
	if v := get(t, e, kv.B("other"), "a"); v != nil {
		t.Fatalf("a key of another bucket: %q", v)
	}
}

func testBuckets(t *testing.T, e kv.Engine) {
	put(t, e, kv.B("rev", "ab"), "1", "x", "2", "y")
	put(t, e, kv.B("rev", "abc"), "1", "z")
	put(t, e, kv.B("rev", "a"), "1", "w")
	if got := scanView(t, e, kv.B("rev", "ab"), kv.ScanOptions{}); !same(got, "1=x", "2=y") {
		t.Fatalf("bucket rev/ab holds %q: a bucket whose name starts the same leaked in", got)
	}
	if got := scanView(t, e, kv.B("rev", "none"), kv.ScanOptions{}); len(got) != 0 {
		t.Fatalf("a missing bucket scans as %q", got)
	}
	err := e.Update(ctx, func(tx kv.Txn) error { return tx.DeleteRange(kv.B("rev", "ab"), nil, nil) })
	if err != nil {
		t.Fatal(err)
	}
	if got := scanView(t, e, kv.B("rev", "ab"), kv.ScanOptions{}); len(got) != 0 {
		t.Fatalf("deleted bucket still holds %q", got)
	}
	if got := scanView(t, e, kv.B("rev", "abc"), kv.ScanOptions{}); !same(got, "1=z") {
		t.Fatalf("deleting rev/ab touched rev/abc: %q", got)
	}
	if got := scanView(t, e, kv.B("rev", "a"), kv.ScanOptions{}); !same(got, "1=w") {
		t.Fatalf("deleting rev/ab touched rev/a: %q", got)
	}
	// Deleting a bucket removes the buckets under it.
	if err := e.Update(ctx, func(tx kv.Txn) error { return tx.DeleteRange(kv.B("rev"), nil, nil) }); err != nil {
		t.Fatal(err)
	}
	if v := get(t, e, kv.B("rev", "abc"), "1"); v != nil {
		t.Fatalf("a bucket under a deleted one survived: %q", v)
	}
	if err := e.Update(ctx, func(tx kv.Txn) error { return tx.Put(kv.B("bad/name"), []byte("k"), []byte("v")) }); err == nil {
		t.Fatal("a bucket name with '/' was accepted")
	}
	if err := e.Update(ctx, func(tx kv.Txn) error { return tx.Put(kv.B(""), []byte("k"), []byte("v")) }); err == nil {
		t.Fatal("an empty bucket name was accepted")
	}
}

func testScan(t *testing.T, e kv.Engine) {
	b := kv.B("s")
	put(t, e, b, "a", "1", "b", "2", "c", "3", "d", "4", "e", "5")
	cases := []struct {
		opts kv.ScanOptions
		want []string
	}{
		{kv.ScanOptions{}, []string{"a=1", "b=2", "c=3", "d=4", "e=5"}},
		{kv.ScanOptions{From: []byte("b")}, []string{"b=2", "c=3", "d=4", "e=5"}},
		{kv.ScanOptions{From: []byte("bb"), To: []byte("d")}, []string{"c=3"}},
		{kv.ScanOptions{To: []byte("c")}, []string{"a=1", "b=2"}},
		{kv.ScanOptions{Limit: 2}, []string{"a=1", "b=2"}},
		{kv.ScanOptions{Reverse: true}, []string{"e=5", "d=4", "c=3", "b=2", "a=1"}},
		{kv.ScanOptions{Reverse: true, Limit: 1}, []string{"e=5"}},
		{kv.ScanOptions{Reverse: true, From: []byte("b"), To: []byte("d")}, []string{"c=3", "b=2"}},
		{kv.ScanOptions{Reverse: true, To: []byte("cc")}, []string{"c=3", "b=2", "a=1"}},
		{kv.ScanOptions{Reverse: true, To: []byte("zz")}, []string{"e=5", "d=4", "c=3", "b=2", "a=1"}},
		{kv.ScanOptions{From: []byte("x")}, nil},
	}
	for _, c := range cases {
		if got := scanView(t, e, b, c.opts); !same(got, c.want...) {
			t.Errorf("scan %+v: %q, want %q", c.opts, got, c.want)
		}
	}
	// ErrStop ends a scan without error; another error ends it with that.
	var n int
	err := e.View(ctx, func(tx kv.Reader) error {
		return tx.Scan(b, kv.ScanOptions{}, func(k, v []byte) error {
			if n++; n == 2 {
				return kv.ErrStop
			}
			return nil
		})
	})
	if err != nil || n != 2 {
		t.Fatalf("ErrStop: %v after %d records", err, n)
	}
	boom := errors.New("boom")
	err = e.View(ctx, func(tx kv.Reader) error {
		return tx.Scan(b, kv.ScanOptions{}, func(k, v []byte) error { return boom })
	})
	if !errors.Is(err, boom) {
		t.Fatalf("an error from the scan's function: %v", err)
	}
	// More records than an engine's page, written in transactions the
	// engine takes.
	many := kv.B("many")
	step := 500
	if ops := e.Limits().Ops; ops > 0 {
		step = min(step, ops)
	}
	for i := 0; i < 2500; i += step {
		err := e.Update(ctx, func(tx kv.Txn) error {
			for j := i; j < min(i+step, 2500); j++ {
				if err := tx.Put(many, fmt.Appendf(nil, "%05d", j), []byte("v")); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	got := scanView(t, e, many, kv.ScanOptions{})
	if len(got) != 2500 || got[0] != "00000=v" || got[2499] != "02499=v" {
		t.Fatalf("scan of 2500 records: %d, first %q", len(got), got[:min(1, len(got))])
	}
	for i := 1; i < len(got); i++ {
		if got[i-1] >= got[i] {
			t.Fatalf("scan out of order at %d: %q then %q", i, got[i-1], got[i])
		}
	}
	rev := scanView(t, e, many, kv.ScanOptions{Reverse: true, Limit: 1200})
	if len(rev) != 1200 || rev[0] != "02499=v" || rev[1199] != "01300=v" {
		t.Fatalf("reverse scan of 1200 of 2500: %d, %q … %q", len(rev), rev[0], rev[len(rev)-1])
	}
}

func testDelete(t *testing.T, e kv.Engine) {
	b := kv.B("d")
	put(t, e, b, "a", "1", "b", "2", "c", "3", "d", "4", "e", "5")
	err := e.Update(ctx, func(tx kv.Txn) error {
		if err := tx.Delete(b, []byte("a")); err != nil {
			return err
		}
		if err := tx.Delete(b, []byte("missing")); err != nil {
			return err
		}
		return tx.DeleteRange(b, []byte("b"), []byte("d"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := scanView(t, e, b, kv.ScanOptions{}); !same(got, "d=4", "e=5") {
		t.Fatalf("after deletes: %q", got)
	}
	if err := e.Update(ctx, func(tx kv.Txn) error { return tx.DeleteRange(b, []byte("e"), nil) }); err != nil {
		t.Fatal(err)
	}
	if got := scanView(t, e, b, kv.ScanOptions{}); !same(got, "d=4") {
		t.Fatalf("after deleting from e on: %q", got)
	}
	if err := e.Update(ctx, func(tx kv.Txn) error { return tx.DeleteRange(b, nil, []byte("e")) }); err != nil {
		t.Fatal(err)
	}
	if got := scanView(t, e, b, kv.ScanOptions{}); len(got) != 0 {
		t.Fatalf("after deleting up to e: %q", got)
	}
}

func testReadYourWrites(t *testing.T, e kv.Engine) {
	b := kv.B("ryw")
	put(t, e, b, "a", "1", "b", "2", "c", "3")
	err := e.Update(ctx, func(tx kv.Txn) error {
		if err := tx.Put(b, []byte("a"), []byte("10")); err != nil {
			return err
		}
		if err := tx.Delete(b, []byte("b")); err != nil {
			return err
		}
		if err := tx.Put(b, []byte("bb"), []byte("new")); err != nil {
			return err
		}
		if v, err := tx.Get(b, []byte("a")); err != nil || string(v) != "10" {
			return fmt.Errorf("get after put: %q %v", v, err)
		}
		if v, err := tx.Get(b, []byte("b")); err != nil || v != nil {
			return fmt.Errorf("get after delete: %q %v", v, err)
		}
		if got := scan(t, tx, b, kv.ScanOptions{}); !same(got, "a=10", "bb=new", "c=3") {
			return fmt.Errorf("scan after writes: %q", got)
		}
		if got := scan(t, tx, b, kv.ScanOptions{Reverse: true, Limit: 2}); !same(got, "c=3", "bb=new") {
			return fmt.Errorf("reverse scan after writes: %q", got)
		}
		if err := tx.DeleteRange(b, nil, nil); err != nil {
			return err
		}
		if got := scan(t, tx, b, kv.ScanOptions{}); len(got) != 0 {
			return fmt.Errorf("scan after deleting the bucket: %q", got)
		}
		return tx.Put(b, []byte("z"), []byte("last"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := scanView(t, e, b, kv.ScanOptions{}); !same(got, "z=last") {
		t.Fatalf("after the transaction: %q", got)
	}
}

func testErrorWritesNothing(t *testing.T, e kv.Engine) {
	b := kv.B("abort")
	put(t, e, b, "a", "1")
	boom := errors.New("boom")
	err := e.Update(ctx, func(tx kv.Txn) error {
		tx.Put(b, []byte("a"), []byte("2"))
		tx.Put(b, []byte("b"), []byte("2"))
		tx.DeleteRange(b, nil, nil)
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("update returned %v, want the function's error", err)
	}
	if got := scanView(t, e, b, kv.ScanOptions{}); !same(got, "a=1") {
		t.Fatalf("an aborted transaction wrote: %q", got)
	}
}

func testSnapshot(t *testing.T, e kv.Engine) {
	b := kv.B("snap")
	// Room first: a bbolt writer that must grow its file waits for every
	// reader to end, and this test writes while a view is open.
	filler := bytes.Repeat([]byte("f"), 64<<10)
	for i := range 16 {
		put(t, e, kv.B("filler"), fmt.Sprint(i), string(filler))
	}
	if err := e.Update(ctx, func(tx kv.Txn) error { return tx.DeleteRange(kv.B("filler"), nil, nil) }); err != nil {
		t.Fatal(err)
	}
	put(t, e, b, "a", "1", "b", "1")
	err := e.View(ctx, func(tx kv.Reader) error {
		v1, err := tx.Get(b, []byte("a"))
		if err != nil {
			return err
		}
		first := string(v1)
		done := make(chan error, 1)
		go func() {
			done <- e.Update(ctx, func(tx kv.Txn) error {
				if err := tx.Put(b, []byte("a"), []byte("2")); err != nil {
					return err
				}
				return tx.Put(b, []byte("b"), []byte("2"))
			})
		}()
		if err := <-done; err != nil {
			return err
		}
		v2, err := tx.Get(b, []byte("b"))
		if err != nil {
			return err
		}
		if first != "1" || string(v2) != "1" {
			return fmt.Errorf("a view saw a, b = %q, %q: not one snapshot", first, v2)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if v := get(t, e, b, "b"); string(v) != "2" {
		t.Fatalf("after the view: b = %q", v)
	}
}

// testCounter: read-modify-write transactions from many goroutines lose
// no increment.
func testCounter(t *testing.T, e kv.Engine) {
	b := kv.B("counter")
	const workers, each = 4, 15
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				err := e.Update(ctx, func(tx kv.Txn) error {
					v, err := tx.Get(b, []byte("n"))
					if err != nil {
						return err
					}
					var n int
					if v != nil {
						fmt.Sscan(string(v), &n)
					}
					return tx.Put(b, []byte("n"), fmt.Append(nil, n+1))
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if v := get(t, e, b, "n"); string(v) != fmt.Sprint(workers*each) {
		t.Fatalf("counter = %q after %d increments", v, workers*each)
	}
}

// testScanConflict: a transaction that counts a bucket's records with a
// scan and adds one keyed by the count never overwrites another's.
func testScanConflict(t *testing.T, e kv.Engine) {
	b := kv.B("seq")
	const workers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				err := e.Update(ctx, func(tx kv.Txn) error {
					n := 0
					if err := tx.Scan(b, kv.ScanOptions{}, func(k, v []byte) error { n++; return nil }); err != nil {
						return err
					}
					return tx.Put(b, fmt.Appendf(nil, "%04d", n), fmt.Append(nil, w))
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := scanView(t, e, b, kv.ScanOptions{}); len(got) != workers*each {
		t.Fatalf("%d records after %d appends: scans did not conflict", len(got), workers*each)
	}
}

func testLimits(t *testing.T, e kv.Engine) {
	lim := e.Limits()
	if lim.Ops == 0 && lim.Bytes == 0 {
		if !lim.Fits(1<<20, 1<<30) {
			t.Fatal("no limits, but Fits refuses")
		}
		return
	}
	b := kv.B("lim")
	if lim.Ops > 0 {
		err := e.Update(ctx, func(tx kv.Txn) error {
			for i := range lim.Ops + 1 {
				if err := tx.Put(b, fmt.Appendf(nil, "%06d", i), []byte("v")); err != nil {
					return err
				}
			}
			return nil
		})
		if !errors.Is(err, kv.ErrTooLarge) {
			t.Fatalf("%d writes, over the limit of %d: %v, want ErrTooLarge", lim.Ops+1, lim.Ops, err)
		}
		err = e.Update(ctx, func(tx kv.Txn) error {
			for i := range lim.Ops {
				if err := tx.Put(b, fmt.Appendf(nil, "%06d", i), []byte("v")); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%d writes, at the limit: %v", lim.Ops, err)
		}
	}
	if lim.Bytes > 0 {
		big := bytes.Repeat([]byte("x"), lim.Bytes/2+1)
		err := e.Update(ctx, func(tx kv.Txn) error {
			tx.Put(b, []byte("big1"), big)
			return tx.Put(b, []byte("big2"), big)
		})
		if !errors.Is(err, kv.ErrTooLarge) {
			t.Fatalf("%d bytes, over the limit of %d: %v, want ErrTooLarge", 2*len(big), lim.Bytes, err)
		}
		if v := get(t, e, b, "big1"); v != nil {
			t.Fatal("a refused transaction wrote")
		}
	}
}

func testEmpty(t *testing.T, e kv.Engine) {
	empty, err := e.Empty(ctx)
	if err != nil || !empty {
		t.Fatalf("a new engine: empty %v, %v", empty, err)
	}
	put(t, e, kv.B("x", "y"), "k", "v")
	if empty, err := e.Empty(ctx); err != nil || empty {
		t.Fatalf("after a write: empty %v, %v", empty, err)
	}
	if e.String() == "" {
		t.Fatal("String names nothing")
	}
}

func testBigValue(t *testing.T, e kv.Engine) {
	size := 512 << 10
	if b := e.Limits().Bytes; b > 0 {
		size = min(size, b/2)
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	b := kv.B("big")
	err := e.Update(ctx, func(tx kv.Txn) error { return tx.Put(b, []byte("v"), big) })
	if err != nil {
		t.Fatal(err)
	}
	if v := get(t, e, b, "v"); !bytes.Equal(v, big) {
		t.Fatalf("a %d-byte value read back as %d bytes", len(big), len(v))
	}
}

// testWatch: a Watcher reports every change of the bucket made after Watch
// returned, in order, with the values before and after; nothing of other
// buckets.
func testWatch(t *testing.T, e kv.Engine) {
	w, ok := e.(kv.Watcher)
	if !ok {
		t.Skip("the engine has no watch (one process owns it)")
	}
	b := kv.B("watched")
	put(t, e, b, "before", "0")
	wctx, cancel := context.WithCancel(ctx)
	changes := make(chan *kv.Change, 100)
	done, err := w.Watch(wctx, b, func(c *kv.Change) { changes <- c })
	if err != nil {
		t.Fatal(err)
	}
	put(t, e, b, "k", "1")
	put(t, e, kv.B("other"), "k", "x")
	put(t, e, kv.B("watched2"), "k", "x")
	put(t, e, b, "k", "2")
	if err := e.Update(ctx, func(tx kv.Txn) error { return tx.Delete(b, []byte("k")) }); err != nil {
		t.Fatal(err)
	}
	want := []string{"k: <nil> -> 1", "k: 1 -> 2", "k: 2 -> <nil>"}
	for i, w := range want {
		select {
		case c := <-changes:
			if c == nil {
				t.Fatalf("change %d: nil (history lost) on a quiet engine", i)
			}
			got := fmt.Sprintf("%s: %s -> %s", c.Key, show(c.Prev), show(c.Value))
			if got != w {
				t.Fatalf("change %d: %s, want %s", i, got, w)
			}
		case <-time.After(time.Minute):
			t.Fatalf("change %d (%s) never came", i, w)
		}
	}
	cancel()
	<-done
	select {
	case c := <-changes:
		t.Fatalf("an extra change: %+v", c)
	default:
	}
}

func show(v []byte) string {
	if v == nil {
		return "<nil>"
	}
	return string(v)
}
