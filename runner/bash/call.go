package bash

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A simple command runs as bash runs it: its words are expanded (brace
// … pathname expansion), then its redirections are applied, then its
// assignments are expanded. With no command word left, the assignments
// change the shell. Otherwise the name is resolved in this order: a
// function, a builtin, then PATH (a runner command in /bin or /usr/bin,
// or a script file of the workspace) — a name with a slash is a path.
// The assignments before a function or builtin live in a temporary scope
// for its duration; before a runner command they are only its
// environment.

// call runs a simple command with the statement's redirections.
func (sh *Shell) call(c *syntax.CallExpr, redirs []*syntax.Redirect) {
	mark := len(sh.procFds)
	defer func() {
		sh.closeProcFds(mark)
		sh.pipestatus = append(sh.pipestatus[:0], sh.status)
	}()
	sh.hadSubst, sh.substStatus = false, 0
	if len(c.Args) == 0 {
		sh.assignOnly(c.Assigns, redirs)
		return
	}
	if sh.opts.debugTrap() && !sh.runDebugTrap(c) {
		return
	}
	fields, err := sh.expandWords(c.Args)
	if err != nil {
		sh.expandFailed(err)
		return
	}
	if sh.flow != flowNone {
		return
	}
	if len(fields) == 0 {
		sh.assignOnly(c.Assigns, redirs)
		return
	}
	if fields[0] == "exec" && len(fields) == 1 && sh.funcs["exec"] == nil && sh.builtinEnabled("exec") {
		// exec with redirections only: they stay.
		if sh.opts.xtrace {
			sh.traceWords(fields)
		}
		_, ok := sh.redirect(redirs, true)
		sh.status = boolStatus(ok)
		sh.lastArg = "exec"
		return
	}
	// xtrace goes where stderr was before the command's redirections.
	savedTrace := sh.traceOut
	sh.traceOut = sh.traceWriter()
	defer func() { sh.traceOut = savedTrace }()
	restore, ok := sh.redirect(redirs, false)
	if !ok {
		restore()
		sh.status = 1
		sh.lastArg = fields[len(fields)-1]
		return
	}
	defer restore()
	sh.runFields(fields, c.Assigns)
}

// runFields runs an expanded command with its prefix assignments.
func (sh *Shell) runFields(fields []string, assigns []*syntax.Assign) {
	name := fields[0]
	defer func() { sh.lastArg = fields[len(fields)-1] }()
	sh.curCommand = strings.Join(fields, " ")
	_, isBuiltin := builtins[name]
	isBuiltin = isBuiltin && sh.builtinEnabled(name)
	_, isFunc := sh.funcs[name]
	if len(assigns) > 0 && !isFunc && isBuiltin && isSpecialBuiltin(name) && sh.opts.posix {
		// POSIX: assignments before a special builtin stay.
		for _, a := range assigns {
			pa, err := sh.prefixValue(a)
			if err != nil {
				sh.expandFailed(err)
				return
			}
			if sh.opts.xtrace {
				sh.traceAssign(pa)
			}
			if !sh.assignPrefix(pa) {
				return
			}
		}
		assigns = nil
	}
	// The prefix assignments live in a scope of their own, expanded one
	// after the other (each sees the ones before it), exported to what
	// the command runs, gone afterwards.
	var f *frame
	if len(assigns) > 0 {
		f = &frame{temp: true, level: sh.level() + 1}
		sh.frames = append(sh.frames, f)
		defer func() {
			sh.popLocals(f)
			sh.frames = sh.frames[:len(sh.frames)-1]
		}()
		for _, a := range assigns {
			pa, err := sh.prefixValue(a)
			if err != nil {
				sh.expandFailed(err)
				return
			}
			if sh.opts.xtrace {
				sh.traceAssign(pa)
			}
			if !sh.bindTemp(pa) {
				return
			}
		}
	}
	if sh.opts.xtrace {
		sh.traceWords(fields)
	}
	switch {
	case isFunc:
		sh.callFunction(sh.funcs[name], fields)
	case isBuiltin:
		sh.status = builtins[name](sh, fields)
	default:
		sh.status = sh.external(fields, nil)
	}
}

// bindTemp binds a prefix assignment in the innermost (temporary)
// scope; false after an error.
func (sh *Shell) bindTemp(p prefixAssign) bool {
	v := sh.vars.m[p.name]
	if v != nil && v.attrs&aReadonly != 0 {
		sh.errorf("%s: readonly variable", p.name)
		return true
	}
	if p.isArray || p.hasSub {
		return sh.assignPrefix(p)
	}
	nv := sh.declareLocal(p.name)
	nv.temp = true
	nv.attrs |= aExport
	if v != nil {
		nv.attrs |= v.attrs &^ (aReadonly | aNameref)
	}
	val := p.value
	if p.appendTo && v != nil {
		old, _ := sh.scalarOf(v)
		val = old + val
	}
	nv.str, nv.set = val, true
	return true
}

// prefixAssign is an expanded assignment before a command word.
type prefixAssign struct {
	name     string
	sub      string
	hasSub   bool
	value    string
	appendTo bool
	array    []arrayValue
	isArray  bool
}

// prefixValue expands a prefix assignment.
func (sh *Shell) prefixValue(a *syntax.Assign) (prefixAssign, error) {
	pa := prefixAssign{name: a.Name.Value, appendTo: a.Append}
	if a.Index != nil {
		sub, err := sh.subscript(pa.name, a.Index)
		if err != nil {
			return pa, err
		}
		pa.sub, pa.hasSub = sub, true
	}
	if a.Array != nil {
		vals, err := sh.arrayValues(pa.name, a.Array, false)
		if err != nil {
			return pa, err
		}
		pa.array, pa.isArray = vals, true
		return pa, nil
	}
	v, err := sh.expandAssignValue(a.Value)
	if err != nil {
		return pa, err
	}
	pa.value = v
	return pa, nil
}

// assignPrefix makes a prefix assignment in the shell; false after an
// error (printed, the line abandoned).
func (sh *Shell) assignPrefix(p prefixAssign) bool {
	var err error
	switch {
	case p.isArray:
		err = sh.setArray(p.name, p.array, p.appendTo, false)
	case p.hasSub:
		err = sh.setElement(sh.resolve(p.name).name, p.sub, p.value, p.appendTo)
	default:
		err = sh.assignResolved(p.name, p.value, p.appendTo)
	}
	if err != nil {
		sh.assignFailed(err)
		return false
	}
	return true
}

// assignResolved assigns name (following namerefs) with += support.
func (sh *Shell) assignResolved(name, value string, appendTo bool) error {
	r := sh.resolve(name)
	if r.circular {
		return &varError{name + ": circular name reference"}
	}
	if r.has {
		return sh.setElement(r.name, r.sub, value, appendTo)
	}
	return sh.assign(r.name, value, appendTo)
}

// assignFailed reports a refused assignment: bash abandons the line.
func (sh *Shell) assignFailed(err error) {
	if ae, ok := err.(*arithError); ok {
		sh.expandFailed(ae)
		return
	}
	sh.errorf("%v", err)
	sh.status = 1
	sh.flow = flowAbort
}

// assignOnly runs a command of assignments (and redirections) alone.
func (sh *Shell) assignOnly(assigns []*syntax.Assign, redirs []*syntax.Redirect) {
	restore, ok := sh.redirect(redirs, false)
	defer restore()
	if !ok {
		sh.status = 1
		return
	}
	for _, a := range assigns {
		pa, err := sh.prefixValue(a)
		if err != nil {
			sh.expandFailed(err)
			return
		}
		if sh.opts.xtrace {
			sh.traceAssign(pa)
		}
		if !sh.assignPrefix(pa) {
			return
		}
		if sh.flow != flowNone {
			return
		}
	}
	sh.lastArg = ""
	if sh.hadSubst {
		sh.status = sh.substStatus
	} else {
		sh.status = 0
	}
}

// callFunction runs a shell function with its arguments.
func (sh *Shell) callFunction(fn *funcDef, args []string) {
	if !sh.checkDepth() {
		return
	}
	if v, ok := sh.getVar("FUNCNEST"); ok {
		if n, err := strconv.Atoi(v); err == nil && n > 0 && sh.inFunc >= n {
			sh.errorf("%s: maximum function nesting level exceeded (%d)", fn.name, n)
			sh.status = 1
			sh.flow = flowAbort
			return
		}
	}
	f := &frame{fn: fn.name, file: fn.file, callLine: sh.line, level: sh.level() + 1, params: sh.params, src: sh.src}
	sh.frames = append(sh.frames, f)
	savedParams, savedSrc, savedLoops, savedLine := sh.params, sh.src, sh.loops, sh.line
	sh.params = args[1:]
	sh.src = fn.src
	sh.loops = 0
	sh.depth++
	sh.inFunc++
	sh.returnOK++
	sh.stmt(fn.body)
	if sh.flow == flowReturn {
		sh.flow = flowNone
	}
	if sh.flow == flowBreak || sh.flow == flowContinue {
		sh.flow = flowNone
	}
	if action, ok := sh.traps["RETURN"]; ok && (fn.trace || sh.opts.functrace || sh.returnTrapLevel >= f.level) && sh.inTrap != "RETURN" {
		status := sh.status
		sh.runTrap("RETURN", action)
		sh.status = status
	}
	sh.returnOK--
	sh.inFunc--
	sh.depth--
	sh.popLocals(f)
	sh.frames = sh.frames[:len(sh.frames)-1]
	sh.params, sh.src, sh.loops, sh.line = savedParams, savedSrc, savedLoops, savedLine
}

// arrayValues expands the elements of an array assignment.
func (sh *Shell) arrayValues(name string, arr *syntax.ArrayExpr, assocHint bool) ([]arrayValue, error) {
	v := sh.lookup(sh.resolve(name).name)
	isAssoc := assocHint || v != nil && v.attrs&aAssoc != 0
	var out []arrayValue
	for _, e := range arr.Elems {
		if e.Index != nil {
			av := arrayValue{hasIndex: true}
			if isAssoc {
				k, err := sh.keyText(e.Index)
				if err != nil {
					return nil, err
				}
				av.key = k
			} else {
				av.indexExpr, av.indexSrc = e.Index, sh.src
			}
			if e.Value != nil {
				s, err := sh.expandAssignValue(e.Value)
				if err != nil {
					return nil, err
				}
				av.val = s
			}
			av.appendTo = sh.elemAppends(e)
			out = append(out, av)
			continue
		}
		if e.Value == nil {
			continue
		}
		fields, err := sh.expandFields(e.Value)
		if err != nil {
			return nil, err
		}
		for _, f := range fields {
			out = append(out, arrayValue{val: f})
		}
	}
	if isAssoc {
		// (k v k v) pairs when no element has a subscript
		hasIdx := false
		for _, e := range arr.Elems {
			if e.Index != nil {
				hasIdx = true
			}
		}
		if !hasIdx && len(out) > 0 {
			var pairs []arrayValue
			for i := 0; i < len(out); i += 2 {
				av := arrayValue{hasIndex: true, key: out[i].val}
				if i+1 < len(out) {
					av.val = out[i+1].val
				}
				pairs = append(pairs, av)
			}
			return pairs, nil
		}
		kept := out[:0]
		for _, e := range out {
			if !e.hasIndex {
				sh.errorf("%s: %s: must use subscript when assigning associative array", name, e.val)
				continue
			}
			kept = append(kept, e)
		}
		out = kept
	}
	return out, nil
}

// elemAppends reports whether an array element was written [k]+=v.
func (sh *Shell) elemAppends(e *syntax.ArrayElem) bool {
	if sh.src == nil || e.Index == nil || e.Value == nil {
		return false
	}
	end := int(e.Index.End().Offset())
	start := int(e.Value.Pos().Offset())
	if end < 0 || start > len(sh.src.text) || end >= start {
		return false
	}
	return strings.Contains(sh.src.text[end:start], "+=")
}
