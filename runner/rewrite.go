package runner

import (
	"bytes"
	"io"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// mvdan/sh knows only descriptors 0, 1 and 2. rewriteFile turns what bash
// does with others into calls of a hidden command (fdCommand) that keeps
// the runner's own descriptor table (fds.go), before the script runs:
//
//	cmd 3<f            →  { ␁fd push G 3 '<' && cmd; ␁fd pop G $?; }
//	exec 3<f           →  ␁fd set 3 '<'            (the file in an assignment)
//	cmd {v}>f          →  v=$(␁fd free) && ␁fd set "$v" '>'; cmd
//	cmd >&3, <&$fd     →  cmd >/dev/fd/3, </dev/fd/$fd (the open handler's)
//	read -u 3 x        →  read x </dev/fd/3
//	cmd >|f            →  cmd > ␁clobber␁f (the open handler skips noclobber)
//	cmd >&file         →  cmd &>file
//
// File names travel in an assignment prefix (fdTargetVar=WORD) so that
// they are neither split nor globbed, as in a redirection.

// fdCommand is the hidden command's name. Not a NUL byte: rewritten text
// for source and eval is printed and parsed again, and the lexer drops
// NULs. A script spelling it only reaches its own descriptor table.
const fdCommand = "\x01wsfs-fd"

// fdTargetVar carries a redirection's file name to fdCommand.
const fdTargetVar = "WSFS_FD_TARGET"

// clobberMark prefixes the file name of a >| redirection. (Not a NUL:
// the interpreter cuts a redirection's word at one. A script spelling it
// only skips the noclobber check.)
const clobberMark = "\x01wsfs-clobber\x01"

// rewriteFile adapts a parsed script to what the interpreter supports:
// descriptors above 2 (above), the last stage of a pipeline in a subshell
// as in bash (mvdan/sh runs it in the shell itself, so `echo x | read v`
// set v), and PIPESTATUS when the script reads it.
func rewriteFile(f *syntax.File) {
	group := 0
	pipeStatus := mentions(f, "PIPESTATUS")
	lastpipe := setsLastpipe(f)
	stages := map[*syntax.Stmt]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		if st, ok := n.(*syntax.Stmt); ok {
			group++
			if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && isPipe(b) && !stages[st] {
				rewritePipeline(st, b, group, pipeStatus, lastpipe, stages)
			}
			rewriteStmt(st, group)
		}
		return true
	})
}

// setsLastpipe reports a `shopt -s lastpipe` anywhere in the script: its
// pipelines then keep their last stage in the shell, as mvdan/sh does.
func setsLastpipe(f *syntax.File) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 2 && c.Args[0].Lit() == "shopt" && c.Args[1].Lit() == "-s" {
			for _, a := range c.Args[2:] {
				found = found || a.Lit() == "lastpipe"
			}
		}
		return !found
	})
	return found
}

// pipeStatusCommand records and reports the statuses of a pipeline's
// stages for PIPESTATUS:
//
//	␁pipestatus set ID I STATUS   stage I ended with STATUS
//	␁pipestatus end ID STATUS     the pipeline ended with STATUS
//	␁pipestatus get ID            print the stages' statuses
//	␁pipestatus status ID         give the pipeline's status again
const pipeStatusCommand = "\x01wsfs-pipestatus"

func isPipe(b *syntax.BinaryCmd) bool { return b.Op == syntax.Pipe || b.Op == syntax.PipeAll }

// mentions reports whether the script expands the variable name.
func mentions(f *syntax.File, name string) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil && pe.Param.Value == name {
			found = true
		}
		return !found
	})
	return found
}

// pipeStages lists a pipeline's stages, noting the inner pipelines.
func pipeStages(b *syntax.BinaryCmd, inner map[*syntax.Stmt]bool) []*syntax.Stmt {
	var out []*syntax.Stmt
	for _, s := range []*syntax.Stmt{b.X, b.Y} {
		if sb, ok := s.Cmd.(*syntax.BinaryCmd); ok && isPipe(sb) && len(s.Redirs) == 0 && !s.Negated {
			inner[s] = true
			out = append(out, pipeStages(sb, inner)...)
			continue
		}
		out = append(out, s)
	}
	return out
}

func rewritePipeline(st *syntax.Stmt, b *syntax.BinaryCmd, id int, pipeStatus, lastpipe bool, inner map[*syntax.Stmt]bool) {
	stages := pipeStages(b, inner)
	idw := lit(strconv.Itoa(id))
	for i, s := range stages {
		orig := *s
		body := []*syntax.Stmt{&orig}
		if pipeStatus {
			body = append(body, call(lit(pipeStatusCommand), lit("set"), idw, lit(strconv.Itoa(i)), statusWord()))
		}
		switch {
		case i == len(stages)-1 && !lastpipe:
			*s = syntax.Stmt{Cmd: &syntax.Subshell{Stmts: body}}
		case pipeStatus:
			*s = syntax.Stmt{Cmd: &syntax.Block{Stmts: body}}
		}
	}
	if !pipeStatus {
		return
	}
	pipe := &syntax.Stmt{Cmd: b}
	inner[pipe] = true
	get := &syntax.CmdSubst{Stmts: []*syntax.Stmt{call(lit(pipeStatusCommand), lit("get"), idw)}}
	assign := &syntax.Stmt{Cmd: &syntax.CallExpr{Assigns: []*syntax.Assign{{
		Name:  &syntax.Lit{Value: "PIPESTATUS"},
		Array: &syntax.ArrayExpr{Elems: []*syntax.ArrayElem{{Value: &syntax.Word{Parts: []syntax.WordPart{get}}}}},
	}}}}
	st.Cmd = &syntax.Block{Stmts: []*syntax.Stmt{
		pipe,
		call(lit(pipeStatusCommand), lit("end"), idw, statusWord()),
		assign,
		call(lit(pipeStatusCommand), lit("status"), idw),
	}}
}

func statusWord() *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.ParamExp{Param: &syntax.Lit{Value: "?"}}}}
}

func lit(s string) *syntax.Word { return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: s}}} }

func call(args ...*syntax.Word) *syntax.Stmt {
	return &syntax.Stmt{Cmd: &syntax.CallExpr{Args: args}}
}

// fdNumber returns the descriptor a redirection names (-1 for none or
// {var}).
func fdNumber(rd *syntax.Redirect) int {
	if rd.N == nil {
		return -1
	}
	n, err := strconv.Atoi(rd.N.Value)
	if err != nil {
		return -1
	}
	return n
}

// fdVarName returns NAME for a {NAME}> redirection.
func fdVarName(rd *syntax.Redirect) string {
	if rd.N == nil || !strings.HasPrefix(rd.N.Value, "{") || !strings.HasSuffix(rd.N.Value, "}") {
		return ""
	}
	return rd.N.Value[1 : len(rd.N.Value)-1]
}

func isHeredoc(op syntax.RedirOperator) bool {
	return op == syntax.Hdoc || op == syntax.DashHdoc || op == syntax.WordHdoc
}

// needsTable reports whether a redirection needs the descriptor table.
func needsTable(rd *syntax.Redirect) bool {
	n := fdNumber(rd)
	switch {
	case fdVarName(rd) != "":
		return true
	case n > 2:
		return true
	case (n == 1 || n == 2) && isHeredoc(rd.Op):
		return true
	}
	return false
}

// fdOp is how fdCommand names a redirection operator.
func fdOp(rd *syntax.Redirect) (string, bool) {
	switch rd.Op {
	case syntax.RdrIn:
		return "<", true
	case syntax.RdrOut:
		return ">", true
	case syntax.RdrClob:
		return ">|", true
	case syntax.AppOut:
		return ">>", true
	case syntax.RdrInOut:
		return "<>", true
	case syntax.DplIn, syntax.DplOut:
		if w := rd.Word.Lit(); w == "-" {
			return "close", true
		}
		return "dup", true
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return "<<", true
	}
	return "", false
}

// tableCall is the fdCommand statement applying rd with the given leading
// arguments (push G N, set N, var).
func tableCall(rd *syntax.Redirect, lead ...*syntax.Word) *syntax.Stmt {
	op, _ := fdOp(rd)
	opWord := &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: op}}} // '<' survives printing
	st := call(append(append([]*syntax.Word{lit(fdCommand)}, lead...), opWord)...)
	switch {
	case isHeredoc(rd.Op):
		st.Redirs = []*syntax.Redirect{{OpPos: rd.OpPos, Op: rd.Op, Word: rd.Word, Hdoc: rd.Hdoc}}
	case op != "close":
		st.Cmd.(*syntax.CallExpr).Assigns = []*syntax.Assign{{Name: &syntax.Lit{Value: fdTargetVar}, Value: rd.Word}}
	}
	return st
}

// fdWord is the descriptor of a redirection as a word: its number, or
// "$NAME" for {NAME}.
func fdWord(rd *syntax.Redirect) *syntax.Word {
	if name := fdVarName(rd); name != "" {
		return &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{
			&syntax.ParamExp{Param: &syntax.Lit{Value: name}}}}}}
	}
	return lit(rd.N.Value)
}

func rewriteStmt(st *syntax.Stmt, group int) {
	if call, ok := st.Cmd.(*syntax.CallExpr); ok {
		rewriteReadU(st, call)
	}
	var table, plain []*syntax.Redirect
	for _, rd := range st.Redirs {
		rewriteDup(rd)
		if _, ok := fdOp(rd); ok && needsTable(rd) {
			table = append(table, rd)
			continue
		}
		plain = append(plain, rd)
	}
	if len(table) == 0 {
		return
	}
	if isBareExec(st.Cmd) {
		// exec 3<f: the shell's own descriptors change for good.
		var stmts []*syntax.Stmt
		for _, rd := range table {
			if name := fdVarName(rd); name != "" && !isClose(rd) {
				stmts = append(stmts, assignFdVar(name, rd))
				continue
			}
			stmts = append(stmts, tableCall(rd, lit("set"), fdWord(rd)))
		}
		if len(plain) > 0 {
			stmts = append(stmts, &syntax.Stmt{Cmd: st.Cmd, Redirs: plain})
		}
		// left to right, stopping at the first that fails
		chain := stmts[len(stmts)-1]
		for i := len(stmts) - 2; i >= 0; i-- {
			chain = &syntax.Stmt{Cmd: &syntax.BinaryCmd{Op: syntax.AndStmt, X: stmts[i], Y: chain}}
		}
		st.Cmd, st.Redirs = chain.Cmd, nil
		return
	}
	// The redirections hold for this command only; {NAME} ones stay open
	// (bash leaves them to the script to close) unless there is no
	// command at all.
	g := lit(strconv.Itoa(group))
	var pushes, assigns []*syntax.Stmt
	var closeAfter []*syntax.Word // {NAME} descriptors of a statement with no command
	for _, rd := range table {
		if name := fdVarName(rd); name != "" && !isClose(rd) {
			assigns = append(assigns, assignFdVar(name, rd))
			if st.Cmd == nil {
				closeAfter = append(closeAfter, fdWord(rd))
			}
			continue
		}
		pushes = append(pushes, tableCall(rd, lit("push"), g, fdWord(rd)))
		if k := fdNumber(rd); (k == 1 || k == 2) && isHeredoc(rd.Op) {
			// the command's stdout (stderr) is now the here-document's
			// read end: writing to it fails, as in bash
			plain = append(plain, &syntax.Redirect{Op: syntax.RdrOut, N: rd.N, Word: lit("/dev/fd/" + rd.N.Value)})
		}
	}
	inner := &syntax.Stmt{Cmd: st.Cmd, Redirs: plain}
	if st.Cmd == nil {
		inner = call(lit("true"))
		inner.Redirs = plain
	}
	chain := inner
	for i := len(pushes) - 1; i >= 0; i-- {
		chain = &syntax.Stmt{Cmd: &syntax.BinaryCmd{Op: syntax.AndStmt, X: pushes[i], Y: chain}}
	}
	stmts := append(assigns, chain)
	if len(pushes) > 0 || len(closeAfter) > 0 {
		stmts = append(stmts, call(append([]*syntax.Word{lit(fdCommand), lit("pop"), g, statusWord()}, closeAfter...)...))
	}
	st.Cmd, st.Redirs = &syntax.Block{Stmts: stmts}, nil
	if len(closeAfter) > 0 {
		// without a command, bash leaves neither the variable set nor
		// the descriptor open
		st.Cmd = &syntax.Subshell{Stmts: stmts}
	}
}

// isClose reports N>&- and N<&-.
func isClose(rd *syntax.Redirect) bool {
	op, _ := fdOp(rd)
	return op == "close"
}

// assignFdVar is NAME=$(␁fd free) && ␁fd set "$NAME" OP for a {NAME}
// redirection: the descriptor is opened in the shell itself (a command
// substitution would see its own stdout).
func assignFdVar(name string, rd *syntax.Redirect) *syntax.Stmt {
	sub := &syntax.CmdSubst{Stmts: []*syntax.Stmt{call(lit(fdCommand), lit("free"))}}
	assign := &syntax.Stmt{Cmd: &syntax.CallExpr{Assigns: []*syntax.Assign{{
		Name:  &syntax.Lit{Value: name},
		Value: &syntax.Word{Parts: []syntax.WordPart{sub}},
	}}}}
	return &syntax.Stmt{Cmd: &syntax.BinaryCmd{Op: syntax.AndStmt, X: assign, Y: tableCall(rd, lit("set"), fdWord(rd))}}
}

// isBareExec reports an `exec` with no command: its redirections apply
// to the shell.
func isBareExec(cmd syntax.Command) bool {
	c, ok := cmd.(*syntax.CallExpr)
	return ok && len(c.Args) == 1 && c.Args[0].Lit() == "exec"
}

// rewriteDup turns >&N and <&N for descriptors the interpreter does not
// know into /dev/fd/N, >|f into a marked >f, and >&file into &>file.
func rewriteDup(rd *syntax.Redirect) {
	switch rd.Op {
	case syntax.RdrClob:
		if !needsTable(rd) {
			rd.Op = syntax.RdrOut
			rd.Word = &syntax.Word{Parts: append([]syntax.WordPart{&syntax.Lit{Value: clobberMark}}, rd.Word.Parts...)}
		}
		return
	case syntax.DplIn, syntax.DplOut:
	default:
		return
	}
	if needsTable(rd) {
		return // 3>&1, {v}<&0: fdCommand dups
	}
	w := rd.Word.Lit()
	switch {
	case w == "0" || w == "1" || w == "2" || w == "-":
		return // the interpreter's own
	case w != "" && strings.Trim(w, "0123456789") != "" && rd.Op == syntax.DplOut && (rd.N == nil || rd.N.Value == "1"):
		rd.Op, rd.N = syntax.RdrAll, nil // >&file is &>file
		return
	}
	if rd.Op == syntax.DplIn {
		rd.Op = syntax.RdrIn
	} else {
		rd.Op = syntax.RdrOut
	}
	rd.Word = &syntax.Word{Parts: append([]syntax.WordPart{&syntax.Lit{Value: "/dev/fd/"}}, rd.Word.Parts...)}
}

// rewriteReadU turns read -u FD into read with </dev/fd/FD.
func rewriteReadU(st *syntax.Stmt, c *syntax.CallExpr) {
	if len(c.Args) < 2 || c.Args[0].Lit() != "read" {
		return
	}
	for i := 1; i < len(c.Args); i++ {
		a := c.Args[i].Lit()
		if a == "--" || !strings.HasPrefix(a, "-") || len(a) < 2 {
			return
		}
		for j := 1; j < len(a); j++ {
			ch := a[j]
			if ch == 'u' {
				var fd *syntax.Word
				rest := a[:j]
				args := c.Args[:i:i]
				switch {
				case j+1 < len(a):
					fd = lit(a[j+1:])
					args = append(args, c.Args[i+1:]...)
				case i+1 < len(c.Args):
					fd = c.Args[i+1]
					args = append(args, c.Args[i+2:]...)
				default:
					return
				}
				if rest != "-" {
					args = append(args[:i:i], append([]*syntax.Word{lit(rest)}, args[i:]...)...)
				}
				c.Args = args
				st.Redirs = append(st.Redirs, &syntax.Redirect{Op: syntax.RdrIn,
					Word: &syntax.Word{Parts: append([]syntax.WordPart{&syntax.Lit{Value: "/dev/fd/"}}, fd.Parts...)}})
				return
			}
			if strings.IndexByte("adinNpt", ch) >= 0 {
				if j+1 == len(a) {
					i++ // the option's value
				}
				break
			}
		}
	}
}

// traceFilter drops the lines xtrace (set -x) prints for the hidden
// commands, which the script did not write; each such line comes in one
// Write.
type traceFilter struct{ w io.Writer }

func (t traceFilter) Write(p []byte) (int, error) {
	if isHiddenTrace(p) {
		return len(p), nil
	}
	return t.w.Write(p)
}

func isHiddenTrace(p []byte) bool {
	return len(p) > 0 && p[len(p)-1] == '\n' &&
		(bytes.Contains(p, []byte(fdCommand[1:])) || bytes.Contains(p, []byte(pipeStatusCommand[1:])))
}

// rewriteSource rewrites prog and prints it back as shell text, for code
// the interpreter parses itself (a sourced file, eval's arguments). It
// reports false when the text would not parse back.
func rewriteSource(prog *syntax.File) (string, bool) {
	rewriteFile(prog)
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, prog); err != nil {
		return "", false
	}
	if _, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(b.String()), ""); err != nil {
		return "", false
	}
	return b.String(), true
}
