package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
)

// TestMissingMetaDB: read-only verbs never create meta.db; on a store
// that has objects, a missing meta.db is refused with the way to rebuild
// it (by every verb: gc would take the whole store for garbage); recover
// accepts an empty database (issue 20, item 3).
func TestMissingMetaDB(t *testing.T) {
	c := newCLI(t)
	dbPath := filepath.Join(c.home, "meta.db")
	// A new home: read-only verbs answer from nothing, and write nothing.
	if out := c.ok("", "ls"); strings.Count(out, "\n") != 1 {
		t.Fatalf("ls of a new home:\n%s", out)
	}
	c.fails(exitNotFound, "not found", "log", "acme/a")
	c.ok("", "fsck")
	if _, err := os.Stat(dbPath); err == nil {
		t.Fatal("a read-only verb created meta.db")
	}

	c.ok("", "create", "acme/a")
	c.ok("kept\n", "put", "acme/a", "f.txt")
	if err := os.Rename(dbPath, dbPath+".away"); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"ls"}, {"log", "acme/a"}, {"fsck"}, {"gc", "--delete", "--grace", "0s"}, {"create", "acme/b"}} {
		_, errs, code := c.run("", args...)
		if code != exitFailure || !strings.Contains(errs, "no meta.db at "+dbPath) || !strings.Contains(errs, "wsfs recover") {
			t.Errorf("wsfs %s without meta.db: exit %d, %q", strings.Join(args, " "), code, errs)
		}
		if _, err := os.Stat(dbPath); err == nil {
			t.Fatalf("wsfs %s created meta.db", strings.Join(args, " "))
		}
	}

	// An empty meta.db (as an older wsfs's ls made one) does not stop
	// recover.
	st, err := objects.OpenDir(filepath.Join(c.home, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := meta.Open(context.Background(), dbPath, st, meta.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	c.ok("", "recover")
	if got := c.ok("", "cat", "acme/a", "f.txt"); got != "kept\n" {
		t.Fatalf("after recover over an empty meta.db: %q", got)
	}
	// One with workspaces is not replaced.
	c.fails(exitFailure, "holds workspaces", "recover")
}

// TestStoreIdentity: meta.db records its store on first use and refuses
// another, naming both; another spelling or a copy of the same store is
// the same store (issue 20, item 4).
func TestStoreIdentity(t *testing.T) {
	c := newCLI(t)
	storeA := filepath.Join(t.TempDir(), "a")
	c.ok("", "create", "--store", "file://"+storeA, "acme/a")
	c.ok("one\n", "put", "--store", "file://"+storeA, "acme/a", "f.txt")

	// Forgetting --store falls back to the home's folder: refused.
	_, errs, code := c.run("", "ls")
	if code != exitFailure || !strings.Contains(errs, "file://"+storeA) || !strings.Contains(errs, "file://"+filepath.Join(c.home, "objects")) ||
		!strings.Contains(errs, "belongs to the object store") {
		t.Fatalf("ls with the default store: exit %d, %q", code, errs)
	}
	for _, args := range [][]string{{"put", "acme/a", "g.txt"}, {"gc", "--delete", "--grace", "0s"}, {"fsck"}} {
		if _, errs, code := c.run("x", args...); code != exitFailure || !strings.Contains(errs, "belongs to the object store") {
			t.Errorf("wsfs %s with the default store: exit %d, %q", strings.Join(args, " "), code, errs)
		}
	}
	// The same folder as a plain path is the same store.
	if got := c.ok("", "cat", "--store", storeA, "acme/a", "f.txt"); got != "one\n" {
		t.Fatalf("cat with the store as a path: %q", got)
	}
	// A copy of the store holds the revisions: accepted, and recorded.
	storeB := filepath.Join(t.TempDir(), "b")
	if out, err := exec.Command("cp", "-a", storeA, storeB).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	c.ok("two\n", "put", "--force", "--store", storeB, "acme/a", "f.txt")
	if got := c.ok("", "cat", "--store", storeB, "acme/a", "f.txt"); got != "two\n" {
		t.Fatalf("cat from the copy: %q", got)
	}
	// The original lacks the new revision's objects: refused now, naming
	// the copy.
	_, errs, code = c.run("", "ls", "--store", storeA)
	if code != exitFailure || !strings.Contains(errs, "file://"+storeB) {
		t.Fatalf("ls with the original after the copy moved on: exit %d, %q", code, errs)
	}
}
