// Package printfmt applies printf format strings for the runner: the
// conversions, escapes and format reuse shared by the shell's printf
// builtin (bash's dialect) and the printf command (GNU coreutils').
// The dialects differ in their diagnostics, in %q quoting, in how \c,
// \' and bad \x escapes of the format read, and in GNU's warning about
// arguments a format without conversions leaves unused.
package printfmt

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wsfs/wsfs/runner/internal/strftime"
)

// Dialect selects whose printf to follow.
type Dialect int

const (
	// Bash is bash's printf builtin: "bash: printf: ..." diagnostics,
	// bash's %q.
	Bash Dialect = iota
	// GNU is coreutils' printf command: "printf: ..." diagnostics, \c in
	// the format stops output, %q quotes as `ls --quoting-style=shell-escape`.
	GNU
)

// Format writes format applied to args, reusing the format while
// arguments remain, and returns the exit status (0, or 1 after a
// diagnostic on stderr).
func Format(out *strings.Builder, stderr io.Writer, d Dialect, format string, args []string) int {
	return FormatTimes(out, stderr, d, format, args, Times{})
}

// Times are what bash's %(fmt)T needs: the zone (nil: the process's),
// and the shell's start for an argument of -2.
type Times struct {
	Loc   *time.Location
	Start time.Time
}

// FormatTimes is Format with bash's %(fmt)T conversions using t.
func FormatTimes(out *strings.Builder, stderr io.Writer, d Dialect, format string, args []string, t Times) int {
	p := state{args: args, stderr: stderr, d: d, times: t}
	for {
		consumedBefore := p.next
		if stop := p.once(out, format); stop {
			break
		}
		if p.next >= len(p.args) || p.next == consumedBefore {
			break
		}
	}
	if d == GNU && p.next == 0 && len(args) > 0 && !p.stopped {
		p.warnf("warning: ignoring excess arguments, starting with %s", LocaleQuote(args[0]))
	}
	return p.status
}

type state struct {
	args    []string
	next    int
	status  int
	stderr  io.Writer
	d       Dialect
	stopped bool // \c or an error ended the output
	// unsigned: the conversion being read is %u %o %x or %X, whose
	// argument may be as large as an unsigned 64-bit number.
	unsigned bool
	times    Times
}

// errorf prints a diagnostic with the dialect's prefix and sets status 1.
func (p *state) errorf(format string, a ...any) {
	p.warnf(format, a...)
	p.status = 1
}

func (p *state) warnf(format string, a ...any) {
	prefix := "printf: "
	if p.d == Bash {
		prefix = "bash: printf: "
	}
	fmt.Fprintf(p.stderr, prefix+format+"\n", a...)
}

func (p *state) arg() (string, bool) {
	if p.next >= len(p.args) {
		return "", false
	}
	p.next++
	return p.args[p.next-1], true
}

// once runs the format one time; stop is true after \c or a bad directive.
func (p *state) once(out *strings.Builder, format string) (stop bool) {
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c == '\\' {
			n, s, stop, err := Escape(format[i+1:], p.d, false)
			if err != "" {
				p.errorf("%s", err)
				p.stopped = true
				return true
			}
			out.WriteString(s)
			if stop {
				p.stopped = true
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
		for j < len(format) && strings.IndexByte("-+ #0'", format[j]) >= 0 {
			j++
		}
		// The thousands flag (') changes nothing in the C locale.
		flags := strings.ReplaceAll(format[i+1:j], "'", "")
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
		if p.d == Bash && j < len(format) && format[j] == '(' {
			// %(strftime)T
			end := strings.Index(format[j:], ")T")
			if end < 0 {
				p.errorf("`%s': missing format character", format[i:])
				p.stopped = true
				return true
			}
			tf := format[j+1 : j+end]
			spec := "%" + strings.ReplaceAll(flags, "0", "") + width
			if hasPrec {
				spec += "." + prec
			}
			fmt.Fprintf(out, spec+"s", p.timeArg(tf))
			i = j + end + 1
			continue
		}
		// Length modifiers are accepted and ignored, as bash and GNU do.
		for j < len(format) && strings.IndexByte("hlLjzt", format[j]) >= 0 {
			j++
		}
		if j >= len(format) {
			if p.d == GNU {
				p.errorf("%s: invalid conversion specification", format[i:])
			} else {
				p.errorf("`%s': missing format character", format[i:])
			}
			p.stopped = true
			return true
		}
		conv := format[j]
		spec := "%" + flags + width
		if hasPrec {
			spec += "." + prec
		}
		if p.d == GNU && (conv == 'q' && (spec != "%") || conv == '%' && j != i+1) {
			p.errorf("%s: invalid conversion specification", format[i:j+1])
			p.stopped = true
			return true
		}
		i = j
		if strings.Contains(flags, "0") && strings.IndexByte("sbqc", conv) >= 0 {
			// C leaves the 0 flag undefined for strings: bash pads with
			// blanks, GNU refuses the specification.
			if p.d == GNU {
				p.errorf("%s: invalid conversion specification", format[j-len(spec)+1:j+1])
				p.stopped = true
				return true
			}
			flags = strings.ReplaceAll(flags, "0", "")
			spec = "%" + flags + width
			if hasPrec {
				spec += "." + prec
			}
		}
		switch conv {
		case '%':
			out.WriteByte('%')
		case 's':
			a, _ := p.arg()
			fmt.Fprintf(out, spec+"s", a)
		case 'b':
			a, _ := p.arg()
			s, stop := p.expandBackslashes(a)
			fmt.Fprintf(out, spec+"s", s)
			if stop {
				p.stopped = true
				return true
			}
		case 'q':
			a, _ := p.arg()
			if p.d == GNU {
				out.WriteString(ShellEscape(a))
			} else {
				fmt.Fprintf(out, spec+"s", bashQuote(a))
			}
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
			p.unsigned = true
			v := uint64(p.integer(a))
			p.unsigned = false
			verb := string(conv)
			if conv == 'u' {
				verb = "d"
			}
			if v == 0 && (conv == 'x' || conv == 'X') {
				// C's # adds 0x only to a non-zero value.
				spec = strings.ReplaceAll(spec, "#", "")
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
			if p.d == GNU {
				p.errorf("%s: invalid conversion specification", format[i-len(spec)+1:j+1])
			} else {
				p.errorf("`%c': invalid format character", conv)
			}
			p.stopped = true
			return true
		}
	}
	return false
}

// timeArg formats the next argument of %(fmt)T: seconds since the
// epoch, -1 (or none) for now, -2 for the shell's start.
func (p *state) timeArg(format string) string {
	a, ok := p.arg()
	n := int64(-1)
	if ok && strings.TrimSpace(a) != "" {
		n = p.integer(a)
	}
	var t time.Time
	switch {
	case n == -1:
		t = time.Now()
	case n == -2 && !p.times.Start.IsZero():
		t = p.times.Start
	default:
		t = time.Unix(n, 0)
	}
	if p.times.Loc != nil {
		t = t.In(p.times.Loc)
	}
	if format == "" {
		format = "%X"
	}
	return strftime.Format(format, t)
}

// badNumber reports an argument that is not (entirely) a number.
func (p *state) badNumber(a string, partial bool) {
	switch {
	case p.d == Bash:
		p.errorf("%s: invalid number", a)
	case partial:
		p.errorf("%s: value not completely converted", LocaleQuote(a))
	default:
		p.errorf("%s: expected a numeric value", LocaleQuote(a))
	}
}

// integer parses a printf numeric argument: decimal, 0x hex, 0 octal,
// or 'c for a character's code.
func (p *state) integer(a string) int64 {
	// strtoimax skips leading blanks; anything after the number, blanks
	// included, makes it incompletely converted.
	s := strings.TrimLeft(a, " \t\n\v\f\r")
	if s == "" {
		return 0
	}
	if s[0] == '\'' || s[0] == '"' {
		if len(s) == 1 {
			if p.d == GNU {
				p.badNumber(a, false)
			}
			return 0
		}
		r, size := utf8.DecodeRuneInString(s[1:])
		if p.d == GNU && 1+size < len(s) {
			p.warnf("warning: %s: character(s) following character constant have been ignored", s[1+size:])
		}
		return int64(r)
	}
	v, err := strconv.ParseInt(s, 0, 64)
	if err == nil {
		return v
	}
	if u, err := strconv.ParseUint(s, 0, 64); err == nil && p.unsigned {
		return int64(u)
	}
	if errors.Is(err, strconv.ErrRange) {
		if p.d == GNU {
			p.errorf("%s: Numerical result out of range", LocaleQuote(a))
		} else {
			// bash warns and goes on with the clamped value.
			p.warnf("warning: %s: Numerical result out of range", a)
		}
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
	p.badNumber(a, k > 0 && s[k-1] >= '0' && s[k-1] <= '9')
	return v
}

func (p *state) float(a string) float64 {
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
	p.badNumber(a, false)
	return 0
}

// Escape decodes the escape after a backslash (s starts after it) in a
// printf format, or in a %b argument when inB (octal escapes are then
// \0NNN as well as \NNN, and \c stops). It returns the bytes consumed,
// the text, whether \c stops output and, for GNU, a fatal error text.
func Escape(s string, d Dialect, inB bool) (n int, text string, stop bool, err string) {
	if s == "" {
		return 0, "\\", false, ""
	}
	switch c := s[0]; c {
	case 'a':
		return 1, "\a", false, ""
	case 'b':
		return 1, "\b", false, ""
	case 'e':
		return 1, "\x1b", false, ""
	case 'E':
		if d == GNU {
			return 0, "\\", false, ""
		}
		return 1, "\x1b", false, ""
	case 'f':
		return 1, "\f", false, ""
	case 'n':
		return 1, "\n", false, ""
	case 'r':
		return 1, "\r", false, ""
	case 't':
		return 1, "\t", false, ""
	case 'v':
		return 1, "\v", false, ""
	case '\\':
		return 1, "\\", false, ""
	case '"':
		return 1, "\"", false, ""
	case '\'':
		if inB || d == GNU {
			return 0, "\\", false, ""
		}
		return 1, "'", false, ""
	case '?':
		if d == GNU {
			return 0, "\\", false, ""
		}
		return 1, "?", false, ""
	case 'c':
		if inB || d == GNU {
			return 1, "", true, ""
		}
		return 0, "\\", false, ""
	case 'x':
		k := 1
		for k < len(s) && k < 3 && isHex(s[k]) {
			k++
		}
		if k == 1 {
			if d == GNU {
				return 0, "", false, "missing hexadecimal number in escape"
			}
			return 0, "\\", false, ""
		}
		v, _ := strconv.ParseUint(s[1:k], 16, 8)
		return k, string([]byte{byte(v)}), false, ""
	case 'u', 'U':
		max := 5
		if c == 'U' {
			max = 9
		}
		k := 1
		for k < len(s) && k < max && isHex(s[k]) {
			k++
		}
		if k == 1 || (d == GNU && k < max) {
			if d == GNU {
				return 0, "", false, "missing hexadecimal number in escape"
			}
			return 0, "\\", false, ""
		}
		v, _ := strconv.ParseUint(s[1:k], 16, 32)
		return k, string(rune(v)), false, ""
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
		return k, string([]byte{byte(v)}), false, ""
	}
	return 0, "\\", false, ""
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// expandBackslashes decodes %b's argument; stop is true at \c.
func (p *state) expandBackslashes(a string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(a); i++ {
		if a[i] != '\\' {
			b.WriteByte(a[i])
			continue
		}
		n, s, stop, err := Escape(a[i+1:], p.d, true)
		if err != "" {
			p.errorf("%s", err)
			return b.String(), true
		}
		b.WriteString(s)
		if stop {
			return b.String(), true
		}
		i += n
	}
	return b.String(), false
}

// bashQuote quotes s for reuse as shell input, as bash's %q does.
func bashQuote(s string) string {
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

// Echo returns what echo prints for args: leading words made only of the
// letters n, e and E are options (-n: no newline, -e: escapes, -E: none),
// the rest are joined by spaces. With -e, bash's builtin decodes \0NNN,
// \xHH, \uHHHH, \UHHHHHHHH, \e and \E; GNU's command \0NNN, \NNN, \xHH
// and \e. \c ends the output at once.
func Echo(args []string, d Dialect) string {
	newline, escapes := true, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "neE") == "" {
		for _, c := range args[0][1:] {
			switch c {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
		args = args[1:]
	}
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if !escapes {
			b.WriteString(a)
			continue
		}
		if echoEscapes(&b, a, d) {
			return b.String()
		}
	}
	if newline {
		b.WriteByte('\n')
	}
	return b.String()
}

// echoEscapes writes a with echo -e's escapes decoded; stop is true at
// \c.
func echoEscapes(b *strings.Builder, a string, d Dialect) (stop bool) {
	notEscapes := "\"'?1234567" // bash's echo
	if d == GNU {
		notEscapes = "\"'?uUE"
	}
	for i := 0; i < len(a); i++ {
		if a[i] != '\\' || i+1 == len(a) || strings.IndexByte(notEscapes, a[i+1]) >= 0 ||
			(d == GNU && a[i+1] == 'x' && (i+2 == len(a) || !isHex(a[i+2]))) {
			b.WriteByte(a[i])
			continue
		}
		n, s, stop, _ := Escape(a[i+1:], Bash, true)
		if n == 0 {
			b.WriteByte('\\')
			continue
		}
		b.WriteString(s)
		if stop {
			return true
		}
		i += n
	}
	return false
}
