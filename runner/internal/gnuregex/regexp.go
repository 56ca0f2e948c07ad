package gnuregex

import (
	"context"
	"fmt"
	"regexp"
)

// Regexp is a compiled pattern: Go's regexp (leftmost-longest) when RE2
// can express it, the backtracking Matcher otherwise. Not safe for
// concurrent use when it backtracks.
type Regexp struct {
	pat *Pattern
	re  *regexp.Regexp
	bt  *Matcher
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
	if src, ok := p.GoSyntax(true); ok {
		re, err := regexp.Compile(src)
		if err == nil {
			re.Longest()
			r.re = re
			return r, nil
		}
		// RE2 refused something (e.g. a nesting limit): backtrack instead.
	}
	r.bt = p.NewMatcher()
	return r, nil
}

// Pattern returns the parsed pattern.
func (r *Regexp) Pattern() *Pattern { return r.pat }

// Go returns the Go regexp behind r, or nil when r backtracks.
func (r *Regexp) Go() *regexp.Regexp { return r.re }

// Match reports whether line holds a match.
func (r *Regexp) Match(ctx context.Context, line []byte) (bool, error) {
	if r.re != nil {
		return r.re.Match(line), nil
	}
	return r.bt.Match(ctx, line)
}

// FindAll returns up to n (all when n < 0) successive non-overlapping
// leftmost-longest matches with their submatches, as Go's
// FindAllSubmatchIndex: an empty match right after a match is skipped.
func (r *Regexp) FindAll(ctx context.Context, line []byte, n int) ([][]int, error) {
	if r.re != nil {
		return r.re.FindAllSubmatchIndex(line, n), nil
	}
	var out [][]int
	pos, prevEnd := 0, -1
	for pos <= len(line) && (n < 0 || len(out) < n) {
		m, err := r.bt.FindAt(ctx, line, pos)
		if err != nil {
			return nil, fmt.Errorf("gnuregex: %w", err)
		}
		if m == nil {
			break
		}
		if m[1] == m[0] && m[0] == prevEnd {
			pos = next(line, m[0])
			continue
		}
		out = append(out, m)
		prevEnd = m[1]
		if m[1] > m[0] {
			pos = m[1]
		} else {
			pos = next(line, m[1])
		}
	}
	return out, nil
}
