package coreutils

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// fnmatch matches name against a shell pattern as fnmatch(3) without
// flags: '*' and '?' match any character, '/' and a leading '.' included;
// brackets take ranges, negation with '!' or '^', and [:class:]; '\'
// escapes. fold compares case-insensitively (find -iname).
func fnmatch(pattern, name string, fold bool) bool {
	if fold {
		pattern, name = strings.ToLower(pattern), strings.ToLower(name)
	}
	// Iterative matching with backtracking on the last star.
	px, nx := 0, 0
	starP, starN := -1, -1
	for nx < len(name) || px < len(pattern) {
		if px < len(pattern) {
			switch pattern[px] {
			case '*':
				starP, starN = px, nx
				px++
				continue
			case '?':
				if nx < len(name) {
					_, w := utf8.DecodeRuneInString(name[nx:])
					px++
					nx += w
					continue
				}
			case '[':
				if nx < len(name) {
					r, w := utf8.DecodeRuneInString(name[nx:])
					if ok, plen, valid := matchBracket(pattern[px:], r); valid {
						if ok {
							px += plen
							nx += w
							continue
						}
						break
					}
				}
				if nx < len(name) && name[nx] == '[' {
					px++
					nx++
					continue
				}
			case '\\':
				if px+1 < len(pattern) && nx < len(name) && pattern[px+1] == name[nx] {
					px += 2
					nx++
					continue
				}
				if px+1 == len(pattern) && nx < len(name) && name[nx] == '\\' {
					px++
					nx++
					continue
				}
			default:
				if nx < len(name) && pattern[px] == name[nx] {
					px++
					nx++
					continue
				}
			}
		}
		if starP >= 0 && starN < len(name) {
			_, w := utf8.DecodeRuneInString(name[starN:])
			starN += w
			px, nx = starP+1, starN
			continue
		}
		return false
	}
	return true
}

// matchBracket matches r against a bracket expression at the start of p
// and returns the match, the expression's length, and whether p holds a
// complete expression.
func matchBracket(p string, r rune) (matched bool, n int, valid bool) {
	i := 1
	negate := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate = true
		i++
	}
	first := true
	for i < len(p) {
		if p[i] == ']' && !first {
			return matched != negate, i + 1, true
		}
		first = false
		if p[i] == '[' && i+1 < len(p) && p[i+1] == ':' {
			end := strings.Index(p[i+2:], ":]")
			if end >= 0 {
				class := p[i+2 : i+2+end]
				if classMatch(class, r) {
					matched = true
				}
				i += end + 4
				continue
			}
		}
		lo, w := utf8.DecodeRuneInString(p[i:])
		if lo == '\\' && i+1 < len(p) {
			lo, w = utf8.DecodeRuneInString(p[i+1:])
			w++
		}
		i += w
		hi := lo
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			h, w2 := utf8.DecodeRuneInString(p[i+1:])
			hi = h
			i += 1 + w2
		}
		if lo <= r && r <= hi {
			matched = true
		}
	}
	return false, 0, false
}

func classMatch(class string, r rune) bool {
	switch class {
	case "alpha":
		return unicode.IsLetter(r)
	case "digit":
		return r >= '0' && r <= '9'
	case "alnum":
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	case "upper":
		return unicode.IsUpper(r)
	case "lower":
		return unicode.IsLower(r)
	case "space":
		return unicode.IsSpace(r)
	case "punct":
		return r < 128 && unicode.IsPunct(r) || r < 128 && unicode.IsSymbol(r)
	case "xdigit":
		return strings.ContainsRune("0123456789abcdefABCDEF", r)
	case "blank":
		return r == ' ' || r == '\t'
	case "cntrl":
		return unicode.IsControl(r)
	case "print":
		return unicode.IsPrint(r)
	case "graph":
		return unicode.IsGraphic(r) && r != ' '
	}
	return false
}
