package awk

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wsfs/wsfs/internal/testenv"
	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// gawkPath finds GNU awk for differential tests; tests skip without it
// unless CI=true.
func gawkPath(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("gawk")
	if err != nil {
		testenv.Missing(t, "gawk not installed: differential tests skipped")
	}
	return p
}

type result struct {
	stdout, stderr string
	code           int
}

// testCommands are the sub-commands the sandbox offers to awk pipes; they
// behave like their coreutils namesakes for the inputs used here.
var testCommands = map[string]command.Func{
	"echo": func(ctx context.Context, env *command.Env) int {
		io.WriteString(env.Stdout, strings.Join(env.Args[1:], " ")+"\n")
		return 0
	},
	"cat": func(ctx context.Context, env *command.Env) int {
		if len(env.Args) > 1 {
			for _, name := range env.Args[1:] {
				f, err := env.FS.Open(name)
				if err != nil {
					env.Errorf("%s: %s", name, command.Strerror(err))
					return 1
				}
				io.Copy(env.Stdout, f)
				f.Close()
			}
			return 0
		}
		io.Copy(env.Stdout, env.Stdin)
		return 0
	},
	"sort": func(ctx context.Context, env *command.Env) int {
		b, _ := io.ReadAll(env.Stdin)
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if len(b) == 0 {
			return 0
		}
		sort.Strings(lines)
		if len(env.Args) > 1 && env.Args[1] == "-r" {
			for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
				lines[i], lines[j] = lines[j], lines[i]
			}
		}
		io.WriteString(env.Stdout, strings.Join(lines, "\n")+"\n")
		return 0
	},
	"false": func(ctx context.Context, env *command.Env) int { return 1 },
	"wc": func(ctx context.Context, env *command.Env) int {
		b, _ := io.ReadAll(env.Stdin)
		io.WriteString(env.Stdout, strconv.Itoa(bytes.Count(b, []byte("\n")))+"\n")
		return 0
	},
}

func runOurs(t testing.TB, args []string, stdin string, files map[string]string) (result, *commandtest.Sandbox) {
	t.Helper()
	s := commandtest.New(t)
	s.Commands = testCommands
	s.WriteFiles(t, files)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r := s.Run(ctx, Main, stdin, append([]string{"awk"}, args...)...)
	return result{r.Stdout, r.Stderr, r.Code}, s
}

func runGawk(t testing.TB, gawk string, args []string, stdin string, files map[string]string) (result, string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gawk, args...)
	cmd.Dir = dir
	cmd.Env = []string{"LC_ALL=C.UTF-8", "PATH=/usr/bin:/bin", "HOME=" + dir}
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("gawk: %v", err)
	}
	return result{out.String(), errb.String(), code}, dir
}

// compare checks stdout, exit status and the class of stderr (empty or not).
func compare(t *testing.T, ours, ref result) {
	t.Helper()
	if ours.stdout != ref.stdout {
		t.Errorf("stdout differs\nours: %q\ngawk: %q\nours stderr: %q", ours.stdout, ref.stdout, ours.stderr)
	}
	if ours.code != ref.code {
		t.Errorf("exit status: ours %d, gawk %d\nours stderr: %q\ngawk stderr: %q", ours.code, ref.code, ours.stderr, ref.stderr)
	}
	if (ours.stderr == "") != (ref.stderr == "") {
		t.Errorf("stderr class differs\nours: %q\ngawk: %q", ours.stderr, ref.stderr)
	}
}
