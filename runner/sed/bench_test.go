package sed

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// benchText is about 10 MB of words in lines of varying length, with
// "foo" in some of them.
func benchText() []byte {
	words := []string{"alpha", "beta", "foo", "gamma", "delta", "food", "epsilon", "zeta", "eta", "theta", "12", "345"}
	r := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	for b.Len() < 10<<20 {
		n := 3 + r.IntN(12)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// benchVsGNU runs script over the 10 MB text with our sed and GNU sed in
// turns and reports both times and their ratio.
func benchVsGNU(b *testing.B, args ...string) {
	sedPath := gnuSed(b)
	text := benchText()
	dir := b.TempDir()
	file := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(file, text, 0o644); err != nil {
		b.Fatal(err)
	}
	sb := commandtest.New(b)
	// Check once that both give the same output.
	var gnuOut bytes.Buffer
	cmd := exec.Command(sedPath, append(append([]string{}, args...), file)...)
	cmd.Env = []string{"LC_ALL=C.UTF-8"}
	cmd.Stdout = &gnuOut
	if err := cmd.Run(); err != nil {
		b.Fatal(err)
	}
	var ourOut bytes.Buffer
	env := sb.Env("/workspace", append([]string{"sed"}, args...), bytes.NewReader(text), &ourOut, io.Discard)
	if code := Run(context.Background(), env); code != 0 || !bytes.Equal(ourOut.Bytes(), gnuOut.Bytes()) {
		b.Fatalf("outputs differ (exit %d)", code)
	}
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	var ours, gnu time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		env := sb.Env("/workspace", append([]string{"sed"}, args...), bytes.NewReader(text), io.Discard, io.Discard)
		if code := Run(context.Background(), env); code != 0 {
			b.Fatalf("exit %d", code)
		}
		ours += time.Since(start)

		start = time.Now()
		cmd := exec.Command(sedPath, append(append([]string{}, args...), file)...)
		cmd.Env = []string{"LC_ALL=C.UTF-8"}
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		gnu += time.Since(start)
	}
	b.ReportMetric(float64(ours.Microseconds())/float64(b.N)/1000, "ours-ms/op")
	b.ReportMetric(float64(gnu.Microseconds())/float64(b.N)/1000, "gnu-ms/op")
	b.ReportMetric(float64(ours)/float64(gnu), "x-gnu")
}

// BenchmarkSubstLiteral is the target: s/foo/bar/g on 10 MB,
// within 3× of GNU sed.
func BenchmarkSubstLiteral(b *testing.B) { benchVsGNU(b, "s/foo/bar/g") }

// BenchmarkSubstRegex is a substitution through Go regexp.
func BenchmarkSubstRegex(b *testing.B) { benchVsGNU(b, `s/[0-9]\+/N/g`) }

// BenchmarkDeleteRegexAddr is an address regex over every line.
func BenchmarkDeleteRegexAddr(b *testing.B) { benchVsGNU(b, `/^al.*ta$/d`) }
