package shpattern

import "testing"

func TestMatch(t *testing.T) {
	cases := []struct {
		pat, s string
		flags  Flags
		want   bool
	}{
		{"*", "", 0, true},
		{"a*c", "abbbc", 0, true},
		{"a*c", "abbbd", 0, false},
		{"a?c", "abc", 0, true},
		{"a?c", "aéc", 0, true},
		{"[a-c]x", "bx", 0, true},
		{"[!a-c]x", "bx", 0, false},
		{"[^a-c]x", "dx", 0, true},
		{"[]]", "]", 0, true},
		{"[]a]", "a", 0, true},
		{"[[:digit:]]*", "1abc", 0, true},
		{"[[:alpha:]]", "1", 0, false},
		{"[[:bogus:]]", "b", 0, false},
		{"[abc", "[abc", 0, true},
		{`\*`, "*", 0, true},
		{`\*`, "x", 0, false},
		{`a\`, `a\`, 0, true},
		{"*.txt", ".a.txt", Filename, false},
		{".*", ".a", Filename, true},
		{"@(a|b)c", "bc", Extended, true},
		{"@(a|b)c", "@(a|b)c", 0, true},
		{"!(foo)", "foo", Extended, false},
		{"!(foo)", "bar", Extended, true},
		{"!(foo)", "foobar", Extended, true},
		{"*(ab)", "ababab", Extended, true},
		{"*(ab)", "", Extended, true},
		{"+(ab)", "", Extended, false},
		{"+(ab|c)d", "abccabd", Extended, true},
		{"?(x)y", "y", Extended, true},
		{"?(x)y", "xxy", Extended, false},
		{"*.@(jpg|png)", "a.png", Extended, true},
		{"ABC", "abc", NoCase, true},
		{"[A-C]*", "bz", NoCase, true},
		{"@(a|*(b))", "bbb", Extended, true},
		{"!(*.c|*.h)", "x.c", Extended, false},
		{"!(*.c|*.h)", "x.go", Extended, true},
	}
	for _, c := range cases {
		if got := Compile(c.pat, c.flags).Match(c.s); got != c.want {
			t.Errorf("%q %q flags %d: %v, want %v", c.pat, c.s, c.flags, got, c.want)
		}
	}
}

func TestHasMeta(t *testing.T) {
	for pat, want := range map[string]bool{"abc": false, "a*": true, `a\*`: false, "[a]": true, "[a": false, "@(a)": false} {
		if HasMeta(pat, 0) != want {
			t.Errorf("HasMeta(%q) != %v", pat, want)
		}
	}
	if !HasMeta("@(a)", Extended) {
		t.Error("extglob group is meta with Extended")
	}
}
