package bash

import (
	"fmt"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// declare, typeset, local, export, readonly and unset: variables with
// their attributes, and bash's -p format.

// declItem is one NAME[=VALUE] operand of declare and its relatives.
type declItem struct {
	name     string
	sub      string
	hasSub   bool
	value    string
	hasValue bool
	appendTo bool
	array    []arrayValue
	isArray  bool // a compound value (…)
	text     string
}

// declFlags are declare's options: attributes to set and to remove, and
// the modes.
type declFlags struct {
	set, unset                   attr
	print, funcs, fnames, global bool
	unexport                     bool // export -n
}

// declClause runs a declaration parsed as a clause: its assignments are
// expanded as assignments (no word splitting).
func (sh *Shell) declClause(c *syntax.DeclClause, redirs []*syntax.Redirect) {
	variant := c.Variant.Value
	args := []string{variant}
	var items []declItem
	var opts []string
	for _, a := range c.Args {
		if a.Name == nil {
			// A word: an option, or NAME=VALUE built at run time.
			fields, err := sh.expandFields(a.Value)
			if err != nil {
				sh.expandFailed(err)
				return
			}
			for _, f := range fields {
				if len(items) == 0 && len(f) > 0 && (f[0] == '-' || f[0] == '+') {
					opts = append(opts, f)
					args = append(args, f)
					continue
				}
				items = append(items, sh.parseDeclArg(f))
				args = append(args, f)
			}
			continue
		}
		it := declItem{name: a.Name.Value, appendTo: a.Append}
		if a.Index != nil {
			sub, err := sh.subscript(it.name, a.Index)
			if err != nil {
				sh.expandFailed(err)
				return
			}
			it.sub, it.hasSub = sub, true
		}
		switch {
		case a.Array != nil:
			assoc := false
			for _, o := range opts {
				if o[0] == '-' && strings.Contains(o, "A") {
					assoc = true
				}
			}
			vals, err := sh.arrayValues(it.name, a.Array, assoc)
			if err != nil {
				sh.expandFailed(err)
				return
			}
			it.array, it.isArray, it.hasValue = vals, true, true
		case a.Naked:
		default:
			v, err := sh.expandAssignValue(a.Value)
			if err != nil {
				sh.expandFailed(err)
				return
			}
			it.value, it.hasValue = v, true
		}
		it.text = sh.nodeText(a)
		items = append(items, it)
		args = append(args, it.text)
	}
	restore, ok := sh.redirect(redirs, false)
	defer restore()
	if !ok {
		sh.status = 1
		return
	}
	if sh.opts.xtrace {
		sh.traceWords(args)
	}
	sh.status = sh.declare(variant, opts, items)
}

// parseDeclArg reads a NAME[=VALUE] operand given as a string.
func (sh *Shell) parseDeclArg(s string) declItem {
	it := declItem{text: s}
	name, value, hasValue := strings.Cut(s, "=")
	if hasValue && strings.HasSuffix(name, "+") {
		name = strings.TrimSuffix(name, "+")
		it.appendTo = true
	}
	if b, sub, ok := splitSubscript(name); ok {
		name, it.sub, it.hasSub = b, sub, true
	}
	it.name, it.value, it.hasValue = name, value, hasValue
	return it
}

// compoundFromString reads a value given as a string, "(1 2)", as an
// array's elements (declare -a 'x=(1 2)').
func (sh *Shell) compoundFromString(it *declItem) {
	name, value := it.name, it.value
	if it.hasValue && !it.isArray && !it.hasSub && strings.HasPrefix(value, "(") && strings.HasSuffix(value, ")") {
		// declare 'a=(1 2)': a compound assignment given as a string.
		if f, err := newParser().Parse(strings.NewReader("__wsfs_decl="+value), ""); err == nil && len(f.Stmts) == 1 {
			if call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr); ok && len(call.Assigns) == 1 && call.Assigns[0].Array != nil {
				saved := sh.src
				sh.src = &source{text: "__wsfs_decl=" + value}
				vals, err := sh.arrayValues(name, call.Assigns[0].Array, false)
				sh.src = saved
				if err == nil {
					it.array, it.isArray = vals, true
				}
			}
		}
	}
}

// builtinDeclare is declare run as a command (builtin declare, command
// declare, a dynamic name): its operands are plain strings.
func builtinDeclare(sh *Shell, args []string) int {
	var opts []string
	var items []declItem
	rest := args[1:]
	for len(rest) > 0 {
		a := rest[0]
		if a == "--" {
			rest = rest[1:]
			break
		}
		if len(a) > 1 && (a[0] == '-' || a[0] == '+') {
			opts = append(opts, a)
			rest = rest[1:]
			continue
		}
		break
	}
	for _, a := range rest {
		items = append(items, sh.parseDeclArg(a))
	}
	return sh.declare(args[0], opts, items)
}

// declare is the common part of declare, typeset, local, export and
// readonly.
func (sh *Shell) declare(variant string, opts []string, items []declItem) int {
	var fl declFlags
	for _, o := range opts {
		if o == "--" {
			continue
		}
		on := o[0] == '-'
		for _, c := range o[1:] {
			var a attr
			switch c {
			case 'a':
				a = aIndexed
			case 'A':
				a = aAssoc
			case 'i':
				a = aInteger
			case 'l':
				a = aLower
			case 'u':
				a = aUpper
			case 'n':
				if variant == "export" {
					fl.unexport = true
					continue
				}
				a = aNameref
			case 'r':
				a = aReadonly
			case 't':
				a = aTrace
			case 'x':
				a = aExport
			case 'p':
				fl.print = true
				continue
			case 'f':
				fl.funcs = true
				continue
			case 'F':
				fl.fnames = true
				continue
			case 'g':
				fl.global = true
				continue
			case 'I':
				continue
			default:
				sh.errorf("%s: %s: invalid option", variant, o)
				fmt.Fprintf(sh.stderr(), "%s: usage: %s\n", variant, declUsage(variant))
				return 2
			}
			if on {
				fl.set |= a
			} else {
				fl.unset |= a
			}
		}
	}
	switch variant {
	case "export":
		if !fl.unexport {
			fl.set |= aExport
		} else {
			fl.unset |= aExport
		}
	case "readonly":
		fl.set |= aReadonly
	case "local":
		if sh.inFunc == 0 {
			sh.errorf("local: can only be used in a function")
			return 1
		}
	}
	if fl.set&aLower != 0 && fl.set&aUpper != 0 {
		fl.set &^= aLower | aUpper
	}
	if fl.funcs || fl.fnames {
		return sh.declareFuncs(variant, fl, items)
	}
	if fl.print || len(items) == 0 && (variant != "local" || fl.set == 0) {
		if len(items) == 0 && !fl.print && (variant == "declare" || variant == "typeset") && fl.set == 0 && fl.unset == 0 {
			sh.printVars()
			return 0
		}
		return sh.declarePrint(variant, fl, items)
	}
	status := 0
	for _, it := range items {
		if !sh.declareOne(variant, fl, it) {
			status = 1
			if sh.flow != flowNone {
				return status
			}
		}
	}
	return status
}

func declUsage(variant string) string {
	switch variant {
	case "export":
		return "export [-fn] [name[=value] ...] or export -p"
	case "readonly":
		return "readonly [-aAf] [name[=value] ...] or readonly -p"
	case "local":
		return "local [option] name[=value] ..."
	}
	return variant + " [-aAfFgiIlnrtux] [name[=value] ...] or " + variant + " -p [-aAfFilnrtux] [name ...]"
}

// declareOne declares one operand.
func (sh *Shell) declareOne(variant string, fl declFlags, it declItem) bool {
	name := it.name
	if it.hasSub && (variant == "export" || variant == "readonly") {
		sh.errorf("%s: `%s': not a valid identifier", variant, it.text)
		return false
	}
	if !isValidName(name) {
		sh.errorf("%s: `%s': not a valid identifier", variant, it.text)
		return false
	}
	inFunc := sh.inFunc > 0 && !fl.global && (variant == "declare" || variant == "typeset" || variant == "local")
	if fl.set&aNameref == 0 && fl.unset&aNameref == 0 {
		// Namerefs: the operation applies to the variable referred to.
		if v := sh.vars.m[name]; v != nil && v.attrs&aNameref != 0 && !inFunc {
			r := sh.resolve(name)
			if r.has {
				if it.hasValue {
					if err := sh.setElement(r.name, r.sub, it.value, it.appendTo); err != nil {
						sh.errorf("%s: %v", variant, err)
						return false
					}
				}
				return true
			}
			name = r.name
		}
	}
	var v *variable
	if inFunc {
		cur := sh.vars.m[name]
		if cur != nil && cur.level == sh.level() && !cur.temp {
			v = sh.own(name, cur)
		} else {
			if cur != nil && cur.attrs&aReadonly != 0 && !cur.hidden {
				// A readonly variable cannot be shadowed by a local.
				sh.errorf("%s: %s: readonly variable", variant, name)
				return false
			}
			v = sh.declareLocal(name)
			if sh.shopts.localvarInherit && cur != nil {
				v.attrs = cur.attrs &^ aReadonly
				v.str, v.set = cur.str, cur.set
			}
		}
	} else if fl.global {
		v = sh.declareGlobal(name)
	} else {
		cur := sh.vars.m[name]
		if cur == nil {
			v = &variable{level: globalLevel}
			sh.writableVars().m[name] = v
		} else {
			v = sh.own(name, cur)
		}
	}
	v.hidden = false
	if (fl.set&(aIndexed|aAssoc) != 0 || v.isArray()) && fl.unset&(aIndexed|aAssoc) == 0 {
		sh.compoundFromString(&it)
	}
	if v.attrs&aReadonly != 0 {
		if it.hasValue || fl.set&^aReadonly&^aExport != 0 || fl.unset&aReadonly != 0 {
			sh.errorf("%s: %s: readonly variable", variant, name)
			return false
		}
	}
	// Array kinds.
	switch {
	case fl.set&aAssoc != 0 && v.attrs&aIndexed != 0:
		sh.errorf("%s: %s: cannot convert indexed to associative array", variant, name)
		return false
	case fl.set&aIndexed != 0 && v.attrs&aAssoc != 0:
		sh.errorf("%s: %s: cannot convert associative to indexed array", variant, name)
		return false
	}
	if fl.set&aNameref != 0 && (v.isArray() || it.isArray) {
		sh.errorf("%s: %s: reference variable cannot be an array", variant, name)
		return false
	}
	if fl.set&aNameref != 0 && it.hasValue {
		if !validNamerefTarget(it.value) {
			sh.errorf("%s: `%s': invalid variable name for name reference", variant, it.value)
			return false
		}
		if it.value == name {
			sh.errorf("%s: %s: nameref variable self references not allowed", variant, name)
			return false
		}
	}
	if fl.set&aIndexed != 0 && v.attrs&aIndexed == 0 {
		arr := &indexed{}
		if v.set {
			arr.set(0, v.str)
		}
		v.arr, v.str = arr, ""
	}
	if fl.set&aAssoc != 0 && v.attrs&aAssoc == 0 {
		a := newAssoc()
		if v.set && v.str != "" {
			a.set("0", v.str)
		}
		v.assoc, v.str = a, ""
	}
	if fl.unset&aNameref != 0 && v.attrs&aNameref != 0 {
		v.attrs &^= aNameref
	}
	v.attrs = v.attrs&^fl.unset | fl.set&^aReadonly
	if v.attrs&aLower != 0 && fl.set&aUpper != 0 {
		v.attrs &^= aLower
	}
	if v.attrs&aUpper != 0 && fl.set&aLower != 0 {
		v.attrs &^= aUpper
	}
	if v.attrs&(aIndexed|aAssoc) != 0 && (fl.set&(aIndexed|aAssoc) != 0) {
		v.set = true
	}
	if it.hasValue {
		var err error
		switch {
		case it.isArray:
			err = sh.setArrayAt(name, v, it.array, it.appendTo)
		case it.hasSub:
			err = sh.setElement(name, it.sub, it.value, it.appendTo)
		case v.attrs&aNameref != 0:
			v.str, v.set = it.value, true
		default:
			if v.isArray() {
				if v.attrs&aAssoc != 0 {
					err = sh.setElement(name, "0", it.value, it.appendTo)
				} else {
					err = sh.setIndex(name, 0, it.value, it.appendTo)
				}
			} else {
				val, e := sh.applyAttrs(v, it.value, it.appendTo, v.str)
				if e != nil {
					err = e
				} else {
					v.str, v.set = val, true
				}
			}
		}
		if err != nil {
			if ae, ok := err.(*arithError); ok {
				sh.errorf("%s", ae.Error())
			} else {
				sh.errorf("%s: %v", variant, err)
			}
			return false
		}
	} else if fl.set&aInteger != 0 && v.set && !v.isArray() {
		// declare -i x keeps x's value as it is.
	}
	if fl.set&aReadonly != 0 {
		v.attrs |= aReadonly
	}
	if sh.opts.allexport && it.hasValue {
		v.attrs |= aExport
	}
	return true
}

// setArrayAt assigns a compound value to a variable declared above.
func (sh *Shell) setArrayAt(name string, v *variable, vals []arrayValue, appendTo bool) error {
	if v.attrs&aAssoc != 0 {
		if !appendTo || v.assoc == nil {
			v.assoc = newAssoc()
		}
		a := v.mutAssoc()
		for _, e := range vals {
			old, _ := a.get(e.key)
			val, err := sh.applyAttrs(v, e.val, e.appendTo, old)
			if err != nil {
				return err
			}
			a.set(e.key, val)
		}
		v.set = true
		return nil
	}
	if v.attrs&aIndexed == 0 {
		v.attrs |= aIndexed
		arr := &indexed{}
		if appendTo && v.set {
			arr.set(0, v.str)
		}
		v.arr, v.str = arr, ""
	} else if !appendTo || v.arr == nil {
		v.arr = &indexed{}
	}
	arr := v.mutArr()
	next := arr.next()
	for _, e := range vals {
		if err := sh.resolveIndex(&e); err != nil {
			return err
		}
		i := next
		if e.hasIndex {
			i = e.index
			if i < 0 {
				i += arr.next()
			}
		}
		old, _ := arr.get(i)
		val, err := sh.applyAttrs(v, e.val, e.appendTo, old)
		if err != nil {
			return err
		}
		arr.set(i, val)
		next = i + 1
	}
	v.set = true
	return nil
}

// validNamerefTarget reports whether a nameref may point at s.
func validNamerefTarget(s string) bool {
	if s == "" {
		return true
	}
	if b, _, ok := splitSubscript(s); ok {
		return isValidName(b)
	}
	return isValidName(s)
}

// declarePrint prints variables in declare -p's format (or as export -p
// and readonly -p do).
func (sh *Shell) declarePrint(variant string, fl declFlags, items []declItem) int {
	w := sh.stdout()
	if len(items) == 0 {
		for _, name := range sh.varNames() {
			v := sh.lookup(name)
			if v == nil {
				continue
			}
			if variant == "export" && v.attrs&aExport == 0 {
				continue
			}
			if variant == "readonly" && v.attrs&aReadonly == 0 {
				continue
			}
			if fl.set != 0 && v.attrs&fl.set != fl.set {
				continue
			}
			if variant == "local" && (v.level != sh.level() || v.temp) {
				continue
			}
			if v.dyn != dynNone && !v.set {
				continue
			}
			fmt.Fprintln(w, sh.declareLine(name, v, true))
		}
		return 0
	}
	status := 0
	for _, it := range items {
		v := sh.lookup(it.name)
		if v == nil || (!v.set && v.attrs == 0 && !v.isArray()) && v.dyn == dynNone && sh.vars.m[it.name] == nil {
			sh.errorf("%s: %s: not found", variant, it.name)
			status = 1
			continue
		}
		fmt.Fprintln(w, sh.declareLine(it.name, v, true))
	}
	return status
}

// declareLine is one variable as declare -p prints it.
func (sh *Shell) declareLine(name string, v *variable, withValue bool) string {
	flags := attrFlags(v)
	if flags == "" {
		flags = "-"
	}
	head := "declare -" + flags + " " + name
	if v.dyn != dynNone {
		if v.isArray() {
			vals, _ := sh.dynArray(v)
			tmp := &variable{attrs: v.attrs, set: true, arr: &indexed{}}
			for i, s := range vals {
				tmp.arr.set(i, s)
			}
			return head + "=" + sh.arrayLiteral(tmp)
		}
		s, ok := sh.dynScalar(v)
		if !ok {
			return head
		}
		return head + "=" + dquote(s)
	}
	if v.isArray() {
		if !v.set {
			return head
		}
		return head + "=" + sh.arrayLiteral(v)
	}
	if !v.set {
		return head
	}
	return head + "=" + dquote(v.str)
}

// arrayLiteral prints an array's elements as declare -p does:
// ([0]="a" [1]="b"), ([k]="v" ) for an associative array.
func (sh *Shell) arrayLiteral(v *variable) string {
	var b strings.Builder
	b.WriteByte('(')
	if v.attrs&aAssoc != 0 {
		if v.assoc != nil {
			for _, k := range v.assoc.keys() {
				b.WriteString("[" + assocKeyQuote(k) + "]=" + dquote(v.assoc.m[k].val) + " ")
			}
		}
	} else if v.arr != nil {
		for i, k := range v.arr.keys {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString("[" + strconv.Itoa(k) + "]=" + dquote(v.arr.vals[i]))
		}
	}
	b.WriteByte(')')
	return b.String()
}

// assocKeyQuote quotes an associative array's key in declare -p output.
func assocKeyQuote(k string) string {
	if k == "" {
		return `""`
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '/') {
			return dquote(k)
		}
	}
	return k
}

// declareFuncs handles declare -f and -F (and export -f, readonly -f).
func (sh *Shell) declareFuncs(variant string, fl declFlags, items []declItem) int {
	w := sh.stdout()
	if len(items) == 0 {
		for _, n := range sh.sortedFuncNames() {
			fn := sh.funcs[n]
			if variant == "export" && !fn.export {
				continue
			}
			if variant == "readonly" && !fn.readonly {
				continue
			}
			if fl.fnames || variant != "declare" && variant != "typeset" {
				fmt.Fprintf(w, "declare -f%s %s\n", funcFlags(fn), n)
			} else {
				fmt.Fprint(w, sh.funcText(fn))
			}
		}
		return 0
	}
	status := 0
	for _, it := range items {
		fn, ok := sh.funcs[it.name]
		if !ok {
			if variant == "export" || variant == "readonly" {
				sh.errorf("%s: %s: not a function", variant, it.name)
			}
			status = 1
			continue
		}
		switch {
		case variant == "export":
			fn.export = fl.unset&aExport == 0 && !fl.unexport
		case variant == "readonly":
			fn.readonly = true
		case fl.set&aTrace != 0:
			fn.trace = true
		case fl.unset&aTrace != 0:
			fn.trace = false
		case fl.fnames:
			fmt.Fprintln(w, it.name)
		default:
			fmt.Fprint(w, sh.funcText(fn))
		}
	}
	return status
}

func funcFlags(fn *funcDef) string {
	s := ""
	if fn.readonly {
		s += "r"
	}
	if fn.trace {
		s += "t"
	}
	if fn.export {
		s += "x"
	}
	if s != "" {
		return " -" + s
	}
	return ""
}

// builtinUnset is unset [-fvn] name…
func builtinUnset(sh *Shell, args []string) int {
	args = args[1:]
	mode := byte(0)
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		a := args[0]
		if a == "--" {
			args = args[1:]
			break
		}
		for _, c := range a[1:] {
			switch c {
			case 'f', 'v', 'n':
				mode = byte(c)
			default:
				sh.errorf("unset: -%c: invalid option", c)
				fmt.Fprintln(sh.stderr(), "unset: usage: unset [-f] [-v] [-n] [name ...]")
				return 2
			}
		}
		args = args[1:]
	}
	status := 0
	for _, name := range args {
		if mode == 'f' {
			if fn, ok := sh.funcs[name]; ok && fn.readonly {
				sh.errorf("unset: %s: cannot unset: readonly function", name)
				status = 1
				continue
			}
			delete(sh.funcs, name)
			continue
		}
		base, sub, hasSub := name, "", false
		if b, s, ok := splitSubscript(name); ok {
			base, sub, hasSub = b, s, true
			if s != "@" && s != "*" {
				es, err := sh.expandRuntime(s)
				if err != nil {
					sh.expandFailed(err)
					return 1
				}
				sub = es
			}
		}
		if !isValidName(base) {
			sh.errorf("unset: `%s': not a valid identifier", name)
			status = 1
			continue
		}
		if mode == 0 && sh.lookup(base) == nil && sh.vars.m[base] == nil {
			if _, ok := sh.funcs[base]; ok && !hasSub {
				delete(sh.funcs, base)
				continue
			}
		}
		var err error
		if hasSub {
			r := sh.resolve(base)
			if v := sh.lookup(r.name); v != nil && v.attrs&aAssoc != 0 {
				// The key as written (already expanded by the shell).
			} else if sub == "@" || sub == "*" {
				err = sh.unsetVar(r.name, false)
				if err != nil {
					sh.errorf("unset: %v", err)
					status = 1
				}
				continue
			}
			err = sh.unsetElement(r.name, sub)
		} else {
			err = sh.unsetVar(base, mode == 'n')
		}
		if err != nil {
			if ae, ok := err.(*arithError); ok {
				sh.errorf("%s", ae.Error())
			} else {
				sh.errorf("unset: %v", err)
			}
			status = 1
		}
	}
	return status
}
