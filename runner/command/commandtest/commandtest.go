// Package commandtest runs a runner command in a throwaway agent view
// (/workspace and /tmp on temporary folders) for unit and differential
// tests of the command packages.
package commandtest

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command"
)

// Sandbox is an agent view over two temporary host folders.
type Sandbox struct {
	Workspace string // host folder mapped at /workspace
	Tmp       string // host folder mapped at /tmp
	FS        *command.RootFS
	// Commands answers Env.Exec for sub-commands; may be nil.
	Commands map[string]command.Func
}

// New makes a sandbox whose folders are removed when t ends.
func New(t testing.TB) *Sandbox {
	t.Helper()
	s := &Sandbox{Workspace: t.TempDir(), Tmp: t.TempDir()}
	fsys, err := command.NewRootFS(map[string]string{"/workspace": s.Workspace, "/tmp": s.Tmp}, "/workspace")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	s.FS = fsys
	return s
}

// WriteFiles creates files (path relative to the workspace → content),
// making parent folders.
func (s *Sandbox) WriteFiles(t testing.TB, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(s.Workspace, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Result is what one command printed and returned.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run calls fn with args (args[0] is the command name), stdin and the
// working directory /workspace.
func (s *Sandbox) Run(ctx context.Context, fn command.Func, stdin string, args ...string) Result {
	return s.RunIn(ctx, "/workspace", fn, stdin, args...)
}

// RunIn is Run with another working directory.
func (s *Sandbox) RunIn(ctx context.Context, dir string, fn command.Func, stdin string, args ...string) Result {
	var out, errb bytes.Buffer
	in := strings.NewReader(stdin)
	code := fn(ctx, s.Env(dir, args, in, &out, &errb))
	return Result{Stdout: out.String(), Stderr: errb.String(), Code: code}
}

// Env builds the Env of one invocation.
func (s *Sandbox) Env(dir string, args []string, stdin io.Reader, stdout, stderr io.Writer) *command.Env {
	env := &command.Env{
		Args:   args,
		Stdin:  stdin,
		Stdout: stdout,
		Stderr: stderr,
		Dir:    dir,
		FS:     s.FS.WithDir(dir, stdin, stdout, stderr),
		Getenv: func(string) string { return "" },
		HasCommand: func(name string) bool {
			_, ok := s.Commands[name]
			return ok
		},
	}
	env.Exec = func(ctx context.Context, argv []string, in io.Reader, o, e io.Writer) int {
		if len(argv) == 0 {
			return 0
		}
		fn, ok := s.Commands[argv[0]]
		if !ok {
			io.WriteString(e, argv[0]+": command not found\n")
			return 127
		}
		sub := s.Env(dir, argv, in, o, e)
		if vars, ok := command.EnvironFrom(ctx); ok {
			sub.Environ = vars
			sub.Getenv = func(name string) string {
				for _, v := range vars {
					if n, val, _ := strings.Cut(v, "="); n == name {
						return val
					}
				}
				return ""
			}
		}
		return fn(ctx, sub)
	}
	return env
}

// FixturesDir returns ../shared/conformance/just-bash-fixtures beside the
// repository root (the recorded bash results tests compare with), or ""
// when that folder is absent, as it is for users of wsfs.
func FixturesDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	p := filepath.Join(filepath.Dir(dir), "shared", "conformance", "just-bash-fixtures")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}
