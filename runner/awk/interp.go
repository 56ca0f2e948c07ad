package awk

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/gnuregex"
)

// ctrl is how a statement ended.
type ctrl uint8

const (
	ctrlNone ctrl = iota
	ctrlNext
	ctrlNextFile
	ctrlExit
	ctrlBreak
	ctrlContinue
	ctrlReturn
)

// fatal is a run-time error: the program stops with status 2. The
// interpreter raises it with panic so the evaluator's hot path carries no
// error plumbing; run recovers it (and nothing escapes the package).
type fatal struct{ msg string }

// jump carries next, nextfile and exit out of a function body.
type jump struct{ c ctrl }

type frame struct {
	vals []value
	arrs []map[string]value
}

type interp struct {
	ctx  context.Context
	env  *command.Env
	name string
	prog *program

	globals []value
	garrs   []map[string]value
	frame   *frame
	depth   int
	retVal  value

	// The current record. fields holds $1..$NF once split; the record is
	// rebuilt from them lazily after a field or NF assignment.
	record      string
	recordKind  kind // kInput when read, kStr once rebuilt or assigned a string, kNum when assigned a number
	recordNum   float64
	printBuf    []string // print's evaluated arguments, reused
	fields      []value
	fieldsValid bool
	recordDirty bool

	nr, fnr         float64
	fs, ofs, ors    string
	rs, rt, subsep  string
	convfmt, ofmt   string
	filename        value
	rstart, rlength float64
	argc            value

	fsMode fsMode
	fsRe   *gnuregex.Regexp

	out     *bufio.Writer
	streams *streams
	input   mainInput
	regexes regexCache
	rng     *rand.Rand
	seed    float64

	exitCode   int
	ticks      uint32
	inEnd      bool
	pos        int                  // where the running statement starts in the program text
	srcLine    func(pos int) string // "cmd. line:3" for a position
	warnedUTF8 bool
}

// maxFields bounds NF and field indexes so a stray `NF = 1e9` fails
// instead of exhausting memory.
const maxFields = 1000000

// maxDepth bounds function call nesting; each level costs a few KB of Go
// stack.
const maxDepth = 30000

// maxString bounds one string built by concatenation or printf, for the
// same reason.
const maxString = 256 << 20

type fsMode uint8

const (
	fsDefault fsMode = iota
	fsByte
	fsRegex
	fsChars
)

func (in *interp) fatalf(format string, a ...any) {
	panic(&fatal{msg: fmt.Sprintf(format, a...)})
}

// tick checks the context every so often; loops and record reading call it.
func (in *interp) tick() {
	in.ticks++
	if in.ticks&255 == 0 {
		if err := in.ctx.Err(); err != nil {
			in.fatalf("%v", err)
		}
	}
}

func (in *interp) setFS(s string) {
	// Fields of the current record are split with the FS they were read under.
	if !in.fieldsValid {
		in.splitRecord()
	}
	in.fs = s
	in.fsRe = nil
	switch {
	case s == " ":
		in.fsMode = fsDefault
	case s == "":
		in.fsMode = fsChars
	case len(s) == 1 && s != "\\":
		in.fsMode = fsByte
	default:
		in.fsMode = fsRegex
		re, err := in.regexes.get(s)
		if err != nil {
			in.fatalf("%v", err)
		}
		in.fsRe = re
	}
}

// ---- records and fields ----

func (in *interp) setRecord(s string) {
	in.record = s
	in.recordKind = kInput
	in.fieldsValid = false
	in.recordDirty = false
}

func (in *interp) getRecord() string {
	if in.recordDirty {
		in.rebuildRecord()
	}
	return in.record
}

func (in *interp) rebuildRecord() {
	var b strings.Builder
	for i, f := range in.fields {
		if i > 0 {
			b.WriteString(in.ofs)
		}
		b.WriteString(f.toStr(in.convfmt))
	}
	in.record = b.String()
	in.recordKind = kStr
	in.recordDirty = false
}

func (in *interp) splitRecord() {
	in.fields = in.splitInto(in.record, in.fields[:0], in.fsMode, in.fs, in.fsRe, in.rs == "")
	in.fieldsValid = true
}

func (in *interp) nf() int {
	if !in.fieldsValid {
		in.splitRecord()
	}
	return len(in.fields)
}

func (in *interp) getField(i int) value {
	if i == 0 {
		r := in.getRecord()
		if in.recordKind == kNum {
			return num(in.recordNum)
		}
		return value{k: in.recordKind, s: r}
	}
	if i < 0 {
		in.fatalf("attempt to access field %d", i)
	}
	if !in.fieldsValid {
		in.splitRecord()
	}
	if i > len(in.fields) {
		return input("")
	}
	return in.fields[i-1]
}

func (in *interp) setField(i int, v value) {
	if i == 0 {
		in.setRecord(v.toStr(in.convfmt))
		switch v.k {
		case kStr:
			in.recordKind = kStr
		case kNum:
			// Like gawk, $0 keeps the exact number; its text is CONVFMT's.
			in.recordKind, in.recordNum = kNum, v.n
		}
		return
	}
	if i < 0 {
		in.fatalf("attempt to access field %d", i)
	}
	if i > maxFields {
		in.fatalf("field index %d is too large (wsfs allows %d fields)", i, maxFields)
	}
	if !in.fieldsValid {
		in.splitRecord()
	}
	for len(in.fields) < i {
		in.fields = append(in.fields, input(""))
	}
	// A number stays a number; the rebuilt record shows it through CONVFMT.
	in.fields[i-1] = v
	in.recordDirty = true
}

func (in *interp) setNF(n int) {
	if n < 0 {
		in.fatalf("NF set to negative value")
	}
	if n > maxFields {
		in.fatalf("NF set to %d, more than the %d fields wsfs allows", n, maxFields)
	}
	if !in.fieldsValid {
		in.splitRecord()
	}
	for len(in.fields) < n {
		in.fields = append(in.fields, input(""))
	}
	in.fields = in.fields[:n]
	in.recordDirty = true
}

// ---- variables ----

func (in *interp) getVar(v *variable) value {
	switch v.scope {
	case scopeGlobal:
		return in.globals[v.index]
	case scopeLocal:
		return in.frame.vals[v.index]
	}
	return in.getSpecial(v.index)
}

func (in *interp) setVar(v *variable, val value) {
	switch v.scope {
	case scopeGlobal:
		in.globals[v.index] = val
	case scopeLocal:
		in.frame.vals[v.index] = val
	default:
		in.setSpecial(v.index, val)
	}
}

func (in *interp) array(v *variable) map[string]value {
	if v.scope == scopeLocal {
		a := in.frame.arrs[v.index]
		if a == nil {
			a = map[string]value{}
			in.frame.arrs[v.index] = a
		}
		return a
	}
	return in.garrs[v.index]
}

func (in *interp) getSpecial(i int) value {
	switch i {
	case spNF:
		return num(float64(in.nf()))
	case spNR:
		return num(in.nr)
	case spFNR:
		return num(in.fnr)
	case spFS:
		return str(in.fs)
	case spOFS:
		return str(in.ofs)
	case spORS:
		return str(in.ors)
	case spRS:
		return str(in.rs)
	case spRT:
		return str(in.rt)
	case spSUBSEP:
		return str(in.subsep)
	case spCONVFMT:
		return str(in.convfmt)
	case spOFMT:
		return str(in.ofmt)
	case spRSTART:
		return num(in.rstart)
	case spRLENGTH:
		return num(in.rlength)
	case spFILENAME:
		return in.filename
	case spARGC:
		return in.argc
	}
	return value{}
}

func (in *interp) setSpecial(i int, v value) {
	switch i {
	case spNF:
		in.setNF(int(v.toNum()))
	case spNR:
		in.nr = math.Trunc(v.toNum())
	case spFNR:
		in.fnr = math.Trunc(v.toNum())
	case spFS:
		in.setFS(in.toStr(v))
	case spOFS:
		in.ofs = in.toStr(v)
	case spORS:
		in.ors = in.toStr(v)
	case spRS:
		in.rs = in.toStr(v)
	case spRT:
		in.rt = in.toStr(v)
	case spSUBSEP:
		in.subsep = in.toStr(v)
	case spCONVFMT:
		in.convfmt = in.toStr(v)
	case spOFMT:
		in.ofmt = in.toStr(v)
	case spRSTART:
		in.rstart = v.toNum()
	case spRLENGTH:
		in.rlength = v.toNum()
	case spFILENAME:
		in.filename = v
	case spARGC:
		in.argc = v
	}
}

func (in *interp) toStr(v value) string { return v.toStr(in.convfmt) }

func (in *interp) outStr(v value) string { return v.toStr(in.ofmt) }

// key makes an array subscript.
func (in *interp) key(keys []expr) string {
	if len(keys) == 1 {
		return in.keyOf(in.eval(keys[0]))
	}
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(in.subsep)
		}
		b.WriteString(in.keyOf(in.eval(k)))
	}
	return b.String()
}

func (in *interp) keyOf(v value) string {
	if v.k == kNum {
		n := v.n
		if n == math.Trunc(n) && n > -1e15 && n < 1e15 {
			return strconv.FormatInt(int64(n), 10)
		}
	}
	return in.toStr(v)
}

// ---- statements ----

func (in *interp) execBlock(body []stmt) ctrl {
	for _, s := range body {
		if c := in.exec(s); c != ctrlNone {
			return c
		}
	}
	return ctrlNone
}

func (in *interp) exec(s stmt) ctrl {
	switch s := s.(type) {
	case *exprStmt:
		in.pos = s.pos
		in.eval(s.e)
	case *printStmt:
		in.pos = s.pos
		in.print(s)
	case *ifStmt:
		in.pos = s.pos
		if in.eval(s.cond).toBool() {
			return in.execBlock(s.then)
		} else if s.els != nil {
			return in.execBlock(s.els)
		}
	case *whileStmt:
		in.pos = s.pos
		for in.eval(s.cond).toBool() {
			in.tick()
			switch c := in.execBlock(s.body); c {
			case ctrlBreak:
				return ctrlNone
			case ctrlContinue, ctrlNone:
			default:
				return c
			}
		}
	case *doStmt:
		in.pos = s.pos
		for {
			in.tick()
			switch c := in.execBlock(s.body); c {
			case ctrlBreak:
				return ctrlNone
			case ctrlContinue, ctrlNone:
			default:
				return c
			}
			if !in.eval(s.cond).toBool() {
				break
			}
		}
	case *forStmt:
		in.pos = s.pos
		if s.init != nil {
			in.exec(s.init)
		}
		for s.cond == nil || in.eval(s.cond).toBool() {
			in.tick()
			switch c := in.execBlock(s.body); c {
			case ctrlBreak:
				return ctrlNone
			case ctrlContinue, ctrlNone:
			default:
				return c
			}
			if s.post != nil {
				in.exec(s.post)
			}
		}
	case *forInStmt:
		in.pos = s.pos
		arr := in.array(s.arr)
		keys := make([]string, 0, len(arr))
		for k := range arr {
			keys = append(keys, k)
		}
		in.orderKeys(keys, arr)
		for _, k := range keys {
			in.tick()
			if _, ok := arr[k]; !ok {
				continue // deleted during the loop
			}
			in.assign(s.v, input(k))
			switch c := in.execBlock(s.body); c {
			case ctrlBreak:
				return ctrlNone
			case ctrlContinue, ctrlNone:
			default:
				return c
			}
		}
	case *blockStmt:
		return in.execBlock(s.body)
	case *nextStmt:
		if in.inEnd || in.input.inBegin {
			in.fatalf("`next' cannot be called from a BEGIN or END rule")
		}
		return ctrlNext
	case *nextfileStmt:
		if in.inEnd || in.input.inBegin {
			in.fatalf("`nextfile' cannot be called from a BEGIN or END rule")
		}
		return ctrlNextFile
	case *exitStmt:
		in.pos = s.pos
		if s.code != nil {
			in.exitCode = int(in.eval(s.code).toNum()) & 0xff
		}
		return ctrlExit
	case *returnStmt:
		in.pos = s.pos
		if s.e != nil {
			in.retVal = in.eval(s.e)
		} else {
			in.retVal = value{}
		}
		return ctrlReturn
	case *breakStmt:
		return ctrlBreak
	case *continueStmt:
		return ctrlContinue
	case *deleteStmt:
		in.pos = s.pos
		arr := in.array(s.arr)
		if s.keys == nil {
			clear(arr)
		} else {
			delete(arr, in.key(s.keys))
		}
	default:
		in.fatalf("internal error: unknown statement %T", s)
	}
	return ctrlNone
}

// ---- expressions ----

func (in *interp) eval(e expr) value {
	switch e := e.(type) {
	case *numExpr:
		return num(e.n)
	case *strExpr:
		return str(e.s)
	case *varExpr:
		return in.getVar(e.v)
	case *fieldExpr:
		return in.getField(in.fieldIndex(e.index))
	case *indexExpr:
		arr := in.array(e.arr)
		k := in.key(e.keys)
		v, ok := arr[k]
		if !ok {
			// Referencing an element creates it.
			arr[k] = value{}
		}
		return v
	case *assignExpr:
		return in.evalAssign(e)
	case *binaryExpr:
		return in.evalBinary(e)
	case *groupExpr:
		return in.eval(e.e)
	case *regexExpr:
		return boolean(in.matches(e.re, in.getRecord()))
	case *andExpr:
		return boolean(in.eval(e.l).toBool() && in.eval(e.r).toBool())
	case *orExpr:
		return boolean(in.eval(e.l).toBool() || in.eval(e.r).toBool())
	case *condExpr:
		if in.eval(e.cond).toBool() {
			return in.eval(e.yes)
		}
		return in.eval(e.no)
	case *matchExpr:
		s := in.toStr(in.eval(e.l))
		re := in.regexOf(e.re)
		return boolean(in.matches(re, s) != e.negate)
	case *inExpr:
		_, ok := in.array(e.arr)[in.key(e.keys)]
		return boolean(ok)
	case *unaryExpr:
		v := in.eval(e.e)
		switch e.op {
		case tSub:
			return num(-v.toNum())
		case tAdd:
			return num(v.toNum())
		default:
			return boolean(!v.toBool())
		}
	case *incDecExpr:
		old := in.eval(e.target).toNum()
		nv := old + e.delta
		in.assign(e.target, num(nv))
		if e.pre {
			return num(nv)
		}
		return num(old)
	case *callExpr:
		return in.call(e)
	case *builtinExpr:
		return in.builtin(e)
	case *getlineExpr:
		return in.getline(e)
	}
	in.fatalf("internal error: unknown expression %T", e)
	return value{}
}

func (in *interp) fieldIndex(e expr) int {
	if n, ok := e.(*numExpr); ok {
		return int(n.n)
	}
	f := in.eval(e).toNum()
	if f != f {
		in.fatalf("attempt to access field -nan")
	}
	if f < 0 {
		in.fatalf("attempt to access field %d", int(f))
	}
	if f > maxFields {
		in.fatalf("field index %s is too large", numToStr(f, "%.6g"))
	}
	return int(f)
}

func (in *interp) assign(target expr, v value) {
	switch t := target.(type) {
	case *varExpr:
		in.setVar(t.v, v)
	case *fieldExpr:
		in.setField(in.fieldIndex(t.index), v)
	case *indexExpr:
		in.array(t.arr)[in.key(t.keys)] = v
	}
}

func (in *interp) evalAssign(e *assignExpr) value {
	if e.op == tAssign {
		v := in.eval(e.right)
		switch t := e.target.(type) {
		case *varExpr:
			in.setVar(t.v, v)
		case *fieldExpr:
			in.setField(in.fieldIndex(t.index), v)
		case *indexExpr:
			// gawk evaluates the subscript after the value.
			in.array(t.arr)[in.key(t.keys)] = v
		}
		return v
	}
	// Op-assign: evaluate the target's place once.
	switch t := e.target.(type) {
	case *varExpr:
		r := in.eval(e.right).toNum()
		v := num(in.arith(e.op, in.getVar(t.v).toNum(), r))
		in.setVar(t.v, v)
		return v
	case *fieldExpr:
		i := in.fieldIndex(t.index)
		r := in.eval(e.right).toNum()
		v := num(in.arith(e.op, in.getField(i).toNum(), r))
		in.setField(i, v)
		return v
	case *indexExpr:
		arr := in.array(t.arr)
		k := in.key(t.keys)
		r := in.eval(e.right).toNum()
		v := num(in.arith(e.op, arr[k].toNum(), r))
		arr[k] = v
		return v
	}
	return value{}
}

func (in *interp) arith(op tok, l, r float64) float64 {
	switch op {
	case tAdd, tAddAssign:
		return l + r
	case tSub, tSubAssign:
		return l - r
	case tMul, tMulAssign:
		return l * r
	case tDiv, tDivAssign:
		if r == 0 {
			in.fatalf("division by zero attempted")
		}
		return l / r
	case tMod, tModAssign:
		if r == 0 {
			in.fatalf("division by zero attempted in `%%'")
		}
		return libm(math.Mod(l, r), l, r)
	case tPow, tPowAssign:
		return power(l, r)
	}
	return 0
}

// power computes integral exponents by repeated squaring, as gawk does, so
// results are exact where doubles allow.
func power(x, y float64) float64 {
	if y == math.Trunc(y) && math.Abs(y) < 1<<31 {
		n := int64(y)
		neg := n < 0
		if neg {
			n = -n
		}
		result := 1.0
		b := x
		for n > 0 {
			if n&1 == 1 {
				result *= b
			}
			b *= b
			n >>= 1
		}
		if neg {
			return 1 / result
		}
		return result
	}
	return libm(math.Pow(x, y), x, y)
}

// libm gives a NaN made by a math function the sign x86's C library gives
// it (negative, printed "-nan" by gawk); a NaN argument passes through.
func libm(r float64, args ...float64) float64 {
	if r == r {
		return r
	}
	for _, a := range args {
		if a != a {
			return a
		}
	}
	return math.Copysign(math.NaN(), -1)
}

func (in *interp) evalBinary(e *binaryExpr) value {
	switch e.op {
	case tEOF: // concatenation
		l := in.toStr(in.eval(e.l))
		r := in.toStr(in.eval(e.r))
		if len(l)+len(r) > maxString {
			in.fatalf("string of %d bytes is longer than the %d bytes wsfs allows", len(l)+len(r), maxString)
		}
		return str(l + r)
	case tAdd, tSub, tMul, tDiv, tMod, tPow:
		l := in.eval(e.l).toNum()
		r := in.eval(e.r).toNum()
		return num(in.arith(e.op, l, r))
	}
	l := in.eval(e.l)
	r := in.eval(e.r)
	c, unordered := in.compare(l, r)
	if unordered {
		return boolean(e.op == tNotEqual)
	}
	switch e.op {
	case tLess:
		return boolean(c < 0)
	case tLessEq:
		return boolean(c <= 0)
	case tEqual:
		return boolean(c == 0)
	case tNotEqual:
		return boolean(c != 0)
	case tGreater:
		return boolean(c > 0)
	default:
		return boolean(c >= 0)
	}
}

// compare orders two values the POSIX way: numerically when both are
// numeric (numbers, numeric strings from input, uninitialized), else as
// strings.
func (in *interp) compare(l, r value) (int, bool) {
	if l.isNumeric() && r.isNumeric() {
		a, b := l.toNum(), r.toNum()
		switch {
		case a != a || b != b:
			return 0, true
		case a < b:
			return -1, false
		case a > b:
			return 1, false
		}
		return 0, false
	}
	return strings.Compare(in.cmpStr(l), in.cmpStr(r)), false
}

// cmpStr is a value's string for comparisons: gawk compares an infinite or
// NaN number with a string as if the number were "".
func (in *interp) cmpStr(v value) string {
	if v.k == kNum && (math.IsInf(v.n, 0) || v.n != v.n) {
		return ""
	}
	return in.toStr(v)
}

func (in *interp) regexOf(e expr) *gnuregex.Regexp {
	if r, ok := e.(*regexExpr); ok {
		return r.re
	}
	src := in.toStr(in.eval(e))
	re, err := in.regexes.get(src)
	if err != nil {
		in.fatalf("%v", err)
	}
	return re
}

// ---- functions ----

func (in *interp) call(c *callExpr) value {
	f := c.fn
	fr := &frame{vals: make([]value, len(f.params)), arrs: make([]map[string]value, len(f.params))}
	for _, extra := range c.args[min(len(c.args), len(f.params)):] {
		in.eval(extra)
	}
	for i, p := range f.params {
		if i < len(c.args) {
			if p.kind == kindArray {
				fr.arrs[i] = in.array(c.args[i].(*varExpr).v)
			} else {
				fr.vals[i] = in.eval(c.args[i])
			}
		}
	}
	in.depth++
	if in.depth > maxDepth {
		in.fatalf("function `%s': call depth exceeds %d (runaway recursion?)", f.name, maxDepth)
	}
	in.tick()
	saved := in.frame
	in.frame = fr
	in.retVal = value{}
	c2 := in.execBlock(f.body)
	in.frame = saved
	in.depth--
	switch c2 {
	case ctrlNext, ctrlNextFile, ctrlExit:
		panic(jump{c2})
	case ctrlBreak, ctrlContinue:
		in.fatalf("`break' or `continue' is not allowed outside a loop")
	}
	ret := in.retVal
	in.retVal = value{}
	return ret
}

func (in *interp) print(s *printStmt) {
	w := in.out
	if s.redir != 0 {
		w = in.streams.output(in, s.redir, in.toStr(in.eval(s.dest)))
	}
	// Every argument is evaluated before anything is written, so an error
	// in one leaves no partial line behind.
	if s.printf {
		format := in.toStr(in.eval(s.args[0]))
		vals := make([]value, len(s.args)-1)
		for i, a := range s.args[1:] {
			vals[i] = in.eval(a)
		}
		w.WriteString(in.sprintf(format, vals))
	} else if len(s.args) == 0 {
		w.WriteString(in.getRecord())
		w.WriteString(in.ors)
	} else {
		strs := in.printBuf[:0]
		for _, a := range s.args {
			strs = append(strs, in.outStr(in.eval(a)))
		}
		for i, str := range strs {
			if i > 0 {
				w.WriteString(in.ofs)
			}
			w.WriteString(str)
		}
		w.WriteString(in.ors)
		clear(strs)
		in.printBuf = strs[:0]
	}
	if err := writerErr(w); err != nil {
		in.fatalf("print to %q failed: %v", "standard output", command.Strerror(err))
	}
	if s.redir != 0 && in.streams.unbuffered(w) {
		w.Flush()
	}
}

func writerErr(w *bufio.Writer) error {
	// bufio.Writer keeps its first error and reports it from every later write.
	_, err := w.Write(nil)
	return err
}
