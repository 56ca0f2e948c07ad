package bash

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/wsfs/wsfs/runner/internal/shpattern"
)

// paramValue is what a parameter reference yields before its operator:
// a string, or a list (an array or the positional parameters) with how
// it was asked for.
type paramValue struct {
	str   string
	set   bool
	list  []string
	isArr bool // a list: ${a[@]}, ${a[*]}, $@, $*
	star  bool // [*] or $*: joined by IFS's first character when quoted
	name  string
	// elem: a single array element or scalar was referenced (for @a).
	v *variable
}

// param expands a parameter expansion into the current field(s).
func (x *expander) param(p *syntax.ParamExp) error {
	sh := x.sh
	if p.Excl && p.Names != 0 {
		return x.emitList(sh.namesWithPrefix(p.Param.Value), p.Names == syntax.NamesPrefixWords)
	}
	name := p.Param.Value
	var idx syntax.ArithmExpr = p.Index
	plain := p.Slice == nil && p.Repl == nil && p.Exp == nil && !p.Length
	if p.Excl && idx != nil && isAtStar(idx) && plain {
		// ${!a[@]}: the keys
		keys := sh.keysOf(sh.resolve(name).name)
		if len(keys) == 0 && sh.opts.nounset && sh.lookup(sh.resolve(name).name) == nil {
			return &expandError{msg: name + ": unbound variable", fatal: true, status: 127}
		}
		return x.emitList(keys, litOf(idx) == "@")
	}
	if p.Excl {
		// Indirection: the value names the parameter to expand; a nameref
		// gives the name it refers to.
		if v := sh.vars.m[name]; v != nil && v.attrs&aNameref != 0 && !v.hidden && idx == nil && p.Exp == nil && p.Repl == nil && p.Slice == nil && !p.Length {
			x.addExpansion(v.str)
			return nil
		}
		target, ok := sh.specialOrVar(name, idx)
		if !ok || target.isArr {
			if !ok {
				return &expandError{msg: name + ": invalid indirect expansion"}
			}
			if len(target.list) == 0 {
				return &expandError{msg: name + ": invalid indirect expansion"}
			}
			target.str = strings.Join(target.list, " ")
		}
		ref := target.str
		n, sub, hasSub := ref, "", false
		if b, s, ok := splitSubscript(ref); ok {
			n, sub, hasSub = b, s, true
			if s != "@" && s != "*" {
				es, err := sh.expandRuntime(s)
				if err != nil {
					return err
				}
				sub = es
			}
		}
		if !isValidName(n) && !isSpecialParam(n) {
			return &expandError{msg: ref + ": invalid variable name"}
		}
		var pv paramValue
		if hasSub && (sub == "@" || sub == "*") {
			pv = x.arrayRef(n, sub == "*")
		} else {
			var err error
			pv, err = x.paramRef(n, sub, hasSub)
			if err != nil {
				return err
			}
		}
		return x.applyOps(p, pv)
	}
	var pv paramValue
	var err error
	if idx != nil {
		if isAtStar(idx) {
			pv = x.arrayRef(name, litOf(idx) == "*")
		} else {
			sub, err := sh.subscript(name, idx)
			if err != nil {
				return err
			}
			pv, err = x.paramRef(name, sub, true)
			if err != nil {
				return err
			}
		}
	} else {
		pv, err = x.paramRef(name, "", false)
		if err != nil {
			return err
		}
	}
	return x.applyOps(p, pv)
}

// isAtStar reports whether a subscript is [@] or [*].
func isAtStar(idx syntax.ArithmExpr) bool {
	l := litOf(idx)
	return l == "@" || l == "*"
}

func litOf(e syntax.ArithmExpr) string {
	if w, ok := e.(*syntax.Word); ok {
		return w.Lit()
	}
	return ""
}

func isSpecialParam(n string) bool {
	switch n {
	case "@", "*", "#", "?", "-", "$", "!", "_":
		return true
	}
	_, err := strconv.Atoi(n)
	return err == nil
}

// specialOrVar returns the value of name (special or not) for
// indirection.
func (sh *Shell) specialOrVar(name string, idx syntax.ArithmExpr) (paramValue, bool) {
	x := &expander{sh: sh}
	if idx != nil {
		if isAtStar(idx) {
			pv := x.arrayRef(name, litOf(idx) == "*")
			return pv, pv.set
		}
		sub, err := sh.subscript(name, idx)
		if err != nil {
			return paramValue{}, false
		}
		pv, err := x.paramRef(name, sub, true)
		return pv, err == nil && pv.set
	}
	pv, err := x.paramRef(name, "", false)
	return pv, err == nil && pv.set
}

// arrayRef is ${a[@]} or ${a[*]} (and $@, $* through paramRef).
func (x *expander) arrayRef(name string, star bool) paramValue {
	sh := x.sh
	r := sh.resolve(name)
	v := sh.lookup(r.name)
	pv := paramValue{isArr: true, star: star, name: r.name, v: v}
	if r.has {
		s, ok := sh.element(r.name, r.sub)
		if ok {
			pv.list = []string{s}
		}
		pv.set = ok
		return pv
	}
	pv.list = sh.values(r.name)
	pv.set = v != nil && (len(pv.list) > 0 || v.set)
	return pv
}

// subscript returns the text of a subscript for name: the key of an
// associative array, else the (expanded) arithmetic text.
func (sh *Shell) subscript(name string, idx syntax.ArithmExpr) (string, error) {
	r := sh.resolve(name)
	if v := sh.lookup(r.name); v != nil && v.attrs&aAssoc != 0 {
		return sh.keyText(idx)
	}
	return sh.exprText(idx)
}

// paramRef looks up a parameter: special, positional, a variable or an
// element.
func (x *expander) paramRef(name, sub string, hasSub bool) (paramValue, error) {
	sh := x.sh
	pv := paramValue{name: name}
	switch name {
	case "@", "*":
		pv.isArr, pv.star, pv.set = true, name == "*", true
		pv.list = sh.params
		return pv, nil
	case "#":
		pv.str, pv.set = strconv.Itoa(len(sh.params)), true
		return pv, nil
	case "?":
		pv.str, pv.set = strconv.Itoa(sh.status), true
		return pv, nil
	case "-":
		pv.str, pv.set = sh.flagString(), true
		return pv, nil
	case "$":
		pv.str, pv.set = strconv.Itoa(sh.run.rootPid()), true
		return pv, nil
	case "!":
		if sh.lastBg != 0 {
			pv.str, pv.set = strconv.Itoa(sh.lastBg), true
		}
		return pv, nil
	case "_":
		pv.str, pv.set = sh.lastArg, true
		return pv, nil
	}
	if c := name[0]; c >= '0' && c <= '9' {
		n, err := strconv.Atoi(name)
		if err != nil {
			return pv, &expandError{msg: name + ": bad substitution"}
		}
		if n == 0 {
			pv.str, pv.set = sh.arg0, true
		} else if n <= len(sh.params) {
			pv.str, pv.set = sh.params[n-1], true
		}
		return pv, nil
	}
	if hasSub {
		r := sh.resolve(name)
		pv.name = r.name
		pv.v = sh.lookup(r.name)
		s, ok := sh.element(r.name, sub)
		if sh.pendingErr != nil {
			err := sh.pendingErr
			sh.pendingErr = nil
			return pv, err
		}
		pv.str, pv.set = s, ok
		return pv, nil
	}
	r := sh.resolve(name)
	pv.name = r.name
	if r.has {
		pv.v = sh.lookup(r.name)
		pv.str, pv.set = sh.element(r.name, r.sub)
		return pv, nil
	}
	pv.v = sh.lookup(r.name)
	pv.str, pv.set = sh.scalar(r.name)
	return pv, nil
}

// namesWithPrefix lists the variables whose names start with prefix.
func (sh *Shell) namesWithPrefix(prefix string) []string {
	var out []string
	for _, n := range sh.varNames() {
		if strings.HasPrefix(n, prefix) {
			if v := sh.lookup(n); v != nil && (v.set || v.isArray()) {
				out = append(out, n)
			}
		}
	}
	return out
}

// applyOps applies a parameter expansion's operator to its value and
// emits the result.
func (x *expander) applyOps(p *syntax.ParamExp, pv paramValue) error {
	sh := x.sh
	if p.Length {
		if pv.isArr {
			if !pv.set && sh.opts.nounset && pv.name != "@" && pv.name != "*" {
				return &expandError{msg: pv.name + ": unbound variable", fatal: true, status: 127}
			}
			x.addExpansion(strconv.Itoa(len(pv.list)))
			return nil
		}
		if !pv.set && sh.opts.nounset {
			return &expandError{msg: displayName(p) + ": unbound variable", fatal: true, status: 127}
		}
		x.addExpansion(strconv.Itoa(utf8Len(pv.str)))
		return nil
	}
	if p.Exp != nil {
		switch p.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull,
			syntax.ErrorUnset, syntax.ErrorUnsetOrNull, syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
			return x.testOp(p, pv)
		}
	}
	if !pv.set && sh.opts.nounset && !pv.isArr {
		// ${a[@]} of an unset array is empty even under set -u.
		return &expandError{msg: displayName(p) + ": unbound variable", fatal: true, status: 127}
	}
	switch {
	case p.Slice != nil:
		return x.slice(p, pv)
	case p.Repl != nil:
		return x.replace(p, pv)
	case p.Exp != nil:
		return x.transform(p, pv)
	}
	return x.emit(pv)
}

// displayName is the parameter as bash names it in messages.
func displayName(p *syntax.ParamExp) string {
	if p.Index != nil {
		return p.Param.Value + "[" + indexLit(p.Index) + "]"
	}
	return p.Param.Value
}

func indexLit(e syntax.ArithmExpr) string {
	if w, ok := e.(*syntax.Word); ok {
		var b strings.Builder
		syntax.NewPrinter().Print(&b, w)
		return b.String()
	}
	var b strings.Builder
	syntax.NewPrinter().Print(&b, e)
	return b.String()
}

// emit adds a value: a string, or a list as separate words ("$@", a
// quoted [@]) or joined ([*], $*).
func (x *expander) emit(pv paramValue) error {
	if !pv.isArr {
		x.addExpansion(pv.str)
		return nil
	}
	return x.emitList(pv.list, !pv.star)
}

// emitList adds a list: with at (as "$@") each element is its own word
// inside double quotes; otherwise the elements are joined by IFS's first
// character when quoted, and every element is a word of its own (split
// further) when unquoted among a command's words.
func (x *expander) emitList(list []string, at bool) error {
	if x.mode == modeFields && !x.inDquote {
		for i, s := range list {
			if i > 0 {
				x.endWord()
			}
			x.cur.add(s, mExpand)
		}
		return nil
	}
	if x.mode == modeFields && x.inDquote && at {
		if len(list) == 0 {
			x.vanish = true
			return nil
		}
		for i, s := range list {
			if i > 0 {
				x.endWord()
				x.cur.quoted = true
			}
			x.cur.add(s, mQuoted)
		}
		return nil
	}
	sep := " "
	if !at {
		sep = ifsFirst(x.sh.ifs())
	}
	joined := strings.Join(list, sep)
	if x.inDquote {
		x.cur.add(joined, mQuoted)
	} else {
		x.addExpansion(joined)
	}
	return nil
}

func ifsFirst(ifs string) string {
	if ifs == "" {
		return ""
	}
	_, w := utf8.DecodeRuneInString(ifs)
	return ifs[:w]
}

// testOp handles ${x-w} ${x:-w} ${x=w} ${x:=w} ${x?w} ${x:?w} ${x+w}
// ${x:+w}.
func (x *expander) testOp(p *syntax.ParamExp, pv paramValue) error {
	sh := x.sh
	op := p.Exp.Op
	colon := op == syntax.DefaultUnsetOrNull || op == syntax.AssignUnsetOrNull || op == syntax.ErrorUnsetOrNull || op == syntax.AlternateUnsetOrNull
	isNull := !pv.set
	if colon && pv.set {
		if pv.isArr {
			isNull = len(pv.list) == 0 || (len(pv.list) == 1 && pv.list[0] == "")
			if pv.star && x.inDquote {
				isNull = strings.Join(pv.list, ifsFirst(sh.ifs())) == ""
			}
		} else {
			isNull = pv.str == ""
		}
	}
	if pv.isArr && !colon {
		isNull = len(pv.list) == 0
	}
	word := func() error {
		return x.wordInParam(p.Exp.Word)
	}
	switch op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull:
		if isNull {
			return word()
		}
		return x.emit(pv)
	case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
		if isNull {
			if pv.isArr && x.inDquote && !pv.star && x.mode == modeFields {
				x.vanish = true
			}
			return nil
		}
		return word()
	case syntax.AssignUnset, syntax.AssignUnsetOrNull:
		if !isNull {
			return x.emit(pv)
		}
		val, err := sh.expandParamWord(p.Exp.Word)
		if err != nil {
			return err
		}
		if pv.isArr && (pv.name == "@" || pv.name == "*") || isSpecialParam(p.Param.Value) {
			return &expandError{msg: "$" + p.Param.Value + ": cannot assign in this way"}
		}
		if p.Index != nil && !isAtStar(p.Index) {
			sub, err := sh.subscript(pv.name, p.Index)
			if err != nil {
				return err
			}
			if err := sh.setElement(pv.name, sub, val, false); err != nil {
				return &expandError{msg: err.Error()}
			}
		} else if err := sh.setVar(pv.name, val); err != nil {
			return &expandError{msg: err.Error()}
		}
		v, _ := sh.getVar(pv.name)
		if p.Index != nil && !isAtStar(p.Index) {
			v = val
		}
		x.addExpansion(v)
		return nil
	case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		if !isNull {
			return x.emit(pv)
		}
		msg := "parameter null or not set"
		if !colon {
			msg = "parameter not set"
		}
		if p.Exp.Word != nil && len(p.Exp.Word.Parts) > 0 {
			m, err := sh.expandParamWord(p.Exp.Word)
			if err != nil {
				return err
			}
			msg = m
		}
		return &expandError{msg: displayName(p) + ": " + msg, fatal: true, status: 127}
	}
	return nil
}

// wordInParam expands the word of ${x:-word} into the current fields:
// quoted as the expansion around it, split when unquoted.
func (x *expander) wordInParam(w *syntax.Word) error {
	if w == nil {
		return nil
	}
	for i, part := range w.Parts {
		if l, ok := part.(*syntax.Lit); ok && !x.inDquote {
			// Unquoted literal text in the word is subject to splitting,
			// as the expansion's result would be.
			s := l.Value
			if i == 0 && strings.HasPrefix(s, "~") {
				s = x.tilde(s, false)
			}
			for j := 0; j < len(s); j++ {
				c := s[j]
				if c == '\\' && j+1 < len(s) {
					j++
					x.cur.addByte(s[j], mQuoted)
					continue
				}
				if x.mode == modeFields {
					x.cur.addByte(c, mExpand)
				} else {
					x.cur.addByte(c, mLiteral)
				}
			}
			continue
		}
		if err := x.part(part, i == 0); err != nil {
			return err
		}
	}
	return nil
}

// expandParamWord expands the word of an operator to a string.
func (sh *Shell) expandParamWord(w *syntax.Word) (string, error) {
	if w == nil {
		return "", nil
	}
	x := expander{sh: sh, mode: modeString}
	if err := x.word(w); err != nil {
		return "", err
	}
	return string(x.cur.b), nil
}

// patternWord expands the pattern word of # % / and ^ operators.
func (sh *Shell) patternWord(w *syntax.Word, inDquote bool) (string, error) {
	if w == nil {
		return "", nil
	}
	x := expander{sh: sh, mode: modePattern}
	if err := x.word(w); err != nil {
		return "", err
	}
	return patternText(x.cur), nil
}

// mapList applies fn to the value, or to every element of a list.
func (x *expander) mapValue(pv paramValue, fn func(string) string) error {
	if !pv.isArr {
		if !pv.set {
			x.addExpansion("")
			return nil
		}
		x.addExpansion(fn(pv.str))
		return nil
	}
	out := make([]string, len(pv.list))
	for i, s := range pv.list {
		out[i] = fn(s)
	}
	pv.list = out
	return x.emit(pv)
}

// transform applies # ## % %% ^ ^^ , ,, ~ ~~ and @.
func (x *expander) transform(p *syntax.ParamExp, pv paramValue) error {
	sh := x.sh
	op := p.Exp.Op
	switch op {
	case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix:
		pat, err := sh.patternWord(p.Exp.Word, x.inDquote)
		if err != nil {
			return err
		}
		flags := sh.patternFlags()
		return x.mapValue(pv, func(s string) string {
			switch op {
			case syntax.RemSmallPrefix:
				return removePrefix(s, pat, flags, false)
			case syntax.RemLargePrefix:
				return removePrefix(s, pat, flags, true)
			case syntax.RemSmallSuffix:
				return removeSuffix(s, pat, flags, false)
			}
			return removeSuffix(s, pat, flags, true)
		})
	case syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll:
		pat := "?"
		if p.Exp.Word != nil && len(p.Exp.Word.Parts) > 0 {
			var err error
			pat, err = sh.patternWord(p.Exp.Word, x.inDquote)
			if err != nil {
				return err
			}
		}
		all := op == syntax.UpperAll || op == syntax.LowerAll
		upper := op == syntax.UpperFirst || op == syntax.UpperAll
		cp := shpattern.Cached(pat, shpattern.Extended)
		return x.mapValue(pv, func(s string) string {
			return caseMap(s, cp, all, func(r rune) rune {
				if upper {
					return unicode.ToUpper(r)
				}
				return unicode.ToLower(r)
			})
		})
	case syntax.OtherParamOps:
		opText := ""
		if p.Exp.Word != nil {
			opText = p.Exp.Word.Lit()
		}
		return x.atOp(p, pv, opText)
	}
	// ${x~} and ${x~~}: mvdan/sh reads them as other operators.
	return &expandError{msg: "${" + displayName(p) + "}: bad substitution"}
}

// caseMap changes the case of the characters matching pat: the first
// character only, or all.
func caseMap(s string, pat *shpattern.Pattern, all bool, fn func(rune) rune) string {
	var b strings.Builder
	for i, r := range s {
		if (all || i == 0) && pat.Match(string(r)) {
			b.WriteRune(fn(r))
		} else {
			b.WriteRune(r)
		}
		if !all && i == 0 {
			b.WriteString(s[utf8.RuneLen(r):])
			return b.String()
		}
	}
	return b.String()
}

func (sh *Shell) patternFlags() shpattern.Flags {
	f := shpattern.Extended
	if sh.shopts.nocasematch {
		f |= shpattern.NoCase
	}
	return f
}

// removePrefix removes the shortest or longest prefix matching pat.
func removePrefix(s, pat string, flags shpattern.Flags, longest bool) string {
	p := shpattern.Cached(pat, flags)
	if p.IsLiteral() {
		if lit := p.Literal(); strings.HasPrefix(s, lit) {
			return s[len(lit):]
		}
		return s
	}
	if longest {
		for i := len(s); i >= 0; i-- {
			if boundary(s, i) && p.Match(s[:i]) {
				return s[i:]
			}
		}
		return s
	}
	for i := 0; i <= len(s); i++ {
		if boundary(s, i) && p.Match(s[:i]) {
			return s[i:]
		}
	}
	return s
}

// removeSuffix removes the shortest or longest suffix matching pat.
func removeSuffix(s, pat string, flags shpattern.Flags, longest bool) string {
	p := shpattern.Cached(pat, flags)
	if p.IsLiteral() {
		if lit := p.Literal(); strings.HasSuffix(s, lit) {
			return s[:len(s)-len(lit)]
		}
		return s
	}
	if longest {
		for i := 0; i <= len(s); i++ {
			if boundary(s, i) && p.Match(s[i:]) {
				return s[:i]
			}
		}
		return s
	}
	for i := len(s); i >= 0; i-- {
		if boundary(s, i) && p.Match(s[i:]) {
			return s[:i]
		}
	}
	return s
}

// boundary reports whether i is a character boundary of s.
func boundary(s string, i int) bool {
	return i == 0 || i == len(s) || utf8.RuneStart(s[i]) || !utf8.ValidString(s)
}

// replace applies ${x/p/r}, ${x//p/r}, ${x/#p/r}, ${x/%p/r}.
func (x *expander) replace(p *syntax.ParamExp, pv paramValue) error {
	sh := x.sh
	orig := p.Repl.Orig
	anchor := byte(0)
	if orig != nil && len(orig.Parts) > 0 {
		if l, ok := orig.Parts[0].(*syntax.Lit); ok && len(l.Value) > 0 && (l.Value[0] == '#' || l.Value[0] == '%') {
			anchor = l.Value[0]
			rest := *l
			rest.Value = l.Value[1:]
			w := &syntax.Word{Parts: append([]syntax.WordPart{&rest}, orig.Parts[1:]...)}
			orig = w
		}
	}
	pat, err := sh.patternWord(orig, x.inDquote)
	if err != nil {
		return err
	}
	with := ""
	withQuoted := false
	if p.Repl.With != nil {
		wx := expander{sh: sh, mode: modePattern, inDquote: false}
		if err := wx.word(p.Repl.With); err != nil {
			return err
		}
		with = string(wx.cur.b)
		withQuoted = true
		_ = withQuoted
		if sh.shopts.patsubReplacement && strings.Contains(patternText(wx.cur), "&") {
			with = patternText(wx.cur)
		} else {
			with = string(wx.cur.b)
			withQuoted = false
		}
	}
	flags := sh.patternFlags()
	cp := shpattern.Cached(pat, flags)
	return x.mapValue(pv, func(s string) string {
		return patSubst(s, cp, pat, with, withQuoted && sh.shopts.patsubReplacement, anchor, p.Repl.All)
	})
}

// patSubst replaces matches of pat in s.
func patSubst(s string, cp *shpattern.Pattern, pat, with string, amp bool, anchor byte, all bool) string {
	repl := func(m string) string {
		if !amp {
			return with
		}
		var b strings.Builder
		for i := 0; i < len(with); i++ {
			switch {
			case with[i] == '\\' && i+1 < len(with):
				i++
				b.WriteByte(with[i])
			case with[i] == '&':
				b.WriteString(m)
			default:
				b.WriteByte(with[i])
			}
		}
		return b.String()
	}
	switch anchor {
	case '#':
		for i := len(s); i >= 0; i-- {
			if boundary(s, i) && cp.Match(s[:i]) {
				return repl(s[:i]) + s[i:]
			}
		}
		return s
	case '%':
		for i := 0; i <= len(s); i++ {
			if boundary(s, i) && cp.Match(s[i:]) {
				return s[:i] + repl(s[i:])
			}
		}
		return s
	}
	if pat == "" {
		return s
	}
	var b strings.Builder
	i := 0
	for i <= len(s) {
		found := -1
		if cp.IsLiteral() {
			lit := cp.Literal()
			if lit == "" {
				break
			}
			if j := strings.Index(s[i:], lit); j >= 0 {
				b.WriteString(s[i : i+j])
				b.WriteString(repl(lit))
				i += j + len(lit)
				if !all {
					b.WriteString(s[i:])
					return b.String()
				}
				continue
			}
			break
		}
		for j := len(s); j > i; j-- {
			if boundary(s, j) && cp.Match(s[i:j]) {
				found = j
				break
			}
		}
		if found < 0 {
			if i >= len(s) {
				break
			}
			_, w := utf8.DecodeRuneInString(s[i:])
			b.WriteString(s[i : i+w])
			i += w
			continue
		}
		b.WriteString(repl(s[i:found]))
		i = found
		if !all {
			b.WriteString(s[i:])
			return b.String()
		}
	}
	if i < len(s) {
		b.WriteString(s[i:])
	}
	return b.String()
}

// slice applies ${x:offset:length} to a string (characters) or a list
// (elements; $@ counts $0 as element 0).
func (x *expander) slice(p *syntax.ParamExp, pv paramValue) error {
	sh := x.sh
	off, err := sh.arithOf(p.Slice.Offset)
	if err != nil {
		return x.sliceErr(p, err)
	}
	hasLen := p.Slice.Length != nil
	length := 0
	if hasLen {
		length, err = sh.arithOf(p.Slice.Length)
		if err != nil {
			return x.sliceErr(p, err)
		}
	}
	if pv.isArr {
		list := pv.list
		if pv.name == "@" || pv.name == "*" {
			list = append([]string{sh.arg0}, sh.params...)
			if off == 0 && !pv.set {
				list = nil
			}
		} else if pv.v != nil && pv.v.attrs&aIndexed != 0 && pv.v.arr != nil && pv.name != "@" {
			// Offsets of a sparse array are indices, not positions.
			arr := pv.v.arr
			start := off
			if start < 0 {
				start += arr.next()
				if start < 0 {
					x.emitEmptyList(pv)
					return nil
				}
			}
			var out []string
			for i, k := range arr.keys {
				if k >= start {
					out = arr.vals[i:]
					break
				}
			}
			if hasLen {
				if length < 0 {
					return &expandError{msg: strings.TrimSpace(sh.nodeText(p.Slice.Length)) + ": substring expression < 0"}
				}
				if length < len(out) {
					out = out[:length]
				}
			}
			pv.list = out
			return x.emit(pv)
		}
		if off < 0 {
			off += len(list)
			if off < 0 {
				x.emitEmptyList(pv)
				return nil
			}
		}
		if off > len(list) {
			off = len(list)
		}
		out := list[off:]
		if hasLen {
			if length < 0 {
				return &expandError{msg: strings.TrimSpace(sh.nodeText(p.Slice.Length)) + ": substring expression < 0"}
			}
			if length < len(out) {
				out = out[:length]
			}
		}
		pv.list = out
		return x.emit(pv)
	}
	if !pv.set {
		x.addExpansion("")
		return nil
	}
	runes := []rune(pv.str)
	if !utf8.ValidString(pv.str) {
		runes = make([]rune, len(pv.str))
		for i := 0; i < len(pv.str); i++ {
			runes[i] = rune(pv.str[i])
		}
	}
	n := len(runes)
	if off < 0 {
		off += n
		if off < 0 {
			x.addExpansion("")
			return nil
		}
	}
	if off > n {
		off = n
	}
	end := n
	if hasLen {
		if length < 0 {
			end = n + length
			if end < off {
				return &expandError{msg: strings.TrimSpace(sh.nodeText(p.Slice.Length)) + ": substring expression < 0"}
			}
		} else if off+length < n {
			end = off + length
		}
	}
	x.addExpansion(string(runes[off:end]))
	return nil
}

func (x *expander) emitEmptyList(pv paramValue) {
	pv.list = nil
	x.emit(pv)
}

func (x *expander) sliceErr(p *syntax.ParamExp, err error) error {
	if ae, ok := err.(*arithError); ok {
		return &expandError{msg: p.Param.Value + ": " + ae.Error()}
	}
	return err
}

// arithOf evaluates an arithmetic node (a slice offset or length).
func (sh *Shell) arithOf(e syntax.ArithmExpr) (int, error) {
	return sh.arithNode(e, "")
}

// atOp applies ${x@OP}.
func (x *expander) atOp(p *syntax.ParamExp, pv paramValue, op string) error {
	sh := x.sh
	switch op {
	case "Q":
		return x.mapValue(pv, shellQuote)
	case "E":
		return x.mapValue(pv, ansiC)
	case "P":
		return x.mapValue(pv, sh.promptExpand)
	case "U":
		return x.mapValue(pv, strings.ToUpper)
	case "L":
		return x.mapValue(pv, strings.ToLower)
	case "u":
		return x.mapValue(pv, func(s string) string {
			r, w := utf8.DecodeRuneInString(s)
			if w == 0 {
				return s
			}
			return string(unicode.ToUpper(r)) + s[w:]
		})
	case "a":
		flags := ""
		if pv.v != nil {
			flags = attrFlags(pv.v)
		}
		if pv.isArr && (pv.name == "@" || pv.name == "*") {
			return x.mapValue(pv, func(string) string { return "" })
		}
		if pv.isArr {
			return x.mapValue(pv, func(string) string { return flags })
		}
		if !pv.set && pv.v == nil {
			x.addExpansion("")
			return nil
		}
		x.addExpansion(flags)
		return nil
	case "A":
		if pv.v == nil || (!pv.set && !pv.v.isArray()) {
			x.addExpansion("")
			return nil
		}
		if pv.isArr && pv.v.isArray() {
			x.addExpansion(sh.declareLine(pv.name, pv.v, false))
			return nil
		}
		flags := attrFlags(pv.v)
		assign := pv.name + "=" + shellQuote(pv.str)
		if flags == "" {
			x.addExpansion(assign)
		} else {
			x.addExpansion("declare -" + flags + " " + assign)
		}
		return nil
	case "K", "k":
		if pv.v != nil && pv.v.isArray() && pv.isArr {
			var parts []string
			keys := sh.keysOf(pv.name)
			vals := sh.values(pv.name)
			for i, k := range keys {
				kq := k
				if pv.v.attrs&aAssoc != 0 {
					kq = shellQuote(k)
				}
				if op == "K" {
					parts = append(parts, kq+" "+dquote(vals[i]))
				} else {
					parts = append(parts, k, vals[i])
				}
			}
			if op == "k" {
				return x.emitList(parts, !pv.star)
			}
			x.addExpansion(strings.Join(parts, " "))
			return nil
		}
		return x.mapValue(pv, shellQuote)
	}
	return &expandError{msg: "${" + displayName(p) + "@" + op + "}: bad substitution"}
}

// attrFlags lists a variable's attributes as ${x@a} and declare -p do.
func attrFlags(v *variable) string {
	var b strings.Builder
	if v.attrs&aIndexed != 0 {
		b.WriteByte('a')
	}
	if v.attrs&aAssoc != 0 {
		b.WriteByte('A')
	}
	if v.attrs&aInteger != 0 {
		b.WriteByte('i')
	}
	if v.attrs&aLower != 0 {
		b.WriteByte('l')
	}
	if v.attrs&aNameref != 0 {
		b.WriteByte('n')
	}
	if v.attrs&aReadonly != 0 {
		b.WriteByte('r')
	}
	if v.attrs&aTrace != 0 {
		b.WriteByte('t')
	}
	if v.attrs&aUpper != 0 {
		b.WriteByte('u')
	}
	if v.attrs&aExport != 0 {
		b.WriteByte('x')
	}
	return b.String()
}

// shellQuote quotes s as bash's ${x@Q} and declare -p's plain values:
// '...' when printable, $'...' with escapes otherwise.
func shellQuote(s string) string {
	if needsANSI(s) {
		return ansiQuote(s)
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func needsANSI(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			return true
		}
	}
	return !utf8.ValidString(s)
}

// ansiQuote quotes s as $'...'.
func ansiQuote(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w <= 1 {
			fmt.Fprintf(&b, "\\%03o", s[i])
			i++
			continue
		}
		switch r {
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case 27:
			b.WriteString(`\E`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\v':
			b.WriteString(`\v`)
		case '\'':
			b.WriteString(`\'`)
		case '\\':
			b.WriteString(`\\`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, "\\%03o", r)
			} else {
				b.WriteRune(r)
			}
		}
		i += w
	}
	b.WriteByte('\'')
	return b.String()
}

// dquote quotes s inside double quotes, as declare -p prints values.
func dquote(s string) string {
	if needsANSI(s) {
		return ansiQuote(s)
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '$', '`':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// sortedKeys returns the keys of a map, sorted.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// promptExpand is ${x@P}: the prompt escapes \u \h \w \W \$ \\ \n and
// the like, then the expansions.
func (sh *Shell) promptExpand(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'u':
			b.WriteString("agent")
		case 'h', 'H':
			b.WriteString("wsfs")
		case 'w':
			b.WriteString(sh.tildeHome(sh.dir))
		case 'W':
			if sh.dir == "/" {
				b.WriteString("/")
			} else {
				b.WriteString(sh.dir[strings.LastIndex(sh.dir, "/")+1:])
			}
		case '$':
			b.WriteByte('#')
		case 's':
			b.WriteString("bash")
		case 'v':
			b.WriteString("5.2")
		case 'V':
			b.WriteString("5.2.15")
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte(7)
		case 'e':
			b.WriteByte(27)
		case '\\':
			b.WriteByte('\\')
		case '[', ']':
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	out := b.String()
	if strings.ContainsAny(out, "$`") {
		if w, err := newParser().Document(strings.NewReader(out)); err == nil {
			x := expander{sh: sh, mode: modeHeredoc}
			if x.word(w) == nil {
				return string(x.cur.b)
			}
		}
	}
	return out
}
