package bash

import (
	"context"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/syntax"

	"github.com/wsfs/wsfs/runner/internal/gnuregex"
)

// test, [ and [[ ]].

// testError is a malformed test expression: status 2.
type testError struct{ msg string }

func (e *testError) Error() string { return e.msg }

func builtinTest(sh *Shell, args []string) int {
	name := args[0]
	args = args[1:]
	if name == "[" {
		if len(args) == 0 || args[len(args)-1] != "]" {
			sh.errorf("[: missing `]'")
			return 2
		}
		args = args[:len(args)-1]
	}
	t := &testParser{sh: sh, args: args}
	ok, err := t.eval()
	if err != nil {
		sh.errorf("%s: %s", name, err.Error())
		return 2
	}
	return boolStatus(ok)
}

// testParser evaluates test's arguments, by POSIX's rules for up to four
// arguments and by precedence (! -a -o and parentheses) beyond.
type testParser struct {
	sh   *Shell
	args []string
	pos  int
}

func (t *testParser) eval() (bool, error) {
	a := t.args
	switch len(a) {
	case 0:
		return false, nil
	case 1:
		return a[0] != "", nil
	case 2:
		if a[0] == "!" {
			return a[1] == "", nil
		}
		if isUnaryTestOp(a[0]) {
			return t.sh.unaryTest(a[0], a[1])
		}
		return false, &testError{a[0] + ": unary operator expected"}
	case 3:
		if isBinaryTestOp(a[1]) {
			return t.sh.binaryTest(a[1], a[0], a[2], false)
		}
		if a[0] == "!" {
			r, err := (&testParser{sh: t.sh, args: a[1:]}).eval()
			return !r, err
		}
		if a[0] == "(" && a[2] == ")" {
			return a[1] != "", nil
		}
		if a[1] == "-a" || a[1] == "-o" {
			break
		}
		return false, &testError{a[1] + ": binary operator expected"}
	case 4:
		if a[0] == "!" {
			r, err := (&testParser{sh: t.sh, args: a[1:]}).eval()
			return !r, err
		}
		if a[0] == "(" && a[3] == ")" {
			return (&testParser{sh: t.sh, args: a[1:3]}).eval()
		}
	}
	r, err := t.or()
	if err != nil {
		return false, err
	}
	if t.pos < len(t.args) {
		return false, &testError{"too many arguments"}
	}
	return r, nil
}

func (t *testParser) peek() (string, bool) {
	if t.pos < len(t.args) {
		return t.args[t.pos], true
	}
	return "", false
}

func (t *testParser) or() (bool, error) {
	l, err := t.and()
	if err != nil {
		return false, err
	}
	for {
		a, ok := t.peek()
		if !ok || a != "-o" {
			return l, nil
		}
		t.pos++
		r, err := t.and()
		if err != nil {
			return false, err
		}
		l = l || r
	}
}

func (t *testParser) and() (bool, error) {
	l, err := t.not()
	if err != nil {
		return false, err
	}
	for {
		a, ok := t.peek()
		if !ok || a != "-a" {
			return l, nil
		}
		t.pos++
		r, err := t.not()
		if err != nil {
			return false, err
		}
		l = l && r
	}
}

func (t *testParser) not() (bool, error) {
	if a, ok := t.peek(); ok && a == "!" && t.pos+1 < len(t.args) {
		t.pos++
		r, err := t.not()
		return !r, err
	}
	return t.primary()
}

func (t *testParser) primary() (bool, error) {
	a, ok := t.peek()
	if !ok {
		return false, &testError{"argument expected"}
	}
	if a == "(" {
		t.pos++
		r, err := t.or()
		if err != nil {
			return false, err
		}
		if c, ok := t.peek(); !ok || c != ")" {
			return false, &testError{"`)' expected"}
		}
		t.pos++
		return r, nil
	}
	if t.pos+2 < len(t.args)+0 && isBinaryTestOp(t.args[t.pos+1]) || t.pos+2 == len(t.args) && false {
		l, op, r := t.args[t.pos], t.args[t.pos+1], t.args[t.pos+2]
		t.pos += 3
		return t.sh.binaryTest(op, l, r, false)
	}
	if t.pos+2 <= len(t.args)-0 && t.pos+2 < len(t.args)+1 && isBinaryTestOp(t.argAt(t.pos+1)) {
		l, op, r := t.args[t.pos], t.args[t.pos+1], t.argAt(t.pos+2)
		t.pos += 3
		return t.sh.binaryTest(op, l, r, false)
	}
	if isUnaryTestOp(a) && t.pos+1 < len(t.args) {
		t.pos += 2
		return t.sh.unaryTest(a, t.args[t.pos-1])
	}
	t.pos++
	return a != "", nil
}

func (t *testParser) argAt(i int) string {
	if i < len(t.args) {
		return t.args[i]
	}
	return ""
}

func isUnaryTestOp(s string) bool {
	switch s {
	case "-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-p", "-r", "-s", "-t", "-u", "-w", "-x",
		"-G", "-L", "-N", "-O", "-S", "-z", "-n", "-o", "-v", "-R":
		return true
	}
	return false
}

func isBinaryTestOp(s string) bool {
	switch s {
	case "=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef", "-a", "-o":
		return true
	}
	return false
}

// unaryTest applies a unary operator.
func (sh *Shell) unaryTest(op, x string) (bool, error) {
	switch op {
	case "-z":
		return x == "", nil
	case "-n":
		return x != "", nil
	case "-o":
		if o := findSetOption(x); o != nil {
			return *o.field(&sh.opts), nil
		}
		return false, nil
	case "-v":
		return sh.varIsSet(x), nil
	case "-R":
		v := sh.vars.m[x]
		return v != nil && v.attrs&aNameref != 0 && v.set, nil
	case "-t":
		return false, nil
	}
	fsys := sh.view()
	if op == "-h" || op == "-L" {
		fi, err := fsys.Lstat(x)
		return err == nil && fi.Mode()&fs.ModeSymlink != 0, nil
	}
	var fi fs.FileInfo
	var err error
	if n, ok := devFdNumber(x); ok {
		of := sh.fds.get(n)
		if of == nil {
			return false, nil
		}
		fi, err = (&fdView{of: of, n: n}).Stat()
	} else {
		fi, err = fsys.Stat(x)
	}
	if err != nil {
		return false, nil
	}
	m := fi.Mode()
	switch op {
	case "-a", "-e":
		return true, nil
	case "-f":
		return m.IsRegular(), nil
	case "-d":
		return m.IsDir(), nil
	case "-b":
		return m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0, nil
	case "-c":
		return m&fs.ModeCharDevice != 0, nil
	case "-p":
		return m&fs.ModeNamedPipe != 0, nil
	case "-S":
		return m&fs.ModeSocket != 0, nil
	case "-g":
		return m&fs.ModeSetgid != 0, nil
	case "-u":
		return m&fs.ModeSetuid != 0, nil
	case "-k":
		return m&fs.ModeSticky != 0, nil
	case "-s":
		return fi.Size() > 0, nil
	case "-r", "-w":
		// root reads and writes everything it can reach, except the
		// runner's programs, which are read-only.
		if op == "-w" {
			if _, ok := sh.program(x); ok {
				return false, nil
			}
		}
		return true, nil
	case "-x":
		return m.IsDir() || m.Perm()&0o111 != 0, nil
	case "-O", "-G":
		return true, nil
	case "-N":
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			return st.Mtim.Nano() > st.Atim.Nano(), nil
		}
		return false, nil
	}
	return false, &testError{op + ": unary operator expected"}
}

// varIsSet is -v NAME (or NAME[i]).
func (sh *Shell) varIsSet(x string) bool {
	if b, sub, ok := splitSubscript(x); ok {
		r := sh.resolve(b)
		if sub == "@" || sub == "*" {
			return len(sh.values(r.name)) > 0
		}
		v := sh.lookup(r.name)
		if v == nil {
			return false
		}
		if v.attrs&aAssoc != 0 {
			_, ok := sh.element(r.name, sub)
			return ok
		}
		i, err := sh.evalIndex(sub)
		if err != nil || sh.badNegative(r.name, v, i) {
			return false
		}
		_, ok := sh.indexOf(v, i)
		return ok
	}
	if x == "" {
		return false
	}
	if c := x[0]; c >= '0' && c <= '9' {
		n, err := strconv.Atoi(x)
		return err == nil && n <= len(sh.params)
	}
	_, ok := sh.getVar(x)
	return ok
}

// binaryTest applies a binary operator; dbl is [[ ]] (integer operands
// are arithmetic expressions there).
func (sh *Shell) binaryTest(op, x, y string, dbl bool) (bool, error) {
	switch op {
	case "=", "==":
		return x == y, nil
	case "!=":
		return x != y, nil
	case "<":
		return x < y, nil
	case ">":
		return x > y, nil
	case "-a":
		return x != "" && y != "", nil
	case "-o":
		return x != "" || y != "", nil
	case "-nt", "-ot", "-ef":
		fsys := sh.view()
		a, errA := fsys.Stat(x)
		b, errB := fsys.Stat(y)
		switch op {
		case "-nt":
			if errA != nil {
				return false, nil
			}
			return errB != nil || a.ModTime().After(b.ModTime()), nil
		case "-ot":
			if errB != nil {
				return false, nil
			}
			return errA != nil || a.ModTime().Before(b.ModTime()), nil
		}
		return errA == nil && errB == nil && os.SameFile(a, b), nil
	}
	var a, b int
	var err error
	if dbl {
		if a, err = sh.evalArith(x); err != nil {
			return false, err
		}
		if b, err = sh.evalArith(y); err != nil {
			return false, err
		}
	} else {
		if a, err = testInt(x); err != nil {
			return false, err
		}
		if b, err = testInt(y); err != nil {
			return false, err
		}
	}
	switch op {
	case "-eq":
		return a == b, nil
	case "-ne":
		return a != b, nil
	case "-lt":
		return a < b, nil
	case "-le":
		return a <= b, nil
	case "-gt":
		return a > b, nil
	case "-ge":
		return a >= b, nil
	}
	return false, &testError{op + ": binary operator expected"}
}

// testInt reads test's integer operand: decimal with blanks and a sign.
func testInt(s string) (int, error) {
	t := strings.TrimSpace(s)
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return 0, &testError{s + ": integer expression expected"}
	}
	return int(n), nil
}

// testClause runs [[ … ]].
func (sh *Shell) testClause(c *syntax.TestClause) {
	var tr *[]string
	if sh.opts.xtrace {
		tr = &[]string{}
		sh.condTrace = tr
		defer func() {
			sh.condTrace = nil
			sh.trace("[[ " + strings.Join(*tr, " ") + " ]]")
		}()
	}
	ok, err := sh.condTest(c.X)
	if err != nil {
		if ae, isArith := err.(*arithError); isArith {
			sh.arithFailed(ae, "")
			return
		}
		if ee, isExp := err.(*expandError); isExp {
			sh.expandFailed(ee)
			return
		}
		if _, isRe := err.(*regexError); isRe {
			sh.status = 2
			return
		}
		sh.errorf("%s", err.Error())
		sh.status = 2
		return
	}
	sh.status = boolStatus(ok)
}

// condTest evaluates a [[ ]] expression.
func (sh *Shell) condTest(e syntax.TestExpr) (bool, error) {
	switch e := e.(type) {
	case *syntax.Word:
		s, err := sh.expandString(e)
		sh.condWord(s)
		return s != "", err
	case *syntax.ParenTest:
		sh.condWord("(")
		r, err := sh.condTest(e.X)
		sh.condWord(")")
		return r, err
	case *syntax.UnaryTest:
		if e.Op == syntax.TsNot {
			r, err := sh.condTest(e.X)
			return !r, err
		}
		w, ok := e.X.(*syntax.Word)
		if !ok {
			return false, &testError{"unexpected argument to unary operator"}
		}
		sh.condWord(e.Op.String())
		s, err := sh.expandString(w)
		if err != nil {
			return false, err
		}
		sh.condWord(s)
		return sh.unaryTest(e.Op.String(), s)
	case *syntax.BinaryTest:
		switch e.Op {
		case syntax.AndTest:
			l, err := sh.condTest(e.X)
			sh.condWord("&&")
			if err != nil || !l {
				sh.condWord(strings.TrimSpace(sh.nodeText(e.Y)))
				return false, err
			}
			return sh.condTest(e.Y)
		case syntax.OrTest:
			l, err := sh.condTest(e.X)
			sh.condWord("||")
			if err != nil || l {
				sh.condWord(strings.TrimSpace(sh.nodeText(e.Y)))
				return l, err
			}
			return sh.condTest(e.Y)
		}
		lw, _ := e.X.(*syntax.Word)
		rw, _ := e.Y.(*syntax.Word)
		if lw == nil || rw == nil {
			return false, &testError{"syntax error in conditional expression"}
		}
		l, err := sh.expandString(lw)
		if err != nil {
			return false, err
		}
		sh.condWord(l)
		sh.condWord(e.Op.String())
		switch e.Op {
		case syntax.TsMatch, syntax.TsMatchShort, syntax.TsNoMatch:
			pat, err := sh.expandPattern(rw)
			if err != nil {
				return false, err
			}
			sh.condWord(pat)
			m := sh.matchPattern(pat, l, sh.shopts.nocasematch, true)
			if e.Op == syntax.TsNoMatch {
				return !m, nil
			}
			return m, nil
		case syntax.TsReMatch:
			return sh.regexMatch(l, rw)
		}
		r, err := sh.expandString(rw)
		if err != nil {
			return false, err
		}
		sh.condWord(r)
		return sh.binaryTest(e.Op.String(), l, r, true)
	}
	return false, &testError{"syntax error in conditional expression"}
}

// regexMatch is [[ s =~ re ]]: POSIX ERE with quoted parts literal;
// BASH_REMATCH gets the match and its groups.
func (sh *Shell) regexMatch(s string, w *syntax.Word) (bool, error) {
	x := expander{sh: sh, mode: modePattern}
	if err := x.word(w); err != nil {
		return false, err
	}
	var b strings.Builder
	for i, c := range x.cur.b {
		if x.cur.m[i]&mGlob == 0 && strings.IndexByte(`\.[]()*+?{}|^$`, c) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	if !validBraces(b.String()) {
		return false, &regexError{}
	}
	re, err := gnuregex.Compile(b.String(), gnuregex.Options{Syntax: gnuregex.PosixERE, IgnoreCase: sh.shopts.nocasematch})
	if err != nil {
		return false, &regexError{}
	}
	ms, err := re.FindAll(context.Background(), []byte(s), 1, true)
	if err != nil || len(ms) == 0 {
		sh.unsetVar("BASH_REMATCH", true)
		sh.setArray("BASH_REMATCH", nil, false, false)
		return false, nil
	}
	m := ms[0]
	var vals []arrayValue
	for i := 0; i+1 < len(m); i += 2 {
		v := ""
		if m[i] >= 0 {
			v = s[m[i]:m[i+1]]
		}
		vals = append(vals, arrayValue{val: v})
	}
	sh.unsetVar("BASH_REMATCH", true)
	sh.setArray("BASH_REMATCH", vals, false, false)
	return true, nil
}

// validBraces reports whether every unescaped { of an ERE starts a
// valid interval after something to repeat, as glibc's regcomp requires
// (GNU grep's parser takes a stray { literally; bash's =~ refuses it).
func validBraces(re string) bool {
	inBracket := false
	for i := 0; i < len(re); i++ {
		c := re[i]
		switch {
		case c == '\\':
			i++
		case inBracket:
			if c == ']' {
				inBracket = false
			}
		case c == '[':
			inBracket = true
			if i+1 < len(re) && (re[i+1] == ']' || re[i+1] == '^') {
				i++
				if re[i] == '^' && i+1 < len(re) && re[i+1] == ']' {
					i++
				}
			}
		case c == '{':
			if i == 0 || strings.IndexByte("(|^", re[i-1]) >= 0 {
				return false
			}
			j := i + 1
			for j < len(re) && (re[j] >= '0' && re[j] <= '9' || re[j] == ',') {
				j++
			}
			if j == i+1 || j >= len(re) || re[j] != '}' {
				return false
			}
			i = j
		}
	}
	return true
}

// regexError is an invalid regular expression: [[ ]] gives status 2
// without a message.
type regexError struct{}

func (e *regexError) Error() string { return "" }

// condWord records a [[ ]] operand for its xtrace line.
func (sh *Shell) condWord(s string) {
	if sh.condTrace != nil {
		*sh.condTrace = append(*sh.condTrace, s)
	}
}
