package coreutils

import (
	"testing"
)

// TestGNUPrintfEcho compares printf and echo run as commands with GNU's.
func TestGNUPrintfEcho(t *testing.T) {
	requireGNU(t, "printf", "echo")
	var cases []gnuCase
	for _, args := range [][]string{
		{"printf", `%s-%d\n`, "a", "1", "b", "2", "c"},
		{"printf", `%d\n`, "abc"}, {"printf", `%d\n`, "12abc"}, {"printf", `%d\n`, "99999999999999999999"},
		{"printf", `%q\n`, "a'b", "a b", "a\nb", "", "é", "~x", "a=b", "#", "a#", "a'b c", "a'$b", "'", "a\\b", "a\tb", "\x7f", "a\xffb",
			"a]b", "{", "a{", "a'é", "a'#", "'\t", "%x", "-x", "a*", "[a", "!a", "a\"b'c"},
		{"printf", `a\cb\n`}, {"printf", `%z`}, {"printf", `%`}, {"printf", `%5`}, {"printf", `x`, "y"},
		{"printf", `\u00e9\n`}, {"printf", `%b\n`, `x\u00e9\101\0101\c`, "more"}, {"printf", `%d\n`, "'é"}, {"printf", `%d\n`, "'"},
		{"printf", `%.3s|%-5d|%5s|\n`, "abcdef", "3", "x"}, {"printf", `%i %x %o %u\n`, "0x1f", "255", "8", "-3"},
		{"printf", `%f %e %G %.2f\n`, "1e3", "abc", "1e-10", "3.14159"}, {"printf", `%5q|\n`, "a"}, {"printf", "-v", "x"},
		{"printf", "--"}, {"printf"}, {"printf", "--", `%s\n`, "x"}, {"printf", `\x41\101\x\n`}, {"printf", `%*d|%.*f\n`, "5", "3", "2", "3.14159"},
		{"printf", `\q\'\?\"\\\n`}, {"printf", `%c|\n`, "héllo"}, {"printf", `%%|%s\n`, "a"}, {"printf", `%'d\n`, "1234567"},
		{"printf", `%s %s\n`, "a"}, {"printf", `%b`, `a\cb`}, {"printf", `%d\n`, "'ab"}, {"printf", `\e\E\n`},
		{"echo", "a", "b"}, {"echo", "-n", "a"}, {"echo", "-e", `a\101b\0101c\u00e9d\x41\x\q\c zz`, "more"}, {"echo", "-neE", "x"},
		{"echo", "-nx", "y"}, {"echo", "--", "a"}, {"echo", "-E", `a\tb`}, {"echo", "-e", `\e\n\t|`}, {"echo"}, {"echo", "-e", `a\`},
		{"echo", "-n", "--help"}, {"echo", "-e", `\x4g\0\00101`},
	} {
		cases = append(cases, gnuCase{args: args})
	}
	checkGNUStderr(t, cases)
}

// checkGNUStderr is checkGNU that also wants GNU's diagnostics word for
// word.
func checkGNUStderr(t *testing.T, cases []gnuCase) {
	t.Helper()
	checkGNU(t, cases)
	for _, c := range cases {
		want, got := runGNU(t, c), runOurs(t, c)
		if got.stderr != want.stderr {
			t.Errorf("%q: stderr\n got: %q\nwant: %q", c.args, got.stderr, want.stderr)
		}
	}
}

func TestGNUExpr(t *testing.T) {
	requireGNU(t, "expr")
	var cases []gnuCase
	for _, args := range [][]string{
		{"abc", ":", "^a"}, {"héllo", ":", ".*"}, {"length", "héllo"}, {"substr", "héllo", "2", "3"}, {"index", "héllo", "l"},
		{"1", "+", "2"}, {"5", "/", "0"}, {"7", "%", "3"}, {"-7", "/", "2"}, {"-7", "%", "2"}, {"a", "+", "1"}, {"3", "<", "10"},
		{"3", "<", "a"}, {"10", "<", "9a"}, {"", "|", "0"}, {"0", "&", "5"}, {"5", "&", "0"}, {"5", "&", "x"}, {"0", "|", "x"},
		{"abc", ":", `a\(b\)`}, {"abc", ":", `x\(b\)`}, {"abc", ":", "x"}, {}, {"1", "+"}, {"(", "1", "+", "2", ")", "*", "3"},
		{"match", "abc", "a."}, {"+", "match"}, {"99999999999999999999", "+", "1"}, {"2", "=", "2"}, {"a", "=", "a"},
		{"a", "!=", "b"}, {"01", "=", "1"}, {"abc", ":", `a\|b`}, {"cab", ":", `a\|b`}, {"a", ":", `a\{`}, {"9223372036854775807", "+", "1"},
		{"1", "-", "-1"}, {"--", "5"}, {"0"}, {""}, {"00"}, {"-0"}, {"-"}, {"substr", "abc", "0", "1"}, {"substr", "abc", "2", "-1"},
		{"substr", "abc", "2", "99"}, {"substr", "abc", "x", "1"}, {"x", ">", "X"}, {"ab", ":", "a", "b"}, {"(", "1"}, {"(", "1", "2"},
		{")"}, {"1", "|", "5", "/", "0"}, {"0", "&", "5", "/", "0"}, {"2", "*", "3", "+", "4", "*", "5"}, {"10", "-", "2", "-", "3"},
		{"a", "<", "b", "=", "1"}, {"length", "length"}, {"length"}, {"index", "abc", ""}, {"foo.txt", ":", `\(.*\)\.txt`},
		{"foo.c", ":", `\(.*\)\.txt`}, {"x", "\\>", "y"}, {"1", "<=", "1"}, {"2", ">=", "3"}, {"abc", "==", "abc"},
		{"a\nb", ":", "a.b"}, {"ab", ":", "a$"}, {"+5", "+", "1"}, {"5", "+", "+", "1"}, {"3", "*", "-4"}, {"abc", ":", `\(a\)\(b\)`},
		{"aaa", ":", "a*"}, {"xyz", ":", ".*y"},
	} {
		cases = append(cases, gnuCase{args: append([]string{"expr"}, args...)})
	}
	checkGNUStderr(t, cases)
}
