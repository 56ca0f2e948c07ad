package meta

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta/kv"
	"github.com/wsfs/wsfs/meta/kv/etcdkv"

	"github.com/wsfs/wsfs/objects"
)

func openTestDB(t testing.TB, store objects.Store) *DB {
	t.Helper()
	if store == nil {
		store = objects.NewMemory()
	}
	var db *DB
	var err error
	if testCluster != nil {
		db, err = OpenEngine(context.Background(), testCluster.Engine(t, etcdkv.Options{}), store, Options{})
	} else {
		db, err = Open(context.Background(), filepath.Join(t.TempDir(), DBFileName), store, Options{NoSync: true})
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustCreate(t testing.TB, db *DB, name string) Workspace {
	t.Helper()
	w, err := db.Create(context.Background(), name, CreateOptions{Author: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func mustCommit(t testing.TB, db *DB, ws string, base RevNum, ops ...Op) Revision {
	t.Helper()
	r, ok, err := db.Commit(context.Background(), ws, base, Change{Ops: ops, CommitInfo: CommitInfo{Command: "test", Author: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Fatalf("commit to %s@%d: nothing committed", ws, base)
	}
	return r
}

func readFile(t testing.TB, db *DB, ref Ref, p string) string {
	t.Helper()
	rc, _, err := db.OpenFile(context.Background(), ref, p)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func removeFile(p string) error { return os.Remove(p) }

// storedAt returns where the object index locates d (ok false: unknown).
func storedAt(t testing.TB, db *DB, d objects.Digest) (indexEntry, bool) {
	t.Helper()
	var e indexEntry
	var ok bool
	if err := db.view(context.Background(), func(tx kv.Reader) error {
		var err error
		e, ok, err = indexLocate(tx, d)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return e, ok
}

// flipObject damages object d where it is stored (its pack, or its single
// blob) by flipping one byte, as a disk fault would. mem must be (or be
// under) the DB's store.
func flipObject(t testing.TB, db *DB, mem *objects.Memory, d objects.Digest) {
	t.Helper()
	ctx := context.Background()
	e, ok := storedAt(t, db, d)
	if !ok || !e.InPack() {
		b, err := objects.Get(ctx, mem, d)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0x20
		mem.Tamper(ctx, d, b)
		return
	}
	b := rawBytes(t, mem, e.Pack)
	b[e.Offset+e.Length/2] ^= 0x20
	mem.Tamper(ctx, e.Pack, b)
}

// rawBytes returns the stored bytes of blob d, damaged or not (two ranged
// reads, which no store verifies).
func rawBytes(t testing.TB, s objects.Store, d objects.Digest) []byte {
	t.Helper()
	ctx := context.Background()
	var out []byte
	for _, r := range [][2]int64{{0, 1}, {1, -1}} {
		rc, err := s.Open(ctx, d, r[0], r[1])
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b...)
	}
	return out
}

// putSingle stores content as a single blob, as a store written before
// packs holds it, and returns an OpPut of it without a source.
func putSingle(t testing.TB, mem objects.Store, p string, content []byte) Op {
	t.Helper()
	d, err := objects.PutBytes(context.Background(), mem, content)
	if err != nil {
		t.Fatal(err)
	}
	return PutFile(p, d, int64(len(content)), 0, t0, nil)
}
