package sed

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode"

	"github.com/wsfs/wsfs/runner/internal/gnuregex"
)

// regex is one compiled regular expression of a script: GNU sed's
// dialect of gnuregex (glibc's POSIX basic or, with -E, extended syntax),
// after the character escapes sed converts itself.
type regex struct {
	re      *gnuregex.Regexp
	ngroups int
}

// compileRegex compiles a regex of the script with sed's I and M flags;
// M makes ^ and $ match at each line of the pattern space (lines end in
// NUL with -z).
func compileRegex(src string, ere, icase, mline, nul bool) (*regex, error) {
	opts := gnuregex.Options{Syntax: gnuregex.SedBRE, IgnoreCase: icase, Lines: mline, EOL: '\n'}
	if ere {
		opts.Syntax = gnuregex.SedERE
	}
	if nul {
		opts.EOL = 0
	}
	re, err := gnuregex.Compile(expandEscapes(src), opts)
	if err != nil {
		return nil, err
	}
	return &regex{re: re, ngroups: re.NumSubexp()}, nil
}

// match reports whether b holds a match (an address).
func (rx *regex) match(ctx context.Context, b []byte) (bool, error) {
	ok, err := rx.re.Match(ctx, b)
	return ok, runErr(err)
}

// eachMatch calls fn with the successive matches of rx in b and their
// submatches, as GNU sed's s///g finds them, up to limit (< 0: all),
// until fn returns false.
func (rx *regex) eachMatch(ctx context.Context, b []byte, limit int, fn func(caps []int) bool) error {
	return runErr(rx.re.Each(ctx, b, limit, true, fn))
}

// runErr words a failed search for sed's messages: a cancelled command
// stays what it is; an exhausted step budget says what to change.
func runErr(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if errors.Is(err, gnuregex.ErrBudget) {
		return &ioError{msg: gnuregex.ErrBudget.Error()}
	}
	return err
}

// expandEscapes replaces the escapes GNU sed converts before the regex
// compiler sees the text (\a \f \n \r \t \v \cX \dNNN \oNNN \xHH) by the
// characters they stand for; the characters are inserted raw, so "\x5e" at
// the start of a regex is an anchor, as in GNU sed.
func expandEscapes(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		r, n, ok := escapeChar(s[i+1:])
		if !ok {
			b.WriteByte(c)
			b.WriteByte(s[i+1])
			i++
			continue
		}
		b.WriteByte(byte(r))
		i += n
	}
	return b.String()
}

// escapeChar decodes the escape after a backslash: the byte it stands for
// and how many bytes of s it used. ok is false for escapes that are not
// character escapes (\w, \(, \1 …).
func escapeChar(s string) (c byte, n int, ok bool) {
	switch s[0] {
	case 'a':
		return 7, 1, true
	case 'f':
		return '\f', 1, true
	case 'n':
		return '\n', 1, true
	case 'r':
		return '\r', 1, true
	case 't':
		return '\t', 1, true
	case 'v':
		return '\v', 1, true
	case 'c':
		if len(s) < 2 {
			return 0, 0, false
		}
		return byte(unicode.ToUpper(rune(s[1]))) ^ 0x40, 2, true
	case 'd', 'o', 'x':
		base, max := 10, 3
		if s[0] == 'o' {
			base = 8
		} else if s[0] == 'x' {
			base, max = 16, 2
		}
		j := 1
		for j < len(s) && j <= max && digitOK(s[j], base) {
			j++
		}
		if j == 1 {
			return 0, 0, false
		}
		v, _ := strconv.ParseUint(s[1:j], base, 16)
		return byte(v), j, true
	}
	return 0, 0, false
}

func digitOK(c byte, base int) bool {
	switch base {
	case 8:
		return c >= '0' && c <= '7'
	case 10:
		return c >= '0' && c <= '9'
	}
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
