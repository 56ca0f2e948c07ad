package gnuregex

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

// FuzzPattern checks that no pattern makes the parser, the RE2
// translation, the DFA or the backtracker panic, that every translation
// compiles, and that the engines agree on whether a line matches.
func FuzzPattern(f *testing.F) {
	for _, seed := range []string{`a\{2,3\}`, `\(ab\)*\1`, `[[:alpha:]]\+\>`, `*a`, `a|*b`, `[]a-]`, `\(\)`,
		`x\{1`, `(a|b){2}`, `[^[:space:]]`, `\w\W\s\S`, `^$`, `a**`, `[z-a]`, `\`, `[[.a.]]`, `[[=e=]]`} {
		f.Add(seed, true, false, "abc ab a-b\tAB")
		f.Add(seed, false, true, "")
	}
	f.Fuzz(func(t *testing.T, pat string, ere, fold bool, line string) {
		opts := Options{IgnoreCase: fold, Lines: true, EOL: '\n'}
		if ere {
			opts.Syntax = ERE
		}
		p, err := Parse(pat, opts)
		if err != nil {
			return
		}
		m := p.NewMatcher()
		m.Budget = 200_000
		want, btErr := m.Match(context.Background(), []byte(line))
		if src, ok := p.GoSyntax(false); ok {
			re, err := regexp.Compile(src)
			if err != nil {
				t.Fatalf("%q translated to %q, which Go rejects: %v", pat, src, err)
			}
			if btErr == nil && !p.UsesWordBoundaries() && asciiNoNewline(line) {
				if got := re.MatchString(line); got != want {
					t.Fatalf("%q on %q: RE2 %v, backtracker %v (RE2 form %q)", pat, line, got, want, src)
				}
			}
		}
		if d, ok := p.NewDFA(Contains); ok && btErr == nil && !strings.Contains(line, "\n") {
			got, err := d.MatchRecord([]byte(line))
			if err == nil && got != want {
				t.Fatalf("%q on %q: DFA %v, backtracker %v", pat, line, got, want)
			}
		}
	})
}

func asciiNoNewline(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || s[i] == '\n' {
			return false
		}
	}
	return true
}
