package gnuregex

import (
	"bytes"
	"context"
	"regexp"
	"unicode/utf8"
)

// Regexp is a compiled pattern that finds its leftmost-longest matches
// and their submatches, for sed, awk, find and expr (grep drives the
// pieces itself). It picks its engine per search: a plain literal is
// found by bytes.Index; what RE2 can say runs on Go's linear-time
// regexp in leftmost-longest mode; the rest (back-references, \< \> next
// to a possible non-word character, counts over 1000, bytes of invalid
// UTF-8 in the pattern, word boundaries over non-ASCII text, submatches
// of a repeated group that can match empty) runs on the backtracking
// Matcher, whose step budget ends a search with ErrBudget. A Regexp is
// not safe for concurrent use.
type Regexp struct {
	pat *Pattern
	lit []byte         // the pattern is this literal text
	re  *regexp.Regexp // Go's translation, when RE2 can say the pattern
	// asciiWords: re uses \b, which Go decides with ASCII word characters
	// only; a text with other characters goes to the Matcher.
	asciiWords bool
	// btCaptures: Go's submatches differ from GNU's here (a variable
	// repetition of a group that can match empty: Go may end it with an
	// empty iteration GNU does not take), so submatches backtrack.
	btCaptures bool
	bt         *Matcher
	litMatch   [2]int // Each's match of a literal, reused
}

// Compile parses and compiles one pattern.
func Compile(pattern string, opts Options) (*Regexp, error) {
	p, err := Parse(pattern, opts)
	if err != nil {
		return nil, err
	}
	return p.Compile()
}

// Compile prepares p for matching, with capturing groups.
func (p *Pattern) Compile() (*Regexp, error) {
	r := &Regexp{pat: p}
	if lit, ok := literalText(p.root); ok && !p.opts.IgnoreCase && len(lit) > 0 {
		r.lit = lit
		return r, nil
	}
	if src, ok := p.GoSyntax(true); ok {
		if re, err := regexp.Compile(src); err == nil {
			re.Longest()
			r.re = re
			r.asciiWords = p.UsesWordBoundaries()
			r.btCaptures = emptyIterationGroup(p.root)
		}
		// Else RE2 refused something (a size limit): backtrack instead.
	}
	return r, nil
}

// literalText returns the text a pattern of literal characters matches.
func literalText(n *node) ([]byte, bool) {
	var out []byte
	add := func(n *node) bool {
		if n.op != opLit {
			return false
		}
		if n.r >= rawByteBase {
			out = append(out, byte(n.r-rawByteBase))
		} else {
			out = utf8.AppendRune(out, n.r)
		}
		return true
	}
	if n.op == opConcat {
		for _, s := range n.subs {
			if !add(s) {
				return nil, false
			}
		}
		return out, true
	}
	return out, add(n)
}

// emptyIterationGroup reports a variable repetition of something that
// holds a group and can match the empty string, such as \(c*\)\{1,2\}.
func emptyIterationGroup(n *node) bool {
	return walkAny(n, func(n *node) bool {
		return n.op == opRepeat && n.max != n.min && walkAny(n.subs[0], func(g *node) bool { return g.op == opGroup }) &&
			nullable(n.subs[0])
	})
}

// Pattern returns the parsed pattern.
func (r *Regexp) Pattern() *Pattern { return r.pat }

// NumSubexp returns the number of capturing groups.
func (r *Regexp) NumSubexp() int { return r.pat.ngroups }

// matcher is the backtracking Matcher, made on first use.
func (r *Regexp) matcher() *Matcher {
	if r.bt == nil {
		r.bt = r.pat.NewMatcher()
	}
	return r.bt
}

// useGo reports whether Go's regexp decides text exactly.
func (r *Regexp) useGo(text []byte, captures bool) bool {
	if r.re == nil || (captures && r.btCaptures) {
		return false
	}
	return !r.asciiWords || isASCII(text)
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Match reports whether text holds a match.
func (r *Regexp) Match(ctx context.Context, text []byte) (bool, error) {
	switch {
	case r.lit != nil:
		return bytes.Contains(text, r.lit), nil
	case r.useGo(text, false):
		return r.re.Match(text), nil
	}
	return r.matcher().Match(ctx, text)
}

// MatchString is Match on a string.
func (r *Regexp) MatchString(ctx context.Context, text string) (bool, error) {
	switch {
	case r.lit != nil:
		return bytes.Contains([]byte(text), r.lit), nil
	case r.re != nil && (!r.asciiWords || isASCIIString(text)):
		return r.re.MatchString(text), nil
	}
	return r.matcher().Match(ctx, []byte(text))
}

func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// FindAll returns up to n (all when n < 0) successive non-overlapping
// leftmost-longest matches, each as [start, end] or, with captures,
// with its submatches as Go's FindAllSubmatchIndex gives them (-1 for a
// group that took no part). An empty match right after a match is
// skipped, as sed's s///g and awk's gsub skip it.
func (r *Regexp) FindAll(ctx context.Context, text []byte, n int, captures bool) ([][]int, error) {
	if r.lit != nil {
		var out [][]int
		err := r.Each(ctx, text, n, captures, func(m []int) bool {
			out = append(out, append([]int(nil), m...))
			return true
		})
		return out, err
	}
	switch {
	case n == 0:
		return nil, nil
	case r.useGo(text, captures):
		if captures {
			return r.re.FindAllSubmatchIndex(text, n), nil
		}
		return r.re.FindAllIndex(text, n), nil
	}
	out, err := r.btFindAll(ctx, text, n)
	if !captures {
		for i, m := range out {
			out[i] = m[:2]
		}
	}
	return out, err
}

// Each calls fn with FindAll's matches in turn until fn returns false;
// m is only valid during the call. A literal pattern allocates nothing.
func (r *Regexp) Each(ctx context.Context, text []byte, n int, captures bool, fn func(m []int) bool) error {
	if r.lit != nil {
		m := r.litMatch[:] // a literal has no groups
		for pos, seen := 0, 0; pos <= len(text) && (n < 0 || seen < n); seen++ {
			i := bytes.Index(text[pos:], r.lit)
			if i < 0 {
				return nil
			}
			m[0], m[1] = pos+i, pos+i+len(r.lit)
			pos = m[1]
			if !fn(m) {
				return nil
			}
		}
		return nil
	}
	ms, err := r.FindAll(ctx, text, n, captures)
	for _, m := range ms {
		if !fn(m) {
			break
		}
	}
	return err
}

// FindAllString is FindAll on a string.
func (r *Regexp) FindAllString(ctx context.Context, text string, n int, captures bool) ([][]int, error) {
	if r.lit == nil && r.re != nil && !(captures && r.btCaptures) && (!r.asciiWords || isASCIIString(text)) {
		if captures {
			return r.re.FindAllStringSubmatchIndex(text, n), nil
		}
		return r.re.FindAllStringIndex(text, n), nil
	}
	return r.FindAll(ctx, []byte(text), n, captures)
}

func (r *Regexp) btFindAll(ctx context.Context, text []byte, n int) ([][]int, error) {
	bt := r.matcher()
	var out [][]int
	pos, prevEnd := 0, -1
	for pos <= len(text) && (n < 0 || len(out) < n) {
		m, err := bt.FindAt(ctx, text, pos)
		if err != nil {
			return nil, err
		}
		if m == nil {
			break
		}
		if m[1] == m[0] && m[0] == prevEnd {
			pos = next(text, m[0])
			continue
		}
		out = append(out, m)
		prevEnd = m[1]
		if m[1] > m[0] {
			pos = m[1]
		} else {
			pos = next(text, m[1])
		}
	}
	return out, nil
}
