package textutils

import (
	"context"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

// span is an inclusive 1-based range of positions; hi is MaxInt for "N-".
type span struct{ lo, hi int }

// parseList reads cut's LIST ("1,3-5,7-") into merged, sorted spans.
func parseList(list string, fields bool) ([]span, string) {
	var out []span
	zeroMsg := "byte/character positions are numbered from 1"
	invalid := "invalid byte/character position %s"
	if fields {
		zeroMsg = "fields are numbered from 1"
		invalid = "invalid field value %s"
	}
	for _, item := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		lo, hi := 1, math.MaxInt
		a, b, isRange := strings.Cut(item, "-")
		num := func(s string) (int, string) {
			n, err := strconv.Atoi(s)
			if err != nil {
				for _, c := range s {
					if c < '0' || c > '9' {
						return 0, strings.Replace(invalid, "%s", quote(item), 1)
					}
				}
				n = math.MaxInt
			}
			if n == 0 {
				return 0, zeroMsg
			}
			return n, ""
		}
		var msg string
		switch {
		case !isRange:
			if lo, msg = num(a); msg != "" {
				return nil, msg
			}
			hi = lo
		default:
			if a == "" && b == "" {
				return nil, "invalid range with no endpoint: -"
			}
			if a != "" {
				if lo, msg = num(a); msg != "" {
					return nil, msg
				}
			}
			if b != "" {
				if hi, msg = num(b); msg != "" {
					return nil, msg
				}
			}
			if hi < lo {
				return nil, "invalid decreasing range"
			}
		}
		out = append(out, span{lo, hi})
	}
	if len(out) == 0 || strings.HasPrefix(list, ",") || strings.HasSuffix(list, ",") || strings.Contains(list, ",,") {
		if fields {
			return nil, "fields are numbered from 1"
		}
		return nil, zeroMsg
	}
	sort.Slice(out, func(i, j int) bool { return out[i].lo < out[j].lo })
	merged := out[:1]
	for _, s := range out[1:] {
		last := &merged[len(merged)-1]
		if s.lo <= last.hi || (last.hi != math.MaxInt && s.lo == last.hi+1) {
			last.hi = max(last.hi, s.hi)
			continue
		}
		merged = append(merged, s)
	}
	return merged, ""
}

func complementSpans(in []span) []span {
	var out []span
	next := 1
	for _, s := range in {
		if s.lo > next {
			out = append(out, span{next, s.lo - 1})
		}
		if s.hi == math.MaxInt {
			return out
		}
		next = s.hi + 1
	}
	return append(out, span{next, math.MaxInt})
}

var cutSpec = getopt.Spec{
	Options: []getopt.Option{
		{Short: 'b', Long: "bytes", Arg: getopt.Required, Key: "list-b", ArgName: "LIST"},
		{Short: 'c', Long: "characters", Arg: getopt.Required, Key: "list-c", ArgName: "LIST"},
		{Short: 'f', Long: "fields", Arg: getopt.Required, Key: "list-f", ArgName: "LIST"},
		{Short: 'd', Long: "delimiter", Arg: getopt.Required, ArgName: "DELIM"}, {Short: 's', Long: "only-delimited"},
		{Short: 'n'}, {Long: "complement"}, {Long: "output-delimiter", Arg: getopt.Required, ArgName: "STRING"},
		{Short: 'z', Long: "zero-terminated"},
	},
}

// Cut implements cut. -c counts bytes, as GNU cut does.
func Cut(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	flags, operands, st, ok := cutSpec.Run(env)
	if !ok {
		return st
	}
	mode := byte(0)
	var list string
	delim := byte('\t')
	delimSet, onlyDelim, complement := false, false, false
	var outDelim *string
	lineDelim := byte('\n')
	for _, f := range flags {
		switch f.Key {
		case "list-b", "list-c", "list-f":
			if mode != 0 {
				return r.usage(1, "only one list may be specified")
			}
			mode, list = f.Key[5], f.Value
		case "delimiter":
			if len(f.Value) > 1 {
				return r.usage(1, "the delimiter must be a single character")
			}
			delim, delimSet = 0, true
			if f.Value != "" {
				delim = f.Value[0]
			}
		case "only-delimited":
			onlyDelim = true
		case "complement":
			complement = true
		case "output-delimiter":
			v := f.Value
			outDelim = &v
		case "zero-terminated":
			lineDelim = 0
		}
	}
	if mode == 0 {
		return r.usage(1, "you must specify a list of bytes, characters, or fields")
	}
	if mode != 'f' && delimSet {
		return r.usage(1, "an input delimiter may be specified only when operating on fields")
	}
	if mode != 'f' && onlyDelim {
		return r.usage(1, "suppressing non-delimited lines makes sense\n\tonly when operating on fields")
	}
	spans, msg := parseList(list, mode == 'f')
	if msg != "" {
		return r.usage(1, "%s", msg)
	}
	if complement {
		spans = complementSpans(spans)
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	od := string(delim)
	if outDelim != nil {
		od = *outDelim
	}
	status := 0
	for _, name := range operands {
		f, err := r.open(name)
		if err != nil {
			env.Errorf("%s: %s", name, command.Strerror(err))
			status = 1
			continue
		}
		lr := newLineReader(f, lineDelim)
		for {
			if r.stopped() {
				break
			}
			line, _, ok := lr.next()
			if !ok {
				break
			}
			if mode == 'f' {
				if !r.cutFields(line, spans, delim, od, onlyDelim) {
					continue
				}
			} else {
				r.cutBytes(line, spans, outDelim)
			}
			r.out.WriteByte(lineDelim)
		}
		f.Close()
		if lr.err != nil && r.ctx.Err() == nil {
			env.Errorf("%s: %s", name, command.Strerror(lr.err))
			status = 1
		}
	}
	return r.finish(status)
}

func (r *run) cutBytes(line []byte, spans []span, outDelim *string) {
	first := true
	for _, s := range spans {
		if s.lo > len(line) {
			break
		}
		hi := min(s.hi, len(line))
		if !first && outDelim != nil {
			r.out.WriteString(*outDelim)
		}
		first = false
		r.out.Write(line[s.lo-1 : hi])
	}
}

// cutFields writes the selected fields; it returns false when the line is
// to be suppressed (-s and no delimiter).
func (r *run) cutFields(line []byte, spans []span, delim byte, od string, onlyDelim bool) bool {
	if strings.IndexByte(string(line), delim) < 0 {
		if onlyDelim {
			return false
		}
		r.out.Write(line)
		return true
	}
	field := 1
	si := 0
	first := true
	start := 0
	for i := 0; i <= len(line); i++ {
		if i < len(line) && line[i] != delim {
			continue
		}
		for si < len(spans) && spans[si].hi < field {
			si++
		}
		if si < len(spans) && spans[si].lo <= field {
			if !first {
				r.out.WriteString(od)
			}
			first = false
			r.out.Write(line[start:i])
		}
		if si >= len(spans) {
			break
		}
		field++
		start = i + 1
	}
	return true
}
