package sed

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

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

// benchVsGNU runs sed with args over the 10 MB text, ours and GNU's in
// turns (commandtest.Versus).
func benchVsGNU(b *testing.B, args ...string) {
	sedPath := gnuSed(b)
	sb := commandtest.New(b)
	if err := os.WriteFile(filepath.Join(sb.Workspace, "in.txt"), benchText(), 0o644); err != nil {
		b.Fatal(err)
	}
	sb.Versus(b, Run, sedPath, append(append([]string{"sed"}, args...), "in.txt"))
}

// BenchmarkSubstLiteral is s/foo/bar/g on 10 MB, a `make bench` row.
func BenchmarkSubstLiteral(b *testing.B) { benchVsGNU(b, "s/foo/bar/g") }

// BenchmarkSubstRegex is a substitution through Go regexp.
func BenchmarkSubstRegex(b *testing.B) { benchVsGNU(b, `s/[0-9]\+/N/g`) }

// BenchmarkDeleteRegexAddr is an address regex over every line.
func BenchmarkDeleteRegexAddr(b *testing.B) { benchVsGNU(b, `/^al.*ta$/d`) }
