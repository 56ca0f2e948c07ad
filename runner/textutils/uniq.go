package textutils

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/wsfs/wsfs/runner/command"
)

// Uniq implements uniq.
func Uniq(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	flags, operands, st, ok := r.parse([]option{
		{short: 'c', long: "count"}, {short: 'd', long: "repeated"}, {short: 'D', long: "all-repeated", arg: optArg},
		{short: 'u', long: "unique"}, {short: 'i', long: "ignore-case"}, {short: 'f', long: "skip-fields", arg: reqArg},
		{short: 's', long: "skip-chars", arg: reqArg}, {short: 'w', long: "check-chars", arg: reqArg},
		{short: 'z', long: "zero-terminated"}, {long: "group", arg: optArg},
	}, false, 1)
	if !ok {
		return st
	}
	var count, repeated, unique, ignoreCase bool
	allRepeated := ""
	skipFields, skipChars, checkChars := 0, 0, -1
	delim := byte('\n')
	num := func(f flag, what string) (int, bool) {
		n, err := strconv.ParseUint(f.val, 10, 63)
		if err != nil {
			r.env.Errorf("%s: %s", quote(f.val), what)
			return 0, false
		}
		return int(min(n, 1<<40)), true
	}
	for _, f := range flags {
		switch f.key {
		case "count":
			count = true
		case "repeated":
			repeated = true
		case "all-repeated":
			allRepeated = "none"
			if f.hasVal {
				switch f.val {
				case "none", "prepend", "separate":
					allRepeated = f.val
				default:
					return r.usage(1, "invalid argument %s for '--all-repeated'", quote(f.val))
				}
			}
		case "unique":
			unique = true
		case "ignore-case":
			ignoreCase = true
		case "skip-fields":
			if skipFields, ok = num(f, "invalid number of fields to skip"); !ok {
				return 1
			}
		case "skip-chars":
			if skipChars, ok = num(f, "invalid number of bytes to skip"); !ok {
				return 1
			}
		case "check-chars":
			if checkChars, ok = num(f, "invalid number of bytes to compare"); !ok {
				return 1
			}
		case "zero-terminated":
			delim = 0
		case "group":
			r.env.Errorf("--group is not supported in the runner")
			return 1
		}
	}
	if allRepeated != "" && count {
		return r.usage(1, "printing all duplicated lines and repeat counts is meaningless")
	}
	if len(operands) > 2 {
		return r.usage(1, "extra operand %s", quote(operands[2]))
	}
	in := "-"
	if len(operands) > 0 {
		in = operands[0]
	}
	f, err := r.open(in)
	if err != nil {
		env.Errorf("%s: %s", in, command.Strerror(err))
		return 1
	}
	defer f.Close()
	var w io.Writer = r.out
	if len(operands) == 2 && operands[1] != "-" {
		of, err := r.create(operands[1], false)
		if err != nil {
			env.Errorf("%s: %s", operands[1], command.Strerror(err))
			return 1
		}
		defer of.Close()
		r.sink.w = of
	}
	key := func(line []byte) []byte {
		i := 0
		for n := 0; n < skipFields && i < len(line); n++ {
			for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
				i++
			}
			for i < len(line) && !(line[i] == ' ' || line[i] == '\t') {
				i++
			}
		}
		i += min(skipChars, len(line)-i)
		k := line[i:]
		if checkChars >= 0 && checkChars < len(k) {
			k = k[:checkChars]
		}
		return k
	}
	same := func(a, b []byte) bool {
		if ignoreCase {
			return len(a) == len(b) && compareTranslated(a, b, 0, true) == 0
		}
		return bytes.Equal(a, b)
	}
	lr := newLineReader(f, delim)
	var prev []byte
	have := false
	n := 0
	groups := 0
	emit := func(line []byte, n int) {
		if allRepeated != "" {
			return
		}
		if (repeated && n < 2) || (unique && n > 1) {
			return
		}
		if count {
			fmt.Fprintf(w, "%7d ", n)
		}
		w.Write(line)
		w.Write([]byte{delim})
	}
	for {
		if r.stopped() {
			break
		}
		line, _, ok := lr.next()
		if !ok {
			break
		}
		if have && same(key(prev), key(line)) {
			n++
			if allRepeated != "" {
				if n == 2 {
					if allRepeated == "prepend" || (allRepeated == "separate" && groups > 0) {
						w.Write([]byte{delim})
					}
					groups++
					w.Write(prev)
					w.Write([]byte{delim})
				}
				w.Write(line)
				w.Write([]byte{delim})
			}
			continue
		}
		if have {
			emit(prev, n)
		}
		prev = append(prev[:0], line...)
		have, n = true, 1
	}
	if have {
		emit(prev, n)
	}
	status := 0
	if lr.err != nil {
		env.Errorf("error reading %s", quote(in))
		status = 1
	}
	return r.finish(status)
}
