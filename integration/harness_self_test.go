package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// TestWarmWorkersInheritNoServerFiles: the server's warm workers (the
// processes that will run agents' scripts) must not hold the server's
// files. A worker holding /dev/fuse keeps a crashed server's mount alive
// (requests hang instead of ENOTCONN) and puts the file system's own
// device in a confined process; one holding meta.db defeats bbolt's
// one-process rule.
func TestWarmWorkersInheritNoServerFiles(t *testing.T) {
	t.Parallel()
	e := NewEnv(t, Local)
	e.MustWsfs("create", "acme/w")
	srv := e.Start("--quiet", "1h")
	// A command makes sure the pool has started (and replaced) a worker.
	if r := e.Run("acme/w", "echo hi > f"); r.ExitCode != 0 {
		t.Fatalf("run: %+v", r)
	}
	var children []int
	waitFor(t, "a warm worker", func() bool { children = childrenOf(srv.PID()); return len(children) > 0 })
	checked := 0
	for _, pid := range children {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d/fd", pid)); err != nil {
			continue // the worker of the command above, gone meanwhile
		}
		checked++
		fds := countFDs(t, pid, filepath.Join(e.Home, "spool"))
		for _, fd := range fds.List {
			target := fd[strings.Index(fd, " -> ")+4:]
			if target == "/dev/fuse" || target == filepath.Join(e.Home, "meta.db") || strings.HasPrefix(target, filepath.Join(e.Home, "spool")) {
				t.Errorf("warm worker %d holds the server's %s (fd %s): mark it close-on-exec or close it in the worker", pid, target, fd)
			}
		}
	}
	if checked == 0 {
		t.Errorf("no live warm worker among the server's children %v", children)
	}
	srv.Stop()
}
