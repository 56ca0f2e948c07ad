package textutils

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

// parseSize reads a count with GNU's optional multiplier suffix (b, kB, K,
// KiB, MB, M, …).
func parseSize(s string) (int64, error) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, errors.New("invalid number")
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		// Too large: saturate, as GNU does for counts.
		n = 1<<63 - 1
	}
	suf := s[i:]
	if suf == "" {
		return n, nil
	}
	mult := int64(0)
	if suf == "b" {
		mult = 512
	} else {
		powers := "KMGTPEZYRQ"
		unit := strings.ToUpper(suf[:1])
		if suf[0] == 'k' {
			unit = "K"
		}
		p := strings.Index(powers, unit)
		if p < 0 {
			return 0, errors.New("invalid suffix")
		}
		base := int64(1024)
		switch suf[1:] {
		case "", "iB":
		case "B":
			base = 1000
		default:
			return 0, errors.New("invalid suffix")
		}
		mult = 1
		for k := 0; k <= p; k++ {
			if mult > (1<<63-1)/base {
				mult = 1<<63 - 1
				break
			}
			mult *= base
		}
	}
	if n != 0 && mult > (1<<63-1)/n {
		return 1<<63 - 1, nil
	}
	return n * mult, nil
}

// obsoleteCount rewrites head/tail's "-5" (and tail's "+5", "-5c") first
// argument into the modern form.
func obsoleteCount(args []string, plus bool) []string {
	if len(args) < 2 {
		return args
	}
	a := args[1]
	if len(a) < 2 || (a[0] != '-' && !(plus && a[0] == '+')) {
		return args
	}
	digits := a[1:]
	unit := "-n"
	if n := len(digits); n > 0 && strings.ContainsRune("cbkml", rune(digits[n-1])) && n > 1 {
		if digits[n-1] == 'c' {
			unit = "-c"
			digits = digits[:n-1]
		} else if digits[n-1] == 'l' {
			digits = digits[:n-1]
		}
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return args
		}
	}
	if digits == "" {
		return args
	}
	if a[0] == '+' {
		digits = "+" + digits
	}
	out := append([]string{args[0], unit, digits}, args[2:]...)
	return out
}

type headTailOpts struct {
	bytes    bool
	count    int64
	sign     byte // '-' for head's all-but-last, '+' for tail's from-start
	headers  int  // 0 auto, 1 never, 2 always
	delim    byte
	operands []string
}

var headSpec = getopt.Spec{Options: []getopt.Option{
	{Short: 'n', Long: "lines", Arg: getopt.Required, ArgName: "[-]NUM"},
	{Short: 'c', Long: "bytes", Arg: getopt.Required, ArgName: "[-]NUM"}, {Short: 'q', Long: "quiet"},
	{Long: "silent", Key: "quiet"}, {Short: 'v', Long: "verbose"}, {Short: 'z', Long: "zero-terminated"},
}}

var tailSpec = getopt.Spec{Options: []getopt.Option{
	{Short: 'n', Long: "lines", Arg: getopt.Required, ArgName: "[+]NUM"},
	{Short: 'c', Long: "bytes", Arg: getopt.Required, ArgName: "[+]NUM"}, {Short: 'q', Long: "quiet"},
	{Long: "silent", Key: "quiet"}, {Short: 'v', Long: "verbose"}, {Short: 'z', Long: "zero-terminated"},
	{Short: 'f', Key: "follow"}, {Long: "follow", Arg: getopt.Optional, ArgName: "{name|descriptor}"},
	{Short: 'F', Key: "follow"}, {Long: "retry"}, {Short: 's', Long: "sleep-interval", Arg: getopt.Required, ArgName: "N"},
	{Long: "pid", Arg: getopt.Required, ArgName: "PID"},
}}

func parseHeadTail(r *run, isTail bool) (headTailOpts, int, bool) {
	o := headTailOpts{count: 10, delim: '\n'}
	spec := &headSpec
	if isTail {
		spec = &tailSpec
	}
	r.env.Args = obsoleteCount(r.env.Args, isTail)
	flags, operands, st, ok := spec.Run(r.env)
	if !ok {
		return o, st, false
	}
	for _, f := range flags {
		switch f.Key {
		case "lines", "bytes":
			o.bytes = f.Key == "bytes"
			v := f.Value
			o.sign = 0
			if v != "" && (v[0] == '-' || v[0] == '+') {
				o.sign = v[0]
				v = v[1:]
			}
			n, err := parseSize(v)
			what := "lines"
			if o.bytes {
				what = "bytes"
			}
			if err != nil {
				r.env.Errorf("invalid number of %s: %s", what, quote(f.Value))
				return o, 1, false
			}
			o.count = n
			if isTail && o.sign == '-' {
				o.sign = 0
			}
			if !isTail && o.sign == '+' {
				o.sign = 0
			}
		case "quiet":
			o.headers = 1
		case "verbose":
			o.headers = 2
		case "zero-terminated":
			o.delim = 0
		case "follow":
			r.env.Errorf("following files (-f) is not supported: a runner command sees a fixed snapshot; read the file again in a later command")
			return o, 1, false
		}
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	o.operands = operands
	return o, 0, true
}

// Head implements head.
func Head(ctx context.Context, env *command.Env) int {
	return headTail(ctx, env, false)
}

// Tail implements tail (without -f: a command sees a fixed snapshot).
func Tail(ctx context.Context, env *command.Env) int {
	return headTail(ctx, env, true)
}

func headTail(ctx context.Context, env *command.Env, isTail bool) int {
	r := newRun(ctx, env)
	o, st, ok := parseHeadTail(r, isTail)
	if !ok {
		return st
	}
	status := 0
	showHeaders := o.headers == 2 || (o.headers == 0 && len(o.operands) > 1)
	first := true
	for _, name := range o.operands {
		if r.stopped() {
			break
		}
		f, err := r.open(name)
		if err != nil {
			env.Errorf("cannot open %s for reading: %s", quote(name), command.Strerror(err))
			status = 1
			continue
		}
		if showHeaders {
			display := name
			if name == "-" {
				display = "standard input"
			}
			if !first {
				r.out.WriteByte('\n')
			}
			fmt.Fprintf(r.out, "==> %s <==\n", display)
		}
		first = false
		if isTail {
			err = r.tailOne(f, o)
		} else {
			err = r.headOne(f, o)
		}
		f.Close()
		if err != nil && r.ctx.Err() == nil && r.sink.err == nil {
			env.Errorf("error reading %s: %s", quote(name), command.Strerror(err))
			status = 1
		}
	}
	return r.finish(status)
}

func (r *run) headOne(f io.Reader, o headTailOpts) error {
	br := bufio.NewReaderSize(f, 64<<10)
	switch {
	case o.bytes && o.sign == 0:
		_, err := io.CopyN(r.out, &ctxReader{r: br, ctx: r.ctx}, o.count)
		if err == io.EOF {
			err = nil
		}
		return err
	case !o.bytes && o.sign == 0:
		for n := int64(0); n < o.count; n++ {
			if r.stopped() {
				return nil
			}
			line, err := br.ReadSlice(o.delim)
			r.out.Write(line)
			if err == bufio.ErrBufferFull {
				n--
				continue
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	// All but the last count bytes or lines: read everything.
	data, err := r.readAll(br)
	if err != nil {
		return err
	}
	if o.bytes {
		if int64(len(data)) > o.count {
			r.out.Write(data[:int64(len(data))-o.count])
		}
		return nil
	}
	ends := lineEnds(data, o.delim)
	keep := int64(len(ends)) - o.count
	if keep > 0 {
		r.out.Write(data[:ends[keep-1]])
	}
	return nil
}

// lineEnds returns the offset just past each line (the last line may lack
// its delimiter).
func lineEnds(data []byte, delim byte) []int {
	var ends []int
	off := 0
	for off < len(data) {
		i := bytes.IndexByte(data[off:], delim)
		if i < 0 {
			ends = append(ends, len(data))
			break
		}
		off += i + 1
		ends = append(ends, off)
	}
	return ends
}

// tailSeek serves tail -n N and -c N of a regular file from its end,
// without reading the rest; ok is false when f cannot seek.
func (r *run) tailSeek(f io.Reader, o headTailOpts) (bool, error) {
	rs, isSeeker := f.(io.ReadSeeker)
	st, isStat := f.(interface{ Stat() (fs.FileInfo, error) })
	if !isSeeker || !isStat || o.sign == '+' {
		return false, nil
	}
	fi, err := st.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return false, nil
	}
	size := fi.Size()
	start := int64(0)
	if o.bytes {
		start = max(size-o.count, 0)
	} else {
		// Walk back block by block counting delimiters; a final line
		// without its delimiter counts as a line.
		const block = 64 << 10
		buf := make([]byte, block)
		need := o.count
		pos := size
		first := true
		start = 0
		for pos > 0 && need >= 0 {
			if r.ctx.Err() != nil {
				return true, r.ctx.Err()
			}
			n := min(block, pos)
			pos -= n
			if _, err := rs.Seek(pos, io.SeekStart); err != nil {
				return false, nil
			}
			if _, err := io.ReadFull(rs, buf[:n]); err != nil {
				return true, err
			}
			chunk := buf[:n]
			for i := len(chunk) - 1; i >= 0; i-- {
				if chunk[i] != o.delim {
					continue
				}
				if first && pos+int64(i) == size-1 {
					continue // the last line's own delimiter
				}
				need--
				if need == 0 {
					start = pos + int64(i) + 1
					pos = 0
					break
				}
			}
			first = false
		}
		if o.count == 0 {
			start = size
		}
	}
	if _, err := rs.Seek(start, io.SeekStart); err != nil {
		return false, nil
	}
	_, err = io.Copy(r.out, &ctxReader{r: rs, ctx: r.ctx})
	return true, err
}

func (r *run) tailOne(f io.Reader, o headTailOpts) error {
	if done, err := r.tailSeek(f, o); done {
		return err
	}
	data, err := r.readAll(f)
	if err != nil {
		return err
	}
	if o.bytes {
		if o.sign == '+' {
			start := o.count - 1
			if start < 0 {
				start = 0
			}
			if start < int64(len(data)) {
				r.out.Write(data[start:])
			}
			return nil
		}
		if o.count < int64(len(data)) {
			data = data[int64(len(data))-o.count:]
		}
		r.out.Write(data)
		return nil
	}
	ends := lineEnds(data, o.delim)
	if o.sign == '+' {
		start := o.count - 1
		if start < 0 {
			start = 0
		}
		if start < int64(len(ends)) {
			from := 0
			if start > 0 {
				from = ends[start-1]
			}
			r.out.Write(data[from:])
		}
		return nil
	}
	from := 0
	if skip := int64(len(ends)) - o.count; skip > 0 {
		from = ends[skip-1]
	}
	r.out.Write(data[from:])
	return nil
}

// ctxReader stops a copy once the context is done.
type ctxReader struct {
	r   io.Reader
	ctx context.Context
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
