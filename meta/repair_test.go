package meta

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/meta/kv"

	"github.com/wsfs/wsfs/objects"
)

// TestFsckRepairRebuildsIndex: with the object index lost, fsck finds
// objects missing; fsck --repair rebuilds it from the store and all is
// well again.
func TestFsckRepairRebuildsIndex(t *testing.T) {
	ctx := context.Background()
	mem := objects.NewMemory()
	db := openTestDB(t, mem)
	w, err := db.Create(ctx, "acme/a", CreateOptions{Quotas: bigQuotas()})
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("big "), objects.PackThreshold/4+1)
	r := mustCommit(t, db, w.Name, 1, PutBytes("d/a", []byte("a"), 0, t0), PutBytes("big", big, 0, t0))
	r = mustCommit(t, db, w.Name, r.N, PutBytes("d/b", []byte("b"), 0, t0))
	if err := db.update(ctx, func(tx kv.Txn) error { return tx.DeleteRange(kv.B("objindex"), nil, nil) }); err != nil {
		t.Fatal(err)
	}
	db.trees = newTreeCache(16)
	if rep, err := db.Fsck(ctx, FsckOptions{}); err != nil || rep.OK() {
		t.Fatalf("fsck without the index: %v %+v", err, rep)
	}
	rep, err := db.Fsck(ctx, FsckOptions{Repair: true})
	if err != nil || !rep.OK() || rep.Index == nil || rep.Index.Added == 0 || rep.Index.Packs < 3 {
		t.Fatalf("fsck --repair: %v %+v %+v", err, rep, rep.Index)
	}
	if got := readFile(t, db, Ref{w.Name, r.N}, "d/a"); got != "a" {
		t.Fatalf("d/a = %q", got)
	}
	if got := readFile(t, db, Ref{w.Name, r.N}, "big"); got != string(big) {
		t.Fatalf("big: %d bytes", len(got))
	}
}

// TestFsckRepairHeals damages a packed file, a large single file and a
// tree, and offers good copies in another store (one as a single blob,
// one in its copy of the pack): fsck --repair writes them again; the one
// nowhere else is listed with the revisions it breaks (issue 20, item 1).
func TestFsckRepairHeals(t *testing.T) {
	ctx := context.Background()
	mem := objects.NewMemory()
	db := openTestDB(t, mem)
	w, err := db.Create(ctx, "acme/a", CreateOptions{Quotas: bigQuotas()})
	if err != nil {
		t.Fatal(err)
	}
	small, lost := []byte("small and precious"), []byte("lost for good")
	big := bytes.Repeat([]byte("0123456789abcdef"), objects.PackThreshold/16+1)
	r2 := mustCommit(t, db, w.Name, 1, PutBytes("s/small", small, 0, t0), PutBytes("big", big, 0, t0))
	r3 := mustCommit(t, db, w.Name, r2.N, PutBytes("s/lost", lost, 0, t0))
	r3 = mustCommit(t, db, w.Name, r3.N, PutBytes("other", []byte("other"), 0, t0))
	sub, err := db.LookupTree(ctx, r2.Root, "s")
	if err != nil {
		t.Fatal(err)
	}
	// A good copy elsewhere: small's pack as it was, and big as a blob.
	spare := objects.NewMemory()
	loc, _ := storedAt(t, db, objects.Sum(small))
	pack, _ := objects.Get(ctx, mem, loc.Pack)
	objects.PutBytes(ctx, spare, pack)
	objects.PutBytes(ctx, spare, big)
	// The damage: small and the tree s are in that pack, big alone, lost
	// in a pack of which there is no copy.
	for _, d := range []objects.Digest{objects.Sum(small), objects.Sum(big), objects.Sum(lost), sub.Digest} {
		flipObject(t, db, mem, d)
	}
	db.trees = newTreeCache(16)
	before, err := db.Fsck(ctx, FsckOptions{})
	if err != nil || before.OK() {
		t.Fatalf("fsck of the damage: %v %+v", err, before)
	}
	rep, err := db.Fsck(ctx, FsckOptions{Repair: true, Sources: []objects.Store{spare}})
	if err != nil {
		t.Fatal(err)
	}
	var healed []string
	for _, h := range rep.Repaired {
		healed = append(healed, h.Digest)
	}
	for _, d := range []objects.Digest{objects.Sum(small), objects.Sum(big), sub.Digest} {
		if !slices.Contains(healed, d.String()) {
			t.Errorf("%s was not repaired: %+v", d.Short(), rep.Repaired)
		}
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Digest != objects.Sum(lost).String() {
		t.Fatalf("problems left: %+v", rep.Problems)
	}
	if len(rep.Damaged) != 1 || strings.Join(rep.Damaged[0].Revisions, " ") != "acme/a@3 acme/a@4" {
		t.Fatalf("damage left: %+v, want the lost file breaking revisions 3 and 4", rep.Damaged)
	}
	for _, p := range []string{"s/small", "big"} {
		if _, err := db.Lookup(ctx, Ref{w.Name, r3.N}, p); err != nil {
			t.Fatal(err)
		}
	}
	if got := readFile(t, db, Ref{w.Name, r3.N}, "s/small"); got != string(small) {
		t.Fatalf("s/small after repair: %q", got)
	}
	if got := readFile(t, db, Ref{w.Name, r2.N}, "big"); got != string(big) {
		t.Fatalf("big after repair: %d bytes", len(got))
	}
}

// TestFsckRepairFromReadCache: the store's read cache holds good copies
// of packs the remote store has damaged; fsck reads past the cache (so it
// sees the damage) and --repair takes the cache's copies.
func TestFsckRepairFromReadCache(t *testing.T) {
	ctx := context.Background()
	remote := objects.NewMemory()
	cache, err := objects.NewCache(remote, t.TempDir(), 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	db := openTestDB(t, cache)
	w := mustCreate(t, db, "acme/a")
	content := []byte("cached, then damaged in the bucket")
	r := mustCommit(t, db, w.Name, 1, PutBytes("f", content, 0, t0))
	if got := readFile(t, db, Ref{w.Name, r.N}, "f"); got != string(content) {
		t.Fatal(got)
	}
	flipObject(t, db, remote, objects.Sum(content))
	rep, err := db.Fsck(ctx, FsckOptions{})
	if err != nil || rep.OK() {
		t.Fatalf("fsck over a damaged remote with a good cache: %v %+v", err, rep)
	}
	rep, err = db.Fsck(ctx, FsckOptions{Repair: true})
	if err != nil || !rep.OK() || len(rep.Repaired) == 0 || rep.Repaired[0].Source != "the read cache" {
		t.Fatalf("fsck --repair: %v %+v", err, rep)
	}
	if b, err := objects.Get(ctx, objects.NewPacked(remote, locator{db}), objects.Sum(content)); err != nil || !bytes.Equal(b, content) {
		t.Fatalf("the remote's copy after repair: %q, %v", b, err)
	}
}
