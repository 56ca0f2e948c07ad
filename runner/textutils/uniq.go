package textutils

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

var uniqSpec = getopt.Spec{
	Options: []getopt.Option{
		{Short: 'c', Long: "count"}, {Short: 'd', Long: "repeated"}, {Short: 'D', Key: "all-repeated"},
		{Long: "all-repeated", Arg: getopt.Optional, ArgName: "METHOD"}, {Short: 'u', Long: "unique"},
		{Short: 'i', Long: "ignore-case"}, {Short: 'f', Long: "skip-fields", Arg: getopt.Required, ArgName: "N"},
		{Short: 's', Long: "skip-chars", Arg: getopt.Required, ArgName: "N"},
		{Short: 'w', Long: "check-chars", Arg: getopt.Required, ArgName: "N"}, {Short: 'z', Long: "zero-terminated"},
		{Long: "group", Arg: getopt.Optional, ArgName: "METHOD"},
	},
}

// Uniq implements uniq.
func Uniq(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	flags, operands, st, ok := uniqSpec.Run(env)
	if !ok {
		return st
	}
	var countMode, repeated, unique, ignoreCase bool
	allRepeated := ""
	skipFields, skipChars, checkChars := 0, 0, -1
	delim := byte('\n')
	num := func(f getopt.Opt, what string) (int, bool) {
		n, err := strconv.ParseUint(f.Value, 10, 63)
		if err != nil {
			r.env.Errorf("%s: %s", quote(f.Value), what)
			return 0, false
		}
		return int(min(n, 1<<40)), true
	}
	for _, f := range flags {
		switch f.Key {
		case "count":
			countMode = true
		case "repeated":
			repeated = true
		case "all-repeated":
			allRepeated = "none"
			if f.HasValue {
				switch f.Value {
				case "none", "prepend", "separate":
					allRepeated = f.Value
				default:
					return r.usage(1, "invalid argument %s for '--all-repeated'", quote(f.Value))
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
	if allRepeated != "" && countMode {
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
	// GNU's state machine: which lines print depends on three switches
	// that -d, -D and -u turn off or on.
	outUnique, outFirst, outLater := true, true, false
	if repeated {
		outUnique = false
	}
	if allRepeated != "" {
		outUnique, outLater = false, true
	}
	if unique {
		outFirst = false
	}
	writeLine := func(line []byte, match bool, count int) {
		show := outLater
		switch {
		case count == 0:
			show = outUnique
		case !match:
			show = outFirst
		}
		if !show {
			return
		}
		if countMode {
			fmt.Fprintf(w, "%7d ", count+1)
		}
		w.Write(line)
		w.Write([]byte{delim})
	}
	lr := newLineReader(f, delim)
	first, _, ok := lr.next()
	if ok {
		prev := append([]byte(nil), first...)
		matchCount := 0
		firstDelimiter := true
		for !r.stopped() {
			line, _, ok := lr.next()
			if !ok {
				break
			}
			match := same(key(prev), key(line))
			if match {
				matchCount++
			}
			if allRepeated == "prepend" || allRepeated == "separate" {
				if !match {
					if matchCount > 0 {
						firstDelimiter = false
					}
				} else if matchCount == 1 {
					if allRepeated == "prepend" || !firstDelimiter {
						w.Write([]byte{delim})
					}
				}
			}
			if !match || outLater {
				writeLine(prev, match, matchCount)
				prev = append(prev[:0], line...)
				if !match {
					matchCount = 0
				}
			}
		}
		writeLine(prev, false, matchCount)
	}
	status := 0
	if lr.err != nil {
		env.Errorf("error reading %s", quote(in))
		status = 1
	}
	return r.finish(status)
}
