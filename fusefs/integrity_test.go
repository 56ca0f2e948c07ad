package fusefs

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/wsfs/wsfs/meta"
)

// lockedBuffer collects log output from the server goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestCorruptBlobIsEIO damages a committed blob behind the store's back:
// reading the file gives EIO (never wrong bytes, never ENOENT) and a log
// line names the workspace, the path and the digest.
func TestCorruptBlobIsEIO(t *testing.T) {
	var logs lockedBuffer
	e := newEnv(t, func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	dir := e.create("integrity/a", nil)
	// Commit the file behind the mount, so the mount has no copy of it.
	ctx := context.Background()
	if _, _, err := e.db.WriteFile(ctx, "integrity/a", "data.txt", strings.NewReader("the right bytes\n"), meta.WriteFileOptions{}); err != nil {
		t.Fatal(err)
	}
	ent, err := e.db.Lookup(ctx, meta.Ref{Workspace: "integrity/a"}, "data.txt")
	if err != nil {
		t.Fatal(err)
	}
	// Damage the content where the folder store holds it (a byte of its
	// pack).
	damageStored(t, e, ent.Digest)
	f, err := os.Open(filepath.Join(dir, "data.txt"))
	if err == nil {
		_, err = io.ReadAll(f)
		f.Close()
	}
	if !errors.Is(err, syscall.EIO) {
		t.Fatalf("reading a corrupt blob: %v, want EIO", err)
	}
	// The history view gives EIO too.
	if _, err := os.ReadFile(filepath.Join(e.mnt, ".history/integrity/a/2/data.txt")); !errors.Is(err, syscall.EIO) {
		t.Fatalf("history read of a corrupt blob: %v, want EIO", err)
	}
	out := logs.String()
	if !strings.Contains(out, "integrity/a") || !strings.Contains(out, "data.txt") || !strings.Contains(out, ent.Digest.String()) {
		t.Fatalf("log does not name workspace, path and digest:\n%s", out)
	}
}

// TestOverwriteCorruptFile damages committed blobs: writing over a damaged
// file (O_TRUNC, or truncate to 0) needs none of its old bytes and
// succeeds, while reading another damaged file is still EIO, logged.
func TestOverwriteCorruptFile(t *testing.T) {
	var logs lockedBuffer
	e := newEnv(t, func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	dir := e.create("integrity/b", nil)
	ctx := context.Background()
	names := []string{"overwrite.txt", "truncate.txt", "read.txt"}
	for _, name := range names {
		if _, _, err := e.db.WriteFile(ctx, "integrity/b", name, strings.NewReader("the right bytes of "+name+"\n"), meta.WriteFileOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range names {
		ent, err := e.db.Lookup(ctx, meta.Ref{Workspace: "integrity/b"}, name)
		if err != nil {
			t.Fatal(err)
		}
		damageStored(t, e, ent.Digest)
	}
	if err := os.WriteFile(filepath.Join(dir, "overwrite.txt"), []byte("new\n"), 0o644); err != nil {
		t.Fatalf("writing over a corrupt file: %v", err)
	}
	if err := os.Truncate(filepath.Join(dir, "truncate.txt"), 0); err != nil {
		t.Fatalf("truncating a corrupt file to 0: %v", err)
	}
	if _, err := os.ReadFile(filepath.Join(dir, "read.txt")); !errors.Is(err, syscall.EIO) {
		t.Fatalf("reading a corrupt file: %v, want EIO", err)
	}
	if out := logs.String(); !strings.Contains(out, "read.txt") || !strings.Contains(out, "corrupt") {
		t.Fatalf("the server did not log the corrupt read:\n%s", out)
	}
	rev, ok := e.snapshot("integrity/b")
	if !ok {
		t.Fatal("nothing committed")
	}
	if got := e.catRev("integrity/b", rev.N, "overwrite.txt"); got != "new\n" {
		t.Fatalf("committed overwrite %q", got)
	}
	if got := e.catRev("integrity/b", rev.N, "truncate.txt"); got != "" {
		t.Fatalf("committed truncate %q", got)
	}
	if got := mustRead(t, filepath.Join(dir, "overwrite.txt")); got != "new\n" {
		t.Fatalf("overwrite reads back %q", got)
	}
}

// TestRewriteSameContentHeals damages a committed file's content in the
// store, then writes the same bytes over it on the mount: the commit
// stores a good copy, and the file reads again, now and in the history.
func TestRewriteSameContentHeals(t *testing.T) {
	e := newEnv(t)
	dir := e.create("integrity/c", nil)
	ctx := context.Background()
	const content = "the same bytes, written twice\n"
	if _, _, err := e.db.WriteFile(ctx, "integrity/c", "f.txt", strings.NewReader(content), meta.WriteFileOptions{}); err != nil {
		t.Fatal(err)
	}
	ent, err := e.db.Lookup(ctx, meta.Ref{Workspace: "integrity/c"}, "f.txt")
	if err != nil {
		t.Fatal(err)
	}
	damageStored(t, e, ent.Digest)
	if _, err := os.ReadFile(filepath.Join(dir, "f.txt")); !errors.Is(err, syscall.EIO) {
		t.Fatalf("reading the damaged file: %v, want EIO", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	rev, ok := e.snapshot("integrity/c")
	if !ok {
		t.Fatal("nothing committed")
	}
	if got := e.catRev("integrity/c", rev.N-1, "f.txt"); got != content {
		t.Fatalf("the earlier revision after the rewrite: %q", got)
	}
	if rep, err := e.db.Fsck(ctx, meta.FsckOptions{}); err != nil || !rep.OK() {
		t.Fatalf("fsck after the rewrite: %v %+v", err, rep)
	}
}
