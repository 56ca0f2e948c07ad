package grep

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/internal/testenv"
	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

var jsonFiles = map[string]string{
	"a.txt":    "hello world\nfoo bar\nhello again hello\n",
	"b.txt":    "nothing\n",
	"bin.txt":  "x\xffhello\n",
	"d/c.txt":  "ctx1\nhello\nctx2\n",
	"nul.bin":  "abc hello\x00def\nhello two\n",
	"esc.txt":  "a\tb\"c\\\\d<e>&\x01\x7f\u2028 hello\n",
	"nonl.txt": "last hello",
	"u.txt":    "h\u00e9llo hello\n",
	"many.txt": strings.Repeat("line\nhello here\nmore\n", 30),
	"é.txt":    "hello accent\n",
	".hidden":  "hello hidden\n",
	"sub/x.go": "package x // hello\n",
	"sub/y.md": "# hello\n",
}

// elapsedRE matches the timings, which differ between runs.
var elapsedRE = regexp.MustCompile(`"(elapsed|elapsed_total)":\{[^}]*\}`)

// normalizeJSON drops the timings and orders the per-file blocks (ripgrep
// searches files in parallel), keeping the summary last.
func normalizeJSON(out string) string {
	out = elapsedRE.ReplaceAllString(out, `"$1":{}`)
	var blocks []string
	var cur, tail strings.Builder
	for _, l := range strings.SplitAfter(out, "\n") {
		switch {
		case strings.HasPrefix(l, `{"type":"begin"`):
			cur.Reset()
			cur.WriteString(l)
		case strings.HasPrefix(l, `{"type":"end"`):
			cur.WriteString(l)
			blocks = append(blocks, cur.String())
			cur.Reset()
		case strings.HasPrefix(l, `{"data":`) && strings.Contains(l, `"type":"summary"`):
			tail.WriteString(l)
		default:
			cur.WriteString(l)
		}
	}
	sort.Strings(blocks)
	return strings.Join(blocks, "") + cur.String() + tail.String()
}

// TestRgJSONAgainstRipgrep compares rg --json with ripgrep's (the
// reference scripts/deps.sh installs), timings aside.
func TestRgJSONAgainstRipgrep(t *testing.T) {
	if _, err := exec.LookPath("rg"); err != nil {
		testenv.Missing(t, fmt.Sprintf("the reference ripgrep is not installed (scripts/deps.sh installs it): %v", err))
	}
	cases := []commandtest.Case{
		{Line: "rg --json hello"}, {Line: "rg --json hello a.txt"}, {Line: "rg --json -C1 hello d/c.txt"},
		{Line: "rg --json zzz a.txt"}, {Line: "rg --json hello bin.txt"}, {Line: "rg --json hello nul.bin"},
		{Line: "rg --json -c hello a.txt"}, {Line: "rg --json -l hello a.txt"}, {Line: "rg --json --files"},
		{Line: "rg --json -o hello a.txt"}, {Line: "rg --json -N hello a.txt"}, {Line: "rg --json -r X hello a.txt"},
		{Line: "rg --json -v hello a.txt"}, {Line: "rg --json hello nope"}, {Line: "rg --json -q hello a.txt"},
		{Line: "rg --json -m1 hello a.txt"}, {Line: "rg --json llo u.txt"}, {Line: "rg --json -i HELLO a.txt"},
		{Line: "rg --json -A1 hello a.txt"}, {Line: "rg --json -B2 hello many.txt"}, {Line: "rg --json -e hello -e world a.txt"},
		{Line: "rg --json b esc.txt"}, {Line: "rg --json hello nonl.txt"}, {Line: "rg --json 'o*' a.txt"},
		{Line: "rg --json -w hello a.txt"}, {Line: "rg --json -F 'o b' a.txt"}, {Line: "rg --json hello --hidden"},
		{Line: "rg --json -t go hello"}, {Line: "rg --json -g '*.md' hello"}, {Line: "rg --json hello sub"},
		{Line: "rg --json -C2 -m2 hello many.txt"}, {Line: "rg --json --sort path hello"}, {Line: "rg --json -x 'hello world' a.txt"},
		{Line: "rg --json --count-matches hello a.txt"}, {Line: "rg --json --files-without-match hello"},
		{Line: "rg --json hello", Stdin: "in hello stdin\n"}, {Line: "rg --json -v x", Stdin: "a\nb\n"},
		{Line: "rg --json '[' a.txt"},
	}
	pass := 0
	for _, c := range cases {
		argv := commandtest.Words(c.Line)
		host := t.TempDir()
		commandtest.WriteTree(t, host, jsonFiles)
		cmd := exec.Command("rg", argv[1:]...)
		cmd.Dir = host
		if c.Stdin != "" {
			cmd.Stdin = strings.NewReader(c.Stdin)
		}
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		code := 0
		if err := cmd.Run(); err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatal(err)
			}
			code = ee.ExitCode()
		}
		sb := commandtest.New(t)
		sb.Commands = map[string]command.Func{"rg": Rg}
		commandtest.WriteTree(t, sb.Workspace, jsonFiles)
		r := sb.Run(t.Context(), Rg, c.Stdin, argv...)
		got, want := normalizeJSON(r.Stdout), normalizeJSON(o.String())
		if got != want || r.Code != code || (r.Stderr == "") != (e.String() == "") {
			t.Errorf("%s:\n got (%d): %s %q\nwant (%d): %s %q", c.Line, r.Code, got, r.Stderr, code, want, e.String())
			continue
		}
		pass++
	}
	t.Logf("%d/%d cases match ripgrep 13's --json", pass, len(cases))
}
