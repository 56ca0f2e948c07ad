package textutils

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
	"github.com/wsfs/wsfs/runner/internal/printfmt"
)

// xargsItem is one argument read from input; eol marks the last item of
// an input line (for -L), cont a line that ended in a blank.
type xargsItem struct {
	text string
	eol  bool
}

// xargsReader tokenizes xargs input the GNU way.
type xargsReader struct {
	br       *bufio.Reader
	delim    int // -1: blank/newline separated with quotes
	lineMode bool
	eofStr   string
	done     bool
}

type xargsQuoteError struct{ quote string }

func (e *xargsQuoteError) Error() string {
	return "unmatched " + e.quote + " quote; by default quotes are special to xargs unless you use the -0 option"
}

func (x *xargsReader) next() (xargsItem, bool, error) {
	if x.done {
		return xargsItem{}, false, nil
	}
	if x.delim >= 0 {
		s, err := x.br.ReadString(byte(x.delim))
		if err == io.EOF {
			x.done = true
			if s == "" {
				return xargsItem{}, false, nil
			}
			return xargsItem{text: s, eol: true}, true, nil
		}
		if err != nil {
			return xargsItem{}, false, err
		}
		return xargsItem{text: s[:len(s)-1], eol: true}, true, nil
	}
	var b strings.Builder
	inItem := false
	for {
		c, err := x.br.ReadByte()
		if err == io.EOF {
			x.done = true
			if inItem {
				return x.finish(b.String(), true)
			}
			return xargsItem{}, false, nil
		}
		if err != nil {
			return xargsItem{}, false, err
		}
		switch {
		case c == '\n':
			if inItem {
				if x.lineMode {
					return x.finish(strings.TrimRight(b.String(), " \t"), true)
				}
				return x.finish(b.String(), true)
			}
			continue
		case (c == ' ' || c == '\t') && !x.lineMode:
			if inItem {
				// Not the end of a line: a line ending in a blank
				// continues on the next one for -L, as in GNU xargs.
				return x.finish(b.String(), false)
			}
			continue
		case (c == ' ' || c == '\t') && x.lineMode && !inItem:
			continue
		case c == '\'' || c == '"':
			inItem = true
			for {
				q, err := x.br.ReadByte()
				if err != nil || q == '\n' {
					x.done = true
					name := "single"
					if c == '"' {
						name = "double"
					}
					return xargsItem{}, false, &xargsQuoteError{name}
				}
				if q == c {
					break
				}
				b.WriteByte(q)
			}
		case c == '\\':
			inItem = true
			q, err := x.br.ReadByte()
			if err == nil {
				b.WriteByte(q)
			}
		default:
			inItem = true
			b.WriteByte(c)
		}
	}
}

// finish applies the -E end-of-file string.
func (x *xargsReader) finish(s string, eol bool) (xargsItem, bool, error) {
	if x.eofStr != "" && s == x.eofStr {
		x.done = true
		return xargsItem{}, false, nil
	}
	return xargsItem{text: s, eol: eol}, true, nil
}

// runEcho is GNU coreutils' echo: -n, -e and -E, then the words.
func runEcho(w io.Writer, args []string) int {
	if _, err := io.WriteString(w, printfmt.Echo(args, printfmt.GNU)); err != nil {
		return 1
	}
	return 0
}

// shellQuote renders an argument for -t the way GNU xargs does.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_@%+=:,./-", c)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

func xargsEscape(s string) (int, bool) {
	if len(s) == 1 {
		return int(s[0]), true
	}
	if len(s) == 2 && s[0] == '\\' {
		switch s[1] {
		case 'n':
			return '\n', true
		case 't':
			return '\t', true
		case '0':
			return 0, true
		case '\\':
			return '\\', true
		}
	}
	if strings.HasPrefix(s, "\\x") {
		if n, err := strconv.ParseUint(s[2:], 16, 8); err == nil {
			return int(n), true
		}
	}
	if strings.HasPrefix(s, "\\") {
		if n, err := strconv.ParseUint(s[1:], 8, 8); err == nil {
			return int(n), true
		}
	}
	return 0, false
}

var xargsSpec = getopt.Spec{
	InOrder: true,
	Options: []getopt.Option{
		{Short: '0', Long: "null"}, {Short: 'd', Long: "delimiter", Arg: getopt.Required, ArgName: "CHARACTER"},
		{Short: 'n', Long: "max-args", Arg: getopt.Required, ArgName: "MAX-ARGS"},
		{Short: 'L', Long: "max-lines", Arg: getopt.Required, ArgName: "MAX-LINES"},
		{Short: 'l', Arg: getopt.Optional, Key: "max-lines-opt", ArgName: "MAX-LINES"},
		{Short: 'I', Arg: getopt.Required, Key: "replace", ArgName: "R"},
		{Short: 'i', Long: "replace", Arg: getopt.Optional, Key: "replace-opt", ArgName: "R"},
		{Short: 'r', Long: "no-run-if-empty"}, {Short: 't', Long: "verbose"},
		{Short: 'P', Long: "max-procs", Arg: getopt.Required, ArgName: "MAX-PROCS"},
		{Short: 's', Long: "max-chars", Arg: getopt.Required, ArgName: "MAX-CHARS"}, {Short: 'x', Long: "exit"},
		{Short: 'a', Long: "arg-file", Arg: getopt.Required, ArgName: "FILE"},
		{Short: 'E', Arg: getopt.Required, Key: "eof", ArgName: "END"},
		{Short: 'e', Long: "eof", Arg: getopt.Optional, Key: "eof-opt", ArgName: "END"}, {Short: 'p', Long: "interactive"},
		{Short: 'o', Long: "open-tty"}, {Long: "process-slot-var", Arg: getopt.Required, ArgName: "VAR"},
	},
}

// Xargs implements xargs; commands run through env.Exec, one at a time
// (-P is accepted and ignored).
func Xargs(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	flags, operands, st, ok := xargsSpec.Run(env)
	if !ok {
		return st
	}
	x := &xargsReader{delim: -1}
	maxArgs, maxLines := 0, 0
	replace := ""
	noRunEmpty, verbose, exitOnSize := false, false, false
	maxChars := 128*1024 - 2048
	argFile := ""
	for _, f := range flags {
		switch f.Key {
		case "null":
			x.delim = 0
		case "delimiter":
			d, ok := xargsEscape(f.Value)
			if !ok {
				env.Errorf("invalid input delimiter specification %s: the delimiter must be either a single character or an escape sequence starting with \\.", f.Value)
				return 1
			}
			x.delim = d
		case "max-args":
			n, err := strconv.Atoi(f.Value)
			if err != nil || n < 1 {
				env.Errorf("invalid number %s for -n option", quote(f.Value))
				return 1
			}
			maxArgs = n
			if replace != "" {
				env.Errorf("warning: options --replace and --max-args/-n are mutually exclusive, ignoring previous --replace value")
				replace = ""
			}
			maxLines = 0
		case "max-lines", "max-lines-opt":
			n := 1
			if f.HasValue {
				v, err := strconv.Atoi(f.Value)
				if err != nil || v < 1 {
					env.Errorf("invalid number %s for -L option", quote(f.Value))
					return 1
				}
				n = v
			}
			maxLines, maxArgs = n, 0
		case "replace", "replace-opt":
			replace = "{}"
			if f.HasValue && f.Value != "" {
				replace = f.Value
			}
			maxArgs, maxLines = 0, 1
		case "no-run-if-empty":
			noRunEmpty = true
		case "verbose":
			verbose = true
		case "max-procs":
			if _, err := strconv.Atoi(f.Value); err != nil {
				env.Errorf("invalid number %s for -P option", quote(f.Value))
				return 1
			}
		case "max-chars":
			n, err := strconv.Atoi(f.Value)
			if err != nil || n < 1 {
				env.Errorf("invalid number %s for -s option", quote(f.Value))
				return 1
			}
			maxChars = n
		case "exit":
			exitOnSize = true
		case "arg-file":
			argFile = f.Value
		case "eof", "eof-opt":
			x.eofStr = f.Value
		case "interactive", "open-tty":
			env.Errorf("-%s needs a terminal, which the runner does not have", map[string]string{"interactive": "p", "open-tty": "o"}[f.Key])
			return 1
		}
	}
	if env.Exec == nil {
		env.Errorf("cannot run commands here")
		return 126
	}
	base := operands
	if len(base) == 0 {
		base = []string{"echo"}
	}
	input := env.Stdin
	if argFile != "" {
		f, err := r.open(argFile)
		if err != nil {
			env.Errorf("Cannot open input file %s: %s", quote(argFile), command.Strerror(err))
			return 1
		}
		defer f.Close()
		input = f
	}
	x.br = bufio.NewReaderSize(input, 64<<10)
	x.lineMode = replace != ""
	status := 0
	ran := false
	stop := false
	runCmd := func(args []string) {
		ran = true
		if verbose {
			q := make([]string, len(args))
			for i, a := range args {
				q[i] = shellQuote(a)
			}
			fmt.Fprintln(env.Stderr, strings.Join(q, " "))
		}
		r.out.Flush()
		var code int
		if args[0] == "echo" {
			// echo is a shell builtin, which the runner's Exec may not
			// offer; GNU xargs runs /bin/echo, so behave as that.
			code = runEcho(env.Stdout, args[1:])
		} else {
			code = env.Exec(ctx, args, strings.NewReader(""), env.Stdout, env.Stderr)
		}
		switch {
		case code == 0:
		case code == 255:
			env.Errorf("%s: exited with status 255; aborting", args[0])
			status, stop = 124, true
		case code == 126 || code == 127:
			status, stop = code, true
		case code > 128:
			env.Errorf("%s: terminated by signal %d", args[0], code-128)
			status, stop = 125, true
		default:
			status = 123
		}
	}
	baseLen := 0
	for _, a := range base {
		baseLen += len(a) + 1
	}
	var pending []string
	pendingLen, lines := 0, 0
	flush := func() {
		if len(pending) == 0 {
			return
		}
		runCmd(append(append([]string{}, base...), pending...))
		pending, pendingLen, lines = pending[:0], 0, 0
	}
	for !stop {
		if ctx.Err() != nil {
			return 1
		}
		it, ok, err := x.next()
		if err != nil {
			flush()
			env.Errorf("%s", err)
			return 1
		}
		if !ok {
			break
		}
		if replace != "" {
			args := make([]string, len(base))
			for i, a := range base {
				args[i] = strings.ReplaceAll(a, replace, it.text)
			}
			runCmd(args)
			continue
		}
		if baseLen+pendingLen+len(it.text)+1 > maxChars {
			if len(pending) == 0 || exitOnSize {
				env.Errorf("argument list too long")
				return 1
			}
			flush()
		}
		pending = append(pending, it.text)
		pendingLen += len(it.text) + 1
		if it.eol {
			lines++
		}
		if (maxArgs > 0 && len(pending) >= maxArgs) || (maxLines > 0 && lines >= maxLines) {
			flush()
		}
	}
	if !stop {
		flush()
		if !ran && !noRunEmpty && replace == "" {
			runCmd(base)
		}
	}
	r.finish(0)
	return status
}
