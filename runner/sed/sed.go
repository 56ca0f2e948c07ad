package sed

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

// Commands returns sed's entry for the runner's command table.
func Commands() []command.Spec {
	return []command.Spec{{
		Name:    "sed",
		Summary: "stream editor: filter and transform text (GNU sed 4.9 syntax; the e command is refused)",
		Flags:   sedSpec.Flags(),
		Func:    Run,
	}}
}

type options struct {
	quiet    bool
	ere      bool
	inPlace  bool
	suffix   string
	separate bool
	sep      byte
	lineLen  int
	posix    bool
	sandbox  bool
	unbuf    bool
	follow   bool // --follow-symlinks
	chunks   []chunk
	files    []string
	closers  []io.Closer
}

const usageText = `Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...

  -n, --quiet, --silent
                 suppress automatic printing of pattern space
      --debug
                 annotate program execution (accepted, does nothing here)
  -e script, --expression=script
                 add the script to the commands to be executed
  -f script-file, --file=script-file
                 add the contents of script-file to the commands to be executed
  --follow-symlinks
                 follow symlinks when processing in place
  -i[SUFFIX], --in-place[=SUFFIX]
                 edit files in place (makes backup if SUFFIX supplied)
  -l N, --line-length=N
                 specify the desired line-wrap length for the ` + "`l'" + ` command
  --posix
                 disable all GNU extensions.
  -E, -r, --regexp-extended
                 use extended regular expressions in the script
                 (for portability use POSIX -E).
  -s, --separate
                 consider files as separate rather than as a single,
                 continuous long stream.
      --sandbox
                 operate in sandbox mode (disable e/r/w commands).
  -u, --unbuffered
                 load minimal amounts of data from the input files and flush
                 the output buffers more often
  -z, --null-data
                 separate lines by NUL characters
      --help     display this help and exit
      --version  output version information and exit

If no -e, --expression, -f, or --file option is given, then the first
non-option argument is taken as the sed script to interpret.  All
remaining arguments are names of input files; if no input files are
specified, then the standard input is read.

This sed runs inside wsfs: the e command and the e flag of s are refused.
`

// sedSpec is sed's command line.
var sedSpec = getopt.Spec{
	Usage:   []string{"[OPTION]... {script-only-if-no-other-script} [input-file]..."},
	Help:    usageText,
	Version: "sed (GNU sed) 4.9 compatible, wsfs runner edition",
	Options: []getopt.Option{
		{Short: 'n', Long: "quiet"}, {Long: "silent", Key: "quiet"}, {Long: "debug"},
		{Short: 'e', Long: "expression", Arg: getopt.Required, ArgName: "script"},
		{Short: 'f', Long: "file", Arg: getopt.Required, ArgName: "script-file"}, {Long: "follow-symlinks"},
		{Short: 'i', Long: "in-place", Arg: getopt.Optional, ArgName: "SUFFIX"},
		{Short: 'l', Long: "line-length", Arg: getopt.Required, ArgName: "N"}, {Long: "posix"},
		{Short: 'E', Long: "regexp-extended"}, {Short: 'r', Key: "regexp-extended"}, {Short: 's', Long: "separate"},
		{Long: "sandbox"}, {Short: 'u', Long: "unbuffered"}, {Short: 'z', Long: "null-data"},
		{Long: "zero-terminated", Key: "null-data"}, {Short: 'b', Long: "binary", Hidden: true}, {Long: "help"},
		{Long: "version"},
	},
}

type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// parseArgs reads sed's options as GNU getopt does (options may follow
// file names; "--" ends them).
func parseArgs(env *command.Env, args []string) (*options, int, error) {
	o := &options{sep: '\n', lineLen: 70}
	var operands []string
	exprs := 0
	addExpr := func(s string) {
		exprs++
		o.chunks = append(o.chunks, chunk{text: s, index: exprs, ere: o.ere, atParse: true})
	}
	addFile := func(name string) error {
		var data []byte
		var err error
		if name == "-" {
			data, err = io.ReadAll(env.Stdin)
		} else {
			var f command.File
			f, err = env.FS.Open(name)
			if err == nil {
				data, err = io.ReadAll(f)
				f.Close()
			}
		}
		if err != nil {
			return &usageError{fmt.Sprintf("couldn't open file %s: %s", name, command.Strerror(err))}
		}
		text := string(data)
		text = strings.TrimSuffix(text, "\n")
		o.chunks = append(o.chunks, chunk{text: text, file: name, ere: o.ere, atParse: true})
		return nil
	}
	opts, operands, perr := sedSpec.Parse(args)
	for _, opt := range opts {
		switch opt.Key {
		case "expression":
			addExpr(opt.Value)
		case "file":
			if err := addFile(opt.Value); err != nil {
				return nil, 1, err
			}
		case "in-place":
			o.inPlace, o.separate, o.suffix = true, true, opt.Value
		case "line-length":
			n, err := strconv.Atoi(opt.Value)
			if err != nil || n < 0 {
				return nil, 1, &usageError{fmt.Sprintf("invalid line length: %s", opt.Value)}
			}
			o.lineLen = n
		case "null-data":
			o.sep = 0
		case "quiet":
			o.quiet = true
		case "regexp-extended":
			o.ere = true
		case "separate":
			o.separate = true
		case "unbuffered":
			o.unbuf = true
		case "follow-symlinks":
			o.follow = true
		case "posix":
			o.posix = true
		case "sandbox":
			o.sandbox = true
		case "help":
			io.WriteString(env.Stdout, usageText)
			return nil, 0, errHelp
		case "version":
			io.WriteString(env.Stdout, sedSpec.Version+"\n")
			return nil, 0, errHelp
		}
	}
	if perr != nil {
		return nil, 1, &usageError{perr.Error()}
	}
	if len(o.chunks) == 0 {
		if len(operands) == 0 {
			return nil, 1, &usageError{}
		}
		addExpr(operands[0])
		o.chunks[0].atParse = false // compiled after all options, as in GNU
		operands = operands[1:]
	}
	o.files = operands
	return o, 0, nil
}

var errHelp = errors.New("help")

// Run is the sed command.
func Run(ctx context.Context, env *command.Env) int {
	opts, code, err := parseArgs(env, env.Args[1:])
	if err != nil {
		var ue *usageError
		switch {
		case errors.Is(err, errHelp):
			return 0
		case errors.As(err, &ue) && ue.msg == "":
			io.WriteString(env.Stderr, usageText)
		case errors.As(err, &ue) && strings.HasPrefix(ue.msg, "couldn't open"):
			env.Errorf("%s", ue.msg)
			return 4
		default:
			env.Errorf("%s", err.Error())
			io.WriteString(env.Stderr, usageText)
		}
		return code
	}
	if env.Getenv != nil && env.Getenv("POSIXLY_CORRECT") != "" {
		opts.posix = true
	}
	defer func() {
		for _, c := range opts.closers {
			c.Close()
		}
	}()

	stdout := &output{name: "stdout", w: bufio.NewWriterSize(env.Stdout, 64<<10), flush: opts.unbuf}
	stderr := &output{name: "stderr", w: bufio.NewWriterSize(env.Stderr, 512), flush: true}
	p := &parser{chunks: opts.chunks, ere: opts.ere, nul: opts.sep == 0, outputs: map[string]*output{}}
	p.openOut = func(name string) (*output, error) {
		switch name {
		case "/dev/stdout":
			return stdout, nil
		case "/dev/stderr":
			return stderr, nil
		}
		if opts.sandbox {
			return nil, p.errf("e/r/w commands disabled in sandbox mode")
		}
		f, err := env.FS.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			return nil, &ioError{msg: fmt.Sprintf("couldn't open file %s: %s", name, command.Strerror(err))}
		}
		opts.closers = append(opts.closers, f)
		return &output{name: name, w: bufio.NewWriter(f), file: f, flush: opts.unbuf}, nil
	}
	p.rfiles = map[string]*rfile{}
	p.openIn = func(name string) *rfile {
		if name == "/dev/stdin" || name == "-" {
			return &rfile{r: bufio.NewReader(env.Stdin)}
		}
		f, err := env.FS.Open(name)
		if err != nil {
			return &rfile{}
		}
		opts.closers = append(opts.closers, f)
		return &rfile{f: f, r: bufio.NewReader(f)}
	}
	if err := p.compile(); err != nil {
		env.Errorf("%s", err.Error())
		var ie *ioError
		if errors.As(err, &ie) {
			return 4 // GNU's panic(): failures that are not script syntax
		}
		return 1
	}
	if p.quiet {
		opts.quiet = true
	}
	if opts.sandbox {
		for _, c := range p.cmds {
			if c.name == 'r' || c.name == 'R' {
				env.Errorf("-e expression #1, char 0: e/r/w commands disabled in sandbox mode")
				return 1
			}
		}
	}

	m := &machine{
		ctx: ctx, done: ctx.Done(), env: env, cmds: p.cmds, opts: opts,
		out: stdout, std: stdout, stdin: env.Stdin, rfiles: p.rfiles,
		holdChomped: true,
	}
	m.stopFn = m.stop
	m.in = &input{env: env, names: opts.files, sep: opts.sep, separate: opts.separate, onOpen: m.resetForFile, follow: opts.follow}
	if len(m.in.names) == 0 {
		m.in.names = []string{"-"}
	}
	status := 0
	if opts.inPlace && len(opts.files) == 0 {
		env.Errorf("no input files")
		return 4
	}
	if opts.inPlace {
		status = m.runInPlace()
	} else {
		status = m.finish(m.run())
	}
	for _, o := range p.outputs {
		if err := o.w.Flush(); err != nil && status == 0 {
			env.Errorf("couldn't flush %s: %s", o.name, command.Strerror(err))
			status = 4
		}
	}
	if err := stdout.w.Flush(); err != nil && status == 0 {
		env.Errorf("couldn't flush stdout: %s", command.Strerror(err))
		status = 4
	}
	return status
}

// finish turns the result of a run into an exit status, reporting errors.
func (m *machine) finish(err error) int {
	var se *scriptError
	var ie *ioError
	switch {
	case err == nil, errors.Is(err, errQuit):
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		m.out.w.Flush()
		m.env.Errorf("stopped: %v", err)
		return 4
	case errors.As(err, &se):
		m.env.Errorf("%s", se.Error())
		return 1
	case errors.As(err, &ie):
		m.env.Errorf("%s", ie.msg)
		return 4
	default:
		m.env.Errorf("%s", err.Error())
		return 4
	}
	if m.exit != 0 {
		return m.exit
	}
	return m.in.status2
}

// runInPlace edits each file through a temporary file in its folder,
// renamed over it at the end (after renaming the original to the backup
// name when a suffix is given).
func (m *machine) runInPlace() int {
	env := m.env
	names := m.in.names
	status := 0
	for _, name := range names {
		if name == "-" {
			env.Errorf("couldn't edit -: not a regular file")
			return 4
		}
		if m.opts.follow {
			name = followSymlinks(env.FS, name)
		}
		fi, err := env.FS.Stat(name)
		if err != nil {
			env.Errorf("can't read %s: %s", name, command.Strerror(err))
			status = 2
			continue
		}
		if !fi.Mode().IsRegular() {
			env.Errorf("couldn't edit %s: not a regular file", name)
			status = 4
			continue
		}
		dir := path.Dir(env.FS.Abs(name))
		var rnd [6]byte
		rand.Read(rnd[:])
		tmp := path.Join(dir, "sed"+hex.EncodeToString(rnd[:]))
		f, err := env.FS.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
		if err != nil {
			env.Errorf("couldn't open temporary file %s: %s", tmp, command.Strerror(err))
			return 4
		}
		out := &output{name: tmp, w: bufio.NewWriterSize(f, 64<<10), file: f}
		m.out = out
		m.in.names = []string{name}
		m.in.next = 0
		m.in.lineNo = 0
		runErr := m.run()
		ferr := out.w.Flush()
		cerr := f.Close()
		code := m.finish(runErr)
		failed := runErr != nil && !errors.Is(runErr, errQuit)
		if !failed && ferr == nil && cerr == nil {
			if err := env.FS.Chmod(tmp, fi.Mode().Perm()); err != nil {
				env.Errorf("couldn't set mode of %s: %s", tmp, command.Strerror(err))
			}
			if m.opts.suffix != "" {
				bak := backupName(env.FS.Abs(name), m.opts.suffix)
				if err := env.FS.Rename(name, bak); err != nil {
					env.Errorf("cannot rename %s: %s", name, command.Strerror(err))
					env.FS.Remove(tmp)
					return 4
				}
			}
			if err := env.FS.Rename(tmp, name); err != nil {
				env.Errorf("cannot rename %s: %s", tmp, command.Strerror(err))
				env.FS.Remove(tmp)
				return 4
			}
		} else {
			env.FS.Remove(tmp)
			if ferr != nil || cerr != nil {
				e := ferr
				if e == nil {
					e = cerr
				}
				env.Errorf("couldn't write %s: %s", tmp, command.Strerror(e))
				return 4
			}
		}
		if errors.Is(runErr, errQuit) || failed {
			return code
		}
		if code != 0 {
			status = code
		}
	}
	return status
}

// followSymlinks resolves name through its chain of symbolic links the
// way GNU's follow_symlink does: a relative target is taken from the
// link's folder, and the result keeps the form the user gave.
func followSymlinks(fsys command.FS, name string) string {
	for hops := 0; hops < 40; hops++ {
		fi, err := fsys.Lstat(name)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return name
		}
		target, err := fsys.Readlink(name)
		if err != nil {
			return name
		}
		if !path.IsAbs(target) && path.Dir(name) != "." {
			target = path.Join(path.Dir(name), target)
		}
		name = target
	}
	return name
}

func backupName(abs, suffix string) string {
	if !strings.Contains(suffix, "*") {
		return abs + suffix
	}
	b := strings.ReplaceAll(suffix, "*", path.Base(abs))
	if strings.Contains(b, "/") {
		return b
	}
	return path.Join(path.Dir(abs), b)
}

// input reads the lines of the input files in turn.
type input struct {
	env      *command.Env
	names    []string
	next     int
	r        *bufio.Reader
	f        io.Closer
	rName    string // file the reader reads
	lineName string // file of the last line read ("-" for stdin)
	sep      byte
	separate bool
	lineNo   int
	onOpen   func() // called when a file opens with -s or -i
	follow   bool   // --follow-symlinks: read and name the link's target
	status2  int    // 2 when an input file could not be read
	buf      []byte
}

// open opens the next file that can be read; false when none is left.
func (in *input) open() bool {
	for in.next < len(in.names) {
		name := in.names[in.next]
		in.next++
		if name == "-" {
			in.r, in.f, in.rName = bufio.NewReaderSize(in.env.Stdin, 64<<10), nil, "-"
		} else {
			if in.follow {
				name = followSymlinks(in.env.FS, name)
			}
			f, err := in.env.FS.Open(name)
			if err != nil {
				in.env.Errorf("can't read %s: %s", name, command.Strerror(err))
				in.status2 = 2
				continue
			}
			in.r, in.f, in.rName = bufio.NewReaderSize(f, 64<<10), f, name
		}
		if in.separate && in.onOpen != nil {
			in.onOpen()
		}
		return true
	}
	return false
}

func (in *input) closeCur() {
	if in.f != nil {
		in.f.Close()
	}
	in.r, in.f = nil, nil
}

func readError(name string, err error) error {
	if name == "-" {
		name = "stdin"
	}
	return &ioError{msg: fmt.Sprintf("read error on %s: %s", name, command.Strerror(err))}
}

// readLine returns the next line without its separator, and whether the
// separator was there. The slice is valid until the next call.
func (in *input) readLine() (line []byte, nl bool, ok bool, err error) {
	for {
		if in.r == nil {
			if !in.open() {
				return nil, false, false, nil
			}
		}
		data, rerr := in.r.ReadSlice(in.sep)
		if rerr == bufio.ErrBufferFull {
			in.buf = append(in.buf[:0], data...)
			for rerr == bufio.ErrBufferFull {
				data, rerr = in.r.ReadSlice(in.sep)
				in.buf = append(in.buf, data...)
			}
			data = in.buf
		}
		if rerr != nil && rerr != io.EOF {
			return nil, false, false, readError(in.rName, rerr)
		}
		if len(data) == 0 {
			in.closeCur()
			if in.separate {
				in.lineNo = 0
			}
			continue
		}
		in.lineNo++
		in.lineName = in.rName
		if data[len(data)-1] == in.sep {
			return data[:len(data)-1], true, true, nil
		}
		return data, false, true, nil
	}
}

// isLast reports whether the line just read is the last one (of its file
// with -s or -i).
func (in *input) isLast() (bool, error) {
	for {
		if in.r != nil {
			// As GNU's test_eof, a read error while looking ahead counts
			// as the end of that file.
			if _, err := in.r.Peek(1); err == nil {
				return false, nil
			}
			if in.separate {
				return true, nil
			}
			in.closeCur()
		}
		if !in.open() {
			return true, nil
		}
	}
}
