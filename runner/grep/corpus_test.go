package grep

import (
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// patternGen writes random patterns from a small grammar, in BRE or ERE
// spelling, over the alphabet of the random inputs.
type patternGen struct {
	rnd    *rand.Rand
	ere    bool
	groups int
}

const corpusAlphabet = "abcAB x._-"

func (g *patternGen) alt(depth int) string {
	s := g.concat(depth)
	if depth < 2 && g.rnd.Intn(5) == 0 {
		if g.ere {
			return s + "|" + g.concat(depth)
		}
		return s + `\|` + g.concat(depth)
	}
	return s
}

func (g *patternGen) concat(depth int) string {
	var b strings.Builder
	if g.rnd.Intn(8) == 0 {
		b.WriteString("^")
	}
	n := 1 + g.rnd.Intn(3)
	for i := 0; i < n; i++ {
		b.WriteString(g.repeat(depth))
	}
	if g.rnd.Intn(8) == 0 {
		b.WriteString("$")
	}
	return b.String()
}

func (g *patternGen) repeat(depth int) string {
	a := g.atom(depth)
	if strings.HasPrefix(a, `\`) && strings.Contains(`<>bB`, a[1:]) {
		// GNU reads a repetition right after an anchor erratically
		// (documented as a difference); the corpus leaves it out.
		return a
	}
	switch g.rnd.Intn(8) {
	case 0:
		return a + "*"
	case 1:
		if g.ere {
			return a + "+"
		}
		return a + `\+`
	case 2:
		if g.ere {
			return a + "?"
		}
		return a + `\?`
	case 3:
		lo := g.rnd.Intn(3)
		hi := lo + g.rnd.Intn(3)
		iv := strconv.Itoa(lo) + "," + strconv.Itoa(hi)
		if g.ere {
			return a + "{" + iv + "}"
		}
		return a + `\{` + iv + `\}`
	}
	return a
}

func (g *patternGen) atom(depth int) string {
	switch k := g.rnd.Intn(20); {
	case k < 8:
		c := corpusAlphabet[g.rnd.Intn(len(corpusAlphabet))]
		if c == '.' && g.rnd.Intn(2) == 0 {
			return `\.`
		}
		return string(c)
	case k < 10:
		return "."
	case k == 10:
		return "[ab]"
	case k == 11:
		return "[^a ]"
	case k == 12:
		return []string{"[[:alpha:]]", "[[:upper:]]", "[[:space:]]", "[[:punct:]]"}[g.rnd.Intn(4)]
	case k == 13:
		return []string{`\w`, `\W`, `\s`, `\S`}[g.rnd.Intn(4)]
	case k == 14:
		return []string{`\<`, `\>`, `\b`, `\B`}[g.rnd.Intn(4)]
	case k == 15 && g.groups > 0:
		return `\` + strconv.Itoa(1+g.rnd.Intn(g.groups))
	case k >= 16 && depth < 2:
		inner := g.alt(depth + 1)
		g.groups++
		if g.groups > 9 {
			g.groups = 9
		}
		if g.ere {
			return "(" + inner + ")"
		}
		return `\(` + inner + `\)`
	}
	return "a"
}

func randomInput(rnd *rand.Rand) string {
	var b strings.Builder
	lines := 1 + rnd.Intn(7)
	for i := 0; i < lines; i++ {
		n := rnd.Intn(12)
		for j := 0; j < n; j++ {
			b.WriteByte(corpusAlphabet[rnd.Intn(len(corpusAlphabet))])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// corpusFlags are the option sets the generated cases draw from.
var corpusFlags = [][]string{
	nil, {"-o"}, {"-c"}, {"-w"}, {"-x"}, {"-i"}, {"-v"}, {"-n"}, {"-on"}, {"-ow"}, {"-oi"}, {"-wi"}, {"-vc"},
	{"-ob"}, {"-iw", "-o"}, {"-x", "-i"},
}

// gnuQuirks are generated cases where GNU grep 3.8 itself is
// inconsistent; we keep the straightforward reading (see the package doc).
var gnuQuirks = map[string]string{
	// \b inside a repeated group: GNU's -o returns "aaA " although no
	// reading of the pattern matches 4 characters there.
	`(x$|.(\b[ab])*){1,2}.`: "GNU -o boundary bug",
	// The first alternative can match empty, so every line matches; GNU's
	// DFA selects only two lines.
	`\(^\(aa\?\b$\)c\?\)\?\(\( \?\)\)\|\(^.\([[:upper:]]\s\+\)\?_\{0,1\}\|^\(\W\)\?\<\)\+`: "GNU DFA bug",
	// An empty iteration of a group holding \> : glibc does not let it set
	// the group for \1 (it does for (.?)* with \2), so no line matches.
	`\([[:punct:]]\?\>\)*\1`: "GNU anchor-in-group back-reference quirk",
}

func TestGNUDifferentialGeneratedCorpus(t *testing.T) {
	gnu := gnuGrep(t)
	sb := commandtest.New(t)
	seed := int64(20261130)
	if v := os.Getenv("GREP_CORPUS_SEED"); v != "" {
		// Exploring other seeds finds new cases to add to the hand-written set.
		seed, _ = strconv.ParseInt(v, 10, 64)
	}
	rnd := rand.New(rand.NewSource(seed))
	const n = 600
	pass, quirks := 0, 0
	for i := 0; i < n; i++ {
		g := &patternGen{rnd: rnd, ere: i%2 == 1}
		pat := g.alt(0)
		args := []string{"grep"}
		if g.ere {
			args = append(args, "-E")
		}
		args = append(args, corpusFlags[rnd.Intn(len(corpusFlags))]...)
		args = append(args, "-e", pat)
		input := randomInput(rnd)
		want := runGNU(t, gnu, sb.Workspace, input, args)
		got := runOurs(sb, Grep, input, args)
		if sameClass(want, got) {
			pass++
			continue
		}
		if reason, ok := gnuQuirks[pat]; ok {
			quirks++
			t.Logf("known GNU quirk (%s): %q", reason, args)
			continue
		}
		t.Errorf("%q on %q\nGNU:  code %d stdout %q stderr %q\nours: code %d stdout %q stderr %q",
			args, input, want.code, want.stdout, want.stderr, got.code, got.stdout, got.stderr)
	}
	t.Logf("generated corpus: %d/%d same as GNU grep, %d known GNU quirks", pass, n, quirks)
}

// TestGNUDifferentialGeneratedFlags draws random option sets (context,
// counts, listing, limits, several patterns) over two random files, to
// exercise the output logic rather than the regexps.
func TestGNUDifferentialGeneratedFlags(t *testing.T) {
	gnu := gnuGrep(t)
	sb := commandtest.New(t)
	seed := int64(42)
	if v := os.Getenv("GREP_CORPUS_SEED"); v != "" {
		seed, _ = strconv.ParseInt(v, 10, 64)
	}
	rnd := rand.New(rand.NewSource(seed))
	words := []string{"ab", "b", "x", "a.", `a\|x`, "^a", "b$", "A", "[[:upper:]]", ""}
	flags := []string{"-n", "-b", "-c", "-v", "-o", "-l", "-L", "-h", "-H", "-i", "-w", "-x", "-q", "-s", "-Z",
		"-m1", "-m2", "-A1", "-B1", "-C1", "-A2", "-B3", "-2", "-T"}
	const n = 400
	pass := 0
	for i := 0; i < n; i++ {
		files := map[string]string{"f1": randomInput(rnd) + randomInput(rnd), "f2": randomInput(rnd)}
		sb.WriteFiles(t, files)
		args := []string{"grep"}
		for k := rnd.Intn(4); k > 0; k-- {
			args = append(args, flags[rnd.Intn(len(flags))])
		}
		for k := 1 + rnd.Intn(2); k > 0; k-- {
			args = append(args, "-e", words[rnd.Intn(len(words))])
		}
		args = append(args, "f1")
		if rnd.Intn(2) == 0 {
			args = append(args, "f2")
		}
		want := runGNU(t, gnu, sb.Workspace, "", args)
		got := runOurs(sb, Grep, "", args)
		if sameClass(want, got) {
			pass++
			continue
		}
		t.Errorf("%q on %q\nGNU:  code %d stdout %q stderr %q\nours: code %d stdout %q stderr %q",
			args, files, want.code, want.stdout, want.stderr, got.code, got.stdout, got.stderr)
	}
	t.Logf("generated option sets: %d/%d same as GNU grep", pass, n)
}
