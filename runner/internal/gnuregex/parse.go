package gnuregex

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Options say how to read and match a pattern.
type Options struct {
	Syntax     Syntax // the zero Syntax is BRE
	IgnoreCase bool
	// Lines reads the text as lines ending in EOL: ^ and $ also match
	// next to an EOL inside it and "." and [^…] never match EOL (grep's
	// lines, sed's M flag). Otherwise the text is one record: ^ and $
	// match only at its ends and "." matches any character, a newline
	// too (sed's pattern space, awk's strings, grep -z's records, paths).
	Lines bool
	// EOL is the line separator of Lines mode ('\n', or NUL for sed -z),
	// and the record terminator grep's DFA scans a buffer by.
	EOL byte
}

func (o Options) eol() byte { return o.EOL }

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
	// ErrClassSyntax is "[:space:]" outside brackets, which GNU sed
	// reports as a fatal error without a location.
	ErrClassSyntax  = &Error{"character class syntax is [[:space:]], not [:space:]"}
	errBadPreceding = &Error{"Invalid preceding regular expression"}
	errBadPattern   = &Error{"Invalid regular expression"}
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
	// For opAny in record mode: the dialect's "." skips a newline
	// (glibc without RE_DOT_NEWLINE) or NUL (RE_DOT_NOT_NULL).
	anyNoNL, anyNoNUL bool
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

// Parse reads pattern in opts' dialect, as glibc's regcomp does with the
// dialect's syntax bits. Errors carry GNU's messages; warnings (grep's
// "* at start of expression") are kept for the caller.
func Parse(pattern string, opts Options) (*Pattern, error) {
	if !opts.Syntax.has(synDialect) {
		opts.Syntax = BRE
	}
	src := toRunes(pattern)
	pat, err := parse(src, opts, false)
	if err != nil {
		return nil, err
	}
	if opts.Syntax.has(synGrepDFA) && pat.needsGlibc() {
		// GNU grep lets glibc's regex decide the lines of a pattern its
		// dfa.c cannot decide alone in a UTF-8 locale, and glibc reads
		// a leading or anchor-following repetition its own way; the
		// warnings stay dfa.c's.
		warnings := pat.warnings
		if pat, err = parse(src, opts, true); err != nil {
			return nil, err
		}
		pat.warnings = warnings
	}
	return pat, nil
}

func parse(src []rune, opts Options, regexSemantics bool) (*Pattern, error) {
	p := &parser{src: src, syn: opts.Syntax, regexSemantics: regexSemantics}
	p.advance(true)
	root, err := p.parseRegExp(0)
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tEnd {
		// Only a ")" that closes no group stops the top level early.
		return nil, errUnmatchedRParen
	}
	if p.dfaErr != nil {
		return nil, p.dfaErr
	}
	if root == nil {
		root = &node{op: opEmpty}
	}
	return &Pattern{root: root, opts: opts, ngroups: p.ngroups, backrefs: p.backrefs, warnings: p.warnings}, nil
}

// toRunes reads the pattern as characters; a byte of invalid UTF-8 is a
// rune of its own (rawByteBase+b), which matches only that byte.
func toRunes(s string) []rune {
	out := make([]rune, 0, len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			r = rawByteBase + rune(s[i])
		}
		out = append(out, r)
		i += n
	}
	return out
}

// needsGlibc reports what makes GNU grep's dfa.c defer to glibc's regex
// in a UTF-8 locale: back-references, word anchors, and bracket
// expressions it cannot build (negated ones, named classes but digit,
// equivalence classes and collating elements, \w \W \s \S).
func (p *Pattern) needsGlibc() bool {
	return p.backrefs || p.UsesWordBoundaries() ||
		walkAny(p.root, func(n *node) bool { return n.op == opClass && n.cls.unknownToDFA })
}

// Whole returns p matching only a whole text, as glibc's re_match does
// when a caller asks for a match of the full length (find -regex).
func (p *Pattern) Whole() *Pattern {
	w := *p
	w.root = &node{op: opConcat, subs: []*node{{op: opBufStart}, p.root, {op: opBufEnd}}}
	return &w
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

// tokKind is a token of glibc's peek_token.
type tokKind uint8

const (
	tChar tokKind = iota
	tAny
	tOpenBracket
	tAnchor // ^ $ \b \B \< \> \` \' (node op in tok.anchor)
	tClass  // \w \W \s \S
	tStar
	tPlus
	tQuest
	tOpenInterval
	tCloseInterval
	tOpenGroup
	tCloseGroup
	tAlt
	tBackref
	tTrailingBackslash
	tEnd
)

type token struct {
	kind   tokKind
	c      rune // tChar: the character; the operator's own character otherwise
	anchor op
	class  rune // tClass: w W s S
	n      int  // tBackref
	width  int  // runes of pattern it takes
}

// parser reads one pattern as glibc's regcomp does.
type parser struct {
	src       []rune
	pos       int // start of tok
	tok       token
	syn       Syntax
	ngroups   int
	completed uint16 // groups 1-9 closed where a back-reference may use them
	warnings  []string
	backrefs  bool
	// lastStart is dfa.c's laststart: only anchors and dropped * + ?
	// since the start of the branch, so a repetition here warns.
	lastStart bool
	// regexSemantics reads a leading interval as glibc does (only its
	// "{" is dropped) rather than as grep's dfa.c does (all of it).
	regexSemantics bool
	// dfaErr is what grep's and sed's dfa.c refuse in a pattern glibc
	// accepts; reported once glibc's parse has succeeded, as GNU does.
	dfaErr error
}

// advance moves past the current token and reads the next one;
// caretHere says a ^ there is an anchor even in BRE (after \( or \|).
func (p *parser) advance(caretHere bool) {
	if p.tok.kind != tEnd {
		p.pos += p.tok.width
	}
	p.tok = p.peekAt(p.pos, caretHere)
}

// peekAt reads the token at i (glibc's peek_token).
func (p *parser) peekAt(i int, caretHere bool) token {
	if i >= len(p.src) {
		return token{kind: tEnd}
	}
	syn := p.syn
	c := p.src[i]
	t := token{kind: tChar, c: c, width: 1}
	if c == '\\' {
		if i+1 >= len(p.src) {
			return token{kind: tTrailingBackslash, width: 1}
		}
		c2 := p.src[i+1]
		t = token{kind: tChar, c: c2, width: 2}
		if syn.has(synAwkEscapes) {
			return p.awkEscape(i)
		}
		switch c2 {
		case '|':
			if !syn.has(synLimitedOps) && !syn.has(synNoBkVbar) {
				t.kind = tAlt
			}
		case '1', '2', '3', '4', '5', '6', '7', '8', '9':
			if !syn.has(synNoBkRefs) {
				t.kind, t.n = tBackref, int(c2-'0')
			}
		case '<', '>', 'b', 'B', '`', '\'':
			if !syn.has(synNoGnuOps) {
				t.kind, t.anchor = tAnchor, escapeAnchor(c2)
			}
		case 'w', 'W', 's', 'S':
			if !syn.has(synNoGnuOps) {
				t.kind, t.class = tClass, c2
			}
		case '(':
			if !syn.has(synNoBkParens) {
				t.kind = tOpenGroup
			}
		case ')':
			if !syn.has(synNoBkParens) {
				t.kind = tCloseGroup
			}
		case '+', '?':
			if !syn.has(synLimitedOps) && syn.has(synBkPlusQM) {
				t.kind = map[rune]tokKind{'+': tPlus, '?': tQuest}[c2]
			}
		case '{':
			if syn.has(synIntervals) && !syn.has(synNoBkBraces) {
				t.kind = tOpenInterval
			}
		case '}':
			if syn.has(synIntervals) && !syn.has(synNoBkBraces) {
				t.kind = tCloseInterval
			}
		}
		return t
	}
	switch c {
	case '\n':
		if syn.has(synNewlineAlt) {
			t.kind = tAlt
		}
	case '|':
		if !syn.has(synLimitedOps) && syn.has(synNoBkVbar) {
			t.kind = tAlt
		}
	case '*':
		t.kind = tStar
	case '+', '?':
		if !syn.has(synLimitedOps) && !syn.has(synBkPlusQM) {
			t.kind = map[rune]tokKind{'+': tPlus, '?': tQuest}[c]
		}
	case '{':
		if syn.has(synIntervals) && syn.has(synNoBkBraces) {
			t.kind = tOpenInterval
		}
	case '}':
		if syn.has(synIntervals) && syn.has(synNoBkBraces) {
			t.kind = tCloseInterval
		}
	case '(':
		if syn.has(synNoBkParens) {
			t.kind = tOpenGroup
		}
	case ')':
		if syn.has(synNoBkParens) {
			t.kind = tCloseGroup
		}
	case '[':
		t.kind = tOpenBracket
	case '.':
		t.kind = tAny
	case '^':
		if syn.has(synContextIndepAnchors) || caretHere || i == 0 ||
			(syn.has(synNewlineAlt) && p.src[i-1] == '\n') {
			t.kind, t.anchor = tAnchor, opBOL
		}
	case '$':
		if syn.has(synContextIndepAnchors) || i+1 == len(p.src) {
			t.kind, t.anchor = tAnchor, opEOL
		} else if next := p.peekAt(i+1, false); next.kind == tAlt || next.kind == tCloseGroup {
			t.kind, t.anchor = tAnchor, opEOL
		}
	}
	return t
}

func escapeAnchor(c rune) op {
	switch c {
	case '<':
		return opWordStart
	case '>':
		return opWordEnd
	case 'b':
		return opWordB
	case 'B':
		return opNotWordB
	case '`':
		return opBufStart
	}
	return opBufEnd
}

// awkEscape reads the escape at i as gawk does (synAwkEscapes).
func (p *parser) awkEscape(i int) token {
	c := p.src[i+1]
	t := token{kind: tChar, c: c, width: 2}
	switch c {
	case 'y':
		t.kind, t.anchor = tAnchor, opWordB
	case 'B', '<', '>', '`', '\'':
		t.kind, t.anchor = tAnchor, escapeAnchor(c)
	case 's', 'S', 'w', 'W':
		t.kind, t.class = tClass, c
	default:
		t.c, t.width = awkEscapeChar(p.src, i+1)
	}
	return t
}

// awkEscapeChar decodes gawk's character escape whose letter is at j:
// the character and how many runes the whole escape takes with its "\".
func awkEscapeChar(src []rune, j int) (rune, int) {
	switch c := src[j]; c {
	case 'n':
		return '\n', 2
	case 't':
		return '\t', 2
	case 'r':
		return '\r', 2
	case 'f':
		return '\f', 2
	case 'v':
		return '\v', 2
	case 'a':
		return 7, 2
	case 'b':
		return 8, 2
	case '0', '1', '2', '3', '4', '5', '6', '7':
		v, k := 0, j
		for k < len(src) && k < j+3 && src[k] >= '0' && src[k] <= '7' {
			v = v*8 + int(src[k]-'0')
			k++
		}
		return byteRune(v), 1 + k - j
	case 'x':
		v, k := 0, j+1
		for k < len(src) && k < j+3 && isHex(src[k]) {
			d, _ := strconv.ParseUint(string(src[k]), 16, 8)
			v = v*16 + int(d)
			k++
		}
		if k == j+1 {
			return 'x', 2
		}
		return byteRune(v), 1 + k - j
	default:
		return c, 2
	}
}

// byteRune is the character an escape's byte value stands for: ASCII as
// itself, a higher byte as that raw byte.
func byteRune(v int) rune {
	if v < 0x80 {
		return rune(v)
	}
	return rawByteBase + rune(v&0xff)
}

func isDigit(r rune) bool { return '0' <= r && r <= '9' }

func isHex(r rune) bool {
	return '0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F'
}

// endsBranch reports a token that ends a branch at this nesting.
func (p *parser) endsBranch(nest int) bool {
	k := p.tok.kind
	return k == tAlt || k == tEnd || (nest > 0 && k == tCloseGroup)
}

// parseRegExp reads alternatives (glibc's parse_reg_exp); nil is empty.
func (p *parser) parseRegExp(nest int) (*node, error) {
	initial := p.completed
	branch, err := p.parseBranch(nest)
	if err != nil {
		return nil, err
	}
	alts := []*node{orEmpty(branch)}
	for p.tok.kind == tAlt {
		p.advance(true)
		branch = nil
		if !p.endsBranch(nest) {
			accumulated := p.completed
			p.completed = initial
			if branch, err = p.parseBranch(nest); err != nil {
				return nil, err
			}
			p.completed |= accumulated
		}
		alts = append(alts, orEmpty(branch))
	}
	if len(alts) == 1 {
		return branch, nil
	}
	return &node{op: opAlt, subs: alts}, nil
}

func orEmpty(n *node) *node {
	if n == nil {
		return &node{op: opEmpty}
	}
	return n
}

// parseBranch reads a concatenation (glibc's parse_branch).
func (p *parser) parseBranch(nest int) (*node, error) {
	var items []*node
	p.lastStart = true
	for !p.endsBranch(nest) {
		n, err := p.parseExpression(nest)
		if err != nil {
			return nil, err
		}
		if n != nil {
			items = append(items, n)
		}
	}
	switch len(items) {
	case 0:
		return nil, nil
	case 1:
		return items[0], nil
	}
	return &node{op: opConcat, subs: items}, nil
}

// parseExpression reads one atom and its repetitions (glibc's
// parse_expression); nil is an empty expression.
func (p *parser) parseExpression(nest int) (*node, error) {
	t := p.tok
	var n *node
	switch t.kind {
	case tChar:
		n = &node{op: opLit, r: t.c}
	case tAny:
		n = &node{op: opAny, anyNoNL: !p.syn.has(synDotNewline), anyNoNUL: p.syn.has(synDotNotNull)}
	case tOpenBracket:
		cls, err := p.parseBracket()
		if err != nil {
			return nil, err
		}
		n = &node{op: opClass, cls: cls}
	case tOpenGroup:
		var err error
		if n, err = p.parseSubExp(nest); err != nil {
			return nil, err
		}
	case tBackref:
		if p.completed&(1<<t.n) == 0 {
			return nil, errBadBackref
		}
		p.backrefs = true
		n = &node{op: opBackref, idx: t.n}
	case tOpenInterval, tStar, tPlus, tQuest:
		return p.leadingRepetition(nest)
	case tCloseGroup:
		if !p.syn.has(synUnmatchedRightParenOrd) {
			return nil, errUnmatchedRParen
		}
		n = &node{op: opLit, r: t.c}
	case tCloseInterval:
		n = &node{op: opLit, r: t.c}
	case tAnchor:
		p.advance(false)
		return p.anchorRepetitions(&node{op: t.anchor})
	}
	p.lastStart = false
	switch t.kind {
	case tClass:
		n = &node{op: opClass, cls: escapeClass(t.class)}
	case tAlt, tEnd:
		return nil, nil
	case tTrailingBackslash:
		return nil, errTrailingBS
	}
	if t.kind != tOpenGroup {
		p.advance(false)
	}
	for {
		switch p.tok.kind {
		case tStar, tPlus, tQuest, tOpenInterval:
		default:
			return n, nil
		}
		rep, ok, err := p.parseDupOp()
		if err != nil {
			return nil, err
		}
		if !ok {
			return n, nil // a brace that opens no interval is now a character
		}
		n = &node{op: opRepeat, subs: []*node{n}, min: rep.min, max: rep.max}
		if p.syn.has(synContextInvalidDup) && (p.tok.kind == tStar || p.tok.kind == tOpenInterval) {
			// glibc's BRE allows no * or \{ right after a repetition.
			return nil, errBadPreceding
		}
	}
}

// anchorRepetitions reads what follows an anchor. In glibc an anchor
// takes no repetition: what follows starts anew. grep's dfa.c takes an
// anchor as an atom a repetition applies to: in ERE ^* and ${2} repeat
// the anchor; in BRE so does a repetition after an anchor that does not
// start the branch (a\`\{2\}), and dfa.c refuses an invalid interval
// there.
func (p *parser) anchorRepetitions(n *node) (*node, error) {
	if !p.syn.has(synGrepDFA) || p.regexSemantics {
		return n, nil
	}
	if !p.syn.has(synContextIndepOps) {
		// BRE: at the start of a branch (^*) the operator is a character.
		if p.lastStart {
			return n, nil
		}
		if p.tok.kind == tOpenInterval {
			save, saveTok := p.pos, p.tok
			_, _, err := p.parseDupOp()
			p.pos, p.tok = save, saveTok
			if err != nil {
				// dfa.c refuses it; glibc reads on (a "\{" there is a
				// character to it), and its own errors come first.
				if p.dfaErr == nil {
					p.dfaErr = &Error{`invalid content of \{\}`}
					if err == errTooBig {
						p.dfaErr = &Error{"regular expression too big"}
					}
				}
				return n, nil
			}
		}
	}
	for {
		switch p.tok.kind {
		case tStar, tPlus, tQuest, tOpenInterval:
		default:
			return n, nil
		}
		kind := p.tok.kind
		rep, ok, err := p.parseDupOp()
		if err != nil {
			return nil, err
		}
		if !ok {
			return n, nil // an ordinary "{" follows
		}
		if p.lastStart {
			name := map[tokKind]string{tStar: "*", tPlus: "+", tQuest: "?", tOpenInterval: "{...}"}[kind]
			p.warnings = append(p.warnings, name+" at start of expression")
			p.lastStart = kind != tOpenInterval
		}
		n = &node{op: opRepeat, subs: []*node{n}, min: rep.min, max: rep.max}
	}
}

// leadingRepetition handles a repetition operator with nothing to
// repeat: an error, dropped, or an ordinary character, by dialect.
func (p *parser) leadingRepetition(nest int) (*node, error) {
	t := p.tok
	if t.kind == tOpenInterval && p.syn.has(synContextInvalidDup) {
		return nil, errBadPreceding
	}
	switch {
	case p.syn.has(synContextInvalidOps):
		return nil, errBadPreceding
	case p.syn.has(synContextIndepOps):
		if p.syn.has(synGrepDFA) {
			warn := p.lastStart
			if t.kind == tOpenInterval && !p.regexSemantics {
				// grep's dfa.c drops a whole valid interval; an invalid
				// one leaves an ordinary "{".
				if _, ok, err := p.parseDupOp(); err != nil {
					return nil, err
				} else if !ok {
					return p.parseExpression(nest)
				}
				if warn {
					p.warnings = append(p.warnings, "{...} at start of expression")
				}
				p.lastStart = false
				if p.endsBranch(nest) {
					return nil, nil
				}
				return p.parseExpression(nest)
			}
			if warn {
				name := map[tokKind]string{tStar: "*", tPlus: "+", tQuest: "?", tOpenInterval: "{...}"}[t.kind]
				p.warnings = append(p.warnings, name+" at start of expression")
				p.lastStart = t.kind != tOpenInterval
			}
		}
		p.advance(false)
		return p.parseExpression(nest)
	}
	// An ordinary character.
	p.tok.kind = tChar
	return p.parseExpression(nest)
}

type repetition struct{ min, max int }

// parseDupOp reads the repetition operator at tok (glibc's
// parse_dup_op). ok is false when a brace opens no interval and the
// dialect makes it ordinary: tok is then that "{" as a character.
func (p *parser) parseDupOp() (repetition, bool, error) {
	t := p.tok
	switch t.kind {
	case tStar:
		p.advance(false)
		return repetition{0, -1}, true, nil
	case tPlus:
		p.advance(false)
		return repetition{1, -1}, true, nil
	case tQuest:
		p.advance(false)
		return repetition{0, 1}, true, nil
	}
	startPos, startTok := p.pos, p.tok
	lo := p.fetchNumber()
	if lo == -1 {
		if p.tok.kind == tChar && p.tok.c == ',' {
			lo = 0 // "{,m}" is "{0,m}"
		} else {
			return repetition{}, false, errBadBrace // "{}"
		}
	}
	hi := -2
	if lo != -2 {
		switch {
		case p.tok.kind == tCloseInterval:
			hi = lo
		case p.tok.kind == tChar && p.tok.c == ',':
			hi = p.fetchNumber()
		}
	}
	if lo == -2 || hi == -2 {
		if !p.syn.has(synInvalidIntervalOrd) {
			if p.tok.kind == tEnd {
				return repetition{}, false, errUnmatchedBrace
			}
			return repetition{}, false, errBadBrace
		}
		p.pos, p.tok = startPos, startTok
		p.tok.kind = tChar
		return repetition{}, false, nil
	}
	if (hi != -1 && lo > hi) || p.tok.kind != tCloseInterval {
		return repetition{}, false, errBadBrace
	}
	if lo > dupMax || hi > dupMax {
		return repetition{}, false, errTooBig
	}
	p.advance(false)
	return repetition{lo, hi}, true, nil
}

// fetchNumber reads an interval bound up to "," or the closing brace:
// the number (at most dupMax+1), -1 when there is none, -2 when something
// else stands there or the pattern ends (glibc's fetch_number).
func (p *parser) fetchNumber() int {
	num := -1
	for {
		p.advance(false)
		t := p.tok
		if t.kind == tEnd {
			return -2
		}
		if t.kind == tCloseInterval || (t.kind == tChar && t.c == ',') {
			return num
		}
		if t.kind != tChar || t.c < '0' || t.c > '9' || num == -2 {
			num = -2
		} else if num == -1 {
			num = int(t.c - '0')
		} else {
			num = min(dupMax+1, num*10+int(t.c-'0'))
		}
	}
}

// parseSubExp reads a group after its "(" (glibc's parse_sub_exp).
func (p *parser) parseSubExp(nest int) (*node, error) {
	p.ngroups++
	idx := p.ngroups
	p.advance(true)
	var sub *node
	if p.tok.kind != tCloseGroup {
		var err error
		if sub, err = p.parseRegExp(nest + 1); err != nil {
			return nil, err
		}
		if p.tok.kind != tCloseGroup {
			return nil, errUnmatchedParen
		}
	}
	if idx <= 9 {
		p.completed |= 1 << idx
	}
	p.advance(false)
	return &node{op: opGroup, idx: idx, subs: []*node{orEmpty(sub)}}, nil
}

// charClass is a bracket expression or one of \w \W \s \S.
type charClass struct {
	negated bool
	ranges  []rune // lo, hi pairs
	named   []string

	// unknownToDFA: grep's dfa.c cannot build it in a UTF-8 locale
	// (see needsGlibc).
	unknownToDFA bool

	once  sync.Once // prepares set and ascii for matching
	set   runeSet   // ranges and named classes merged
	ascii [2]uint64 // set's ASCII characters
}

func escapeClass(c rune) *charClass {
	switch c {
	case 'w':
		return &charClass{named: []string{"alnum"}, ranges: []rune{'_', '_'}, unknownToDFA: true}
	case 'W':
		return &charClass{negated: true, named: []string{"alnum"}, ranges: []rune{'_', '_'}, unknownToDFA: true}
	case 's':
		return &charClass{named: []string{"space"}, unknownToDFA: true}
	default:
		return &charClass{negated: true, named: []string{"space"}, unknownToDFA: true}
	}
}

var classNames = map[string]bool{
	"alpha": true, "upper": true, "lower": true, "digit": true, "xdigit": true, "space": true,
	"print": true, "punct": true, "graph": true, "cntrl": true, "blank": true, "alnum": true,
}

// bracket element kinds of glibc's parse_bracket_element.
type elemKind uint8

const (
	elemChar elemKind = iota
	elemClass
	elemEquiv
)

type bracketElem struct {
	kind elemKind
	r    rune
	name string
	coll bool // written [.c.]
}

// parseBracket reads a bracket expression from tok "[" (glibc's
// parse_bracket_exp) and leaves tok after its "]".
func (p *parser) parseBracket() (*charClass, error) {
	i := p.pos + 1
	cls := &charClass{}
	if i < len(p.src) && p.src[i] == '^' {
		cls.negated, cls.unknownToDFA = true, true
		i++
	}
	if i >= len(p.src) {
		return nil, errBadPattern // glibc: "[" or "[^" at the very end
	}
	first := true
	for {
		if i >= len(p.src) {
			return nil, errUnmatchedBracket
		}
		start, next, err := p.bracketElement(i, first, first)
		if err != nil {
			return nil, err
		}
		i = next
		first = false
		isRange := false
		if start.kind == elemChar {
			if i >= len(p.src) {
				return nil, errUnmatchedBracket
			}
			if p.isRangeDash(i) {
				if i+1 >= len(p.src) {
					return nil, errUnmatchedBracket
				}
				if p.src[i+1] != ']' {
					isRange = true
					i++
				}
			}
		}
		if isRange {
			end, next, err := p.bracketElement(i, true, false)
			if err != nil {
				return nil, err
			}
			i = next
			if end.kind != elemChar {
				return nil, errBadRange
			}
			if start.r > end.r {
				if p.syn.has(synNoEmptyRanges) {
					return nil, errBadRange
				}
			} else {
				cls.ranges = append(cls.ranges, start.r, end.r)
			}
		} else {
			switch start.kind {
			case elemChar, elemEquiv:
				cls.ranges = append(cls.ranges, start.r, start.r)
			case elemClass:
				cls.named = append(cls.named, start.name)
			}
		}
		if start.kind == elemEquiv || start.coll || (start.kind == elemClass && start.name != "digit") {
			cls.unknownToDFA = true
		}
		if isRange && !(isDigit(start.r) && isDigit(cls.ranges[len(cls.ranges)-1])) {
			cls.unknownToDFA = true // a range but of digits depends on collation
		}
		if i >= len(p.src) {
			return nil, errUnmatchedBracket
		}
		if p.src[i] == ']' {
			i++
			break
		}
	}
	if p.syn.has(synClassCheck) && p.dfaErr == nil && isClassSyntaxSlip(p.src[p.pos+1:i-1]) {
		p.dfaErr = ErrClassSyntax
	}
	p.tok.width = i - p.pos // the whole bracket, for advance
	return cls, nil
}

// isClassSyntaxSlip reports a bracket whose body is "[:space:]" without
// its outer brackets, as dfa.c tells: after an optional "^", a colon
// first and last and something else between.
func isClassSyntaxSlip(body []rune) bool {
	if len(body) > 0 && body[0] == '^' {
		body = body[1:]
	}
	return len(body) >= 3 && body[0] == ':' && body[len(body)-1] == ':' && strings.Trim(string(body), ":") != ""
}

// isRangeDash reports a "-" at i that is glibc's range token (a
// backslash-quoted one in awk is a character).
func (p *parser) isRangeDash(i int) bool { return p.src[i] == '-' }

// bracketElement reads one element at i: a character, [:class:], [=c=]
// or [.c.]. first lets a "]" be a character and acceptHyphen a "-".
func (p *parser) bracketElement(i int, acceptHyphen, first bool) (bracketElem, int, error) {
	c := p.src[i]
	if c == '\\' && i+1 < len(p.src) {
		switch {
		case p.syn.has(synAwkEscapes):
			d := p.src[i+1]
			if d == 's' || d == 'S' || d == 'w' || d == 'W' || d == 'y' || d == 'B' {
				// gawk reads "[\s]" as "s".
				return bracketElem{r: d}, i + 2, nil
			}
			r, w := awkEscapeChar(p.src, i+1)
			return bracketElem{r: r}, i + w, nil
		case p.syn.has(synBackslashEscapeInLists):
			return bracketElem{r: p.src[i+1]}, i + 2, nil
		}
	}
	if c == '[' && i+1 < len(p.src) {
		kind := p.src[i+1]
		if kind == '.' || kind == '=' || (kind == ':' && p.syn.has(synCharClasses)) {
			return p.bracketSymbol(i + 2)
		}
	}
	if c == '-' && !acceptHyphen {
		// A "-" may stand only at the start, or just before the "]".
		if i+1 < len(p.src) && p.src[i+1] != ']' {
			return bracketElem{}, 0, errBadRange
		}
	}
	if c == ']' && !first {
		// Only reached for a range's end: "[a-]]" is "a-]" then "]".
		return bracketElem{r: c}, i + 1, nil
	}
	return bracketElem{r: c}, i + 1, nil
}

// bracketSymbol reads the name of [:…:], [=…=] or [.….] starting at i
// (the delimiter is src[i-1]).
func (p *parser) bracketSymbol(i int) (bracketElem, int, error) {
	delim := p.src[i-1]
	j := i
	for {
		if j+1 >= len(p.src) {
			return bracketElem{}, 0, errUnmatchedBracket
		}
		if p.src[j] == delim && p.src[j+1] == ']' {
			break
		}
		j++
	}
	if j-i >= 32 {
		return bracketElem{}, 0, errUnmatchedBracket // glibc's name buffer
	}
	name := string(p.src[i:j])
	next := j + 2
	switch delim {
	case ':':
		if !classNames[name] {
			return bracketElem{}, 0, errBadClass
		}
		return bracketElem{kind: elemClass, name: name}, next, nil
	default:
		// C.UTF-8 has no collating elements or equivalence classes of
		// more than one byte.
		rs := p.src[i:j]
		if len(rs) != 1 || (rs[0] >= 0x80 && rs[0] < rawByteBase) {
			return bracketElem{}, 0, errBadCollation
		}
		kind := elemChar
		if delim == '=' {
			kind = elemEquiv
		}
		return bracketElem{kind: kind, r: rs[0], coll: delim == '.'}, next, nil
	}
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
