package bc

import (
	"math/big"
	"strings"
)

// num is one of bc's numbers: an arbitrary-precision decimal, the integer
// v scaled by 10^s (s digits after the point). Zero may carry a scale
// (0.000), as in GNU's; it prints as "0" whatever its scale.
type num struct {
	v *big.Int
	s int
}

var (
	bigTen  = big.NewInt(10)
	numZero = num{v: new(big.Int)}
	numOne  = num{v: big.NewInt(1)}
)

// pow10 caches small powers of ten.
var pow10Cache = func() []*big.Int {
	p := make([]*big.Int, 64)
	p[0] = big.NewInt(1)
	for i := 1; i < len(p); i++ {
		p[i] = new(big.Int).Mul(p[i-1], bigTen)
	}
	return p
}()

func pow10(n int) *big.Int {
	if n < len(pow10Cache) {
		return pow10Cache[n]
	}
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

func newNum(v int64) num { return num{v: big.NewInt(v)} }

func (a num) isZero() bool { return a.v.Sign() == 0 }
func (a num) sign() int    { return a.v.Sign() }

// rescale returns a with scale s: digits are appended, or cut off (a
// truncation toward zero, as GNU's bc drops digits).
func (a num) rescale(s int) num {
	switch {
	case s == a.s:
		return a
	case s > a.s:
		return num{v: new(big.Int).Mul(a.v, pow10(s-a.s)), s: s}
	}
	return num{v: new(big.Int).Quo(a.v, pow10(a.s-s)), s: s}
}

func add(a, b num) num {
	s := max(a.s, b.s)
	return num{v: new(big.Int).Add(a.rescale(s).v, b.rescale(s).v), s: s}
}

func sub(a, b num) num {
	s := max(a.s, b.s)
	return num{v: new(big.Int).Sub(a.rescale(s).v, b.rescale(s).v), s: s}
}

// mul multiplies with GNU's scale: all digits of the product, at most
// max(scale, a.s, b.s) of them after the point.
func mul(a, b num, scale int) num {
	full := a.s + b.s
	p := num{v: new(big.Int).Mul(a.v, b.v), s: full}
	return p.rescale(min(full, max(scale, a.s, b.s)))
}

// div divides to scale digits after the point, truncating; ok is false
// for a division by zero.
func div(a, b num, scale int) (num, bool) {
	if b.isZero() {
		return num{}, false
	}
	n := new(big.Int).Mul(a.v, pow10(b.s+scale))
	d := new(big.Int).Mul(b.v, pow10(a.s))
	return num{v: n.Quo(n, d), s: scale}, true
}

// mod is GNU's a % b: a - (a/b)*b, the quotient taken to scale digits.
func mod(a, b num, scale int) (num, bool) {
	q, ok := div(a, b, scale)
	if !ok {
		return num{}, false
	}
	rs := max(a.s, b.s+scale)
	t := mul(q, b, rs)
	r := sub(a, t)
	return r.rescale(max(rs, r.s)), true
}

// cmp compares a and b.
func cmp(a, b num) int {
	s := max(a.s, b.s)
	return a.rescale(s).v.Cmp(b.rescale(s).v)
}

func neg(a num) num { return num{v: new(big.Int).Neg(a.v), s: a.s} }

// truncInt is a's integer part.
func (a num) truncInt() *big.Int { return new(big.Int).Quo(a.v, pow10(a.s)) }

// sqrt is the square root to max(scale, a.s) digits, truncated.
func sqrt(a num, scale int) num {
	rs := max(scale, a.s)
	// floor(sqrt(a.v * 10^(2rs - a.s))) is the root scaled by 10^rs.
	n := new(big.Int).Mul(a.v, pow10(2*rs-a.s))
	return num{v: n.Sqrt(n), s: rs}
}

// length is bc's length(): the significant digits, all of them after the
// point.
func (a num) length() int {
	if a.isZero() {
		if a.s > 0 {
			return a.s
		}
		return 1
	}
	ip := new(big.Int).Abs(a.truncInt())
	if ip.Sign() == 0 {
		return a.s
	}
	return len(ip.Text(10)) + a.s
}

// String is the number in base 10 as bc prints it: no leading zero
// before the point, "0" for any zero.
func (a num) String() string {
	if a.isZero() {
		return "0"
	}
	t := new(big.Int).Abs(a.v).Text(10)
	var b strings.Builder
	if a.v.Sign() < 0 {
		b.WriteByte('-')
	}
	if a.s == 0 {
		b.WriteString(t)
		return b.String()
	}
	if len(t) <= a.s {
		b.WriteByte('.')
		b.WriteString(strings.Repeat("0", a.s-len(t)))
		b.WriteString(t)
		return b.String()
	}
	b.WriteString(t[:len(t)-a.s])
	b.WriteByte('.')
	b.WriteString(t[len(t)-a.s:])
	return b.String()
}
