package textutils

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

var stringsSpec = getopt.Spec{
	Options: []getopt.Option{
		{Short: 'n', Long: "bytes", Arg: getopt.Required, ArgName: "MIN-LEN"}, {Short: 'a', Long: "all"},
		{Short: 't', Long: "radix", Arg: getopt.Required, ArgName: "{o,d,x}"}, {Short: 'o', Key: "octal"},
		{Short: 'f', Long: "print-file-name"}, {Short: 'd', Long: "data"}, {Short: 'w', Long: "include-all-whitespace"},
		{Short: 'e', Long: "encoding", Arg: getopt.Required, ArgName: "ENCODING"},
		{Short: 's', Long: "output-separator", Arg: getopt.Required, ArgName: "STRING"},
	},
}

// Strings implements strings (binutils): runs of at least N printable
// characters (ASCII 32–126 and tab).
func Strings(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	args := env.Args
	if len(args) > 1 && len(args[1]) > 1 && args[1][0] == '-' && isDigit(args[1][1]) {
		env.Args = append([]string{args[0], "-n", args[1][1:]}, args[2:]...)
	}
	flags, operands, st, ok := stringsSpec.Run(env)
	if !ok {
		return st
	}
	minLen := 4
	radix := byte(0)
	printName, allWS := false, false
	sep := "\n"
	for _, f := range flags {
		switch f.Key {
		case "bytes":
			n, err := strconv.Atoi(f.Value)
			if err != nil || n < 1 {
				env.Errorf("invalid minimum string length %s", f.Value)
				return 1
			}
			minLen = n
		case "radix":
			if f.Value != "o" && f.Value != "d" && f.Value != "x" {
				env.Errorf("invalid radix")
				return 1
			}
			radix = f.Value[0]
		case "octal":
			radix = 'o'
		case "print-file-name":
			printName = true
		case "include-all-whitespace":
			allWS = true
		case "encoding":
			if f.Value != "s" {
				env.Errorf("encoding %s is not supported in the runner", quote(f.Value))
				return 1
			}
		case "output-separator":
			sep = f.Value
		}
	}
	printable := func(c byte) bool {
		return c >= 32 && c < 127 || c == '\t' || allWS && (c == '\n' || c == '\r' || c == '\v' || c == '\f')
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	status := 0
	for _, name := range operands {
		if name != "-" {
			if fi, err := env.FS.Stat(name); err == nil && fi.IsDir() {
				env.Errorf("Warning: '%s' is a directory", name)
				status = 1
				continue
			}
		}
		data, err := r.readFile(name)
		if err != nil {
			if r.ctx.Err() != nil {
				return 1
			}
			env.Errorf("'%s': No such file", name)
			status = 1
			continue
		}
		emit := func(start, end int) {
			if printName {
				fmt.Fprintf(r.out, "%s: ", name)
			}
			switch radix {
			case 'o':
				fmt.Fprintf(r.out, "%7o ", start)
			case 'd':
				fmt.Fprintf(r.out, "%7d ", start)
			case 'x':
				fmt.Fprintf(r.out, "%7x ", start)
			}
			r.out.Write(data[start:end])
			r.out.WriteString(sep)
		}
		start := -1
		for i, c := range data {
			if i&4095 == 0 && r.stopped() {
				break
			}
			if printable(c) {
				if start < 0 {
					start = i
				}
				continue
			}
			if start >= 0 && i-start >= minLen {
				emit(start, i)
			}
			start = -1
		}
		if start >= 0 && len(data)-start >= minLen {
			emit(start, len(data))
		}
	}
	return r.finish(status)
}

// splitNamer yields split's output names: aa, ab, … yz, zaaa, … (or 00,
// 01, … 89, 9000, … with -d) unless the suffix length is fixed.
type splitNamer struct {
	prefix, extra string
	alphabet      string
	length        int
	fixed         bool
	n             int
	base          int // index where the current length starts
}

func (s *splitNamer) next() (string, bool) {
	k := len(s.alphabet)
	idx := s.n - s.base
	capacity := 1
	for i := 0; i < s.length; i++ {
		capacity *= k
	}
	if !s.fixed && idx >= capacity-capacity/k {
		// Widen: the last first-letter becomes a fixed prefix.
		s.prefix += s.alphabet[k-1:]
		s.base += capacity - capacity/k
		s.length++
		idx = s.n - s.base
		capacity *= k
	}
	if idx >= capacity {
		return "", false
	}
	s.n++
	suffix := make([]byte, s.length)
	for i := s.length - 1; i >= 0; i-- {
		suffix[i] = s.alphabet[idx%k]
		idx /= k
	}
	return s.prefix + string(suffix) + s.extra, true
}

var splitSpec = getopt.Spec{
	Options: []getopt.Option{
		{Short: 'l', Long: "lines", Arg: getopt.Required, ArgName: "NUMBER"},
		{Short: 'b', Long: "bytes", Arg: getopt.Required, ArgName: "SIZE"},
		{Short: 'C', Long: "line-bytes", Arg: getopt.Required, ArgName: "SIZE"},
		{Short: 'n', Long: "number", Arg: getopt.Required, ArgName: "CHUNKS"}, {Short: 'd', Key: "numeric"},
		{Long: "numeric-suffixes", Arg: getopt.Optional, Key: "numeric", ArgName: "FROM"}, {Short: 'x', Key: "hex"},
		{Long: "hex-suffixes", Arg: getopt.Optional, Key: "hex", ArgName: "FROM"},
		{Short: 'a', Long: "suffix-length", Arg: getopt.Required, ArgName: "N"},
		{Long: "additional-suffix", Arg: getopt.Required, ArgName: "SUFFIX"}, {Short: 'e', Long: "elide-empty-files"},
		{Short: 't', Long: "separator", Arg: getopt.Required, ArgName: "SEP"}, {Long: "verbose"},
		{Short: 'u', Long: "unbuffered"}, {Long: "filter", Arg: getopt.Required, ArgName: "COMMAND"},
	},
}

// Split implements split.
func Split(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	args := env.Args
	if len(args) > 1 && len(args[1]) > 1 && args[1][0] == '-' && isDigit(args[1][1]) {
		env.Args = append([]string{args[0], "-l", args[1][1:]}, args[2:]...)
	}
	flags, operands, st, ok := splitSpec.Run(env)
	if !ok {
		return st
	}
	mode := byte('l')
	var count int64 = 1000
	chunkSpec := ""
	namer := &splitNamer{prefix: "x", alphabet: "abcdefghijklmnopqrstuvwxyz", length: 2}
	elide, verbose := false, false
	sep := byte('\n')
	for _, f := range flags {
		switch f.Key {
		case "lines", "bytes", "line-bytes":
			n, err := parseSize(f.Value)
			if err != nil || n <= 0 {
				what := map[string]string{"lines": "number of lines", "bytes": "number of bytes", "line-bytes": "number of bytes"}[f.Key]
				env.Errorf("invalid %s: %s", what, quote(f.Value))
				return 1
			}
			mode, count = f.Key[0], n
			if f.Key == "line-bytes" {
				mode = 'C'
			}
		case "number":
			mode, chunkSpec = 'n', f.Value
		case "numeric", "hex":
			namer.alphabet = "0123456789"
			if f.Key == "hex" {
				namer.alphabet = "0123456789abcdef"
			}
			if f.HasValue {
				start, err := strconv.Atoi(f.Value)
				if err != nil || start < 0 {
					env.Errorf("invalid start value for numerical suffix: %s", quote(f.Value))
					return 1
				}
				namer.n, namer.fixed = start, true
			}
		case "suffix-length":
			n, err := strconv.Atoi(f.Value)
			if err != nil || n < 0 {
				env.Errorf("invalid suffix length: %s", quote(f.Value))
				return 1
			}
			namer.length, namer.fixed = max(n, 1), true
		case "additional-suffix":
			if strings.Contains(f.Value, "/") {
				env.Errorf("invalid suffix %s, contains directory separator", quote(f.Value))
				return 1
			}
			namer.extra = f.Value
		case "elide-empty-files":
			elide = true
		case "separator":
			if len(f.Value) != 1 {
				if f.Value == "\\0" {
					sep = 0
					continue
				}
				env.Errorf("multi-character separator %s", quote(f.Value))
				return 1
			}
			sep = f.Value[0]
		case "verbose":
			verbose = true
		case "filter":
			env.Errorf("--filter runs a shell, which the runner does not offer")
			return 1
		}
	}
	if len(operands) > 2 {
		return r.usage(1, "extra operand %s", quote(operands[2]))
	}
	input := "-"
	if len(operands) > 0 {
		input = operands[0]
	}
	if len(operands) > 1 {
		namer.prefix = operands[1]
	}
	data, err := r.readFile(input)
	if err != nil {
		if r.ctx.Err() != nil {
			return 1
		}
		env.Errorf("cannot open %s for reading: %s", quote(input), command.Strerror(err))
		return 1
	}
	write := func(chunk []byte) bool {
		name, ok := namer.next()
		if !ok {
			env.Errorf("output file suffixes exhausted")
			return false
		}
		if verbose {
			fmt.Fprintf(env.Stdout, "creating file %s\n", quote(name))
		}
		f, err := r.create(name, false)
		if err != nil {
			env.Errorf("%s: %s", name, command.Strerror(err))
			return false
		}
		_, err = f.Write(chunk)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			env.Errorf("%s: %s", name, command.Strerror(err))
			return false
		}
		return true
	}
	switch mode {
	case 'l':
		for len(data) > 0 && !r.stopped() {
			end := 0
			for n := int64(0); n < count && end < len(data); n++ {
				i := bytes.IndexByte(data[end:], sep)
				if i < 0 {
					end = len(data)
					break
				}
				end += i + 1
			}
			if !write(data[:end]) {
				return 1
			}
			data = data[end:]
		}
	case 'b':
		for len(data) > 0 && !r.stopped() {
			n := int(min(count, int64(len(data))))
			if !write(data[:n]) {
				return 1
			}
			data = data[n:]
		}
	case 'C':
		for len(data) > 0 && !r.stopped() {
			n := int(min(count, int64(len(data))))
			if i := bytes.LastIndexByte(data[:n], sep); i >= 0 && n < len(data) {
				n = i + 1
			}
			if !write(data[:n]) {
				return 1
			}
			data = data[n:]
		}
	case 'n':
		return r.splitChunks(data, chunkSpec, sep, elide, write)
	}
	return r.finish(0)
}

// splitChunks handles -n N, K/N, l/N, l/K/N, r/N and r/K/N.
func (r *run) splitChunks(data []byte, spec string, sep byte, elide bool, write func([]byte) bool) int {
	kind := byte('b')
	rest := spec
	if strings.HasPrefix(spec, "l/") || strings.HasPrefix(spec, "r/") {
		kind, rest = spec[0], spec[2:]
	}
	var k, n int64
	if a, b, ok := strings.Cut(rest, "/"); ok {
		kv, err1 := strconv.ParseInt(a, 10, 64)
		nv, err2 := strconv.ParseInt(b, 10, 64)
		if err1 != nil || err2 != nil || kv < 1 || nv < 1 || kv > nv {
			r.env.Errorf("invalid number of chunks: %s", quote(spec))
			return 1
		}
		k, n = kv, nv
	} else {
		nv, err := strconv.ParseInt(rest, 10, 64)
		if err != nil || nv < 1 {
			r.env.Errorf("invalid number of chunks: %s", quote(spec))
			return 1
		}
		n = nv
	}
	size := int64(len(data))
	var chunks [][]byte
	switch kind {
	case 'b':
		per := max(size/n, 1)
		for i := int64(0); i < n; i++ {
			start, end := min(i*per, size), min((i+1)*per, size)
			if i == n-1 {
				end = size
			}
			chunks = append(chunks, data[start:end])
		}
	case 'l':
		per := size / n
		start := int64(0)
		for i := int64(0); i < n; i++ {
			end := (i + 1) * per
			if i == n-1 {
				end = size
			}
			if end < start {
				end = start
			}
			if end > start && end < size {
				if j := bytes.IndexByte(data[end-1:], sep); j >= 0 {
					end = end - 1 + int64(j) + 1
				} else {
					end = size
				}
			}
			chunks = append(chunks, data[start:end])
			start = end
		}
	case 'r':
		bufs := make([][]byte, n)
		i := int64(0)
		for len(data) > 0 {
			j := bytes.IndexByte(data, sep)
			line := data
			if j >= 0 {
				line = data[:j+1]
			}
			bufs[i%n] = append(bufs[i%n], line...)
			data = data[len(line):]
			i++
		}
		chunks = bufs
	}
	if k > 0 {
		r.out.Write(chunks[k-1])
		return r.finish(0)
	}
	for _, c := range chunks {
		if elide && len(c) == 0 {
			continue
		}
		if !write(c) {
			return 1
		}
	}
	return r.finish(0)
}
