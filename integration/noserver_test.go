package integration

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestRunWithoutServer is the newcomer's path: no server running, `wsfs
// run` starts a private one for the command (a real mount under
// WSFS_HOME) and stops it; the history verbs open meta.db directly.
// Nothing is left behind: no mount, no process.
func TestRunWithoutServer(t *testing.T) {
	t.Parallel()
	e := NewEnv(t, Local)
	e.MustWsfs("create", "solo/ws")
	r := e.Run("solo/ws", "mkdir -p a; cd a; echo hi > f.txt; cat f.txt")
	if r.ExitCode != 0 || r.Stdout != "hi\n" || !r.Committed || r.Revision != 2 {
		t.Fatalf("first run: %+v", r)
	}
	// Shell-like output without --json, script on stdin; the cwd persisted.
	plain := e.WsfsStdin("pwd; cat f.txt; exit 3\n", "run", "-w", "solo/ws")
	if plain.Code != 3 || plain.Stdout != "/workspace/a\nhi\n" {
		t.Errorf("second run: %v", plain)
	}
	if revs := e.Log("solo/ws"); len(revs) != 2 || revs[0].Cwd != "/a" {
		t.Errorf("log: %+v", revs)
	}
	if left := mountsUnder(e.Base); len(left) > 0 {
		t.Errorf("the private server left mounts: %q", left)
	}
	if pids := processesWith(e.Home); len(pids) > 0 {
		t.Errorf("processes still running with %s: %v", e.Home, pids)
	}
	if _, err := os.Stat(filepath.Join(e.Home, "server.json")); !os.IsNotExist(err) {
		t.Errorf("server.json after the private server stopped: %v", err)
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
