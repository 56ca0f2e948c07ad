package gnuregex

import "unicode/utf8"

// Literal returns a pattern matching s literally (grep -F), with the
// case and record options of opts.
func Literal(s string, opts Options) *Pattern {
	var items []*node
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			r = rawByteBase + rune(s[i])
		}
		items = append(items, &node{op: opLit, r: r})
		i += n
	}
	root := &node{op: opConcat, subs: items}
	switch len(items) {
	case 0:
		root = &node{op: opEmpty}
	case 1:
		root = items[0]
	}
	return &Pattern{root: root, opts: opts}
}

// GoSyntaxParts is GoSyntax split into its leading flags ("(?i)(?m)") and
// the expression, so a caller can wrap the expression and keep the flags
// outermost.
func (p *Pattern) GoSyntaxParts(captures bool) (flags, expr string, ok bool) {
	e := emitter{opts: p.opts, captures: captures, ok: true}
	e.emit(p.root)
	if !e.ok {
		return "", "", false
	}
	if p.opts.Lines && p.opts.EOL != '\n' && walkAny(p.root, func(n *node) bool { return n.op == opBOL || n.op == opEOL }) {
		return "", "", false // Go's (?m) anchors only at newlines
	}
	if p.opts.IgnoreCase {
		flags += "(?i)"
	}
	if p.opts.Lines {
		flags += "(?m)"
	}
	return flags, e.b.String(), true
}
