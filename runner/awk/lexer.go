package awk

import (
	"fmt"
	"strconv"
	"strings"
)

type tok int

const (
	tEOF tok = iota
	tNewline
	tLbrace
	tRbrace
	tLparen
	tRparen
	tLbracket
	tRbracket
	tSemi
	tComma

	tAdd
	tSub
	tMul
	tDiv
	tMod
	tPow
	tNot
	tGreater
	tLess
	tPipe
	tQuestion
	tColon
	tMatch
	tNotMatch
	tDollar
	tAssign
	tAddAssign
	tSubAssign
	tMulAssign
	tDivAssign
	tModAssign
	tPowAssign
	tEqual
	tLessEq
	tGreaterEq
	tNotEqual
	tIncr
	tDecr
	tAnd
	tOr
	tAppend
	tPipeAmp // |& (gawk coprocess; refused)

	tBegin
	tEnd
	tFunction
	tIf
	tElse
	tWhile
	tFor
	tDo
	tBreak
	tContinue
	tNext
	tNextfile
	tExit
	tReturn
	tDelete
	tIn
	tGetline
	tPrint
	tPrintf

	tBuiltin // a built-in function name; text holds it
	tName
	tFuncName // a name directly followed by "("
	tNumber
	tString
	tRegex
)

var keywords = map[string]tok{
	"BEGIN": tBegin, "END": tEnd, "function": tFunction, "func": tFunction,
	"if": tIf, "else": tElse, "while": tWhile, "for": tFor, "do": tDo,
	"break": tBreak, "continue": tContinue, "next": tNext, "nextfile": tNextfile,
	"exit": tExit, "return": tReturn, "delete": tDelete, "in": tIn,
	"getline": tGetline, "print": tPrint, "printf": tPrintf,
}

var builtinNames = map[string]bool{
	"length": true, "substr": true, "index": true, "split": true, "sub": true,
	"gsub": true, "match": true, "sprintf": true, "sin": true, "cos": true,
	"atan2": true, "exp": true, "log": true, "sqrt": true, "int": true,
	"rand": true, "srand": true, "tolower": true, "toupper": true,
	"system": true, "close": true, "fflush": true, "gensub": true,
	"systime": true, "strftime": true, "mktime": true, "asort": true, "asorti": true,
}

type token struct {
	t    tok
	text string  // names, strings (unescaped), regex sources
	num  float64 // numbers
	pos  int     // byte offset in the source
}

var tokNames = map[tok]string{
	tEOF: "end of file", tNewline: "newline", tLbrace: "{", tRbrace: "}",
	tLparen: "(", tRparen: ")", tLbracket: "[", tRbracket: "]", tSemi: ";",
	tComma: ",", tAdd: "+", tSub: "-", tMul: "*", tDiv: "/", tMod: "%",
	tPow: "^", tNot: "!", tGreater: ">", tLess: "<", tPipe: "|", tQuestion: "?",
	tColon: ":", tMatch: "~", tNotMatch: "!~", tDollar: "$", tAssign: "=",
	tAddAssign: "+=", tSubAssign: "-=", tMulAssign: "*=", tDivAssign: "/=",
	tModAssign: "%=", tPowAssign: "^=", tEqual: "==", tLessEq: "<=",
	tGreaterEq: ">=", tNotEqual: "!=", tIncr: "++", tDecr: "--", tAnd: "&&",
	tOr: "||", tAppend: ">>", tPipeAmp: "|&",
}

func (t token) String() string {
	switch t.t {
	case tName, tFuncName, tBuiltin:
		return t.text
	case tNumber:
		return "number"
	case tString:
		return "string"
	case tRegex:
		return "regular expression"
	}
	if s, ok := tokNames[t.t]; ok {
		return s
	}
	for k, v := range keywords {
		if v == t.t {
			return k
		}
	}
	return "?"
}

// syntaxError is a parse failure at a byte offset of the source.
type syntaxError struct {
	pos int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

// lex splits the program into tokens. Whether "/" starts a regex depends on
// the token before it, as in every awk. Newlines after tokens that awk lets
// a statement continue past ("{", ",", "&&", "||", "do", "else") are dropped
// here so the parser need not care.
func lex(src string, warn func(pos int, msg string)) ([]token, error) {
	var toks []token
	i := 0
	last := tok(-1)
	emit := func(t token) {
		if t.t == tNewline {
			switch last {
			case tLbrace, tComma, tAnd, tOr, tDo, tElse, tNewline:
				return
			}
		}
		toks = append(toks, t)
		last = t.t
	}
	for i < len(src) {
		c := src[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			i += 2
			continue
		case c == '\\' && i+2 < len(src) && src[i+1] == '\r' && src[i+2] == '\n':
			i += 3
			continue
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case c == '\n':
			i++
			emit(token{t: tNewline, pos: start})
			continue
		case isAlpha(c):
			for i < len(src) && (isAlpha(src[i]) || isDigit(src[i])) {
				i++
			}
			word := src[start:i]
			if kw, ok := keywords[word]; ok {
				emit(token{t: kw, text: word, pos: start})
			} else if builtinNames[word] {
				emit(token{t: tBuiltin, text: word, pos: start})
			} else if i < len(src) && src[i] == '(' {
				emit(token{t: tFuncName, text: word, pos: start})
			} else {
				emit(token{t: tName, text: word, pos: start})
			}
			continue
		case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])):
			n, end := lexNumber(src, i)
			i = end
			emit(token{t: tNumber, num: n, pos: start})
			continue
		case c == '"':
			s, end, err := lexString(src, i+1, warn)
			if err != nil {
				return nil, err
			}
			i = end
			emit(token{t: tString, text: s, pos: start})
			continue
		case c == '/' && regexAllowed(last):
			j := i + 1
			var b strings.Builder
			inBracket := false
			for {
				if j >= len(src) || src[j] == '\n' {
					return nil, &syntaxError{pos: start, msg: "unterminated regexp"}
				}
				ch := src[j]
				if ch == '\\' && j+1 < len(src) {
					if src[j+1] == '/' {
						b.WriteByte('/')
					} else if src[j+1] == '\n' {
						// continuation inside a regex
					} else {
						b.WriteByte('\\')
						b.WriteByte(src[j+1])
					}
					j += 2
					continue
				}
				if ch == '[' && !inBracket {
					inBracket = true
					b.WriteByte(ch)
					j++
					// A "]" (after an optional "^") right after "[" is literal.
					if j < len(src) && src[j] == '^' {
						b.WriteByte('^')
						j++
					}
					if j < len(src) && src[j] == ']' {
						b.WriteByte(']')
						j++
					}
					continue
				}
				if inBracket && ch == '[' && j+1 < len(src) && (src[j+1] == ':' || src[j+1] == '.' || src[j+1] == '=') {
					end := strings.Index(src[j+2:], string(src[j+1])+"]")
					if end >= 0 {
						b.WriteString(src[j : j+2+end+2])
						j += 2 + end + 2
						continue
					}
				}
				if ch == ']' && inBracket {
					inBracket = false
				}
				if ch == '/' && !inBracket {
					break
				}
				b.WriteByte(ch)
				j++
			}
			i = j + 1
			emit(token{t: tRegex, text: b.String(), pos: start})
			continue
		}
		// Operators.
		two := ""
		if i+1 < len(src) {
			two = src[i : i+2]
		}
		var t tok
		n := 2
		switch two {
		case "+=":
			t = tAddAssign
		case "-=":
			t = tSubAssign
		case "*=":
			t = tMulAssign
		case "/=":
			t = tDivAssign
		case "%=":
			t = tModAssign
		case "^=":
			t = tPowAssign
		case "==":
			t = tEqual
		case "<=":
			t = tLessEq
		case ">=":
			t = tGreaterEq
		case "!=":
			t = tNotEqual
		case "++":
			t = tIncr
		case "--":
			t = tDecr
		case "&&":
			t = tAnd
		case "||":
			t = tOr
		case ">>":
			t = tAppend
		case "!~":
			t = tNotMatch
		case "|&":
			t = tPipeAmp
		case "**":
			t = tPow
			if i+2 < len(src) && src[i+2] == '=' {
				t = tPowAssign
				n = 3
			}
		default:
			n = 1
			switch c {
			case '{':
				t = tLbrace
			case '}':
				t = tRbrace
			case '(':
				t = tLparen
			case ')':
				t = tRparen
			case '[':
				t = tLbracket
			case ']':
				t = tRbracket
			case ';':
				t = tSemi
			case ',':
				t = tComma
			case '+':
				t = tAdd
			case '-':
				t = tSub
			case '*':
				t = tMul
			case '/':
				t = tDiv
			case '%':
				t = tMod
			case '^':
				t = tPow
			case '!':
				t = tNot
			case '>':
				t = tGreater
			case '<':
				t = tLess
			case '|':
				t = tPipe
			case '?':
				t = tQuestion
			case ':':
				t = tColon
			case '~':
				t = tMatch
			case '$':
				t = tDollar
			case '=':
				t = tAssign
			default:
				return nil, &syntaxError{pos: start, msg: fmt.Sprintf("invalid char '%c' in expression", c)}
			}
		}
		i += n
		emit(token{t: t, pos: start})
	}
	emit(token{t: tNewline, pos: len(src)})
	toks = append(toks, token{t: tEOF, pos: len(src)})
	return toks, nil
}

func regexAllowed(last tok) bool {
	switch last {
	case tName, tFuncName, tNumber, tString, tRparen, tRbracket, tDollar, tIncr, tDecr, tBuiltin, tRegex:
		return false
	}
	return true
}

func isAlpha(c byte) bool { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// lexNumber reads a numeric constant as gawk does: decimal, and also hex
// (0x1F) and octal (017) constants in program text.
func lexNumber(src string, i int) (float64, int) {
	start := i
	if src[i] == '0' && i+2 < len(src) && (src[i+1] == 'x' || src[i+1] == 'X') && isHex(src[i+2]) {
		j := i + 2
		for j < len(src) && isHex(src[j]) {
			j++
		}
		n, _ := strconv.ParseUint(src[i+2:j], 16, 64)
		return float64(n), j
	}
	for i < len(src) && isDigit(src[i]) {
		i++
	}
	isInt := true
	if i < len(src) && src[i] == '.' {
		isInt = false
		i++
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		j := i + 1
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j < len(src) && isDigit(src[j]) {
			isInt = false
			for j < len(src) && isDigit(src[j]) {
				j++
			}
			i = j
		}
	}
	text := src[start:i]
	if isInt && len(text) > 1 && text[0] == '0' {
		octal := true
		for _, c := range []byte(text) {
			if c > '7' {
				octal = false
			}
		}
		if octal {
			n, _ := strconv.ParseUint(text, 8, 64)
			return float64(n), i
		}
	}
	n, _ := strconv.ParseFloat(text, 64)
	return n, i
}

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// lexString reads a string constant starting after its opening quote.
func lexString(src string, i int, warn func(pos int, msg string)) (string, int, error) {
	var b strings.Builder
	start := i - 1
	for {
		if i >= len(src) || src[i] == '\n' {
			return "", 0, &syntaxError{pos: start, msg: "unterminated string"}
		}
		c := src[i]
		if c == '"' {
			return b.String(), i + 1, nil
		}
		if c != '\\' {
			b.WriteByte(c)
			i++
			continue
		}
		i++
		if i >= len(src) {
			return "", 0, &syntaxError{pos: start, msg: "unterminated string"}
		}
		if src[i] == '\n' {
			i++
			continue
		}
		if warn != nil && plainEscape(src[i]) {
			warn(i-1, fmt.Sprintf("escape sequence `\\%c' treated as plain `%c'", src[i], src[i]))
		}
		n := unescape(&b, src[i:])
		i += n
	}
}

// unescape writes the meaning of the escape sequence at the start of s
// (the part after the backslash) and returns how many bytes it used.
func unescape(b *strings.Builder, s string) int {
	c := s[0]
	switch c {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case '\\':
		b.WriteByte('\\')
	case '"':
		b.WriteByte('"')
	case '/':
		b.WriteByte('/')
	case 'a':
		b.WriteByte(7)
	case 'b':
		b.WriteByte(8)
	case 'f':
		b.WriteByte(12)
	case 'v':
		b.WriteByte(11)
	case '0', '1', '2', '3', '4', '5', '6', '7':
		n, j := 0, 0
		for j < 3 && j < len(s) && s[j] >= '0' && s[j] <= '7' {
			n = n*8 + int(s[j]-'0')
			j++
		}
		b.WriteByte(byte(n))
		return j
	case 'x':
		n, j := 0, 1
		for j < 3 && j < len(s) && isHex(s[j]) {
			d, _ := strconv.ParseUint(s[j:j+1], 16, 8)
			n = n*16 + int(d)
			j++
		}
		if j == 1 {
			b.WriteString("\\x")
			return 1
		}
		b.WriteByte(byte(n))
		return j
	default:
		// gawk keeps the character and drops the backslash (with a warning).
		b.WriteByte(c)
	}
	return 1
}

// plainEscape reports an escape gawk warns about: a backslash before a
// character that has no escape meaning.
func plainEscape(c byte) bool {
	return strings.IndexByte("ntr\\\"abfv01234567x", c) < 0
}
