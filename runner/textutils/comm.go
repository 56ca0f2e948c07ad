package textutils

import (
	"bytes"
	"context"
	"fmt"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

var commSpec = getopt.Spec{
	Options: []getopt.Option{
		{Short: '1'}, {Short: '2'}, {Short: '3'}, {Long: "check-order"}, {Long: "nocheck-order"},
		{Long: "output-delimiter", Arg: getopt.Required, ArgName: "STR"}, {Long: "total"},
		{Short: 'z', Long: "zero-terminated"},
	},
}

// Comm implements comm; lines compare as bytes.
func Comm(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	flags, operands, st, ok := commSpec.Run(env)
	if !ok {
		return st
	}
	show := [3]bool{true, true, true}
	check := 0 // 0 default, 1 enabled, -1 disabled
	sep := "\t"
	sepSet := false
	total := false
	eol := byte('\n')
	for _, f := range flags {
		switch f.Key {
		case "1", "2", "3":
			show[f.Key[0]-'1'] = false
		case "check-order":
			check = 1
		case "nocheck-order":
			check = -1
		case "output-delimiter":
			if sepSet && sep != f.Value {
				env.Errorf("multiple output delimiters specified")
				return 1
			}
			sep, sepSet = f.Value, true
			if sep == "" {
				sep = "\x00"
			}
		case "total":
			total = true
		case "zero-terminated":
			eol = 0
		}
	}
	switch {
	case len(operands) == 0:
		return r.usage(1, "missing operand")
	case len(operands) == 1:
		return r.usage(1, "missing operand after %s", quote(operands[0]))
	case len(operands) > 2:
		return r.usage(1, "extra operand %s", quote(operands[2]))
	}
	var lrs [2]*lineReader
	for i, name := range operands {
		f, err := r.open(name)
		if err != nil {
			env.Errorf("%s: %s", name, command.Strerror(err))
			return 1
		}
		defer f.Close()
		lrs[i] = newLineReader(f, eol)
	}
	var cur [2][]byte
	var have [2]bool
	read := func(i int) {
		line, _, ok := lrs[i].next()
		cur[i], have[i] = append(cur[i][:0], line...), ok
	}
	read(0)
	read(1)
	var counts [3]int
	seenUnpairable := false
	warned := [2]bool{}
	write := func(class int, line []byte) {
		counts[class]++
		if !show[class] {
			return
		}
		for k := 0; k < class; k++ {
			if show[k] {
				r.out.WriteString(sep)
			}
		}
		r.out.Write(line)
		r.out.WriteByte(eol)
	}
	var prev []byte
	for have[0] || have[1] {
		if r.stopped() {
			break
		}
		var order int
		switch {
		case !have[0]:
			order = 1
		case !have[1]:
			order = -1
		default:
			order = bytes.Compare(cur[0], cur[1])
		}
		switch {
		case order == 0:
			write(2, cur[1])
		case order > 0:
			write(1, cur[1])
		default:
			write(0, cur[0])
		}
		if order != 0 {
			seenUnpairable = true
		}
		for i := 0; i < 2; i++ {
			if (i == 0 && order <= 0) || (i == 1 && order >= 0) {
				prev = append(prev[:0], cur[i]...)
				read(i)
				if have[i] && check >= 0 && (check == 1 || seenUnpairable) && !warned[i] && bytes.Compare(prev, cur[i]) > 0 {
					env.Errorf("file %d is not in sorted order", i+1)
					if check == 1 {
						r.finish(1)
						return 1
					}
					warned[i] = true
				}
			}
		}
	}
	for i, lr := range lrs {
		if lr.err != nil {
			env.Errorf("%s: %s", operands[i], command.Strerror(lr.err))
			r.finish(1)
			return 1
		}
	}
	if total {
		fmt.Fprintf(r.out, "%d%s%d%s%d%s%s%c", counts[0], sep, counts[1], sep, counts[2], sep, "total", eol)
	}
	if warned[0] || warned[1] {
		r.finish(1)
		env.Errorf("input is not in sorted order")
		return 1
	}
	return r.finish(0)
}
