package awk

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand"
	"strconv"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

// Commands returns the runner's awk commands: awk and its alias gawk.
func Commands() []command.Spec {
	flags := awkSpec.Flags()
	return []command.Spec{
		{Name: "awk", Summary: "pattern scanning and text processing language (POSIX awk with gawk extensions)", Flags: flags, Func: Main},
		{Name: "gawk", Summary: "alias of awk", Flags: flags, Func: Main},
	}
}

const usage = `Usage: awk [POSIX or GNU style options] -f progfile [--] file ...
Usage: awk [POSIX or GNU style options] [--] 'program' file ...
POSIX options:		GNU long options: (standard)
	-f progfile		--file=progfile
	-F fs			--field-separator=fs
	-v var=val		--assign=var=val
	-e 'program-text'	--source='program-text'
`

// awkSpec is awk's command line: the options end at the program text
// (or the first operand), as gawk's do.
var awkSpec = getopt.Spec{
	InOrder: true,
	Options: []getopt.Option{
		{Short: 'f', Long: "file", Arg: getopt.Required, ArgName: "progfile"},
		{Short: 'F', Long: "field-separator", Arg: getopt.Required, ArgName: "fs"},
		{Short: 'v', Long: "assign", Arg: getopt.Required, ArgName: "var=val"},
		{Short: 'e', Long: "source", Arg: getopt.Required, ArgName: "'program-text'"},
		// Accepted for compatibility; wsfs awk has one dialect.
		{Short: 'b', Long: "characters-as-bytes"}, {Short: 'c', Long: "traditional"}, {Short: 'P', Long: "posix"},
		{Short: 'r', Long: "re-interval"}, {Short: 'h', Long: "help"}, {Short: 'V', Long: "version"},
	},
}

// source is one piece of program text and where it came from.
type source struct {
	name string // "cmd. line" or the progfile's name
	text string
}

// Main is the awk command.
func Main(ctx context.Context, env *command.Env) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(env.Stderr, "awk: internal error: %v\n", r)
			status = 2
		}
	}()
	name := env.Name()
	if name == "" {
		name = "awk"
	}
	var (
		fs       *string
		assigns  []string
		sources  []source
		haveProg bool
	)
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "%s: %s\n", name, fmt.Sprintf(format, a...))
		io.WriteString(env.Stderr, strings.ReplaceAll(usage, "awk", name))
		return 1
	}
	opts, operands, perr := awkSpec.Parse(env.Args[1:])
	for _, o := range opts {
		switch o.Key {
		case "field-separator":
			fs = &o.Value
		case "assign":
			if _, _, ok := commandLineAssignment(o.Value); !ok {
				fmt.Fprintf(env.Stderr, "%s: fatal: `%s' is not a legal variable name\n", name, strings.SplitN(o.Value, "=", 2)[0])
				return 2
			}
			assigns = append(assigns, o.Value)
		case "file":
			text, err := readProgFile(env, o.Value)
			if err != nil {
				fmt.Fprintf(env.Stderr, "%s: fatal: can't open source file `%s' for reading: %s\n", name, o.Value, command.Strerror(err))
				return 2
			}
			sources = append(sources, source{name: o.Value, text: text})
			haveProg = true
		case "source":
			sources = append(sources, source{name: "cmd. line", text: o.Value})
			haveProg = true
		case "version":
			fmt.Fprintf(env.Stdout, "%s (wsfs) — POSIX awk with gawk extensions, written in Go\n", name)
			return 0
		case "help":
			io.WriteString(env.Stdout, strings.ReplaceAll(usage, "awk", name))
			return 0
		}
	}
	if perr != nil {
		if letter, ok := strings.CutPrefix(perr.Error(), "option requires an argument -- "); ok {
			// gawk words this one itself, without getopt's quotes.
			return usageErr("option requires an argument -- %s", strings.Trim(letter, "'"))
		}
		return usageErr("%s", perr.Error())
	}
	if !haveProg {
		if len(operands) == 0 {
			io.WriteString(env.Stderr, strings.ReplaceAll(usage, "awk", name))
			return 1
		}
		sources = append(sources, source{name: "cmd. line", text: operands[0]})
		operands = operands[1:]
	}
	var text strings.Builder
	for _, s := range sources {
		text.WriteString(s.text)
		if !strings.HasSuffix(s.text, "\n") {
			text.WriteByte('\n')
		}
	}
	prog, err := parse(text.String())
	if err != nil {
		return reportParseError(env, name, sources, err)
	}
	for _, w := range prog.warnings {
		src, lineNo, _, _ := locate(sources, w.pos)
		fmt.Fprintf(env.Stderr, "%s: %s:%d: warning: %s\n", name, src.name, lineNo, w.msg)
	}
	in := newInterp(ctx, env, name, prog, operands)
	in.srcLine = func(pos int) string {
		src, lineNo, _, _ := locate(sources, pos)
		return fmt.Sprintf("%s:%d", src.name, lineNo)
	}
	return in.run(fs, assigns)
}

func readProgFile(env *command.Env, name string) (string, error) {
	if name == "-" || name == "/dev/stdin" {
		if env.Stdin == nil {
			return "", nil
		}
		b, err := io.ReadAll(env.Stdin)
		return string(b), err
	}
	f, err := env.FS.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	return string(b), err
}

// reportParseError prints a syntax error the way gawk does, with the
// source line and a caret, and returns gawk's status for it.
func reportParseError(env *command.Env, name string, sources []source, err error) int {
	fe, ok := err.(*fatalError)
	if ok {
		fmt.Fprintf(env.Stderr, "%s: fatal: %s\n", name, fe.msg)
		return 2
	}
	se, ok := err.(*syntaxError)
	if !ok {
		fmt.Fprintf(env.Stderr, "%s: %v\n", name, err)
		return 2
	}
	src, lineNo, lineStart, pos := locate(sources, se.pos)
	lineEnd := strings.IndexByte(src.text[lineStart:], '\n')
	line := src.text[lineStart:]
	if lineEnd >= 0 {
		line = src.text[lineStart : lineStart+lineEnd]
	}
	if pos < len(src.text) && src.text[pos] == '\n' {
		// gawk has already counted the newline it stumbled on.
		lineNo++
	}
	prefix := fmt.Sprintf("%s: %s:%d: ", name, src.name, lineNo)
	fmt.Fprintf(env.Stderr, "%s%s\n", prefix, line)
	fmt.Fprintf(env.Stderr, "%s%s^ %s\n", prefix, strings.Repeat(" ", pos-lineStart), se.msg)
	return 1
}

func newInterp(ctx context.Context, env *command.Env, name string, prog *program, operands []string) *interp {
	in := &interp{
		ctx: ctx, env: env, name: name, prog: prog,
		fs: " ", ofs: " ", ors: "\n", rs: "\n", subsep: "\x1c",
		convfmt: "%.6g", ofmt: "%.6g",
		rstart: 0, rlength: -1,
		streams: newStreams(),
		rng:     rand.New(rand.NewSource(0)),
		seed:    1, // gawk reports 1 as the seed before any srand
	}
	in.out = bufio.NewWriterSize(env.Stdout, 64*1024)
	in.globals = make([]value, len(prog.globals))
	in.garrs = make([]map[string]value, len(prog.globals))
	for _, g := range prog.globals {
		if g.kind == kindArray {
			in.garrs[g.index] = map[string]value{}
		}
	}
	argv := in.garrs[prog.globalMap["ARGV"].index]
	argv["0"] = str(name)
	for i, op := range operands {
		argv[strconv.Itoa(i+1)] = input(op)
	}
	in.argc = num(float64(len(operands) + 1))
	environ := in.garrs[prog.globalMap["ENVIRON"].index]
	for _, kv := range env.Environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			environ[k] = input(v)
		}
	}
	in.input.argIndex = 1
	in.fieldsValid = true
	return in
}

func (in *interp) warnf(format string, a ...any) {
	in.out.Flush()
	fmt.Fprintf(in.env.Stderr, "%s: warning: %s\n", in.name, fmt.Sprintf(format, a...))
}

// run executes the program and returns the exit status.
func (in *interp) run(fs *string, assigns []string) (status int) {
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(*fatal)
			if !ok {
				f = &fatal{msg: fmt.Sprintf("internal error: %v", r)}
			}
			in.out.Flush()
			where := ""
			if in.nr > 0 || in.fnr > 0 {
				// gawk names the input position of a run-time error.
				where = fmt.Sprintf("(FILENAME=%s FNR=%s) ", in.toStr(in.filename), numToStr(in.fnr, "%.6g"))
			}
			line := ""
			if in.srcLine != nil {
				line = in.srcLine(in.pos) + ": "
			}
			fmt.Fprintf(in.env.Stderr, "%s: %s%sfatal: %s\n", in.name, line, where, f.msg)
			status = 2
		}
	}()
	if fs != nil {
		v := *fs
		in.setFS(processEscapes(v))
	}
	for _, a := range assigns {
		name, val, _ := commandLineAssignment(a)
		in.assignVar(name, val)
	}
	exiting := false
	in.input.inBegin = true
	for _, b := range in.prog.begins {
		if in.action(b) == ctrlExit {
			exiting = true
			break
		}
	}
	in.input.inBegin = false
	if !exiting && (len(in.prog.rules) > 0 || len(in.prog.ends) > 0) {
		in.mainLoop()
	}
	in.inEnd = true
	// END runs after an exit in BEGIN or a rule too; an exit in END ends it.
	for _, b := range in.prog.ends {
		if in.action(b) == ctrlExit {
			break
		}
	}
	in.streams.closeAll(in)
	if err := in.out.Flush(); err != nil {
		fmt.Fprintf(in.env.Stderr, "%s: write failure: %s\n", in.name, command.Strerror(err))
		return 2
	}
	return in.exitCode
}

// action runs a BEGIN/END body, turning a jump out of a function into its ctrl.
func (in *interp) action(body []stmt) (c ctrl) {
	defer func() {
		if r := recover(); r != nil {
			j, ok := r.(jump)
			if !ok {
				panic(r)
			}
			c = j.c
		}
	}()
	return in.execBlock(body)
}

// mainLoop runs the rules over every record until the input ends or a
// rule exits.
func (in *interp) mainLoop() {
	rules := in.prog.rules
	for {
		rec, ok := in.nextMainRecord()
		if !ok {
			return
		}
		in.setRecord(rec)
		for _, r := range rules {
			c := in.rule(r)
			if c == ctrlNone {
				continue
			}
			if c == ctrlExit {
				return
			}
			if c == ctrlNextFile {
				in.closeMainFile()
			}
			break
		}
	}
}

func (in *interp) rule(r *rule) (c ctrl) {
	defer func() {
		if rec := recover(); rec != nil {
			j, ok := rec.(jump)
			if !ok {
				panic(rec)
			}
			c = j.c
		}
	}()
	if r.pattern != nil {
		if r.pattern2 == nil {
			if !in.eval(r.pattern).toBool() {
				return ctrlNone
			}
		} else if !r.inRange {
			if !in.eval(r.pattern).toBool() {
				return ctrlNone
			}
			r.inRange = !in.eval(r.pattern2).toBool()
		} else if in.eval(r.pattern2).toBool() {
			r.inRange = false
		}
	}
	if !r.hasBody {
		in.out.WriteString(in.getRecord())
		in.out.WriteString(in.ors)
		if err := writerErr(in.out); err != nil {
			in.fatalf("print to \"standard output\" failed (%s)", command.Strerror(err))
		}
		return ctrlNone
	}
	return in.execBlock(r.body)
}

// locate finds the source, line number, line start and offset of a
// position in the concatenated program text.
func locate(sources []source, pos int) (source, int, int, int) {
	src := sources[len(sources)-1]
	for _, s := range sources {
		n := len(s.text)
		if !strings.HasSuffix(s.text, "\n") {
			n++
		}
		if pos < n {
			src = s
			break
		}
		pos -= n
	}
	if pos > len(src.text) {
		pos = len(src.text)
	}
	lineNo := strings.Count(src.text[:pos], "\n") + 1
	lineStart := strings.LastIndexByte(src.text[:pos], '\n') + 1
	return src, lineNo, lineStart, pos
}
