package meta

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wsfs/wsfs/objects"
)

func TestGCKeepsReachableAndYoung(t *testing.T) {
	ctx := context.Background()
	store := objects.NewMemory()
	db := openTestDB(t, store)
	w := mustCreate(t, db, "acme/a")
	r2 := mustCommit(t, db, w.Name, 1, PutBytes("keep.txt", []byte("keep"), 0, t0), PutBytes("drop.txt", []byte("drop"), 0, t0))
	mustCommit(t, db, w.Name, 2, Remove("drop.txt"))
	w2 := mustCreate(t, db, "acme/gone")
	mustCommit(t, db, w2.Name, 1, PutBytes("x", []byte("only in gone"), 0, t0))
	if err := db.Delete(ctx, w2.Name); err != nil {
		t.Fatal(err)
	}
	stray, _ := objects.PutBytes(ctx, store, []byte("young stray"))

	// Everything is young: nothing is garbage.
	rep, err := db.GC(ctx, GCOptions{Delete: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Deleted != 0 || len(rep.Garbage) != 0 || rep.Young == 0 {
		t.Fatalf("young run: %+v", rep)
	}
	// Age everything, keep the stray young.
	old := time.Now().Add(-2 * time.Hour)
	store.List(ctx, func(i objects.Info) error {
		if i.Digest != stray {
			store.SetModTime(i.Digest, old)
		}
		return nil
	})
	// Dry run deletes nothing.
	before := store.Len()
	rep, err = db.GC(ctx, GCOptions{})
	if err != nil || !rep.DryRun || store.Len() != before || len(rep.Garbage) == 0 {
		t.Fatalf("dry run: %v %+v", err, rep)
	}
	rep, err = db.GC(ctx, GCOptions{Delete: true})
	if err != nil || rep.Deleted == 0 {
		t.Fatalf("gc: %v %+v", err, rep)
	}
	// The revision with drop.txt is retained (keep all), so drop.txt stays;
	// the deleted workspace's file goes.
	if got := readFile(t, db, Ref{w.Name, r2.N}, "drop.txt"); got != "drop" {
		t.Fatalf("drop.txt = %q", got)
	}
	if _, err := store.Stat(ctx, objects.Sum([]byte("only in gone"))); !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("blob of deleted workspace: %v", err)
	}
	if _, err := store.Stat(ctx, stray); err != nil {
		t.Fatalf("young stray deleted: %v", err)
	}
	fr, err := db.Fsck(ctx, FsckOptions{})
	if err != nil || !fr.OK() {
		t.Fatalf("fsck after gc: %v %+v", err, fr)
	}
	// Retention: keep the last revision only; the old file becomes garbage.
	one := Retention{KeepLast: 1}
	if _, err := db.Update(ctx, w.Name, WorkspaceUpdate{Retention: &one}); err != nil {
		t.Fatal(err)
	}
	store.List(ctx, func(i objects.Info) error { store.SetModTime(i.Digest, old); return nil })
	if _, err := db.GC(ctx, GCOptions{Delete: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Stat(ctx, objects.Sum([]byte("drop"))); !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("blob of dropped revision: %v", err)
	}
	if _, err := db.Show(ctx, Ref{w.Name, 2}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("dropped revision: %v", err)
	}
	if got := readFile(t, db, Ref{Workspace: w.Name}, "keep.txt"); got != "keep" {
		t.Fatalf("keep.txt = %q", got)
	}
	fr, err = db.Fsck(ctx, FsckOptions{})
	if err != nil || !fr.OK() {
		t.Fatalf("fsck after retention gc: %v %+v", err, fr)
	}
}

// failingList is a store whose List fails after a few blobs.
type failingList struct {
	*objects.Memory
	after int
}

func (f failingList) List(ctx context.Context, fn func(objects.Info) error) error {
	n := 0
	return errors.Join(f.Memory.List(ctx, func(i objects.Info) error {
		if n == f.after {
			return errors.New("listing broke")
		}
		n++
		return fn(i)
	}))
}

func TestGCStopsOnListingError(t *testing.T) {
	ctx := context.Background()
	mem := objects.NewMemory()
	db := openTestDB(t, failingList{mem, 3})
	w := mustCreate(t, db, "acme/a")
	for i := 0; i < 5; i++ {
		objects.PutBytes(ctx, mem, []byte{byte(i)})
	}
	mustCommit(t, db, w.Name, 1, PutBytes("f", []byte("x"), 0, t0))
	mem.List(ctx, func(i objects.Info) error { mem.SetModTime(i.Digest, time.Now().Add(-48*time.Hour)); return nil })
	before := mem.Len()
	if _, err := db.GC(ctx, GCOptions{Delete: true, Grace: time.Minute}); err == nil {
		t.Fatal("gc with a broken listing succeeded")
	}
	if mem.Len() != before {
		t.Fatalf("gc deleted %d blobs despite the listing error", before-mem.Len())
	}
}

func TestRecoverRebuildsEverything(t *testing.T) {
	ctx := context.Background()
	store := objects.NewMemory()
	dir := t.TempDir()
	path := filepath.Join(dir, DBFileName)
	db, err := Open(ctx, path, store, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, db, "acme/a")
	mustCommit(t, db, "acme/a", 1, PutBytes("a.txt", []byte("one"), 0, t0), Symlink("l", "a.txt", t0))
	mustCommit(t, db, "acme/a", 2, PutBytes("d/b.txt", []byte("two"), 0o600, t0))
	q := DefaultQuotas()
	q.MaxEntries = 500
	if _, err := db.Update(ctx, "acme/a", WorkspaceUpdate{Quotas: &q}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Fork(ctx, Ref{"acme/a", 3}, "acme/b", CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, db, "acme/gone")
	if err := db.Delete(ctx, "acme/gone"); err != nil {
		t.Fatal(err)
	}
	wantWS, _ := db.List(ctx, "")
	wantLogs := map[string][]Revision{}
	for _, w := range wantWS {
		wantLogs[w.Name], _ = db.Log(ctx, w.Name, LogOptions{Limit: 1000})
	}
	db.Close()

	if _, err := Recover(ctx, path, store, RecoverOptions{}); err == nil {
		t.Fatal("recover over an existing database succeeded")
	}
	if err := removeFile(path); err != nil {
		t.Fatal(err)
	}
	rep, err := Recover(ctx, path, store, RecoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep.Workspaces, []string{"acme/a", "acme/b"}) {
		t.Fatalf("recovered %+v", rep)
	}
	db, err = Open(ctx, path, store, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	gotWS, _ := db.List(ctx, "")
	if !reflect.DeepEqual(normWS(gotWS), normWS(wantWS)) {
		t.Fatalf("workspaces:\n got %+v\nwant %+v", gotWS, wantWS)
	}
	for name, want := range wantLogs {
		got, err := db.Log(ctx, name, LogOptions{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(normRevs(got), normRevs(want)) {
			t.Fatalf("log of %s:\n got %+v\nwant %+v", name, got, want)
		}
	}
	if got := readFile(t, db, Ref{"acme/b", 1}, "d/b.txt"); got != "two" {
		t.Fatalf("fork content %q", got)
	}
	fr, err := db.Fsck(ctx, FsckOptions{})
	if err != nil || !fr.OK() {
		t.Fatalf("fsck after recover: %v %+v", err, fr)
	}
}

// normWS and normRevs drop what JSON round trips change (time zones).
func normWS(ws []Workspace) []Workspace {
	out := append([]Workspace(nil), ws...)
	for i := range out {
		out[i].Created = out[i].Created.UTC().Round(0)
		out[i].Updated = out[i].Updated.UTC().Round(0)
	}
	return out
}

func normRevs(rs []Revision) []Revision {
	out := append([]Revision(nil), rs...)
	for i := range out {
		out[i].Time = out[i].Time.UTC().Round(0)
	}
	return out
}

func TestGCStopsOnReadError(t *testing.T) {
	ctx := context.Background()
	mem := objects.NewMemory()
	db := openTestDB(t, mem)
	w := mustCreate(t, db, "acme/a")
	r := mustCommit(t, db, w.Name, 1, PutBytes("d/f", []byte("x"), 0, t0))
	objects.PutBytes(ctx, mem, []byte("garbage"))
	mem.List(ctx, func(i objects.Info) error { return mem.SetModTime(i.Digest, time.Now().Add(-48*time.Hour)) })
	sub, _ := db.LookupTree(ctx, r.Root, "d")
	flipObject(t, db, mem, sub.Digest) // inside the commit's pack
	db.trees = newTreeCache(16)
	before := mem.Len()
	_, err := db.GC(ctx, GCOptions{Delete: true})
	if err == nil || !strings.Contains(err.Error(), "nothing was deleted") || !strings.Contains(err.Error(), "fsck") {
		t.Fatalf("gc with a damaged tree: %v", err)
	}
	if mem.Len() != before {
		t.Fatal("gc deleted blobs after a read error")
	}
}

func TestRecoverSkipsRevisionsWithoutTrees(t *testing.T) {
	ctx := context.Background()
	store := objects.NewMemory()
	path := filepath.Join(t.TempDir(), DBFileName)
	db, err := Open(ctx, path, store, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, db, "acme/a")
	r2 := mustCommit(t, db, "acme/a", 1, PutBytes("a", []byte("a"), 0, t0))
	mustCommit(t, db, "acme/a", 2, PutBytes("b", []byte("b"), 0, t0))
	db.Close()
	// Revision 2's root tree is damaged in its pack (the manifest is not).
	db, err = Open(ctx, path, store, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	flipObject(t, db, store, r2.Root)
	db.Close()
	removeFile(path)
	rep, err := Recover(ctx, path, store, RecoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Skipped) != 2 || !strings.Contains(rep.Skipped[0], "is damaged") || !strings.Contains(rep.Skipped[1], "history starts at 3") {
		t.Fatalf("report %+v", rep)
	}
	db, err = Open(ctx, path, store, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w, _ := db.Get(ctx, "acme/a")
	if w.Oldest != 3 || w.Head != 3 {
		t.Fatalf("oldest %d head %d", w.Oldest, w.Head)
	}
	if fr, err := db.Fsck(ctx, FsckOptions{}); err != nil || !fr.OK() {
		t.Fatalf("fsck: %v %+v", err, fr)
	}
}

// recordingStore remembers the order of deletes: the kind of each single
// blob deleted, and of each pack the most important kind it holds
// (manifest, then settings, then tree, then contents).
type recordingStore struct {
	*objects.Memory
	mu      sync.Mutex
	deleted []objectKind
	times   []time.Time
}

func (r *recordingStore) Delete(ctx context.Context, d objects.Digest) error {
	b, _ := objects.Get(ctx, r.Memory, d)
	info, _ := r.Memory.Stat(ctx, d)
	k := classify(b)
	if k == objPack {
		idx, _ := objects.DecodePack(b)
		k = objOther
		for _, e := range idx.Entries {
			if ek := tagKind(e.Tag); kindRank(ek) < kindRank(k) {
				k = ek
			}
		}
	}
	r.mu.Lock()
	r.deleted = append(r.deleted, k)
	r.times = append(r.times, info.ModTime)
	r.mu.Unlock()
	return r.Memory.Delete(ctx, d)
}

// TestGCDeletesManifestsFirst: what holds manifests goes first, newest
// first, then trees, then contents, for packs and for the single blobs of
// a store written before packs.
func TestGCDeletesManifestsFirst(t *testing.T) {
	ctx := context.Background()
	rs := &recordingStore{Memory: objects.NewMemory()}
	db := openTestDB(t, rs)
	w, _ := db.Create(ctx, "acme/a", CreateOptions{Retention: Retention{KeepLast: 1}})
	for i := 0; i < 5; i++ {
		op := PutBytes(fmt.Sprintf("d%d/f", i), []byte{byte(i)}, 0, t0)
		if i%2 == 1 {
			op = putSingle(t, rs.Memory, fmt.Sprintf("d%d/f", i), []byte{byte(i)})
		}
		mustCommit(t, db, w.Name, RevNum(i+1), op, Remove(fmt.Sprintf("d%d", i-1)))
	}
	// Metadata objects of the old format, as single blobs: a manifest and
	// a tree that nothing names.
	objects.PutBytes(ctx, rs.Memory, append([]byte(magicRevision), "{}"...))
	objects.PutBytes(ctx, rs.Memory, encodeTree(&Tree{Entries: []Entry{{Name: "x", Kind: KindSymlink, Target: "y"}}}))
	i := 0
	rs.List(ctx, func(info objects.Info) error {
		i++
		return rs.SetModTime(info.Digest, time.Now().Add(-2*time.Hour-time.Duration(i)*time.Minute))
	})
	rep, err := db.GC(ctx, GCOptions{Delete: true})
	if err != nil || rep.Deleted == 0 {
		t.Fatalf("gc: %v %+v", err, rep)
	}
	seen := map[objectKind]bool{}
	for i := 1; i < len(rs.deleted); i++ {
		a, b := kindRank(rs.deleted[i-1]), kindRank(rs.deleted[i])
		if b < a || a == b && rs.times[i].After(rs.times[i-1]) {
			t.Fatalf("delete order %v (times %v)", rs.deleted, rs.times)
		}
		seen[rs.deleted[i]] = true
	}
	if !seen[objTree] || !seen[objOther] {
		t.Fatalf("expected trees and contents among the deleted: %v", rs.deleted)
	}
}
