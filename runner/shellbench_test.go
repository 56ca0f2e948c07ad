package runner

import (
	"context"
	"io"
	"os/exec"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// shellBenchScripts are the interpreter benchmarks of issue 14: the same
// script through the runner in process, through mvdan/sh's interp (the
// interpreter the runner used before its own; kept here, in a test, as
// the baseline) and through GNU bash.
var shellBenchScripts = []struct{ name, script, stdout string }{
	{"echo", "echo hi", "hi\n"},
	{"arith-loop", "s=0; for ((i=0; i<10000; i++)); do s=$((s+i)); done; echo $s", "49995000\n"},
	{"string-build", `s=; for ((i=0; i<2000; i++)); do s+="x$i,"; done; echo ${#s}`, "10890\n"},
	{"func-calls", "f(){ if (( $1 > 0 )); then f $(( $1 - 1 )); fi; }; for ((i=0; i<100; i++)); do f 100; done; echo done", "done\n"},
}

// BenchmarkShell compares the interpreters on shellBenchScripts.
func BenchmarkShell(b *testing.B) {
	ctx := context.Background()
	for _, s := range shellBenchScripts {
		b.Run(s.name+"/wsfs", func(b *testing.B) {
			ws := b.TempDir()
			for b.Loop() {
				res := Run(ctx, Config{Script: s.script, WorkspaceDir: ws})
				if res.ExitCode != 0 || string(res.Stdout) != s.stdout {
					b.Fatalf("exit %d %q %q", res.ExitCode, res.Stdout, res.Stderr)
				}
			}
		})
		b.Run(s.name+"/mvdan", func(b *testing.B) {
			for b.Loop() {
				prog, err := syntax.NewParser().Parse(strings.NewReader(s.script), "")
				if err != nil {
					b.Fatal(err)
				}
				var out strings.Builder
				r, err := interp.New(interp.StdIO(nil, &out, io.Discard))
				if err != nil {
					b.Fatal(err)
				}
				if err := r.Run(ctx, prog); err != nil || out.String() != s.stdout {
					b.Fatalf("%v %q", err, out.String())
				}
			}
		})
		b.Run(s.name+"/bash", func(b *testing.B) {
			bash, err := exec.LookPath("bash")
			if err != nil {
				b.Skip("GNU bash is missing")
			}
			for b.Loop() {
				out, err := exec.Command(bash, "-c", s.script).Output()
				if err != nil || string(out) != s.stdout {
					b.Fatalf("bash: %v %q", err, out)
				}
			}
		})
	}
}
