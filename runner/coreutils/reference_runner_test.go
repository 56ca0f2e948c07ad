package coreutils_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner"
)

// TestReferenceCommandsThroughRunner runs the reference commands in the
// real runner: as the shell calls them and as other commands run them.
func TestReferenceCommandsThroughRunner(t *testing.T) {
	history := []string{"mkdir src", "printf 'a\\nb\\n' > src/x", "for i in 1 2; do\n  touch f$i\ndone", "history 2"}
	for _, tc := range []struct {
		script, stdout string
		code           int
	}{
		{"history", "    1  mkdir src\n    2  printf 'a\\nb\\n' > src/x\n    3  for i in 1 2; do\n  touch f$i\ndone\n    4  history 2\n", 0},
		{"history 2", "    3  for i in 1 2; do\n  touch f$i\ndone\n    4  history 2\n", 0},
		{"history 0; history x", "", 1},
		{"hostname; whoami; hostname -i", "wsfs\nagent\n127.0.0.1\n", 0},
		{"clear | od -c | head -1", "0000000 033   [   H 033   [   2   J 033   [   3   J\n", 0},
		{"expr 6 '*' 7; expr length abc", "42\n3\n", 0},
		{"expr 0", "0\n", 1},
		{"env printf '%q\\n' 'a b'; printf '%q\\n' 'a b'", "'a b'\na\\ b\n", 0},
		{"echo a b | xargs printf '<%s>'; echo", "<a><b>\n", 0},
		{"env echo -e 'x\\u00e9'", "x\\u00e9\n", 0},
		{"timeout 5 printf 'x\\c y'", "x", 0},
		{"touch t && find . -name t -exec test -f {} \\; -print", "./t\n", 0},
		{"env [ a = a ] && env test 1 -lt 2 && echo yes", "yes\n", 0},
		{"truncate -s 1K big && stat -c %s big && install -D -m 600 big deep/er/big && stat -c '%a %s' deep/er/big", "1024\n600 1024\n", 0},
		{"d=$(mktemp -d) && case $d in /tmp/tmp.??????????) echo ok;; esac && f=$(mktemp -p . zzXXX) && test -f \"$f\" && echo ok2", "ok\nok2\n", 0},
		{"type history; help expr | head -1", "history is a shell builtin\nexpr: evaluate an expression: arithmetic, comparison, STRING : REGEX, length, substr, index, match\n", 0},
	} {
		t.Run(tc.script, func(t *testing.T) {
			ws := t.TempDir()
			res := runner.Run(context.Background(), runner.Config{Script: tc.script, WorkspaceDir: ws, ScratchDir: t.TempDir(), History: history})
			if string(res.Stdout) != tc.stdout || res.ExitCode != tc.code {
				t.Errorf("got %q exit %d (stderr %q), want %q exit %d", res.Stdout, res.ExitCode, res.Stderr, tc.stdout, tc.code)
			}
		})
	}
}

// TestMktempDefaultsToScratch checks that mktemp's files land in the
// command's /tmp, not in the workspace.
func TestMktempDefaultsToScratch(t *testing.T) {
	ws, scratch := t.TempDir(), t.TempDir()
	res := runner.Run(context.Background(), runner.Config{Script: "mktemp; mktemp -t zzXXXX", WorkspaceDir: ws, ScratchDir: scratch})
	lines := strings.Fields(string(res.Stdout))
	if res.ExitCode != 0 || len(lines) != 2 {
		t.Fatalf("mktemp: %q exit %d stderr %q", res.Stdout, res.ExitCode, res.Stderr)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "/tmp/") {
			t.Errorf("%s is not in /tmp", l)
		}
		fi, err := os.Stat(filepath.Join(scratch, strings.TrimPrefix(l, "/tmp/")))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v; want a 0600 file in the scratch folder", l, err, fi)
		}
	}
	if ents, _ := os.ReadDir(ws); len(ents) != 0 {
		t.Errorf("the workspace got %d entries", len(ents))
	}
}
