package runner

import (
	"context"
	"io/fs"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wsfs/wsfs/runner/command"
)

// quotaFile refuses every write as a mount over its quota does.
type quotaFile struct{ command.File }

func (f quotaFile) Write(p []byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: f.Name(), Err: syscall.EDQUOT}
}

// refuseFull makes files whose name contains "full" refuse writes.
func refuseFull(f command.File) command.File {
	if strings.Contains(f.Name(), "full") {
		return quotaFile{f}
	}
	return f
}

func TestRefusedWritesFail(t *testing.T) {
	cases := []struct {
		script, stdout, stderrHas string
		code                      int
	}{
		{"echo x > full; echo rc=$?", "rc=1\n", "bash: line 1: echo: write error: Disk quota exceeded", 0},
		{"echo -n x >> full; echo rc=$?", "rc=1\n", "write error: Disk quota exceeded", 0},
		{"printf '%s\\n' abc > full; echo rc=$?", "rc=1\n", "bash: line 1: printf: write error: Disk quota exceeded", 0},
		{"{ echo a; } > full || echo failed", "failed\n", "Disk quota exceeded", 0},
		{"set -e; echo x > full; echo not-here", "", "Disk quota exceeded", 1},
		{"echo data > a; cat a > full; echo rc=$?", "rc=1\n", "Disk quota exceeded", 0},
		{"seq 3 > full; echo rc=$?", "rc=1\n", "Disk quota exceeded", 0},
		{"echo x > fine; cat fine", "x\n", "", 0},
	}
	for _, c := range cases {
		res := run(context.Background(), Config{Script: c.script, WorkspaceDir: t.TempDir(), ScratchDir: t.TempDir()}, refuseFull)
		if string(res.Stdout) != c.stdout || res.ExitCode != c.code || !strings.Contains(string(res.Stderr), c.stderrHas) {
			t.Errorf("%q: got %q exit %d stderr %q; want %q exit %d stderr containing %q",
				c.script, res.Stdout, res.ExitCode, res.Stderr, c.stdout, c.code, c.stderrHas)
		}
	}
}

func TestBuiltinIntoClosedPipe(t *testing.T) {
	res := Run(context.Background(), Config{Script: "while :; do echo y; done | head -n 2; printf 'a\\n%.0s' $(seq 1000) | head -n 1; echo done",
		WorkspaceDir: t.TempDir(), Limits: Limits{WallTime: 10 * time.Second}})
	if string(res.Stdout) != "y\ny\na\ndone\n" || res.ExitCode != 0 || len(res.Stderr) != 0 {
		t.Fatalf("got %q exit %d stderr %q", res.Stdout, res.ExitCode, res.Stderr)
	}
}
