package jq

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"sort"
	"strconv"
	"unicode/utf8"
)

// encoder writes values as jq 1.6 prints them: numbers as doubles in
// jq's shortest form, strings with jq's escapes, objects with sorted keys
// (gojq does not keep key order).
type encoder struct {
	indent string // "" is compact
	ascii  bool
	buf    bytes.Buffer
}

func (e *encoder) encode(v any) []byte {
	e.buf.Reset()
	e.value(v, 0)
	return e.buf.Bytes()
}

func (e *encoder) newline(depth int) {
	e.buf.WriteByte('\n')
	for i := 0; i < depth; i++ {
		e.buf.WriteString(e.indent)
	}
}

func (e *encoder) value(v any, depth int) {
	switch v := v.(type) {
	case nil:
		e.buf.WriteString("null")
	case bool:
		if v {
			e.buf.WriteString("true")
		} else {
			e.buf.WriteString("false")
		}
	case int:
		if v > -1e17 && v < 1e17 {
			e.buf.WriteString(strconv.Itoa(v))
		} else {
			e.buf.WriteString(formatNumber(float64(v)))
		}
	case float64:
		e.buf.WriteString(formatNumber(v))
	case *big.Int:
		f, _ := new(big.Float).SetInt(v).Float64()
		e.buf.WriteString(formatNumber(f))
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil && !isRange(err) {
			e.buf.WriteString(string(v))
			return
		}
		e.buf.WriteString(formatNumber(f))
	case string:
		e.str(v)
	case []any:
		if len(v) == 0 {
			e.buf.WriteString("[]")
			return
		}
		e.buf.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				e.buf.WriteByte(',')
			}
			if e.indent != "" {
				e.newline(depth + 1)
			}
			e.value(x, depth+1)
		}
		if e.indent != "" {
			e.newline(depth)
		}
		e.buf.WriteByte(']')
	case map[string]any:
		if len(v) == 0 {
			e.buf.WriteString("{}")
			return
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		e.buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				e.buf.WriteByte(',')
			}
			if e.indent != "" {
				e.newline(depth + 1)
			}
			e.str(k)
			e.buf.WriteByte(':')
			if e.indent != "" {
				e.buf.WriteByte(' ')
			}
			e.value(v[k], depth+1)
		}
		if e.indent != "" {
			e.newline(depth)
		}
		e.buf.WriteByte('}')
	default:
		// Values gojq never produces from JSON; print them as Go's
		// encoding would rather than fail.
		b, err := json.Marshal(v)
		if err != nil {
			e.buf.WriteString("null")
			return
		}
		e.buf.Write(b)
	}
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// formatNumber is jq's jvp_dtoa_fmt: the shortest digits that read back
// as f, in fixed notation unless the exponent is below -4 or well past
// the digits; NaN prints as null and infinities as ±DBL_MAX.
func formatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "null"
	case math.IsInf(f, 1):
		f = math.MaxFloat64
	case math.IsInf(f, -1):
		f = -math.MaxFloat64
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0"
		}
		return "0"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	mant, expS, _ := cutByte(s, 'e')
	exp, _ := strconv.Atoi(expS)
	digits := mant[:1]
	if len(mant) > 2 {
		digits += mant[2:]
	}
	decpt := exp + 1
	var b []byte
	if neg {
		b = append(b, '-')
	}
	switch {
	case decpt <= -4 || decpt > len(digits)+15:
		b = append(b, digits[0])
		if len(digits) > 1 {
			b = append(b, '.')
			b = append(b, digits[1:]...)
		}
		b = append(b, 'e')
		e := decpt - 1
		if e < 0 {
			b = append(b, '-')
			e = -e
		} else {
			b = append(b, '+')
		}
		if e < 10 {
			b = append(b, '0')
		}
		b = strconv.AppendInt(b, int64(e), 10)
	case decpt <= 0:
		b = append(b, '0', '.')
		for ; decpt < 0; decpt++ {
			b = append(b, '0')
		}
		b = append(b, digits...)
	default:
		for i := 0; i < len(digits); i++ {
			b = append(b, digits[i])
			if i+1 == decpt && i+1 < len(digits) {
				b = append(b, '.')
			}
		}
		for i := len(digits); i < decpt; i++ {
			b = append(b, '0')
		}
	}
	return string(b)
}

func cutByte(s string, c byte) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

const hexDigits = "0123456789abcdef"

func (e *encoder) str(s string) {
	b := &e.buf
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				b.WriteString(`\"`)
			case '\\':
				b.WriteString(`\\`)
			case '\n':
				b.WriteString(`\n`)
			case '\t':
				b.WriteString(`\t`)
			case '\r':
				b.WriteString(`\r`)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			default:
				if c < 0x20 || c == 0x7f {
					b.WriteString(`\u00`)
					b.WriteByte(hexDigits[c>>4])
					b.WriteByte(hexDigits[c&15])
				} else {
					b.WriteByte(c)
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if !e.ascii {
			if r == utf8.RuneError && size == 1 {
				b.WriteString("\ufffd")
			} else {
				b.WriteRune(r)
			}
			continue
		}
		if r >= 0x10000 {
			r -= 0x10000
			writeU(b, 0xd800+(r>>10))
			writeU(b, 0xdc00+(r&0x3ff))
		} else {
			writeU(b, r)
		}
	}
	b.WriteByte('"')
}

func writeU(b *bytes.Buffer, r rune) {
	b.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte(hexDigits[(r>>shift)&15])
	}
}
