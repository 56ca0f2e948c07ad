package xan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// rowSource produces "id,text\n" then numbered rows without end. After
// limit bytes it fails with errTooFar, so a command that reads more than
// it needs fails instead of hanging. check, when set, is called before
// each chunk past the first MiB and may fail the read.
type rowSource struct {
	n, read, limit int
	buf            []byte
	check          func() error
}

var errTooFar = errors.New("read past the limit")

func (s *rowSource) Read(p []byte) (int, error) {
	if s.read >= s.limit {
		return 0, errTooFar
	}
	if s.read > 1<<20 && s.check != nil {
		if err := s.check(); err != nil {
			return 0, err
		}
	}
	if len(s.buf) == 0 {
		if s.n == 0 {
			s.buf = []byte("id,text\n")
		}
		for len(s.buf) < 4096 {
			s.buf = fmt.Appendf(s.buf, "%d,\"row, number %d\"\n", s.n, s.n)
			s.n++
		}
	}
	k := copy(p, s.buf)
	s.buf = s.buf[k:]
	s.read += k
	return k, nil
}

// countingWriter counts bytes and keeps the first ones.
type countingWriter struct {
	n    atomic.Int64
	head bytes.Buffer
}

func (w *countingWriter) Write(p []byte) (int, error) {
	if w.head.Len() < 1024 {
		w.head.Write(p)
	}
	w.n.Add(int64(len(p)))
	return len(p), nil
}

// TestStopsReading: head, slice, search -l and filter -l stop reading an
// endless input once they have their rows.
func TestStopsReading(t *testing.T) {
	ctx := context.Background()
	sb := commandtest.New(t)
	for _, args := range [][]string{
		{"head", "-l", "3"},
		{"slice", "-s", "5", "-l", "2"},
		{"search", "-l", "2", "-s", "text", "number 7"},
		{"filter", "-l", "2", "id > 100"},
		{"flatten", "-l", "1"},
		{"view", "-l", "3"},
	} {
		src := &rowSource{limit: 8 << 20}
		var out, errb bytes.Buffer
		code := Run(ctx, sb.Env("/workspace", append([]string{"xan"}, args...), src, &out, &errb))
		if code != 0 || src.read >= src.limit {
			t.Errorf("xan %q: code %d, read %d bytes, stderr %q", args, code, src.read, errb.String())
		}
		if lines := strings.Count(out.String(), "\n"); lines < 3 || lines > 10 {
			t.Errorf("xan %q: output %q", args, out.String())
		}
	}
}

// TestStreams: row-by-row subcommands write output while the input is
// still being read, so their memory does not grow with the input. The
// source refuses to go on once past 1 MiB if nothing was written yet.
func TestStreams(t *testing.T) {
	ctx := context.Background()
	sb := commandtest.New(t)
	for _, args := range [][]string{
		{"select", "text,id"},
		{"search", "-s", "text", "row"},
		{"filter", "id >= 0"},
		{"slice", "-s", "10"},
		{"rename", "a,b"},
		{"behead"},
		{"to", "jsonl", "--sample-size", "10"},
		{"to", "json", "--sample-size", "10"},
		{"cat", "rows", "-"},
		{"dedup", "-s", "id"},
		{"flatten", "--csv"},
		{"map", "id + 1 as next"},
		{"groupby", "-S", "id", "count()"},
	} {
		out := &countingWriter{}
		src := &rowSource{limit: 3 << 20}
		src.check = func() error {
			if out.n.Load() == 0 {
				return errors.New("nothing written after 1 MiB of input: not streaming")
			}
			return nil
		}
		var errb bytes.Buffer
		code := Run(ctx, sb.Env("/workspace", append([]string{"xan"}, args...), src, out, &errb))
		if code != 1 || !strings.Contains(errb.String(), errTooFar.Error()) {
			t.Errorf("xan %q: code %d, wrote %d bytes, stderr %q", args, code, out.n.Load(), errb.String())
		}
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sb := commandtest.New(t)
	for _, args := range [][]string{{"count"}, {"sort"}, {"stats"}, {"frequency"}, {"select", "id"}} {
		src := &rowSource{limit: 64 << 20}
		var errb bytes.Buffer
		code := Run(ctx, sb.Env("/workspace", append([]string{"xan"}, args...), src, io.Discard, &errb))
		if code != 1 || src.read > 1<<20 {
			t.Errorf("xan %q under a cancelled context: code %d, read %d bytes, stderr %q", args, code, src.read, errb.String())
		}
	}
}

// TestLargeRoundTrip sends many rows with quotes, commas and newlines
// through select and back through to jsonl, checking every row.
func TestLargeRoundTrip(t *testing.T) {
	ctx := context.Background()
	sb := commandtest.New(t)
	var in strings.Builder
	in.WriteString("id,text\r\n")
	const n = 20000
	for i := range n {
		fmt.Fprintf(&in, "%d,\"a \"\"q\"\", b\r\nline %d\"\r\n", i, i)
	}
	r := sb.Run(ctx, Run, in.String(), "xan", "select", "text,id")
	if r.Code != 0 {
		t.Fatalf("select: %+v", r.Stderr)
	}
	j := sb.Run(ctx, Run, r.Stdout, "xan", "to", "jsonl")
	lines := strings.Split(strings.TrimSuffix(j.Stdout, "\n"), "\n")
	if j.Code != 0 || len(lines) != n {
		t.Fatalf("to jsonl: code %d, %d lines, stderr %q", j.Code, len(lines), j.Stderr)
	}
	for i, l := range lines {
		if want := fmt.Sprintf(`{"text":"a \"q\", b\nline %d","id":%d}`, i, i); l != want {
			t.Fatalf("line %d = %s, want %s", i, l, want)
		}
	}
}

// BenchmarkSelect measures select's throughput on 16 MiB of quoted rows
// (the source ends with errTooFar, which stops the command).
func BenchmarkSelect(b *testing.B) {
	ctx := context.Background()
	sb := commandtest.New(b)
	b.SetBytes(16 << 20)
	for b.Loop() {
		src := &rowSource{limit: 16 << 20}
		Run(ctx, sb.Env("/workspace", []string{"xan", "select", "text"}, src, io.Discard, io.Discard))
	}
}
