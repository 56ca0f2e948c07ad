package bash

import (
	"strconv"
	"strings"
)

// Arithmetic is evaluated from text, as bash does: $(( )), (( )), let,
// for (( )), array subscripts and -i assignments first expand their words
// into a string (arithText), then evaluate it here while parsing it (a
// recursive descent in the shape of bash's expr.c), so that precedence
// after expansion ($((2 * $x)) with x='1+2' is 4), short-circuit without
// side effects, and the error messages with their "error token" all come
// out as bash's.

// arithError is an arithmetic failure with bash's message parts.
type arithError struct {
	expr  string // the expression, leading blanks dropped
	msg   string
	token string // the rest of the expression from the failing token
	// fatal errors (a bad subscript) end the shell rather than the
	// current command line.
	fatal bool
}

func (e *arithError) Error() string {
	return e.expr + ": " + e.msg + " (error token is \"" + e.token + "\")"
}

// maxArithDepth bounds the recursion through variables whose values are
// expressions (x='y+1', y='x+1').
const maxArithDepth = 1024

type arithTok uint8

const (
	tEOF arithTok = iota
	tNum
	tIdent
	tOp
	tLparen
	tRparen
)

type arithParser struct {
	sh     *Shell
	expr   string // the whole expression
	pos    int    // read position
	tok    arithTok
	op     string // operator text, or the identifier/number
	start  int    // where the current token starts (bash's lasttp)
	prevID bool   // the token before this one was an identifier
	// afterSub: the current token ends a subscript (a[i]++).
	afterSub bool
	noeval   int // inside a short-circuited branch
	depth    int
	err      *arithError
}

// evalArith evaluates an arithmetic expression string (already
// expanded).
func (sh *Shell) evalArith(expr string) (int, error) {
	return sh.evalArithDepth(expr, 0)
}

func (sh *Shell) evalArithDepth(expr string, depth int) (int, error) {
	if n, ok := fastInt(expr); ok {
		return n, nil
	}
	pv := arithParser{sh: sh, expr: expr, depth: depth}
	p := &pv
	if depth > maxArithDepth {
		return 0, p.errorf("expression recursion level exceeded")
	}
	p.next()
	if p.tok == tEOF {
		return 0, nil
	}
	v := p.comma()
	if p.err == nil && p.tok != tEOF {
		if p.tok == tOp && !knownArithOp(p.op) {
			p.fail("syntax error: invalid arithmetic operator")
		} else {
			p.fail("syntax error in expression")
		}
	}
	if p.err != nil {
		return 0, p.err
	}
	return v, nil
}

// fastInt parses a plain decimal integer (the common value of a variable).
func fastInt(s string) (int, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	i := 0
	neg := false
	if s[0] == '-' {
		neg = true
		i = 1
		if len(s) == 1 {
			return 0, false
		}
	}
	if s[i] == '0' && len(s) > i+1 {
		return 0, false // octal, hex or base#
	}
	n := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

func (p *arithParser) errorf(msg string) *arithError {
	return &arithError{expr: strings.TrimLeft(p.expr, " \t"), msg: msg, token: p.expr[min(p.start, len(p.expr)):]}
}

func (p *arithParser) fail(msg string) {
	if p.err == nil {
		p.err = p.errorf(msg)
	}
}

func isArithSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// next reads the next token. At the end, start stays on the last token,
// as bash's lasttp does.
func (p *arithParser) next() {
	p.prevID = p.tok == tIdent || p.afterSub
	p.afterSub = false
	for p.pos < len(p.expr) {
		if isArithSpace(p.expr[p.pos]) {
			p.pos++
			continue
		}
		if p.expr[p.pos] == '\\' && p.pos+1 < len(p.expr) && p.expr[p.pos+1] == '\n' {
			p.pos += 2
			continue
		}
		break
	}
	if p.pos >= len(p.expr) {
		p.tok, p.op = tEOF, ""
		return
	}
	p.start = p.pos
	c := p.expr[p.pos]
	switch {
	case c >= '0' && c <= '9':
		j := p.pos
		for j < len(p.expr) && (isIdentChar(p.expr[j]) || p.expr[j] == '#' || p.expr[j] == '@') {
			j++
		}
		p.tok, p.op, p.pos = tNum, p.expr[p.pos:j], j
		return
	case isIdentStart(c):
		j := p.pos
		for j < len(p.expr) && isIdentChar(p.expr[j]) {
			j++
		}
		p.tok, p.op, p.pos = tIdent, p.expr[p.pos:j], j
		return
	case c == '(':
		p.tok, p.op, p.pos = tLparen, "(", p.pos+1
		return
	case c == ')':
		p.tok, p.op, p.pos = tRparen, ")", p.pos+1
		return
	}
	op := matchArithOp(p.expr[p.pos:])
	if op == "" {
		p.tok, p.op, p.pos = tOp, p.expr[p.pos:p.pos+1], p.pos+1
		return
	}
	if (op == "++" || op == "--") && !p.prevID && !p.identFollows(p.pos+2) {
		op = op[:1] // two signs: 1 ++ 2 is 1 + +2
	}
	p.tok, p.op, p.pos = tOp, op, p.pos+len(op)
}

// matchArithOp returns the longest operator at the start of s, or "".
func matchArithOp(s string) string {
	if len(s) >= 3 && s[2] == '=' && (s[:2] == "<<" || s[:2] == ">>") {
		return s[:3]
	}
	if len(s) >= 2 {
		switch s[:2] {
		case "**", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
			"*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=":
			return s[:2]
		}
	}
	switch s[0] {
	case '+', '-', '*', '/', '%', '<', '>', '&', '^', '|', '!', '~', '?', ':', ',', '=':
		return s[:1]
	}
	return ""
}

// identFollows reports whether an identifier starts at i, after blanks.
func (p *arithParser) identFollows(i int) bool {
	for i < len(p.expr) && isArithSpace(p.expr[i]) {
		i++
	}
	return i < len(p.expr) && isIdentStart(p.expr[i])
}

func knownArithOp(op string) bool {
	return op == "(" || op == ")" || op != "" && matchArithOp(op) == op
}

func isAssignOp(op string) bool {
	switch op {
	case "=", "*=", "/=", "%=", "+=", "-=", "<<=", ">>=", "&=", "^=", "|=":
		return true
	}
	return false
}

func (p *arithParser) isOp(op string) bool { return p.err == nil && p.tok == tOp && p.op == op }

func (p *arithParser) comma() int {
	v := p.assign()
	for p.isOp(",") {
		p.next()
		v = p.assign()
	}
	return v
}

// assign parses an assignment (right associative) or a conditional.
func (p *arithParser) assign() int {
	if p.err != nil {
		return 0
	}
	if p.tok == tIdent {
		// Look ahead for NAME[sub] OP= without evaluating anything.
		save := *p
		name := p.op
		sub, hasSub := "", false
		p.next()
		if p.tok == tOp && p.op == "[" {
			s, ok := p.subscript()
			if !ok {
				return 0
			}
			sub, hasSub = s, true
			p.next()
		}
		if p.tok == tOp && isAssignOp(p.op) {
			op := p.op
			p.next()
			rhs := p.assign()
			if p.err != nil {
				return 0
			}
			if p.noeval > 0 {
				return rhs
			}
			v := rhs
			if op != "=" {
				cur := p.varValue(name, sub, hasSub)
				if p.err != nil {
					return 0
				}
				v = p.binary(op[:len(op)-1], cur, rhs)
				if p.err != nil {
					return 0
				}
			}
			p.store(name, sub, hasSub, v)
			return v
		}
		*p = save
	}
	v := p.cond()
	if p.err == nil && p.tok == tOp && isAssignOp(p.op) {
		p.fail("attempted assignment to non-variable")
	}
	return v
}

func (p *arithParser) cond() int {
	c := p.lor()
	if !p.isOp("?") {
		return c
	}
	p.next()
	if c == 0 {
		p.noeval++
	}
	t := p.comma()
	if c == 0 {
		p.noeval--
	}
	if p.err != nil {
		return 0
	}
	if !p.isOp(":") {
		p.fail("`:' expected for conditional expression")
		return 0
	}
	p.next()
	if c != 0 {
		p.noeval++
	}
	f := p.cond()
	if c != 0 {
		p.noeval--
	}
	if c != 0 {
		return t
	}
	return f
}

func (p *arithParser) lor() int {
	v := p.land()
	for p.isOp("||") {
		p.next()
		if v != 0 {
			p.noeval++
			p.land()
			p.noeval--
		} else {
			v = boolInt(p.land() != 0)
		}
		v = boolInt(v != 0)
	}
	return v
}

func (p *arithParser) land() int {
	v := p.bor()
	for p.isOp("&&") {
		p.next()
		if v == 0 {
			p.noeval++
			p.bor()
			p.noeval--
		} else {
			v = boolInt(p.bor() != 0)
		}
		v = boolInt(v != 0)
	}
	return v
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// binaryPrec is the precedence of a left-associative binary operator
// (higher binds tighter), 0 for none.
func binaryPrec(op string) int {
	switch op {
	case "|":
		return 1
	case "^":
		return 2
	case "&":
		return 3
	case "==", "!=":
		return 4
	case "<=", ">=", "<", ">":
		return 5
	case "<<", ">>":
		return 6
	case "+", "-":
		return 7
	case "*", "/", "%":
		return 8
	}
	return 0
}

func (p *arithParser) bor() int { return p.binaryFrom(1) }

// binaryFrom parses binary operators of precedence min and above
// (precedence climbing), operands being powers.
func (p *arithParser) binaryFrom(min int) int {
	v := p.power()
	for p.err == nil && p.tok == tOp {
		prec := binaryPrec(p.op)
		if prec < min {
			break
		}
		op := p.op
		p.next()
		r := p.binaryFrom(prec + 1)
		if p.err != nil {
			return 0
		}
		v = p.binary(op, v, r)
	}
	return v
}

func (p *arithParser) power() int {
	v := p.unary()
	if p.isOp("**") {
		p.next()
		r := p.power()
		if p.err != nil {
			return 0
		}
		return p.binary("**", v, r)
	}
	return v
}

// binary applies a binary operator, with bash's errors.
func (p *arithParser) binary(op string, a, b int) int {
	switch op {
	case "+":
		return a + b
	case "-":
		return a - b
	case "*":
		return a * b
	case "/", "%":
		if b == 0 {
			if p.noeval > 0 {
				return 0
			}
			p.fail("division by 0")
			return 0
		}
		if b == -1 {
			if op == "/" {
				return -a // wraps for the minimum, as on x86 bash
			}
			return 0
		}
		if op == "/" {
			return a / b
		}
		return a % b
	case "**":
		if b < 0 {
			if p.noeval > 0 {
				return 0
			}
			p.fail("exponent less than 0")
			return 0
		}
		r := 1
		for ; b > 0; b >>= 1 {
			if b&1 == 1 {
				r *= a
			}
			a *= a
		}
		return r
	case "<<":
		return a << (uint(b) & 63)
	case ">>":
		return a >> (uint(b) & 63)
	case "&":
		return a & b
	case "|":
		return a | b
	case "^":
		return a ^ b
	case "<":
		return boolInt(a < b)
	case ">":
		return boolInt(a > b)
	case "<=":
		return boolInt(a <= b)
	case ">=":
		return boolInt(a >= b)
	case "==":
		return boolInt(a == b)
	case "!=":
		return boolInt(a != b)
	}
	return 0
}

func (p *arithParser) unary() int {
	if p.err != nil {
		return 0
	}
	if p.tok == tOp {
		switch p.op {
		case "!":
			p.next()
			return boolInt(p.unary() == 0)
		case "~":
			p.next()
			return ^p.unary()
		case "-":
			p.next()
			return -p.unary()
		case "+":
			p.next()
			return p.unary()
		case "++", "--":
			// ++NAME (next guarantees an identifier follows)
			op := p.op
			p.next()
			if p.tok != tIdent {
				p.fail("syntax error: operand expected")
				return 0
			}
			name := p.op
			sub, hasSub := "", false
			p.next()
			if p.err == nil && p.tok == tOp && p.op == "[" {
				s, ok := p.subscript()
				if !ok {
					return 0
				}
				sub, hasSub = s, true
				p.next()
			}
			v := p.varValue(name, sub, hasSub)
			if p.err != nil {
				return 0
			}
			if op == "++" {
				v++
			} else {
				v--
			}
			if p.noeval == 0 {
				p.store(name, sub, hasSub, v)
			}
			return v
		}
	}
	return p.primary()
}

func (p *arithParser) primary() int {
	if p.err != nil {
		return 0
	}
	switch p.tok {
	case tLparen:
		p.next()
		v := p.comma()
		if p.err != nil {
			return 0
		}
		if p.tok != tRparen {
			p.fail("missing `)'")
			return 0
		}
		p.next()
		return v
	case tNum:
		n, err := p.number(p.op)
		if err != "" {
			p.fail(err)
			return 0
		}
		p.next()
		return n
	case tIdent:
		name := p.op
		sub, hasSub := "", false
		p.next()
		if p.err == nil && p.tok == tOp && p.op == "[" {
			s, ok := p.subscript()
			if !ok {
				return 0
			}
			sub, hasSub = s, true
			p.next()
		}
		v := p.varValue(name, sub, hasSub)
		if p.err != nil {
			return 0
		}
		if p.tok == tOp && (p.op == "++" || p.op == "--") {
			nv := v + 1
			if p.op == "--" {
				nv = v - 1
			}
			if p.noeval == 0 {
				p.store(name, sub, hasSub, nv)
			}
			p.next()
		}
		return v
	case tEOF:
		p.fail("syntax error: operand expected")
		return 0
	}
	p.fail("syntax error: operand expected")
	return 0
}

// subscript reads "[...]" at the current token (an operator "["), with
// nested brackets, and leaves the position after the "]".
func (p *arithParser) subscript() (string, bool) {
	open := p.start
	depth := 0
	for j := open; j < len(p.expr); j++ {
		switch p.expr[j] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				p.pos = j + 1
				p.afterSub = true
				return p.expr[open+1 : j], true
			}
		}
	}
	// bash names the variable and what follows
	st := open - 1
	for st > 0 && isIdentChar(p.expr[st-1]) {
		st--
	}
	p.start = max(st, 0)
	e := p.errorf("bad array subscript")
	e.fatal = true
	p.err = e
	return "", false
}

// varValue reads a variable in an expression: its value evaluated as an
// expression (0 when unset or empty).
func (p *arithParser) varValue(name, sub string, hasSub bool) int {
	if p.noeval > 0 {
		return 0
	}
	sh := p.sh
	if hasSub && p.depth > 0 {
		s, err := sh.expandRuntime(sub)
		if err != nil {
			p.propagate(err)
			return 0
		}
		sub = s
	}
	var s string
	var ok bool
	if hasSub {
		r := sh.resolve(name)
		if v := sh.lookup(r.name); v != nil && v.attrs&aAssoc != 0 {
			s, ok = sh.element(r.name, sh.assocKey(sub))
		} else {
			i, err := sh.evalArithDepth(sub, p.depth+1)
			if err != nil {
				p.propagate(err)
				return 0
			}
			if v == nil || sh.badNegative(r.name, v, i) {
				ok = false
			} else {
				s, ok = sh.indexOf(v, i)
			}
		}
		if !ok && sh.opts.nounset {
			p.unbound(name + "[" + sub + "]")
			return 0
		}
	} else {
		s, ok = sh.getVar(name)
		if !ok && sh.opts.nounset {
			p.unbound(name)
			return 0
		}
	}
	if s == "" {
		return 0
	}
	n, err := sh.evalArithDepth(s, p.depth+1)
	if err != nil {
		p.propagate(err)
		return 0
	}
	return n
}

func (p *arithParser) propagate(err error) {
	if p.err != nil {
		return
	}
	if ae, ok := err.(*arithError); ok {
		p.err = ae
		return
	}
	p.err = &arithError{expr: p.expr, msg: err.Error(), token: p.expr[min(p.start, len(p.expr)):]}
}

// unbound reports an unset variable under set -u.
func (p *arithParser) unbound(name string) {
	if p.err == nil {
		p.err = &arithError{msg: "unbound variable", token: name, expr: name, fatal: true}
		p.sh.pendingUnbound = name
	}
}

// store assigns the result of an assignment operator.
func (p *arithParser) store(name, sub string, hasSub bool, v int) {
	sh := p.sh
	if hasSub && p.depth > 0 {
		s, err := sh.expandRuntime(sub)
		if err != nil {
			p.propagate(err)
			return
		}
		sub = s
	}
	val := strconv.Itoa(v)
	var err error
	if hasSub {
		r := sh.resolve(name)
		if x := sh.lookup(r.name); x != nil && x.attrs&aAssoc != 0 {
			err = sh.setElement(r.name, sh.assocKey(sub), val, false)
		} else {
			i, e := sh.evalArithDepth(sub, p.depth+1)
			if e != nil {
				p.propagate(e)
				return
			}
			err = sh.setIndex(r.name, i, val, false)
		}
	} else {
		err = sh.setVar(name, val)
	}
	if err != nil {
		p.propagate(err)
	}
}

// number parses an integer constant: decimal, 0octal, 0xhex or base#n.
func (p *arithParser) number(s string) (int, string) {
	base := 10
	digits := s
	if i := strings.IndexByte(s, '#'); i >= 0 {
		b, err := strconv.Atoi(s[:i])
		if err != nil || b < 2 || b > 64 {
			return 0, "invalid arithmetic base"
		}
		base, digits = b, s[i+1:]
		if digits == "" {
			return 0, "invalid integer constant"
		}
	} else if len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		base, digits = 16, s[2:]
	} else if len(s) > 1 && s[0] == '0' {
		base, digits = 8, s[1:]
	}
	n := 0
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		var d int
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c >= 'a' && c <= 'z':
			d = int(c-'a') + 10
		case c >= 'A' && c <= 'Z':
			d = int(c-'A') + 10
			if base > 36 {
				d += 26
			}
		case c == '@':
			d = 62
		case c == '_':
			d = 63
		default:
			return 0, "invalid integer constant"
		}
		if d >= base {
			return 0, "value too great for base"
		}
		n = n*base + d
	}
	return n, ""
}

// evalIndex evaluates an indexed array's subscript.
func (sh *Shell) evalIndex(sub string) (int, error) {
	if n, ok := fastInt(sub); ok {
		return n, nil
	}
	return sh.evalArith(sub)
}

// assocKey is the key an associative array's subscript text names: the
// text itself (it was expanded already).
func (sh *Shell) assocKey(sub string) string { return sub }
