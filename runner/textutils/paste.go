package textutils

import (
	"context"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

// pasteDelims reads paste's -d list: \n \t \\ and \0 (no delimiter).
func pasteDelims(s string) ([]string, bool) {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			out = append(out, s[i:i+1])
			continue
		}
		if i+1 >= len(s) {
			return nil, false
		}
		i++
		switch s[i] {
		case 'n':
			out = append(out, "\n")
		case 't':
			out = append(out, "\t")
		case '0':
			out = append(out, "")
		case 'b':
			out = append(out, "\b")
		case 'f':
			out = append(out, "\f")
		case 'r':
			out = append(out, "\r")
		case 'v':
			out = append(out, "\v")
		default:
			out = append(out, s[i:i+1])
		}
	}
	if len(out) == 0 {
		out = []string{""}
	}
	return out, true
}

var pasteSpec = getopt.Spec{
	Options: []getopt.Option{
		{Short: 'd', Long: "delimiters", Arg: getopt.Required, ArgName: "LIST"}, {Short: 's', Long: "serial"},
		{Short: 'z', Long: "zero-terminated"},
	},
}

// Paste implements paste.
func Paste(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	flags, operands, st, ok := pasteSpec.Run(env)
	if !ok {
		return st
	}
	delims := []string{"\t"}
	serial := false
	eol := byte('\n')
	for _, f := range flags {
		switch f.Key {
		case "delimiters":
			d, ok := pasteDelims(f.Value)
			if !ok {
				env.Errorf("delimiter list ends with an unescaped backslash: %s", f.Value)
				return 1
			}
			delims = d
		case "serial":
			serial = true
		case "zero-terminated":
			eol = 0
		}
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	readers := make([]*lineReader, len(operands))
	var stdin *lineReader
	for i, name := range operands {
		if name == "-" {
			if stdin == nil {
				stdin = newLineReader(env.Stdin, eol)
			}
			readers[i] = stdin
			continue
		}
		f, err := r.open(name)
		if err != nil {
			env.Errorf("%s: %s", name, command.Strerror(err))
			return 1
		}
		defer f.Close()
		readers[i] = newLineReader(f, eol)
	}
	status := 0
	if serial {
		for i, lr := range readers {
			n := 0
			for {
				if r.stopped() {
					break
				}
				line, _, ok := lr.next()
				if !ok {
					break
				}
				if n > 0 {
					r.out.WriteString(delims[(n-1)%len(delims)])
				}
				r.out.Write(line)
				n++
			}
			if lr.err != nil {
				env.Errorf("%s: %s", operands[i], command.Strerror(lr.err))
				status = 1
			}
			r.out.WriteByte(eol)
		}
		return r.finish(status)
	}
	done := make([]bool, len(readers))
	var row []byte
	for !r.stopped() {
		row = row[:0]
		any := false
		for i, lr := range readers {
			if !done[i] {
				line, _, ok := lr.next()
				if ok {
					row = append(row, line...)
					any = true
				} else {
					done[i] = true
					if lr.err != nil {
						env.Errorf("%s: %s", operands[i], command.Strerror(lr.err))
						status = 1
					}
				}
			}
			if i < len(readers)-1 {
				row = append(row, delims[i%len(delims)]...)
			}
		}
		if !any {
			break
		}
		row = append(row, eol)
		r.out.Write(row)
	}
	return r.finish(status)
}
