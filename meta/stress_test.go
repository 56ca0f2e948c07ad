package meta

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/wsfs/wsfs/objects"
)

// TestConcurrentCommitsRestoresForksAndGC runs commits on several
// workspaces, restores, forks and GC with no grace period at the same
// time. Afterwards every revision still retained must read completely and
// fsck must be clean: GC never takes what a commit in flight relies on.
func TestConcurrentCommitsRestoresForksAndGC(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, objects.NewMemory())
	const workers = 3
	for i := 0; i < workers; i++ {
		mustCreate(t, db, fmt.Sprintf("acme/w%d", i))
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	report := func(err error) {
		select {
		case errs <- err:
		default:
		}
	}
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := fmt.Sprintf("acme/w%d", i)
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			for n := 0; n < 40; n++ {
				w, err := db.Get(ctx, ws)
				if err != nil {
					report(err)
					return
				}
				p := fmt.Sprintf("d%d/f%d", rng.IntN(3), rng.IntN(4))
				ops := []Op{PutBytes(p, []byte(fmt.Sprintf("%s %d %d", ws, n, rng.IntN(3))), 0, time.Time{})}
				if rng.IntN(4) == 0 {
					ops = append(ops, Remove(fmt.Sprintf("d%d", rng.IntN(3))))
				}
				_, _, err = db.Commit(ctx, ws, w.Head, Change{Ops: ops})
				if err != nil && !errors.Is(err, ErrStale) {
					report(err)
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() { // restores and forks race the commits
		defer wg.Done()
		rng := rand.New(rand.NewPCG(7, 7))
		for n := 0; n < 30; n++ {
			ws := fmt.Sprintf("acme/w%d", rng.IntN(workers))
			w, err := db.Get(ctx, ws)
			if err != nil {
				report(err)
				return
			}
			ref := Ref{ws, RevNum(1 + rng.IntN(int(w.Head)))}
			if n%3 == 0 {
				if _, err := db.Fork(ctx, ref, fmt.Sprintf("fork/f%d", n), CreateOptions{}); err != nil && !errors.Is(err, ErrStale) {
					report(err)
					return
				}
				continue
			}
			if _, _, err := db.Restore(ctx, ref, CommitInfo{}); err != nil && !errors.Is(err, ErrStale) {
				report(err)
				return
			}
		}
	}()
	var gcs sync.WaitGroup
	gcs.Add(1)
	go func() {
		defer gcs.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := db.GC(ctx, GCOptions{Delete: true, Grace: time.Nanosecond}); err != nil && !errors.Is(err, ErrGCRunning) {
				report(err)
				return
			}
		}
	}()
	wg.Wait()
	close(stop)
	gcs.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	ws, _ := db.List(ctx, "")
	revs := 0
	for _, w := range ws {
		for n := w.Oldest; n <= w.Head; n++ {
			r, err := db.Show(ctx, Ref{w.Name, n})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.flatten(ctx, r.Root); err != nil {
				t.Fatalf("%s@%d: %v", w.Name, n, err)
			}
			revs++
		}
	}
	if rep, err := db.Fsck(ctx, FsckOptions{}); err != nil || !rep.OK() {
		t.Fatalf("fsck: %v %+v", err, rep)
	}
	t.Logf("%d workspaces, %d revisions intact", len(ws), revs)
}

// TestConcurrentCommitsAndRepackingGC races commits of several files on
// workspaces that keep their last 3 revisions against GC with no grace
// period, so packs become garbage, or mostly garbage and repacked, while
// commits find their objects stored in them. Every retained revision must
// read completely afterwards, and fsck must be clean.
func TestConcurrentCommitsAndRepackingGC(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, objects.NewMemory())
	const workers = 3
	for i := 0; i < workers; i++ {
		if _, err := db.Create(ctx, fmt.Sprintf("acme/w%d", i), CreateOptions{Retention: Retention{KeepLast: 3}}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := 0; i < workers; i++ {
		wg.Go(func() {
			ws := fmt.Sprintf("acme/w%d", i)
			rng := rand.New(rand.NewPCG(uint64(i), 2))
			for n := 0; n < 60; n++ {
				w, err := db.Get(ctx, ws)
				if err != nil {
					errs <- err
					return
				}
				var ops []Op
				for f := range 1 + rng.IntN(8) {
					// Contents repeat across commits and workspaces, so
					// commits often find them already stored in a pack.
					ops = append(ops, PutBytes(fmt.Sprintf("d%d/f%d", f%3, f), []byte(fmt.Sprintf("content %d", rng.IntN(40))), 0, time.Time{}))
				}
				if rng.IntN(3) == 0 {
					ops = append(ops, Remove(fmt.Sprintf("d%d", rng.IntN(3))))
				}
				if _, _, err := db.Commit(ctx, ws, w.Head, Change{Ops: ops}); err != nil && !errors.Is(err, ErrStale) {
					errs <- err
					return
				}
			}
		})
	}
	stop := make(chan struct{})
	var gcs sync.WaitGroup
	var repacked, deleted int
	gcs.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			rep, err := db.GC(ctx, GCOptions{Delete: true, Grace: time.Nanosecond})
			if err != nil && !errors.Is(err, ErrGCRunning) {
				errs <- err
				return
			}
			if rep != nil {
				repacked += rep.Repacked
				deleted += rep.Deleted
			}
		}
	})
	wg.Wait()
	close(stop)
	gcs.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	ws, _ := db.List(ctx, "")
	for _, w := range ws {
		for n := w.Oldest; n <= w.Head; n++ {
			r, err := db.Show(ctx, Ref{w.Name, n})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.flatten(ctx, r.Root); err != nil {
				t.Fatalf("%s@%d: %v", w.Name, n, err)
			}
		}
	}
	if rep, err := db.Fsck(ctx, FsckOptions{}); err != nil || !rep.OK() {
		t.Fatalf("fsck: %v %+v", err, rep)
	}
	if deleted == 0 {
		t.Fatal("gc deleted nothing: the test did not race what it means to")
	}
	t.Logf("gc deleted %d blobs and repacked %d packs while commits ran", deleted, repacked)
}
