// Package metatest helps the tests of packages built on meta (fusefs, api,
// cmd/wsfs-core): a database on a temporary file, workspaces and commits in one
// line each, and a flat view of a revision to compare with what a test
// expects.
package metatest

import (
	"context"
	"io"
	"path/filepath"
	"sort"
	"testing"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
)

// Open returns a database on a temporary file (fsync off) over store, or
// over a new in-memory store when store is nil. It is closed when the test
// ends.
func Open(t testing.TB, store objects.Store) *meta.DB {
	t.Helper()
	if store == nil {
		store = objects.NewMemory()
	}
	db, err := meta.Open(context.Background(), filepath.Join(t.TempDir(), meta.DBFileName), store, meta.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Create makes a workspace with default settings, or fails the test.
func Create(t testing.TB, db *meta.DB, name string) meta.Workspace {
	t.Helper()
	w, err := db.Create(context.Background(), name, meta.CreateOptions{Author: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// Files commits files (path -> content) on top of the head of ws as one
// revision and returns it, or fails the test.
func Files(t testing.TB, db *meta.DB, ws string, files map[string]string) meta.Revision {
	t.Helper()
	ctx := context.Background()
	w, err := db.Get(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	var ops []meta.Op
	for _, p := range sortedKeys(files) {
		ops = append(ops, meta.PutBytes(p, []byte(files[p]), 0, w.Created))
	}
	rev, _, err := db.Commit(ctx, w.Name, w.Head, meta.Change{Ops: ops, CommitInfo: meta.CommitInfo{Command: "test", Author: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

// Snapshot returns revision ref as a flat map: a directory is "dir/", a
// symlink "-> target", a file its content.
func Snapshot(t testing.TB, db *meta.DB, ref meta.Ref) map[string]string {
	t.Helper()
	ctx := context.Background()
	rev, err := db.Show(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var walk func(d objects.Digest, prefix string)
	walk = func(d objects.Digest, prefix string) {
		tree, err := db.ReadTree(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range tree.Entries {
			p := e.Name
			if prefix != "" {
				p = prefix + "/" + e.Name
			}
			switch e.Kind {
			case meta.KindDir:
				out[p] = "dir/"
				walk(e.Digest, p)
			case meta.KindSymlink:
				out[p] = "-> " + e.Target
			case meta.KindFile:
				rc, err := db.Store().Open(ctx, e.Digest, 0, -1)
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(rc)
				rc.Close()
				if err != nil {
					t.Fatal(err)
				}
				out[p] = string(b)
			}
		}
	}
	walk(rev.Root, "")
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
