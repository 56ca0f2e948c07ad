package xan

import (
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file is filter's expression language: a subset of xan's
// moonblade. Values are nil, bool, string, number, []any and
// *regexp.Regexp; cells are strings and become numbers where an operator
// or function wants one.

var filterCmd = &subcommand{
	name:    "filter",
	summary: "Keep rows for which an expression is true (xan's expression language, subset)",
	usage:   []string{"filter [options] <expression> [<input>]"},
	about: `
Examples: 'count > 10', 'lower(name) eq "john"', 'age >= 18 && country in
["fr", "be"]', 'name.startswith("A")', 'contains(text, /rust|go/i)',
'col("Unit price") * qty > 100', '!is_bot'.

Columns are referenced by name (col("any name") or col(index) otherwise;
name? is null when the column is missing). Numeric operators
== != < <= > >= + - * / // % ** cast cells to numbers (an error when a
cell is not one); string comparisons are eq ne lt le gt ge; ++ joins
strings; && || ! (and or not); x in y tests a substring or list element;
x | f(_, 1) pipes x into an expression (x | len calls len(x)).
Empty strings, 0, null, false and [] are false.`,
	flags: []flagDef{
		{"-v", "--invert-match", "", "Keep the rows for which the expression is false."},
		{"-l", "--limit", "<n>", "Stop after n rows."},
		{"-f", "--evaluate-file", "", "The expression argument is a file holding it."},
	},
	run: func(c *call) error {
		src, args, err := c.expression()
		if err != nil {
			return err
		}
		limit, err := c.num("limit", 0)
		if err != nil {
			return err
		}
		cr, err := c.input(args)
		if cr == nil {
			return err
		}
		prog, err := compileExpr(src, cr.Headers(), cr.HasHeaders())
		if err != nil {
			return err
		}
		if err := c.writeHeaders(cr.Headers()); err != nil {
			return err
		}
		invert := c.has("invert-match")
		emitted, row := 0, -1
		return eachUntil(cr, func(rec []string) error {
			row++
			v, err := prog(rec)
			if err != nil {
				return fmt.Errorf("row %d: %w", row, err)
			}
			if truthy(v) == invert {
				return nil
			}
			if err := c.out.Write(rec); err != nil {
				return err
			}
			emitted++
			if limit > 0 && emitted >= limit {
				return errStop
			}
			return nil
		})
	},
}

type evalFn func(row []string) (any, error)

// compileExpr parses src and binds its column names to indices.
func compileExpr(src string, headers []string, named bool) (evalFn, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, headers: headers, named: named}
	fn, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if p.peek().kind != tEOF {
		return nil, fmt.Errorf("expression: unexpected %q at offset %d", p.peek().text, p.peek().pos)
	}
	return fn, nil
}

type tokKind int

const (
	tEOF tokKind = iota
	tNum
	tStr
	tRegex
	tIdent
	tOp
)

type token struct {
	kind tokKind
	text string // operator, identifier, number text or decoded string
	pos  int
	re   *regexp.Regexp
}

var operators = []string{"**", "//", "++", "==", "!=", "<=", ">=", "&&", "||", "(", ")", "[", "]", ",", ".", "!", "-", "+", "*", "/", "%", "<", ">", ":", "|"}

func lex(src string) ([]token, error) {
	var toks []token
	operand := func() bool { // whether the next token starts an operand
		if len(toks) == 0 {
			return true
		}
		t := toks[len(toks)-1]
		return t.kind == tOp && t.text != ")" && t.text != "]" ||
			t.kind == tIdent && isWordOp(t.text)
	}
	for i := 0; i < len(src); {
		ch := src[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			i++
		case ch == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case ch >= '0' && ch <= '9' || ch == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9' && operand():
			j := i
			for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '.' || src[j] == '_' ||
				src[j] == 'e' || src[j] == 'E' || (src[j] == '-' || src[j] == '+') && (src[j-1] == 'e' || src[j-1] == 'E')) {
				j++
			}
			toks = append(toks, token{kind: tNum, text: strings.ReplaceAll(src[i:j], "_", ""), pos: i})
			i = j
		case ch == '"' || ch == '\'':
			s, n, err := lexString(src[i:])
			if err != nil {
				return nil, fmt.Errorf("expression: %v at offset %d", err, i)
			}
			toks = append(toks, token{kind: tStr, text: s, pos: i})
			i += n
		case ch == '/' && operand():
			j := i + 1
			for j < len(src) && src[j] != '/' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(src) {
				return nil, fmt.Errorf("expression: unterminated regex at offset %d", i)
			}
			pat := src[i+1 : j]
			j++
			if j < len(src) && src[j] == 'i' {
				pat = "(?i)" + pat
				j++
			}
			re, err := regexp.Compile(pat)
			if err != nil {
				return nil, fmt.Errorf("expression: invalid regex at offset %d: %v", i, err)
			}
			toks = append(toks, token{kind: tRegex, text: src[i:j], pos: i, re: re})
			i = j
		case ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z':
			j := i
			for j < len(src) && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			if j < len(src) && src[j] == '?' {
				j++
			}
			toks = append(toks, token{kind: tIdent, text: src[i:j], pos: i})
			i = j
		default:
			found := false
			for _, op := range operators {
				if strings.HasPrefix(src[i:], op) {
					toks = append(toks, token{kind: tOp, text: op, pos: i})
					i += len(op)
					found = true
					break
				}
			}
			if !found {
				r, _ := utf8.DecodeRuneInString(src[i:])
				return nil, fmt.Errorf("expression: unexpected character %q at offset %d", r, i)
			}
		}
	}
	return append(toks, token{kind: tEOF, pos: len(src)}), nil
}

func isWordOp(s string) bool {
	switch s {
	case "and", "or", "not", "in", "eq", "ne", "lt", "le", "gt", "ge":
		return true
	}
	return false
}

func lexString(s string) (string, int, error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		ch := s[i]
		if ch == q {
			return b.String(), i + 1, nil
		}
		if ch != '\\' {
			b.WriteByte(ch)
			continue
		}
		i++
		if i >= len(s) {
			break
		}
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case '0':
			b.WriteByte(0)
		case 'x':
			if i+2 < len(s) {
				if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
					b.WriteByte(byte(v))
					i += 2
					continue
				}
			}
			return "", 0, errors.New(`bad \x escape`)
		default:
			b.WriteByte(s[i])
		}
	}
	return "", 0, errors.New("unterminated string")
}

type parser struct {
	toks    []token
	i       int
	headers []string
	named   bool
	piped   *any // the left side of the innermost pipe, read by "_"
	depth   int
}

// pipe parses the right side of "left | right": a function name alone
// (trim(name) | len) is called with left; otherwise "_" stands for left.
func (p *parser) pipe(left evalFn, prec int) (evalFn, error) {
	t := p.peek()
	after := p.toks[min(p.i+1, len(p.toks)-1)]
	if _, isFn := functions[t.text]; t.kind == tIdent && isFn && !(after.kind == tOp && (after.text == "(" || after.text == ".")) {
		p.next()
		return p.call(t, []evalFn{left})
	}
	slot, outer := new(any), p.piped
	p.piped = slot
	right, err := p.expr(prec)
	p.piped = outer
	if err != nil {
		return nil, err
	}
	return func(row []string) (any, error) {
		v, err := left(row)
		if err != nil {
			return nil, err
		}
		*slot = v
		return right(row)
	}, nil
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token { t := p.toks[p.i]; p.i++; return t }

func (p *parser) expect(op string) error {
	t := p.next()
	if t.kind != tOp || t.text != op {
		return fmt.Errorf("expression: expected %q at offset %d, found %q", op, t.pos, t.text)
	}
	return nil
}

// binary operator precedence; higher binds tighter.
func precedence(t token) (string, int) {
	if t.kind != tOp && t.kind != tIdent {
		return "", 0
	}
	switch t.text {
	case "|":
		return t.text, 1
	case "||", "or":
		return t.text, 2
	case "&&", "and":
		return t.text, 3
	case "==", "!=", "<", "<=", ">", ">=", "eq", "ne", "lt", "le", "gt", "ge", "in", "not":
		return t.text, 4
	case "++":
		return t.text, 5
	case "+", "-":
		return t.text, 6
	case "*", "/", "//", "%":
		return t.text, 7
	case "**":
		return t.text, 8
	}
	return "", 0
}

func (p *parser) expr(minPrec int) (evalFn, error) {
	if p.depth++; p.depth > maxNesting {
		return nil, fmt.Errorf("expression: %w", errTooDeep)
	}
	defer func() { p.depth-- }()
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		op, prec := precedence(p.peek())
		if prec == 0 || prec <= minPrec && !(op == "**" && prec == minPrec) {
			return left, nil
		}
		p.next()
		if op == "|" {
			if left, err = p.pipe(left, prec); err != nil {
				return nil, err
			}
			continue
		}
		if op == "not" {
			if t := p.next(); t.kind != tIdent || t.text != "in" {
				return nil, fmt.Errorf("expression: expected \"in\" after \"not\" at offset %d", t.pos)
			}
			op = "not in"
		}
		right, err := p.expr(prec)
		if err != nil {
			return nil, err
		}
		left = binary(op, left, right)
	}
}

func (p *parser) unary() (evalFn, error) {
	if p.depth++; p.depth > maxNesting {
		return nil, fmt.Errorf("expression: %w", errTooDeep)
	}
	defer func() { p.depth-- }()
	t := p.peek()
	if (t.kind == tOp && (t.text == "!" || t.text == "-")) || (t.kind == tIdent && t.text == "not") {
		p.next()
		inner, err := p.unaryOperand()
		if err != nil {
			return nil, err
		}
		if t.text == "-" {
			return func(row []string) (any, error) {
				v, err := inner(row)
				if err != nil {
					return nil, err
				}
				n, err := toNumber(v)
				if err != nil {
					return nil, err
				}
				if n.isInt && n.i != math.MinInt64 {
					return number{isInt: true, i: -n.i}, nil
				}
				return number{f: -n.float()}, nil
			}, nil
		}
		return func(row []string) (any, error) {
			v, err := inner(row)
			return !truthy(v), err
		}, nil
	}
	return p.postfix()
}

// unaryOperand is what a prefix operator applies to: another prefix
// expression, or a primary with its postfixes (and ** on top, as -x**2).
func (p *parser) unaryOperand() (evalFn, error) {
	t := p.peek()
	if (t.kind == tOp && (t.text == "!" || t.text == "-")) || (t.kind == tIdent && t.text == "not") {
		return p.unary()
	}
	return p.postfix()
}

func (p *parser) postfix() (evalFn, error) {
	fn, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		switch {
		case t.kind == tOp && t.text == ".":
			p.next()
			name := p.next()
			if name.kind != tIdent {
				return nil, fmt.Errorf("expression: expected a function name after \".\" at offset %d", name.pos)
			}
			args := []evalFn{fn}
			if p.peek().kind == tOp && p.peek().text == "(" {
				more, err := p.args()
				if err != nil {
					return nil, err
				}
				args = append(args, more...)
			}
			if fn, err = p.call(name, args); err != nil {
				return nil, err
			}
		case t.kind == tOp && t.text == "[":
			p.next()
			var lo, hi evalFn
			isSlice := false
			if !(p.peek().kind == tOp && p.peek().text == ":") {
				if lo, err = p.expr(0); err != nil {
					return nil, err
				}
			}
			if p.peek().kind == tOp && p.peek().text == ":" {
				p.next()
				isSlice = true
				if !(p.peek().kind == tOp && p.peek().text == "]") {
					if hi, err = p.expr(0); err != nil {
						return nil, err
					}
				}
			}
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			fn = indexFn(fn, lo, hi, isSlice)
		default:
			return fn, nil
		}
	}
}

func (p *parser) args() ([]evalFn, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	var args []evalFn
	for !(p.peek().kind == tOp && p.peek().text == ")") {
		a, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		args = append(args, a)
		if p.peek().kind == tOp && p.peek().text == "," {
			p.next()
			continue
		}
		if !(p.peek().kind == tOp && p.peek().text == ")") {
			return nil, fmt.Errorf("expression: expected \",\" or \")\" at offset %d", p.peek().pos)
		}
	}
	p.next()
	return args, nil
}

// readLimited reads r whole, refusing more than limit bytes.
func readLimited(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("larger than %d bytes", limit)
	}
	return b, err
}

func constant(v any) evalFn { return func([]string) (any, error) { return v, nil } }

func (p *parser) primary() (evalFn, error) {
	t := p.next()
	switch t.kind {
	case tNum:
		n, ok := parseNumber(t.text)
		if !ok {
			return nil, fmt.Errorf("expression: bad number %q at offset %d", t.text, t.pos)
		}
		return constant(n), nil
	case tStr:
		return constant(t.text), nil
	case tRegex:
		return constant(t.re), nil
	case tOp:
		switch t.text {
		case "(":
			fn, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			return fn, p.expect(")")
		case "[":
			var items []evalFn
			for !(p.peek().kind == tOp && p.peek().text == "]") {
				it, err := p.expr(0)
				if err != nil {
					return nil, err
				}
				items = append(items, it)
				if p.peek().kind == tOp && p.peek().text == "," {
					p.next()
				} else if !(p.peek().kind == tOp && p.peek().text == "]") {
					return nil, fmt.Errorf("expression: expected \",\" or \"]\" at offset %d", p.peek().pos)
				}
			}
			p.next()
			return func(row []string) (any, error) {
				out := make([]any, len(items))
				for i, it := range items {
					v, err := it(row)
					if err != nil {
						return nil, err
					}
					out[i] = v
				}
				return out, nil
			}, nil
		}
	case tIdent:
		switch t.text {
		case "true":
			return constant(true), nil
		case "false":
			return constant(false), nil
		case "null":
			return constant(nil), nil
		}
		if p.peek().kind == tOp && p.peek().text == "(" {
			args, err := p.args()
			if err != nil {
				return nil, err
			}
			return p.call(t, args)
		}
		return p.column(t)
	case tEOF:
		return nil, errors.New("expression: unexpected end")
	}
	return nil, fmt.Errorf("expression: unexpected %q at offset %d", t.text, t.pos)
}

func (p *parser) column(t token) (evalFn, error) {
	if t.text == "_" && p.piped != nil {
		slot := p.piped
		return func([]string) (any, error) { return *slot, nil }, nil
	}
	name, unsure := strings.CutSuffix(t.text, "?")
	for i, h := range p.headers {
		if h == name && p.named {
			return cell(i), nil
		}
	}
	if unsure {
		return constant(nil), nil
	}
	if !p.named {
		return nil, fmt.Errorf("expression: columns have no names with -n/--no-headers: use col(INDEX), not %q", name)
	}
	return nil, fmt.Errorf("expression: %w", notFound(name, p.headers))
}

// call binds a function call; col() with constant arguments resolves the
// column now, so a missing one is an error before any row is read.
func (p *parser) call(name token, args []evalFn) (evalFn, error) {
	if name.text == "col" {
		return p.colCall(args)
	}
	f, ok := functions[name.text]
	if !ok {
		return nil, fmt.Errorf("expression: unknown function %q (supported: %s)", name.text, strings.Join(funcNames(), ", "))
	}
	if len(args) < f.min || (f.max >= 0 && len(args) > f.max) {
		return nil, fmt.Errorf("expression: %s() takes %s argument(s), got %d", name.text, arity(f), len(args))
	}
	if f.lazy != nil {
		return func(row []string) (any, error) { return f.lazy(row, args) }, nil
	}
	return func(row []string) (any, error) {
		vals := make([]any, len(args))
		for i, a := range args {
			v, err := a(row)
			if err != nil {
				return nil, err
			}
			vals[i] = v
		}
		v, err := f.fn(vals)
		if err != nil {
			return nil, fmt.Errorf("%s(): %w", name.text, err)
		}
		return v, nil
	}, nil
}

func (p *parser) colCall(args []evalFn) (evalFn, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, fmt.Errorf("expression: col() takes 1 or 2 arguments, got %d", len(args))
	}
	sel, err := args[0](nil)
	if err != nil {
		return nil, errors.New("expression: col() needs a constant name or index")
	}
	nth := 0
	if len(args) == 2 {
		v, err := args[1](nil)
		n, nerr := toNumber(v)
		if err != nil || nerr != nil || !n.isInt {
			return nil, errors.New("expression: col()'s second argument must be an integer")
		}
		nth = int(n.i)
	}
	var idx int
	switch s := sel.(type) {
	case number:
		if !s.isInt {
			return nil, errors.New("expression: col() index must be an integer")
		}
		if idx, err = resolveOne(strconv.FormatInt(s.i, 10), p.headers, p.named); err != nil {
			return nil, fmt.Errorf("expression: %w", err)
		}
	case string:
		item := `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
		if nth != 0 {
			item = s + "[" + strconv.Itoa(nth) + "]"
		}
		if idx, err = resolveOne(item, p.headers, p.named); err != nil {
			return nil, fmt.Errorf("expression: %w", err)
		}
	default:
		return nil, errors.New("expression: col() needs a column name or index")
	}
	return cell(idx), nil
}

// errNotConstant is what a column gives when evaluated without a row, as
// col() does to resolve constant arguments at compile time.
var errNotConstant = errors.New("not a constant")

func cell(i int) evalFn {
	return func(row []string) (any, error) {
		if i >= len(row) {
			return nil, errNotConstant
		}
		return row[i], nil
	}
}

func arity(f fnDef) string {
	switch {
	case f.max < 0:
		return fmt.Sprintf("at least %d", f.min)
	case f.min == f.max:
		return strconv.Itoa(f.min)
	}
	return fmt.Sprintf("%d to %d", f.min, f.max)
}

func truthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case string:
		return t != ""
	case number:
		return t.float() != 0
	case []any:
		return len(t) > 0
	}
	return true
}

func toNumber(v any) (number, error) {
	switch t := v.(type) {
	case number:
		return t, nil
	case string:
		if n, ok := parseNumber(strings.TrimSpace(t)); ok {
			return n, nil
		}
		if t == "" {
			return number{}, errors.New(`cannot use an empty cell as a number (test it first: x && x > 1)`)
		}
		return number{}, fmt.Errorf("cannot use %q as a number (strings compare with eq, ne, lt, gt…)", t)
	case bool:
		if t {
			return number{isInt: true, i: 1}, nil
		}
		return number{isInt: true}, nil
	case nil:
		return number{}, errors.New("cannot use null as a number")
	}
	return number{}, fmt.Errorf("cannot use a %s as a number", typeOf(v))
}

func toString(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case bool:
		return strconv.FormatBool(t)
	case number:
		return t.String()
	case *regexp.Regexp:
		return t.String()
	case []any:
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = jsonString(toString(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

func typeOf(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case number:
		if t.isInt {
			return "integer"
		}
		return "float"
	case []any:
		return "list"
	case *regexp.Regexp:
		return "regex"
	}
	return "unknown"
}

func binary(op string, l, r evalFn) evalFn {
	switch op {
	case "&&", "and":
		return func(row []string) (any, error) {
			a, err := l(row)
			if err != nil || !truthy(a) {
				return a, err
			}
			return r(row)
		}
	case "||", "or":
		return func(row []string) (any, error) {
			a, err := l(row)
			if err != nil || truthy(a) {
				return a, err
			}
			return r(row)
		}
	}
	return func(row []string) (any, error) {
		a, err := l(row)
		if err != nil {
			return nil, err
		}
		b, err := r(row)
		if err != nil {
			return nil, err
		}
		return applyBinary(op, a, b)
	}
}

func applyBinary(op string, a, b any) (any, error) {
	switch op {
	case "eq", "ne", "lt", "le", "gt", "ge":
		c := strings.Compare(toString(a), toString(b))
		return cmpResult(op, c), nil
	case "++":
		return toString(a) + toString(b), nil
	case "in", "not in":
		in := contains(b, a)
		return in == (op == "in"), nil
	}
	x, err := toNumber(a)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	y, err := toNumber(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	switch op {
	case "==", "!=", "<", "<=", ">", ">=":
		c := compareNumbers(x, y)
		return cmpResult(numericToString[op], c), nil
	}
	return arith(op, x, y)
}

// numericToString maps a numeric comparison to its string twin.
var numericToString = map[string]string{"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}

func cmpResult(op string, c int) bool {
	switch op {
	case "eq":
		return c == 0
	case "ne":
		return c != 0
	case "lt":
		return c < 0
	case "le":
		return c <= 0
	case "gt":
		return c > 0
	}
	return c >= 0
}

func arith(op string, x, y number) (any, error) {
	if x.isInt && y.isInt {
		a, b := x.i, y.i
		switch op {
		case "+":
			if r := a + b; (b > 0) == (r > a) || b == 0 {
				return number{isInt: true, i: r}, nil
			}
		case "-":
			if r := a - b; (b > 0) == (r < a) || b == 0 {
				return number{isInt: true, i: r}, nil
			}
		case "*":
			if a == 0 || b == 0 {
				return number{isInt: true}, nil
			}
			if r := a * b; r/b == a && !(a == -1 && b == math.MinInt64) && !(b == -1 && a == math.MinInt64) {
				return number{isInt: true, i: r}, nil
			}
		case "//", "%":
			if b == 0 {
				return nil, errors.New("division by zero")
			}
			if a == math.MinInt64 && b == -1 {
				break
			}
			if op == "%" {
				return number{isInt: true, i: a % b}, nil
			}
			q := a / b
			if (a%b != 0) && ((a < 0) != (b < 0)) {
				q--
			}
			return number{isInt: true, i: q}, nil
		}
	}
	a, b := x.float(), y.float()
	var r float64
	switch op {
	case "+":
		r = a + b
	case "-":
		r = a - b
	case "*":
		r = a * b
	case "/":
		if b == 0 {
			return nil, errors.New("division by zero")
		}
		r = a / b
	case "//":
		if b == 0 {
			return nil, errors.New("division by zero")
		}
		r = math.Floor(a / b)
	case "%":
		if b == 0 {
			return nil, errors.New("division by zero")
		}
		r = math.Mod(a, b)
	case "**":
		if x.isInt && y.isInt && y.i >= 0 && y.i < 64 {
			if p := math.Pow(a, b); math.Abs(p) < 1<<53 {
				return number{isInt: true, i: int64(p)}, nil
			}
		}
		r = math.Pow(a, b)
	default:
		return nil, fmt.Errorf("unknown operator %s", op)
	}
	return number{f: r}, nil
}

func contains(haystack, needle any) bool {
	switch h := haystack.(type) {
	case []any:
		for _, e := range h {
			if toString(e) == toString(needle) {
				return true
			}
		}
		return false
	}
	if re, ok := needle.(*regexp.Regexp); ok {
		return re.MatchString(toString(haystack))
	}
	return strings.Contains(toString(haystack), toString(needle))
}

func indexFn(target, lo, hi evalFn, isSlice bool) evalFn {
	return func(row []string) (any, error) {
		t, err := target(row)
		if err != nil {
			return nil, err
		}
		var seq []any
		_, isStr := t.(string)
		switch v := t.(type) {
		case string:
			for _, r := range v {
				seq = append(seq, string(r))
			}
		case []any:
			seq = v
		default:
			return nil, fmt.Errorf("cannot index a %s", typeOf(t))
		}
		bound := func(fn evalFn, def int) (int, error) {
			if fn == nil {
				return def, nil
			}
			v, err := fn(row)
			if err != nil {
				return 0, err
			}
			n, err := toNumber(v)
			if err != nil || !n.isInt {
				return 0, errors.New("an index must be an integer")
			}
			i := int(n.i)
			if i < 0 {
				i += len(seq)
			}
			return i, nil
		}
		if !isSlice {
			i, err := bound(lo, 0)
			if err != nil {
				return nil, err
			}
			if i < 0 || i >= len(seq) {
				return nil, nil
			}
			return seq[i], nil
		}
		a, err := bound(lo, 0)
		if err != nil {
			return nil, err
		}
		b, err := bound(hi, len(seq))
		if err != nil {
			return nil, err
		}
		a, b = max(0, min(a, len(seq))), max(0, min(b, len(seq)))
		if b < a {
			b = a
		}
		if isStr {
			return strings.Join(anyStrings(seq[a:b]), ""), nil
		}
		return seq[a:b], nil
	}
}

func anyStrings(v []any) []string {
	out := make([]string, len(v))
	for i, e := range v {
		out[i] = toString(e)
	}
	return out
}

type fnDef struct {
	min, max int // max < 0: variadic
	fn       func(args []any) (any, error)
	lazy     func(row []string, args []evalFn) (any, error)
}

// wrap breaks s into lines of at most width bytes at spaces.
func wrap(s string, width int) string {
	var b strings.Builder
	line := 0
	for i, w := range strings.Fields(s) {
		if i > 0 && line+1+len(w) > width {
			b.WriteByte('\n')
			line = 0
		} else if i > 0 {
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += len(w)
	}
	return b.String()
}

func funcNames() []string {
	names := []string{"col"}
	for n := range functions {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func str1(f func(string) any) fnDef {
	return fnDef{min: 1, max: 1, fn: func(a []any) (any, error) { return f(toString(a[0])), nil }}
}

func num1(f func(float64) float64) fnDef {
	return fnDef{min: 1, max: 1, fn: func(a []any) (any, error) {
		n, err := toNumber(a[0])
		if err != nil {
			return nil, err
		}
		if n.isInt {
			r := f(n.float())
			if r == math.Trunc(r) && math.Abs(r) < 1<<53 {
				return number{isInt: true, i: int64(r)}, nil
			}
			return number{f: r}, nil
		}
		return number{f: f(n.f)}, nil
	}}
}

func trimFn(trim func(string, string) string, space func(string) string) fnDef {
	return fnDef{min: 1, max: 2, fn: func(a []any) (any, error) {
		if len(a) == 2 {
			return trim(toString(a[0]), toString(a[1])), nil
		}
		return space(toString(a[0])), nil
	}}
}

func foldNumbers(op string) fnDef {
	return fnDef{min: 2, max: -1, fn: func(a []any) (any, error) {
		acc := a[0]
		for _, b := range a[1:] {
			x, err := toNumber(acc)
			if err != nil {
				return nil, err
			}
			y, err := toNumber(b)
			if err != nil {
				return nil, err
			}
			if acc, err = arith(op, x, y); err != nil {
				return nil, err
			}
		}
		n, err := toNumber(acc)
		return n, err
	}}
}

func extremum(less bool) fnDef {
	return fnDef{min: 1, max: -1, fn: func(a []any) (any, error) {
		if len(a) == 1 {
			if l, ok := a[0].([]any); ok {
				a = l
			}
		}
		var best number
		for i, v := range a {
			n, err := toNumber(v)
			if err != nil {
				return nil, err
			}
			if i == 0 || (less && n.float() < best.float()) || (!less && n.float() > best.float()) {
				best = n
			}
		}
		if len(a) == 0 {
			return nil, nil
		}
		return best, nil
	}}
}

func compareFn(op string) fnDef {
	return fnDef{min: 2, max: 2, fn: func(a []any) (any, error) { return applyBinary(op, a[0], a[1]) }}
}

func countMatches(s string, pat any) int {
	if re, ok := pat.(*regexp.Regexp); ok {
		return len(re.FindAllStringIndex(s, -1))
	}
	p := toString(pat)
	if p == "" {
		return 0
	}
	return strings.Count(s, p)
}

var functions map[string]fnDef

func init() {
	functions = map[string]fnDef{
		"lower": str1(func(s string) any { return strings.ToLower(s) }),
		"upper": str1(func(s string) any { return strings.ToUpper(s) }),
		"trim":  trimFn(strings.Trim, strings.TrimSpace),
		"ltrim": trimFn(strings.TrimLeft, func(s string) string { return strings.TrimLeft(s, " \t\r\n") }),
		"rtrim": trimFn(strings.TrimRight, func(s string) string { return strings.TrimRight(s, " \t\r\n") }),
		"len": {min: 1, max: 1, fn: func(a []any) (any, error) {
			if l, ok := a[0].([]any); ok {
				return number{isInt: true, i: int64(len(l))}, nil
			}
			return number{isInt: true, i: int64(utf8.RuneCountInString(toString(a[0])))}, nil
		}},
		"contains": {min: 2, max: 2, fn: func(a []any) (any, error) { return contains(a[0], a[1]), nil }},
		"startswith": {min: 2, max: 2, fn: func(a []any) (any, error) {
			return strings.HasPrefix(toString(a[0]), toString(a[1])), nil
		}},
		"endswith": {min: 2, max: 2, fn: func(a []any) (any, error) {
			return strings.HasSuffix(toString(a[0]), toString(a[1])), nil
		}},
		"count": {min: 2, max: 2, fn: func(a []any) (any, error) {
			return number{isInt: true, i: int64(countMatches(toString(a[0]), a[1]))}, nil
		}},
		"concat": {min: 1, max: -1, fn: func(a []any) (any, error) { return strings.Join(anyStrings(a), ""), nil }},
		"fmt": {min: 1, max: -1, fn: func(a []any) (any, error) {
			s, rest := toString(a[0]), a[1:]
			var b strings.Builder
			for {
				i := strings.Index(s, "{}")
				if i < 0 || len(rest) == 0 {
					b.WriteString(s)
					return b.String(), nil
				}
				b.WriteString(s[:i] + toString(rest[0]))
				s, rest = s[i+2:], rest[1:]
			}
		}},
		"replace": {min: 3, max: 3, fn: func(a []any) (any, error) {
			if re, ok := a[1].(*regexp.Regexp); ok {
				return re.ReplaceAllString(toString(a[0]), toString(a[2])), nil
			}
			return strings.ReplaceAll(toString(a[0]), toString(a[1]), toString(a[2])), nil
		}},
		"split": {min: 2, max: 3, fn: func(a []any) (any, error) {
			n := -1
			if len(a) == 3 {
				m, err := toNumber(a[2])
				if err != nil {
					return nil, err
				}
				n = int(m.float()) + 1
			}
			var parts []string
			if re, ok := a[1].(*regexp.Regexp); ok {
				parts = re.Split(toString(a[0]), n)
			} else {
				parts = strings.SplitN(toString(a[0]), toString(a[1]), n)
			}
			out := make([]any, len(parts))
			for i, p := range parts {
				out[i] = p
			}
			return out, nil
		}},
		"join": {min: 2, max: 2, fn: func(a []any) (any, error) {
			l, ok := a[0].([]any)
			if !ok {
				return nil, errors.New("join() needs a list")
			}
			return strings.Join(anyStrings(l), toString(a[1])), nil
		}},
		"first": {min: 1, max: 1, fn: func(a []any) (any, error) { return seqAt(a[0], 0), nil }},
		"last":  {min: 1, max: 1, fn: func(a []any) (any, error) { return seqAt(a[0], -1), nil }},
		"get": {min: 2, max: 3, fn: func(a []any) (any, error) {
			n, err := toNumber(a[1])
			if err != nil || !n.isInt {
				return nil, errors.New("get() needs an integer index")
			}
			if v := seqAt(a[0], int(n.i)); v != nil || len(a) < 3 {
				return v, nil
			}
			return a[2], nil
		}},
		"match": {min: 2, max: 3, fn: func(a []any) (any, error) {
			re, ok := a[1].(*regexp.Regexp)
			if !ok {
				var err error
				if re, err = regexp.Compile(toString(a[1])); err != nil {
					return nil, err
				}
			}
			g := 0
			if len(a) == 3 {
				n, err := toNumber(a[2])
				if err != nil {
					return nil, err
				}
				g = int(n.float())
			}
			m := re.FindStringSubmatch(toString(a[0]))
			if g < 0 || g >= len(m) {
				return nil, nil
			}
			return m[g], nil
		}},
		"escape_regex": str1(func(s string) any { return regexp.QuoteMeta(s) }),
		"typeof":       {min: 1, max: 1, fn: func(a []any) (any, error) { return typeOf(a[0]), nil }},
		"not":          {min: 1, max: 1, fn: func(a []any) (any, error) { return !truthy(a[0]), nil }},
		"and": {min: 2, max: -1, lazy: func(row []string, args []evalFn) (any, error) {
			var v any
			for _, a := range args {
				var err error
				if v, err = a(row); err != nil || !truthy(v) {
					return v, err
				}
			}
			return v, nil
		}},
		"or": {min: 2, max: -1, lazy: func(row []string, args []evalFn) (any, error) {
			var v any
			for _, a := range args {
				var err error
				if v, err = a(row); err != nil || truthy(v) {
					return v, err
				}
			}
			return v, nil
		}},
		"coalesce": {min: 1, max: -1, lazy: func(row []string, args []evalFn) (any, error) {
			for _, a := range args {
				v, err := a(row)
				if err != nil || truthy(v) {
					return v, err
				}
			}
			return nil, nil
		}},
		"if":     {min: 2, max: 3, lazy: branch(true)},
		"unless": {min: 2, max: 3, lazy: branch(false)},
		"eq":     compareFn("eq"),
		"ne":     compareFn("ne"),
		"lt":     compareFn("lt"),
		"le":     compareFn("le"),
		"gt":     compareFn("gt"),
		"ge":     compareFn("ge"),
		"abs":    num1(math.Abs),
		"ceil":   num1(math.Ceil),
		"floor":  num1(math.Floor),
		"round":  num1(math.Round),
		"trunc":  num1(math.Trunc),
		"sqrt":   num1(math.Sqrt),
		"log":    num1(math.Log),
		"neg":    num1(func(f float64) float64 { return -f }),
		"add":    foldNumbers("+"),
		"sub":    foldNumbers("-"),
		"mul":    foldNumbers("*"),
		"div":    foldNumbers("/"),
		"idiv":   foldNumbers("//"),
		"mod":    foldNumbers("%"),
		"pow":    foldNumbers("**"),
		"min":    extremum(true),
		"max":    extremum(false),
	}
	filterCmd.about += "\n" + wrap("Functions: "+strings.Join(funcNames(), ", ")+".", 76)
}

func branch(when bool) func(row []string, args []evalFn) (any, error) {
	return func(row []string, args []evalFn) (any, error) {
		c, err := args[0](row)
		if err != nil {
			return nil, err
		}
		if truthy(c) == when {
			return args[1](row)
		}
		if len(args) == 3 {
			return args[2](row)
		}
		return nil, nil
	}
}

func seqAt(v any, i int) any {
	switch t := v.(type) {
	case []any:
		if i < 0 {
			i += len(t)
		}
		if i >= 0 && i < len(t) {
			return t[i]
		}
	case string:
		r := []rune(t)
		if i < 0 {
			i += len(r)
		}
		if i >= 0 && i < len(r) {
			return string(r[i])
		}
	}
	return nil
}
