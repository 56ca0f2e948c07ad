package yq

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/internal/testenv"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

const sample = `# config
name: app
version: 3
tags:
  - a
  - b
db:
  host: localhost
  port: 5432
`

func TestYq(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		stdin string
		args  []string
		out   string
		code  int
		err   string // substring of stderr
	}{
		{name: "field", args: []string{".name", "c.yaml"}, out: "app\n"},
		{name: "eval subcommand", args: []string{"eval", ".db.port", "c.yaml"}, out: "5432\n"},
		{name: "stdin", stdin: "a: {b: 1}\n", args: []string{".a.b"}, out: "1\n"},
		{name: "stdin dash", stdin: "a: 1\n", args: []string{".a", "-"}, out: "1\n"},
		{name: "file only is identity", args: []string{"small.yaml"}, out: "x: 1\n"},
		{name: "map to json", args: []string{"-o", "json", ".db", "c.yaml"}, out: "{\n  \"host\": \"localhost\",\n  \"port\": 5432\n}\n"},
		{name: "json compact", args: []string{"-oj", "-I0", ".tags", "c.yaml"}, out: "[\"a\",\"b\"]\n"},
		{name: "json string quoted", args: []string{"-o=json", ".name", "c.yaml"}, out: "\"app\"\n"},
		{name: "json raw", args: []string{"-o", "json", "-r", ".name", "c.yaml"}, out: "app\n"},
		{name: "indent 4", args: []string{"-I", "4", ".db", "c.yaml"}, out: "host: localhost\nport: 5432\n"},
		{name: "indent 4 nested", stdin: "a:\n  b:\n    c: 1\n", args: []string{"-I4", "."}, out: "a:\n    b:\n        c: 1\n"},
		{name: "props", args: []string{"-o", "props", ".db", "c.yaml"}, out: "host = localhost\nport = 5432\n"},
		{name: "csv", stdin: "- [a, b]\n- [1, 2]\n", args: []string{"-o", "csv", "."}, out: "a,b\n1,2\n"},
		{name: "tsv", stdin: "- [a, b]\n- [1, 2]\n", args: []string{"-o", "tsv", "."}, out: "a\tb\n1\t2\n"},
		{name: "xml", stdin: "a:\n  b: 1\n", args: []string{"-o", "xml", "."}, out: "<a>\n  <b>1</b>\n</a>\n"},
		{name: "toml out", stdin: "a:\n  b: 1\n", args: []string{"-o", "toml", "."}, out: "[a]\nb = 1\n"},
		{name: "json in by extension", args: []string{".a", "d.json"}, out: "[\n  1,\n  2\n]\n"},
		{name: "json in to yaml", args: []string{"-o", "yaml", ".a", "d.json"}, out: "- 1\n- 2\n"},
		{name: "input format flag", stdin: `{"k":"v"}`, args: []string{"-p", "json", ".k"}, out: "v\n"},
		{name: "toml in", args: []string{".server.port", "s.toml"}, out: "8080\n"},
		{name: "xml in", stdin: "<r><x>5</x></r>", args: []string{"-p", "xml", ".r.x"}, out: "5\n"},
		{name: "csv in", stdin: "n,v\na,1\nb,2\n", args: []string{"-p", "csv", "-o", "json", "-I0", ".[1].n"}, out: "\"b\"\n"},
		{name: "null input", args: []string{"-n", ".a = 1"}, out: "a: 1\n"},
		{name: "null input with file", args: []string{"-n", ".a", "c.yaml"}, code: 1, err: "cannot pass files"},
		{name: "multi doc", stdin: "a: 1\n---\na: 2\n", args: []string{".a"}, out: "1\n---\n2\n"},
		{name: "multi doc no-doc", stdin: "a: 1\n---\na: 2\n", args: []string{"-N", ".a"}, out: "1\n2\n"},
		{name: "eval-all merge", args: []string{"ea", ". as $i ireduce ({}; . * $i)", "small.yaml", "small2.yaml"}, out: "x: 1\ny: 2\n"},
		{name: "select", args: []string{".tags[] | select(. == \"b\")", "c.yaml"}, out: "b\n"},
		{name: "update", stdin: "a: 1\n", args: []string{".a = 2 | .b = \"x\""}, out: "a: 2\nb: x\n"},
		{name: "pretty", stdin: `{"a": {"b": [1, 2]}}`, args: []string{"-P", "."}, out: "a:\n  b:\n    - 1\n    - 2\n"},
		{name: "exit status null", args: []string{"-e", ".missing", "c.yaml"}, out: "null\n", code: 1, err: "no matches"},
		{name: "exit status ok", args: []string{"-e", ".name", "c.yaml"}, out: "app\n"},
		{name: "exit status false", stdin: "a: false\n", args: []string{"-e", ".a"}, out: "false\n", code: 1, err: "no matches"},
		{name: "bad expression", args: []string{".a |||", "c.yaml"}, code: 1, err: "yq: Error:"},
		{name: "missing file", args: []string{".a", "nope.yaml"}, code: 1, err: "nope.yaml: No such file or directory"},
		{name: "bad yaml", stdin: "a: [\n", args: []string{"."}, code: 1, err: "bad file"},
		{name: "unknown flag", args: []string{"--frobnicate", "."}, code: 1, err: "unknown flag"},
		{name: "bad format", args: []string{"-o", "nope", "."}, code: 1, err: "unknown format"},
		{name: "env ops disabled", args: []string{"-n", "env(HOME)"}, code: 1, err: "disabled"},
		{name: "load disabled", args: []string{"-n", "load(\"/etc/passwd\")"}, code: 1, err: "disabled"},
		{name: "escape confined", args: []string{".", "../../etc/passwd"}, code: 1, err: "No such file"},
		{name: "expression flag", args: []string{"--expression", ".version", "c.yaml"}, out: "3\n"},
		{name: "from file", args: []string{"--from-file", "q.yq", "c.yaml"}, out: "localhost\n"},
		{name: "inplace needs file", stdin: "a: 1\n", args: []string{"-i", ".a = 2"}, code: 1, err: "write in place"},
		{name: "comments kept", args: []string{".", "c.yaml"}, out: sample},
	}
	sb := commandtest.New(t)
	sb.WriteFiles(t, map[string]string{
		"c.yaml":      sample,
		"small.yaml":  "x: 1\n",
		"small2.yaml": "y: 2\n",
		"d.json":      `{"a": [1, 2]}`,
		"s.toml":      "[server]\nport = 8080\n",
		"q.yq":        ".db.host\n",
	})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := sb.Run(ctx, Run, tc.stdin, append([]string{"yq"}, tc.args...)...)
			if r.Code != tc.code || r.Stdout != tc.out || !strings.Contains(r.Stderr, tc.err) {
				t.Errorf("yq %q:\n got code %d stdout %q stderr %q\nwant code %d stdout %q stderr ~%q",
					tc.args, r.Code, r.Stdout, r.Stderr, tc.code, tc.out, tc.err)
			}
			if tc.err == "" && r.Stderr != "" {
				t.Errorf("unexpected stderr %q", r.Stderr)
			}
		})
	}
}

func TestInPlace(t *testing.T) {
	ctx := context.Background()
	sb := commandtest.New(t)
	sb.WriteFiles(t, map[string]string{"sub/c.yaml": sample})
	r := sb.Run(ctx, Run, "", "yq", "-i", ".db.port = 6543 | .tags += [\"c\"]", "sub/c.yaml")
	if r.Code != 0 || r.Stdout != "" || r.Stderr != "" {
		t.Fatalf("yq -i: %+v", r)
	}
	got, err := os.ReadFile(filepath.Join(sb.Workspace, "sub", "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(sample, "5432", "6543", 1)
	want = strings.Replace(want, "  - b\n", "  - b\n  - c\n", 1)
	if string(got) != want {
		t.Errorf("file after -i:\n%s\nwant:\n%s", got, want)
	}
	entries, _ := os.ReadDir(filepath.Join(sb.Workspace, "sub"))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}

	// A failing expression leaves the file as it was.
	r = sb.Run(ctx, Run, "", "yq", "-i", ".db.port |||", "sub/c.yaml")
	if r.Code != 1 {
		t.Fatalf("yq -i with a bad expression: %+v", r)
	}
	again, _ := os.ReadFile(filepath.Join(sb.Workspace, "sub", "c.yaml"))
	if string(again) != want {
		t.Errorf("file changed by a failed -i:\n%s", again)
	}
}

// TestJSONAgainstJq checks yq's JSON output parses to what jq makes of the
// same document, where jq is installed.
func TestJSONAgainstJq(t *testing.T) {
	jq, err := exec.LookPath("jq")
	if err != nil {
		testenv.Missing(t, "jq not installed: no reference for JSON output")
	}
	ctx := context.Background()
	sb := commandtest.New(t)
	doc := `{"a": [1, 2.5, "x", null, true], "b": {"c": "d\n\"e\"", "u": "ü"}, "n": -3}`
	for _, expr := range []string{".", ".a", ".b", ".a[2]", ".b.c", "[.a[] | select(. != null)]", ".n"} {
		r := sb.Run(ctx, Run, doc, "yq", "-p", "json", "-o", "json", expr)
		if r.Code != 0 {
			t.Fatalf("yq %s: %+v", expr, r)
		}
		cmd := exec.Command(jq, expr)
		cmd.Stdin = strings.NewReader(doc)
		want, err := cmd.Output()
		if err != nil {
			t.Fatalf("jq %s: %v", expr, err)
		}
		var g, w any
		if err := json.Unmarshal([]byte(r.Stdout), &g); err != nil {
			t.Fatalf("yq %s printed invalid JSON %q: %v", expr, r.Stdout, err)
		}
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: yq %q, jq %q", expr, r.Stdout, want)
		}
	}
}

func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sb := commandtest.New(t)
	r := sb.Run(ctx, Run, "a: 1\n", "yq", ".a")
	if r.Code != 130 || r.Stdout != "" || !strings.Contains(r.Stderr, "interrupted") {
		t.Errorf("cancelled yq: %+v", r)
	}
}
