package runwire

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// The command line rules every wsfs verb shares (wsfs run here, the
// others in wsfs-core), so that the front and the core read them alike.

// GlobalFlags are the flags every verb takes, which may also come before
// the verb: `wsfs --store URL ls` is `wsfs ls --store URL`.
var GlobalFlags = []string{"store", "home", "meta"}

// LeadingGlobals splits the global flags that come before the verb
// (--store URL, --store=URL, --home DIR, --meta URL, one or two dashes) from the
// rest, which starts with the verb. They come back as NAME=VALUE flags
// ready to go in front of the verb's own arguments. Any other flag before
// the verb is an error that names it; -h and --help are left for the
// caller (they start the rest).
func LeadingGlobals(args []string) (globals, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			return globals, args[i+1:], nil
		}
		if len(arg) < 2 || arg[0] != '-' || arg == "-h" || arg == "--help" || arg == "-help" {
			return globals, args[i:], nil
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if !isGlobal(name) {
			return nil, nil, fmt.Errorf("unknown flag %s before the command (the flags that may come before it: --store URL, --home DIR, --meta URL; a command's own flags follow it)", DisplayFlag(name))
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, nil, fmt.Errorf("flag %s needs a value", DisplayFlag(name))
			}
			i++
			value = args[i]
		}
		globals = append(globals, "--"+name+"="+value)
	}
	return globals, nil, nil
}

func isGlobal(name string) bool {
	for _, g := range GlobalFlags {
		if name == g {
			return true
		}
	}
	return false
}

// DisplayFlag spells a flag's name as people type it: -f, --json.
func DisplayFlag(name string) string {
	name = strings.TrimLeft(name, "-")
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// FlagError rewords an error of the standard flag package for people:
// "unknown flag --frob" rather than "flag provided but not defined:
// -frob".
func FlagError(err error) string {
	msg := err.Error()
	for _, r := range []struct{ prefix, format string }{
		{"flag provided but not defined: ", "unknown flag %s"},
		{"flag needs an argument: ", "flag %s needs a value"},
	} {
		if name, ok := strings.CutPrefix(msg, r.prefix); ok {
			return fmt.Sprintf(r.format, DisplayFlag(name))
		}
	}
	// invalid value "x" for flag -limit: parse error
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		if i := strings.LastIndex(rest, " for flag -"); i >= 0 {
			value := rest[:i]
			name, why, _ := strings.Cut(rest[i+len(" for flag -"):], ": ")
			if why == "parse error" {
				return fmt.Sprintf("flag %s: %s is not a valid value", DisplayFlag(name), value)
			}
			return fmt.Sprintf("flag %s: %s is not a valid value (%s)", DisplayFlag(name), value, why)
		}
	}
	if rest, ok := strings.CutPrefix(msg, "invalid boolean value "); ok {
		if i := strings.LastIndex(rest, " for -"); i >= 0 {
			name, _, _ := strings.Cut(rest[i+len(" for -"):], ":")
			return fmt.Sprintf("flag %s takes no value but true or false, not %s", DisplayFlag(name), rest[:i])
		}
	}
	if arg, ok := strings.CutPrefix(msg, "bad flag syntax: "); ok {
		return fmt.Sprintf("%s is not a flag (flags are -x or --name)", arg)
	}
	return msg
}

// Interleave moves the flags that follow positional arguments to the
// front, so `wsfs log acme/a --json` works as people type it. "--" ends
// the flags.
func Interleave(fs *flag.FlagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(arg) > 1 && arg[0] == '-' {
			flags = append(flags, arg)
			name := strings.TrimLeft(arg, "-")
			if strings.Contains(name, "=") {
				continue
			}
			if f := fs.Lookup(name); f != nil {
				if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
					continue
				}
				if i+1 < len(args) {
					flags = append(flags, args[i+1])
					i++
				}
			}
			continue
		}
		pos = append(pos, arg)
	}
	return append(append(flags, "--"), pos...)
}

// PrintFlags lists a verb's flags as people type them (--json, -o FILE),
// the global ones last.
func PrintFlags(w io.Writer, fs *flag.FlagSet) {
	var own, global []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if isGlobal(f.Name) {
			global = append(global, f)
		} else {
			own = append(own, f)
		}
	})
	for _, f := range append(own, global...) {
		name, usage := flag.UnquoteUsage(f)
		switch name {
		case "int", "uint", "int64", "uint64", "float":
			name = "N"
		case "duration":
			name = "D"
		case "string", "value":
			name = "VALUE"
		}
		line := "  " + DisplayFlag(f.Name)
		if name != "" {
			line += " " + name
		}
		fmt.Fprintf(w, "%s\n    \t%s%s\n", line, strings.ReplaceAll(usage, "\n", "\n    \t"), flagDefault(f))
	}
}

// flagDefault is " (default X)" for a flag whose default says something:
// not a zero, and not one a Func flag (whose usage says it) has.
func flagDefault(f *flag.Flag) string {
	switch f.DefValue {
	case "", "0", "false", "0s":
		return ""
	}
	return fmt.Sprintf(" (default %s)", f.DefValue)
}

// packageNames are the packages whose "pkg: " prefix errors carry.
var packageNames = []string{"meta", "api", "storeurl", "s3", "objects", "fusefs", "runsvc", "runwire", "metaurl", "etcdkv", "boltkv", "kv", "home", "runner"}

// UserMessage is an error's message as people read it: without the
// package names ("meta: ", "s3: ") that errors carry, for the log and for
// programmers, wherever such an error starts in the message (at its
// start, or after ": ", "; ", "(" or a new line).
func UserMessage(msg string) string {
	var b strings.Builder
	for i := 0; i < len(msg); {
		if i == 0 || msg[i-1] == '(' || msg[i-1] == '\n' || i >= 2 && (msg[i-2:i] == ": " || msg[i-2:i] == "; ") {
			if n := packagePrefixLen(msg[i:]); n > 0 {
				i += n
				continue
			}
		}
		b.WriteByte(msg[i])
		i++
	}
	return b.String()
}

// packagePrefixLen is the length of the "pkg: " s starts with, or 0.
func packagePrefixLen(s string) int {
	for _, p := range packageNames {
		if len(s) > len(p)+2 && s[:len(p)] == p && s[len(p):len(p)+2] == ": " {
			return len(p) + 2
		}
	}
	return 0
}
