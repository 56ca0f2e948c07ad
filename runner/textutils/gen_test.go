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
	t.Parallel()
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
	t.Parallel()
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

// TestGNUGeneratedFields runs random cut lists, tr sets and uniq options.
func TestGNUGeneratedFields(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(11))
	table := randomTable(rng, 12, ":") + randomTable(rng, 4, "")
	var cases []gnuCase
	randList := func() string {
		var items []string
		for k := 1 + rng.Intn(3); k > 0; k-- {
			a, b := 1+rng.Intn(6), 1+rng.Intn(6)
			switch rng.Intn(4) {
			case 0:
				items = append(items, fmt.Sprint(a))
			case 1:
				items = append(items, fmt.Sprintf("%d-", a))
			case 2:
				items = append(items, fmt.Sprintf("-%d", b))
			default:
				items = append(items, fmt.Sprintf("%d-%d", min(a, b), max(a, b)))
			}
		}
		return strings.Join(items, ",")
	}
	for i := 0; i < 70; i++ {
		var args []string
		switch rng.Intn(3) {
		case 0:
			args = append(args, "-c", randList())
		case 1:
			args = append(args, "-b", randList())
		default:
			args = append(args, "-d:", "-f", randList())
			if rng.Intn(3) == 0 {
				args = append(args, "-s")
			}
		}
		if rng.Intn(4) == 0 {
			args = append(args, "--complement")
		}
		if rng.Intn(4) == 0 {
			args = append(args, "--output-delimiter=|")
		}
		cases = append(cases, gnuCase{line: "cut " + strings.Join(args, " "), stdin: table})
	}
	sets := []string{"a-z", "A-Z", "[:lower:]", "[:upper:]", "[:digit:]", "[:space:]", "[:punct:]", "[:alnum:]", "abc", "xyz", ":", "0-9", "a-fA-F", "\\n", "\\t ", "[x*3]"}
	for i := 0; i < 70; i++ {
		s1, s2 := sets[rng.Intn(len(sets)-1)], sets[rng.Intn(len(sets))]
		var flags string
		switch rng.Intn(5) {
		case 0:
			flags = "-d '" + s1 + "'"
		case 1:
			flags = "-s '" + s1 + "'"
		case 2:
			flags = "-c '" + s1 + "' '" + s2 + "'"
		case 3:
			flags = "-ds '" + s1 + "' '" + s2 + "'"
		default:
			flags = "'" + s1 + "' '" + s2 + "'"
		}
		cases = append(cases, gnuCase{line: "tr " + flags, stdin: table + "Hello, World 123!\n\n\n  x\t\ty\n"})
	}
	dups := "a\na\nA\nb b\nb  b\nc x\nd x\nd x\n\n\ne 1 f\ne 2 f\n"
	for i := 0; i < 50; i++ {
		var args []string
		for _, f := range []string{"-c", "-d", "-u", "-i", "-D"} {
			if rng.Intn(4) == 0 {
				args = append(args, f)
			}
		}
		if rng.Intn(3) == 0 {
			args = append(args, fmt.Sprintf("-f%d", rng.Intn(3)))
		}
		if rng.Intn(3) == 0 {
			args = append(args, fmt.Sprintf("-s%d", rng.Intn(3)))
		}
		if rng.Intn(3) == 0 {
			args = append(args, fmt.Sprintf("-w%d", rng.Intn(3)))
		}
		cases = append(cases, gnuCase{line: strings.TrimSpace("uniq " + strings.Join(args, " ")), stdin: dups})
	}
	diffCases(t, cases)
}

// TestGNUGeneratedNumbers runs random seq ranges and fold/expand widths.
func TestGNUGeneratedNumbers(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(13))
	num := func() string {
		n := rng.Intn(40) - 10
		switch rng.Intn(4) {
		case 0:
			return fmt.Sprintf("%d.%d", n, rng.Intn(100))
		case 1:
			return fmt.Sprintf("%d.5", n)
		}
		return fmt.Sprint(n)
	}
	var cases []gnuCase
	for i := 0; i < 60; i++ {
		args := []string{"seq"}
		if rng.Intn(3) == 0 {
			args = append(args, "-w")
		}
		if rng.Intn(5) == 0 {
			args = append(args, "-s,")
		}
		switch rng.Intn(3) {
		case 0:
			args = append(args, num())
		case 1:
			args = append(args, num(), num())
		default:
			step := []string{"1", "2", "0.5", "0.25", "-1", "-0.5", "3", "0.1"}[rng.Intn(8)]
			args = append(args, num(), step, num())
		}
		cases = append(cases, gnuCase{line: strings.Join(args, " ")})
	}
	text := "the quick\tbrown fox jumps over the lazy dog\n\tindented\ttabs\there\nshort\n" + strings.Repeat("x", 50) + "\n  spaced   out   words  \n"
	for i := 0; i < 40; i++ {
		w := 1 + rng.Intn(30)
		switch rng.Intn(4) {
		case 0:
			cases = append(cases, gnuCase{line: fmt.Sprintf("fold -w %d", w), stdin: text})
		case 1:
			cases = append(cases, gnuCase{line: fmt.Sprintf("fold -s -w %d", w), stdin: text})
		case 2:
			cases = append(cases, gnuCase{line: fmt.Sprintf("expand -t %d", 1+rng.Intn(9)), stdin: text})
		default:
			cases = append(cases, gnuCase{line: fmt.Sprintf("unexpand -t %d", 1+rng.Intn(9)), stdin: text})
		}
	}
	diffCases(t, cases)
}
