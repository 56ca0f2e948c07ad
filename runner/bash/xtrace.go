package bash

import (
	"io"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// set -x: each command, after expansion, on BASH_XTRACEFD (else stderr)
// after $PS4, whose first character repeats once per level of command
// substitution.

// traceWriter is where xtrace lines go.
func (sh *Shell) traceWriter() io.Writer {
	if sh.traceOut != nil {
		return sh.traceOut
	}
	if v, ok := sh.getVar("BASH_XTRACEFD"); ok && v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			if of := sh.fds.get(n); of != nil {
				return of
			}
		}
	}
	return sh.stderr()
}

// ps4 is the expanded $PS4 with its first character repeated for the
// nesting level.
func (sh *Shell) ps4() string {
	v, ok := sh.getVar("PS4")
	if !ok {
		return ""
	}
	if strings.ContainsAny(v, "$`\\") {
		saved := sh.opts.xtrace
		sh.opts.xtrace = false
		if w, err := newParser().Document(strings.NewReader(v)); err == nil {
			x := expander{sh: sh, mode: modeHeredoc}
			if x.word(w) == nil {
				v = string(x.cur.b)
			}
		}
		sh.opts.xtrace = saved
	}
	if v == "" {
		return ""
	}
	level := sh.traceLevel + 1
	return strings.Repeat(v[:1], level-1) + v
}

// traceQuote quotes a word as xtrace shows it.
func traceQuote(s string) string {
	if s == "" {
		return "''"
	}
	if s == "'" {
		return `\'`
	}
	if needsANSI(s) {
		return ansiQuote(s)
	}
	safe := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_-./:,@%+=^", c) >= 0 || c >= 0x80) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// traceWords prints one xtrace line of words.
func (sh *Shell) traceWords(words []string) {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = traceQuote(w)
	}
	io.WriteString(sh.traceWriter(), sh.ps4()+strings.Join(quoted, " ")+"\n")
}

// traceAssign prints an assignment.
func (sh *Shell) traceAssign(p prefixAssign) {
	op := "="
	if p.appendTo {
		op = "+="
	}
	name := p.name
	if p.hasSub {
		name += "[" + p.sub + "]"
	}
	if p.isArray {
		var parts []string
		for _, e := range p.array {
			parts = append(parts, traceQuote(e.val))
		}
		io.WriteString(sh.traceWriter(), sh.ps4()+name+op+"("+strings.Join(parts, " ")+")\n")
		return
	}
	io.WriteString(sh.traceWriter(), sh.ps4()+name+op+traceQuote(p.value)+"\n")
}

// formatBody prints a function's body as declare -f and type do.
func formatBody(body *syntax.Stmt) string {
	var b strings.Builder
	p := syntax.NewPrinter(syntax.Indent(4), syntax.FunctionNextLine(true))
	if blk, ok := body.Cmd.(*syntax.Block); ok && len(body.Redirs) == 0 {
		b.WriteString("{ \n")
		for _, s := range blk.Stmts {
			var sb strings.Builder
			p.Print(&sb, s)
			for _, line := range strings.Split(strings.TrimRight(sb.String(), "\n"), "\n") {
				b.WriteString("    " + line + "\n")
			}
		}
		b.WriteString("}")
		return b.String()
	}
	p.Print(&b, body)
	return strings.TrimRight(b.String(), "\n")
}
