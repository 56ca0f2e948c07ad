package gnuregex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/wsfs/wsfs/internal/testenv"
)

// The differential tests of each dialect: generated patterns and lines
// run through the engine and through the GNU tool that defines the
// dialect (grep, sed, gawk, find, expr), which must agree on what is a
// syntax error (and its message), on which lines match, and on where
// (grep -o, sed's & and \1, gawk's gsub). They skip without the tool
// and fail without it under CI=true.

// hostTool finds a GNU tool, or reports it missing.
func hostTool(t *testing.T, name, versionMark string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		out, _ := exec.Command(p, "--version").Output()
		if bytes.Contains(out, []byte(versionMark)) {
			return p
		}
	}
	testenv.Missing(t, "GNU "+name+", the reference for its regex dialect")
	return ""
}

// runTool runs a tool with a time limit; ok is false when it ran out of
// time (a pathological back-reference case GNU itself cannot finish).
func runTool(t *testing.T, dir string, env []string, name string, args ...string) (stdout, stderr string, code int, ok bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Args[0] = filepath.Base(name) // its messages name it so
	cmd.Dir = dir
	cmd.Env = append([]string{"LC_ALL=C.UTF-8"}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		return "", "", 0, false
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out.String(), errb.String(), code, true
}

// gen makes patterns and texts from pieces that exercise the dialects'
// operators and corner cases.
type gen struct {
	rnd    *rand.Rand
	pieces []string
}

var (
	breakPieces = []string{"a", "b", "c", "é", " ", ".", "*", "^", "$", "[", "]", "-", "\\", "1", ",", ":",
		"\\(", "\\)", "\\{", "\\}", "\\|", "\\+", "\\?", "\\1", "\\2", "\\w", "\\W", "\\s", "\\<", "\\>", "\\b",
		"\\B", "\\`", "\\'", "\\{1,2\\}", "\\{2\\}", "[ab]", "[^a]", "[[:alpha:]]", "[[:space:]]", "[a-c]",
		"\\(a\\)", "\\(b*\\)", "a*", "\\.", "\\*", "{", "}", "(", ")", "|", "+", "?", "[]a]", "[^]]", "[a-]",
		"[[:digit:][:upper:]]", "[[.-.]]", "[[=a=]]", "x"}
	erePieces = []string{"a", "b", "c", "é", " ", ".", "*", "+", "?", "^", "$", "[", "]", "-", "\\", "1", ",",
		"(", ")", "|", "{", "}", "{1,2}", "{2}", "{,1}", "(a)", "(b*)", "(a|b)", "()", "\\1", "\\w", "\\<", "\\>",
		"\\b", "\\B", "\\s", "\\.", "\\*", "\\(", "\\{", "[ab]", "[^a]", "[[:alpha:]]", "[[:space:]]", "[a-c]",
		"[]a]", "[^]]", "[a-]", "a*", "b+", "x"}
	textPieces = []string{"a", "b", "c", "é", " ", ".", "*", "-", "1", ",", ":", "(", ")", "{", "}", "[", "]",
		"\\", "|", "+", "?", "^", "$", "x", "aa", "ab", "ba", "abc"}
)

func (g *gen) pattern(maxPieces int) string {
	var b strings.Builder
	for n := 1 + g.rnd.Intn(maxPieces); n > 0; n-- {
		b.WriteString(g.pieces[g.rnd.Intn(len(g.pieces))])
	}
	return b.String()
}

func (g *gen) text() string {
	var b strings.Builder
	for n := g.rnd.Intn(7); n > 0; n-- {
		b.WriteString(textPieces[g.rnd.Intn(len(textPieces))])
	}
	return b.String()
}

func (g *gen) texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = g.text()
	}
	return out
}

// errMessage is the message a GNU tool printed for a bad pattern, without
// its "tool: " prefix (and sed's "-e expression #1, char N: ").
func errMessage(stderr string) string {
	line, _, _ := strings.Cut(stderr, "\n")
	for strings.Contains(line, ": warning: ") {
		_, stderr, _ = strings.Cut(stderr, "\n")
		line, _, _ = strings.Cut(stderr, "\n")
	}
	_, msg, _ := strings.Cut(line, ": ")
	if strings.HasPrefix(msg, "-e expression") {
		_, msg, _ = strings.Cut(msg, ": ")
	}
	return msg
}

// TestGrepDialectsMatchGNU compares BRE and ERE with GNU grep: syntax
// errors and warnings, the lines selected, and grep -o's matches.
func TestGrepDialectsMatchGNU(t *testing.T) {
	grep := hostTool(t, "grep", "GNU grep")
	dir := t.TempDir()
	for _, d := range []struct {
		name   string
		syn    Syntax
		flag   string
		pieces []string
	}{{"BRE", BRE, "-G", breakPieces}, {"ERE", ERE, "-E", erePieces}} {
		g := &gen{rnd: rand.New(rand.NewSource(seed(21))), pieces: d.pieces}
		agree := 0
		for n := 0; n < 250; n++ {
			pat, fold := g.pattern(5), g.rnd.Intn(5) == 0
			// GNU grep -i rewrites the pattern, and mangles a literal "{"
			// and escapes (grep -Ei '{|[[:alpha:]]{2}a' selects "abc",
			// grep -Eio '\x' prints nothing for "x"): not a dialect
			// question.
			fold = fold && !strings.ContainsAny(pat, "{\\")
			if grepSelfContradicts(d.syn, pat) {
				continue
			}
			lines := g.texts(12)
			if checkGrepCase(t, grep, dir, d.name, d.syn, d.flag, pat, fold, lines) {
				agree++
			}
		}
		t.Logf("%s: %d/250 generated patterns agree with GNU grep", d.name, agree)
	}
}

func checkGrepCase(t *testing.T, grep, dir, name string, syn Syntax, flag, pat string, fold bool, lines []string) bool {
	t.Helper()
	file := filepath.Join(dir, "in.txt")
	os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	args := []string{flag, "-n"}
	if fold {
		args = append(args, "-i")
	}
	selected, stderr, code, ok := runTool(t, dir, nil, grep, append(args, "-e", pat, file)...)
	if !ok {
		return true
	}
	p, err := Parse(pat, Options{Syntax: syn, IgnoreCase: fold, Lines: true, EOL: '\n'})
	if code == 2 {
		if err == nil || err.Error() != errMessage(stderr) {
			t.Errorf("%s %q (fold %v): GNU grep fails with %q, we give %v", name, pat, fold, stderr, err)
			return false
		}
		return true
	}
	if err != nil {
		t.Errorf("%s %q (fold %v): GNU grep accepts it, we fail with %v", name, pat, fold, err)
		return false
	}
	var warnings []string
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if w, ok := strings.CutPrefix(l, "grep: warning: "); ok {
			warnings = append(warnings, w)
		}
	}
	if !slices.Equal(warnings, p.Warnings()) {
		t.Errorf("%s %q: GNU grep warns %q, we warn %q", name, pat, warnings, p.Warnings())
	}
	re, err := p.Compile()
	if err != nil {
		t.Fatal(err)
	}
	// grep -n prints the selected lines; grep -o -b -n each non-empty
	// match as "line:offset:text".
	var gotSel, gotO []string
	offset := 0
	for i, l := range lines {
		ms, err := re.FindAll(context.Background(), []byte(l), -1, false)
		if err != nil {
			t.Fatalf("%s %q on %q: %v", name, pat, l, err)
		}
		if len(ms) > 0 {
			gotSel = append(gotSel, fmt.Sprintf("%d:%s", i+1, l))
		}
		for _, m := range ms {
			if m[1] > m[0] {
				gotO = append(gotO, fmt.Sprintf("%d:%d:%s", i+1, offset+m[0], l[m[0]:m[1]]))
			}
		}
		offset += len(l) + 1
	}
	if want := nonEmptyLines(selected); !slices.Equal(gotSel, want) {
		t.Errorf("%s %q (fold %v) on %q:\n GNU grep selects %q\n we select       %q", name, pat, fold, lines, want, gotSel)
		return false
	}
	if len(p.Warnings()) > 0 || walkAny(p.root, func(n *node) bool { return n.op == opRepeat && isAnchor(n.subs[0]) }) ||
		strings.ContainsAny(pat, "{") && grepReadsDiffer(syn, pat) {
		// GNU grep's -o asks glibc's regex for the matches, which reads a
		// dropped leading repetition and a repeated anchor differently
		// from grep's dfa.c: its -o output disagrees with its own line
		// selection there.
		return true
	}
	out, _, _, _ := runTool(t, dir, nil, grep, append(args, "-o", "-b", "-e", pat, file)...)
	if want := nonEmptyLines(out); !slices.Equal(gotO, want) {
		t.Errorf("%s %q (fold %v) on %q:\n GNU grep -o: %q\n ours:        %q", name, pat, fold, lines, want, gotO)
		return false
	}
	return true
}

// grepSelfContradicts reports patterns where GNU grep's two engines,
// dfa.c (which selects lines) and glibc's regex (which confirms them when
// dfa.c cannot decide alone), read the pattern differently and grep
// answers with both readings at once: a "{" opening a branch (grep -E
// '{|[[:alpha:]]{2}a' selects "a"), a pattern glibc confirms whose two
// readings differ (grep -E '[ab]${\>' selects nothing where either
// reading alone would), and back-references to repeated groups that
// matched empty, which glibc never matches ('\(c*\)\{2\}b\1' on "b").
func grepSelfContradicts(syn Syntax, pat string) bool {
	if syn == ERE && (strings.HasPrefix(pat, "{") || strings.Contains(pat, "|{") || strings.Contains(pat, "({")) {
		return true
	}
	opts := Options{Syntax: syn, Lines: true, EOL: '\n'}
	dfa, err1 := parse(toRunes(pat), opts, false)
	glibc, err2 := parse(toRunes(pat), opts, true)
	if err1 == nil && err2 == nil && dfa.needsGlibc() && dfa.root.String() != glibc.root.String() {
		return true
	}
	backref := strings.Contains(pat, `\1`) || strings.Contains(pat, `\2`)
	return backref && (strings.Contains(pat, "()") || strings.Contains(pat, `\(\)`) ||
		strings.Contains(pat, "){") || strings.Contains(pat, `\)\{`))
}

// grepReadsDiffer reports a pattern dfa.c and glibc read differently:
// grep -o asks glibc for the matches of lines dfa.c selected.
func grepReadsDiffer(syn Syntax, pat string) bool {
	opts := Options{Syntax: syn, Lines: true, EOL: '\n'}
	dfa, err1 := parse(toRunes(pat), opts, false)
	glibc, err2 := parse(toRunes(pat), opts, true)
	return err1 == nil && err2 == nil && dfa.root.String() != glibc.root.String()
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// TestSedDialectsMatchGNU compares SedBRE and SedERE with GNU sed: the
// syntax errors, and s/PATTERN/[&|\1]/g on each line (which also checks
// the leftmost-longest rule and the submatches).
func TestSedDialectsMatchGNU(t *testing.T) {
	sed := hostTool(t, "sed", "GNU sed")
	dir := t.TempDir()
	for _, d := range []struct {
		name   string
		syn    Syntax
		flags  []string
		pieces []string
	}{{"SedBRE", SedBRE, nil, breakPieces}, {"SedERE", SedERE, []string{"-E"}, erePieces}} {
		g := &gen{rnd: rand.New(rand.NewSource(seed(4))), pieces: d.pieces}
		agree := 0
		for n := 0; n < 250; n++ {
			pat, fold := g.pattern(5), g.rnd.Intn(5) == 0
			if checkSedCase(t, sed, dir, d.name, d.syn, d.flags, pat, fold, g.texts(12)) {
				agree++
			}
		}
		t.Logf("%s: %d/250 generated patterns agree with GNU sed", d.name, agree)
	}
}

func checkSedCase(t *testing.T, sed, dir, name string, syn Syntax, flags []string, pat string, fold bool, lines []string) bool {
	t.Helper()
	if pat == "" {
		return true // sed's empty regex is the last one used
	}
	for _, esc := range []string{`\a`, `\c`, `\d`, `\f`, `\n`, `\o`, `\r`, `\t`, `\v`, `\x`} {
		if strings.Contains(pat, esc) {
			return true // sed turns these into characters before glibc sees them (sed's tests)
		}
	}
	p, perr := Parse(pat, Options{Syntax: syn, IgnoreCase: fold})
	repl := "[&]"
	if perr == nil && p.Groups() > 0 {
		repl = `[&|\1]`
	}
	script := "s\x01" + pat + "\x01" + repl + "\x01g"
	if fold {
		script += "I"
	}
	file := filepath.Join(dir, "in.txt")
	os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	out, stderr, code, ok := runTool(t, dir, nil, sed, append(flags, script, file)...)
	if !ok {
		return true
	}
	if strings.Contains(stderr, "unterminated `s' command") {
		return true // a "[" or a final "\\" took the delimiter: sed's parsing, not the regex's
	}
	if code != 0 {
		if perr == nil || perr.Error() != errMessage(stderr) {
			t.Errorf("%s %q: GNU sed fails with %q, we give %v", name, pat, stderr, perr)
			return false
		}
		return true
	}
	if perr != nil {
		t.Errorf("%s %q: GNU sed accepts it, we fail with %v", name, pat, perr)
		return false
	}
	re, err := p.Compile()
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, l := range lines {
		ms, err := re.FindAll(context.Background(), []byte(l), -1, true)
		if err != nil {
			t.Fatalf("%s %q on %q: %v", name, pat, l, err)
		}
		last := 0
		for _, m := range ms {
			got.WriteString(l[last:m[0]] + "[" + l[m[0]:m[1]])
			if len(m) > 2 {
				got.WriteString("|")
				if m[2] >= 0 {
					got.WriteString(l[m[2]:m[3]])
				}
			}
			got.WriteString("]")
			last = m[1]
		}
		got.WriteString(l[last:] + "\n")
	}
	if got.String() != out && withoutEmptyMatches(got.String()) != withoutEmptyMatches(out) {
		if withoutSubmatches(got.String()) == withoutSubmatches(out) {
			// The same matches, another choice of \1 among equally long
			// ones: ours is POSIX's (the leftmost group takes the longest),
			// where glibc sometimes departs from it ('\(b*\)\b[a-c]\?'
			// on "b": GNU sets \1 to "").
			t.Logf("%s %q on %q: submatch differs (POSIX's rule vs glibc's):\n GNU sed: %q\n ours:    %q", name, pat, lines, out, got.String())
			return true
		}
		t.Errorf("%s %q (fold %v) on %q:\n GNU sed: %q\n ours:    %q", name, pat, fold, lines, out, got.String())
		return false
	}
	return true
}

// withoutSubmatches drops "|\1" from the markers "[&|\1]".
func withoutSubmatches(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '|' && !in:
			in = true
		case r == ']' && in:
			in = false
			b.WriteRune(r)
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// withoutEmptyMatches drops the markers of empty matches: GNU sed also
// tries an empty match between the bytes of a UTF-8 character ("\xc3[]\xa9"
// for é), which nothing else does.
func withoutEmptyMatches(s string) string {
	return strings.NewReplacer("[]", "", "[|]", "").Replace(s)
}

// TestAwkDialectMatchesGNU compares AWK with gawk: its syntax errors, and
// gsub(RE, "[&]") on each line, the regex given as a dynamic string.
func TestAwkDialectMatchesGNU(t *testing.T) {
	gawk := hostTool(t, "gawk", "GNU Awk")
	dir := t.TempDir()
	pieces := append(slices.Clone(erePieces), "\\y", "\\t", "\\/", "\\101", "[\\]]", "[\\t ]", "\\n")
	g := &gen{rnd: rand.New(rand.NewSource(seed(7))), pieces: pieces}
	agree := 0
	for n := 0; n < 250; n++ {
		if checkAwkCase(t, gawk, dir, g.pattern(5), g.texts(12)) {
			agree++
		}
	}
	t.Logf("AWK: %d/250 generated patterns agree with gawk", agree)
}

func checkAwkCase(t *testing.T, gawk, dir, pat string, lines []string) bool {
	t.Helper()
	file := filepath.Join(dir, "in.txt")
	os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	out, stderr, code, ok := runTool(t, dir, []string{"RE=" + pat}, gawk,
		`{ n = gsub(ENVIRON["RE"], "[&]"); print n ":" $0 }`, file)
	if !ok {
		return true
	}
	re, err := Compile(pat, Options{Syntax: AWK})
	if code != 0 || strings.Contains(stderr, "fatal") {
		if err == nil {
			t.Errorf("AWK %q: gawk fails with %q, we accept it", pat, stderr)
			return false
		}
		return true
	}
	if err != nil {
		t.Errorf("AWK %q: gawk accepts it, we fail with %v", pat, err)
		return false
	}
	var got strings.Builder
	for _, l := range lines {
		ms, err := re.FindAll(context.Background(), []byte(l), -1, false)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		last := 0
		for _, m := range ms {
			b.WriteString(l[last:m[0]] + "[" + l[m[0]:m[1]] + "]")
			last = m[1]
		}
		b.WriteString(l[last:])
		got.WriteString(strconv.Itoa(len(ms)) + ":" + b.String() + "\n")
	}
	if !sameGsub(got.String(), out) {
		t.Errorf("AWK %q on %q:\n gawk: %q\n ours: %q", pat, lines, out, got.String())
		return false
	}
	return true
}

// sameGsub compares "count:result" lines of gsub; like GNU sed, gawk
// also tries an empty match between the bytes of a UTF-8 character,
// which changes the count and the markers of such a line only.
func sameGsub(ours, gawk string) bool {
	a, b := strings.Split(ours, "\n"), strings.Split(gawk, "\n")
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		_, ra, _ := strings.Cut(a[i], ":")
		_, rb, _ := strings.Cut(b[i], ":")
		if isASCIIString(ra) || withoutEmptyMatches(ra) != withoutEmptyMatches(rb) {
			return false
		}
	}
	return true
}

// TestFindDialectsMatchGNU compares find's -regextype types with GNU
// find: which of a folder's file names -regex selects (the whole path
// must match), and the syntax errors.
func TestFindDialectsMatchGNU(t *testing.T) {
	find := hostTool(t, "find", "GNU findutils")
	dir := t.TempDir()
	g := &gen{rnd: rand.New(rand.NewSource(seed(9)))}
	names := map[string]bool{}
	for len(names) < 40 {
		n := strings.ReplaceAll(g.text(), "/", "")
		if n != "" && n != "." && n != ".." {
			names[n] = true
		}
	}
	for n := range names {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	var paths []string
	for n := range names {
		paths = append(paths, "./"+n)
	}
	paths = append(paths, ".")
	slices.Sort(paths)
	for _, typ := range FindSyntaxNames() {
		syn, _ := FindSyntax(typ)
		g.pieces = breakPieces
		if syn.has(synNoBkParens) {
			g.pieces = erePieces
		}
		agree := 0
		for n := 0; n < 60; n++ {
			pat := ".*" + g.pattern(4)
			out, stderr, code, ok := runTool(t, dir, nil, find, ".", "-regextype", typ, "-regex", pat, "-print0")
			if !ok {
				continue
			}
			p, err := Parse(pat, Options{Syntax: syn})
			if code != 0 {
				want := strings.TrimPrefix(stderr, "find: failed to compile regular expression '"+pat+"': ")
				if err == nil || err.Error()+"\n" != want {
					t.Errorf("find -regextype %s %q: GNU find fails with %q, we give %v", typ, pat, stderr, err)
				} else {
					agree++
				}
				continue
			}
			if err != nil {
				t.Errorf("find -regextype %s %q: GNU find accepts it, we fail with %v", typ, pat, err)
				continue
			}
			re, err := p.Whole().Compile()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, path := range paths {
				if ok, _ := re.MatchString(context.Background(), path); ok {
					got = append(got, path)
				}
			}
			want := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
			if out == "" {
				want = nil
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("find -regextype %s %q: GNU find selects %q, we select %q", typ, pat, want, got)
				continue
			}
			agree++
		}
		t.Logf("find -regextype %s: %d/60 generated patterns agree with GNU find", typ, agree)
	}
}

// TestExprDialectMatchesGNU compares Expr with GNU expr's STRING : REGEX,
// which anchors the match at the start and prints its length or \1.
func TestExprDialectMatchesGNU(t *testing.T) {
	expr := hostTool(t, "expr", "GNU coreutils")
	g := &gen{rnd: rand.New(rand.NewSource(seed(3))), pieces: breakPieces}
	agree := 0
	for n := 0; n < 120; n++ {
		pat, text := g.pattern(4), g.text()
		out, stderr, code, ok := runTool(t, "", nil, expr, text, ":", pat)
		if !ok {
			continue
		}
		if strings.HasPrefix(stderr, "expr: syntax error") {
			continue // the pattern is one of expr's own operators, such as "("
		}
		p, err := Parse(pat, Options{Syntax: Expr})
		if code >= 2 {
			if err == nil || err.Error() != errMessage(stderr) {
				t.Errorf("expr %q : %q: GNU expr fails with %q, we give %v", text, pat, stderr, err)
				continue
			}
			agree++
			continue
		}
		if err != nil {
			t.Errorf("expr %q : %q: GNU expr accepts it, we fail with %v", text, pat, err)
			continue
		}
		anchored := *p
		anchored.root = &node{op: opConcat, subs: []*node{{op: opBufStart}, p.root}}
		re, err := anchored.Compile()
		if err != nil {
			t.Fatal(err)
		}
		ms, err := re.FindAll(context.Background(), []byte(text), 1, true)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		switch {
		case p.Groups() > 0 && len(ms) == 1 && ms[0][2] >= 0:
			got = text[ms[0][2]:ms[0][3]]
		case p.Groups() > 0:
			got = ""
		case len(ms) == 1:
			got = strconv.Itoa(len([]rune(text[:ms[0][1]])))
		default:
			got = "0"
		}
		if got+"\n" != out {
			t.Errorf("expr %q : %q: GNU expr says %q, ours %q", text, pat, out, got+"\n")
			continue
		}
		agree++
	}
	t.Logf("Expr: %d/120 generated cases agree with GNU expr", agree)
}

// seed is the generators' seed: fixed, so a run is repeatable, unless
// GNUREGEX_SEED asks for others (to explore: GNUREGEX_SEED=N go test).
func seed(fixed int64) int64 {
	if n, err := strconv.ParseInt(os.Getenv("GNUREGEX_SEED"), 10, 64); err == nil {
		return n
	}
	return fixed
}

// FuzzDialects runs the differential checks on patterns and lines the
// fuzzer makes (go test -fuzz FuzzDialects ./runner/internal/gnuregex);
// dialect picks grep -G, grep -E, sed, sed -E or gawk.
func FuzzDialects(f *testing.F) {
	for i, p := range append(append([]string{}, breakPieces...), erePieces...) {
		f.Add(uint8(i), p+"*", "aab\nx "+p+"\né.b")
	}
	f.Fuzz(func(t *testing.T, dialect uint8, pat, text string) {
		// No NUL in lines (grep would call the file binary) nor invalid
		// UTF-8 (the tools split it in their own ways).
		if !utf8.ValidString(pat) || !utf8.ValidString(text) || strings.ContainsAny(pat, "\x00\x01\n") ||
			strings.ContainsRune(text, 0) || len(pat) > 40 || len(text) > 200 {
			return
		}
		lines := strings.Split(text, "\n")
		dir := t.TempDir()
		switch dialect % 5 {
		case 0, 1:
			grep := hostTool(t, "grep", "GNU grep")
			syn, flag := BRE, "-G"
			if dialect%5 == 1 {
				syn, flag = ERE, "-E"
			}
			if !grepSelfContradicts(syn, pat) {
				checkGrepCase(t, grep, dir, flag, syn, flag, pat, false, lines)
			}
		case 2, 3:
			sed := hostTool(t, "sed", "GNU sed")
			syn, flags := SedBRE, []string(nil)
			if dialect%5 == 3 {
				syn, flags = SedERE, []string{"-E"}
			}
			checkSedCase(t, sed, dir, "sed", syn, flags, pat, false, lines)
		case 4:
			checkAwkCase(t, hostTool(t, "gawk", "GNU Awk"), dir, pat, lines)
		}
	})
}

// TestClassesAreGlibcs compares the named classes with GNU grep's, that
// is glibc's C.UTF-8, on the code points of the scripts and symbols whose
// classes no recent Unicode version changed (Latin to Arabic, general
// punctuation to miscellaneous symbols).
func TestClassesAreGlibcs(t *testing.T) {
	grep := hostTool(t, "grep", "GNU grep")
	dir := t.TempDir()
	var text strings.Builder
	var runes []rune
	for _, span := range [][2]rune{{1, 0x7ff}, {0x2000, 0x2bff}} {
		for r := span[0]; r <= span[1]; r++ {
			if r == '\n' || (0xd800 <= r && r <= 0xdfff) {
				continue
			}
			runes = append(runes, r)
			text.WriteString(string(r) + "\n")
		}
	}
	file := filepath.Join(dir, "runes.txt")
	os.WriteFile(file, []byte(text.String()), 0o644)
	for name := range classNames {
		out, _, _, ok := runTool(t, dir, nil, grep, "-n", "[[:"+name+":]]", file)
		if !ok {
			t.Fatalf("grep [[:%s:]] ran out of time", name)
		}
		in := map[int]bool{}
		for _, l := range nonEmptyLines(out) {
			n, _, _ := strings.Cut(l, ":")
			i, _ := strconv.Atoi(n)
			in[i-1] = true
		}
		set := classSets()[name]
		var wrong []string
		for i, r := range runes {
			if set.has(r) != in[i] {
				wrong = append(wrong, fmt.Sprintf("%U (glibc %v)", r, in[i]))
			}
		}
		if len(wrong) > 0 {
			t.Errorf("[[:%s:]] differs from glibc's on %d characters: %s", name, len(wrong), strings.Join(wrong[:min(len(wrong), 10)], ", "))
		}
	}
}
