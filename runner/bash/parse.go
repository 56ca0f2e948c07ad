package bash

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// source is a piece of text the shell parsed: a script, a sourced file,
// eval's words, a trap's action, a function's definition. Nodes' offsets
// index its text (arithmetic and subscripts are read from it).
type source struct {
	text string
	file string // the file it came from ("" for -c strings, eval, traps)
	// lineBase is added to the nodes' lines for $LINENO and messages
	// (eval'd text counts from the line of the eval).
	lineBase int
	// arith holds the original text of arithmetic that mvdan/sh's parser
	// refused and that bash evaluates at run time (its errors are run-time
	// errors): the parsed text carries a placeholder name instead.
	arith map[string]string
	// warnings are printed when the line they belong to runs (a
	// here-document closed by the end of the text).
	warnings map[int]string
	// exps caches the expansions inside arithmetic and subscript nodes
	// (expansionsIn), read again at every evaluation.
	exps sync.Map
}

// placeholderPrefix names the stand-ins for arithmetic the parser
// refused; no script can usefully name a variable this way.
const placeholderPrefix = "__wsfs_arith_"

// maxParseFixes bounds the fallbacks tried on one text.
const maxParseFixes = 16

func newParser() *syntax.Parser {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))
}

// parsers keeps parsers for reuse: one is large, and every line of
// eval, source and the script needs one.
var parsers = sync.Pool{New: func() any { return newParser() }}

// parseText parses text, applying the fallbacks for bash that
// mvdan/sh's parser refuses or reads differently. On a syntax error it
// returns the statements before it and the error.
func parseText(text, file string) ([]*syntax.Stmt, *source, error) {
	src := &source{text: text, file: file}
	for fix := 0; ; fix++ {
		var stmts []*syntax.Stmt
		var err error
		p := parsers.Get().(*syntax.Parser)
		for s, e := range p.StmtsSeq(strings.NewReader(src.text)) {
			if e != nil {
				err = e
				break
			}
			stmts = append(stmts, s)
		}
		parsers.Put(p)
		if err == nil {
			if err := checkTree(stmts); err != nil {
				return stmtsBefore(stmts, err), src, err
			}
			return stmts, src, nil
		}
		if fix < maxParseFixes && src.fixup(err) {
			continue
		}
		return stmtsBefore(stmts, err), src, err
	}
}

// stmtsBefore keeps the statements that end on a line before the one of
// err: bash reads a line at a time, and runs what it read before a line
// that does not parse.
func stmtsBefore(stmts []*syntax.Stmt, err error) []*syntax.Stmt {
	line := errLine(err)
	if line == 0 {
		return nil
	}
	var out []*syntax.Stmt
	for _, s := range stmts {
		if int(s.End().Line()) >= line || int(s.Pos().Line()) >= line {
			break
		}
		out = append(out, s)
	}
	// A group of statements sharing a line with the error goes too.
	for len(out) > 0 && int(out[len(out)-1].End().Line()) >= line {
		out = out[:len(out)-1]
	}
	return out
}

func errLine(err error) int {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return int(pe.Pos.Line())
	}
	var te *treeError
	if errors.As(err, &te) {
		return int(te.pos.Line())
	}
	return 0
}

// treeError is a construct the parser accepts but bash does not.
type treeError struct {
	pos syntax.Pos
	tok string
}

func (e *treeError) Error() string { return "syntax error near unexpected token `" + e.tok + "'" }

// checkTree refuses what bash's grammar does not allow: a function body
// that is not a compound command.
func checkTree(stmts []*syntax.Stmt) error {
	var err error
	for _, s := range stmts {
		syntax.Walk(s, func(n syntax.Node) bool {
			if err != nil {
				return false
			}
			if fd, ok := n.(*syntax.FuncDecl); ok && fd.Body != nil {
				if call, ok := fd.Body.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 0 {
					err = &treeError{pos: call.Args[0].Pos(), tok: call.Args[0].Lit()}
				}
			}
			return true
		})
	}
	return err
}

// fixup rewrites the text for a parse error the fallbacks know, and
// reports whether it did.
func (src *source) fixup(err error) bool {
	var pe syntax.ParseError
	if !errors.As(err, &pe) {
		return false
	}
	off := int(pe.Pos.Offset())
	if off > len(src.text) {
		off = len(src.text)
	}
	switch {
	case strings.Contains(pe.Text, "expansions not allowed in heredoc words"):
		return src.fixHeredocWord(off)
	case strings.HasPrefix(pe.Text, "unclosed here-document"):
		return src.fixUnclosedHeredoc(pe)
	}
	if src.fixDoubleParen(off) {
		return true
	}
	return src.fixBuiltinClause(off)
}

// fixBuiltinClause handles what mvdan/sh's parser refuses in the words
// of let and the declaration builtins (let z=y*3 # comment, export
// FOO-BAR=x), which bash reads as ordinary words: the command becomes
// `builtin NAME …`, which parses as a plain command and runs the same
// builtin.
func (src *source) fixBuiltinClause(off int) bool {
	t := src.text
	lineStart := strings.LastIndexByte(t[:min(off, len(t))], '\n') + 1
	for _, kw := range []string{"let", "export", "readonly", "declare", "typeset", "local"} {
		for i := min(off, len(t)); i >= lineStart; i-- {
			if !strings.HasPrefix(t[i:], kw+" ") {
				continue
			}
			if i > 0 {
				switch t[i-1] {
				case ' ', '\t', ';', '&', '|', '(', '{', '\n':
				default:
					continue
				}
			}
			if strings.HasSuffix(strings.TrimRight(t[lineStart:i], " \t"), "builtin") {
				continue
			}
			src.text = t[:i] + "builtin " + t[i:]
			return true
		}
	}
	return false
}

// fixHeredocWord replaces a here-document delimiter holding expansions
// (cat <<EOF$(x)), which bash takes literally, with a plain one.
func (src *source) fixHeredocWord(off int) bool {
	t := src.text
	op := strings.LastIndex(t[:off], "<<")
	if op < 0 {
		return false
	}
	start := op + 2
	if start < len(t) && t[start] == '-' {
		start++
	}
	for start < len(t) && (t[start] == ' ' || t[start] == '\t') {
		start++
	}
	end := start
	depth := 0
	for end < len(t) {
		c := t[end]
		if depth == 0 && (c == '<' || c == '>') && end+1 < len(t) && t[end+1] == '(' {
			end++
			continue
		}
		if depth == 0 && (c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '|' || c == '&' || c == '<' || c == '>') {
			break
		}
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		}
		end++
	}
	word := t[start:end]
	// Quotes outside $( … ) make the delimiter quoted (the body is not
	// expanded) and are removed from it; those inside stay.
	quoted := false
	var delimB strings.Builder
	depth = 0
	for i := 0; i < len(word); i++ {
		c := word[i]
		switch {
		case c == '(':
			depth++
		case c == ')':
			depth--
		case depth == 0 && (c == '\'' || c == '"' || c == '\\'):
			quoted = true
			continue
		}
		delimB.WriteByte(c)
	}
	delim := delimB.String()
	nl := strings.IndexByte(t[end:], '\n')
	if nl < 0 {
		return false
	}
	bodyStart := end + nl + 1
	lines := strings.SplitAfter(t[bodyStart:], "\n")
	repl := fmt.Sprintf("WSFS_HEREDOC_%d", op)
	pos := bodyStart
	for _, l := range lines {
		trimmed := strings.TrimRight(l, "\n")
		if strings.TrimLeft(trimmed, "\t") == delim {
			newWord := repl
			if quoted {
				newWord = "'" + repl + "'"
			}
			src.text = t[:start] + newWord + t[end:pos] + strings.Replace(l, delim, repl, 1) + t[pos+len(l):]
			return true
		}
		pos += len(l)
	}
	// No line closes it: the body runs to the end, as bash reads it.
	newWord := repl
	if quoted {
		newWord = "'" + repl + "'"
	}
	text := t[:start] + newWord + t[end:]
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	src.text = text + repl + "\n"
	if src.warnings == nil {
		src.warnings = map[int]string{}
	}
	line := strings.Count(t[:start], "\n") + 1
	src.warnings[line] = fmt.Sprintf("line %d: warning: here-document at line %d delimited by end-of-file (wanted `%s')",
		strings.Count(src.text, "\n"), line, delim)
	return true
}

// fixUnclosedHeredoc ends a here-document the text does not close, as
// bash does at the end of the input (with a warning).
func (src *source) fixUnclosedHeredoc(pe syntax.ParseError) bool {
	word, ok := strings.CutPrefix(pe.Text, "unclosed here-document ")
	if !ok {
		return false
	}
	word = strings.Trim(word, "`")
	if strings.HasSuffix(src.text, "\n"+word) || strings.HasSuffix(src.text, "\n"+word+"\n") {
		return false
	}
	lines := strings.Count(src.text, "\n")
	if !strings.HasSuffix(src.text, "\n") {
		src.text += "\n"
		lines++
	}
	src.text += word + "\n"
	if src.warnings == nil {
		src.warnings = map[int]string{}
	}
	src.warnings[int(pe.Pos.Line())] = fmt.Sprintf("line %d: warning: here-document at line %d delimited by end-of-file (wanted `%s')",
		lines+1, pe.Pos.Line(), word)
	return true
}

// fixDoubleParen handles "$((" and "((" that mvdan/sh reads as
// arithmetic where bash does not, or whose arithmetic it refuses: bash
// reads "$((" as arithmetic only when its parentheses close with "))";
// otherwise it is a command substitution of a subshell ($((echo a) |
// wc)). Arithmetic the parser refuses is replaced by a placeholder and
// evaluated from its original text at run time, where bash reports its
// errors.
func (src *source) fixDoubleParen(off int) bool {
	t := src.text
	for i := min(off+3, len(t)-2); i >= 0; i-- {
		if i+1 >= len(t) || t[i] != '(' || t[i+1] != '(' {
			continue
		}
		if i > 0 && t[i-1] == '(' {
			continue
		}
		end, arith := scanDoubleParen(t, i+2)
		if end >= 0 && end < off && arith {
			continue // a closed region before the error: not this one
		}
		if !arith {
			src.text = t[:i+1] + " " + t[i+1:]
			return true
		}
		if end < 0 {
			return false
		}
		content := t[i+2 : end]
		if strings.HasPrefix(strings.TrimSpace(content), placeholderPrefix) {
			return false
		}
		if src.arith == nil {
			src.arith = map[string]string{}
		}
		name := placeholderPrefix + strconv.Itoa(len(src.arith))
		src.arith[name] = content
		src.text = t[:i+2] + name + strings.Repeat("\n", strings.Count(content, "\n")) + t[end:]
		return true
	}
	return false
}

// original returns t, a part of the source's text, with the arithmetic
// placeholders put back as written.
func (src *source) original(t string) string {
	if len(src.arith) == 0 || !strings.Contains(t, placeholderPrefix) {
		return t
	}
	var b strings.Builder
	for {
		i := strings.Index(t, placeholderPrefix)
		if i < 0 {
			break
		}
		j := i + len(placeholderPrefix)
		for j < len(t) && t[j] >= '0' && t[j] <= '9' {
			j++
		}
		orig, ok := src.arith[t[i:j]]
		if !ok {
			b.WriteString(t[:j])
			t = t[j:]
			continue
		}
		b.WriteString(t[:i])
		b.WriteString(orig)
		// The placeholder kept the content's lines as newlines after it.
		t = t[j+strings.Count(orig, "\n"):]
	}
	b.WriteString(t)
	return b.String()
}

// scanDoubleParen reads from just after "((" to the "))" that closes it:
// it returns the offset of that "))" and true, or the offset of a ")"
// closing the outer parenthesis alone (a subshell) and false, or -1.
func scanDoubleParen(t string, i int) (int, bool) {
	depth := 0
	for ; i < len(t); i++ {
		switch t[i] {
		case '\\':
			i++
		case '\'':
			if j := strings.IndexByte(t[i+1:], '\''); j >= 0 {
				i += j + 1
			}
		case '(':
			depth++
		case ')':
			if depth > 0 {
				depth--
				continue
			}
			if i+1 < len(t) && t[i+1] == ')' {
				return i, true
			}
			return i, false
		}
	}
	return -1, true
}

// syntaxError prints a parse error as bash does and returns 2.
func (sh *Shell) syntaxError(err error, src *source) int {
	where := sh.name + ": -c: "
	if src.file != "" {
		where = src.file + ": "
	}
	line := errLine(err)
	msg := err.Error()
	var pe syntax.ParseError
	tok := ""
	if errors.As(err, &pe) {
		msg = pe.Text
	}
	var te *treeError
	if errors.As(err, &te) {
		tok = te.tok
	}
	eofLine := strings.Count(src.text, "\n") + 1
	if strings.HasSuffix(src.text, "\n") {
		eofLine--
	}
	eofLine++
	text := ""
	switch {
	case tok != "":
		text = "syntax error near unexpected token `" + tok + "'"
	case strings.HasPrefix(msg, "reached EOF without closing quote"):
		q := strings.TrimPrefix(msg, "reached EOF without closing quote ")
		text = "unexpected EOF while looking for matching `" + strings.Trim(q, "`") + "'"
	case strings.HasPrefix(msg, "reached EOF without matching `$(`"), strings.HasPrefix(msg, "reached EOF without matching `${`"),
		strings.HasPrefix(msg, "reached EOF without matching `$((`"):
		closer := ")"
		if strings.Contains(msg, "`${`") {
			closer = "}"
		}
		text = "unexpected EOF while looking for matching `" + closer + "'"
		if closer == ")" {
			line = eofLine
		}
	case strings.HasPrefix(msg, "reached EOF"), strings.Contains(msg, "must end with"),
		strings.Contains(msg, "must be followed by") && line > 0 && line >= eofLine-1 && restIsBlank(src.text, pe.Pos):
		text = "syntax error: unexpected end of file"
		line = eofLine
	case strings.Contains(msg, "can only be used"):
		text = "syntax error near unexpected token `" + firstQuoted(msg) + "'"
	case strings.HasPrefix(msg, "a command can only contain words and redirects; encountered "):
		text = "syntax error near unexpected token `" + firstQuoted(strings.TrimPrefix(msg, "a command can only contain words and redirects; encountered ")) + "'"
	default:
		text = "syntax error: " + msg
	}
	fmt.Fprintf(sh.stderr(), "%sline %d: %s\n", where, line, text)
	if strings.HasPrefix(text, "syntax error near") {
		if l := lineText(src.text, line); l != "" {
			fmt.Fprintf(sh.stderr(), "%sline %d: `%s'\n", where, line, l)
		}
	}
	return 2
}

func restIsBlank(text string, pos syntax.Pos) bool {
	off := int(pos.Offset())
	if off >= len(text) {
		return true
	}
	return strings.TrimSpace(text[off:]) == "" || !strings.Contains(text[off:], "\n")
}

func firstQuoted(msg string) string {
	i := strings.IndexByte(msg, '`')
	if i < 0 {
		return msg
	}
	j := strings.IndexByte(msg[i+1:], '`')
	if j < 0 {
		return msg[i+1:]
	}
	return msg[i+1 : i+1+j]
}

func lineText(text string, line int) string {
	lines := strings.Split(text, "\n")
	if line < 1 || line > len(lines) {
		return ""
	}
	return lines[line-1]
}

// lineGroups splits top-level statements into what bash reads at once: a
// line (statements that share lines belong together).
func lineGroups(stmts []*syntax.Stmt) [][]*syntax.Stmt {
	var groups [][]*syntax.Stmt
	for i := 0; i < len(stmts); {
		j := i + 1
		end := stmts[i].End().Line()
		for j < len(stmts) && stmts[j].Pos().Line() <= end {
			if e := stmts[j].End().Line(); e > end {
				end = e
			}
			j++
		}
		groups = append(groups, stmts[i:j])
		i = j
	}
	return groups
}
