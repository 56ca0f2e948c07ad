package sed

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wsfs/wsfs/internal/testenv"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// gnuSed returns the path of GNU sed, skipping the test when it is missing
// (failing under CI=true).
func gnuSed(t testing.TB) string {
	t.Helper()
	const p = "/usr/bin/sed"
	out, err := exec.Command(p, "--version").Output()
	if err != nil || !bytes.Contains(out, []byte("GNU sed")) {
		testenv.Missing(t, "GNU sed not found at "+p+": differential tests skipped")
	}
	return p
}

// sedCase is one invocation: arguments after "sed", standard input and
// files in the working directory.
type sedCase struct {
	args  []string
	stdin string
	files map[string]string
	env   []string
}

type sedResult struct {
	stdout, stderr string
	code           int
	files          map[string]string // contents after the run
}

// runGNUAll runs the cases with GNU sed, several at a time (starting a
// process is slow on some machines). A case that runs longer than two
// seconds (a script that loops) gets code -1.
func runGNUAll(t testing.TB, sedPath string, cases []sedCase) []sedResult {
	t.Helper()
	out := make([]sedResult, len(cases))
	errs := make([]error, len(cases))
	dirs := make([]string, len(cases))
	for i := range cases {
		dirs[i] = t.TempDir()
		writeTree(t, dirs[i], cases[i].files)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = runGNUIn(sedPath, dirs[i], cases[i])
			}
		}()
	}
	for i := range cases {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		out[i].files = readTree(t, dirs[i])
	}
	return out
}

func runGNUIn(sedPath, dir string, c sedCase) (sedResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, sedPath, c.args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"LC_ALL=C.UTF-8", "PATH=/usr/bin:/bin"}, c.env...)
	cmd.Stdin = strings.NewReader(c.stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		return sedResult{code: -1}, nil
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		return sedResult{}, err
	}
	return sedResult{stdout: out.String(), stderr: errb.String(), code: code}, nil
}

func runOurs(t testing.TB, c sedCase) sedResult {
	t.Helper()
	return runOursIn(t, commandtest.New(t), c)
}

// runOursIn runs c in an existing sandbox (its workspace must hold only
// c's files for the file comparison to mean anything).
func runOursIn(t testing.TB, sb *commandtest.Sandbox, c sedCase) sedResult {
	t.Helper()
	writeTree(t, sb.Workspace, c.files)
	var out, errb bytes.Buffer
	env := sb.Env("/workspace", append([]string{"sed"}, c.args...), strings.NewReader(c.stdin), &out, &errb)
	vars := map[string]string{}
	for _, kv := range c.env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	env.Getenv = func(k string) string { return vars[k] }
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	code := Run(ctx, env)
	return sedResult{stdout: out.String(), stderr: errb.String(), code: code, files: readTree(t, sb.Workspace)}
}

func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readTree(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		data, _ := os.ReadFile(p)
		out[rel] = string(data)
		return nil
	})
	return out
}

// compare reports the differences between GNU's result and ours: stdout,
// exit code, files, and the class of stderr (empty or not).
func compare(gnu, ours sedResult) []string {
	var diffs []string
	if gnu.stdout != ours.stdout {
		diffs = append(diffs, "stdout: gnu "+quote(gnu.stdout)+" ours "+quote(ours.stdout))
	}
	if gnu.code != ours.code {
		diffs = append(diffs, "exit: gnu "+itoa(gnu.code)+" ours "+itoa(ours.code))
	}
	if (gnu.stderr == "") != (ours.stderr == "") {
		diffs = append(diffs, "stderr: gnu "+quote(gnu.stderr)+" ours "+quote(ours.stderr))
	}
	if a, b := treeString(gnu.files), treeString(ours.files); a != b {
		diffs = append(diffs, "files: gnu "+quote(a)+" ours "+quote(b))
	}
	return diffs
}

func treeString(files map[string]string) string {
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n + "=" + files[n] + ";")
	}
	return b.String()
}

func quote(s string) string {
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return "\"" + strings.ReplaceAll(s, "\n", "\\n") + "\""
}

func itoa(n int) string { return strconv.Itoa(n) }
