package meta

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/wsfs/wsfs/objects"
)

func quotaErr(t *testing.T, err error, kind QuotaKind) *QuotaError {
	t.Helper()
	var qe *QuotaError
	if !errors.As(err, &qe) || qe.Kind != kind {
		t.Fatalf("got %v, want a %s quota error", err, kind)
	}
	return qe
}

func TestQuotas(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, nil)
	q := DefaultQuotas()
	q.MaxEntries = 5
	q.MaxFileBytes = 10
	q.MaxWorkspaceBytes = 25
	q.MaxPathComponents = 3
	q.MaxPathBytes = 20
	q.MaxSymlinkTarget = 8
	w, err := db.Create(ctx, "acme/a", CreateOptions{Quotas: &q})
	if err != nil {
		t.Fatal(err)
	}
	commit := func(ops ...Op) error {
		cur, _ := db.Get(ctx, w.Name)
		_, _, err := db.Commit(ctx, w.Name, cur.Head, Change{Ops: ops})
		return err
	}
	// Root + 3 files = 4 entries; the fifth fits, the sixth does not.
	if err := commit(PutBytes("a", []byte("0123456789"), 0, t0), PutBytes("b", []byte("0123456789"), 0, t0), Mkdir("d", 0, t0)); err != nil {
		t.Fatal(err)
	}
	err = commit(PutBytes("d/x", []byte("1"), 0, t0), PutBytes("d/y", []byte("2"), 0, t0))
	qe := quotaErr(t, err, QuotaEntries)
	if qe.Path != "d/y" || qe.Usage != 5 || qe.Limit != 5 || qe.Error() != "meta: quota: 5 entries (workspace acme/a has 5): d/y" {
		t.Fatalf("entries error %+v: %v", qe, qe)
	}
	quotaErr(t, commit(PutBytes("big", []byte("0123456789x"), 0, t0)), QuotaFileBytes)
	qe = quotaErr(t, commit(PutBytes("c", []byte("0123456"), 0, t0)), QuotaWorkspaceBytes)
	if qe.Usage != 20 {
		t.Fatalf("workspace bytes usage %d", qe.Usage)
	}
	// Replacing a file with a smaller one is fine even at the limit.
	if err := commit(PutBytes("a", []byte("01"), 0, t0), PutBytes("c", []byte("0123456"), 0, t0)); err != nil {
		t.Fatal(err)
	}
	quotaErr(t, commit(Mkdir("d/e/f/g", 0, t0)), QuotaPathComponents)
	quotaErr(t, commit(PutBytes("d/abcdefghijklmnopqrstu", nil, 0, t0)), QuotaPathBytes)
	quotaErr(t, commit(Symlink("b", "012345678", t0)), QuotaSymlinkTarget)
	// A name longer than NAME_MAX is refused even within the path limit.
	q3 := DefaultQuotas()
	w3, _ := db.Create(ctx, "acme/names", CreateOptions{Quotas: &q3})
	_, _, err = db.Commit(ctx, w3.Name, 1, Change{Ops: []Op{PutBytes("d/"+strings.Repeat("n", 256), nil, 0, t0)}})
	if qe = quotaErr(t, err, QuotaNameBytes); !qe.Kind.NameTooLong() || qe.Usage != 256 {
		t.Fatalf("long name: %+v", qe)
	}
	mustCommit(t, db, w3.Name, 1, PutBytes("d/"+strings.Repeat("n", 255), []byte("ok"), 0, t0))
	if got := readFile(t, db, Ref{Workspace: w3.Name}, "d/"+strings.Repeat("n", 255)); got != "ok" {
		t.Fatalf("255-byte name reads %q", got)
	}
	// Moving a directory deeper checks the paths inside it.
	q2 := DefaultQuotas()
	q2.MaxPathComponents = 3
	w2, _ := db.Create(ctx, "acme/deep", CreateOptions{Quotas: &q2})
	mustCommit(t, db, w2.Name, 1, Mkdir("m/n", 0, t0), Mkdir("d", 0, t0))
	_, _, err = db.Commit(ctx, w2.Name, 2, Change{Ops: []Op{Rename("m", "d/x/m")}})
	if qe = quotaErr(t, err, QuotaPathComponents); qe.Path != "d/x/m/n" {
		t.Fatalf("rename quota error names %q", qe.Path)
	}
	mustCommit(t, db, w2.Name, 2, Rename("m", "d/m"))
	// Lowering a quota below usage keeps shrinking commits possible.
	q.MaxEntries = 2
	if _, err := db.Update(ctx, w.Name, WorkspaceUpdate{Quotas: &q}); err != nil {
		t.Fatal(err)
	}
	if err := commit(Remove("b")); err != nil {
		t.Fatalf("shrinking commit over quota: %v", err)
	}
	quotaErr(t, commit(PutBytes("n", nil, 0, t0)), QuotaEntries)
	// WriteFile enforces the same limits.
	_, _, err = db.WriteFile(ctx, w.Name, "huge", strings.NewReader(strings.Repeat("x", 100)), WriteFileOptions{})
	qe = quotaErr(t, err, QuotaFileBytes)
	if qe.Usage != 100 || qe.Path != "huge" {
		t.Fatalf("WriteFile quota error %+v", qe)
	}
}

func TestStaleCommitRace(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, nil)
	w := mustCreate(t, db, "acme/a")
	const n = 8
	var wg sync.WaitGroup
	results := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, results[i] = db.Commit(ctx, w.Name, 1, Change{Ops: []Op{PutBytes(fmt.Sprintf("f%d", i), []byte{byte(i)}, 0, t0)}})
		}()
	}
	wg.Wait()
	wins := 0
	for _, err := range results {
		switch {
		case err == nil:
			wins++
		case !errors.Is(err, ErrStale):
			t.Fatalf("unexpected error: %v", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d commits on the same base won, want 1", wins)
	}
	head, _ := db.Show(ctx, Ref{Workspace: w.Name})
	if head.N != 2 || head.Stats.Files != 1 {
		t.Fatalf("head %+v", head)
	}
	rep, err := db.Fsck(ctx, FsckOptions{})
	if err != nil || !rep.OK() {
		t.Fatalf("fsck: %v %+v", err, rep)
	}
	// The losers' manifests were removed, so only the winner's is left.
	var manifests int
	db.store.List(ctx, func(i objects.Info) error {
		b, _ := objects.Get(ctx, db.store, i.Digest)
		if classify(b) == objRevision {
			manifests++
		}
		return nil
	})
	if manifests != 2 {
		t.Fatalf("%d manifests in the store, want 2", manifests)
	}
}

// flakyStore fails every Put once armed.
type flakyStore struct {
	objects.Store
	mu    sync.Mutex
	fails bool
	puts  int
	after int // puts that succeed once armed
}

func (f *flakyStore) Put(ctx context.Context, d objects.Digest, r io.Reader, size int64) error {
	f.mu.Lock()
	fail := f.fails && f.puts >= f.after
	f.puts++
	f.mu.Unlock()
	if fail {
		return errors.New("connection refused")
	}
	return f.Store.Put(ctx, d, r, size)
}

func TestDeadStoreLeavesHead(t *testing.T) {
	ctx := context.Background()
	for after := 0; after < 2; after++ {
		fs := &flakyStore{Store: objects.NewMemory()}
		db := openTestDB(t, fs)
		q := DefaultQuotas()
		q.MaxFileBytes = 1 << 20
		w, err := db.Create(ctx, "acme/a", CreateOptions{Quotas: &q})
		if err != nil {
			t.Fatal(err)
		}
		r2 := mustCommit(t, db, w.Name, 1, PutBytes("a", []byte("a"), 0, t0))
		fs.mu.Lock()
		fs.fails, fs.after, fs.puts = true, after, 0
		fs.mu.Unlock()
		// A large blob (a single upload), then the pack of the trees (root,
		// d), the small blob and the manifest: failing at either.
		big := bytes.Repeat([]byte("b"), objects.PackThreshold)
		_, _, err = db.Commit(ctx, w.Name, 2, Change{Ops: []Op{PutBytes("d/b", []byte("b"), 0, t0), PutBytes("big", big, 0, t0)}})
		if !errors.Is(err, ErrStore) || !strings.Contains(err.Error(), "head stays at revision 2") {
			t.Fatalf("after %d puts: commit on a dead store: %v", after, err)
		}
		got, _ := db.Get(ctx, w.Name)
		if got.Head != 2 || got.HeadRoot != r2.Root {
			t.Fatalf("head moved: %+v", got)
		}
		if readFile(t, db, Ref{Workspace: w.Name}, "a") != "a" {
			t.Fatal("head content changed")
		}
	}
}

func TestWriteFile(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, nil)
	w := mustCreate(t, db, "acme/a")
	r, ok, err := db.WriteFile(ctx, w.Name, "/reports/2026/x.csv", strings.NewReader("a,b\n"), WriteFileOptions{})
	if err != nil || !ok || r.N != 2 {
		t.Fatalf("write: %v %v %+v", err, ok, r)
	}
	if _, _, err := db.WriteFile(ctx, w.Name, "reports/2026/x.csv", strings.NewReader("c"), WriteFileOptions{}); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("overwrite without force: %v", err)
	}
	if _, _, err := db.WriteFile(ctx, w.Name, "reports/2026/x.csv", strings.NewReader("c"), WriteFileOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, db, Ref{Workspace: w.Name}, "reports/2026/x.csv"); got != "c" {
		t.Fatalf("content %q", got)
	}
	if _, _, err := db.WriteFile(ctx, w.Name, "reports", strings.NewReader("c"), WriteFileOptions{Force: true}); !errors.Is(err, ErrExists) {
		t.Fatalf("write over a directory: %v", err)
	}
	mustCommit(t, db, w.Name, 3, Symlink("link", "reports", t0))
	if _, _, err := db.WriteFile(ctx, w.Name, "link/evil.txt", strings.NewReader("x"), WriteFileOptions{}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("write through a symlinked parent: %v", err)
	}
	if _, err := db.Lookup(ctx, Ref{Workspace: w.Name}, "reports/evil.txt"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the symlink was followed: %v", err)
	}
	// OpenFile follows symlinks inside the workspace, refuses others.
	mustCommit(t, db, w.Name, 4, Symlink("abs", "/workspace/reports/2026/x.csv", t0), Symlink("out", "/etc/passwd", t0))
	if got := readFile(t, db, Ref{Workspace: w.Name}, "link/2026/x.csv"); got != "c" {
		t.Fatalf("through link: %q", got)
	}
	if got := readFile(t, db, Ref{Workspace: w.Name}, "abs"); got != "c" {
		t.Fatalf("absolute link: %q", got)
	}
	if _, _, err := db.OpenFile(ctx, Ref{Workspace: w.Name}, "out"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("link outside: %v", err)
	}
	// Loops end with an error.
	mustCommit(t, db, w.Name, 5, Symlink("loop", "loop", t0), Symlink("p", "q/x", t0), Symlink("q", "p", t0))
	for _, p := range []string{"loop", "loop/x", "p", "q/y"} {
		if _, _, err := db.OpenFile(ctx, Ref{Workspace: w.Name}, p); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "too many levels") {
			t.Fatalf("OpenFile(%s) on a loop: %v", p, err)
		}
	}
}

func TestExportImportRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, nil)
	w := mustCreate(t, db, "acme/a")
	mustCommit(t, db, w.Name, 1,
		PutBytes("a.txt", []byte("alpha\n"), 0o600, t0), PutBytes("d/e/b.bin", []byte{0, 1, 2}, 0o755, t0),
		Mkdir("empty", 0o700, t0), Symlink("d/l", "../a.txt", t0),
		PutBytes("run.sh", []byte("#!/bin/sh\n"), 0o755|os.ModeSetuid|os.ModeSetgid, t0), Mkdir("tmp", 0o777|os.ModeSticky, t0))
	var buf bytes.Buffer
	if err := db.ExportTar(ctx, Ref{Workspace: w.Name}, &buf); err != nil {
		t.Fatal(err)
	}
	// GNU tar can read it.
	if tarBin, err := exec.LookPath("tar"); err == nil {
		dir := t.TempDir()
		cmd := exec.Command(tarBin, "-x", "-C", dir)
		cmd.Stdin = bytes.NewReader(buf.Bytes())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("tar -x: %v %s", err, out)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "d/l")); string(b) != "alpha\n" {
			t.Fatalf("extracted link reads %q", b)
		}
	}
	w2 := mustCreate(t, db, "acme/b")
	r, ok, err := db.ImportTar(ctx, w2.Name, bytes.NewReader(buf.Bytes()), ImportOptions{})
	if err != nil || !ok {
		t.Fatal(err, ok)
	}
	src, _ := db.Show(ctx, Ref{Workspace: w.Name})
	if r.Root != src.Root {
		diffs, _ := db.Diff(ctx, Ref{Workspace: w.Name}, Ref{Workspace: w2.Name}, DiffOptions{})
		t.Fatalf("import of the export differs: %+v", diffs)
	}
	// FIFOs, devices and user.* attributes come back; trusted.* and
	// owners are not taken from an archive.
	data := tarOf(t, &tar.Header{Name: "p", Typeflag: tar.TypeFifo, Mode: 0o640, Uid: 0, Gid: 0},
		&tar.Header{Name: "null", Typeflag: tar.TypeChar, Mode: 0o666, Devmajor: 1, Devminor: 3},
		&tar.Header{Name: "x.txt", Typeflag: tar.TypeReg, Mode: 0o644, Format: tar.FormatPAX,
			PAXRecords: map[string]string{"SCHILY.xattr.user.color": "blue", "SCHILY.xattr.trusted.k": "v"}})
	w3 := mustCreate(t, db, "acme/c")
	r3, _, err := db.ImportTar(ctx, w3.Name, bytes.NewReader(data), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := db.Lookup(ctx, Ref{Workspace: w3.Name, Rev: r3.N}, "p")
	null, _ := db.Lookup(ctx, Ref{Workspace: w3.Name, Rev: r3.N}, "null")
	x, _ := db.Lookup(ctx, Ref{Workspace: w3.Name, Rev: r3.N}, "x.txt")
	if p.Kind != KindFIFO || p.Mode != 0o640 || p.Owned || null.Kind != KindCharDev || null.Rdev != unix.Mkdev(1, 3) ||
		len(x.Xattrs) != 1 || x.Xattrs[0].Name != "user.color" || string(x.Xattrs[0].Value) != "blue" {
		t.Fatalf("imported p %+v null %+v x.txt %+v", p, null, x)
	}
	if r3.Stats.Specials != 2 {
		t.Fatalf("imported totals %+v", r3.Stats)
	}
	// A hard link becomes a copy.
	data = tarOf(t, &tar.Header{Name: "f", Typeflag: tar.TypeReg, Mode: 0o644}, &tar.Header{Name: "g", Typeflag: tar.TypeLink, Linkname: "f"})
	if _, _, err := db.ImportTar(ctx, w2.Name, bytes.NewReader(data), ImportOptions{Under: "sub"}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, db, Ref{Workspace: w2.Name}, "sub/g"); got != "f" {
		t.Fatalf("hard link content %q", got)
	}
}

func TestRestoreAndDiff(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, nil)
	w := mustCreate(t, db, "acme/a")
	mustCommit(t, db, w.Name, 1, PutBytes("t.txt", []byte("one\ntwo\nthree\n"), 0, t0), PutBytes("gone/x", []byte("x"), 0, t0), PutBytes("bin", []byte{0, 1}, 0, t0))
	mustCommit(t, db, w.Name, 2, PutBytes("t.txt", []byte("one\n2\nthree\nfour\n"), 0, t0), Remove("gone"), PutBytes("new", []byte("n"), 0, t0), PutBytes("bin", []byte{0, 2}, 0, t0))
	diffs, err := db.Diff(ctx, Ref{w.Name, 2}, Ref{w.Name, 3}, DiffOptions{Text: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range diffs {
		got = append(got, string(d.Action)+" "+d.Path)
	}
	want := "modified bin,removed gone,removed gone/x,added new,modified t.txt"
	if strings.Join(got, ",") != want {
		t.Fatalf("diff = %v, want %v", got, want)
	}
	if !diffs[0].Binary {
		t.Fatalf("binary file diff %+v", diffs[0])
	}
	wantText := "--- a/t.txt\n+++ b/t.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n three\n+four\n"
	if diffs[4].Unified != wantText {
		t.Fatalf("unified diff:\n%s\nwant:\n%s", diffs[4].Unified, wantText)
	}
	// Restore makes revision 4 equal to 2; history stays.
	r4, ok, err := db.Restore(ctx, Ref{w.Name, 2}, CommitInfo{Author: "me"})
	if err != nil || !ok || r4.N != 4 {
		t.Fatalf("restore: %v %v %+v", err, ok, r4)
	}
	r2, _ := db.Show(ctx, Ref{w.Name, 2})
	if r4.Root != r2.Root || r4.Command != "restore acme/a@2" {
		t.Fatalf("restored %+v", r4)
	}
	if _, ok, _ := db.Restore(ctx, Ref{w.Name, 2}, CommitInfo{}); ok {
		t.Fatal("restoring the head's own tree committed")
	}
	if d, _ := db.Diff(ctx, Ref{w.Name, 2}, Ref{w.Name, 4}, DiffOptions{}); len(d) != 0 {
		t.Fatalf("diff of restored revision: %+v", d)
	}
	// Diff of one path.
	d, err := db.Diff(ctx, Ref{w.Name, 2}, Ref{w.Name, 3}, DiffOptions{Path: "t.txt"})
	if err != nil || len(d) != 1 || d[0].Path != "t.txt" {
		t.Fatalf("path diff %v %+v", err, d)
	}
}
