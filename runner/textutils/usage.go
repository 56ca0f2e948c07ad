package textutils

import (
	"fmt"
	"strings"
)

// Argument kinds of an option.
const (
	noArg = iota
	reqArg
	optArg
)

// option describes one flag as getopt_long sees it.
type option struct {
	short byte   // 0 when the flag has no short form
	long  string // "" when the flag has no long form
	arg   int
	key   string // what the parser reports; defaults to the long name or the letter
}

// flag is one parsed option, in command-line order.
type flag struct {
	key, val string
	hasVal   bool
}

// usageError is a getopt failure, printed as GNU prints it.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// getopt parses args (without the command name) as GNU getopt_long does:
// options and operands may mix unless stopAtOperand, "--" ends options,
// short flags combine ("-rn"), a short flag's argument may be attached
// ("-n5") and long options may be abbreviated to a unique prefix.
func getopt(args []string, opts []option, stopAtOperand bool) ([]flag, []string, error) {
	var flags []flag
	var operands []string
	keyOf := func(o option) string {
		if o.key != "" {
			return o.key
		}
		if o.long != "" {
			return o.long
		}
		return string(o.short)
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			operands = append(operands, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			if stopAtOperand {
				operands = append(operands, args[i:]...)
				break
			}
			operands = append(operands, a)
			continue
		}
		if strings.HasPrefix(a, "--") {
			name, val, hasVal := strings.Cut(a[2:], "=")
			var match []option
			for _, o := range opts {
				if o.long == name {
					match = []option{o}
					break
				}
				if o.long != "" && strings.HasPrefix(o.long, name) {
					match = append(match, o)
				}
			}
			if len(match) > 1 {
				// Several prefixes of the same option are not ambiguous.
				same := true
				for _, m := range match[1:] {
					if keyOf(m) != keyOf(match[0]) {
						same = false
					}
				}
				if !same {
					var names []string
					for _, m := range match {
						names = append(names, "'--"+m.long+"'")
					}
					return nil, nil, &usageError{fmt.Sprintf("option '%s' is ambiguous; possibilities: %s", "--"+name, strings.Join(names, " "))}
				}
			}
			if len(match) == 0 {
				return nil, nil, &usageError{fmt.Sprintf("unrecognized option '%s'", a)}
			}
			o := match[0]
			switch o.arg {
			case noArg:
				if hasVal {
					return nil, nil, &usageError{fmt.Sprintf("option '--%s' doesn't allow an argument", o.long)}
				}
			case reqArg:
				if !hasVal {
					if i+1 >= len(args) {
						return nil, nil, &usageError{fmt.Sprintf("option '--%s' requires an argument", o.long)}
					}
					i++
					val, hasVal = args[i], true
				}
			}
			flags = append(flags, flag{key: keyOf(o), val: val, hasVal: hasVal})
			continue
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			var o *option
			for k := range opts {
				if opts[k].short == c {
					o = &opts[k]
					break
				}
			}
			if o == nil {
				return nil, nil, &usageError{fmt.Sprintf("invalid option -- '%c'", c)}
			}
			if o.arg == noArg {
				flags = append(flags, flag{key: keyOf(*o)})
				continue
			}
			if j+1 < len(a) {
				flags = append(flags, flag{key: keyOf(*o), val: a[j+1:], hasVal: true})
			} else if o.arg == reqArg {
				if i+1 >= len(args) {
					return nil, nil, &usageError{fmt.Sprintf("option requires an argument -- '%c'", c)}
				}
				i++
				flags = append(flags, flag{key: keyOf(*o), val: args[i], hasVal: true})
			} else {
				flags = append(flags, flag{key: keyOf(*o)})
			}
			break
		}
	}
	return flags, operands, nil
}

// usage prints a getopt error or another usage problem the GNU way and
// returns status.
func (r *run) usage(status int, format string, a ...any) int {
	r.env.Errorf(format, a...)
	fmt.Fprintf(r.env.Stderr, "Try '%s --help' for more information.\n", r.env.Name())
	return status
}

// parse runs getopt and reports its error; ok is false after a usage error.
func (r *run) parse(opts []option, stopAtOperand bool, status int) ([]flag, []string, int, bool) {
	opts = append(opts[:len(opts):len(opts)], option{long: "help"}, option{long: "version"})
	flags, operands, err := getopt(r.env.Args[1:], opts, stopAtOperand)
	if err != nil {
		return nil, nil, r.usage(status, "%s", err.Error()), false
	}
	for _, f := range flags {
		if f.key == "version" {
			fmt.Fprintf(r.env.Stdout, "%s (wsfs runner) — GNU-compatible reimplementation\n", r.env.Name())
			return nil, nil, 0, false
		}
		if f.key == "help" {
			fmt.Fprintf(r.env.Stdout, "Usage: %s [OPTION]... [FILE]...\nSee the runner's `help %s` for the supported flags.\n", r.env.Name(), r.env.Name())
			return nil, nil, 0, false
		}
	}
	return flags, operands, 0, true
}
