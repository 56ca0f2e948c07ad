package textutils

import (
	"context"
	"io"
	"strconv"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

// tabStops is expand/unexpand's tab list (expand-common.c).
type tabStops struct {
	size      int   // every size columns, when the list has one entry
	list      []int // explicit stops
	extend    int   // "/N": after the list, every N
	increment int   // "+N": after the list, each N further
}

func parseTabStops(specs []string) (tabStops, string) {
	var t tabStops
	for _, spec := range specs {
		for _, item := range strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == ' ' }) {
			prefix := byte(0)
			if item[0] == '/' || item[0] == '+' {
				prefix, item = item[0], item[1:]
			}
			n, err := strconv.Atoi(item)
			if err != nil || n < 0 {
				return t, "tab size contains invalid character(s): " + quote(item)
			}
			switch prefix {
			case '/':
				t.extend = n
			case '+':
				t.increment = n
			default:
				if n == 0 {
					return t, "tab size cannot be 0"
				}
				if len(t.list) > 0 && n <= t.list[len(t.list)-1] {
					return t, "tab sizes must be ascending"
				}
				t.list = append(t.list, n)
			}
		}
	}
	if len(t.list) == 0 && t.extend == 0 && t.increment == 0 {
		t.size = 8
	} else if len(t.list) == 1 && t.extend == 0 && t.increment == 0 {
		t.size, t.list = t.list[0], nil
	}
	return t, ""
}

// next returns the tab stop after column; last reports that the list ran
// out.
func (t *tabStops) next(column int, index *int) (int, bool) {
	if t.size > 0 {
		return column + t.size - column%t.size, false
	}
	for ; *index < len(t.list); *index++ {
		if column < t.list[*index] {
			return t.list[*index], false
		}
	}
	if t.extend > 0 {
		return column + t.extend - column%t.extend, false
	}
	if t.increment > 0 && len(t.list) > 0 {
		last := t.list[len(t.list)-1]
		return last + ((column-last)/t.increment+1)*t.increment, false
	}
	return 0, true
}

// tabArgs turns the obsolete "-4" and "-4,8" forms into -t.
func tabArgs(args []string) []string {
	out := []string{args[0]}
	for i, a := range args[1:] {
		if a == "--" {
			return append(out, args[1+i:]...)
		}
		if len(a) > 1 && a[0] == '-' && isDigit(a[1]) {
			out = append(out, "-t", a[1:])
			continue
		}
		out = append(out, a)
	}
	return out
}

var expandSpec = getopt.Spec{
	Options: []getopt.Option{
		{Short: 'i', Long: "initial"}, {Short: 't', Long: "tabs", Arg: getopt.Required, ArgName: "LIST"},
	},
}

// Expand implements expand.
func Expand(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	env.Args = tabArgs(env.Args)
	flags, operands, st, ok := expandSpec.Run(env)
	if !ok {
		return st
	}
	initial := false
	var specs []string
	for _, f := range flags {
		switch f.Key {
		case "initial":
			initial = true
		case "tabs":
			specs = append(specs, f.Value)
		}
	}
	tabs, msg := parseTabStops(specs)
	if msg != "" {
		env.Errorf("%s", msg)
		return 1
	}
	status := r.eachInput(operands, func(name string, f io.Reader) error {
		lr := newLineReader(f, '\n')
		for !r.stopped() {
			line, hadNL, ok := lr.next()
			if !ok {
				return lr.err
			}
			col, idx := 0, 0
			convert := true
			for _, c := range line {
				if convert {
					switch c {
					case '\t':
						next, last := tabs.next(col, &idx)
						if last {
							next = col + 1
						}
						for col++; col < next; col++ {
							r.out.WriteByte(' ')
						}
						c = ' '
					case '\b':
						if col > 0 {
							col--
						}
						if idx > 0 {
							idx--
						}
					default:
						col++
					}
					convert = !initial || c == ' ' || c == '\t'
				}
				r.out.WriteByte(c)
			}
			if hadNL {
				r.out.WriteByte('\n')
			}
		}
		return nil
	})
	return r.finish(status)
}

var unexpandSpec = getopt.Spec{
	Options: []getopt.Option{
		{Short: 'a', Long: "all"}, {Long: "first-only"}, {Short: 't', Long: "tabs", Arg: getopt.Required, ArgName: "LIST"},
	},
}

// Unexpand implements unexpand (a port of GNU's state machine).
func Unexpand(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	env.Args = tabArgs(env.Args)
	flags, operands, st, ok := unexpandSpec.Run(env)
	if !ok {
		return st
	}
	all, firstOnly := false, false
	var specs []string
	for _, f := range flags {
		switch f.Key {
		case "all":
			all = true
		case "first-only":
			firstOnly = true
		case "tabs":
			all = true
			specs = append(specs, f.Value)
		}
	}
	if firstOnly {
		all = false
	}
	tabs, msg := parseTabStops(specs)
	if msg != "" {
		env.Errorf("%s", msg)
		return 1
	}
	status := r.eachInput(operands, func(name string, f io.Reader) error {
		lr := newLineReader(f, '\n')
		for !r.stopped() {
			line, hadNL, ok := lr.next()
			if !ok {
				return lr.err
			}
			convert := true
			col, nextTab, idx := 0, 0, 0
			oneBlankBeforeStop := false
			prevBlank := true
			var pending []byte
			for _, c := range line {
				if convert {
					blank := c == ' ' || c == '\t'
					if blank {
						var last bool
						nextTab, last = tabs.next(col, &idx)
						if last {
							convert = false
						}
						if convert {
							if c == '\t' {
								col = nextTab
								if len(pending) > 0 {
									pending[0] = '\t'
								}
							} else {
								col++
								if !(prevBlank && col == nextTab) {
									if col == nextTab {
										oneBlankBeforeStop = true
									}
									pending = append(pending, c)
									prevBlank = true
									continue
								}
								c = '\t'
								if len(pending) > 0 {
									pending[0] = '\t'
								}
							}
							if oneBlankBeforeStop {
								pending = pending[:1]
							} else {
								pending = pending[:0]
							}
						}
					} else if c == '\b' {
						if col > 0 {
							col--
						}
						nextTab = col
						if idx > 0 {
							idx--
						}
					} else {
						col++
					}
					if len(pending) > 0 {
						if len(pending) > 1 && oneBlankBeforeStop {
							pending[0] = '\t'
						}
						r.out.Write(pending)
						pending = pending[:0]
						oneBlankBeforeStop = false
					}
					prevBlank = blank
					convert = convert && (all || blank)
				}
				r.out.WriteByte(c)
			}
			// At the end of the line GNU flushes pending blanks as they are.
			if len(pending) > 0 {
				if len(pending) > 1 && oneBlankBeforeStop {
					pending[0] = '\t'
				}
				r.out.Write(pending)
			}
			if hadNL {
				r.out.WriteByte('\n')
			}
		}
		return nil
	})
	return r.finish(status)
}
