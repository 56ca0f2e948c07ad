package xan

import (
	"math"
	"strconv"
	"strings"
)

// number is a cell read as xan reads numbers: an int when it parses as a
// 64-bit integer, else a float.
type number struct {
	isInt bool
	i     int64
	f     float64
}

func (n number) float() float64 {
	if n.isInt {
		return float64(n.i)
	}
	return n.f
}

// parseNumber accepts decimal integers and floats ("12", "-3", "+4",
// "1.5", ".5", "1e3"); hex, underscores, inf and NaN are not numbers.
func parseNumber(s string) (number, bool) {
	if s == "" {
		return number{}, false
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return number{isInt: true, i: i}, true
	}
	body := strings.TrimLeft(s, "+-")
	if body == "" || len(s)-len(body) > 1 || (body[0] != '.' && (body[0] < '0' || body[0] > '9')) ||
		strings.ContainsAny(body, "xXpP_") {
		return number{}, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return number{}, false
	}
	return number{f: f}, true
}

// String formats as Rust's Display does: integers as integers, floats in
// shortest decimal form without exponent ("10", "0.1", "4.3").
func (n number) String() string {
	if n.isInt {
		return strconv.FormatInt(n.i, 10)
	}
	return formatFloat(n.f)
}

func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if s == "-0" {
		return "-0"
	}
	return s
}

// jsonFloat formats a float as serde_json does (ryu): "3.0", "0.1",
// "1e16", "1.5e-7".
func jsonFloat(f float64) string {
	abs := math.Abs(f)
	if f == 0 || (abs >= 1e-5 && abs < 1e16) {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.ContainsRune(s, '.') {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	exp = strings.TrimPrefix(exp, "+")
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(strings.TrimPrefix(exp, "-"), "0")
	if neg {
		exp = "-" + exp
	}
	return mant + "e" + exp
}
