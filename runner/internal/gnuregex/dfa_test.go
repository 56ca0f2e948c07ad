package gnuregex

import (
	"context"
	"math/rand"
	"testing"
)

// TestDFAAgreesWithBacktracker checks the DFA against the backtracking
// matcher (the reference for the AST) on random patterns and records.
func TestDFAAgreesWithBacktracker(t *testing.T) {
	atoms := []string{"a", "b", "c", ".", "[ab]", "[^a]", "x", "[[:upper:]]", `\w`, `\W`, `\s`, "é", "^", "$"}
	ops := []string{"", "", "*", `\+`, `\?`, `\{1,2\}`}
	rnd := rand.New(rand.NewSource(7))
	ctx := context.Background()
	checked := 0
	for i := 0; i < 3000; i++ {
		var pat string
		for n := 1 + rnd.Intn(4); n > 0; n-- {
			a := atoms[rnd.Intn(len(atoms))]
			if rnd.Intn(6) == 0 {
				a = `\(` + a + atoms[rnd.Intn(len(atoms))] + `\)`
			}
			if a != "^" && a != "$" {
				a += ops[rnd.Intn(len(ops))]
			}
			pat += a
			if rnd.Intn(8) == 0 {
				pat += `\|`
			}
		}
		opts := Options{IgnoreCase: rnd.Intn(3) == 0}
		p, err := Parse(pat, opts)
		if err != nil {
			continue
		}
		mode := RecordMode(rnd.Intn(2) * 2) // Contains or WholeRecord
		d, ok := p.NewDFA(mode)
		if !ok {
			continue
		}
		m := p.NewMatcher()
		for j := 0; j < 5; j++ {
			line := make([]byte, rnd.Intn(8))
			for k := range line {
				line[k] = "abcxAB é\xff"[rnd.Intn(10)]
			}
			var want bool
			if mode == WholeRecord {
				_ = m.Ends(ctx, line, 0, func(e int) bool { want = e == len(line); return want })
			} else {
				want, _ = m.Match(ctx, line)
			}
			got, err := d.MatchRecord(line)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("pattern %q (fold %v, mode %d) on %q: DFA %v, backtracker %v", pat, opts.IgnoreCase, mode, line, got, want)
			}
			checked++
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d checks ran", checked)
	}
}

func TestDFANextRecordFindsRecords(t *testing.T) {
	p, err := Parse(`^b.*d$`, Options{Lines: true, EOL: '\n'})
	if err != nil {
		t.Fatal(err)
	}
	d, ok := p.NewDFA(Contains)
	if !ok {
		t.Fatal("no DFA")
	}
	buf := []byte("abcd\nbcd\n\nbxd")
	ls, le, err := d.NextRecord(buf, 0, len(buf))
	if err != nil || ls != 5 || le != 8 {
		t.Fatalf("first: %d %d %v", ls, le, err)
	}
	ls, le, _ = d.NextRecord(buf, 9, len(buf))
	if ls != 10 || le != 13 {
		t.Fatalf("unterminated last record: %d %d", ls, le)
	}
}
