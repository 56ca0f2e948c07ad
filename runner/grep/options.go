package grep

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
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
}

// usageError is a bad command line: GNU prints the message (if any) and
// the two usage lines, and exits 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// fatalError is an error GNU reports as "grep: msg" with status 2 and no
// usage lines.
type fatalError struct{ msg string }

func (e *fatalError) Error() string { return e.msg }

type longOpt struct {
	name string
	arg  int // 0 none, 1 required, 2 optional
	key  string
}

var longOpts = []longOpt{
	{"extended-regexp", 0, "E"}, {"fixed-strings", 0, "F"}, {"basic-regexp", 0, "G"},
	{"perl-regexp", 0, "P"}, {"regexp", 1, "e"}, {"file", 1, "f"}, {"ignore-case", 0, "i"},
	{"no-ignore-case", 0, "no-ignore-case"}, {"word-regexp", 0, "w"}, {"line-regexp", 0, "x"},
	{"null-data", 0, "z"}, {"no-messages", 0, "s"}, {"invert-match", 0, "v"},
	{"version", 0, "V"}, {"help", 0, "help"}, {"max-count", 1, "m"}, {"byte-offset", 0, "b"},
	{"line-number", 0, "n"}, {"no-line-number", 0, "no-line-number"}, {"line-buffered", 0, "line-buffered"},
	{"with-filename", 0, "H"}, {"no-filename", 0, "h"}, {"label", 1, "label"},
	{"only-matching", 0, "o"}, {"quiet", 0, "q"}, {"silent", 0, "q"},
	{"binary-files", 1, "binary-files"}, {"text", 0, "a"}, {"directories", 1, "d"},
	{"unix-byte-offsets", 0, "u"}, {"binary", 0, "U"},
	{"devices", 1, "D"}, {"recursive", 0, "r"}, {"dereference-recursive", 0, "R"},
	{"include", 1, "include"}, {"exclude", 1, "exclude"}, {"exclude-from", 1, "exclude-from"},
	{"exclude-dir", 1, "exclude-dir"}, {"files-without-match", 0, "L"},
	{"files-with-matches", 0, "l"}, {"count", 0, "c"}, {"initial-tab", 0, "T"}, {"null", 0, "Z"},
	{"before-context", 1, "B"}, {"after-context", 1, "A"}, {"context", 1, "C"},
	{"color", 2, "color"}, {"colour", 2, "color"},
	{"group-separator", 1, "group-separator"}, {"no-group-separator", 0, "no-group-separator"},
}

// shortWithArg lists the short options that take an argument.
const shortWithArg = "efmABCdD"

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
	var operands []string
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

	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			operands = append(operands, args[i+1:]...)
			break
		}
		if strings.HasPrefix(a, "--") {
			name, val, hasVal := strings.Cut(a[2:], "=")
			opt, err := findLong(name)
			if err != nil {
				return nil, err
			}
			switch opt.arg {
			case 0:
				if hasVal {
					return nil, &usageError{"option '--" + opt.name + "' doesn't allow an argument"}
				}
			case 1:
				if !hasVal {
					if i+1 >= len(args) {
						return nil, &usageError{"option '--" + opt.name + "' requires an argument"}
					}
					i++
					val = args[i]
				}
			}
			if err := apply(opt.key, val); err != nil {
				return nil, err
			}
			continue
		}
		if len(a) < 2 || a[0] != '-' {
			operands = append(operands, a)
			continue
		}
		// A cluster of short options; digits make a context count (-2).
		for j := 1; j < len(a); j++ {
			c := a[j]
			if c >= '0' && c <= '9' {
				k := j
				for k < len(a) && a[k] >= '0' && a[k] <= '9' {
					k++
				}
				n, _ := strconv.Atoi(a[j:k])
				context = n
				j = k - 1
				continue
			}
			if strings.IndexByte(shortWithArg, c) >= 0 {
				val := a[j+1:]
				if val == "" {
					if i+1 >= len(args) {
						return nil, &usageError{"option requires an argument -- '" + string(c) + "'"}
					}
					i++
					val = args[i]
				}
				if err := apply(string(c), val); err != nil {
					return nil, err
				}
				break
			}
			if !strings.ContainsRune("EFGPiywxzsvVbnHhoqaIrRLlcTZUu", rune(c)) {
				return nil, &usageError{"invalid option -- '" + string(c) + "'"}
			}
			if err := apply(string(c), ""); err != nil {
				return nil, err
			}
		}
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

func findLong(name string) (longOpt, error) {
	var found []longOpt
	for _, o := range longOpts {
		if o.name == name {
			return o, nil
		}
		if strings.HasPrefix(o.name, name) {
			found = append(found, o)
		}
	}
	if len(found) == 1 || (len(found) > 1 && sameKey(found)) {
		return found[0], nil
	}
	if len(found) > 1 {
		return longOpt{}, &usageError{"option '--" + name + "' is ambiguous"}
	}
	return longOpt{}, &usageError{"unrecognized option '--" + name + "'"}
}

func sameKey(opts []longOpt) bool {
	for _, o := range opts[1:] {
		if o.key != opts[0].key {
			return false
		}
	}
	return true
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
		fmt.Fprintf(env.Stdout, "Usage: %s [OPTION]... PATTERNS [FILE]...\n%s", name, helpText)
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

const helpText = `Search for PATTERNS in each FILE.
Pattern selection: -E -F -G -P, -e PATTERNS, -f FILE, -i, --no-ignore-case, -w, -x
Miscellaneous: -s, -v, -V, --help
Output control: -m NUM, -b, -n, --line-buffered, -H, -h, --label=LABEL, -o, -q,
  --binary-files=TYPE, -a, -I, -d ACTION, -D ACTION, -r, -R, --include=GLOB,
  --exclude=GLOB, --exclude-from=FILE, --exclude-dir=GLOB, -L, -l, -c, -T, -Z
Context control: -B NUM, -A NUM, -C NUM, -NUM, --group-separator=SEP,
  --no-group-separator; --color is accepted and never colors.
Exit status is 0 if any line is selected, 1 otherwise; 2 on error unless -q
selected a line.
`
