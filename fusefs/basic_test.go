package fusefs

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta"
)

func TestWriteCommitRead(t *testing.T) {
	e := newEnv(t)
	dir := e.create("acme/a", nil)
	if err := os.MkdirAll(filepath.Join(dir, "reports/empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "reports/scores.csv"), "name,score\nAlpha,8\n")
	if err := os.Symlink("scores.csv", filepath.Join(dir, "reports/link")); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, filepath.Join(dir, "reports/link")); got != "name,score\nAlpha,8\n" {
		t.Fatalf("read through link: %q", got)
	}
	rev, ok := e.snapshot("acme/a")
	if !ok || rev.N != 2 {
		t.Fatalf("snapshot: %d %v", rev.N, ok)
	}
	if got := e.catRev("acme/a", 2, "reports/scores.csv"); got != "name,score\nAlpha,8\n" {
		t.Fatalf("committed content %q", got)
	}
	// A second snapshot with no change commits nothing.
	if _, ok := e.snapshot("acme/a"); ok {
		t.Fatal("an unchanged tree made a revision")
	}
	// Rename, then commit: the history shows both.
	if err := os.Rename(filepath.Join(dir, "reports/scores.csv"), filepath.Join(dir, "reports/final.csv")); err != nil {
		t.Fatal(err)
	}
	rev, _ = e.snapshot("acme/a")
	var paths []string
	for _, c := range rev.Changes {
		paths = append(paths, string(c.Action)+" "+c.Path)
	}
	sort.Strings(paths)
	if len(paths) != 2 || paths[0] != "added reports/final.csv" || paths[1] != "removed reports/scores.csv" {
		t.Fatalf("changes %v", paths)
	}
	// History is readable and read-only.
	hist := filepath.Join(e.mnt, ".history/acme/a/2/reports/scores.csv")
	if got := mustRead(t, hist); got != "name,score\nAlpha,8\n" {
		t.Fatalf("history read %q", got)
	}
	if err := os.WriteFile(hist, []byte("x"), 0o644); !errors.Is(err, syscall.EROFS) {
		t.Fatalf("write to history: %v, want EROFS", err)
	}
	ents, err := os.ReadDir(filepath.Join(e.mnt, ".history/acme/a"))
	if err != nil || len(ents) != 3 {
		t.Fatalf("history revisions: %v %v", ents, err)
	}
}

func TestMkdirCreatesWorkspace(t *testing.T) {
	e := newEnv(t)
	if err := os.Mkdir(filepath.Join(e.mnt, "acme"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(e.mnt, "acme", "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.Get(t.Context(), "acme/new"); err != nil {
		t.Fatalf("workspace not created: %v", err)
	}
	if err := os.Mkdir(filepath.Join(e.mnt, "acme", "Bad Name"), 0o755); !errors.Is(err, syscall.EINVAL) {
		t.Fatalf("bad name: %v, want EINVAL", err)
	}
	mustWrite(t, filepath.Join(e.mnt, "acme/new/x"), "1")
	if got := mustRead(t, filepath.Join(e.mnt, "acme/new/x")); got != "1" {
		t.Fatal(got)
	}
}

func TestQuotaEdges(t *testing.T) {
	e := newEnv(t)
	q := meta.DefaultQuotas()
	q.MaxEntries = 5
	dir := e.create("acme/q", &q)
	// The root counts: 4 more entries fit, the 5th does not.
	for i := 0; i < 4; i++ {
		mustWrite(t, filepath.Join(dir, string(rune('a'+i))), "")
	}
	err := os.WriteFile(filepath.Join(dir, "e"), nil, 0o644)
	if !errors.Is(err, syscall.EDQUOT) {
		t.Fatalf("5th entry: %v, want EDQUOT", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "dir"), 0o755); !errors.Is(err, syscall.EDQUOT) {
		t.Fatalf("mkdir past quota: %v", err)
	}
	refusals := e.fs.Refusals("acme/q")
	if len(refusals) != 2 || refusals[0].Kind != meta.QuotaEntries {
		t.Fatalf("refusals %+v", refusals)
	}

	// File size: exactly 256 KiB fits; one byte more is EFBIG and the
	// file stays as it was.
	dir2 := e.create("acme/f", nil)
	big := make([]byte, 256<<10)
	p := filepath.Join(dir2, "big")
	if err := os.WriteFile(p, big, 0o644); err != nil {
		t.Fatalf("256 KiB: %v", err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("x")); !errors.Is(err, syscall.EFBIG) {
		t.Fatalf("one byte past: %v, want EFBIG", err)
	}
	f.Close()
	if fi, _ := os.Stat(p); fi.Size() != 256<<10 {
		t.Fatalf("size after refused write: %d", fi.Size())
	}
	if err := os.Truncate(p, 256<<10+1); !errors.Is(err, syscall.EFBIG) {
		t.Fatalf("truncate up past: %v", err)
	}
	// Name length: 255 fits, 256 is ENAMETOOLONG.
	long := make([]byte, 256)
	for i := range long {
		long[i] = 'n'
	}
	if err := os.WriteFile(filepath.Join(dir2, string(long[:255])), nil, 0o644); err != nil {
		t.Fatalf("255-byte name: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir2, string(long)), nil, 0o644); !errors.Is(err, syscall.ENAMETOOLONG) {
		t.Fatalf("256-byte name: %v", err)
	}
}

// TestFollowsRestore restores behind the mount: the mount shows it without
// being told.
func TestFollowsRestore(t *testing.T) {
	e := newEnv(t)
	dir := e.create("acme/r", nil)
	mustWrite(t, filepath.Join(dir, "a.txt"), "one")
	e.snapshot("acme/r")
	mustWrite(t, filepath.Join(dir, "a.txt"), "two")
	e.snapshot("acme/r")
	if _, _, err := e.db.Restore(t.Context(), meta.Ref{Workspace: "acme/r", Rev: 2}, meta.CommitInfo{}); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, filepath.Join(dir, "a.txt")); got != "one" {
		t.Fatalf("after restore: %q", got)
	}
}

// TestNlink checks st_nlink of directories through mkdir, rmdir, rename
// and exchange (2 + subdirectories).
func TestNlink(t *testing.T) {
	e := newEnv(t)
	dir := e.create("acme/nlink", nil)
	nlink := func(p string) uint64 {
		t.Helper()
		var st syscall.Stat_t
		if err := syscall.Stat(p, &st); err != nil {
			t.Fatal(err)
		}
		return st.Nlink
	}
	for _, d := range []string{"a", "b", "a/x", "a/y"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(t, filepath.Join(dir, "a/f"), "")
	if n := nlink(filepath.Join(dir, "a")); n != 4 {
		t.Fatalf("a: nlink %d, want 4", n)
	}
	if err := os.Rename(filepath.Join(dir, "a/x"), filepath.Join(dir, "b/x")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "a/y")); err != nil {
		t.Fatal(err)
	}
	if a, b := nlink(filepath.Join(dir, "a")), nlink(filepath.Join(dir, "b")); a != 2 || b != 3 {
		t.Fatalf("after moves: a %d b %d, want 2 and 3", a, b)
	}
}

// TestTopFolderTimes: the top, tenant and history folders, which the
// mount makes up, carry the time it started, not 1970.
func TestTopFolderTimes(t *testing.T) {
	before := time.Now().Add(-time.Second)
	e := newEnv(t)
	e.create("acme/a", nil)
	for _, p := range []string{"", "acme", ".history", ".history/acme"} {
		fi, err := os.Stat(filepath.Join(e.mnt, p))
		if err != nil {
			t.Fatal(err)
		}
		if mt := fi.ModTime(); mt.Before(before) || mt.After(time.Now().Add(time.Second)) {
			t.Errorf("%q: mtime %s, want the time the mount started (after %s)", p, mt, before)
		}
	}
}
