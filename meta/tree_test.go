package meta

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

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

// TestTreeFormat2 round-trips what format 2 adds, keeps format 1 for a
// directory that needs nothing newer, and refuses the ways a format 2
// tree can be malformed.
func TestTreeFormat2(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, nil)
	mtime := time.Unix(1700000000, 5).UTC()
	blob, err := objects.PutBytes(ctx, db.Store(), []byte("shared"))
	if err != nil {
		t.Fatal(err)
	}
	sub := &Tree{Entries: []Entry{
		{Name: "fifo", Kind: KindFIFO, Mode: 0o640, MTime: mtime, Owned: true, UID: 1000, GID: 1000},
		{Name: "link2", Kind: KindFile, Mode: 0o644, MTime: mtime, Digest: blob, Size: 6, Link: 7, Owned: true, UID: 0, GID: 0},
	}}
	subD, err := db.WriteTree(ctx, sub)
	if err != nil {
		t.Fatal(err)
	}
	top := &Tree{Entries: []Entry{
		{Name: "dev", Kind: KindCharDev, Mode: 0o600, MTime: mtime, Rdev: unix.Mkdev(1, 3), Owned: true},
		DirEntry("d", 0o755|fs.ModeSetgid, mtime, subD, sub),
		{Name: "link1", Kind: KindFile, Mode: 0o644, MTime: mtime, Digest: blob, Size: 6, Link: 7, Owned: true,
			Xattrs: []Xattr{{Name: "user.b", Value: []byte("2")}, {Name: "user.a", Value: nil}}},
		{Name: "sock", Kind: KindSocket, Mode: 0o755, MTime: mtime, Owned: true, UID: 4294967295, GID: 4294967294},
	}}
	topD, err := db.WriteTree(ctx, top)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := objects.Get(ctx, db.Store(), topD)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(raw, []byte(magicTree2)) {
		t.Fatalf("a tree with owners is written as %q", raw[:11])
	}
	got, err := decodeTree(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Entries) != 4 {
		t.Fatalf("entries %+v", got.Entries)
	}
	d, dev, l1, sock := got.Entries[0], got.Entries[1], got.Entries[2], got.Entries[3]
	if dev.Kind != KindCharDev || dev.Rdev != unix.Mkdev(1, 3) || !dev.Owned || dev.UID != 0 {
		t.Errorf("device %+v", dev)
	}
	if d.Sub != (Stats{Files: 1, Bytes: 6, Specials: 1, Linked: 1}) {
		t.Errorf("directory totals %+v", d.Sub)
	}
	if l1.Link != 7 || len(l1.Xattrs) != 2 || l1.Xattrs[0].Name != "user.a" || string(l1.Xattrs[1].Value) != "2" {
		t.Errorf("link1 %+v", l1)
	}
	if sock.Kind != KindSocket || sock.UID != 4294967295 || sock.GID != 4294967294 {
		t.Errorf("socket %+v", sock)
	}
	if st := got.Stats(); st != (Stats{Files: 2, Dirs: 1, Bytes: 6 + 6 + int64(len("user.a")+len("user.b")+1), Specials: 3, Linked: 2}) {
		t.Errorf("tree totals %+v", st)
	}
	// Format 1 for what it can hold: the empty tree and the trees written
	// before format 2 keep their digests.
	plain := &Tree{Entries: []Entry{FileEntry("f", 0o644, mtime, blob, 6)}}
	if b := encodeTree(plain); !bytes.HasPrefix(b, []byte(magicTree)) {
		t.Errorf("a plain tree is written as %q", b[:11])
	}
	if !bytes.HasPrefix(emptyTree, []byte(magicTree)) {
		t.Errorf("the empty tree is not format 1")
	}
	for name, bad := range map[string]*Tree{
		"link on a directory":     {Entries: []Entry{{Name: "x", Kind: KindDir, Digest: EmptyTreeDigest, Link: 1}}},
		"xattr without namespace": {Entries: []Entry{{Name: "x", Kind: KindFIFO, Xattrs: []Xattr{{Name: "plain"}}}}},
		"xattr value too long":    {Entries: []Entry{{Name: "x", Kind: KindFIFO, Xattrs: []Xattr{{Name: "user.v", Value: make([]byte, MaxXattrValue+1)}}}}},
		"duplicate xattr":         {Entries: []Entry{{Name: "x", Kind: KindFIFO, Xattrs: []Xattr{{Name: "user.v"}, {Name: "user.v"}}}}},
	} {
		b := encodeTree(bad)
		if _, err := decodeTree(b); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
	// A format 2 header on a tree format 1 holds is a second encoding.
	b := append([]byte(magicTree2), encodeTree(plain)[len(magicTree):]...)
	if _, err := decodeTree(b); err == nil {
		t.Error("a format 2 tree that format 1 can hold decoded")
	}
}
