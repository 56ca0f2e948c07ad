package xan_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner"
)

// TestThroughRunner runs xan as an agent would, in the runner's shell:
// from the command table, in pipelines, with help listing it.
func TestThroughRunner(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "p.csv"), []byte("name,age\nann,31\nbob,25\ncid,40\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := "n\n" + strings.Repeat("1234567890\n", 200000)
	if err := os.WriteFile(filepath.Join(ws, "big.csv"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ script, stdout, stderrHas string }{
		{`xan filter 'age > 30' p.csv | xan select name | xan to jsonl`, "{\"name\":\"ann\"}\n{\"name\":\"cid\"}\n", ""},
		{`printf 'k\nb\na\n' | xan sort | xan behead`, "a\nb\n", ""},
		{`xan sort -N -s age -o sorted.csv p.csv && cat sorted.csv`, "name,age\nbob,25\nann,31\ncid,40\n", ""},
		{`xan count < p.csv`, "3\n", ""},
		{`xan select n big.csv | head -n 2; echo "${PIPESTATUS[@]}"`, "n\n1234567890\n141 0\n", ""},
		{`xan select nope p.csv; echo "status $?"`, "status 1\n", `xan select: column "nope" not found (columns: name, age)`},
		{`help xan`, "", ""},
	} {
		res := runner.Run(context.Background(), runner.Config{Script: tc.script, WorkspaceDir: ws, ScratchDir: t.TempDir()})
		if tc.script == "help xan" {
			if res.ExitCode != 0 || !strings.Contains(string(res.Stdout), "CSV toolkit") || !strings.Contains(string(res.Stdout), "frequency") {
				t.Errorf("help xan: %d %q %q", res.ExitCode, res.Stdout, res.Stderr)
			}
			continue
		}
		if string(res.Stdout) != tc.stdout || !strings.Contains(string(res.Stderr), tc.stderrHas) || (tc.stderrHas == "" && len(res.Stderr) > 0) {
			t.Errorf("%s:\n got %d %q %q\nwant %q, stderr ~%q", tc.script, res.ExitCode, res.Stdout, res.Stderr, tc.stdout, tc.stderrHas)
		}
	}
}
