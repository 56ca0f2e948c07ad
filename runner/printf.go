package runner

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// printfBuiltin answers bash's printf (mvdan/sh's own lacks precision,
// %e/%g/%X/%q, -v and format reuse). It writes the output, or assigns it
// with -v through eval, and hands the interpreter a builtin giving the
// status.
func printfBuiltin(hc interp.HandlerContext, args []string) []string {
	args = args[1:]
	varName := ""
	for len(args) > 0 {
		if args[0] == "--" {
			args = args[1:]
			break
		}
		if args[0] == "-v" && len(args) > 1 {
			varName = args[1]
			args = args[2:]
			continue
		}
		if strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
			fmt.Fprintf(hc.Stderr, "bash: printf: %s: invalid option\nprintf: usage: printf [-v var] format [arguments]\n", args[0])
			return statusArgs(2)
		}
		break
	}
	if len(args) == 0 {
		fmt.Fprintf(hc.Stderr, "printf: usage: printf [-v var] format [arguments]\n")
		return statusArgs(2)
	}
	if varName != "" && !validVarRef(varName) {
		fmt.Fprintf(hc.Stderr, "bash: printf: `%s': not a valid identifier\n", varName)
		return statusArgs(2)
	}
	var out strings.Builder
	status := formatPrintf(&out, hc.Stderr, args[0], args[1:])
	if varName == "" {
		io.WriteString(hc.Stdout, out.String())
		return statusArgs(status)
	}
	q, err := syntax.Quote(out.String(), syntax.LangBash)
	if err != nil {
		// A value with a NUL byte cannot be held by a variable anyway.
		q, _ = syntax.Quote(strings.ReplaceAll(out.String(), "\x00", ""), syntax.LangBash)
	}
	script := varName + "=" + q
	if status != 0 {
		script += "; false"
	}
	return []string{"eval", script}
}

func validVarRef(s string) bool {
	name, index, hasIndex := strings.Cut(s, "[")
	if hasIndex && !strings.HasSuffix(index, "]") {
		return false
	}
	if name == "" {
		return false
	}
	for i, r := range name {
		if r != '_' && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z') && (i == 0 || !(r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}

// formatPrintf writes format applied to args as bash's printf does,
// reusing the format while arguments remain; it returns the status.
func formatPrintf(out *strings.Builder, stderr io.Writer, format string, args []string) int {
	p := printfState{args: args, stderr: stderr}
	for {
		consumedBefore := p.next
		if stop := p.once(out, format); stop {
			break
		}
		if p.next >= len(p.args) || p.next == consumedBefore {
			break
		}
	}
	return p.status
}

type printfState struct {
	args   []string
	next   int
	status int
	stderr io.Writer
}

func (p *printfState) arg() (string, bool) {
	if p.next >= len(p.args) {
		return "", false
	}
	p.next++
	return p.args[p.next-1], true
}

// once runs the format one time; stop is true after \c or a bad directive.
func (p *printfState) once(out *strings.Builder, format string) (stop bool) {
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c == '\\' {
			n, s, stop := printfEscape(format[i+1:], false)
			out.WriteString(s)
			if stop {
				return true
			}
			i += n
			continue
		}
		if c != '%' {
			out.WriteByte(c)
			continue
		}
		// %[flags][width][.precision]conv
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0", format[j]) >= 0 {
			j++
		}
		flags := format[i+1 : j]
		width, prec := "", ""
		hasPrec := false
		if j < len(format) && format[j] == '*' {
			a, _ := p.arg()
			width = strconv.FormatInt(p.integer(a), 10)
			j++
		} else {
			k := j
			for j < len(format) && format[j] >= '0' && format[j] <= '9' {
				j++
			}
			width = format[k:j]
		}
		if j < len(format) && format[j] == '.' {
			hasPrec = true
			j++
			if j < len(format) && format[j] == '*' {
				a, _ := p.arg()
				prec = strconv.FormatInt(p.integer(a), 10)
				j++
			} else {
				k := j
				for j < len(format) && format[j] >= '0' && format[j] <= '9' {
					j++
				}
				prec = format[k:j]
				if prec == "" {
					prec = "0"
				}
			}
		}
		// Length modifiers are accepted and ignored, as bash does.
		for j < len(format) && strings.IndexByte("hlLjzt", format[j]) >= 0 {
			j++
		}
		if j >= len(format) {
			fmt.Fprintf(p.stderr, "bash: printf: `%s': missing format character\n", format[i:])
			p.status = 1
			return true
		}
		conv := format[j]
		spec := "%" + flags + width
		if hasPrec {
			spec += "." + prec
		}
		i = j
		switch conv {
		case '%':
			out.WriteByte('%')
		case 's':
			a, _ := p.arg()
			fmt.Fprintf(out, spec+"s", a)
		case 'b':
			a, _ := p.arg()
			s, stop := expandBackslashes(a)
			fmt.Fprintf(out, spec+"s", s)
			if stop {
				return true
			}
		case 'q':
			a, _ := p.arg()
			fmt.Fprintf(out, spec+"s", shellQuote(a))
		case 'c':
			a, _ := p.arg()
			if a != "" {
				a = a[:1]
			}
			fmt.Fprintf(out, "%"+flags+width+"s", a)
		case 'd', 'i':
			a, _ := p.arg()
			fmt.Fprintf(out, spec+"d", p.integer(a))
		case 'u', 'o', 'x', 'X':
			a, _ := p.arg()
			v := uint64(p.integer(a))
			verb := string(conv)
			if conv == 'u' {
				verb = "d"
			}
			fmt.Fprintf(out, spec+verb, v)
		case 'e', 'E', 'f', 'F', 'g', 'G', 'a', 'A':
			a, _ := p.arg()
			v := p.float(a)
			verb := string(conv)
			switch conv {
			case 'F':
				verb = "f"
			case 'a':
				verb = "x"
			case 'A':
				verb = "X"
			}
			if !hasPrec && conv != 'a' && conv != 'A' {
				spec += ".6"
			}
			s := fmt.Sprintf(spec+verb, v)
			if math.IsInf(v, 0) || math.IsNaN(v) {
				s = strings.ReplaceAll(strings.ReplaceAll(s, "+Inf", "inf"), "Inf", "inf")
				s = strings.ReplaceAll(s, "NaN", "nan")
				if conv >= 'A' && conv <= 'Z' {
					s = strings.ToUpper(s)
				}
			}
			out.WriteString(s)
		default:
			fmt.Fprintf(p.stderr, "bash: printf: `%c': invalid format character\n", conv)
			p.status = 1
			return true
		}
	}
	return false
}

// integer parses a printf numeric argument as bash does: decimal, 0x
// hex, 0 octal, or 'c for a character's code.
func (p *printfState) integer(a string) int64 {
	s := strings.TrimSpace(a)
	if s == "" {
		return 0
	}
	if s[0] == '\'' || s[0] == '"' {
		if len(s) == 1 {
			return 0
		}
		r, _ := utf8.DecodeRuneInString(s[1:])
		return int64(r)
	}
	v, err := strconv.ParseInt(s, 0, 64)
	if err == nil {
		return v
	}
	if u, err := strconv.ParseUint(s, 0, 64); err == nil {
		return int64(u)
	}
	if errors.Is(err, strconv.ErrRange) {
		fmt.Fprintf(p.stderr, "bash: printf: %s: Numerical result out of range\n", a)
		p.status = 1
		if strings.HasPrefix(s, "-") {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	// The longest numeric prefix counts; the rest is an error.
	k := 0
	if k < len(s) && (s[k] == '-' || s[k] == '+') {
		k++
	}
	for k < len(s) && s[k] >= '0' && s[k] <= '9' {
		k++
	}
	v, _ = strconv.ParseInt(s[:k], 10, 64)
	fmt.Fprintf(p.stderr, "bash: printf: %s: invalid number\n", a)
	p.status = 1
	return v
}

func (p *printfState) float(a string) float64 {
	s := strings.TrimSpace(a)
	if s == "" {
		return 0
	}
	if s[0] == '\'' || s[0] == '"' {
		return float64(p.integer(s))
	}
	v, err := strconv.ParseFloat(s, 64)
	if err == nil {
		return v
	}
	if iv, err := strconv.ParseInt(s, 0, 64); err == nil {
		return float64(iv)
	}
	fmt.Fprintf(p.stderr, "bash: printf: %s: invalid number\n", a)
	p.status = 1
	return 0
}

// printfEscape decodes the escape after a backslash (s starts after it).
// It returns the bytes consumed, the text and whether \c stops output. In
// %b arguments (inB) octal escapes are \0NNN.
func printfEscape(s string, inB bool) (int, string, bool) {
	if s == "" {
		return 0, "\\", false
	}
	switch c := s[0]; c {
	case 'a':
		return 1, "\a", false
	case 'b':
		return 1, "\b", false
	case 'e', 'E':
		return 1, "\x1b", false
	case 'f':
		return 1, "\f", false
	case 'n':
		return 1, "\n", false
	case 'r':
		return 1, "\r", false
	case 't':
		return 1, "\t", false
	case 'v':
		return 1, "\v", false
	case '\\':
		return 1, "\\", false
	case '"':
		return 1, "\"", false
	case '\'':
		if inB {
			return 0, "\\", false
		}
		return 1, "'", false
	case '?':
		return 1, "?", false
	case 'c':
		if inB {
			return 1, "", true
		}
		return 0, "\\", false
	case 'x':
		k := 1
		for k < len(s) && k < 3 && isHex(s[k]) {
			k++
		}
		if k == 1 {
			return 0, "\\", false
		}
		v, _ := strconv.ParseUint(s[1:k], 16, 8)
		return k, string([]byte{byte(v)}), false
	case 'u', 'U':
		max := 5
		if c == 'U' {
			max = 9
		}
		k := 1
		for k < len(s) && k < max && isHex(s[k]) {
			k++
		}
		if k == 1 {
			return 0, "\\", false
		}
		v, _ := strconv.ParseUint(s[1:k], 16, 32)
		return k, string(rune(v)), false
	}
	if s[0] >= '0' && s[0] <= '7' {
		start, max := 0, 3
		if inB && s[0] == '0' {
			start, max = 1, 4
		}
		k := start
		for k < len(s) && k < max && s[k] >= '0' && s[k] <= '7' {
			k++
		}
		v, _ := strconv.ParseUint("0"+s[start:k], 8, 16)
		return k, string([]byte{byte(v)}), false
	}
	return 0, "\\", false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// expandBackslashes decodes %b's argument; stop is true at \c.
func expandBackslashes(a string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(a); i++ {
		if a[i] != '\\' {
			b.WriteByte(a[i])
			continue
		}
		n, s, stop := printfEscape(a[i+1:], true)
		b.WriteString(s)
		if stop {
			return b.String(), true
		}
		i += n
	}
	return b.String(), false
}

// shellQuote quotes s for reuse as shell input, as bash's %q does.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	printable := true
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			printable = false
			break
		}
	}
	if !printable {
		var b strings.Builder
		b.WriteString("$'")
		for i := 0; i < len(s); i++ {
			switch c := s[i]; c {
			case '\n':
				b.WriteString(`\n`)
			case '\t':
				b.WriteString(`\t`)
			case '\r':
				b.WriteString(`\r`)
			case '\\', '\'':
				b.WriteByte('\\')
				b.WriteByte(c)
			default:
				if c < 0x20 || c == 0x7f {
					fmt.Fprintf(&b, `\%03o`, c)
				} else {
					b.WriteByte(c)
				}
			}
		}
		b.WriteByte('\'')
		return b.String()
	}
	var b strings.Builder
	for i, r := range s {
		if strings.ContainsRune(" \t!\"#$&'()*,;<>?[\\]^`{|}", r) || (r == '~' && i == 0) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
