package jq

import (
	"bytes"
	"context"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/internal/testenv"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

var jqFiles = map[string]string{
	"data.json":   `{"a":1,"b":[1,2,3],"c":{"d":"x","e":null},"name":"test","s":"héllo \u0001 😀","t":true}` + "\n",
	"arr.json":    "[3,1,2,10,-1.5,0.1,1e100,1e-7,100000000000000000000]\n",
	"people.json": `[{"age":30,"city":"paris","name":"ann"},{"age":25,"city":"rome","name":"bob"},{"age":35,"city":"paris","name":"cy"}]`,
	"multi.json":  "1 2\n3\n\"x\" [4] {\"k\":null}\n",
	"bad.json":    "{\"a\":1}\n{oops}\n",
	"lines.txt":   "first\nsecond\n\nlast",
	"a.txt":       "first",
	"b.txt":       "second",
	"strs.json":   "\"a\" \"b\"\n",
	"falsy.json":  "1 null\n",
	"filter.jq":   ".a | . + 1\n",
	"nums.json":   "[1.0, 2.50, -0, 0.0001, 0.00001, 1e17, 1e16, 123456789012345678, 3.14159]",
}

type jqCase struct {
	line  string
	stdin string
}

func splitWords(s string) []string {
	var out []string
	var cur strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == ' ':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func runJQ(t *testing.T, dir string, argv []string, stdin string) (string, string, int) {
	cmd := exec.Command("/usr/bin/jq", argv[1:]...)
	cmd.Dir = dir
	cmd.Env = []string{"LANG=C.UTF-8", "HOME=/nonexistent", "FOO=bar"}
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func runOurs(t *testing.T, sb *commandtest.Sandbox, argv []string, stdin string) (string, string, int) {
	var o, e bytes.Buffer
	env := sb.Env("/workspace", argv, strings.NewReader(stdin), &o, &e)
	env.Environ = []string{"FOO=bar"}
	code := Run(context.Background(), env)
	return o.String(), e.String(), code
}

func requireJQ(t *testing.T) {
	if _, err := os.Stat("/usr/bin/jq"); err != nil {
		testenv.Missing(t, "jq not installed")
	}
}

func TestJQAgainstGNU(t *testing.T) {
	requireJQ(t)
	cases := []jqCase{
		{"jq . data.json", ""}, {"jq -c . data.json", ""}, {"jq .a data.json", ""}, {"jq -r .name data.json", ""},
		{"jq .b[] data.json", ""}, {"jq -c .b data.json", ""}, {"jq keys data.json", ""}, {"jq length data.json", ""},
		{"jq .c.d data.json", ""}, {"jq .missing data.json", ""}, {"jq -r .s data.json", ""}, {"jq .s data.json", ""},
		{"jq -a .s data.json", ""}, {"jq -j .b[] data.json", ""}, {"jq --tab . data.json", ""}, {"jq --indent 4 .c data.json", ""},
		{"jq --indent 0 .c data.json", ""}, {"jq --indent 9 . data.json", ""}, {"jq -c sort arr.json", ""}, {"jq .[] arr.json", ""},
		{"jq -c . nums.json", ""}, {"jq add arr.json", ""}, {"jq -c 'map(.*2)' arr.json", ""}, {"jq -c '[.[]|select(.>2)]' arr.json", ""},
		{"jq -c 'group_by(.city)|map({city:.[0].city,n:length})' people.json", ""}, {"jq -r '.[]|\"\\(.name) \\(.age)\"' people.json", ""},
		{"jq -r '.[]|[.name,.age]|@csv' people.json", ""}, {"jq -r '.[]|[.name,.age]|@tsv' people.json", ""}, {"jq 'map(.age)|add/length' people.json", ""},
		{"jq -c 'sort_by(.age)|reverse' people.json", ""}, {"jq -c 'to_entries' data.json", ""}, {"jq -c . multi.json", ""}, {"jq -s -c . multi.json", ""},
		{"jq -n -c '[inputs]' multi.json", ""}, {"jq -c '[., input]' multi.json", ""}, {"jq -n input multi.json", ""}, {"jq -e . falsy.json", ""},
		{"jq -e .x data.json", ""}, {"jq -e empty data.json", ""}, {"jq -e .a data.json", ""}, {"jq .a bad.json", ""}, {"jq . missing.json", ""},
		{"jq . missing.json data.json", ""}, {"jq '.a +' data.json", ""}, {"jq 'foo(1)' data.json", ""}, {"jq '$x' data.json", ""}, {"jq .a.b data.json", ""},
		{"jq -n 'error(\"boom\")'", ""}, {"jq -n '{a:1}|error'", ""}, {"jq -n '\"bye\"|halt_error'", ""}, {"jq -n '{}|halt_error'", ""},
		{"jq -n '\"x\"|halt_error(3)'", ""}, {"jq -n '1,halt,2'", ""}, {"jq -x", ""}, {"jq -n --arg x", ""}, {"jq -n --arg x 5 '$x'", ""},
		{"jq -n --argjson x '{\"a\":1}' '$x.a'", ""}, {"jq -n --argjson x notjson '$x'", ""}, {"jq -cn --slurpfile s multi.json '$s'", ""},
		{"jq -n --rawfile r lines.txt '$r'", ""}, {"jq -cn '$ARGS' --args a b", ""}, {"jq -cn '$ARGS.positional' --jsonargs 1 '\"x\"' true", ""},
		{"jq -cn --arg a 1 --argjson b 2 '$ARGS.named'", ""}, {"jq -R . lines.txt", ""}, {"jq -Rs . lines.txt", ""}, {"jq -R . a.txt b.txt", ""},
		{"jq -Rs . a.txt b.txt", ""}, {"jq -R . - a.txt", "in\n"}, {"jq -Rn '[inputs]' lines.txt", ""}, {"jq -rc '.[]' people.json", ""},
		{"jq -f filter.jq data.json", ""}, {"jq -n '$ENV.FOO'", ""}, {"jq -n 'env.FOO'", ""}, {"jq input_filename data.json", ""},
		{"jq input_filename", "1"}, {"jq -n input_filename", ""}, {"jq -n '[range(5)]' -c", ""}, {"jq -n '1/3, 0.1+0.2, 1e1000, -1e1000, nan'", ""},
		{"jq -n '[limit(3;range(10))]' -c", ""}, {"jq -n --seq '1,2'", ""}, {"jq -n '\"\\(1,2)\"'", ""}, {"jq -n '@base64 \"x\\(\"hi\")\"'", ""},
		{"jq -r '@base64d' strs.json", ""}, {"jq -n '\"a,b,c\"|split(\",\")' -c", ""}, {"jq -n '[1,[2,[3]]]|flatten' -c", ""},
		{"jq -n 'now|type'", ""}, {"jq -n '\"2015-03-05T23:51:47Z\"|fromdate'", ""}, {"jq -n '1425599507|todate'", ""},
		{"jq -n '\"test\"|test(\"e\")'", ""}, {"jq -n -c '\"foo bar\"|[match(\"o+\";\"g\").string]'", ""}, {"jq -n '\"abc\"|sub(\"b\";\"X\")'", ""},
		{"jq -n '\"aXbXc\"|gsub(\"X\";\"-\")'", ""}, {"jq -n -c '{a:{b:1}}|paths' ", ""}, {"jq -n -c '[paths]' data.json", ""},
		{"jq -c 'del(.b)' data.json", ""}, {"jq -c '.b |= map(.+1)' data.json", ""}, {"jq -c 'with_entries(.value |= tostring)' data.json", ""},
		{"jq -n '[.[]?]' -c", ""}, {"jq -n 'try error(\"x\") catch .'", ""}, {"jq -n '\"abc\" | ascii_upcase'", ""}, {"jq -n '[1,2] | tostring'", ""},
		{"jq -n '{\"a\":1.5}|tostring'", ""}, {"jq -n '\"1.50\"|tonumber'", ""}, {"jq -n 'infinite'", ""}, {"jq -n '-0'", ""},
		{"jq -s 'length' multi.json strs.json", ""}, {"jq .", "{\"a\":[]}"}, {"jq", "[1,{}]"}, {"jq -r .", "\"a\\tb\""}, {"jq -e 'false,1'", "1"},
		{"jq -e '1,false'", "1"}, {"jq -n 'null' -e", ""}, {"jq '.+1'", "1 \"a\""}, {"jq -c '.[0]'", "[1][2]"}, {"jq .", ""}, {"jq -s .", ""},
		{"jq -n 'input'", ""}, {"jq -c 'getpath([\"a\",\"b\"])'", "{\"a\":{\"b\":5}}"}, {"jq -c 'splits(\", *\")'", "\"a, b,c\""},
		{"jq -nr '[1,\"a\",null]|@sh'", ""}, {"jq -nr '\"<&>\"|@html'", ""}, {"jq -nr '\"a b\"|@uri'", ""}, {"jq -nr '[1,2]|@json'", ""},
		{"jq -n '\"\\u00e9\"|utf8bytelength'", ""}, {"jq -n '[1,2,3]|indices(2)' -c", ""}, {"jq -n '\"abcb\"|indices(\"b\")' -c", ""},
		{"jq -n 'reduce range(5) as $x (0; .+$x)'", ""}, {"jq -n -c '[foreach range(5) as $x (0; .+$x)]'", ""}, {"jq -n -c 'def f(x): x*2; [f(1,2)]'", ""},
		{"jq -n '$__loc__' -c", ""}, {"jq -n -c '[splits(\"a\")]' ", ""}, {"jq -n -c 'ltrimstr(\"a\")'", ""}, {"jq -n '\"x\" * 0'", ""},
		{"jq -n -c '{} | .a.b.c = 1'", ""}, {"jq -n -c '[1,2,3] | .[1:]'", ""}, {"jq -n -c '\"abc\" | .[1:]'", ""}, {"jq -n 'ascii'", ""},
		{"jq -n -c '[1,2] - [2]'", ""}, {"jq -n -c '{a:1} * {a:{b:2}}'", ""}, {"jq -n '10 % 3, -10 % 3, 5 / 2'", ""}, {"jq -n '[1,2,3] | min, max'", ""},
		{"jq -n -c 'tojson, (tojson|fromjson)'", ""}, {"jq -n -r '@text \"\\(1+1)\"'", ""}, {"jq -n -c '[.[]?]'", ""}, {"jq -n '\"a\" | ltrimstr(1)'", ""},
		{"jq -n -c 'any, all'", ""}, {"jq -c 'map(has(\"a\"))'", "[{\"a\":1},{}]"}, {"jq -c 'unique'", "[3,1,3,\"a\",null,1]"}, {"jq -c 'walk(if type==\"number\" then .+1 else . end)'", "[1,[2]]"},
		{"jq -rj '.[]'", "[\"a\",\"b\",1]"}, {"jq -cS .", "{\"b\":1,\"a\":2}"}, {"jq '.a' -- data.json", ""}, {"jq -ncr '\"é\"'", ""},
		{"jq -n 'splits'", ""}, {"jq -n '[1,2]|join(\",\")'", ""}, {"jq -n 'ltrimstr'", ""}, {"jq -n '1 as $x | 2 as $y | [$x,$y,$__prog_args]'", ""},
		{"jq -n 'tostream' -c", ""}, {"jq -n -c '[{a:1}|tostream]'", ""}, {"jq -n -c 'fromstream(([[0],1],[[1],2],[[1]]))'", ""},
	}
	// Deliberate or inherited differences from jq 1.6, checked to stay as
	// documented rather than skipped silently.
	known := map[string]string{
		"jq -cn '$ARGS' --args a b": "gojq prints object keys sorted",
		"jq -n '-0'":                "gojq folds -0 to the integer 0",
		"jq -n '$__loc__' -c":       "gojq has no $__loc__",
		"jq -n '\"x\" * 0'":         "gojq (like jq 1.7.1+) returns an empty string",
		"jq .a bad.json":            "a parse error exits 2 as in jq 1.7 (1.6 exits 4)",
	}
	// jq writes no files, so one folder per side serves every case.
	dir := t.TempDir()
	writeTree(t, dir, jqFiles)
	sb := commandtest.New(t)
	sb.WriteFiles(t, jqFiles)
	pass, knownCount := 0, 0
	for _, c := range cases {
		argv := splitWords(c.line)
		if why, ok := known[c.line]; ok {
			wo, _, _ := runJQ(t, dir, argv, c.stdin)
			go_, _, _ := runOurs(t, sb, argv, c.stdin)
			if go_ == wo && why != "a parse error exits 2 as in jq 1.7 (1.6 exits 4)" {
				t.Errorf("%s: listed as a known difference (%s) but matches jq now", c.line, why)
			}
			knownCount++
			continue
		}
		wo, we, wc := runJQ(t, dir, argv, c.stdin)
		go_, ge, gc := runOurs(t, sb, argv, c.stdin)
		ok := true
		if go_ != wo {
			t.Errorf("%s: stdout\n got: %q\nwant: %q", c.line, go_, wo)
			ok = false
		}
		if gc != wc {
			t.Errorf("%s: exit %d, want %d (stderr %q, want %q)", c.line, gc, wc, ge, we)
			ok = false
		}
		if (ge == "") != (we == "") {
			t.Errorf("%s: stderr %q, want %q", c.line, ge, we)
			ok = false
		}
		if ok {
			pass++
		}
	}
	t.Logf("%d/%d jq cases match /usr/bin/jq; %d known differences", pass, len(cases)-knownCount, knownCount)
}

// TestJQGenerated pipes random filters from a pool over documents whose
// object keys are sorted (gojq prints keys sorted, jq keeps input order).
func TestJQGenerated(t *testing.T) {
	requireJQ(t)
	rng := rand.New(rand.NewSource(3))
	pool := []string{".", ".[]", ".a", ".b", ".b[]", "keys", "length", "type", "tostring", "tojson", "map(. * 2)?", "select(. != null)",
		"to_entries", "from_entries?", "[.[]?]", "add", "reverse?", "sort?", "unique?", "min?", "max?", "tostring|length", "numbers", "strings",
		"objects", "arrays", ".[0]?", ".[-1]?", ".[1:]?", "paths", "[paths]", "leaf_paths", "any", "all", "flatten?", "not", "ascii_downcase?",
		"split(\" \")?", "join(\",\")?", "@base64?", "@csv?", "@tsv?", "@html?", "@uri?", "@sh?", "has(\"a\")?", "del(.a)?", "to_entries|map(.key)",
		"with_entries(.value |= tostring)?", "group_by(type)?", "[.[]?|numbers]|add", "splits(\"a\")?", "test(\"a\")?", "ltrimstr(\"x\")", "tonumber?",
		"infinite", "nan|isnan", "floor?", "sqrt?", "env|type", "input_filename", "$__prog_name?", "getpath([\"a\"])?", "[limit(2;.[]?)]", "first(.[]?)",
		"if . then 1 else 2 end", "(. as $x | $x)", "reduce .[]? as $x (0; . + 1)", "[.[]?] | length", "indices(1)?", "inside([1,2,3])?", "contains(\"a\")?",
		"walk(if type == \"number\" then . + 1 else . end)", "tostream", "[.. | numbers]", "try error(\"x\") catch .", ".a // \"dflt\"", "@text", "@json"}
	docs := []string{`{"a":1,"b":[1,2.5,"x",null],"c":{"d":true}}`, `[3,1,2,1]`, `"a b a c"`, `null`, `[{"a":1},{"a":"x"},{"b":2}]`, `12.75`, `["x","y"]`, `{"a":"xa","b":"b"}`}
	dir := t.TempDir()
	writeTree(t, dir, jqFiles)
	sb := commandtest.New(t)
	sb.WriteFiles(t, jqFiles)
	n := 120
	if testing.Short() {
		n = 30
	}
	pass := 0
	for i := 0; i < n; i++ {
		k := 1 + rng.Intn(3)
		parts := make([]string, k)
		for j := range parts {
			parts[j] = pool[rng.Intn(len(pool))]
		}
		filter := strings.Join(parts, " | ")
		argv := []string{"jq", "-c", filter}
		if rng.Intn(4) == 0 {
			argv = []string{"jq", "-r", filter}
		}
		doc := docs[rng.Intn(len(docs))]
		wo, we, wc := runJQ(t, dir, argv, doc)
		go_, ge, gc := runOurs(t, sb, argv, doc)
		if go_ == wo && gc == wc && (ge == "") == (we == "") {
			pass++
			continue
		}
		t.Logf("%q on %s: got %q %d %q, jq %q %d %q", argv, doc, go_, gc, ge, wo, wc, we)
	}
	t.Logf("%d/%d generated jq cases match /usr/bin/jq", pass, n)
	// The rest are jq 1.6 bugs gojq does not share (an error after "f?"
	// is swallowed by 1.6) or gojq's string indexing ("abc" | .[0]).
	if pass < n*9/10 {
		t.Errorf("only %d/%d generated cases match", pass, n)
	}
}
