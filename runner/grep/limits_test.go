package grep

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// failingWriter accepts limit bytes, then fails every write (as the
// runner does when output is capped).
type failingWriter struct {
	limit, written, calls int
}

func (w *failingWriter) Write(p []byte) (int, error) {
	w.calls++
	if w.written+len(p) > w.limit {
		n := w.limit - w.written
		w.written = w.limit
		return n, errors.New("output limit reached")
	}
	w.written += len(p)
	return len(p), nil
}

func TestWriteErrorStopsTheSearch(t *testing.T) {
	sb := commandtest.New(t)
	if err := os.WriteFile(filepath.Join(sb.Workspace, "big.log"), benchText(4<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	w := &failingWriter{limit: 1000}
	var stderr bytes.Buffer
	env := sb.Env("/workspace", []string{"grep", "e", "big.log", "big.log"}, strings.NewReader(""), w, &stderr)
	code := Grep(context.Background(), env)
	if code != 2 || !strings.Contains(stderr.String(), "grep: write error: output limit reached") {
		t.Fatalf("got status %d, stderr %q; want 2 and a write error", code, stderr.String())
	}
	if w.calls > 2 {
		t.Errorf("grep wrote %d times after the first failure; it must stop", w.calls)
	}
}

func TestCancelledContextStops(t *testing.T) {
	sb := commandtest.New(t)
	sb.WriteFiles(t, map[string]string{"a.txt": "hello\n", "d/b.txt": "hello\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{{"grep", "hello", "a.txt"}, {"grep", "-r", "hello", "d"}, {"rg", "hello"}} {
		fn := Grep
		if args[0] == "rg" {
			fn = Rg
		}
		r := sb.Run(ctx, fn, "", args...)
		if r.Code != 2 || !strings.Contains(r.Stderr, "context canceled") || r.Stdout != "" {
			t.Errorf("%q with a cancelled context: code %d stdout %q stderr %q", args, r.Code, r.Stdout, r.Stderr)
		}
	}
}

func TestBacktrackingBudgetIsAnError(t *testing.T) {
	sb := commandtest.New(t)
	line := strings.Repeat("a", 60) + "cb\n" // has the "b" the prefilter wants
	r := sb.Run(context.Background(), Grep, line, "grep", "-o", `\(a*\)*\1\1b`)
	if r.Code != 2 || !strings.Contains(r.Stderr, "too complex") {
		t.Errorf("got code %d stderr %q; want 2 and a clear message", r.Code, r.Stderr)
	}
}

// TestGNUDifferentialAcrossBuffers runs GNU grep and ours on a file
// larger than one read buffer (with a line longer than a buffer), so
// records, context and counts cross buffer boundaries.
func TestGNUDifferentialAcrossBuffers(t *testing.T) {
	gnu := gnuGrep(t)
	sb := commandtest.New(t)
	data := benchText(1 << 20)
	long := append(bytes.Repeat([]byte("x"), 600<<10), []byte(" needle at the end of a long line\n")...)
	data = append(append(data[:len(data)/2:len(data)/2], long...), data[len(data)/2:]...)
	if err := os.WriteFile(filepath.Join(sb.Workspace, "big.log"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{
		"grep -n zebra big.log", "grep -c -v e big.log", "grep -n -B2 -A3 zebra big.log",
		"grep -b -o 'errno[0-9]*' big.log", "grep -n needle big.log", "grep -c -i ZEBRA big.log",
		"grep -n -C1 'id=9999[0-9]$' big.log", "grep -m 5 -n -A2 fox big.log", "grep -w -c fox big.log",
		"grep -E -n '(timeout|failed) [a-z]+ id=[0-9]{5}$' big.log",
	} {
		args := splitArgs(cmd)
		want := runGNU(t, gnu, sb.Workspace, "", args)
		got := runOurs(sb, Grep, "", args)
		if !sameClass(want, got) {
			t.Errorf("%s: GNU code %d, %d bytes; ours code %d, %d bytes, stderr %q", cmd, want.code, len(want.stdout), got.code, len(got.stdout), got.stderr)
		}
	}
}

func TestNilStdinReadsAsEmpty(t *testing.T) {
	sb := commandtest.New(t)
	sb.WriteFiles(t, map[string]string{"a.txt": "x\n"})
	for _, args := range [][]string{{"grep", "x"}, {"grep", "-f", "-", "a.txt"}, {"rg", "x", "-"}} {
		var out, errb bytes.Buffer
		env := sb.Env("/workspace", args, nil, &out, &errb)
		env.Stdin = nil
		fn := Grep
		if args[0] == "rg" {
			fn = Rg
		}
		if code := fn(context.Background(), env); code != 1 {
			t.Errorf("%q with no stdin: status %d, stderr %q", args, code, errb.String())
		}
	}
}
