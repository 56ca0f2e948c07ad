package awk

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// charLen counts characters (UTF-8), as gawk does in a UTF-8 locale.
func charLen(s string) int {
	if isASCII(s) {
		return len(s)
	}
	return utf8.RuneCountInString(s)
}

// byteToChar converts a byte offset of s to a character offset.
func byteToChar(s string, off int) int {
	if isASCII(s[:off]) {
		return off
	}
	return utf8.RuneCountInString(s[:off])
}

// checkText warns once, as gawk does in a UTF-8 locale, when a string a
// character-counting function sees is not valid UTF-8.
func (in *interp) checkText(s string) string {
	if !in.warnedUTF8 && !isASCII(s) && !utf8.ValidString(s) {
		in.warnedUTF8 = true
		in.warnf("Invalid multibyte data detected. There may be a mismatch between your data and your locale")
	}
	return s
}

func (in *interp) builtin(e *builtinExpr) value {
	args := e.args
	switch e.name {
	case "length":
		if len(args) == 0 {
			return num(float64(charLen(in.checkText(in.getRecord()))))
		}
		if ve, ok := args[0].(*varExpr); ok && ve.v.kind == kindArray {
			return num(float64(len(in.array(ve.v))))
		}
		return num(float64(charLen(in.checkText(in.toStr(in.eval(args[0]))))))
	case "substr":
		s := in.checkText(in.toStr(in.eval(args[0])))
		start := in.eval(args[1]).toNum()
		length := math.Inf(1)
		if len(args) == 3 {
			length = in.eval(args[2]).toNum()
			if !(length >= 1) {
				return str("")
			}
		}
		return str(substr(s, start, length))
	case "index":
		s := in.checkText(in.toStr(in.eval(args[0])))
		t := in.toStr(in.eval(args[1]))
		i := strings.Index(s, t)
		if i < 0 {
			return num(0)
		}
		return num(float64(byteToChar(s, i) + 1))
	case "split":
		return in.split(args)
	case "sub", "gsub":
		return in.sub(e.name == "gsub", args)
	case "gensub":
		return in.gensub(args)
	case "match":
		s := in.checkText(in.toStr(in.eval(args[0])))
		re := in.regexOf(args[1])
		var loc []int
		if ms := in.find(re, s, 1, true); len(ms) > 0 {
			loc = ms[0]
		}
		if len(args) == 3 {
			arr := in.array(args[2].(*varExpr).v)
			clear(arr)
			if loc != nil {
				for g := 0; g*2 < len(loc); g++ {
					if loc[2*g] < 0 {
						continue
					}
					k := strconv.Itoa(g)
					arr[k] = input(s[loc[2*g]:loc[2*g+1]])
					arr[k+in.subsep+"start"] = num(float64(byteToChar(s, loc[2*g]) + 1))
					arr[k+in.subsep+"length"] = num(float64(charLen(s[loc[2*g]:loc[2*g+1]])))
				}
			}
		}
		if loc == nil {
			in.rstart, in.rlength = 0, -1
			return num(0)
		}
		in.rstart = float64(byteToChar(s, loc[0]) + 1)
		in.rlength = float64(charLen(s[loc[0]:loc[1]]))
		return num(in.rstart)
	case "sprintf":
		vals := make([]value, len(args)-1)
		for i, a := range args[1:] {
			vals[i] = in.eval(a)
		}
		return str(in.sprintf(in.toStr(in.eval(args[0])), vals))
	case "tolower":
		return str(mapCase(in.checkText(in.toStr(in.eval(args[0]))), unicode.ToLower))
	case "toupper":
		return str(mapCase(in.checkText(in.toStr(in.eval(args[0]))), unicode.ToUpper))
	case "int":
		return num(math.Trunc(in.eval(args[0]).toNum()))
	case "sqrt":
		x := in.eval(args[0]).toNum()
		if x < 0 {
			in.warnf("sqrt: called with negative argument %s", numToStr(x, "%.6g"))
			return num(math.Copysign(math.NaN(), -1))
		}
		return num(libm(math.Sqrt(x), x))
	case "exp":
		x := in.eval(args[0]).toNum()
		return num(libm(math.Exp(x), x))
	case "log":
		x := in.eval(args[0]).toNum()
		if x < 0 {
			in.warnf("log: received negative argument %s", numToStr(x, "%.6g"))
			return num(math.Copysign(math.NaN(), -1))
		}
		return num(libm(math.Log(x), x))
	case "sin":
		x := in.eval(args[0]).toNum()
		return num(libm(math.Sin(x), x))
	case "cos":
		x := in.eval(args[0]).toNum()
		return num(libm(math.Cos(x), x))
	case "atan2":
		y := in.eval(args[0]).toNum()
		x := in.eval(args[1]).toNum()
		return num(libm(math.Atan2(y, x), x, y))
	case "rand":
		return num(in.rng.Float64())
	case "srand":
		prev := in.seed
		if len(args) == 0 {
			in.seed = float64(time.Now().Unix())
		} else {
			in.seed = in.eval(args[0]).toNum()
		}
		in.rng = rand.New(rand.NewSource(int64(in.seed)))
		return num(prev)
	case "system":
		cmd := in.toStr(in.eval(args[0]))
		in.streams.flushAll(in)
		if strings.TrimSpace(cmd) == "" {
			return num(0)
		}
		in.fatalf("system() runs host programs and is not available in wsfs")
	case "close":
		name := in.toStr(in.eval(args[0]))
		if len(args) == 2 {
			in.eval(args[1])
		}
		return num(float64(in.streams.close(in, name)))
	case "fflush":
		if len(args) == 0 {
			in.streams.flushAll(in)
			return num(0)
		}
		name := in.toStr(in.eval(args[0]))
		return num(float64(in.streams.flush(in, name)))
	case "systime":
		return num(float64(time.Now().Unix()))
	case "strftime":
		format := "%a %b %e %H:%M:%S %Z %Y"
		t := time.Now()
		if len(args) >= 1 {
			format = in.toStr(in.eval(args[0]))
		}
		if len(args) >= 2 {
			t = time.Unix(int64(in.eval(args[1]).toNum()), 0)
		}
		if len(args) == 3 && in.eval(args[2]).toBool() {
			t = t.UTC()
		}
		return str(strftime(format, t))
	case "asort", "asorti":
		src := in.array(args[0].(*varExpr).v)
		var items []value
		if e.name == "asort" {
			for _, v := range src {
				items = append(items, v)
			}
		} else {
			for k := range src {
				items = append(items, str(k))
			}
		}
		in.sortValues(items)
		dst := src
		if len(args) == 2 {
			dst = in.array(args[1].(*varExpr).v)
		}
		clear(dst)
		for i, v := range items {
			dst[strconv.Itoa(i+1)] = v
		}
		return num(float64(len(items)))
	case "mktime":
		return num(mktime(in.toStr(in.eval(args[0]))))
	}
	in.fatalf("internal error: unknown built-in %s", e.name)
	return value{}
}

// mapCase changes the case of each character and leaves bytes that are not
// UTF-8 as they are (strings.ToUpper would turn them into U+FFFD).
func mapCase(s string, f func(rune) rune) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteByte(s[i])
		} else {
			b.WriteRune(f(r))
		}
		i += size
	}
	return b.String()
}

func substr(s string, start, length float64) string {
	if !(start >= 1) {
		start = 1
	}
	n := charLen(s)
	if start > float64(n) {
		return ""
	}
	from := int(start) - 1
	to := n
	if length < float64(n-from) {
		to = from + int(length)
	}
	if to <= from {
		return ""
	}
	if isASCII(s) {
		return s[from:to]
	}
	rs := []rune(s)
	return string(rs[from:to])
}

func (in *interp) split(args []expr) value {
	s := in.toStr(in.eval(args[0]))
	arr := in.array(args[1].(*varExpr).v)
	var parts []value
	if len(args) == 2 {
		parts = in.splitInto(s, nil, in.fsMode, in.fs, in.fsRe, false)
	} else if re, ok := args[2].(*regexExpr); ok {
		parts = in.splitInto(s, nil, fsRegex, "", re.re, false)
	} else {
		fs := in.toStr(in.eval(args[2]))
		switch {
		case fs == " ":
			parts = in.splitInto(s, nil, fsDefault, fs, nil, false)
		case fs == "":
			parts = in.splitInto(s, nil, fsChars, fs, nil, false)
		case len(fs) == 1 && fs != "\\":
			parts = in.splitInto(s, nil, fsByte, fs, nil, false)
		default:
			re, err := in.regexes.get(fs)
			if err != nil {
				in.fatalf("%v", err)
			}
			parts = in.splitInto(s, nil, fsRegex, fs, re, false)
		}
	}
	clear(arr)
	for i, p := range parts {
		arr[strconv.Itoa(i+1)] = p
	}
	if len(args) == 4 {
		clear(in.array(args[3].(*varExpr).v))
	}
	return num(float64(len(parts)))
}

// expandRepl expands a sub/gsub replacement for one match with gawk's
// rules: "&" is the match, "\&" a literal "&", "\\&" a backslash and the
// match, "\\\&" a backslash and "&", "\\\\" two backslashes; any
// other backslash stays as it is.
func expandRepl(b *strings.Builder, repl, match string) {
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		switch {
		case c == '&':
			b.WriteString(match)
		case c != '\\':
			b.WriteByte(c)
		case strings.HasPrefix(repl[i:], `\\\&`):
			b.WriteString(`\&`)
			i += 3
		case strings.HasPrefix(repl[i:], `\\\\`):
			b.WriteString(`\\`)
			i += 3
		case strings.HasPrefix(repl[i:], `\\&`):
			b.WriteByte('\\')
			b.WriteString(match)
			i += 2
		case strings.HasPrefix(repl[i:], `\&`):
			b.WriteByte('&')
			i++
		default:
			b.WriteByte(c)
		}
	}
}

func (in *interp) sub(global bool, args []expr) value {
	re := in.regexOf(args[0])
	repl := in.toStr(in.eval(args[1]))
	var target expr = &fieldExpr{index: &numExpr{0}}
	if len(args) == 3 {
		target = args[2]
	}
	s := in.toStr(in.eval(target))
	n := 1
	if global {
		n = -1
	}
	locs := in.find(re, s, n, false)
	if len(locs) == 0 {
		return num(0)
	}
	var b strings.Builder
	last := 0
	for _, loc := range locs {
		b.WriteString(s[last:loc[0]])
		expandRepl(&b, repl, s[loc[0]:loc[1]])
		last = loc[1]
	}
	b.WriteString(s[last:])
	in.assign(target, str(b.String()))
	return num(float64(len(locs)))
}

func (in *interp) gensub(args []expr) value {
	re := in.regexOf(args[0])
	repl := in.toStr(in.eval(args[1]))
	howV := in.eval(args[2])
	var s string
	if len(args) == 4 {
		s = in.toStr(in.eval(args[3]))
	} else {
		s = in.getRecord()
	}
	global := false
	which := 1
	if h := in.toStr(howV); len(h) > 0 && (h[0] == 'g' || h[0] == 'G') {
		global = true
	} else {
		which = int(howV.toNum())
		if which < 1 {
			in.warnf("gensub: third argument `%s' treated as 1", h)
			which = 1
		}
	}
	all := in.find(re, s, -1, true)
	var b strings.Builder
	last := 0
	for n, loc := range all {
		if !global && n+1 != which {
			continue
		}
		b.WriteString(s[last:loc[0]])
		for i := 0; i < len(repl); i++ {
			c := repl[i]
			switch {
			case c == '\\' && i+1 < len(repl) && repl[i+1] >= '0' && repl[i+1] <= '9':
				g := int(repl[i+1] - '0')
				if 2*g < len(loc) && loc[2*g] >= 0 {
					b.WriteString(s[loc[2*g]:loc[2*g+1]])
				}
				i++
			case c == '\\' && i+1 < len(repl):
				// gensub: "\q" is q for any other q.
				b.WriteByte(repl[i+1])
				i++
			case c == '\\':
			case c == '&':
				b.WriteString(s[loc[0]:loc[1]])
			default:
				b.WriteByte(c)
			}
		}
		last = loc[1]
	}
	b.WriteString(s[last:])
	return str(b.String())
}

// sortKeys orders for-in keys: numbers first in numeric order, then strings.
// POSIX leaves the order unspecified; a stable order makes output
// reproducible.
func sortKeys(keys []string) {
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		an, aok := smallInt(a)
		bn, bok := smallInt(b)
		switch {
		case aok && bok:
			return an < bn
		case aok:
			return true
		case bok:
			return false
		}
		return a < b
	})
}

// sortValues orders values as gawk's asort does: numbers (numerically)
// before strings (bytewise).
func (in *interp) sortValues(items []value) {
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		an, bn := a.k == kNum || (a.k == kInput && looksNumeric(a.s)), b.k == kNum || (b.k == kInput && looksNumeric(b.s))
		switch {
		case an && bn:
			return a.toNum() < b.toNum()
		case an != bn:
			return an
		}
		return in.toStr(a) < in.toStr(b)
	})
}

// orderKeys orders a for-in loop's keys: by PROCINFO["sorted_in"] when
// the program sets one of gawk's named orders, else integers ascending and
// then strings (a fixed order where gawk's is its hash order).
func (in *interp) orderKeys(keys []string, arr map[string]value) {
	order := ""
	if pi, ok := in.prog.globalMap["PROCINFO"]; ok && pi.kind == kindArray {
		order = in.toStr(in.garrs[pi.index]["sorted_in"])
	}
	numOf := func(s string) float64 { return strToNum(s) }
	var less func(a, b string) bool
	switch order {
	case "@ind_str_asc":
		less = func(a, b string) bool { return a < b }
	case "@ind_str_desc":
		less = func(a, b string) bool { return a > b }
	case "@ind_num_asc", "@ind_num_desc":
		desc := order == "@ind_num_desc"
		less = func(a, b string) bool {
			x, y := numOf(a), numOf(b)
			if x != y {
				return (x < y) != desc
			}
			return (a < b) != desc
		}
	case "@val_str_asc", "@val_str_desc":
		desc := order == "@val_str_desc"
		less = func(a, b string) bool {
			x, y := in.toStr(arr[a]), in.toStr(arr[b])
			if x != y {
				return (x < y) != desc
			}
			return (a < b) != desc
		}
	case "@val_num_asc", "@val_num_desc", "@val_type_asc", "@val_type_desc":
		desc := order == "@val_num_desc" || order == "@val_type_desc"
		less = func(a, b string) bool {
			x, y := arr[a].toNum(), arr[b].toNum()
			if x != y {
				return (x < y) != desc
			}
			return (a < b) != desc
		}
	default:
		sortKeys(keys)
		return
	}
	sort.SliceStable(keys, func(i, j int) bool { return less(keys[i], keys[j]) })
}

// ---- printf ----

func (in *interp) sprintf(format string, args []value) string {
	var b strings.Builder
	ai := 0
	nextArg := func() value {
		if ai >= len(args) {
			in.fatalf("not enough arguments to satisfy format string\n\t`%s'", format)
		}
		v := args[ai]
		ai++
		return v
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		start := i
		i++
		// %N$...: take the Nth argument (gawk).
		if j := i; j < len(format) && isDigit(format[j]) {
			for j < len(format) && isDigit(format[j]) {
				j++
			}
			if j < len(format) && format[j] == '$' {
				n, _ := strconv.Atoi(format[i:j])
				if n < 1 || n > len(args) {
					in.fatalf("printf: argument index %d out of range", n)
				}
				ai = n - 1
				i = j + 1
			}
		}
		var flags strings.Builder
		for i < len(format) && strings.IndexByte("-+ #0", format[i]) >= 0 {
			flags.WriteByte(format[i])
			i++
		}
		width, prec := -1, -1
		if i < len(format) && format[i] == '*' {
			width = int(nextArg().toNum())
			if width < 0 {
				flags.WriteByte('-')
				width = -width
			}
			i++
		} else {
			for i < len(format) && isDigit(format[i]) {
				if width < 0 {
					width = 0
				}
				width = width*10 + int(format[i]-'0')
				i++
			}
		}
		if i < len(format) && format[i] == '.' {
			i++
			prec = 0
			if i < len(format) && format[i] == '*' {
				prec = int(nextArg().toNum())
				if prec < 0 {
					prec = -1
				}
				i++
			} else {
				for i < len(format) && isDigit(format[i]) {
					prec = prec*10 + int(format[i]-'0')
					i++
				}
			}
		}
		// Length modifiers are accepted and ignored, as gawk does.
		for i < len(format) && strings.IndexByte("hlLqjzt", format[i]) >= 0 {
			i++
		}
		if i >= len(format) {
			b.WriteString(format[start:])
			break
		}
		if width > maxString || prec > maxString || b.Len() > maxString {
			in.fatalf("printf: result longer than the %d bytes wsfs allows", maxString)
		}
		verb := format[i]
		fl := flags.String()
		spec := func(v byte) string {
			s := "%" + fl
			if width >= 0 {
				s += strconv.Itoa(width)
			}
			if prec >= 0 {
				s += "." + strconv.Itoa(prec)
			}
			return s + string(v)
		}
		switch verb {
		case '%':
			b.WriteByte('%')
		case 'd', 'i':
			n := math.Trunc(nextArg().toNum())
			b.WriteString(formatInt(n, fl, width, prec, spec))
		case 'o', 'x', 'X', 'u':
			orig := nextArg().toNum()
			n := math.Trunc(orig)
			if n == 0 && prec == 0 && (orig != 0 || strings.Contains(fl, "#")) {
				// gawk prints 0.1 (or 0 with "#") at "%.0x" as "0", and
				// a true zero as "".
				prec = 1
			}
			if orig == 0 {
				// gawk adds no "#" prefix to a true zero (but does to 0.1).
				fl = strings.ReplaceAll(fl, "#", "")
			}
			if math.IsInf(n, 0) || math.IsNaN(n) {
				b.WriteString(nonFinite(n, verb))
				break
			}
			if math.Abs(n) >= 1<<64 {
				b.WriteString(formatFloat(n, 'g', fl, width, prec, spec))
				break
			}
			var u uint64
			if n < 0 {
				u = uint64(int64(n))
			} else {
				u = uint64(n)
			}
			b.WriteString(formatUnsigned(u, verb, fl, width, prec))
		case 'e', 'E', 'f', 'F', 'g', 'G':
			b.WriteString(formatFloat(nextArg().toNum(), verb, fl, width, prec, spec))
		case 'c':
			v := nextArg()
			var s string
			if v.isNumeric() && v.k != kUninit {
				s = charOf(v.toNum())
			} else {
				str := in.toStr(v)
				if str != "" {
					_, size := utf8.DecodeRuneInString(str)
					s = str[:size]
				} else {
					s = "\x00"
				}
			}
			// gawk pads %c by bytes and never with zeros.
			b.WriteString(pad(s, strings.ReplaceAll(fl, "0", ""), width-(len(s)-charLen(s))))
		case 's':
			v := nextArg()
			s := in.toStr(v)
			fl = strings.ReplaceAll(fl, "0", "")
			b.WriteString(fmt.Sprintf(spec('s'), s))
		default:
			// Not a conversion: gawk prints the text as it is.
			b.WriteString(format[start : i+1])
		}
	}
	return b.String()
}

// formatUnsigned does %o %x %X %u the way gawk does: "#" always adds the
// prefix (even to zero, and on top of a precision for %o).
func formatUnsigned(u uint64, verb byte, fl string, width, prec int) string {
	base := 10
	switch verb {
	case 'o':
		base = 8
	case 'x', 'X':
		base = 16
	}
	digits := strconv.FormatUint(u, base)
	if verb == 'X' {
		digits = strings.ToUpper(digits)
	}
	if prec == 0 && u == 0 {
		digits = ""
	}
	if len(digits) < prec {
		digits = strings.Repeat("0", prec-len(digits)) + digits
	}
	prefix := ""
	if strings.Contains(fl, "#") {
		switch verb {
		case 'o':
			prefix = "0"
		case 'x':
			prefix = "0x"
		case 'X':
			prefix = "0X"
		}
	}
	n := len(prefix) + len(digits)
	switch {
	case width <= n:
		return prefix + digits
	case strings.Contains(fl, "-"):
		return prefix + digits + strings.Repeat(" ", width-n)
	case strings.Contains(fl, "0") && prec < 0:
		return prefix + strings.Repeat("0", width-n) + digits
	}
	return strings.Repeat(" ", width-n) + prefix + digits
}

// charOf is %c of a number: the character with that code, encoded as
// glibc's wcrtomb does in a UTF-8 locale (which goes past U+10FFFF with
// the original 5- and 6-byte forms), or the low byte when there is none.
func charOf(n float64) string {
	var u uint64
	if n < 0 {
		u = uint64(int64(n))
	} else if n < 1<<64 {
		u = uint64(n)
	}
	wc := int32(uint32(u))
	if wc < 0 {
		return string([]byte{byte(u)})
	}
	c := uint32(wc)
	switch {
	case c < 0x80:
		return string([]byte{byte(c)})
	case c < 0x800:
		return string([]byte{0xc0 | byte(c>>6), 0x80 | byte(c&0x3f)})
	case c < 0x10000:
		return string([]byte{0xe0 | byte(c>>12), 0x80 | byte(c>>6&0x3f), 0x80 | byte(c&0x3f)})
	case c < 0x200000:
		return string([]byte{0xf0 | byte(c>>18), 0x80 | byte(c>>12&0x3f), 0x80 | byte(c>>6&0x3f), 0x80 | byte(c&0x3f)})
	case c < 0x4000000:
		return string([]byte{0xf8 | byte(c>>24), 0x80 | byte(c>>18&0x3f), 0x80 | byte(c>>12&0x3f), 0x80 | byte(c>>6&0x3f), 0x80 | byte(c&0x3f)})
	}
	return string([]byte{0xfc | byte(c>>30), 0x80 | byte(c>>24&0x3f), 0x80 | byte(c>>18&0x3f), 0x80 | byte(c>>12&0x3f), 0x80 | byte(c>>6&0x3f), 0x80 | byte(c&0x3f)})
}

// nonFinite is what gawk prints for inf and NaN in any numeric
// conversion: always signed, never padded.
func nonFinite(n float64, verb byte) string {
	s := "inf"
	if n != n {
		s = "nan"
	}
	if verb == 'E' || verb == 'F' || verb == 'G' {
		s = strings.ToUpper(s)
	}
	if math.Signbit(n) {
		return "-" + s
	}
	return "+" + s
}

func formatInt(n float64, fl string, width, prec int, spec func(byte) string) string {
	if math.IsInf(n, 0) || math.IsNaN(n) {
		return nonFinite(n, 'd')
	}
	if math.Abs(n) < 1<<63 {
		return fmt.Sprintf(spec('d'), int64(n))
	}
	// Too big for int64: print the exact integer the double holds.
	digits := strconv.FormatFloat(math.Abs(n), 'f', 0, 64)
	sign := ""
	switch {
	case n < 0:
		sign = "-"
	case strings.Contains(fl, "+"):
		sign = "+"
	case strings.Contains(fl, " "):
		sign = " "
	}
	return pad(sign+digits, fl, width)
}

func pad(s, fl string, width int) string {
	n := charLen(s)
	if width <= n {
		return s
	}
	if strings.Contains(fl, "-") {
		return s + strings.Repeat(" ", width-n)
	}
	return strings.Repeat(" ", width-n) + s
}

func formatFloat(n float64, verb byte, fl string, width, prec int, spec func(byte) string) string {
	if math.IsInf(n, 0) || math.IsNaN(n) {
		return nonFinite(n, verb)
	}
	if prec < 0 {
		prec = 6
	}
	if verb == 'g' || verb == 'G' {
		// Go's %g differs from C's (exponent threshold, "#"): build it here.
		s := formatG(math.Abs(n), prec, strings.Contains(fl, "#"), verb == 'G')
		sign := ""
		switch {
		case math.Signbit(n):
			sign = "-"
		case strings.Contains(fl, "+"):
			sign = "+"
		case strings.Contains(fl, " "):
			sign = " "
		}
		if strings.Contains(fl, "0") && !strings.Contains(fl, "-") && width > len(sign)+len(s) {
			return sign + strings.Repeat("0", width-len(sign)-len(s)) + s
		}
		return pad(sign+s, fl, width)
	}
	return fmt.Sprintf(spec(verb), n)
}

// sprintfNums formats one number with a CONVFMT/OFMT-style format. A
// format that wants more than one argument yields "" rather than failing
// every conversion of the program.
func sprintfNums(format string, n float64) (s string) {
	in := &interp{convfmt: "%.6g"}
	defer func() {
		if recover() != nil {
			s = ""
		}
	}()
	return in.sprintf(format, []value{num(n)})
}

// ---- time ----

func strftime(format string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 >= len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		switch format[i] {
		case 'Y':
			b.WriteString(strconv.Itoa(t.Year()))
		case 'C':
			fmt.Fprintf(&b, "%02d", t.Year()/100)
		case 'y':
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'e':
			fmt.Fprintf(&b, "%2d", t.Day())
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'I':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			fmt.Fprintf(&b, "%02d", h)
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 'a':
			b.WriteString(t.Format("Mon"))
		case 'A':
			b.WriteString(t.Format("Monday"))
		case 'b', 'h':
			b.WriteString(t.Format("Jan"))
		case 'B':
			b.WriteString(t.Format("January"))
		case 'p':
			b.WriteString(t.Format("PM"))
		case 'Z':
			b.WriteString(t.Format("MST"))
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 's':
			b.WriteString(strconv.FormatInt(t.Unix(), 10))
		case 'u':
			wd := int(t.Weekday())
			if wd == 0 {
				wd = 7
			}
			b.WriteString(strconv.Itoa(wd))
		case 'w':
			b.WriteString(strconv.Itoa(int(t.Weekday())))
		case 'D':
			b.WriteString(strftime("%m/%d/%y", t))
		case 'F':
			b.WriteString(strftime("%Y-%m-%d", t))
		case 'T':
			b.WriteString(strftime("%H:%M:%S", t))
		case 'R':
			b.WriteString(strftime("%H:%M", t))
		case 'c':
			b.WriteString(strftime("%a %b %e %H:%M:%S %Y", t))
		case 'x':
			b.WriteString(strftime("%m/%d/%y", t))
		case 'X':
			b.WriteString(strftime("%H:%M:%S", t))
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(format[i])
		}
	}
	return b.String()
}

func mktime(spec string) float64 {
	f := strings.Fields(spec)
	if len(f) < 6 {
		return -1
	}
	var n [6]int
	for i := 0; i < 6; i++ {
		v, err := strconv.Atoi(f[i])
		if err != nil {
			return -1
		}
		n[i] = v
	}
	t := time.Date(n[0], time.Month(n[1]), n[2], n[3], n[4], n[5], 0, time.Local)
	return float64(t.Unix())
}
