package textutils

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/bits"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

var cmpSpec = getopt.Spec{
	Usage: []string{"[OPTION]... FILE1 [FILE2 [SKIP1 [SKIP2]]]"},
	// diffutils names the command on its "Try" line too, and exits 2.
	Fail: func(name string, w getopt.Writer, msg string) int {
		fmt.Fprintf(w, "%s: %s\n%s: Try '%s --help' for more information.\n", name, msg, name, name)
		return 2
	},
	Options: []getopt.Option{
		{Short: 'b', Long: "print-bytes"}, {Short: 'i', Long: "ignore-initial", Arg: getopt.Required, ArgName: "SKIP1[:SKIP2]"},
		{Short: 'l', Long: "verbose"}, {Short: 'n', Long: "bytes", Arg: getopt.Required, ArgName: "LIMIT"},
		{Short: 's', Long: "quiet", Key: "quiet"}, {Long: "silent", Key: "quiet"},
		{Short: 'v', Long: "version"},
	},
}

// Cmp implements GNU diffutils 3.8's cmp: compare two files byte by byte.
// Exit 0 when they are the same, 1 when they differ, 2 on trouble.
func Cmp(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	flags, operands, st, ok := cmpSpec.Run(env)
	if !ok {
		return st
	}
	usage := func(format string, a ...any) int { return cmpSpec.Usagef(env, format, a...) }
	var c cmpJob
	c.limit = math.MaxInt64
	for _, f := range flags {
		switch f.Key {
		case "print-bytes":
			c.printBytes = true
		case "ignore-initial":
			s := f.Value
			n, rest, ok := cmpSkip(s)
			if !ok {
				return usage("invalid --ignore-initial value %s", quote(rest))
			}
			c.skip[0] = max(c.skip[0], n)
			if strings.HasPrefix(rest, ":") {
				n2, rest2, ok := cmpSkip(rest[1:])
				if !ok || rest2 != "" {
					return usage("invalid --ignore-initial value %s", quote(rest2))
				}
				c.skip[1] = max(c.skip[1], n2)
			} else if c.skip[1] < c.skip[0] {
				c.skip[1] = c.skip[0]
			}
		case "verbose":
			c.verbose = true
		case "bytes":
			n, rest, ok := cmpSkip(f.Value)
			if !ok || rest != "" {
				return usage("invalid --bytes value %s", quote(f.Value))
			}
			c.limit = min(c.limit, n)
		case "quiet":
			c.silent = true
		case "version":
			fmt.Fprintln(env.Stdout, cmpSpec.VersionText(env.Name()))
			return 0
		}
	}
	if c.verbose && c.silent {
		return usage("options -l and -s are incompatible")
	}
	if len(operands) == 0 {
		return usage("missing operand after %s", quote(env.Name()))
	}
	c.names = [2]string{operands[0], "-"}
	if len(operands) > 1 {
		c.names[1] = operands[1]
	}
	for i := 2; i < len(operands) && i < 4; i++ {
		n, rest, ok := cmpSkip(operands[i])
		if !ok || rest != "" {
			return usage("invalid --ignore-initial value %s", quote(operands[i]))
		}
		c.skip[i-2] = max(c.skip[i-2], n)
	}
	if len(operands) > 4 {
		return usage("extra operand %s", quote(operands[4]))
	}
	return c.run(r)
}

// cmpSkip reads a count as GNU's xstrtoumax with cmp's suffixes: a
// decimal, 0x hexadecimal or 0 octal number, then optionally k K M G T P E
// Z Y (powers of 1024; with B, of 1000; with iB, of 1024). It returns the
// number and what follows it when that is a ":SKIP2" part; ok is false
// when the number or its suffix is invalid, rest then being s.
func cmpSkip(s string) (n int64, rest string, ok bool) {
	base, start := 10, 0
	if len(s) > 1 && s[0] == '0' {
		if (s[1] == 'x' || s[1] == 'X') && len(s) > 2 && digitValue(s[2]) < 16 {
			base, start = 16, 2
		} else {
			base, start = 8, 1
		}
	}
	i := start
	for i < len(s) && digitValue(s[i]) < base {
		i++
	}
	if i == 0 {
		return 0, s, false
	}
	v := uint64(0)
	if i > start {
		var err error
		if v, err = strconv.ParseUint(s[start:i], base, 64); err != nil {
			return 0, s, false
		}
	}
	suffix := s[i:]
	if j := strings.IndexByte(suffix, ':'); j >= 0 {
		suffix, rest = suffix[:j], suffix[j:]
	}
	if suffix != "" {
		p := strings.IndexByte("KMGTPEZY", suffix[0])
		if suffix[0] == 'k' {
			p = 0
		}
		if p < 0 {
			return 0, s, false
		}
		mult := uint64(1024)
		switch suffix[1:] {
		case "", "iB":
		case "B":
			mult = 1000
		default:
			return 0, s, false
		}
		for range p + 1 {
			hi, lo := bits.Mul64(v, mult)
			if hi != 0 {
				return 0, s, false
			}
			v = lo
		}
	}
	if v > math.MaxInt64 {
		return 0, s, false
	}
	return int64(v), rest, true
}

// digitValue is the value of an ASCII digit or letter in bases up to 36,
// 99 for anything else.
func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 99
}

// cmpJob is one comparison.
type cmpJob struct {
	names      [2]string
	skip       [2]int64
	limit      int64
	printBytes bool
	verbose    bool
	silent     bool
}

func (c *cmpJob) run(r *run) int {
	env := r.env
	var in [2]io.Reader
	var size [2]int64 // bytes left after the skip in a regular file; -1 otherwise
	var infos [2]fs.FileInfo
	for i, name := range c.names {
		size[i] = -1
		if name == "-" {
			in[i] = env.Stdin
			continue
		}
		fi, err := env.FS.Stat(name)
		var f command.File
		if err == nil && fi.IsDir() {
			err = &fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR}
		} else if err == nil {
			f, err = env.FS.Open(name)
		}
		if err != nil {
			if !c.silent {
				env.Errorf("%s: %s", name, command.Strerror(err))
			}
			return 2
		}
		defer f.Close()
		in[i], infos[i] = f, fi
		if fi.Mode().IsRegular() {
			size[i] = max(fi.Size()-c.skip[i], 0)
		}
	}
	// The same file with the same skip is the same, as GNU decides without
	// reading it.
	if infos[0] != nil && infos[1] != nil && c.skip[0] == c.skip[1] && os.SameFile(infos[0], infos[1]) {
		return 0
	}
	var rd [2]*bufio.Reader
	for i := range in {
		if err := skipBytes(r.ctx, in[i], c.skip[i]); err != nil {
			if r.ctx.Err() != nil {
				return 2
			}
			if !c.silent {
				env.Errorf("%s: %s", c.names[i], command.Strerror(err))
			}
			return 2
		}
		rd[i] = bufio.NewReaderSize(in[i], 64<<10)
	}
	width := 1
	if c.verbose {
		most := c.limit
		for _, s := range size {
			if s >= 0 && s < most {
				most = s
			}
		}
		for most /= 10; most != 0; most /= 10 {
			width++
		}
	}
	var offset int64 // bytes compared and equal so far (or compared, in -l)
	var lines int64  // newlines among them
	differed := false
	lastNL := false // the last byte compared was a newline
	for offset < c.limit {
		if r.stopped() {
			return 2
		}
		var bufs [2][]byte
		var errs [2]error
		for i := range rd {
			bufs[i], errs[i] = rd[i].Peek(rd[i].Size())
			if errs[i] == bufio.ErrBufferFull {
				errs[i] = nil
			}
			if errs[i] != nil && errs[i] != io.EOF {
				if !c.silent {
					env.Errorf("%s: %s", c.names[i], command.Strerror(errs[i]))
				}
				return 2
			}
		}
		n := min(len(bufs[0]), len(bufs[1]))
		if int64(n) > c.limit-offset {
			n = int(c.limit - offset)
		}
		if n == 0 {
			if len(bufs[0]) == len(bufs[1]) {
				break // both ended
			}
			// One file ended first.
			short := 0
			if len(bufs[1]) == 0 {
				short = 1
			}
			if !c.silent {
				r.out.Flush()
				switch {
				case offset == 0:
					fmt.Fprintf(env.Stderr, "%s: EOF on %s which is empty\n", env.Name(), c.names[short])
				case c.verbose:
					fmt.Fprintf(env.Stderr, "%s: EOF on %s after byte %d\n", env.Name(), c.names[short], offset)
				default:
					line := lines + 1
					if lastNL {
						line--
					}
					fmt.Fprintf(env.Stderr, "%s: EOF on %s after byte %d, line %d\n", env.Name(), c.names[short], offset, line)
				}
			}
			return r.finish(1)
		}
		a, b := bufs[0][:n], bufs[1][:n]
		if !c.verbose {
			i := 0
			for i < n && a[i] == b[i] {
				i++
			}
			if i < n {
				if c.silent {
					return 1
				}
				lines += int64(bytes.Count(a[:i], []byte{'\n'}))
				if c.printBytes {
					fmt.Fprintf(r.out, "%s %s differ: byte %d, line %d is %3o %s %3o %s\n", c.names[0], c.names[1],
						offset+int64(i)+1, lines+1, a[i], cmpChar(a[i]), b[i], cmpChar(b[i]))
				} else {
					fmt.Fprintf(r.out, "%s %s differ: byte %d, line %d\n", c.names[0], c.names[1], offset+int64(i)+1, lines+1)
				}
				return r.finish(1)
			}
			lines += int64(bytes.Count(a, []byte{'\n'}))
		} else {
			for i := range n {
				if a[i] != b[i] {
					differed = true
					if c.printBytes {
						fmt.Fprintf(r.out, "%*d %3o %-4s %3o %s\n", width, offset+int64(i)+1, a[i], cmpChar(a[i]), b[i], cmpChar(b[i]))
					} else {
						fmt.Fprintf(r.out, "%*d %3o %3o\n", width, offset+int64(i)+1, a[i], b[i])
					}
				}
			}
			if r.sink.err != nil {
				return r.finish(2)
			}
		}
		lastNL = a[n-1] == '\n'
		offset += int64(n)
		for i := range rd {
			rd[i].Discard(n)
		}
	}
	if differed {
		return r.finish(1)
	}
	return r.finish(0)
}

// skipBytes reads and drops n bytes of rd (seeking when it can).
func skipBytes(ctx context.Context, rd io.Reader, n int64) error {
	if n == 0 {
		return nil
	}
	if s, ok := rd.(io.Seeker); ok {
		if _, err := s.Seek(n, io.SeekCurrent); err == nil {
			return nil
		}
	}
	buf := make([]byte, 32<<10)
	for n > 0 {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		k, err := rd.Read(buf[:min(int64(len(buf)), n)])
		n -= int64(k)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// cmpChar renders a byte as cmp's sprintc: printable ASCII as itself,
// M- for the high bit, ^X for control characters, ^? for DEL.
func cmpChar(c byte) string {
	var b strings.Builder
	if c >= 128 {
		b.WriteString("M-")
		c -= 128
	}
	switch {
	case c < 32:
		b.WriteByte('^')
		b.WriteByte(c + 64)
	case c == 127:
		b.WriteString("^?")
	default:
		b.WriteByte(c)
	}
	return b.String()
}
