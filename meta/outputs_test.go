package meta

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta/kv"
	"github.com/wsfs/wsfs/meta/kv/boltkv"

	"github.com/wsfs/wsfs/objects"
)

func TestOutputsKeptByGCAndFsck(t *testing.T) {
	ctx := context.Background()
	store := objects.NewMemory()
	db := openTestDB(t, store)
	w := mustCreate(t, db, "acme/out")
	out, _ := objects.PutBytes(ctx, store, []byte("a command's output"))
	stray, _ := objects.PutBytes(ctx, store, []byte("nobody's"))
	if err := db.RecordOutput(ctx, w.Name, Output{Digest: out}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Outputs(ctx, w.Name)
	if err != nil || len(got) != 1 || got[0].Digest != out {
		t.Fatalf("Outputs = %v, %v", got, err)
	}
	rep, err := db.Fsck(ctx, FsckOptions{})
	if err != nil || !rep.OK() {
		t.Fatalf("fsck: %v %+v", err, rep)
	}
	for _, o := range rep.Orphans {
		if o.Digest == out {
			t.Fatal("fsck calls a kept output an orphan")
		}
	}
	old := time.Now().Add(-2 * time.Hour)
	store.SetModTime(out, old)
	store.SetModTime(stray, old)
	if _, err := db.GC(ctx, GCOptions{Delete: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Stat(ctx, out); err != nil {
		t.Fatalf("gc deleted a kept output: %v", err)
	}
	if _, err := store.Stat(ctx, stray); err == nil {
		t.Fatal("gc kept an unreferenced blob")
	}

	// A missing output is a problem fsck names.
	if err := store.Delete(ctx, out); err != nil {
		t.Fatal(err)
	}
	rep, err = db.Fsck(ctx, FsckOptions{})
	if err != nil || rep.OK() || rep.Problems[0].Kind != "output" {
		t.Fatalf("fsck after losing an output: %v %+v", err, rep)
	}

	// Deleting the workspace drops its outputs' references.
	if err := db.Delete(ctx, w.Name); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Outputs(ctx, w.Name); err == nil {
		t.Fatal("Outputs of a deleted workspace succeeded")
	}
	var left int
	db.view(ctx, func(tx kv.Reader) error {
		return tx.Scan(outBucket(w.ID), kv.ScanOptions{}, func(k, v []byte) error { left++; return nil })
	})
	if left != 0 {
		t.Fatalf("%d output records left after delete", left)
	}
}

func TestOutputsKeepTheNewest(t *testing.T) {
	ctx := context.Background()
	store := objects.NewMemory()
	db := openTestDB(t, store)
	w := mustCreate(t, db, "acme/many")
	var all []objects.Digest
	for i := range MaxOutputsKept + 5 {
		d := objects.Sum(fmt.Appendf(nil, "output %d", i))
		all = append(all, d)
		if err := db.RecordOutput(ctx, w.Name, Output{Digest: d}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.Outputs(ctx, w.Name)
	if err != nil || len(got) != MaxOutputsKept {
		t.Fatalf("kept %d outputs (%v), want %d", len(got), err, MaxOutputsKept)
	}
	if got[0].Digest != all[5] || got[len(got)-1].Digest != all[len(all)-1] {
		t.Fatal("the kept outputs are not the newest, oldest first")
	}
	if err := db.RecordOutput(ctx, "acme/none", Output{Digest: all[0]}); err == nil {
		t.Fatal("RecordOutput on a missing workspace succeeded")
	}
}

func TestSchemaOneMigrates(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), DBFileName)
	store := objects.NewMemory()
	db, err := Open(ctx, path, store, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, db, "acme/old")
	db.Close()
	// Make it a version 1 file: no outputs bucket.
	eng, err := boltkv.Open(path, boltkv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng.Update(ctx, func(tx kv.Txn) error {
		if err := tx.DeleteRange(kv.B("outputs"), nil, nil); err != nil {
			return err
		}
		return tx.Put(bucketMeta, keySchema, u64(1))
	})
	eng.Close()
	if _, err := Open(ctx, path, store, Options{ReadOnly: true}); err == nil {
		t.Fatal("a read-only open of a version 1 file succeeded without the upgrade")
	}
	db, err = Open(ctx, path, store, Options{})
	if err != nil {
		t.Fatalf("upgrade of a version 1 file: %v", err)
	}
	defer db.Close()
	if err := db.RecordOutput(ctx, "acme/old", Output{Digest: objects.Sum([]byte("x"))}); err != nil {
		t.Fatalf("after the upgrade: %v", err)
	}
}

// TestStoreOutput stores and records an output in one call: the blob
// reads back, the record keeps the command, and recover finds it again.
func TestStoreOutput(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, objects.NewMemory())
	w := mustCreate(t, db, "acme/o")
	started := time.Now().Add(-time.Second).UTC().Round(0)
	d, err := db.StoreOutput(ctx, w.Name, []byte("wsfs-out2\nx"), Output{Run: "r1", Command: "echo x", Started: started, ExitCode: 3})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := objects.Get(ctx, db.Store(), d); err != nil || string(b) != "wsfs-out2\nx" {
		t.Fatalf("the blob: %q %v", b, err)
	}
	outs, err := db.Outputs(ctx, w.Name)
	if err != nil || len(outs) != 1 || outs[0].Digest != d || outs[0].Run != "r1" || outs[0].Command != "echo x" ||
		outs[0].ExitCode != 3 || !outs[0].Started.Equal(started) {
		t.Fatalf("the record: %+v %v", outs, err)
	}
	if _, err := db.StoreOutput(ctx, "acme/none", []byte("x"), Output{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("an output for a missing workspace: %v", err)
	}
}
