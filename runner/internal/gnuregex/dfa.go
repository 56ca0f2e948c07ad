package gnuregex

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrDFATooBig is returned when a DFA would need more states than its
// cache holds; the caller falls back to another engine.
var ErrDFATooBig = errors.New("gnuregex: DFA state limit reached")

// RecordMode says what a DFA accepts, as grep's -w and -x do.
type RecordMode int

const (
	// Contains: the record holds a match.
	Contains RecordMode = iota
	// WholeWord: the record holds a match with no word character right
	// before or after it (grep -w, for patterns that cannot match empty).
	WholeWord
	// WholeRecord: the whole record is a match (grep -x).
	WholeRecord
)

const (
	maxNFAInsts  = 20000
	maxDFAStates = 4000
	// maxDFAPCs bounds the memory of the state cache (instructions kept
	// over all states).
	maxDFAPCs = 1 << 21
)

type instKind uint8

const (
	iRune instKind = iota
	iSplit
	iMatch
	iBOL
	iEOL
)

// inst is one NFA instruction; iRune tests a rune set, iSplit goes to
// out and out1.
type inst struct {
	kind  instKind
	out   int
	out1  int
	ascii [2]uint64         // iRune: which runes below 128 match
	other func(r rune) bool // iRune: the rest (nil: none)
}

type dfaState struct {
	pcs        []int // iRune, iMatch and iEOL instructions
	matched    bool  // holds iMatch: the record matches already
	matchAtEOL bool  // matches if the record ends here
	next       [128]int32
	nextOther  map[rune]int32
}

// DFA decides, one record at a time, whether a pattern matches, by a
// lazily built deterministic automaton over runes with an ASCII fast
// path. It handles patterns without back-references or word boundaries.
// It is not safe for concurrent use.
type DFA struct {
	prog     []inst
	start    int
	eol      byte
	states   []*dfaState
	index    map[string]int32
	initial  int32 // state at a record start
	totalPCs int   // instructions held by all states
	// emptyMatch: an empty record matches (BOL and EOL both hold).
	emptyMatch bool
}

// NewDFA builds a DFA for p in the given mode, or ok false when p uses
// what a DFA cannot decide (back-references, \b \B \< \>) or is too big.
func (p *Pattern) NewDFA(mode RecordMode) (*DFA, bool) {
	if walkAny(p.root, func(n *node) bool {
		switch n.op {
		case opBackref, opWordB, opNotWordB, opWordStart, opWordEnd:
			return true
		}
		return false
	}) {
		return nil, false
	}
	root := p.root
	switch mode {
	case WholeRecord:
		root = &node{op: opConcat, subs: []*node{{op: opBOL}, root, {op: opEOL}}}
	case WholeWord:
		nonWord := &node{op: opClass, cls: &charClass{negated: true, named: []string{"alnum"}, ranges: []rune{'_', '_'}}}
		root = &node{op: opConcat, subs: []*node{
			{op: opAlt, subs: []*node{{op: opBOL}, nonWord}},
			root,
			{op: opAlt, subs: []*node{nonWord, {op: opEOL}}},
		}}
	}
	c := &nfaCompiler{opts: p.opts}
	match := c.emit(inst{kind: iMatch})
	start, ok := c.compile(root, match)
	if !ok || len(c.prog) > maxNFAInsts {
		return nil, false
	}
	d := &DFA{prog: c.prog, start: start, eol: p.opts.eol(), index: map[string]int32{}}
	initial, err := d.stateFor(d.closure([]int{start}, true))
	if err != nil {
		return nil, false
	}
	d.initial = initial
	d.emptyMatch = d.eolClosureMatches(d.closure([]int{start}, true), true)
	return d, true
}

type nfaCompiler struct {
	opts Options
	prog []inst
}

func (c *nfaCompiler) emit(in inst) int {
	c.prog = append(c.prog, in)
	return len(c.prog) - 1
}

// compile emits n so that it continues at next, and returns its entry.
func (c *nfaCompiler) compile(n *node, next int) (int, bool) {
	if len(c.prog) > maxNFAInsts {
		return 0, false
	}
	switch n.op {
	case opEmpty:
		return next, true
	case opLit, opAny, opClass:
		in := inst{kind: iRune, out: next}
		c.runeSet(n, &in)
		return c.emit(in), true
	case opBOL, opBufStart:
		return c.emit(inst{kind: iBOL, out: next}), true
	case opEOL, opBufEnd:
		return c.emit(inst{kind: iEOL, out: next}), true
	case opGroup:
		return c.compile(n.subs[0], next)
	case opConcat:
		for i := len(n.subs) - 1; i >= 0; i-- {
			var ok bool
			if next, ok = c.compile(n.subs[i], next); !ok {
				return 0, false
			}
		}
		return next, true
	case opAlt:
		entry := -1
		for i := len(n.subs) - 1; i >= 0; i-- {
			e, ok := c.compile(n.subs[i], next)
			if !ok {
				return 0, false
			}
			if entry < 0 {
				entry = e
			} else {
				entry = c.emit(inst{kind: iSplit, out: e, out1: entry})
			}
		}
		return entry, true
	case opRepeat:
		sub := n.subs[0]
		if n.max < 0 {
			// x* : loop ← split(x → loop, next); then min copies before it.
			loop := c.emit(inst{kind: iSplit})
			body, ok := c.compile(sub, loop)
			if !ok {
				return 0, false
			}
			c.prog[loop].out, c.prog[loop].out1 = body, next
			entry := loop
			for i := 0; i < n.min; i++ {
				if entry, ok = c.compile(sub, entry); !ok {
					return 0, false
				}
			}
			return entry, true
		}
		entry := next
		for i := n.max; i > n.min; i-- {
			body, ok := c.compile(sub, entry)
			if !ok {
				return 0, false
			}
			entry = c.emit(inst{kind: iSplit, out: body, out1: next})
		}
		for i := 0; i < n.min; i++ {
			var ok bool
			if entry, ok = c.compile(sub, entry); !ok {
				return 0, false
			}
		}
		return entry, true
	}
	return 0, false
}

// runeSet fills in which runes an opLit, opAny or opClass accepts, with
// case folding; never the record terminator, which the DFA never reads.
func (c *nfaCompiler) runeSet(n *node, in *inst) {
	eol := rune(c.opts.eol())
	fold := c.opts.IgnoreCase
	var accepts func(r rune) bool
	switch n.op {
	case opLit:
		want := n.r
		accepts = func(r rune) bool { return r == want || fold && foldEqual(r, want) }
	case opAny:
		accepts = func(r rune) bool { return anyMatches(n, r, c.opts) }
	default:
		cls := n.cls
		accepts = func(r rune) bool { return classMatches(cls, r, c.opts) }
	}
	for r := rune(0); r < 128; r++ {
		if r != eol && accepts(r) {
			in.ascii[r>>6] |= 1 << (r & 63)
		}
	}
	in.other = accepts
}

func (in *inst) matches(r rune) bool {
	if r < 128 {
		return in.ascii[r>>6]&(1<<(r&63)) != 0
	}
	return in.other != nil && in.other(r)
}

// closure follows splits and anchors from pcs; BOL holds only at a
// record start. It keeps iRune, iMatch and iEOL instructions.
func (d *DFA) closure(pcs []int, atBOL bool) []int {
	seen := make(map[int]bool, len(pcs)*2)
	var out []int
	var visit func(pc int)
	visit = func(pc int) {
		if seen[pc] {
			return
		}
		seen[pc] = true
		in := &d.prog[pc]
		switch in.kind {
		case iSplit:
			visit(in.out)
			visit(in.out1)
		case iBOL:
			if atBOL {
				visit(in.out)
			}
		default:
			out = append(out, pc)
		}
	}
	for _, pc := range pcs {
		visit(pc)
	}
	slices.Sort(out)
	return out
}

// eolClosureMatches reports whether the record ending here matches: an
// iMatch is reached from pcs when EOL holds.
func (d *DFA) eolClosureMatches(pcs []int, atBOL bool) bool {
	seen := map[int]bool{}
	stack := append([]int(nil), pcs...)
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[pc] {
			continue
		}
		seen[pc] = true
		in := &d.prog[pc]
		switch in.kind {
		case iMatch:
			return true
		case iEOL:
			stack = append(stack, in.out)
		case iSplit:
			stack = append(stack, in.out, in.out1)
		case iBOL:
			if atBOL {
				stack = append(stack, in.out)
			}
		}
	}
	return false
}

func (d *DFA) stateFor(pcs []int) (int32, error) {
	var key strings.Builder
	for _, pc := range pcs {
		key.WriteString(strconv.Itoa(pc))
		key.WriteByte(',')
	}
	if i, ok := d.index[key.String()]; ok {
		return i, nil
	}
	if len(d.states) >= maxDFAStates || d.totalPCs+len(pcs) > maxDFAPCs {
		return 0, ErrDFATooBig
	}
	d.totalPCs += len(pcs)
	st := &dfaState{pcs: pcs}
	for _, pc := range pcs {
		if d.prog[pc].kind == iMatch {
			st.matched = true
		}
	}
	st.matchAtEOL = st.matched || d.eolClosureMatches(pcs, false)
	for i := range st.next {
		st.next[i] = -1
	}
	d.states = append(d.states, st)
	i := int32(len(d.states) - 1)
	d.index[key.String()] = i
	return i, nil
}

// step computes the state after reading r, searching anywhere in the
// record (the start instruction is added at every position).
func (d *DFA) step(s int32, r rune) (int32, error) {
	st := d.states[s]
	var next []int
	for _, pc := range st.pcs {
		in := &d.prog[pc]
		if in.kind == iRune && in.matches(r) {
			next = append(next, in.out)
		}
	}
	next = append(next, d.start)
	ns, err := d.stateFor(d.closure(next, false))
	if err != nil {
		return 0, err
	}
	if r < 128 {
		st.next[r] = ns
	} else {
		if st.nextOther == nil {
			st.nextOther = map[rune]int32{}
		}
		st.nextOther[r] = ns
	}
	return ns, nil
}

// MatchRecord reports whether one record (without its terminator)
// matches.
func (d *DFA) MatchRecord(rec []byte) (bool, error) {
	end, ok, err := d.scanRecord(rec, 0, len(rec))
	return ok && err == nil && end >= 0, err
}

// scanRecord runs the record starting at i (ending at the next
// terminator or lim). It returns where the record ends and whether it
// matches; as soon as a match is certain it stops reading.
func (d *DFA) scanRecord(buf []byte, i, lim int) (int, bool, error) {
	ls := i
	s := d.initial
	st := d.states[s]
	for !st.matched && i < lim {
		b := buf[i]
		if b == d.eol {
			break
		}
		var ns int32
		if b < utf8.RuneSelf {
			ns = st.next[b]
			i++
			if ns < 0 {
				var err error
				if ns, err = d.step(s, rune(b)); err != nil {
					return -1, false, err
				}
			}
		} else {
			r, size := utf8.DecodeRune(buf[i:lim])
			if r == utf8.RuneError && size == 1 {
				r = rawByteBase + rune(b)
			}
			i += size
			var ok bool
			if ns, ok = st.nextOther[r]; !ok {
				var err error
				if ns, err = d.step(s, r); err != nil {
					return -1, false, err
				}
			}
		}
		s = ns
		st = d.states[s]
	}
	if st.matched {
		le := bytes.IndexByte(buf[i:lim], d.eol)
		if le < 0 {
			return lim, true, nil
		}
		return i + le, true, nil
	}
	if i == ls {
		return i, d.emptyMatch, nil
	}
	return i, st.matchAtEOL, nil
}

// NextRecord returns the bounds [ls, le) of the first matching record
// in buf[from:lim] (le is the terminator's index or lim), or ls -1. The
// span must hold whole records; the last may lack its terminator.
func (d *DFA) NextRecord(buf []byte, from, lim int) (int, int, error) {
	for i := from; i < lim; {
		le, ok, err := d.scanRecord(buf, i, lim)
		if err != nil {
			return -1, -1, err
		}
		if ok {
			return i, le, nil
		}
		i = le + 1
	}
	return -1, -1, nil
}
