package awk

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// benchText writes about 10 MB of five-column text: words and numbers.
func benchText(tb testing.TB, dir string) string {
	tb.Helper()
	var b bytes.Buffer
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"}
	for i := 0; b.Len() < 10<<20; i++ {
		b.WriteString(words[i%len(words)])
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(i))
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(i * 7 % 1000))
		b.WriteByte(' ')
		b.WriteString(strconv.FormatFloat(float64(i%97)/7, 'f', 3, 64))
		b.WriteString(" some trailing words here\n")
	}
	p := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// BenchmarkFieldSum runs `{s+=$3} END{print s}` over 10 MB with this awk
// and, in the same run, with gawk; it reports gawk's time per run and the
// ratio ours/gawk.
func BenchmarkFieldSum(b *testing.B) {
	benchVsGawk(b, `{s+=$3} END{print s}`)
}

// BenchmarkRegexCount counts matching records, a common agent one-liner.
func BenchmarkRegexCount(b *testing.B) {
	benchVsGawk(b, `/charlie 1[0-9]*5 / {n++} END{print n}`)
}

func benchVsGawk(b *testing.B, prog string) {
	s := commandtest.New(b)
	benchText(b, s.Workspace)
	ctx := context.Background()

	var want []byte
	gawk, err := exec.LookPath("gawk")
	var gawkTime time.Duration
	if err == nil {
		const runs = 3
		for i := 0; i < runs; i++ {
			cmd := exec.Command(gawk, prog, "big.txt")
			cmd.Dir = s.Workspace
			cmd.Env = []string{"LC_ALL=C.UTF-8"}
			start := time.Now()
			out, err := cmd.Output()
			if err != nil {
				b.Fatalf("gawk: %v", err)
			}
			gawkTime += time.Since(start)
			want = out
		}
		gawkTime /= runs
	}
	b.SetBytes(10 << 20)
	b.ResetTimer()
	var out bytes.Buffer
	for i := 0; i < b.N; i++ {
		out.Reset()
		env := s.Env("/workspace", []string{"awk", prog, "big.txt"}, nil, &out, io.Discard)
		if code := Main(ctx, env); code != 0 {
			b.Fatalf("awk exited %d", code)
		}
	}
	b.StopTimer()
	if want != nil {
		if !bytes.Equal(out.Bytes(), want) {
			b.Fatalf("output differs: ours %q, gawk %q", out.String(), want)
		}
		ours := b.Elapsed() / time.Duration(b.N)
		b.ReportMetric(float64(gawkTime.Milliseconds()), "gawk-ms")
		b.ReportMetric(float64(ours)/float64(gawkTime), "x-gawk")
	}
}
