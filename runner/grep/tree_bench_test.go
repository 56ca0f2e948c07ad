package grep

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// BenchmarkTreeVersusGNU searches a source-like tree of 4000 small files
// (grep -rn), where the cost is per file rather than per byte.
func BenchmarkTreeVersusGNU(b *testing.B) {
	gnu := gnuGrep(b)
	sb := commandtest.New(b)
	for i := 0; i < 4000; i++ {
		dir := filepath.Join(sb.Workspace, "src", fmt.Sprintf("pkg%02d", i%40), fmt.Sprintf("sub%d", i%7))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		body := bytes.Repeat([]byte("func handler(w http.ResponseWriter, r *http.Request) { return }\n"), 30)
		if i%50 == 0 {
			body = append(body, "// TODO: remove this hack\n"...)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), body, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	args := []string{"grep", "-rn", "TODO", "src"}
	var ours, theirs time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		var out bytes.Buffer
		if code := Grep(context.Background(), sb.Env("/workspace", args, bytes.NewReader(nil), &out, io.Discard)); code != 0 {
			b.Fatalf("status %d", code)
		}
		ours += time.Since(start)
		start = time.Now()
		cmd := exec.Command(gnu, args[1:]...)
		cmd.Dir = sb.Workspace
		var gout bytes.Buffer
		cmd.Stdout = &gout
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		theirs += time.Since(start)
		if i == 0 && sortedLines(gout.String()) != sortedLines(out.String()) {
			b.Fatalf("output differs from GNU grep")
		}
	}
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "ns/wsfs")
	b.ReportMetric(float64(theirs.Nanoseconds())/float64(b.N), "ns/gnu")
	b.ReportMetric(float64(ours)/float64(theirs), "x-gnu")
}
