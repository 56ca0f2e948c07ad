package coreutils

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
)

// argMode says whether an option takes a value.
type argMode int

const (
	noArg   argMode = iota
	needArg         // -w 80, -w80, --width=80, --width 80
	optArg          // --color, --color=never (long form only, as getopt_long)
)

// option is one flag of a command. do applies it; an error it returns is
// printed as "name: message" followed by the "Try --help" line.
type option struct {
	short string // one character, or ""
	long  string // without the dashes, or ""
	arg   argMode
	do    func(val string) error
}

// flag is an option without a value that sets *p.
func flag(short, long string, p *bool) option {
	return option{short: short, long: long, do: func(string) error { *p = true; return nil }}
}

// act is an option without a value that runs f.
func act(short, long string, f func()) option {
	return option{short: short, long: long, do: func(string) error { f(); return nil }}
}

// valued is an option taking a value.
func valued(short, long string, f func(string) error) option {
	return option{short: short, long: long, arg: needArg, do: f}
}

// usageError is a bad command line; the message is printed as is.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// cmdline parses a command line as GNU getopt_long does: options may follow
// operands (unless inOrder), short options bundle, long options may be
// abbreviated to a unique prefix, "--" ends the options.
type cmdline struct {
	env       *command.Env
	opts      []option
	inOrder   bool // stop at the first operand (env, timeout, time, nice)
	usageCode int  // exit status of a usage error; 1 if 0
	usage     string
	try       string // the line after a usage error, if not GNU's usual one
	// onOperand, when set, sees each operand in order among the options
	// (tar's -C applies to the members after it).
	onOperand func(string)
}

// parse returns the operands, or ok=false and the exit status after a usage
// error, --help or --version.
func (c *cmdline) parse() (operands []string, code int, ok bool) {
	args := c.env.Args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if c.onOperand != nil {
				for _, o := range args[i+1:] {
					c.onOperand(o)
				}
			}
			return append(operands, args[i+1:]...), 0, true
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			o, err := c.findLong(name)
			if err != nil {
				return nil, c.fail(err.Error()), false
			}
			if o == &helpOption || o == &versionOption {
				return nil, c.helpOrVersion(o.long), false
			}
			switch {
			case o.arg == noArg && hasVal:
				return nil, c.fail(fmt.Sprintf("option '--%s' doesn't allow an argument", o.long)), false
			case o.arg == needArg && !hasVal:
				if i+1 >= len(args) {
					return nil, c.fail(fmt.Sprintf("option '--%s' requires an argument", o.long)), false
				}
				i++
				val = args[i]
			}
			if err := o.do(val); err != nil {
				return nil, c.badArg(err), false
			}
		case strings.HasPrefix(a, "-") && a != "-":
			for j := 1; j < len(a); j++ {
				ch := a[j : j+1]
				o := c.findShort(ch)
				if o == nil {
					return nil, c.fail(fmt.Sprintf("invalid option -- '%s'", ch)), false
				}
				val := ""
				if o.arg == needArg {
					if j+1 < len(a) {
						val = a[j+1:]
					} else if i+1 < len(args) {
						i++
						val = args[i]
					} else {
						return nil, c.fail(fmt.Sprintf("option requires an argument -- '%s'", ch)), false
					}
					j = len(a)
				}
				if err := o.do(val); err != nil {
					return nil, c.badArg(err), false
				}
			}
		default:
			if c.inOrder {
				return append(operands, args[i:]...), 0, true
			}
			operands = append(operands, a)
			if c.onOperand != nil {
				c.onOperand(a)
			}
		}
	}
	return operands, 0, true
}

func (c *cmdline) findShort(ch string) *option {
	for i := range c.opts {
		if c.opts[i].short == ch {
			return &c.opts[i]
		}
	}
	return nil
}

var helpOption, versionOption = option{long: "help"}, option{long: "version"}

func (c *cmdline) findLong(name string) (*option, error) {
	var matches []*option
	cands := make([]*option, 0, len(c.opts)+2)
	for i := range c.opts {
		cands = append(cands, &c.opts[i])
	}
	cands = append(cands, &helpOption, &versionOption)
	for _, o := range cands {
		if o.long == "" {
			continue
		}
		if o.long == name {
			return o, nil
		}
		if name != "" && strings.HasPrefix(o.long, name) {
			matches = append(matches, o)
		}
	}
	switch len(matches) {
	case 0:
		return nil, usageError{fmt.Sprintf("unrecognized option '--%s'", name)}
	case 1:
		return matches[0], nil
	}
	var poss []string
	for _, m := range matches {
		poss = append(poss, "'--"+m.long+"'")
	}
	return nil, usageError{fmt.Sprintf("option '--%s' is ambiguous; possibilities: %s", name, strings.Join(poss, " "))}
}

func (c *cmdline) helpOrVersion(name string) int {
	if name == "version" {
		fmt.Fprintf(c.env.Stdout, "%s (wsfs runner)\n", c.env.Name())
		return 0
	}
	usage := c.usage
	if usage == "" {
		usage = c.env.Name() + " [OPTION]... [FILE]..."
	}
	fmt.Fprintf(c.env.Stdout, "Usage: %s\nOptions: %s\n", usage, strings.Join(flagNames(c.opts), " "))
	return 0
}

// fail prints a usage error in GNU's words and returns the exit status.
func (c *cmdline) fail(msg string) int {
	if c.try != "" {
		c.env.Errorf("%s", msg)
		fmt.Fprintln(c.env.Stderr, c.try)
		return c.usageCode
	}
	return usageFail(c.env, c.usageCode, msg)
}

// badArg reports an option value its option refused; GNU tools exit 1
// for those whatever their usage status.
func (c *cmdline) badArg(err error) int {
	code := 1
	if c.usageCode > 2 {
		code = c.usageCode
	}
	return usageFail(c.env, code, err.Error())
}

// usageFail prints "name: msg" and the "Try" line; code 0 means 1.
func usageFail(env *command.Env, code int, msg string) int {
	if msg != "" {
		env.Errorf("%s", msg)
	}
	fmt.Fprintf(env.Stderr, "Try '%s --help' for more information.\n", env.Name())
	if code == 0 {
		code = 1
	}
	return code
}

// flagNames lists the options for Spec.Flags.
func flagNames(opts []option) []string {
	var out []string
	for _, o := range opts {
		var s string
		switch {
		case o.short != "" && o.long != "":
			s = "-" + o.short + ", --" + o.long
		case o.short != "":
			s = "-" + o.short
		default:
			s = "--" + o.long
		}
		switch o.arg {
		case needArg:
			s += " ARG"
		case optArg:
			s += "[=ARG]"
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// quote returns name quoted as GNU diagnostics quote file names: 'name',
// "it's" when it holds a single quote, and $'…' escapes for control bytes.
func quote(name string) string {
	special := false
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] == 0x7f {
			special = true
			break
		}
	}
	if special {
		var b strings.Builder
		b.WriteString("'")
		for i := 0; i < len(name); i++ {
			ch := name[i]
			if ch < 0x20 || ch == 0x7f || ch == '\'' {
				b.WriteString("'$'")
				switch ch {
				case '\n':
					b.WriteString(`\n`)
				case '\t':
					b.WriteString(`\t`)
				case '\'':
					b.WriteString(`\'`)
				default:
					fmt.Fprintf(&b, `\%03o`, ch)
				}
				b.WriteString("''")
				continue
			}
			b.WriteByte(ch)
		}
		b.WriteString("'")
		return b.String()
	}
	if strings.Contains(name, "'") {
		return `"` + name + `"`
	}
	return "'" + name + "'"
}

// stickyWriter remembers the first write error so loops can stop.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err != nil {
		s.err = err
	}
	return n, err
}
