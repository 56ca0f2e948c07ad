package coreutils

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/gnuregex"
	"github.com/wsfs/wsfs/runner/internal/printfmt"
)

// expr's exit statuses, as GNU's.
const (
	exprNull    = 1 // the result is null or 0
	exprInvalid = 2 // a syntax error or an invalid operation
)

// exprValue is an integer (arbitrary precision, as GNU's GMP build) or a
// string.
type exprValue struct {
	num   *big.Int
	str   string
	isNum bool
}

func exprInt(n *big.Int) exprValue { return exprValue{num: n, isNum: true} }
func exprStr(s string) exprValue   { return exprValue{str: s} }

func (v exprValue) String() string {
	if v.isNum {
		return v.num.String()
	}
	return v.str
}

// null is GNU's null(): 0, "", or a string of zeros with an optional "-".
func (v exprValue) null() bool {
	if v.isNum {
		return v.num.Sign() == 0
	}
	s := strings.TrimPrefix(v.str, "-")
	return v.str == "" || (s != "" && strings.Trim(s, "0") == "")
}

// looksLikeInteger is an optional "-" and decimal digits.
func looksLikeInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// toInt converts v for arithmetic.
func (v exprValue) toInt() (*big.Int, bool) {
	if v.isNum {
		return v.num, true
	}
	if !looksLikeInteger(v.str) {
		return nil, false
	}
	n, ok := new(big.Int).SetString(v.str, 10)
	return n, ok
}

type exprParser struct {
	ctx  context.Context
	args []string
	pos  int
	err  string // the first error; the rest of the expression is then skipped
}

// fail records the first error and consumes the remaining arguments, so
// parsing unwinds without evaluating anything more.
func (p *exprParser) fail(format string, a ...any) exprValue {
	if p.err == "" {
		p.err = fmt.Sprintf(format, a...)
	}
	p.pos = len(p.args)
	return exprStr("")
}

// next consumes the argument if it is tok.
func (p *exprParser) next(tok string) bool {
	if p.pos < len(p.args) && p.args[p.pos] == tok {
		p.pos++
		return true
	}
	return false
}

func (p *exprParser) nextOf(toks ...string) string {
	for _, t := range toks {
		if p.next(t) {
			return t
		}
	}
	return ""
}

// runExpr evaluates an expression as GNU expr does: exit 0 when the result
// is neither null nor 0, 1 when it is, 2 for an invalid expression.
func runExpr(ctx context.Context, env *command.Env) int {
	args := env.Args[1:]
	if len(args) == 1 && (args[0] == "--help" || args[0] == "--version") {
		return helpOnly(env, args[0], "expr EXPRESSION", "")
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return usageFail(env, exprInvalid, "missing operand")
	}
	p := &exprParser{ctx: ctx, args: args}
	v := p.or(true)
	if p.pos < len(p.args) {
		p.fail("syntax error: unexpected argument %s", printfmt.LocaleQuote(p.args[p.pos]))
	}
	if p.err != "" {
		env.Errorf("%s", p.err)
		return exprInvalid
	}
	fmt.Fprintln(env.Stdout, v.String())
	if v.null() {
		return exprNull
	}
	return 0
}

func (p *exprParser) or(eval bool) exprValue {
	l := p.and(eval)
	for p.next("|") {
		r := p.and(eval && l.null())
		if l.null() {
			l = r
			if l.null() {
				l = exprInt(new(big.Int))
			}
		}
	}
	return l
}

func (p *exprParser) and(eval bool) exprValue {
	l := p.compare(eval)
	for p.next("&") {
		r := p.compare(eval && !l.null())
		if l.null() || r.null() {
			l = exprInt(new(big.Int))
		}
	}
	return l
}

func (p *exprParser) compare(eval bool) exprValue {
	l := p.sum(eval)
	for {
		op := p.nextOf("<", "<=", "=", "==", "!=", ">=", ">")
		if op == "" {
			return l
		}
		r := p.sum(eval)
		if !eval || p.err != "" {
			continue
		}
		ls, rs := l.String(), r.String()
		var cmp int
		if looksLikeInteger(ls) && looksLikeInteger(rs) {
			a, _ := new(big.Int).SetString(ls, 10)
			b, _ := new(big.Int).SetString(rs, 10)
			cmp = a.Cmp(b)
		} else {
			cmp = strings.Compare(ls, rs)
		}
		var ok bool
		switch op {
		case "<":
			ok = cmp < 0
		case "<=":
			ok = cmp <= 0
		case "=", "==":
			ok = cmp == 0
		case "!=":
			ok = cmp != 0
		case ">=":
			ok = cmp >= 0
		case ">":
			ok = cmp > 0
		}
		if ok {
			l = exprInt(big.NewInt(1))
		} else {
			l = exprInt(new(big.Int))
		}
	}
}

// arith applies + - * / % to two values.
func (p *exprParser) arith(op string, l, r exprValue) exprValue {
	a, aok := l.toInt()
	b, bok := r.toInt()
	if !aok || !bok {
		return p.fail("non-integer argument")
	}
	z := new(big.Int)
	switch op {
	case "+":
		z.Add(a, b)
	case "-":
		z.Sub(a, b)
	case "*":
		z.Mul(a, b)
	default:
		if b.Sign() == 0 {
			return p.fail("division by zero")
		}
		if op == "/" {
			z.Quo(a, b) // truncates toward zero, as C and GMP's tdiv
		} else {
			z.Rem(a, b)
		}
	}
	return exprInt(z)
}

func (p *exprParser) sum(eval bool) exprValue { return p.arithLevel(eval, p.product, "+", "-") }

func (p *exprParser) product(eval bool) exprValue {
	return p.arithLevel(eval, p.match, "*", "/", "%")
}

// arithLevel parses operands of the next level joined by ops, left to
// right.
func (p *exprParser) arithLevel(eval bool, operand func(bool) exprValue, ops ...string) exprValue {
	l := operand(eval)
	for {
		op := p.nextOf(ops...)
		if op == "" {
			return l
		}
		r := operand(eval)
		if eval {
			l = p.arith(op, l, r)
		}
	}
}

func (p *exprParser) match(eval bool) exprValue {
	l := p.unary(eval)
	for p.next(":") {
		r := p.unary(eval)
		if eval {
			l = p.colon(l.String(), r.String())
		}
	}
	return l
}

func (p *exprParser) unary(eval bool) exprValue {
	switch {
	case p.next("+"):
		if p.pos >= len(p.args) {
			return p.fail("syntax error: missing argument after %s", printfmt.LocaleQuote("+"))
		}
		p.pos++
		return exprStr(p.args[p.pos-1])
	case p.next("length"):
		s := p.unary(eval).String()
		return exprInt(big.NewInt(int64(utf8.RuneCountInString(s))))
	case p.next("match"):
		l := p.unary(eval)
		r := p.unary(eval)
		if !eval {
			return exprInt(new(big.Int))
		}
		return p.colon(l.String(), r.String())
	case p.next("index"):
		s := []rune(p.unary(eval).String())
		chars := p.unary(eval).String()
		for i, r := range s {
			if strings.ContainsRune(chars, r) {
				return exprInt(big.NewInt(int64(i + 1)))
			}
		}
		return exprInt(new(big.Int))
	case p.next("substr"):
		s := []rune(p.unary(eval).String())
		i1, ok1 := p.unary(eval).toInt()
		i2, ok2 := p.unary(eval).toInt()
		if !ok1 || !ok2 || !i1.IsInt64() || !i2.IsInt64() {
			return exprStr("")
		}
		pos, n := i1.Int64(), i2.Int64()
		if pos < 1 || n < 1 || pos > int64(len(s)) {
			return exprStr("")
		}
		end := min(int64(len(s)), pos-1+n)
		return exprStr(string(s[pos-1 : end]))
	}
	return p.primary(eval)
}

func (p *exprParser) primary(eval bool) exprValue {
	if p.pos >= len(p.args) {
		if p.pos == 0 {
			return p.fail("syntax error: missing argument")
		}
		return p.fail("syntax error: missing argument after %s", printfmt.LocaleQuote(p.args[p.pos-1]))
	}
	if p.next("(") {
		v := p.or(eval)
		if p.next(")") {
			return v
		}
		if p.pos >= len(p.args) {
			return p.fail("syntax error: expecting ')' after %s", printfmt.LocaleQuote(p.args[p.pos-1]))
		}
		return p.fail("syntax error: expecting ')' instead of %s", printfmt.LocaleQuote(p.args[p.pos]))
	}
	if p.next(")") {
		return p.fail("syntax error: unexpected ')'")
	}
	p.pos++
	return exprStr(p.args[p.pos-1])
}

// colon is STRING : REGEX, a basic regular expression anchored at the
// start: the first group's text when the pattern has one, else the
// number of characters matched.
func (p *exprParser) colon(s, pattern string) exprValue {
	if p.err != "" {
		return exprStr("")
	}
	re, err := gnuregex.Compile(pattern, gnuregex.Options{Syntax: gnuregex.Expr})
	if err != nil {
		return p.fail("%s", err.Error())
	}
	groups := re.Pattern().Groups() > 0
	// The leftmost match starts at 0 whenever any match does.
	m, err := re.FindAll(p.ctx, []byte(s), 1, true)
	if err != nil {
		return p.fail("%s", err.Error())
	}
	if len(m) > 0 && m[0][0] != 0 {
		m = nil
	}
	switch {
	case len(m) == 0 && groups:
		return exprStr("")
	case len(m) == 0:
		return exprInt(new(big.Int))
	case groups:
		if m[0][2] < 0 {
			return exprStr("")
		}
		return exprStr(s[m[0][2]:m[0][3]])
	}
	return exprInt(big.NewInt(int64(utf8.RuneCountInString(s[m[0][0]:m[0][1]]))))
}
