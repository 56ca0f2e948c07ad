package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wsfs/wsfs/runner/command"
)

// oilsDir is where the Oils given half lives, beside the repository.
func oilsDir() string {
	dir, _ := filepath.Abs(filepath.Join("..", "..", "shared", "conformance", "oils-given"))
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ""
	}
	return dir
}

// loadOilsCases parses every spec file of the Oils given half.
func loadOilsCases(t testing.TB, dir string) []oilsCase {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "*.test.sh"))
	sort.Strings(paths)
	var all []oilsCase
	for _, p := range paths {
		cases, err := parseOilsFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, cases...)
	}
	return all
}

// manifestEntry is one expected failure.
type manifestEntry struct{ category, reason string }

// loadOilsManifest reads testdata/oils-expected-failures.txt: "FILE #N |
// category | reason" a line, # comments.
func loadOilsManifest(t testing.TB) map[string]manifestEntry {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "oils-expected-failures.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]manifestEntry{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, " | ", 3)
		if len(parts) != 3 || strings.TrimSpace(parts[2]) == "" {
			t.Fatalf("oils-expected-failures.txt:%d: want \"FILE #N | category | reason\": %q", i+1, line)
		}
		if _, dup := out[parts[0]]; dup {
			t.Fatalf("oils-expected-failures.txt:%d: %s listed twice", i+1, parts[0])
		}
		out[parts[0]] = manifestEntry{category: parts[1], reason: parts[2]}
	}
	return out
}

// oilsHelpers are the four helper programs of the Oils test suite, as
// test-only runner commands (their behaviour is described in
// ../shared/conformance/README.md).
func oilsHelpers() []command.Spec {
	return []command.Spec{
		{Name: "argv.py", Func: func(_ context.Context, env *command.Env) int {
			quoted := make([]string, len(env.Args)-1)
			for i, a := range env.Args[1:] {
				quoted[i] = pythonRepr(a)
			}
			fmt.Fprintf(env.Stdout, "[%s]\n", strings.Join(quoted, ", "))
			return 0
		}},
		{Name: "printenv.py", Func: func(_ context.Context, env *command.Env) int {
			for _, name := range env.Args[1:] {
				v, ok := "", false
				for _, kv := range env.Environ {
					if k, val, found := strings.Cut(kv, "="); found && k == name {
						v, ok = val, true
					}
				}
				if !ok {
					v = "None"
				}
				fmt.Fprintln(env.Stdout, v)
			}
			return 0
		}},
		{Name: "stdout_stderr.py", Func: func(_ context.Context, env *command.Env) int {
			out, errs, status := "STDOUT", "STDERR", 0
			if len(env.Args) > 1 {
				out = env.Args[1]
			}
			if len(env.Args) > 2 {
				errs = env.Args[2]
			}
			if len(env.Args) > 3 {
				fmt.Sscan(env.Args[3], &status)
			}
			fmt.Fprintln(env.Stdout, out)
			fmt.Fprintln(env.Stderr, errs)
			return status
		}},
		{Name: "read_from_fd.py", Func: func(_ context.Context, env *command.Env) int {
			for _, a := range env.Args[1:] {
				var r io.Reader
				if a == "0" {
					r = env.Stdin
				} else {
					f, err := env.FS.Open("/dev/fd/" + a)
					if err != nil {
						fmt.Fprintf(env.Stdout, "%s: error: %s\n", a, command.Strerror(err))
						continue
					}
					defer f.Close()
					r = f
				}
				data, err := io.ReadAll(r)
				if err != nil {
					fmt.Fprintf(env.Stdout, "%s: error: %s\n", a, command.Strerror(err))
					continue
				}
				fmt.Fprintf(env.Stdout, "%s: %s", a, data)
			}
			return 0
		}},
	}
}

// pythonRepr quotes s as Python 2 prints a byte string in a list.
func pythonRepr(s string) string {
	q := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' || c == q:
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c > 0x7e:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// oilsResult is one case's run.
type oilsResult struct {
	stdout, stderr string
	status         int
}

// runOilsCase runs a case through Run, as `wsfs run` would, in an empty
// workspace with the corpus's environment.
func runOilsCase(t testing.TB, table map[string]command.Spec, c oilsCase) oilsResult {
	ws, scratch := t.TempDir(), t.TempDir()
	env := []string{"SH=bash", "HOME=/workspace", "TMP=/workspace", "TMPDIR=/workspace", "LC_ALL=C.UTF-8"}
	res := Run(context.Background(), Config{Script: c.Script, WorkspaceDir: ws, ScratchDir: scratch, Env: env,
		Commands: table, Limits: Limits{WallTime: 5 * time.Second}})
	return oilsResult{string(res.Stdout), string(res.Stderr), res.ExitCode}
}

// bashOilsHelpers writes the helper programs as Python scripts for the
// reference run under GNU bash.
var bashOilsHelpers = map[string]string{
	"argv.py": `#!/usr/bin/env python3
import sys
def r(a):
    b = a.encode('utf-8', 'surrogateescape')
    q = "'"
    if b"'" in b and b'"' not in b: q = '"'
    out = q
    for c in b:
        ch = chr(c)
        if ch == '\\' or ch == q: out += '\\' + ch
        elif ch == '\n': out += '\\n'
        elif ch == '\r': out += '\\r'
        elif ch == '\t': out += '\\t'
        elif c < 0x20 or c > 0x7e: out += '\\x%02x' % c
        else: out += ch
    return out + q
print('[' + ', '.join(r(a) for a in sys.argv[1:]) + ']')
`,
	"printenv.py": `#!/usr/bin/env python3
import os, sys
for n in sys.argv[1:]:
    print(os.environ.get(n, 'None'))
`,
	"stdout_stderr.py": `#!/usr/bin/env python3
import sys
a = sys.argv[1:]
print(a[0] if len(a) > 0 else 'STDOUT')
sys.stdout.flush()
print(a[1] if len(a) > 1 else 'STDERR', file=sys.stderr)
sys.exit(int(a[2]) if len(a) > 2 else 0)
`,
	"read_from_fd.py": `#!/usr/bin/env python3
import os, sys
for a in sys.argv[1:]:
    fd = int(a)
    try:
        data = b''
        while True:
            chunk = os.read(fd, 4096)
            if not chunk: break
            data += chunk
        sys.stdout.write('%d: %s' % (fd, data.decode('utf-8', 'replace')))
    except OSError as e:
        sys.stdout.write('%d: error: %s\n' % (fd, e.strerror))
`,
}

// runOilsCaseInBash runs a case under GNU bash, for checking the scoring.
func runOilsCaseInBash(t testing.TB, bin string, c oilsCase) oilsResult {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", c.Script)
	cmd.Dir = dir
	cmd.Env = []string{"SH=bash", "HOME=" + dir, "TMP=" + dir, "TMPDIR=" + dir, "LC_ALL=C.UTF-8",
		"PATH=" + bin + ":/usr/bin:/bin"}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	}
	return oilsResult{out.String(), errb.String(), status}
}

// TestOilsGiven runs the Oils given half through the runner and holds the
// expected-failures manifest (testdata/oils-expected-failures.txt) to it:
// a case listed there must still fail, and every other counted case must
// pass, so the manifest cannot rot. WSFS_OILS_SHELL=bash runs the cases under GNU bash instead, to
// check the scoring (bash passes about 94.5 %); WSFS_OILS_REPORT=FILE
// writes every failing case with its output there; WSFS_OILS_ONLY=ID runs
// only the cases whose ID ("file.test.sh #N") contains ID.
func TestOilsGiven(t *testing.T) {
	dir := oilsDir()
	if dir == "" {
		t.Skip("the Oils given half is missing (../shared/conformance/oils-given)")
	}
	cases := loadOilsCases(t, dir)
	underBash := os.Getenv("WSFS_OILS_SHELL") == "bash"
	bin := ""
	if underBash {
		bin = t.TempDir()
		for name, src := range bashOilsHelpers {
			if err := os.WriteFile(filepath.Join(bin, name), []byte(src), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	table := DefaultCommands()
	for _, s := range oilsHelpers() {
		table[s.Name] = s
	}
	results := make([]oilsResult, len(cases))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if underBash {
					results[i] = runOilsCaseInBash(t, bin, cases[i])
				} else {
					results[i] = runOilsCase(t, table, cases[i])
				}
			}
		}()
	}
	only := os.Getenv("WSFS_OILS_ONLY") // a case ID or file to run alone, while working on it
	for i, c := range cases {
		if !c.NotImplemented && (only == "" || strings.Contains(c.ID(), only)) {
			next <- i
		}
	}
	close(next)
	wg.Wait()

	manifest := loadOilsManifest(t)
	counted, passed := 0, 0
	var report strings.Builder
	byCategory := map[string]int{}
	for i, c := range cases {
		if c.NotImplemented || only != "" && !strings.Contains(c.ID(), only) {
			continue
		}
		counted++
		r := results[i]
		entry, listed := manifest[c.ID()]
		delete(manifest, c.ID())
		if c.passes(r.stdout, r.stderr, r.status) {
			passed++
			if listed && !underBash {
				t.Errorf("%s (%s) passes now: take it off testdata/oils-expected-failures.txt", c.ID(), c.Name)
			}
			continue
		}
		if listed {
			byCategory[entry.category]++
		} else if !underBash {
			t.Errorf("%s (%s) fails and is not in testdata/oils-expected-failures.txt:\n%s--- got status %d\n%s--- stderr\n%.600s",
				c.ID(), c.Name, c.Script, r.status, r.stdout, r.stderr)
		}
		fmt.Fprintf(&report, "=== %s %s\n%s--- got status %d\n%s--- stderr\n%s", c.ID(), c.Name, c.Script, r.status, r.stdout, r.stderr)
		if c.Default.Stdout != nil {
			fmt.Fprintf(&report, "--- want stdout\n%s", *c.Default.Stdout)
		}
		if c.Default.Status != nil {
			fmt.Fprintf(&report, "--- want status %d\n", *c.Default.Status)
		}
	}
	for id := range manifest {
		if !underBash && only == "" {
			t.Errorf("testdata/oils-expected-failures.txt lists %s, which is not a counted case", id)
		}
	}
	var cats []string
	for c, n := range byCategory {
		cats = append(cats, fmt.Sprintf("%s %d", c, n))
	}
	sort.Strings(cats)
	t.Logf("Oils given half: %d of %d counted cases pass (%.1f %%); expected failures by category: %s",
		passed, counted, 100*float64(passed)/float64(counted), strings.Join(cats, ", "))
	if path := os.Getenv("WSFS_OILS_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(report.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
