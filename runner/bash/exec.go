package bash

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// runScript parses and runs a whole script (the command, a nested
// shell's script) and returns its status.
func (sh *Shell) runScript(text, file string) int {
	sh.scriptLevel = true
	sh.runText(text, file, 0)
	return sh.status
}

// runText parses text and runs it a line at a time, as bash reads it:
// what precedes a syntax error runs, an expansion error abandons only
// its own line, aliases defined on one line apply from the next. It is
// the reader of scripts, sourced files, eval and traps.
func (sh *Shell) runText(text, file string, lineBase int) {
	top := sh.scriptLevel
	sh.scriptLevel = false
	stmts, src, perr := parseText(text, file)
	src.lineBase = lineBase
	prev := sh.src
	sh.src = src
	defer func() { sh.src = prev }()
	done := 0 // offset of the text not run yet
	for _, group := range lineGroups(stmts) {
		if sh.ended() {
			break
		}
		done = int(group[len(group)-1].End().Offset())
		if w, ok := src.warnings[int(group[0].Pos().Line())]; ok {
			fmt.Fprintf(sh.stderr(), "%s: %s\n", sh.name, w)
		}
		g, gsrc := sh.expandAliases(group, src)
		if gsrc != src {
			sh.src = gsrc
		}
		sh.stmts(g)
		sh.src = src
		if sh.flow == flowAbort {
			sh.flow = flowNone
			sh.status = 1
			if sh.opts.errexit && sh.inCond == 0 && !sh.errexitOff {
				sh.flow = flowExit
			}
		}
		if sh.flow != flowNone {
			break
		}
	}
	if perr != nil && !sh.ended() && sh.flow == flowNone && sh.shopts.expandAliases && len(sh.aliases) > 0 && done <= len(src.text) {
		// The rest may parse once its aliases are expanded.
		rest := src.original(src.text[done:])
		if expanded := sh.aliasText(rest); expanded != rest {
			sh.src = prev
			pad := strings.Repeat("\n", strings.Count(src.text[:done], "\n"))
			sh.runText(pad+expanded, file, lineBase)
			return
		}
	}
	if perr != nil && !sh.ended() && sh.flow == flowNone {
		sh.status = sh.syntaxError(perr, src)
		if top {
			// A script's syntax error ends the shell; in eval, source
			// or a trap it is that command's status 2.
			sh.flow = flowExit
		}
	}
}

// stmts runs a statement list.
func (sh *Shell) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		if sh.flow != flowNone {
			return
		}
		if sh.stopped() {
			sh.stopNow()
			return
		}
		sh.stmt(s)
	}
}

// lineOf is the script line of a node, for $LINENO and messages.
func (sh *Shell) lineOf(n syntax.Node) int {
	l := int(n.Pos().Line())
	if sh.src != nil {
		l += sh.src.lineBase
	}
	return l
}

// stmt runs one statement: its redirections, negation, background.
func (sh *Shell) stmt(s *syntax.Stmt) {
	if sh.stopped() {
		sh.stopNow()
		return
	}
	sh.line = sh.lineOf(s)
	if sh.opts.noexec {
		return // set -n: read, not run
	}
	if s.Background {
		sh.background(s)
		return
	}
	if s.Cmd == nil {
		// Redirections alone (> file): made in a subshell, as bash does,
		// so nothing of them stays ({fd}>file sets no variable).
		if len(s.Redirs) > 0 {
			sub := sh.fork()
			restore, ok := sub.redirect(s.Redirs, false)
			restore()
			sub.finish()
			if !ok {
				sh.status = 1
				sh.checkErrexit(s)
				return
			}
		}
		sh.status = 0
		return
	}
	var restore func()
	if len(s.Redirs) > 0 {
		switch s.Cmd.(type) {
		case *syntax.CallExpr, *syntax.DeclClause:
		default:
			r, ok := sh.redirect(s.Redirs, false)
			if !ok {
				r()
				sh.status = 1
				if sh.inCond == 0 && !s.Negated && sh.flow == flowNone {
					sh.failed()
				}
				return
			}
			restore = r
		}
	}
	if s.Negated {
		sh.inCond++
	}
	sh.command1(s)
	if s.Negated {
		sh.inCond--
		if sh.flow == flowNone || sh.flow == flowReturn {
			if sh.status == 0 {
				sh.status = 1
			} else {
				sh.status = 0
			}
		}
	}
	if restore != nil {
		restore()
	}
	if !s.Negated {
		sh.checkErrexit(s)
	}
	for len(sh.pendingSignals) > 0 && sh.flow == flowNone {
		sig := sh.pendingSignals[0]
		sh.pendingSignals = sh.pendingSignals[1:]
		sh.deliver(sig)
	}
}

// command1 runs the command of a statement, with the statement's
// redirections when it is a simple command (they apply after its
// assignments' expansion, as in bash).
func (sh *Shell) command1(s *syntax.Stmt) {
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		sh.call(c, s.Redirs)
	case *syntax.DeclClause:
		sh.declClause(c, s.Redirs)
	default:
		sh.command(c)
	}
}

// checkErrexit applies set -e and the ERR trap after a statement whose
// command failed, except where bash ignores failures (conditions, all
// but the last command of && and ||, compound commands whose failure
// came from inside).
func (sh *Shell) checkErrexit(s *syntax.Stmt) {
	if sh.status == 0 || sh.flow != flowNone || sh.inCond > 0 {
		return
	}
	switch c := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		if c.Op == syntax.AndStmt || c.Op == syntax.OrStmt {
			return
		}
	case *syntax.Block, *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause, *syntax.FuncDecl:
		return
	}
	sh.failed()
}

// failed runs the ERR trap and applies errexit after a failure.
func (sh *Shell) failed() {
	if action, ok := sh.traps["ERR"]; ok && sh.inTrap != "ERR" && (sh.inFunc == 0 || sh.opts.errtrace) {
		status := sh.status
		sh.runTrap("ERR", action)
		sh.status = status
	}
	if sh.opts.errexit && !sh.errexitOff && sh.flow == flowNone {
		sh.flow = flowExit
	}
}

// command runs a compound command (or any command but a simple one).
func (sh *Shell) command(c syntax.Command) {
	switch c := c.(type) {
	case *syntax.CallExpr:
		sh.call(c, nil)
	case *syntax.Block:
		sh.stmts(c.Stmts)
	case *syntax.Subshell:
		sh.subshellRun(func(sub *Shell) { sub.stmts(c.Stmts) })
	case *syntax.IfClause:
		sh.ifClause(c)
	case *syntax.WhileClause:
		sh.whileClause(c)
	case *syntax.ForClause:
		if c.Select {
			sh.selectClause(c)
		} else {
			sh.forClause(c)
		}
	case *syntax.CaseClause:
		sh.caseClause(c)
	case *syntax.BinaryCmd:
		sh.binaryCmd(c)
	case *syntax.FuncDecl:
		sh.funcDecl(c)
	case *syntax.ArithmCmd:
		if sh.opts.xtrace && sh.src != nil && int(c.Right.Offset()) <= len(sh.src.text) {
			sh.trace("(( " + sh.src.text[c.Left.Offset()+2:c.Right.Offset()] + " ))")
		}
		n, err := sh.arithSpan(c.X, int(c.Left.Offset())+2, int(c.Right.Offset()), "((")
		if err != nil {
			sh.arithFailed(err, "((")
			return
		}
		sh.status = boolStatus(n != 0)
	case *syntax.TestClause:
		sh.testClause(c)
	case *syntax.DeclClause:
		sh.declClause(c, nil)
	case *syntax.LetClause:
		sh.letClause(c)
	case *syntax.TimeClause:
		sh.timeClause(c)
	case *syntax.CoprocClause:
		sh.coproc(c)
	default:
		sh.errorf("unsupported command")
		sh.status = 2
	}
}

func boolStatus(ok bool) int {
	if ok {
		return 0
	}
	return 1
}

// cond runs a condition list: errexit does not apply inside.
func (sh *Shell) cond(list []*syntax.Stmt) {
	sh.inCond++
	sh.stmts(list)
	sh.inCond--
}

func (sh *Shell) ifClause(c *syntax.IfClause) {
	for ; c != nil; c = c.Else {
		if len(c.Cond) == 0 && c.ThenPos == (syntax.Pos{}) {
			// else
			sh.stmts(c.Then)
			return
		}
		sh.cond(c.Cond)
		if sh.flow != flowNone {
			return
		}
		if sh.status == 0 {
			sh.stmts(c.Then)
			return
		}
	}
	sh.status = 0
}

// loopDone handles break and continue after a loop's body or condition:
// it reports whether the loop must stop.
func (sh *Shell) loopDone() bool {
	switch sh.flow {
	case flowNone:
		return false
	case flowBreak:
		sh.flowN--
		if sh.flowN <= 0 {
			sh.flow = flowNone
		}
		return true
	case flowContinue:
		sh.flowN--
		if sh.flowN <= 0 {
			sh.flow = flowNone
			return false
		}
		return true
	}
	return true
}

func (sh *Shell) whileClause(c *syntax.WhileClause) {
	sh.loops++
	defer func() { sh.loops-- }()
	status := 0
	for {
		if sh.stopped() {
			sh.stopNow()
			return
		}
		sh.cond(c.Cond)
		if sh.flow == flowContinue && sh.flowN <= 1 {
			sh.flow = flowNone
			continue
		}
		if sh.loopDone() {
			sh.status = status
			return
		}
		if (sh.status == 0) == c.Until {
			break
		}
		sh.stmts(c.Do)
		status = sh.status
		if sh.loopDone() {
			sh.status = status
			if sh.flow == flowNone {
				sh.status = 0
			}
			return
		}
	}
	sh.status = status
}

func (sh *Shell) forClause(c *syntax.ForClause) {
	switch l := c.Loop.(type) {
	case *syntax.WordIter:
		var items []string
		if l.InPos.IsValid() {
			fields, err := sh.expandWords(l.Items)
			if err != nil {
				sh.expandFailed(err)
				return
			}
			items = fields
		} else {
			items = append([]string(nil), sh.params...)
		}
		name := l.Name.Value
		if !isValidName(name) {
			sh.errorf("`%s': not a valid identifier", name)
			sh.status = 1
			return
		}
		sh.loops++
		defer func() { sh.loops-- }()
		sh.status = 0
		for _, it := range items {
			if sh.stopped() {
				sh.stopNow()
				return
			}
			if err := sh.setVar(name, it); err != nil {
				sh.errorf("%v", err)
				sh.status = 1
				return
			}
			sh.stmts(c.Do)
			if sh.loopDone() {
				return
			}
		}
	case *syntax.CStyleLoop:
		loopLine := sh.line
		sh.loops++
		defer func() { sh.loops-- }()
		if l.Init != nil {
			if _, err := sh.arithNode(l.Init, "(("); err != nil {
				sh.arithFailed(err, "((")
				return
			}
		}
		status := 0
		for {
			if sh.stopped() {
				sh.stopNow()
				return
			}
			sh.line = loopLine
			if l.Cond != nil {
				n, err := sh.arithNode(l.Cond, "((")
				if err != nil {
					sh.arithFailed(err, "((")
					return
				}
				if n == 0 {
					break
				}
			}
			sh.stmts(c.Do)
			status = sh.status
			if sh.loopDone() {
				return
			}
			if l.Post != nil {
				sh.line = loopLine
				if _, err := sh.arithNode(l.Post, "(("); err != nil {
					sh.arithFailed(err, "((")
					return
				}
			}
		}
		sh.status = status
	}
}

func (sh *Shell) caseClause(c *syntax.CaseClause) {
	word, err := sh.expandString(c.Word)
	if err != nil {
		sh.expandFailed(err)
		return
	}
	sh.trace("case " + word + " in")
	sh.status = 0
	fallthru := false
	for i := 0; i < len(c.Items); i++ {
		item := c.Items[i]
		matched := fallthru
		if !matched {
			for _, p := range item.Patterns {
				pat, err := sh.expandPattern(p)
				if err != nil {
					sh.expandFailed(err)
					return
				}
				if sh.matchPattern(pat, word, sh.shopts.nocasematch, true) {
					matched = true
					break
				}
			}
		}
		if !matched {
			continue
		}
		sh.stmts(item.Stmts)
		if sh.flow != flowNone {
			return
		}
		switch item.Op {
		case syntax.Fallthrough: // ;&
			fallthru = true
		case syntax.Resume: // ;;&
			fallthru = false
		default:
			return
		}
	}
}

func (sh *Shell) binaryCmd(c *syntax.BinaryCmd) {
	switch c.Op {
	case syntax.AndStmt, syntax.OrStmt:
		sh.inCond++
		sh.stmt(c.X)
		sh.inCond--
		if sh.flow != flowNone {
			return
		}
		if (sh.status == 0) == (c.Op == syntax.AndStmt) {
			sh.stmt(c.Y)
		}
	case syntax.Pipe, syntax.PipeAll:
		sh.pipeline(c)
	}
}

// funcDecl defines a function.
func (sh *Shell) funcDecl(c *syntax.FuncDecl) {
	name := c.Name.Value
	if sh.opts.posix && isSpecialBuiltin(name) {
		sh.errorf("`%s': is a special builtin", name)
		sh.status = 1
		return
	}
	if old, ok := sh.funcs[name]; ok && old.readonly {
		sh.errorf("%s: readonly function", name)
		sh.status = 1
		return
	}
	file := ""
	if sh.src != nil {
		file = sh.src.file
	}
	sh.funcs[name] = &funcDef{name: name, body: c.Body, src: sh.src, file: file, line: sh.lineOf(c)}
	sh.status = 0
}

// subshellRun runs fn in a forked copy of the shell, synchronously: the
// copy's changes stay in it, and its exit ends only itself.
func (sh *Shell) subshellRun(fn func(sub *Shell)) {
	if !sh.checkDepth() {
		return
	}
	sub := sh.fork()
	sub.depth++
	sh.runForked(sub, fn)
	sh.status = sub.status
}

// runForked runs fn in sub and finishes it as a subshell: EXIT trap,
// descriptors released.
func (sh *Shell) runForked(sub *Shell, fn func(sub *Shell)) {
	fn(sub)
	if sub.flow == flowAbort {
		sub.status = 1
	}
	sub.status = sub.exitShell(sub.status)
	sub.finish()
	if sh.stopped() && sub.status == 0 {
		sub.status = 124
	}
}

func (sh *Shell) timeClause(c *syntax.TimeClause) {
	start := time.Now()
	if c.Stmt != nil {
		sh.stmt(c.Stmt)
	} else {
		sh.status = 0
	}
	elapsed := time.Since(start)
	format := "\nreal\t%3lR\nuser\t%3lU\nsys\t%3lS"
	if c.PosixFormat {
		format = "real %2R\nuser %2U\nsys %2S"
	}
	if v, ok := sh.getVar("TIMEFORMAT"); ok {
		format = v
	}
	fmt.Fprintln(sh.stderr(), timeFormat(format, elapsed))
}

// timeFormat expands TIMEFORMAT's %[p][l]R, U, S and %P; the shell's
// commands run in its own process, so user and system time are shown as
// the wall time's share the shell cannot split: 0.
func timeFormat(format string, real time.Duration) string {
	var out []byte
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 >= len(format) {
			out = append(out, c)
			continue
		}
		i++
		if format[i] == '%' {
			out = append(out, '%')
			continue
		}
		prec := 3
		long := false
		if format[i] >= '0' && format[i] <= '9' {
			prec = int(format[i] - '0')
			if prec > 3 {
				prec = 3
			}
			i++
		}
		if i < len(format) && format[i] == 'l' {
			long = true
			i++
		}
		if i >= len(format) {
			break
		}
		var d time.Duration
		switch format[i] {
		case 'R':
			d = real
		case 'U', 'S':
			d = 0
		case 'P':
			out = append(out, "0.00"...)
			continue
		default:
			out = append(out, '%', format[i])
			continue
		}
		secs := d.Seconds()
		if long {
			m := int(secs / 60)
			secs -= float64(m * 60)
			out = append(out, fmt.Sprintf("%dm%.*fs", m, prec, secs)...)
		} else {
			out = append(out, fmt.Sprintf("%.*f", prec, secs)...)
		}
	}
	return string(out)
}

// pipeline runs a | b | c: every stage in a subshell of its own,
// concurrently, joined by in-process pipes; with lastpipe the last stage
// runs in this shell.
func (sh *Shell) pipeline(c *syntax.BinaryCmd) {
	var stages []*syntax.Stmt
	var all []bool // stage i's stderr goes into the pipe too (|&)
	var flatten func(s *syntax.Stmt, pipeAll bool)
	flatten = func(s *syntax.Stmt, pipeAll bool) {
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) && !s.Negated && len(s.Redirs) == 0 && !s.Background {
			flatten(b.X, b.Op == syntax.PipeAll)
			flatten(b.Y, pipeAll)
			return
		}
		stages = append(stages, s)
		all = append(all, pipeAll)
	}
	flatten(c.X, c.Op == syntax.PipeAll)
	flatten(c.Y, false)
	n := len(stages)
	statuses := make([]int, n)
	done := make(chan int, n)
	var prevRead *openFile
	lastHere := sh.shopts.lastpipe && !sh.opts.monitor
	started := 0
	for i, st := range stages {
		var rd, wr *openFile
		if i < n-1 {
			rd, wr = sh.run.pipeFiles()
		}
		if i == n-1 && lastHere {
			// The last stage runs in this shell, its stdin the pipe.
			restore := sh.fds.swap(0, prevRead)
			sh.stmt(st)
			sh.fds.set(0, restore)
			statuses[i] = sh.status
			prevRead = nil
			break
		}
		sub := sh.fork()
		sub.depth++
		sub.inCond = sh.inCond
		if prevRead != nil {
			sub.fds.set(0, prevRead)
			prevRead = nil
		}
		if wr != nil {
			sub.fds.set(1, wr.acquire())
			if all[i] {
				sub.fds.set(2, wr.acquire())
			}
			wr.release()
		}
		prevRead = rd
		idx := i
		stmt := st
		ok := sh.goroutine(func() {
			sh.runForked(sub, func(s *Shell) {
				s.stmt(stmt)
				if s.flow == flowReturn {
					s.flow = flowNone
				}
			})
			statuses[idx] = sub.status
			done <- idx
		})
		if !ok {
			sub.finish()
			statuses[idx] = 1
			break
		}
		started++
	}
	if prevRead != nil {
		prevRead.release()
	}
	for ; started > 0; started-- {
		<-done
	}
	sh.pipestatus = statuses
	status := statuses[n-1]
	if sh.opts.pipefail {
		for i := n - 1; i >= 0; i-- {
			if statuses[i] != 0 {
				status = statuses[i]
				break
			}
		}
	}
	if !lastHere || sh.flow == flowNone {
		sh.status = status
	}
	if sh.stopped() {
		sh.stopNow()
	}
}

// trace prints an xtrace line (set -x) for a compound command.
func (sh *Shell) trace(line string) {
	if !sh.opts.xtrace {
		return
	}
	io.WriteString(sh.traceWriter(), sh.ps4()+line+"\n")
}

// selectClause runs select NAME in WORDS: a numbered menu on stderr, a
// line read from stdin each round, until EOF or break.
func (sh *Shell) selectClause(c *syntax.ForClause) {
	l, ok := c.Loop.(*syntax.WordIter)
	if !ok {
		return
	}
	var items []string
	if l.InPos.IsValid() {
		fields, err := sh.expandWords(l.Items)
		if err != nil {
			sh.expandFailed(err)
			return
		}
		items = fields
	} else {
		items = append([]string(nil), sh.params...)
	}
	if len(items) == 0 {
		sh.status = 0
		return
	}
	sh.loops++
	defer func() { sh.loops-- }()
	showMenu := true
	for {
		if sh.stopped() {
			sh.stopNow()
			return
		}
		if showMenu {
			var b strings.Builder
			width := len(strconv.Itoa(len(items)))
			for i, it := range items {
				fmt.Fprintf(&b, "%*d) %s\n", width, i+1, it)
			}
			io.WriteString(sh.stderr(), b.String())
		}
		ps3, ok := sh.getVar("PS3")
		if !ok {
			ps3 = "#? "
		}
		io.WriteString(sh.stderr(), ps3)
		of := sh.fds.get(0)
		if of == nil {
			sh.status = 1
			return
		}
		line, err := of.readUntil('\n', 0)
		if len(line) == 0 && err != nil {
			io.WriteString(sh.stderr(), "\n")
			sh.status = 1
			return
		}
		reply := strings.TrimSuffix(string(line), "\n")
		sh.setVar("REPLY", reply)
		if strings.TrimSpace(reply) == "" {
			showMenu = true
			continue
		}
		showMenu = false
		val := ""
		if n, err := strconv.Atoi(strings.TrimSpace(reply)); err == nil && n >= 1 && n <= len(items) {
			val = items[n-1]
		}
		sh.setVar(l.Name.Value, val)
		sh.stmts(c.Do)
		if sh.loopDone() {
			return
		}
	}
}

// letClause runs let parsed as a clause: each expression's text,
// expanded, is evaluated.
func (sh *Shell) letClause(c *syntax.LetClause) {
	args := []string{"let"}
	for _, e := range c.Exprs {
		// let's arguments are words: their quotes go.
		t, err := sh.spanText(int(e.Pos().Offset()), int(e.End().Offset()), e, true)
		if err != nil {
			sh.expandFailed(err)
			return
		}
		args = append(args, t)
	}
	if sh.opts.xtrace {
		sh.traceWords(args)
	}
	sh.status = builtinLet(sh, args)
}
