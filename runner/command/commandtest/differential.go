package commandtest

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/internal/testenv"
	"github.com/wsfs/wsfs/runner/command"
)

// Case is one differential case: a command line run by the host's tool
// and by the runner's command in folders holding the same files.
type Case struct {
	// Line is the argv as one line, split by Words ('…' and "…" quote).
	Line  string
	Stdin string
	// Files, when set, replaces the comparison's shared files for this case.
	Files map[string]string
	// LooseStderr compares only whether stderr is empty (for messages the
	// runner words differently on purpose); otherwise stderr must match.
	LooseStderr bool
	// Env adds "NAME=value" variables to both runs.
	Env []string
}

// Outcome is what one side of a case printed, returned and changed.
type Outcome struct {
	Stdout, Stderr string
	Code           int
	// Files holds every regular file that is new or changed after the
	// run (by content), "<removed>" for removed ones, "<dir>" for new
	// folders and "<symlink → T>" for new links.
	Files map[string]string
}

// Differential compares runner commands with the host's tools.
type Differential struct {
	// Commands are the runner commands by name; the case's first word
	// picks one.
	Commands map[string]command.Func
	// Files are the files every case starts with.
	Files map[string]string
	// HostEnv is the host tools' environment; nil means LANG=C.UTF-8,
	// PATH=/usr/bin:/bin and TZ=UTC.
	HostEnv []string
}

// Run runs every case on both sides and reports each difference as an
// error of t. A missing host tool skips t (fails it under CI=true, see
// testenv.Missing). It returns the number of cases that matched, and logs
// it as "N/M cases match the host's TOOL".
func (d *Differential) Run(t *testing.T, cases []Case) int {
	t.Helper()
	pass := 0
	tools := map[string]bool{}
	for _, c := range cases {
		argv := Words(c.Line)
		if len(argv) == 0 {
			t.Fatalf("empty case line %q", c.Line)
		}
		if _, err := exec.LookPath(argv[0]); err != nil {
			testenv.Missing(t, fmt.Sprintf("the reference %s is not installed (scripts/deps.sh installs it): %v", argv[0], err))
		}
		tools[argv[0]] = true
		files := d.Files
		if c.Files != nil {
			files = c.Files
		}
		want := d.host(t, argv, c, files)
		got := d.ours(t, argv, c, files)
		if diff := Compare(got, want, !c.LooseStderr); diff != "" {
			if c.Stdin != "" {
				t.Errorf("%s < %q:%s", c.Line, trim(c.Stdin), diff)
			} else {
				t.Errorf("%s:%s", c.Line, diff)
			}
			continue
		}
		pass++
	}
	var names []string
	for n := range tools {
		names = append(names, n)
	}
	t.Logf("%d/%d cases match the host's %s", pass, len(cases), strings.Join(names, ", "))
	return pass
}

// Compare describes how got differs from want ("" when it does not).
func Compare(got, want Outcome, exactStderr bool) string {
	var b strings.Builder
	if got.Stdout != want.Stdout {
		fmt.Fprintf(&b, "\n stdout: %q\n   want: %q", got.Stdout, want.Stdout)
	}
	if got.Code != want.Code {
		fmt.Fprintf(&b, "\n exit %d, want %d", got.Code, want.Code)
	}
	if exactStderr && got.Stderr != want.Stderr || (got.Stderr == "") != (want.Stderr == "") {
		fmt.Fprintf(&b, "\n stderr: %q\n   want: %q", got.Stderr, want.Stderr)
	}
	for name, content := range want.Files {
		if g, ok := got.Files[name]; !ok || g != content {
			fmt.Fprintf(&b, "\n file %s: %q\n   want: %q", name, trim(g), trim(content))
		}
	}
	for name := range got.Files {
		if _, ok := want.Files[name]; !ok {
			fmt.Fprintf(&b, "\n changed %s, which the host's tool left alone", name)
		}
	}
	return b.String()
}

func trim(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}

func (d *Differential) host(t *testing.T, argv []string, c Case, files map[string]string) Outcome {
	t.Helper()
	dir := t.TempDir()
	WriteTree(t, dir, files)
	before := Snapshot(dir)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = d.HostEnv
	if cmd.Env == nil {
		cmd.Env = []string{"LANG=C.UTF-8", "PATH=/usr/bin:/bin", "TZ=UTC"}
	}
	cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], c.Env...)
	cmd.Stdin = strings.NewReader(c.Stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	return Outcome{Stdout: o.String(), Stderr: e.String(), Code: code, Files: Changes(before, Snapshot(dir))}
}

func (d *Differential) ours(t *testing.T, argv []string, c Case, files map[string]string) Outcome {
	t.Helper()
	fn, ok := d.Commands[argv[0]]
	if !ok {
		t.Fatalf("no runner command %s", argv[0])
	}
	sb := New(t)
	sb.Commands = d.Commands
	WriteTree(t, sb.Workspace, files)
	before := Snapshot(sb.Workspace)
	var o, e bytes.Buffer
	env := sb.Env("/workspace", argv, strings.NewReader(c.Stdin), &o, &e)
	if len(c.Env) > 0 {
		env.Environ = c.Env
		env.Getenv = func(name string) string {
			for _, v := range c.Env {
				if n, val, _ := strings.Cut(v, "="); n == name {
					return val
				}
			}
			return ""
		}
	}
	code := fn(context.Background(), env)
	return Outcome{Stdout: o.String(), Stderr: e.String(), Code: code, Files: Changes(before, Snapshot(sb.Workspace))}
}

// WriteTree creates files (slash paths relative to dir → content) with
// their parent folders. A content of "<dir>" makes an empty folder.
func WriteTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if content == "<dir>" {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Snapshot describes every entry under dir, by slash path: a file's
// content, "<dir>" or "<symlink → target>".
func Snapshot(dir string) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case de.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "<symlink → " + target + ">"
		case de.IsDir():
			out[rel] = "<dir>"
		case de.Type().IsRegular():
			b, _ := os.ReadFile(p)
			out[rel] = string(b)
		default:
			out[rel] = "<" + de.Type().String() + ">"
		}
		return nil
	})
	return out
}

// Changes lists what differs from before in after: new or changed
// entries with their description, removed ones as "<removed>".
func Changes(before, after map[string]string) map[string]string {
	out := map[string]string{}
	for name, v := range after {
		if old, ok := before[name]; !ok || old != v {
			out[name] = v
		}
	}
	for name := range before {
		if _, ok := after[name]; !ok {
			out[name] = "<removed>"
		}
	}
	return out
}

// Words splits a test command line on blanks, honouring '…' (no escapes)
// and "…" (\" and \\ escaped) quoting; $'…' is not understood.
func Words(s string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				j = len(s) - i - 1
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			inWord = true
		case c == ' ':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// HostOutput runs a host tool with the differential tests' environment
// and returns its stdout; a missing tool stops t (see testenv.Missing).
func HostOutput(t *testing.T, argv ...string) string {
	t.Helper()
	if _, err := exec.LookPath(argv[0]); err != nil {
		testenv.Missing(t, fmt.Sprintf("the reference %s is not installed (scripts/deps.sh installs it): %v", argv[0], err))
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"LANG=C.UTF-8", "PATH=/usr/bin:/bin", "TZ=UTC"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	return string(out)
}
