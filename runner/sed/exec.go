package sed

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/wsfs/wsfs/runner/command"
)

// output is one destination of text: standard output, a w file, or the
// temporary file of an in-place edit. It remembers whether the last line
// written lacked its newline, so the next write adds it first (as GNU
// sed's output_missing_newline).
type output struct {
	name    string
	w       *bufio.Writer
	file    command.File // nil for the standard streams
	missing bool
	err     error
	flush   bool // flush after every line (-u, /dev/stderr)
}

func (o *output) write(sep byte, parts ...[]byte) error {
	if o.err != nil {
		return o.err
	}
	if o.missing {
		if err := o.w.WriteByte(sep); err != nil {
			o.err = err
			return err
		}
		o.missing = false
	}
	for _, p := range parts {
		if _, err := o.w.Write(p); err != nil {
			o.err = err
			return err
		}
	}
	if o.flush {
		if err := o.w.Flush(); err != nil {
			o.err = err
			return err
		}
	}
	return nil
}

// line writes b and the line separator, or notes the separator as missing.
func (o *output) line(b []byte, sep byte, newline bool) error {
	if err := o.write(sep, b); err != nil {
		return err
	}
	if newline {
		if err := o.w.WriteByte(sep); err != nil {
			o.err = err
			return err
		}
	} else {
		o.missing = true
	}
	return nil
}

// ioError is a run-time failure that ends sed with status 4.
type ioError struct{ msg string }

func (e *ioError) Error() string { return e.msg }

func writeErr(o *output, err error) error {
	return &ioError{msg: fmt.Sprintf("couldn't write items to %s: %s", o.name, command.Strerror(err))}
}

type appendItem struct {
	text  []byte
	fname string // r: a file to copy
}

// machine runs a compiled script over the input.
type machine struct {
	ctx   context.Context
	done  <-chan struct{}
	env   *command.Env
	cmds  []*cmd
	opts  *options
	in    *input
	out   *output // current output (stdout, or the in-place temp file)
	std   *output
	stdin io.Reader

	ps, hold, sbuf []byte
	chomped        bool // the pattern space's last line had its separator
	holdChomped    bool // the same for the hold space (GNU swaps it with x)
	replaced       bool
	exit           int
	lastRx         *regex
	appends        []appendItem
	rfiles         map[string]*rfile
	steps          int
	stopped        bool
	stopFn         func() bool
}

func (m *machine) stop() bool {
	if m.done == nil {
		return false
	}
	select {
	case <-m.done:
		m.stopped = true
		return true
	default:
		return false
	}
}

// errNoPrevious is the empty regex with no regex used before it; GNU
// reports it when it runs, hence the odd location.
var errNoPrevious = &scriptError{where: "-e expression #1, char 0", msg: "no previous regular expression"}

// errQuit ends the script (q, Q).
var errQuit = errors.New("quit")

// run processes all input. It returns nil, errQuit or an error.
func (m *machine) run() error {
	for {
		m.steps++
		if m.steps&1023 == 0 && m.stop() {
			return m.ctx.Err()
		}
		ok, err := m.readPattern(false)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if err := m.cycle(); err != nil {
			return err
		}
	}
}

// cycle runs the script over the pattern space, restarting after D.
func (m *machine) cycle() error {
	for {
		restart, err := m.exec()
		if err != nil {
			if err == errQuit {
				return err
			}
			return err
		}
		if !restart {
			return nil
		}
	}
}

func (m *machine) readPattern(appendLine bool) (bool, error) {
	line, nl, ok, err := m.in.readLine()
	if err != nil {
		return false, err
	}
	if !ok {
		return false, nil
	}
	if appendLine {
		m.ps = append(m.ps, m.opts.sep)
		m.ps = append(m.ps, line...)
	} else {
		m.ps = append(m.ps[:0], line...)
	}
	m.chomped = nl
	m.replaced = false
	return true, nil
}

// endCycle prints the pattern space unless -n and flushes the append queue.
func (m *machine) endCycle(autoprint bool) error {
	if autoprint && !m.opts.quiet {
		if err := m.out.line(m.ps, m.opts.sep, m.chomped); err != nil {
			return writeErr(m.out, err)
		}
	}
	return m.flushAppends()
}

func (m *machine) flushAppends() error { return m.dumpAppends(false) }

// dumpAppends prints the append queue; like GNU's dump_append_queue it
// first ends an unterminated line, always for q (force) and otherwise
// only when the queue holds something.
func (m *machine) dumpAppends(force bool) error {
	if (force || len(m.appends) > 0) && m.out.missing {
		// GNU ends an unterminated last line before the queue, even when
		// the queue turns out to print nothing.
		if err := m.out.write(m.opts.sep); err != nil {
			return writeErr(m.out, err)
		}
	}
	for _, a := range m.appends {
		if a.fname == "" {
			if err := m.out.write(m.opts.sep, a.text); err != nil {
				return writeErr(m.out, err)
			}
			continue
		}
		data, ok := m.readWhole(a.fname)
		if !ok || len(data) == 0 {
			continue
		}
		if err := m.out.write(m.opts.sep, data); err != nil {
			return writeErr(m.out, err)
		}
	}
	m.appends = m.appends[:0]
	return nil
}

// readWhole reads a file for r; a file that cannot be read is ignored, as
// GNU sed does.
func (m *machine) readWhole(name string) ([]byte, bool) {
	if name == "/dev/stdin" || name == "-" {
		data, err := io.ReadAll(m.stdin)
		return data, err == nil
	}
	f, err := m.env.FS.Open(name)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, false
	}
	return data, true
}

func (m *machine) matchAddr(a *address) (bool, error) {
	switch a.kind {
	case addrLine:
		return m.in.lineNo == a.n, nil
	case addrLast:
		return m.in.isLast()
	case addrStep:
		if a.step <= 0 {
			return m.in.lineNo == a.n, nil
		}
		return m.in.lineNo >= a.n && (m.in.lineNo-a.n)%a.step == 0, nil
	case addrZero:
		return false, nil
	case addrAlways:
		return true, nil
	case addrRegex:
		rx := a.rx
		if rx == nil {
			rx = m.lastRx
			if rx == nil {
				return false, errNoPrevious
			}
		}
		m.lastRx = rx
		return rx.match(m.ctx, m.ps)
	}
	return false, nil
}

// selected reports whether c applies to the current line, updating its
// range state as GNU sed's match_address_p does: a line-number first
// address starts its range on any line at or past it (N may have skipped
// it) until the range has closed once, and a second address is only
// checked on the lines after the first one (except $ and first~step).
func (m *machine) selected(c *cmd) (bool, error) {
	if c.a1 == nil {
		return true, nil
	}
	l := m.in.lineNo
	if c.state != rangeActive {
		if c.a2 == nil {
			return m.matchAddr(c.a1)
		}
		switch c.a1.kind {
		case addrLine:
			if c.state == rangeClosed || l < c.a1.n {
				return false, nil
			}
		case addrZero:
			return false, nil // 0,/re/ starts active and never restarts
		default:
			ok, err := m.matchAddr(c.a1)
			if err != nil || !ok {
				return false, err
			}
		}
		c.state = rangeActive
		switch c.a2.kind {
		case addrRegex:
			return true, nil
		case addrLine:
			if l >= c.a2.n {
				c.state = rangeClosed
			}
			if l <= c.a2.n {
				return true, nil
			}
			return c.a1.kind != addrLine || l == c.a1.n, nil
		case addrPlus:
			if c.a2.n == 0 {
				c.state = rangeClosed
				return true, nil
			}
			c.rangeEnd = l + c.a2.n
			return true, nil
		case addrMult:
			if c.a2.n == 0 {
				c.state = rangeClosed
				return true, nil
			}
			c.rangeEnd = l + c.a2.n - l%c.a2.n
			return true, nil
		}
		// $ and first~step are checked on the first line too.
	}
	var end bool
	switch c.a2.kind {
	case addrLine:
		if l >= c.a2.n {
			c.state = rangeClosed
		}
		return l <= c.a2.n, nil
	case addrPlus, addrMult:
		end = c.rangeEnd <= l
	default:
		ok, err := m.matchAddr(c.a2)
		if err != nil {
			return false, err
		}
		end = ok
	}
	if end {
		c.state = rangeClosed
	}
	return true, nil
}

// resetForFile starts a new file with -s or -i: GNU clears the hold
// space, the range states and the R files' positions.
func (m *machine) resetForFile() {
	m.hold = m.hold[:0]
	for _, c := range m.cmds {
		c.state = rangeInactive
		if c.a1 != nil && c.a1.kind == addrZero {
			c.state = rangeActive
		}
	}
	for _, rf := range m.rfiles {
		if rf.f != nil {
			if _, err := rf.f.Seek(0, io.SeekStart); err == nil {
				rf.r.Reset(rf.f)
			}
		}
	}
}

// exec runs the script once; restart is true after D with a newline.
func (m *machine) exec() (restart bool, err error) {
	sep := m.opts.sep
	for pc := 0; pc < len(m.cmds); pc++ {
		m.steps++
		if m.steps&1023 == 0 && m.stop() {
			return false, m.ctx.Err()
		}
		c := m.cmds[pc]
		sel, err := m.selected(c)
		if err != nil {
			return false, err
		}
		if sel == c.neg {
			if c.name == '{' {
				pc = c.jump - 1
			}
			continue
		}
		switch c.name {
		case '{', '}', ':':
		case '=':
			if err := m.out.write(sep, strconv.AppendInt(nil, int64(m.in.lineNo), 10), []byte{sep}); err != nil {
				return false, writeErr(m.out, err)
			}
		case 'a':
			m.appends = append(m.appends, appendItem{text: c.text})
		case 'i':
			if err := m.writeText(c.text); err != nil {
				return false, err
			}
		case 'c':
			if c.state != rangeActive {
				if err := m.writeText(c.text); err != nil {
					return false, err
				}
			}
			return false, m.endCycle(false)
		case 'b':
			pc = c.jump - 1
		case 't':
			if m.replaced {
				m.replaced = false
				pc = c.jump - 1
			}
		case 'T':
			if !m.replaced {
				pc = c.jump - 1
			} else {
				m.replaced = false
			}
		case 'd':
			return false, m.endCycle(false)
		case 'D':
			i := indexByte(m.ps, sep)
			if i < 0 {
				return false, m.endCycle(false)
			}
			m.ps = append(m.ps[:0], m.ps[i+1:]...)
			return true, nil
		case 'e':
			return false, &scriptError{msg: refusedExec}
		case 'F':
			name := m.in.lineName
			if err := m.out.write(sep, []byte(name), []byte{sep}); err != nil {
				return false, writeErr(m.out, err)
			}
		case 'g':
			m.ps = append(m.ps[:0], m.hold...)
			m.chomped = m.holdChomped
		case 'G':
			m.ps = append(m.ps, sep)
			m.ps = append(m.ps, m.hold...)
			m.chomped = m.holdChomped
		case 'h':
			m.hold = append(m.hold[:0], m.ps...)
			m.holdChomped = m.chomped
		case 'H':
			m.hold = append(m.hold, sep)
			m.hold = append(m.hold, m.ps...)
			m.holdChomped = m.chomped
		case 'x':
			m.ps, m.hold = m.hold, m.ps
			m.chomped, m.holdChomped = m.holdChomped, m.chomped
		case 'l':
			width := m.opts.lineLen
			if c.num >= 0 {
				width = c.num
			}
			if err := m.out.write(sep, listLine(m.ps, width, sep)); err != nil {
				return false, writeErr(m.out, err)
			}
		case 'n':
			last, err := m.in.isLast()
			if err != nil {
				return false, err
			}
			if last {
				// GNU ends the cycle here; with -s or -i the next file
				// then starts a new one.
				return false, m.endCycle(true)
			}
			if !m.opts.quiet {
				if err := m.out.line(m.ps, sep, m.chomped); err != nil {
					return false, writeErr(m.out, err)
				}
			}
			if err := m.flushAppends(); err != nil {
				return false, err
			}
			if _, err := m.readPattern(false); err != nil {
				return false, err
			}
		case 'N':
			last, err := m.in.isLast()
			if err != nil {
				return false, err
			}
			if last {
				return false, m.endCycle(!m.opts.posix)
			}
			if err := m.flushAppends(); err != nil {
				return false, err
			}
			if _, err := m.readPattern(true); err != nil {
				return false, err
			}
		case 'p':
			if err := m.out.line(m.ps, sep, m.chomped); err != nil {
				return false, writeErr(m.out, err)
			}
		case 'P':
			line, nl := firstLine(m.ps, sep, m.chomped)
			if err := m.out.line(line, sep, nl); err != nil {
				return false, writeErr(m.out, err)
			}
		case 'q':
			m.exit = c.num
			if !m.opts.quiet {
				if err := m.out.line(m.ps, sep, m.chomped); err != nil {
					return false, writeErr(m.out, err)
				}
			}
			if err := m.dumpAppends(true); err != nil {
				return false, err
			}
			return false, errQuit
		case 'Q':
			m.exit = c.num
			return false, errQuit
		case 'r':
			if c.prepend {
				if data, ok := m.readWhole(c.fname); ok && len(data) > 0 {
					if err := m.out.write(sep, data); err != nil {
						return false, writeErr(m.out, err)
					}
				}
				continue
			}
			m.appends = append(m.appends, appendItem{fname: c.fname})
		case 'R':
			if c.rf.r != nil {
				if line, err := c.rf.r.ReadBytes(sep); len(line) > 0 && (err == nil || err == io.EOF) {
					m.appends = append(m.appends, appendItem{text: line})
				}
			}
		case 's':
			if err := m.substitute(c.subst); err != nil {
				return false, err
			}
		case 'w':
			if err := c.out.line(m.ps, sep, m.chomped); err != nil {
				return false, writeErr(c.out, err)
			}
		case 'W':
			line, nl := firstLine(m.ps, sep, m.chomped)
			if err := c.out.line(line, sep, nl); err != nil {
				return false, writeErr(c.out, err)
			}
		case 'y':
			m.translate(c)
		case 'z':
			m.ps = m.ps[:0]
		}
	}
	return false, m.endCycle(true)
}

// writeText prints the text of i or c: its last newline is the line
// separator (a NUL with -z), as in GNU's output_line.
func (m *machine) writeText(text []byte) error {
	if len(text) == 0 {
		return nil
	}
	if err := m.out.line(text[:len(text)-1], m.opts.sep, true); err != nil {
		return writeErr(m.out, err)
	}
	return nil
}

// firstLine is the pattern space up to its first separator, and whether
// a separator follows it when printed.
func firstLine(b []byte, sep byte, chomped bool) ([]byte, bool) {
	if i := indexByte(b, sep); i >= 0 {
		return b[:i], true
	}
	return b, chomped
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// rawByte marks a y command character that is a byte of invalid UTF-8:
// it stands for that byte only.
const rawByte = 0x40000000

func (m *machine) translate(c *cmd) {
	if c.ybytes != nil {
		for i, b := range m.ps {
			m.ps[i] = c.ybytes[b]
		}
		return
	}
	out := m.sbuf[:0]
	for i := 0; i < len(m.ps); {
		r, size := utf8.DecodeRune(m.ps[i:])
		key := r
		if r == utf8.RuneError && size == 1 {
			key = rune(m.ps[i]) | rawByte
		}
		if to, ok := c.ymap[key]; ok {
			if to&rawByte != 0 {
				out = append(out, byte(to))
			} else {
				out = utf8.AppendRune(out, to)
			}
		} else {
			out = append(out, m.ps[i:i+size]...)
		}
		i += size
	}
	m.sbuf = m.ps
	m.ps = out
}

func (m *machine) substitute(s *subst) error {
	rx := s.rx
	if rx == nil {
		rx = m.lastRx
		if rx == nil {
			return errNoPrevious
		}
		if s.maxRef > rx.ngroups {
			return &scriptError{msg: fmt.Sprintf("invalid reference \\%d on `s' command's RHS", s.maxRef)}
		}
	}
	m.lastRx = rx
	limit := s.nth
	if s.global {
		limit = -1
	}
	ps := m.ps
	out := m.sbuf[:0]
	last, count := 0, 0
	err := rx.eachMatch(m.ctx, ps, limit, func(caps []int) bool {
		if count++; count >= s.nth {
			out = append(out, ps[last:caps[0]]...)
			out = appendReplacement(out, s.repl, ps, caps)
			last = caps[1]
		}
		return true
	})
	if err != nil {
		return err
	}
	if count < s.nth {
		return nil
	}
	out = append(out, ps[last:]...)
	m.sbuf = ps
	m.ps = out
	m.replaced = true
	sep := m.opts.sep
	if s.print > 0 {
		if err := m.out.line(m.ps, sep, m.chomped); err != nil {
			return writeErr(m.out, err)
		}
	}
	if s.out != nil {
		if err := s.out.line(m.ps, sep, m.chomped); err != nil {
			return writeErr(s.out, err)
		}
	}
	return nil
}

// appendReplacement expands the replacement for one match.
func appendReplacement(out []byte, parts []replPart, src []byte, caps []int) []byte {
	var mode, once byte // U or L; u or l
	for _, p := range parts {
		var piece []byte
		switch p.kind {
		case replCase:
			switch p.c {
			case 'U', 'L':
				mode, once = p.c, 0
			case 'E':
				mode, once = 0, 0
			default:
				once = p.c
			}
			continue
		case replLit:
			piece = p.lit
		case replGroup:
			if 2*p.n+1 >= len(caps) || caps[2*p.n] < 0 {
				continue
			}
			piece = src[caps[2*p.n]:caps[2*p.n+1]]
		}
		if mode == 0 && once == 0 {
			out = append(out, piece...)
			continue
		}
		if len(piece) == 0 {
			continue
		}
		if once != 0 {
			r, size := utf8.DecodeRune(piece)
			if once == 'u' {
				r = unicode.ToUpper(r)
			} else {
				r = unicode.ToLower(r)
			}
			if r == utf8.RuneError && size == 1 {
				out = append(out, piece[0])
			} else {
				out = utf8.AppendRune(out, r)
			}
			piece = piece[size:]
			once = 0
		}
		out = appendCase(out, piece, mode)
	}
	return out
}

func appendCase(out, piece []byte, mode byte) []byte {
	if mode == 0 {
		return append(out, piece...)
	}
	for len(piece) > 0 {
		r, size := utf8.DecodeRune(piece)
		if r == utf8.RuneError && size == 1 {
			out = append(out, piece[0])
		} else if mode == 'U' {
			out = utf8.AppendRune(out, unicode.ToUpper(r))
		} else {
			out = utf8.AppendRune(out, unicode.ToLower(r))
		}
		piece = piece[size:]
	}
	return out
}

// listLine renders the pattern space as the l command does: C escapes,
// octal for other unprintable bytes, lines folded at width-1 characters
// plus a backslash (no folding when width is 0 or 1… GNU folds at 1 too,
// one character per line), and a final $.
func listLine(b []byte, width int, sep byte) []byte {
	out := make([]byte, 0, len(b)+8)
	col := 0
	var esc [4]byte
	for _, c := range b {
		e := esc[:0]
		switch c {
		case '\\':
			e = append(e, '\\', '\\')
		case '\a':
			e = append(e, '\\', 'a')
		case '\b':
			e = append(e, '\\', 'b')
		case '\f':
			e = append(e, '\\', 'f')
		case '\n':
			e = append(e, '\\', 'n')
		case '\r':
			e = append(e, '\\', 'r')
		case '\t':
			e = append(e, '\\', 't')
		case '\v':
			e = append(e, '\\', 'v')
		default:
			if c < ' ' || c >= 127 {
				e = append(e, '\\', '0'+c>>6, '0'+(c>>3)&7, '0'+c&7)
			} else {
				e = append(e, c)
			}
		}
		if width > 0 && col+len(e) > width-1 {
			out = append(out, '\\', sep)
			col = 0
		}
		out = append(out, e...)
		col += len(e)
	}
	return append(out, '$', sep)
}
