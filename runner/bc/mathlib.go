package bc

import (
	"math/big"
)

// The math library (-l): s, c, a, l, e and j, computed in Go to more
// digits than scale asks and then truncated to scale digits, as GNU's
// library functions return their results (v/1 at the caller's scale).

// mathLib lists the library's functions in the order GNU's libmath.b
// defines them (which numbers them).
func mathLib() []*function {
	one := []param{{name: "x"}}
	return []*function{
		{name: "e", params: one, native: libExp},
		{name: "l", params: one, native: libLog},
		{name: "s", params: one, native: libSin},
		{name: "c", params: one, native: libCos},
		{name: "a", params: one, native: libAtan},
		{name: "j", params: []param{{name: "n"}, {name: "x"}}, native: libBessel},
	}
}

// guardDigits are the extra digits computed beyond scale.
const guardDigits = 20

func bitsFor(digits int) uint { return uint(digits)*3322/1000 + 64 }

func toFloat(a num, prec uint) *big.Float {
	f := new(big.Float).SetPrec(prec).SetInt(a.v)
	if a.s > 0 {
		d := new(big.Float).SetPrec(prec).SetInt(pow10(a.s))
		f.Quo(f, d)
	}
	return f
}

// fromFloat truncates f to scale digits after the point.
func fromFloat(f *big.Float, scale int) num {
	g := new(big.Float).SetPrec(f.Prec()+64).Mul(f, new(big.Float).SetInt(pow10(scale)))
	i, _ := g.Int(nil)
	return num{v: i, s: scale}
}

func newF(prec uint) *big.Float { return new(big.Float).SetPrec(prec) }

// intDigits is about how many digits x's integer part has.
func intDigits(x num) int { return max(approxDigits(x.v)-x.s, 1) }

// expF is e^x for |x| of any size: x/2^k, its Taylor series, then k
// squarings.
func expF(x *big.Float, prec uint) *big.Float {
	k := 0
	if e := x.MantExp(nil); e > -8 {
		k = e + 8
	}
	wp := prec + uint(k) + 32
	r := newF(wp).SetMantExp(newF(wp).Set(x), -k)
	sum := newF(wp).SetInt64(1)
	term := newF(wp).SetInt64(1)
	eps := newF(wp).SetMantExp(big.NewFloat(1), -int(wp))
	for n := int64(1); ; n++ {
		term.Mul(term, r)
		term.Quo(term, newF(wp).SetInt64(n))
		sum.Add(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	for range k {
		sum.Mul(sum, sum)
	}
	return sum
}

// atanhSeries is atanh(z) for small |z|: z + z³/3 + z⁵/5 …
func atanhSeries(z *big.Float, prec uint) *big.Float {
	z2 := newF(prec).Mul(z, z)
	sum := newF(prec).Set(z)
	pow := newF(prec).Set(z)
	eps := newF(prec).SetMantExp(big.NewFloat(1), -int(prec))
	for n := int64(3); ; n += 2 {
		pow.Mul(pow, z2)
		t := newF(prec).Quo(pow, newF(prec).SetInt64(n))
		sum.Add(sum, t)
		if t.Sign() == 0 || new(big.Float).Abs(t).Cmp(eps) < 0 {
			return sum
		}
	}
}

// logF is ln x for x > 0: x = m·2^e with m in [0.5, 1), ln m by its
// atanh series, e·ln 2 with ln 2 = 2·atanh(1/3).
func logF(x *big.Float, prec uint) *big.Float {
	wp := prec + 64
	m := newF(wp)
	e := x.MantExp(m)
	// z = (m-1)/(m+1)
	one := newF(wp).SetInt64(1)
	z := newF(wp).Quo(newF(wp).Sub(m, one), newF(wp).Add(m, one))
	lm := atanhSeries(z, wp)
	lm.Mul(lm, newF(wp).SetInt64(2))
	ln2 := atanhSeries(newF(wp).Quo(one, newF(wp).SetInt64(3)), wp)
	ln2.Mul(ln2, newF(wp).SetInt64(2))
	return lm.Add(lm, ln2.Mul(ln2, newF(wp).SetInt64(int64(e))))
}

// atanSmall is atan(x) for |x| ≤ 1: halved until small, then its series.
func atanSmall(x *big.Float, prec uint) *big.Float {
	wp := prec + 32
	y := newF(wp).Set(x)
	one := newF(wp).SetInt64(1)
	halvings := 0
	limit := newF(wp).SetMantExp(big.NewFloat(1), -12)
	for new(big.Float).Abs(y).Cmp(limit) > 0 {
		// atan(y) = 2·atan(y / (1 + sqrt(1 + y²)))
		s := newF(wp).Mul(y, y)
		s.Add(s, one)
		s.Sqrt(s)
		s.Add(s, one)
		y.Quo(y, s)
		halvings++
	}
	y2 := newF(wp).Mul(y, y)
	sum := newF(wp).Set(y)
	pow := newF(wp).Set(y)
	eps := newF(wp).SetMantExp(big.NewFloat(1), -int(wp))
	for n := int64(3); ; n += 2 {
		pow.Mul(pow, y2)
		pow.Neg(pow)
		t := newF(wp).Quo(pow, newF(wp).SetInt64(n))
		sum.Add(sum, t)
		if t.Sign() == 0 || new(big.Float).Abs(t).Cmp(eps) < 0 {
			break
		}
	}
	return sum.SetMantExp(sum, halvings)
}

// piF is π by Machin's formula.
func piF(prec uint) *big.Float {
	wp := prec + 32
	one := newF(wp).SetInt64(1)
	a := atanSmall(newF(wp).Quo(one, newF(wp).SetInt64(5)), wp)
	b := atanSmall(newF(wp).Quo(one, newF(wp).SetInt64(239)), wp)
	a.Mul(a, newF(wp).SetInt64(16))
	b.Mul(b, newF(wp).SetInt64(4))
	return a.Sub(a, b)
}

// sinCos returns sin x and cos x: x reduced modulo 2π, then halved until
// small, Taylor series, and the double-angle formulas back.
func sinCos(x *big.Float, prec uint) (*big.Float, *big.Float) {
	e := max(x.MantExp(nil), 0)
	wp := prec + uint(e) + 64
	twoPi := piF(wp)
	twoPi.Mul(twoPi, newF(wp).SetInt64(2))
	q := newF(wp).Quo(x, twoPi)
	qi, _ := q.Int(nil)
	r := newF(wp).Sub(x, newF(wp).Mul(twoPi, newF(wp).SetInt(qi)))
	const halvings = 16
	r.SetMantExp(r, -halvings)
	r2 := newF(wp).Mul(r, r)
	s, c := newF(wp).Set(r), newF(wp).SetInt64(1)
	ts, tc := newF(wp).Set(r), newF(wp).SetInt64(1)
	eps := newF(wp).SetMantExp(big.NewFloat(1), -int(wp))
	for n := int64(1); ; n++ {
		tc.Mul(tc, r2)
		tc.Quo(tc, newF(wp).SetInt64((2*n-1)*(2*n)))
		tc.Neg(tc)
		ts.Mul(ts, r2)
		ts.Quo(ts, newF(wp).SetInt64((2*n)*(2*n+1)))
		ts.Neg(ts)
		s.Add(s, ts)
		c.Add(c, tc)
		if new(big.Float).Abs(tc).Cmp(eps) < 0 && new(big.Float).Abs(ts).Cmp(eps) < 0 {
			break
		}
	}
	one := newF(wp).SetInt64(1)
	for range halvings {
		ns := newF(wp).Mul(s, c)
		ns.SetMantExp(ns, 1)
		nc := newF(wp).Mul(c, c)
		nc.SetMantExp(nc, 1)
		nc.Sub(nc, one)
		s, c = ns, nc
	}
	return s, c
}

func libCheck(in *interp, digits int) error {
	if digits > maxDigits {
		return in.tooLong(0, digits)
	}
	return nil
}

func libExp(in *interp, args []num) (num, error) {
	x := args[0]
	scale := in.scale
	if x.isZero() {
		return numOne.rescale(scale), nil
	}
	xi := x.truncInt()
	if xi.Sign() < 0 && xi.CmpAbs(big.NewInt(int64(scale)*23/10+10)) > 0 {
		// e^x is below 10^-scale: 0 at this scale.
		return numZero.rescale(scale), nil
	}
	// e^x has about x·log10(e) digits before the point.
	whole := 1
	if xi.Sign() > 0 {
		if !xi.IsInt64() || xi.Int64() > int64(maxDigits)*23/10 {
			return num{}, in.tooLong(0, maxDigits+1)
		}
		whole = int(xi.Int64()*4343/10000) + 2
	}
	if err := libCheck(in, whole+scale); err != nil {
		return num{}, err
	}
	prec := bitsFor(whole + scale + guardDigits)
	return fromFloat(expF(toFloat(x, prec), prec), scale), nil
}

func libLog(in *interp, args []num) (num, error) {
	x := args[0]
	scale := in.scale
	if x.sign() <= 0 {
		// GNU's library returns (1-10^scale)/1 for x <= 0.
		return num{v: new(big.Int).Mul(new(big.Int).Sub(big.NewInt(1), pow10(scale)), pow10(scale)), s: scale}, nil
	}
	if err := libCheck(in, scale+intDigits(x)); err != nil {
		return num{}, err
	}
	if cmp(x, numOne) == 0 {
		return numZero.rescale(scale), nil
	}
	prec := bitsFor(scale + guardDigits + x.s)
	return fromFloat(logF(toFloat(x, prec), prec), scale), nil
}

func libSin(in *interp, args []num) (num, error) { return libTrig(in, args[0], true) }
func libCos(in *interp, args []num) (num, error) { return libTrig(in, args[0], false) }

func libTrig(in *interp, x num, sin bool) (num, error) {
	scale := in.scale
	if err := libCheck(in, scale+intDigits(x)); err != nil {
		return num{}, err
	}
	if x.isZero() {
		if sin {
			return numZero.rescale(scale), nil
		}
		return numOne.rescale(scale), nil
	}
	prec := bitsFor(scale + guardDigits + intDigits(x))
	s, c := sinCos(toFloat(x, prec), prec)
	if sin {
		return fromFloat(s, scale), nil
	}
	return fromFloat(c, scale), nil
}

func libAtan(in *interp, args []num) (num, error) {
	x := args[0]
	scale := in.scale
	if err := libCheck(in, scale+intDigits(x)); err != nil {
		return num{}, err
	}
	if x.isZero() {
		return numZero.rescale(scale), nil
	}
	prec := bitsFor(scale + guardDigits + x.s)
	f := toFloat(x, prec)
	var r *big.Float
	if new(big.Float).Abs(f).Cmp(big.NewFloat(1)) > 0 {
		// atan x = ±π/2 - atan(1/x)
		inv := newF(prec).Quo(newF(prec).SetInt64(1), f)
		half := piF(prec)
		half.SetMantExp(half, -1)
		if f.Sign() < 0 {
			half.Neg(half)
		}
		r = half.Sub(half, atanSmall(inv, prec))
	} else {
		r = atanSmall(f, prec)
	}
	return fromFloat(r, scale), nil
}

// libBessel is j(n, x): Jn(x) by its series, n truncated to an integer.
func libBessel(in *interp, args []num) (num, error) {
	n := args[0].truncInt()
	x := args[1]
	scale := in.scale
	if !n.IsInt64() || n.Int64() > int64(maxDigits) || n.Int64() < -int64(maxDigits) {
		return num{}, in.tooLong(0, maxDigits+1)
	}
	order := n.Int64()
	negOrder := order < 0
	if negOrder {
		order = -order
	}
	// The series' terms grow to about e^|x| before they shrink: that many
	// more digits are needed.
	xi := new(big.Int).Abs(x.truncInt())
	if !xi.IsInt64() || xi.Int64() > int64(maxDigits) {
		return num{}, in.tooLong(0, maxDigits+1)
	}
	extra := int(xi.Int64()*4343/10000) + 1
	if err := libCheck(in, scale+extra+guardDigits); err != nil {
		return num{}, err
	}
	prec := bitsFor(scale + extra + guardDigits + x.s)
	f := toFloat(x, prec)
	half := newF(prec).SetMantExp(f, -1)
	h2 := newF(prec).Mul(half, half)
	h2.Neg(h2)
	// First term: (x/2)^n / n!
	term := newF(prec).SetInt64(1)
	for k := int64(1); k <= order; k++ {
		term.Mul(term, half)
		term.Quo(term, newF(prec).SetInt64(k))
	}
	sum := newF(prec).Set(term)
	eps := newF(prec).SetMantExp(big.NewFloat(1), -int(prec))
	for k := int64(1); ; k++ {
		if k&63 == 0 && in.ctx.Err() != nil {
			return num{}, in.ctx.Err()
		}
		term.Mul(term, h2)
		term.Quo(term, newF(prec).SetInt64(k*(k+order)))
		sum.Add(sum, term)
		if term.Sign() == 0 || new(big.Float).Abs(term).Cmp(eps) < 0 && k > xi.Int64() {
			break
		}
	}
	if negOrder && order%2 == 1 {
		sum.Neg(sum)
	}
	return fromFloat(sum, scale), nil
}
