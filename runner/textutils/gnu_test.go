package textutils

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/internal/testenv"
	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// gnuFiles is the workspace every differential case starts from.
var gnuFiles = map[string]string{
	"a.txt":        "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\niota\nkappa\nlambda\nmu\n",
	"b.txt":        "one\ntwo\nthree\n",
	"empty.txt":    "",
	"nonl.txt":     "first line\nsecond line without newline",
	"nums.txt":     "10\n2\n-3\n2.5\n1e3\n0x10\n  7\nabc\n\n-0\n+4\n1,000\n003\n",
	"human.txt":    "1K\n2M\n512\n1G\n3k\n0.5M\n100\n-1K\n",
	"vers.txt":     "file10.txt\nfile2.txt\nfile1.txt\nv1.2.10\nv1.2.9\nv1.10\nfile-1.0a\nfile-1.0\n",
	"table.txt":    "bob 25 paris 3.5\nalice 30 london 1.25\ncarol 25 berlin 10\ndave 40 paris 2\neve 30 rome 0.5\nalice 22 oslo 7\n",
	"colon.txt":    "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\nbin:x:2:2:bin:/bin:/usr/sbin/nologin\nuser:x:1000:1000:User,,,:/home/user:/bin/zsh\nshort\n",
	"dup.txt":      "a\na\nb\nB\nb\nc\nc\nc\na\n A\n\n\nx y 1\nx y 2\nz y 2\n",
	"tabs.txt":     "a\tb\tc\n\tindented\nno tabs here\n12345678\tx\n1234567\ty\n  \t mixed\n",
	"utf8.txt":     "héllo wörld\nnaïve café\n日本語テキスト\nplain\n",
	"words.txt":    "the quick brown fox jumps over the lazy dog and keeps running far away into the distance until night\nshort\n\nanother fairly long line that should be folded somewhere around here ok\n",
	"j1.txt":       "1 apple red\n2 banana yellow\n3 cherry red\n5 grape purple\n",
	"j2.txt":       "1 fruit\n2 fruit\n4 veg\n5 fruit\n5 berry\n",
	"c1.txt":       "apple\nbanana\ncherry\ndate\n",
	"c2.txt":       "banana\ncherry\nelder\nfig\n",
	"unsorted.txt": "b\na\nc\n",
	"crlf.txt":     "one\r\ntwo\r\n",
	"bin.dat":      "\x00\x01\x02hello\x7f\xff\xfeworld\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00abc\tdef\nstrings here\x00x",
	"c.csv":        "1,foo\n2,bar\n",
	"csv.txt":      "a,b,c\nd,,f,",
	"b64.txt":      "aGVsbG8gd29y\nbGQK\n",
	"bad64.txt":    "aGVs*bG8K\n",
	"short64.txt":  "YWI",
	"sums.txt":     "e09c0c12d2962ddb9c8827209f3cfcc794004c83af3c6817c8c7c7ca76d9729b  a.txt\nb6285c57e8797db5d4c51c80d6f11938afda9b11c6a003549709189e9b4b92a2 *b.txt\n",
	"badsums.txt":  "e09c0c12d2962ddb9c8827209f3cfcc794004c83af3c6817c8c7c7ca76d9729b  a.txt\ne09c0c12d2962ddb9c8827209f3cfcc794004c83af3c6817c8c7c7ca76d9729b  b.txt\nnot a line\nb6285c57e8797db5d4c51c80d6f11938afda9b11c6a003549709189e9b4b92a2  missing.txt\n# comment\n",
	"da/f":         "x\n",
	"db/f":         "y\n",
	"da/s":         "same\n",
	"db/s":         "same\n",
	"da/onlya":     "only\n",
	"db/onlyb":     "o\n",
	"da/sub/g":     "1\n",
	"db/sub/g":     "2\n",
	"da/dd/k":      "k\n",
	"db/dd":        "z\n",
	"bin2.dat":     "\x00\x01\x02hello",
	"ws1.txt":      "a  b\nC d\n\nend\n",
	"ws2.txt":      "a b\nc  d\n\n\nend\n",
	"sub/x.txt":    "in a subfolder\n",
}

// splitWords splits a test command line on blanks, honouring '…' and "…"
// quoting (no escapes inside single quotes, \" and \\ inside double ones).
func splitWords(s string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
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

// gnuCase is one differential case: argv (as a quoted line) and stdin.
type gnuCase struct {
	line  string
	stdin string
	extra map[string]string // when set, the case's only files (instead of gnuFiles)
}

type outcome struct {
	stdout, stderr string
	code           int
	files          map[string]string
}

func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tree is a folder kept equal to a file set between cases: after a case
// only what changed is rewritten, which keeps hundreds of cases fast.
type tree struct {
	dir   string
	files map[string]string
	snap  map[string]os.FileInfo
}

func newTree(t testing.TB, dir string, files map[string]string) *tree {
	t.Helper()
	writeTree(t, dir, files)
	tr := &tree{dir: dir, files: files}
	tr.snap = tr.stat()
	return tr
}

func (tr *tree) stat() map[string]os.FileInfo {
	out := map[string]os.FileInfo{}
	filepath.Walk(tr.dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && p != tr.dir {
			rel, _ := filepath.Rel(tr.dir, p)
			out[filepath.ToSlash(rel)] = info
		}
		return nil
	})
	return out
}

// changes returns the content of every regular file that is new or whose
// size or time changed, and "" for removed ones; it then restores the set.
func (tr *tree) changes(t testing.TB) map[string]string {
	t.Helper()
	now := tr.stat()
	out := map[string]string{}
	for name, fi := range now {
		old, ok := tr.snap[name]
		if ok && old.Size() == fi.Size() && old.ModTime().Equal(fi.ModTime()) && old.Mode() == fi.Mode() {
			continue
		}
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(filepath.Join(tr.dir, name))
			out[name] = string(b)
		} else {
			out[name] = "<" + fi.Mode().Type().String() + ">"
		}
	}
	for name := range tr.snap {
		if _, ok := now[name]; !ok {
			out[name] = "<removed>"
		}
	}
	if len(out) > 0 {
		for name := range out {
			if _, ok := tr.snap[name]; !ok {
				os.RemoveAll(filepath.Join(tr.dir, name))
			}
		}
		restore := map[string]string{}
		for name := range out {
			if c, ok := tr.files[name]; ok {
				restore[name] = c
			}
		}
		writeTree(t, tr.dir, restore)
		tr.snap = tr.stat()
	}
	return out
}

func requireGNU(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		testenv.Missing(t, fmt.Sprintf("%s not installed: %v", name, err))
	}
}

func runHost(t *testing.T, tr *tree, argv []string, stdin string) outcome {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = tr.dir
	cmd.Env = []string{"LANG=C.UTF-8", "PATH=/usr/bin:/bin", "TZ=UTC"}
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	return outcome{stdout: o.String(), stderr: e.String(), code: code, files: tr.changes(t)}
}

func commandTable() map[string]command.Func {
	m := map[string]command.Func{}
	for _, s := range Commands() {
		m[s.Name] = s.Func
	}
	m["echo"] = testEcho
	m["cat"] = testCat
	return m
}

// testCat is a minimal cat (the real one lives in runner/coreutils).
func testCat(ctx context.Context, env *command.Env) int {
	if len(env.Args) == 1 {
		io.Copy(env.Stdout, env.Stdin)
		return 0
	}
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

// testEcho is a minimal echo for xargs tests.
func testEcho(ctx context.Context, env *command.Env) int {
	fmt.Fprintln(env.Stdout, strings.Join(env.Args[1:], " "))
	return 0
}

func runOurs(t *testing.T, sb *commandtest.Sandbox, tr *tree, argv []string, stdin string) outcome {
	t.Helper()
	fn, ok := sb.Commands[argv[0]]
	if !ok {
		t.Fatalf("no command %s", argv[0])
	}
	res := sb.Run(context.Background(), fn, stdin, argv...)
	return outcome{stdout: res.Stdout, stderr: res.Stderr, code: res.Code, files: tr.changes(t)}
}

// diffCases runs each case under GNU and under our Func and compares
// stdout, exit status, whether stderr is empty, and the files written.
// It returns the number of cases that matched.
func diffCases(t *testing.T, cases []gnuCase) int {
	t.Helper()
	type env struct {
		host, ours *tree
		sb         *commandtest.Sandbox
	}
	base := func(files map[string]string) *env {
		sb := commandtest.New(t)
		sb.Commands = commandTable()
		return &env{host: newTree(t, t.TempDir(), files), ours: newTree(t, sb.Workspace, files), sb: sb}
	}
	if testing.Short() && len(cases) > 60 {
		// -short keeps every fourth case of the big (generated) sets.
		var some []gnuCase
		for i := 0; i < len(cases); i += 4 {
			some = append(some, cases[i])
		}
		cases = some
	}
	shared := base(gnuFiles)
	pass := 0
	for _, c := range cases {
		argv := splitWords(c.line)
		requireGNU(t, argv[0])
		e := shared
		if c.extra != nil {
			e = base(c.extra)
		}
		want := runHost(t, e.host, argv, c.stdin)
		got := runOurs(t, e.sb, e.ours, argv, c.stdin)
		ok := true
		if got.stdout != want.stdout {
			t.Errorf("%s: stdout\n got: %q\nwant: %q", c.line, got.stdout, want.stdout)
			ok = false
		}
		if got.code != want.code {
			t.Errorf("%s: exit %d, want %d (stderr %q, want %q)", c.line, got.code, want.code, got.stderr, want.stderr)
			ok = false
		}
		if (got.stderr == "") != (want.stderr == "") {
			t.Errorf("%s: stderr %q, want %q", c.line, got.stderr, want.stderr)
			ok = false
		}
		for name, content := range want.files {
			if got.files[name] != content {
				t.Errorf("%s: file %s = %q, want %q", c.line, name, got.files[name], content)
				ok = false
			}
		}
		for name := range got.files {
			if _, ok2 := want.files[name]; !ok2 {
				t.Errorf("%s: changed file %s that GNU left alone", c.line, name)
				ok = false
			}
		}
		if ok {
			pass++
		}
	}
	t.Logf("%d/%d cases match GNU", pass, len(cases))
	return pass
}

func lines(stdin string, ls ...string) []gnuCase {
	var out []gnuCase
	for _, l := range ls {
		out = append(out, gnuCase{line: l, stdin: stdin})
	}
	return out
}

func TestGNUHeadTail(t *testing.T) {
	t.Parallel()
	cases := lines("s1\ns2\ns3\n",
		"head a.txt", "head -n 3 a.txt", "head -3 a.txt", "head -n -3 a.txt", "head -c 5 a.txt", "head -c -5 a.txt",
		"head -n 2 a.txt b.txt", "head -q -n 1 a.txt b.txt", "head -v b.txt", "head -n 1 a.txt - b.txt",
		"head -n 0 a.txt", "head nonl.txt", "head -n -1 nonl.txt", "head missing.txt", "head -n x a.txt",
		"head -c 1k a.txt", "head --lines=2 a.txt", "head -n1 empty.txt a.txt", "head", "head -z -n1 bin.dat",
		"head -x a.txt", "head -n", "head sub",
		"tail a.txt", "tail -n 3 a.txt", "tail -3 a.txt", "tail -n +3 a.txt", "tail +3 a.txt", "tail -c 5 a.txt",
		"tail -c +5 a.txt", "tail -n 1 nonl.txt", "tail -n 2 a.txt b.txt", "tail -q -n1 a.txt b.txt",
		"tail -n 0 a.txt", "tail -n +0 b.txt", "tail missing.txt b.txt", "tail", "tail -n -2 a.txt", "tail -3c a.txt",
		"tail -v -n1 b.txt", "tail -n +100 a.txt", "tail -c 1000 b.txt",
	)
	var big strings.Builder
	for i := 0; i < 30000; i++ {
		fmt.Fprintf(&big, "line %d of a long file\n", i)
	}
	for _, l := range []string{"tail -n 5000 big.txt", "tail -n 1 big.txt", "tail -c 70000 big.txt", "tail -n 29999 big.txt", "tail -n 0 big.txt",
		"tail -n 30001 big.txt", "tail -n 2 nonl.txt", "tail -z -n 2 big.txt", "tail -n 1 nonl.txt", "tail -n 3 nonl.txt"} {
		cases = append(cases, gnuCase{line: l, extra: map[string]string{"big.txt": big.String(), "nonl.txt": "a\nb\nc"}})
	}
	diffCases(t, cases)
}

func TestGNUWc(t *testing.T) {
	t.Parallel()
	cases := lines("hello world\nfoo\n",
		"wc a.txt", "wc -l a.txt", "wc -w a.txt", "wc -c a.txt", "wc -m utf8.txt", "wc -L utf8.txt", "wc -L tabs.txt",
		"wc", "wc -l", "wc -lw", "wc a.txt b.txt", "wc -l a.txt b.txt", "wc empty.txt", "wc nonl.txt",
		"wc missing.txt a.txt", "wc a.txt missing.txt", "wc -", "wc a.txt -", "wc -c bin.dat", "wc -w bin.dat", "wc -m bin.dat",
		"wc sub", "wc -lwmcL words.txt", "wc -L a.txt b.txt", "wc --lines a.txt", "wc -q",
	)
	diffCases(t, cases)
}

func TestGNUSort(t *testing.T) {
	t.Parallel()
	cases := lines("c\na\nb\na\n",
		"sort a.txt", "sort -r a.txt", "sort -n nums.txt", "sort -rn nums.txt", "sort -g nums.txt", "sort -h human.txt",
		"sort -rh human.txt", "sort -V vers.txt", "sort -u dup.txt", "sort -f dup.txt", "sort -fu dup.txt", "sort -k2 table.txt",
		"sort -k2,2n table.txt", "sort -k2,2nr table.txt", "sort -k2,2n -k1,1 table.txt", "sort -k3,3 -k2,2nr table.txt",
		"sort -s -k2,2n table.txt", "sort -t: -k3,3n colon.txt", "sort -t: -k3n colon.txt", "sort -t: -k2 -rn colon.txt",
		"sort -t : -k 5 colon.txt", "sort -k1.2,1.3 a.txt", "sort -k4g table.txt", "sort -b -k2 tabs.txt", "sort -k2b tabs.txt",
		"sort -d dup.txt", "sort -i bin.dat", "sort -z bin.dat", "sort -c a.txt", "sort -c unsorted.txt", "sort -C unsorted.txt",
		"sort -c c1.txt", "sort -cu dup.txt", "sort", "sort -", "sort -o out.txt a.txt", "sort -o a.txt a.txt", "sort missing.txt",
		"sort a.txt b.txt", "sort -m c1.txt c2.txt", "sort -k0 a.txt", "sort -k1.0 a.txt", "sort -t ab a.txt", "sort -gn a.txt",
		"sort -k 1,x a.txt", "sort -kx a.txt", "sort -k1z a.txt", "sort --sort=numeric nums.txt", "sort -nu nums.txt",
		"sort -n -k2 -t' ' table.txt", "sort -k2,2 -k4,4rg table.txt", "sort -M", "sort -k 2.2,2.2 table.txt", "sort -r -k1,1 -k2n table.txt",
		"sort -t, -k2 empty.txt", "sort nonl.txt b.txt", "sort -rs -k2,2 table.txt", "sort -uk2,2 table.txt", "sort -z -r a.txt",
		"sort -h nums.txt", "sort -V a.txt nums.txt", "sort -k1,1n -k1,1r nums.txt", "sort -bk1,1 tabs.txt", "sort crlf.txt",
		"sort -k1.3b,1.5 tabs.txt", "sort -t '\t' -k2 tabs.txt", "sort utf8.txt", "sort -f utf8.txt",
	)
	months := "jan 1\nFeb 2\n mar 3\nxyz 0\nDEC 12\nnov\n"
	cases = append(cases, gnuCase{line: "sort -M", stdin: months}, gnuCase{line: "sort -Mr", stdin: months}, gnuCase{line: "sort -k1,1M", stdin: months},
		gnuCase{line: "sort -n", stdin: "1.5\n1.50\n01.5\n-1.5\n.5\n-.5\n-0.0\n0\n-\n."}, gnuCase{line: "sort -g", stdin: "inf\n-inf\nnan\n1e-3\n0x1p3\n5\nfoo\n-nan\n"},
		gnuCase{line: "sort -h", stdin: "1.5K\n1K\n1023\n-2K\n-1M\n0K\n0\nK\n1k\n"})
	diffCases(t, cases)
}

func TestGNUUniq(t *testing.T) {
	t.Parallel()
	cases := lines("a\na\nb\n",
		"uniq dup.txt", "uniq -c dup.txt", "uniq -d dup.txt", "uniq -u dup.txt", "uniq -i dup.txt", "uniq -ic dup.txt",
		"uniq -D dup.txt", "uniq --all-repeated=separate dup.txt", "uniq --all-repeated=prepend dup.txt", "uniq -f 1 dup.txt",
		"uniq -f1 -c dup.txt", "uniq -s 1 dup.txt", "uniq -w 1 dup.txt", "uniq -w 3 -c dup.txt", "uniq -du dup.txt", "uniq",
		"uniq -c", "uniq missing.txt", "uniq dup.txt out.txt", "uniq -cD dup.txt", "uniq nonl.txt", "uniq -z bin.dat",
		"uniq a b c", "uniq -f x dup.txt", "uniq empty.txt", "uniq -c -f 2 table.txt", "uniq -d -c dup.txt", "uniq - out2.txt",
	)
	diffCases(t, cases)
}

func TestGNUCut(t *testing.T) {
	t.Parallel()
	cases := lines("a:b:c\nnodelim\nx::z\n",
		"cut -d: -f1 colon.txt", "cut -d: -f2-4 colon.txt", "cut -d: -f1,3 colon.txt", "cut -d: -f3- colon.txt", "cut -d: -f-2 colon.txt",
		"cut -c1 a.txt", "cut -c1-5 a.txt", "cut -c2- a.txt", "cut -b-3 a.txt", "cut -c 1,3,5 a.txt", "cut -d: -f2 -s", "cut -d: -f2",
		"cut -d: --complement -f2", "cut -c1-2,4-5 --output-delimiter=X a.txt", "cut -d: -f3,1 --output-delimiter=' | ' colon.txt",
		"cut -f2 tabs.txt", "cut -f1 -s tabs.txt", "cut -d' ' -f2 table.txt", "cut -c 3-1 a.txt", "cut -f 0 a.txt", "cut -f x a.txt",
		"cut -d ab -f1 a.txt", "cut -c1 -f1 a.txt", "cut -d: -c1 a.txt", "cut a.txt", "cut -c ,3 a.txt", "cut -c1-2,2-3 a.txt",
		"cut -c1-2,4-5 --complement --output-delimiter=X a.txt", "cut -d: -f1 missing.txt colon.txt", "cut -c3 utf8.txt", "cut -f1 -z bin.dat",
		"cut -d: -f5,6 colon.txt", "cut -d '' -f1 bin.dat", "cut -s -c1 a.txt", "cut -d: -f1- colon.txt", "cut -d: -f 2,2,1 colon.txt",
	)
	diffCases(t, cases)
}

func TestGNUTr(t *testing.T) {
	t.Parallel()
	in := "Hello World, abc xyz!\n\n\n  spaces   here\t\ttabs 123 z-a\n"
	cases := lines(in, "tr a-z A-Z", "tr A-Z a-z", "tr '[:lower:]' '[:upper:]'", "tr '[:upper:]' '[:lower:]'", "tr -d ' '", "tr -d '\\n'",
		"tr -s ' '", "tr -s '\\n'", "tr '\\t' ' '", "tr -d '[:digit:]'", "tr -cd '[:alnum:]'", "tr -cd '[:alnum:]\\n'", "tr -c 'a-z' '_'",
		"tr -c 'a-z\\n' '_'", "tr abc x", "tr -t abc x", "tr abc xyz", "tr a ''", "tr '[a*3]' x", "tr z-a x", "tr -d", "tr", "tr a b c",
		"tr -ds a", "tr -ds ' ' 'l'", "tr -s 'a-z' ", "tr '[:upper:]' '[:alpha:]'", "tr a '[:upper:]'", "tr '[:lower:]' '[:upper:]x'",
		"tr '[:foo:]' x", "tr '[=a=]' x", "tr 'a-' x", "tr '\\\\' x", "tr abc '[x*2]y'", "tr -c a '[x*]'", "tr '\\101-\\132' x",
		"tr -s '[:space:]'", "tr '[:space:]' '\\n'", "tr -s '[:blank:]' ' '", "tr -d '[:punct:]'", "tr lo 01", "tr -s lo 01",
		"tr 'a-c' '\\n'", "tr '[:alpha:]' '*'", "tr -d 'a-' ", "tr -C '[:print:]' '?'", "tr -d '\\0'", "tr '\\n' ' '",
		"tr -s '[:upper:]' '[:lower:]'", "tr -dc 'a-f0-9'", "tr xyz '[a*]'", "tr '[:digit:]' '[x*5]Y'", "tr -d -s a b c",
	)
	cases = append(cases, gnuCase{line: "tr -d '\\000'", stdin: "a\x00b\x00"}, gnuCase{line: "tr '\\200-\\377' X", stdin: "\xc3\xa9t\xe9\n"})
	diffCases(t, cases)
}

func TestGNUPasteCommJoin(t *testing.T) {
	t.Parallel()
	cases := lines("x\ny\n",
		"paste a.txt b.txt", "paste -d, a.txt b.txt", "paste -d,: a.txt b.txt c1.txt", "paste -s a.txt", "paste -sd, b.txt",
		"paste -s -d ',\\n' a.txt", "paste empty.txt b.txt", "paste -s empty.txt", "paste -s empty.txt b.txt", "paste - b.txt",
		"paste - -", "paste -d '' a.txt b.txt", "paste -d '\\0,' a.txt b.txt c1.txt", "paste -d 'ab\\' a.txt b.txt", "paste nonl.txt b.txt",
		"paste missing.txt", "paste -z bin.dat b.txt", "paste -d '\\t\\n' b.txt b.txt b.txt", "paste empty.txt empty.txt",
		"comm c1.txt c2.txt", "comm -1 c1.txt c2.txt", "comm -2 c1.txt c2.txt", "comm -3 c1.txt c2.txt", "comm -12 c1.txt c2.txt",
		"comm -23 c1.txt c2.txt", "comm unsorted.txt c1.txt", "comm --check-order unsorted.txt c1.txt", "comm --nocheck-order unsorted.txt c1.txt",
		"comm --total c1.txt c2.txt", "comm --output-delimiter=:: c1.txt c2.txt", "comm --output-delimiter= c1.txt c2.txt", "comm - c2.txt",
		"comm c1.txt", "comm c1.txt c1.txt", "comm -3 dup.txt c1.txt", "comm empty.txt c2.txt", "comm c1.txt missing.txt",
		"join j1.txt j2.txt", "join -a1 j1.txt j2.txt", "join -a2 j1.txt j2.txt", "join -a1 -a2 j1.txt j2.txt", "join -v1 j1.txt j2.txt",
		"join -v2 j1.txt j2.txt", "join -o 1.2,2.2,0 -e X -a2 j1.txt j2.txt", "join -o auto -e NA -a1 -a2 j1.txt j2.txt",
		"join unsorted.txt j2.txt", "join --check-order unsorted.txt j2.txt", "join -1 2 -2 1 j1.txt j2.txt", "join -j 1 j1.txt j2.txt",
		"join -o 0,1.1,2.3 -e ? -a1 j1.txt j2.txt", "join --header j1.txt j2.txt", "join -1 0 j1.txt j2.txt", "join j1.txt",
		"join -t: -j1 colon.txt colon.txt", "join -i dup.txt dup.txt", "join - j2.txt", "join -t, a.txt b.txt", "join -a3 j1.txt j2.txt",
		"join -o 3.1 j1.txt j2.txt", "join -v1 -v2 j1.txt j2.txt", "join --nocheck-order unsorted.txt j2.txt",
	)
	cases = append(cases, gnuCase{line: "join -t, -1 2 - c.csv", stdin: "x,1,a\ny,2,b\n"}, gnuCase{line: "join -t, -1 2 -o 1.1,2.2 - c.csv", stdin: "x,1,a\ny,2,b\n"})
	diffCases(t, cases)
}

func TestGNUSimpleTools(t *testing.T) {
	t.Parallel()
	sections := "a\n\nb\n\\:\\:\\:\nh\n\\:\\:\nbody\n\\:\nfoot\n"
	cases := lines(sections,
		"nl", "nl -ba", "nl -bt -nln", "nl -ba -nrz -w3 -s: a.txt", "nl -ba -v 5 -i 2 -n ln", "nl -bpa a.txt", "nl -b x a.txt",
		"nl -w 1 -s '' b.txt", "nl nonl.txt", "nl -p", "nl -ha -fa", "nl -d '' a.txt", "nl missing.txt", "nl -l 2 -ba",
		"tac a.txt", "tac nonl.txt", "tac -s , csv.txt", "tac -b -s , csv.txt", "tac a.txt b.txt", "tac", "tac missing.txt", "tac empty.txt",
		"rev a.txt", "rev utf8.txt", "rev nonl.txt", "rev", "rev missing.txt a.txt",
		"fold -w 5 words.txt", "fold -sw 10 words.txt", "fold -w 20 -s words.txt", "fold -b -w 7 utf8.txt", "fold -w 7 utf8.txt",
		"fold -w 4 tabs.txt", "fold -10 words.txt", "fold -w 0 a.txt", "fold", "fold -s -w 1 words.txt", "fold nonl.txt",
		"expand tabs.txt", "expand -t 4 tabs.txt", "expand -t 2,5,9 tabs.txt", "expand -i tabs.txt", "expand -4 tabs.txt",
		"expand -t 3,1 tabs.txt", "expand -t /4 tabs.txt", "expand -t 2,+3 tabs.txt", "expand -t 0 tabs.txt",
		"unexpand tabs.txt", "unexpand -a tabs.txt", "unexpand -t 4 tabs.txt", "unexpand --first-only -a tabs.txt",
		"column -t table.txt", "column -t -s : colon.txt", "column a.txt", "column -x a.txt", "column -c 30 a.txt", "column -t -o '|' table.txt",
		"column -t utf8.txt", "column", "column -t", "column -c 10 a.txt", "column -t -s ', ' c.csv", "column empty.txt", "column -t -R 2 table.txt",
		"seq 5", "seq 3 7", "seq 1 2 10", "seq 10 -3 1", "seq 0 0.1 1", "seq -w 1 10", "seq -w -5 3", "seq -s, 1 5", "seq -s ' ' 3",
		"seq -f %03g 3", "seq -f n=%e 1 2", "seq -f %x 1", "seq 5 1", "seq 1 0 3", "seq x", "seq 1.5 2.5", "seq -w 1 0.5 10",
		"seq -w 0.5 1.00", "seq 1e3 1e3 3e3", "seq 1 1 3 4", "seq", "seq -1", "seq -3 -1", "seq 0.5 0.25 1.5", "seq -f '%.2f' 0 0.5 2",
		"seq 100000000000000000000 100000000000000000002", "seq -w 8 11", "seq -f '%5.1f%%' 1 3",
		"tee", "tee out.txt", "tee -a b.txt", "tee o1.txt o2.txt", "tee sub/new.txt", "tee missing/x.txt", "tee sub",
	)
	cases = append(cases, gnuCase{line: "unexpand", stdin: "        hello\n    x       y\n  \t a\n         \n"}, gnuCase{line: "unexpand -a", stdin: "a       b   c        d\n"},
		gnuCase{line: "unexpand -t 4", stdin: "    hello   world\n"}, gnuCase{line: "column -t", stdin: "a  b\n\n   \nc d e f\n"}, gnuCase{line: "column -t -s ,", stdin: "a,,b\nccc,d,e\n"},
		gnuCase{line: "fold -w 3", stdin: "ab\bcdef\rghijk\n"})
	diffCases(t, cases)
}

func TestGNUXargs(t *testing.T) {
	t.Parallel()
	cases := []gnuCase{
		{line: "xargs", stdin: "a b\nc\n"}, {line: "xargs echo", stdin: "a b\nc\n"}, {line: "xargs -t echo", stdin: "a b\nc\n"}, {line: "xargs echo x", stdin: ""}, {line: "xargs -r echo x", stdin: ""},
		{line: "xargs -n1", stdin: "a 'b c' d\\ e\n"}, {line: "xargs", stdin: "a 'b\n"}, {line: "xargs", stdin: "a \"b\n"}, {line: "xargs -I{} echo [{}]", stdin: "  x y\n z\n"},
		{line: "xargs -L 1", stdin: "a b\nc d \ne\nf\n"}, {line: "xargs -L 2 -t echo", stdin: "a b\nc d \ne\nf\n"}, {line: "xargs -d, -n2", stdin: "a,b,c"}, {line: "xargs -0 -n1 echo", stdin: "a\x00b c\x00"},
		{line: "xargs -E STOP", stdin: "a b c STOP d\n"}, {line: "xargs -P 1 -n 1 echo", stdin: "q w\n"}, {line: "xargs -I {} -n 2 echo {}", stdin: "x\n"}, {line: "xargs -t echo", stdin: "a \"b c\"\n"},
		{line: "xargs -n 2 echo", stdin: "1 2 3 4 5\n"}, {line: "xargs -i echo <{}>", stdin: "a\nb\n"}, {line: "xargs -I % echo % %", stdin: "one\ntwo\n"}, {line: "xargs -a b.txt echo", stdin: ""},
		{line: "xargs -a missing.txt echo", stdin: ""}, {line: "xargs -n 0", stdin: "a"}, {line: "xargs -d '\\n' echo", stdin: "a b\nc\n"}, {line: "xargs -0", stdin: "a\nb\x00c"},
		{line: "xargs -n1 -r", stdin: "\n\n"}, {line: "xargs --max-args=2", stdin: "1 2 3\n"}, {line: "xargs -x -s 10 echo", stdin: "aaaaaaaaaaaaaaa\n"}, {line: "xargs cat", stdin: "a.txt b.txt\n"},
		{line: "xargs -I{} cat {}", stdin: "b.txt\nc1.txt\n"}, {line: "xargs wc -l", stdin: "a.txt b.txt"}, {line: "xargs -n1 head -n1", stdin: "a.txt b.txt"}, {line: "xargs -L1 echo", stdin: "a\n\nb\n"},
		{line: "xargs echo", stdin: "a\\\nb\n"}, {line: "xargs -0 echo", stdin: ""}, {line: "xargs -d x echo", stdin: "axbxc"},
	}
	diffCases(t, cases)
}

func TestGNUEncodings(t *testing.T) {
	t.Parallel()
	cases := lines("hello world\n",
		"base64 a.txt", "base64 -w 20 a.txt", "base64 -w0 b.txt", "base64 bin.dat", "base64", "base64 empty.txt", "base64 missing.txt",
		"base64 -d b64.txt", "base64 -d bad64.txt", "base64 -di bad64.txt", "base64 -d short64.txt", "base64 -w x a.txt", "base64 a.txt b.txt",
		"md5sum a.txt", "md5sum a.txt b.txt", "md5sum", "md5sum -", "md5sum missing.txt a.txt", "md5sum -b a.txt", "md5sum --tag a.txt",
		"sha1sum a.txt", "sha256sum a.txt b.txt", "sha512sum b.txt", "sha256sum -c sums.txt", "sha256sum -c --quiet sums.txt",
		"sha256sum -c --status sums.txt", "sha256sum -c badsums.txt", "sha256sum -c --quiet badsums.txt", "sha256sum -c --status badsums.txt",
		"sha256sum -c -w badsums.txt", "sha256sum -c --strict badsums.txt", "sha256sum -c a.txt", "sha256sum --quiet a.txt",
		"sha256sum -c --ignore-missing badsums.txt", "md5sum sub", "md5sum -z a.txt",
		"od a.txt", "od -c a.txt", "od -x b.txt", "od -A x -t x1 b.txt", "od -A n -c b.txt", "od -t x1 -t c b.txt", "od -v empty.txt",
		"od bin.dat", "od -v bin.dat", "od -c bin.dat", "od -t d1 -t u1 -t a bin.dat", "od -j 2 -N 3 -c b.txt", "od -t x4 b.txt",
		"od -A d -t o1 b.txt", "od -b b.txt", "od -d b.txt", "od -t x8 a.txt", "od -t d2 bin.dat", "od -w8 -t x1 a.txt", "od -t u4 bin.dat",
		"od -t a utf8.txt", "od -N 4 a.txt", "od -j 100 b.txt", "od -A q b.txt", "od -t y b.txt", "od missing.txt",
		"strings bin.dat", "strings -n 3 bin.dat", "strings -n 1 b.txt", "strings -t x bin.dat", "strings -t d bin.dat", "strings -a bin.dat",
		"strings sub", "strings missing.txt", "strings -3 bin.dat",
	)
	diffCases(t, cases)
}

func TestGNUSplit(t *testing.T) {
	t.Parallel()
	seq700 := ""
	for i := 1; i <= 700; i++ {
		seq700 += fmt.Sprintln(i)
	}
	cases := []gnuCase{
		{line: "split -l 2 a.txt", stdin: ""}, {line: "split -b 5 b.txt", stdin: ""}, {line: "split -n 2 a.txt", stdin: ""}, {line: "split -n l/2 a.txt", stdin: ""}, {line: "split -n r/3 a.txt", stdin: ""},
		{line: "split -d -a 3 -l 1 b.txt pre_", stdin: ""}, {line: "split -n 2/3 a.txt", stdin: ""}, {line: "split -l 0 a.txt", stdin: ""}, {line: "split -b 2 --additional-suffix=.txt b.txt", stdin: ""},
		{line: "split -l 1", stdin: seq700}, {line: "split missing.txt", stdin: ""}, {line: "split", stdin: ""}, {line: "split -l 3", stdin: "1\n2\n3\n4\n"}, {line: "split -C 10 a.txt", stdin: ""},
		{line: "split -n l/3 -d a.txt", stdin: ""}, {line: "split -n 20 b.txt", stdin: ""}, {line: "split -e -n 20 b.txt", stdin: ""}, {line: "split -a 1 -l 1 a.txt", stdin: ""},
		{line: "split -x -l 1 a.txt", stdin: ""}, {line: "split -b 1K a.txt", stdin: ""}, {line: "split -l 2 a.txt sub/part", stdin: ""}, {line: "split -3 b.txt", stdin: ""},
		{line: "split --numeric-suffixes=5 -l 5 a.txt", stdin: ""},
	}
	diffCases(t, cases)
}

func TestGNUDiff(t *testing.T) {
	t.Parallel()
	cases := lines("one\ntwo\nthree\n",
		"diff a.txt b.txt", "diff b.txt b.txt", "diff -q a.txt b.txt", "diff -s b.txt b.txt", "diff -s a.txt b.txt",
		"diff --label A --label B -u a.txt b.txt", "diff --label A --label B -c a.txt b.txt", "diff --label A --label B -U 1 c1.txt c2.txt",
		"diff c1.txt c2.txt", "diff nonl.txt b.txt", "diff --label x --label y -u nonl.txt a.txt", "diff - b.txt", "diff b.txt -",
		"diff missing.txt b.txt", "diff a.txt", "diff a b c", "diff bin.dat bin2.dat", "diff -a --label A --label B -u bin.dat bin2.dat",
		"diff da db", "diff -r da db", "diff -q da db", "diff -qr da db", "diff -rq da db", "diff -r -N da db", "diff -rs da db",
		"diff da/f db", "diff da/f db/f", "diff -i ws1.txt ws2.txt", "diff -w ws1.txt ws2.txt", "diff -b ws1.txt ws2.txt",
		"diff -B ws1.txt ws2.txt", "diff -wB ws1.txt ws2.txt", "diff -N missing.txt b.txt", "diff --brief a.txt b.txt",
		"diff -U x a.txt b.txt", "diff empty.txt b.txt", "diff b.txt empty.txt", "diff -u0 --label A --label B a.txt b.txt",
		"diff --normal c1.txt c2.txt", "diff -rN da/sub db/sub",
	)
	diffCases(t, cases)
}

// TestGNUFilesExist guards the differential tests against cases that only
// agree because both sides miss an input file.
func TestGNUFilesExist(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"c.csv", "csv.txt", "b64.txt", "bad64.txt", "short64.txt", "sums.txt", "badsums.txt",
		"da/f", "db/f", "bin2.dat", "ws1.txt", "ws2.txt"} {
		if _, ok := gnuFiles[name]; !ok {
			t.Errorf("gnuFiles lacks %s", name)
		}
	}
}

func TestGNUXargsEcho(t *testing.T) {
	t.Parallel()
	cases := []gnuCase{
		{line: "xargs echo -n", stdin: "a b\n"}, {line: "xargs echo -e", stdin: "'a\\tb' 'c\\\\nd'\n"}, {line: "xargs -0 echo -e", stdin: "x\\ty\\cz\x00q"},
		{line: "xargs echo -E", stdin: "a\\tb\n"}, {line: "xargs echo -ne", stdin: "'\\x41\\0101'\n"}, {line: "xargs echo -- -n", stdin: "a\n"},
		{line: "xargs echo -x", stdin: "a\n"},
	}
	diffCases(t, cases)
}
