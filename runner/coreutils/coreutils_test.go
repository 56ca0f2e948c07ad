package coreutils

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

func sandbox(t *testing.T) *commandtest.Sandbox {
	t.Helper()
	s := commandtest.New(t)
	s.Commands = commandMap()
	s.WriteFiles(t, map[string]string{"a.txt": "alpha\n", "d/b.txt": "beta\n"})
	for name, target := range map[string]string{"passwd": "/etc/passwd", "up": "../../..", "tmpl": "/tmp"} {
		if err := os.Symlink(target, filepath.Join(s.Workspace, name)); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func run(t *testing.T, s *commandtest.Sandbox, stdin string, args ...string) commandtest.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	fn := s.Commands[args[0]]
	if fn == nil {
		t.Fatalf("no command %s", args[0])
	}
	return s.Run(ctx, fn, stdin, args...)
}

// TestConfinedThroughCommands runs the escapes an agent would try through
// the commands themselves: nothing outside the view is read, written or
// listed, and the workspace stays intact.
func TestConfinedThroughCommands(t *testing.T) {
	s := sandbox(t)
	cases := []struct {
		args     []string
		wantCode int
		stdout   string // exact, when not "*"
	}{
		{[]string{"cat", "passwd"}, 1, ""},
		{[]string{"cat", "/etc/passwd"}, 1, ""},
		{[]string{"cat", "up/etc/passwd"}, 1, ""},
		{[]string{"cat", "../../../../etc/passwd"}, 1, ""},
		{[]string{"cat", "/proc/self/environ"}, 1, ""},
		{[]string{"cp", "/etc/passwd", "copy"}, 1, ""},
		{[]string{"cp", "passwd", "copy"}, 1, ""},
		{[]string{"cp", "-r", "/etc", "etc"}, 1, ""},
		{[]string{"ln", "/etc/passwd", "hard"}, 1, ""},
		{[]string{"ln", "up/etc/passwd", "hard"}, 1, ""},
		{[]string{"mv", "a.txt", "/etc/a.txt"}, 1, ""},
		{[]string{"touch", "/etc/evil"}, 1, ""},
		{[]string{"touch", "up/evil"}, 1, ""},
		{[]string{"mkdir", "/evil"}, 1, ""},
		{[]string{"chmod", "777", "/etc/passwd"}, 1, ""},
		{[]string{"chmod", "777", "passwd"}, 1, ""},
		{[]string{"stat", "/proc/self"}, 1, ""},
		{[]string{"tar", "cf", "x.tar", "/etc/passwd"}, 2, ""},
		{[]string{"realpath", "-e", "passwd"}, 1, ""},
		{[]string{"ls", "/"}, 0, "dev\ntmp\nworkspace\n"},
		{[]string{"ls", "up"}, 0, "dev\ntmp\nworkspace\n"},
		{[]string{"ls", "/dev"}, 0, "full\nnull\nrandom\nstderr\nstdin\nstdout\nurandom\nzero\n"},
		{[]string{"find", "/", "-maxdepth", "1"}, 0, "/\n/dev\n/tmp\n/workspace\n"},
		{[]string{"rm", "-rf", "/"}, 1, ""},
		{[]string{"rm", "-rf", "up/etc"}, 0, ""},
		{[]string{"readlink", "-f", "up/etc/passwd"}, 1, ""}, // /etc does not exist in the view
		{[]string{"readlink", "-m", "up/etc/passwd"}, 0, "/etc/passwd\n"},
		{[]string{"gzip", "-c", "/etc/passwd"}, 1, ""},
		{[]string{"du", "-s", "/etc"}, 1, ""},
	}
	for _, c := range cases {
		r := run(t, s, "", c.args...)
		if r.Code != c.wantCode || c.stdout != "*" && r.Stdout != c.stdout {
			t.Errorf("%v: exit %d stdout %q stderr %q; want exit %d stdout %q", c.args, r.Code, r.Stdout, r.Stderr, c.wantCode, c.stdout)
		}
		if strings.Contains(r.Stdout+r.Stderr, "root:") || strings.Contains(r.Stderr, s.Workspace) {
			t.Errorf("%v leaked host data: %q %q", c.args, r.Stdout, r.Stderr)
		}
	}
	for _, name := range []string{"copy", "hard", "etc", "x.tar"} {
		if _, err := os.Lstat(filepath.Join(s.Workspace, name)); err == nil && name != "x.tar" {
			t.Errorf("%s was created", name)
		}
	}
	if b, err := os.ReadFile(filepath.Join(s.Workspace, "a.txt")); err != nil || string(b) != "alpha\n" {
		t.Errorf("a.txt changed: %q %v", b, err)
	}
}

// TestTarExtractionStaysInPlace extracts hostile archives: members with
// "..", absolute names, and a symlink followed by a member through it.
func TestTarExtractionStaysInPlace(t *testing.T) {
	s := sandbox(t)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	add := func(h *tar.Header, body string) {
		h.Size = int64(len(body))
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		io.WriteString(tw, body)
	}
	add(&tar.Header{Name: "../../escape.txt", Typeflag: tar.TypeReg}, "x")
	add(&tar.Header{Name: "ok/../../../escape2.txt", Typeflag: tar.TypeReg}, "x")
	add(&tar.Header{Name: "/abs.txt", Typeflag: tar.TypeReg}, "abs")
	add(&tar.Header{Name: "sneaky", Typeflag: tar.TypeSymlink, Linkname: "/tmp"}, "")
	add(&tar.Header{Name: "sneaky/planted.txt", Typeflag: tar.TypeReg}, "planted")
	add(&tar.Header{Name: "hard", Typeflag: tar.TypeLink, Linkname: "/etc/passwd"}, "")
	add(&tar.Header{Name: "a.txt", Typeflag: tar.TypeReg}, "replaced\n")
	tw.Close()
	if err := os.WriteFile(filepath.Join(s.Workspace, "evil.tar"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(s.Workspace, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := run(t, s, "", "tar", "xf", "evil.tar", "-C", "out")
	if r.Code != 2 {
		t.Errorf("exit %d, want 2; stderr %q", r.Code, r.Stderr)
	}
	for _, want := range []string{"Member name contains '..'", "Removing leading `/'"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr %q lacks %q", r.Stderr, want)
		}
	}
	if ents, _ := os.ReadDir(s.Tmp); len(ents) != 0 {
		t.Errorf("the archive wrote into /tmp through a symlink: %v", ents)
	}
	for _, p := range []string{"escape.txt", "escape2.txt", "../escape.txt"} {
		if _, err := os.Stat(filepath.Join(s.Workspace, p)); err == nil {
			t.Errorf("%s escaped", p)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(s.Workspace, "out", "abs.txt")); string(b) != "abs" {
		t.Errorf("out/abs.txt = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(s.Workspace, "out", "a.txt")); string(b) != "replaced\n" {
		t.Errorf("out/a.txt = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(s.Workspace, "a.txt")); string(b) != "alpha\n" {
		t.Errorf("a.txt outside -C changed: %q", b)
	}
}

// endless is a reader that never ends and cancels ctx after some reads.
type endless struct {
	reads  int
	cancel context.CancelFunc
}

func (e *endless) Read(p []byte) (int, error) {
	e.reads++
	if e.reads == 10 {
		e.cancel()
	}
	for i := range p {
		p[i] = 'y'
	}
	return len(p), nil
}

func TestCommandsStopWhenContextEnds(t *testing.T) {
	s := sandbox(t)
	for i := 0; i < 50; i++ {
		s.WriteFiles(t, map[string]string{filepath.Join("tree", strings.Repeat("x", i%7+1), "f"+string(rune('a'+i%26))): "z"})
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"sleep", "1000"}, {"find", "/"}, {"ls", "-R", "/"}, {"du", "-a", "/"}, {"tree", "/"}, {"cp", "-r", "tree", "tree2"},
		{"tar", "cf", "t.tar", "tree"}, {"timeout", "100", "sleep", "1000"}, {"chmod", "-R", "u+w", "tree"},
	} {
		r := s.Run(canceled, s.Commands[args[0]], "", args...)
		if r.Code != statusCanceled {
			t.Errorf("%v with a done context: exit %d (stderr %q), want %d", args, r.Code, r.Stderr, statusCanceled)
		}
	}
	// A stream that never ends: cat stops when its context is canceled.
	ctx, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	src := &endless{cancel: cancel2}
	var out bytes.Buffer
	env := s.Env("/workspace", []string{"cat"}, src, &out, io.Discard)
	if code := runCat(ctx, env); code != statusCanceled {
		t.Errorf("cat of an endless stream: exit %d", code)
	}
	ctx3, cancel3 := context.WithCancel(context.Background())
	defer cancel3()
	src3 := &endless{cancel: cancel3}
	env = s.Env("/workspace", []string{"cat", "-n"}, src3, io.Discard, io.Discard)
	if code := runCat(ctx3, env); code != statusCanceled {
		t.Errorf("cat -n of an endless stream: exit %d", code)
	}
}

// failingWriter fails every write, as a closed pipe or a full disk.
type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

func TestWriteErrorsStopCommands(t *testing.T) {
	s := sandbox(t)
	var errb bytes.Buffer
	env := s.Env("/workspace", []string{"cat"}, &endless{cancel: func() {}}, failingWriter{errors.New("no space left on device")}, &errb)
	if code := runCat(context.Background(), env); code != 1 {
		t.Errorf("cat to a failing stdout: exit %d", code)
	}
	if !strings.Contains(errb.String(), "write error") {
		t.Errorf("stderr %q", errb.String())
	}
	errb.Reset()
	env = s.Env("/workspace", []string{"find", "/"}, nil, failingWriter{io.ErrClosedPipe}, &errb)
	if code := runFind(context.Background(), env); code != 1 || errb.Len() != 0 {
		t.Errorf("find to a closed pipe: exit %d stderr %q (want 1, silent)", code, errb.String())
	}
}

func TestTimeoutEnvWhichTime(t *testing.T) {
	s := sandbox(t)
	s.Commands["echo"] = testEcho
	cases := []struct {
		args   []string
		code   int
		stdout string
	}{
		{[]string{"timeout", "0.05", "sleep", "60"}, 124, ""},
		{[]string{"timeout", "--preserve-status", "0.05", "sleep", "60"}, 143, ""},
		{[]string{"timeout", "30", "true"}, 0, ""},
		{[]string{"timeout", "30", "false"}, 1, ""},
		{[]string{"timeout", "30", "nonexistent"}, 127, ""},
		{[]string{"timeout", "0", "echo", "no limit"}, 0, "no limit\n"},
		{[]string{"env", "FOO=bar", "printenv", "FOO"}, 0, "bar\n"},
		{[]string{"env", "-i", "A=1", "env"}, 0, "A=1\n"},
		{[]string{"env", "-i", "printenv"}, 0, ""},
		{[]string{"env", "-u", "HOME", "printenv", "HOME"}, 1, ""},
		{[]string{"env", "FOO=x", "timeout", "5", "printenv", "FOO"}, 0, "x\n"},
		{[]string{"env", "nonexistent"}, 127, ""},
		{[]string{"env"}, 0, "HOME=/workspace\nUSER=agent\n"},
		{[]string{"printenv", "USER"}, 0, "agent\n"},
		{[]string{"printenv", "USER", "NOPE"}, 1, "agent\n"},
		{[]string{"which", "ls", "tar"}, 0, "/bin/ls\n/bin/tar\n"},
		{[]string{"which", "ls", "python3"}, 1, "/bin/ls\n"},
		{[]string{"which"}, 1, ""},
		{[]string{"time", "echo", "hi"}, 0, "hi\n"},
		{[]string{"time", "false"}, 1, ""},
	}
	for _, c := range cases {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		var out, errb bytes.Buffer
		env := s.Env("/workspace", c.args, strings.NewReader(""), &out, &errb)
		env.Environ = []string{"HOME=/workspace", "USER=agent"}
		code := s.Commands[c.args[0]](ctx, env)
		cancel()
		if code != c.code || out.String() != c.stdout {
			t.Errorf("%v: exit %d stdout %q stderr %q; want %d %q", c.args, code, out.String(), errb.String(), c.code, c.stdout)
		}
		if c.args[0] == "time" && !strings.Contains(errb.String(), "\nreal\t0m") {
			t.Errorf("time printed %q", errb.String())
		}
	}
}

func TestCommandsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Commands() {
		if s.Name == "" || s.Summary == "" || s.Func == nil || seen[s.Name] {
			t.Errorf("bad spec %+v", s)
		}
		seen[s.Name] = true
	}
	for _, name := range strings.Fields("ls cat cp mv rm mkdir rmdir touch ln find stat du tree readlink realpath basename dirname chmod tar gzip gunzip zcat date sleep env printenv which true false timeout time") {
		if !seen[name] {
			t.Errorf("%s is missing from Commands()", name)
		}
	}
	// Every command answers --help with status 0 and an unknown option
	// with a usage error.
	s := sandbox(t)
	for _, spec := range Commands() {
		switch spec.Name {
		case "true", "false", "sleep", "timeout", "time", "env", "which":
			continue
		case "printf", "echo", "expr", "test", "[":
			continue // GNU reads unknown options as operands (reference_gnu_test.go)
		}
		r := s.Run(context.Background(), spec.Func, "", spec.Name, "--help")
		if r.Code != 0 || !strings.Contains(r.Stdout, "Usage") {
			t.Errorf("%s --help: exit %d %q", spec.Name, r.Code, r.Stdout)
		}
		r = s.Run(context.Background(), spec.Func, "", spec.Name, "--no-such-option")
		if spec.Name == "zip" {
			// Info-ZIP's zip writes its errors to stdout, naming the
			// option without its dashes.
			if r.Code == 0 || !strings.Contains(r.Stdout, "'no-such-option' not supported") {
				t.Errorf("%s --no-such-option: exit %d %q", spec.Name, r.Code, r.Stdout)
			}
			continue
		}
		if r.Code == 0 || !strings.Contains(r.Stderr, "--no-such-option") {
			t.Errorf("%s --no-such-option: exit %d %q", spec.Name, r.Code, r.Stderr)
		}
	}
}

func TestDateRelative(t *testing.T) {
	now := time.Date(2024, 3, 10, 15, 4, 5, 0, time.UTC)
	cases := map[string]time.Time{
		"now":                  now,
		"yesterday":            now.AddDate(0, 0, -1),
		"tomorrow":             now.AddDate(0, 0, 1),
		"+1 day":               now.AddDate(0, 0, 1),
		"2 hours ago":          now.Add(-2 * time.Hour),
		"next week":            now.AddDate(0, 0, 7),
		"last month":           now.AddDate(0, -1, 0),
		"1 year ago":           now.AddDate(-1, 0, 0),
		"10:30":                time.Date(2024, 3, 10, 10, 30, 0, 0, time.UTC),
		"monday":               time.Date(2024, 3, 11, 0, 0, 0, 0, time.UTC),
		"last friday":          time.Date(2024, 3, 8, 0, 0, 0, 0, time.UTC),
		"@1700000000.5":        time.Unix(1700000000, 500000000).UTC(),
		"2024-01-02 +3 days":   time.Date(2024, 1, 5, 0, 0, 0, 0, time.UTC),
		"2024-01-02T10:00:00Z": time.Date(2024, 1, 2, 10, 0, 0, 0, time.UTC),
	}
	for in, want := range cases {
		got, err := parseDate(in, now, time.UTC)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseDate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "soon", "2024-02-30", "25:00", "1 fortnite"} {
		if _, err := parseDate(bad, now, time.UTC); err == nil && bad != "" {
			t.Errorf("parseDate(%q) accepted", bad)
		}
	}
}

func TestTreeOutput(t *testing.T) {
	s := commandtest.New(t)
	s.Commands = commandMap()
	s.WriteFiles(t, map[string]string{"a.txt": "", "d/b.txt": "", "d/sub/c.txt": "", ".hidden": "", "e/.keep": ""})
	if err := os.Symlink("d", filepath.Join(s.Workspace, "dl")); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"tree":                     ".\n├── a.txt\n├── d\n│   ├── b.txt\n│   └── sub\n│       └── c.txt\n├── dl -> d\n└── e\n\n4 directories, 3 files\n",
		"tree -a --charset=ascii":  ".\n|-- .hidden\n|-- a.txt\n|-- d\n|   |-- b.txt\n|   `-- sub\n|       `-- c.txt\n|-- dl -> d\n`-- e\n    `-- .keep\n\n4 directories, 5 files\n",
		"tree -L 1 d":              "d\n├── b.txt\n└── sub\n\n1 directory, 1 file\n",
		"tree -d":                  ".\n├── d\n│   └── sub\n├── dl -> d\n└── e\n\n4 directories\n",
		"tree -I sub|e --noreport": ".\n├── a.txt\n├── d\n│   └── b.txt\n└── dl -> d\n",
		"tree -f d":                "d\n├── d/b.txt\n└── d/sub\n    └── d/sub/c.txt\n\n1 directory, 2 files\n",
		"tree nope":                "nope  [error opening dir]\n\n0 directories, 0 files\n",
	}
	for cmd, want := range cases {
		r := run(t, s, "", strings.Fields(cmd)...)
		if r.Stdout != want {
			t.Errorf("%s:\n got %q\nwant %q", cmd, r.Stdout, want)
		}
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{"a": "'a'", "it's": `"it's"`, "a\nb": `'a'$'\n''b'`, "": "''"} {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestFnmatch(t *testing.T) {
	cases := []struct {
		pat, name string
		want      bool
	}{
		{"*.txt", "a.txt", true}, {"*.txt", ".txt", true}, {"a?c", "abc", true}, {"a?c", "ac", false},
		{"[a-c]x", "bx", true}, {"[!a-c]x", "bx", false}, {"[^a]x", "zx", true}, {"*/sub/*", "./d/sub/x", true},
		{"\\*", "*", true}, {"\\*", "a", false}, {"[[:digit:]]*", "1a", true}, {"[", "[", true}, {"*a*b*", "xaybz", true},
		{"*a*b*", "xbya", false}, {"", "", true}, {"*", "", true},
	}
	for _, c := range cases {
		if got := fnmatch(c.pat, c.name, false); got != c.want {
			t.Errorf("fnmatch(%q, %q) = %v", c.pat, c.name, got)
		}
	}
	if !fnmatch("*.TXT", "a.txt", true) {
		t.Error("case folding")
	}
}

var _ command.Func = runLs

// TestMoveAcrossMounts moves files and trees between /workspace and /tmp,
// which rename refuses (EXDEV): mv copies and removes instead.
func TestMoveAcrossMounts(t *testing.T) {
	s := sandbox(t)
	s.WriteFiles(t, map[string]string{"d/sub/c.txt": "gamma\n"})
	if err := os.Symlink("b.txt", filepath.Join(s.Workspace, "d", "lnk")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"mv", "a.txt", "/tmp/a.txt"},
		{"mv", "d", "/tmp/"},
		{"mv", "/tmp/a.txt", "/workspace/back.txt"},
		{"cp", "-a", "/tmp/d", "copy"},
		{"cp", "back.txt", "/dev/null"},
		{"mv", "-v", "/tmp/d/sub", "."},
	} {
		if r := run(t, s, "", args...); r.Code != 0 {
			t.Fatalf("%v: exit %d %q", args, r.Code, r.Stderr)
		}
	}
	want := map[string]string{
		"back.txt": "alpha\n", "copy/b.txt": "beta\n", "copy/sub/c.txt": "gamma\n", "sub/c.txt": "gamma\n",
	}
	for name, content := range want {
		if b, err := os.ReadFile(filepath.Join(s.Workspace, name)); err != nil || string(b) != content {
			t.Errorf("%s = %q, %v", name, b, err)
		}
	}
	if target, err := os.Readlink(filepath.Join(s.Workspace, "copy", "lnk")); err != nil || target != "b.txt" {
		t.Errorf("copy/lnk -> %q, %v", target, err)
	}
	for _, gone := range []string{filepath.Join(s.Workspace, "a.txt"), filepath.Join(s.Workspace, "d"), filepath.Join(s.Tmp, "a.txt"), filepath.Join(s.Tmp, "d", "sub")} {
		if _, err := os.Lstat(gone); err == nil {
			t.Errorf("%s still exists", gone)
		}
	}
}
