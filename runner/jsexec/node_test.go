package jsexec

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

var updateNode = flag.Bool("update-node", false, "rewrite testdata/node/*.out with what Node prints")

// notNode marks a case whose output Node cannot reproduce (fixed host
// values such as os.hostname): its .out is written by hand.
var notNode = regexp.MustCompile(`^// not-node: (.+)`)

// TestNodeModules runs each testdata/node/NAME.js through js-exec, which
// must print NAME.out: what Node v20 printed for the same file (recorded
// with -update-node). Where Node is installed the comparison with it is
// also made live.
func TestNodeModules(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "node", "*.js"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" || *updateNode {
			t.Fatal("node is missing: run scripts/deps.sh")
		}
		t.Log("node is missing: live comparison with Node skipped (scripts/deps.sh installs it)")
	}
	sb := commandtest.New(t)
	nodeDir := t.TempDir()
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".js")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			outFile := strings.TrimSuffix(file, ".js") + ".out"
			m := notNode.FindSubmatch(code)
			if node != "" && m == nil {
				got := runNode(t, node, nodeDir, name, code)
				if *updateNode {
					if err := os.WriteFile(outFile, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			want, err := os.ReadFile(outFile)
			if err != nil {
				t.Fatal(err)
			}
			if node != "" && m == nil {
				if got := runNode(t, node, nodeDir, name, code); got != string(want) {
					t.Errorf("node printed\n%s\nwant (%s)\n%s", got, outFile, want)
				}
			}
			r := sb.Run(context.Background(), Spec(Config{}).Func, "", "js-exec", "-c", string(code))
			if r.Stdout != string(want) || r.Code != 0 {
				t.Errorf("js-exec printed\n%s\nwant (%s)\n%s\n(stderr %q, status %d)", r.Stdout, outFile, want, r.Stderr, r.Code)
			}
		})
	}
}

// runNode runs code as Node runs a file: an ES module when it has
// import/export syntax, CommonJS otherwise.
func runNode(t *testing.T, node, dir, name string, code []byte) string {
	t.Helper()
	file := filepath.Join(dir, name+".cjs")
	if moduleSyntax.Match(code) {
		file = filepath.Join(dir, name+".mjs")
	}
	if err := os.WriteFile(file, code, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(context.Background(), node, file)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TZ=UTC")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", name, err, stderr.Bytes())
	}
	return string(out)
}

// BenchmarkNodeModules measures a warm run that loads Node modules, against
// one that loads none. Besides wall time it reports the process's CPU time
// per run, steadier on a busy machine.
func BenchmarkNodeModules(b *testing.B) {
	sb := commandtest.New(b)
	fn := Spec(Config{}).Func
	for _, c := range []struct{ name, code string }{
		{"none", "1"},
		{"console.log", "console.log(1, 'a')"},
		{"util", "require('util')"},
		{"buffer", "Buffer.from('x')"},
		{"all", "for (const m of ['assert', 'buffer', 'events', 'os', 'querystring', 'stream', 'string_decoder', 'url', 'util']) require(m)"},
	} {
		b.Run(c.name, func(b *testing.B) {
			if r := sb.Run(context.Background(), fn, "", "js-exec", "-c", c.code); r.Code != 0 {
				b.Fatalf("%+v", r)
			}
			start := cpuTime()
			for b.Loop() {
				sb.Run(context.Background(), fn, "", "js-exec", "-c", c.code)
			}
			b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
