package grep

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wsfs/wsfs/runner/internal/gnuregex"
)

// engine decides which records match and where. A literal every match
// must contain is searched first (bytes.Index, or an ASCII case-folding
// scan for -i), so most of a file is never seen by an automaton; records
// are then decided by gnuregex's lazy DFA when the patterns allow it,
// else by Go's regexp, else (back-references) by gnuregex's backtracker.
// Match positions (-o) come from Go's regexp or the backtracker.
type engine struct {
	eol       byte
	none      bool // no pattern at all: nothing matches
	word      bool
	wholeLine bool

	lineRE  *regexp.Regexp // matches a record (wrapped for -w / -x)
	plainRE *regexp.Regexp // the patterns alone, for -o
	wordRE0 *regexp.Regexp // -w: a word match at the start of the record
	wordRE2 *regexp.Regexp // -w: a non-word char, then a word match
	bufRE   *regexp.Regexp // lineRE when it can run over many records at once
	bt      *gnuregex.Matcher
	btWord  *gnuregex.Matcher // -o -w after a first match, as GNU searches
	uni     *engine           // for non-ASCII lines when Go's ASCII \b would differ
	// dfa decides records fast when the patterns allow it; nil after it
	// outgrows its state limit.
	dfa     *gnuregex.DFA
	literal []byte // every match contains it
	// literalFold (lower case) is in every match up to ASCII case (-i).
	literalFold []byte
	litExact    bool // finding literal is the whole test
}

// newEngine compiles o's patterns. Errors are GNU's messages.
func newEngine(o *options) (*engine, []string, error) {
	e := &engine{eol: '\n', word: o.word && !o.wholeLine, wholeLine: o.wholeLine}
	if o.nullData {
		e.eol = 0
	}
	if len(o.patterns) == 0 {
		e.none = true
		return e, nil, nil
	}
	if o.matcher == matchPerl {
		return e, nil, e.compilePerl(o)
	}
	// Records are lines (newline-separated) or, with -z, NUL-terminated
	// records in which a newline is an ordinary character.
	opts := gnuregex.Options{IgnoreCase: o.ignoreCase, Lines: !o.nullData, EOL: e.eol, Syntax: gnuregex.BRE}
	if o.matcher == matchERE {
		opts.Syntax = gnuregex.ERE
	}
	var pats []*gnuregex.Pattern
	var warnings []string
	for _, s := range o.patterns {
		if o.matcher == matchFixed {
			pats = append(pats, gnuregex.Literal(s, opts))
			continue
		}
		p, err := gnuregex.Parse(s, opts)
		if err != nil {
			return nil, nil, err
		}
		warnings = append(warnings, p.Warnings()...)
		pats = append(pats, p)
	}
	p := gnuregex.Alternate(pats...)
	if lit := p.RequiredLiteral(); lit != "" {
		e.literal = []byte(lit)
		e.litExact = o.matcher == matchFixed && len(o.patterns) == 1 && !o.ignoreCase && !e.word && !e.wholeLine
	} else if lit := p.RequiredText(); o.ignoreCase && asciiFoldable(lit) {
		e.literalFold = []byte(strings.ToLower(lit))
	}
	if !(e.word && p.CanMatchEmpty()) {
		mode := gnuregex.Contains
		switch {
		case e.wholeLine:
			mode = gnuregex.WholeRecord
		case e.word:
			mode = gnuregex.WholeWord
		}
		e.dfa, _ = p.NewDFA(mode)
	}
	if e.word {
		e.btWord = p.NewMatcher()
	}
	flags, expr, ok := p.GoSyntaxParts(false)
	// GNU's -w never accepts an empty match found by shortening a longer
	// one; only the backtracker can tell, so such patterns go there.
	if ok && !(e.word && p.CanMatchEmpty()) {
		if err := e.compileGo(flags, expr, true); err == nil {
			if p.UsesWordBoundaries() {
				// Go's \b knows only ASCII: lines with other characters
				// go to a backtracking twin with GNU's Unicode words.
				uni := *e
				uni.lineRE, uni.plainRE, uni.wordRE0, uni.wordRE2 = nil, nil, nil, nil
				uni.bt = p.NewMatcher()
				e.uni = &uni
			} else if p.BufferSafe() {
				e.bufRE = e.lineRE
			}
			return e, warnings, nil
		}
	}
	e.bt = p.NewMatcher()
	return e, warnings, nil
}

func (e *engine) compilePerl(o *options) error {
	if len(o.patterns) > 1 {
		return fmt.Errorf("the -P option only supports a single pattern")
	}
	if _, err := regexp.Compile(o.patterns[0]); err != nil {
		return fmt.Errorf("-P supports only Go's RE2 syntax (no lookaround, back-references, atomic or possessive groups): %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	flags := ""
	if o.ignoreCase {
		flags = "(?i)"
	}
	return e.compileGo(flags, "(?:"+o.patterns[0]+")", false)
}

// compileGo builds the regexps of one Go expression; longest selects
// POSIX leftmost-longest matching (all but -P).
func (e *engine) compileGo(flags, expr string, longest bool) error {
	nonWord := fmt.Sprintf(`[^\p{L}\p{Nd}_\x%02x]`, e.eol)
	compile := func(src string) (*regexp.Regexp, error) {
		re, err := regexp.Compile(src)
		if err != nil {
			return nil, err
		}
		if longest {
			re.Longest()
		}
		return re, nil
	}
	var err error
	if e.plainRE, err = compile(flags + expr); err != nil {
		return err
	}
	// Selecting a record needs no longest match: leftmost-first is faster.
	switch {
	case e.wholeLine:
		e.lineRE, err = regexp.Compile(flags + "^(?:" + expr + ")$")
	case e.word:
		if e.lineRE, err = regexp.Compile(flags + "(?:^|" + nonWord + ")(" + expr + ")(?:" + nonWord + "|$)"); err != nil {
			return err
		}
		if e.wordRE0, err = compile(flags + "^(" + expr + ")(?:" + nonWord + "|$)"); err != nil {
			return err
		}
		e.wordRE2, err = compile(flags + nonWord + "(" + expr + ")(?:" + nonWord + "|$)")
	default:
		e.lineRE, err = regexp.Compile(flags + expr)
	}
	return err
}

// asciiFoldable reports whether lit is ASCII and folds only within ASCII
// (k and s have non-ASCII partners: U+212A KELVIN SIGN, U+017F LONG S).
func asciiFoldable(lit string) bool {
	if lit == "" {
		return false
	}
	for i := 0; i < len(lit); i++ {
		c := lit[i] | 0x20
		if lit[i] >= utf8.RuneSelf || c == 'k' || c == 's' {
			return false
		}
	}
	return true
}

// indexFoldASCII finds lit (ASCII, lower case) in s ignoring ASCII case.
// Each scan stops at the next candidate, so the work stays linear.
func indexFoldASCII(s, lit []byte) int {
	c0 := lit[0]
	u0 := c0
	if 'a' <= c0 && c0 <= 'z' {
		u0 = c0 - 'a' + 'A'
	}
	nextLower := -1 // next lower-case candidate at or after off
	for off := 0; off+len(lit) <= len(s); {
		if nextLower < off {
			nextLower = indexFrom(s, c0, off)
		}
		i := nextLower
		if u0 != c0 {
			if j := bytes.IndexByte(s[off:i], u0); j >= 0 {
				i = off + j
			}
		}
		if i+len(lit) > len(s) {
			return -1
		}
		if equalFoldASCII(s[i+1:i+len(lit)], lit[1:]) {
			return i
		}
		off = i + 1
	}
	return -1
}

// indexFrom returns the index of c in s at or after off, or len(s).
func indexFrom(s []byte, c byte, off int) int {
	i := bytes.IndexByte(s[off:], c)
	if i < 0 {
		return len(s)
	}
	return off + i
}

func equalFoldASCII(a, lower []byte) bool {
	for i, c := range a {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// matchLine reports whether one record (without its terminator) matches.
func (e *engine) matchLine(ctx context.Context, line []byte) (bool, error) {
	switch {
	case e.none:
		return false, nil
	case e.litExact:
		return bytes.Contains(line, e.literal), nil
	case e.literal != nil && !bytes.Contains(line, e.literal):
		return false, nil
	case e.literalFold != nil && indexFoldASCII(line, e.literalFold) < 0:
		return false, nil
	case e.uni != nil && !isASCII(line):
		return e.uni.matchLine(ctx, line)
	case e.dfa != nil:
		ok, err := e.dfa.MatchRecord(line)
		if err == nil {
			return ok, nil
		}
		e.dfa = nil // too many states: the other engines take over
		return e.matchLine(ctx, line)
	case e.lineRE != nil:
		return e.lineRE.Match(line), nil
	case e.wholeLine:
		found := false
		err := e.bt.Ends(ctx, line, 0, func(end int) bool {
			found = end == len(line)
			return found
		})
		return found, err
	case e.word:
		s, _, err := e.btWordAt(ctx, line, 0)
		return s >= 0, err
	}
	return e.bt.Match(ctx, line)
}

// btWordAt finds, by backtracking, the leftmost match at or after pos
// that is a whole word, as GNU's -w search does: at each start it tries
// the longest match, then shorter non-empty ones, and it needs no word
// character right before or after.
func (e *engine) btWordAt(ctx context.Context, line []byte, pos int) (int, int, error) {
	bt := e.bt
	if bt == nil {
		bt = e.btWord
	}
	isEnd := make([]bool, len(line)+1)
	for s := pos; s <= len(line); s = nextRune(line, s) {
		if s > 0 && isWordBefore(line, s) {
			continue
		}
		clear(isEnd)
		longest := -1
		err := bt.Ends(ctx, line, s, func(end int) bool {
			isEnd[end] = true
			longest = max(longest, end)
			return false
		})
		if err != nil {
			return -1, -1, err
		}
		if longest < 0 {
			continue
		}
		// GNU retries shorter matches within a limit that, for -o after
		// an earlier match, it computes off by pos (it measures from the
		// search start, not the line start); the limit is kept as GNU's.
		end := longest
		for end > s || end == longest {
			if !isWordAt(line, end) {
				return s, end, nil
			}
			limit := end - 1 - pos
			end = -1
			for c := limit; c > s; c-- {
				if isEnd[c] {
					end = c
					break
				}
			}
			if end < 0 {
				break
			}
		}
	}
	return -1, -1, nil
}

func nextRune(b []byte, i int) int {
	if i >= len(b) {
		return i + 1
	}
	_, n := utf8.DecodeRune(b[i:])
	return i + n
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isWordRune is GNU's word constituent: a letter, a digit or "_".
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.Is(unicode.Nd, r)
}

func isWordBefore(b []byte, i int) bool {
	if i <= 0 {
		return false
	}
	r, _ := utf8.DecodeLastRune(b[:i])
	return isWordRune(r)
}

func isWordAt(b []byte, i int) bool {
	if i >= len(b) {
		return false
	}
	r, _ := utf8.DecodeRune(b[i:])
	return isWordRune(r)
}

// eachMatch calls visit with every non-empty match of one selected
// record, as -o prints them, until visit returns false.
func (e *engine) eachMatch(ctx context.Context, line []byte, visit func(s, end int) bool) error {
	if e.none {
		return nil
	}
	if e.wholeLine {
		if len(line) > 0 {
			visit(0, len(line))
		}
		return nil
	}
	if e.uni != nil && !isASCII(line) {
		return e.uni.eachMatch(ctx, line, visit)
	}
	if e.lineRE != nil && !e.word {
		for _, m := range e.plainRE.FindAllIndex(line, -1) {
			if m[1] > m[0] && !visit(m[0], m[1]) {
				return nil
			}
		}
		return nil
	}
	pos := 0
	for pos <= len(line) {
		if err := ctx.Err(); err != nil {
			return err
		}
		s, end, err := e.nextWordOrMatch(ctx, line, pos)
		if err != nil || s < 0 {
			return err
		}
		if end > s {
			if !visit(s, end) {
				return nil
			}
			pos = end
		} else {
			pos = nextRune(line, end)
		}
	}
	return nil
}

func (e *engine) nextWordOrMatch(ctx context.Context, line []byte, pos int) (int, int, error) {
	if pos > 0 && e.btWord != nil {
		// After a first match GNU retries shorter words within a limit it
		// computes off by pos; only the backtracker reproduces that.
		return e.btWordAt(ctx, line, pos)
	}
	if e.lineRE != nil { // -w on Go's regexp
		// The non-word character before a match is consumed, so a match
		// at the very start is looked for on its own: otherwise a longer
		// match one character later would win.
		if pos == 0 {
			if m := e.wordRE0.FindSubmatchIndex(line); m != nil {
				return m[2], m[3], nil
			}
			pos = 1
		}
		if m := e.wordRE2.FindSubmatchIndex(line[pos-1:]); m != nil {
			return m[2] + pos - 1, m[3] + pos - 1, nil
		}
		return -1, -1, nil
	}
	if e.word {
		return e.btWordAt(ctx, line, pos)
	}
	m, err := e.bt.FindAt(ctx, line, pos)
	if err != nil || m == nil {
		return -1, -1, err
	}
	return m[0], m[1], nil
}

// nextMatch returns the bounds [ls, le) of the first matching record in
// buf[from:lim] (le is the terminator's index, or lim), or ls -1. The
// span must hold whole records.
func (e *engine) nextMatch(ctx context.Context, buf []byte, from, lim int) (int, int, error) {
	if e.none {
		return -1, -1, nil
	}
	for from < lim {
		if err := ctx.Err(); err != nil {
			return -1, -1, err
		}
		var at int
		switch {
		case e.literal != nil:
			i := bytes.Index(buf[from:lim], e.literal)
			if i < 0 {
				return -1, -1, nil
			}
			at = from + i
		case e.literalFold != nil:
			i := indexFoldASCII(buf[from:lim], e.literalFold)
			if i < 0 {
				return -1, -1, nil
			}
			at = from + i
		case e.dfa != nil:
			ls, le, err := e.dfa.NextRecord(buf, from, lim)
			if err != nil {
				e.dfa = nil
				continue
			}
			return ls, le, nil
		case e.bufRE != nil:
			m := e.bufRE.FindIndex(buf[from:lim])
			if m == nil {
				return -1, -1, nil
			}
			at = from + m[0]
			if at == lim && buf[lim-1] == e.eol {
				return -1, -1, nil // the empty "line" after the last terminator
			}
		default:
			return e.nextMatchByLine(ctx, buf, from, lim)
		}
		ls := bytes.LastIndexByte(buf[from:at], e.eol) + 1 + from
		le := bytes.IndexByte(buf[at:lim], e.eol)
		if le < 0 {
			le = lim
		} else {
			le += at
		}
		if e.litExact || e.bufRE != nil && e.literal == nil && e.literalFold == nil {
			return ls, le, nil
		}
		ok, err := e.matchLine(ctx, buf[ls:le])
		if err != nil {
			return -1, -1, err
		}
		if ok {
			return ls, le, nil
		}
		from = le + 1
	}
	return -1, -1, nil
}

func (e *engine) nextMatchByLine(ctx context.Context, buf []byte, from, lim int) (int, int, error) {
	n := 0
	for from < lim {
		n++
		if n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return -1, -1, err
			}
		}
		le := bytes.IndexByte(buf[from:lim], e.eol)
		if le < 0 {
			le = lim
		} else {
			le += from
		}
		ok, err := e.matchLine(ctx, buf[from:le])
		if err != nil {
			return -1, -1, err
		}
		if ok {
			return from, le, nil
		}
		from = le + 1
	}
	return -1, -1, nil
}
