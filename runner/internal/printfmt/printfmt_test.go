package printfmt

import (
	"bytes"
	"strings"
	"testing"
)

func TestFormatDialects(t *testing.T) {
	for _, tc := range []struct {
		d         Dialect
		format    string
		args      []string
		out, errs string
		status    int
	}{
		{Bash, `%s=%d\n`, []string{"a", "1", "b", "2"}, "a=1\nb=2\n", "", 0},
		{GNU, `%s=%d\n`, []string{"a", "1", "b", "2"}, "a=1\nb=2\n", "", 0},
		{Bash, `a\cb`, nil, `a\cb`, "", 0},
		{GNU, `a\cb`, nil, "a", "", 0},
		{Bash, `%d`, []string{"x"}, "0", "bash: printf: x: invalid number\n", 1},
		{GNU, `%d`, []string{"x"}, "0", "printf: ‘x’: expected a numeric value\n", 1},
		{GNU, `%d`, []string{"3x"}, "3", "printf: ‘3x’: value not completely converted\n", 1},
		{Bash, `%q`, []string{"a b"}, `a\ b`, "", 0},
		{GNU, `%q`, []string{"a b"}, `'a b'`, "", 0},
		{Bash, `%z`, nil, "", "bash: printf: `%z': missing format character\n", 1},
		{GNU, `%z`, nil, "", "printf: %z: invalid conversion specification\n", 1},
		{GNU, `x`, []string{"y"}, "x", "printf: warning: ignoring excess arguments, starting with ‘y’\n", 0},
		{Bash, `\x`, nil, `\x`, "", 0},
		{GNU, `<\x>`, nil, "<", "printf: missing hexadecimal number in escape\n", 1},
		{Bash, `\'\?`, nil, `'?`, "", 0},
		{GNU, `\'\?`, nil, `\'\?`, "", 0},
		{GNU, `%b|%b`, []string{`\0101\101`, `a\cb`}, "AA|a", "", 0},
	} {
		var out strings.Builder
		var errs bytes.Buffer
		status := Format(&out, &errs, tc.d, tc.format, tc.args)
		if out.String() != tc.out || errs.String() != tc.errs || status != tc.status {
			t.Errorf("dialect %d: printf %q %q = %q %q %d, want %q %q %d", tc.d, tc.format, tc.args, out.String(), errs.String(), status, tc.out, tc.errs, tc.status)
		}
	}
}

func TestShellEscape(t *testing.T) {
	for in, want := range map[string]string{
		"": "''", "abc": "abc", "a b": "'a b'", "a'b": `"a'b"`, "a'$b": `'a'\''$b'`, "a\nb": `'a'$'\n''b'`,
		"\x7f": `''$'\177'`, "~x": "'~x'", "x~": "x~", "{": "'{'", "a{": "a{", "a'#": `'a'\''#'`, "é": "é", "a\xffb": `'a'$'\377''b'`,
	} {
		if got := ShellEscape(in); got != want {
			t.Errorf("ShellEscape(%q) = %s, want %s", in, got, want)
		}
	}
	if got := LocaleQuote("a\\b\n"); got != `‘a\\b\n’` {
		t.Errorf("LocaleQuote = %s", got)
	}
}

func TestEcho(t *testing.T) {
	for _, tc := range []struct {
		d    Dialect
		args []string
		want string
	}{
		{Bash, []string{"a", "b"}, "a b\n"},
		{GNU, []string{"-n", "a"}, "a"},
		{Bash, []string{"-ne", `x\ty`}, "x\ty"},
		{Bash, []string{"-nx", "y"}, "-nx y\n"},
		{Bash, []string{"-e", `\101\0101\u00e9\E|\c`, "more"}, `\101A` + "é\x1b|"},
		{GNU, []string{"-e", `\101\0101\u00e9\E|\c`, "more"}, `AA\u00e9\E|`},
		{GNU, []string{"-e", `\x\x41\q`}, `\xA\q` + "\n"},
		{GNU, []string{"-E", `\n`}, `\n` + "\n"},
	} {
		if got := Echo(tc.args, tc.d); got != tc.want {
			t.Errorf("dialect %d: echo %q = %q, want %q", tc.d, tc.args, got, tc.want)
		}
	}
}
