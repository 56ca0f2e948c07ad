package sed

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// regexGen builds random GNU regular expressions (BRE or ERE) to check
// the translation to Go regexp and the backtracking matcher.
type regexGen struct {
	r   *rand.Rand
	ere bool
}

func (g *regexGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *regexGen) atom(depth int) string {
	switch n := g.r.IntN(12); {
	case n < 4:
		return g.pick("a", "b", "c", "é", " ")
	case n == 4:
		return "."
	case n == 5:
		return g.pick("[ab]", "[^a]", "[a-c]", "[[:alpha:]]", "[[:space:]b]", "[]a]", "[^]b]")
	case n == 6 && depth < 3:
		if g.ere {
			return "(" + g.alt(depth+1) + ")"
		}
		return "\\(" + g.alt(depth+1) + "\\)"
	case n == 7:
		return g.pick("\\w", "\\W", "\\s", "\\b", "\\B", "\\<", "\\>", "^", "$")
	case n == 8 && g.r.IntN(3) == 0:
		return g.pick("\\1", "\\2")
	}
	return g.pick("a", "b")
}

func (g *regexGen) piece(depth int) string {
	a := g.atom(depth)
	switch g.r.IntN(8) {
	case 0:
		return a + "*"
	case 1:
		if g.ere {
			return a + "+"
		}
		return a + "\\+"
	case 2:
		if g.ere {
			return a + "?"
		}
		return a + "\\?"
	case 3:
		n := g.pick("{2}", "{1,2}", "{0,}", "{,2}")
		if !g.ere {
			n = strings.ReplaceAll(strings.ReplaceAll(n, "{", "\\{"), "}", "\\}")
		}
		return a + n
	}
	return a
}

func (g *regexGen) concat(depth int) string {
	var b strings.Builder
	for i := 1 + g.r.IntN(3); i > 0; i-- {
		b.WriteString(g.piece(depth))
	}
	return b.String()
}

func (g *regexGen) alt(depth int) string {
	s := g.concat(depth)
	if g.r.IntN(4) == 0 {
		if g.ere {
			s += "|" + g.concat(depth)
		} else {
			s += "\\|" + g.concat(depth)
		}
	}
	return s
}

func (g *regexGen) text() string {
	var b strings.Builder
	for i := g.r.IntN(9); i > 0; i-- {
		b.WriteString(g.pick("a", "b", "c", "a", "b", " ", "é", "ab", "\x80"))
	}
	return b.String()
}

// TestGNURegexCorpus compares random regular expressions: where they
// match, what the groups hold, and the syntax errors.
func TestGNURegexCorpus(t *testing.T) {
	t.Parallel()
	sedPath := gnuSed(t)
	n := 300
	if testing.Short() {
		n = 150
	}
	g := &regexGen{r: rand.New(rand.NewPCG(7, 2026))}
	cases := make([]sedCase, n)
	for i := range cases {
		g.ere = g.r.IntN(3) == 0
		re := g.alt(0)
		var args []string
		if g.ere {
			args = append(args, "-E")
		}
		flags := g.pick("g", "", "2", "gI", "I")
		repl := "[&]"
		if strings.Contains(re, "(") {
			repl = "[&|\\1]"
		}
		args = append(args, "s/"+re+"/"+repl+"/"+flags)
		var in strings.Builder
		for j := 1 + g.r.IntN(4); j > 0; j-- {
			in.WriteString(g.text() + "\n")
		}
		cases[i] = sedCase{args: args, stdin: in.String()}
	}
	results := runGNUAll(t, sedPath, cases)
	pass, fail, splits, errs := 0, 0, 0, 0
	for i, c := range cases {
		gnu := results[i]
		if gnu.code == -1 {
			continue
		}
		if gnu.code != 0 {
			errs++
		}
		ours := runOurs(t, c)
		if d := compare(gnu, ours); len(d) > 0 {
			if byteStepping(t, sedPath, c) {
				splits++
				continue
			}
			fail++
			if fail <= 30 {
				t.Errorf("sed %q stdin %q:\n  %s", c.args, c.stdin, strings.Join(d, "\n  "))
			}
			continue
		}
		pass++
	}
	t.Logf("regex corpus: %d/%d match GNU sed (%d are syntax errors on both sides; %d differ only where GNU splits a UTF-8 character)",
		pass, pass+fail, errs, splits)
}
