package meta

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/wsfs/wsfs/objects"
)

// copyFixture copies testdata/v2store (a folder store and meta.db written
// by wsfs before packs, see its README) into a new temporary folder and
// returns that folder.
func copyFixture(t *testing.T) string {
	t.Helper()
	src := filepath.Join("testdata", "v2store")
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel == "README.md" {
			return nil
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// openFixture opens a copy of the pre-pack store with today's code.
func openFixture(t *testing.T) (*DB, *objects.Dir, string) {
	t.Helper()
	dir := copyFixture(t)
	st, err := objects.OpenDir(filepath.Join(dir, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := Open(context.Background(), filepath.Join(dir, DBFileName), st, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, st, dir
}

var fixtureBig = bytes.Repeat([]byte("0123456789abcdef"), 600<<10/16)

// checkFixtureContent checks what the fixture's README says it holds.
func checkFixtureContent(t *testing.T, db *DB) {
	t.Helper()
	ctx := context.Background()
	ws, err := db.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range ws {
		names = append(names, w.Name)
	}
	if len(names) != 2 || names[0] != "acme/fork" || names[1] != "acme/reports" {
		t.Fatalf("workspaces %v, want acme/fork and acme/reports", names)
	}
	w, err := db.Get(ctx, "acme/reports")
	if err != nil {
		t.Fatal(err)
	}
	if w.Head < 3 || w.Retention.KeepLast != 10 || w.Quotas.MaxFileBytes != 1<<20 {
		t.Fatalf("acme/reports: head %d, retention %+v, quotas %+v", w.Head, w.Retention, w.Quotas)
	}
	for _, c := range []struct {
		rev  RevNum
		path string
		want string
	}{
		{2, "data.csv", "a,b\n1,2\n"},
		{3, "data.csv", "a,b\n1,2\n3,4\n"},
		{2, "src/main.go", "package main\n\nfunc main() {}\n"},
		{2, "src/empty", ""},
		{3, "big.bin", string(fixtureBig)},
	} {
		if got := readFile(t, db, Ref{"acme/reports", c.rev}, c.path); got != c.want {
			t.Fatalf("acme/reports@%d %s: got %d bytes, want %d", c.rev, c.path, len(got), len(c.want))
		}
	}
	r2, err := db.Show(ctx, Ref{"acme/reports", 2})
	if err != nil || r2.Cwd != "/src" || r2.Command != "setup" {
		t.Fatalf("acme/reports@2: %+v, %v", r2, err)
	}
	if e, err := db.Lookup(ctx, Ref{"acme/reports", 3}, "latest"); err != nil || e.Kind != KindSymlink || e.Target != "data.csv" {
		t.Fatalf("latest: %+v, %v", e, err)
	}
	if got := readFile(t, db, Ref{"acme/fork", 1}, "data.csv"); got != "a,b\n1,2\n3,4\n" {
		t.Fatalf("acme/fork data.csv = %q", got)
	}
	outs, err := db.Outputs(ctx, "acme/reports")
	if err != nil || len(outs) != 1 {
		t.Fatalf("outputs %v, %v", outs, err)
	}
	if b, err := objects.Get(ctx, db.Store(), outs[0].Digest); err != nil || string(b) != "wsfs-out1\n\x01\x00\x00\x00\x03hi\n" {
		t.Fatalf("output: %q, %v", b, err)
	}
}

// TestCompatPrePackStore opens a store written before packs and uses it:
// reads, a clean fsck, new commits on top, gc (which finds nothing to
// delete) and a recover from the store that brings back the same heads.
func TestCompatPrePackStore(t *testing.T) {
	ctx := context.Background()
	db, st, dir := openFixture(t)
	checkFixtureContent(t, db)
	// Three orphans: acme/reports's first settings (changed since) and the
	// settings and manifest of the deleted acme/gone.
	if rep, err := db.Fsck(ctx, FsckOptions{}); err != nil || !rep.OK() || len(rep.Orphans) != 3 {
		t.Fatalf("fsck of the fixture: %v %+v", err, rep)
	}
	w, _ := db.Get(ctx, "acme/reports")
	r := mustCommit(t, db, "acme/reports", w.Head,
		PutBytes("new.txt", []byte("written after the upgrade"), 0, t0),
		PutBytes("data.csv", []byte("a,b\n1,2\n"), 0, t0), // content the old store already holds
		PutBytes("big2.bin", append(bytes.Clone(fixtureBig), '!'), 0, t0))
	if got := readFile(t, db, Ref{"acme/reports", r.N}, "new.txt"); got != "written after the upgrade" {
		t.Fatalf("new.txt = %q", got)
	}
	if _, _, err := db.Restore(ctx, Ref{"acme/reports", 2}, CommitInfo{Command: "restore"}); err != nil {
		t.Fatal(err)
	}
	checkFixtureContent(t, db)
	if rep, err := db.Fsck(ctx, FsckOptions{}); err != nil || !rep.OK() || len(rep.Orphans) != 3 {
		t.Fatalf("fsck after new commits: %v %+v", err, rep)
	}
	rep, err := db.GC(ctx, GCOptions{Delete: true})
	if err != nil || len(rep.Garbage) != 0 || rep.Young != 3 {
		t.Fatalf("gc (the copied fixture is young): %v %+v", err, rep)
	}
	// --repair indexes the old single blobs and stores the reference the
	// old output lacks, so that recover finds the output again.
	fr, err := db.Fsck(ctx, FsckOptions{Repair: true})
	if err != nil || !fr.OK() || fr.Index.Singles == 0 {
		t.Fatalf("fsck --repair: %v %+v", err, fr)
	}
	if len(fr.Repaired) != 1 || fr.Repaired[0].Kind != "output-ref" {
		t.Fatalf("fsck --repair wrote %+v, want the output's reference", fr.Repaired)
	}
	heads := map[string]RevNum{}
	ws, _ := db.List(ctx, "")
	for _, w := range ws {
		heads[w.Name] = w.Head
	}
	db.Close()

	path := filepath.Join(dir, "recovered.db")
	if _, err := Recover(ctx, path, st, RecoverOptions{}); err != nil {
		t.Fatal(err)
	}
	rdb, err := Open(ctx, path, st, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	for name, head := range heads {
		w, err := rdb.Get(ctx, name)
		if err != nil || w.Head != head {
			t.Fatalf("recovered %s: head %d, %v; want %d", name, w.Head, err, head)
		}
	}
	if got := readFile(t, rdb, Ref{"acme/reports", 3}, "big.bin"); got != string(fixtureBig) {
		t.Fatalf("recovered big.bin: %d bytes", len(got))
	}
	if outs, err := rdb.Outputs(ctx, "acme/reports"); err != nil || len(outs) != 1 {
		t.Fatalf("recovered outputs: %v, %v", outs, err)
	}
}
