package fusefs

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wsfs/wsfs/meta"
)

// TestFollowMergesCommitsMadeElsewhere commits behind the mount while the
// mount has edits of its own: paths only the other commit changed take
// its version, paths the mount changed (or holds open for writing) keep
// the mount's, and the mount's next commit records both.
func TestFollowMergesCommitsMadeElsewhere(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const ws = "follow/merge"
	dir := e.create(ws, nil)
	for _, f := range []string{"keep.txt", "theirs.txt", "both.txt", "gone.txt", "open.txt", "sub/deep.txt", "sub/mine.txt"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, filepath.Join(dir, f), "v1 "+f)
	}
	e.snapshot(ws)

	// The mount's own edits, not committed.
	mustWrite(t, filepath.Join(dir, "both.txt"), "mount both")
	mustWrite(t, filepath.Join(dir, "sub/mine.txt"), "mount mine")
	mustWrite(t, filepath.Join(dir, "new-on-mount.txt"), "mount new")
	open, err := os.OpenFile(filepath.Join(dir, "open.txt"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()

	// A commit made elsewhere (as wsfs import does) changes four files,
	// removes one and adds two, one of them in the folder the mount edits.
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for name, body := range map[string]string{"theirs.txt": "their theirs", "both.txt": "their both", "open.txt": "their open",
		"sub/deep.txt": "their deep", "sub/added.txt": "their added", "added.txt": "their added top"} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	if _, _, err := e.db.ImportTar(ctx, ws, &tb, meta.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.db.Commit(ctx, ws, 3, meta.Change{Ops: []meta.Op{{Kind: meta.OpRemove, Path: "gone.txt"}}}); err != nil {
		t.Fatal(err)
	}

	// The writer's next write lands in the file it holds.
	if _, err := open.WriteAt([]byte("MOUNT OPEN!"), 0); err != nil {
		t.Fatal(err)
	}
	open.Close()

	want := map[string]string{
		"keep.txt": "v1 keep.txt", "theirs.txt": "their theirs", "both.txt": "mount both", "open.txt": "MOUNT OPEN!",
		"sub/deep.txt": "their deep", "sub/mine.txt": "mount mine", "sub/added.txt": "their added",
		"added.txt": "their added top", "new-on-mount.txt": "mount new",
	}
	for p, body := range want {
		if got := mustRead(t, filepath.Join(dir, p)); got != body {
			t.Errorf("%s on the mount: %q, want %q", p, got, body)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "gone.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("gone.txt, removed elsewhere and untouched on the mount: %v", err)
	}
	rev, committed := e.snapshot(ws)
	if !committed {
		t.Fatal("the mount's edits were not committed")
	}
	for p, body := range want {
		if got := e.catRev(ws, rev.N, p); got != body {
			t.Errorf("%s in revision %d: %q, want %q", p, rev.N, got, body)
		}
	}
	w, err := e.db.Get(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	// The live totals agree with the committed ones.
	e.fs.mu.Lock()
	lw := e.fs.workspaces[ws]
	e.fs.mu.Unlock()
	lw.mu.Lock()
	entries, nbytes := lw.entries, lw.bytes
	lw.mu.Unlock()
	if entries != w.Entries() || nbytes != w.Usage.Bytes {
		t.Errorf("live totals %d entries, %d bytes; committed %d, %d", entries, nbytes, w.Entries(), w.Usage.Bytes)
	}
}

// TestNoEditLostToChangesBehindTheMount writes files on the mount while
// quota changes, puts, imports and restores run behind it: every write
// made on the mount is still there, with its content, and committed.
func TestNoEditLostToChangesBehindTheMount(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const ws = "follow/race"
	q := meta.DefaultQuotas()
	q.MaxEntries = 10_000
	q.MaxWorkspaceBytes = 64 << 20
	dir := e.create(ws, &q)
	const writes = 3000
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	errs := make(chan error, 100)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			var err error
			switch i % 4 {
			case 0:
				_, err = e.db.Update(ctx, ws, meta.WorkspaceUpdate{Retention: &meta.Retention{KeepLast: int64(i%7 + 50)}})
			case 1:
				_, _, err = e.db.WriteFile(ctx, ws, fmt.Sprintf("put/%d.txt", i), strings.NewReader("put"), meta.WriteFileOptions{})
			case 2:
				var tb bytes.Buffer
				tw := tar.NewWriter(&tb)
				tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("import/%d.txt", i), Mode: 0o644, Size: 3, Typeflag: tar.TypeReg})
				tw.Write([]byte("imp"))
				tw.Close()
				_, _, err = e.db.ImportTar(ctx, ws, &tb, meta.ImportOptions{})
			case 3:
				// Commit what the mount has, then restore the revision
				// just made (a new revision equal to the head).
				if err = e.fs.Flush(ctx, ws); err == nil {
					var w meta.Workspace
					if w, err = e.db.Get(ctx, ws); err == nil {
						_, _, err = e.db.Restore(ctx, meta.Ref{Workspace: ws, Rev: w.Head}, meta.CommitInfo{Command: "restore"})
					}
				}
			}
			if err != nil && !errors.Is(err, meta.ErrStale) {
				errs <- fmt.Errorf("change %d: %w", i, err)
				return
			}
		}
	}()
	if err := os.MkdirAll(filepath.Join(dir, "w"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range writes {
		mustWrite(t, filepath.Join(dir, "w", fmt.Sprintf("%04d", i)), fmt.Sprintf("content %d\n", i))
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	check := func(where string, read func(p string) (string, error)) {
		t.Helper()
		missing := 0
		for i := range writes {
			p := fmt.Sprintf("w/%04d", i)
			got, err := read(p)
			if want := fmt.Sprintf("content %d\n", i); err != nil || got != want {
				if missing++; missing <= 5 {
					t.Errorf("%s: %s: %q, %v", where, p, got, err)
				}
			}
		}
		if missing > 0 {
			t.Fatalf("%s: %d of %d writes lost", where, missing, writes)
		}
	}
	check("the mount", func(p string) (string, error) {
		b, err := os.ReadFile(filepath.Join(dir, p))
		return string(b), err
	})
	if err := e.fs.Flush(ctx, ws); err != nil {
		t.Fatal(err)
	}
	w, err := e.db.Get(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	check("the head", func(p string) (string, error) {
		if _, err := e.db.Lookup(ctx, meta.Ref{Workspace: ws, Rev: w.Head}, p); err != nil {
			return "", err
		}
		return e.catRev(ws, w.Head, p), nil
	})
}

// TestFollowsQuotaChanges changes a quota behind the mount: the next
// write on the mount meets the new limit, and the tree is not touched.
func TestFollowsQuotaChanges(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const ws = "follow/quota"
	dir := e.create(ws, nil)
	mustWrite(t, filepath.Join(dir, "pending.txt"), "not committed yet")
	q := meta.DefaultQuotas()
	q.MaxFileBytes = 10
	if _, err := e.db.Update(ctx, ws, meta.WorkspaceUpdate{Quotas: &q}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte("more than ten bytes"), 0o644); err == nil {
		t.Fatal("a write past the new 10-byte file quota succeeded")
	}
	if got := mustRead(t, filepath.Join(dir, "pending.txt")); got != "not committed yet" {
		t.Fatalf("the pending edit after a quota change: %q", got)
	}
}

// TestFollowsCreateAndDelete creates and deletes workspaces behind the
// mount: the mount shows them at once, though the kernel had looked the
// names up before.
func TestFollowsCreateAndDelete(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.create("follow/one", nil)
	p := filepath.Join(e.mnt, "follow", "two")
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("before create: %v", err)
	}
	if _, err := e.db.Create(ctx, "follow/two", meta.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("after create: %v", err)
	}
	mustWrite(t, filepath.Join(p, "f"), "x")
	if err := e.db.Delete(ctx, "follow/two"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(p, "f")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a file of a deleted workspace: %v", err)
	}
}
