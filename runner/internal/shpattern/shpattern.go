// Package shpattern matches bash's patterns (the notation of globbing,
// case, [[ == ]] and ${v#pattern}): '*', '?', bracket expressions with
// ranges, negation ('!' or '^') and [:class:], backslash escapes, and
// with Extended the extglob groups ?(…) *(…) +(…) @(…) !(…).
//
// mvdan.cc/sh's pattern package turns patterns into Go regular
// expressions, which cannot say !(…) (no lookahead) nor match bracket
// expressions byte for byte as bash does; this package matches them
// directly, by backtracking over a compiled pattern, as bash's own
// strmatch does. Matching is by rune for valid UTF-8 and by byte
// otherwise.
package shpattern

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Flags change how a pattern is read and matched.
type Flags uint8

const (
	Extended Flags = 1 << iota // extglob groups ?(…) *(…) +(…) @(…) !(…)
	NoCase                     // letters match either case (nocaseglob, nocasematch)
	// Filename makes a leading '.' of the subject match only a literal
	// '.' at the start of the pattern (pathname expansion without
	// dotglob). The subject is one file name, without '/'.
	Filename
)

type nodeKind uint8

const (
	nLit   nodeKind = iota // lit
	nAny                   // ?
	nStar                  // *
	nClass                 // [...]
	nGroup                 // op(alt|alt)
)

type node struct {
	kind  nodeKind
	lit   string
	class *class
	op    byte // '?', '*', '+', '@', '!'
	alts  [][]node
}

type class struct {
	negate bool
	runes  []rune
	ranges [][2]rune
	named  []string // alpha, digit …
}

// Pattern is a compiled pattern.
type Pattern struct {
	nodes    []node
	flags    Flags
	hasGroup bool
	literal  bool // no wildcard at all: nodes is one literal (or none)
}

// Compile reads a pattern. Every string is a pattern: a bracket
// expression without its ']' is a literal '[', a trailing backslash a
// literal backslash.
func Compile(pat string, flags Flags) *Pattern {
	p := &Pattern{flags: flags}
	nodes, _ := parse(pat, flags, false)
	p.nodes = nodes
	p.literal = true
	for _, n := range nodes {
		if n.kind != nLit {
			p.literal = false
		}
		if n.kind == nGroup {
			p.hasGroup = true
		}
	}
	return p
}

// parse reads nodes until the end of pat or, inside a group, an unescaped
// '|' or ')'; it returns the nodes and the rest of pat from that stop.
func parse(pat string, flags Flags, inGroup bool) ([]node, string) {
	var nodes []node
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			nodes = append(nodes, node{kind: nLit, lit: lit.String()})
			lit.Reset()
		}
	}
	for len(pat) > 0 {
		c := pat[0]
		if inGroup && (c == '|' || c == ')') {
			break
		}
		if flags&Extended != 0 && strings.IndexByte("?*+@!", c) >= 0 && len(pat) > 1 && pat[1] == '(' {
			if alts, rest, ok := parseGroup(pat[2:], flags); ok {
				flush()
				nodes = append(nodes, node{kind: nGroup, op: c, alts: alts})
				pat = rest
				continue
			}
		}
		switch c {
		case '*':
			flush()
			if len(nodes) == 0 || nodes[len(nodes)-1].kind != nStar {
				nodes = append(nodes, node{kind: nStar})
			}
			pat = pat[1:]
		case '?':
			flush()
			nodes = append(nodes, node{kind: nAny})
			pat = pat[1:]
		case '[':
			if cl, n := parseClass(pat); n > 0 {
				flush()
				nodes = append(nodes, node{kind: nClass, class: cl})
				pat = pat[n:]
			} else {
				lit.WriteByte('[')
				pat = pat[1:]
			}
		case '\\':
			if len(pat) > 1 {
				_, w := utf8.DecodeRuneInString(pat[1:])
				lit.WriteString(pat[1 : 1+w])
				pat = pat[1+w:]
			} else {
				lit.WriteByte('\\')
				pat = pat[1:]
			}
		default:
			lit.WriteByte(c)
			pat = pat[1:]
		}
	}
	flush()
	return nodes, pat
}

// parseGroup reads the alternatives of an extglob group after its "X(";
// ok is false when the group has no closing parenthesis.
func parseGroup(pat string, flags Flags) (alts [][]node, rest string, ok bool) {
	if !groupCloses(pat) {
		return nil, "", false
	}
	for {
		nodes, r := parse(pat, flags, true)
		alts = append(alts, nodes)
		if r == "" {
			return nil, "", false
		}
		if r[0] == ')' {
			return alts, r[1:], true
		}
		pat = r[1:] // '|'
	}
}

// groupCloses reports whether pat holds the ')' closing a group opened
// just before it, counting nested parentheses and skipping escapes and
// bracket expressions.
func groupCloses(pat string) bool {
	depth := 0
	for i := 0; i < len(pat); i++ {
		switch pat[i] {
		case '\\':
			i++
		case '[':
			if _, n := parseClass(pat[i:]); n > 0 {
				i += n - 1
			}
		case '(':
			depth++
		case ')':
			if depth == 0 {
				return true
			}
			depth--
		}
	}
	return false
}

var classNames = map[string]bool{"alnum": true, "alpha": true, "ascii": true, "blank": true, "cntrl": true,
	"digit": true, "graph": true, "lower": true, "print": true, "punct": true, "space": true, "upper": true,
	"word": true, "xdigit": true}

// parseClass reads a bracket expression at the start of pat ("[...]") and
// returns it with its length, or 0 when pat holds none.
func parseClass(pat string) (*class, int) {
	cl := &class{}
	i := 1
	if i < len(pat) && (pat[i] == '!' || pat[i] == '^') {
		cl.negate = true
		i++
	}
	first := true
	for i < len(pat) {
		c := pat[i]
		if c == ']' && !first {
			return cl, i + 1
		}
		first = false
		if c == '[' && i+1 < len(pat) && (pat[i+1] == ':' || pat[i+1] == '=' || pat[i+1] == '.') {
			kind := pat[i+1]
			if end := strings.Index(pat[i+2:], string(kind)+"]"); end >= 0 {
				name := pat[i+2 : i+2+end]
				switch kind {
				case ':':
					if !classNames[name] {
						return nil, 0 // bash: an unknown class makes the bracket invalid
					}
					cl.named = append(cl.named, name)
				default: // [=c=] and [.c.]: the character itself
					r, _ := utf8.DecodeRuneInString(name)
					cl.runes = append(cl.runes, r)
				}
				i += 2 + end + 2
				continue
			}
		}
		var r rune
		var w int
		if c == '\\' && i+1 < len(pat) {
			r, w = utf8.DecodeRuneInString(pat[i+1:])
			w++
		} else {
			r, w = decode(pat[i:])
		}
		i += w
		if i+1 < len(pat) && pat[i] == '-' && pat[i+1] != ']' {
			var hi rune
			var hw int
			if pat[i+1] == '\\' && i+2 < len(pat) {
				hi, hw = utf8.DecodeRuneInString(pat[i+2:])
				hw++
			} else {
				hi, hw = decode(pat[i+1:])
			}
			cl.ranges = append(cl.ranges, [2]rune{r, hi})
			i += 1 + hw
			continue
		}
		cl.runes = append(cl.runes, r)
	}
	return nil, 0
}

// decode returns the rune at the start of s, or its first byte as a rune
// (0x80–0xFF) when s does not start with valid UTF-8.
func decode(s string) (rune, int) {
	r, w := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && w <= 1 {
		return rune(s[0]), 1
	}
	return r, w
}

func (cl *class) matches(r rune, fold bool) bool {
	in := cl.has(r)
	if !in && fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if cl.has(f) {
				in = true
				break
			}
		}
	}
	return in != cl.negate
}

func (cl *class) has(r rune) bool {
	for _, c := range cl.runes {
		if c == r {
			return true
		}
	}
	for _, rg := range cl.ranges {
		if rg[0] <= r && r <= rg[1] {
			return true
		}
	}
	for _, n := range cl.named {
		if namedClass(n, r) {
			return true
		}
	}
	return false
}

func namedClass(name string, r rune) bool {
	switch name {
	case "alnum":
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	case "alpha":
		return unicode.IsLetter(r)
	case "ascii":
		return r < 0x80
	case "blank":
		return r == ' ' || r == '\t'
	case "cntrl":
		return unicode.IsControl(r)
	case "digit":
		return r >= '0' && r <= '9'
	case "graph":
		return unicode.IsGraphic(r) && !unicode.IsSpace(r)
	case "lower":
		return unicode.IsLower(r)
	case "print":
		return unicode.IsPrint(r)
	case "punct":
		return r < 0x80 && unicode.IsPunct(r) || r < 0x80 && unicode.IsSymbol(r)
	case "space":
		return unicode.IsSpace(r)
	case "upper":
		return unicode.IsUpper(r)
	case "word":
		return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'
	case "xdigit":
		return r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F'
	}
	return false
}

// Match reports whether the whole of s matches the pattern.
func (p *Pattern) Match(s string) bool {
	if p.flags&Filename != 0 && strings.HasPrefix(s, ".") && !startsWithDot(p.nodes) {
		return false
	}
	if p.literal {
		lit := ""
		if len(p.nodes) == 1 {
			lit = p.nodes[0].lit
		}
		if p.flags&NoCase != 0 {
			return strings.EqualFold(lit, s)
		}
		return lit == s
	}
	m := matcher{fold: p.flags&NoCase != 0}
	if p.hasGroup {
		m.memo = map[memoKey]bool{}
	}
	return m.match(p.nodes, s)
}

// IsLiteral reports whether the pattern has no wildcard: it matches only
// its own text (with escapes removed).
func (p *Pattern) IsLiteral() bool { return p.literal }

// Literal returns the text a literal pattern matches.
func (p *Pattern) Literal() string {
	if len(p.nodes) == 1 && p.nodes[0].kind == nLit {
		return p.nodes[0].lit
	}
	return ""
}

func startsWithDot(nodes []node) bool {
	if len(nodes) == 0 {
		return false
	}
	switch n := nodes[0]; n.kind {
	case nLit:
		return strings.HasPrefix(n.lit, ".")
	case nGroup:
		if n.op == '!' {
			return false
		}
		for _, alt := range n.alts {
			if !startsWithDot(alt) {
				return false
			}
		}
		return len(n.alts) > 0
	}
	return false
}

type memoKey struct {
	nodes *node
	n     int
	rest  int
}

type matcher struct {
	fold bool
	memo map[memoKey]bool
}

// match reports whether nodes match all of s.
func (m *matcher) match(nodes []node, s string) bool {
	for len(nodes) > 0 {
		n := &nodes[0]
		switch n.kind {
		case nLit:
			if m.fold {
				if len(s) < len(n.lit) || !strings.EqualFold(s[:len(n.lit)], n.lit) {
					// EqualFold on a prefix of equal byte length covers
					// ASCII; fall back to rune-wise folding otherwise.
					rest, ok := foldPrefix(s, n.lit)
					if !ok {
						return false
					}
					s = rest
				} else {
					s = s[len(n.lit):]
				}
			} else {
				if !strings.HasPrefix(s, n.lit) {
					return false
				}
				s = s[len(n.lit):]
			}
		case nAny:
			if s == "" {
				return false
			}
			_, w := decode(s)
			s = s[w:]
		case nClass:
			if s == "" {
				return false
			}
			r, w := decode(s)
			if !n.class.matches(r, m.fold) {
				return false
			}
			s = s[w:]
		case nStar:
			rest := nodes[1:]
			if len(rest) == 0 {
				return true
			}
			if rest[0].kind == nLit && !m.fold {
				// Try only the places where the next literal starts.
				lit := rest[0].lit
				for i := 0; i <= len(s); {
					j := strings.Index(s[i:], lit)
					if j < 0 {
						return false
					}
					if m.match(rest, s[i+j:]) {
						return true
					}
					i += j + 1
				}
				return false
			}
			for i := 0; i <= len(s); {
				if m.match(rest, s[i:]) {
					return true
				}
				if i == len(s) {
					break
				}
				_, w := decode(s[i:])
				i += w
			}
			return false
		case nGroup:
			return m.group(nodes, s)
		}
		nodes = nodes[1:]
	}
	return s == ""
}

// group matches nodes, whose first is an extglob group, against s.
func (m *matcher) group(nodes []node, s string) bool {
	key := memoKey{&nodes[0], len(nodes), len(s)}
	if v, ok := m.memo[key]; ok {
		return v
	}
	v := m.groupUncached(nodes, s)
	m.memo[key] = v
	return v
}

func (m *matcher) groupUncached(nodes []node, s string) bool {
	n := &nodes[0]
	rest := nodes[1:]
	anyAlt := func(sub string) bool {
		for _, alt := range n.alts {
			if m.match(alt, sub) {
				return true
			}
		}
		return false
	}
	// Candidate split points of s: rune boundaries.
	splits := func(yield func(k int) bool) {
		for k := 0; k <= len(s); {
			if !yield(k) {
				return
			}
			if k == len(s) {
				return
			}
			_, w := decode(s[k:])
			k += w
		}
	}
	switch n.op {
	case '@', '?', '+', '*':
		if (n.op == '?' || n.op == '*') && m.match(rest, s) {
			return true
		}
		found := false
		splits(func(k int) bool {
			if k == 0 && n.op != '@' && n.op != '?' {
				return true // an empty repetition would loop
			}
			if !anyAlt(s[:k]) {
				return true
			}
			if n.op == '+' || n.op == '*' {
				// Then zero or more further repetitions.
				again := append([]node{{kind: nGroup, op: '*', alts: n.alts}}, rest...)
				if m.match(again, s[k:]) {
					found = true
					return false
				}
				return true
			}
			if m.match(rest, s[k:]) {
				found = true
				return false
			}
			return true
		})
		return found
	case '!':
		found := false
		splits(func(k int) bool {
			if !anyAlt(s[:k]) && m.match(rest, s[k:]) {
				found = true
				return false
			}
			return true
		})
		return found
	}
	return false
}

// foldPrefix matches lit against the start of s rune by rune, ignoring
// case, and returns the rest of s.
func foldPrefix(s, lit string) (string, bool) {
	for lit != "" {
		if s == "" {
			return "", false
		}
		a, aw := decode(s)
		b, bw := decode(lit)
		if a != b && unicode.SimpleFold(a) != b && !equalFold(a, b) {
			return "", false
		}
		s, lit = s[aw:], lit[bw:]
	}
	return s, true
}

func equalFold(a, b rune) bool {
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}

// HasMeta reports whether pat holds an unescaped wildcard, so that
// pathname expansion has something to do.
func HasMeta(pat string, flags Flags) bool {
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; c {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			if _, n := parseClass(pat[i:]); n > 0 {
				return true
			}
		case '+', '@', '!':
			if flags&Extended != 0 && i+1 < len(pat) && pat[i+1] == '(' {
				return true
			}
		}
	}
	return false
}

// Quote escapes every character of s that a pattern would read as
// special, so that the pattern matches s literally.
func Quote(s string) string {
	if !strings.ContainsAny(s, `*?[]\!@+()|^`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`*?[]\!@+()|^`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// cache holds recently compiled patterns; scripts match the same few
// patterns over and over (case in a loop).
var cache = struct {
	sync.Mutex
	m map[cacheKey]*Pattern
}{m: map[cacheKey]*Pattern{}}

type cacheKey struct {
	pat   string
	flags Flags
}

const cacheMax = 512

// Cached is Compile through a small process-wide cache.
func Cached(pat string, flags Flags) *Pattern {
	k := cacheKey{pat, flags}
	cache.Lock()
	p, ok := cache.m[k]
	cache.Unlock()
	if ok {
		return p
	}
	p = Compile(pat, flags)
	if len(pat) <= 4096 {
		cache.Lock()
		if len(cache.m) >= cacheMax {
			clear(cache.m)
		}
		cache.m[k] = p
		cache.Unlock()
	}
	return p
}

// Match reports whether s matches pat (compiled through the cache).
func Match(pat, s string, flags Flags) bool {
	return Cached(pat, flags).Match(s)
}

// ClassLen returns whether s starts with a bracket expression and its
// length (0 when it does not).
func ClassLen(s string) (bool, int) {
	_, n := parseClass(s)
	return n > 0, n
}
