package getopt

import (
	"fmt"
	"strings"
)

// ArgKind says whether an option takes a value.
type ArgKind uint8

const (
	NoArg    ArgKind = iota
	Required         // -w 80, -w80, --width=80, --width 80
	Optional         // -i.bak, --in-place=.bak (attached only), or nothing
)

// Option is one flag of a command, as one entry of getopt_long's tables.
type Option struct {
	Short byte   // the letter, or 0 for a long-only option
	Long  string // the long name without dashes, or "" for a short-only option
	Arg   ArgKind
	// ArgName names the value in the command table and --help ("FILE");
	// "ARG" when empty.
	ArgName string
	// Key is what Parse reports; by default Long, or the letter of a
	// short-only option. Options sharing a Key are aliases: abbreviating
	// to a prefix they share is not ambiguous, and the table lists them
	// as one entry.
	Key string
	// Digits makes every digit 0-9 a short option with this Key (grep and
	// diff's -NUM); each digit is reported on its own, with the Index of
	// its argument so the caller can join the digits of one argument.
	Digits bool
	// Hidden options are parsed but not listed (obsolete spellings).
	Hidden bool
}

func (o *Option) key() string {
	switch {
	case o.Key != "":
		return o.Key
	case o.Long != "":
		return o.Long
	}
	return string(o.Short)
}

// Spec declares a command's command line.
type Spec struct {
	// Usage follows "Usage: NAME " in --help and the usage lines; lines
	// after the first are "  or:  NAME …" alternatives. Default
	// "[OPTION]... [FILE]...".
	Usage   []string
	Options []Option
	// InOrder ends the options at the first operand (env, timeout, xargs:
	// what follows is another command's).
	InOrder bool
	// Operands reports each operand before "--" in place among the
	// options, with Key "" (getopt's "-" mode: tar's -C applies to the
	// members after it); InOrder is then moot.
	Operands bool
	// Extra lists table entries that are not options ("+FORMAT",
	// "NAME=VALUE"), after the options.
	Extra []string
	// UsageStatus is the exit status of a usage error (1 when 0).
	UsageStatus int
	// Version is the --version line ("NAME (wsfs runner)" when empty).
	Version string
	// Help replaces the --help text generated from the declaration.
	Help string
	// Fail prints a usage error and returns the status, for a command
	// whose usage errors read differently from coreutils' "NAME: MSG" and
	// "Try 'NAME --help' for more information."
	Fail func(name string, w Writer, msg string) int
}

// Writer is where Fail writes (a command's stderr).
type Writer interface {
	Write(p []byte) (int, error)
}

// Opt is one parsed option, in command-line order.
type Opt struct {
	Key      string // Option.Key; "" for an operand in Spec.Operands mode
	Value    string // the value, or the operand
	HasValue bool   // a value was given (tells an empty optional value from none)
	Name     string // the option as named in messages: "-n" or "--lines"
	Index    int    // the index in args of the argument it came from
}

// Opts are the options of one command line, in order. A command whose
// options override each other reads them in order (a switch on Key);
// one whose options are independent may ask Has and Value.
type Opts []Opt

// Has reports whether an option with this key was given.
func (opts Opts) Has(key string) bool {
	for _, o := range opts {
		if o.Key == key {
			return true
		}
	}
	return false
}

// Value returns the value of the last option with this key, and whether
// there was one.
func (opts Opts) Value(key string) (string, bool) {
	for i := len(opts) - 1; i >= 0; i-- {
		if opts[i].Key == key {
			return opts[i].Value, true
		}
	}
	return "", false
}

// Values returns the values of every option with this key, in order.
func (opts Opts) Values(key string) []string {
	var vals []string
	for _, o := range opts {
		if o.Key == key {
			vals = append(vals, o.Value)
		}
	}
	return vals
}

// Error is a command line getopt_long refuses; Error() is glibc's message.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

var (
	helpOption    = Option{Long: "help"}
	versionOption = Option{Long: "version"}
)

// options returns the declared options, with --help and --version added
// unless the command declares its own.
func (s *Spec) options() (opts []Option, autoHelp, autoVersion bool) {
	autoHelp, autoVersion = true, true
	for i := range s.Options {
		switch s.Options[i].Long {
		case "help":
			autoHelp = false
		case "version":
			autoVersion = false
		}
	}
	opts = s.Options
	if autoHelp || autoVersion {
		opts = append([]Option(nil), s.Options...)
		if autoHelp {
			opts = append(opts, helpOption)
		}
		if autoVersion {
			opts = append(opts, versionOption)
		}
	}
	return opts, autoHelp, autoVersion
}

// Parse reads args (without the command name) as getopt_long does. It
// returns the options in order and the operands in order; in Operands
// mode the operands before "--" are among the options instead. On an error it
// returns what it read before it and an *Error. An --help or --version
// the command did not declare ends the parse: it is the last Opt.
func (s *Spec) Parse(args []string) (opts Opts, operands []string, err error) {
	table, autoHelp, autoVersion := s.options()
	operand := func(i int) {
		if s.Operands {
			opts = append(opts, Opt{Value: args[i], Index: i})
		} else {
			operands = append(operands, args[i])
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return opts, append(operands, args[i+1:]...), nil
		case strings.HasPrefix(a, "--"):
			o, err := longOption(table, a)
			if err != nil {
				return opts, operands, err
			}
			opt := Opt{Key: o.key(), Name: "--" + o.Long, Index: i}
			_, val, hasVal := strings.Cut(a[2:], "=")
			switch o.Arg {
			case NoArg:
				if hasVal {
					return opts, operands, &Error{fmt.Sprintf("option '--%s' doesn't allow an argument", o.Long)}
				}
			case Required:
				if !hasVal {
					if i+1 >= len(args) {
						return opts, operands, &Error{fmt.Sprintf("option '--%s' requires an argument", o.Long)}
					}
					i++
					val, hasVal = args[i], true
				}
			}
			opt.Value, opt.HasValue = val, hasVal
			opts = append(opts, opt)
			if (autoHelp && o.Long == "help") || (autoVersion && o.Long == "version") {
				return opts, operands, nil
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				c := a[j]
				o := shortOption(table, c)
				if o == nil {
					return opts, operands, &Error{fmt.Sprintf("invalid option -- '%c'", c)}
				}
				opt := Opt{Key: o.key(), Name: "-" + string(c), Index: i}
				if o.Digits {
					opt.Value, opt.HasValue = string(c), true
				}
				switch {
				case o.Arg == NoArg:
				case j+1 < len(a):
					opt.Value, opt.HasValue = a[j+1:], true
					j = len(a)
				case o.Arg == Required:
					if i+1 >= len(args) {
						return opts, operands, &Error{fmt.Sprintf("option requires an argument -- '%c'", c)}
					}
					i++
					opt.Value, opt.HasValue = args[i], true
				}
				opts = append(opts, opt)
			}
		case s.InOrder && !s.Operands:
			return opts, append(operands, args[i:]...), nil
		default:
			operand(i)
		}
	}
	return opts, operands, nil
}

func shortOption(table []Option, c byte) *Option {
	for i := range table {
		o := &table[i]
		if (o.Short != 0 && o.Short == c) || (o.Digits && c >= '0' && c <= '9') {
			return o
		}
	}
	return nil
}

// longOption finds the option "--name[=value]" names: an exact name, or
// else a prefix of one option (or of aliases that take the same value).
func longOption(table []Option, arg string) (*Option, error) {
	typed := arg[2:]
	name, _, _ := strings.Cut(typed, "=")
	var first *Option
	var ambiguous []*Option
	for i := range table {
		o := &table[i]
		if o.Long == "" || !strings.HasPrefix(o.Long, name) {
			continue
		}
		if o.Long == name {
			return o, nil
		}
		switch {
		case first == nil:
			first = o
		case o.key() != first.key() || o.Arg != first.Arg:
			if ambiguous == nil {
				ambiguous = []*Option{first}
			}
			ambiguous = append(ambiguous, o)
		}
	}
	if ambiguous != nil {
		var b strings.Builder
		fmt.Fprintf(&b, "option '%s' is ambiguous; possibilities:", arg)
		for _, o := range ambiguous {
			fmt.Fprintf(&b, " '--%s'", o.Long)
		}
		return nil, &Error{b.String()}
	}
	if first == nil {
		return nil, &Error{fmt.Sprintf("unrecognized option '%s'", arg)}
	}
	return first, nil
}
