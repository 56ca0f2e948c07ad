package grep

import (
	"bytes"
	"context"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

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

// BenchmarkVersusGNU runs our grep and GNU grep (os/exec, stdout to a
// pipe) on the same 10 MB file and reports both times and their ratio.
func BenchmarkVersusGNU(b *testing.B) {
	gnu := gnuGrep(b)
	sb := commandtest.New(b)
	if err := os.WriteFile(filepath.Join(sb.Workspace, "big.log"), benchText(10<<20), 0o644); err != nil {
		b.Fatal(err)
	}
	cases := []struct{ name string }{
		{"fixed:-F zebra"},
		{"fixed-count:-c -F zebra"},
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
		args = append(args, "big.log")
		b.Run(name, func(b *testing.B) {
			var ours, theirs time.Duration
			for i := 0; i < b.N; i++ {
				start := time.Now()
				var out bytes.Buffer
				out.Grow(12 << 20) // the writer's growth is not grep's cost
				env := sb.Env("/workspace", args, bytes.NewReader(nil), &out, io.Discard)
				if code := Grep(context.Background(), env); code > 1 {
					b.Fatalf("%v: status %d", args, code)
				}
				ours += time.Since(start)

				start = time.Now()
				cmd := exec.Command(gnu, args[1:]...)
				cmd.Dir = sb.Workspace
				cmd.Env = []string{"LC_ALL=C.UTF-8"}
				var gout bytes.Buffer
				gout.Grow(12 << 20)
				cmd.Stdout = &gout
				if err := cmd.Run(); err != nil {
					if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() > 1 {
						b.Fatalf("GNU %v: %v", args, err)
					}
				}
				theirs += time.Since(start)
				if i == 0 && gout.String() != out.String() {
					b.Fatalf("%v: output differs from GNU grep (%d vs %d bytes)", args, out.Len(), gout.Len())
				}
			}
			b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "ns/wsfs")
			b.ReportMetric(float64(theirs.Nanoseconds())/float64(b.N), "ns/gnu")
			b.ReportMetric(float64(ours)/float64(theirs), "x-gnu")
		})
	}
}

func bytesCut(s string, sep byte) (string, string, bool) {
	if i := bytes.IndexByte([]byte(s), sep); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}
