package commandtest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"testing"
	"time"

	"github.com/wsfs/wsfs/runner/command"
)

// Versus benchmarks fn against a host program (GNU grep, sed, gawk …) on
// the same command line in the workspace: it checks once that both print
// the same and exit alike, then runs them in turns, b.N times each, so
// both see the same load, and reports ns/wsfs, ns/gnu and x-gnu (ours ÷
// theirs). args[0] is the command name; a status above 1 is a failure.
func (s *Sandbox) Versus(b *testing.B, fn command.Func, host string, args []string) {
	b.Helper()
	ours := func(stdout io.Writer) int {
		return fn(context.Background(), s.Env("/workspace", args, bytes.NewReader(nil), stdout, io.Discard))
	}
	theirs := func(stdout io.Writer) int {
		cmd := exec.Command(host, args[1:]...)
		cmd.Args[0] = args[0]
		cmd.Dir, cmd.Env, cmd.Stdout = s.Workspace, []string{"LC_ALL=C.UTF-8"}, stdout
		var ee *exec.ExitError
		switch err := cmd.Run(); {
		case errors.As(err, &ee):
			return ee.ExitCode()
		case err != nil:
			b.Fatalf("%s: %v", host, err)
		}
		return 0
	}
	var got, want bytes.Buffer
	if code, gnuCode := ours(&got), theirs(&want); code != gnuCode || code > 1 || !bytes.Equal(got.Bytes(), want.Bytes()) {
		b.Fatalf("%q: status %d, %s's %d; output %d bytes, %s's %d", args, code, host, gnuCode, got.Len(), host, want.Len())
	}
	b.ResetTimer()
	var ourTime, gnuTime time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		ours(io.Discard)
		ourTime += time.Since(start)
		start = time.Now()
		theirs(io.Discard)
		gnuTime += time.Since(start)
	}
	b.ReportMetric(float64(ourTime.Nanoseconds())/float64(b.N), "ns/wsfs")
	b.ReportMetric(float64(gnuTime.Nanoseconds())/float64(b.N), "ns/gnu")
	b.ReportMetric(float64(ourTime)/float64(gnuTime), "x-gnu")
}
