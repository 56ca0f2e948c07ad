package meta

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wsfs/wsfs/objects"
)

func TestWriteTreeCommitTree(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, nil)
	w := mustCreate(t, db, "acme/a")
	r2 := mustCommit(t, db, w.Name, 1, PutBytes("keep", []byte("k"), 0, t0), PutBytes("old", []byte("o"), 0, t0))
	// Build a new root the way a mount would: blobs, then trees bottom up.
	blob, err := objects.PutBytes(ctx, db.Store(), []byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	sub := &Tree{Entries: []Entry{FileEntry("h.txt", 0o644, t0, blob, 5), SymlinkEntry("ln", "h.txt", t0)}}
	subD, err := db.WriteTree(ctx, sub)
	if err != nil {
		t.Fatal(err)
	}
	keep, _ := db.LookupTree(ctx, r2.Root, "keep")
	root := &Tree{Entries: []Entry{DirEntry("src", 0o755, t0, subD, sub), keep}} // unsorted is fine
	rootD, err := db.WriteTree(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	rev, ok, err := db.CommitTree(ctx, w.Name, 2, rootD, "/src", CommitInfo{Command: "mount sync"})
	if err != nil || !ok {
		t.Fatal(err, ok)
	}
	if rev.Stats != (Stats{Files: 2, Dirs: 1, Symlinks: 1, Bytes: 6}) || rev.Cwd != "/src" {
		t.Fatalf("rev %+v", rev)
	}
	var got []string
	for _, c := range rev.Changes {
		got = append(got, string(c.Action)+" "+c.Path)
	}
	if want := "removed old,added src"; joinStrings(got) != want {
		t.Fatalf("changes %v, want %s", got, want)
	}
	if readFile(t, db, Ref{Workspace: w.Name}, "src/ln") != "hello" {
		t.Fatal("content")
	}
	// A directory entry whose totals lie is refused.
	bad := DirEntry("src", 0o755, t0, subD, sub)
	bad.Sub.Bytes++
	if _, err := db.WriteTree(ctx, &Tree{Entries: []Entry{bad}}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("lying totals: %v", err)
	}
	if _, err := db.WriteTree(ctx, &Tree{Entries: []Entry{keep, keep}}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("duplicate names: %v", err)
	}
	// Growth past a quota is refused; the whole tree is the "path".
	q := DefaultQuotas()
	q.MaxEntries = 3
	db.Update(ctx, w.Name, WorkspaceUpdate{Quotas: &q})
	big := &Tree{Entries: []Entry{DirEntry("src", 0o755, t0, subD, sub), keep, FileEntry("more", 0o644, t0, blob, 5)}}
	bigD, _ := db.WriteTree(ctx, big)
	_, _, err = db.CommitTree(ctx, w.Name, 3, bigD, "", CommitInfo{})
	var qe *QuotaError
	if !errors.As(err, &qe) || qe.Kind != QuotaEntries {
		t.Fatalf("commit of a tree over quota: %v", err)
	}
	// A tree naming content that is not in the store is refused.
	ghost := &Tree{Entries: []Entry{FileEntry("ghost", 0o644, t0, objects.Sum([]byte("never stored")), 12)}}
	ghostD, _ := db.WriteTree(ctx, ghost)
	if _, _, err := db.CommitTree(ctx, w.Name, 3, ghostD, "", CommitInfo{}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "ghost") {
		t.Fatalf("tree with a missing blob: %v", err)
	}
	// A root that is not in the store is refused before anything is written.
	if _, _, err := db.CommitTree(ctx, w.Name, 3, objects.Sum([]byte("nothing")), "", CommitInfo{}); !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("missing root: %v", err)
	}
}

func joinStrings(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}

func TestReadOnlyOpen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), DBFileName)
	if _, err := Open(ctx, path, objects.NewMemory(), Options{ReadOnly: true}); err == nil {
		t.Fatal("read-only open of a missing database succeeded")
	}
	db, err := Open(ctx, path, objects.NewMemory(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, db, "acme/a")
	if _, err := Open(ctx, path, objects.NewMemory(), Options{ReadOnly: true, LockTimeout: 50e6}); !errors.Is(err, ErrInUse) {
		t.Fatalf("read-only open beside a writer: %v", err)
	}
	db.Close()
	r1, err := Open(ctx, path, objects.NewMemory(), Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Close()
	r2, err := Open(ctx, path, objects.NewMemory(), Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if ws, err := r2.List(ctx, ""); err != nil || len(ws) != 1 {
		t.Fatalf("list: %v %v", ws, err)
	}
}

func TestEntryTimesRoundTrip(t *testing.T) {
	for _, tm := range []time.Time{time.Unix(0, 0).UTC(), t0, time.Unix(-5, 7).UTC(), time.Date(2, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)} {
		tr := &Tree{Entries: []Entry{FileEntry("f", 0o644, tm, EmptyTreeDigest, 0)}}
		back, err := decodeTree(encodeTree(tr))
		if err != nil {
			t.Fatal(err)
		}
		got := back.Entries[0].MTime
		want := tm
		if tm.Before(minEntryTime) {
			want = minEntryTime.UTC()
		} else if tm.After(maxEntryTime) {
			want = maxEntryTime.UTC()
		}
		if !got.Equal(want) {
			t.Errorf("%v came back as %v", tm, got)
		}
	}
}
