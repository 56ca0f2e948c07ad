package runner

import (
	"context"
	"os/exec"
	"testing"
)

// BenchmarkRunEchoHi measures one in-process command: parse, preflight,
// mount the view, interpret, tear down.
func BenchmarkRunEchoHi(b *testing.B) {
	ws := b.TempDir()
	ctx := context.Background()
	for b.Loop() {
		res := Run(ctx, Config{Script: "echo hi", WorkspaceDir: ws})
		if res.ExitCode != 0 || string(res.Stdout) != "hi\n" {
			b.Fatalf("exit %d %q", res.ExitCode, res.Stdout)
		}
	}
}

// BenchmarkRunWriteFile measures a command that writes one file.
func BenchmarkRunWriteFile(b *testing.B) {
	ws, scratch := b.TempDir(), b.TempDir()
	ctx := context.Background()
	for b.Loop() {
		res := Run(ctx, Config{Script: "echo hello > out.txt", WorkspaceDir: ws, ScratchDir: scratch})
		if res.ExitCode != 0 {
			b.Fatalf("exit %d %q", res.ExitCode, res.Stderr)
		}
	}
}

// BenchmarkRunPipeline measures a small pipeline of runner commands.
func BenchmarkRunPipeline(b *testing.B) {
	ws := b.TempDir()
	ctx := context.Background()
	for b.Loop() {
		res := Run(ctx, Config{Script: "seq 100 | sort -rn | head -n 3 | wc -l", WorkspaceDir: ws})
		if res.ExitCode != 0 || string(res.Stdout) != "3\n" {
			b.Fatalf("exit %d %q", res.ExitCode, res.Stdout)
		}
	}
}

// BenchmarkBashEchoHi is the reference: GNU bash started for `echo hi`.
func BenchmarkBashEchoHi(b *testing.B) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		b.Skip("GNU bash is missing")
	}
	for b.Loop() {
		out, err := exec.Command(bash, "-c", "echo hi").Output()
		if err != nil || string(out) != "hi\n" {
			b.Fatalf("bash: %v %q", err, out)
		}
	}
}
