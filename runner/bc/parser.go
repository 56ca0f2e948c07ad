package bc

import (
	"fmt"
	"strconv"
	"strings"
)

// parser reads input items (a line of statements, or a function
// definition) from a lexer. It also lays out the code GNU bc would
// compile, instruction sizes only, so that run-time errors name GNU's
// addresses: constants are "K<digits>:" (0 and 1 one byte), a variable,
// array or function number one byte below 128 and two above, a label
// reference two bytes and a label definition none.
type parser struct {
	lx    *lexer
	tok   token
	atEOL bool    // tok is the newline that ended the last item
	ahead []token // tokens read after tok (peek)
	// pc is the code address in the unit being compiled (main's code
	// since the last run, or the function being defined).
	pc int
	// failed: the item had an error and is not run.
	failed bool
	// quit: the program read "quit".
	quit bool
	// Where the item is: inside a function, a loop (for break) or a for
	// loop (for continue, which bc allows only there).
	inFunc      *function
	loops, fors int
	std, warn   bool
	syms        *symbols
	out         func(text string) // parse-time output (limits, warranty)
	errf        func(msg string)  // an error message line
}

// symbols numbers variables, arrays and functions in order of first use,
// as GNU's lookup does, for the sizes of their references in code.
type symbols struct {
	vars, arrays, funcs map[string]int
	funcVoid            map[string]bool
}

func newSymbols() *symbols {
	s := &symbols{vars: map[string]int{}, arrays: map[string]int{}, funcs: map[string]int{"(main)": 0}, funcVoid: map[string]bool{}}
	for _, v := range []string{"ibase", "obase", "scale", "history", "last"} {
		s.vars[v] = len(s.vars)
	}
	return s
}

func idSize(id int) int {
	if id < 128 {
		return 1
	}
	return 2
}

func (s *symbols) varID(name string) int {
	if id, ok := s.vars[name]; ok {
		return id
	}
	s.vars[name] = len(s.vars)
	return s.vars[name]
}

func (s *symbols) arrayID(name string) int {
	if id, ok := s.arrays[name]; ok {
		return id
	}
	s.arrays[name] = len(s.arrays) + 1
	return s.arrays[name]
}

func (s *symbols) funcID(name string) int {
	if id, ok := s.funcs[name]; ok {
		return id
	}
	s.funcs[name] = len(s.funcs)
	return s.funcs[name]
}

// syntaxError is a parse failure; the parser skips to the next line.
type syntaxError struct{}

func (syntaxError) Error() string { return "syntax error" }

func (p *parser) advance() {
	if len(p.ahead) > 0 {
		p.tok = p.ahead[0]
		p.ahead = p.ahead[1:]
		return
	}
	p.tok = p.lx.next()
}

// peek returns the n-th token after the current one (n ≥ 1) without
// consuming it. It never reads past a newline, so a line runs before the
// next is read.
func (p *parser) peek(n int) token {
	for len(p.ahead) < n {
		last := p.tok
		if len(p.ahead) > 0 {
			last = p.ahead[len(p.ahead)-1]
		}
		if last.kind == tNewline || last.kind == tEOF {
			return token{kind: tEOF, line: last.line}
		}
		p.ahead = append(p.ahead, p.lx.next())
	}
	return p.ahead[n-1]
}

// lineAfter is GNU's line counter once the current token was read: past
// a newline token it is the next line.
func (p *parser) lineAfter() int {
	if p.tok.kind == tNewline {
		return p.tok.line + 1
	}
	return p.lx.line
}

// errorAt reports an error of the item at line (it will not run).
func (p *parser) errorAt(line int, format string, a ...any) {
	p.failed = true
	p.errf(fmt.Sprintf("%s %d: %s", p.lx.name, line, fmt.Sprintf(format, a...)))
}

// posix reports a construct POSIX bc lacks: an error under -s, a warning
// under -w.
func (p *parser) posix(line int, what string) {
	switch {
	case p.std:
		p.errorAt(line, "Error: %s", what)
	case p.warn:
		p.errf(fmt.Sprintf("%s %d: (Warning) %s", p.lx.name, line, what))
	}
}

func (p *parser) syntax() error {
	line := p.tok.line
	if p.tok.kind == tNewline || p.tok.kind == tEOF {
		line = p.lineAfter()
	}
	p.errorAt(line, "syntax error")
	return syntaxError{}
}

func (p *parser) isOp(text string) bool  { return p.tok.kind == tOp && p.tok.text == text }
func (p *parser) isKey(text string) bool { return p.tok.kind == tKeyword && p.tok.text == text }

func (p *parser) expectOp(text string) error {
	if !p.isOp(text) {
		return p.syntax()
	}
	p.advance()
	return nil
}

// skipNewlines implements GNU's opt_newline (at most one newline).
func (p *parser) optNewline() {
	if p.tok.kind == tNewline {
		p.advance()
	}
}

// item is one input item: a function definition (done at parse time) or
// the statements of one line, to run.
type item struct {
	fn    *function
	stmts []stmt
	eof   bool
}

// parseItem reads the next item. After an error it skips to the end of
// the line and returns the item failed.
func (p *parser) parseItem() item {
	p.failed = false
	p.pc = 0
	if p.atEOL {
		// The newline that ended the last item: read on only now, so that
		// an item runs before the next line is read.
		p.atEOL = false
		p.advance()
	}
	if p.tok.kind == tEOF {
		return item{eof: true}
	}
	var it item
	var err error
	if p.isKey("define") {
		it.fn, err = p.function()
	} else {
		it.stmts, err = p.semicolonList()
		if err == nil && !p.quit {
			switch p.tok.kind {
			case tNewline:
				p.atEOL = true
			case tEOF:
			default:
				err = p.syntax()
			}
		}
	}
	if err != nil {
		// Skip to the end of the line.
		for p.tok.kind != tNewline && p.tok.kind != tEOF && !p.quit {
			p.advance()
		}
		if p.tok.kind == tNewline {
			p.atEOL = true
		}
		p.failed = true
	}
	return it
}

// semicolonList parses statements separated by ';' up to a newline.
func (p *parser) semicolonList() ([]stmt, error) {
	var list []stmt
	for {
		if p.quit {
			return list, nil
		}
		switch {
		case p.tok.kind == tSemi:
			p.advance()
			continue
		case p.tok.kind == tNewline, p.tok.kind == tEOF:
			return list, nil
		}
		s, err := p.statement()
		if err != nil {
			return nil, err
		}
		if s != nil {
			list = append(list, s)
		}
		if p.tok.kind != tSemi {
			return list, nil
		}
	}
}

// statementList parses statements separated by ';' or newlines, up to '}'.
func (p *parser) statementList() ([]stmt, error) {
	var list []stmt
	for {
		if p.quit {
			return list, nil
		}
		switch {
		case p.tok.kind == tSemi || p.tok.kind == tNewline:
			p.advance()
			continue
		case p.isOp("}"):
			return list, nil
		case p.tok.kind == tEOF:
			return nil, p.syntax()
		}
		s, err := p.statement()
		if err != nil {
			return nil, err
		}
		if s != nil {
			list = append(list, s)
		}
		if p.tok.kind != tSemi && p.tok.kind != tNewline && !p.isOp("}") {
			return nil, p.syntax()
		}
	}
}

func (p *parser) statement() (stmt, error) {
	t := p.tok
	switch t.kind {
	case tString:
		p.advance()
		p.pc += 2 + len(t.text)
		return &strStmt{text: t.text}, nil
	case tKeyword:
		switch t.text {
		case "quit":
			p.quit = true
			return nil, nil
		case "halt":
			p.advance()
			p.pc++
			return &haltStmt{}, nil
		case "limits":
			p.advance()
			p.out(limitsText)
			return nil, nil
		case "warranty":
			p.advance()
			p.out(warrantyText)
			return nil, nil
		case "break":
			p.advance()
			if p.loops == 0 {
				p.errorAt(t.line, "Break outside a for/while")
			}
			p.pc += 3
			return &breakStmt{}, nil
		case "continue":
			p.advance()
			p.posix(t.line, "Continue statement")
			if p.fors == 0 {
				p.errorAt(t.line, "Continue outside a for")
			}
			p.pc += 3
			return &continueStmt{}, nil
		case "return":
			return p.returnStmt()
		case "print":
			return p.printStmt()
		case "if":
			return p.ifStmt()
		case "while":
			return p.whileStmt()
		case "for":
			return p.forStmt()
		}
	case tOp:
		if t.text == "{" {
			p.advance()
			list, err := p.statementList()
			if err != nil {
				return nil, err
			}
			if p.quit {
				return nil, nil
			}
			p.advance() // }
			return &block{list: list}, nil
		}
	}
	x, flags, err := p.expression()
	if err != nil {
		return nil, err
	}
	if flags&flagRel != 0 {
		p.posix(p.lineAfter(), "comparison in expression")
	}
	p.pc++ // W or p
	return &exprStmt{x: x, print: flags&flagAssign == 0}, nil
}

func (p *parser) returnStmt() (stmt, error) {
	p.advance()
	var x expr
	if !(p.tok.kind == tSemi || p.tok.kind == tNewline || p.tok.kind == tEOF || p.isOp("}")) {
		paren := p.isOp("(")
		var err error
		if x, _, err = p.expression(); err != nil {
			return nil, err
		}
		if !paren {
			p.posix(p.lineAfter(), "return expression requires parenthesis")
		}
		p.pc++ // R
	} else {
		p.pc += 2 // 0R
	}
	if p.inFunc == nil {
		p.errorAt(p.lineAfter(), "Return outside of a function.")
	} else if p.inFunc.void && x != nil {
		p.errorAt(p.lineAfter(), "Return expression in a void function.")
	}
	return &returnStmt{x: x}, nil
}

func (p *parser) printStmt() (stmt, error) {
	line := p.tok.line
	p.advance()
	p.posix(line, "print statement")
	var items []printItem
	for {
		if p.tok.kind == tString {
			items = append(items, printItem{str: p.tok.text, isStr: true})
			p.pc += 2 + len(p.tok.text)
			p.advance()
		} else {
			x, _, err := p.expression()
			if err != nil {
				return nil, err
			}
			p.pc++ // P
			items = append(items, printItem{x: x})
		}
		if !p.isOp(",") {
			break
		}
		p.advance()
	}
	return &printStmt{items: items}, nil
}

func (p *parser) condition() (expr, error) {
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	x, _, err := p.expression()
	if err != nil {
		return nil, err
	}
	return x, p.expectOp(")")
}

func (p *parser) ifStmt() (stmt, error) {
	p.advance()
	cond, err := p.condition()
	if err != nil {
		return nil, err
	}
	p.pc += 3 // Z
	p.optNewline()
	then, err := p.statement()
	if err != nil {
		return nil, err
	}
	s := &ifStmt{cond: cond, then: then}
	if p.isKey("else") {
		p.posix(p.tok.line, "else clause in if statement")
		p.advance()
		p.pc += 3 // J
		p.optNewline()
		if s.els, err = p.statement(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (p *parser) whileStmt() (stmt, error) {
	p.advance()
	cond, err := p.condition()
	if err != nil {
		return nil, err
	}
	p.pc += 3 // Z
	p.optNewline()
	p.loops++
	body, err := p.statement()
	p.loops--
	if err != nil {
		return nil, err
	}
	p.pc += 3 // J
	return &whileStmt{cond: cond, body: body}, nil
}

func (p *parser) forStmt() (stmt, error) {
	line := p.tok.line
	p.advance()
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	s := &forStmt{}
	part := func(end string) (expr, error) {
		if p.isOp(end) || end == ";" && p.tok.kind == tSemi {
			p.posix(line, "Missing expression in for statement")
			return nil, nil
		}
		x, _, err := p.expression()
		return x, err
	}
	var err error
	if s.init, err = part(";"); err != nil {
		return nil, err
	}
	if s.init != nil {
		p.pc++ // p
	}
	if p.tok.kind != tSemi {
		return nil, p.syntax()
	}
	p.advance()
	if s.cond, err = part(";"); err != nil {
		return nil, err
	}
	if s.cond == nil {
		p.pc++ // 1
	}
	if p.tok.kind != tSemi {
		return nil, p.syntax()
	}
	p.advance()
	p.pc += 6 // Z, J to the body
	if s.incr, err = part(")"); err != nil {
		return nil, err
	}
	if s.incr != nil {
		p.pc++ // p
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	p.pc += 3 // J to the condition
	p.optNewline()
	p.loops++
	p.fors++
	s.body, err = p.statement()
	p.loops--
	p.fors--
	if err != nil {
		return nil, err
	}
	p.pc += 3 // J to the increment
	return s, nil
}

// function parses a definition: define [void] NAME(params) { [auto list] statements }.
func (p *parser) function() (*function, error) {
	p.advance()
	f := &function{}
	if p.isKey("void") {
		f.void = true
		p.advance()
	}
	if p.tok.kind != tName {
		return nil, p.syntax()
	}
	f.name = p.tok.text
	p.nameCheck(p.tok)
	p.syms.funcID(f.name)
	p.advance()
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	if !p.isOp(")") {
		var err error
		if f.params, err = p.defineList(true); err != nil {
			return nil, err
		}
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	p.optNewline()
	if !p.isOp("{") {
		return nil, p.syntax()
	}
	line := p.tok.line
	p.advance()
	if p.tok.kind == tNewline {
		p.advance()
	} else {
		p.posix(line, "End of line required")
	}
	savedPC, savedFunc := p.pc, p.inFunc
	p.pc, p.inFunc = 0, f
	defer func() { p.pc, p.inFunc = savedPC, savedFunc }()
	if p.isKey("auto") {
		p.advance()
		var err error
		if f.autos, err = p.defineList(false); err != nil {
			return nil, err
		}
		if p.tok.kind != tSemi && p.tok.kind != tNewline {
			return nil, p.syntax()
		}
		p.advance()
	}
	body, err := p.statementList()
	if err != nil {
		return nil, err
	}
	if p.quit {
		return nil, nil
	}
	p.advance() // }
	f.body = body
	return f, nil
}

func (p *parser) defineList(params bool) ([]param, error) {
	var list []param
	for {
		var pr param
		if params && p.isOp("*") {
			pr.ref = true
			p.advance()
		}
		if p.tok.kind != tName {
			return nil, p.syntax()
		}
		pr.name = p.tok.text
		p.nameCheck(p.tok)
		p.advance()
		if p.isOp("[") {
			p.advance()
			if err := p.expectOp("]"); err != nil {
				return nil, err
			}
			pr.array = true
			p.syms.arrayID(pr.name)
		} else if pr.ref {
			return nil, p.syntax()
		} else {
			p.syms.varID(pr.name)
		}
		list = append(list, pr)
		if !p.isOp(",") {
			return list, nil
		}
		p.advance()
	}
}

// nameCheck reports a name longer than POSIX's one letter.
func (p *parser) nameCheck(t token) {
	if len(t.text) > 1 {
		p.posix(t.line, "multiple letter name - "+t.text)
	}
}

// Expression flags, as GNU's grammar carries them: whether the top
// operation is an assignment (not printed) and whether a comparison
// appears (POSIX allows them only in conditions).
const (
	flagAssign = 1 << iota
	flagRel
	flagVoid
)

// Operator precedences, lowest first, as GNU's grammar declares them:
// || && ! relational assignment + - * / % ^ unary-minus ++ --.
const (
	precOr = iota + 1
	precAnd
	precNot
	precRel
	precAssign
	precAdd
	precMul
	precPow
	precNeg
	precIncr
)

func binaryPrec(t token) int {
	if t.kind != tOp {
		return 0
	}
	switch t.text {
	case "||":
		return precOr
	case "&&":
		return precAnd
	case "<", "<=", ">", ">=", "==", "!=":
		return precRel
	case "=", "+=", "-=", "*=", "/=", "%=", "^=":
		return precAssign
	case "+", "-":
		return precAdd
	case "*", "/", "%":
		return precMul
	case "^":
		return precPow
	}
	return 0
}

func (p *parser) expression() (expr, int, error) { return p.exprPrec(precOr) }

func (p *parser) exprPrec(min int) (expr, int, error) {
	left, flags, err := p.unaryExpr()
	if err != nil {
		return nil, 0, err
	}
	for {
		prec := binaryPrec(p.tok)
		if prec == 0 || prec < min {
			return left, flags, nil
		}
		op := p.tok
		if flags&flagVoid != 0 {
			p.errorAt(op.line, "void expression with %s", op.text)
		}
		switch prec {
		case precAssign:
			if !named(left) {
				return nil, 0, p.syntax()
			}
			p.advance()
			a := &assign{target: left}
			// The target was laid out as a load. A plain assignment
			// loads nothing: its value goes straight to the store. A
			// compound one keeps the load (an element's after D, which
			// duplicates the index for the store).
			if op.text == "=" {
				p.pc -= p.loadSize(left)
			} else {
				a.op = op.text[:1]
				if _, ok := left.(*elemRef); ok {
					p.pc++
					a.loadAddr = p.pc
				}
			}
			value, vflags, err := p.exprPrec(precAssign)
			if err != nil {
				return nil, 0, err
			}
			if vflags&flagVoid != 0 {
				p.errorAt(p.lineAfter(), "Assignment of a void expression")
			}
			a.value = value
			if a.op != "" {
				p.pc++
				a.opAddr = p.pc
			}
			p.storeSize(left)
			a.addr = p.pc
			left, flags = a, flagAssign|vflags&flagRel
		case precOr, precAnd:
			p.advance()
			if op.text == "&&" {
				p.posix(op.line, "&& operator")
			} else {
				p.posix(op.line, "|| operator")
			}
			p.pc += 5
			right, rflags, err := p.exprPrec(prec + 1)
			if err != nil {
				return nil, 0, err
			}
			if rflags&flagVoid != 0 {
				p.errorAt(p.lineAfter(), "void expression with %s", op.text)
			}
			p.pc += 6
			left = &logical{and: op.text == "&&", a: left, b: right}
			flags = (flags | rflags) &^ flagAssign
		default:
			p.advance()
			next := prec + 1
			if prec == precPow {
				next = precPow // right-associative
			}
			right, rflags, err := p.exprPrec(next)
			if err != nil {
				return nil, 0, err
			}
			if rflags&flagVoid != 0 {
				p.errorAt(p.lineAfter(), "void expression with %s", op.text)
			}
			p.pc++
			left = &binary{op: op.text, a: left, b: right, addr: p.pc}
			flags = (flags | rflags) &^ flagAssign
			if prec == precRel {
				flags |= flagRel
			}
		}
	}
}

func named(x expr) bool {
	switch x.(type) {
	case *varRef, *elemRef:
		return true
	}
	return false
}

// loadSize is the size of a named expression's load instruction (an
// element's index excluded).
func (p *parser) loadSize(target expr) int {
	switch t := target.(type) {
	case *varRef:
		return 1 + idSize(p.syms.varID(t.name))
	case *elemRef:
		return 1 + idSize(p.syms.arrayID(t.name))
	}
	return 0
}

func (p *parser) storeSize(target expr) {
	switch t := target.(type) {
	case *varRef:
		p.pc += 1 + idSize(p.syms.varID(t.name))
	case *elemRef:
		p.pc += 1 + idSize(p.syms.arrayID(t.name))
	}
}

func (p *parser) unaryExpr() (expr, int, error) {
	t := p.tok
	switch {
	case t.kind == tOp && t.text == "!":
		p.advance()
		x, flags, err := p.exprPrec(precRel)
		if err != nil {
			return nil, 0, err
		}
		p.posix(p.lineAfter(), "! operator")
		if flags&flagVoid != 0 {
			p.errorAt(p.lineAfter(), "void expression with !")
		}
		p.pc++
		return &unary{op: "!", x: x}, flags &^ flagAssign, nil
	case t.kind == tOp && t.text == "-":
		p.advance()
		x, flags, err := p.unaryExpr()
		if err != nil {
			return nil, 0, err
		}
		if flags&flagVoid != 0 {
			p.errorAt(p.lineAfter(), "void expression with unary -")
		}
		p.pc++
		return &unary{op: "-", x: x}, flags &^ flagAssign, nil
	case t.kind == tOp && (t.text == "++" || t.text == "--"):
		p.advance()
		target, err := p.namedExpr()
		if err != nil {
			return nil, 0, err
		}
		n := &incDec{target: target, inc: t.text == "++", prefix: true}
		switch tg := target.(type) {
		case *varRef:
			id := idSize(p.syms.varID(tg.name))
			p.pc += 1 + id
			n.addr = p.pc
			p.pc += 1 + id
		case *elemRef:
			id := idSize(p.syms.arrayID(tg.name))
			p.pc += 2 + id // D A
			n.addr = p.pc
			p.pc += 1 + id // L
			n.loadAddr = p.pc
		}
		return n, 0, nil
	}
	return p.postfixExpr()
}

// namedExpr parses a variable, an array element or a special variable.
func (p *parser) namedExpr() (expr, error) {
	t := p.tok
	switch {
	case t.kind == tName:
		p.nameCheck(t)
		p.advance()
		if p.isOp("[") {
			p.advance()
			index, _, err := p.expression()
			if err != nil {
				return nil, err
			}
			if err := p.expectOp("]"); err != nil {
				return nil, err
			}
			p.syms.arrayID(t.text)
			return &elemRef{name: t.text, index: index}, nil
		}
		p.syms.varID(t.text)
		return &varRef{name: t.text}, nil
	case t.kind == tKeyword && (t.text == "scale" || t.text == "ibase" || t.text == "obase" || t.text == "last"):
		if t.text == "last" {
			p.posix(t.line, "Last variable")
		}
		p.advance()
		return &varRef{name: t.text}, nil
	case t.kind == tOp && t.text == ".":
		p.posix(t.line, "Last variable")
		p.advance()
		return &varRef{name: "last"}, nil
	}
	return nil, p.syntax()
}

// postfixExpr parses a primary and a postfix ++ or --.
func (p *parser) postfixExpr() (expr, int, error) {
	t := p.tok
	switch {
	case t.kind == tNumber:
		p.advance()
		p.pc += constSize(t.text)
		return &numLit{text: t.text}, 0, nil
	case t.kind == tOp && t.text == "(":
		p.advance()
		x, flags, err := p.expression()
		if err != nil {
			return nil, 0, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, 0, err
		}
		// A parenthesized assignment is printed.
		return x, flags &^ flagAssign, nil
	case t.kind == tKeyword && (t.text == "length" || t.text == "sqrt" || t.text == "read"):
		return p.builtinCall()
	case t.kind == tKeyword && t.text == "scale":
		// scale( is the function, scale alone the variable.
		p.advance()
		if p.isOp("(") {
			return p.builtinArg("scale")
		}
		return p.postfix(&varRef{name: "scale"})
	case t.kind == tName:
		p.nameCheck(t)
		p.advance()
		if p.isOp("(") {
			return p.call(t)
		}
		if p.isOp("[") {
			p.advance()
			index, _, err := p.expression()
			if err != nil {
				return nil, 0, err
			}
			if err := p.expectOp("]"); err != nil {
				return nil, 0, err
			}
			return p.postfix(&elemRef{name: t.text, index: index})
		}
		return p.postfix(&varRef{name: t.text})
	case t.kind == tKeyword && (t.text == "ibase" || t.text == "obase" || t.text == "last"),
		t.kind == tOp && t.text == ".":
		x, err := p.namedExpr()
		if err != nil {
			return nil, 0, err
		}
		return p.postfix(x)
	}
	return nil, 0, p.syntax()
}

// postfix lays out a named expression's load, or the load and increment
// of a postfix ++ or --, and parses the latter.
func (p *parser) postfix(x expr) (expr, int, error) {
	if p.isOp("++") || p.isOp("--") {
		n := &incDec{target: x, inc: p.tok.text == "++"}
		p.advance()
		switch t := x.(type) {
		case *varRef:
			id := idSize(p.syms.varID(t.name))
			p.pc += 2 * (1 + id)
			n.addr = p.pc
		case *elemRef:
			id := idSize(p.syms.arrayID(t.name))
			p.pc += 2 + id // D L
			n.loadAddr = p.pc
			p.pc += 2 + id // x A
			n.addr = p.pc
		}
		return n, 0, nil
	}
	switch t := x.(type) {
	case *varRef:
		p.pc += 1 + idSize(p.syms.varID(t.name))
	case *elemRef:
		p.pc += 1 + idSize(p.syms.arrayID(t.name))
		t.addr = p.pc
	}
	return x, 0, nil
}

func (p *parser) builtinCall() (expr, int, error) {
	t := p.tok
	p.advance()
	if t.text == "read" {
		p.posix(t.line, "read function")
		if err := p.expectOp("("); err != nil {
			return nil, 0, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, 0, err
		}
		p.pc += 2
		return &builtin{fn: "read", addr: p.pc}, 0, nil
	}
	if !p.isOp("(") {
		return nil, 0, p.syntax()
	}
	return p.builtinArg(t.text)
}

func (p *parser) builtinArg(fn string) (expr, int, error) {
	p.advance() // (
	x, _, err := p.expression()
	if err != nil {
		return nil, 0, err
	}
	if err := p.expectOp(")"); err != nil {
		return nil, 0, err
	}
	p.pc += 2
	return &builtin{fn: fn, x: x, addr: p.pc}, 0, nil
}

func (p *parser) call(name token) (expr, int, error) {
	p.advance() // (
	c := &call{name: name.text}
	fid := p.syms.funcID(name.text)
	if !p.isOp(")") {
		for {
			// An array argument is NAME[] (then , or )).
			if p.tok.kind == tName && p.peek(1).kind == tOp && p.peek(1).text == "[" &&
				p.peek(2).kind == tOp && p.peek(2).text == "]" {
				c.args = append(c.args, callArg{array: p.tok.text})
				p.pc += 2 + len(strconv.Itoa(p.syms.arrayID(p.tok.text)))
				p.advance()
				p.advance()
				p.advance()
			} else {
				x, flags, err := p.expression()
				if err != nil {
					return nil, 0, err
				}
				if flags&flagVoid != 0 {
					p.errorAt(p.lineAfter(), "void argument")
				}
				c.args = append(c.args, callArg{x: x})
			}
			if !p.isOp(",") {
				break
			}
			p.advance()
		}
	}
	if err := p.expectOp(")"); err != nil {
		return nil, 0, err
	}
	p.pc += 1 + idSize(fid)
	c.defAddr = p.pc
	for range c.args {
		p.pc++
		c.typeAddrs = append(c.typeAddrs, p.pc)
	}
	p.pc++
	c.endAddr = p.pc
	flags := 0
	if p.syms.funcVoid[name.text] {
		flags = flagVoid
	}
	return c, flags, nil
}

// constSize is the size of a constant in GNU's code: "0" and "1" are one
// byte, others "K<text>:" with leading zeros dropped.
func constSize(text string) int {
	t := strings.TrimLeft(text, "0")
	if t == "" || t[0] == '.' && !strings.Contains(text, ".") {
		t = "0"
	}
	if t == "" {
		t = "0"
	}
	if t == "0" || t == "1" {
		return 1
	}
	return len(t) + 2
}

// limitsText is what `limits` prints, GNU bc 1.07.1's figures on 64-bit
// Linux (the runner's own bounds are lower; see the package doc).
const limitsText = `BC_BASE_MAX     = 2147483647
BC_DIM_MAX      = 16777215
BC_SCALE_MAX    = 2147483647
BC_STRING_MAX   = 2147483647
MAX Exponent    = 9223372036854775807
Number of vars  = 32767
`

const warrantyText = `
bc 1.07.1 (the wsfs runner's reimplementation of GNU bc)

    GNU bc is free software: you can redistribute it and/or modify it
    under the terms of the GNU General Public License as published by the
    Free Software Foundation; either version 3 of the License, or (at your
    option) any later version. This reimplementation comes WITHOUT ANY
    WARRANTY; without even the implied warranty of MERCHANTABILITY or
    FITNESS FOR A PARTICULAR PURPOSE.

`
