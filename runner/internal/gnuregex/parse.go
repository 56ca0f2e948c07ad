package gnuregex

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Syntax selects how a pattern is read.
type Syntax int

const (
	// BRE is GNU's basic syntax (grep, sed): \( \) \{ \} \| \+ \? are operators.
	BRE Syntax = iota
	// ERE is GNU's extended syntax (grep -E, sed -E, awk): ( ) { } | + ? are operators.
	ERE
)

// Options say how to read and match a pattern.
type Options struct {
	Syntax     Syntax
	IgnoreCase bool
	// EOL is the record terminator no match contains: "." and negated
	// classes exclude it. Zero means '\n' (lines) unless NULData is set.
	EOL byte
	// NULData makes the terminator NUL (grep -z): "." then matches a
	// newline and ^ $ anchor only at the ends of the record, which is
	// also what a sed pattern space needs.
	NULData bool
}

func (o Options) eol() byte {
	if o.NULData {
		return 0
	}
	if o.EOL == 0 {
		return '\n'
	}
	return o.EOL
}

// dupMax is RE_DUP_MAX of glibc.
const dupMax = 0x7fff

// Error is a pattern that does not compile; its text is GNU's message,
// e.g. "Unmatched ( or \(".
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

var (
	errUnmatchedParen   = &Error{`Unmatched ( or \(`}
	errUnmatchedRParen  = &Error{`Unmatched ) or \)`}
	errUnmatchedBracket = &Error{"Unmatched [, [^, [:, [., or [="}
	errUnmatchedBrace   = &Error{`Unmatched \{`}
	errBadBrace         = &Error{`Invalid content of \{\}`}
	errBadBackref       = &Error{"Invalid back reference"}
	errTrailingBS       = &Error{"Trailing backslash"}
	errBadClass         = &Error{"Invalid character class name"}
	errBadRange         = &Error{"Invalid range end"}
	errTooBig           = &Error{"Regular expression too big"}
	errBadCollation     = &Error{"Invalid collation character"}
	errClassSyntax      = &Error{"character class syntax is [[:space:]], not [:space:]"}
	errBadPreceding     = &Error{"Invalid preceding regular expression"}
)

// IsSyntaxError reports whether err is a pattern error (as opposed to a
// cancelled context or an exhausted step budget).
func IsSyntaxError(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

type op uint8

const (
	opEmpty op = iota
	opLit
	opAny
	opClass
	opBOL
	opEOL
	opWordB
	opNotWordB
	opWordStart
	opWordEnd
	opBufStart
	opBufEnd
	opGroup
	opBackref
	opConcat
	opAlt
	opRepeat
)

type node struct {
	op   op
	r    rune
	cls  *charClass
	subs []*node
	idx  int // group number (1-based) for opGroup and opBackref
	min  int
	max  int // -1: unbounded
}

// parser reads one pattern.
type parser struct {
	src      []rune
	pos      int
	syn      Syntax
	ngroups  int
	closed   map[int]bool
	depth    int
	warnings []string
	backrefs bool
}

// Pattern is a parsed GNU regular expression (or several joined as
// alternatives, as grep -e A -e B does).
type Pattern struct {
	root     *node
	opts     Options
	ngroups  int
	backrefs bool
	warnings []string
}

// Parse reads pattern in the given syntax. Errors carry GNU's messages;
// warnings (e.g. "* at start of expression") are kept for the caller.
func Parse(pattern string, opts Options) (*Pattern, error) {
	p := &parser{src: []rune(pattern), syn: opts.Syntax, closed: map[int]bool{}}
	if !utf8.ValidString(pattern) {
		p.src = bytesAsRunes(pattern)
	}
	root, err := p.parseAlt()
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.src) {
		// Only an unmatched close paren stops parseAlt early.
		return nil, errUnmatchedRParen
	}
	return &Pattern{root: root, opts: opts, ngroups: p.ngroups, backrefs: p.backrefs, warnings: p.warnings}, nil
}

// bytesAsRunes keeps invalid bytes as runes of their own value so that a
// pattern with a stray byte still matches that byte in the backtracker.
func bytesAsRunes(s string) []rune {
	var out []rune
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			r = rune(s[i])
		}
		out = append(out, r)
		i += n
	}
	return out
}

// Warnings returns what GNU grep prints as "warning: ..." for the pattern.
func (p *Pattern) Warnings() []string { return p.warnings }

// Groups returns the number of capturing groups.
func (p *Pattern) Groups() int { return p.ngroups }

// HasBackrefs reports whether the pattern uses \1 … \9.
func (p *Pattern) HasBackrefs() bool { return p.backrefs }

// Alternate joins patterns as alternatives (grep -e A -e B), keeping each
// one's back-references on its own groups. All must share one Options.
func Alternate(ps ...*Pattern) *Pattern {
	if len(ps) == 1 {
		return ps[0]
	}
	out := &Pattern{root: &node{op: opAlt}}
	for _, p := range ps {
		out.opts = p.opts
		out.root.subs = append(out.root.subs, shiftGroups(p.root, out.ngroups))
		out.ngroups += p.ngroups
		out.backrefs = out.backrefs || p.backrefs
		out.warnings = append(out.warnings, p.warnings...)
	}
	return out
}

func shiftGroups(n *node, by int) *node {
	if by == 0 {
		return n
	}
	c := *n
	if c.op == opGroup || c.op == opBackref {
		c.idx += by
	}
	if len(n.subs) > 0 {
		c.subs = make([]*node, len(n.subs))
		for i, s := range n.subs {
			c.subs[i] = shiftGroups(s, by)
		}
	}
	return &c
}

func (p *parser) more() bool { return p.pos < len(p.src) }

func (p *parser) peek(off int) (rune, bool) {
	if p.pos+off < len(p.src) {
		return p.src[p.pos+off], true
	}
	return 0, false
}

// atAltEnd reports whether the parser stands before "|" / "\|", ")" /
// "\)" closing a group, or the end.
func (p *parser) atAltEnd() bool {
	c, ok := p.peek(0)
	if !ok {
		return true
	}
	if p.syn == ERE {
		return c == '|' || (c == ')' && p.depth > 0)
	}
	if c == '\\' {
		d, ok := p.peek(1)
		return ok && (d == '|' || (d == ')' && p.depth > 0))
	}
	return false
}

func (p *parser) parseAlt() (*node, error) {
	var alts []*node
	// As glibc: a branch may refer back only to groups closed before the
	// alternation or in the branch itself.
	initial := make(map[int]bool, len(p.closed))
	for k := range p.closed {
		initial[k] = true
	}
	accumulated := map[int]bool{}
	for {
		if len(alts) > 0 {
			for k := range p.closed {
				accumulated[k] = true
			}
			p.closed = make(map[int]bool, len(initial))
			for k := range initial {
				p.closed[k] = true
			}
		}
		n, err := p.parseConcat()
		if err != nil {
			return nil, err
		}
		alts = append(alts, n)
		c, ok := p.peek(0)
		if !ok {
			break
		}
		if p.syn == ERE && c == '|' {
			p.pos++
			continue
		}
		if p.syn == BRE && c == '\\' {
			if d, _ := p.peek(1); d == '|' {
				p.pos += 2
				continue
			}
		}
		break
	}
	for k := range accumulated {
		p.closed[k] = true
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return &node{op: opAlt, subs: alts}, nil
}

func (p *parser) parseConcat() (*node, error) {
	var items []*node
	// start is true where a repetition operator has nothing to repeat: at
	// the start of a branch or right after a leading "^".
	start := true
	for p.more() && !p.atAltEnd() {
		c := p.src[p.pos]
		if p.syn == ERE && c == ')' && p.depth == 0 {
			// GNU reads an unmatched ")" in an ERE as a literal.
			p.pos++
			items = append(items, &node{op: opLit, r: ')'})
			start = false
			continue
		}
		if rep, ok, err := p.repeatOp(); err != nil {
			return nil, err
		} else if ok {
			if start || len(items) == 0 || isAnchor(items[len(items)-1]) {
				if p.syn == ERE {
					// GNU drops the operator (the anchor stays), and
					// fails to close a group that holds nothing else.
					if c, _ := p.peek(0); c == ')' && p.depth > 0 && rep.name != "{...}" {
						return nil, errUnmatchedParen
					}
					if allAnchors(items) {
						p.warnings = append(p.warnings, rep.name+" at start of expression")
					}
					continue
				}
				// BRE: the operator is an ordinary character (GNU does not warn).
				items = append(items, literalNodes(rep.text)...)
				start = false
				continue
			}
			last := items[len(items)-1]
			items[len(items)-1] = &node{op: opRepeat, subs: []*node{last}, min: rep.min, max: rep.max}
			continue
		}
		atom, err := p.parseAtom(len(items) == 0)
		if err != nil {
			return nil, err
		}
		items = append(items, atom)
		start = false
	}
	switch len(items) {
	case 0:
		return &node{op: opEmpty}, nil
	case 1:
		return items[0], nil
	}
	return &node{op: opConcat, subs: items}, nil
}

// isAnchor reports a zero-width assertion, after which GNU reads a
// repetition operator as if it stood at the start of the expression.
func isAnchor(n *node) bool {
	switch n.op {
	case opBOL, opEOL, opWordB, opNotWordB, opWordStart, opWordEnd, opBufStart, opBufEnd:
		return true
	}
	return false
}

func allAnchors(items []*node) bool {
	for _, n := range items {
		if !isAnchor(n) {
			return false
		}
	}
	return true
}

func literalNodes(s string) []*node {
	var out []*node
	for _, r := range s {
		out = append(out, &node{op: opLit, r: r})
	}
	return out
}

type repetition struct {
	name     string // for warnings: "*", "+", "?", "{...}"
	text     string // the literal text, for BRE where a leading operator is ordinary
	min, max int
}

// repeatOp consumes a repetition operator if one stands at pos.
func (p *parser) repeatOp() (repetition, bool, error) {
	c := p.src[p.pos]
	if c == '*' {
		p.pos++
		return repetition{name: "*", text: "*", min: 0, max: -1}, true, nil
	}
	if p.syn == ERE {
		switch c {
		case '+':
			p.pos++
			return repetition{name: "+", text: "+", min: 1, max: -1}, true, nil
		case '?':
			p.pos++
			return repetition{name: "?", text: "?", min: 0, max: 1}, true, nil
		case '{':
			save := p.pos
			p.pos++
			min, max, ok, err := p.interval()
			if err != nil {
				return repetition{}, false, err
			}
			if !ok {
				// Not an interval: GNU reads "{" as a literal.
				p.pos = save
				return repetition{}, false, nil
			}
			return repetition{name: "{...}", text: string(p.src[save:p.pos]), min: min, max: max}, true, nil
		}
		return repetition{}, false, nil
	}
	if c != '\\' {
		return repetition{}, false, nil
	}
	d, ok := p.peek(1)
	if !ok {
		return repetition{}, false, nil
	}
	switch d {
	case '+':
		p.pos += 2
		return repetition{name: "+", text: "+", min: 1, max: -1}, true, nil
	case '?':
		p.pos += 2
		return repetition{name: "?", text: "?", min: 0, max: 1}, true, nil
	case '{':
		save := p.pos
		p.pos += 2
		min, max, ok, err := p.interval()
		if err != nil {
			return repetition{}, false, err
		}
		if !ok {
			return repetition{}, false, errBadBrace
		}
		return repetition{name: "{...}", text: strings.ReplaceAll(string(p.src[save:p.pos]), `\`, ""), min: min, max: max}, true, nil
	}
	return repetition{}, false, nil
}

// interval reads "m}", "m,}", "m,n}", ",n}" (ERE) or the same ending in
// "\}" (BRE) after the opening brace. ok is false when an ERE brace does
// not open a valid interval.
func (p *parser) interval() (min, max int, ok bool, err error) {
	readNum := func() (int, bool) {
		start := p.pos
		for p.more() && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
		}
		if p.pos == start {
			return 0, false
		}
		n, convErr := strconv.Atoi(string(p.src[start:p.pos]))
		if convErr != nil || n > dupMax {
			return dupMax + 1, true
		}
		return n, true
	}
	bad := func() (int, int, bool, error) {
		if p.syn == ERE {
			return 0, 0, false, nil
		}
		// Find out whether the brace is closed at all.
		if strings.Contains(string(p.src[p.pos:]), `\}`) {
			return 0, 0, false, errBadBrace
		}
		return 0, 0, false, errUnmatchedBrace
	}
	lo, hasLo := readNum()
	hi := lo
	if p.more() && p.src[p.pos] == ',' {
		p.pos++
		var hasHi bool
		hi, hasHi = readNum()
		if !hasHi {
			hi = -1
		}
	} else if !hasLo {
		return bad()
	}
	if !hasLo {
		lo = 0
	}
	if p.syn == ERE {
		if !p.more() || p.src[p.pos] != '}' {
			return bad()
		}
		p.pos++
	} else {
		if p.pos+1 >= len(p.src) || p.src[p.pos] != '\\' || p.src[p.pos+1] != '}' {
			return bad()
		}
		p.pos += 2
	}
	if lo > dupMax || hi > dupMax {
		return 0, 0, false, errTooBig
	}
	if hi >= 0 && hi < lo {
		return 0, 0, false, errBadBrace
	}
	return lo, hi, true, nil
}

func (p *parser) parseAtom(first bool) (*node, error) {
	c := p.src[p.pos]
	p.pos++
	switch c {
	case '.':
		return &node{op: opAny}, nil
	case '[':
		return p.parseBracket()
	case '^':
		if p.syn == ERE || first {
			return &node{op: opBOL}, nil
		}
		return &node{op: opLit, r: c}, nil
	case '$':
		if p.syn == ERE || p.atAltEnd() {
			return &node{op: opEOL}, nil
		}
		return &node{op: opLit, r: c}, nil
	case '(':
		if p.syn == ERE {
			return p.parseGroup()
		}
	case '\\':
		return p.parseEscape()
	}
	return &node{op: opLit, r: c}, nil
}

func (p *parser) parseGroup() (*node, error) {
	p.ngroups++
	idx := p.ngroups
	p.depth++
	sub, err := p.parseAlt()
	if err != nil {
		return nil, err
	}
	p.depth--
	if p.syn == ERE {
		if !p.more() || p.src[p.pos] != ')' {
			return nil, errUnmatchedParen
		}
		p.pos++
	} else {
		if p.pos+1 >= len(p.src) || p.src[p.pos] != '\\' || p.src[p.pos+1] != ')' {
			return nil, errUnmatchedParen
		}
		p.pos += 2
	}
	p.closed[idx] = true
	return &node{op: opGroup, idx: idx, subs: []*node{sub}}, nil
}

func (p *parser) parseEscape() (*node, error) {
	if !p.more() {
		return nil, errTrailingBS
	}
	c := p.src[p.pos]
	p.pos++
	switch c {
	case 'w', 'W', 's', 'S':
		return &node{op: opClass, cls: escapeClass(c)}, nil
	case 'b':
		return &node{op: opWordB}, nil
	case 'B':
		return &node{op: opNotWordB}, nil
	case '<':
		return &node{op: opWordStart}, nil
	case '>':
		return &node{op: opWordEnd}, nil
	case '`':
		return &node{op: opBufStart}, nil
	case '\'':
		return &node{op: opBufEnd}, nil
	case '1', '2', '3', '4', '5', '6', '7', '8', '9':
		n := int(c - '0')
		if !p.closed[n] {
			return nil, errBadBackref
		}
		p.backrefs = true
		return &node{op: opBackref, idx: n}, nil
	}
	if p.syn == BRE {
		switch c {
		case '(':
			return p.parseGroup()
		case ')':
			return nil, errUnmatchedRParen
		case '{':
			return nil, errBadPreceding
		case '}':
			return &node{op: opLit, r: c}, nil
		}
	}
	return &node{op: opLit, r: c}, nil
}

// charClass is a bracket expression or one of \w \W \s \S.
type charClass struct {
	negated bool
	ranges  []rune // lo, hi pairs
	named   []string
}

func escapeClass(c rune) *charClass {
	switch c {
	case 'w':
		return &charClass{named: []string{"alnum"}, ranges: []rune{'_', '_'}}
	case 'W':
		return &charClass{negated: true, named: []string{"alnum"}, ranges: []rune{'_', '_'}}
	case 's':
		return &charClass{named: []string{"space"}}
	default:
		return &charClass{negated: true, named: []string{"space"}}
	}
}

var classNames = map[string]bool{
	"alpha": true, "upper": true, "lower": true, "digit": true, "xdigit": true, "space": true,
	"print": true, "punct": true, "graph": true, "cntrl": true, "blank": true, "alnum": true,
}

func (p *parser) parseBracket() (*node, error) {
	open := p.pos - 1
	cls := &charClass{}
	if p.more() && p.src[p.pos] == '^' {
		cls.negated = true
		p.pos++
	}
	first := true
	for {
		if !p.more() {
			return nil, errUnmatchedBracket
		}
		c := p.src[p.pos]
		if c == ']' && !first {
			p.pos++
			break
		}
		first = false
		lo, isChar, err := p.bracketItem(cls)
		if err != nil {
			return nil, err
		}
		if !isChar {
			// A class cannot start a range: "[[:alpha:]-z]".
			if p.rangeDashFollows() {
				return nil, errBadRange
			}
			continue
		}
		// A range "lo-hi" unless "-" is the last item.
		if p.pos+1 < len(p.src) && p.src[p.pos] == '-' && p.src[p.pos+1] != ']' {
			p.pos++
			hi, hiChar, err := p.bracketItem(nil)
			if err != nil {
				return nil, err
			}
			if !hiChar || hi < lo || p.rangeDashFollows() {
				// "[a-c-e]": a range cannot go on from another.
				return nil, errBadRange
			}
			cls.ranges = append(cls.ranges, lo, hi)
			continue
		}
		cls.ranges = append(cls.ranges, lo, lo)
	}
	body := string(p.src[open+1 : p.pos-1])
	if len(body) >= 2 && body[0] == ':' && body[len(body)-1] == ':' {
		return nil, errClassSyntax
	}
	return &node{op: opClass, cls: cls}, nil
}

// rangeDashFollows reports a "-" at pos that is not the last item.
func (p *parser) rangeDashFollows() bool {
	return p.pos+1 < len(p.src) && p.src[p.pos] == '-' && p.src[p.pos+1] != ']'
}

// bracketItem reads one character, [:class:], [=c=] or [.c.] inside a
// bracket expression. For a class it adds it to cls (which must be
// non-nil) and returns isChar false.
func (p *parser) bracketItem(cls *charClass) (r rune, isChar bool, err error) {
	c := p.src[p.pos]
	if c == '[' && p.pos+1 < len(p.src) {
		kind := p.src[p.pos+1]
		if kind == ':' || kind == '=' || kind == '.' {
			end := -1
			for j := p.pos + 2; j+1 < len(p.src); j++ {
				if p.src[j] == kind && p.src[j+1] == ']' {
					end = j
					break
				}
			}
			if end < 0 {
				return 0, false, errUnmatchedBracket
			}
			name := string(p.src[p.pos+2 : end])
			p.pos = end + 2
			switch kind {
			case ':':
				if !classNames[name] {
					return 0, false, errBadClass
				}
				if cls == nil {
					return 0, false, errBadRange
				}
				cls.named = append(cls.named, name)
				return 0, false, nil
			default:
				rs := []rune(name)
				if len(rs) != 1 {
					return 0, false, errBadCollation
				}
				return rs[0], true, nil
			}
		}
	}
	p.pos++
	return c, true, nil
}

// String returns a debugging form of the tree.
func (n *node) String() string {
	switch n.op {
	case opLit:
		return strconv.QuoteRune(n.r)
	case opConcat, opAlt:
		parts := make([]string, len(n.subs))
		for i, s := range n.subs {
			parts[i] = s.String()
		}
		sep := " "
		if n.op == opAlt {
			sep = " | "
		}
		return "(" + strings.Join(parts, sep) + ")"
	case opRepeat:
		return fmt.Sprintf("%s{%d,%d}", n.subs[0], n.min, n.max)
	case opGroup:
		return fmt.Sprintf("G%d%s", n.idx, n.subs[0])
	case opBackref:
		return fmt.Sprintf(`\%d`, n.idx)
	}
	return fmt.Sprintf("op%d", n.op)
}
