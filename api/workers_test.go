package api

import (
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestSweepPoolDirs: the worker folders of a dead server go; those of a
// live one, and other folders, stay.
func TestSweepPoolDirs(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skipf("no true(1) to get a dead PID: %v", err)
	}
	deadPID, livePID := strconv.Itoa(dead.Process.Pid), strconv.Itoa(os.Getpid())
	dir := t.TempDir()
	gone := []string{poolDirPrefix + deadPID + "-1", poolScratchPrefix + deadPID + "-2"}
	stay := []string{poolDirPrefix + livePID + "-1", poolScratchPrefix + livePID + "-2", "wsfs-run-123", "wsfs-pool-x-1",
		poolDirPrefix + "1-1"} // PID 1 lives
	for _, name := range append(append([]string{}, gone...), stay...) {
		if err := os.MkdirAll(filepath.Join(dir, name, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	sweepPoolDirs(dir, slog.New(slog.DiscardHandler))
	for _, name := range gone {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s (dead server) stays: %v", name, err)
		}
	}
	for _, name := range stay {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s went: %v", name, err)
		}
	}
}
