package textutils

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"

	"strconv"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

// odSpec is one output format of od: its kind (a c d o u x), element size
// and printed field width.
type odSpec struct {
	kind  byte
	size  int
	width int
	pad   int
}

var odWidths = map[byte]map[int]int{
	'x': {1: 2, 2: 4, 4: 8, 8: 16},
	'o': {1: 3, 2: 6, 4: 11, 8: 22},
	'u': {1: 3, 2: 5, 4: 10, 8: 20},
	'd': {1: 4, 2: 6, 4: 11, 8: 20},
}

func parseOdType(s string) ([]odSpec, string) {
	var out []odSpec
	for len(s) > 0 {
		k := s[0]
		s = s[1:]
		switch k {
		case 'a', 'c':
			out = append(out, odSpec{kind: k, size: 1, width: 3})
		case 'd', 'o', 'u', 'x':
			size := 4
			if len(s) > 0 {
				switch s[0] {
				case 'C':
					size, s = 1, s[1:]
				case 'S':
					size, s = 2, s[1:]
				case 'I':
					size, s = 4, s[1:]
				case 'L':
					size, s = 8, s[1:]
				default:
					i := 0
					for i < len(s) && isDigit(s[i]) {
						i++
					}
					if i > 0 {
						n, _ := strconv.Atoi(s[:i])
						if _, ok := odWidths[k][n]; !ok {
							return nil, fmt.Sprintf("invalid type string %s;\nthis system doesn't provide a %d-byte integral type", quote(string(k)+s), n)
						}
						size, s = n, s[i:]
					}
				}
			}
			if len(s) > 0 && s[0] == 'z' {
				s = s[1:]
			}
			out = append(out, odSpec{kind: k, size: size, width: odWidths[k][size]})
		case 'f':
			return nil, "floating-point formats (-t f) are not supported in the runner; use -t x or -t d"
		default:
			return nil, fmt.Sprintf("invalid character '%c' in type string %s", k, quote(string(k)+s))
		}
	}
	return out, ""
}

var odNames = []string{"nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs", "ht", "nl", "vt", "ff", "cr", "so", "si",
	"dle", "dc1", "dc2", "dc3", "dc4", "nak", "syn", "etb", "can", "em", "sub", "esc", "fs", "gs", "rs", "us", "sp"}

func (s odSpec) format(b []byte) string {
	switch s.kind {
	case 'c':
		c := b[0]
		switch c {
		case 0:
			return `\0`
		case '\a':
			return `\a`
		case '\b':
			return `\b`
		case '\f':
			return `\f`
		case '\n':
			return `\n`
		case '\r':
			return `\r`
		case '\t':
			return `\t`
		case '\v':
			return `\v`
		}
		if c >= 32 && c < 127 {
			return string(c)
		}
		return fmt.Sprintf("%03o", c)
	case 'a':
		c := b[0] & 0x7f
		if c <= 32 {
			return odNames[c]
		}
		if c == 127 {
			return "del"
		}
		return string(c)
	}
	var u uint64
	switch s.size {
	case 1:
		u = uint64(b[0])
	case 2:
		u = uint64(binary.LittleEndian.Uint16(b))
	case 4:
		u = uint64(binary.LittleEndian.Uint32(b))
	case 8:
		u = binary.LittleEndian.Uint64(b)
	}
	switch s.kind {
	case 'x':
		return fmt.Sprintf("%0*x", s.width, u)
	case 'o':
		return fmt.Sprintf("%0*o", s.width, u)
	case 'u':
		return strconv.FormatUint(u, 10)
	}
	var v int64
	switch s.size {
	case 1:
		v = int64(int8(u))
	case 2:
		v = int64(int16(u))
	case 4:
		v = int64(int32(u))
	default:
		v = int64(u)
	}
	return strconv.FormatInt(v, 10)
}

var odCmdline = getopt.Spec{
	Options: []getopt.Option{
		{Short: 'A', Long: "address-radix", Arg: getopt.Required, ArgName: "RADIX"},
		{Short: 't', Long: "format", Arg: getopt.Required, ArgName: "TYPE"},
		{Short: 'N', Long: "read-bytes", Arg: getopt.Required, ArgName: "BYTES"},
		{Short: 'j', Long: "skip-bytes", Arg: getopt.Required, ArgName: "BYTES"}, {Short: 'v', Long: "output-duplicates"},
		{Short: 'w', Long: "width", Arg: getopt.Optional, ArgName: "BYTES"}, {Short: 'c', Key: "tc"},
		{Short: 'x', Key: "tx2"}, {Short: 'o', Key: "to2"}, {Short: 'd', Key: "tu2"}, {Short: 'b', Key: "to1"},
		{Short: 'i', Key: "td4"}, {Short: 'l', Key: "td8"}, {Short: 's', Key: "td2"}, {Short: 'a', Key: "ta"},
		{Short: 'h', Key: "tx2"}, {Short: 'B', Key: "to2"}, {Short: 'D', Key: "tu4"}, {Short: 'O', Key: "to4"},
		{Short: 'X', Key: "tx4"}, {Short: 'H', Key: "tx4"}, {Short: 'e', Key: "tf"}, {Short: 'f', Key: "tf"},
		{Long: "endian", Arg: getopt.Required, ArgName: "ORDER"},
		{Short: 'S', Long: "strings", Arg: getopt.Optional, ArgName: "BYTES"},
	},
}

// Od implements od.
func Od(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	flags, operands, st, ok := odCmdline.Run(env)
	if !ok {
		return st
	}
	radix := byte('o')
	var specs []odSpec
	limit, skip := int64(-1), int64(0)
	dups := false
	width := 16
	for _, f := range flags {
		switch {
		case f.Key == "address-radix":
			if len(f.Value) != 1 || !strings.Contains("doxn", f.Value) {
				env.Errorf("invalid output address radix '%s'; it must be one character from [doxn]", f.Value)
				return 1
			}
			radix = f.Value[0]
		case f.Key == "format" || f.Key[0] == 't' && len(f.Key) <= 3:
			t := f.Value
			if f.Key != "format" {
				t = f.Key[1:]
			}
			s, msg := parseOdType(t)
			if msg != "" {
				env.Errorf("%s", msg)
				return 1
			}
			specs = append(specs, s...)
		case f.Key == "read-bytes" || f.Key == "skip-bytes":
			n, err := parseOdNumber(f.Value)
			if err != nil {
				env.Errorf("invalid %s argument %s", map[string]string{"read-bytes": "-N", "skip-bytes": "-j"}[f.Key], quote(f.Value))
				return 1
			}
			if f.Key == "read-bytes" {
				limit = n
			} else {
				skip = n
			}
		case f.Key == "output-duplicates":
			dups = true
		case f.Key == "width":
			width = 32
			if f.HasValue {
				n, err := strconv.Atoi(f.Value)
				if err != nil || n < 1 {
					env.Errorf("invalid -w argument %s", quote(f.Value))
					return 1
				}
				width = n
			}
		case f.Key == "endian" || f.Key == "strings":
			env.Errorf("--%s is not supported in the runner", f.Key)
			return 1
		}
	}
	if len(specs) == 0 {
		specs = []odSpec{{kind: 'o', size: 2, width: 6}}
	}
	for _, s := range specs {
		if width%s.size != 0 {
			env.Errorf("warning: invalid width %d; using %d instead", width, s.size)
			width = s.size
		}
	}
	perBlock := 0
	for _, s := range specs {
		perBlock = max(perBlock, (s.width+1)*(width/s.size))
	}
	for i := range specs {
		specs[i].pad = perBlock - specs[i].width*(width/specs[i].size)
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	status := 0
	var readers []io.Reader
	for _, name := range operands {
		f, err := r.open(name)
		if err != nil {
			env.Errorf("%s: %s", name, command.Strerror(err))
			status = 1
			continue
		}
		defer f.Close()
		readers = append(readers, &ctxReader{r: f, ctx: ctx})
	}
	if len(readers) == 0 {
		return r.finish(status)
	}
	in := io.MultiReader(readers...)
	if skip > 0 {
		n, err := io.CopyN(io.Discard, in, skip)
		if n < skip {
			if err != nil && err != io.EOF {
				env.Errorf("%s", command.Strerror(err))
				return 1
			}
			env.Errorf("cannot skip past end of combined input")
			return 1
		}
	}
	if limit >= 0 {
		in = io.LimitReader(in, limit)
	}
	in = bufio.NewReaderSize(in, 64<<10)
	addr := func(off int64) string {
		switch radix {
		case 'd':
			return fmt.Sprintf("%07d", off)
		case 'x':
			return fmt.Sprintf("%06x", off)
		case 'n':
			return ""
		}
		return fmt.Sprintf("%07o", off)
	}
	var prev []byte
	starred := false
	buf := make([]byte, width)
	off := 0
	for !r.stopped() {
		n, err := io.ReadFull(in, buf)
		if n == 0 {
			if err != nil && err != io.EOF && r.ctx.Err() == nil {
				env.Errorf("read error: %s", command.Strerror(err))
				status = 1
			}
			break
		}
		line := buf[:n]
		if !dups && prev != nil && n == width && bytes.Equal(line, prev) {
			if !starred {
				r.out.WriteString("*\n")
				starred = true
			}
			off += n
			continue
		}
		starred = false
		prev = append(prev[:0], line...)
		a := addr(skip + int64(off))
		for si, s := range specs {
			if si == 0 {
				r.out.WriteString(a)
			} else {
				r.out.WriteString(strings.Repeat(" ", len(a)))
			}
			fields := width / s.size
			padLeft := s.pad
			cnt := (len(line) + s.size - 1) / s.size
			for i := 0; i < cnt; i++ {
				elem := line[i*s.size : min((i+1)*s.size, len(line))]
				if len(elem) < s.size {
					elem = append(append([]byte(nil), elem...), make([]byte, s.size-len(elem))...)
				}
				next := s.pad * (fields - i - 1) / fields
				field := s.format(elem)
				for k := len(field); k < padLeft-next+s.width; k++ {
					r.out.WriteByte(' ')
				}
				r.out.WriteString(field)
				padLeft = next
			}
			r.out.WriteByte('\n')
		}
		off += n
		if n < width {
			break
		}
	}
	if r.ctx.Err() != nil {
		return r.finish(1)
	}
	data := off
	if radix != 'n' {
		r.out.WriteString(addr(skip + int64(data)))
		r.out.WriteByte('\n')
	}
	return r.finish(status)
}

// parseOdNumber reads od's byte counts: decimal, 0x hex, 0 octal, with
// b, k, m suffixes.
func parseOdNumber(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "b"):
		mult, s = 512, s[:len(s)-1]
	case strings.HasSuffix(s, "k") || strings.HasSuffix(s, "K"):
		mult, s = 1024, s[:len(s)-1]
	case strings.HasSuffix(s, "m") || strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("textutils: bad count %q", s)
	}
	return n * mult, nil
}
