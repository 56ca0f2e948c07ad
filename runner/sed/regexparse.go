package sed

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// reOp is the kind of a node of a parsed GNU regular expression.
type reOp uint8

const (
	opLit       reOp = iota // one character
	opAny                   // .
	opClass                 // bracket expression, \w, \s …
	opBOL                   // ^
	opEOL                   // $
	opBufStart              // \`
	opBufEnd                // \'
	opWordB                 // \b
	opNotWordB              // \B
	opWordStart             // \<
	opWordEnd               // \>
	opGroup                 // \( \) or ( )
	opConcat                //
	opAlt                   // \| or |
	opRepeat                // * \+ \? \{m,n\}
	opBackref               // \1 … \9
	opEmpty                 // matches the empty string
)

type reNode struct {
	op   reOp
	r    rune
	cls  *charClass
	subs []*reNode
	min  int
	max  int // -1: no upper bound
	n    int // group or back-reference number
}

// charClass is a bracket expression. Named classes follow the C.UTF-8
// locale, where letters and digits of every script belong to them.
type charClass struct {
	neg    bool
	ranges []rune // lo, hi pairs
	named  []string
}

var classNames = map[string]bool{
	"alpha": true, "upper": true, "lower": true, "digit": true, "xdigit": true, "alnum": true,
	"space": true, "blank": true, "punct": true, "print": true, "graph": true, "cntrl": true,
}

func namedHas(name string, r rune) bool {
	switch name {
	case "alpha":
		return unicode.IsLetter(r)
	case "upper":
		return unicode.IsUpper(r)
	case "lower":
		return unicode.IsLower(r)
	case "digit":
		return r >= '0' && r <= '9'
	case "xdigit":
		return r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F'
	case "alnum":
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	case "space":
		return r == ' ' || r >= '\t' && r <= '\r' || r > 127 && unicode.IsSpace(r)
	case "blank":
		return r == ' ' || r == '\t'
	case "punct":
		if r < 128 {
			return r > ' ' && r < 127 && !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}
		return unicode.IsPunct(r) || unicode.IsSymbol(r)
	case "print":
		return r >= ' ' && r != 127 && (r < 128 || unicode.IsPrint(r))
	case "graph":
		return r > ' ' && r != 127 && (r < 128 || unicode.IsGraphic(r) && !unicode.IsSpace(r))
	case "cntrl":
		return r < ' ' || r == 127
	}
	return false
}

// goClassBody is a named class in Go regexp syntax, for use inside [ ].
func goClassBody(name string) string {
	switch name {
	case "alpha":
		return `\p{L}`
	case "upper":
		return `\p{Lu}`
	case "lower":
		return `\p{Ll}`
	case "digit":
		return `0-9`
	case "xdigit":
		return `0-9A-Fa-f`
	case "alnum":
		return `\p{L}\p{Nd}`
	case "space":
		return `\t-\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}`
	case "blank":
		return `\t `
	case "punct":
		return `!-/:-@\[-` + "`" + `{-~\x{A1}-\x{BF}\p{P}\p{S}`
	case "print":
		return ` -~\x{A0}-\x{10FFFF}`
	case "graph":
		return `!-~\x{A1}-\x{10FFFF}`
	case "cntrl":
		return `\x00-\x1F\x7F`
	}
	return ""
}

func (c *charClass) has(r rune, icase bool) bool {
	in := c.hasExact(r)
	if !in && icase {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if c.hasExact(f) {
				in = true
				break
			}
		}
	}
	return in != c.neg
}

func (c *charClass) hasExact(r rune) bool {
	for i := 0; i+1 < len(c.ranges); i += 2 {
		if r >= c.ranges[i] && r <= c.ranges[i+1] {
			return true
		}
	}
	for _, n := range c.named {
		if namedHas(n, r) {
			return true
		}
	}
	return false
}

// reError is a regular expression syntax error, worded as glibc words it.
type reError struct{ msg string }

func (e *reError) Error() string { return e.msg }

var (
	errBadRepeat   = &reError{"Invalid preceding regular expression"}
	errOpenParen   = &reError{"Unmatched ( or \\("}
	errCloseParen  = &reError{"Unmatched ) or \\)"}
	errOpenBrace   = &reError{"Unmatched \\{"}
	errBraceBody   = &reError{"Invalid content of \\{\\}"}
	errBracket     = &reError{"Unmatched [, [^, [:, [., or [="}
	errClassName   = &reError{"Invalid character class name"}
	errRangeEnd    = &reError{"Invalid range end"}
	errBackref     = &reError{"Invalid back reference"}
	errTrailing    = &reError{"Trailing backslash"}
	errTooBig      = &reError{"Regular expression too big"}
	errCollateName = &reError{"Invalid collation character"}
	// errConfusingClass is fatal in GNU sed (exit 4, no location).
	errConfusingClass = &reError{"character class syntax is [[:space:]], not [:space:]"}
)

// dupMax is glibc's RE_DUP_MAX.
const dupMax = 0x7fff

// expandEscapes replaces the escapes GNU sed converts before the regex
// compiler sees the text (\a \f \n \r \t \v \cX \dNNN \oNNN \xHH) by the
// characters they stand for; the characters are inserted raw, so "\x5e" at
// the start of a regex is an anchor, as in GNU sed.
func expandEscapes(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		r, n, ok := escapeChar(s[i+1:])
		if !ok {
			b.WriteByte(c)
			b.WriteByte(s[i+1])
			i++
			continue
		}
		b.WriteByte(byte(r))
		i += n
	}
	return b.String()
}

// escapeChar decodes the escape after a backslash: the byte it stands for
// and how many bytes of s it used. ok is false for escapes that are not
// character escapes (\w, \(, \1 …).
func escapeChar(s string) (c byte, n int, ok bool) {
	switch s[0] {
	case 'a':
		return 7, 1, true
	case 'f':
		return '\f', 1, true
	case 'n':
		return '\n', 1, true
	case 'r':
		return '\r', 1, true
	case 't':
		return '\t', 1, true
	case 'v':
		return '\v', 1, true
	case 'c':
		if len(s) < 2 {
			return 0, 0, false
		}
		return byte(unicode.ToUpper(rune(s[1]))) ^ 0x40, 2, true
	case 'd', 'o', 'x':
		base, max := 10, 3
		if s[0] == 'o' {
			base = 8
		} else if s[0] == 'x' {
			base, max = 16, 2
		}
		j := 1
		for j < len(s) && j <= max && digitOK(s[j], base) {
			j++
		}
		if j == 1 {
			return 0, 0, false
		}
		v, _ := strconv.ParseUint(s[1:j], base, 16)
		return byte(v), j, true
	}
	return 0, 0, false
}

func digitOK(c byte, base int) bool {
	switch base {
	case 8:
		return c >= '0' && c <= '7'
	case 10:
		return c >= '0' && c <= '9'
	}
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// reParser reads GNU BRE or ERE syntax into a tree.
type reParser struct {
	s       string
	i       int
	ere     bool
	ngroups int
	// completed has bit n set when group n is closed in a way that a
	// back-reference may use it (glibc's completed_bkref_map: a group
	// closed in another branch of an alternation does not count).
	completed uint64
	backref   bool
	depth     int
}

func parseRegex(s string, ere bool) (*reNode, int, bool, error) {
	p := &reParser{s: s, ere: ere}
	n, err := p.alt()
	if err != nil {
		return nil, 0, false, err
	}
	if p.i < len(p.s) {
		// Only an unmatched close paren stops alt early.
		return nil, 0, false, errCloseParen
	}
	return n, p.ngroups, p.backref, nil
}

func (p *reParser) peekAlt() bool {
	if p.ere {
		return p.i < len(p.s) && p.s[p.i] == '|'
	}
	return strings.HasPrefix(p.s[p.i:], `\|`)
}

func (p *reParser) peekClose() bool {
	if p.ere {
		return p.i < len(p.s) && p.s[p.i] == ')' && p.depth > 0
	}
	return strings.HasPrefix(p.s[p.i:], `\)`)
}

func (p *reParser) alt() (*reNode, error) {
	var branches []*reNode
	initial := p.completed
	for {
		before := p.completed
		if len(branches) > 0 {
			p.completed = initial
		}
		c, err := p.concat()
		if err != nil {
			return nil, err
		}
		p.completed |= before
		branches = append(branches, c)
		if !p.peekAlt() {
			break
		}
		if p.ere {
			p.i++
		} else {
			p.i += 2
		}
	}
	if len(branches) == 1 {
		return branches[0], nil
	}
	return &reNode{op: opAlt, subs: branches}, nil
}

func (p *reParser) concat() (*reNode, error) {
	var items []*reNode
	start := true // at the start of the expression, a group or an alternative
	for p.i < len(p.s) && !p.peekAlt() && !p.peekClose() {
		if !p.ere && p.s[p.i] == '\\' && p.i+1 < len(p.s) && p.s[p.i+1] == ')' {
			break
		}
		atom, err := p.atom(start, items)
		if err != nil {
			return nil, err
		}
		if atom == nil { // a postfix operator applied to the last item
			start = false
			continue
		}
		items = append(items, atom)
		// glibc reads the token after an anchor as the start of a new
		// expression: a BRE * there is literal, an ERE * an error.
		start = isAnchor(atom.op)
	}
	switch len(items) {
	case 0:
		return &reNode{op: opEmpty}, nil
	case 1:
		return items[0], nil
	}
	return &reNode{op: opConcat, subs: items}, nil
}

// repeatOp reports a postfix operator at the cursor: its bounds and length.
func (p *reParser) repeatOp() (min, max, n int, isOp bool, err error) {
	s := p.s[p.i:]
	if s == "" {
		return 0, 0, 0, false, nil
	}
	if s[0] == '*' {
		return 0, -1, 1, true, nil
	}
	if p.ere {
		switch s[0] {
		case '+':
			return 1, -1, 1, true, nil
		case '?':
			return 0, 1, 1, true, nil
		case '{':
			return p.interval(s[1:], "}", 1)
		}
		return 0, 0, 0, false, nil
	}
	if len(s) >= 2 && s[0] == '\\' {
		switch s[1] {
		case '+':
			return 1, -1, 2, true, nil
		case '?':
			return 0, 1, 2, true, nil
		case '{':
			return p.interval(s[2:], `\}`, 2)
		}
	}
	return 0, 0, 0, false, nil
}

func (p *reParser) interval(s, closer string, lead int) (min, max, n int, isOp bool, err error) {
	end := strings.Index(s, closer)
	if end < 0 {
		return 0, 0, 0, true, errOpenBrace
	}
	body := s[:end]
	lo, hi, comma := strings.Cut(body, ",")
	parse := func(v string, def int) (int, bool) {
		if v == "" {
			return def, true
		}
		for _, c := range v {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
		x, err := strconv.Atoi(v)
		if err != nil || x > dupMax {
			return dupMax + 1, true
		}
		return x, true
	}
	var ok bool
	if min, ok = parse(lo, 0); !ok {
		return 0, 0, 0, true, errBraceBody
	}
	max = min
	if comma {
		if max, ok = parse(hi, -1); !ok {
			return 0, 0, 0, true, errBraceBody
		}
	} else if lo == "" {
		return 0, 0, 0, true, errBraceBody
	}
	if min > dupMax || max > dupMax {
		return 0, 0, 0, true, errTooBig
	}
	if max >= 0 && max < min {
		return 0, 0, 0, true, errBraceBody
	}
	return min, max, lead + end + len(closer), true, nil
}

// atom parses one atom, or applies a postfix operator to the last of items
// (returning nil).
func (p *reParser) atom(start bool, items []*reNode) (*reNode, error) {
	nothingBefore := start || len(items) == 0
	if nothingBefore && (strings.HasPrefix(p.s[p.i:], `\{`) && !p.ere || p.ere && p.s[p.i] == '{') {
		return nil, errBadRepeat
	}
	min, max, n, isOp, err := p.repeatOp()
	if err != nil {
		return nil, err
	}
	if isOp {
		if nothingBefore {
			if p.ere {
				return nil, errBadRepeat
			}
			if p.s[p.i] == '*' {
				p.i++
				return &reNode{op: opLit, r: '*'}, nil
			}
			if p.s[p.i+1] == '{' {
				return nil, errBadRepeat
			}
			// \+ or \? with nothing before: literal, as glibc reads them.
			p.i += 2
			return &reNode{op: opLit, r: rune(p.s[p.i-1])}, nil
		}
		last := items[len(items)-1]
		if !p.ere && last.op == opRepeat && (p.s[p.i] == '*' || p.s[p.i+1] == '{') {
			// glibc refuses a BRE * or \{ right after another repetition.
			return nil, errBadRepeat
		}
		p.i += n
		items[len(items)-1] = &reNode{op: opRepeat, subs: []*reNode{last}, min: min, max: max}
		return nil, nil
	}
	c := p.s[p.i]
	switch c {
	case '.':
		p.i++
		return &reNode{op: opAny}, nil
	case '[':
		return p.bracket()
	case '^':
		if p.ere || start {
			p.i++
			return &reNode{op: opBOL}, nil
		}
		p.i++
		return &reNode{op: opLit, r: '^'}, nil
	case '$':
		p.i++
		if p.ere || p.i == len(p.s) || p.peekAlt() || strings.HasPrefix(p.s[p.i:], `\)`) {
			return &reNode{op: opEOL}, nil
		}
		return &reNode{op: opLit, r: '$'}, nil
	case '(':
		if p.ere {
			p.i++
			return p.group()
		}
	case ')':
		if p.ere {
			return nil, errCloseParen
		}
	case '{':
		if p.ere {
			return nil, errBadRepeat
		}
	case '\\':
		return p.escape()
	}
	r, size := utf8.DecodeRuneInString(p.s[p.i:])
	if r == utf8.RuneError && size == 1 {
		r = rune(p.s[p.i]) | rawByte
	}
	p.i += size
	return &reNode{op: opLit, r: r}, nil
}

// emptyIterationGroup reports a variable repetition of something that
// holds a group and can match the empty string, such as \(c*\)\{1,2\}.
func emptyIterationGroup(n *reNode) bool {
	if n.op == opRepeat && n.max != n.min && hasGroup(n.subs[0]) && canBeEmpty(n.subs[0]) {
		return true
	}
	for _, s := range n.subs {
		if emptyIterationGroup(s) {
			return true
		}
	}
	return false
}

func hasGroup(n *reNode) bool {
	if n.op == opGroup {
		return true
	}
	for _, s := range n.subs {
		if hasGroup(s) {
			return true
		}
	}
	return false
}

func canBeEmpty(n *reNode) bool {
	switch n.op {
	case opLit, opAny, opClass:
		return false
	case opGroup:
		return canBeEmpty(n.subs[0])
	case opConcat:
		for _, s := range n.subs {
			if !canBeEmpty(s) {
				return false
			}
		}
		return true
	case opAlt:
		for _, s := range n.subs {
			if canBeEmpty(s) {
				return true
			}
		}
		return false
	case opRepeat:
		return n.min == 0 || canBeEmpty(n.subs[0])
	}
	return true
}

func isAnchor(op reOp) bool {
	switch op {
	case opBOL, opEOL, opBufStart, opBufEnd, opWordB, opNotWordB, opWordStart, opWordEnd:
		return true
	}
	return false
}

// rawByte marks a literal that is an invalid UTF-8 byte: it matches that
// byte only.
const rawByte = 0x40000000

func (p *reParser) group() (*reNode, error) {
	p.ngroups++
	idx := p.ngroups
	p.depth++
	sub, err := p.alt()
	p.depth--
	if err != nil {
		return nil, err
	}
	if p.ere {
		if p.i >= len(p.s) || p.s[p.i] != ')' {
			return nil, errOpenParen
		}
		p.i++
	} else {
		if !strings.HasPrefix(p.s[p.i:], `\)`) {
			return nil, errOpenParen
		}
		p.i += 2
	}
	if idx < 64 {
		p.completed |= 1 << idx
	}
	return &reNode{op: opGroup, n: idx, subs: []*reNode{sub}}, nil
}

func (p *reParser) escape() (*reNode, error) {
	if p.i+1 >= len(p.s) {
		return nil, errTrailing
	}
	c := p.s[p.i+1]
	p.i += 2
	switch c {
	case '(':
		if !p.ere {
			return p.group()
		}
	case ')':
		if !p.ere {
			return nil, errCloseParen
		}
	case '{':
		if !p.ere {
			return nil, errBadRepeat
		}
	case '1', '2', '3', '4', '5', '6', '7', '8', '9':
		n := int(c - '0')
		if p.completed&(1<<n) == 0 {
			return nil, errBackref
		}
		p.backref = true
		return &reNode{op: opBackref, n: n}, nil
	case 'w':
		return &reNode{op: opClass, cls: &charClass{named: []string{"alnum"}, ranges: []rune{'_', '_'}}}, nil
	case 'W':
		return &reNode{op: opClass, cls: &charClass{neg: true, named: []string{"alnum"}, ranges: []rune{'_', '_'}}}, nil
	case 's':
		return &reNode{op: opClass, cls: &charClass{named: []string{"space"}}}, nil
	case 'S':
		return &reNode{op: opClass, cls: &charClass{neg: true, named: []string{"space"}}}, nil
	case 'b':
		return &reNode{op: opWordB}, nil
	case 'B':
		return &reNode{op: opNotWordB}, nil
	case '<':
		return &reNode{op: opWordStart}, nil
	case '>':
		return &reNode{op: opWordEnd}, nil
	case '`':
		return &reNode{op: opBufStart}, nil
	case '\'':
		return &reNode{op: opBufEnd}, nil
	case 'n':
		return &reNode{op: opLit, r: '\n'}, nil
	}
	r, size := utf8.DecodeRuneInString(p.s[p.i-1:])
	if r == utf8.RuneError && size == 1 {
		r = rune(c) | rawByte
	}
	p.i += size - 1
	return &reNode{op: opLit, r: r}, nil
}

func (p *reParser) bracket() (*reNode, error) {
	s := p.s
	i := p.i + 1
	if end := strings.IndexByte(s[i:], ']'); end > 1 && s[i] == ':' && s[i+end-1] == ':' {
		// GNU's dfa refuses "[:space:]" written without the outer brackets.
		return nil, errConfusingClass
	}
	cls := &charClass{}
	if i < len(s) && s[i] == '^' {
		cls.neg = true
		i++
	}
	first := true
	for {
		if i >= len(s) {
			return nil, errBracket
		}
		if s[i] == ']' && !first {
			i++
			break
		}
		first = false
		var lo rune
		if s[i] == '[' && i+1 < len(s) && (s[i+1] == ':' || s[i+1] == '=' || s[i+1] == '.') {
			kind := s[i+1]
			end := strings.Index(s[i+2:], string(kind)+"]")
			if end < 0 {
				return nil, errBracket
			}
			name := s[i+2 : i+2+end]
			i += 2 + end + 2
			switch kind {
			case ':':
				if !classNames[name] {
					return nil, errClassName
				}
				cls.named = append(cls.named, name)
				continue
			case '=':
				r, size := utf8.DecodeRuneInString(name)
				if size == 0 || size != len(name) {
					return nil, errCollateName
				}
				cls.ranges = append(cls.ranges, r, r)
				continue
			default:
				r, ok := collatingElement(name)
				if !ok {
					return nil, errCollateName
				}
				lo = r
			}
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				r = rune(s[i]) | rawByte
			}
			lo = r
			i += size
		}
		hi := lo
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			i++
			if s[i] == '[' && i+1 < len(s) && s[i+1] == '.' {
				end := strings.Index(s[i+2:], ".]")
				if end < 0 {
					return nil, errBracket
				}
				r, ok := collatingElement(s[i+2 : i+2+end])
				if !ok {
					return nil, errCollateName
				}
				hi = r
				i += 2 + end + 2
			} else {
				r, size := utf8.DecodeRuneInString(s[i:])
				hi = r
				i += size
			}
			if hi < lo {
				return nil, errRangeEnd
			}
		}
		cls.ranges = append(cls.ranges, lo, hi)
	}
	p.i = i
	return &reNode{op: opClass, cls: cls}, nil
}

func collatingElement(name string) (rune, bool) {
	r, size := utf8.DecodeRuneInString(name)
	if size > 0 && size == len(name) {
		return r, true
	}
	names := map[string]rune{
		"NUL": 0, "tab": '\t', "newline": '\n', "space": ' ', "hyphen": '-', "hyphen-minus": '-',
		"period": '.', "full-stop": '.', "slash": '/', "backslash": '\\', "underscore": '_',
		"left-square-bracket": '[', "right-square-bracket": ']', "circumflex": '^', "tilde": '~',
	}
	r, ok := names[name]
	return r, ok
}
