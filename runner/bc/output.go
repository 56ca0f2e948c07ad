package bc

import (
	"bufio"
	"io"
	"math/big"
	"strconv"
	"strings"
)

// outWriter is bc's standard output: it breaks lines longer than
// BC_LINE_LENGTH (70 by default, 0 for never) with a backslash, counting
// the characters since the last newline as GNU's out_char does.
type outWriter struct {
	w     *bufio.Writer
	col   int
	width int
	err   error // the first write error (a closed or capped stdout)
}

func newOutWriter(w io.Writer, width int) *outWriter {
	return &outWriter{w: bufio.NewWriterSize(w, 32<<10), width: width}
}

func (o *outWriter) char(c byte) {
	if c == '\n' {
		o.col = 0
		o.w.WriteByte('\n')
		return
	}
	o.col++
	if o.width != 0 && o.col == o.width-1 {
		o.w.WriteString("\\\n")
		o.col = 1
	}
	o.w.WriteByte(c)
}

func (o *outWriter) str(s string) {
	for i := 0; i < len(s); i++ {
		o.char(s[i])
	}
	if o.w.Buffered() > 16<<10 {
		o.flush()
	}
}

func (o *outWriter) flush() {
	if err := o.w.Flush(); err != nil && o.err == nil {
		o.err = err
	}
}

// printNum writes v in obase as GNU's bc_out_num: digits 0-9A-F up to
// base 16, above it each digit in decimal, zero-padded to the width of
// obase-1 and led by a space (but the first digit after the point); the
// fraction has as many digits as make obase^k reach 10^scale.
func (in *interp) printNum(v num) {
	o := in.out
	if v.isZero() {
		o.char('0')
		return
	}
	if in.obase == 10 {
		o.str(v.String())
		return
	}
	if v.sign() < 0 {
		o.char('-')
		v = neg(v)
	}
	base := big.NewInt(int64(in.obase))
	width := len(strconv.Itoa(in.obase - 1))
	digit := func(d int64, space bool) {
		if in.obase <= 16 {
			o.char("0123456789ABCDEF"[d])
			return
		}
		if space {
			o.char(' ')
		}
		s := strconv.FormatInt(d, 10)
		o.str(strings.Repeat("0", width-len(s)) + s)
	}
	ip := v.truncInt()
	if ip.Sign() > 0 {
		var ds []int64
		q, r := new(big.Int), new(big.Int)
		for ip.Sign() > 0 {
			q.QuoRem(ip, base, r)
			ds = append(ds, r.Int64())
			ip, q = q, ip
		}
		for i := len(ds) - 1; i >= 0; i-- {
			digit(ds[i], true)
		}
	}
	if v.s == 0 {
		return
	}
	o.char('.')
	frac := sub(v, num{v: v.truncInt()}).rescale(v.s)
	limit := pow10(v.s)
	t := big.NewInt(1)
	first := true
	// While obase^k has at most scale digits: below 10^scale.
	for t.Cmp(limit) < 0 {
		frac = num{v: new(big.Int).Mul(frac.v, base), s: frac.s}
		d := frac.truncInt()
		digit(d.Int64(), !first)
		first = false
		frac = sub(frac, num{v: d}).rescale(v.s)
		t.Mul(t, base)
	}
}
