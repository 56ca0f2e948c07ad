package awk

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// compileERE compiles a POSIX extended regular expression, with the GNU
// operators gawk adds (\y \B \< \> \s \S \w \W \` \'), into a Go regexp
// that picks the leftmost-longest match as POSIX requires.
func compileERE(src string) (*regexp.Regexp, error) {
	goSrc, err := translateERE(src)
	if err != nil {
		return nil, fmt.Errorf("regular expression /%s/: %w", src, err)
	}
	re, err := regexp.Compile(goSrc)
	if err != nil {
		return nil, fmt.Errorf("regular expression /%s/: %s", src, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	re.Longest()
	return re, nil
}

func translateERE(src string) (string, error) {
	var b strings.Builder
	b.WriteString("(?s)")
	// atStart: a repetition operator here has nothing to repeat, so it is literal.
	atStart := true
	lastRep := byte(0) // the repetition operator just written, to merge "a**"
	i := 0
	for i < len(src) {
		c := src[i]
		switch c {
		case '\\':
			if i+1 >= len(src) {
				return "", fmt.Errorf("trailing backslash")
			}
			n, s := translateEscape(src[i+1:])
			b.WriteString(s)
			i += 1 + n
			atStart, lastRep = false, 0
			continue
		case '[':
			s, n, err := translateBracket(src[i:])
			if err != nil {
				return "", err
			}
			b.WriteString(s)
			i += n
			atStart, lastRep = false, 0
			continue
		case '*', '+', '?':
			if atStart {
				b.WriteString(`\` + string(c))
				atStart = false
				i++
				continue
			}
			if lastRep != 0 {
				// "a**", "a+?" and the like: POSIX leaves them undefined,
				// gawk treats them as one operator.
				merged := byte('*')
				if lastRep == c && c != '*' {
					merged = c
				}
				s := b.String()
				b.Reset()
				b.WriteString(s[:len(s)-1])
				b.WriteByte(merged)
				lastRep = merged
				i++
				continue
			}
			b.WriteByte(c)
			lastRep = c
			i++
			continue
		case '{':
			if n, ok := intervalLen(src[i:]); ok && !atStart {
				iv := src[i : i+n]
				if err := checkInterval(iv); err != nil {
					return "", err
				}
				if lastRep != 0 {
					// "a*{2}": the interval adds nothing RE2 could express.
					i += n
					continue
				}
				b.WriteString(iv)
				lastRep = '}'
				i += n
				continue
			}
			b.WriteString(`\{`)
			atStart, lastRep = false, 0
			i++
			continue
		case '}':
			b.WriteString(`\}`)
			atStart, lastRep = false, 0
			i++
			continue
		case '(':
			b.WriteByte('(')
			atStart, lastRep = true, 0
			i++
			if i < len(src) && src[i] == ')' {
				// "()" matches the empty string.
				b.WriteByte(')')
				atStart = false
				i++
			}
			continue
		case '|':
			b.WriteByte('|')
			atStart, lastRep = true, 0
			i++
			continue
		case '^':
			b.WriteByte('^')
			atStart, lastRep = true, 0
			i++
			continue
		case ')', '.', '$':
			b.WriteByte(c)
			atStart, lastRep = false, 0
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(src[i:])
		b.WriteString(regexp.QuoteMeta(src[i : i+size]))
		atStart, lastRep = false, 0
		i += size
	}
	return b.String(), nil
}

func intervalLen(s string) (int, bool) {
	// s starts with "{": accept {n}, {n,}, {n,m} and {,m}.
	i := 1
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == ',' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 || i >= len(s) || s[i] != '}' {
		return 0, false
	}
	return i + 1, true
}

func checkInterval(iv string) error {
	inner := iv[1 : len(iv)-1]
	lo, hi, comma := strings.Cut(inner, ",")
	var l, h int
	if lo != "" {
		l, _ = strconv.Atoi(lo)
	}
	if comma && hi != "" {
		h, _ = strconv.Atoi(hi)
		if h < l {
			return fmt.Errorf("invalid content of \\{\\}")
		}
	}
	if l > 1000 || h > 1000 {
		return fmt.Errorf("repetition count %s is larger than 1000, the limit of wsfs's regexp engine", iv)
	}
	return nil
}

// translateEscape handles the text after a backslash outside brackets and
// returns how many bytes it used and the Go regexp text.
func translateEscape(s string) (int, string) {
	c := s[0]
	switch c {
	case 'y':
		return 1, `\b`
	case 'B':
		return 1, `\B`
	case '<', '>':
		// RE2 has no look-around: a word boundary is the closest match.
		return 1, `\b`
	case '`':
		return 1, `\A`
	case '\'':
		return 1, `\z`
	case 's', 'S', 'w', 'W':
		return 1, `\` + string(c)
	case 'n':
		return 1, `\n`
	case 't':
		return 1, `\t`
	case 'r':
		return 1, `\r`
	case 'f':
		return 1, `\f`
	case 'v':
		return 1, `\v`
	case 'a':
		return 1, `\x07`
	case 'b':
		return 1, `\x08`
	case '/':
		return 1, `/`
	case '"':
		return 1, `"`
	case '0', '1', '2', '3', '4', '5', '6', '7':
		n, j := 0, 0
		for j < 3 && j < len(s) && s[j] >= '0' && s[j] <= '7' {
			n = n*8 + int(s[j]-'0')
			j++
		}
		return j, regexp.QuoteMeta(string(rune(n)))
	}
	_, size := utf8.DecodeRuneInString(s)
	ch := s[:size]
	if size == 1 && !isAlpha(c) && !isDigit(c) {
		return 1, `\` + ch
	}
	return size, regexp.QuoteMeta(ch)
}

// translateBracket converts a bracket expression at the start of s.
func translateBracket(s string) (string, int, error) {
	i := 1
	var b strings.Builder
	b.WriteByte('[')
	if i < len(s) && s[i] == '^' {
		b.WriteByte('^')
		i++
	}
	first := true
	items := 0
	for {
		if i >= len(s) {
			return "", 0, fmt.Errorf("unmatched [, [^, [:, [., or [=")
		}
		c := s[i]
		if c == ']' && !first {
			i++
			break
		}
		first = false
		switch {
		case c == '[' && i+1 < len(s) && s[i+1] == ':':
			end := strings.Index(s[i+2:], ":]")
			if end < 0 {
				return "", 0, fmt.Errorf("unmatched [, [^, [:, [., or [=")
			}
			name := s[i+2 : i+2+end]
			switch name {
			case "alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "xdigit":
			default:
				return "", 0, fmt.Errorf("invalid character class")
			}
			b.WriteString(s[i : i+2+end+2])
			i += 2 + end + 2
		case c == '[' && i+1 < len(s) && (s[i+1] == '.' || s[i+1] == '='):
			end := strings.Index(s[i+2:], string(s[i+1])+"]")
			if end < 0 {
				return "", 0, fmt.Errorf("unmatched [, [^, [:, [., or [=")
			}
			b.WriteString(bracketLiteral(s[i+2 : i+2+end]))
			i += 2 + end + 2
		case c == '\\' && i+1 < len(s):
			// gawk reads escapes inside brackets.
			n, lit := bracketEscape(s[i+1:])
			b.WriteString(lit)
			i += 1 + n
		case c == '-':
			// A range operator between two items, else a literal.
			if items > 0 && i+1 < len(s) && s[i+1] != ']' {
				b.WriteByte('-')
			} else {
				b.WriteString(`\-`)
			}
			i++
			items--
		default:
			_, size := utf8.DecodeRuneInString(s[i:])
			b.WriteString(bracketLiteral(s[i : i+size]))
			i += size
		}
		items++
	}
	b.WriteByte(']')
	return b.String(), i, nil
}

func bracketLiteral(ch string) string {
	switch ch {
	case `\`, `]`, `[`, `^`, `-`:
		return `\` + ch
	}
	return ch
}

func bracketEscape(s string) (int, string) {
	switch s[0] {
	case 'n':
		return 1, `\n`
	case 't':
		return 1, `\t`
	case 'r':
		return 1, `\r`
	case 'f':
		return 1, `\f`
	case 'v':
		return 1, `\v`
	case 'a':
		return 1, `\x07`
	case 'b':
		return 1, `\x08`
	case 's', 'S', 'w', 'W':
		// gawk reads "[\s]" as "s"; keep that.
		return 1, string(s[0])
	}
	_, size := utf8.DecodeRuneInString(s)
	return size, bracketLiteral(s[:size])
}

// regexCache keeps compiled dynamic regexes.
type regexCache struct {
	m map[string]*regexp.Regexp
}

func (c *regexCache) get(src string) (*regexp.Regexp, error) {
	if re, ok := c.m[src]; ok {
		return re, nil
	}
	re, err := compileERE(src)
	if err != nil {
		return nil, err
	}
	if c.m == nil || len(c.m) > 500 {
		c.m = map[string]*regexp.Regexp{}
	}
	c.m[src] = re
	return re, nil
}
