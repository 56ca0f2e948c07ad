package gnuregex

import (
	"context"
	"errors"
	"testing"
)

func TestParseErrorsAreGNUs(t *testing.T) {
	cases := []struct {
		pat  string
		syn  Syntax
		want string
	}{
		{`\(a`, BRE, `Unmatched ( or \(`},
		{`a\)`, BRE, `Unmatched ) or \)`},
		{`(a`, ERE, `Unmatched ( or \(`},
		{`[a`, BRE, "Unmatched [, [^, [:, [., or [="},
		{`[[:nope:]]`, ERE, "Invalid character class name"},
		{`[:space:]`, BRE, "character class syntax is [[:space:]], not [:space:]"},
		{`a\`, BRE, "Trailing backslash"},
		{`\(a\)\2`, BRE, "Invalid back reference"},
		{`a\{2,1\}`, BRE, `Invalid content of \{\}`},
		{`a\{1`, BRE, `Unmatched \{`},
		{`[z-a]`, BRE, "Invalid range end"},
		{`a{99999}`, ERE, "Regular expression too big"},
	}
	for _, c := range cases {
		_, err := Parse(c.pat, Options{Syntax: c.syn})
		if err == nil || err.Error() != c.want || !IsSyntaxError(err) {
			t.Errorf("Parse(%q): got %v, want %q", c.pat, err, c.want)
		}
	}
}

func TestMatchBothEngines(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		pat    string
		syn    Syntax
		fold   bool
		line   string
		want   bool
		goPath bool // RE2 can express it
	}{
		{`a\{2\}`, BRE, false, "xaay", true, true},
		{`a{2}`, BRE, false, "a{2}", true, true},
		{`*a`, BRE, false, "*a", true, true},
		{`*a`, ERE, false, "a", true, true},
		{`\(ab\)\1`, BRE, false, "xababy", true, false},
		{`\(ab\)\1`, BRE, false, "xabaxby", false, false},
		{`(a|b)\1`, ERE, true, "aB bA", false, false},
		{`(a|b)\1`, ERE, true, "xAa", true, false},
		{`\<foo\>`, BRE, false, "a foo b", true, true},
		{`\<foo\>`, BRE, false, "afoo", false, true},
		{`\<.oo`, BRE, false, "afoo", false, false},
		{`\<.oo`, BRE, false, "a foo", true, false},
		{`[[:upper:]]x`, BRE, true, "ax", true, true},
		{`caf.`, BRE, false, "caf\xe9", false, true},
		{`a^b`, BRE, false, "a^b", true, true},
		{`a$b`, BRE, false, "a$b", true, true},
	}
	for _, c := range cases {
		p, err := Parse(c.pat, Options{Syntax: c.syn, IgnoreCase: c.fold})
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.pat, err)
		}
		if _, ok := p.GoSyntax(false); ok != c.goPath {
			t.Errorf("%q: GoSyntax ok=%v, want %v", c.pat, ok, c.goPath)
		}
		got, err := p.NewMatcher().Match(ctx, []byte(c.line))
		if err != nil || got != c.want {
			t.Errorf("backtracker %q on %q: %v %v, want %v", c.pat, c.line, got, err, c.want)
		}
		re, err := p.Compile()
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := re.Match(ctx, []byte(c.line)); got != c.want {
			t.Errorf("Regexp %q on %q: %v, want %v", c.pat, c.line, got, c.want)
		}
	}
}

func TestFindAllLeftmostLongestWithBackrefs(t *testing.T) {
	re, err := Compile(`\(a*\)b\1`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := re.FindAll(context.Background(), []byte("aabaa xbx aba"), -1, true)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int{{0, 5}, {7, 8}, {10, 13}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i, m := range got {
		if m[0] != want[i][0] || m[1] != want[i][1] {
			t.Errorf("match %d: got %v, want %v", i, m[:2], want[i])
		}
	}
}

func TestBacktrackingBudgetAndContext(t *testing.T) {
	p, err := Parse(`\(a*\)*\1b`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	line := []byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	m := p.NewMatcher()
	m.Budget = 100_000
	if _, err := m.Match(context.Background(), line); !errors.Is(err, ErrBudget) {
		t.Errorf("budget: got %v, want ErrBudget", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m.Budget = 0
	if _, err := m.Match(ctx, line); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v, want context.Canceled", err)
	}
}
