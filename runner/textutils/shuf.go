package textutils

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"io/fs"
	"math"
	"strconv"
	"strings"
	"syscall"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
	"github.com/wsfs/wsfs/runner/internal/printfmt"
)

var shufSpec = getopt.Spec{
	Usage: []string{"[OPTION]... [FILE]", "-e [OPTION]... [ARG]...", "-i LO-HI [OPTION]..."},
	Options: []getopt.Option{
		{Short: 'e', Long: "echo"}, {Short: 'i', Long: "input-range", Arg: getopt.Required, ArgName: "LO-HI"},
		{Short: 'n', Long: "head-count", Arg: getopt.Required, ArgName: "COUNT"},
		{Short: 'o', Long: "output", Arg: getopt.Required, ArgName: "FILE"},
		{Long: "random-source", Arg: getopt.Required, ArgName: "FILE"}, {Short: 'r', Long: "repeat"},
		{Short: 'z', Long: "zero-terminated"},
	},
}

// Shuf implements GNU coreutils 9.1's shuf: a random permutation of the
// input lines (a file or stdin, -e's arguments, or -i's numbers), at most
// -n of them, with repetition under -r. With --random-source=FILE the
// random numbers come from FILE's bytes exactly as GNU's randint draws
// them, so a given source gives GNU's output line for line (tests and
// reproducible runs); without it they come from the system's generator.
func Shuf(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	flags, operands, st, ok := shufSpec.Run(env)
	if !ok {
		return st
	}
	var (
		echo, repeat, haveRange bool
		lo, hi                  uint64
		head                    = uint64(math.MaxUint64)
		output, source          string
		haveOutput, haveSource  bool
		eol                     = byte('\n')
	)
	fail := func(format string, a ...any) int {
		env.Errorf(format, a...)
		return 1
	}
	for _, f := range flags {
		switch f.Key {
		case "echo":
			echo = true
		case "input-range":
			if haveRange {
				return fail("multiple -i options specified")
			}
			haveRange = true
			var bad string
			var err error
			var valid bool
			lo, hi, valid, bad, err = shufRange(f.Value)
			if !valid {
				if err != nil {
					return fail("invalid input range: %s: %s", printfmt.LocaleQuote(bad), command.Strerror(err))
				}
				return fail("invalid input range: %s", printfmt.LocaleQuote(bad))
			}
		case "head-count":
			// As xstrtoumax: leading blanks and a +, no -, and a count too
			// large for the type is no limit.
			t := strings.TrimPrefix(strings.TrimLeft(f.Value, " \t\n\v\f\r"), "+")
			n, err := strconv.ParseUint(t, 10, 64)
			if err != nil && errors.Is(err, strconv.ErrRange) {
				n, err = math.MaxUint64, nil
			}
			if err != nil {
				return fail("invalid line count: %s", printfmt.LocaleQuote(f.Value))
			}
			head = min(head, n)
		case "output":
			if haveOutput && output != f.Value {
				return fail("multiple output files specified")
			}
			output, haveOutput = f.Value, true
		case "random-source":
			if haveSource && source != f.Value {
				return fail("multiple random sources specified")
			}
			source, haveSource = f.Value, true
		case "repeat":
			repeat = true
		case "zero-terminated":
			eol = 0
		}
	}
	if echo && haveRange {
		return shufSpec.Usagef(env, "cannot combine -e and -i options")
	}
	if !echo && (haveRange && len(operands) > 0 || len(operands) > 1) {
		extra := operands[0]
		if !haveRange {
			extra = operands[1]
		}
		return shufSpec.Usagef(env, "extra operand %s", printfmt.LocaleQuote(extra))
	}

	openOutput := func() (io.Writer, func(), int) {
		if !haveOutput {
			return env.Stdout, func() {}, 0
		}
		f, err := env.FS.OpenFile(output, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC, 0o666)
		if err != nil {
			return nil, nil, fail("%s: %s", output, command.Strerror(err))
		}
		return f, func() { f.Close() }, 0
	}
	if head == 0 {
		// Nothing to write: GNU reads neither the random source nor the
		// input, and only creates the output file.
		_, done, st := openOutput()
		if st == 0 {
			done()
		}
		return st
	}

	// The random source, opened before the input as GNU does.
	var rnd *randint
	if haveSource {
		f, err := env.FS.Open(source)
		if err != nil {
			return fail("%s: %s", source, command.Strerror(err))
		}
		defer f.Close()
		rnd = &randint{src: bufio.NewReader(f), name: source}
	} else {
		rnd = &randint{src: bufio.NewReader(rand.Reader)}
	}

	// The input lines. A count of lines to write from input of unknown or
	// large size (a pipe, more than 8 MiB) is drawn by reservoir sampling
	// as GNU does: the input is read once and only the reservoir is kept.
	var lines [][]byte
	var count uint64 // input lines, or numbers in -i's range
	reservoir := false
	switch {
	case haveRange:
		count = hi - lo + 1 // 0 when lo = hi+1 (an empty range)
	case echo:
		for _, a := range operands {
			lines = append(lines, []byte(a))
		}
		count = uint64(len(lines))
	default:
		name := "-"
		if len(operands) == 1 {
			name = operands[0]
		}
		in, err := r.open(name)
		if err != nil {
			return fail("%s: %s", name, command.Strerror(err))
		}
		defer in.Close()
		size := inputSize(in)
		if name == "-" {
			size = inputSize(env.Stdin)
		}
		if !repeat && head != math.MaxUint64 && size > 8<<20 {
			reservoir = true
			lines, err = sampleLines(r, rnd, in, eol, head)
		} else {
			var data []byte
			if data, err = r.readAllBounded(in); err == nil {
				lines = splitLines(data, eol)
			}
		}
		if err != nil {
			if r.ctx.Err() != nil {
				return 1
			}
			var re randomError
			if errors.As(err, &re) {
				return rnd.failed(r, re.err)
			}
			if errors.Is(err, errInputTooLarge) {
				return fail("%s: %s; -n COUNT samples a larger input", name, err)
			}
			return fail("%s: %s", name, command.Strerror(err))
		}
		count = uint64(len(lines))
	}
	if repeat && count == 0 {
		return fail("no lines to repeat")
	}

	out, done, st := openOutput()
	if st != 0 {
		return st
	}
	defer done()
	if reservoir {
		head = count
	}
	r.sink.w = out
	emit := func(i uint64) {
		if haveRange {
			r.out.WriteString(strconv.FormatUint(lo+i, 10))
		} else {
			r.out.Write(lines[i])
		}
		r.out.WriteByte(eol)
	}
	if repeat {
		for n := uint64(0); n < head; n++ {
			if r.stopped() {
				break
			}
			j, err := rnd.choose(count)
			if err != nil {
				return rnd.failed(r, err)
			}
			emit(j)
		}
		return r.finish(0)
	}
	perm, err := randomPermutation(r, rnd, min(head, count), count)
	if err != nil {
		return rnd.failed(r, err)
	}
	for _, i := range perm {
		if r.stopped() {
			break
		}
		emit(i)
	}
	return r.finish(0)
}

// shufRange parses -i's LO-HI as GNU does (each number as strtoumax:
// leading blanks, decimal digits). When it is not valid it returns the
// part at fault, and an error when a number is too large.
func shufRange(s string) (lo, hi uint64, valid bool, bad string, err error) {
	loText, hiText, found := strings.Cut(s, "-")
	if !found {
		return 0, 0, false, s, nil
	}
	parse := func(t string) (uint64, bool, error) {
		u := strings.TrimPrefix(strings.TrimLeft(t, " \t\n\v\f\r"), "+")
		if u == "" || u[0] < '0' || u[0] > '9' {
			return 0, false, nil
		}
		for i := 0; i < len(u); i++ {
			if u[i] < '0' || u[i] > '9' {
				return 0, false, nil
			}
		}
		v, err := strconv.ParseUint(u, 10, 64)
		if err != nil {
			return 0, false, syscall.EOVERFLOW
		}
		return v, true, nil
	}
	var ok bool
	if lo, ok, err = parse(loText); !ok {
		return 0, 0, false, loText, err
	}
	if hi, ok, err = parse(hiText); !ok {
		return 0, 0, false, hiText, err
	}
	if hi < lo && lo-hi > 1 || hi == math.MaxUint64 && lo == 0 {
		return 0, 0, false, s, nil
	}
	return lo, hi, true, "", nil
}

// inputSize is the bytes left to read in in when it is a regular file,
// and the largest size otherwise (a pipe, a terminal), as GNU's shuf sees it.
func inputSize(in io.Reader) int64 {
	if !isRegularFile(in) {
		return math.MaxInt64
	}
	fi, err := in.(interface{ Stat() (fs.FileInfo, error) }).Stat()
	s, ok := in.(io.Seeker)
	if err != nil || !ok {
		return math.MaxInt64
	}
	off, err := s.Seek(0, io.SeekCurrent)
	if err != nil {
		return math.MaxInt64
	}
	return fi.Size() - off
}

// randomError is a failure of the random source met while reading input.
type randomError struct{ err error }

func (e randomError) Error() string { return e.err.Error() }

// sampleLines keeps k lines of in chosen uniformly, as GNU's
// read_input_reservoir_sampling draws them: the first k lines, then for
// each later line (and once more at the end of the input) a number j in
// [0, lines so far + 1), the line replacing the reservoir's j-th when j < k.
func sampleLines(r *run, rnd *randint, in io.Reader, eol byte, k uint64) ([][]byte, error) {
	br := bufio.NewReaderSize(in, 64<<10)
	readLine := func() ([]byte, error) {
		line, err := br.ReadBytes(eol)
		if len(line) > 0 {
			if line[len(line)-1] == eol {
				line = line[:len(line)-1]
			}
			return line, nil
		}
		if err == nil {
			err = io.EOF
		}
		return nil, err
	}
	var res [][]byte
	for uint64(len(res)) < k {
		line, err := readLine()
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			return nil, err
		}
		res = append(res, line)
	}
	for n := k; ; n++ {
		if r.stopped() {
			return nil, r.ctx.Err()
		}
		j, err := rnd.choose(n + 1)
		if err != nil {
			return nil, randomError{err}
		}
		line, err := readLine()
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			return nil, err
		}
		if j < k {
			res[j] = line
		}
	}
}

// splitLines splits data into lines ending in eol; a last line without
// one counts as a line.
func splitLines(data []byte, eol byte) [][]byte {
	var lines [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, eol)
		if i < 0 {
			lines = append(lines, data)
			break
		}
		lines = append(lines, data[:i])
		data = data[i+1:]
	}
	return lines
}

// randomPermutation returns k distinct numbers in [0, n) in random order:
// the first k steps of a Fisher–Yates shuffle (GNU's randperm_new, whose
// draws it repeats one for one). Only the k chosen positions and those
// they displaced are stored, so a small k of a huge -i range stays small.
func randomPermutation(r *run, rnd *randint, k, n uint64) ([]uint64, error) {
	moved := map[uint64]uint64{}
	at := func(i uint64) uint64 {
		if v, ok := moved[i]; ok {
			return v
		}
		return i
	}
	out := make([]uint64, 0, min(k, 1<<16))
	for i := uint64(0); i < k; i++ {
		if i&1023 == 0 && r.ctx.Err() != nil {
			return nil, r.ctx.Err()
		}
		c, err := rnd.choose(n - i)
		if err != nil {
			return nil, err
		}
		j := i + c
		vi, vj := at(i), at(j)
		moved[j] = vi
		delete(moved, i)
		out = append(out, vj)
	}
	return out, nil
}

// randint draws uniform random integers from a byte source exactly as
// gnulib's randint_genmax does, keeping the unused part of each draw for
// the next one, so that a --random-source file yields GNU's numbers.
type randint struct {
	src           io.ByteReader
	name          string // the --random-source file; "" for the system's generator
	randnum, rmax uint64
}

// choose returns a number in [0, n).
func (s *randint) choose(n uint64) (uint64, error) {
	return s.genmax(n - 1)
}

func (s *randint) genmax(genmax uint64) (uint64, error) {
	randnum, randmax := s.randnum, s.rmax
	choices := genmax + 1
	for {
		if randmax < genmax {
			// Append random bytes until randmax covers genmax.
			for randmax < genmax {
				b, err := s.src.ReadByte()
				if err != nil {
					return 0, err
				}
				randnum = randnum<<8 + uint64(b)
				randmax = randmax<<8 + 0xff
			}
		}
		if randmax == genmax {
			s.randnum, s.rmax = 0, 0
			return randnum, nil
		}
		excess := randmax - genmax
		unusable := excess % choices
		lastUsable := randmax - unusable
		reduced := randnum % choices
		if randnum <= lastUsable {
			s.randnum, s.rmax = randnum/choices, excess/choices
			return reduced, nil
		}
		randnum, randmax = reduced, unusable-1
	}
}

// failed reports a random source that ran out or could not be read.
func (s *randint) failed(r *run, err error) int {
	if r.ctx.Err() != nil {
		return 1
	}
	r.out.Flush()
	if errors.Is(err, io.EOF) {
		r.env.Errorf("%s: end of file", printfmt.LocaleQuote(s.name))
	} else {
		r.env.Errorf("%s: %s", printfmt.LocaleQuote(s.name), command.Strerror(err))
	}
	return 1
}
