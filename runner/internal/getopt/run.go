package getopt

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
)

// Run parses env's arguments. After a usage error it prints it (with
// Spec.Fail, or as coreutils do) and returns ok=false with the usage
// status; after an --help or --version the command did not declare it
// prints the help or the version line and returns ok=false, status 0.
func (s *Spec) Run(env *command.Env) (opts Opts, operands []string, status int, ok bool) {
	var args []string
	if len(env.Args) > 1 {
		args = env.Args[1:]
	}
	opts, operands, err := s.Parse(args)
	if err != nil {
		var ge *Error
		if !errors.As(err, &ge) {
			ge = &Error{err.Error()}
		}
		return opts, operands, s.fail(env, ge.Msg), false
	}
	if n := len(opts); n > 0 {
		switch last := opts[n-1]; {
		case last.Key == "help" && last.Name == "--help" && s.auto("help"):
			fmt.Fprint(env.Stdout, s.HelpText(env.Name()))
			return opts, operands, 0, false
		case last.Key == "version" && last.Name == "--version" && s.auto("version"):
			fmt.Fprintln(env.Stdout, s.VersionText(env.Name()))
			return opts, operands, 0, false
		}
	}
	return opts, operands, 0, true
}

// auto reports whether --long is one Run adds (the command declares none).
func (s *Spec) auto(long string) bool {
	for i := range s.Options {
		if s.Options[i].Long == long {
			return false
		}
	}
	return true
}

// Usagef prints a usage error found after parsing (a bad value, a
// missing operand) as Run prints getopt's own, and returns the status.
func (s *Spec) Usagef(env *command.Env, format string, a ...any) int {
	return s.fail(env, fmt.Sprintf(format, a...))
}

func (s *Spec) fail(env *command.Env, msg string) int {
	name := env.Name()
	if s.Fail != nil {
		return s.Fail(name, env.Stderr, msg)
	}
	if msg != "" {
		fmt.Fprintf(env.Stderr, "%s: %s\n", name, msg)
	}
	fmt.Fprintf(env.Stderr, "Try '%s --help' for more information.\n", name)
	if s.UsageStatus == 0 {
		return 1
	}
	return s.UsageStatus
}

// UsageLines returns "Usage: NAME …" and its "  or:  NAME …" lines.
func (s *Spec) UsageLines(name string) string {
	usage := s.Usage
	if len(usage) == 0 {
		usage = []string{"[OPTION]... [FILE]..."}
	}
	var b strings.Builder
	for i, u := range usage {
		if i == 0 {
			fmt.Fprintf(&b, "Usage: %s %s\n", name, u)
		} else {
			fmt.Fprintf(&b, "  or:  %s %s\n", name, u)
		}
	}
	return b.String()
}

// HelpText is what --help prints: Spec.Help, or the usage lines and the
// options, one a line as in GNU's --help.
func (s *Spec) HelpText(name string) string {
	if s.Help != "" {
		return s.Help
	}
	var b strings.Builder
	b.WriteString(s.UsageLines(name))
	flags := s.Flags()
	if s.auto("help") {
		flags = append(flags, "--help")
	}
	if s.auto("version") {
		flags = append(flags, "--version")
	}
	if len(flags) > 0 {
		b.WriteString("\nOptions:\n")
	}
	for _, f := range flags {
		if strings.HasPrefix(f, "--") {
			b.WriteString("    ")
		}
		fmt.Fprintf(&b, "  %s\n", f)
	}
	return b.String()
}

// VersionText is the --version line.
func (s *Spec) VersionText(name string) string {
	if s.Version != "" {
		return s.Version
	}
	return name + " (wsfs runner)"
}

// Flags lists the options for the command table: one entry per option,
// aliases (options sharing a Key) joined into one, in declaration order,
// then Spec.Extra.
func (s *Spec) Flags() []string {
	var out []string
	done := map[string]bool{}
	for i := range s.Options {
		o := &s.Options[i]
		k := o.key()
		if o.Hidden || done[k] {
			continue
		}
		done[k] = true
		if o.Digits {
			out = append(out, "-"+argName(o))
			continue
		}
		var shorts, longs []*Option
		for j := i; j < len(s.Options); j++ {
			a := &s.Options[j]
			if a.key() != k || a.Hidden {
				continue
			}
			if a.Short != 0 {
				shorts = append(shorts, a)
			}
			if a.Long != "" {
				longs = append(longs, a)
			}
		}
		var parts []string
		for _, a := range shorts {
			// A short option shows its value unless a long alias that
			// takes it the same way shows it ("-w, --width=COLS").
			p := "-" + string(a.Short)
			switch {
			case a.Arg == Optional:
				p += "[" + argName(a) + "]"
			case a.Arg == Required && (len(longs) == 0 || longs[0].Arg != Required):
				p += " " + argName(a)
			}
			parts = append(parts, p)
		}
		for _, a := range longs {
			p := "--" + a.Long
			switch a.Arg {
			case Optional:
				p += "[=" + argName(a) + "]"
			case Required:
				p += "=" + argName(a)
			}
			parts = append(parts, p)
		}
		out = append(out, strings.Join(parts, ", "))
	}
	return append(out, s.Extra...)
}

func argName(o *Option) string {
	if o.ArgName != "" {
		return o.ArgName
	}
	if o.Digits {
		return "NUM"
	}
	return "ARG"
}
