package bash

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Aliases (shopt -s expand_aliases) are expanded as bash does, in the
// text of each line before it runs: mvdan/sh's parser knows nothing of
// aliases, so a line whose command words name aliases is rewritten and
// parsed again. An alias's first word may itself be an alias (not one
// being expanded); a value ending in a blank makes the next word a
// candidate too.

func builtinAlias(sh *Shell, args []string) int {
	args = args[1:]
	print := false
	if len(args) > 0 && args[0] == "-p" {
		print = true
		args = args[1:]
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	w := sh.stdout()
	if len(args) == 0 || print && len(args) == 0 {
		names := make([]string, 0, len(sh.aliases))
		for n := range sh.aliases {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(w, "alias %s=%s\n", n, shellQuote(sh.aliases[n]))
		}
		return 0
	}
	status := 0
	for _, a := range args {
		name, value, isDef := strings.Cut(a, "=")
		if !isDef {
			v, ok := sh.aliases[name]
			if !ok {
				sh.errorf("alias: %s: not found", name)
				status = 1
				continue
			}
			fmt.Fprintf(w, "alias %s=%s\n", name, shellQuote(v))
			continue
		}
		if name == "" || strings.ContainsAny(name, "/$`=\\'\" \t\n;|&()<>") {
			sh.errorf("alias: `%s': invalid alias name", name)
			status = 1
			continue
		}
		sh.aliases[name] = value
	}
	return status
}

func builtinUnalias(sh *Shell, args []string) int {
	args = args[1:]
	if len(args) == 0 {
		fmt.Fprintln(sh.stderr(), "unalias: usage: unalias [-a] name [name ...]")
		return 2
	}
	if args[0] == "-a" {
		sh.aliases = map[string]string{}
		return 0
	}
	if args[0] == "--" {
		args = args[1:]
	}
	status := 0
	for _, n := range args {
		if _, ok := sh.aliases[n]; !ok {
			sh.errorf("unalias: %s: not found", n)
			status = 1
			continue
		}
		delete(sh.aliases, n)
	}
	return status
}

// aliasEdit is one replacement in a line's text.
type aliasEdit struct {
	start, end int
	text       string
}

// expandAliases rewrites a line (a group of statements) whose command
// words name aliases, and parses it again.
func (sh *Shell) expandAliases(group []*syntax.Stmt, src *source) ([]*syntax.Stmt, *source) {
	if !sh.shopts.expandAliases || len(sh.aliases) == 0 {
		return group, src
	}
	var edits []aliasEdit
	for _, s := range group {
		syntax.Walk(s, func(n syntax.Node) bool {
			call, ok := n.(*syntax.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			for i := 0; i < len(call.Args); i++ {
				w := call.Args[i]
				name, ok := plainWord(w)
				if !ok {
					break
				}
				val, ok := sh.aliases[name]
				if !ok {
					break
				}
				expanded := sh.aliasValue(name, val, map[string]bool{name: true})
				edits = append(edits, aliasEdit{int(w.Pos().Offset()), int(w.End().Offset()), expanded})
				if !strings.HasSuffix(expanded, " ") && !strings.HasSuffix(expanded, "\t") {
					break
				}
			}
			return true
		})
	}
	if len(edits) == 0 {
		return group, src
	}
	start := int(group[0].Pos().Offset())
	end := int(group[len(group)-1].End().Offset())
	if end > len(src.text) || start > end {
		return group, src
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b strings.Builder
	pos := start
	for _, e := range edits {
		if e.start < pos || e.end > end {
			continue
		}
		b.WriteString(src.text[pos:e.start])
		b.WriteString(e.text)
		pos = e.end
	}
	b.WriteString(src.text[pos:end])
	// Keep the lines where they were: pad with the newlines before.
	prefix := strings.Repeat("\n", strings.Count(src.text[:start], "\n"))
	text := prefix + b.String()
	stmts, nsrc, err := parseText(text, src.file)
	if err != nil {
		sh.syntaxError(err, nsrc)
		sh.status = 2
		return nil, src
	}
	nsrc.lineBase = src.lineBase
	return stmts, nsrc
}

// maxAliasText bounds what aliasText adds to a text: aliases whose values
// name each other twice over grow it exponentially.
const maxAliasText = 1 << 20

// aliasText expands aliases in the command words of raw text, as bash's
// lexer does before parsing: used for a line that does not parse until
// its aliases are expanded (alias LEFT='('). An alias's value is read
// again in place (its command words may be aliases, but not the alias
// itself); a value ending in a blank makes the word after it a command
// word too.
func (sh *Shell) aliasText(text string) string {
	type frame struct {
		t     string
		pos   int
		alias string // the alias whose value t is ("" for the text)
		blank bool   // the value ends in a blank
	}
	stack := []*frame{{t: text}}
	expanding := func(name string) bool {
		for _, f := range stack {
			if f.alias == name {
				return true
			}
		}
		return false
	}
	var b strings.Builder
	cmdStart := true
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		if f.pos >= len(f.t) {
			stack = stack[:len(stack)-1]
			if f.blank {
				cmdStart = true
			}
			continue
		}
		t, i := f.t, f.pos
		c := t[i]
		switch {
		case c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')':
			b.WriteByte(c)
			f.pos++
			cmdStart = true
			continue
		case c == ' ' || c == '\t':
			b.WriteByte(c)
			f.pos++
			continue
		case c == '#' && cmdStart:
			j := strings.IndexByte(t[i:], '\n')
			if j < 0 {
				j = len(t) - i
			}
			b.WriteString(t[i : i+j])
			f.pos += j
			continue
		}
		// A word: up to a blank or an operator, quotes kept whole.
		j := i
		quoted := false
		for j < len(t) {
			d := t[j]
			if d == ' ' || d == '\t' || d == '\n' || d == ';' || d == '&' || d == '|' || d == '(' || d == ')' || d == '<' || d == '>' {
				break
			}
			switch d {
			case '\\':
				quoted = true
				j += 2
				continue
			case '\'', '"':
				quoted = true
				if k := strings.IndexByte(t[j+1:], d); k >= 0 {
					j += k + 2
					continue
				}
			}
			j++
		}
		j = min(j, len(t))
		if j == i {
			b.WriteByte(c)
			f.pos++
			continue
		}
		word := t[i:j]
		f.pos = j
		if cmdStart && !quoted {
			if val, ok := sh.aliases[word]; ok {
				if !expanding(word) && b.Len() < len(text)+maxAliasText {
					stack = append(stack, &frame{t: val, alias: word, blank: strings.HasSuffix(val, " ") || strings.HasSuffix(val, "\t")})
					continue
				}
				if !slices.Contains(keywords, word) {
					// Not expanded inside its own value: quoted so that
					// the expansion after parsing leaves it too.
					b.WriteByte('\\')
				}
			}
		}
		b.WriteString(word)
		switch word {
		case "if", "then", "else", "elif", "do", "while", "until", "!", "{", "time":
			cmdStart = true
		default:
			cmdStart = false
		}
	}
	return b.String()
}

// plainWord returns a word that is one unquoted literal.
func plainWord(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok || strings.ContainsAny(l.Value, "\\") {
		return "", false
	}
	return l.Value, true
}

// aliasValue expands an alias's value: its first word again when that is
// another alias.
func (sh *Shell) aliasValue(name, val string, seen map[string]bool) string {
	trimmed := strings.TrimLeft(val, " \t")
	first := trimmed
	if i := strings.IndexAny(trimmed, " \t;|&<>()\n"); i >= 0 {
		first = trimmed[:i]
	}
	inner, ok := sh.aliases[first]
	if !ok || seen[first] || first == "" {
		return val
	}
	seen[first] = true
	lead := val[:len(val)-len(trimmed)]
	return lead + sh.aliasValue(first, inner, seen) + trimmed[len(first):]
}
