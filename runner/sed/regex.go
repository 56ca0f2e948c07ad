package sed

import (
	"bytes"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// regex is one compiled regular expression of a script.
type regex struct {
	src     string
	icase   bool
	mline   bool
	ngroups int
	lit     []byte         // literal fast path: the pattern is this text
	re      *regexp.Regexp // Go translation
	bt      *backtracker   // for what Go regexp cannot express
	// asciiWords: the Go translation has \b, whose idea of a word
	// character is ASCII only; lines with other characters go to bt.
	asciiWords bool
}

func hasWordAssertion(n *reNode) bool {
	switch n.op {
	case opWordB, opNotWordB, opWordStart, opWordEnd:
		return true
	}
	for _, s := range n.subs {
		if hasWordAssertion(s) {
			return true
		}
	}
	return false
}

// useGo reports whether b can be searched with the Go translation
// without a second look: Go's \b only knows ASCII word characters.
func (rx *regex) useGo(b []byte) bool {
	if rx.re == nil {
		return false
	}
	if rx.asciiWords {
		for _, c := range b {
			if c >= utf8.RuneSelf {
				return false
			}
		}
	}
	return true
}

// goMatchTrusted reports whether a match Go found in b stands: Go reads an
// invalid byte as U+FFFD, which . and [^…] match, while in GNU sed nothing
// but the byte itself does. A line without a Go match has no GNU match
// either (GNU's characters match a subset), so only matches are checked.
func goMatchTrusted(b []byte) bool { return utf8.Valid(b) }

// compileRegex compiles a GNU BRE (or ERE) with sed's I and M flags.
//
// With -z (nul), M anchors at NUL bytes, which Go regexp cannot do: those
// regexes use the backtracker.
func compileRegex(src string, ere, icase, mline, nul bool) (*regex, error) {
	tree, ngroups, backref, err := parseRegex(expandEscapes(src), ere)
	if err != nil {
		return nil, err
	}
	rx := &regex{src: src, icase: icase, mline: mline, ngroups: ngroups}
	if lit, ok := literalOf(tree); ok && !icase && len(lit) > 0 {
		rx.lit = lit
		return rx, nil
	}
	rx.bt = &backtracker{root: tree, ncap: 2 * (ngroups + 1), icase: icase, mline: mline, nl: '\n'}
	if nul {
		rx.bt.nl = 0
	}
	// Go regexp may end a repetition with an extra empty iteration, which
	// empties a group GNU leaves holding the last non-empty one.
	if !backref && !(mline && nul) && !emptyIterationGroup(tree) {
		if syntax, ok := toGo(tree, icase, mline); ok {
			if re, err := regexp.Compile(syntax); err == nil {
				re.Longest()
				rx.re = re
				rx.asciiWords = hasWordAssertion(tree)
			}
		}
	}
	return rx, nil
}

func literalOf(n *reNode) ([]byte, bool) {
	switch n.op {
	case opLit:
		if n.r&rawByte != 0 {
			return []byte{byte(n.r)}, true
		}
		return utf8.AppendRune(nil, n.r), true
	case opConcat:
		var out []byte
		for _, s := range n.subs {
			if s.op != opLit {
				return nil, false
			}
			if s.r&rawByte != 0 {
				out = append(out, byte(s.r))
			} else {
				out = utf8.AppendRune(out, s.r)
			}
		}
		return out, true
	}
	return nil, false
}

// toGo writes the tree in Go regexp syntax; ok is false when Go cannot
// express it (for example \< before a character that may not be a word
// character).
func toGo(n *reNode, icase, mline bool) (string, bool) {
	var b strings.Builder
	if icase {
		b.WriteString("(?i)")
	}
	g := goWriter{b: &b, mline: mline}
	g.write(n, nil, 0)
	return b.String(), g.ok
}

type goWriter struct {
	b     *strings.Builder
	mline bool
	ok    bool
	bad   bool
}

func (g *goWriter) write(n *reNode, parent *reNode, idx int) {
	if g.bad {
		return
	}
	g.ok = true
	b := g.b
	switch n.op {
	case opLit:
		if n.r&rawByte != 0 {
			// Go regexp cannot match one byte of an invalid sequence.
			g.fail()
			return
		}
		b.WriteString(regexp.QuoteMeta(string(n.r)))
	case opAny:
		if g.mline {
			b.WriteString(`[^\n]`)
		} else {
			b.WriteString(`(?s:.)`)
		}
	case opClass:
		g.class(n.cls)
	case opBOL:
		if g.mline {
			b.WriteString(`(?m:^)`)
		} else {
			b.WriteString(`\A`)
		}
	case opEOL:
		if g.mline {
			b.WriteString(`(?m:$)`)
		} else {
			b.WriteString(`\z`)
		}
	case opBufStart:
		b.WriteString(`\A`)
	case opBufEnd:
		b.WriteString(`\z`)
	case opWordB:
		b.WriteString(`\b`)
	case opNotWordB:
		b.WriteString(`\B`)
	case opWordStart:
		if parent == nil || parent.op != opConcat || idx+1 >= len(parent.subs) || !edgeIsWord(parent.subs[idx+1], true) {
			g.fail()
			return
		}
		b.WriteString(`\b`)
	case opWordEnd:
		if parent == nil || parent.op != opConcat || idx == 0 || !edgeIsWord(parent.subs[idx-1], false) {
			g.fail()
			return
		}
		b.WriteString(`\b`)
	case opGroup:
		b.WriteString("(")
		g.write(n.subs[0], n, 0)
		b.WriteString(")")
	case opConcat:
		for i, s := range n.subs {
			g.write(s, n, i)
		}
	case opAlt:
		b.WriteString("(?:")
		for i, s := range n.subs {
			if i > 0 {
				b.WriteString("|")
			}
			g.write(s, n, i)
		}
		b.WriteString(")")
	case opRepeat:
		if n.min > 1000 || n.max > 1000 {
			g.fail()
			return
		}
		b.WriteString("(?:")
		g.write(n.subs[0], n, 0)
		b.WriteString(")")
		switch {
		case n.min == 0 && n.max == -1:
			b.WriteString("*")
		case n.min == 1 && n.max == -1:
			b.WriteString("+")
		case n.min == 0 && n.max == 1:
			b.WriteString("?")
		case n.max == -1:
			b.WriteString("{" + strconv.Itoa(n.min) + ",}")
		default:
			b.WriteString("{" + strconv.Itoa(n.min) + "," + strconv.Itoa(n.max) + "}")
		}
	case opBackref:
		g.fail()
	case opEmpty:
		b.WriteString("(?:)")
	}
	if g.bad {
		g.ok = false
	}
}

func (g *goWriter) fail() { g.bad, g.ok = true, false }

func (g *goWriter) class(c *charClass) {
	b := g.b
	b.WriteString("[")
	if c.neg {
		b.WriteString("^")
		if g.mline {
			b.WriteString(`\n`)
		}
	}
	for i := 0; i+1 < len(c.ranges); i += 2 {
		lo, hi := c.ranges[i], c.ranges[i+1]
		if lo&rawByte != 0 || hi&rawByte != 0 {
			g.fail()
			return
		}
		b.WriteString(quoteClassRune(lo))
		if hi != lo {
			b.WriteString("-")
			b.WriteString(quoteClassRune(hi))
		}
	}
	for _, name := range c.named {
		b.WriteString(goClassBody(name))
	}
	if len(c.ranges) == 0 && len(c.named) == 0 {
		// Cannot happen from the parser; keep the output valid anyway.
		b.WriteString(`\x{10FFFF}`)
	}
	b.WriteString("]")
}

func quoteClassRune(r rune) string {
	return `\x{` + strconv.FormatInt(int64(r), 16) + `}`
}

// edgeIsWord reports whether the first (or last) character n can match is
// always a word character, which lets \< and \> become Go's \b.
func edgeIsWord(n *reNode, first bool) bool {
	switch n.op {
	case opLit:
		return n.r&rawByte == 0 && isASCIIWord(n.r)
	case opClass:
		c := n.cls
		if c.neg {
			return false
		}
		for i := 0; i+1 < len(c.ranges); i += 2 {
			for r := c.ranges[i]; r <= c.ranges[i+1]; r++ {
				if !isASCIIWord(r) {
					return false
				}
			}
		}
		for _, name := range c.named {
			if name != "digit" && name != "xdigit" {
				return false
			}
		}
		return true
	case opGroup:
		return edgeIsWord(n.subs[0], first)
	case opRepeat:
		return n.min >= 1 && edgeIsWord(n.subs[0], first)
	case opConcat:
		if first {
			return edgeIsWord(n.subs[0], first)
		}
		return edgeIsWord(n.subs[len(n.subs)-1], first)
	case opAlt:
		for _, s := range n.subs {
			if !edgeIsWord(s, first) {
				return false
			}
		}
		return true
	}
	return false
}

func isASCIIWord(r rune) bool {
	return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// match reports whether b holds a match (used by addresses).
func (rx *regex) match(b []byte, stop func() bool) bool {
	switch {
	case rx.lit != nil:
		return bytes.Contains(b, rx.lit)
	case rx.useGo(b):
		if !rx.re.Match(b) {
			return false
		}
		if goMatchTrusted(b) {
			return true
		}
	}
	var caps [2]int
	return rx.bt.find(b, 0, caps[:], stop) && caps[0] >= 0
}

// eachMatch calls fn for successive matches of rx in b, as GNU sed's s///g
// finds them (an empty match right after a match is skipped), until fn
// returns false or limit matches were seen (limit < 0: no limit). caps is
// scratch space of at least 2*(ngroups+1) ints.
func (rx *regex) eachMatch(b []byte, limit int, caps []int, stop func() bool, fn func(caps []int) bool) error {
	if limit == 0 {
		return nil
	}
	switch {
	case rx.lit != nil:
		pos, seen := 0, 0
		for pos <= len(b) {
			i := bytes.Index(b[pos:], rx.lit)
			if i < 0 {
				return nil
			}
			caps[0], caps[1] = pos+i, pos+i+len(rx.lit)
			pos = caps[1]
			seen++
			if !fn(caps) || seen == limit {
				return nil
			}
		}
		return nil
	case rx.useGo(b):
		ms := rx.re.FindAllSubmatchIndex(b, limit)
		if len(ms) == 0 {
			return nil
		}
		if goMatchTrusted(b) {
			for _, m := range ms {
				if !fn(m) {
					return nil
				}
			}
			return nil
		}
	}
	pos, seen, prevEnd := 0, 0, -1
	for pos <= len(b) {
		if !rx.bt.find(b, pos, caps, stop) {
			if rx.bt.stopped {
				return errStopped
			}
			return nil
		}
		start, end := caps[0], caps[1]
		if start == end && start == prevEnd {
			// An empty match abutting the previous match does not count.
			if start >= len(b) {
				return nil
			}
			_, size := utf8.DecodeRune(b[start:])
			pos = start + size
			continue
		}
		seen++
		if !fn(caps) || seen == limit {
			return nil
		}
		prevEnd = end
		if end == start {
			if end >= len(b) {
				return nil
			}
			_, size := utf8.DecodeRune(b[end:])
			pos = end + size
		} else {
			pos = end
		}
	}
	return nil
}

var errStopped = errors.New("stopped")
