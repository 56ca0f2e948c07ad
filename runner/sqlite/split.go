package sqlite

import (
	"strings"
	"unicode"
)

// nextStatement returns the first complete SQL statement of s (with its
// semicolon) and the rest. ok is false when s holds no complete statement
// yet. It follows sqlite3_complete: a ';' ends a statement unless it sits in
// a string, identifier or comment, or inside a CREATE TRIGGER body that has
// not reached its END.
func nextStatement(s string) (stmt, rest string, ok bool) {
	i := 0
	for i < len(s) {
		switch c := s[i]; {
		case c == '\'' || c == '"' || c == '`':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return "", s, false
			}
			i += j + 2
		case c == '[':
			j := strings.IndexByte(s[i+1:], ']')
			if j < 0 {
				return "", s, false
			}
			i += j + 2
		case c == '-' && strings.HasPrefix(s[i:], "--"):
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				return "", s, false
			}
			i += j + 1
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return "", s, false
			}
			i += j + 4
		case c == ';':
			cand := s[:i+1]
			if !isTrigger(cand) || endsWithEnd(cand[:i]) {
				return cand, s[i+1:], true
			}
			i++
		default:
			i++
		}
	}
	return "", s, false
}

// words returns the leading keywords of a statement, upper-cased, skipping
// comments.
func words(s string, n int) []string {
	var out []string
	for len(out) < n {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		switch {
		case strings.HasPrefix(s, "--"):
			j := strings.IndexByte(s, '\n')
			if j < 0 {
				return out
			}
			s = s[j+1:]
			continue
		case strings.HasPrefix(s, "/*"):
			j := strings.Index(s, "*/")
			if j < 0 {
				return out
			}
			s = s[j+2:]
			continue
		}
		j := strings.IndexFunc(s, func(r rune) bool { return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') })
		if j == 0 || s == "" {
			return out
		}
		if j < 0 {
			j = len(s)
		}
		out = append(out, strings.ToUpper(s[:j]))
		s = s[j:]
	}
	return out
}

func isTrigger(s string) bool {
	w := words(s, 3)
	if len(w) < 2 || w[0] != "CREATE" {
		return false
	}
	if w[1] == "TEMP" || w[1] == "TEMPORARY" {
		return len(w) > 2 && w[2] == "TRIGGER"
	}
	return w[1] == "TRIGGER"
}

func endsWithEnd(s string) bool {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	if len(s) < 3 || !strings.EqualFold(s[len(s)-3:], "END") {
		return false
	}
	return len(s) == 3 || !(unicode.IsLetter(rune(s[len(s)-4])) || unicode.IsDigit(rune(s[len(s)-4])) || s[len(s)-4] == '_')
}

// isBlank reports whether a statement holds nothing but whitespace,
// comments and semicolons.
func isBlank(s string) bool {
	for {
		s = strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == ';' })
		switch {
		case s == "":
			return true
		case strings.HasPrefix(s, "--"):
			j := strings.IndexByte(s, '\n')
			if j < 0 {
				return true
			}
			s = s[j+1:]
		case strings.HasPrefix(s, "/*"):
			j := strings.Index(s, "*/")
			if j < 0 {
				return true
			}
			s = s[j+2:]
		default:
			return false
		}
	}
}
