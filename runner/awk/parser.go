package awk

import (
	"fmt"
	"strings"
)

// Special variables live in the interpreter, not in slots.
const (
	spNF = iota
	spNR
	spFNR
	spFS
	spOFS
	spORS
	spRS
	spRT
	spSUBSEP
	spCONVFMT
	spOFMT
	spRSTART
	spRLENGTH
	spFILENAME
	spARGC
)

var specialNames = map[string]int{
	"NF": spNF, "NR": spNR, "FNR": spFNR, "FS": spFS, "OFS": spOFS, "ORS": spORS,
	"RS": spRS, "RT": spRT, "SUBSEP": spSUBSEP, "CONVFMT": spCONVFMT, "OFMT": spOFMT,
	"RSTART": spRSTART, "RLENGTH": spRLENGTH, "FILENAME": spFILENAME, "ARGC": spARGC,
}

// parseError is what the parser panics with; parse recovers it.
type parseError struct{ err error }

type argLink struct {
	arg   *variable
	call  *callExpr
	index int
}

type parser struct {
	toks      []token
	pos       int
	tok       token
	fn        *function // function being parsed, or nil
	noGreater bool      // inside print arguments: ">" is a redirection
	action    string    // "BEGIN" or "END" while parsing one
	prog      *program
	calls     []*callExpr
	links     []argLink
}

func parse(src string) (prog *program, err error) {
	prog = &program{funcs: map[string]*function{}, globalMap: map[string]*variable{}}
	toks, err := lex(src, func(pos int, msg string) {
		prog.warnings = append(prog.warnings, syntaxError{pos: pos, msg: msg})
	})
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, prog: prog}
	p.tok = toks[0]
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(parseError)
			if !ok {
				// A bug here must not take the runner down.
				pe.err = fmt.Errorf("internal parser error: %v", r)
			}
			prog, err = nil, pe.err
		}
	}()
	// ARGV and ENVIRON are the predefined arrays.
	p.global("ARGV", 0).kind = kindArray
	p.global("ENVIRON", 0).kind = kindArray
	p.program()
	p.resolve()
	return p.prog, nil
}

func (p *parser) fail(pos int, format string, a ...any) {
	panic(parseError{&syntaxError{pos: pos, msg: fmt.Sprintf(format, a...)}})
}

func (p *parser) syntax() {
	if p.tok.t == tNewline || p.tok.t == tEOF {
		p.fail(p.tok.pos, "unexpected newline or end of string")
	}
	p.fail(p.tok.pos, "syntax error")
}

func (p *parser) next() {
	if p.pos < len(p.toks)-1 {
		p.pos++
	}
	p.tok = p.toks[p.pos]
}

func (p *parser) peek(n int) tok {
	if p.pos+n < len(p.toks) {
		return p.toks[p.pos+n].t
	}
	return tEOF
}

func (p *parser) seek(pos int) {
	p.pos = pos
	p.tok = p.toks[pos]
}

func (p *parser) expect(t tok) token {
	if p.tok.t != t {
		p.syntax()
	}
	tk := p.tok
	p.next()
	return tk
}

func (p *parser) optNewlines() {
	for p.tok.t == tNewline {
		p.next()
	}
}

func (p *parser) skipTerminators() {
	for p.tok.t == tNewline || p.tok.t == tSemi {
		p.next()
	}
}

func (p *parser) program() {
	p.optNewlines()
	if p.tok.t == tSemi {
		p.fail(p.tok.pos, "each rule must have a pattern or an action part")
	}
	for p.tok.t != tEOF {
		p.item()
		semis := 0
		for p.tok.t == tNewline || p.tok.t == tSemi {
			if p.tok.t == tSemi {
				semis++
				if semis > 1 {
					p.fail(p.tok.pos, "each rule must have a pattern or an action part")
				}
			}
			p.next()
		}
	}
}

func (p *parser) item() {
	switch p.tok.t {
	case tFunction:
		p.function()
	case tBegin:
		p.next()
		if p.tok.t != tLbrace {
			p.fail(p.tok.pos, "BEGIN blocks must have an action part")
		}
		p.action = "BEGIN"
		p.prog.begins = append(p.prog.begins, p.block())
		p.action = ""
	case tEnd:
		p.next()
		if p.tok.t != tLbrace {
			p.fail(p.tok.pos, "END blocks must have an action part")
		}
		p.action = "END"
		p.prog.ends = append(p.prog.ends, p.block())
		p.action = ""
	case tLbrace:
		p.prog.rules = append(p.prog.rules, &rule{body: p.block(), hasBody: true})
	default:
		r := &rule{pattern: p.expr()}
		if p.tok.t == tComma {
			p.next()
			r.pattern2 = p.expr()
		}
		if p.tok.t == tLbrace {
			r.body = p.block()
			r.hasBody = true
		} else if p.tok.t != tNewline && p.tok.t != tSemi && p.tok.t != tEOF {
			p.syntax()
		}
		p.prog.rules = append(p.prog.rules, r)
	}
}

func (p *parser) function() {
	p.next()
	if p.tok.t != tName && p.tok.t != tFuncName {
		if p.tok.t == tBuiltin {
			p.fail(p.tok.pos, "`%s' is a built-in function, it cannot be redefined", p.tok.text)
		}
		p.syntax()
	}
	name := p.tok.text
	pos := p.tok.pos
	if _, ok := specialNames[name]; ok {
		p.fail(pos, "function name `%s' previously defined", name)
	}
	f := p.prog.funcs[name]
	if f != nil && f.defined {
		p.fail(pos, "function name `%s' previously defined", name)
	}
	if f == nil {
		f = &function{name: name}
		p.prog.funcs[name] = f
	}
	f.defined = true
	f.pos = pos
	p.next()
	p.expect(tLparen)
	seen := map[string]bool{}
	for p.tok.t != tRparen {
		if p.tok.t != tName {
			p.syntax()
		}
		pn := p.tok.text
		if pn == name {
			p.fail(p.tok.pos, "function `%s': cannot use function name as parameter name", name)
		}
		if seen[pn] {
			p.fail(p.tok.pos, "function `%s': parameter #%d, `%s', duplicates parameter #%d", name, len(f.params)+1, pn, 1)
		}
		if _, ok := specialNames[pn]; ok {
			p.fail(p.tok.pos, "function `%s': cannot use special variable `%s' as a function parameter", name, pn)
		}
		seen[pn] = true
		f.params = append(f.params, &variable{name: pn, scope: scopeLocal, index: len(f.params), fn: name, pos: p.tok.pos})
		p.next()
		if p.tok.t == tComma {
			p.next()
		} else if p.tok.t != tRparen {
			p.syntax()
		}
	}
	p.next()
	p.optNewlines()
	if p.tok.t != tLbrace {
		p.syntax()
	}
	p.fn = f
	f.body = p.block()
	p.fn = nil
}

func (p *parser) block() []stmt {
	p.expect(tLbrace)
	var body []stmt
	p.skipTerminators()
	for p.tok.t != tRbrace {
		if p.tok.t == tEOF {
			p.syntax()
		}
		body = append(body, p.stmt())
		p.skipTerminators()
	}
	p.next()
	return body
}

// endSimple consumes the terminator of a simple statement.
func (p *parser) endSimple() {
	switch p.tok.t {
	case tSemi, tNewline:
		p.next()
	case tRbrace, tEOF:
	default:
		p.syntax()
	}
}

// body parses the statement controlled by if/while/for/do.
func (p *parser) body() []stmt {
	p.optNewlines()
	if p.tok.t == tSemi {
		p.next()
		return nil
	}
	s := p.stmt()
	if b, ok := s.(*blockStmt); ok {
		return b.body
	}
	return []stmt{s}
}

func (p *parser) stmt() stmt {
	start := p.tok.pos
	s := p.stmtAt()
	if ps, ok := s.(interface{ setPos(int) }); ok {
		ps.setPos(start)
	}
	return s
}

func (p *parser) stmtAt() stmt {
	switch p.tok.t {
	case tLbrace:
		return &blockStmt{body: p.block()}
	case tIf:
		p.next()
		p.expect(tLparen)
		cond := p.expr()
		p.expect(tRparen)
		s := &ifStmt{cond: cond, then: p.body()}
		save := p.pos
		for p.tok.t == tNewline || p.tok.t == tSemi {
			p.next()
		}
		if p.tok.t == tElse {
			p.next()
			s.els = p.body()
			if s.els == nil {
				s.els = []stmt{}
			}
		} else {
			p.seek(save)
		}
		return s
	case tWhile:
		p.next()
		p.expect(tLparen)
		cond := p.expr()
		p.expect(tRparen)
		if p.tok.t == tSemi {
			p.next()
			return &whileStmt{cond: cond}
		}
		return &whileStmt{cond: cond, body: p.body()}
	case tDo:
		p.next()
		body := p.body()
		p.skipTerminators()
		p.expect(tWhile)
		p.expect(tLparen)
		cond := p.expr()
		p.expect(tRparen)
		p.endSimple()
		return &doStmt{body: body, cond: cond}
	case tFor:
		return p.forStmt()
	case tSemi:
		p.next()
		return &blockStmt{}
	}
	s := p.simpleStmt()
	p.endSimple()
	return s
}

func (p *parser) forStmt() stmt {
	p.next()
	p.expect(tLparen)
	// for (name in array)
	if p.tok.t == tName && p.peek(1) == tIn && p.peek(2) == tName && p.peek(3) == tRparen {
		v := p.varRef(p.tok.text, p.tok.pos)
		p.useScalar(v, p.tok.pos)
		p.next()
		p.next()
		arr := p.varRef(p.tok.text, p.tok.pos)
		p.useArray(arr, p.tok.pos)
		p.next()
		p.next()
		return &forInStmt{v: &varExpr{v}, arr: arr, body: p.body()}
	}
	if p.tok.t == tLparen && p.peek(1) == tName && p.peek(2) == tIn && p.peek(3) == tName && p.peek(4) == tRparen && p.peek(5) == tRparen {
		p.next()
		v := p.varRef(p.tok.text, p.tok.pos)
		p.useScalar(v, p.tok.pos)
		p.next()
		p.next()
		arr := p.varRef(p.tok.text, p.tok.pos)
		p.useArray(arr, p.tok.pos)
		p.next()
		p.next()
		p.next()
		return &forInStmt{v: &varExpr{v}, arr: arr, body: p.body()}
	}
	s := &forStmt{}
	if p.tok.t != tSemi {
		s.init = p.simpleStmt()
	}
	p.expect(tSemi)
	p.optNewlines()
	if p.tok.t != tSemi {
		s.cond = p.expr()
	}
	p.expect(tSemi)
	p.optNewlines()
	if p.tok.t != tRparen {
		s.post = p.simpleStmt()
	}
	p.expect(tRparen)
	if p.tok.t == tSemi {
		p.next()
		return s
	}
	s.body = p.body()
	return s
}

func (p *parser) simpleStmt() stmt {
	start := p.tok.pos
	s := p.simpleStmtAt()
	if ps, ok := s.(interface{ setPos(int) }); ok {
		ps.setPos(start)
	}
	return s
}

func (p *parser) simpleStmtAt() stmt {
	switch p.tok.t {
	case tPrint, tPrintf:
		return p.printStmt()
	case tNext, tNextfile:
		if p.fn == nil && p.action != "" {
			p.fail(p.tok.pos, "`%s' used in %s action", p.tok.text, p.action)
		}
		t := p.tok.t
		p.next()
		if t == tNext {
			return &nextStmt{}
		}
		return &nextfileStmt{}
	case tExit:
		p.next()
		s := &exitStmt{}
		if !p.endOfSimple() {
			s.code = p.expr()
		}
		return s
	case tReturn:
		if p.fn == nil {
			p.fail(p.tok.pos, "`return' used outside function context")
		}
		p.next()
		s := &returnStmt{}
		if !p.endOfSimple() {
			s.e = p.expr()
		}
		return s
	case tBreak:
		p.next()
		return &breakStmt{}
	case tContinue:
		p.next()
		return &continueStmt{}
	case tDelete:
		p.next()
		if p.tok.t == tLparen && p.peek(1) == tName && p.peek(2) == tRparen {
			p.next()
		}
		if p.tok.t != tName {
			p.syntax()
		}
		arr := p.varRef(p.tok.text, p.tok.pos)
		p.useArray(arr, p.tok.pos)
		p.next()
		if p.tok.t == tRparen {
			p.next()
			return &deleteStmt{arr: arr}
		}
		if p.tok.t != tLbracket {
			return &deleteStmt{arr: arr}
		}
		p.next()
		keys := p.exprList(tRbracket)
		p.expect(tRbracket)
		return &deleteStmt{arr: arr, keys: keys}
	}
	return &exprStmt{e: p.expr()}
}

func (p *parser) endOfSimple() bool {
	switch p.tok.t {
	case tSemi, tNewline, tRbrace, tEOF:
		return true
	}
	return false
}

func (p *parser) printStmt() stmt {
	s := &printStmt{printf: p.tok.t == tPrintf}
	p.next()
	endArgs := func() bool {
		switch p.tok.t {
		case tSemi, tNewline, tRbrace, tEOF, tGreater, tAppend, tPipe:
			return true
		}
		return false
	}
	if !endArgs() {
		parsed := false
		if p.tok.t == tLparen {
			save := p.pos
			if args, ok := p.tryParenList(); ok && endArgs() {
				s.args = args
				parsed = true
			} else {
				p.seek(save)
			}
		}
		if !parsed {
			old := p.noGreater
			p.noGreater = true
			s.args = p.exprList(tEOF)
			p.noGreater = old
		}
	}
	if s.printf && len(s.args) == 0 {
		panic(parseError{&fatalError{"printf: no arguments"}})
	}
	switch p.tok.t {
	case tGreater, tAppend, tPipe:
		s.redir = p.tok.t
		p.next()
		old := p.noGreater
		p.noGreater = true
		s.dest = p.concat()
		p.noGreater = old
	case tPipeAmp:
		p.fail(p.tok.pos, "|& (coprocesses) is not available in wsfs")
	}
	return s
}

// tryParenList parses "( expr, expr ... )" and reports failure instead of
// failing the parse.
func (p *parser) tryParenList() (args []expr, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, isParse := r.(parseError); !isParse {
				panic(r)
			}
			args, ok = nil, false
		}
	}()
	p.expect(tLparen)
	old := p.noGreater
	p.noGreater = false
	args = p.exprList(tRparen)
	p.noGreater = old
	p.expect(tRparen)
	return args, true
}

// exprList parses comma-separated expressions (at least one).
func (p *parser) exprList(end tok) []expr {
	list := []expr{p.expr()}
	for p.tok.t == tComma {
		p.next()
		list = append(list, p.expr())
	}
	return list
}

func isLvalue(e expr) bool {
	switch e.(type) {
	case *varExpr, *indexExpr, *fieldExpr:
		return true
	}
	return false
}

func (p *parser) expr() expr {
	left := p.ternary()
	switch p.tok.t {
	case tAssign, tAddAssign, tSubAssign, tMulAssign, tDivAssign, tModAssign, tPowAssign:
		if !isLvalue(left) {
			if p.tok.t == tDivAssign {
				break
			}
			p.syntax()
		}
		op := p.tok.t
		p.next()
		right := p.expr()
		return &assignExpr{target: left, op: op, right: right}
	}
	return left
}

func (p *parser) ternary() expr {
	cond := p.or()
	if p.tok.t != tQuestion {
		return cond
	}
	p.next()
	p.optNewlines()
	yes := p.expr()
	p.optNewlines()
	p.expect(tColon)
	p.optNewlines()
	no := p.expr()
	return &condExpr{cond: cond, yes: yes, no: no}
}

func (p *parser) or() expr {
	l := p.and()
	for p.tok.t == tOr {
		p.next()
		l = &orExpr{l: l, r: p.and()}
	}
	return l
}

func (p *parser) and() expr {
	l := p.in()
	for p.tok.t == tAnd {
		p.next()
		l = &andExpr{l: l, r: p.in()}
	}
	return l
}

func (p *parser) in() expr {
	l := p.match()
	for p.tok.t == tIn {
		p.next()
		if p.tok.t != tName {
			p.syntax()
		}
		arr := p.varRef(p.tok.text, p.tok.pos)
		p.useArray(arr, p.tok.pos)
		p.next()
		l = &inExpr{keys: []expr{l}, arr: arr}
	}
	return l
}

func (p *parser) match() expr {
	l := p.compare()
	for p.tok.t == tMatch || p.tok.t == tNotMatch {
		neg := p.tok.t == tNotMatch
		p.next()
		l = &matchExpr{l: l, re: p.compare(), negate: neg}
	}
	return l
}

func (p *parser) compare() expr {
	l := p.pipeGetline(p.concat())
	switch p.tok.t {
	case tLess, tLessEq, tEqual, tNotEqual, tGreaterEq, tGreater:
		if p.tok.t == tGreater && p.noGreater {
			return l
		}
		op := p.tok.t
		p.next()
		r := p.pipeGetline(p.concat())
		return &binaryExpr{op: op, l: l, r: r}
	}
	return l
}

// pipeGetline handles `cmd | getline [var]`, whose command is a whole concatenation.
func (p *parser) pipeGetline(l expr) expr {
	for p.tok.t == tPipe && p.peek(1) == tGetline {
		p.next()
		p.next()
		l = &getlineExpr{kind: getlineCmd, src: l, target: p.optLvalue()}
	}
	if p.tok.t == tPipeAmp {
		p.fail(p.tok.pos, "|& (coprocesses) is not available in wsfs")
	}
	return l
}

func (p *parser) startsConcatOperand() bool {
	switch p.tok.t {
	case tNumber, tString, tRegex, tName, tFuncName, tBuiltin, tDollar, tNot, tLparen, tSub, tAdd, tIncr, tDecr:
		return true
	case tIn:
		return false
	}
	return false
}

func (p *parser) concat() expr {
	l := p.additive()
	for p.startsConcatOperand() {
		l = &binaryExpr{op: tEOF, l: l, r: p.additive()}
	}
	return l
}

func (p *parser) additive() expr {
	l := p.multiplicative()
	for p.tok.t == tAdd || p.tok.t == tSub {
		op := p.tok.t
		p.next()
		l = &binaryExpr{op: op, l: l, r: p.multiplicative()}
	}
	return l
}

func (p *parser) multiplicative() expr {
	l := p.unary()
	for p.tok.t == tMul || p.tok.t == tDiv || p.tok.t == tMod {
		op := p.tok.t
		p.next()
		l = &binaryExpr{op: op, l: l, r: p.unary()}
	}
	return l
}

func (p *parser) unary() expr {
	switch p.tok.t {
	case tNot, tSub, tAdd:
		op := p.tok.t
		p.next()
		return &unaryExpr{op: op, e: p.unary()}
	}
	return p.power()
}

func (p *parser) power() expr {
	base := p.postfix()
	if p.tok.t == tPow {
		p.next()
		// Right associative; the exponent may carry a sign: 2^-1.
		var e expr
		switch p.tok.t {
		case tSub, tAdd, tNot:
			op := p.tok.t
			p.next()
			e = &unaryExpr{op: op, e: p.powerOperand()}
		default:
			e = p.power()
		}
		return &binaryExpr{op: tPow, l: base, r: e}
	}
	return base
}

func (p *parser) powerOperand() expr {
	switch p.tok.t {
	case tSub, tAdd, tNot:
		op := p.tok.t
		p.next()
		return &unaryExpr{op: op, e: p.powerOperand()}
	}
	return p.power()
}

func (p *parser) postfix() expr {
	e := p.primary()
	if isLvalue(e) && (p.tok.t == tIncr || p.tok.t == tDecr) {
		d := 1.0
		if p.tok.t == tDecr {
			d = -1
		}
		p.next()
		return &incDecExpr{target: e, delta: d}
	}
	return e
}

func (p *parser) optLvalue() expr {
	switch p.tok.t {
	case tDollar:
		p.next()
		return &fieldExpr{index: p.fieldIndex()}
	case tName:
		return p.nameExpr()
	}
	return nil
}

func (p *parser) fieldIndex() expr {
	switch p.tok.t {
	case tIncr, tDecr:
		d := 1.0
		if p.tok.t == tDecr {
			d = -1
		}
		p.next()
		t := p.primary()
		if !isLvalue(t) {
			p.syntax()
		}
		return &incDecExpr{target: t, pre: true, delta: d}
	case tSub, tAdd, tNot:
		op := p.tok.t
		p.next()
		return &unaryExpr{op: op, e: p.fieldIndex()}
	}
	return p.primary()
}

func (p *parser) nameExpr() expr {
	name, pos := p.tok.text, p.tok.pos
	p.next()
	v := p.varRef(name, pos)
	if p.tok.t == tLbracket {
		p.useArray(v, pos)
		p.next()
		old := p.noGreater
		p.noGreater = false
		keys := p.exprList(tRbracket)
		p.noGreater = old
		p.expect(tRbracket)
		return &indexExpr{arr: v, keys: keys}
	}
	p.useScalar(v, pos)
	return &varExpr{v}
}

func (p *parser) primary() expr {
	t := p.tok
	switch t.t {
	case tNumber:
		p.next()
		return &numExpr{t.num}
	case tString:
		p.next()
		return &strExpr{t.text}
	case tRegex:
		p.next()
		re, err := compileERE(t.text)
		if err != nil {
			p.fail(t.pos, "%v", err)
		}
		return &regexExpr{src: t.text, re: re}
	case tDollar:
		p.next()
		return &fieldExpr{index: p.fieldIndex()}
	case tIncr, tDecr:
		d := 1.0
		if t.t == tDecr {
			d = -1
		}
		p.next()
		target := p.primary()
		if !isLvalue(target) {
			p.syntax()
		}
		return &incDecExpr{target: target, pre: true, delta: d}
	case tNot, tSub, tAdd:
		p.next()
		return &unaryExpr{op: t.t, e: p.unary()}
	case tLparen:
		p.next()
		old := p.noGreater
		p.noGreater = false
		list := p.exprList(tRparen)
		p.noGreater = old
		p.expect(tRparen)
		if len(list) > 1 {
			if p.tok.t != tIn {
				p.syntax()
			}
			p.next()
			if p.tok.t != tName {
				p.syntax()
			}
			arr := p.varRef(p.tok.text, p.tok.pos)
			p.useArray(arr, p.tok.pos)
			p.next()
			return &inExpr{keys: list, arr: arr}
		}
		return &groupExpr{list[0]}
	case tName:
		return p.nameExpr()
	case tFuncName:
		return p.userCall()
	case tBuiltin:
		return p.builtinCall()
	case tGetline:
		p.next()
		g := &getlineExpr{kind: getlineMain, target: p.optLvalue()}
		if p.tok.t == tLess {
			p.next()
			g.kind = getlineFile
			g.src = p.primaryNoConcat()
		}
		return g
	}
	p.syntax()
	return nil
}

// primaryNoConcat is the operand of `getline < file`: a primary with postfix.
func (p *parser) primaryNoConcat() expr {
	return p.postfix()
}

func (p *parser) userCall() expr {
	name, pos := p.tok.text, p.tok.pos
	if _, ok := specialNames[name]; ok {
		p.syntax()
	}
	p.next()
	p.expect(tLparen)
	c := &callExpr{name: name, pos: pos}
	old := p.noGreater
	p.noGreater = false
	p.optNewlines()
	for p.tok.t != tRparen {
		// A bare name may be an array passed by reference: resolved later.
		if p.tok.t == tName && (p.peek(1) == tComma || p.peek(1) == tRparen) {
			v := p.varRef(p.tok.text, p.tok.pos)
			p.links = append(p.links, argLink{arg: v, call: c, index: len(c.args)})
			c.args = append(c.args, &varExpr{v})
			p.next()
		} else {
			if re, ok := p.peekRegexArg(); ok {
				p.prog.warnings = append(p.prog.warnings, syntaxError{pos: re, msg: fmt.Sprintf("regexp constant for parameter #%d yields boolean value", len(c.args)+1)})
			}
			c.args = append(c.args, p.expr())
		}
		if p.tok.t == tComma {
			p.next()
			p.optNewlines()
		} else if p.tok.t != tRparen {
			p.syntax()
		}
	}
	p.next()
	p.noGreater = old
	p.calls = append(p.calls, c)
	return c
}

func (p *parser) builtinCall() expr {
	name, pos := p.tok.text, p.tok.pos
	p.next()
	b := &builtinExpr{name: name, pos: pos}
	if p.tok.t != tLparen {
		if name == "length" {
			return b
		}
		p.syntax()
	}
	p.next()
	old := p.noGreater
	p.noGreater = false
	p.optNewlines()
	for p.tok.t != tRparen {
		idx := len(b.args)
		switch {
		case p.tok.t == tName && (p.peek(1) == tComma || p.peek(1) == tRparen) &&
			((name == "split" && (idx == 1 || idx == 3)) || (name == "match" && idx == 2) || (name == "length" && idx == 0) ||
				name == "asort" || name == "asorti"):
			v := p.varRef(p.tok.text, p.tok.pos)
			if name != "length" {
				p.useArray(v, p.tok.pos)
			} else {
				p.links = append(p.links, argLink{arg: v, index: -1})
			}
			b.args = append(b.args, &varExpr{v})
			p.next()
		default:
			b.args = append(b.args, p.expr())
		}
		if p.tok.t == tComma {
			p.next()
			p.optNewlines()
		} else if p.tok.t != tRparen {
			p.syntax()
		}
	}
	p.next()
	p.noGreater = old
	p.checkBuiltin(b)
	return b
}

var builtinArity = map[string][2]int{
	"length": {0, 1}, "substr": {2, 3}, "index": {2, 2}, "split": {2, 4},
	"sub": {2, 3}, "gsub": {2, 3}, "match": {2, 3}, "sprintf": {1, 1 << 30},
	"sin": {1, 1}, "cos": {1, 1}, "atan2": {2, 2}, "exp": {1, 1}, "log": {1, 1},
	"sqrt": {1, 1}, "int": {1, 1}, "rand": {0, 0}, "srand": {0, 1},
	"tolower": {1, 1}, "toupper": {1, 1}, "system": {1, 1}, "close": {1, 2},
	"fflush": {0, 1}, "gensub": {3, 4}, "systime": {0, 0}, "strftime": {0, 3},
	"mktime": {1, 2}, "asort": {1, 2}, "asorti": {1, 2},
}

func (p *parser) checkBuiltin(b *builtinExpr) {
	ar := builtinArity[b.name]
	if len(b.args) < ar[0] || len(b.args) > ar[1] {
		p.fail(b.pos, "%d is invalid as number of arguments for %s", len(b.args), b.name)
	}
	switch b.name {
	case "sub", "gsub":
		if len(b.args) == 3 && !isLvalue(b.args[2]) {
			p.fail(b.pos, "%s third parameter is not a changeable object", b.name)
		}
	case "match":
		if len(b.args) == 3 {
			ve, ok := b.args[2].(*varExpr)
			if !ok {
				p.fail(b.pos, "match: third argument is not an array")
			}
			p.useArray(ve.v, b.pos)
		}
	case "asort", "asorti":
		for _, a := range b.args {
			if _, ok := a.(*varExpr); !ok {
				p.fail(b.pos, "%s: argument is not an array", b.name)
			}
		}
	case "split":
		if _, ok := b.args[1].(*varExpr); !ok {
			p.fail(b.pos, "split: second argument is not an array")
		}
		if len(b.args) == 4 {
			ve, ok := b.args[3].(*varExpr)
			if !ok {
				p.fail(b.pos, "split: fourth argument is not an array")
			}
			p.useArray(ve.v, b.pos)
		}
	}
}

// varRef finds or creates the variable a name means here.
func (p *parser) varRef(name string, pos int) *variable {
	if p.fn != nil {
		for _, v := range p.fn.params {
			if v.name == name {
				return v
			}
		}
	}
	if sp, ok := specialNames[name]; ok {
		return &variable{name: name, scope: scopeSpecial, index: sp, kind: kindScalar}
	}
	if f, ok := p.prog.funcs[name]; ok && f.defined {
		p.fail(pos, "function `%s' called with space between name and `(',\nor used as a variable or an array", name)
	}
	return p.global(name, pos)
}

func (p *parser) global(name string, pos int) *variable {
	if v, ok := p.prog.globalMap[name]; ok {
		return v
	}
	v := &variable{name: name, scope: scopeGlobal, index: len(p.prog.globals), pos: pos}
	p.prog.globals = append(p.prog.globals, v)
	p.prog.globalMap[name] = v
	return v
}

func (p *parser) useArray(v *variable, pos int) {
	switch v.kind {
	case kindScalar:
		if v.scope == scopeSpecial {
			p.fail(pos, "attempt to use scalar `%s' as an array", v.name)
		}
		panic(parseError{&fatalError{fmt.Sprintf("attempt to use scalar `%s' as an array", v.name)}})
	case kindUnknown:
		v.kind = kindArray
	}
}

func (p *parser) useScalar(v *variable, pos int) {
	switch v.kind {
	case kindArray:
		panic(parseError{&fatalError{fmt.Sprintf("attempt to use array `%s' in a scalar context", v.name)}})
	case kindUnknown:
		v.kind = kindScalar
	}
}

// fatalError is a failure found before running that gawk reports as fatal
// (exit status 2) rather than as a syntax error.
type fatalError struct{ msg string }

func (e *fatalError) Error() string { return e.msg }

// resolve checks calls and settles which names are arrays, passing kinds
// between arguments and parameters until nothing changes.
func (p *parser) resolve() {
	for _, c := range p.calls {
		f := p.prog.funcs[c.name]
		if f == nil || !f.defined {
			panic(parseError{&fatalError{fmt.Sprintf("function `%s' called but never defined", c.name)}})
		}
		if len(c.args) > len(f.params) {
			// gawk warns and evaluates the extra arguments for their effects.
			p.prog.warnings = append(p.prog.warnings, syntaxError{pos: c.pos, msg: fmt.Sprintf("function `%s' called with more arguments than declared", c.name)})
		}
		c.fn = f
	}
	for changed := true; changed; {
		changed = false
		for _, l := range p.links {
			if l.call == nil {
				continue
			}
			if l.index >= len(l.call.fn.params) {
				continue
			}
			param := l.call.fn.params[l.index]
			switch {
			case param.kind == kindUnknown && l.arg.kind != kindUnknown:
				param.kind = l.arg.kind
				changed = true
			case l.arg.kind == kindUnknown && param.kind != kindUnknown:
				l.arg.kind = param.kind
				changed = true
			case param.kind != l.arg.kind:
				what := "array"
				if l.arg.kind == kindScalar {
					what = "scalar"
				}
				panic(parseError{&fatalError{fmt.Sprintf("function `%s': argument #%d: attempt to use %s `%s' as %s", l.call.name, l.index+1, what, l.arg.name, strings.TrimPrefix(map[varKind]string{kindArray: "an array", kindScalar: "a scalar"}[param.kind], ""))}})
			}
		}
	}
	// Non-bare arguments to array parameters.
	for _, c := range p.calls {
		for i, a := range c.args {
			if i >= len(c.fn.params) {
				break
			}
			param := c.fn.params[i]
			if param.kind != kindArray {
				continue
			}
			ve, ok := a.(*varExpr)
			if !ok || ve.v.kind != kindArray {
				panic(parseError{&fatalError{fmt.Sprintf("function `%s': argument #%d: attempt to use scalar as an array", c.name, i+1)}})
			}
		}
	}
	for _, v := range p.prog.globals {
		if v.kind == kindUnknown {
			v.kind = kindScalar
		}
	}
	for _, f := range p.prog.funcs {
		for _, v := range f.params {
			if v.kind == kindUnknown {
				v.kind = kindScalar
			}
		}
	}
}

// peekRegexArg reports a call argument that is only a regexp constant.
func (p *parser) peekRegexArg() (int, bool) {
	if p.tok.t == tRegex && (p.peek(1) == tComma || p.peek(1) == tRparen) {
		return p.tok.pos, true
	}
	return 0, false
}
