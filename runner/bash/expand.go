package bash

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/wsfs/wsfs/runner/internal/shpattern"
)

// Word expansion, in bash's order: brace expansion (split into BraceExp
// parts when the script is parsed, multiplied out here), tilde expansion,
// parameter and variable expansion, arithmetic expansion and command
// substitution (left to right), word splitting on IFS, pathname
// expansion, quote removal. Every byte of an expanded word carries two
// marks: whether it came from an unquoted expansion (word splitting may
// cut there) and whether it is unquoted (a glob character there is
// special). Quote removal is then only the dropping of those marks.

// byte marks of an expanded word
const (
	mQuoted  uint8 = 0
	mLiteral uint8 = 1 // unquoted text of the script: glob characters active
	mExpand  uint8 = 3 // unquoted expansion result: glob active and IFS splits
	mGlob    uint8 = 1 // the bit for "glob characters are active"
	mSplit   uint8 = 2 // the bit for "IFS splits here"
)

// field is one word being built.
type field struct {
	b []byte
	m []uint8
	// quoted: the word had a quoted part, so it stays a word even when
	// empty ("" and '' give an empty argument).
	quoted bool
	// split: a field boundary was forced here ("$@").
}

func (f *field) add(s string, mark uint8) {
	f.b = append(f.b, s...)
	for range len(s) {
		f.m = append(f.m, mark)
	}
	if mark == mQuoted {
		f.quoted = true
	}
}

func (f *field) addByte(c byte, mark uint8) {
	f.b = append(f.b, c)
	f.m = append(f.m, mark)
	if mark == mQuoted {
		f.quoted = true
	}
}

// expander accumulates the fields of one word.
type expander struct {
	sh     *Shell
	fields []field
	cur    field
	// mode: what the expansion is for
	mode expandMode
	// inDquote is set while expanding inside double quotes
	inDquote bool
	// vanish: the last part was "$@" or "${a[@]}" with no elements
	vanish bool
	// arrayWords: "$@" and "${a[@]}" made separate words (used by
	// assignments of arrays).
}

type expandMode uint8

const (
	modeFields  expandMode = iota // arguments: split, glob
	modeString                    // one string: no split, no glob ($@ joined by spaces)
	modePattern                   // one pattern: quoted glob characters escaped
	modeRegex                     // [[ =~ ]]: quoted regex characters escaped
	modeHeredoc                   // a here-document body
)

// expandError is a failed expansion: bash abandons the command line
// (abort) or, for some, leaves the shell (fatal).
type expandError struct {
	msg    string
	fatal  bool // ${x?}, set -u: the shell exits
	status int
	// printed: the message is already out
	printed bool
}

func (e *expandError) Error() string { return e.msg }

// expandFailed handles an expansion error: prints it (with the line
// prefix) and abandons the command line, or ends the shell.
func (sh *Shell) expandFailed(err error) {
	sh.status = 1
	var ee *expandError
	var ae *arithError
	switch {
	case errors.As(err, &ae):
		if ae.msg == "unbound variable" {
			sh.errorf("%s: unbound variable", ae.token)
			sh.fatalExit(127)
			return
		}
		sh.errorf("%s", ae.Error())
		if ae.fatal {
			sh.fatalExit(1)
			return
		}
		sh.flow = flowAbort
	case errors.As(err, &ee):
		if !ee.printed && ee.msg != "" {
			sh.errorf("%s", ee.msg)
		}
		if ee.fatal {
			sh.fatalExit(ee.status)
			return
		}
		if ee.status != 0 {
			sh.status = ee.status
		}
		sh.flow = flowAbort
	default:
		sh.errorf("%v", err)
		sh.flow = flowAbort
	}
}

// fatalExit ends the shell after an error bash treats as fatal in a
// non-interactive shell: status 127 for the shell itself, 1 in a
// subshell.
func (sh *Shell) fatalExit(status int) {
	if status == 127 && (sh.subshell > 0 || !sh.opts.cmdString || sh.opts.errexit) {
		// bash -c exits with 127; a script file, a subshell or set -e with 1
		status = 1
	}
	sh.status = status
	if sh.interactive {
		// An interactive shell abandons the line only.
		sh.flow = flowAbort
		return
	}
	sh.flow = flowExit
}

// expandWords expands words into fields (arguments, for's list).
func (sh *Shell) expandWords(words []*syntax.Word) ([]string, error) {
	var out []string
	for _, w := range words {
		fields, err := sh.expandFields(w)
		if err != nil {
			return nil, err
		}
		out = append(out, fields...)
	}
	return out, nil
}

// expandFields expands one word into fields: brace expansion, then
// every step through pathname expansion.
func (sh *Shell) expandFields(w *syntax.Word) ([]string, error) {
	if s, ok := simpleLit(w); ok && !strings.Contains(s, "{") {
		if !sh.globWanted(s) {
			return []string{s}, nil
		}
	}
	var out []string
	for _, bw := range sh.splitBraces(w) {
		x := expander{sh: sh, mode: modeFields}
		if err := x.word(bw); err != nil {
			return nil, err
		}
		x.endWord()
		for _, f := range x.fields {
			globbed, err := sh.globField(f)
			if err != nil {
				return nil, err
			}
			out = append(out, globbed...)
		}
	}
	return out, nil
}

// simpleLit returns the text of a word made of one plain literal (no
// quotes, escapes or expansions).
func simpleLit(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok || strings.ContainsAny(l.Value, "\\~") {
		return "", false
	}
	return l.Value, true
}

// globWanted reports whether a plain literal needs pathname expansion.
func (sh *Shell) globWanted(s string) bool {
	return !sh.opts.noglob && strings.ContainsAny(s, "*?[") || sh.shopts.extglob && strings.Contains(s, "(")
}

// expandString expands a word to one string: no splitting, no globbing
// (assignments, case words, [[ ]] operands, here-strings, redirection
// targets after their own checks).
func (sh *Shell) expandString(w *syntax.Word) (string, error) {
	if w == nil {
		return "", nil
	}
	if s, ok, err := sh.quickWord(w); ok {
		return s, err
	}
	x := expander{sh: sh, mode: modeString}
	if err := x.word(w); err != nil {
		return "", err
	}
	return string(x.cur.b), nil
}

// quickWord expands, without building a field, the words that are most
// of a loop's work: a plain literal, $((…)), or $name; ok is false for
// any other word.
func (sh *Shell) quickWord(w *syntax.Word) (string, bool, error) {
	if len(w.Parts) != 1 {
		return "", false, nil
	}
	switch p := w.Parts[0].(type) {
	case *syntax.Lit:
		if strings.ContainsAny(p.Value, "\\~") {
			return "", false, nil
		}
		return p.Value, true, nil
	case *syntax.ArithmExp:
		if p.Bracket {
			return "", false, nil
		}
		n, err := sh.arithSpan(p.X, int(p.Left.Offset())+3, int(p.Right.Offset()), "")
		if err != nil {
			return "", true, err
		}
		return strconv.Itoa(n), true, nil
	case *syntax.ParamExp:
		if !p.Short || p.Index != nil || p.Param == nil || !isValidName(p.Param.Value) || sh.opts.nounset {
			return "", false, nil
		}
		s, _ := sh.getVar(p.Param.Value)
		return s, true, nil
	}
	return "", false, nil
}

// expandAssignValue is expandString with the tilde rules of assignments
// (~ after '=' and ':').
func (sh *Shell) expandAssignValue(w *syntax.Word) (string, error) {
	if w == nil {
		return "", nil
	}
	if s, ok, err := sh.quickWord(w); ok {
		return s, err
	}
	x := expander{sh: sh, mode: modeString}
	if err := x.wordAssign(w); err != nil {
		return "", err
	}
	return string(x.cur.b), nil
}

// expandPattern expands a word into a pattern: unquoted glob characters
// stay special, quoted ones are escaped.
func (sh *Shell) expandPattern(w *syntax.Word) (string, error) {
	if w == nil {
		return "", nil
	}
	x := expander{sh: sh, mode: modePattern}
	if err := x.word(w); err != nil {
		return "", err
	}
	return patternText(x.cur), nil
}

// patternText turns an expanded word into a pattern: every quoted byte
// that a pattern would read specially gets a backslash.
func patternText(f field) string {
	var b strings.Builder
	for i, c := range f.b {
		if f.m[i]&mGlob == 0 && strings.IndexByte(`*?[]\!@+()|^`, c) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// word expands a word's parts into the current field.
func (x *expander) word(w *syntax.Word) error {
	for i, p := range w.Parts {
		if err := x.part(p, i == 0); err != nil {
			return err
		}
	}
	return nil
}

// wordAssign expands an assignment's value: tilde after '=' (the start)
// and after each unquoted ':'.
func (x *expander) wordAssign(w *syntax.Word) error {
	for i, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && !x.inDquote {
			x.litAssign(l.Value, i == 0)
			continue
		}
		if err := x.part(p, false); err != nil {
			return err
		}
	}
	return nil
}

// endWord finishes the current field.
func (x *expander) endWord() {
	x.fields = append(x.fields, x.cur)
	x.cur = field{}
}

// part expands one word part.
func (x *expander) part(p syntax.WordPart, first bool) error {
	sh := x.sh
	switch p := p.(type) {
	case *syntax.Lit:
		x.lit(p.Value, first)
	case *syntax.SglQuoted:
		v := p.Value
		if p.Dollar {
			v = ansiC(v)
		}
		x.cur.add(v, mQuoted)
	case *syntax.DblQuoted:
		// A quoted word stays a word even when empty, unless all it held
		// was "$@" (or "${a[@]}") with nothing in it.
		was := x.inDquote
		x.inDquote = true
		kept := len(p.Parts) == 0
		for _, q := range p.Parts {
			x.vanish = false
			if err := x.part(q, false); err != nil {
				x.inDquote = was
				return err
			}
			if !x.vanish {
				kept = true
			}
		}
		x.vanish = false
		x.inDquote = was
		if kept {
			x.cur.quoted = true
		}
	case *syntax.ParamExp:
		return x.param(p)
	case *syntax.CmdSubst:
		out, err := sh.cmdSubst(p)
		if err != nil {
			return err
		}
		x.addExpansion(out)
	case *syntax.ArithmExp:
		open := 3
		if p.Bracket {
			open = 2
		}
		n, err := sh.arithSpan(p.X, int(p.Left.Offset())+open, int(p.Right.Offset()), "")
		if err != nil {
			return err
		}
		x.addExpansion(strconv.Itoa(n))
	case *syntax.ProcSubst:
		name, err := sh.procSubst(p)
		if err != nil {
			return err
		}
		x.addExpansion(name)
	case *syntax.ExtGlob:
		if x.inDquote {
			x.cur.add(p.Op.String()+p.Pattern.Value+")", mQuoted)
			return nil
		}
		x.cur.add(p.Op.String(), mLiteral)
		if err := x.rawText(p.Pattern.Value); err != nil {
			return err
		}
		x.cur.addByte(')', mLiteral)
	case *syntax.BraceExp:
		// Only left when brace expansion does not apply (a single word):
		// print it back.
		x.cur.add(braceText(p), mLiteral)
	default:
		return &expandError{msg: fmt.Sprintf("unsupported word part %T", p)}
	}
	return nil
}

// rawText expands text the parser kept raw (the inside of an extglob
// group) or that was built at run time (a subscript in a variable's
// value): quotes quote and are removed, backslashes escape, parameter
// expansions and command substitutions are expanded.
func (x *expander) rawText(t string) error {
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch c {
		case '\\':
			if i+1 < len(t) {
				i++
				x.cur.addByte(t[i], mQuoted)
				continue
			}
		case '\'':
			if j := strings.IndexByte(t[i+1:], '\''); j >= 0 {
				x.cur.add(t[i+1:i+1+j], mQuoted)
				x.cur.quoted = true
				i += j + 1
				continue
			}
		case '"':
			if j := closingDquote(t, i+1); j >= 0 {
				if err := x.subWord(t[i : j+1]); err != nil {
					return err
				}
				i = j
				continue
			}
		case '$', '`':
			if n := expansionLen(t[i:]); n > 0 {
				if err := x.subWord(t[i : i+n]); err != nil {
					return err
				}
				i += n - 1
				continue
			}
		}
		x.cur.addByte(c, mLiteral)
	}
	return nil
}

// subWord parses text as a word and expands it into the current field.
func (x *expander) subWord(text string) error {
	f, err := newParser().Parse(strings.NewReader(": "+text), "")
	if err != nil || len(f.Stmts) != 1 {
		x.cur.add(text, mLiteral)
		return nil
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 2 {
		x.cur.add(text, mLiteral)
		return nil
	}
	saved := x.sh.src
	x.sh.src = &source{text: ": " + text}
	defer func() { x.sh.src = saved }()
	for _, p := range call.Args[1].Parts {
		if err := x.part(p, false); err != nil {
			return err
		}
	}
	return nil
}

// closingDquote finds the '"' closing one opened before i.
func closingDquote(t string, i int) int {
	for ; i < len(t); i++ {
		switch t[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// expansionLen is the length of the expansion ($x, ${…}, $(…), $((…)),
// `…`) at the start of t, or 0.
func expansionLen(t string) int {
	if t[0] == '`' {
		if j := strings.IndexByte(t[1:], '`'); j >= 0 {
			return j + 2
		}
		return 0
	}
	if len(t) < 2 {
		return 0
	}
	switch c := t[1]; {
	case c == '{' || c == '(':
		closer := byte('}')
		if c == '(' {
			closer = ')'
		}
		depth := 0
		for i := 1; i < len(t); i++ {
			switch t[i] {
			case c:
				depth++
			case closer:
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return 0
	case isIdentStart(c):
		i := 2
		for i < len(t) && isIdentChar(t[i]) {
			i++
		}
		return i
	case c >= '0' && c <= '9' || strings.IndexByte("@*#?-$!", c) >= 0:
		return 2
	}
	return 0
}

// addExpansion adds the result of an expansion: quoted inside double
// quotes, else subject to splitting and globbing.
func (x *expander) addExpansion(s string) {
	if x.inDquote || x.mode != modeFields && x.mode != modePattern {
		x.cur.add(s, mQuoted)
		return
	}
	if x.mode == modePattern {
		// An unquoted expansion in a pattern keeps its glob characters.
		x.cur.add(s, mLiteral)
		return
	}
	x.cur.add(s, mExpand)
}

// lit adds literal text of the script: backslash escapes are quoted
// characters, and a leading '~' is tilde expansion.
func (x *expander) lit(s string, first bool) {
	if x.inDquote {
		x.dquoteLit(s)
		return
	}
	if x.mode == modeHeredoc {
		x.heredocLit(s)
		return
	}
	if first && strings.HasPrefix(s, "~") {
		s = x.tilde(s, false)
	}
	x.unquotedLit(s)
}

func (x *expander) unquotedLit(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			i++
			x.cur.addByte(s[i], mQuoted)
			continue
		}
		x.cur.addByte(c, mLiteral)
	}
}

// litAssign is lit for an assignment value: tilde after the start and
// after unquoted colons.
func (x *expander) litAssign(s string, first bool) {
	if first && strings.HasPrefix(s, "~") {
		s = x.tilde(s, true)
	}
	for {
		i := strings.Index(s, ":~")
		if i < 0 {
			break
		}
		x.unquotedLit(s[:i+1])
		s = x.tilde(s[i+1:], true)
	}
	x.unquotedLit(s)
}

// dquoteLit adds literal text inside double quotes: \$ \` \" \\ and
// \newline are escapes, other backslashes stay.
func (x *expander) dquoteLit(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
				x.cur.addByte(s[i], mQuoted)
				continue
			case '\n':
				i++
				continue
			}
		}
		x.cur.addByte(c, mQuoted)
	}
}

// heredocLit adds literal text of a here-document body: \$ \` \\ and
// \newline are escapes.
func (x *expander) heredocLit(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '\\':
				i++
				x.cur.addByte(s[i], mQuoted)
				continue
			case '\n':
				i++
				continue
			}
		}
		x.cur.addByte(c, mQuoted)
	}
}

// tilde expands a leading ~, ~user, ~+, ~- or ~N of s (up to the first
// '/', or ':' in an assignment) and returns s with the prefix replaced;
// the result is quoted text written here, the rest is returned.
func (x *expander) tilde(s string, assign bool) string {
	end := len(s)
	for i := 1; i < len(s); i++ {
		if s[i] == '/' || assign && s[i] == ':' {
			end = i
			break
		}
	}
	name := s[1:end]
	if strings.ContainsAny(name, "\\'\"$`") {
		return s
	}
	sh := x.sh
	var home string
	switch {
	case name == "":
		h, ok := sh.getVar("HOME")
		if !ok {
			h = "/workspace"
		}
		home = h
	case name == "+":
		home, _ = sh.getVar("PWD")
	case name == "-":
		v, ok := sh.getVar("OLDPWD")
		if !ok {
			return s
		}
		home = v
	case name == "agent" || name == "root":
		home = "/workspace"
	default:
		if d, ok := sh.dirStackEntry(name); ok {
			home = d
			break
		}
		return s
	}
	x.cur.add(home, mQuoted)
	return s[end:]
}

// ansiC decodes the escapes of $'...'.
func ansiC(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte(11)
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case 'c':
			if i+1 < len(s) {
				i++
				ch := s[i]
				if ch == '\\' && i+1 < len(s) && s[i+1] == '\\' {
					i++
				}
				b.WriteByte(ch & 0x1f)
			} else {
				b.WriteString("\\c")
			}
		case 'x':
			n, j := 0, i+1
			for ; j < len(s) && j < i+3 && isHexDigit(s[j]); j++ {
				n = n*16 + hexVal(s[j])
			}
			if j == i+1 {
				b.WriteString("\\x")
			} else {
				if n == 0 {
					return b.String()
				}
				b.WriteByte(byte(n))
				i = j - 1
			}
		case 'u', 'U':
			max := 4
			if e == 'U' {
				max = 8
			}
			n, j := 0, i+1
			for ; j < len(s) && j < i+1+max && isHexDigit(s[j]); j++ {
				n = n*16 + hexVal(s[j])
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
			} else {
				b.WriteRune(rune(n))
				i = j - 1
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n, j := 0, i
			for ; j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7'; j++ {
				n = n*8 + int(s[j]-'0')
			}
			if byte(n) == 0 {
				// A shell string ends at NUL.
				return b.String()
			}
			b.WriteByte(byte(n))
			i = j - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}

// ifsChars returns IFS (the default when unset) and whether splitting
// happens at all.
func (sh *Shell) ifs() string {
	v, ok := sh.getVar("IFS")
	if !ok {
		return " \t\n"
	}
	return v
}

func isIFSWhite(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

// splitField cuts f at its splittable IFS characters, as bash's word
// splitting does: runs of IFS white space are one separator and are
// trimmed at the ends; every other IFS character ends a field.
func splitField(f field, ifs string) []field {
	if ifs == "" {
		return []field{f}
	}
	hasSplit := false
	for _, m := range f.m {
		if m&mSplit != 0 {
			hasSplit = true
			break
		}
	}
	if !hasSplit {
		return []field{f}
	}
	isSep := func(i int) bool { return f.m[i]&mSplit != 0 && strings.IndexByte(ifs, f.b[i]) >= 0 }
	var out []field
	var cur field
	inField := false // cur holds something (or a quoted empty part)
	i := 0
	n := len(f.b)
	for i < n {
		if !isSep(i) {
			cur.b = append(cur.b, f.b[i])
			cur.m = append(cur.m, f.m[i])
			if f.m[i] == mQuoted {
				cur.quoted = true
			}
			inField = true
			i++
			continue
		}
		// A run of separators: white space, at most one other character,
		// white space.
		j := i
		for j < n && isSep(j) && isIFSWhite(f.b[j]) {
			j++
		}
		nonWhite := false
		if j < n && isSep(j) && !isIFSWhite(f.b[j]) {
			nonWhite = true
			j++
			for j < n && isSep(j) && isIFSWhite(f.b[j]) {
				j++
			}
		}
		if inField || nonWhite {
			// A field a delimiter ends is a word even when empty.
			cur.quoted = true
			out = append(out, cur)
		}
		cur = field{}
		inField = false
		i = j
	}
	if inField {
		out = append(out, cur)
	}
	// A quoted empty word keeps its field; a word that was all
	// separators makes none.
	if f.quoted && len(out) == 0 {
		return []field{{quoted: true}}
	}
	return out
}

// globField splits a field and expands its glob patterns, returning the
// final words.
func (sh *Shell) globField(f field) ([]string, error) {
	parts := splitField(f, sh.ifs())
	var out []string
	for _, p := range parts {
		if len(p.b) == 0 && !p.quoted {
			continue
		}
		if sh.opts.noglob || !hasGlobMeta(p, sh.shopts.extglob) {
			out = append(out, string(p.b))
			continue
		}
		pat := patternText(p)
		matches, err := sh.glob(pat)
		if err != nil {
			return nil, err
		}
		switch {
		case len(matches) > 0:
			out = append(out, matches...)
		case sh.shopts.failglob:
			return nil, &expandError{msg: "no match: " + string(p.b)}
		case sh.shopts.nullglob:
		default:
			out = append(out, string(p.b))
		}
	}
	return out, nil
}

// hasGlobMeta reports whether an unquoted glob character is in f.
func hasGlobMeta(f field, extglob bool) bool {
	for i, c := range f.b {
		if f.m[i]&mGlob == 0 {
			continue
		}
		switch c {
		case '*', '?', '[':
			return true
		case '(':
			if extglob && i > 0 && strings.IndexByte("?*+@!", f.b[i-1]) >= 0 {
				return true
			}
		}
	}
	return false
}

// matchPattern matches s against an expanded pattern; extended is true
// where bash always allows extglob ([[ ]], case? no: case follows the
// shopt).
func (sh *Shell) matchPattern(pat, s string, nocase, whole bool) bool {
	flags := shpattern.Extended
	if nocase {
		flags |= shpattern.NoCase
	}
	return shpattern.Match(pat, s, flags)
}

// utf8Len counts characters of s as bash does in a UTF-8 locale: a byte
// that does not start valid UTF-8 counts as one.
func utf8Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
		n++
	}
	return n
}
