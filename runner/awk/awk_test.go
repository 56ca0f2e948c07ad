package awk

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

func runIn(t *testing.T, s *commandtest.Sandbox, ctx context.Context, stdin string, args ...string) commandtest.Result {
	t.Helper()
	return s.Run(ctx, Main, stdin, append([]string{"awk"}, args...)...)
}

func TestCancelledContextStopsLoops(t *testing.T) {
	s := commandtest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, prog := range []string{
		`BEGIN{while(1);}`,
		`BEGIN{for(;;) x++}`,
		`BEGIN{do {} while (1)}`,
		`function f(n) { return f(n+1) } BEGIN{f(0)}`,
		`{ }`,
	} {
		r := runIn(t, s, ctx, strings.Repeat("line\n", 5000), prog)
		if r.Code != 2 || !strings.Contains(r.Stderr, "context canceled") {
			t.Errorf("%s: status %d, stderr %q; want 2 and a cancellation message", prog, r.Code, r.Stderr)
		}
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.n++
	return 0, errors.New("disk full")
}

func TestWriteErrorStopsOutput(t *testing.T) {
	s := commandtest.New(t)
	w := &failingWriter{}
	var stderr strings.Builder
	env := s.Env("/workspace", []string{"awk", `BEGIN{while(1) print "xxxxxxxxxxxxxxxx"}`}, strings.NewReader(""), w, &stderr)
	code := Main(context.Background(), env)
	if code != 2 || !strings.Contains(stderr.String(), "disk full") {
		t.Fatalf("status %d, stderr %q; want 2 and the write error", code, stderr.String())
	}
	if w.n > 2 {
		t.Errorf("awk kept writing after the first failure (%d writes)", w.n)
	}
}

func TestSystemIsRefused(t *testing.T) {
	s := commandtest.New(t)
	r := runIn(t, s, context.Background(), "", `BEGIN{print "before"; system("ls")}`)
	if r.Code != 2 || r.Stdout != "before\n" || !strings.Contains(r.Stderr, "system() runs host programs and is not available in wsfs") {
		t.Fatalf("got %+v", r)
	}
	// system("") is the portable way to flush output; it stays allowed.
	r = runIn(t, s, context.Background(), "", `BEGIN{printf "a"; system(""); print "b"}`)
	if r.Code != 0 || r.Stdout != "ab\n" {
		t.Fatalf("system(\"\"): got %+v", r)
	}
}

func TestFilesAreConfined(t *testing.T) {
	s := commandtest.New(t)
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("host data\n"), 0o644)
	r := runIn(t, s, context.Background(), "", `BEGIN{print (getline l < "`+secret+`"); print (getline l < "/etc/passwd")}`)
	if r.Stdout != "-1\n-1\n" {
		t.Fatalf("getline outside the agent view: %+v", r)
	}
	r = runIn(t, s, context.Background(), "", `BEGIN{print "x" > "/etc/wsfs-awk-test"}`)
	if r.Code != 2 || !strings.Contains(r.Stderr, "can't redirect to `/etc/wsfs-awk-test'") {
		t.Fatalf("redirect outside the agent view: %+v", r)
	}
	if _, err := os.Stat("/etc/wsfs-awk-test"); err == nil {
		t.Fatal("awk wrote a host file")
	}
	r = runIn(t, s, context.Background(), "", `{print}`, "/etc/passwd")
	if r.Code != 2 || r.Stdout != "" {
		t.Fatalf("file operand outside the agent view: %+v", r)
	}
	// Files in the workspace and /tmp work, by absolute or relative name.
	r = runIn(t, s, context.Background(), "", `BEGIN{print "t" > "/tmp/o"; close("/tmp/o"); getline x < "/tmp/o"; print x; print "w" > "w.txt"}`)
	if r.Code != 0 || r.Stdout != "t\n" {
		t.Fatalf("confined files: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(s.Workspace, "w.txt")); string(b) != "w\n" {
		t.Fatalf("w.txt = %q", b)
	}
}

func TestEnviron(t *testing.T) {
	s := commandtest.New(t)
	var out, errb strings.Builder
	env := s.Env("/workspace", []string{"awk", `BEGIN{print ENVIRON["HOME"], ENVIRON["N"] + 1, (ENVIRON["N"] < 9)}`}, strings.NewReader(""), &out, &errb)
	env.Environ = []string{"HOME=/workspace", "N=10"}
	if code := Main(context.Background(), env); code != 0 || out.String() != "/workspace 11 0\n" {
		t.Fatalf("status %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

func TestCommandsGoThroughExec(t *testing.T) {
	s := commandtest.New(t)
	var calls [][]string
	s.Commands = map[string]command.Func{
		"echo": func(ctx context.Context, env *command.Env) int {
			calls = append(calls, env.Args)
			io.WriteString(env.Stdout, strings.Join(env.Args[1:], " ")+"\n")
			return 0
		},
		"sh": func(ctx context.Context, env *command.Env) int {
			calls = append(calls, env.Args)
			io.WriteString(env.Stdout, "from sh\n")
			return 3
		},
		"tr": func(ctx context.Context, env *command.Env) int {
			calls = append(calls, env.Args)
			b, _ := io.ReadAll(env.Stdin)
			io.WriteString(env.Stdout, strings.ToUpper(string(b)))
			return 0
		},
	}
	r := runIn(t, s, context.Background(), "",
		`BEGIN{"echo 'a  b' \"c d\"" | getline x; print x; "echo $HOME | cat" | getline y; print y, close("echo $HOME | cat"); print "low" | "tr a-z A-Z"; close("tr a-z A-Z"); print "end"}`)
	if r.Code != 0 || r.Stdout != "a  b c d\nfrom sh 3\nLOW\nend\n" {
		t.Fatalf("got %+v", r)
	}
	want := [][]string{{"echo", "a  b", "c d"}, {"sh", "-c", "echo $HOME | cat"}, {"tr", "a-z", "A-Z"}}
	if len(calls) != len(want) {
		t.Fatalf("calls %q, want %q", calls, want)
	}
	for i := range want {
		if strings.Join(calls[i], "\x00") != strings.Join(want[i], "\x00") {
			t.Errorf("call %d: %q, want %q", i, calls[i], want[i])
		}
	}
	// An unknown command behaves like a failed one.
	r = runIn(t, s, context.Background(), "", `BEGIN{r = ("nosuchcmd" | getline x); print r, close("nosuchcmd")}`)
	if r.Stdout != "0 127\n" || !strings.Contains(r.Stderr, "command not found") {
		t.Fatalf("unknown command: %+v", r)
	}
}

func TestProgramFiles(t *testing.T) {
	s := commandtest.New(t)
	s.WriteFiles(t, map[string]string{
		"lib.awk":  "function double(x) { return 2 * x }\n",
		"main.awk": "{ print double($1) }\n",
		"bad.awk":  "BEGIN {\n  x = 1\n  print x +\n}\n",
	})
	r := runIn(t, s, context.Background(), "4\n", "-f", "lib.awk", "-f", "main.awk")
	if r.Code != 0 || r.Stdout != "8\n" {
		t.Fatalf("two -f files: %+v", r)
	}
	r = runIn(t, s, context.Background(), "", "-f", "bad.awk")
	if r.Code != 1 || !strings.Contains(r.Stderr, "awk: bad.awk:4: ") {
		t.Fatalf("syntax error in a file: %+v", r)
	}
	r = runIn(t, s, context.Background(), "", "-f", "missing.awk")
	if r.Code != 2 || !strings.Contains(r.Stderr, "can't open source file `missing.awk'") {
		t.Fatalf("missing program file: %+v", r)
	}
	r = runIn(t, s, context.Background(), "5\n", "--", "{print -$1}")
	if r.Code != 0 || r.Stdout != "-5\n" {
		t.Fatalf("--: %+v", r)
	}
}

func TestSyntaxErrorMessage(t *testing.T) {
	s := commandtest.New(t)
	r := runIn(t, s, context.Background(), "", "BEGIN { print 1 +* 2 }")
	want := "awk: cmd. line:1: BEGIN { print 1 +* 2 }\nawk: cmd. line:1:                  ^ syntax error\n"
	if r.Code != 1 || r.Stderr != want {
		t.Fatalf("got status %d stderr\n%s\nwant\n%s", r.Code, r.Stderr, want)
	}
}

func TestRecursionDepthIsBounded(t *testing.T) {
	s := commandtest.New(t)
	r := runIn(t, s, context.Background(), "", `function f(n) { return f(n+1) } BEGIN{f(0)}`)
	if r.Code != 2 || !strings.Contains(r.Stderr, "call depth") {
		t.Fatalf("got %+v", r)
	}
	r = runIn(t, s, context.Background(), "", `function d(n) { return n ? 1 + d(n-1) : 0 } BEGIN{print d(5000)}`)
	if r.Code != 0 || r.Stdout != "5000\n" {
		t.Fatalf("deep but finite recursion: %+v", r)
	}
}

// TestERE checks gawk's regex dialect: operators, escapes and the cases
// POSIX leaves to the implementation.
func TestERE(t *testing.T) {
	cases := []struct {
		ere, text string
		want      bool
	}{
		{`a+b`, "aab", true}, {`+x`, "+x", true}, {`*a`, "*a", true}, {`a**`, "aaa", true},
		{`[]a]`, "]", true}, {`[^]a-]`, "]a-", false}, {`[^]a-]`, "b", true}, {`[a\]]`, "]", true},
		{`[[:alpha:]_]`, "_", true}, {`a{2,3}`, "xaay", true}, {`a{2,3}`, "xay", false},
		{`{`, "{", true}, {`a{x`, "a{x", true}, {`a)`, "a)", true},
		{`\yfoo\y`, "a foo b", true}, {`\yfoo\y`, "afoob", false}, {`a\<b`, "ab", false}, {`a \<b`, "a b", true},
		{`\.\/\"`, `./"`, true}, {`\d`, "d", true}, {`(|a)`, "", true},
		{`a\tb`, "a\tb", true}, {`a\bb`, "a\bb", true}, {`\101`, "A", true}, {`[\t]`, "\t", true}, {`[\s]`, "s", true},
		{`(a)\1`, "aa", false}, {`a.b`, "a\nb", true},
	}
	for _, c := range cases {
		re, err := compileERE(c.ere)
		if err != nil {
			t.Errorf("compileERE(%q): %v", c.ere, err)
			continue
		}
		if got, err := re.MatchString(context.Background(), c.text); err != nil || got != c.want {
			t.Errorf("/%s/ on %q: %v %v, want %v", c.ere, c.text, got, err, c.want)
		}
	}
	for _, bad := range []string{`[abc`, `a{3,1}`, `[[:nope:]]`, `(ab`, `x{40000}`} {
		if _, err := compileERE(bad); err == nil {
			t.Errorf("compileERE(%q) succeeded, want an error", bad)
		}
	}
}
