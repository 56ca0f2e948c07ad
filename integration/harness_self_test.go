package integration

import (
	"os"
	"path/filepath"
	"testing"
)

// TestHarnessKillRestart checks the harness's own contract that the
// fault tests rely on: a SIGKILLed server leaves its mount behind, the
// next Start on the same home detaches it and serves, and the committed
// revisions are all there.
func TestHarnessKillRestart(t *testing.T) {
	t.Parallel()
	e := NewEnv(t, Local)
	e.MustWsfs("create", "acme/k")
	srv := e.Start("--quiet", "1h")
	if r := e.Run("acme/k", "echo one > one.txt"); !r.Committed || r.Revision != 2 {
		t.Fatalf("run: %+v", r)
	}
	srv.Kill()
	if !mounted(e.Mnt) {
		t.Fatalf("after SIGKILL the mount at %s is gone: the fault tests expect it left behind", e.Mnt)
	}
	srv = e.Start("--quiet", "1h")
	if data, err := os.ReadFile(filepath.Join(e.WorkspaceDir("acme/k"), "one.txt")); err != nil || string(data) != "one\n" {
		t.Fatalf("one.txt after restart: %q, %v", data, err)
	}
	if r := e.Run("acme/k", "cat one.txt; echo two > two.txt"); r.Stdout != "one\n" || r.Revision != 3 {
		t.Fatalf("run after restart: %+v", r)
	}
	srv.Stop()
	if revs := e.Log("acme/k"); len(revs) != 3 {
		t.Fatalf("log: %+v", revs)
	}
}
