package textutils

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// numbersFile writes about 10 MB of random numbers, one per line, some
// negative and some with fractions, as sort -n sees in practice.
func numbersFile(b *testing.B, dir string) string {
	b.Helper()
	rng := rand.New(rand.NewSource(1))
	var buf bytes.Buffer
	for buf.Len() < 10<<20 {
		switch rng.Intn(4) {
		case 0:
			fmt.Fprintf(&buf, "-%d\n", rng.Intn(1000000))
		case 1:
			fmt.Fprintf(&buf, "%d.%d\n", rng.Intn(100000), rng.Intn(1000))
		default:
			fmt.Fprintf(&buf, "%d\n", rng.Int63n(1<<40))
		}
	}
	p := filepath.Join(dir, "nums.txt")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkSortNumeric compares sort -n on 10 MB with GNU sort (LC_ALL=C)
// in the same run; the ratio is ours/GNU per operation.
func BenchmarkSortNumeric(b *testing.B) {
	sb := commandtest.New(b)
	numbersFile(b, sb.Workspace)
	b.Run("wsfs", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			env := sb.Env("/workspace", []string{"sort", "-n", "nums.txt"}, bytes.NewReader(nil), io.Discard, io.Discard)
			if code := Sort(context.Background(), env); code != 0 {
				b.Fatalf("sort exited %d", code)
			}
		}
	})
	b.Run("gnu", func(b *testing.B) {
		if _, err := exec.LookPath("sort"); err != nil {
			b.Skip("GNU sort not installed")
		}
		for i := 0; i < b.N; i++ {
			cmd := exec.Command("sort", "-n", filepath.Join(sb.Workspace, "nums.txt"))
			cmd.Env = []string{"LC_ALL=C"}
			cmd.Stdout = io.Discard
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
