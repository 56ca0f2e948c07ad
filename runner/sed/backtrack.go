package sed

import (
	"unicode"
	"unicode/utf8"
)

// backtracker matches the regular expressions Go regexp cannot express
// (back-references, \< and \> in general, intervals above 1000, invalid
// UTF-8 in the pattern). At each start position it explores the
// alternatives and keeps the longest match, as POSIX asks; a step budget
// bounds that search, after which the longest match found so far wins.
type backtracker struct {
	root  *reNode
	ncap  int
	icase bool
	mline bool
	nl    byte // the line separator M anchors at

	// per-search state
	b       []byte
	caps    []int
	best    []int
	bestEnd int
	steps   int
	stop    func() bool
	stopped bool
}

// stepBudget bounds the exhaustive search for the longest match at one
// start position.
const stepBudget = 200000

// find looks for the leftmost-longest match starting at or after pos and
// fills caps (unset groups are -1). It returns false when there is none or
// when stop reported that the command must end (then bt.stopped is set).
func (bt *backtracker) find(b []byte, pos int, caps []int, stop func() bool) bool {
	bt.b, bt.stop, bt.stopped = b, stop, false
	if len(bt.caps) < bt.ncap {
		bt.caps = make([]int, bt.ncap)
		bt.best = make([]int, bt.ncap)
	}
	for start := pos; start <= len(b); {
		for i := range bt.caps[:bt.ncap] {
			bt.caps[i] = -1
		}
		bt.bestEnd = -1
		bt.steps = 0
		bt.caps[0] = start
		bt.m(bt.root, start, func(end int) bool {
			if end > bt.bestEnd {
				bt.bestEnd = end
				copy(bt.best, bt.caps[:bt.ncap])
				bt.best[1] = end
			}
			return end == len(b) || bt.steps > stepBudget
		})
		if bt.stopped {
			return false
		}
		if bt.bestEnd >= 0 {
			copy(caps, bt.best[:bt.ncap])
			return true
		}
		if start == len(b) {
			break
		}
		_, size := utf8.DecodeRune(b[start:])
		start += size
	}
	return false
}

func (bt *backtracker) tick() bool {
	bt.steps++
	if bt.steps&0xfff == 0 && bt.stop != nil && bt.stop() {
		bt.stopped = true
	}
	return bt.stopped
}

func (bt *backtracker) isWordAt(i int) bool {
	if i < 0 || i >= len(bt.b) {
		return false
	}
	r, size := utf8.DecodeRune(bt.b[i:])
	if r == utf8.RuneError && size == 1 {
		r = rune(bt.b[i]) // glibc reads an invalid byte as U+0080…U+00FF here
	}
	return isWordRune(r)
}

func (bt *backtracker) wordBefore(i int) bool {
	if i <= 0 {
		return false
	}
	r, size := utf8.DecodeLastRune(bt.b[:i])
	if r == utf8.RuneError && size == 1 {
		r = rune(bt.b[i-1])
	}
	return isWordRune(r)
}

// m matches n at i and calls k with the end; it returns true when k did
// (the search is over).
func (bt *backtracker) m(n *reNode, i int, k func(int) bool) bool {
	if bt.tick() {
		return true
	}
	b := bt.b
	switch n.op {
	case opLit:
		if n.r&rawByte != 0 {
			if i < len(b) && b[i] == byte(n.r) {
				return k(i + 1)
			}
			return false
		}
		if i >= len(b) {
			return false
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == n.r || bt.icase && equalFold(r, n.r) {
			return k(i + size)
		}
		return false
	case opAny:
		if i >= len(b) {
			return false
		}
		if bt.mline && b[i] == bt.nl {
			return false
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return false // an invalid byte is no character
		}
		return k(i + size)
	case opClass:
		if i >= len(b) {
			return false
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return false // GNU matches an invalid byte with no bracket expression
		}
		if bt.mline && n.cls.neg && r == rune(bt.nl) {
			return false
		}
		if !n.cls.has(r, bt.icase) {
			return false
		}
		return k(i + size)
	case opBOL:
		if i == 0 || bt.mline && b[i-1] == bt.nl {
			return k(i)
		}
		return false
	case opEOL:
		if i == len(b) || bt.mline && b[i] == bt.nl {
			return k(i)
		}
		return false
	case opBufStart:
		if i == 0 {
			return k(i)
		}
		return false
	case opBufEnd:
		if i == len(b) {
			return k(i)
		}
		return false
	case opWordB, opNotWordB:
		at := bt.wordBefore(i) != bt.isWordAt(i)
		if at == (n.op == opWordB) {
			return k(i)
		}
		return false
	case opWordStart:
		if !bt.wordBefore(i) && bt.isWordAt(i) {
			return k(i)
		}
		return false
	case opWordEnd:
		if bt.wordBefore(i) && !bt.isWordAt(i) {
			return k(i)
		}
		return false
	case opGroup:
		oldS, oldE := bt.caps[2*n.n], bt.caps[2*n.n+1]
		if bt.m(n.subs[0], i, func(e int) bool {
			s0, e0 := bt.caps[2*n.n], bt.caps[2*n.n+1]
			bt.caps[2*n.n], bt.caps[2*n.n+1] = i, e
			if k(e) {
				return true
			}
			bt.caps[2*n.n], bt.caps[2*n.n+1] = s0, e0
			return false
		}) {
			return true
		}
		bt.caps[2*n.n], bt.caps[2*n.n+1] = oldS, oldE
		return false
	case opConcat:
		return bt.seq(n.subs, i, k)
	case opAlt:
		for _, s := range n.subs {
			if bt.m(s, i, k) {
				return true
			}
		}
		return false
	case opRepeat:
		return bt.rep(n, 0, i, k)
	case opBackref:
		s, e := bt.caps[2*n.n], bt.caps[2*n.n+1]
		if s < 0 || e < 0 {
			return false
		}
		sub := b[s:e]
		if i+len(sub) > len(b) {
			if !bt.icase {
				return false
			}
		}
		if !bt.icase {
			if string(b[i:i+len(sub)]) == string(sub) {
				return k(i + len(sub))
			}
			return false
		}
		j := i
		for len(sub) > 0 {
			if j >= len(b) {
				return false
			}
			r1, s1 := utf8.DecodeRune(sub)
			r2, s2 := utf8.DecodeRune(b[j:])
			if r1 != r2 && !equalFold(r1, r2) {
				return false
			}
			sub = sub[s1:]
			j += s2
		}
		return k(j)
	case opEmpty:
		return k(i)
	}
	return false
}

func (bt *backtracker) seq(subs []*reNode, i int, k func(int) bool) bool {
	if len(subs) == 0 {
		return k(i)
	}
	return bt.m(subs[0], i, func(e int) bool { return bt.seq(subs[1:], e, k) })
}

// rep matches n.subs[0] greedily, count times done so far; an iteration
// that matches the empty string ends the loop, so x** cannot spin.
func (bt *backtracker) rep(n *reNode, count, i int, k func(int) bool) bool {
	if n.max < 0 || count < n.max {
		if bt.m(n.subs[0], i, func(e int) bool {
			if e == i && count >= n.min {
				return false
			}
			return bt.rep(n, count+1, e, k)
		}) {
			return true
		}
	}
	if count >= n.min {
		return k(i)
	}
	return false
}

func equalFold(a, b rune) bool {
	if a == b {
		return true
	}
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}
