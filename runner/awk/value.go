package awk

import (
	"math"
	"strconv"
	"strings"
)

// kind tells how a value was made, which decides how it compares.
type kind uint8

const (
	kUninit kind = iota // never assigned: compares as "" and as 0
	kNum                // a number
	kStr                // a string constant or the result of a string operation
	kInput              // a string from input (field, getline, ARGV, ENVIRON, -v, split): strnum if it looks numeric
)

// value is an awk scalar. Numbers keep their string form only when they
// came from input; strings keep their number lazily.
type value struct {
	k kind
	s string
	n float64
}

func num(n float64) value  { return value{k: kNum, n: n} }
func str(s string) value   { return value{k: kStr, s: s} }
func input(s string) value { return value{k: kInput, s: s} }
func boolean(b bool) value {
	if b {
		return value{k: kNum, n: 1}
	}
	return value{k: kNum}
}

// isStrnum reports whether v compares as a number (POSIX "numeric string"
// or a number or uninitialized).
func (v value) isNumeric() bool {
	switch v.k {
	case kNum, kUninit:
		return true
	case kInput:
		return looksNumeric(v.s)
	}
	return false
}

// toNum converts as strtod does on the leading part of a string.
func (v value) toNum() float64 {
	switch v.k {
	case kNum:
		return v.n
	case kUninit:
		return 0
	}
	return strToNum(v.s)
}

func (v value) toBool() bool {
	switch v.k {
	case kNum:
		return v.n != 0
	case kUninit:
		return false
	case kStr:
		return v.s != ""
	}
	if looksNumeric(v.s) {
		return strToNum(v.s) != 0
	}
	return v.s != ""
}

// toStr converts with format (CONVFMT or OFMT); integral numbers print as integers.
func (v value) toStr(format string) string {
	switch v.k {
	case kNum:
		return numToStr(v.n, format)
	case kUninit:
		return ""
	}
	return v.s
}

func numToStr(n float64, format string) string {
	if n == math.Trunc(n) {
		if n == 0 {
			return "0"
		}
		if math.IsInf(n, 0) {
			if n > 0 {
				return "+inf"
			}
			return "-inf"
		}
		if n > -1e15 && n < 1e15 {
			return strconv.FormatInt(int64(n), 10)
		}
		return strconv.FormatFloat(n, 'f', 0, 64)
	}
	if math.IsNaN(n) {
		if math.Signbit(n) {
			return "-nan"
		}
		return "+nan"
	}
	if format == "%.6g" {
		return formatG(n, 6, false, false)
	}
	return sprintfNums(format, n)
}

// formatG formats like C's %g.
func formatG(n float64, prec int, alt, upper bool) string {
	if prec == 0 {
		prec = 1
	}
	if math.IsInf(n, 0) || math.IsNaN(n) {
		return infNaN(n, upper)
	}
	if n == 0 {
		if alt {
			s := "0." + strings.Repeat("0", prec-1)
			if prec == 1 {
				s = "0."
			}
			if math.Signbit(n) {
				return "-" + s
			}
			return s
		}
		if math.Signbit(n) {
			return "-0"
		}
		return "0"
	}
	// Exponent after rounding to prec significant digits.
	e := strconv.FormatFloat(n, 'e', prec-1, 64)
	i := strings.LastIndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[i+1:])
	var s string
	if exp < -4 || exp >= prec {
		if alt && exp == prec {
			// Rounding carried into a new digit (999999.5 at %#g): glibc
			// keeps the precision the unrounded number would have had in
			// %f style, so the mantissa has fewer digits ("1.e+06").
			ex := strconv.FormatFloat(n, 'e', -1, 64)
			raw, _ := strconv.Atoi(ex[strings.LastIndexByte(ex, 'e')+1:])
			if raw < exp {
				e = strconv.FormatFloat(n, 'e', prec-1-raw, 64)
				i = strings.LastIndexByte(e, 'e')
			}
		}
		mant := e[:i]
		if !alt {
			mant = trimZeros(mant)
		} else if !strings.Contains(mant, ".") {
			mant += "."
		}
		es := e[i+1:]
		sign := es[0]
		digits := es[1:]
		if len(digits) < 2 {
			digits = "0" + digits
		}
		mark := "e"
		if upper {
			mark = "E"
		}
		s = mant + mark + string(sign) + digits
	} else {
		s = strconv.FormatFloat(n, 'f', prec-1-exp, 64)
		if !alt {
			s = trimZeros(s)
		} else if !strings.Contains(s, ".") {
			s += "."
		}
	}
	return s
}

func trimZeros(s string) string {
	if strings.IndexByte(s, '.') < 0 {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

func infNaN(n float64, upper bool) string {
	var s string
	switch {
	case math.IsNaN(n):
		s = "+nan"
		if math.Signbit(n) {
			s = "-nan"
		}
	case n > 0:
		s = "+inf"
	default:
		s = "-inf"
	}
	if upper {
		s = strings.ToUpper(s)
	}
	return s
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// numPrefix returns the length of the longest prefix of s (after leading
// blanks, which it includes) that strtod would read as a decimal number,
// and whether that number is +/-inf or nan (gawk reads those only with a
// sign).
func numPrefix(s string) int {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
		// gawk reads exactly "+inf", "-inf", "+nan" and "-nan" (any case),
		// blanks aside, and no longer text that starts like them.
		if rest := strings.TrimRight(s[i:], " \t\n\r\f\v"); len(rest) == 3 {
			w := strings.ToLower(rest)
			if w == "inf" || w == "nan" {
				return i + 3
			}
		}
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && s[j] >= '0' && s[j] <= '9' {
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			i = j
		}
	}
	return i
}

// strToNum reads the leading number of s as awk does (0 when there is none).
func strToNum(s string) float64 {
	// Fast path: plain small integers, the bulk of field data.
	if n, ok := smallInt(s); ok {
		return n
	}
	end := numPrefix(s)
	if end == 0 {
		return 0
	}
	t := strings.TrimLeft(s[:end], " \t\n\r\f\v")
	switch strings.ToLower(strings.TrimLeft(t, "+-")) {
	case "inf":
		if t[0] == '-' {
			return math.Inf(-1)
		}
		return math.Inf(1)
	case "nan":
		if t[0] == '-' {
			return math.Copysign(math.NaN(), -1)
		}
		return math.NaN()
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		// Out of range: ParseFloat still returns ±Inf or 0.
		return f
	}
	return f
}

func smallInt(s string) (float64, bool) {
	if len(s) == 0 || len(s) > 15 {
		return 0, false
	}
	i := 0
	neg := false
	if s[0] == '-' {
		neg = true
		i = 1
		if len(s) == 1 {
			return 0, false
		}
	}
	var n int64
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return float64(n), true
}

// looksNumeric reports whether the whole of s (blanks aside) is a number.
func looksNumeric(s string) bool {
	if _, ok := smallInt(s); ok {
		return true
	}
	end := numPrefix(s)
	if end == 0 {
		return false
	}
	for _, c := range []byte(s[end:]) {
		if !isSpace(c) {
			return false
		}
	}
	return true
}
