package awk

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// exprGen builds random awk expressions from a small grammar. Division and
// modulo guard their divisor, exponents stay small, so every program is
// valid and error-free in both interpreters.
type exprGen struct {
	r     *rand.Rand
	depth int
}

var (
	genStrings = []string{`"abc"`, `""`, `"10"`, `"9"`, `" 3 "`, `"1e2"`, `"x y"`, `"0"`, `"-4.5"`, `"AbC"`}
	genNums    = []string{"0", "1", "2", "3", "7", "10", "0.5", "1e3", "-2", "123456", "0.1", "100"}
	genVars    = []string{"a", "b", "s", "u"}
	genFields  = []string{"$1", "$2", "$3", "$0", "$NF", "NF", "NR"}
)

func (g *exprGen) pick(list []string) string { return list[g.r.Intn(len(list))] }

func (g *exprGen) expr() string {
	g.depth++
	defer func() { g.depth-- }()
	if g.depth > 4 {
		return g.leaf()
	}
	switch g.r.Intn(16) {
	case 0, 1, 2:
		return g.leaf()
	case 3:
		return "(" + g.expr() + " " + g.pick([]string{"+", "-", "*"}) + " " + g.expr() + ")"
	case 4:
		return "(" + g.expr() + " / (" + g.expr() + "^2 + 1))"
	case 5:
		return "int(" + g.expr() + " % 7 + 0.5)"
	case 6:
		return "(" + g.expr() + " " + g.expr() + ")"
	case 7:
		return "(" + g.expr() + " " + g.pick([]string{"<", "<=", "==", "!=", ">=", ">"}) + " " + g.expr() + ")"
	case 8:
		return "(" + g.expr() + " " + g.pick([]string{"&&", "||"}) + " " + g.expr() + ")"
	case 9:
		return "(" + g.expr() + " ? " + g.expr() + " : " + g.expr() + ")"
	case 10:
		return "(" + g.pick([]string{"!", "-", "+"}) + " " + g.expr() + ")"
	case 11:
		return "(" + g.expr() + " " + g.pick([]string{"~", "!~"}) + " " + g.pick([]string{"/^[a-c]/", `"[0-9]"`, "/x|y/", `"^ *[0-9]+ *$"`}) + ")"
	case 12:
		switch g.r.Intn(6) {
		case 0:
			return "length(" + g.expr() + ")"
		case 1:
			return "substr(" + g.expr() + ", " + g.pick(genNums[:6]) + ", " + g.pick(genNums[:6]) + ")"
		case 2:
			return "index(" + g.expr() + ", " + g.pick([]string{`"a"`, `"1"`, `" "`}) + ")"
		case 3:
			return "toupper(" + g.expr() + ")"
		case 4:
			return "sprintf(\"%" + g.pick([]string{"d", "5.2f", "s", "x", "e", "g", "-4s|", "05d", "c"}) + "\", " + g.expr() + ")"
		default:
			return "int(" + g.expr() + ")"
		}
	case 13:
		return "(" + g.pick(genVars) + " " + g.pick([]string{"=", "+=", "-=", "*="}) + " " + g.expr() + ")"
	case 14:
		v := g.pick(genVars)
		return g.pick([]string{v + "++", "++" + v, v + "--", "--" + v})
	default:
		// No fractional exponents: gawk's comparisons with NaN depend on
		// its internal state, which no other awk can reproduce.
		return "(" + g.expr() + " ^ " + g.pick([]string{"0", "1", "2", "3"}) + ")"
	}
}

func (g *exprGen) leaf() string {
	switch g.r.Intn(4) {
	case 0:
		return g.pick(genStrings)
	case 1:
		return g.pick(genNums)
	case 2:
		return g.pick(genVars)
	default:
		return g.pick(genFields)
	}
}

const corpusInput = "10 9 abc\n 3.0 x y z\n1e2 100 -5\n\nAbC 0 0.1\n"

// TestGeneratedCorpus compares this awk with gawk on random expression
// programs: same stdout, same status, same class of stderr.
func TestGeneratedCorpus(t *testing.T) {
	gawk := gawkPath(t)
	seed, programs := corpusSize(20261130, 60)
	g := &exprGen{r: rand.New(rand.NewSource(seed))}
	const perProgram = 20
	for i := 0; i < programs; i++ {
		var b strings.Builder
		b.WriteString("{ a = $1; b = $2; s = \"str\" NR\n")
		for j := 0; j < perProgram; j++ {
			fmt.Fprintf(&b, "  print %d, %s\n", j, g.expr())
		}
		b.WriteString("}\n")
		prog := b.String()
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			ours, _ := runOurs(t, []string{prog}, corpusInput, nil)
			ref, _ := runGawk(t, gawk, []string{prog}, corpusInput, nil)
			if ours.stdout != ref.stdout || ours.code != ref.code {
				t.Logf("program:\n%s", prog)
				ol := strings.Split(ours.stdout, "\n")
				rl := strings.Split(ref.stdout, "\n")
				for k := 0; k < len(ol) && k < len(rl); k++ {
					if ol[k] != rl[k] {
						t.Errorf("first difference at line %d:\nours: %q\ngawk: %q", k+1, ol[k], rl[k])
						break
					}
				}
			}
			compare(t, ours, ref)
		})
	}
}

// TestGeneratedPrintf compares random printf conversions (flags, widths,
// precisions) over a spread of values, and number-to-string output.
func TestGeneratedPrintf(t *testing.T) {
	gawk := gawkPath(t)
	seed, count := corpusSize(7, 400)
	r := rand.New(rand.NewSource(seed))
	values := []string{"0", "1", "-1", "42", "-42.75", "3.14159265", "1e10", "-1e-10", "123456789012", "0.000123456",
		"2^53", "-2^31", "1e300", "255", "65", `"abc"`, `"héllo"`, `""`, `"12abc"`, "$1", "$2", "$3", "1/3", "100000", "999999.5"}
	convs := "dioxXucseEfFgG"
	var b strings.Builder
	b.WriteString("{\n")
	for i := 0; i < count; i++ {
		var spec strings.Builder
		spec.WriteByte('%')
		for _, f := range []string{"-", "+", " ", "#", "0"} {
			if r.Intn(5) == 0 {
				spec.WriteString(f)
			}
		}
		if r.Intn(2) == 0 {
			fmt.Fprint(&spec, r.Intn(15))
		}
		if r.Intn(2) == 0 {
			fmt.Fprintf(&spec, ".%d", r.Intn(12))
		}
		spec.WriteByte(convs[r.Intn(len(convs))])
		v := values[r.Intn(len(values))]
		fmt.Fprintf(&b, "  printf \"%d [%s]\\n\", %s\n", i, spec.String(), v)
	}
	for i, v := range values {
		fmt.Fprintf(&b, "  print \"v%d\", %s, (%s) \"\", -(%s)\n", i, v, v, v)
	}
	b.WriteString("}\n")
	prog := b.String()
	ours, _ := runOurs(t, []string{prog}, "17 -3.5 0x1F\n", nil)
	ref, _ := runGawk(t, gawk, []string{prog}, "17 -3.5 0x1F\n", nil)
	if ref.stdout == "" {
		t.Fatalf("gawk printed nothing: %s", ref.stderr)
	}
	ol := strings.Split(ours.stdout, "\n")
	rl := strings.Split(ref.stdout, "\n")
	progLines := strings.Split(prog, "\n")
	diffs := 0
	for k := 0; k < len(ol) && k < len(rl); k++ {
		if ol[k] != rl[k] {
			diffs++
			if diffs <= 20 {
				t.Errorf("line %d: %s\nours: %q\ngawk: %q", k+1, strings.TrimSpace(progLines[k+1]), ol[k], rl[k])
			}
		}
	}
	compare(t, ours, ref)
}
