package grep

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// benchText writes about size bytes of log-like lines.
func benchText(size int) []byte {
	words := []string{"the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "server", "request",
		"handled", "in", "ms", "user", "login", "failed", "retry", "connection", "timeout", "value",
		"processing", "queue", "item", "zebra", "cache", "miss", "hit", "error", "warning", "info"}
	rnd := rand.New(rand.NewSource(1))
	var b bytes.Buffer
	for b.Len() < size {
		b.WriteString("2026-11-30T09:")
		b.WriteString(strconv.Itoa(10 + rnd.Intn(50)))
		b.WriteString(" ")
		n := 5 + rnd.Intn(8)
		for i := 0; i < n; i++ {
			w := words[rnd.Intn(len(words))]
			if w == "error" && rnd.Intn(4) == 0 {
				w = "errno" + strconv.Itoa(rnd.Intn(200))
			}
			b.WriteString(w)
			b.WriteByte(' ')
		}
		b.WriteString("id=")
		b.WriteString(strconv.Itoa(rnd.Intn(100000)))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// BenchmarkVersusGNU runs our grep and GNU grep in turns on the same
// 10 MB file (commandtest.Versus). fixed, alternation and backref are
// `make bench`'s rows.
func BenchmarkVersusGNU(b *testing.B) {
	gnu := gnuGrep(b)
	sb := commandtest.New(b)
	if err := os.WriteFile(filepath.Join(sb.Workspace, "big.log"), benchText(10<<20), 0o644); err != nil {
		b.Fatal(err)
	}
	cases := []struct{ name string }{
		{"fixed:-F zebra"},
		{"fixed-count:-c -F zebra"},
		{"alternation:-E timeout|failed|zebra"},
		{`backref:'\b\([a-z]\+\) \1\b'`},
		{"regex:errno[0-9]+"},
		{"regex-ere:-E '(timeout|failed) [a-z]+ id=[0-9]{5}$'"},
		{"regex-noliteral:-E [0-9]{2}:[0-9]{2}:[0-9]{2}"},
		{"ignorecase:-i ZEBRA"},
		{"invert-count:-vc a"},
		{"word:-w -c fox"},
	}
	for _, c := range cases {
		name, spec, _ := bytesCut(c.name, ':')
		args := append([]string{"grep"}, splitArgs(spec)...)
		b.Run(name, func(b *testing.B) { sb.Versus(b, Grep, gnu, append(args, "big.log")) })
	}
}

func bytesCut(s string, sep byte) (string, string, bool) {
	if i := bytes.IndexByte([]byte(s), sep); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}
