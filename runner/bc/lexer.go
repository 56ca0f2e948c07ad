package bc

import (
	"bufio"
	"fmt"
	"io"
)

// tokKind is the kind of a token.
type tokKind int

const (
	tEOF tokKind = iota
	tNewline
	tSemi
	tNumber
	tName    // a name that is not a keyword
	tKeyword // text is the keyword
	tString  // text is the string's contents
	tOp      // text is the operator: + - * / % ^ ! ( ) [ ] { } , . = += … == != < <= > >= ++ -- && ||
)

type token struct {
	kind tokKind
	text string
	line int // the line the token starts on
}

var keywords = map[string]bool{
	"auto": true, "break": true, "continue": true, "define": true, "else": true, "for": true,
	"halt": true, "ibase": true, "if": true, "last": true, "length": true, "limits": true,
	"obase": true, "print": true, "quit": true, "read": true, "return": true, "scale": true,
	"sqrt": true, "void": true, "warranty": true, "while": true,
}

// lexer turns one source (a file or stdin) into tokens, reading it as the
// parser asks, so that stdin is run line by line as bc does.
type lexer struct {
	in   *bufio.Reader
	name string // "(standard_in)" or the file's name, for messages
	line int    // the line being read: GNU's line counter
	std  bool   // -s: # comments are illegal characters
	back []byte // bytes given back to the input, the next one last
	err  func(line int, format string, a ...any)
	// fatal reports what ends the input (a comment left open at EOF).
	fatal func(msg string)
	// readErr is the first read error.
	readErr error
}

func newLexer(r io.Reader, name string, std bool) *lexer {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	return &lexer{in: br, name: name, line: 1, std: std}
}

func (l *lexer) getc() int {
	if n := len(l.back); n > 0 {
		c := l.back[n-1]
		l.back = l.back[:n-1]
		return int(c)
	}
	c, err := l.in.ReadByte()
	if err != nil {
		if err != io.EOF && l.readErr == nil {
			l.readErr = err
		}
		return -1
	}
	return int(c)
}

func (l *lexer) ungetc(c int) {
	if c >= 0 {
		l.back = append(l.back, byte(c))
	}
}

func isDigit(c int) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' }

// next returns the next token.
func (l *lexer) next() token {
	for {
		c := l.getc()
		switch {
		case c < 0:
			return token{kind: tEOF, line: l.line}
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			continue
		case c == '\\':
			// A backslash before a newline joins the lines.
			if d := l.getc(); d == '\n' {
				l.line++
				continue
			} else {
				l.ungetc(d)
			}
			l.err(l.line, "illegal character: \\")
			continue
		case c == '\n':
			t := token{kind: tNewline, line: l.line}
			l.line++
			return t
		case c == ';':
			return token{kind: tSemi, line: l.line}
		case c == '#' && !l.std:
			for c != '\n' && c >= 0 {
				c = l.getc()
			}
			l.ungetc(c)
			continue
		case c == '/':
			if d := l.getc(); d == '*' {
				if !l.comment() {
					return token{kind: tEOF, line: l.line}
				}
				continue
			} else if d == '=' {
				return token{kind: tOp, text: "/=", line: l.line}
			} else {
				l.ungetc(d)
			}
			return token{kind: tOp, text: "/", line: l.line}
		case c == '"':
			return l.str()
		case isDigit(c) || c == '.':
			return l.number(c)
		case c >= 'a' && c <= 'z':
			start := l.line
			b := []byte{byte(c)}
			for {
				d := l.getc()
				if d >= 'a' && d <= 'z' || d >= '0' && d <= '9' || d == '_' {
					b = append(b, byte(d))
					continue
				}
				l.ungetc(d)
				break
			}
			if keywords[string(b)] {
				return token{kind: tKeyword, text: string(b), line: start}
			}
			return token{kind: tName, text: string(b), line: start}
		}
		if t, ok := l.operator(c); ok {
			return t
		}
		if c >= 0x20 && c < 0x7f {
			l.err(l.line, "illegal character: %c", c)
		} else {
			l.err(l.line, "illegal character: \\%03o", c)
		}
	}
}

func (l *lexer) operator(c int) (token, bool) {
	t := token{kind: tOp, line: l.line}
	two := func(next byte, both string) string {
		if d := l.getc(); d == int(next) {
			return both
		} else {
			l.ungetc(d)
		}
		return string(rune(c))
	}
	switch c {
	case '+':
		if d := l.getc(); d == '+' {
			t.text = "++"
		} else if d == '=' {
			t.text = "+="
		} else {
			l.ungetc(d)
			t.text = "+"
		}
	case '-':
		if d := l.getc(); d == '-' {
			t.text = "--"
		} else if d == '=' {
			t.text = "-="
		} else {
			l.ungetc(d)
			t.text = "-"
		}
	case '*', '%', '^', '=', '!', '<', '>':
		t.text = two('=', string(rune(c))+"=")
	case '&':
		if d := l.getc(); d == '&' {
			t.text = "&&"
		} else {
			l.ungetc(d)
			return t, false
		}
	case '|':
		if d := l.getc(); d == '|' {
			t.text = "||"
		} else {
			l.ungetc(d)
			return t, false
		}
	case '(', ')', '[', ']', '{', '}', ',':
		t.text = string(rune(c))
	default:
		return t, false
	}
	return t, true
}

// comment skips a /* comment */; false when the input ends inside it.
func (l *lexer) comment() bool {
	prev := 0
	for {
		c := l.getc()
		switch {
		case c < 0:
			l.fatal("EOF encountered in a comment.")
			return false
		case c == '\n':
			l.line++
		case c == '/' && prev == '*':
			return true
		}
		prev = c
	}
}

// str reads a "string" (which may span lines); an unterminated one is an
// illegal '"' and what follows is read as tokens, as GNU's scanner does.
func (l *lexer) str() token {
	start := l.line
	var b []byte
	for {
		c := l.getc()
		if c < 0 {
			// Not a string: report the quote and lex the rest again.
			l.err(start, "illegal character: \"")
			l.pushBack(b)
			return l.next()
		}
		if c == '"' {
			for _, x := range b {
				if x == '\n' {
					l.line++
				}
			}
			return token{kind: tString, text: string(b), line: start}
		}
		b = append(b, byte(c))
	}
}

// pushBack returns bytes to the input (an unterminated string's).
func (l *lexer) pushBack(b []byte) {
	for i := len(b) - 1; i >= 0; i-- {
		l.back = append(l.back, b[i])
	}
}

// number reads a constant: digits 0-9 and A-Z with at most one point;
// a backslash-newline inside it is skipped. A lone "." is the last value.
func (l *lexer) number(c int) token {
	start := l.line
	b := []byte{byte(c)}
	dot := c == '.'
	for {
		d := l.getc()
		if d == '\\' {
			if e := l.getc(); e == '\n' {
				l.line++
				continue
			} else {
				l.ungetc(e)
				l.ungetc(d)
				break
			}
		}
		if isDigit(d) || d == '.' && !dot {
			dot = dot || d == '.'
			b = append(b, byte(d))
			continue
		}
		l.ungetc(d)
		break
	}
	if string(b) == "." {
		return token{kind: tOp, text: ".", line: start}
	}
	return token{kind: tNumber, text: string(b), line: start}
}

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tNewline:
		return "newline"
	case tString:
		return fmt.Sprintf("%q", t.text)
	}
	return t.text
}
