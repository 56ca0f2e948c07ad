package textutils

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

var iconvSpec = getopt.Spec{
	// glibc's iconv parses with argp: its usage errors exit 64.
	Fail: func(name string, w getopt.Writer, msg string) int {
		fmt.Fprintf(w, "%s: %s\nTry `%s --help' or `%s --usage' for more information.\n", name, msg, name, name)
		return 64
	},
	Options: []getopt.Option{
		{Short: 'f', Long: "from-code", Arg: getopt.Required, ArgName: "NAME"},
		{Short: 't', Long: "to-code", Arg: getopt.Required, ArgName: "NAME[//TRANSLIT][//IGNORE]"},
		{Short: 'l', Long: "list"}, {Short: 'c'}, {Short: 'o', Long: "output", Arg: getopt.Required, ArgName: "FILE"},
		{Short: 's', Long: "silent"}, {Long: "verbose"}, {Long: "usage"},
	},
}

// Iconv implements glibc 2.36's iconv: convert text from one character
// set to another (-f, -t, each defaulting to the locale's UTF-8), with
// //TRANSLIT and //IGNORE on the target, -c, -o, -l, -s and --verbose.
// UTF-16 and UTF-32 read a BOM and write one (little-endian after it),
// as glibc does; -l lists the sets and their aliases.
func Iconv(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	flags, operands, st, ok := iconvSpec.Run(env)
	if !ok {
		return st
	}
	from, to, output := "UTF-8", "UTF-8", ""
	omit, verbose, list := false, false, false
	for _, f := range flags {
		switch f.Key {
		case "from-code":
			from = f.Value
		case "to-code":
			to = f.Value
		case "list":
			list = true
		case "c":
			omit = true
		case "output":
			output = f.Value
		case "verbose":
			verbose = true
		case "usage":
			fmt.Fprint(env.Stdout, iconvSpec.HelpText(env.Name()))
			return 0
		}
	}
	if list {
		for _, n := range charsetNames() {
			fmt.Fprintf(r.out, "%s//\n", n)
		}
		return r.finish(0)
	}

	// The target's suffixes: //TRANSLIT and //IGNORE, in any order and
	// case; the source's are ignored, as glibc ignores them.
	toName, suffixes, _ := strings.Cut(to, "//")
	translit, ignore := false, false
	for _, s := range strings.Split(suffixes, "//") {
		switch strings.ToUpper(s) {
		case "TRANSLIT":
			translit = true
		case "IGNORE":
			ignore = true
		}
	}
	fromName, _, _ := strings.Cut(from, "//")
	if fromName == "" {
		fromName = "UTF-8"
	}
	if toName == "" {
		toName = "UTF-8"
	}
	src, dst := lookupCharset(fromName), lookupCharset(toName)
	switch {
	case src == nil && dst == nil:
		env.Errorf("conversions from `%s' and to `%s' are not supported (iconv -l lists the character sets)", fromName, toName)
		return 1
	case src == nil:
		env.Errorf("conversion from `%s' is not supported (iconv -l lists the character sets)", fromName)
		return 1
	case dst == nil:
		env.Errorf("conversion to `%s' is not supported (iconv -l lists the character sets)", toName)
		return 1
	}

	if output != "" {
		// As glibc, the output file is made at the first byte to write,
		// so a run that converts nothing leaves none behind.
		lazy := &lazyOutput{fs: env.FS, name: output}
		defer lazy.close()
		r.sink.w = lazy
	}
	named := len(operands) > 0
	if !named {
		operands = []string{"-"}
	}
	status := 0
	cv := &converter{r: r, src: src, dst: dst, translit: translit, ignore: ignore || omit, quietIgnore: omit}
	for _, name := range operands {
		if verbose && named {
			fmt.Fprintf(env.Stderr, "%s:\n", name)
		}
		var data []byte
		var err error
		if name == "-" {
			data, err = r.readAllBounded(env.Stdin)
		} else {
			var f command.File
			if f, err = env.FS.Open(name); err != nil {
				// The next files are still converted.
				r.out.Flush()
				env.Errorf("cannot open input file `%s': %s", name, command.Strerror(err))
				status = 1
				continue
			}
			data, err = r.readAllBounded(f)
			f.Close()
		}
		if err != nil {
			if r.ctx.Err() != nil {
				return 1
			}
			r.out.Flush()
			if errors.Is(err, errInputTooLarge) {
				env.Errorf("%s: %s; convert it in parts (split -b)", name, err)
				return iconvFinish(r, 1)
			}
			env.Errorf("error while reading the input: %s", command.Strerror(err))
			return iconvFinish(r, 1)
		}
		if !cv.convert(data) {
			return iconvFinish(r, 1)
		}
	}
	return iconvFinish(r, status)
}

// iconvFinish flushes the output with glibc's messages for its failures.
func iconvFinish(r *run, status int) int {
	err := r.out.Flush()
	var open *outputOpenError
	switch {
	case err == nil:
		if r.ctx.Err() != nil {
			return 1
		}
		return status
	case r.ctx.Err() != nil:
		return 1
	case errors.As(err, &open):
		r.env.Errorf("cannot open output file: %s", command.Strerror(open.err))
	default:
		r.env.Errorf("conversion stopped due to problem in writing the output: %s", command.Strerror(err))
	}
	return 1
}

// lazyOutput is -o's file, created at the first write.
type lazyOutput struct {
	fs   command.FS
	name string
	f    command.File
}

func (l *lazyOutput) Write(p []byte) (int, error) {
	if l.f == nil {
		f, err := l.fs.OpenFile(l.name, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC, 0o666)
		if err != nil {
			return 0, &outputOpenError{err}
		}
		l.f = f
	}
	return l.f.Write(p)
}

// outputOpenError is -o's file failing to open.
type outputOpenError struct{ err error }

func (e *outputOpenError) Error() string { return e.err.Error() }
func (e *outputOpenError) Unwrap() error { return e.err }

func (l *lazyOutput) close() {
	if l.f != nil {
		l.f.Close()
	}
}

// converter converts one run's inputs. Each input starts afresh, as in
// glibc: a UTF-16 output gets a BOM per input, a shift state returns to
// its initial one at the end of each.
type converter struct {
	r                *run
	src, dst         *charset
	translit, ignore bool
	quietIgnore      bool // -c alone: skip silently and succeed
	enc              encodeState
	out              []byte
}

func (cv *converter) flush(dst []byte) []byte {
	if cv.dst.flush != nil {
		return cv.dst.flush(dst, &cv.enc)
	}
	return dst
}

// convert converts one input; it reports false after printing an error.
func (cv *converter) convert(data []byte) bool {
	env := cv.r.env
	var dec decodeState
	cv.enc = encodeState{}
	skipped := false
	encodable := func(c rune) bool {
		probe := encodeState{started: true} // no BOM, a fresh shift state
		_, ok := cv.dst.encode(nil, c, &probe)
		return ok
	}
	for pos := 0; pos < len(data); {
		if pos&4095 == 0 && cv.r.ctx.Err() != nil {
			return false
		}
		c, n := cv.src.decode(data[pos:], true, &dec)
		switch {
		case n == 0:
			cv.emit()
			env.Errorf("incomplete character or shift sequence at end of buffer")
			return false
		case n < 0:
			if cv.ignore {
				skipped = true
				pos++
				continue
			}
			cv.emit()
			env.Errorf("illegal input sequence at position %d", pos)
			return false
		case c == -2:
			pos += n // a BOM or a shift: no character
			continue
		}
		if out, ok := cv.dst.encode(cv.out, c, &cv.enc); ok {
			cv.out = out
		} else if t, ok := cv.transliterate(c, encodable); ok {
			for _, tc := range t {
				cv.out, _ = cv.dst.encode(cv.out, tc, &cv.enc)
			}
		} else if cv.ignore {
			skipped = true
		} else {
			cv.emit()
			env.Errorf("illegal input sequence at position %d", pos)
			return false
		}
		pos += n
		if len(cv.out) >= 64<<10 {
			cv.emit()
		}
	}
	cv.out = cv.flush(cv.out)
	cv.emit()
	if skipped && !cv.quietIgnore {
		// glibc's iconv reports what //IGNORE skipped once the whole
		// input is converted, at its end.
		env.Errorf("illegal input sequence at position %d", len(data))
		return false
	}
	return true
}

// transliterate is //TRANSLIT's replacement for c, '?' when it has none.
func (cv *converter) transliterate(c rune, encodable func(rune) bool) (string, bool) {
	if !cv.translit {
		return "", false
	}
	if t, ok := transliterate(c, encodable); ok {
		return t, true
	}
	if encodable('?') {
		return "?", true
	}
	return "", false
}

// emit writes the converted bytes so far.
func (cv *converter) emit() {
	cv.r.out.Write(cv.out)
	cv.out = cv.out[:0]
}
