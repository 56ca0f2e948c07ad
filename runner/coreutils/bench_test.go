package coreutils

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// benchTree makes dirs×files files, two levels deep.
func benchTree(b *testing.B, dirs, files int) *commandtest.Sandbox {
	b.Helper()
	s := commandtest.New(b)
	s.Commands = commandMap()
	for d := 0; d < dirs; d++ {
		dir := filepath.Join(s.Workspace, "src", fmt.Sprintf("pkg%03d", d), "sub")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := 0; f < files; f++ {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%03d.go", f)), []byte("package x\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return s
}

func benchRun(b *testing.B, s *commandtest.Sandbox, args ...string) {
	b.Helper()
	fn := s.Commands[args[0]]
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		env := s.Env("/workspace", args, strings.NewReader(""), io.Discard, io.Discard)
		if code := fn(context.Background(), env); code != 0 {
			b.Fatalf("%v: exit %d", args, code)
		}
	}
}

func BenchmarkLsLong1000(b *testing.B) {
	s := benchTree(b, 1, 1000)
	benchRun(b, s, "ls", "-l", "src/pkg000/sub")
}

func BenchmarkFind10k(b *testing.B) {
	s := benchTree(b, 100, 100)
	benchRun(b, s, "find", "src", "-name", "*.go")
}

func BenchmarkCat10MB(b *testing.B) {
	s := commandtest.New(b)
	s.Commands = commandMap()
	if err := os.WriteFile(filepath.Join(s.Workspace, "big"), []byte(strings.Repeat("0123456789abcdef\n", 10<<20/17)), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(10 << 20)
	benchRun(b, s, "cat", "big")
}

func BenchmarkTarGzip1000(b *testing.B) {
	s := benchTree(b, 10, 100)
	benchRun(b, s, "tar", "czf", "/tmp/x.tgz", "src")
}
