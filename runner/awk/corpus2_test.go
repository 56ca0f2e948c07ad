package awk

import (
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
)

// stmtGen builds random whole programs: assignments, control flow, arrays,
// fields, string functions and user functions. Loops are bounded and
// for-in bodies only aggregate, so output does not depend on key order.
type stmtGen struct {
	e     *exprGen
	r     *rand.Rand
	depth int
	b     strings.Builder
}

var genKeys = []string{`1`, `2`, `"x"`, `"10"`, `a`, `$1`, `1,2`}

func (g *stmtGen) line(format string, a ...any) {
	g.b.WriteString(strings.Repeat("  ", g.depth+1))
	fmt.Fprintf(&g.b, format, a...)
	g.b.WriteByte('\n')
}

func (g *stmtGen) expr() string {
	switch g.r.Intn(10) {
	case 0:
		return "A[" + g.e.pick(genKeys) + "]"
	case 1:
		return "f(" + g.e.expr() + ", " + g.e.expr() + ")"
	case 2:
		k := g.e.pick(genKeys)
		if strings.Contains(k, ",") {
			k = "(" + k + ")"
		}
		return "(" + k + " in A)"
	case 3:
		return "cnt(A)"
	}
	return g.e.expr()
}

func (g *stmtGen) stmts(n int) {
	for i := 0; i < n; i++ {
		g.stmt()
	}
}

func (g *stmtGen) stmt() {
	if g.depth > 2 {
		g.line("a = %s", g.expr())
		return
	}
	switch g.r.Intn(18) {
	case 0:
		g.line("%s = %s", g.e.pick([]string{"a", "b", "c", "s"}), g.expr())
	case 1:
		g.line("A[%s] = %s", g.e.pick(genKeys), g.expr())
	case 2:
		g.line("if (%s) {", g.expr())
		g.depth++
		g.stmts(1 + g.r.Intn(2))
		g.depth--
		g.line("} else {")
		g.depth++
		g.stmts(1)
		g.depth--
		g.line("}")
	case 3:
		v := fmt.Sprintf("i%d", g.depth)
		g.line("for (%s = 0; %s < %d; %s++) {", v, v, 1+g.r.Intn(3), v)
		g.depth++
		g.stmts(1 + g.r.Intn(2))
		g.depth--
		g.line("}")
	case 4:
		v := fmt.Sprintf("w%d", g.depth)
		g.line("%s = 0", v)
		g.line("while (%s++ < %d) {", v, 1+g.r.Intn(3))
		g.depth++
		g.stmts(1)
		if g.r.Intn(2) == 0 {
			g.line("if (%s) break", g.expr())
		}
		g.depth--
		g.line("}")
	case 5:
		g.line("delete A[%s]", g.e.pick(genKeys))
	case 6:
		// The epilogue counts B with cnt(B), not length(B): gawk types a
		// never-used name as a scalar in length(), and a later split() into
		// it then fails ("split: second argument is not an array").
		g.line("n = split(\"x\" %s %s, B, %s); c = c n B[1] B[n]", g.e.leaf(), g.e.leaf(), g.e.pick([]string{`" "`, `","`, `/[0-9]/`, `""`, `"x|y"`}))
	case 7:
		g.line("%s(%s, %s, s)", g.e.pick([]string{"sub", "gsub"}), g.e.pick([]string{"/[a-c]/", `"1"`, "/x+/", "/^./", `"$"`}), g.e.pick([]string{`"<&>"`, `"-"`, `""`, `"\\&"`}))
	case 8:
		g.line("printf %q, %s, %s", g.e.pick([]string{"%s|%d\n", "%5.1f %c\n", "%-4s:%x\n", "%e %i\n"}), g.expr(), g.expr())
	case 9:
		g.line("print %s, %s", g.expr(), g.expr())
	case 10:
		g.line("$%d = %s", 1+g.r.Intn(5), g.expr())
	case 11:
		g.line("NF = %d", g.r.Intn(5))
	case 12:
		g.line("$0 = %s", g.expr())
	case 13:
		g.line("s = substr(s, 2) %s", g.expr())
	case 14:
		g.line("g(A, %s)", strings.ReplaceAll(g.e.pick(genKeys), ",", " SUBSEP "))
	case 15:
		g.line("for (k in A) { n2++; t += length(k) + (A[k] ~ /[0-9]/) }")
	case 16:
		g.line("c = c sprintf(%q, %s) length(%s)", "%.3g", g.expr(), g.expr())
	default:
		g.line("b = r(%d) %s", g.r.Intn(6), g.expr())
	}
}

const corpusPrelude = `function f(x, y,   t) { t = x "" y; return length(t) > 5 ? substr(t, 1, 5) : t }
function g(arr, k) { arr[k] = arr[k] "+"; return length(arr) }
function cnt(arr,   k, n) { for (k in arr) n++; return n + 0 }
function r(n) { return n <= 0 ? 0 : n + r(n - 1) }
`

const corpusEpilogue = `  print "vars", a, b, c, s, n2 + 0, t + 0
  m = 0; sum = 0
  for (k in A) { m++; if (k ~ /^[0-9]+$/) sum += k }
  print "arr", m, sum, length(A), cnt(B)
  print "rec", NF, $0
`

// TestGeneratedPrograms compares random whole programs with gawk.
func TestGeneratedPrograms(t *testing.T) {
	gawk := gawkPath(t)
	seed, programs := corpusSize(424242, 80)
	r := rand.New(rand.NewSource(seed))
	for i := 0; i < programs; i++ {
		g := &stmtGen{e: &exprGen{r: r}, r: r}
		g.b.WriteString(corpusPrelude)
		g.b.WriteString("{\n")
		g.stmts(6 + r.Intn(8))
		g.b.WriteString(corpusEpilogue)
		g.b.WriteString("}\n")
		prog := g.b.String()
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			ours, _ := runOurs(t, []string{prog}, corpusInput, nil)
			ref, _ := runGawk(t, gawk, []string{prog}, corpusInput, nil)
			if ref.stdout == "" {
				t.Fatalf("gawk printed nothing; program:\n%s\nstderr: %s", prog, ref.stderr)
			}
			if ours.stdout != ref.stdout || ours.code != ref.code {
				ol := strings.Split(ours.stdout, "\n")
				rl := strings.Split(ref.stdout, "\n")
				for k := 0; k < len(ol) && k < len(rl); k++ {
					if ol[k] != rl[k] {
						t.Errorf("program:\n%s\nfirst difference at output line %d:\nours: %q\ngawk: %q", prog, k+1, ol[k], rl[k])
						break
					}
				}
			}
			compare(t, ours, ref)
		})
	}
}

// corpusSize reads WSFS_AWK_CORPUS="seed,count" to run a bigger or
// different generated corpus by hand; CI runs the defaults.
func corpusSize(seed int64, n int) (int64, int) {
	v := os.Getenv("WSFS_AWK_CORPUS")
	if v == "" {
		return seed, n
	}
	a, b, _ := strings.Cut(v, ",")
	if s, err := strconv.ParseInt(a, 10, 64); err == nil {
		seed = s
	}
	if c, err := strconv.Atoi(b); err == nil {
		n = c
	}
	return seed, n
}
