package textutils

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// endlessInput yields lines forever and cancels the command's context
// after limit bytes, the way the runner's time limit would.
type endlessInput struct {
	n      int
	limit  int
	cancel context.CancelFunc
}

func (e *endlessInput) Read(p []byte) (int, error) {
	line := []byte("b 2 x:y\ta a\n")
	n := 0
	for n < len(p) {
		n += copy(p[n:], line[(e.n+n)%len(line):])
	}
	e.n += n
	if e.n > e.limit {
		e.cancel()
	}
	return n, nil
}

// cappedOutput fails every write after limit bytes, as a capped stdout.
type cappedOutput struct {
	n, limit int
}

var errCapped = errors.New("output limit reached")

func (c *cappedOutput) Write(p []byte) (int, error) {
	if c.n+len(p) > c.limit {
		return 0, errCapped
	}
	c.n += len(p)
	return len(p), nil
}

// TestStopsWhenCancelled feeds endless input to every streaming tool; each
// must return (a hang fails the test by the test timeout) with a failure
// status once its context is cancelled.
func TestStopsWhenCancelled(t *testing.T) {
	sb := commandtest.New(t)
	sb.Commands = commandTable()
	for _, args := range [][]string{
		{"head", "-n", "-1"}, {"tail", "-n", "1"}, {"wc"}, {"wc", "-l"}, {"sort"}, {"sort", "-n"}, {"uniq", "-c"}, {"cut", "-f2"},
		{"tr", "a-z", "A-Z"}, {"paste", "-", "-"}, {"nl"}, {"tac"}, {"rev"}, {"fold", "-w", "3"}, {"expand"}, {"unexpand", "-a"},
		{"column", "-t"}, {"tee"}, {"xargs", "-n", "1000", "echo"}, {"base64"}, {"md5sum"}, {"sha256sum"}, {"od", "-c"},
		{"strings"}, {"comm", "-", "a"}, {"join", "-", "a"}, {"diff", "-", "a"}, {"split", "-l", "1000"},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		in := &endlessInput{limit: 4 << 20, cancel: cancel}
		sb.WriteFiles(t, map[string]string{"a": "a\n"})
		var errb bytes.Buffer
		fn := sb.Commands[args[0]]
		code := fn(ctx, sb.Env("/workspace", args, in, io.Discard, &errb))
		cancel()
		if code == 0 {
			t.Errorf("%v: exit 0 after cancellation", args)
		}
	}
}

// TestStopsOnWriteError checks that a failing stdout ends endless output.
func TestStopsOnWriteError(t *testing.T) {
	sb := commandtest.New(t)
	sb.Commands = commandTable()
	for _, args := range [][]string{
		{"seq", "1", "1000000000000"}, {"tr", "a", "b"}, {"cut", "-c1-3"}, {"head", "-n", "100000000"}, {"paste", "-"},
		{"nl"}, {"rev"}, {"expand"}, {"fold"}, {"od", "-v"},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		// The input cancels only as a backstop, far beyond the output cap.
		in := &endlessInput{limit: 1 << 30, cancel: cancel}
		out := &cappedOutput{limit: 1 << 20}
		var errb bytes.Buffer
		fn := sb.Commands[args[0]]
		code := fn(ctx, sb.Env("/workspace", args, in, out, &errb))
		cancel()
		if code == 0 {
			t.Errorf("%v: exit 0 after a write error", args)
		}
		if in.n > 1<<29 {
			t.Errorf("%v: read %d bytes after stdout failed", args, in.n)
		}
		if args[0] == "seq" && !strings.Contains(errb.String(), "write error") {
			t.Errorf("%v: stderr %q, want a write error", args, errb.String())
		}
	}
}

// TestCommandsTable checks the exported command list.
func TestCommandsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Commands() {
		if s.Name == "" || s.Summary == "" || s.Func == nil {
			t.Errorf("incomplete spec %+v", s)
		}
		if seen[s.Name] {
			t.Errorf("duplicate command %s", s.Name)
		}
		seen[s.Name] = true
	}
	for _, name := range []string{"head", "tail", "wc", "sort", "uniq", "cut", "tr", "paste", "join", "comm", "nl", "tac", "rev",
		"fold", "expand", "unexpand", "column", "seq", "tee", "xargs", "diff", "base64", "md5sum", "sha1sum", "sha256sum",
		"sha512sum", "od", "strings", "split"} {
		if !seen[name] {
			t.Errorf("missing command %s", name)
		}
	}
	var _ command.Func = Head
}
