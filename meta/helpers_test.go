package meta

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wsfs/wsfs/objects"
)

func openTestDB(t testing.TB, store objects.Store) *DB {
	t.Helper()
	if store == nil {
		store = objects.NewMemory()
	}
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), DBFileName), store, Options{NoSync: true})
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
