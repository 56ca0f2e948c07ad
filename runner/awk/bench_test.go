package awk

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

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

// BenchmarkFieldSum runs `{s+=$3} END{print s}` over 10 MB, a `make
// bench` row.
func BenchmarkFieldSum(b *testing.B) {
	benchVsGawk(b, `{s+=$3} END{print s}`)
}

// BenchmarkRegexCount counts matching records, a common agent one-liner
// and a `make bench` row.
func BenchmarkRegexCount(b *testing.B) {
	benchVsGawk(b, `/charlie 1[0-9]*5 / {n++} END{print n}`)
}

// benchVsGawk runs prog over the 10 MB text, ours and gawk in turns
// (commandtest.Versus).
func benchVsGawk(b *testing.B, prog string) {
	gawk := gawkPath(b)
	s := commandtest.New(b)
	benchText(b, s.Workspace)
	s.Versus(b, Main, gawk, []string{"awk", prog, "big.txt"})
}
