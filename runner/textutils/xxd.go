package textutils

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"syscall"

	"golang.org/x/text/encoding/charmap"

	"github.com/wsfs/wsfs/runner/command"
)

// xxd's dump styles.
const (
	xxdNormal = iota
	xxdPlain
	xxdInclude
	xxdBits
	xxdLittle
)

// xxdOption is one of xxd's options. xxd matches an argument by its first
// two characters ("-ps" is -p, "-cols 8" is -c 8) and takes an option's
// value attached ("-c8") or as the next argument; a long form ("--cols")
// is the short one with its leading dash doubled.
type xxdOption struct {
	letter byte
	arg    string // the value's name for help; "" when the option takes none
	// word is the rest of the option's long name ("ols" for -cols): the
	// value of "-cols" is the next argument, not "ols".
	word string
}

var xxdOptions = []xxdOption{
	{letter: 'a'}, {letter: 'b'}, {letter: 'C'}, {letter: 'c', arg: "cols", word: "ols"},
	{letter: 'd'}, {letter: 'E'}, {letter: 'e'}, {letter: 'g', arg: "bytes", word: "roup"},
	{letter: 'h'}, {letter: 'i'}, {letter: 'l', arg: "len", word: "en"}, {letter: 'n', arg: "name", word: "ame"},
	{letter: 'o', arg: "off", word: "ffset"}, {letter: 'p'}, {letter: 'r'}, {letter: 's', arg: "[+][-]seek", word: "eek"},
	{letter: 'u'}, {letter: 'v'},
}

// xxdFlags lists xxd's options for the command table.
func xxdFlags() []string {
	var out []string
	for _, o := range xxdOptions {
		f := "-" + string(o.letter)
		if o.arg != "" {
			f += " " + strings.ToUpper(o.arg)
		}
		out = append(out, f)
	}
	return out
}

const xxdUsage = `Usage:
       %[1]s [options] [infile [outfile]]
    or
       %[1]s -r [-s [-]offset] [-c cols] [-ps] [infile [outfile]]
Options:
    -a          toggle autoskip: A single '*' replaces nul-lines. Default off.
    -b          binary digit dump (incompatible with -ps,-i,-r). Default hex.
    -C          capitalize variable names in C include file style (-i).
    -c cols     format <cols> octets per line. Default 16 (-i: 12, -ps: 30).
    -E          show characters in EBCDIC. Default ASCII.
    -e          little-endian dump (incompatible with -ps,-i,-r).
    -g bytes    number of octets per group in normal output. Default 2 (-e: 4).
    -h          print this summary.
    -i          output in C include file style.
    -l len      stop after <len> octets.
    -n name     set the variable name used in C include output (-i).
    -o off      add <off> to the displayed file position.
    -ps         output in postscript plain hexdump style.
    -r          reverse operation: convert (or patch) hexdump into binary.
    -r -s off   revert with <off> added to file positions found in hexdump.
    -d          show offset in decimal instead of hex.
    -s [+][-]seek  start at <seek> bytes abs. (or +: rel.) infile offset.
    -u          use upper case hex letters.
    -v          show version: "xxd 2022-01-14 by Juergen Weigert et al.".
`

// xxdJob is one xxd run's settings.
type xxdJob struct {
	style      int
	cols       int
	group      int // octets per group; -1 until set
	length     int64
	seek       int64
	relSeek    bool
	negSeek    bool
	displayOff uint64
	decimal    bool
	upper      bool
	autoskip   bool
	capitalize bool
	ebcdic     bool
	revert     bool
	varName    *string
}

// Xxd implements xxd as vim 9.0's (xxd 2022-01-14): hex dumps in its
// normal, little-endian (-e), bits (-b), plain (-p) and C include (-i)
// styles, and back (-r, -r -p), which patches an output file in place.
// Exit 1 for usage errors, 2 when the input cannot be read, 3 when the
// output cannot be written, 4 when -s cannot seek.
func Xxd(ctx context.Context, env *command.Env) int {
	j := xxdJob{group: -1, length: -1}
	args := env.Args[1:]
	usage := func() int {
		fmt.Fprintf(env.Stderr, xxdUsage, env.Name())
		return 1
	}
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			args = args[1:]
			break
		}
		pp := a
		if strings.HasPrefix(a, "--") && len(a) > 2 {
			pp = a[1:]
		}
		if len(pp) < 2 || pp[0] != '-' {
			break
		}
		var opt *xxdOption
		for i := range xxdOptions {
			if xxdOptions[i].letter == pp[1] {
				opt = &xxdOptions[i]
			}
		}
		if opt == nil {
			return usage()
		}
		var val string
		if opt.arg != "" {
			rest := pp[2:]
			switch {
			case opt.letter == 'c' && strings.HasPrefix(rest, "apitalize"):
				j.capitalize = true
				args = args[1:]
				continue
			case rest != "" && !strings.HasPrefix(rest, opt.word) && !(opt.letter == 's' && strings.HasPrefix(rest, "kip")):
				val = rest
			default:
				if len(args) < 2 {
					return usage()
				}
				val = args[1]
				args = args[1:]
			}
		}
		args = args[1:]
		switch opt.letter {
		case 'a':
			j.autoskip = !j.autoskip
		case 'b':
			j.style = xxdBits
		case 'e':
			j.style = xxdLittle
		case 'u':
			j.upper = true
		case 'p':
			j.style = xxdPlain
		case 'i':
			j.style = xxdInclude
		case 'C':
			j.capitalize = true
		case 'd':
			j.decimal = true
		case 'r':
			j.revert = true
		case 'E':
			j.ebcdic = true
		case 'v':
			fmt.Fprintln(env.Stderr, "xxd 2022-01-14 by Juergen Weigert et al.")
			return 0
		case 'h':
			return usage()
		case 'c':
			j.cols = int(cStrtol(val))
		case 'g':
			j.group = int(cStrtol(val))
		case 'o':
			j.displayOff = uint64(cStrtol(val))
		case 'l':
			j.length = cStrtol(val)
		case 'n':
			name := val
			j.varName = &name
		case 's':
			j.relSeek, j.negSeek = false, false
			if strings.HasPrefix(val, "+") {
				j.relSeek, val = true, val[1:]
			}
			if strings.HasPrefix(val, "-") {
				j.negSeek, val = true, val[1:]
			}
			j.seek = cStrtol(val)
		}
	}
	if j.cols == 0 {
		switch j.style {
		case xxdPlain:
			j.cols = 30
		case xxdInclude:
			j.cols = 12
		case xxdBits:
			j.cols = 6
		default:
			j.cols = 16
		}
	}
	if j.group < 0 {
		switch j.style {
		case xxdBits:
			j.group = 1
		case xxdNormal:
			j.group = 2
		case xxdLittle:
			j.group = 4
		default:
			j.group = 0
		}
	}
	if (j.style == xxdPlain && j.cols < 0) || (j.style != xxdPlain && (j.cols < 1 || j.cols > 256)) {
		env.Errorf("invalid number of columns (max. 256).")
		return 1
	}
	if j.group < 1 || j.group > j.cols {
		j.group = j.cols
	} else if j.style == xxdLittle && j.group&(j.group-1) != 0 {
		env.Errorf("number of octets per group must be a power of 2 with -e.")
		return 1
	}
	if len(args) > 2 {
		return usage()
	}

	// The input, then the output: an output file is created, and truncated
	// unless reverting (which patches it).
	var in io.Reader = env.Stdin
	inName := ""
	if len(args) > 0 && args[0] != "-" {
		inName = args[0]
		f, err := env.FS.Open(inName)
		if err == nil {
			var fi fs.FileInfo
			if fi, err = f.Stat(); err == nil && fi.IsDir() {
				// xxd opens a folder and fails at its first read, so the
				// message names no file.
				f.Close()
				env.Errorf("%s", command.Strerror(syscall.EISDIR))
				return 2
			}
			if err != nil {
				f.Close()
			}
		}
		if err != nil {
			env.Errorf("%s: %s", inName, command.Strerror(err))
			return 2
		}
		defer f.Close()
		in = f
	}
	var out io.Writer = env.Stdout
	var outFile command.File
	if len(args) > 1 && args[1] != "-" {
		flag := syscall.O_WRONLY | syscall.O_CREAT
		if !j.revert {
			flag |= syscall.O_TRUNC
		}
		f, err := env.FS.OpenFile(args[1], flag, 0o666)
		if err != nil {
			env.Errorf("%s: %s", args[1], command.Strerror(err))
			return 3
		}
		defer f.Close()
		out, outFile = f, f
	}
	x := &xxdRun{ctx: ctx, env: env, j: &j, inName: inName}
	x.out = bufio.NewWriterSize(&stickyWriter{w: out}, 64<<10)
	if j.revert {
		if j.style != xxdNormal && j.style != xxdPlain {
			env.Errorf("Sorry, cannot revert this type of hexdump")
			return 255
		}
		base := j.seek
		if j.negSeek {
			base = -base
		}
		return x.revert(in, outFile, base)
	}
	x.in = bufio.NewReaderSize(in, 64<<10)
	if j.seek != 0 || j.negSeek || !j.relSeek {
		if st := x.seekInput(in); st != 0 {
			return st
		}
	}
	return x.dump()
}

// cStrtol reads a number as C's strtol with base 0 does: leading blanks,
// a sign, 0x hexadecimal or 0 octal, and whatever follows ignored; 0 when
// there is no number.
func cStrtol(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	base := 10
	if len(s) > 1 && s[0] == '0' {
		if (s[1] == 'x' || s[1] == 'X') && len(s) > 2 && digitValue(s[2]) < 16 {
			base, s = 16, s[2:]
		} else {
			base = 8
		}
	}
	var v int64
	for i := 0; i < len(s) && digitValue(s[i]) < base; i++ {
		d := int64(digitValue(s[i]))
		if v > (1<<63-1-d)/int64(base) {
			v = 1<<63 - 1
			continue
		}
		v = v*int64(base) + d
	}
	if neg {
		return -v
	}
	return v
}

// xxdRun is one xxd run in progress.
type xxdRun struct {
	ctx    context.Context
	env    *command.Env
	j      *xxdJob
	inName string
	in     *bufio.Reader
	out    *bufio.Writer
	steps  int
	// autoskip's state (xxdline's): how many all-zero lines in a row were
	// seen, and the first of them.
	zeroSeen  int
	firstZero []byte
}

var errXxdStop = errors.New("xxd: stopped")

// readByte returns the next input byte, or -1 at the end.
func (x *xxdRun) readByte() (int, error) {
	x.steps++
	if x.steps&4095 == 0 && x.ctx.Err() != nil {
		return -1, errXxdStop
	}
	c, err := x.in.ReadByte()
	if err == io.EOF {
		return -1, nil
	}
	if err != nil {
		return -1, err
	}
	return int(c), nil
}

// seekInput applies -s: a seek on a seekable file, else bytes read and
// dropped. It returns a non-zero status on failure.
func (x *xxdRun) seekInput(in io.Reader) int {
	j := x.j
	off := j.seek
	if j.negSeek {
		off = -off
	}
	if s, ok := in.(io.Seeker); ok && isRegularFile(in) {
		whence := io.SeekStart
		switch {
		case j.relSeek:
			whence = io.SeekCurrent
		case j.negSeek:
			whence = io.SeekEnd
		}
		if pos, err := s.Seek(off, whence); err == nil {
			j.seek = pos
			x.in.Reset(in)
			return 0
		}
	}
	if j.negSeek {
		x.env.Errorf("Sorry, cannot seek.")
		return 4
	}
	for n := j.seek; n > 0; n-- {
		c, err := x.readByte()
		if err != nil {
			return x.readFailed(err)
		}
		if c < 0 {
			x.env.Errorf("Sorry, cannot seek.")
			return 4
		}
	}
	return 0
}

// isRegularFile reports whether r is an open regular file.
func isRegularFile(r io.Reader) bool {
	st, ok := r.(interface{ Stat() (fs.FileInfo, error) })
	if !ok {
		return false
	}
	fi, err := st.Stat()
	return err == nil && fi.Mode().IsRegular()
}

func (x *xxdRun) readFailed(err error) int {
	if errors.Is(err, errXxdStop) {
		return 1
	}
	x.env.Errorf("%s", command.Strerror(err))
	return 2
}

// finish flushes the output: a write error is status 3.
func (x *xxdRun) finish() int {
	if err := x.out.Flush(); err != nil {
		if x.ctx.Err() == nil {
			x.env.Errorf("%s", command.Strerror(err))
		}
		return 3
	}
	if x.ctx.Err() != nil {
		return 1
	}
	return 0
}

func (x *xxdRun) hexDigits() string {
	if x.j.upper {
		return "0123456789ABCDEF"
	}
	return "0123456789abcdef"
}

func (x *xxdRun) dump() int {
	j := x.j
	hexx := x.hexDigits()
	var n int64
	switch j.style {
	case xxdInclude:
		name := x.inName
		if j.varName != nil {
			name = *j.varName
		}
		if name != "" {
			fmt.Fprintf(x.out, "unsigned char %s%s[] = {\n", xxdNamePrefix(name), xxdCName(name, j.capitalize))
		}
		for j.length < 0 || n < j.length {
			c, err := x.readByte()
			if err != nil {
				return x.readFailed(err)
			}
			if c < 0 {
				break
			}
			sep := ", "
			if n%int64(j.cols) == 0 {
				sep = ",\n  "
				if n == 0 {
					sep = "  "
				}
			}
			x.out.WriteString(sep)
			x.out.WriteString("0")
			if j.upper {
				x.out.WriteByte('X')
			} else {
				x.out.WriteByte('x')
			}
			x.out.WriteByte(hexx[c>>4])
			x.out.WriteByte(hexx[c&15])
			n++
		}
		if n > 0 {
			x.out.WriteString("\n")
		}
		if name != "" {
			lenName := "len"
			if j.capitalize {
				lenName = "LEN"
			}
			fmt.Fprintf(x.out, "};\nunsigned int %s%s_%s = %d;\n", xxdNamePrefix(name), xxdCName(name, j.capitalize), lenName, n)
		}
		return x.finish()
	case xxdPlain:
		p := j.cols
		for j.length < 0 || n < j.length {
			c, err := x.readByte()
			if err != nil {
				return x.readFailed(err)
			}
			if c < 0 {
				break
			}
			x.out.WriteByte(hexx[c>>4])
			x.out.WriteByte(hexx[c&15])
			n++
			if j.cols > 0 {
				if p--; p == 0 {
					x.out.WriteByte('\n')
					p = j.cols
				}
			}
		}
		if j.cols == 0 || p < j.cols {
			x.out.WriteByte('\n')
		}
		return x.finish()
	}

	grplen := 2*j.group + 1
	if j.style == xxdBits {
		grplen = 8*j.group + 1
	}
	asciiAt := 3 + (grplen*j.cols-1)/j.group
	line := make([]byte, 0, 16+asciiAt+j.cols+2)
	var p, addrlen, end int
	var last []byte // the last full line, which -a prints at the end of a run of zeros
	nonzero := false
	for j.length < 0 || n < j.length {
		c, err := x.readByte()
		if err != nil {
			return x.readFailed(err)
		}
		if c < 0 {
			break
		}
		if p == 0 {
			off := uint64(n+j.seek) + j.displayOff
			var addr string
			if j.decimal {
				addr = fmt.Sprintf("%08d:", int64(off))
			} else {
				addr = fmt.Sprintf("%08x:", off)
			}
			addrlen = len(addr)
			line = append(line[:0], addr...)
			for len(line) < addrlen+asciiAt+j.cols+1 {
				line = append(line, ' ')
			}
		}
		pos := p
		if j.style == xxdLittle {
			pos = p ^ (j.group - 1)
		}
		at := addrlen + 1 + (grplen*pos)/j.group
		if j.style == xxdBits {
			for i := 7; i >= 0; i-- {
				line[at] = '0' + byte(c>>i&1)
				at++
			}
		} else {
			line[at] = hexx[c>>4]
			line[at+1] = hexx[c&15]
		}
		if c != 0 {
			nonzero = true
		}
		ch := byte(c)
		if j.ebcdic {
			ch = ebcdicChar(byte(c))
		}
		end = addrlen + asciiAt + p
		if ch > 31 && ch < 127 {
			line[end] = ch
		} else {
			line[end] = '.'
		}
		end++
		n++
		if p++; p == j.cols {
			line[end] = '\n'
			last = line[:end+1]
			x.line(last, !j.autoskip || nonzero, false)
			nonzero = false
			p = 0
		}
	}
	if p > 0 {
		line[end] = '\n'
		x.line(line[:end+1], true, false)
	} else if j.autoskip {
		x.line(last, false, true)
	}
	return x.finish()
}

// line prints one line of a normal dump, folding runs of all-zero lines
// into "*" under -a as xxd's xxdline does: the first zero line is printed,
// the second kept, a "*" stands for the third and later ones, and the
// last of a run is printed before the next non-zero line. flush is the
// end of the input (the last line of a run is printed then too).
func (x *xxdRun) line(l []byte, nonzero, flush bool) {
	if !nonzero && !flush && x.zeroSeen == 1 {
		x.firstZero = append(x.firstZero[:0], l...)
	}
	if !nonzero && !flush {
		x.zeroSeen++
		if x.zeroSeen > 1 {
			return
		}
		x.out.Write(l)
		return
	}
	if flush {
		x.zeroSeen--
	}
	if x.zeroSeen == 2 {
		x.out.Write(x.firstZero)
	}
	if x.zeroSeen > 2 {
		x.out.WriteString("*\n")
	}
	if !flush || x.zeroSeen > 0 {
		x.out.Write(l)
	}
	x.zeroSeen = 0
}

// xxdNamePrefix is "__" for a variable name that starts with a digit.
func xxdNamePrefix(name string) string {
	if name != "" && name[0] >= '0' && name[0] <= '9' {
		return "__"
	}
	return ""
}

// xxdCName turns a file name into a C identifier as xxd -i does.
func xxdCName(name string, capitalize bool) string {
	b := []byte(name)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			if capitalize {
				b[i] = c - 32
			}
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		default:
			b[i] = '_'
		}
	}
	return string(b)
}

// ebcdicChar is the character xxd -E shows for an EBCDIC byte: code page
// 037's when it is printable ASCII, '.' otherwise, except where xxd's own
// table departs from code page 037 (ebcdicQuirks).
func ebcdicChar(c byte) byte {
	if c < 64 {
		return '.'
	}
	if q, ok := ebcdicQuirks[c]; ok {
		return q
	}
	r := charmap.CodePage037.DecodeByte(c)
	if r > 31 && r < 127 {
		return byte(r)
	}
	return '.'
}

// ebcdicQuirks are the bytes xxd's EBCDIC table maps otherwise than code
// page 037 ('.' where 037 has a character xxd does not show).
var ebcdicQuirks = map[byte]byte{
	0x5f: '~', 0x9a: '^', 0xa1: '.', 0xad: '[', 0xb0: '.', 0xba: '.', 0xbb: '.', 0xbd: ']',
}

// revert turns a hex dump back into bytes, as xxd's huntype: a normal
// dump's offsets place each line (a forward seek on a seekable output,
// zeros otherwise; never backwards), and the text after cols bytes of a
// line is ignored; a plain dump (-p) is a stream of hex digits.
func (x *xxdRun) revert(in io.Reader, outFile command.File, base int64) int {
	j := x.j
	rd := bufio.NewReaderSize(in, 64<<10)
	plain := j.style == xxdPlain
	cols := j.cols
	p := cols
	n1, n2, n3 := -1, 0, 0
	ignoreGarbage := true
	var have, want int64
	readFailed := func(err error) int {
		x.in = nil
		return x.readFailed(err)
	}
	skipToEOL := func() (byte, bool, error) {
		for {
			c, err := rd.ReadByte()
			if err == io.EOF {
				return 0, true, nil
			}
			if err != nil {
				return 0, false, err
			}
			if c == '\n' {
				return c, false, nil
			}
		}
	}
	for {
		x.steps++
		if x.steps&4095 == 0 && x.ctx.Err() != nil {
			return 1
		}
		c, err := rd.ReadByte()
		if err == io.EOF {
			break
		}
		if err != nil {
			return readFailed(err)
		}
		if c == '\r' {
			continue
		}
		if plain && (c == ' ' || c == '\n' || c == '\t') {
			continue
		}
		n3, n2 = n2, n1
		n1 = hexValue(c)
		if n1 == -1 && ignoreGarbage {
			continue
		}
		ignoreGarbage = false
		if !plain && p >= cols {
			if n1 < 0 {
				p = 0
				continue
			}
			want = want<<4 | int64(n1)
			continue
		}
		if base+want != have {
			if err := x.out.Flush(); err != nil {
				return x.finish()
			}
			if outFile != nil {
				if _, err := outFile.Seek(base+want-have, io.SeekCurrent); err == nil {
					have = base + want
				}
			}
			if base+want < have {
				x.env.Errorf("Sorry, cannot seek backwards.")
				return 5
			}
			for ; have < base+want; have++ {
				if have&0xffff == 0 && x.ctx.Err() != nil {
					return x.finish()
				}
				if err := x.out.WriteByte(0); err != nil {
					return x.finish()
				}
			}
		}
		eof := false
		if n2 >= 0 && n1 >= 0 {
			x.out.WriteByte(byte(n2<<4 | n1))
			have++
			want++
			n1 = -1
			if !plain {
				if p++; p >= cols {
					if c, eof, err = skipToEOL(); err != nil {
						return readFailed(err)
					}
				}
			}
		} else if n1 < 0 && n2 < 0 && n3 < 0 {
			if c, eof, err = skipToEOL(); err != nil {
				return readFailed(err)
			}
		}
		if c == '\n' && !eof {
			if !plain {
				p, want = cols, 0
			}
			ignoreGarbage = true
		}
		if eof {
			break
		}
	}
	return x.finish()
}

// hexValue is the value of a hex digit, -1 for anything else.
func hexValue(c byte) int {
	if v := digitValue(c); v < 16 {
		return v
	}
	return -1
}
