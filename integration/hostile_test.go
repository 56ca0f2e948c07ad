package integration

import (
	"archive/tar"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// anyCode accepts any exit code in the hostile table (the check is that
// nothing of the host ran or leaked).
const anyCode = -2

// TestHostileScripts is the runner's hostile-script table (issue 5 item
// 8) through the real binary and a real server: each script is refused or
// stopped (exit code and the class of its message), leaves the workspace
// as it was (or with exactly the changes it may make inside it), reads
// nothing of the host, and the server serves the next command.
func TestHostileScripts(t *testing.T) {
	t.Parallel()
	e := NewEnv(t, Local)
	srv := e.Start("--quiet", "200ms")

	// Outside the agent's view: a canary file on the host, beside the
	// server's folders.
	outside := filepath.Join(e.Base, "outside")
	canary := filepath.Join(outside, "canary")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(canary, []byte("secret-canary\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// The template workspace: keep.txt by the agent, and a symlink to the
	// host's canary planted by a developer on the mount.
	const base = "evil/base"
	e.MustWsfs("create", base)
	wantRun(t, e, base, "echo keep > keep.txt", 0, "")
	if err := os.Symlink(canary, filepath.Join(e.WorkspaceDir(base), "planted")); err != nil {
		t.Fatalf("planting a host symlink through the mount: %v", err)
	}
	baseRev := waitHead(t, e, base, func(r Revision) bool { return r.Stats.Symlinks == 1 }).N
	baseTree := []string{"keep.txt", "planted -> " + canary}

	flood := "x=$(printf '%01000d' 0); for i in $(seq 1 1000); do echo $x$x$x$x$x$x$x$x$x$x; done; echo end"
	cases := []struct {
		name    string
		script  string
		flags   []string
		code    int    // -1: any non-zero; anyCode: any
		stderr  string // the class of the refusal, case-insensitive
		changes []string
		check   func(t *testing.T, ws string, r RunResult) // more checks
	}{
		{name: "symlink to /etc/passwd, cat", script: "ln -s /etc/passwd p; cat p", code: 1, stderr: "No such file", changes: []string{"p -> /etc/passwd"}},
		{name: "symlink to /etc/passwd, redirect in", script: "ln -s /etc/passwd p; while read l; do echo $l; done < p", code: -1, stderr: "no such file", changes: []string{"p -> /etc/passwd"}},
		{name: "symlink to /etc/passwd, cp", script: "ln -s /etc/passwd p; cp p q && cat q", code: 1, stderr: "No such file", changes: []string{"p -> /etc/passwd"}},
		{name: "symlink to the host, write through it", script: fmt.Sprintf("ln -s %s c; echo pwned > c; ln -s ../../../outside/canary d; echo pwned >> d", canary), code: -1,
			changes: []string{"c -> " + canary, "d -> ../../../outside/canary"}},
		{name: "host symlink planted by a developer", script: "cat planted; echo pwned >> planted; cp planted x", code: 1, stderr: "No such file"},
		{name: "../ walks", script: "cat ../outside/canary; cat ../../../../../etc/passwd; cat /workspace/../outside/canary", code: 1, stderr: "No such file"},
		{name: "cd .. above the view", script: "cd ../../..; pwd; ls; cat outside/canary etc/passwd", code: 1, stderr: "No such file"},
		{name: "absolute host paths", script: fmt.Sprintf("cat %s; ls /usr/bin; cat /etc/shadow; echo pwned > %s", canary, canary), code: 1, stderr: "No such file"},
		{name: "the workspace's own path on the mount", script: fmt.Sprintf("ls %s; cat %s/keep.txt", e.Mnt, e.WorkspaceDir(base)), code: 1, stderr: "No such file"},
		{name: "/proc/self", script: "cat /proc/self/environ; ls /proc/self/root/; cat /proc/self/root/etc/passwd", code: -1, stderr: "No such file"},
		// A hard link to the planted symlink is a second name of that
		// symlink (the mount keeps hard links): no way out either.
		{name: "hard link to outside", script: "ln /etc/passwd h; ln ../outside/canary h2; ln planted h3; cat h h2 h3", code: 1,
			changes: []string{"h3 -> " + canary}},
		{name: "unknown commands", script: "python3 -c 'print(1)'; curl http://127.0.0.1/; sudo id", code: 127, stderr: "command not found"},
		// /bin/NAME names the runner's own command NAME, never a host file;
		// /sbin/ip exists on the host, not in the agent's view.
		{name: "exec of host paths", script: "/bin/sh -c id; /usr/bin/env id; ./../../sbin/ip", code: 127, stderr: "No such file"},
		{name: "exec builtin", script: "exec /bin/sh -c 'cat /etc/passwd'", code: -1, stderr: "No such file"},
		{name: "host programs through runner commands", script: "env /bin/sh -c id; echo . | xargs /bin/ls; find . -maxdepth 0 -exec /bin/cat /etc/passwd \\;; timeout 1 /bin/ls", code: anyCode, stderr: "id: command not found"},
		// A background job runs in the command's process and is stopped
		// when the command ends; what it did before counts, nothing after.
		{name: "background job", script: "sleep 5 & touch late", code: 0, changes: []string{"late"}},
		{name: "10 MB output flood", script: flood, code: 0, check: func(t *testing.T, ws string, r RunResult) {
			if !r.Truncated || len(r.Stdout) != 128<<10 || !strings.HasSuffix(r.Stdout, "0000\nend\n") {
				t.Errorf("flood: truncated %v, %d bytes kept", r.Truncated, len(r.Stdout))
			}
			if out := e.MustWsfs("output", r.OutputRef); len(out.Stdout) != 10_001_004 {
				t.Errorf("wsfs output of the flood: %d bytes, want 10001004", len(out.Stdout))
			}
		}},
		{name: "endless loop", script: "while :; do :; done", flags: []string{"--timeout", "1s"}, code: 124, stderr: "time limit 1s reached"},
		{name: "endless loop of commands", script: "while :; do echo x | cat > /dev/null; done", flags: []string{"--timeout", "1s"}, code: 124, stderr: "time limit 1s reached"},
		{name: "deep recursion", script: "f(){ f; }; f", code: 1, stderr: "nesting limit"},
		{name: "deep recursion in substitutions", script: "f(){ echo $(f); }; f", code: 1, stderr: "nesting limit"},
		{name: "string-doubling memory bomb", script: "x=aaaaaaaaaaaaaaaa; while :; do x=$x$x; done", code: -1, stderr: "limit", check: func(t *testing.T, ws string, r RunResult) {
			if r.ExitCode == 124 {
				t.Errorf("a memory bomb ran to the wall time (%d ms) instead of being stopped at the worker's heap limit", r.DurationMS)
			}
			if head := e.Head(ws); head.N != r.Revision || r.Committed {
				t.Errorf("the memory bomb committed: %+v", r)
			}
		}},
		{name: "fd exhaustion", script: "for i in $(seq 1 400); do exec 0<keep.txt {fd}<keep.txt; done; echo done >&2", code: 0, stderr: "open file limit"},
		{name: "files past the entry quota", script: "for i in $(seq 1 1000); do touch f$i; done", code: 1, stderr: "Disk quota exceeded", check: func(t *testing.T, ws string, r RunResult) {
			wantRefusal(t, r, "quota: 200 entries (workspace "+ws+" has 200)")
			head := e.Head(ws)
			if n := head.Stats.Files + head.Stats.Dirs + head.Stats.Symlinks + 1; n != 200 || head.N != r.Revision {
				t.Errorf("head %d has %d entries, want 200 in revision %d", head.N, n, r.Revision)
			}
		}},
		{name: "scratch entries past the visible-entry limit", script: "for i in $(seq 1 1100); do touch /tmp/f$i; done", code: 1, stderr: "entry limit 1000 reached"},
	}
	t.Run("table", func(t *testing.T) {
		for i, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				ws := fmt.Sprintf("evil/c%02d", i)
				e.MustWsfs("fork", fmt.Sprintf("%s@%d", base, baseRev), ws)
				dir := e.WorkspaceDir(ws)
				before := e.Head(ws)
				r := e.Run(ws, c.script, c.flags...)
				if (c.code == -1 && r.ExitCode == 0) || (c.code >= 0 && r.ExitCode != c.code) {
					t.Errorf("exit %d, want %d; stderr %.500q", r.ExitCode, c.code, r.Stderr)
				}
				if !strings.Contains(strings.ToLower(r.Stderr), strings.ToLower(c.stderr)) {
					t.Errorf("stderr %.500q does not name %q (exit %d, limits %q, %d ms, stdout %.200q)", r.Stderr, c.stderr, r.ExitCode, r.LimitsHit, r.DurationMS, r.Stdout)
				}
				for _, leak := range []string{"root:x:", "secret-canary", "uid="} {
					if strings.Contains(r.Stdout, leak) || strings.Contains(r.Stderr, leak) {
						t.Errorf("the output leaks %q: %.300q %.300q", leak, r.Stdout, r.Stderr)
					}
				}
				if c.check != nil {
					c.check(t, ws, r)
				} else {
					want := slices.Sorted(slices.Values(append(slices.Clone(baseTree), c.changes...)))
					if got := treeOf(t, dir); !slices.Equal(got, want) {
						t.Errorf("workspace after the script: %q, want %q", got, want)
					}
					head := e.Head(ws)
					switch {
					case len(c.changes) == 0 && head.N != before.N:
						t.Errorf("a script that may change nothing made revision %d", head.N)
					case len(c.changes) > 0 && (head.N != before.N+1 || head.N != r.Revision):
						t.Errorf("head %d, result revision %d, want %d", head.N, r.Revision, before.N+1)
					}
				}
				if data, err := os.ReadFile(canary); err != nil || string(data) != "secret-canary\n" {
					t.Fatalf("the host's canary: %q, %v", data, err)
				}
				next := e.Run(ws, "cat keep.txt")
				if next.ExitCode != 0 || next.Stdout != "keep\n" {
					t.Errorf("the next command: %+v", next)
				}
			})
		}
		t.Run("glob over a huge tree", func(t *testing.T) {
			t.Parallel()
			hostileHugeTree(t, e)
		})
	})
	if ents, err := os.ReadDir(outside); err != nil || len(ents) != 1 {
		t.Errorf("the folder beside the workspaces: %v, %v", ents, err)
	}
	srv.Stop()
}

// hostileHugeTree globs and walks 4,000 files (imported from a tar, with
// raised quotas): the command ends or is stopped at its wall time, and the
// server serves the next one.
func hostileHugeTree(t *testing.T, e *Env) {
	const ws = "evil/huge"
	newWorkspace(t, e, ws, "entries=10000", "visible-entries=20000")
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for i := range 10 {
		for j := range 20 {
			for k := range 20 {
				name := fmt.Sprintf("d%02d/e%02d/f%02d", i, j, k)
				if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: 1, Typeflag: tar.TypeReg}); err != nil {
					t.Fatal(err)
				}
				tw.Write([]byte("x"))
			}
		}
	}
	tw.Close()
	tarPath := filepath.Join(e.Base, "huge.tar")
	if err := os.WriteFile(tarPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	e.MustWsfs("import", ws, tarPath)
	r := e.Run(ws, "echo */*/* | wc -w; ls -R > /dev/null; find . | wc -l; cat d00/*/* | wc -c", "--timeout", "10s")
	switch r.ExitCode {
	case 0:
		if r.Stdout != "4000\n4211\n400\n" {
			t.Errorf("globbing 4,000 files: %q", r.Stdout)
		}
	case 124:
		t.Logf("the glob over 4,000 files was stopped at its wall time: %q", r.Stderr)
	default:
		t.Errorf("glob over a huge tree: %+v", r)
	}
	if r.Committed {
		t.Errorf("reading the tree committed revision %d", r.Revision)
	}
	if next := e.Run(ws, "ls d00/e00 | wc -l"); next.Stdout != "20\n" {
		t.Errorf("the next command: %+v", next)
	}
}
