package meta

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestCreateCommitLog(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, nil)
	w := mustCreate(t, db, "acme/reports")
	if w.Name != "acme/reports" || w.Head != 1 || w.HeadRoot != EmptyTreeDigest || w.HeadCwd != "/" {
		t.Fatalf("created %+v", w)
	}
	r2 := mustCommit(t, db, w.Name, 1, PutBytes("a/b/c.txt", []byte("hello\n"), 0, t0), Mkdir("d", 0, t0))
	if r2.N != 2 || r2.Parent != 1 {
		t.Fatalf("r2 = %+v", r2)
	}
	if got := readFile(t, db, Ref{w.Name, 2}, "a/b/c.txt"); got != "hello\n" {
		t.Fatalf("content %q", got)
	}
	if r2.Stats != (Stats{Files: 1, Dirs: 3, Bytes: 6}) {
		t.Fatalf("stats %+v", r2.Stats)
	}
	wantChanges := []PathChange{{"a", Added, KindDir}, {"a/b", Added, KindDir}, {"a/b/c.txt", Added, KindFile}, {"d", Added, KindDir}}
	if len(r2.Changes) != len(wantChanges) {
		t.Fatalf("changes %+v", r2.Changes)
	}
	for i := range wantChanges {
		if r2.Changes[i] != wantChanges[i] {
			t.Fatalf("changes %+v", r2.Changes)
		}
	}
	// A stale base writes nothing.
	if _, _, err := db.Commit(ctx, w.Name, 1, Change{Ops: []Op{Remove("a")}}); !errors.Is(err, ErrStale) {
		t.Fatalf("stale commit: %v", err)
	}
	// No change, no revision.
	r, ok, err := db.Commit(ctx, w.Name, 2, Change{Ops: []Op{Remove("nothing/here")}})
	if err != nil || ok || r.N != 2 {
		t.Fatalf("empty commit: %v %v %+v", err, ok, r)
	}
	// cwd alone is a change.
	r3, ok, err := db.Commit(ctx, w.Name, 2, Change{Cwd: "/a/b"})
	if err != nil || !ok || r3.Cwd != "/a/b" || r3.Root != r2.Root {
		t.Fatalf("cwd commit: %v %v %+v", err, ok, r3)
	}
	r4 := mustCommit(t, db, w.Name, 3, Rename("a", "x/y"), PutBytes("x/y/b/c.txt", []byte("bye\n"), 0o600, t0))
	if got := readFile(t, db, Ref{w.Name, 4}, "x/y/b/c.txt"); got != "bye\n" {
		t.Fatalf("content %q", got)
	}
	if _, err := db.Lookup(ctx, Ref{w.Name, 4}, "a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a after rename: %v", err)
	}
	if r4.Stats != (Stats{Files: 1, Dirs: 4, Bytes: 4}) {
		t.Fatalf("stats %+v", r4.Stats)
	}
	log, err := db.Log(ctx, w.Name, LogOptions{Limit: 2})
	if err != nil || len(log) != 2 || log[0].N != 4 || log[1].N != 3 {
		t.Fatalf("log %v %+v", err, log)
	}
	log, err = db.Log(ctx, w.Name, LogOptions{Before: 3})
	if err != nil || len(log) != 2 || log[0].N != 2 || log[1].N != 1 {
		t.Fatalf("log page 2 %v %+v", err, log)
	}
	got, err := db.Get(ctx, w.Name)
	if err != nil || got.Head != 4 || got.HeadRoot != r4.Root || got.Usage != r4.Stats {
		t.Fatalf("get %v %+v", err, got)
	}
}

func TestManyChangesKeptInManifest(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, nil)
	w := mustCreate(t, db, "acme/a")
	var ops []Op
	for i := 0; i < 150; i++ {
		ops = append(ops, PutBytes(fmt.Sprintf("f%03d", i), nil, 0, t0))
	}
	q := DefaultQuotas()
	q.MaxEntries = 1000
	db.Update(ctx, w.Name, WorkspaceUpdate{Quotas: &q})
	r := mustCommit(t, db, w.Name, 1, ops...)
	if len(r.Changes) != 150 {
		t.Fatalf("commit returned %d changes", len(r.Changes))
	}
	log, _ := db.Log(ctx, w.Name, LogOptions{Limit: 1})
	if len(log[0].Changes) != MaxInlineChanges || log[0].ChangesOmitted != 150-MaxInlineChanges {
		t.Fatalf("log: %d changes, %d omitted", len(log[0].Changes), log[0].ChangesOmitted)
	}
	full, err := db.Show(ctx, Ref{w.Name, 2})
	if err != nil || len(full.Changes) != 150 || full.ChangesOmitted != 0 || full.Changes[149].Path != "f149" {
		t.Fatalf("show: %v, %d changes", err, len(full.Changes))
	}
}
