package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/jsexec"
)

// sandbox is a workspace and a scratch folder on disk.
type sandbox struct {
	t   *testing.T
	ws  string
	cwd string
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	return &sandbox{t: t, ws: t.TempDir(), cwd: "/workspace"}
}

// run runs script with the sandbox's workspace, a fresh /tmp and the
// cwd the previous run left, as the server would.
func (s *sandbox) run(script string, lim Limits) Result {
	s.t.Helper()
	res := Run(context.Background(), Config{Script: script, WorkspaceDir: s.ws, ScratchDir: s.t.TempDir(), Cwd: s.cwd, Limits: lim})
	s.cwd = res.Cwd
	return res
}

func (s *sandbox) write(name, content string) {
	s.t.Helper()
	p := filepath.Join(s.ws, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

func TestRunBasics(t *testing.T) {
	s := newSandbox(t)
	s.write("a.txt", "one\ntwo\nthree\n")
	cases := []struct {
		script, stdout, stderrHas string
		code                      int
	}{
		{"echo hi", "hi\n", "", 0},
		{"sort -r a.txt | head -n 1", "two\n", "", 0},
		{"cat < a.txt | wc -l", "3\n", "", 0},
		{"x=1; echo ${x:-unset}", "1\n", "", 0},
		{"echo ${x:-unset}", "unset\n", "", 0}, // variables do not persist
		{"mkdir -p sub && cd sub && pwd", "/workspace/sub\n", "", 0},
		{"pwd", "/workspace/sub\n", "", 0}, // the cwd does
		{"cd /workspace; echo $PATH.", "/usr/local/bin:/usr/bin:/bin.\n", "", 0},
		{"nosuchcmd --x", "", "nosuchcmd: command not found", 127},
		{"echo 'a: 1' | yq '.a'", "1\n", "", 0},
		{"echo '<h1>T</h1>' | html-to-markdown", "# T\n", "", 0},
		{"sqlite3 db.sqlite 'create table t(x); insert into t values (42); select x from t;'", "42\n", "", 0},
		{"js-exec -c 'console.log(1+1)'", "2\n", "", 0},
		{"/bin/nosuch", "", "/bin/nosuch: No such file or directory", 127},
		{"/bin/echo host path", "host path\n", "", 0}, // the runner's command of that name
		{"./a.txt", "", "Permission denied", 126},
		{"exit 3", "", "", 3},
		{"false", "", "", 1},
		{"sleep 1 & wait $!; echo $?", "0\n", "", 0},
		{"coproc { read l; echo got $l; }; echo hi >&${COPROC[1]}; read r <&${COPROC[0]}; echo $r", "got hi\n", "", 0},
		{"cat <(echo a) <(echo b)", "a\nb\n", "", 0},
		{"tee >(tr x y > /tmp/y.txt) >/dev/null <<< x; wait $!; cat /tmp/y.txt", "y\n", "", 0},
		{"echo 'x", "", "bash: -c: line 1: unexpected EOF while looking for matching `''", StatusUsage},
		{"type cd ls nosuch", "cd is a shell builtin\nls is /usr/bin/ls\n", "type: nosuch: not found", 1},
		{"f(){ :; }; command -v f jq echo", "f\n/usr/bin/jq\necho\n", "", 0},
		{"ls /usr/bin | grep -cx cat; [ -x \"$(command -v cat)\" ] && echo x", "1\nx\n", "", 0},
		{"command -v nosuch", "", "", 1},
		{"echo $TMPDIR.", ".\n", "", 0},
		{"echo a > /dev/null; echo b >/dev/stderr", "", "b", 0},
		{"echo x > /tmp/f; cat /tmp/f", "x\n", "", 0},
		{"cat /tmp/f", "", "No such file", 1}, // scratch is per command
		{"echo x > /etc/wsfs-test-nonexistent", "", "/etc/wsfs-test-nonexistent", 1},
		{"cd /nonexistent", "", "cd: /nonexistent: No such file or directory", 1},
		{"test -e /etc/passwd && echo yes || echo no", "no\n", "", 0},
		{"echo /e*", "/e*\n", "", 0},
		{"echo /*", "/bin /dev /tmp /usr /workspace\n", "", 0},
		{"echo *.txt", "a.txt\n", "", 0},
		{"xargs echo < a.txt", "one two three\n", "", 0},
		{"find . -name '*.txt' -exec cat {} \\; | wc -l", "3\n", "", 0},
		{"help | grep -c '^  jq '; help sort | head -n 1", "1\nsort: " + DefaultCommands()["sort"].Summary + "\n", "", 0},
		{"help nosuch", "", "help: no help topics match", 1},
		{"alias nosuch || echo failed; unalias nosuch || echo failed", "failed\nfailed\n", "not found", 0},
		{"shopt -s expand_aliases; alias hi='echo hi'; alias hi >/dev/null && echo known; unalias hi; alias hi || echo gone", "known\ngone\n", "alias: hi: not found", 0},
	}
	for _, c := range cases {
		res := s.run(c.script, Limits{})
		if string(res.Stdout) != c.stdout || res.ExitCode != c.code || !strings.Contains(string(res.Stderr), c.stderrHas) {
			t.Errorf("%q: got %q exit %d stderr %q; want %q exit %d stderr containing %q",
				c.script, res.Stdout, res.ExitCode, res.Stderr, c.stdout, c.code, c.stderrHas)
		}
		if c.stderrHas == "" && len(res.Stderr) > 0 && !strings.Contains(c.script, "stderr") {
			t.Errorf("%q: unexpected stderr %q", c.script, res.Stderr)
		}
	}
}

func TestRunMissingCwdFallsBack(t *testing.T) {
	s := newSandbox(t)
	s.cwd = "/workspace/gone"
	res := s.run("pwd", Limits{})
	if string(res.Stdout) != "/workspace\n" || res.Cwd != "/workspace" || !strings.Contains(string(res.Stderr), "no longer exists") {
		t.Fatalf("got %q %q cwd %s", res.Stdout, res.Stderr, res.Cwd)
	}
}

func TestRunWallTime(t *testing.T) {
	s := newSandbox(t)
	res := s.run("echo start; while :; do :; done", Limits{WallTime: 200 * time.Millisecond})
	if res.ExitCode != StatusTimeout || string(res.Stdout) != "start\n" {
		t.Fatalf("got exit %d stdout %q", res.ExitCode, res.Stdout)
	}
	want := "wsfs: time limit 200ms reached"
	if !strings.Contains(string(res.Stderr), want+"\n") || len(res.LimitsHit) != 1 || res.LimitsHit[0] != want {
		t.Fatalf("stderr %q limits %q", res.Stderr, res.LimitsHit)
	}
	if res := s.run("echo next", Limits{}); string(res.Stdout) != "next\n" {
		t.Fatalf("next run: %q", res.Stdout)
	}
}

func TestRunWallTimeStopsABlockedCommand(t *testing.T) {
	s := newSandbox(t)
	res := s.run("sleep 30; echo after", Limits{WallTime: 200 * time.Millisecond})
	if res.ExitCode != StatusTimeout || len(res.Stdout) != 0 {
		t.Fatalf("exit %d stdout %q", res.ExitCode, res.Stdout)
	}
}

func TestRunOutputTailAndLiveStream(t *testing.T) {
	s := newSandbox(t)
	var live bytes.Buffer
	res := Run(context.Background(), Config{Script: "seq 1 100000", WorkspaceDir: s.ws, Stdout: &live, Limits: Limits{MaxOutputBytes: 1000}})
	if res.ExitCode != 0 || !res.Truncated {
		t.Fatalf("exit %d truncated %v", res.ExitCode, res.Truncated)
	}
	full := live.String()
	if !strings.HasPrefix(full, "1\n2\n") || !strings.HasSuffix(full, "99999\n100000\n") {
		t.Fatalf("live stream incomplete: %d bytes", len(full))
	}
	if len(res.Stdout) != 1000 || string(res.Stdout) != full[len(full)-1000:] {
		t.Fatalf("tail: %d bytes %q", len(res.Stdout), res.Stdout[:20])
	}
}

func TestTailRing(t *testing.T) {
	for _, chunks := range [][]int{{3}, {5}, {7}, {2, 2, 2}, {4, 4, 4, 1}, {1, 9, 1}, {10}} {
		tl := newTail(5, nil)
		var all []byte
		c := byte('a')
		for _, n := range chunks {
			p := bytes.Repeat([]byte{c}, n)
			for i := range p {
				p[i] = c
				c++
			}
			if w, _ := tl.Write(p); w != n {
				t.Fatalf("write returned %d, want %d", w, n)
			}
			all = append(all, p...)
		}
		want := all
		if len(want) > 5 {
			want = want[len(want)-5:]
		}
		if got := tl.bytes(); string(got) != string(want) || tl.truncated() != (len(all) > 5) {
			t.Errorf("chunks %v: got %q want %q", chunks, got, want)
		}
	}
}

// TestLimitsHitListsCommandLimitsAndOutput: a limit a command reports
// (js-exec's time limit) and a truncated output both reach LimitsHit.
func TestLimitsHitListsCommandLimitsAndOutput(t *testing.T) {
	ws, scratch := t.TempDir(), t.TempDir()
	res := Run(context.Background(), Config{Script: "seq 1 100; js-exec -c 'for(;;){}'", WorkspaceDir: ws, ScratchDir: scratch,
		Limits: Limits{MaxOutputBytes: 10}, Commands: map[string]command.Spec{"seq": DefaultCommands()["seq"], "js-exec": jsexec.Spec(jsexec.Config{Timeout: 200 * time.Millisecond})}})
	want := []string{"js-exec: time limit 200ms reached", "wsfs: output limit reached: the result keeps the last 10 bytes of each stream"}
	if !slices.Equal(res.LimitsHit, want) || !res.Truncated || res.ExitCode != 124 {
		t.Fatalf("limits hit %q (truncated %v, exit %d), want %q", res.LimitsHit, res.Truncated, res.ExitCode, want)
	}
}
