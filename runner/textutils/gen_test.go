package textutils

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

var genTokens = []string{"a", "B", "b", "abc", "Abc", "10", "9", "-3", "2.5", "1e2", "0x1A", "1K", "2M", "v1.10", "v1.9",
	"zz", "", "007", "-0", "x-1", "Jan", "feb", "DEC", "  5", "é", "_", "3.14", "100", "1,5", "Zeta"}

// randomTable makes rows of random tokens joined by sep ("" means blanks
// of random width).
func randomTable(rng *rand.Rand, rows int, sep string) string {
	var b strings.Builder
	for i := 0; i < rows; i++ {
		n := 1 + rng.Intn(4)
		for j := 0; j < n; j++ {
			if j > 0 {
				if sep == "" {
					b.WriteString(strings.Repeat(" ", 1+rng.Intn(2)))
					if rng.Intn(5) == 0 {
						b.WriteString("\t")
					}
				} else {
					b.WriteString(sep)
				}
			}
			b.WriteString(genTokens[rng.Intn(len(genTokens))])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func randomKeyOpts(rng *rand.Rand) string {
	var s string
	switch rng.Intn(8) {
	case 0:
		s += "n"
	case 1:
		s += "g"
	case 2:
		s += "h"
	case 3:
		s += "V"
	case 4:
		s += "M"
	}
	for _, c := range "bfr" {
		if rng.Intn(4) == 0 {
			s += string(c)
		}
	}
	if s == "" && rng.Intn(6) == 0 {
		s = "d"
	}
	return s
}

func TestGNUSortRandomKeys(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	var cases []gnuCase
	for i := 0; i < 150; i++ {
		sep := ""
		tflag := ""
		if rng.Intn(2) == 0 {
			sep = ":"
			tflag = "-t: "
		}
		table := randomTable(rng, 5+rng.Intn(10), sep)
		var args []string
		for _, g := range []string{"-r", "-u", "-s", "-f", "-b", "-n"} {
			if rng.Intn(6) == 0 {
				args = append(args, g)
			}
		}
		for k := rng.Intn(3); k > 0; k-- {
			spec := fmt.Sprint(1 + rng.Intn(3))
			if rng.Intn(3) == 0 {
				spec += fmt.Sprintf(".%d", 1+rng.Intn(3))
			}
			if rng.Intn(2) == 0 {
				spec += randomKeyOpts(rng)
			}
			if rng.Intn(3) > 0 {
				spec += fmt.Sprintf(",%d", 1+rng.Intn(4))
				if rng.Intn(3) == 0 {
					spec += fmt.Sprintf(".%d", rng.Intn(3))
				}
				if rng.Intn(3) == 0 {
					spec += randomKeyOpts(rng)
				}
			}
			args = append(args, "-k"+spec)
		}
		cases = append(cases, gnuCase{line: "sort " + tflag + strings.Join(args, " "), stdin: table})
	}
	diffCases(t, cases)
}

// randomLines makes a small file from a tiny alphabet of lines, so that
// diffs have many equally short edit scripts to choose from.
func randomLines(rng *rand.Rand, n int) string {
	alphabet := []string{"a", "b", "c", "d", "", "a", "x y"}
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(alphabet[rng.Intn(len(alphabet))])
		b.WriteByte('\n')
	}
	s := b.String()
	if rng.Intn(8) == 0 && len(s) > 0 {
		s = s[:len(s)-1]
	}
	return s
}

func TestGNUDiffRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var cases []gnuCase
	formats := []string{"", "-u", "-U 1", "-c", "-U 0", "-C 1"}
	for i := 0; i < 90; i++ {
		a := randomLines(rng, rng.Intn(14))
		// b is a mutation of a: some lines dropped, changed or added.
		var bl []string
		for _, l := range strings.SplitAfter(a, "\n") {
			switch rng.Intn(6) {
			case 0:
			case 1:
				bl = append(bl, randomLines(rng, 1))
			case 2:
				bl = append(bl, l, randomLines(rng, 1+rng.Intn(2)))
			default:
				bl = append(bl, l)
			}
		}
		b := strings.Join(bl, "")
		f := formats[rng.Intn(len(formats))]
		cases = append(cases, gnuCase{line: "diff --label A --label B " + f + " - other.txt", stdin: a, extra: map[string]string{"other.txt": b}})
	}
	diffCases(t, cases)
}
