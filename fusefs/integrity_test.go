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
	if err := e.fs.Reload(ctx, "integrity/a"); err != nil {
		t.Fatal(err)
	}
	ent, err := e.db.Lookup(ctx, meta.Ref{Workspace: "integrity/a"}, "data.txt")
	if err != nil {
		t.Fatal(err)
	}
	// Damage the blob in the folder store (same size, other bytes).
	blob := filepath.Join(e.home, "objects", filepath.FromSlash(ent.Digest.Key()))
	os.Chmod(blob, 0o644)
	if err := os.WriteFile(blob, []byte("the wrong bytes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
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
