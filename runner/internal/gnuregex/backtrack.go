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

// ErrBudget is returned when a search needs more backtracking steps than
// its budget allows; its text is meant for users as it is.
var ErrBudget = errors.New("pattern too complex for this text (backtracking step limit reached); simplify it, back-references most of all")

// Matcher runs a Pattern by backtracking: the engine for back-references
// and for what RE2 cannot say (see the package documentation). It is
// exponential in the worst case, so every search has a step budget and
// watches its context. A Matcher is not safe for concurrent use.
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

func (m *Matcher) wordBefore(i int) bool { return i > 0 && isWordChar(decodeLast(m.line, i)) }
func (m *Matcher) wordAt(i int) bool {
	if i >= len(m.line) {
		return false
	}
	r, _ := decode(m.line, i)
	return isWordChar(r)
}

// isWordChar decides word boundaries: a byte of invalid UTF-8 counts as
// the Latin-1 character of its value (so \xff, ÿ, is a word character
// and \xd7, ×, is not), as glibc reads it there.
func isWordChar(r rune) bool {
	if r >= rawByteBase {
		r -= rawByteBase
	}
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
		if !anyMatches(n, r, m.p.opts) {
			return false
		}
		return k(i + size)
	case opClass:
		if i >= len(line) {
			return false
		}
		r, size := decode(line, i)
		if !classMatches(n.cls, r, m.p.opts) {
			return false
		}
		return k(i + size)
	case opBOL:
		return (i == 0 || m.p.opts.Lines && line[i-1] == m.p.opts.EOL) && k(i)
	case opEOL:
		return (i == len(line) || m.p.opts.Lines && line[i] == m.p.opts.EOL) && k(i)
	case opBufStart:
		return i == 0 && k(i)
	case opBufEnd:
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

// repeat matches n.subs[0] greedily count more times. Once the minimum
// is met, an iteration that consumes nothing ends the loop (so nested
// stars cannot loop forever) and is tried last, after stopping: as in
// glibc, it can set a group to the empty string a later back-reference
// needs, but where stopping matches as well the groups keep the last
// non-empty iteration.
func (m *Matcher) repeat(n *node, count, i int, k func(int) bool) bool {
	more := n.max < 0 || count < n.max
	if more && m.match(n.subs[0], i, func(j int) bool {
		if j == i && count >= n.min {
			return false
		}
		return m.repeat(n, count+1, j, k)
	}) {
		return true
	}
	if count < n.min {
		return false
	}
	if k(i) {
		return true
	}
	if !more {
		return false
	}
	// An empty iteration past the minimum sets only groups that have not
	// matched yet: one that has keeps its earlier match (glibc's rule for
	// groups in the optional part of a repetition, its opt_subexp).
	before := append([]int(nil), m.caps...)
	var groups []int
	walkAny(n.subs[0], func(g *node) bool {
		if g.op == opGroup {
			groups = append(groups, g.idx)
		}
		return false
	})
	return m.match(n.subs[0], i, func(j int) bool {
		if j != i {
			return false
		}
		now := append([]int(nil), m.caps...)
		for _, g := range groups {
			if before[2*g] >= 0 {
				m.caps[2*g], m.caps[2*g+1] = before[2*g], before[2*g+1]
			}
		}
		if k(j) {
			return true
		}
		copy(m.caps, now)
		return false
	})
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

// anyMatches reports whether "." matches r: any character but a byte
// of invalid UTF-8, the line separator in Lines mode, and what the
// dialect's "." skips.
func anyMatches(n *node, r rune, o Options) bool {
	return r < rawByteBase && !(o.Lines && r == rune(o.EOL)) && !(n.anyNoNL && r == '\n') && !(n.anyNoNUL && r == 0)
}

// classMatches reports whether a bracket expression matches r; a negated
// one never matches the line separator in Lines mode (glibc's
// REG_NEWLINE).
func classMatches(c *charClass, r rune, o Options) bool {
	if r >= rawByteBase || (c.negated && o.Lines && r == rune(o.EOL)) {
		// No bracket expression matches a byte of invalid UTF-8, not even
		// one that holds that byte (as in GNU's tools).
		return false
	}
	return c.matches(r, o.IgnoreCase)
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

// contains reports whether r is one of the class's characters, through
// an ASCII table and the class's ranges merged once.
func (c *charClass) contains(r rune) bool {
	c.once.Do(c.prepare)
	if r >= 0 && r < 128 {
		return c.ascii[r>>6]&(1<<(r&63)) != 0
	}
	return c.set.has(r)
}

func (c *charClass) prepare() {
	c.set = normalize(append(runeSet(nil), c.ranges...))
	for _, name := range c.named {
		c.set = union(c.set, classSets()[name])
	}
	for r := rune(0); r < 128; r++ {
		if c.set.has(r) {
			c.ascii[r>>6] |= 1 << (r & 63)
		}
	}
}
