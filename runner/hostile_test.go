package runner

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// treeDigest fingerprints every name, mode, link target and content below
// dir, so a test can tell that nothing there changed.
func treeDigest(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		line := fmt.Sprintf("%s %v", rel, fi.Mode())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			line += " -> " + target
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %x", sha256.Sum256(data))
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestHostileScripts runs scripts that try to leave the agent's view or
// exhaust the process. Each must be refused or stopped, leave the folder
// beside the workspace and the workspace's own files as they were, and
// leave the runner able to run the next command.
func TestHostileScripts(t *testing.T) {
	parent := t.TempDir()
	ws := filepath.Join(parent, "ws")
	outside := filepath.Join(parent, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	canary := filepath.Join(outside, "canary")
	if err := os.WriteFile(canary, []byte("secret-canary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "keep.txt"), []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A host symlink planted in the workspace (as if restored from an old
	// revision) pointing at a host path outside.
	if err := os.Symlink(canary, filepath.Join(ws, "planted")); err != nil {
		t.Fatal(err)
	}
	outsideDigest := treeDigest(t, outside)

	hostile := []struct {
		name   string
		script string
		lim    Limits
		code   int    // -1: any non-zero
		stderr string // a substring the refusal prints
		writes bool   // the script may change the workspace (inside it)
	}{
		{"symlink to /etc/passwd, cat", "ln -s /etc/passwd p; cat p", Limits{}, 1, "No such file", true},
		{"symlink to /etc/passwd, redirect in", "ln -s /etc/passwd p; while read l; do echo $l; done < p", Limits{}, -1, "no such file", true},
		{"symlink to /etc/passwd, cp", "ln -s /etc/passwd p; cp p q && cat q", Limits{}, 1, "No such file", true},
		{"symlink outside, write through it", "ln -s ../outside/canary c; echo pwned > c; cat /workspace/c", Limits{}, -1, "", true},
		{"host symlink planted in workspace", "cat planted; echo pwned >> planted", Limits{}, -1, "No such file", false},
		{"../ walks", "cat ../outside/canary; cat ../../../../../etc/passwd; cat /workspace/../outside/canary", Limits{}, 1, "No such file", false},
		{"cd .. above the view", "cd ../../..; pwd; ls; cat outside/canary etc/passwd", Limits{}, 1, "No such file", false},
		{"absolute host paths", fmt.Sprintf("cat %s; ls /usr/bin; cat /etc/shadow; echo pwned > %s", canary, canary), Limits{}, 1, "No such file", false},
		{"host path of the workspace", fmt.Sprintf("ls %s; cat %s/keep.txt", ws, ws), Limits{}, -1, "No such file", false},
		{"/proc/self", "cat /proc/self/environ; ls /proc/self/root/; cat /proc/self/root/etc/passwd", Limits{}, -1, "No such file", false},
		{"hard link to outside", "ln /etc/passwd h; ln ../outside/canary h2; ln planted h3; cat h h2 h3", Limits{}, 1, "", true},
		{"unknown commands", "python3 -c 'print(1)'; curl http://127.0.0.1/; sudo id", Limits{}, 127, "command not found", false},
		{"exec of host paths", "/bin/sh -c id; /usr/bin/env id; ./../../sbin/ip", Limits{}, 127, "No such file", false},
		{"exec builtin", "exec /bin/sh -c 'cat /etc/passwd'", Limits{}, 1, "No such file", false},
		{"nested shell", "bash -c 'cat /etc/passwd; cat ../outside/canary'; printf 'cat %s\\n' ../outside/canary > /tmp/s.sh; chmod +x /tmp/s.sh; /tmp/s.sh", Limits{}, 1, "No such file", false},
		{"host programs through runner commands", "env /bin/sh -c id; echo . | xargs /bin/ls; find . -maxdepth 0 -exec /bin/cat /etc/passwd \\;; timeout 1 /bin/ls; command /bin/nosuch", Limits{}, -1, "", false},
		{"type and command -v do not stat host paths", "type -p /sbin/ip; command -v /usr/sbin/sshd /etc/os-release; type /etc/passwd", Limits{}, 1, "not found", false},
		// Background jobs and process substitutions run in the command's
		// process and are stopped when it ends (the goroutine count below).
		{"background job through eval", "eval 'sleep 5 &'; eval 'cat <(echo x)'", Limits{}, 0, "", false},
		{"background job through source", "echo 'sleep 5 &' > /tmp/s.sh; source /tmp/s.sh", Limits{}, 0, "", false},
		{"background job through a trap", "trap 'sleep 5 &' EXIT", Limits{}, 0, "", false},
		{"background loop never waited for", "while :; do echo x >/dev/null; done & sleep 0.01", Limits{}, 0, "", false},
		{"source a host file", "source /etc/profile; . /etc/passwd", Limits{}, 1, "No such file", false},
		{"10 MB output flood", flood, Limits{}, 0, "", false},
		{"endless loop", "while :; do :; done", Limits{WallTime: 300 * time.Millisecond}, StatusTimeout, "wsfs: time limit 300ms reached", false},
		{"endless loop of commands", "while :; do echo x | cat > /dev/null; done", Limits{WallTime: 300 * time.Millisecond}, StatusTimeout, "wsfs: time limit 300ms reached", false},
		{"deep recursion", "f(){ f; }; f", Limits{}, 1, "wsfs: function nesting limit 1000 reached", false},
		{"deep recursion in substitutions", "f(){ echo $(f); }; f", Limits{}, 1, "nesting limit", false},
		{"recursion through pipelines", "f(){ echo x | f; }; f", Limits{WallTime: 10 * time.Second}, 1, "limit", false},
		{"string-doubling memory bomb", "x=aaaaaaaaaaaaaaaa; while :; do x=$x$x; done", Limits{MaxMemoryBytes: 64 << 20, WallTime: 10 * time.Second}, 1, "wsfs: memory limit 64 MiB reached", false},
		{"fd exhaustion", "for i in $(seq 1 400); do exec 0<keep.txt {fd}<keep.txt; done; echo done >&2", Limits{}, 0, "wsfs: open file limit 256 reached", false},
		{"fd exhaustion through descriptors above 2", "for i in $(seq 1 400); do exec {fd}<keep.txt; done; f() { f 3<keep.txt; }; f", Limits{}, 1, "wsfs: open file limit 256 reached", false},
		{"files past the entry limit", "for i in $(seq 1 1100); do touch f$i; done; mkdir -p d/e/f", Limits{}, 1, "wsfs: entry limit 1000 reached", true},
		{"entry limit through cp -r and tar", "mkdir -p src/a/b && touch src/a/b/x && for i in $(seq 1 400); do cp -r src c$i || exit; done", Limits{}, 1, "entry limit", true},
	}
	for _, c := range hostile {
		t.Run(c.name, func(t *testing.T) {
			before := treeDigest(t, ws)
			res := Run(context.Background(), Config{Script: c.script, WorkspaceDir: ws, ScratchDir: t.TempDir(), Limits: c.lim})
			switch {
			case c.code == -1 && res.ExitCode == 0, c.code != -1 && res.ExitCode != c.code:
				t.Errorf("exit %d, want %d; stderr %.500q", res.ExitCode, c.code, res.Stderr)
			}
			if !strings.Contains(strings.ToLower(string(res.Stderr)), strings.ToLower(c.stderr)) {
				t.Errorf("stderr %.500q does not name %q", res.Stderr, c.stderr)
			}
			for _, leak := range []string{"root:", "secret-canary", "uid="} {
				if strings.Contains(string(res.Stdout), leak) || strings.Contains(string(res.Stderr), leak) {
					t.Errorf("output leaks %q: %.300q", leak, res.Stdout)
				}
			}
			if strings.Contains(string(res.Stderr), parent) && !strings.Contains(c.script, parent) {
				t.Errorf("stderr names a host path: %.300q", res.Stderr)
			}
			if got := treeDigest(t, outside); got != outsideDigest {
				t.Errorf("the folder beside the workspace changed:\n%s", got)
			}
			if data, err := os.ReadFile(filepath.Join(ws, "keep.txt")); err != nil || string(data) != "keep\n" {
				t.Errorf("keep.txt: %q %v", data, err)
			}
			if !c.writes {
				if after := treeDigest(t, ws); after != before {
					t.Errorf("workspace changed:\n%s\nwas\n%s", after, before)
				}
			}
			next := Run(context.Background(), Config{Script: "cat keep.txt", WorkspaceDir: ws, ScratchDir: t.TempDir()})
			if next.ExitCode != 0 || string(next.Stdout) != "keep\n" {
				t.Errorf("next run: exit %d %q %q", next.ExitCode, next.Stdout, next.Stderr)
			}
			// Clean what the script made so the next case starts alike.
			entries, _ := os.ReadDir(ws)
			for _, e := range entries {
				if e.Name() != "keep.txt" && e.Name() != "planted" {
					os.RemoveAll(filepath.Join(ws, e.Name()))
				}
			}
		})
	}
	if n := runtime.NumGoroutine(); n > 200 {
		t.Errorf("%d goroutines left after the hostile scripts", n)
	}
}

// flood prints 10 MB.
const flood = "x=$(printf '%01000d' 0); for i in $(seq 1 1000); do echo $x$x$x$x$x$x$x$x$x$x; done"

type countingWriter int64

func (w *countingWriter) Write(p []byte) (int, error) {
	*w += countingWriter(len(p))
	return len(p), nil
}

func TestHostileOutputFloodKeepsTail(t *testing.T) {
	s := newSandbox(t)
	var live countingWriter
	res := Run(context.Background(), Config{Script: flood + "; echo end", WorkspaceDir: s.ws, Stdout: &live})
	if !res.Truncated || len(res.Stdout) != DefaultMaxOutputBytes || !strings.HasSuffix(string(res.Stdout), "0000\nend\n") || live != 10_001_004 {
		t.Fatalf("truncated %v, %d bytes kept, %d streamed", res.Truncated, len(res.Stdout), live)
	}
}

// TestHostileGlobOverHugeTree globs and lists a tree of 8,000 files: it
// either finishes or is stopped at the wall time, and the runner goes on.
func TestHostileGlobOverHugeTree(t *testing.T) {
	s := newSandbox(t)
	for i := 0; i < 20; i++ {
		for j := 0; j < 20; j++ {
			d := filepath.Join(s.ws, fmt.Sprintf("d%02d", i), fmt.Sprintf("e%02d", j))
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			for k := 0; k < 20; k++ {
				if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%02d", k)), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	res := s.run("echo /workspace/*/*/* | wc -w", Limits{})
	if res.ExitCode != 0 || string(res.Stdout) != "8000\n" {
		t.Fatalf("glob: exit %d %q %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	res = s.run("shopt -s globstar; for f in **; do :; done; for f in */*/*/../../*/*/*; do :; done", Limits{WallTime: 2 * time.Second})
	if res.ExitCode != 0 && res.ExitCode != StatusTimeout {
		t.Fatalf("globstar: exit %d %q", res.ExitCode, res.Stderr)
	}
	if res := s.run("echo ok", Limits{}); string(res.Stdout) != "ok\n" {
		t.Fatalf("next run: %q", res.Stdout)
	}
}
