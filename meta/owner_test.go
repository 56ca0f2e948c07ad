package meta

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta/kv"
	"github.com/wsfs/wsfs/objects"
)

// TestOwnershipAndTakeover: servers that joined one etcd commit to a
// workspace one at a time. The first to commit takes it; another's commit
// is refused naming the owner; when the owner dies (its lease expires,
// nothing revoked) another server takes the workspace and commits, the
// dead owner's late commit is fenced off, and no committed revision is
// lost. On bbolt (one process) Join is a no-op.
func TestOwnershipAndTakeover(t *testing.T) {
	ctx := context.Background()
	store := objects.NewMemory()
	a := openTestDB(t, store)
	ma, err := a.Join(ctx, ServerInfo{ID: "server-a", Addr: "10.0.0.1:8080"}, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if testCluster == nil {
		if ma != nil {
			t.Fatal("Join on bbolt returned a membership")
		}
		return
	}
	// b is another server: its own engine on the same records.
	b := sameRecords(t, a, store)
	mb, err := b.Join(ctx, ServerInfo{ID: "server-b"}, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer mb.Leave()
	servers, err := b.Servers(ctx)
	if err != nil || len(servers) != 2 {
		t.Fatalf("servers: %+v %v", servers, err)
	}

	w := mustCreate(t, a, "own/w")
	r := mustCommit(t, a, w.Name, w.Head, PutBytes("f", []byte("a1"), 0, t0))
	if owner, ok, err := b.Owner(ctx, w.Name); err != nil || !ok || owner.ID != "server-a" {
		t.Fatalf("owner after a's commit: %+v %v %v", owner, ok, err)
	}
	_, _, err = b.Commit(ctx, w.Name, r.N, Change{Ops: []Op{PutBytes("f", []byte("b1"), 0, t0)}})
	if !errors.Is(err, ErrNotOwner) || !strings.Contains(err.Error(), "server-a") || !strings.Contains(err.Error(), "10.0.0.1:8080") {
		t.Fatalf("b's commit to a's workspace: %v", err)
	}

	// a dies: its lease is not renewed, nor revoked.
	ma.Die()
	died := time.Now()
	var took time.Duration
	for {
		err := mb.Own(ctx, w.Name)
		if err == nil {
			took = time.Since(died)
			break
		}
		if !errors.Is(err, ErrNotOwner) {
			t.Fatal(err)
		}
		if time.Since(died) > time.Minute {
			t.Fatal("b could not take the workspace a minute after a died")
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("b took the workspace %v after a died (lease 2s)", took)
	r2 := mustCommit(t, b, w.Name, r.N, PutBytes("f", []byte("b2"), 0, t0))

	// a was only stalled: a commit it still makes with its old lease is
	// fenced off (it is stale here too, so check the fence on a's fresh
	// base).
	a.member.Store(ma)
	_, _, err = a.Commit(ctx, w.Name, r2.N, Change{Ops: []Op{PutBytes("f", []byte("a-late"), 0, t0)}})
	if !errors.Is(err, ErrNotOwner) {
		t.Fatalf("the dead owner's late commit: %v, want ErrNotOwner", err)
	}
	a.member.Store(nil)
	log, err := b.Log(ctx, w.Name, LogOptions{})
	if err != nil || len(log) != 3 || log[0].N != r2.N || readFile(t, b, Ref{Workspace: w.Name}, "f") != "b2" {
		t.Fatalf("history after the takeover: %d revisions, %v", len(log), err)
	}
	// Leaving frees the workspace at once.
	if err := mb.Leave(); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := a.Owner(ctx, w.Name); err != nil || ok {
		t.Fatalf("owner after b left: %v %v", ok, err)
	}
}

// TestHoldsAcrossServers: an object one server's commit holds (it reuses
// it without storing it again) is not deleted by another server's gc,
// though nothing reaches it; the commit then lands whole, and holds go
// away with later gcs.
func TestHoldsAcrossServers(t *testing.T) {
	ctx := context.Background()
	store := objects.NewMemory()
	a := openTestDB(t, store)
	if !a.sharedHolds() {
		return // one process: the gc guard alone (gc_test.go)
	}
	b := sameRecords(t, a, store)
	w, err := a.Create(ctx, "hold/w", CreateOptions{Retention: Retention{KeepLast: 1}})
	if err != nil {
		t.Fatal(err)
	}
	content := []byte("reused content")
	r := mustCommit(t, a, w.Name, w.Head, PutBytes("f", content, 0, t0))
	r = mustCommit(t, a, w.Name, r.N, Remove("f"))
	g := objects.Sum(content)
	// b's commit holds g (as it does when it finds g in the index).
	epoch, err := b.placeHolds(ctx, []objects.Digest{g})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := a.GC(ctx, GCOptions{Delete: true, Grace: -1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Skipped == 0 {
		t.Fatalf("gc skipped nothing while g was held: %+v", rep)
	}
	if _, err := objects.Get(ctx, a.Store(), g); err != nil {
		t.Fatalf("the held object is gone: %v", err)
	}
	r2, ok, err := b.Commit(ctx, w.Name, r.N, Change{Ops: []Op{PutBytes("again", content, 0, t0)}})
	if err != nil || !ok {
		t.Fatalf("b's commit reusing the held object: %v %v", ok, err)
	}
	b.dropHolds(ctx, []objects.Digest{g}, epoch) // a gc ran: they stay
	for range 3 {
		if _, err := a.GC(ctx, GCOptions{Delete: true, Grace: -1}); err != nil {
			t.Fatal(err)
		}
	}
	if got := readFile(t, a, Ref{Workspace: w.Name, Rev: r2.N}, "again"); got != string(content) {
		t.Fatalf("the reused file reads %q", got)
	}
	var left int
	a.view(ctx, func(tx kv.Reader) error {
		return tx.Scan(bucketHolds, kv.ScanOptions{}, func(k, v []byte) error { left++; return nil })
	})
	if left != 0 {
		t.Fatalf("%d holds left after three gcs", left)
	}
	if rep, err := a.Fsck(ctx, FsckOptions{}); err != nil || !rep.OK() {
		t.Fatalf("fsck: %v %+v", err, rep)
	}
}
