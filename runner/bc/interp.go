package bc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strings"
)

// Runner bounds on what a program may build, so that a huge scale or a
// runaway loop ends with a message rather than taking the worker's
// memory: the digits of one number, the elements of all arrays, and the
// depth of function calls.
// (Variables so that tests can lower them.)
var (
	maxDigits   = 1 << 20
	maxElements = 1 << 20
	maxDepth    = 5000
)

const maxIndex = 16777215 // BC_DIM_MAX, GNU's

// errRun ends the current item: a run-time error was printed.
var errRun = errors.New("bc: run-time error")

// errHalt ends the program (halt).
var errHalt = errors.New("bc: halt")

// flow is how a statement ended.
type flow int

const (
	flowNext flow = iota
	flowBreak
	flowContinue
	flowReturn
)

type array struct {
	elems map[int64]num
}

// interp runs a bc program.
type interp struct {
	ctx    context.Context
	out    *outWriter
	stderr io.Writer
	stdin  *bufio.Reader // read()'s input

	scale, ibase, obase int
	last                num

	vars   map[string][]num    // each name's bindings, innermost last
	arrays map[string][]*array // likewise for arrays
	funcs  map[string]*function

	fname    string // the running function, "(main)" at the top
	depth    int
	elements int // array elements stored, for maxElements
	retval   num
	steps    int
	consts   map[[2]string]num // constants by text and ibase
}

func newInterp(ctx context.Context, out *outWriter, stderr io.Writer, stdin *bufio.Reader) *interp {
	return &interp{ctx: ctx, out: out, stderr: stderr, stdin: stdin, ibase: 10, obase: 10,
		last: numZero, vars: map[string][]num{}, arrays: map[string][]*array{}, funcs: map[string]*function{},
		fname: "(main)", consts: map[[2]string]num{}}
}

// runtimeError prints GNU's line for a run-time error and returns errRun.
func (in *interp) runtimeError(addr int, format string, a ...any) error {
	in.out.flush()
	fmt.Fprintf(in.stderr, "Runtime error (func=%s, adr=%d): %s\n", in.fname, addr, fmt.Sprintf(format, a...))
	return errRun
}

func (in *interp) warning(addr int, format string, a ...any) {
	in.out.flush()
	fmt.Fprintf(in.stderr, "Runtime warning (func=%s, adr=%d): %s\n", in.fname, addr, fmt.Sprintf(format, a...))
}

// tooLong reports a result over the runner's size limit.
func (in *interp) tooLong(addr int, digits int) error {
	return in.runtimeError(addr, "a result of about %d digits is over the runner's limit of %d digits", digits, maxDigits)
}

// tick polls the context every few thousand steps.
func (in *interp) tick() error {
	in.steps++
	if in.steps&1023 == 0 {
		if err := in.ctx.Err(); err != nil {
			return err
		}
		if err := in.out.err; err != nil {
			return err
		}
	}
	return nil
}

// runItem runs one line's statements.
func (in *interp) runItem(stmts []stmt) error {
	for _, s := range stmts {
		f, err := in.exec(s)
		if err != nil {
			return err
		}
		if f != flowNext {
			break
		}
	}
	return nil
}

func (in *interp) exec(s stmt) (flow, error) {
	if err := in.tick(); err != nil {
		return flowNext, err
	}
	switch s := s.(type) {
	case *exprStmt:
		if c, ok := s.x.(*call); ok && s.print {
			if f := in.funcs[c.name]; f != nil && f.void {
				_, err := in.eval(c)
				return flowNext, err
			}
		}
		v, err := in.eval(s.x)
		if err != nil {
			return flowNext, err
		}
		if s.print {
			in.printNum(v)
			in.out.char('\n')
			in.last = v
		}
	case *strStmt:
		in.out.str(s.text)
	case *printStmt:
		for _, it := range s.items {
			if it.isStr {
				in.out.str(printEscapes(it.str))
				continue
			}
			v, err := in.eval(it.x)
			if err != nil {
				return flowNext, err
			}
			in.printNum(v)
		}
	case *ifStmt:
		c, err := in.eval(s.cond)
		if err != nil {
			return flowNext, err
		}
		if !c.isZero() {
			return in.exec(s.then)
		} else if s.els != nil {
			return in.exec(s.els)
		}
	case *whileStmt:
		for {
			c, err := in.eval(s.cond)
			if err != nil {
				return flowNext, err
			}
			if c.isZero() {
				break
			}
			f, err := in.exec(s.body)
			if err != nil {
				return flowNext, err
			}
			if f == flowBreak {
				break
			}
			if f == flowReturn {
				return f, nil
			}
		}
	case *forStmt:
		if s.init != nil {
			if _, err := in.eval(s.init); err != nil {
				return flowNext, err
			}
		}
		for {
			if s.cond != nil {
				c, err := in.eval(s.cond)
				if err != nil {
					return flowNext, err
				}
				if c.isZero() {
					break
				}
			} else if err := in.tick(); err != nil {
				return flowNext, err
			}
			f, err := in.exec(s.body)
			if err != nil {
				return flowNext, err
			}
			if f == flowBreak {
				break
			}
			if f == flowReturn {
				return f, nil
			}
			if s.incr != nil {
				if _, err := in.eval(s.incr); err != nil {
					return flowNext, err
				}
			}
		}
	case *block:
		for _, x := range s.list {
			f, err := in.exec(x)
			if err != nil || f != flowNext {
				return f, err
			}
		}
	case *breakStmt:
		return flowBreak, nil
	case *continueStmt:
		return flowContinue, nil
	case *returnStmt:
		in.retval = numZero
		if s.x != nil {
			v, err := in.eval(s.x)
			if err != nil {
				return flowNext, err
			}
			in.retval = v
		}
		return flowReturn, nil
	case *haltStmt:
		return flowNext, errHalt
	}
	return flowNext, nil
}

// printEscapes applies print's escapes: \a \b \f \n \q (a quote) \r \t
// \\; any other escaped character prints nothing, as in GNU's bc.
func printEscapes(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'q':
			b.WriteByte('"')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case '\\':
			b.WriteByte('\\')
		}
	}
	return b.String()
}

// lookup returns a scalar's value.
func (in *interp) load(name string) num {
	switch name {
	case "scale":
		return newNum(int64(in.scale))
	case "ibase":
		return newNum(int64(in.ibase))
	case "obase":
		return newNum(int64(in.obase))
	case "last":
		return in.last
	}
	if st := in.vars[name]; len(st) > 0 {
		return st[len(st)-1]
	}
	return numZero
}

// store sets a scalar; the special variables check their range.
func (in *interp) store(name string, v num, addr int) {
	switch name {
	case "scale", "ibase", "obase":
		n := v.truncInt()
		var x int64
		switch {
		case !n.IsInt64() && n.Sign() > 0, n.IsInt64() && n.Int64() > math.MaxInt32:
			x = math.MaxInt32 + 1
		case !n.IsInt64():
			x = -1
		default:
			x = n.Int64()
		}
		switch name {
		case "scale":
			switch {
			case x < 0:
				in.warning(addr, "negative scale, set to 0")
				x = 0
			case x > math.MaxInt32:
				in.warning(addr, "scale too large, set to %d", math.MaxInt32)
				x = math.MaxInt32
			}
			in.scale = int(x)
		case "ibase":
			switch {
			case x < 2:
				in.warning(addr, "ibase too small, set to 2")
				x = 2
			case x > 36:
				in.warning(addr, "ibase too large, set to 36")
				x = 36
			}
			in.ibase = int(x)
		case "obase":
			switch {
			case x < 2:
				in.warning(addr, "obase too small, set to 2")
				x = 2
			case x > math.MaxInt32:
				in.warning(addr, "obase too large, set to %d", math.MaxInt32)
				x = math.MaxInt32
			}
			in.obase = int(x)
		}
		return
	case "last":
		in.last = v
		return
	}
	st := in.vars[name]
	if len(st) == 0 {
		in.vars[name] = []num{v}
		return
	}
	st[len(st)-1] = v
}

func (in *interp) arrayOf(name string) *array {
	st := in.arrays[name]
	if len(st) == 0 {
		a := &array{elems: map[int64]num{}}
		in.arrays[name] = []*array{a}
		return a
	}
	return st[len(st)-1]
}

// index evaluates an array subscript.
func (in *interp) index(e *elemRef, addr int) (int64, error) {
	v, err := in.eval(e.index)
	if err != nil {
		return 0, err
	}
	n := v.truncInt()
	if n.Sign() < 0 || !n.IsInt64() || n.Int64() > maxIndex {
		return 0, in.runtimeError(addr, "Array %s subscript out of bounds.", e.name)
	}
	return n.Int64(), nil
}

func (in *interp) setElem(name string, i int64, v num, addr int) error {
	a := in.arrayOf(name)
	if _, ok := a.elems[i]; !ok {
		if in.elements >= maxElements {
			return in.runtimeError(addr, "Array %s: over the runner's limit of %d elements in all arrays", name, maxElements)
		}
		in.elements++
	}
	a.elems[i] = v
	return nil
}

func (in *interp) getElem(name string, i int64) num {
	if v, ok := in.arrayOf(name).elems[i]; ok {
		return v
	}
	return numZero
}

// constant converts a constant's text with the current ibase.
func (in *interp) constant(text string) num {
	key := [2]string{text, fmt.Sprint(in.ibase)}
	if v, ok := in.consts[key]; ok {
		return v
	}
	v := parseConst(text, in.ibase)
	in.consts[key] = v
	return v
}

// digitVal is a constant digit's value: 0-9, then A=10 … Z=35.
func digitVal(c byte) int {
	if c >= '0' && c <= '9' {
		return int(c - '0')
	}
	return int(c-'A') + 10
}

// parseConst converts a constant as GNU's push_constant does: a digit
// at or above ibase counts as ibase-1, except a lone digit before the
// point, which keeps its value whatever the base ("A" is 10, "AB" in base
// 10 is 99); the fraction keeps as many digits after the point as the
// constant has.
func parseConst(text string, ibase int) num {
	ip, fp, _ := strings.Cut(text, ".")
	clamp := func(c byte) int64 { return int64(min(digitVal(c), ibase-1)) }
	iv := new(big.Int)
	if len(ip) == 1 {
		iv.SetInt64(int64(digitVal(ip[0])))
	} else if ibase == 10 {
		b := []byte(ip)
		for i, c := range b {
			b[i] = byte('0' + clamp(c))
		}
		if len(b) > 0 {
			iv.SetString(string(b), 10)
		}
	} else {
		base := big.NewInt(int64(ibase))
		for i := 0; i < len(ip); i++ {
			iv.Mul(iv, base)
			iv.Add(iv, big.NewInt(clamp(ip[i])))
		}
	}
	n := num{v: iv}
	if fp == "" {
		return n
	}
	if ibase == 10 {
		b := []byte(fp)
		for i, c := range b {
			b[i] = byte('0' + clamp(c))
		}
		f, _ := new(big.Int).SetString(string(b), 10)
		return add(n, num{v: f, s: len(fp)})
	}
	base := big.NewInt(int64(ibase))
	f := new(big.Int)
	d := big.NewInt(1)
	for i := 0; i < len(fp); i++ {
		f.Mul(f, base)
		f.Add(f, big.NewInt(clamp(fp[i])))
		d.Mul(d, base)
	}
	frac, _ := div(num{v: f}, num{v: d}, len(fp))
	return add(n, frac)
}
