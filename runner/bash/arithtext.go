package bash

import (
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Arithmetic and subscripts are read from the script's text: the text
// between a node's ends with every expansion inside replaced by its value
// (bash expands $(( )) as a double-quoted string and then evaluates the
// result). The parser's tree only says where the expansions are.

// nodeText is the source text of a node, as written.
func (sh *Shell) nodeText(n syntax.Node) string {
	if sh.src == nil || n == nil {
		return ""
	}
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(sh.src.text) || start > end {
		return ""
	}
	return sh.src.text[start:end]
}

// expansionSpan is an expansion inside a text span.
type expansionSpan struct {
	start, end int
	part       syntax.WordPart
}

// expansionsIn lists the expansions inside n, in order, without
// descending into them.
func expansionsIn(n syntax.Node, quotes bool) []expansionSpan {
	var out []expansionSpan
	syntax.Walk(n, func(c syntax.Node) bool {
		switch p := c.(type) {
		case *syntax.ParamExp:
			if !p.Dollar.IsValid() {
				return true // a[i] in arithmetic: its subscript may hold some
			}
		case *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst, *syntax.DblQuoted:
		case *syntax.SglQuoted:
			if !quotes {
				return false
			}
		default:
			return true
		}
		wp := c.(syntax.WordPart)
		out = append(out, expansionSpan{int(c.Pos().Offset()), int(c.End().Offset()), wp})
		return false
	})
	sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out
}

// spanText returns text[start:end] of the current source with the
// expansions found in n replaced by their values; keys also drops
// single quotes (an associative array's subscript).
func (sh *Shell) spanText(start, end int, n syntax.Node, keys bool) (string, error) {
	text := ""
	if sh.src != nil && start >= 0 && end <= len(sh.src.text) && start <= end {
		text = sh.src.text[start:end]
	}
	var exps []expansionSpan
	if sh.src != nil {
		type cacheKey struct {
			n    syntax.Node
			keys bool
		}
		k := cacheKey{n, keys}
		if v, ok := sh.src.exps.Load(k); ok {
			exps = v.([]expansionSpan)
		} else {
			exps = expansionsIn(n, keys)
			sh.src.exps.Store(k, exps)
		}
	} else {
		exps = expansionsIn(n, keys)
	}
	if len(exps) == 0 {
		return sh.placeholder(text)
	}
	var b strings.Builder
	pos := start
	for _, e := range exps {
		if e.start < pos || e.end > end {
			continue
		}
		b.WriteString(sh.src.text[pos:e.start])
		x := expander{sh: sh, mode: modeString}
		if err := x.part(e.part, false); err != nil {
			return "", err
		}
		b.Write(x.cur.b)
		pos = e.end
	}
	b.WriteString(sh.src.text[pos:end])
	return sh.placeholder(b.String())
}

// placeholder returns the original text of arithmetic the parser could
// not read (see source.fixDoubleParen), expanded.
func (sh *Shell) placeholder(text string) (string, error) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, placeholderPrefix) || sh.src == nil || sh.src.arith == nil {
		return text, nil
	}
	orig, ok := sh.src.arith[t]
	if !ok {
		return text, nil
	}
	if !strings.ContainsAny(orig, "$`") {
		return strings.ReplaceAll(orig, `"`, ""), nil
	}
	w, err := newParser().Document(strings.NewReader(orig))
	if err != nil {
		return orig, nil
	}
	x := expander{sh: sh, mode: modeHeredoc}
	if err := x.word(w); err != nil {
		return "", err
	}
	return strings.ReplaceAll(string(x.cur.b), `"`, ""), nil
}

// expandRuntime expands the $ expansions and command substitutions of
// text built at run time (a subscript inside a variable's value, an
// indirect reference): bash expands those subscripts when it reads them.
func (sh *Shell) expandRuntime(text string) (string, error) {
	if !strings.ContainsAny(text, "$`'\"\\") {
		return text, nil
	}
	x := expander{sh: sh, mode: modeString}
	if err := x.rawText(text); err != nil {
		return "", err
	}
	return string(x.cur.b), nil
}

// exprText is the expanded text of an arithmetic node.
func (sh *Shell) exprText(n syntax.Node) (string, error) {
	if w, ok := n.(*syntax.Word); ok && len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok {
			return sh.placeholder(l.Value)
		}
	}
	return sh.spanText(int(n.Pos().Offset()), int(n.End().Offset()), n, false)
}

// keyText is the expanded text of an associative array's subscript.
func (sh *Shell) keyText(n syntax.Node) (string, error) {
	if w, ok := n.(*syntax.Word); ok {
		x := expander{sh: sh, mode: modeString}
		if err := x.word(w); err != nil {
			return "", err
		}
		return string(x.cur.b), nil
	}
	return sh.spanText(int(n.Pos().Offset()), int(n.End().Offset()), n, true)
}

// arithNode evaluates an arithmetic node; name ("((", "let" or "") goes
// in front of error messages.
func (sh *Shell) arithNode(n syntax.ArithmExpr, name string) (int, error) {
	return sh.arithSpan(n, -1, -1, name)
}

// arithSpan is arithNode over the text from start to end (the inside of
// $(( )) or (( )), blanks included, as bash shows it in messages); -1
// takes the node's own ends.
func (sh *Shell) arithSpan(n syntax.ArithmExpr, start, end int, name string) (int, error) {
	if n == nil {
		return 0, nil
	}
	var text string
	var err error
	if start < 0 || sh.src == nil || end > len(sh.src.text) || start > end {
		text, err = sh.exprText(n)
	} else {
		text, err = sh.spanText(start, end, n, false)
	}
	if err != nil {
		return 0, err
	}
	v, err := sh.evalArith(text)
	if err != nil {
		if ae, ok := err.(*arithError); ok && name != "" && ae.msg != "unbound variable" {
			c := *ae
			c.expr = name + ": " + c.expr
			return 0, &c
		}
		return 0, err
	}
	return v, nil
}

// arithFailed reports an arithmetic command's error: status 1, the
// script goes on (an unset variable under set -u ends it).
func (sh *Shell) arithFailed(err error, name string) {
	if ae, ok := err.(*arithError); ok {
		if ae.msg == "unbound variable" {
			sh.errorf("%s: unbound variable", ae.token)
			sh.fatalExit(127)
			return
		}
		sh.errorf("%s", ae.Error())
		sh.status = 1
		if ae.fatal {
			sh.fatalExit(1)
		}
		return
	}
	sh.expandFailed(err)
}
