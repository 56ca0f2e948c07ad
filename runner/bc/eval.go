package bc

import (
	"math"
	"math/big"
)

// approxDigits is about how many decimal digits |v| has.
func approxDigits(v *big.Int) int {
	return v.BitLen()*30103/100000 + 1
}

// log10Abs is about log10 |v| (0 for 0).
func log10Abs(v *big.Int) float64 {
	if v.Sign() == 0 {
		return 0
	}
	mant := new(big.Float)
	exp := new(big.Float).SetInt(v).MantExp(mant)
	m, _ := mant.Float64()
	return math.Log10(math.Abs(m)) + float64(exp)*math.Log10(2)
}

// checkSize fails when a result of about digits digits would pass the
// runner's limit, before it is computed.
func (in *interp) checkSize(addr, digits int) error {
	if digits > maxDigits {
		return in.tooLong(addr, digits)
	}
	return nil
}

func (in *interp) eval(e expr) (num, error) {
	if err := in.tick(); err != nil {
		return num{}, err
	}
	switch e := e.(type) {
	case *numLit:
		return in.constant(e.text), nil
	case *varRef:
		return in.load(e.name), nil
	case *elemRef:
		i, err := in.index(e, e.addr)
		if err != nil {
			return num{}, err
		}
		return in.getElem(e.name, i), nil
	case *assign:
		return in.assign(e)
	case *incDec:
		return in.incDec(e)
	case *unary:
		v, err := in.eval(e.x)
		if err != nil {
			return num{}, err
		}
		if e.op == "-" {
			return neg(v), nil
		}
		if v.isZero() {
			return numOne, nil
		}
		return numZero, nil
	case *logical:
		a, err := in.eval(e.a)
		if err != nil {
			return num{}, err
		}
		if e.and && a.isZero() || !e.and && !a.isZero() {
			return boolNum(!e.and), nil
		}
		b, err := in.eval(e.b)
		if err != nil {
			return num{}, err
		}
		return boolNum(!b.isZero()), nil
	case *binary:
		a, err := in.eval(e.a)
		if err != nil {
			return num{}, err
		}
		b, err := in.eval(e.b)
		if err != nil {
			return num{}, err
		}
		return in.binop(e.op, a, b, e.addr)
	case *call:
		return in.call(e)
	case *builtin:
		return in.builtin(e)
	}
	return numZero, nil
}

func boolNum(b bool) num {
	if b {
		return numOne
	}
	return numZero
}

// binop applies an arithmetic or relational operator with GNU's scales.
func (in *interp) binop(op string, a, b num, addr int) (num, error) {
	switch op {
	case "+":
		return add(a, b), nil
	case "-":
		return sub(a, b), nil
	case "*":
		if err := in.checkSize(addr, approxDigits(a.v)+approxDigits(b.v)); err != nil {
			return num{}, err
		}
		return mul(a, b, in.scale), nil
	case "/", "%":
		if err := in.checkSize(addr, approxDigits(a.v)-a.s+b.s+in.scale+1); err != nil {
			return num{}, err
		}
		var r num
		var ok bool
		if op == "/" {
			r, ok = div(a, b, in.scale)
		} else {
			r, ok = mod(a, b, in.scale)
		}
		if !ok {
			return num{}, in.runtimeError(addr, "Divide by zero")
		}
		return r, nil
	case "^":
		return in.raise(a, b, addr)
	case "<":
		return boolNum(cmp(a, b) < 0), nil
	case "<=":
		return boolNum(cmp(a, b) <= 0), nil
	case ">":
		return boolNum(cmp(a, b) > 0), nil
	case ">=":
		return boolNum(cmp(a, b) >= 0), nil
	case "==":
		return boolNum(cmp(a, b) == 0), nil
	case "!=":
		return boolNum(cmp(a, b) != 0), nil
	}
	return numZero, nil
}

// raise is a^b for an integer b, with GNU's scale: min(a.s*b,
// max(scale, a.s)) digits, or scale digits for a negative b.
func (in *interp) raise(a, b num, addr int) (num, error) {
	if b.s > 0 && b.v.Sign() != 0 && new(big.Int).Rem(b.v, pow10(b.s)).Sign() != 0 {
		in.warning(addr, "non-zero scale in exponent")
	}
	e := b.truncInt()
	if e.CmpAbs(big.NewInt(1<<32-1)) > 0 {
		return num{}, in.runtimeError(addr, "exponent too large in raise")
	}
	n := e.Int64()
	if n == 0 {
		return numOne, nil
	}
	negExp := n < 0
	if negExp {
		n = -n
	}
	// The exact power has n times a's digits; beyond the limit it is not
	// computed. Powers of 0, 1 and -1 stay small.
	if a.v.CmpAbs(big.NewInt(1)) > 0 || a.s > 0 {
		if d := math.Ceil(float64(n) * log10Abs(a.v)); d > float64(maxDigits) || int(n)*a.s > maxDigits {
			return num{}, in.tooLong(addr, int(min(max(d, float64(int(n)*a.s)), 1<<40)))
		}
	}
	p := num{v: new(big.Int).Exp(a.v, big.NewInt(n), nil), s: a.s * int(n)}
	if negExp {
		r, ok := div(numOne, p, in.scale)
		if !ok {
			return num{}, in.runtimeError(addr, "divide by zero")
		}
		return r, nil
	}
	rs := min(a.s*int(n), max(in.scale, a.s))
	return p.rescale(rs), nil
}

func (in *interp) assign(e *assign) (num, error) {
	switch t := e.target.(type) {
	case *varRef:
		v, err := in.eval(e.value)
		if err != nil {
			return num{}, err
		}
		if e.op != "" {
			if v, err = in.binop(e.op, in.load(t.name), v, e.opAddr); err != nil {
				return num{}, err
			}
		}
		in.store(t.name, v, e.addr)
		return in.load(t.name), nil
	case *elemRef:
		// The subscript is checked by the load of a compound assignment,
		// by the store of a plain one.
		addr := e.addr
		if e.op != "" {
			addr = e.loadAddr
		}
		i, err := in.index(t, addr)
		if err != nil {
			return num{}, err
		}
		v, err := in.eval(e.value)
		if err != nil {
			return num{}, err
		}
		if e.op != "" {
			if v, err = in.binop(e.op, in.getElem(t.name, i), v, e.opAddr); err != nil {
				return num{}, err
			}
		}
		if err := in.setElem(t.name, i, v, e.addr); err != nil {
			return num{}, err
		}
		return v, nil
	}
	return numZero, nil
}

func (in *interp) incDec(e *incDec) (num, error) {
	delta := numOne
	if !e.inc {
		delta = neg(numOne)
	}
	switch t := e.target.(type) {
	case *varRef:
		old := in.load(t.name)
		in.store(t.name, add(old, delta), e.addr)
		if e.prefix {
			return in.load(t.name), nil
		}
		return old, nil
	case *elemRef:
		addr := e.loadAddr
		if e.prefix {
			addr = e.addr
		}
		i, err := in.index(t, addr)
		if err != nil {
			return num{}, err
		}
		old := in.getElem(t.name, i)
		nv := add(old, delta)
		if err := in.setElem(t.name, i, nv, e.addr); err != nil {
			return num{}, err
		}
		if e.prefix {
			return nv, nil
		}
		return old, nil
	}
	return numZero, nil
}

func (in *interp) builtin(e *builtin) (num, error) {
	if e.fn == "read" {
		return in.read(e.addr)
	}
	v, err := in.eval(e.x)
	if err != nil {
		return num{}, err
	}
	switch e.fn {
	case "length":
		return newNum(int64(v.length())), nil
	case "scale":
		return newNum(int64(v.s)), nil
	case "sqrt":
		if v.sign() < 0 {
			return num{}, in.runtimeError(e.addr, "Square root of a negative number")
		}
		if err := in.checkSize(e.addr, approxDigits(v.v)/2+max(in.scale, v.s)+1); err != nil {
			return num{}, err
		}
		return sqrt(v, in.scale), nil
	}
	return numZero, nil
}

// read reads a number from the next line of standard input, in ibase.
func (in *interp) read(addr int) (num, error) {
	in.out.flush()
	line, err := in.stdin.ReadString('\n')
	if line == "" && err != nil {
		return num{}, in.runtimeError(addr, "read() found no input")
	}
	t := line
	for len(t) > 0 && (t[len(t)-1] == '\n' || t[len(t)-1] == '\r' || t[len(t)-1] == ' ' || t[len(t)-1] == '\t') {
		t = t[:len(t)-1]
	}
	for len(t) > 0 && (t[0] == ' ' || t[0] == '\t') {
		t = t[1:]
	}
	negative := false
	if len(t) > 0 && t[0] == '-' {
		negative, t = true, t[1:]
	}
	if !validConst(t) {
		return num{}, in.runtimeError(addr, "read() found %q, not a number", line)
	}
	v := in.constant(t)
	if negative {
		v = neg(v)
	}
	return v, nil
}

func validConst(t string) bool {
	if t == "" || t == "." {
		return false
	}
	dot := false
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == '.' && !dot:
			dot = true
		case c >= '0' && c <= '9', c >= 'A' && c <= 'Z':
		default:
			return false
		}
	}
	return true
}

// call runs a function: arguments evaluated first, then checked against
// the parameters as GNU's process_params does, bound (arrays copied, or
// shared for *a[]) along with the autos, which shadow outer bindings for
// the call and the functions it calls (bc's dynamic scope).
func (in *interp) call(c *call) (num, error) {
	vals := make([]num, len(c.args))
	for i, a := range c.args {
		if a.x != nil {
			v, err := in.eval(a.x)
			if err != nil {
				return num{}, err
			}
			vals[i] = v
		}
	}
	f := in.funcs[c.name]
	if f == nil {
		return num{}, in.runtimeError(c.defAddr, "Function %s not defined.", c.name)
	}
	// Parameters: each formal takes the next argument's type byte.
	mismatch := false
	for i, p := range f.params {
		if i >= len(c.args) {
			return num{}, in.runtimeError(c.endAddr, "Parameter number mismatch")
		}
		isArray := c.args[i].array != ""
		switch {
		case p.array && !isArray:
			in.runtimeError(c.typeAddrs[i], "Parameter type mismatch parameter %s.", p.name)
			mismatch = true
		case !p.array && isArray:
			in.runtimeError(c.typeAddrs[i], "Parameter type mismatch, parameter (null).")
			mismatch = true
		}
	}
	if len(c.args) > len(f.params) || mismatch {
		addr := c.endAddr
		if len(c.args) > len(f.params) {
			addr = c.typeAddrs[len(f.params)]
		}
		return num{}, in.runtimeError(addr, "Parameter number mismatch")
	}
	if in.depth >= maxDepth {
		return num{}, in.runtimeError(c.endAddr, "function calls nested over the runner's limit of %d", maxDepth)
	}
	if f.native != nil {
		return f.native(in, vals)
	}
	// Bind parameters and autos.
	var scalars, arrays []string
	bindArray := func(name string, a *array) {
		in.arrays[name] = append(in.arrays[name], a)
		arrays = append(arrays, name)
	}
	for i, p := range f.params {
		switch {
		case p.array && p.ref:
			bindArray(p.name, in.arrayOf(c.args[i].array))
		case p.array:
			src := in.arrayOf(c.args[i].array)
			cp := &array{elems: make(map[int64]num, len(src.elems))}
			for k, v := range src.elems {
				cp.elems[k] = v
			}
			if in.elements+len(cp.elems) > maxElements {
				return num{}, in.runtimeError(c.endAddr, "Array %s: over the runner's limit of %d elements in all arrays", p.name, maxElements)
			}
			in.elements += len(cp.elems)
			bindArray(p.name, cp)
		default:
			in.vars[p.name] = append(in.vars[p.name], vals[i])
			scalars = append(scalars, p.name)
		}
	}
	for _, a := range f.autos {
		if a.array {
			bindArray(a.name, &array{elems: map[int64]num{}})
		} else {
			in.vars[a.name] = append(in.vars[a.name], numZero)
			scalars = append(scalars, a.name)
		}
	}
	savedName := in.fname
	in.fname = f.name
	in.depth++
	defer func() {
		in.depth--
		in.fname = savedName
		for _, n := range scalars {
			in.vars[n] = in.vars[n][:len(in.vars[n])-1]
		}
		for _, n := range arrays {
			st := in.arrays[n]
			top := st[len(st)-1]
			if owned := !isRef(f, n); owned {
				in.elements -= len(top.elems)
			}
			in.arrays[n] = st[:len(st)-1]
		}
	}()
	in.retval = numZero
	for _, s := range f.body {
		fl, err := in.exec(s)
		if err != nil {
			return num{}, err
		}
		if fl == flowReturn {
			break
		}
	}
	r := in.retval
	in.retval = numZero
	return r, nil
}

// isRef reports whether name is one of f's *a[] parameters (whose array
// belongs to the caller).
func isRef(f *function, name string) bool {
	for _, p := range f.params {
		if p.name == name && p.ref {
			return true
		}
	}
	return false
}
