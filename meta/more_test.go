package meta

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/wsfs/wsfs/objects"
)

// gatedList is a store whose List waits until released, so a test can
// commit while GC runs.
type gatedList struct {
	*objects.Memory
	once    sync.Once
	listing chan struct{} // closed when the first List starts
	release chan struct{}
}

func (g *gatedList) List(ctx context.Context, fn func(objects.Info) error) error {
	g.once.Do(func() {
		close(g.listing)
		<-g.release
	})
	return g.Memory.List(ctx, fn)
}

// TestGCSparesBlobsOfConcurrentCommits: a commit that starts using an old,
// unreferenced blob while GC runs keeps it.
func TestGCSparesBlobsOfConcurrentCommits(t *testing.T) {
	ctx := context.Background()
	mem := objects.NewMemory()
	store := &gatedList{Memory: mem, listing: make(chan struct{}), release: make(chan struct{})}
	db := openTestDB(t, store)
	w := mustCreate(t, db, "acme/a")
	content := []byte("old garbage that a commit revives")
	d, _ := objects.PutBytes(ctx, mem, content)
	old := time.Now().Add(-24 * time.Hour)
	mem.List(ctx, func(i objects.Info) error { return mem.SetModTime(i.Digest, old) })

	var rep *GCReport
	var gcErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		rep, gcErr = db.GC(ctx, GCOptions{Delete: true})
	}()
	<-store.listing // GC has marked; the blob is not reachable yet
	// The commit names the blob without uploading it (no source).
	mustCommit(t, db, w.Name, 1, PutFile("revived", d, int64(len(content)), 0, t0, nil))
	close(store.release)
	wg.Wait()
	if gcErr != nil {
		t.Fatal(gcErr)
	}
	if rep.Skipped != 1 {
		t.Fatalf("gc report %+v, want the revived blob skipped", rep)
	}
	if got := readFile(t, db, Ref{Workspace: w.Name}, "revived"); got != string(content) {
		t.Fatalf("revived = %q", got)
	}
	fr, err := db.Fsck(ctx, FsckOptions{})
	if err != nil || !fr.OK() {
		t.Fatalf("fsck: %v %+v", err, fr)
	}
}

func TestRestorePinnedRevisionDropped(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, nil)
	w := mustCreate(t, db, "acme/a")
	r2 := mustCommit(t, db, w.Name, 1, PutBytes("a", []byte("a"), 0, t0))
	_, _, err := db.commitTree(ctx, w.Name, 2, EmptyTreeDigest, "", CommitInfo{}, &revPin{wsID: w.ID, name: w.Name, n: 99}, nil)
	if !errors.Is(err, ErrStale) {
		t.Fatalf("commit pinned to a missing revision: %v", err)
	}
	if got, _ := db.Get(ctx, w.Name); got.Head != r2.N {
		t.Fatalf("head moved to %d", got.Head)
	}
}

func TestRetentionByAge(t *testing.T) {
	ctx := context.Background()
	now := t0
	db, err := Open(ctx, filepath.Join(t.TempDir(), DBFileName), objects.NewMemory(), Options{NoSync: true, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w, err := db.Create(ctx, "acme/a", CreateOptions{Retention: Retention{KeepFor: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		now = now.Add(30 * time.Minute)
		mustCommit(t, db, w.Name, RevNum(i+1), PutBytes("f", []byte{byte(i)}, 0, t0))
	}
	// Revisions at t0 (1), +30m (2), +60m (3), +90m (4), +120m (5): now is
	// +120m, so 1 to 3 are at least an hour old; 4 and 5 stay.
	got, _ := db.Get(ctx, w.Name)
	if got.Oldest != 4 || got.Head != 5 {
		t.Fatalf("oldest %d head %d, want 4 and 5", got.Oldest, got.Head)
	}
	// Time passes without commits: GC's prune drops by age, never the head.
	now = now.Add(24 * time.Hour)
	if _, err := db.GC(ctx, GCOptions{Delete: true}); err != nil {
		t.Fatal(err)
	}
	got, _ = db.Get(ctx, w.Name)
	if got.Oldest != 5 || got.Head != 5 {
		t.Fatalf("after a day: oldest %d head %d, want 5 and 5", got.Oldest, got.Head)
	}
	log, _ := db.Log(ctx, w.Name, LogOptions{})
	if len(log) != 1 || log[0].N != 5 {
		t.Fatalf("log %+v", log)
	}
}

func TestForkCopiesNoBlobs(t *testing.T) {
	ctx := context.Background()
	mem := objects.NewMemory()
	db := openTestDB(t, mem)
	w := mustCreate(t, db, "acme/a")
	mustCommit(t, db, w.Name, 1, PutBytes("a/b", bytes.Repeat([]byte("x"), 1000), 0, t0))
	before := mem.Len()
	f, err := db.Fork(ctx, Ref{Workspace: w.Name}, "other/b", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// One pack of a settings object and a manifest, nothing else.
	if mem.Len() != before+1 {
		t.Fatalf("fork added %d blobs, want 1 (a pack)", mem.Len()-before)
	}
	if f.ForkedFrom != "acme/a@2" || f.Head != 1 || f.Usage.Files != 1 {
		t.Fatalf("fork %+v", f)
	}
	mustCommit(t, db, f.Name, 1, Remove("a"))
	if got := readFile(t, db, Ref{Workspace: w.Name}, "a/b"); len(got) != 1000 {
		t.Fatal("the fork's commit changed the source")
	}
}

func TestSubscribe(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, nil)
	var events []Event
	cancel := db.Subscribe(func(e Event) { events = append(events, e) })
	w := mustCreate(t, db, "acme/a")
	r := mustCommit(t, db, w.Name, 1, PutBytes("a", []byte("a"), 0, t0))
	db.Restore(ctx, Ref{w.Name, 1}, CommitInfo{})
	q := DefaultQuotas()
	q.MaxEntries = 7
	db.Update(ctx, w.Name, WorkspaceUpdate{Quotas: &q})
	db.Delete(ctx, w.Name)
	cancel()
	mustCreate(t, db, "acme/b")
	kinds := []EventKind{EventCreate, EventCommit, EventCommit, EventUpdate, EventDelete}
	if len(events) != len(kinds) {
		t.Fatalf("events %+v", events)
	}
	for i, k := range kinds {
		if events[i].Kind != k {
			t.Fatalf("event %d is %s, want %s", i, events[i].Kind, k)
		}
	}
	if events[1].Workspace.HeadRoot != r.Root || events[2].Workspace.HeadRoot != EmptyTreeDigest || events[3].Workspace.Quotas.MaxEntries != 7 {
		t.Fatalf("events carry the wrong records: %+v", events)
	}
}

func TestFsckFindsDamage(t *testing.T) {
	ctx := context.Background()
	mem := objects.NewMemory()
	db := openTestDB(t, mem)
	w := mustCreate(t, db, "acme/a")
	// Single blobs, as a store written before packs holds them.
	r := mustCommit(t, db, w.Name, 1, putSingle(t, mem, "a", []byte("same size")), putSingle(t, mem, "d/b", []byte("gone")), putSingle(t, mem, "c", []byte("short")))
	orphan, _ := objects.PutBytes(ctx, mem, []byte("nobody's"))
	mem.Tamper(ctx, objects.Sum([]byte("same size")), []byte("SAME SIZE"))
	mem.Tamper(ctx, objects.Sum([]byte("short")), []byte("s"))
	mem.Delete(ctx, objects.Sum([]byte("gone")))

	quick, err := db.Fsck(ctx, FsckOptions{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	full, err := db.Fsck(ctx, FsckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kinds := func(rep *FsckReport) map[string]string {
		m := map[string]string{}
		for _, p := range rep.Problems {
			m[p.Path] = p.Kind
		}
		return m
	}
	if k := kinds(quick); len(k) != 2 || k["d/b"] != "blob-missing" || k["c"] != "blob-size" {
		t.Fatalf("quick fsck problems %+v", quick.Problems)
	}
	if k := kinds(full); len(k) != 3 || k["a"] != "blob-corrupt" || k["d/b"] != "blob-missing" || k["c"] != "blob-size" {
		t.Fatalf("full fsck problems %+v", full.Problems)
	}
	if len(full.Orphans) != 1 || full.Orphans[0].Digest != orphan {
		t.Fatalf("orphans %+v", full.Orphans)
	}
	// A damaged tree is reported too.
	sub, _ := db.LookupTree(ctx, r.Root, "d")
	flipObject(t, db, mem, sub.Digest) // in the commit's pack
	db.trees = newTreeCache(16)        // forget the cached copy
	full, _ = db.Fsck(ctx, FsckOptions{})
	if kinds(full)["d"] != "tree" {
		t.Fatalf("damaged tree not found: %+v", full.Problems)
	}
	if _, _, err := db.OpenFile(ctx, Ref{Workspace: w.Name}, "a"); err == nil {
		rc, _, _ := db.OpenFile(ctx, Ref{Workspace: w.Name}, "a")
		if _, err := io.ReadAll(rc); !errors.Is(err, objects.ErrCorrupt) {
			t.Fatalf("reading a corrupt blob: %v", err)
		}
	}
}

// TestRecoverByteForByte: every file of every revision of every workspace
// reads the same after meta.db is deleted and recovered, including a name
// that was deleted and re-created and a revision whose commit lost a race.
func TestRecoverByteForByte(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store, err := objects.OpenDir(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, DBFileName)
	db, err := Open(ctx, path, store, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, db, "acme/a")
	mustCommit(t, db, "acme/a", 1, PutBytes("x", []byte("first life"), 0, t0))
	if err := db.Delete(ctx, "acme/a"); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, db, "acme/a")
	mustCommit(t, db, "acme/a", 1, PutBytes("x", []byte("second life"), 0, t0), Symlink("l", "x", t0))
	mustCommit(t, db, "acme/a", 2, PutBytes("d/e/f", []byte("deep"), 0o700, t0), Mkdir("empty", 0, t0))
	db.Restore(ctx, Ref{"acme/a", 2}, CommitInfo{Author: "ops"})
	db.Fork(ctx, Ref{"acme/a", 3}, "acme/b", CreateOptions{})
	mustCommit(t, db, "acme/b", 1, Rename("d", "moved"))
	// A losing commit on a stale base writes nothing that recover uses.
	db.Commit(ctx, "acme/b", 1, Change{Ops: []Op{PutBytes("loser", []byte("lost"), 0, t0)}})
	q := DefaultQuotas()
	q.MaxFileBytes = 1000
	db.Update(ctx, "acme/b", WorkspaceUpdate{Quotas: &q})

	type snap struct {
		rev  Revision
		tree snapshot
	}
	want := map[string][]snap{}
	wantWS, _ := db.List(ctx, "")
	for _, w := range wantWS {
		log, _ := db.Log(ctx, w.Name, LogOptions{Limit: 100})
		for _, r := range log {
			s, err := db.flatten(ctx, r.Root)
			if err != nil {
				t.Fatal(err)
			}
			want[w.Name] = append(want[w.Name], snap{r, s})
		}
	}
	db.Close()
	if err := removeFile(path); err != nil {
		t.Fatal(err)
	}
	store2, _ := objects.OpenDir(filepath.Join(dir, "store"))
	if _, err := Recover(ctx, path, store2, RecoverOptions{}); err != nil {
		t.Fatal(err)
	}
	db, err = Open(ctx, path, store2, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	gotWS, _ := db.List(ctx, "")
	if len(gotWS) != len(wantWS) {
		t.Fatalf("recovered %d workspaces, want %d", len(gotWS), len(wantWS))
	}
	for i := range gotWS {
		g, w := gotWS[i], wantWS[i]
		if g.Name != w.Name || g.ID != w.ID || g.Head != w.Head || g.HeadRoot != w.HeadRoot || g.Quotas != w.Quotas || g.ForkedFrom != w.ForkedFrom {
			t.Fatalf("workspace %s: got %+v, want %+v", w.Name, g, w)
		}
	}
	for name, snaps := range want {
		for _, s := range snaps {
			r, err := db.Show(ctx, Ref{name, s.rev.N})
			if err != nil {
				t.Fatal(err)
			}
			if r.Root != s.rev.Root || r.Manifest != s.rev.Manifest || r.Command != s.rev.Command {
				t.Fatalf("%s@%d: got %+v, want %+v", name, s.rev.N, r, s.rev)
			}
			tree, err := db.flatten(ctx, r.Root)
			if err != nil {
				t.Fatal(err)
			}
			if len(tree) != len(s.tree) {
				t.Fatalf("%s@%d: %v, want %v", name, r.N, sorted(tree), sorted(s.tree))
			}
			for p, v := range s.tree {
				if tree[p] != v {
					t.Fatalf("%s@%d %s: %q, want %q", name, r.N, p, tree[p], v)
				}
			}
		}
	}
	fr, err := db.Fsck(ctx, FsckOptions{})
	if err != nil || !fr.OK() {
		t.Fatalf("fsck: %v %+v", err, fr)
	}
}

func TestHoldSparesBlobs(t *testing.T) {
	ctx := context.Background()
	mem := objects.NewMemory()
	db := openTestDB(t, mem)
	mustCreate(t, db, "acme/a")
	held, _ := objects.PutBytes(ctx, mem, []byte("held"))
	free, _ := objects.PutBytes(ctx, mem, []byte("free"))
	old := time.Now().Add(-24 * time.Hour)
	mem.SetModTime(held, old)
	mem.SetModTime(free, old)
	release := db.Hold(held)
	rep, err := db.GC(ctx, GCOptions{Delete: true})
	if err != nil || rep.Skipped != 1 || rep.Deleted != 1 {
		t.Fatalf("gc: %v %+v", err, rep)
	}
	if _, err := mem.Stat(ctx, held); err != nil {
		t.Fatalf("held blob: %v", err)
	}
	release()
	release()
	if _, err := db.GC(ctx, GCOptions{Delete: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Stat(ctx, held); !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("released blob: %v", err)
	}
}
