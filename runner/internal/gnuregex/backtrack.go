package gnuregex

import (
	"context"
	"errors"
	"unicode"
	"unicode/utf8"
)

// DefaultBudget is the number of backtracking steps one search may take
// before it gives up with ErrBudget.
const DefaultBudget = 20_000_000

// ErrBudget is returned when a back-reference pattern needs more
// backtracking steps than its budget allows.
var ErrBudget = errors.New("gnuregex: back-reference pattern too complex (backtracking step limit reached); simplify the pattern")

// Matcher runs a Pattern by backtracking: the one engine that supports
// back-references. It is slow and exponential in the worst case, so every
// search has a step budget and watches its context. A Matcher is not safe
// for concurrent use.
type Matcher struct {
	p      *Pattern
	Budget int64 // steps per search; DefaultBudget when zero

	ctx   context.Context
	line  []byte
	caps  []int
	steps int64
	err   error
}

// NewMatcher returns a backtracking matcher for p.
func (p *Pattern) NewMatcher() *Matcher {
	return &Matcher{p: p, caps: make([]int, 2*(p.ngroups+1))}
}

func (m *Matcher) begin(ctx context.Context, line []byte) {
	m.ctx, m.line, m.steps, m.err = ctx, line, 0, nil
}

func (m *Matcher) resetCaps() {
	for i := range m.caps {
		m.caps[i] = -1
	}
}

// Ends calls visit with the end of every way the pattern matches line
// starting at start (the same end may come more than once), until visit
// returns true. The whole line is the context of anchors and word
// boundaries.
func (m *Matcher) Ends(ctx context.Context, line []byte, start int, visit func(end int) bool) error {
	m.begin(ctx, line)
	m.resetCaps()
	m.match(m.p.root, start, func(e int) bool { return visit(e) })
	return m.err
}

// Match reports whether the pattern matches anywhere in line.
func (m *Matcher) Match(ctx context.Context, line []byte) (bool, error) {
	m.begin(ctx, line)
	for s := 0; s <= len(line); s = next(line, s) {
		m.resetCaps()
		if m.match(m.p.root, s, func(int) bool { return true }) {
			return m.err == nil, m.err
		}
	}
	return false, m.err
}

// FindAt returns the leftmost-longest match in line at or after pos, with
// its submatches as Go's FindSubmatchIndex gives them (nil: no match).
func (m *Matcher) FindAt(ctx context.Context, line []byte, pos int) ([]int, error) {
	m.begin(ctx, line)
	best := make([]int, len(m.caps))
	for s := pos; s <= len(line); s = next(line, s) {
		bestEnd := -1
		m.resetCaps()
		m.match(m.p.root, s, func(e int) bool {
			if e > bestEnd {
				bestEnd = e
				copy(best, m.caps)
				best[0], best[1] = s, e
			}
			return e == len(line) // nothing can be longer
		})
		if m.err != nil {
			return nil, m.err
		}
		if bestEnd >= 0 {
			return best, nil
		}
	}
	return nil, nil
}

func next(line []byte, s int) int {
	if s >= len(line) {
		return s + 1
	}
	_, n := utf8.DecodeRune(line[s:])
	return s + n
}

// decode returns the rune at i; a byte of invalid UTF-8 is a rune of its own.
func decode(b []byte, i int) (rune, int) {
	r, n := utf8.DecodeRune(b[i:])
	if r == utf8.RuneError && n == 1 {
		return rawByteBase + rune(b[i]), 1
	}
	return r, n
}

func decodeLast(b []byte, i int) rune {
	r, n := utf8.DecodeLastRune(b[:i])
	if r == utf8.RuneError && n == 1 {
		return rawByteBase + rune(b[i-1])
	}
	return r
}

// stepCheck counts a step; false means stop (budget or context).
func (m *Matcher) stepCheck() bool {
	if m.err != nil {
		return false
	}
	m.steps++
	if m.steps&0xfff == 0 {
		if err := m.ctx.Err(); err != nil {
			m.err = err
			return false
		}
		budget := m.Budget
		if budget == 0 {
			budget = DefaultBudget
		}
		if m.steps > budget {
			m.err = ErrBudget
			return false
		}
	}
	return true
}

func (m *Matcher) wordBefore(i int) bool { return i > 0 && isWordRune(decodeLast(m.line, i)) }
func (m *Matcher) wordAt(i int) bool {
	if i >= len(m.line) {
		return false
	}
	r, _ := decode(m.line, i)
	return isWordRune(r)
}

// match tries n at i and calls k with each end; it returns true as soon
// as k does (or when the search must stop: then m.err is set).
func (m *Matcher) match(n *node, i int, k func(int) bool) bool {
	if !m.stepCheck() {
		return true
	}
	line := m.line
	switch n.op {
	case opEmpty:
		return k(i)
	case opLit:
		if i >= len(line) {
			return false
		}
		r, size := decode(line, i)
		if r == n.r || (m.p.opts.IgnoreCase && foldEqual(r, n.r)) {
			return k(i + size)
		}
		return false
	case opAny:
		if i >= len(line) {
			return false
		}
		r, size := decode(line, i)
		if r == rune(m.p.opts.eol()) || r >= rawByteBase {
			return false
		}
		return k(i + size)
	case opClass:
		if i >= len(line) {
			return false
		}
		r, size := decode(line, i)
		if r == rune(m.p.opts.eol()) || (r >= rawByteBase && n.cls.negated) || !n.cls.matches(r, m.p.opts.IgnoreCase) {
			return false
		}
		return k(i + size)
	case opBOL, opBufStart:
		return i == 0 && k(i)
	case opEOL, opBufEnd:
		return i == len(line) && k(i)
	case opWordB:
		return m.wordBefore(i) != m.wordAt(i) && k(i)
	case opNotWordB:
		return m.wordBefore(i) == m.wordAt(i) && k(i)
	case opWordStart:
		return !m.wordBefore(i) && m.wordAt(i) && k(i)
	case opWordEnd:
		return m.wordBefore(i) && !m.wordAt(i) && k(i)
	case opGroup:
		si, ei := 2*n.idx, 2*n.idx+1
		oldS, oldE := m.caps[si], m.caps[ei]
		m.caps[si] = i
		found := m.match(n.subs[0], i, func(j int) bool {
			prev := m.caps[ei]
			m.caps[ei] = j
			if k(j) {
				return true
			}
			m.caps[ei] = prev
			return false
		})
		if !found {
			m.caps[si], m.caps[ei] = oldS, oldE
		}
		return found
	case opBackref:
		s, e := m.caps[2*n.idx], m.caps[2*n.idx+1]
		if s < 0 || e < 0 {
			return false
		}
		j, ok := m.matchText(line[s:e], i)
		return ok && k(j)
	case opConcat:
		return m.concat(n.subs, i, k)
	case opAlt:
		for _, s := range n.subs {
			if m.match(s, i, k) {
				return true
			}
		}
		return false
	case opRepeat:
		return m.repeat(n, 0, i, k)
	}
	return false
}

func (m *Matcher) concat(subs []*node, i int, k func(int) bool) bool {
	if len(subs) == 0 {
		return k(i)
	}
	return m.match(subs[0], i, func(j int) bool { return m.concat(subs[1:], j, k) })
}

// repeat matches n.subs[0] greedily count more times. An iteration that
// consumes nothing ends the loop once the minimum is met (so nested stars
// cannot loop forever), but it still counts: as in glibc, it can set a
// group to the empty string for a later back-reference.
func (m *Matcher) repeat(n *node, count, i int, k func(int) bool) bool {
	if n.max < 0 || count < n.max {
		if m.match(n.subs[0], i, func(j int) bool {
			if j == i && count >= n.min {
				return k(j)
			}
			return m.repeat(n, count+1, j, k)
		}) {
			return true
		}
	}
	return count >= n.min && k(i)
}

// matchText matches the text of a back-reference at i.
func (m *Matcher) matchText(text []byte, i int) (int, bool) {
	if !m.p.opts.IgnoreCase {
		if i+len(text) > len(m.line) || string(m.line[i:i+len(text)]) != string(text) {
			return 0, false
		}
		return i + len(text), true
	}
	for t := 0; t < len(text); {
		if i >= len(m.line) {
			return 0, false
		}
		a, an := decode(text, t)
		b, bn := decode(m.line, i)
		if a != b && !foldEqual(a, b) {
			return 0, false
		}
		t += an
		i += bn
	}
	return i, true
}

func foldEqual(a, b rune) bool {
	if a >= rawByteBase || b >= rawByteBase {
		return a == b
	}
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}

func (c *charClass) matches(r rune, fold bool) bool {
	in := c.contains(r)
	if !in && fold && r < rawByteBase {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if c.contains(f) {
				in = true
				break
			}
		}
	}
	return in != c.negated
}

func (c *charClass) contains(r rune) bool {
	for i := 0; i < len(c.ranges); i += 2 {
		if c.ranges[i] <= r && r <= c.ranges[i+1] {
			return true
		}
	}
	for _, name := range c.named {
		if classHas(name, r) {
			return true
		}
	}
	return false
}

func classHas(name string, r rune) bool {
	if r >= rawByteBase {
		return false
	}
	switch name {
	case "alpha":
		return unicode.IsLetter(r)
	case "upper":
		return unicode.IsUpper(r)
	case "lower":
		return unicode.IsLower(r)
	case "digit":
		return '0' <= r && r <= '9'
	case "xdigit":
		return '0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F'
	case "alnum":
		return unicode.IsLetter(r) || unicode.Is(unicode.Nd, r)
	case "blank":
		return r == ' ' || r == '\t'
	case "space":
		return r == ' ' || ('\t' <= r && r <= '\r')
	case "punct":
		return r < 0x80 && unicode.IsPunct(r) || r < 0x80 && unicode.IsSymbol(r)
	case "print":
		return r >= 0x20 && r != 0x7f && (r < 0x80 || r >= 0xa0)
	case "graph":
		return r > 0x20 && r != 0x7f && (r < 0x80 || r >= 0xa1)
	case "cntrl":
		return r < 0x20 || r == 0x7f
	}
	return false
}
