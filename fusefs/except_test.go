package fusefs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/wsfs/wsfs/meta"
)

// TestExcept: a full mount that leaves one workspace out (another mount
// serves it) shows the others and not that one, nor lets it be made.
func TestExcept(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.Except = "acme/solo" })
	e.create("acme/other", nil)
	if _, err := e.db.Create(t.Context(), "acme/solo", meta.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(e.mnt, "acme"))
	if err != nil || len(ents) != 1 || ents[0].Name() != "other" {
		t.Fatalf("acme lists %v (%v), want only other", ents, err)
	}
	if _, err := os.Stat(filepath.Join(e.mnt, "acme", "solo")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stat of the left-out workspace: %v", err)
	}
	if err := os.Mkdir(filepath.Join(e.mnt, "acme", "solo"), 0o755); !errors.Is(err, syscall.EEXIST) {
		t.Fatalf("mkdir of the left-out workspace: %v", err)
	}
	if _, err := e.fs.WorkspaceDir("acme/solo"); err == nil {
		t.Fatal("WorkspaceDir of the left-out workspace")
	}
	mustWrite(t, filepath.Join(e.mnt, "acme", "other", "f"), "x")
}
