package printfmt

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ShellEscape quotes s as GNU's shell-escape quoting style does (printf
// %q, ls --quoting-style=shell-escape): unchanged when nothing in it is
// special to the shell; in double quotes when it holds a single quote and
// nothing else double quotes would change; otherwise in single quotes,
// where a single quote is closed, escaped and reopened, and control or
// invalid bytes become $'\NNN' pieces.
func ShellEscape(s string) string {
	if s == "" {
		return "''"
	}
	needs, doubleOK, hasQuote := false, true, false
	for i, w := 0, 0; i < len(s); i += w {
		r, size := utf8.DecodeRuneInString(s[i:])
		w = size
		switch {
		case r == '\'':
			needs, hasQuote = true, true
		case r == utf8.RuneError && size == 1, !unicode.IsPrint(r) && r != ' ':
			needs, doubleOK = true, false
		case r >= 0x80 || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("%+,-./:@]_", r):
		case r == ' ':
			needs = true
		case r == '#' || r == '~':
			needs = needs || i == 0
			doubleOK = false
		case r == '{' || r == '}':
			needs = needs || len(s) == 1
			doubleOK = false
		default:
			needs, doubleOK = true, false
		}
	}
	switch {
	case !needs:
		return s
	case hasQuote && doubleOK:
		return `"` + s + `"`
	}
	var b strings.Builder
	b.WriteByte('\'')
	inEscape := false
	for i, w := 0, 0; i < len(s); i += w {
		r, size := utf8.DecodeRuneInString(s[i:])
		w = size
		if (r == utf8.RuneError && size == 1) || (!unicode.IsPrint(r) && r != ' ') {
			if !inEscape {
				b.WriteString(`'$'`)
				inEscape = true
			}
			for _, c := range []byte(s[i : i+size]) {
				writeCEscape(&b, c)
			}
			continue
		}
		if inEscape {
			b.WriteString(`''`)
			inEscape = false
		}
		if r == '\'' {
			b.WriteString(`'\''`)
			continue
		}
		b.WriteString(s[i : i+size])
	}
	b.WriteByte('\'')
	return b.String()
}

func writeCEscape(b *strings.Builder, c byte) {
	if i := strings.IndexByte("\a\b\f\n\r\t\v", c); i >= 0 {
		b.WriteByte('\\')
		b.WriteByte("abfnrtv"[i])
		return
	}
	fmt.Fprintf(b, `\%03o`, c)
}

// LocaleQuote quotes an operand as GNU's quote() does in a UTF-8 locale
// (locale quoting style): ‘…’, with backslashes and control bytes
// escaped as in C.
func LocaleQuote(s string) string {
	var b strings.Builder
	b.WriteString("‘")
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b.WriteString(`\\`)
		case c < 0x20 || c == 0x7f:
			writeCEscape(&b, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteString("’")
	return b.String()
}
