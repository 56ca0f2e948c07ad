package coreutils

import (
	"context"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/printfmt"
)

// runTest is GNU test and [ run as commands (find -exec test, env [ …);
// the shell's own test and [ are bash's builtins. Every file is owned by
// the agent, so -r -w -x read the owner's mode bits, -O and -G hold for
// any file, and -t is false (there is no terminal).
func runTest(_ context.Context, env *command.Env) int {
	args := env.Args[1:]
	if env.Name() == "[" {
		if len(args) == 1 && (args[0] == "--help" || args[0] == "--version") {
			return helpOnly(env, args[0], "test EXPRESSION\n  or:  [ EXPRESSION ]", "")
		}
		if len(args) == 0 || args[len(args)-1] != "]" {
			env.Errorf("missing %s", printfmt.LocaleQuote("]"))
			return 2
		}
		args = args[:len(args)-1]
	}
	t := &testEval{env: env, args: args}
	v := t.posix(len(args))
	if t.err == "" && t.pos != len(args) {
		t.fail("extra argument %s", printfmt.LocaleQuote(args[t.pos]))
	}
	if t.err != "" {
		env.Errorf("%s", t.err)
		return 2
	}
	if v {
		return 0
	}
	return 1
}

type testEval struct {
	env  *command.Env
	args []string
	pos  int
	err  string // the first syntax error; evaluation then stops
}

func (t *testEval) fail(format string, a ...any) bool {
	if t.err == "" {
		t.err = fmt.Sprintf(format, a...)
	}
	t.pos = len(t.args)
	return false
}

func (t *testEval) at(i int) string {
	if t.pos+i < len(t.args) {
		return t.args[t.pos+i]
	}
	return ""
}

// beyond reports an operator missing its operand.
func (t *testEval) beyond() bool {
	return t.fail("missing argument after %s", printfmt.LocaleQuote(t.args[len(t.args)-1]))
}

func isTestBinop(s string) bool {
	switch s {
	case "=", "!=", "==", "-nt", "-ot", "-ef", "-eq", "-ne", "-lt", "-le", "-gt", "-ge":
		return true
	}
	return false
}

func isTestUnop(s string) bool {
	return len(s) == 2 && s[0] == '-' && strings.IndexByte("abcdefghkprsuwxOGLSNtzn", s[1]) >= 0
}

// posix applies POSIX's rules for n arguments from t.pos, falling back to
// the full grammar beyond four.
func (t *testEval) posix(n int) bool {
	switch n {
	case 0:
		return false
	case 1:
		t.pos++
		return t.at(-1) != ""
	case 2:
		return t.two()
	case 3:
		return t.three()
	case 4:
		if t.at(0) == "!" {
			t.pos++
			return !t.three()
		}
		if t.at(0) == "(" && t.at(3) == ")" {
			t.pos++
			v := t.two()
			t.pos++
			return v
		}
	}
	return t.or()
}

func (t *testEval) two() bool {
	switch a := t.at(0); {
	case a == "!":
		t.pos += 2
		return t.at(-1) == ""
	case len(a) == 2 && a[0] == '-':
		if isTestUnop(a) {
			return t.unary()
		}
		return t.fail("%s: unary operator expected", printfmt.LocaleQuote(a))
	}
	return t.beyond()
}

func (t *testEval) three() bool {
	switch {
	case isTestBinop(t.at(1)):
		return t.binary(false)
	case t.at(0) == "!":
		t.pos++
		return !t.two()
	case t.at(0) == "(" && t.at(2) == ")":
		t.pos += 3
		return t.at(-2) != ""
	case t.at(1) == "-a" || t.at(1) == "-o":
		return t.or()
	}
	return t.fail("%s: binary operator expected", printfmt.LocaleQuote(t.at(1)))
}

func (t *testEval) or() bool {
	v := t.and()
	for t.err == "" && t.pos < len(t.args) && t.at(0) == "-o" {
		t.pos++
		r := t.and()
		v = v || r
	}
	return v
}

func (t *testEval) and() bool {
	v := t.term()
	for t.err == "" && t.pos < len(t.args) && t.at(0) == "-a" {
		t.pos++
		r := t.term()
		v = v && r
	}
	return v
}

func (t *testEval) term() bool {
	if t.pos >= len(t.args) {
		return t.beyond()
	}
	invert := false
	for t.pos < len(t.args) && t.at(0) == "!" {
		t.pos++
		invert = !invert
	}
	if t.pos >= len(t.args) {
		return t.beyond()
	}
	var v bool
	rest := len(t.args) - t.pos
	switch a := t.at(0); {
	case a == "(":
		t.pos++
		n := 1
		for ; t.pos+n < len(t.args) && t.args[t.pos+n] != ")"; n++ {
			if n == 4 {
				n = len(t.args) - t.pos
				break
			}
		}
		v = t.posix(n)
		switch {
		case t.err != "":
			return false
		case t.pos >= len(t.args):
			return t.fail("%s expected", printfmt.LocaleQuote(")"))
		case t.at(0) != ")":
			return t.fail("%s expected, found %s", printfmt.LocaleQuote(")"), printfmt.LocaleQuote(t.at(0)))
		}
		t.pos++
	case rest >= 4 && a == "-l" && isTestBinop(t.at(2)):
		v = t.binary(true)
	case rest >= 3 && isTestBinop(t.at(1)):
		v = t.binary(false)
	case len(a) == 2 && a[0] == '-':
		if !isTestUnop(a) {
			return t.fail("%s: unary operator expected", printfmt.LocaleQuote(a))
		}
		v = t.unary()
	default:
		v = a != ""
		t.pos++
	}
	return v != invert
}

// testInt reads an integer operand: blanks around, an optional sign.
func (t *testEval) testInt(s string) (*big.Int, bool) {
	trimmed := strings.TrimLeft(s, " \t\n\v\f\r")
	trimmed = strings.TrimRight(trimmed, " \t\n\v\f\r")
	digits := strings.TrimPrefix(strings.TrimPrefix(trimmed, "+"), "-")
	if digits == "" || strings.Trim(digits, "0123456789") != "" || (len(trimmed) > len(digits)+1) {
		t.fail("invalid integer %s", printfmt.LocaleQuote(s))
		return nil, false
	}
	n, _ := new(big.Int).SetString(strings.TrimPrefix(trimmed, "+"), 10)
	return n, true
}

// binary evaluates "A op B", or "-l A op B" with A's length.
func (t *testEval) binary(lengthLeft bool) bool {
	if lengthLeft {
		t.pos++
	}
	l, op, r := t.at(0), t.at(1), t.at(2)
	t.pos += 3
	if lengthLeft {
		l = fmt.Sprint(utf8.RuneCountInString(l))
	}
	switch op {
	case "=", "==":
		return l == r
	case "!=":
		return l != r
	case "-nt", "-ot":
		lt, lok := t.mtime(l)
		rt, rok := t.mtime(r)
		if op == "-ot" {
			lt, lok, rt, rok = rt, rok, lt, lok
		}
		return lok && (!rok || lt.ModTime().After(rt.ModTime()))
	case "-ef":
		a, aerr := t.env.FS.Stat(l)
		b, berr := t.env.FS.Stat(r)
		return aerr == nil && berr == nil && os.SameFile(a, b)
	}
	a, ok := t.testInt(l)
	if !ok {
		return false
	}
	b, ok := t.testInt(r)
	if !ok {
		return false
	}
	c := a.Cmp(b)
	switch op {
	case "-eq":
		return c == 0
	case "-ne":
		return c != 0
	case "-lt":
		return c < 0
	case "-le":
		return c <= 0
	case "-gt":
		return c > 0
	}
	return c >= 0 // -ge
}

func (t *testEval) mtime(name string) (fs.FileInfo, bool) {
	fi, err := t.env.FS.Stat(name)
	return fi, err == nil
}

func (t *testEval) unary() bool {
	op := t.at(0)
	if t.pos+1 >= len(t.args) {
		return t.beyond()
	}
	arg := t.at(1)
	t.pos += 2
	switch op[1] {
	case 'z':
		return arg == ""
	case 'n':
		return arg != ""
	case 't':
		return false
	case 'L', 'h':
		fi, err := t.env.FS.Lstat(arg)
		return err == nil && fi.Mode()&fs.ModeSymlink != 0
	}
	fi, err := t.env.FS.Stat(arg)
	if err != nil {
		return false
	}
	m := fi.Mode()
	switch op[1] {
	case 'f':
		return m.IsRegular()
	case 'd':
		return m.IsDir()
	case 's':
		return fi.Size() > 0
	case 'r':
		return m.Perm()&0o400 != 0
	case 'w':
		return m.Perm()&0o200 != 0
	case 'x':
		return m.Perm()&0o100 != 0
	case 'b':
		return m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0
	case 'c':
		return m&fs.ModeCharDevice != 0
	case 'p':
		return m&fs.ModeNamedPipe != 0
	case 'S':
		return m&fs.ModeSocket != 0
	case 'u':
		return m&fs.ModeSetuid != 0
	case 'g':
		return m&fs.ModeSetgid != 0
	case 'k':
		return m&fs.ModeSticky != 0
	case 'N':
		return fi.ModTime().After(accessTime(fi))
	}
	return true // -e -a -O -G: it exists (every file is the agent's)
}
