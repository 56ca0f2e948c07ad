package grep

import (
	"context"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// rgFiles is a small git work tree: an ignored build folder, a hidden
// folder, a binary file.
var rgFiles = map[string]string{
	".git/HEAD":       "ref: refs/heads/main\n",
	".gitignore":      "build/\n*.log\n!keep.log\n",
	"a.txt":           "hello world\nfoo\nHello again\n",
	"src/main.go":     "package main\n\nfunc hello() {}\n",
	"src/lib/x.rs":    "let hello = 1;\n",
	"src/.ignore":     "gen.go\n",
	"src/gen.go":      "// hello generated\n",
	"build/out.txt":   "hello build\n",
	"debug.log":       "hello log\n",
	"keep.log":        "hello kept\n",
	".hidden/h.txt":   "hello hidden\n",
	"bin.dat":         "hello\x00bin\n",
	"docs/README.md":  "# hello docs\nsee foo\n",
	"ctx.txt":         "one\ntwo\nthree foo\nfour\nfive\nsix\nseven foo\neight\n",
	"words.txt":       "hello\nhellothere\nsay hello!\n",
	"caps.txt":        "Foo\nfoo\nFOO\n",
	"sub/dir/deep.go": "hello deep\n",
}

// TestRgNonTTY pins ripgrep's output when standard output is not a
// terminal: no line numbers or headings unless asked, file names unless
// one file is searched, paths as given (none for an implicit ".").
func TestRgNonTTY(t *testing.T) {
	sb := commandtest.New(t)
	sb.WriteFiles(t, rgFiles)
	for _, c := range rgCases {
		got := sb.Run(context.Background(), Rg, c.stdin, splitArgs(c.cmd)...)
		if got.Stdout != c.want || got.Code != c.code {
			t.Errorf("%s\nwant code %d stdout %q\ngot  code %d stdout %q stderr %q", c.cmd, c.code, c.want, got.Code, got.Stdout, got.Stderr)
		}
	}
}

// rgCases are rg command lines over rgFiles with ripgrep's output.
var rgCases = []struct {
	cmd, stdin string
	want       string
	code       int
}{
	{"rg hello", "", "a.txt:hello world\ndocs/README.md:# hello docs\nkeep.log:hello kept\nsrc/lib/x.rs:let hello = 1;\nsrc/main.go:func hello() {}\nsub/dir/deep.go:hello deep\nwords.txt:hello\nwords.txt:hellothere\nwords.txt:say hello!\n", 0},
	{"rg -n hello src", "", "src/lib/x.rs:1:let hello = 1;\nsrc/main.go:3:func hello() {}\n", 0},
	{"rg hello a.txt", "", "hello world\n", 0},
	{"rg -H hello a.txt", "", "a.txt:hello world\n", 0},
	{"rg -n hello a.txt words.txt", "", "a.txt:1:hello world\nwords.txt:1:hello\nwords.txt:2:hellothere\nwords.txt:3:say hello!\n", 0},
	{"rg hello .", "", "./a.txt:hello world\n./docs/README.md:# hello docs\n./keep.log:hello kept\n./src/lib/x.rs:let hello = 1;\n./src/main.go:func hello() {}\n./sub/dir/deep.go:hello deep\n./words.txt:hello\n./words.txt:hellothere\n./words.txt:say hello!\n", 0},
	{"rg -l hello src", "", "src/lib/x.rs\nsrc/main.go\n", 0},
	{"rg -c o ctx.txt a.txt", "", "ctx.txt:5\na.txt:3\n", 0},
	{"rg -c zzz a.txt", "", "", 1},
	{"rg --count-matches o a.txt", "", "5\n", 0},
	{"rg hello bin.dat", "", "binary file matches (found \"\\0\" byte around offset 5)\n", 0},
	{"rg -H hello bin.dat a.txt", "", "bin.dat: binary file matches (found \"\\0\" byte around offset 5)\na.txt:hello world\n", 0},
	{"rg --files-without-match hello a.txt ctx.txt", "", "ctx.txt\n", 0},
	{"rg -i foo caps.txt", "", "Foo\nfoo\nFOO\n", 0},
	{"rg foo caps.txt", "", "foo\n", 0},
	{"rg -S foo caps.txt", "", "Foo\nfoo\nFOO\n", 0},
	{"rg -S Foo caps.txt", "", "Foo\n", 0},
	{"rg -w hello words.txt", "", "hello\nsay hello!\n", 0},
	{"rg -x hello words.txt", "", "hello\n", 0},
	{"rg -v hello words.txt", "", "", 1},
	{"rg -o hel+o words.txt", "", "hello\nhello\nhello\n", 0},
	{"rg -F hello! words.txt", "", "say hello!\n", 0},
	{"rg -e foo -e two ctx.txt", "", "two\nthree foo\nseven foo\n", 0},
	{"rg -C1 foo ctx.txt", "", "two\nthree foo\nfour\n--\nsix\nseven foo\neight\n", 0},
	{"rg -n -A1 foo ctx.txt", "", "3:three foo\n4-four\n--\n7:seven foo\n8-eight\n", 0},
	{"rg -m1 foo ctx.txt", "", "three foo\n", 0},
	{"rg ^f ctx.txt", "", "four\nfive\n", 0},
	{"rg -n o$ ctx.txt", "", "2:two\n3:three foo\n7:seven foo\n", 0},
	{"rg -c [^o]$ ctx.txt", "", "5\n", 0},
	{"rg -U x a.txt", "", "", 2},
	{`rg -n '\Af' ctx.txt`, "", "4:four\n5:five\n", 0},
	{`rg -c 't\z' ctx.txt`, "", "1\n", 0},
	{"rg -l -c hello a.txt src", "", "a.txt:1\nsrc/lib/x.rs:1\nsrc/main.go:1\n", 0},
	{"rg --files-without-match -l hello a.txt src", "", "a.txt\nsrc/lib/x.rs\nsrc/main.go\n", 0},
	{"rg -l --files-without-match hello a.txt src", "", "", 1},
	{"rg --count-matches -c o a.txt", "", "3\n", 0},
	{"rg -c --files-without-match Foo src", "", "", 1},
	{"rg --files-without-match Foo src", "", "src/lib/x.rs\nsrc/main.go\n", 0},
	{"rg -v --count-matches Foo caps.txt", "", "2\n", 0},
	{"rg -o -v foo caps.txt", "", "Foo\nFOO\n", 0},
	{"rg -B1 -o ^f a.txt", "", "hello world\nf\n", 0},
	{"rg -C1 -A0 foo a.txt", "", "foo\n", 0},
	{"rg -A0 -C1 foo a.txt", "", "hello world\nfoo\nHello again\n", 0},
	{"rg --vimgrep -N H a.txt", "", "a.txt:1:Hello again\n", 0},
	{"rg --vimgrep -v o ctx.txt", "", "ctx.txt:5:five\nctx.txt:6:six\nctx.txt:8:eight\n", 0},
	{"rg --hidden -l ref", "", ".git/HEAD\n", 0},
	{"rg -x -w hello words.txt", "", "hello\nsay hello!\n", 0},
	{"rg -w -x hello words.txt", "", "hello\n", 0},
	{"rg -r X --vimgrep -b l+ a.txt", "", "a.txt:1:3:2:heXo worXd\na.txt:1:9:8:heXo worXd\na.txt:3:3:18:HeXo again\n", 0},
	{"rg -t go -x -g *.txt foo|two .", "", "./a.txt:foo\n./caps.txt:foo\n./ctx.txt:two\n", 0},
	{"rg -A1 --context-separator=## foo ctx.txt", "", "three foo\nfour\n##\nseven foo\neight\n", 0},
	{"rg -A1 --no-context-separator foo ctx.txt", "", "three foo\nfour\nseven foo\neight\n", 0},
	{"rg -q foo ctx.txt", "", "", 0},
	{"rg --column foo ctx.txt", "", "3:7:three foo\n7:7:seven foo\n", 0},
	{"rg --vimgrep o a.txt", "", "a.txt:1:5:hello world\na.txt:1:8:hello world\na.txt:2:2:foo\na.txt:2:3:foo\na.txt:3:5:Hello again\n", 0},
	{"rg -r HI hello a.txt", "", "HI world\n", 0},
	{"rg -o -r $1 h(el)lo a.txt", "", "el\n", 0},
	{"rg -t go hello", "", "src/main.go:func hello() {}\nsub/dir/deep.go:hello deep\n", 0},
	{"rg -T go -T rust -T md hello src docs", "", "", 1},
	{"rg -g *.rs hello", "", "src/lib/x.rs:let hello = 1;\n", 0},
	{"rg -g !src -g !*.txt -g !*.go hello", "", "docs/README.md:# hello docs\nkeep.log:hello kept\n", 0},
	{"rg --hidden hello .hidden", "", ".hidden/h.txt:hello hidden\n", 0},
	{"rg --hidden -l hello", "", ".hidden/h.txt\na.txt\ndocs/README.md\nkeep.log\nsrc/lib/x.rs\nsrc/main.go\nsub/dir/deep.go\nwords.txt\n", 0},
	{"rg --no-ignore -l hello", "", "a.txt\nbuild/out.txt\ndebug.log\ndocs/README.md\nkeep.log\nsrc/gen.go\nsrc/lib/x.rs\nsrc/main.go\nsub/dir/deep.go\nwords.txt\n", 0},
	{"rg -l hello build/out.txt src/gen.go", "", "build/out.txt\nsrc/gen.go\n", 0},
	{"rg --max-depth 1 -l hello", "", "a.txt\nkeep.log\nwords.txt\n", 0},
	{"rg --files src", "", "src/lib/x.rs\nsrc/main.go\n", 0},
	{"rg --max-depth 0 -l hello", "", "", 2},
	{"rg --max-depth 2 --files sub src", "", "sub/dir/deep.go\nsrc/lib/x.rs\nsrc/main.go\n", 0},
	{"rg --max-depth 1 --files sub", "", "", 1},
	{"rg -L -l hello", "", "a.txt\ndocs/README.md\nkeep.log\nsrc/lib/x.rs\nsrc/main.go\nsub/dir/deep.go\nwords.txt\n", 0},
	{"rg -l -0 hello src", "", "src/lib/x.rs\x00src/main.go\x00", 0},
	{"rg -uuu -l hello", "", ".hidden/h.txt\na.txt\nbin.dat\nbuild/out.txt\ndebug.log\ndocs/README.md\nkeep.log\nsrc/gen.go\nsrc/lib/x.rs\nsrc/main.go\nsub/dir/deep.go\nwords.txt\n", 0},
	{"rg -c -I hello a.txt words.txt", "", "1\n3\n", 0},
	{"rg hello", "hello stdin\nbye\n", "hello stdin\n", 0},
	{"rg -H hello", "hello stdin\n", "<stdin>:hello stdin\n", 0},
	{"rg nomatch a.txt", "", "", 1},
	{"rg --type-add web:*.md -t web hello", "", "docs/README.md:# hello docs\n", 0},
	{"rg --type-add mine:include:go,rust -t mine -l hello", "", "src/lib/x.rs\nsrc/main.go\nsub/dir/deep.go\n", 0},
	{"rg --type-clear go -t go hello", "", "", 2},
	{"rg -t py hello", "", "", 2},
	{"rg -g *.zz hello", "", "", 2},
	{"rg --files -t py", "", "", 1},
	{"rg -t go -l hello", "", "src/main.go\nsub/dir/deep.go\n", 0},
}

func TestRgErrors(t *testing.T) {
	sb := commandtest.New(t)
	sb.WriteFiles(t, rgFiles)
	cases := []struct{ cmd, wantErr string }{
		{"rg", "rg: ripgrep requires at least one pattern to execute a search\n"},
		{"rg hello nope.txt", "rg: nope.txt: No such file or directory (os error 2)\n"},
		{"rg -t nope hello", "rg: error parsing flag -t: unrecognized file type: nope\n"},
		{"rg --frob hello", "rg: unrecognized flag --frob\n"},
		{"rg --pcre2 hello", "rg: --pcre2 is not supported here (PCRE2)\n"},
		{"rg a(?=b)", "rg: regex parse error:\n    a(?=b)\nerror: invalid or unsupported Perl syntax: `(?=`\n"},
		{"rg -A x foo", "rg: error parsing flag -A: invalid number: x\n"},
		{"rg -t py hello", "rg: No files were searched, which means ripgrep probably applied a filter you didn't expect.\nRunning with --debug will show why files are being skipped.\n"},
		{`rg 'a\nb'`, "rg: regex parse error:\n    a\\nb\nerror: the literal \"\\n\" is not allowed in a regex (multi-line search is not supported)\n"},
	}
	for _, c := range cases {
		got := sb.Run(context.Background(), Rg, "", splitArgs(c.cmd)...)
		if got.Code != 2 || got.Stderr != c.wantErr {
			t.Errorf("%s: got code %d stderr %q, want 2 and %q", c.cmd, got.Code, got.Stderr, c.wantErr)
		}
	}
}

func TestRgTypeList(t *testing.T) {
	sb := commandtest.New(t)
	r := sb.Run(context.Background(), Rg, "", "rg", "--type-list")
	if r.Code != 0 || !strings.Contains(r.Stdout, "go: *.go\n") || !strings.Contains(r.Stdout, "rust: *.rs\n") {
		t.Errorf("--type-list: code %d stdout %q", r.Code, r.Stdout)
	}
}

func TestCommandsListsAllFour(t *testing.T) {
	want := map[string]bool{"grep": true, "egrep": true, "fgrep": true, "rg": true}
	for _, c := range Commands() {
		if !want[c.Name] || c.Func == nil || c.Summary == "" || len(c.Flags) == 0 {
			t.Errorf("bad spec %+v", c)
		}
		delete(want, c.Name)
	}
	if len(want) != 0 {
		t.Errorf("missing commands: %v", want)
	}
}
