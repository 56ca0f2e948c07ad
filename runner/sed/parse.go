package sed

import (
	"bufio"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/gnuregex"
)

type addrKind uint8

type rangeState uint8

const (
	rangeInactive rangeState = iota
	rangeActive
	rangeClosed
)

const (
	addrLine   addrKind = iota + 1 // N
	addrLast                       // $
	addrRegex                      // /re/
	addrStep                       // first~step
	addrZero                       // 0 (only as 0,/re/)
	addrPlus                       // addr1,+N
	addrMult                       // addr1,~N
	addrAlways                     // +0 or ~0 as a first address
)

type address struct {
	kind addrKind
	n    int
	step int
	rx   *regex // nil for the empty regex: the last regex used
}

// cmd is one command of a compiled script.
type cmd struct {
	a1, a2 *address
	neg    bool
	name   byte

	state    rangeState
	rangeEnd int  // last line of a +N or ~N range
	prepend  bool // 0r FILE: print FILE before the first line

	text   []byte // a i c
	label  string // : b t T
	jump   int    // b t T target; { : index of its }
	fname  string // r R w W
	out    *output
	num    int // q Q exit code; l width (-1: default)
	subst  *subst
	ymap   map[rune]rune
	ybytes *[256]byte // y over ASCII only
	rf     *rfile     // R
}

// rfile is a file read line by line by R commands.
type rfile struct {
	f command.File // nil for standard input or a file that cannot be read
	r *bufio.Reader
}

type subst struct {
	rx     *regex // nil: the last regex used
	repl   []replPart
	global bool
	print  int // number of p flags (GNU allows one)
	nth    int
	out    *output
	icase  bool
	mline  bool
	maxRef int
}

type replKind uint8

const (
	replLit   replKind = iota
	replGroup          // \0 … \9 and &
	replCase           // \U \L \E \u \l
)

type replPart struct {
	kind replKind
	lit  []byte
	n    int  // group number
	c    byte // U L E u l
}

// scriptError is a compile error, printed as GNU sed prints it.
type scriptError struct {
	where string // "-e expression #1, char 3" or "file x line 2"; empty for none
	msg   string
}

func (e *scriptError) Error() string {
	if e.where == "" {
		return e.msg
	}
	return e.where + ": " + e.msg
}

// chunk is one piece of the script: an -e expression or an -f file.
type chunk struct {
	text  string
	file  string // name for -f chunks
	index int    // expression number for -e chunks
	// GNU compiles -e and -f pieces while it reads the options, so a
	// later -E does not apply to them.
	ere     bool
	atParse bool
}

type parser struct {
	chunks []chunk
	ci     int
	s      string
	pos    int
	line   int

	ere     bool
	nul     bool // -z: lines end with NUL
	quiet   bool // set by #n
	cmds    []*cmd
	blocks  []int
	blockAt []string // where each open { is, for "unmatched `{'"
	outputs map[string]*output
	openOut func(name string) (*output, error)
	openIn  func(name string) *rfile

	// text of an a, i or c command continued in the next chunk
	pendingText *cmd
	refused     bool // the script has e or s///e
	rfiles      map[string]*rfile
}

const eof = -1

func (p *parser) inchar() int {
	if p.pos >= len(p.s) {
		p.pos = len(p.s) + 1
		return eof
	}
	c := p.s[p.pos]
	p.pos++
	if c == '\n' {
		p.line++
	}
	return int(c)
}

func (p *parser) savchar(c int) {
	if c == eof {
		if p.pos > len(p.s) {
			p.pos = len(p.s)
		}
		return
	}
	p.pos--
	if c == '\n' && p.line > 1 {
		p.line--
	}
}

func isSpace(c int) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func (p *parser) inNonblank() int {
	for {
		c := p.inchar()
		if c != ' ' && c != '\t' {
			return c
		}
	}
}

func (p *parser) errf(format string, a ...any) *scriptError {
	return &scriptError{where: p.where(), msg: fmt.Sprintf(format, a...)}
}

func (p *parser) where() string {
	ch := p.chunks[p.ci]
	if ch.file != "" {
		return fmt.Sprintf("file %s line %d", ch.file, p.line)
	}
	pos := p.pos
	if pos > len(p.s) {
		pos = len(p.s)
	}
	return fmt.Sprintf("-e expression #%d, char %d", ch.index, pos)
}

// compile parses the chunks of a script into a program.
func (p *parser) compile() error {
	ere := p.ere
	for p.ci = 0; p.ci < len(p.chunks); p.ci++ {
		p.s, p.pos, p.line = p.chunks[p.ci].text, 0, 1
		p.ere = ere
		if p.chunks[p.ci].atParse {
			p.ere = p.chunks[p.ci].ere
		}
		if p.ci == 0 && strings.HasPrefix(p.s, "#n") {
			p.quiet = true
		}
		if p.pendingText != nil {
			c := p.pendingText
			p.pendingText = nil
			if err := p.readText(c, '\n', true); err != nil {
				return err
			}
		}
		if err := p.compileChunk(); err != nil {
			return err
		}
	}
	if p.pendingText != nil {
		p.pendingText.text = unescapeText(p.pendingText.text)
		p.pendingText = nil
	}
	if len(p.blocks) > 0 {
		return &scriptError{where: p.blockAt[len(p.blockAt)-1], msg: "unmatched `{'"}
	}
	if err := p.resolveLabels(); err != nil {
		return err
	}
	if p.refused {
		// Reported once the script has compiled, so that errors GNU finds
		// first (a missing label, an unmatched brace) come first here too.
		return &scriptError{msg: refusedExec}
	}
	return nil
}

func (p *parser) whereZero() string {
	ch := p.chunks[p.ci]
	if ch.file != "" {
		return fmt.Sprintf("file %s line %d", ch.file, p.line)
	}
	return fmt.Sprintf("-e expression #%d, char 0", ch.index)
}

func (p *parser) resolveLabels() error {
	labels := map[string]int{}
	for i, c := range p.cmds {
		if c.name == ':' {
			labels[c.label] = i // the last definition wins, as in GNU sed
		}
	}
	for _, c := range p.cmds {
		switch c.name {
		case 'b', 't', 'T':
			if c.label == "" {
				c.jump = len(p.cmds)
				continue
			}
			i, ok := labels[c.label]
			if !ok {
				return &ioError{msg: fmt.Sprintf("can't find label for jump to `%s'", c.label)}
			}
			c.jump = i
		}
	}
	return nil
}

func (p *parser) compileChunk() error {
	for {
		c := p.inchar()
		for c == ';' || isSpace(c) {
			c = p.inchar()
		}
		if c == eof {
			return nil
		}
		if c == '#' {
			for c != eof && c != '\n' {
				c = p.inchar()
			}
			continue
		}
		p.savchar(c)
		cm := &cmd{num: -1}
		a1, err := p.address(false)
		if err != nil {
			return err
		}
		if a1 != nil && (a1.kind == addrPlus || a1.kind == addrMult) {
			if a1.n != 0 {
				return p.errf("invalid usage of +N or ~N as first address")
			}
			// GNU reads +0 or ~0 as an address that matches every line.
			a1.kind = addrAlways
		}
		if a1 != nil {
			cm.a1 = a1
			c = p.inNonblank()
			if c == ',' {
				c = p.inNonblank()
				p.savchar(c)
				a2, err := p.address(true)
				if err != nil {
					return err
				}
				if a2 == nil {
					p.inchar()
					return p.errf("unexpected `,'")
				}
				cm.a2 = a2
			} else {
				p.savchar(c)
			}
			if a1.kind == addrZero && (cm.a2 == nil || cm.a2.kind != addrRegex) {
				c := p.inNonblank()
				if cm.a2 != nil || c != 'r' {
					return p.errf("invalid usage of line address 0")
				}
				p.savchar(c)
				cm.a1 = &address{kind: addrLine, n: 1}
				cm.prepend = true
			}
			if cm.a1.kind == addrZero {
				cm.state = rangeActive
			}
		}
		c = p.inNonblank()
		if c == '!' {
			cm.neg = true
			c = p.inNonblank()
			if c == '!' {
				return p.errf("multiple `!'s")
			}
		}
		if c == eof {
			return p.errf("missing command")
		}
		cm.name = byte(c)
		if err := p.command(cm); err != nil {
			return err
		}
		if p.pendingText != nil {
			return nil
		}
	}
}

func (p *parser) readNumber(first int) int {
	n := first - '0'
	for {
		c := p.inchar()
		if c < '0' || c > '9' {
			p.savchar(c)
			return n
		}
		if n < 1<<40 {
			n = n*10 + c - '0'
		}
	}
}

func (p *parser) address(second bool) (*address, error) {
	c := p.inchar()
	switch {
	case c == '/' || c == '\\':
		if c == '\\' {
			c = p.inchar()
			if c == eof || c == '\n' {
				return nil, p.errf("unterminated address regex")
			}
		}
		re, ok := p.matchSlash(byte(c), true)
		if !ok {
			return nil, p.errf("unterminated address regex")
		}
		var icase, mline bool
		for {
			f := p.inNonblank()
			if f == 'I' {
				icase = true
			} else if f == 'M' {
				mline = true
			} else {
				p.savchar(f)
				break
			}
		}
		a := &address{kind: addrRegex}
		if re == "" {
			if icase || mline {
				return nil, p.errf("cannot specify modifiers on empty regexp")
			}
			return a, nil
		}
		rx, err := compileRegex(re, p.ere, icase, mline, p.nul)
		if err != nil {
			return nil, p.regexErr(err)
		}
		a.rx = rx
		return a, nil
	case c >= '0' && c <= '9':
		n := p.readNumber(c)
		c2 := p.inNonblank()
		if c2 == '~' {
			d := p.inNonblank()
			step := 0
			if d >= '0' && d <= '9' {
				step = p.readNumber(d)
			} else {
				p.savchar(d)
			}
			if step > 0 {
				return &address{kind: addrStep, n: n, step: step}, nil
			}
		} else {
			p.savchar(c2)
		}
		if n == 0 && !second {
			return &address{kind: addrZero}, nil
		}
		return &address{kind: addrLine, n: n}, nil
	case c == '$':
		return &address{kind: addrLast}, nil
	case c == '+' || c == '~':
		d := p.inNonblank()
		n := 0
		if d >= '0' && d <= '9' {
			n = p.readNumber(d)
		} else {
			p.savchar(d)
		}
		if c == '+' {
			return &address{kind: addrPlus, n: n}, nil
		}
		return &address{kind: addrMult, n: n}, nil
	}
	p.savchar(c)
	return nil, nil
}

// matchSlash reads up to the unescaped delimiter, as GNU sed's match_slash:
// "\n" becomes a newline in a regex, "\<delim>" the delimiter, a backslash
// before a newline is dropped; other escapes are kept for the regex or
// replacement reader. In a regex, a delimiter inside a bracket expression
// does not end it.
func (p *parser) matchSlash(delim byte, isRegex bool) (string, bool) {
	var b strings.Builder
	for {
		c := p.inchar()
		if c == eof || c == '\n' {
			if c == '\n' {
				p.savchar(c)
			}
			return "", false
		}
		if c == int(delim) {
			return b.String(), true
		}
		if c == '\\' {
			c = p.inchar()
			if c == eof {
				return "", false
			}
			switch {
			case c == 'n' && isRegex:
				c = '\n'
			case c == '\n':
			case c == int(delim) && !(!isRegex && c == '&'):
			default:
				b.WriteByte('\\')
			}
			b.WriteByte(byte(c))
			continue
		}
		if c == '[' && isRegex {
			b.WriteByte('[')
			if !p.snarfBracket(&b) {
				return "", false
			}
			continue
		}
		b.WriteByte(byte(c))
	}
}

// snarfBracket copies a bracket expression up to its closing ] the way
// GNU's snarf_char_class does (a [: only ends at :], a newline or the end
// of the script leaves it unterminated).
func (p *parser) snarfBracket(b *strings.Builder) bool {
	c := p.inchar()
	if c == '^' {
		b.WriteByte('^')
		c = p.inchar()
	}
	if c == ']' {
		b.WriteByte(']')
		c = p.inchar()
	}
	state, delim := 0, 0
	for {
		switch c {
		case eof, '\n':
			if c == '\n' {
				p.savchar(c)
			}
			return false
		case '.', ':', '=':
			if state == 1 {
				delim, state = c, 2
				goto next
			} else if state == 2 && c == delim {
				state = 3
				goto next
			}
		case '[':
			if state == 0 {
				state = 1
			}
			goto next
		case ']':
			if state == 0 || state == 1 {
				b.WriteByte(']')
				return true
			} else if state == 3 {
				state = 0
			}
		}
		state &^= 1
	next:
		b.WriteByte(byte(c))
		c = p.inchar()
	}
}

func (p *parser) regexErr(err error) error {
	if errors.Is(err, gnuregex.ErrClassSyntax) {
		return &ioError{msg: err.Error()}
	}
	return p.errf("%s", err.Error())
}

func (p *parser) readEndOfCmd() error {
	c := p.inNonblank()
	if c == '}' || c == '#' {
		p.savchar(c)
		return nil
	}
	if c != eof && c != '\n' && c != ';' {
		return p.errf("extra characters after command")
	}
	return nil
}

func (p *parser) readLabel() string {
	c := p.inNonblank()
	var b strings.Builder
	for c != eof && c != '\n' && c != ' ' && c != '\t' && c != ';' && c != '}' && c != '#' {
		b.WriteByte(byte(c))
		c = p.inchar()
	}
	p.savchar(c)
	return b.String()
}

func (p *parser) readFilename() string {
	c := p.inNonblank()
	var b strings.Builder
	for c != eof && c != '\n' {
		b.WriteByte(byte(c))
		c = p.inchar()
	}
	return b.String()
}

func (p *parser) readInt() (int, bool) {
	c := p.inNonblank()
	if c < '0' || c > '9' {
		p.savchar(c)
		return 0, false
	}
	return p.readNumber(c), true
}

// Refused is the message for the commands that would run host programs.
const refusedExec = "the e command runs host programs and is not available in wsfs"

func (p *parser) command(cm *cmd) error {
	oneAddr := func() error {
		if cm.a2 != nil {
			return p.errf("command only uses one address")
		}
		return nil
	}
	switch cm.name {
	case '{':
		p.blocks = append(p.blocks, len(p.cmds))
		p.blockAt = append(p.blockAt, p.whereZero())
		p.cmds = append(p.cmds, cm)
		return nil
	case '}':
		if len(p.blocks) == 0 {
			return p.errf("unexpected `}'")
		}
		if cm.a1 != nil {
			return p.errf("`}' doesn't want any addresses")
		}
		open := p.blocks[len(p.blocks)-1]
		p.blocks = p.blocks[:len(p.blocks)-1]
		p.blockAt = p.blockAt[:len(p.blockAt)-1]
		p.cmds[open].jump = len(p.cmds) + 1
		p.cmds = append(p.cmds, cm)
		return p.readEndOfCmd()
	case ':':
		if cm.a1 != nil {
			return p.errf(": doesn't want any addresses")
		}
		cm.label = p.readLabel()
		if cm.label == "" {
			return p.errf("\":\" lacks a label")
		}
	case 'b', 't', 'T':
		cm.label = p.readLabel()
	case 'v':
		p.readLabel()
		return nil
	case '#':
		return p.errf("comments don't accept any addresses")
	case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		if err := p.readEndOfCmd(); err != nil {
			return err
		}
	case 'q', 'Q':
		if err := oneAddr(); err != nil {
			return err
		}
		cm.num = 0
		if n, ok := p.readInt(); ok {
			cm.num = n
		}
		if err := p.readEndOfCmd(); err != nil {
			return err
		}
	case 'l', 'L':
		if n, ok := p.readInt(); ok {
			cm.num = n
		}
		if err := p.readEndOfCmd(); err != nil {
			return err
		}
	case 'a', 'i', 'c':
		c := p.inNonblank()
		if c == eof {
			return p.errf("expected \\ after `a', `c' or `i'")
		}
		if c == '\\' {
			c = p.inchar()
			if c == eof {
				// "a\" at the end of an expression: the text follows in the next one.
				p.cmds = append(p.cmds, cm)
				p.pendingText = cm
				return nil
			}
		} else {
			p.savchar(c)
			c = '\n'
		}
		if err := p.readText(cm, c, false); err != nil {
			return err
		}
		if p.pendingText == cm {
			p.cmds = append(p.cmds, cm)
			return nil
		}
	case 'r', 'R', 'w', 'W':
		cm.fname = p.readFilename()
		if cm.fname == "" {
			return p.errf("missing filename in r/R/w/W commands")
		}
		if cm.name == 'R' {
			// GNU opens R files once, when the script compiles.
			if p.rfiles[cm.fname] == nil {
				p.rfiles[cm.fname] = p.openIn(cm.fname)
			}
			cm.rf = p.rfiles[cm.fname]
		}
		if cm.name == 'w' || cm.name == 'W' {
			o, err := p.output(cm.fname)
			if err != nil {
				return err
			}
			cm.out = o
		}
	case 's':
		if err := p.substitute(cm); err != nil {
			return err
		}
	case 'y':
		if err := p.translate(cm); err != nil {
			return err
		}
	case 'e':
		// Read like GNU (a command line to the end of the line, or none)
		// and refuse once the whole script has compiled.
		p.refused = true
		c := p.inNonblank()
		if c == eof || c == '\n' {
			return nil
		}
		if c == '\\' {
			c = p.inchar()
		} else {
			p.savchar(c)
			c = '\n'
		}
		return p.readText(&cmd{}, c, false)
	default:
		return p.errf("unknown command: `%s'", string([]byte{cm.name}))
	}
	p.cmds = append(p.cmds, cm)
	return nil
}

func (p *parser) output(name string) (*output, error) {
	if o, ok := p.outputs[name]; ok {
		return o, nil
	}
	o, err := p.openOut(name)
	if err != nil {
		return nil, err
	}
	p.outputs[name] = o
	return o, nil
}

// readText reads the text of a, i or c (GNU's read_text): up to an
// unescaped newline, keeping escapes for unescapeText. A backslash at the
// very end of the chunk continues the text in the next chunk.
func (p *parser) readText(cm *cmd, lead int, cont bool) error {
	buf := cm.text
	if !cont {
		buf = nil
	}
	if lead != '\n' {
		buf = append(buf, byte(lead))
	}
	c := p.inchar()
	for c != eof && c != '\n' {
		if c == '\\' {
			c = p.inchar()
			if c == eof {
				// The chunks of a script are joined by newlines, so the
				// escaped end of this one is an escaped newline.
				cm.text = append(buf, '\n')
				p.pendingText = cm
				return nil
			}
			buf = append(buf, '\\')
		}
		buf = append(buf, byte(c))
		c = p.inchar()
	}
	buf = append(buf, '\n')
	cm.text = unescapeText(buf)
	return nil
}

// unescapeText resolves the escapes of a, i and c text: \t and the other
// character escapes, and a backslash before any other character stands
// for that character.
func unescapeText(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if c, n, ok := escapeChar(string(b[i+1:])); ok {
			out = append(out, c)
			i += n
			continue
		}
		out = append(out, b[i+1])
		i++
	}
	return out
}

func (p *parser) substitute(cm *cmd) error {
	delim := p.inchar()
	if delim == eof || delim == '\n' {
		return p.errf("unterminated `s' command")
	}
	re, ok := p.matchSlash(byte(delim), true)
	if !ok {
		return p.errf("unterminated `s' command")
	}
	rep, ok := p.matchSlash(byte(delim), false)
	if !ok {
		return p.errf("unterminated `s' command")
	}
	s := &subst{nth: 1}
	numSet := false
flags:
	for {
		c := p.inchar()
		switch {
		case c == 'i' || c == 'I':
			s.icase = true
		case c == 'm' || c == 'M':
			s.mline = true
		case c == 'e':
			p.refused = true
		case c == 'p':
			if s.print > 0 {
				return p.errf("multiple `p' options to `s' command")
			}
			s.print++
		case c == 'g':
			if s.global {
				return p.errf("multiple `g' options to `s' command")
			}
			s.global = true
		case c >= '0' && c <= '9':
			if numSet {
				return p.errf("multiple number options to `s' command")
			}
			n := p.readNumber(c)
			if n == 0 {
				return p.errf("number option to `s' command may not be zero")
			}
			s.nth, numSet = n, true
		case c == 'w':
			name := p.readFilename()
			if name == "" {
				return p.errf("missing filename in r/R/w/W commands")
			}
			o, err := p.output(name)
			if err != nil {
				return err
			}
			s.out = o
			break flags
		case c == ' ' || c == '\t' || c == '\r':
		case c == '#' || c == '}':
			p.savchar(c)
			break flags
		case c == ';' || c == '\n' || c == eof:
			break flags
		default:
			return p.errf("unknown option to `s'")
		}
	}
	if re != "" {
		rx, err := compileRegex(re, p.ere, s.icase, s.mline, p.nul)
		if err != nil {
			return p.regexErr(err)
		}
		s.rx = rx
	} else if s.icase || s.mline {
		return p.errf("cannot specify modifiers on empty regexp")
	}
	parts, maxRef := parseReplacement(rep)
	s.repl, s.maxRef = parts, maxRef
	if s.rx != nil && maxRef > s.rx.ngroups {
		return p.errf("invalid reference \\%d on `s' command's RHS", maxRef)
	}
	cm.subst = s
	return nil
}

// parseReplacement splits the replacement of s into literal text, group
// references and case conversions.
func parseReplacement(r string) ([]replPart, int) {
	var parts []replPart
	var lit []byte
	maxRef := 0
	flush := func() {
		if len(lit) > 0 {
			parts = append(parts, replPart{kind: replLit, lit: lit})
			lit = nil
		}
	}
	for i := 0; i < len(r); i++ {
		c := r[i]
		if c == '&' {
			flush()
			parts = append(parts, replPart{kind: replGroup, n: 0})
			continue
		}
		if c != '\\' || i+1 >= len(r) {
			lit = append(lit, c)
			continue
		}
		i++
		c = r[i]
		switch {
		case c >= '0' && c <= '9':
			flush()
			n := int(c - '0')
			if n > maxRef {
				maxRef = n
			}
			parts = append(parts, replPart{kind: replGroup, n: n})
		case c == 'L' || c == 'U' || c == 'E' || c == 'l' || c == 'u':
			flush()
			parts = append(parts, replPart{kind: replCase, c: c})
		case c == '\n':
			lit = append(lit, '\n')
		default:
			if e, n, ok := escapeChar(r[i:]); ok {
				lit = append(lit, e)
				i += n - 1
				continue
			}
			lit = append(lit, c)
		}
	}
	flush()
	return parts, maxRef
}

func (p *parser) translate(cm *cmd) error {
	delim := p.inchar()
	if delim == eof || delim == '\n' {
		return p.errf("unterminated `y' command")
	}
	src, ok := p.matchSlash(byte(delim), false)
	if !ok {
		return p.errf("unterminated `y' command")
	}
	dst, ok := p.matchSlash(byte(delim), false)
	if !ok {
		return p.errf("unterminated `y' command")
	}
	decode := func(s string) ([]rune, bool) {
		var out []rune
		for i := 0; i < len(s); {
			if s[i] == '\\' && i+1 < len(s) {
				if s[i+1] == '\\' {
					out = append(out, '\\')
					i += 2
					continue
				}
				if c, n, ok := escapeChar(s[i+1:]); ok {
					out = append(out, rune(c))
					i += 1 + n
					continue
				}
				// Any other escaped character stands for itself.
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				r = rune(s[i]) | rawByte
			}
			out = append(out, r)
			i += size
		}
		return out, true
	}
	from, ok1 := decode(src)
	to, ok2 := decode(dst)
	if !ok1 || !ok2 {
		return p.errf("unknown option to `s'")
	}
	if len(from) != len(to) {
		return p.errf("strings for `y' command are different lengths")
	}
	if err := p.readEndOfCmd(); err != nil {
		return err
	}
	ascii := true
	for i := range from {
		if from[i] >= utf8.RuneSelf && from[i]&rawByte == 0 || to[i] >= utf8.RuneSelf && to[i]&rawByte == 0 {
			ascii = false
		}
	}
	if ascii {
		var tab [256]byte
		for i := range tab {
			tab[i] = byte(i)
		}
		for i := len(from) - 1; i >= 0; i-- {
			tab[byte(from[i])] = byte(to[i])
		}
		cm.ybytes = &tab
		return nil
	}
	cm.ymap = map[rune]rune{}
	for i := range from {
		if _, seen := cm.ymap[from[i]]; !seen {
			cm.ymap[from[i]] = to[i]
		}
	}
	return nil
}
