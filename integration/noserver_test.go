package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestRunWithoutServer is the newcomer's path: no server running, the
// first `wsfs run` starts one for the home (a real mount under
// WSFS_HOME), and every command that comes meanwhile uses it, however many
// at once (issue 15: two at once failed, one locked out by the other's
// private server); the history verbs work beside it. It stays until idle
// or wsfs umount, which leaves nothing behind; then logs and ps still work,
// from what meta keeps.
func TestRunWithoutServer(t *testing.T) {
	t.Parallel()
	e := NewEnv(t, Local)
	e.MustWsfs("create", "solo/ws")
	e.MustWsfs("create", "solo/other")
	var wg sync.WaitGroup
	results := make([]RunResult, 4)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := []string{"solo/ws", "solo/other"}[i%2]
			results[i] = e.Run(ws, fmt.Sprintf("cd /workspace; mkdir -p a; cd a; echo %d >> f.txt; echo ran %d", i, i))
		}()
	}
	// A history verb while the server starts.
	if r := e.Wsfs("log", "solo/ws"); r.Code != 0 {
		t.Errorf("wsfs log while the server starts: %v", r)
	}
	wg.Wait()
	for i, r := range results {
		if r.ExitCode != 0 || r.Stdout != fmt.Sprintf("ran %d\n", i) || !r.Committed {
			t.Errorf("run %d: %+v", i, r)
		}
	}
	// Shell-like output without --json, script on stdin; the cwd persisted.
	plain := e.WsfsStdin("pwd; wc -l < f.txt; exit 3\n", "run", "-w", "solo/ws")
	if plain.Code != 3 || plain.Stdout != "/workspace/a\n2\n" {
		t.Errorf("a later run: %v", plain)
	}
	if revs := e.Log("solo/ws"); len(revs) != 3 || revs[0].Cwd != "/a" {
		t.Errorf("log: %+v", revs)
	}
	var info struct {
		PID      int    `json:"pid"`
		MountDir string `json:"mount_dir"`
		Shared   bool   `json:"shared"`
	}
	b, err := os.ReadFile(filepath.Join(e.Home, "server.json"))
	if err != nil || json.Unmarshal(b, &info) != nil || !info.Shared || !strings.HasPrefix(info.MountDir, e.Home) {
		t.Fatalf("the shared server's server.json: %s %v", b, err)
	}
	e.MustWsfs("umount", info.MountDir)
	if left := mountsUnder(e.Base); len(left) > 0 {
		t.Errorf("the shared server left mounts: %q", left)
	}
	if pids := processesWith(e.Home); len(pids) > 0 {
		t.Errorf("processes still running with %s: %v", e.Home, pids)
	}
	if _, err := os.Stat(filepath.Join(e.Home, "server.json")); !os.IsNotExist(err) {
		t.Errorf("server.json after the shared server stopped: %v", err)
	}
	// With no server: ps lists nothing, logs shows the outputs meta keeps.
	if r := e.MustWsfs("ps", "--json"); strings.TrimSpace(r.Stdout) != "[]" {
		t.Errorf("ps --json with no server: %v", r)
	}
	r := e.MustWsfs("logs", "solo/ws")
	if r.Stdout != "/workspace/a\n2\n" || !strings.Contains(r.Stderr, "==> solo/ws: pwd; wc -l < f.txt; exit 3") || !strings.Contains(r.Stderr, "==> exit 3") {
		t.Errorf("logs with no server: %v", r)
	}
	if r := e.MustWsfs("logs", "-n", "3", "solo/ws"); strings.Count(r.Stderr, "==> exit") != 3 || !strings.HasSuffix(r.Stdout, "/workspace/a\n2\n") {
		t.Errorf("logs -n 3 with no server: %v", r)
	}
}

// processesWith lists the pids whose command line or environment names
// s.
func processesWith(s string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, ent := range ents {
		if ent.Name()[0] < '0' || ent.Name()[0] > '9' {
			continue
		}
		for _, f := range []string{"cmdline", "environ"} {
			data, err := os.ReadFile(filepath.Join("/proc", ent.Name(), f))
			if err == nil && bytes.Contains(data, []byte(s)) {
				out = append(out, ent.Name())
				break
			}
		}
	}
	return out
}
