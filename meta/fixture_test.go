package meta

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta/kv"

	"github.com/wsfs/wsfs/objects"
)

// schema2Fixture is a home (meta.db and a folder store) written by wsfs
// before trees kept owners, link groups, special files and extended
// attributes (schema version 2, trees "wsfs-tree1"). TestSchema2Fixture
// opens a copy with today's code. WSFS_WRITE_SCHEMA2_FIXTURE=1 wrote it,
// with the code of that time; it is not to be written again.
const schema2Fixture = "testdata/schema2"

// schema2Time is the clock of the fixture's commits.
var schema2Time = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func TestWriteSchema2Fixture(t *testing.T) {
	if os.Getenv("WSFS_WRITE_SCHEMA2_FIXTURE") != "1" {
		t.Skip("writes the schema 2 fixture; only with WSFS_WRITE_SCHEMA2_FIXTURE=1")
	}
	ctx := context.Background()
	if err := os.RemoveAll(schema2Fixture); err != nil {
		t.Fatal(err)
	}
	st, err := objects.OpenDir(filepath.Join(schema2Fixture, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, filepath.Join(schema2Fixture, DBFileName), st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := schema2Time
	db.now = func() time.Time { now = now.Add(time.Minute); return now }
	mustCreate(t, db, "old/app")
	r := mustCommit(t, db, "old/app", 1,
		Mkdir("src", 0o755, schema2Time),
		PutBytes("src/main.go", []byte("package main\n"), 0o644, schema2Time),
		PutBytes("run.sh", []byte("#!/bin/sh\necho hi\n"), 0o755|os.ModeSetuid, schema2Time),
		PutBytes("empty", nil, 0o600, schema2Time),
		Symlink("latest", "src/main.go", schema2Time),
		Mkdir("tmp", 0o1777, schema2Time),
		Mkdir("deep/a/b", 0o700, schema2Time),
	)
	r = mustCommit(t, db, "old/app", r.N,
		PutBytes("src/main.go", []byte("package main\n\nfunc main() {}\n"), 0o644, schema2Time.Add(time.Hour)),
		Remove("empty"),
	)
	if _, err := db.Fork(ctx, Ref{Workspace: "old/app", Rev: r.N}, "old/fork", CreateOptions{Author: "test"}); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, db, "old/gone")
	if err := db.Delete(ctx, "old/gone"); err != nil {
		t.Fatal(err)
	}
}

// openFixtureCopy copies a fixture home into a temporary folder (tests must
// not change testdata) and opens it.
func openFixtureCopy(t *testing.T, dir string) *DB {
	t.Helper()
	home := t.TempDir()
	if err := os.CopyFS(home, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	st, err := objects.OpenDir(filepath.Join(home, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := Open(context.Background(), filepath.Join(home, DBFileName), st, Options{NoSync: true})
	if err != nil {
		t.Fatalf("opening a home written by the previous schema: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestSchema2Fixture: a database and store written before the tree format
// kept owners, links, special files and extended attributes read as they
// were, pass fsck, and take new commits.
func TestSchema2Fixture(t *testing.T) {
	ctx := context.Background()
	db := openFixtureCopy(t, schema2Fixture)
	ws, err := db.List(ctx, "old/")
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 2 || ws[0].Name != "old/app" || ws[1].Name != "old/fork" {
		t.Fatalf("workspaces %+v", ws)
	}
	app := ws[0]
	if app.Head != 3 || app.Usage != (Stats{Files: 2, Dirs: 5, Symlinks: 1, Bytes: 47}) {
		t.Fatalf("old/app head %d usage %+v", app.Head, app.Usage)
	}
	for _, c := range []struct {
		rev       RevNum
		path, txt string
	}{{2, "src/main.go", "package main\n"}, {3, "src/main.go", "package main\n\nfunc main() {}\n"}, {2, "empty", ""}} {
		if got := readFile(t, db, Ref{Workspace: "old/app", Rev: c.rev}, c.path); got != c.txt {
			t.Fatalf("old/app@%d:%s = %q", c.rev, c.path, got)
		}
	}
	run, err := db.Lookup(ctx, Ref{Workspace: "old/app", Rev: 3}, "run.sh")
	if err != nil {
		t.Fatal(err)
	}
	if run.Mode != 0o755|os.ModeSetuid || !run.MTime.Equal(schema2Time) {
		t.Fatalf("run.sh %+v", run)
	}
	tmp, err := db.Lookup(ctx, Ref{Workspace: "old/app", Rev: 3}, "tmp")
	if err != nil || tmp.Mode != 0o777 {
		t.Fatalf("tmp %+v %v", tmp, err)
	}
	link, err := db.Lookup(ctx, Ref{Workspace: "old/fork", Rev: 1}, "latest")
	if err != nil || link.Kind != KindSymlink || link.Target != "src/main.go" {
		t.Fatalf("old/fork latest %+v %v", link, err)
	}
	// Nothing is rewritten: the old trees keep their format and digests.
	raw, err := objects.Get(ctx, db.Store(), app.HeadRoot)
	if err != nil || !bytes.HasPrefix(raw, []byte(magicTree)) {
		t.Fatalf("old/app's root after the upgrade: %.11q, %v", raw, err)
	}
	if err := db.view(ctx, func(tx kv.Reader) error {
		v, err := readSchema(tx)
		if err == nil && v != SchemaVersion {
			err = fmt.Errorf("schema %d after opening, want %d", v, SchemaVersion)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	rep, err := db.Fsck(ctx, FsckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("fsck of the fixture: %+v", rep)
	}
	r := mustCommit(t, db, "old/app", 3, PutBytes("src/new.go", []byte("package main\n"), 0o644, time.Now()))
	if got := readFile(t, db, Ref{Workspace: "old/app", Rev: r.N}, "src/main.go"); got != "package main\n\nfunc main() {}\n" {
		t.Fatalf("after a new commit src/main.go = %q", got)
	}
}
