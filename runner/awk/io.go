package awk

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/gnuregex"
)

// recordReader splits a stream into records by RS. For a single-character
// RS it reads line by line; paragraph mode ("") and regex RS read the rest
// of the stream into memory once, which keeps leftmost-longest matching
// across buffer boundaries correct.
type recordReader struct {
	br      *bufio.Reader
	all     []byte
	pos     int
	slurped bool
	scratch []byte
}

func newRecordReader(r io.Reader) *recordReader {
	if r == nil {
		r = strings.NewReader("")
	}
	return &recordReader{br: bufio.NewReaderSize(r, 64*1024)}
}

var paragraphSep = regexp.MustCompile(`\n\n+`)

func (r *recordReader) slurp() error {
	if r.slurped {
		return nil
	}
	data, err := io.ReadAll(r.br)
	r.all, r.pos, r.slurped = data, 0, true
	return err
}

// read returns the next record and sets in.rt to its terminator.
func (r *recordReader) read(in *interp) (string, bool, error) {
	rs := in.rs
	switch {
	case len(rs) == 1:
		return r.readTo(in, rs[0])
	case rs == "":
		if err := r.slurp(); err != nil {
			return "", false, err
		}
		for r.pos < len(r.all) && r.all[r.pos] == '\n' {
			r.pos++
		}
		if r.pos >= len(r.all) {
			return "", false, nil
		}
		rest := r.all[r.pos:]
		loc := paragraphSep.FindIndex(rest)
		if loc == nil {
			rec := strings.TrimRight(string(rest), "\n")
			in.rt = string(rest[len(rec):])
			r.pos = len(r.all)
			return rec, true, nil
		}
		in.rt = string(rest[loc[0]:loc[1]])
		r.pos += loc[1]
		return string(rest[:loc[0]]), true, nil
	default:
		if err := r.slurp(); err != nil {
			return "", false, err
		}
		if r.pos >= len(r.all) {
			return "", false, nil
		}
		re, err := in.regexes.get(rs)
		if err != nil {
			in.fatalf("%v", err)
		}
		rest := r.all[r.pos:]
		var loc []int
		for off := 0; off <= len(rest); {
			ms, err := re.FindAll(in.ctx, rest[off:], 1, false)
			if err != nil {
				in.fatalf("%v", err)
			}
			if len(ms) == 0 {
				break
			}
			m := ms[0]
			if m[1] > m[0] {
				loc = []int{off + m[0], off + m[1]}
				break
			}
			// An empty match separates nothing; look further.
			off += m[1] + 1
		}
		if loc == nil {
			in.rt = ""
			r.pos = len(r.all)
			return string(rest), true, nil
		}
		in.rt = string(rest[loc[0]:loc[1]])
		r.pos += loc[1]
		return string(rest[:loc[0]]), true, nil
	}
}

func (r *recordReader) readTo(in *interp, c byte) (string, bool, error) {
	if r.slurped {
		if r.pos >= len(r.all) {
			return "", false, nil
		}
		rest := r.all[r.pos:]
		i := bytes.IndexByte(rest, c)
		if i < 0 {
			r.pos = len(r.all)
			in.rt = ""
			return string(rest), true, nil
		}
		r.pos += i + 1
		in.rt = string(c)
		return string(rest[:i]), true, nil
	}
	line, err := r.br.ReadSlice(c)
	if err == bufio.ErrBufferFull {
		r.scratch = append(r.scratch[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = r.br.ReadSlice(c)
			r.scratch = append(r.scratch, line...)
		}
		line = r.scratch
	}
	switch {
	case err == nil:
		if c == '\n' {
			in.rt = "\n"
		} else {
			in.rt = string(c)
		}
		return string(line[:len(line)-1]), true, nil
	case errors.Is(err, io.EOF):
		if len(line) == 0 {
			return "", false, nil
		}
		in.rt = ""
		return string(line), true, nil
	}
	return "", false, err
}

// ---- splitting ----

// splitInto appends the fields of s to dst.
func (in *interp) splitInto(s string, dst []value, mode fsMode, fs string, re *gnuregex.Regexp, paragraph bool) []value {
	if paragraph && mode != fsDefault && strings.IndexByte(s, '\n') >= 0 {
		// In paragraph mode a newline always separates fields.
		for _, line := range strings.Split(s, "\n") {
			dst = in.splitInto(line, dst, mode, fs, re, false)
		}
		return dst
	}
	switch mode {
	case fsDefault:
		i := 0
		for {
			for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
				i++
			}
			if i >= len(s) {
				return dst
			}
			start := i
			for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' {
				i++
			}
			dst = append(dst, input(s[start:i]))
		}
	case fsByte:
		if s == "" {
			return dst
		}
		c := fs[0]
		for {
			i := strings.IndexByte(s, c)
			if i < 0 {
				return append(dst, input(s))
			}
			dst = append(dst, input(s[:i]))
			s = s[i+1:]
		}
	case fsChars:
		for _, r := range s {
			dst = append(dst, input(string(r)))
		}
		return dst
	}
	if s == "" {
		return dst
	}
	start := 0
	for _, loc := range in.find(re, s, -1, false) {
		if loc[1] == loc[0] {
			continue
		}
		dst = append(dst, input(s[start:loc[0]]))
		start = loc[1]
	}
	return append(dst, input(s[start:]))
}

// ---- main input ----

type mainInput struct {
	argIndex int
	cur      *recordReader
	closer   io.Closer
	usedFile bool
	done     bool
	inBegin  bool
}

func (in *interp) nextMainRecord() (string, bool) {
	mi := &in.input
	for {
		if mi.cur == nil {
			if mi.done || !in.openNextFile() {
				mi.done = true
				return "", false
			}
		}
		in.tick()
		rec, ok, err := mi.cur.read(in)
		if err != nil {
			in.fatalf("error reading input file `%s': %s", in.toStr(in.filename), command.Strerror(err))
		}
		if ok {
			in.nr++
			in.fnr++
			return rec, true
		}
		in.closeMainFile()
	}
}

func (in *interp) closeMainFile() {
	mi := &in.input
	if mi.closer != nil {
		mi.closer.Close()
	}
	mi.cur, mi.closer = nil, nil
}

func (in *interp) openNextFile() bool {
	mi := &in.input
	argv := in.garrs[in.prog.globalMap["ARGV"].index]
	for {
		argc := int(in.argc.toNum())
		if mi.argIndex >= argc {
			break
		}
		i := mi.argIndex
		mi.argIndex++
		v, ok := argv[strconv.Itoa(i)]
		if !ok {
			continue
		}
		arg := in.toStr(v)
		if arg == "" {
			continue
		}
		if name, val, ok := commandLineAssignment(arg); ok {
			in.assignVar(name, val)
			continue
		}
		mi.usedFile = true
		in.filename = str(arg)
		in.fnr = 0
		if arg == "-" || arg == "/dev/stdin" {
			mi.cur = newRecordReader(in.env.Stdin)
			return true
		}
		f, err := in.env.FS.Open(arg)
		if err != nil {
			in.fatalf("cannot open file `%s' for reading: %s", arg, command.Strerror(err))
		}
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			f.Close()
			in.warnf("command line argument `%s' is a directory: skipped", arg)
			continue
		}
		mi.cur, mi.closer = newRecordReader(f), f
		return true
	}
	if !mi.usedFile {
		mi.usedFile = true
		in.filename = str("-")
		mi.cur = newRecordReader(in.env.Stdin)
		return true
	}
	return false
}

// commandLineAssignment recognizes a "var=value" operand.
func commandLineAssignment(arg string) (string, string, bool) {
	name, val, ok := strings.Cut(arg, "=")
	if !ok || name == "" || !isAlpha(name[0]) {
		return "", "", false
	}
	for i := 0; i < len(name); i++ {
		if !isAlpha(name[i]) && !isDigit(name[i]) {
			return "", "", false
		}
	}
	if keywords[name] != 0 || builtinNames[name] {
		return "", "", false
	}
	return name, val, true
}

// processEscapes applies string-constant escapes to a -v or operand value.
func processEscapes(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i += unescape(&b, s[i+1:])
	}
	return b.String()
}

// assignVar performs a command-line assignment (-v or operand).
func (in *interp) assignVar(name, val string) {
	v := input(processEscapes(val))
	if sp, ok := specialNames[name]; ok {
		in.setSpecial(sp, v)
		return
	}
	if _, ok := in.prog.funcs[name]; ok {
		in.fatalf("cannot use function `%s' as variable name", name)
	}
	g, ok := in.prog.globalMap[name]
	if !ok {
		return // the program never mentions it
	}
	if g.kind == kindArray {
		in.fatalf("cannot assign to array `%s'", name)
	}
	in.globals[g.index] = v
}

// ---- redirections ----

type outStream struct {
	w    *bufio.Writer
	file command.File
	pipe *bytes.Buffer
	cmd  string
}

type inStream struct {
	rdr    *recordReader
	file   command.File
	status int
}

type streams struct {
	special map[string]bool // "/dev/stdout", "/dev/stderr", "-" once printed to
	outs    map[string]*outStream
	ins     map[string]*inStream
	order   []string
	errW    *bufio.Writer
}

func newStreams() *streams {
	return &streams{special: map[string]bool{}, outs: map[string]*outStream{}, ins: map[string]*inStream{}}
}

func (s *streams) unbuffered(w *bufio.Writer) bool { return w == s.errW }

func (s *streams) output(in *interp, redir tok, name string) *bufio.Writer {
	if o, ok := s.outs[name]; ok {
		return o.w
	}
	switch name {
	case "/dev/stdout", "-":
		s.special[name] = true
		return in.out
	case "/dev/stderr":
		s.special[name] = true
		if s.errW == nil {
			s.errW = bufio.NewWriter(in.env.Stderr)
		}
		return s.errW
	}
	if name == "" {
		in.fatalf("expression for `%s' redirection has null string value", tokNames[redir])
	}
	o := &outStream{}
	switch redir {
	case tPipe:
		o.pipe = &bytes.Buffer{}
		o.cmd = name
		o.w = bufio.NewWriter(o.pipe)
	default:
		flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if redir == tAppend {
			flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		}
		f, err := in.env.FS.OpenFile(name, flag, 0o644)
		if err != nil {
			in.fatalf("can't redirect to `%s' (%s)", name, command.Strerror(err))
		}
		o.file = f
		o.w = bufio.NewWriter(f)
	}
	s.outs[name] = o
	s.order = append(s.order, name)
	return o.w
}

// close closes one stream by name and returns what awk's close() returns.
func (s *streams) close(in *interp, name string) int {
	if s.special[name] {
		delete(s.special, name)
		s.flushAll(in)
		return 0
	}
	if o, ok := s.outs[name]; ok {
		delete(s.outs, name)
		return in.closeOut(o)
	}
	if i, ok := s.ins[name]; ok {
		delete(s.ins, name)
		if i.file != nil {
			i.file.Close()
		}
		return i.status
	}
	return -1
}

func (in *interp) closeOut(o *outStream) int {
	err := o.w.Flush()
	if o.pipe != nil {
		return in.runCommand(o.cmd, bytes.NewReader(o.pipe.Bytes()), in.out)
	}
	if cerr := o.file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		in.warnf("close of `%s' failed: %s", o.file.Name(), command.Strerror(err))
		return -1
	}
	return 0
}

func (s *streams) closeAll(in *interp) {
	for _, name := range s.order {
		if o, ok := s.outs[name]; ok {
			delete(s.outs, name)
			in.closeOut(o)
		}
	}
	for name, i := range s.ins {
		if i.file != nil {
			i.file.Close()
		}
		delete(s.ins, name)
	}
	if s.errW != nil {
		s.errW.Flush()
	}
}

func (s *streams) flush(in *interp, name string) int {
	if o, ok := s.outs[name]; ok {
		if o.pipe != nil {
			return 0
		}
		if err := o.w.Flush(); err != nil {
			return -1
		}
		return 0
	}
	switch name {
	case "/dev/stdout":
		in.out.Flush()
		return 0
	case "/dev/stderr":
		if s.errW != nil {
			s.errW.Flush()
		}
		return 0
	}
	return -1
}

func (s *streams) flushAll(in *interp) {
	in.out.Flush()
	for _, o := range s.outs {
		if o.pipe == nil {
			o.w.Flush()
		}
	}
	if s.errW != nil {
		s.errW.Flush()
	}
}

// inputFile returns the reader for `getline < name`, or nil when it cannot be opened.
func (s *streams) inputFile(in *interp, name string) *inStream {
	if i, ok := s.ins[name]; ok {
		return i
	}
	i := &inStream{}
	if name == "-" || name == "/dev/stdin" {
		i.rdr = newRecordReader(in.env.Stdin)
	} else {
		f, err := in.env.FS.Open(name)
		if err != nil {
			return nil
		}
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			f.Close()
			return nil
		}
		i.file, i.rdr = f, newRecordReader(f)
	}
	s.ins[name] = i
	return i
}

// inputCommand runs cmd (once per open) and returns a reader over its output.
func (s *streams) inputCommand(in *interp, cmd string) *inStream {
	if i, ok := s.ins[cmd]; ok {
		return i
	}
	var out bytes.Buffer
	status := in.runCommand(cmd, strings.NewReader(""), &out)
	i := &inStream{rdr: newRecordReader(bytes.NewReader(out.Bytes())), status: status}
	s.ins[cmd] = i
	return i
}

// runCommand runs a command line through the runner's own commands.
func (in *interp) runCommand(cmd string, stdin io.Reader, stdout io.Writer) int {
	in.out.Flush()
	if in.env.Exec == nil {
		in.warnf("cannot run `%s': no commands are available here", cmd)
		return 127
	}
	argv, simple := splitWords(cmd)
	if !simple {
		argv = []string{"sh", "-c", cmd}
	}
	if len(argv) == 0 {
		return 0
	}
	status := in.env.Exec(in.ctx, argv, stdin, stdout, in.env.Stderr)
	return status
}

// splitWords splits a command line into words with simple quoting. It
// reports false when the line needs a shell (pipes, redirections,
// variables, globs, separators).
func splitWords(s string) ([]string, bool) {
	var words []string
	var b strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, b.String())
				b.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '$' || s[i] == '`' {
					return nil, false
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
					i++
				}
				b.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, false
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
			inWord = true
		case strings.IndexByte("|&;<>()$`*?[]{}~#!", c) >= 0:
			if c == '#' && inWord || c == '!' && inWord || c == '~' && inWord {
				b.WriteByte(c)
				continue
			}
			return nil, false
		default:
			b.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, b.String())
	}
	return words, true
}

// ---- getline ----

func (in *interp) getline(g *getlineExpr) value {
	var rec string
	switch g.kind {
	case getlineMain:
		r, ok := in.nextMainRecord()
		if !ok {
			return num(0)
		}
		rec = r
	case getlineFile:
		name := in.toStr(in.eval(g.src))
		if name == "" {
			in.fatalf("expression for `<' redirection has null string value")
		}
		s := in.streams.inputFile(in, name)
		if s == nil {
			return num(-1)
		}
		r, ok, err := s.rdr.read(in)
		if err != nil {
			return num(-1)
		}
		if !ok {
			return num(0)
		}
		rec = r
		in.assignRecord(g.target, rec)
		return num(1)
	case getlineCmd:
		cmd := in.toStr(in.eval(g.src))
		if cmd == "" {
			in.fatalf("expression for `|' redirection has null string value")
		}
		s := in.streams.inputCommand(in, cmd)
		r, ok, err := s.rdr.read(in)
		if err != nil {
			return num(-1)
		}
		if !ok {
			return num(0)
		}
		// POSIX says NR counts these records too; gawk 5 leaves NR alone.
		rec = r
	}
	in.assignRecord(g.target, rec)
	return num(1)
}

func (in *interp) assignRecord(target expr, rec string) {
	if target == nil {
		in.setRecord(rec)
	} else {
		in.assign(target, input(rec))
	}
}
