package bash

import (
	"slices"

	"mvdan.cc/sh/v3/syntax"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
)

// attr is a variable's attributes, as declare sets them.
type attr uint16

const (
	aExport   attr = 1 << iota // -x
	aReadonly                  // -r
	aInteger                   // -i
	aLower                     // -l
	aUpper                     // -u
	aNameref                   // -n
	aIndexed                   // -a
	aAssoc                     // -A
	aTrace                     // -t
)

// dynKind names a variable whose value the shell computes when it is
// read ($RANDOM, $SECONDS, $LINENO …). Unsetting it removes the magic,
// as in bash.
type dynKind uint8

const (
	dynNone dynKind = iota
	dynRandom
	dynSRandom
	dynSeconds
	dynLineno
	dynBashpid
	dynEpochSeconds
	dynEpochRealtime
	dynSubshell
	dynFuncname
	dynBashSource
	dynBashLineno
	dynDirstack
	dynGroups
	dynShellopts
	dynBashopts
	dynBashCommand
	dynBashArgv
	dynBashArgc
	dynPipestatus
)

// variable is one shell variable in one scope. A name's visible variable
// is the head of its chain; prev is the one it shadows (the caller's, for
// a local).
type variable struct {
	attrs attr
	set   bool // holds a value (declare x leaves it unset)
	dyn   dynKind
	str   string
	arr   *indexed
	assoc *assoc
	// level is the function-call depth that owns the variable (0: the
	// global scope); temp marks a prefix assignment's scope (x=1 f).
	level int
	temp  bool
	prev  *variable
	// unsetLocal marks a local variable unset in its own function: it
	// still hides the caller's until the function returns.
	hidden bool
}

func (v *variable) isArray() bool { return v.attrs&(aIndexed|aAssoc) != 0 }

// clone copies v and the chain it shadows; arrays are shared until
// written (copy on write).
func (v *variable) clone() *variable {
	if v == nil {
		return nil
	}
	c := *v
	if c.arr != nil {
		c.arr.refs.Add(1)
	}
	if c.assoc != nil {
		c.assoc.refs.Add(1)
	}
	c.prev = v.prev.clone()
	return &c
}

// indexed is a sparse indexed array: indices ascending.
type indexed struct {
	refs atomic.Int32 // holders beyond the first; a write copies when > 0
	keys []int
	vals []string
}

func (a *indexed) find(i int) (int, bool) {
	if i >= 0 && i < len(a.keys) && a.keys[i] == i {
		return i, true
	}
	n := len(a.keys)
	if n > 0 && a.keys[n-1] < i {
		return n, false
	}
	j := sort.SearchInts(a.keys, i)
	return j, j < n && a.keys[j] == i
}

func (a *indexed) get(i int) (string, bool) {
	j, ok := a.find(i)
	if !ok {
		return "", false
	}
	return a.vals[j], true
}

func (a *indexed) set(i int, v string) {
	j, ok := a.find(i)
	if ok {
		a.vals[j] = v
		return
	}
	a.keys = slices.Insert(a.keys, j, i)
	a.vals = slices.Insert(a.vals, j, v)
}

func (a *indexed) unset(i int) {
	if j, ok := a.find(i); ok {
		a.keys = slices.Delete(a.keys, j, j+1)
		a.vals = slices.Delete(a.vals, j, j+1)
	}
}

// maxIndex is the highest index plus one (the next append's index).
func (a *indexed) next() int {
	if len(a.keys) == 0 {
		return 0
	}
	return a.keys[len(a.keys)-1] + 1
}

func (a *indexed) copy() *indexed {
	return &indexed{keys: slices.Clone(a.keys), vals: slices.Clone(a.vals)}
}

// assoc is an associative array. Bash lists its keys in the order of its
// hash table (1024 buckets, FNV-1, newest first within a bucket); seq
// records insertion order so that listing can follow it.
type assoc struct {
	refs atomic.Int32
	m    map[string]assocEntry
	seq  uint64
}

type assocEntry struct {
	val string
	seq uint64
}

func newAssoc() *assoc { return &assoc{m: map[string]assocEntry{}} }

func (a *assoc) get(k string) (string, bool) {
	e, ok := a.m[k]
	return e.val, ok
}

func (a *assoc) set(k, v string) {
	if e, ok := a.m[k]; ok {
		e.val = v
		a.m[k] = e
		return
	}
	a.seq++
	a.m[k] = assocEntry{val: v, seq: a.seq}
}

func (a *assoc) copy() *assoc {
	c := &assoc{m: make(map[string]assocEntry, len(a.m)), seq: a.seq}
	for k, e := range a.m {
		c.m[k] = e
	}
	return c
}

// bashHash is bash's hash_string (FNV-1, 32 bits).
func bashHash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h *= 16777619
		h ^= uint32(s[i])
	}
	return h
}

// keys lists the keys in bash's order.
func (a *assoc) keys() []string {
	type item struct {
		bucket uint32
		seq    uint64
		k      string
	}
	items := make([]item, 0, len(a.m))
	buckets := uint32(1024)
	for n := len(a.m); n >= int(buckets)*2; {
		buckets *= 4
	}
	for k, e := range a.m {
		items = append(items, item{bashHash(k) & (buckets - 1), e.seq, k})
	}
	sort.Slice(items, func(i, j int) bool {
		if items[i].bucket != items[j].bucket {
			return items[i].bucket < items[j].bucket
		}
		return items[i].seq > items[j].seq
	})
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.k
	}
	return out
}

// varTable maps names to their visible variable. It is shared between a
// shell and its subshells until one of them writes (copy on write): refs
// counts the extra holders.
type varTable struct {
	refs atomic.Int32
	m    map[string]*variable
}

func newVarTable() *varTable { return &varTable{m: map[string]*variable{}} }

// share hands the table to one more holder.
func (t *varTable) share() *varTable {
	t.refs.Add(1)
	return t
}

// release gives up a holder's share.
func (t *varTable) release() { t.refs.Add(-1) }

// writable returns the shell's variable table, copied first when another
// shell shares it.
func (sh *Shell) writableVars() *varTable {
	t := sh.vars
	if t.refs.Load() == 0 {
		return t
	}
	c := &varTable{m: make(map[string]*variable, len(t.m))}
	for k, v := range t.m {
		c.m[k] = v.clone()
	}
	t.release()
	sh.vars = c
	return c
}

// own makes v, the head or a member of name's chain, writable: it
// returns the same variable in a table no other shell shares.
func (sh *Shell) own(name string, v *variable) *variable {
	if sh.vars.refs.Load() == 0 {
		return v
	}
	old := sh.vars.m[name]
	t := sh.writableVars()
	nv := t.m[name]
	for o := old; o != nil && nv != nil; o, nv = o.prev, nv.prev {
		if o == v {
			return nv
		}
	}
	return t.m[name]
}

func (a *indexed) writable() *indexed {
	if a.refs.Load() == 0 {
		return a
	}
	a.refs.Add(-1)
	return a.copy()
}

func (a *assoc) writable() *assoc {
	if a.refs.Load() == 0 {
		return a
	}
	a.refs.Add(-1)
	return a.copy()
}

// mutArr returns v's indexed array ready to write.
func (v *variable) mutArr() *indexed {
	if v.arr == nil {
		v.arr = &indexed{}
	}
	v.arr = v.arr.writable()
	return v.arr
}

func (v *variable) mutAssoc() *assoc {
	if v.assoc == nil {
		v.assoc = newAssoc()
	}
	v.assoc = v.assoc.writable()
	return v.assoc
}

// isValidName reports whether s is a shell variable name.
func isValidName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// maxNamerefHops bounds nameref chains, as bash's NAMEREF_MAX.
const maxNamerefHops = 8

// ref is a resolved variable reference: a name and, for a nameref to
// "a[i]", the subscript.
type ref struct {
	name     string
	sub      string
	has      bool // sub given
	circular bool // the chain loops
}

// resolve follows namerefs from name to the variable it names.
func (sh *Shell) resolve(name string) ref {
	r := ref{name: name}
	for hop := 0; hop < maxNamerefHops; hop++ {
		v := sh.vars.m[r.name]
		if v == nil || v.attrs&aNameref == 0 || !v.set || v.hidden {
			return r
		}
		target := v.str
		if base, sub, ok := splitSubscript(target); ok {
			return ref{name: base, sub: sub, has: true}
		}
		if target == "" || !isValidName(target) {
			return r
		}
		r.name = target
	}
	r.circular = true
	return r
}

// splitSubscript splits "name[sub]".
func splitSubscript(s string) (name, sub string, ok bool) {
	i := strings.IndexByte(s, '[')
	if i <= 0 || !strings.HasSuffix(s, "]") || !isValidName(s[:i]) {
		return "", "", false
	}
	return s[:i], s[i+1 : len(s)-1], true
}

// lookup returns the visible variable of a resolved name, nil when there
// is none.
func (sh *Shell) lookup(name string) *variable {
	v := sh.vars.m[name]
	if v == nil || v.hidden {
		return nil
	}
	return v
}

// scalar returns the value $name expands to: a string, an array's
// element 0; set is false for an unset variable.
func (sh *Shell) scalar(name string) (string, bool) {
	v := sh.lookup(name)
	if v == nil {
		return "", false
	}
	if v.dyn != dynNone {
		if s, ok := sh.dynScalar(v); ok {
			return s, true
		}
	}
	switch {
	case v.attrs&aAssoc != 0:
		if v.assoc == nil {
			return "", false
		}
		return v.assoc.get("0")
	case v.attrs&aIndexed != 0:
		if v.arr == nil {
			return "", false
		}
		return v.arr.get(0)
	}
	return v.str, v.set
}

// getVar is scalar with namerefs followed: what $name gives.
func (sh *Shell) getVar(name string) (string, bool) {
	if v := sh.vars.m[name]; v != nil && v.attrs&(aNameref|aIndexed|aAssoc) == 0 && v.dyn == dynNone && !v.hidden {
		return v.str, v.set
	}
	r := sh.resolve(name)
	if r.circular {
		sh.errorf("warning: %s: circular name reference", name)
	}
	if r.has {
		sub, err := sh.expandRuntime(r.sub)
		if err != nil {
			sh.expandErr(err)
			return "", false
		}
		return sh.element(r.name, sub)
	}
	return sh.scalar(r.name)
}

// element returns ${name[sub]}; sub is an arithmetic expression for an
// indexed array and a key for an associative one.
func (sh *Shell) element(name, sub string) (string, bool) {
	v := sh.lookup(name)
	if v == nil {
		return "", false
	}
	if v.attrs&aAssoc != 0 {
		if v.assoc == nil {
			return "", false
		}
		return v.assoc.get(sub)
	}
	i, err := sh.evalIndex(sub)
	if err != nil {
		sh.expandErr(err)
		return "", false
	}
	if sh.badNegative(name, v, i) {
		return "", false
	}
	return sh.indexOf(v, i)
}

// badNegative warns, as bash does, about a negative index before the
// start of an indexed array ("a: bad array subscript").
func (sh *Shell) badNegative(name string, v *variable, i int) bool {
	if i >= 0 || v == nil || v.attrs&aIndexed == 0 || v.dyn != dynNone {
		return false
	}
	n := 0
	if v.arr != nil {
		n = v.arr.next()
	}
	if i+n >= 0 {
		return false
	}
	sh.errorf("%s: bad array subscript", name)
	return true
}

// indexOf returns element i of v (an indexed array, or a scalar seen as
// an array of one).
func (sh *Shell) indexOf(v *variable, i int) (string, bool) {
	if v.dyn != dynNone {
		if vals, ok := sh.dynArray(v); ok {
			if i < 0 {
				i += len(vals)
			}
			if i < 0 || i >= len(vals) {
				return "", false
			}
			return vals[i], true
		}
	}
	if v.attrs&aIndexed == 0 {
		if i == 0 || i == -1 {
			return sh.scalarOf(v)
		}
		return "", false
	}
	if v.arr == nil {
		return "", false
	}
	if i < 0 {
		i += v.arr.next()
		if i < 0 {
			return "", false
		}
	}
	return v.arr.get(i)
}

func (sh *Shell) scalarOf(v *variable) (string, bool) {
	if v.dyn != dynNone {
		if s, ok := sh.dynScalar(v); ok {
			return s, true
		}
	}
	return v.str, v.set
}

// values lists ${name[@]}: the elements of an array, the value of a
// scalar, nothing for an unset variable.
func (sh *Shell) values(name string) []string {
	v := sh.lookup(name)
	if v == nil {
		return nil
	}
	if v.dyn != dynNone {
		if vals, ok := sh.dynArray(v); ok {
			return vals
		}
	}
	switch {
	case v.attrs&aAssoc != 0:
		if v.assoc == nil {
			return nil
		}
		keys := v.assoc.keys()
		out := make([]string, len(keys))
		for i, k := range keys {
			out[i] = v.assoc.m[k].val
		}
		return out
	case v.attrs&aIndexed != 0:
		if v.arr == nil {
			return nil
		}
		return slices.Clone(v.arr.vals)
	}
	if s, ok := sh.scalarOf(v); ok {
		return []string{s}
	}
	return nil
}

// keysOf lists ${!name[@]}.
func (sh *Shell) keysOf(name string) []string {
	v := sh.lookup(name)
	if v == nil {
		return nil
	}
	if v.dyn != dynNone {
		if vals, ok := sh.dynArray(v); ok {
			out := make([]string, len(vals))
			for i := range vals {
				out[i] = strconv.Itoa(i)
			}
			return out
		}
	}
	switch {
	case v.attrs&aAssoc != 0:
		if v.assoc == nil {
			return nil
		}
		return v.assoc.keys()
	case v.attrs&aIndexed != 0:
		if v.arr == nil {
			return nil
		}
		out := make([]string, len(v.arr.keys))
		for i, k := range v.arr.keys {
			out[i] = strconv.Itoa(k)
		}
		return out
	}
	if _, ok := sh.scalarOf(v); ok {
		return []string{"0"}
	}
	return nil
}

// varError is a refused assignment, with bash's message.
type varError struct{ msg string }

func (e *varError) Error() string { return e.msg }

func readonlyErr(name string) error { return &varError{name + ": readonly variable"} }

// frameLevel is the scope new variables of a plain assignment land in
// when none is visible: always the global scope.
const globalLevel = 0

// setVar assigns a scalar (for an array, element 0) following namerefs,
// applying the variable's attributes (-i, -l, -u).
func (sh *Shell) setVar(name, value string) error {
	r := sh.resolve(name)
	if r.circular {
		return &varError{name + ": circular name reference"}
	}
	if r.has {
		sub, err := sh.expandRuntime(r.sub)
		if err != nil {
			return err
		}
		return sh.setElement(r.name, sub, value, false)
	}
	return sh.assign(r.name, value, false)
}

// assign sets (or with appendTo, appends to) the visible variable name,
// or a new global one.
func (sh *Shell) assign(name, value string, appendTo bool) error {
	v := sh.vars.m[name]
	if v != nil && v.attrs&aReadonly != 0 {
		return readonlyErr(name)
	}
	if v != nil && v.isArray() {
		if v.attrs&aAssoc != 0 {
			return sh.setElement(name, "0", value, appendTo)
		}
		return sh.setIndex(name, 0, value, appendTo)
	}
	if v == nil {
		v = &variable{level: globalLevel}
		if sh.opts.allexport {
			v.attrs |= aExport
		}
		sh.writableVars().m[name] = v
	} else {
		v = sh.own(name, v)
	}
	if v.hidden {
		v.hidden = false
	}
	value, err := sh.applyAttrs(v, value, appendTo, v.str)
	if err != nil {
		return err
	}
	if v.dyn != dynNone && sh.setDyn(v, value) {
		return nil
	}
	v.str, v.set = value, true
	if sh.opts.allexport {
		v.attrs |= aExport
	}
	sh.varChanged(name, v)
	return nil
}

// applyAttrs turns a value being assigned into what the variable holds:
// evaluated for -i (added for +=), case-mapped for -l and -u.
func (sh *Shell) applyAttrs(v *variable, value string, appendTo bool, old string) (string, error) {
	if v.attrs&aInteger != 0 {
		n, err := sh.evalArith(value)
		if err != nil {
			return "", err
		}
		if appendTo {
			o, _ := sh.evalArith(old)
			n += o
		}
		value = strconv.Itoa(n)
	} else if appendTo {
		value = old + value
	}
	switch {
	case v.attrs&aLower != 0:
		value = strings.ToLower(value)
	case v.attrs&aUpper != 0:
		value = strings.ToUpper(value)
	}
	return value, nil
}

// setIndex sets element i of the indexed array name (making name an
// array if it was a scalar or unset).
func (sh *Shell) setIndex(name string, i int, value string, appendTo bool) error {
	v := sh.vars.m[name]
	if v != nil && v.attrs&aReadonly != 0 {
		return readonlyErr(name)
	}
	if v == nil {
		v = &variable{level: globalLevel, attrs: aIndexed}
		if sh.opts.allexport {
			v.attrs |= aExport
		}
		sh.writableVars().m[name] = v
	} else {
		v = sh.own(name, v)
	}
	if v.attrs&aAssoc != 0 {
		return sh.setElement(name, strconv.Itoa(i), value, appendTo)
	}
	v.hidden = false
	if v.attrs&aIndexed == 0 {
		// A scalar becomes element 0.
		v.attrs |= aIndexed
		arr := &indexed{}
		if v.set {
			arr.set(0, v.str)
		}
		v.arr, v.str = arr, ""
	}
	arr := v.mutArr()
	if i < 0 {
		n := arr.next()
		if i+n < 0 {
			return &varError{name + "[" + strconv.Itoa(i) + "]: bad array subscript"}
		}
		i += n
	}
	old, _ := arr.get(i)
	value, err := sh.applyAttrs(v, value, appendTo, old)
	if err != nil {
		return err
	}
	arr.set(i, value)
	v.set = true
	return nil
}

// setElement sets name[sub]: a key of an associative array, else an
// arithmetic index.
func (sh *Shell) setElement(name, sub, value string, appendTo bool) error {
	v := sh.vars.m[name]
	if v != nil && v.attrs&aReadonly != 0 {
		return readonlyErr(name)
	}
	if v == nil || v.attrs&aAssoc == 0 {
		i, err := sh.evalIndex(sub)
		if err != nil {
			return err
		}
		return sh.setIndex(name, i, value, appendTo)
	}
	v = sh.own(name, v)
	v.hidden = false
	a := v.mutAssoc()
	old, _ := a.get(sub)
	value, err := sh.applyAttrs(v, value, appendTo, old)
	if err != nil {
		return err
	}
	a.set(sub, value)
	v.set = true
	return nil
}

// setArray replaces (or appends to) the whole array name with vals (an
// indexed array) or keyed values.
func (sh *Shell) setArray(name string, vals []arrayValue, appendTo, assocArr bool) error {
	r := sh.resolve(name)
	name = r.name
	v := sh.vars.m[name]
	if v != nil && v.attrs&aReadonly != 0 {
		return readonlyErr(name)
	}
	if v == nil {
		v = &variable{level: globalLevel}
		if sh.opts.allexport {
			v.attrs |= aExport
		}
		sh.writableVars().m[name] = v
	} else {
		v = sh.own(name, v)
	}
	v.hidden = false
	if assocArr || v.attrs&aAssoc != 0 {
		if v.attrs&aAssoc == 0 {
			v.attrs = v.attrs&^aIndexed | aAssoc
		}
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
		v.set, v.str, v.arr = true, "", nil
		return nil
	}
	var arr *indexed
	switch {
	case appendTo && v.attrs&aIndexed != 0 && v.arr != nil:
		arr = v.mutArr()
	case appendTo && v.attrs&aIndexed == 0 && v.set:
		arr = &indexed{}
		arr.set(0, v.str)
	default:
		arr = &indexed{}
	}
	v.attrs |= aIndexed
	v.arr, v.str = arr, ""
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
				if i < 0 {
					return &varError{name + "[" + strconv.Itoa(e.index) + "]: bad array subscript"}
				}
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

// arrayValue is one element of an array assignment: (a b), ([3]=c),
// ([k]=v) for an associative array, ([k]+=v).
type arrayValue struct {
	index    int
	key      string
	hasIndex bool
	val      string
	appendTo bool
	// indexExpr is an indexed array's subscript, evaluated when the
	// element is stored (bash expands the values first, then evaluates
	// each index as it assigns).
	indexExpr syntax.ArithmExpr
	indexSrc  *source
}

// resolveIndex evaluates a deferred subscript.
func (sh *Shell) resolveIndex(e *arrayValue) error {
	if e.indexExpr == nil {
		return nil
	}
	saved := sh.src
	sh.src = e.indexSrc
	defer func() { sh.src = saved }()
	text, err := sh.exprText(e.indexExpr)
	if err != nil {
		return err
	}
	i, err := sh.evalIndex(text)
	if err != nil {
		return err
	}
	e.index, e.indexExpr = i, nil
	return nil
}

// unsetVar removes name (following namerefs unless unsetting the
// reference itself).
func (sh *Shell) unsetVar(name string, refItself bool) error {
	if !refItself {
		r := sh.resolve(name)
		if r.has {
			return sh.unsetElement(r.name, r.sub)
		}
		name = r.name
	}
	v := sh.vars.m[name]
	if v == nil {
		return nil
	}
	if v.attrs&aReadonly != 0 {
		return &varError{name + ": cannot unset: readonly variable"}
	}
	t := sh.writableVars()
	v = t.m[name]
	level := sh.level()
	switch {
	case v.level > 0 && v.level == level && !v.temp:
		// A local of this function: unset, but still hiding the caller's.
		*v = variable{level: v.level, prev: v.prev, hidden: true, attrs: 0}
	case v.prev != nil:
		// A local of a caller or a prefix assignment: unset reveals the
		// variable it shadowed (bash's dynamic unset).
		t.m[name] = v.prev
		sh.forgetLocal(name, v)
	default:
		delete(t.m, name)
	}
	return nil
}

// unsetElement removes name[sub].
func (sh *Shell) unsetElement(name, sub string) error {
	v := sh.vars.m[name]
	if v == nil {
		return nil
	}
	if v.attrs&aReadonly != 0 {
		return &varError{name + ": cannot unset: readonly variable"}
	}
	v = sh.own(name, v)
	switch {
	case v.attrs&aAssoc != 0:
		if v.assoc != nil {
			delete(v.mutAssoc().m, sub)
		}
	case v.attrs&aIndexed != 0:
		i, err := sh.evalIndex(sub)
		if err != nil {
			return err
		}
		if v.arr != nil {
			if i < 0 {
				i += v.arr.next()
				if i < 0 {
					return &varError{"[" + sub + "]: bad array subscript"}
				}
			}
			v.mutArr().unset(i)
		}
	default:
		i, err := sh.evalIndex(sub)
		if err != nil {
			return err
		}
		if i == 0 || i == -1 {
			return sh.unsetVar(name, true)
		}
	}
	return nil
}

// level is the current function-call depth (0 outside functions).
func (sh *Shell) level() int { return len(sh.frames) }

// declareLocal makes name a local variable of the current function (or
// returns the existing one) and returns it ready to write.
func (sh *Shell) declareLocal(name string) *variable {
	level := sh.level()
	t := sh.writableVars()
	v := t.m[name]
	if v != nil && v.level == level && !v.temp {
		return v
	}
	nv := &variable{level: level, prev: v}
	if v != nil {
		// local x inherits nothing but is exported when the caller's was
		// an exported variable of the environment? No: bash starts it
		// empty and unset, keeping only -x? It keeps nothing.
		_ = v
	}
	t.m[name] = nv
	if f := sh.frame(); f != nil {
		f.locals = append(f.locals, name)
	}
	return nv
}

// declareGlobal returns the global variable name (declare -g), making it
// writable, or creates it at the bottom of the chain.
func (sh *Shell) declareGlobal(name string) *variable {
	t := sh.writableVars()
	v := t.m[name]
	if v == nil {
		nv := &variable{level: globalLevel}
		t.m[name] = nv
		return nv
	}
	for ; v.prev != nil; v = v.prev {
	}
	if v.level == globalLevel && !v.temp {
		return v
	}
	nv := &variable{level: globalLevel}
	v.prev = nv
	return nv
}

// forgetLocal drops a variable removed by a dynamic unset from the local
// lists of the frames, so that returning does not pop it again.
func (sh *Shell) forgetLocal(name string, v *variable) {
	for _, f := range sh.frames {
		if f.level == v.level {
			for i, n := range f.locals {
				if n == name {
					f.locals = slices.Delete(f.locals, i, i+1)
					break
				}
			}
		}
	}
}

// popLocals restores the variables a frame's locals shadowed.
func (sh *Shell) popLocals(f *frame) {
	if len(f.locals) == 0 {
		return
	}
	t := sh.writableVars()
	for i := len(f.locals) - 1; i >= 0; i-- {
		name := f.locals[i]
		v := t.m[name]
		// Walk to the variable of this frame (a later declare -g may have
		// put one below it).
		var above *variable
		for v != nil && !(v.level == f.level && v.temp == f.temp) {
			above, v = v, v.prev
		}
		if v == nil {
			continue
		}
		if above == nil {
			if v.prev == nil {
				delete(t.m, name)
			} else {
				t.m[name] = v.prev
			}
		} else {
			above.prev = v.prev
		}
	}
	f.locals = nil
}

// environ lists the exported variables as NAME=value, sorted.
func (sh *Shell) environ() []string {
	var out []string
	for name, v := range sh.vars.m {
		if v.hidden || v.attrs&aExport == 0 || !v.set || v.isArray() {
			continue
		}
		s, _ := sh.scalarOf(v)
		out = append(out, name+"="+s)
	}
	sort.Strings(out)
	return out
}

// varChanged reacts to assignments the shell itself cares about.
func (sh *Shell) varChanged(name string, v *variable) {
	switch name {
	case "PATH":
		sh.hash = nil
	case "OPTIND":
		sh.getoptsPos = 0
	}
}

// varNames lists the visible variables' names, sorted.
func (sh *Shell) varNames() []string {
	out := make([]string, 0, len(sh.vars.m))
	for name, v := range sh.vars.m {
		if !v.hidden {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// expandErr keeps an error found inside a lookup for the expansion that
// asked.
func (sh *Shell) expandErr(err error) {
	if sh.pendingErr == nil {
		sh.pendingErr = err
	}
}
