package meta

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta/kv"

	"github.com/wsfs/wsfs/objects"
)

// requestCounter is a store that counts the requests made to it, as a
// remote store would bill them. It is not Local, so meta trusts what it
// stores as it trusts S3.
type requestCounter struct {
	objects.Store
	mu    sync.Mutex
	calls map[string]int
}

func newRequestCounter(s objects.Store) *requestCounter {
	return &requestCounter{Store: s, calls: map[string]int{}}
}

func (c *requestCounter) count(op string) {
	c.mu.Lock()
	c.calls[op]++
	c.mu.Unlock()
}

func (c *requestCounter) reset() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	got := c.calls
	c.calls = map[string]int{}
	return got
}

func (c *requestCounter) Put(ctx context.Context, d objects.Digest, r io.Reader, size int64) error {
	c.count("put")
	return c.Store.Put(ctx, d, r, size)
}

func (c *requestCounter) Open(ctx context.Context, d objects.Digest, off, length int64) (io.ReadCloser, error) {
	c.count("open")

	return c.Store.Open(ctx, d, off, length)
}

func (c *requestCounter) Stat(ctx context.Context, d objects.Digest) (objects.Info, error) {
	c.count("stat")
	return c.Store.Stat(ctx, d)
}

func (c *requestCounter) Delete(ctx context.Context, d objects.Digest) error {
	c.count("delete")
	return c.Store.Delete(ctx, d)
}

func total(calls map[string]int) int {
	n := 0
	for _, v := range calls {
		n += v
	}
	return n
}

func bigQuotas() *Quotas {
	q := DefaultQuotas()
	q.MaxEntries = 100_000
	q.MaxFileBytes = 4 << 20
	q.MaxWorkspaceBytes = 1 << 30
	return &q
}

// TestCommitRequests counts what each operation asks of the store: small
// objects go up in one pack, large ones in one conditional write each,
// and nothing is looked up that the object index knows.
func TestCommitRequests(t *testing.T) {
	ctx := context.Background()
	rc := newRequestCounter(objects.NewMemory())
	db := openTestDB(t, rc)
	w, err := db.Create(ctx, "acme/a", CreateOptions{Quotas: bigQuotas()})
	if err != nil {
		t.Fatal(err)
	}
	if got := rc.reset(); total(got) != 1 || got["put"] != 1 {
		t.Fatalf("create: %v, want one put (a pack of the empty tree, settings and manifest)", got)
	}
	files := func(n int, tag string) []Op {
		var ops []Op
		for i := range n {
			ops = append(ops, PutBytes(fmt.Sprintf("d%d/f%04d.txt", i%10, i), []byte(fmt.Sprintf("%s file %d\n", tag, i)), 0, t0))
		}
		return ops
	}
	head := w.Head
	for _, c := range []struct {
		name string
		ops  []Op
		want map[string]int
	}{
		{"one file", files(1, "a"), map[string]int{"put": 1}},
		{"100 files", files(100, "b"), map[string]int{"put": 1}},
		{"1,000 files", files(1000, "c"), map[string]int{"put": 1}},
		{"the same 100 contents elsewhere", func() []Op {
			ops := files(100, "b")
			for i := range ops {
				ops[i].Path = "copy/" + ops[i].Path
			}
			return ops
		}(), map[string]int{"put": 1}},
		{"a large file and 10 small", append(files(10, "e"), PutBytes("big", bytes.Repeat([]byte("x"), objects.PackThreshold), 0, t0)), map[string]int{"put": 2}},
		{"a rename", []Op{Rename("big", "big2")}, map[string]int{"put": 1}},
	} {
		rc.reset()
		r := mustCommit(t, db, w.Name, head, c.ops...)
		head = r.N
		if got := rc.reset(); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: requests %v, want %v", c.name, got, c.want)
		}
	}
	if _, err := db.Update(ctx, w.Name, WorkspaceUpdate{Retention: &Retention{KeepLast: 100}}); err != nil {
		t.Fatal(err)
	}
	if got := rc.reset(); fmt.Sprint(got) != "map[put:1]" {
		t.Errorf("update: %v, want one put", got)
	}
	if _, _, err := db.Restore(ctx, Ref{w.Name, 2}, CommitInfo{}); err != nil {
		t.Fatal(err)
	}
	if got := rc.reset(); fmt.Sprint(got) != "map[put:1]" {
		t.Errorf("restore: %v, want one put (the manifest's pack)", got)
	}
	if _, err := db.Fork(ctx, Ref{w.Name, 3}, "acme/b", CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := rc.reset(); fmt.Sprint(got) != "map[put:1]" {
		t.Errorf("fork: %v, want one put", got)
	}
	if err := db.Delete(ctx, "acme/b"); err != nil {
		t.Fatal(err)
	}
	if got := rc.reset(); fmt.Sprint(got) != "map[put:1]" {
		t.Errorf("delete: %v, want one put (the tombstone)", got)
	}
	if rep, err := db.Fsck(ctx, FsckOptions{}); err != nil || !rep.OK() {
		t.Fatalf("fsck: %v %+v", err, rep)
	}
}

// TestCommitBatch commits trees and files built in a batch: one upload,
// only what the tree names, and the batch's trees readable before.
func TestCommitBatch(t *testing.T) {
	ctx := context.Background()
	rc := newRequestCounter(objects.NewMemory())
	db := openTestDB(t, rc)
	w := mustCreate(t, db, "acme/a")
	b := db.NewBatch()
	var subEntries []Entry
	for i := range 50 {
		content := []byte(fmt.Sprintf("file %d", i))
		d := objects.Sum(content)
		b.PutBlob(d, int64(len(content)), func(context.Context) (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader(content)), nil
		})
		subEntries = append(subEntries, FileEntry(fmt.Sprintf("f%02d", i), 0o644, t0, d, int64(len(content))))
	}
	unused := []byte("added to the batch, named by no tree")
	b.PutBlob(objects.Sum(unused), int64(len(unused)), func(context.Context) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(unused)), nil
	})
	sub := &Tree{Entries: subEntries}
	sd, err := b.WriteTree(ctx, sub)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := db.ReadTree(ctx, sd); err != nil || len(got.Entries) != 50 {
		t.Fatalf("a batch's tree before the commit: %v", err)
	}
	root, err := b.WriteTree(ctx, &Tree{Entries: []Entry{DirEntry("src", 0o755, t0, sd, sub)}})
	if err != nil {
		t.Fatal(err)
	}
	// A tree naming a subtree that is neither stored nor in the batch.
	if _, err := b.WriteTree(ctx, &Tree{Entries: []Entry{DirEntry("x", 0o755, t0, objects.Sum([]byte("nowhere")), &Tree{})}}); err == nil {
		t.Fatal("WriteTree accepted a subdirectory that does not exist")
	}
	rc.reset()
	r, ok, err := db.CommitBatch(ctx, w.Name, 1, b, root, "/src", CommitInfo{Command: "batch"})
	if err != nil || !ok {
		t.Fatal(err, ok)
	}
	if got := rc.reset(); fmt.Sprint(got) != "map[put:1]" {
		t.Errorf("CommitBatch of 50 files and 2 trees: %v, want one put", got)
	}
	if _, err := objects.Get(ctx, db.Store(), objects.Sum(unused)); !errors.Is(err, objects.ErrNotFound) {
		t.Errorf("an object of the batch no tree names was stored: %v", err)
	}
	if got := readFile(t, db, Ref{w.Name, r.N}, "src/f07"); got != "file 7" {
		t.Fatalf("src/f07 = %q", got)
	}
	if _, ok := db.pending.get(sd); ok {
		t.Error("the batch's trees are still pending after the commit")
	}
	// A batch whose root names a file that is neither stored nor in it.
	b2 := db.NewBatch()
	missing := objects.Sum([]byte("missing"))
	root2, err := b2.WriteTree(ctx, &Tree{Entries: []Entry{FileEntry("m", 0o644, t0, missing, 7)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.CommitBatch(ctx, w.Name, r.N, b2, root2, "", CommitInfo{}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "not in the object store") {
		t.Fatalf("a commit naming a missing blob: %v", err)
	}
}

// TestWriteSameContentHeals damages an object (in a pack, then a large
// single blob), then writes the same content again: the new revision and
// the old one read well again.
func TestWriteSameContentHeals(t *testing.T) {
	ctx := context.Background()
	mem := objects.NewMemory()
	db := openTestDB(t, mem)
	w, err := db.Create(ctx, "acme/a", CreateOptions{Quotas: bigQuotas()})
	if err != nil {
		t.Fatal(err)
	}
	small := []byte("a,b\n1,2\n")
	large := bytes.Repeat([]byte("0123456789abcdef"), objects.PackThreshold/16+1)
	r := mustCommit(t, db, w.Name, 1, PutBytes("data.csv", small, 0, t0), PutBytes("big.bin", large, 0, t0))
	for _, c := range []struct {
		name    string
		content []byte
	}{{"data.csv", small}, {"big.bin", large}} {
		flipObject(t, db, mem, objects.Sum(c.content))
		// Not read since: the store's copy is checked before it is trusted.
		r = mustCommit(t, db, w.Name, r.N, PutBytes("again-"+c.name, c.content, 0, t0))
		for _, p := range []string{c.name, "again-" + c.name} {
			if got := readFile(t, db, Ref{w.Name, r.N}, p); got != string(c.content) {
				t.Fatalf("%s after writing the same content again: %d bytes", p, len(got))
			}
		}
	}
	if rep, err := db.Fsck(ctx, FsckOptions{}); err != nil || !rep.OK() {
		t.Fatalf("fsck after healing: %v %+v", err, rep)
	}
}

// TestRemoteDamageHealsOnceSeen: on a remote store (one meta trusts), a
// damaged copy found by a read is marked, and the next write of the same
// content stores a good one.
func TestRemoteDamageHealsOnceSeen(t *testing.T) {
	ctx := context.Background()
	mem := objects.NewMemory()
	rc := newRequestCounter(mem)
	db := openTestDB(t, rc)
	w := mustCreate(t, db, "acme/a")
	content := []byte("precious")
	r := mustCommit(t, db, w.Name, 1, PutBytes("p", content, 0, t0))
	flipObject(t, db, mem, objects.Sum(content))
	rc2, _, err := db.OpenFile(ctx, Ref{w.Name, r.N}, "p")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(rc2); !errors.Is(err, objects.ErrCorrupt) {
		t.Fatalf("reading a damaged file: %v", err)
	}
	rc2.Close()
	if e, _ := storedAt(t, db, objects.Sum(content)); !e.Damaged {
		t.Fatal("the damaged copy was not marked in the index")
	}
	r = mustCommit(t, db, w.Name, r.N, PutBytes("q", content, 0, t0))
	if got := readFile(t, db, Ref{w.Name, r.N}, "p"); got != string(content) {
		t.Fatalf("p after writing q with the same content: %q", got)
	}
}

// TestGCPacks: a pack nothing reaches goes after the grace period; a pack
// mostly garbage is repacked (its live objects moved before it goes); a
// young one stays; reads and fsck stay good throughout.
func TestGCPacks(t *testing.T) {
	ctx := context.Background()
	mem := objects.NewMemory()
	clock := time.Now()
	db, err := Open(ctx, t.TempDir()+"/meta.db", mem, Options{NoSync: true, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w, err := db.Create(ctx, "acme/a", CreateOptions{Retention: Retention{KeepLast: 1}})
	if err != nil {
		t.Fatal(err)
	}
	// Revision 2: 20 files, one kept by the head; revision 3 drops 19.
	var ops []Op
	for i := range 20 {
		ops = append(ops, PutBytes(fmt.Sprintf("f%02d", i), bytes.Repeat([]byte{byte('a' + i)}, 1000), 0, t0))
	}
	r2 := mustCommit(t, db, w.Name, w.Head, ops...)
	var rm []Op
	for i := 1; i < 20; i++ {
		rm = append(rm, Remove(fmt.Sprintf("f%02d", i)))
	}
	r3 := mustCommit(t, db, w.Name, r2.N, rm...)
	r4 := mustCommit(t, db, w.Name, r3.N, PutBytes("young", []byte("young"), 0, t0))
	keep, _ := storedAt(t, db, objects.Sum(bytes.Repeat([]byte{'a'}, 1000)))

	// Nothing is old enough yet.
	rep, err := db.GC(ctx, GCOptions{Delete: true})
	if err != nil || rep.Deleted != 0 || rep.Repacked != 0 || rep.Young == 0 {
		t.Fatalf("young run: %v %+v", err, rep)
	}
	// Two hours on, for everything but revision 4's pack.
	clock = clock.Add(2 * time.Hour)
	young, _ := storedAt(t, db, objects.Sum([]byte("young")))
	mem.SetModTime(young.Pack, clock)
	rep, err = db.GC(ctx, GCOptions{})
	if err != nil || len(rep.Repack) != 1 || rep.Repack[0].Digest != keep.Pack || len(rep.Garbage) == 0 {
		t.Fatalf("dry run: %v %+v (the pack of revision 2 is to repack)", err, rep)
	}
	before := mem.Len()
	if !rep.DryRun || mem.Len() != before {
		t.Fatal("the dry run changed the store")
	}
	rep, err = db.GC(ctx, GCOptions{Delete: true})
	if err != nil || rep.Repacked != 1 || rep.Deleted != len(rep.Garbage) || rep.Deleted == 0 {
		t.Fatalf("gc: %v %+v", err, rep)
	}
	if _, err := mem.Stat(ctx, keep.Pack); !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("the repacked pack is still stored: %v", err)
	}
	if now, _ := storedAt(t, db, objects.Sum(bytes.Repeat([]byte{'a'}, 1000))); now.Pack == keep.Pack || !now.InPack() {
		t.Fatalf("the live object was not moved to a new pack: %+v", now)
	}
	if got := readFile(t, db, Ref{w.Name, r4.N}, "f00"); got != strings.Repeat("a", 1000) {
		t.Fatalf("f00 after repack: %q", got)
	}
	if got := readFile(t, db, Ref{w.Name, r4.N}, "young"); got != "young" {
		t.Fatalf("young: %q", got)
	}
	if fr, err := db.Fsck(ctx, FsckOptions{}); err != nil || !fr.OK() || len(fr.Orphans) != 0 {
		t.Fatalf("fsck after gc: %v %+v", err, fr)
	}
	// A second run has nothing left to do.
	clock = clock.Add(2 * time.Hour)
	if rep, err := db.GC(ctx, GCOptions{Delete: true}); err != nil || rep.Deleted != 0 || rep.Repacked != 0 {
		t.Fatalf("second gc: %v %+v", err, rep)
	}
}

// TestGCRepackStopsOnError: a live object of a pack to repack cannot be
// read: gc stops with an error and the pack stays.
func TestGCRepackStopsOnError(t *testing.T) {
	ctx := context.Background()
	mem := objects.NewMemory()
	clock := time.Now()
	db, err := Open(ctx, t.TempDir()+"/meta.db", mem, Options{NoSync: true, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w, _ := db.Create(ctx, "acme/a", CreateOptions{Retention: Retention{KeepLast: 1}})
	var ops []Op
	for i := range 10 {
		ops = append(ops, PutBytes(fmt.Sprintf("f%d", i), bytes.Repeat([]byte{byte('a' + i)}, 1000), 0, t0))
	}
	r2 := mustCommit(t, db, w.Name, w.Head, ops...)
	var rm []Op
	for i := 1; i < 10; i++ {
		rm = append(rm, Remove(fmt.Sprintf("f%d", i)))
	}
	mustCommit(t, db, w.Name, r2.N, rm...)
	live := objects.Sum(bytes.Repeat([]byte{'a'}, 1000))
	loc, _ := storedAt(t, db, live)
	clock = clock.Add(2 * time.Hour)
	// Damage the live object behind the index's back (the pack's own
	// checksum of its index stays good).
	b, _ := objects.Get(ctx, mem, loc.Pack)
	b[loc.Offset] ^= 1
	mem.Tamper(ctx, loc.Pack, b)
	_, err = db.GC(ctx, GCOptions{Delete: true})
	if err == nil || !strings.Contains(err.Error(), "repack") {
		t.Fatalf("gc with a damaged live object to repack: %v", err)
	}
	if _, err := mem.Stat(ctx, loc.Pack); err != nil {
		t.Fatalf("the pack was deleted after the error: %v", err)
	}
}

// TestGCKeepsUnindexedPack: a pack holding live objects that the object
// index lost is kept (and indexed again), never collected as garbage.
func TestGCKeepsUnindexedPack(t *testing.T) {
	ctx := context.Background()
	mem := objects.NewMemory()
	clock := time.Now()
	db, err := Open(ctx, t.TempDir()+"/meta.db", mem, Options{NoSync: true, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := mustCreate(t, db, "acme/a")
	r := mustCommit(t, db, w.Name, 1, PutBytes("x", []byte("x"), 0, t0))
	loc, _ := storedAt(t, db, objects.Sum([]byte("x")))
	if err := db.update(ctx, func(tx kv.Txn) error { _, err := indexDropPack(tx, loc.Pack); return err }); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(2 * time.Hour)
	fr, err := db.Fsck(ctx, FsckOptions{Quick: true})
	if err != nil || fr.OK() {
		t.Fatalf("fsck with a pack missing from the index: %v %+v", err, fr)
	}
	rep, err := db.GC(ctx, GCOptions{Delete: true})
	if err != nil || rep.Unindexed != 1 {
		t.Fatalf("gc: %v %+v", err, rep)
	}
	if _, err := mem.Stat(ctx, loc.Pack); err != nil {
		t.Fatalf("gc deleted an unindexed pack of live objects: %v", err)
	}
	if got := readFile(t, db, Ref{w.Name, r.N}, "x"); got != "x" {
		t.Fatalf("x = %q", got)
	}
	if fr, err := db.Fsck(ctx, FsckOptions{}); err != nil || !fr.OK() {
		t.Fatalf("fsck after gc indexed the pack again: %v %+v", err, fr)
	}
}

// TestFsckPacks: a missing pack and a pack whose index does not match
// the object index's record are problems, quick or full.
func TestFsckPacks(t *testing.T) {
	ctx := context.Background()
	for _, quick := range []bool{true, false} {
		mem := objects.NewMemory()
		db := openTestDB(t, mem)
		w := mustCreate(t, db, "acme/a")
		r := mustCommit(t, db, w.Name, 1, PutBytes("a", []byte("a"), 0, t0))
		mustCommit(t, db, w.Name, r.N, PutBytes("b", []byte("b"), 0, t0))
		la, _ := storedAt(t, db, objects.Sum([]byte("a")))
		lb, _ := storedAt(t, db, objects.Sum([]byte("b")))
		mem.Delete(ctx, la.Pack)
		// b's pack gets another pack's bytes under its name.
		other, _, _ := objects.EncodePack([]objects.PackObject{{Digest: objects.Sum([]byte("zz")), Data: []byte("zz")}})
		mem.Tamper(ctx, lb.Pack, other)
		db.trees = newTreeCache(16)
		rep, err := db.Fsck(ctx, FsckOptions{Quick: quick})
		if err != nil {
			t.Fatal(err)
		}
		var packs []string
		for _, p := range rep.Problems {
			if p.Kind == "pack" {
				packs = append(packs, p.Digest)
			}
		}
		if len(packs) != 2 {
			t.Fatalf("quick %v: pack problems %v in %+v", quick, packs, rep.Problems)
		}
	}
}

// TestRecoverOutputs: recover references the kept outputs again, so gc
// keeps them and fsck calls none an orphan (issue 20, item 2).
func TestRecoverOutputs(t *testing.T) {
	ctx := context.Background()
	mem := objects.NewMemory()
	dir := t.TempDir()
	db, err := Open(ctx, dir+"/meta.db", mem, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	w := mustCreate(t, db, "acme/a")
	mustCommit(t, db, w.Name, 1, PutBytes("a", []byte("a"), 0, t0))
	var want []objects.Digest
	for i := range 5 {
		d, err := db.PutOutput(ctx, w.Name, []byte(fmt.Sprintf("wsfs-out1\noutput %d", i)))
		if err != nil {
			t.Fatal(err)
		}
		if err := db.RecordOutput(ctx, w.Name, Output{Digest: d}); err != nil {
			t.Fatal(err)
		}
		want = append(want, d)
	}
	// An output stored by hand, as before PutOutput, then recorded.
	d, _ := objects.PutBytes(ctx, mem, []byte("wsfs-out1\nold style"))
	if err := db.RecordOutput(ctx, w.Name, Output{Digest: d}); err != nil {
		t.Fatal(err)
	}
	want = append(want, d)
	db.Close()
	removeFile(dir + "/meta.db")
	rep, err := Recover(ctx, dir+"/meta.db", mem, RecoverOptions{})
	if err != nil || rep.Outputs != len(want) {
		t.Fatalf("recover: %v %+v", err, rep)
	}
	db, err = Open(ctx, dir+"/meta.db", mem, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	outs, err := db.Outputs(ctx, w.Name)
	if err != nil || len(outs) != len(want) {
		t.Fatalf("outputs after recover: %v %v", outs, err)
	}
	got := map[objects.Digest]bool{}
	for _, o := range outs {
		got[o.Digest] = true
	}
	for _, d := range want {
		if !got[d] {
			t.Fatalf("output %s lost by recover", d.Short())
		}
	}
	fr, err := db.Fsck(ctx, FsckOptions{})
	if err != nil || !fr.OK() || len(fr.Orphans) != 0 {
		t.Fatalf("fsck after recover: %v %+v", err, fr)
	}
	mem.List(ctx, func(i objects.Info) error { return mem.SetModTime(i.Digest, time.Now().Add(-48*time.Hour)) })
	gr, err := db.GC(ctx, GCOptions{Delete: true})
	if err != nil || gr.Deleted != 0 {
		t.Fatalf("gc after recover deleted %d: %v %+v", gr.Deleted, err, gr)
	}
	for _, d := range want {
		if _, err := objects.Get(ctx, db.Store(), d); err != nil {
			t.Fatalf("output %s after gc: %v", d.Short(), err)
		}
	}
}

// TestFsckReadsPacksOnce: a full fsck over a remote store fetches each
// pack once for all the objects it reads from it, not once per object.
func TestFsckReadsPacksOnce(t *testing.T) {
	ctx := context.Background()
	rc := newRequestCounter(objects.NewMemory())
	db := openTestDB(t, rc)
	w := mustCreate(t, db, "acme/a")
	var ops []Op
	for i := range 100 {
		ops = append(ops, PutBytes(fmt.Sprintf("d%d/f%d", i%7, i), []byte(fmt.Sprintf("file %d", i)), 0, t0))
	}
	mustCommit(t, db, w.Name, 1, ops...)
	db.trees = newTreeCache(16)
	rc.reset()
	rep, err := db.Fsck(ctx, FsckOptions{})
	if err != nil || !rep.OK() || rep.Blobs != 100 {
		t.Fatalf("fsck: %v %+v", err, rep)
	}
	// Two packs (create's and the commit's), each fetched once, and each
	// pack's index read once; the settings are a Stat in the index.
	if got := rc.reset(); got["open"] > 4 {
		t.Fatalf("fsck of 100 packed files made %v requests, want each pack fetched once", got)
	}
}

// TestGCCombinesSmallPacks: the small packs of many commits, all live,
// become one once old enough; every revision reads the same after.
func TestGCCombinesSmallPacks(t *testing.T) {
	ctx := context.Background()
	mem := objects.NewMemory()
	clock := time.Now()
	db, err := Open(ctx, t.TempDir()+"/meta.db", mem, Options{NoSync: true, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := mustCreate(t, db, "acme/a")
	head := w.Head
	for i := range 30 {
		head = mustCommit(t, db, w.Name, head, PutBytes(fmt.Sprintf("d%d/f%d", i%4, i), []byte(fmt.Sprintf("content %d", i)), 0, t0)).N
	}
	before := mem.Len()
	clock = clock.Add(2 * time.Hour)
	rep, err := db.GC(ctx, GCOptions{})
	if err != nil || rep.RepackSmall < 30 || mem.Len() != before {
		t.Fatalf("dry run: %v %+v (%d blobs, %d before)", err, rep, mem.Len(), before)
	}
	rep, err = db.GC(ctx, GCOptions{Delete: true})
	if err != nil || rep.Repacked < 30 {
		t.Fatalf("gc: %v %+v", err, rep)
	}
	if mem.Len() > 2 {
		t.Fatalf("%d blobs after combining %d small packs, want one or two", mem.Len(), before)
	}
	for n := RevNum(2); n <= head; n++ {
		i := int(n) - 2
		if got := readFile(t, db, Ref{w.Name, n}, fmt.Sprintf("d%d/f%d", i%4, i)); got != fmt.Sprintf("content %d", i) {
			t.Fatalf("revision %d after combining: %q", n, got)
		}
	}
	if fr, err := db.Fsck(ctx, FsckOptions{}); err != nil || !fr.OK() || len(fr.Orphans) != 0 {
		t.Fatalf("fsck: %v %+v", err, fr)
	}
	// Too few small packs: left alone.
	clock = clock.Add(2 * time.Hour)
	mustCommit(t, db, w.Name, head, PutBytes("late", []byte("late"), 0, t0))
	clock = clock.Add(2 * time.Hour)
	if rep, err := db.GC(ctx, GCOptions{Delete: true}); err != nil || rep.Repacked != 0 {
		t.Fatalf("gc with two small packs: %v %+v", err, rep)
	}
}
