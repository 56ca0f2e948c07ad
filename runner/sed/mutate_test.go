package sed

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

var absFile = regexp.MustCompile(`(^|[^\\a-zA-Z])[rRwW][ \t]*/|[a-zA-Z0-9]w[ \t]*/`)

// TestGNUMutatedScripts damages generated scripts (a character inserted,
// deleted or replaced) and compares how both seds take them: mostly
// syntax errors, whose status and message must match.
func TestGNUMutatedScripts(t *testing.T) {
	t.Parallel()
	sedPath := gnuSed(t)
	n := 250
	if testing.Short() {
		n = 100
	}
	r := rand.New(rand.NewPCG(98, 2))
	g := &scriptGen{r: r}
	junk := "{}/\\;!,$~+ \n#aisyqlbt:0123pPxX&*[]()^.-Ie"
	cases := make([]sedCase, n)
	for i := 0; i < n; {
		c := g.testCase()
		for k, idx := range c.args {
			if len(idx) > 0 && idx != "-E" && idx != "-n" && idx != "-s" && idx != "-i" && idx != "-z" && idx != "f1" && idx != "f2" && idx != "-" {
				script := []byte(c.args[k])
				pos := r.IntN(len(script) + 1)
				ch := junk[r.IntN(len(junk))]
				switch r.IntN(3) {
				case 0:
					script = append(script[:pos], append([]byte{ch}, script[pos:]...)...)
				case 1:
					if pos < len(script) {
						script = append(script[:pos], script[pos+1:]...)
					}
				default:
					if pos < len(script) {
						script[pos] = ch
					}
				}
				c.args[k] = string(script)
				break
			}
		}
		if absFile.MatchString(strings.Join(c.args, " ")) {
			// GNU would read or write outside its folder; ours is confined.
			continue
		}
		cases[i] = c
		i++
	}
	results := runGNUAll(t, sedPath, cases)
	pass, fail, errors, sameMsg, looped := 0, 0, 0, 0, 0
	for i, c := range cases {
		gnu := results[i]
		if gnu.code == -1 {
			looped++
			continue
		}
		if strings.Contains(strings.Join(c.args, " "), "e") && gnu.code == 0 && strings.Contains(gnu.stderr, "") {
			// The e command or s///e may have run: we refuse those.
			if r := runOurs(t, c); strings.Contains(r.stderr, refusedExec) {
				continue
			}
		}
		ours := runOurs(t, c)
		if d := compare(gnu, ours); len(d) > 0 {
			if byteStepping(t, sedPath, c) {
				continue
			}
			fail++
			if fail <= 30 {
				t.Errorf("sed %q stdin %q:\n  %s", c.args, c.stdin, strings.Join(d, "\n  "))
			}
			continue
		}
		pass++
		if gnu.code != 0 {
			errors++
			if strings.ReplaceAll(gnu.stderr, sedPath+":", "sed:") == ours.stderr {
				sameMsg++
			} else {
				t.Logf("message differs: sed %q: gnu %q ours %q", c.args, gnu.stderr, ours.stderr)
			}
		}
	}
	t.Logf("mutated scripts: %d/%d match GNU sed (%d of them errors, %d with the very same message; %d skipped: GNU looped)",
		pass, pass+fail, errors, sameMsg, looped)
}
