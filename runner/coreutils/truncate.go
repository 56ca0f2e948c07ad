package coreutils

import (
	"context"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
	"github.com/wsfs/wsfs/runner/internal/printfmt"
)

// truncateSize is -s: an absolute size, or one relative to the current
// size with op '+', '-', '<' (at most), '>' (at least), '/' (round down
// to a multiple) or '%' (round up to a multiple).
type truncateSize struct {
	op  byte // 0 for an absolute size
	val int64
}

// parseSize reads a GNU size: a decimal number and an optional suffix K M
// G T P E Z Y (powers of 1024; "KB" powers of 1000, "KiB" of 1024).
func parseSize(s string) (int64, bool) {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	num, suffix := s[:i], s[i:]
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return 0, false
	}
	if suffix == "" {
		return n, true
	}
	pow := strings.IndexByte("KMGTPEZY", suffix[0]&^0x20) + 1
	if pow == 0 || (suffix[0] >= 'a' && strings.IndexByte("kgmt", suffix[0]) < 0) {
		return 0, false
	}
	base := 1024.0
	switch suffix[1:] {
	case "":
	case "B":
		base = 1000
	case "iB":
	default:
		return 0, false
	}
	v := float64(n) * math.Pow(base, float64(pow))
	if v > math.MaxInt64 || v < math.MinInt64 {
		return 0, false
	}
	return n * int64(math.Pow(base, float64(pow))), true
}

var truncateSpec = getopt.Spec{
	Usage: []string{"OPTION... FILE..."},
	Options: []getopt.Option{
		{Short: 'c', Long: "no-create"}, {Short: 'o', Long: "io-blocks"},
		{Short: 'r', Long: "reference", Arg: getopt.Required, ArgName: "RFILE"},
		{Short: 's', Long: "size", Arg: getopt.Required, ArgName: "[+-<>/%]SIZE"},
	},
}

// runTruncate shrinks or extends files to a size (-s) or another file's
// size (-r); missing files are created unless -c.
func runTruncate(ctx context.Context, env *command.Env) int {
	opts, files, code, ok := truncateSpec.Run(env)
	if !ok {
		return code
	}
	noCreate, ioBlocks := opts.Has("no-create"), opts.Has("io-blocks")
	ref, _ := opts.Value("reference")
	sizeText, sizeSet := opts.Value("size")
	var size *truncateSize
	if sizeSet {
		t := strings.TrimLeft(sizeText, " \t\n\v\f\r")
		size = &truncateSize{}
		if t != "" && strings.IndexByte("+-<>/%", t[0]) >= 0 {
			size.op, t = t[0], t[1:]
		}
		n, ok := parseSize(t)
		if !ok || (size.op != 0 && n < 0) {
			env.Errorf("Invalid number: %s", printfmt.LocaleQuote(sizeText))
			return 1
		}
		size.val = n
	}
	switch {
	case size == nil && ref == "":
		return usageFail(env, 1, "you must specify either "+printfmt.LocaleQuote("--size")+" or "+printfmt.LocaleQuote("--reference"))
	case size != nil && ref != "" && size.op == 0:
		return usageFail(env, 1, "you must specify a relative "+printfmt.LocaleQuote("--size")+" with "+printfmt.LocaleQuote("--reference"))
	case ioBlocks && size == nil:
		return usageFail(env, 1, "--io-blocks was specified but --size was not")
	case len(files) == 0:
		return usageFail(env, 1, "missing file operand")
	case size != nil && (size.op == '/' || size.op == '%') && size.val == 0:
		env.Errorf("division by zero")
		return 1
	}
	var refSize int64 = -1
	if ref != "" {
		fi, err := env.FS.Stat(ref)
		if err != nil {
			env.Errorf("cannot stat %s: %s", quote(ref), command.Strerror(err))
			return 1
		}
		refSize = fi.Size()
	}
	status := 0
	for _, name := range files {
		if done(ctx) {
			return statusCanceled
		}
		if !truncateOne(env, name, size, refSize, noCreate, ioBlocks) {
			status = 1
		}
	}
	return status
}

func truncateOne(env *command.Env, name string, size *truncateSize, refSize int64, noCreate, ioBlocks bool) bool {
	flags := os.O_WRONLY | os.O_CREATE
	if noCreate {
		flags = os.O_WRONLY
	}
	f, err := env.FS.OpenFile(name, flags, 0o666)
	if err != nil {
		if noCreate && isNotExist(err) {
			return true
		}
		env.Errorf("cannot open %s for writing: %s", quote(name), command.Strerror(err))
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		env.Errorf("cannot fstat %s: %s", quote(name), command.Strerror(err))
		return false
	}
	cur := fi.Size()
	if refSize >= 0 {
		cur = refSize
	}
	n := cur
	if size != nil {
		v := size.val
		if ioBlocks {
			v *= statOf(fi).blksize
		}
		switch size.op {
		case 0:
			n = v
		case '+':
			n = cur + v
		case '-':
			n = cur - v
		case '<':
			n = min(cur, v)
		case '>':
			n = max(cur, v)
		case '/':
			n = cur / v * v
		case '%':
			n = (cur + v - 1) / v * v
		}
	}
	n = max(n, 0)
	if err := f.Truncate(n); err != nil {
		env.Errorf("failed to truncate %s at %d bytes: %s", quote(name), n, command.Strerror(err))
		return false
	}
	return true
}
