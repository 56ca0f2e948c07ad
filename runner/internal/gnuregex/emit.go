package gnuregex

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// goRepeatMax is the largest count Go's regexp accepts in {n,m}.
const goRepeatMax = 1000

// rawByteBase marks a byte of invalid UTF-8 (in a pattern or a line) as a
// rune of its own, beyond Unicode, so it matches only that byte.
const rawByteBase = 0x110000

// GoSyntax returns the pattern in Go's regexp (RE2) syntax, meaning the
// same, or ok false when RE2 cannot express it (back-references, \< or \>
// next to a non-word item, counts over 1000, invalid UTF-8 in the
// pattern, Lines mode with a separator other than a newline). With
// captures, groups stay capturing and keep their numbers; otherwise they
// are emitted as (?:…). Word boundaries (\b \B \< \>) use Go's ASCII
// notion of word characters.
func (p *Pattern) GoSyntax(captures bool) (string, bool) {
	flags, expr, ok := p.GoSyntaxParts(captures)
	return flags + expr, ok
}

// isAnchor reports a zero-width assertion.
func isAnchor(n *node) bool {
	switch n.op {
	case opBOL, opEOL, opWordB, opNotWordB, opWordStart, opWordEnd, opBufStart, opBufEnd:
		return true
	}
	return false
}

// UsesWordBoundaries reports whether the pattern holds \b \B \< or \>,
// which Go's regexp decides with ASCII word characters only.
func (p *Pattern) UsesWordBoundaries() bool {
	return walkAny(p.root, func(n *node) bool {
		switch n.op {
		case opWordB, opNotWordB, opWordStart, opWordEnd:
			return true
		}
		return false
	})
}

// CanMatchEmpty reports whether some match may be empty.
func (p *Pattern) CanMatchEmpty() bool { return nullable(p.root) }

func nullable(n *node) bool {
	switch n.op {
	case opLit, opAny, opClass:
		return false
	case opGroup:
		return nullable(n.subs[0])
	case opRepeat:
		return n.min == 0 || nullable(n.subs[0])
	case opConcat:
		for _, s := range n.subs {
			if !nullable(s) {
				return false
			}
		}
		return true
	case opAlt:
		for _, s := range n.subs {
			if nullable(s) {
				return true
			}
		}
		return false
	}
	return true // empty, anchors, back-references
}

// BufferSafe reports whether GoSyntax's result can run over a buffer of
// many lines and find only matches within one: the text must be newline
// lines, and nothing may match a newline (\` \', a class holding it).
func (p *Pattern) BufferSafe() bool {
	if !p.opts.Lines || p.opts.EOL != '\n' {
		return false
	}
	return !walkAny(p.root, func(n *node) bool {
		switch n.op {
		case opBufStart, opBufEnd:
			return true
		case opLit:
			return n.r == '\n'
		case opClass:
			return !n.cls.negated && n.cls.matches('\n', false)
		}
		return false
	})
}

func walkAny(n *node, f func(*node) bool) bool {
	if f(n) {
		return true
	}
	for _, s := range n.subs {
		if walkAny(s, f) {
			return true
		}
	}
	return false
}

type emitter struct {
	b        strings.Builder
	opts     Options
	captures bool
	ok       bool
}

func (e *emitter) emit(n *node) {
	switch n.op {
	case opEmpty:
		e.b.WriteString("(?:)")
	case opLit:
		if n.r >= rawByteBase {
			e.ok = false
			return
		}
		e.b.WriteString(quoteRune(n.r))
	case opAny:
		// U+FFFD is how Go reads a byte of invalid UTF-8, which "." never
		// matches in GNU's UTF-8 locales.
		e.b.WriteString(`[^\x{fffd}`)
		if e.opts.Lines {
			fmt.Fprintf(&e.b, `\x{%x}`, e.opts.EOL)
		}
		if n.anyNoNL && !(e.opts.Lines && e.opts.EOL == '\n') {
			e.b.WriteString(`\n`)
		}
		if n.anyNoNUL && !(e.opts.Lines && e.opts.EOL == 0) {
			e.b.WriteString(`\x00`)
		}
		e.b.WriteString("]")
	case opClass:
		e.emitClass(n.cls)
	case opBOL:
		e.b.WriteString("^")
	case opEOL:
		e.b.WriteString("$")
	case opWordB:
		e.b.WriteString(`\b`)
	case opNotWordB:
		e.b.WriteString(`\B`)
	case opWordStart, opWordEnd:
		// Handled by the enclosing concatenation; alone it cannot be said.
		e.ok = false
	case opBufStart:
		e.b.WriteString(`\A`)
	case opBufEnd:
		e.b.WriteString(`\z`)
	case opBackref:
		e.ok = false
	case opGroup:
		if e.captures {
			e.b.WriteString("(")
		} else {
			e.b.WriteString("(?:")
		}
		e.emit(n.subs[0])
		e.b.WriteString(")")
	case opConcat:
		for i, s := range n.subs {
			switch s.op {
			case opWordStart:
				if i+1 < len(n.subs) && startsWithWord(n.subs[i+1]) {
					e.b.WriteString(`\b`)
				} else {
					e.ok = false
				}
				continue
			case opWordEnd:
				if i > 0 && endsWithWord(n.subs[i-1]) {
					e.b.WriteString(`\b`)
				} else {
					e.ok = false
				}
				continue
			}
			e.emit(s)
		}
	case opAlt:
		e.b.WriteString("(?:")
		for i, s := range n.subs {
			if i > 0 {
				e.b.WriteString("|")
			}
			e.emit(s)
		}
		e.b.WriteString(")")
	case opRepeat:
		if isAnchor(n.subs[0]) {
			// grep's ^* and ${2}: a repeated anchor is optional or itself.
			if n.min > 0 {
				e.emit(n.subs[0])
			}
			return
		}
		if n.min > goRepeatMax || n.max > goRepeatMax {
			e.ok = false
			return
		}
		e.b.WriteString("(?:")
		e.emit(n.subs[0])
		e.b.WriteString(")")
		switch {
		case n.min == 0 && n.max == -1:
			e.b.WriteString("*")
		case n.min == 1 && n.max == -1:
			e.b.WriteString("+")
		case n.min == 0 && n.max == 1:
			e.b.WriteString("?")
		case n.max == -1:
			fmt.Fprintf(&e.b, "{%d,}", n.min)
		case n.min == n.max:
			fmt.Fprintf(&e.b, "{%d}", n.min)
		default:
			fmt.Fprintf(&e.b, "{%d,%d}", n.min, n.max)
		}
	}
}

func quoteRune(r rune) string {
	if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ' || r == '_') {
		return string(r)
	}
	return fmt.Sprintf(`\x{%x}`, r)
}

// startsWithWord reports whether every match of n begins with an ASCII
// word character (so a \< before it is Go's \b).
func startsWithWord(n *node) bool {
	switch n.op {
	case opLit:
		return n.r < 0x80 && isWordRune(n.r)
	case opClass:
		return classIsASCIIWord(n.cls)
	case opGroup:
		return startsWithWord(n.subs[0])
	case opRepeat:
		return n.min >= 1 && startsWithWord(n.subs[0])
	case opConcat:
		return startsWithWord(n.subs[0])
	case opAlt:
		for _, s := range n.subs {
			if !startsWithWord(s) {
				return false
			}
		}
		return true
	}
	return false
}

func endsWithWord(n *node) bool {
	switch n.op {
	case opLit, opClass:
		return startsWithWord(n)
	case opGroup:
		return endsWithWord(n.subs[0])
	case opRepeat:
		return n.min >= 1 && endsWithWord(n.subs[0])
	case opConcat:
		return endsWithWord(n.subs[len(n.subs)-1])
	case opAlt:
		for _, s := range n.subs {
			if !endsWithWord(s) {
				return false
			}
		}
		return true
	}
	return false
}

func classIsASCIIWord(c *charClass) bool {
	if c.negated || len(c.named) > 0 {
		return false
	}
	for i := 0; i < len(c.ranges); i += 2 {
		for r := c.ranges[i]; r <= c.ranges[i+1]; r++ {
			if r >= 0x80 || !isWordRune(r) {
				return false
			}
		}
	}
	return len(c.ranges) > 0
}

func (e *emitter) emitClass(c *charClass) {
	e.b.WriteString("[")
	if c.negated {
		e.b.WriteString("^")
	}
	var set runeSet
	for _, name := range c.named {
		set = union(set, classSets()[name])
	}
	for i := 0; i < len(c.ranges); i += 2 {
		if c.ranges[i] >= rawByteBase || c.ranges[i+1] >= rawByteBase {
			continue // a byte of invalid UTF-8 matches no bracket expression
		}
		set = union(set, runeSet{c.ranges[i], c.ranges[i+1]})
	}
	if len(set) == 0 && !c.negated {
		// Only empty ranges ("[z-a]" where they are allowed): no match.
		e.b.WriteString(`^\x00-\x{10ffff}]`)
		return
	}
	for i := 0; i < len(set); i += 2 {
		if set[i] == set[i+1] {
			fmt.Fprintf(&e.b, `\x{%x}`, set[i])
		} else {
			fmt.Fprintf(&e.b, `\x{%x}-\x{%x}`, set[i], set[i+1])
		}
	}
	if c.negated {
		e.b.WriteString(`\x{fffd}`)
		if e.opts.Lines {
			fmt.Fprintf(&e.b, `\x{%x}`, e.opts.EOL)
		}
	}
	e.b.WriteString("]")
}

// RequiredLiteral returns a string every match contains (the longest run
// of literal characters at the top level), or "" when there is none or
// case is ignored. grep searches for it before running the regexp.
func (p *Pattern) RequiredLiteral() string {
	if p.opts.IgnoreCase {
		return ""
	}
	return p.RequiredText()
}

// RequiredText is RequiredLiteral without regard to case: under
// IgnoreCase every match contains it up to case folding.
func (p *Pattern) RequiredText() string {
	var best, cur []byte
	var flush = func() {
		if len(cur) > len(best) {
			best = append([]byte(nil), cur...)
		}
		cur = cur[:0]
	}
	var walk func(n *node) bool // false: stop (not a plain sequence)
	walk = func(n *node) bool {
		switch n.op {
		case opLit:
			if n.r >= rawByteBase {
				cur = append(cur, byte(n.r-rawByteBase))
			} else {
				cur = utf8.AppendRune(cur, n.r)
			}
		case opConcat:
			for _, s := range n.subs {
				walk(s)
			}
		case opGroup:
			if n.subs[0].op == opConcat || n.subs[0].op == opLit {
				walk(n.subs[0])
			} else {
				flush()
			}
		case opBOL, opEOL, opWordB, opNotWordB, opWordStart, opWordEnd, opBufStart, opBufEnd:
			// zero-width: a run may go on across them
		case opRepeat:
			if n.min >= 1 {
				flush()
				walk(n.subs[0])
			}
			flush()
		default:
			flush()
		}
		return true
	}
	walk(p.root)
	flush()
	return string(best)
}
