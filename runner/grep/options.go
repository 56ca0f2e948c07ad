package grep

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

// matcherKind is -G, -E, -F or -P.
type matcherKind byte

const (
	matchUnset matcherKind = 0
	matchBRE   matcherKind = 'G'
	matchERE   matcherKind = 'E'
	matchFixed matcherKind = 'F'
	matchPerl  matcherKind = 'P'
)

type binaryMode int

const (
	binaryDefault binaryMode = iota // "binary": say "binary file matches"
	binaryText                      // -a
	binaryNoMatch                   // -I
)

// options is one grep invocation's command line.
type options struct {
	matcher      matcherKind
	patterns     []string // from -e, -f or the first operand, one per line
	havePatterns bool     // -e or -f given
	files        []string

	ignoreCase, invert, word, wholeLine  bool
	count, listMatching, listNonMatching bool
	quiet, noMessages                    bool
	lineNumber, byteOffset               bool
	withFilename                         int // -1 unset, 0 -h, 1 -H
	onlyMatching                         bool
	recursive                            int // 0, 1 (-r), 2 (-R)
	skipDirs                             bool
	skipDevices                          bool
	includes, excludes, excludeDirs      []string
	after, before                        int
	maxCount                             int64 // -1: no limit
	nullData                             bool  // -z
	nullAfterName                        bool  // -Z
	binary                               binaryMode
	label                                string
	lineBuffered                         bool
	initialTab                           bool

	warnings []string // printed as "grep: warning: ..."

	groupSeparator   *string // --group-separator (nil: "--")
	noGroupSeparator bool    // --no-group-separator

	// rg only
	rg           bool
	countMatches bool    // --count-matches
	replace      *string // -r
	column       bool    // --column
	vimgrep      bool    // --vimgrep
	json         bool    // --json
	// jsonNoLineNumber: --json with -N (line_number is null).
	jsonNoLineNumber bool
}

// usageError is a bad command line: GNU prints the message (if any) and
// the two usage lines, and exits 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// fatalError is an error GNU reports as "grep: msg" with status 2 and no
// usage lines.
type fatalError struct{ msg string }

func (e *fatalError) Error() string { return e.msg }

// grepSpec is grep's command line, in the order of GNU grep's --help.
// The keys are grep's short letters (or the long name of a long-only
// option), as the switch in parseArgs reads them.
var grepSpec = getopt.Spec{
	Usage: []string{"[OPTION]... PATTERNS [FILE]..."},
	Options: []getopt.Option{
		{Short: 'E', Long: "extended-regexp", Key: "E"}, {Short: 'F', Long: "fixed-strings", Key: "F"},
		{Long: "fixed-regexp", Key: "F", Hidden: true}, {Short: 'G', Long: "basic-regexp", Key: "G"},
		{Short: 'P', Long: "perl-regexp", Key: "P"},
		{Short: 'e', Long: "regexp", Arg: getopt.Required, ArgName: "PATTERNS", Key: "e"},
		{Short: 'f', Long: "file", Arg: getopt.Required, ArgName: "FILE", Key: "f"},
		{Short: 'i', Long: "ignore-case", Key: "i"}, {Short: 'y', Key: "y"}, {Long: "no-ignore-case"},
		{Short: 'w', Long: "word-regexp", Key: "w"}, {Short: 'x', Long: "line-regexp", Key: "x"},
		{Short: 'z', Long: "null-data", Key: "z"}, {Short: 's', Long: "no-messages", Key: "s"},
		{Short: 'v', Long: "invert-match", Key: "v"}, {Short: 'V', Long: "version", Key: "V"}, {Long: "help"},
		{Short: 'm', Long: "max-count", Arg: getopt.Required, ArgName: "NUM", Key: "m"},
		{Short: 'b', Long: "byte-offset", Key: "b"}, {Short: 'n', Long: "line-number", Key: "n"}, {Long: "no-line-number"},
		{Long: "line-buffered"}, {Short: 'H', Long: "with-filename", Key: "H"}, {Short: 'h', Long: "no-filename", Key: "h"},
		{Long: "label", Arg: getopt.Required, ArgName: "LABEL"}, {Short: 'o', Long: "only-matching", Key: "o"},
		{Short: 'q', Long: "quiet", Key: "q"}, {Long: "silent", Key: "q"},
		{Long: "binary-files", Arg: getopt.Required, ArgName: "TYPE"}, {Short: 'a', Long: "text", Key: "a"},
		{Short: 'I', Key: "I"}, {Short: 'd', Long: "directories", Arg: getopt.Required, ArgName: "ACTION", Key: "d"},
		{Short: 'D', Long: "devices", Arg: getopt.Required, ArgName: "ACTION", Key: "D"},
		{Short: 'r', Long: "recursive", Key: "r"}, {Short: 'R', Long: "dereference-recursive", Key: "R"},
		{Long: "include", Arg: getopt.Required, ArgName: "GLOB"}, {Long: "exclude", Arg: getopt.Required, ArgName: "GLOB"},
		{Long: "exclude-from", Arg: getopt.Required, ArgName: "FILE"},
		{Long: "exclude-dir", Arg: getopt.Required, ArgName: "GLOB"}, {Short: 'L', Long: "files-without-match", Key: "L"},
		{Short: 'l', Long: "files-with-matches", Key: "l"}, {Short: 'c', Long: "count", Key: "c"},
		{Short: 'T', Long: "initial-tab", Key: "T"}, {Short: 'Z', Long: "null", Key: "Z"},
		{Short: 'B', Long: "before-context", Arg: getopt.Required, ArgName: "NUM", Key: "B"},
		{Short: 'A', Long: "after-context", Arg: getopt.Required, ArgName: "NUM", Key: "A"},
		{Short: 'C', Long: "context", Arg: getopt.Required, ArgName: "NUM", Key: "C"}, {Digits: true, Key: "NUM"},
		{Long: "group-separator", Arg: getopt.Required, ArgName: "SEP"}, {Long: "no-group-separator"},
		{Long: "color", Arg: getopt.Optional, ArgName: "WHEN"},
		{Long: "colour", Arg: getopt.Optional, ArgName: "WHEN", Key: "color"}, {Short: 'U', Long: "binary", Key: "U"},
		{Short: 'u', Long: "unix-byte-offsets", Key: "u", Hidden: true},
	},
}

// parseArgs reads a GNU grep command line (options may follow operands,
// "--" ends options, unambiguous long-option prefixes are accepted).
// readFile reads a -f file ("-" is stdin).
func parseArgs(name string, args []string, readFile func(string) (string, error)) (*options, error) {
	o := &options{withFilename: -1, after: -1, before: -1, maxCount: -1}
	switch name {
	case "egrep":
		o.matcher = matchERE
	case "fgrep":
		o.matcher = matchFixed
	}
	context := -1
	setMatcher := func(k matcherKind) error {
		if o.matcher != matchUnset && o.matcher != k {
			return &fatalError{"conflicting matchers specified"}
		}
		o.matcher = k
		return nil
	}
	apply := func(key, val string) error {
		switch key {
		case "E", "F", "G", "P":
			return setMatcher(matcherKind(key[0]))
		case "e":
			o.patterns = append(o.patterns, strings.Split(val, "\n")...)
			o.havePatterns = true
		case "f":
			text, err := readFile(val)
			if err != nil {
				return &fatalError{val + ": " + command.Strerror(err)}
			}
			// An empty file adds no pattern; each line (the last one with
			// or without its newline) adds one, an empty line the empty
			// pattern.
			if text != "" {
				o.patterns = append(o.patterns, strings.Split(strings.TrimSuffix(text, "\n"), "\n")...)
			}
			o.havePatterns = true
		case "i", "y":
			o.ignoreCase = true
		case "no-ignore-case":
			o.ignoreCase = false
		case "w":
			o.word = true
		case "x":
			o.wholeLine = true
		case "z":
			o.nullData = true
		case "s":
			o.noMessages = true
		case "v":
			o.invert = true
		case "V":
			return &fatalError{"version"}
		case "help":
			return &fatalError{"help"}
		case "m":
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return &fatalError{"invalid max count"}
			}
			if n < 0 {
				n = -1
			}
			o.maxCount = n
		case "b":
			o.byteOffset = true
		case "n":
			o.lineNumber = true
		case "no-line-number":
			o.lineNumber = false
		case "line-buffered":
			o.lineBuffered = true
		case "H":
			o.withFilename = 1
		case "h":
			o.withFilename = 0
		case "label":
			o.label = val
		case "o":
			o.onlyMatching = true
		case "q":
			o.quiet = true
		case "binary-files":
			switch val {
			case "binary":
				o.binary = binaryDefault
			case "text":
				o.binary = binaryText
			case "without-match":
				o.binary = binaryNoMatch
			default:
				return &fatalError{"unknown binary-files type"}
			}
		case "a":
			o.binary = binaryText
		case "I":
			o.binary = binaryNoMatch
		case "d":
			switch val {
			case "read":
				o.skipDirs = false
			case "skip":
				o.skipDirs = true
			case "recurse":
				o.recursive = 1
			default:
				return &fatalError{"invalid argument '" + val + "' for '--directories'"}
			}
		case "D":
			switch val {
			case "read":
				o.skipDevices = false
			case "skip":
				o.skipDevices = true
			default:
				return &fatalError{"unknown devices method"}
			}
		case "r":
			o.recursive = 1
		case "R":
			o.recursive = 2
		case "include":
			o.includes = append(o.includes, val)
		case "exclude":
			o.excludes = append(o.excludes, val)
		case "exclude-from":
			text, err := readFile(val)
			if err != nil {
				return &fatalError{val + ": " + command.Strerror(err)}
			}
			for _, l := range strings.Split(text, "\n") {
				if l != "" {
					o.excludes = append(o.excludes, l)
				}
			}
		case "exclude-dir":
			o.excludeDirs = append(o.excludeDirs, val)
		case "L":
			o.listNonMatching, o.listMatching = true, false
		case "l":
			o.listMatching, o.listNonMatching = true, false
		case "c":
			o.count = true
		case "T":
			o.initialTab = true
		case "Z":
			o.nullAfterName = true
		case "A", "B", "C":
			n, err := strconv.ParseInt(val, 10, 32)
			if err != nil || n < 0 {
				return &fatalError{val + ": invalid context length argument"}
			}
			switch key {
			case "A":
				o.after = int(n)
			case "B":
				o.before = int(n)
			default:
				context = int(n)
			}
		case "color":
			switch strings.ToLower(val) {
			case "", "never", "always", "auto", "yes", "no", "force", "tty", "if-tty", "none":
			default:
				// GNU answers an unknown WHEN with its help text, status 0.
				return &fatalError{"help"}
			}
		case "group-separator":
			o.groupSeparator = &val
		case "no-group-separator":
			o.groupSeparator = nil
			o.noGroupSeparator = true
		case "U":
			// -U (binary) changes nothing on Unix.
		case "u":
			o.warnings = append(o.warnings, "--unix-byte-offsets (-u) is obsolete")
		default:
			return &usageError{"invalid option -- '" + key + "'"}
		}
		return nil
	}

	opts, operands, perr := grepSpec.Parse(args)
	digits, digitsAt := "", -1 // -NUM so far, and the argument it came from
	for _, opt := range opts {
		if opt.Key == "NUM" {
			// GNU joins the digits of one argument ("-12", "-1v2").
			if opt.Index != digitsAt {
				digits = ""
			}
			digits, digitsAt = digits+opt.Value, opt.Index
			n, err := strconv.ParseInt(digits, 10, 32)
			if err != nil {
				return nil, &fatalError{digits + ": invalid context length argument"}
			}
			context = int(n)
			continue
		}
		if err := apply(opt.Key, opt.Value); err != nil {
			return nil, err
		}
	}
	if perr != nil {
		return nil, &usageError{perr.Error()}
	}
	if context >= 0 {
		if o.after < 0 {
			o.after = context
		}
		if o.before < 0 {
			o.before = context
		}
	}
	if o.matcher == matchUnset {
		o.matcher = matchBRE
	}
	if !o.havePatterns {
		if len(operands) == 0 {
			return nil, &usageError{}
		}
		o.patterns = strings.Split(operands[0], "\n")
		operands = operands[1:]
	}
	o.files = operands
	return o, nil
}

// reportArgError prints a command-line error as GNU grep does and returns
// its status.
func reportArgError(env *command.Env, err error) int {
	var ue *usageError
	var fe *fatalError
	name := env.Name()
	switch {
	case errors.As(err, &ue):
		if ue.msg != "" {
			env.Errorf("%s", ue.msg)
		}
		writeUsage(env.Stderr, name)
	case errors.As(err, &fe) && fe.msg == "help":
		fmt.Fprint(env.Stdout, grepSpec.HelpText(name)+helpNotes)
		return 0
	case errors.As(err, &fe) && fe.msg == "version":
		fmt.Fprintf(env.Stdout, "%s (wsfs) 3.8-compatible\n", name)
		return 0
	default:
		env.Errorf("%s", err.Error())
	}
	return 2
}

func writeUsage(w io.Writer, name string) {
	fmt.Fprintf(w, "Usage: %s [OPTION]... PATTERNS [FILE]...\nTry '%s --help' for more information.\n", name, name)
}

// helpNotes follow the options in --help.
const helpNotes = `
--color is accepted and never colors (the output is not a terminal).
Exit status is 0 if any line is selected, 1 otherwise; 2 on error unless -q
selected a line.
`
