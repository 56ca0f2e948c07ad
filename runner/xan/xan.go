// Package xan is the runner's `xan` command: a CSV toolkit for agents in
// the spirit of medialab/xan (and csvkit), written on encoding/csv, with
// xan's subcommand names, flags and output formats where they exist, so an
// agent that knows xan gets what it expects.
//
// Subcommands: headers, count, select, search, filter, map, transform, sort,
// frequency (freq), stats, agg, groupby, slice, head, tail, to (json,
// jsonl/ndjson, md, txt), from (json, jsonl/ndjson, txt), view, flatten,
// cat rows|columns, dedup, rename, behead, join, reverse, transpose,
// fixlengths, enum.
// Common flags: -d DELIM (input delimiter; .tsv/.tab files default to
// tab, .psv to |), -t/--tabs (a wsfs extension, as csvkit's -t),
// -n/--no-headers, -o FILE, -h/--help; `xan CMD --help` documents each.
//
// Inputs are files read through the command's confined FS, or stdin when
// no file or "-" is given. Rows stream: only sort, reverse, transpose,
// tail (its last rows), to md, cat columns' and join's indexed side,
// frequency/stats -c/groupby (one entry per distinct value or group) and
// from json hold more than a row at a time; head, slice, view, search -l
// and filter -l stop reading once they have their rows.
//
// Column selections follow xan's shorthand: names, zero-based indices,
// negative indices from the end, inclusive ranges "a:c", "!col" negation,
// "name[n]" for the nth duplicate, "pre*" / "*suf" globs and "*" for all.
//
// filter, map and transform evaluate a subset of xan's expression language
// (moonblade): literals, column names, col(), arithmetic, numeric (== < …)
// and string (eq lt …) comparisons, && || !, in / not in, regex literals,
// indexing and about fifty functions (lower, trim, len, contains,
// startswith, split, fmt, …); agg and groupby take aggregation calls
// (count, sum, mean, min, max, median, values, cardinality, …). Anything
// else is refused with the list of what is supported.
//
// Deliberate differences from xan: no colours, no parallelism, no gzip;
// stats reports dates and URLs as "string"; view and flatten draw plain
// tables (view keeps every column, cutting cells at 40 columns);
// malformed or ragged CSV is an error naming the line (status 1), bad
// usage status 2 with the usage line.
package xan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
)

// Commands lists the command this package provides.
func Commands() []command.Spec {
	flags := make([]string, 0, len(subcommands)+6)
	for _, s := range subcommands {
		flags = append(flags, s.name)
	}
	flags = append(flags, "-d DELIM", "-t", "-n", "-o FILE", "-h", "--help")
	return []command.Spec{{
		Name:    "xan",
		Summary: "CSV toolkit (medialab/xan subset): select, search, filter, map, sort, frequency, stats, groupby, join, to/from json, view",
		Flags:   flags,
		Func:    Run,
	}}
}

// flagDef is one option of a subcommand. arg is the value's placeholder
// ("" for a switch); repeated options keep every value.
type flagDef struct {
	short, long, arg, help string
}

type subcommand struct {
	name    string
	aliases []string
	summary string
	usage   []string // the lines after "xan "
	about   string
	flags   []flagDef
	run     func(c *call) error
}

var commonFlags = []flagDef{
	{"-o", "--output", "<file>", "Write output to <file> instead of stdout."},
	{"-n", "--no-headers", "", "The first row is data, not column names."},
	{"-d", "--delimiter", "<arg>", "Field delimiter of the input (one character; \\t for tab)."},
	{"-t", "--tabs", "", "Input is tab-separated (same as -d '\\t')."},
	{"-h", "--help", "", "Display this message."},
}

// subcommands is filled in init so the help subcommand may list them.
var subcommands []*subcommand

func init() {
	subcommands = []*subcommand{
		headersCmd, countCmd, selectCmd, searchCmd, filterCmd, mapCmd, transformCmd, sortCmd,
		frequencyCmd, statsCmd, aggCmd, groupbyCmd, sliceCmd, headCmd, tailCmd, toCmd, fromCmd,
		viewCmd, flattenCmd, catCmd, dedupCmd, renameCmd, beheadCmd, joinCmd,
		reverseCmd, transposeCmd, fixlengthsCmd, enumCmd,
	}
}

func lookup(name string) *subcommand {
	for _, s := range subcommands {
		if s.name == name {
			return s
		}
		for _, a := range s.aliases {
			if a == name {
				return s
			}
		}
	}
	return nil
}

// usageError is bad usage: status 2 and the usage line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error {
	return &usageError{fmt.Sprintf(format, a...)}
}

// Run is the xan command.
func Run(ctx context.Context, env *command.Env) int {
	args := env.Args[1:]
	if len(args) == 0 {
		io.WriteString(env.Stderr, mainHelp())
		return 2
	}
	switch args[0] {
	case "-h", "--help", "help":
		if len(args) > 1 && args[0] == "help" {
			if s := lookup(args[1]); s != nil {
				io.WriteString(env.Stdout, s.help())
				return 0
			}
		}
		io.WriteString(env.Stdout, mainHelp())
		return 0
	case "--version", "-V":
		fmt.Fprintln(env.Stdout, "xan (wsfs subset, after medialab/xan 0.5x)")
		return 0
	}
	sub := lookup(args[0])
	if sub == nil {
		fmt.Fprintf(env.Stderr, "xan: unknown command %q\n", args[0])
		fmt.Fprintf(env.Stderr, "xan: commands: %s\n", strings.Join(names(), ", "))
		return 2
	}
	c := &call{ctx: ctx, env: env, sub: sub}
	if err := c.parse(args[1:]); err != nil {
		return c.fail(err)
	}
	if c.has("help") {
		io.WriteString(env.Stdout, sub.help())
		return 0
	}
	err := c.setup()
	if err == nil {
		err = sub.run(c)
	}
	if ferr := c.finish(); err == nil {
		err = ferr
	}
	if err != nil {
		return c.fail(err)
	}
	return 0
}

func (c *call) fail(err error) int {
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(c.env.Stderr, "xan %s: %s\n", c.sub.name, ue.msg)
		fmt.Fprintf(c.env.Stderr, "usage: xan %s (see xan %s --help)\n", c.sub.usage[0], c.sub.name)
		return 2
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return 1
	}
	fmt.Fprintf(c.env.Stderr, "xan %s: %s\n", c.sub.name, err)
	return 1
}

func names() []string {
	var n []string
	for _, s := range subcommands {
		n = append(n, s.name)
	}
	return n
}

func mainHelp() string {
	var b strings.Builder
	b.WriteString("xan: a CSV toolkit (a subset of medialab/xan, written for wsfs)\n\nUsage:\n    xan <command> [options] [<input>...]\n    xan <command> --help\n\nCommands:\n")
	for _, s := range subcommands {
		name := s.name
		if len(s.aliases) > 0 {
			name += " (" + strings.Join(s.aliases, ", ") + ")"
		}
		fmt.Fprintf(&b, "    %-20s %s\n", name, s.summary)
	}
	b.WriteString("\nCommon options:\n")
	writeFlags(&b, commonFlags)
	b.WriteString("\nInput is read from the files given, or stdin when none (or \"-\") is given.\n")
	return b.String()
}

func (s *subcommand) help() string {
	var b strings.Builder
	fmt.Fprintf(&b, "xan %s: %s\n", s.name, s.summary)
	if s.about != "" {
		b.WriteString("\n" + strings.TrimSpace(s.about) + "\n")
	}
	b.WriteString("\nUsage:\n")
	for _, u := range s.usage {
		b.WriteString("    xan " + u + "\n")
	}
	if len(s.flags) > 0 {
		fmt.Fprintf(&b, "\n%s options:\n", s.name)
		writeFlags(&b, s.flags)
	}
	b.WriteString("\nCommon options:\n")
	writeFlags(&b, s.common())
	return b.String()
}

func writeFlags(b *strings.Builder, flags []flagDef) {
	for _, f := range flags {
		spec := f.long
		if f.short != "" {
			spec = f.short + ", " + f.long
		}
		if f.arg != "" {
			spec += " " + f.arg
		}
		fmt.Fprintf(b, "    %-28s %s\n", spec, f.help)
	}
}

// common returns the common flags whose short name the subcommand does
// not use for something else (view's -t is its theme, as in xan).
func (s *subcommand) common() []flagDef {
	var out []flagDef
	for _, cf := range commonFlags {
		clash := false
		for _, f := range s.flags {
			if cf.short != "" && f.short == cf.short {
				clash = true
			}
		}
		if clash {
			cf.short = ""
		}
		out = append(out, cf)
	}
	return out
}

// parse reads the options of a subcommand: short switches may be bundled
// (-Ni), values attached (-l5, --limit=5) or separate; "--" ends options
// and "-" is an argument (stdin).
func (c *call) parse(args []string) error {
	c.vals = map[string][]string{}
	defs := append(append([]flagDef(nil), c.sub.flags...), c.sub.common()...)
	find := func(short, long string) *flagDef {
		for i := range defs {
			if (short != "" && defs[i].short == short) || (long != "" && defs[i].long == long) {
				return &defs[i]
			}
		}
		return nil
	}
	set := func(f *flagDef, v string) {
		c.vals[strings.TrimPrefix(f.long, "--")] = append(c.vals[strings.TrimPrefix(f.long, "--")], v)
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			c.args = append(c.args, args[i+1:]...)
			return nil
		case a == "-" || !strings.HasPrefix(a, "-") || isNegativeNumber(a):
			c.args = append(c.args, a)
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a, "=")
			f := find("", name)
			if f == nil {
				return usagef("unknown option %s (options: %s)", name, flagList(defs))
			}
			if f.arg == "" {
				if hasVal {
					return usagef("option %s takes no value", name)
				}
				set(f, "")
				continue
			}
			if !hasVal {
				if i+1 >= len(args) {
					return usagef("option %s needs a value %s", name, f.arg)
				}
				i++
				val = args[i]
			}
			set(f, val)
		default:
			for j := 1; j < len(a); j++ {
				f := find("-"+string(a[j]), "")
				if f == nil {
					return usagef("unknown option -%c (options: %s)", a[j], flagList(defs))
				}
				if f.arg == "" {
					set(f, "")
					continue
				}
				val := a[j+1:]
				if val == "" {
					if i+1 >= len(args) {
						return usagef("option %s needs a value %s", f.short, f.arg)
					}
					i++
					val = args[i]
				}
				set(f, strings.TrimPrefix(val, "="))
				break
			}
		}
	}
	return nil
}

// isNegativeNumber lets "select -1" mean the last column, as xan's
// docopt parser does when the value is a plain number.
func isNegativeNumber(a string) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	_, err := strconv.Atoi(a[1:])
	return err == nil && !strings.HasPrefix(a[1:], "-")
}

func flagList(defs []flagDef) string {
	var l []string
	for _, f := range defs {
		l = append(l, f.long)
	}
	sort.Strings(l)
	return strings.Join(l, " ")
}

func (c *call) has(long string) bool { _, ok := c.vals[long]; return ok }

func (c *call) str(long, def string) string {
	v, ok := c.vals[long]
	if !ok {
		return def
	}
	return v[len(v)-1]
}

// num is a non-negative integer option.
func (c *call) num(long string, def int) (int, error) {
	v, ok := c.vals[long]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v[len(v)-1])
	if err != nil || n < 0 {
		return 0, usagef("--%s needs a non-negative integer, not %q", long, v[len(v)-1])
	}
	return n, nil
}

// limit is the -l/--limit option, 0 (no limit) with -A/--all.
func (c *call) limit(def int) (int, error) {
	if c.has("all") {
		return 0, nil
	}
	return c.num("limit", def)
}

// inputs returns the input names: the arguments, or stdin.
func (c *call) inputs(args []string) []string {
	if len(args) == 0 {
		return []string{"-"}
	}
	return args
}

// oneInput checks that at most one input is given.
func (c *call) oneInput(args []string) (string, error) {
	switch len(args) {
	case 0:
		return "-", nil
	case 1:
		return args[0], nil
	}
	return "", usagef("too many arguments: %s", strings.Join(args[1:], " "))
}
