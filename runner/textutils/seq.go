package textutils

import (
	"context"
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

// seqArg is one numeric operand with what GNU seq derives from its
// spelling: the digits after the point and the printed width.
type seqArg struct {
	val       *big.Rat
	precision int
	width     int
	exp       bool
}

var seqNumber = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)

func parseSeqArg(s string) (seqArg, bool) {
	t := strings.TrimLeft(s, " \t")
	if !seqNumber.MatchString(t) {
		return seqArg{}, false
	}
	v, ok := new(big.Rat).SetString(strings.TrimPrefix(t, "+"))
	if !ok {
		return seqArg{}, false
	}
	a := seqArg{val: v, width: len(t)}
	if t[0] == '+' {
		a.width--
	}
	mant, expPart, hasExp := strings.Cut(strings.ToLower(t), "e")
	if dot := strings.IndexByte(mant, '.'); dot >= 0 {
		frac := len(mant) - dot - 1
		a.precision = frac
		if frac == 0 {
			a.width--
		} else if dot == 0 || !isDigit(mant[dot-1]) {
			a.width++
		}
	}
	if hasExp {
		a.exp = true
		var e int
		fmt.Sscan(expPart, &e)
		a.width -= len(expPart) + 1
		if e < 0 {
			a.precision += -e
			a.width += -e
		} else {
			drop := min(a.precision, e)
			a.precision -= drop
			a.width += e - drop
		}
	}
	return a, true
}

var seqFormat = regexp.MustCompile(`%[-+ #0']*\d*(\.\d*)?[eEfFgGaA]`)

var seqSpec = getopt.Spec{
	Options: []getopt.Option{
		{Short: 's', Long: "separator", Arg: getopt.Required, ArgName: "STRING"}, {Short: 'w', Long: "equal-width"},
		{Short: 'f', Long: "format", Arg: getopt.Required, ArgName: "FORMAT"},
	},
}

// Seq implements seq over exact decimals, so "seq 0 0.1 1" ends at 1.0.
func Seq(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	// Negative numbers are operands, not options.
	var args []string
	for i := 1; i < len(env.Args); i++ {
		a := env.Args[i]
		if len(a) > 1 && a[0] == '-' && (isDigit(a[1]) || a[1] == '.') {
			args = append(args, "--", a)
			args = append(args, env.Args[i+1:]...)
			break
		}
		args = append(args, a)
	}
	env.Args = append([]string{env.Args[0]}, args...)
	flags, operands, st, ok := seqSpec.Run(env)
	if !ok {
		return st
	}
	sep := "\n"
	equal := false
	format := ""
	for _, f := range flags {
		switch f.Key {
		case "separator":
			sep = f.Value
		case "equal-width":
			equal = true
		case "format":
			format = f.Value
		}
	}
	switch {
	case len(operands) == 0:
		return r.usage(1, "missing operand")
	case len(operands) > 3:
		return r.usage(1, "extra operand %s", quote(operands[3]))
	}
	var nums []seqArg
	for _, o := range operands {
		a, ok := parseSeqArg(o)
		if !ok {
			return r.usage(1, "invalid floating point argument: %s", quote(o))
		}
		nums = append(nums, a)
	}
	one := seqArg{val: big.NewRat(1, 1), width: 1}
	first, step, last := one, one, nums[len(nums)-1]
	switch len(nums) {
	case 2:
		first = nums[0]
	case 3:
		first, step = nums[0], nums[1]
	}
	if step.val.Sign() == 0 {
		return r.usage(1, "invalid Zero increment value: %s", quote(operands[1]))
	}
	if format != "" {
		if equal {
			env.Errorf("format string may not be specified when printing equal width strings")
			fmt.Fprintf(env.Stderr, "Try '%s --help' for more information.\n", env.Name())
			return 1
		}
		locs := seqFormat.FindAllStringIndex(strings.ReplaceAll(format, "%%", "\x00\x00"), -1)
		if len(locs) != 1 {
			if len(locs) == 0 {
				env.Errorf("format %s has no %% directive", quote(format))
			} else {
				env.Errorf("format %s has too many %% directives", quote(format))
			}
			return 1
		}
		if strings.Count(strings.ReplaceAll(format, "%%", ""), "%") != 1 {
			env.Errorf("format %s has unknown %%%c directive", quote(format), format[strings.IndexByte(format, '%')+1])
			return 1
		}
	}
	prec := max(first.precision, step.precision)
	anyExp := first.exp || step.exp || last.exp
	render := func(x *big.Rat) string {
		if format != "" {
			f, _ := x.Float64()
			return cFormat(format, f)
		}
		if anyExp && prec == 0 && !x.IsInt() {
			f, _ := x.Float64()
			return cFormat("%g", f)
		}
		s := x.FloatString(prec)
		if equal {
			w := max(first.width+(prec-first.precision), last.width+(prec-last.precision))
			if last.precision > 0 && prec == 0 {
				w = max(first.width+(prec-first.precision), last.width+(prec-last.precision)-1)
			}
			if last.precision == 0 && prec > 0 {
				w = max(w, last.width+(prec-last.precision)+1)
			}
			if first.precision == 0 && prec > 0 {
				w = max(w, first.width+(prec-first.precision)+1)
			}
			neg := strings.HasPrefix(s, "-")
			digits := strings.TrimPrefix(s, "-")
			for len(digits)+boolInt(neg) < w {
				digits = "0" + digits
			}
			if neg {
				return "-" + digits
			}
			return digits
		}
		return s
	}
	x := new(big.Rat).Set(first.val)
	n := 0
	for i := int64(1); ; i++ {
		if (step.val.Sign() > 0 && x.Cmp(last.val) > 0) || (step.val.Sign() < 0 && x.Cmp(last.val) < 0) {
			break
		}
		if r.stopped() {
			break
		}
		if n > 0 {
			r.out.WriteString(sep)
		}
		r.out.WriteString(render(x))
		n++
		x.Mul(step.val, new(big.Rat).SetInt64(i))
		x.Add(x, first.val)
	}
	if n > 0 {
		r.out.WriteByte('\n')
	}
	return r.finish(0)
}

// cFormat formats one float with a C printf directive inside format
// (%e %f %g %a with flags, width and precision).
func cFormat(format string, f float64) string {
	format = strings.ReplaceAll(format, "%%", "\x00")
	loc := seqFormat.FindStringIndex(format)
	if loc == nil {
		return strings.ReplaceAll(format, "\x00", "%")
	}
	dir := format[loc[0]:loc[1]]
	verb := dir[len(dir)-1]
	dir = strings.ReplaceAll(dir, "'", "")
	if (verb == 'g' || verb == 'G') && !strings.Contains(dir, ".") {
		dir = dir[:len(dir)-1] + ".6" + string(verb)
	}
	if verb == 'F' {
		dir = dir[:len(dir)-1] + "f"
	}
	if verb == 'a' || verb == 'A' {
		dir = dir[:len(dir)-1] + "x"
		if verb == 'A' {
			dir = dir[:len(dir)-1] + "X"
		}
	}
	s := fmt.Sprintf(dir, f)
	out := format[:loc[0]] + s + format[loc[1]:]
	return strings.ReplaceAll(out, "\x00", "%")
}
