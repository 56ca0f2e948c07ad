// Package jq is the runner's jq: a command.Func over github.com/itchyny/gojq
// with jq's command line (-r -c -s -n -e -a -S -j -R, --arg and friends,
// --tab, --indent, --seq), its output format, exit statuses and messages.
// Files, --slurpfile and --rawfile are read through the command's confined
// FS; $ENV and env come from the command's exported variables.
//
// Deliberate differences from jq 1.6 (the reference on the build machine):
// object keys print sorted (gojq keeps no key order), error texts are
// gojq's, and with no filter and no file the filter defaults to "." as in
// jq 1.7.
package jq

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/itchyny/gojq"

	"github.com/wsfs/wsfs/runner/command"
)

// Commands lists jq for the runner's command table.
func Commands() []command.Spec {
	return []command.Spec{{
		Name:    "jq",
		Summary: "command-line JSON processor (gojq)",
		Flags: []string{"-r", "-j", "-c", "-s", "-n", "-e", "-a", "-S", "-R", "-C", "-M", "-f FILE", "--tab", "--indent N",
			"--seq", "--arg NAME VALUE", "--argjson NAME JSON", "--slurpfile NAME FILE", "--rawfile NAME FILE",
			"--args", "--jsonargs", "--raw-output0"},
		Func: Run,
	}}
}

// Exit statuses, as jq's.
const (
	exitOK       = 0
	exitFalsy    = 1
	exitUsage    = 2
	exitCompile  = 3
	exitNoOutput = 4
	exitRuntime  = 5
)

type options struct {
	rawOut, join, rawOut0, ascii, compact, tab, seq bool
	slurp, nullIn, rawIn, exitStatus, fromFile      bool
	indent                                          int
	filter                                          string
	hasFilter                                       bool
	files                                           []string
	names                                           []string // variable names without $
	values                                          []any
	positional                                      []any
}

func die(env *command.Env, msg string) int {
	if msg != "" {
		fmt.Fprintf(env.Stderr, "jq: %s\n", msg)
	}
	fmt.Fprint(env.Stderr, "Use jq --help for help with command-line options,\nor see the jq manpage, or online docs  at https://stedolan.github.io/jq\n")
	return exitUsage
}

// shortFlags maps jq's one-letter options to their long names.
var shortFlags = map[byte]string{
	's': "slurp", 'r': "raw-output", 'j': "join-output", 'a': "ascii-output", 'c': "compact-output",
	'C': "color-output", 'M': "monochrome-output", 'S': "sort-keys", 'e': "exit-status", 'n': "null-input",
	'R': "raw-input", 'f': "from-file", 'h': "help",
}

// Run implements jq.
func Run(ctx context.Context, env *command.Env) int {
	var o options
	o.indent = 2
	args := env.Args[1:]
	named := map[string]any{}
	positionalMode := "" // "", "args" or "jsonargs"
	argsDone := false
	readJSONFile := func(name string) ([]any, error) {
		data, err := readFile(ctx, env, name)
		if err != nil {
			return nil, err
		}
		var vals []any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		for {
			var v any
			if err := dec.Decode(&v); err == io.EOF {
				return vals, nil
			} else if err != nil {
				return nil, err
			}
			vals = append(vals, v)
		}
	}
	setVar := func(name string, v any) {
		o.names = append(o.names, name)
		o.values = append(o.values, v)
		named[name] = v
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		// As jq's isoptarg: "-" and words like "-0" or "-.a" are not options.
		isOpt := len(a) > 1 && a[0] == '-' && (a[1] == '-' || isLetter(a[1]))
		if argsDone || !isOpt {
			switch {
			case !o.hasFilter && !o.fromFile:
				o.filter, o.hasFilter = a, true
			case o.fromFile && !o.hasFilter:
				src, err := readFile(ctx, env, a)
				if err != nil {
					fmt.Fprintf(env.Stderr, "jq: error: Could not open %s: %s\n", a, command.Strerror(err))
					return exitUsage
				}
				o.filter, o.hasFilter = string(src), true
			case positionalMode == "args":
				o.positional = append(o.positional, a)
			case positionalMode == "jsonargs":
				v, err := parseJSONText(a)
				if err != nil {
					return die(env, "invalid JSON text passed to --jsonargs")
				}
				o.positional = append(o.positional, v)
			default:
				o.files = append(o.files, a)
			}
			continue
		}
		if a == "--" {
			argsDone = true
			continue
		}
		var longs []string
		if strings.HasPrefix(a, "--") {
			longs = []string{a[2:]}
		} else {
			for j := 1; j < len(a); j++ {
				l, ok := shortFlags[a[j]]
				if !ok {
					return die(env, "Unknown option: "+a)
				}
				longs = append(longs, l)
			}
		}
		for _, l := range longs {
			switch l {
			case "slurp":
				o.slurp = true
			case "raw-output":
				o.rawOut = true
			case "join-output":
				o.rawOut, o.join = true, true
			case "raw-output0":
				o.rawOut, o.rawOut0 = true, true
			case "ascii-output":
				o.ascii = true
			case "compact-output":
				o.compact = true
			case "color-output", "monochrome-output", "sort-keys", "unbuffered":
				// No colors off a terminal; keys always print sorted.
			case "exit-status":
				o.exitStatus = true
			case "null-input":
				o.nullIn = true
			case "raw-input":
				o.rawIn = true
			case "from-file":
				o.fromFile = true
				if o.hasFilter {
					// "jq . -f file": the earlier word was a file name.
					o.files = append(o.files, o.filter)
					o.hasFilter = false
				}
			case "tab":
				o.tab = true
			case "seq":
				o.seq = true
			case "indent":
				if i+1 >= len(args) {
					return die(env, "--indent takes one parameter")
				}
				n, err := strconv.Atoi(args[i+1])
				if err != nil || n < -1 || n > 7 {
					return die(env, "--indent takes a number between -1 and 7")
				}
				o.indent = n
				i++
			case "arg", "argjson", "slurpfile", "rawfile", "argfile":
				if i+2 >= len(args) {
					what := map[string]string{"arg": "--arg takes two parameters (e.g. --arg varname value)",
						"argjson":   "--argjson takes two parameters (e.g. --argjson varname text)",
						"slurpfile": "--slurpfile takes two parameters (e.g. --slurpfile varname filename)",
						"rawfile":   "--rawfile takes two parameters (e.g. --rawfile varname filename)",
						"argfile":   "--argfile takes two parameters (e.g. --argfile varname filename)"}[l]
					return die(env, what)
				}
				name, val := args[i+1], args[i+2]
				i += 2
				switch l {
				case "arg":
					setVar(name, val)
				case "argjson":
					v, err := parseJSONText(val)
					if err != nil {
						return die(env, "invalid JSON text passed to --argjson")
					}
					setVar(name, v)
				case "rawfile":
					data, err := readFile(ctx, env, val)
					if err != nil {
						fmt.Fprintf(env.Stderr, "jq: error: Could not open %s: %s\n", val, command.Strerror(err))
						return exitUsage
					}
					setVar(name, string(data))
				default:
					vals, err := readJSONFile(val)
					if err != nil {
						fmt.Fprintf(env.Stderr, "jq: Bad JSON in --%s %s %s: %s\n", l, name, val, describeErr(err))
						return exitUsage
					}
					var v any = vals
					if vals == nil {
						v = []any{}
					}
					if l == "argfile" && len(vals) == 1 {
						v = vals[0]
					}
					setVar(name, v)
				}
			case "args":
				positionalMode = "args"
			case "jsonargs":
				positionalMode = "jsonargs"
			case "help":
				fmt.Fprint(env.Stdout, "Usage:\tjq [OPTIONS] FILTER [FILES...]\n\tjq [OPTIONS] --args FILTER [STRINGS...]\n\tjq [OPTIONS] --jsonargs FILTER [JSON_TEXTS...]\n\nThe runner's jq is gojq with jq's command line; see `help jq` for the supported options.\n")
				return exitOK
			case "version":
				fmt.Fprintln(env.Stdout, "jq-1.6")
				return exitOK
			case "stream", "stream-errors":
				fmt.Fprintf(env.Stderr, "jq: --%s is not supported in the runner; parse the whole input instead\n", l)
				return exitUsage
			default:
				return die(env, "Unknown option: "+a)
			}
		}
	}
	if !o.hasFilter {
		if o.fromFile {
			return die(env, "-f takes a parameter (e.g. -f filename)")
		}
		o.filter = "."
	}
	positional := o.positional
	if positional == nil {
		positional = []any{}
	}
	return execute(ctx, env, &o, map[string]any{"named": named, "positional": positional})
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func parseJSONText(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("jq: trailing data after JSON value")
	}
	return v, nil
}

func readFile(ctx context.Context, env *command.Env, name string) ([]byte, error) {
	var r io.Reader
	if name == "-" {
		r = env.Stdin
	} else {
		f, err := env.FS.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	var buf bytes.Buffer
	_, err := io.Copy(&buf, ctxReader{ctx, r})
	return buf.Bytes(), err
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

func describeErr(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Error()
	}
	return command.Strerror(err)
}

// execute compiles the filter and runs it over the inputs.
func execute(ctx context.Context, env *command.Env, o *options, args map[string]any) int {
	query, err := gojq.Parse(withPrelude(o.filter))
	if err != nil {
		fmt.Fprintf(env.Stderr, "jq: error: %s\njq: 1 compile error\n", err)
		return exitCompile
	}
	in := newInputs(ctx, env, o)
	names := make([]string, 0, len(o.names)+1)
	for _, n := range o.names {
		names = append(names, "$"+n)
	}
	names = append(names, "$ARGS")
	values := append(append([]any{}, o.values...), args)
	code, err := gojq.Compile(query,
		gojq.WithEnvironLoader(func() []string { return env.Environ }),
		gojq.WithVariables(names),
		gojq.WithInputIter(in),
		gojq.WithFunction("input_filename", 0, 0, func(any, []any) any {
			switch in.current {
			case "":
				return nil
			case "-":
				return "<stdin>"
			}
			return in.current
		}),
		gojq.WithFunction("debug", 0, 0, func(v any, _ []any) any {
			e := encoder{}
			fmt.Fprintf(env.Stderr, "%s\n", e.encode([]any{"DEBUG:", v}))
			return v
		}),
		gojq.WithFunction("stderr", 0, 0, func(v any, _ []any) any {
			e := encoder{}
			env.Stderr.Write(e.encode(v))
			return v
		}),
		gojq.WithFunction("input_line_number", 0, 0, func(any, []any) any { return 0 }),
	)
	if err != nil {
		fmt.Fprintf(env.Stderr, "jq: error: %s\njq: 1 compile error\n", err)
		return exitCompile
	}
	out := bufio.NewWriterSize(env.Stdout, 64<<10)
	enc := &encoder{ascii: o.ascii}
	switch {
	case o.compact || o.indent == 0 && !o.tab:
	case o.tab:
		enc.indent = "\t"
	case o.indent > 0:
		enc.indent = strings.Repeat(" ", o.indent)
	}
	ret := exitNoOutput // of the last input, as jq keeps it
	lastResult := -1    // -1 never, 0 falsy, 1 truthy: the last input that printed
	halted := false
	haltCode := 0
	runOne := func(v any) int {
		r := exitNoOutput
		iter := code.RunWithContext(ctx, v, values...)
		for {
			x, ok := iter.Next()
			if !ok {
				return r
			}
			if err, isErr := x.(error); isErr {
				var he *gojq.HaltError
				if errors.As(err, &he) {
					halted = true
					haltCode = he.ExitCode()
					if hv := he.Value(); hv != nil {
						if s, ok := hv.(string); ok {
							io.WriteString(env.Stderr, s)
						} else {
							e := encoder{}
							fmt.Fprintf(env.Stderr, "%s\n", e.encode(hv))
						}
					}
					return r
				}
				if ctx.Err() != nil {
					return exitRuntime
				}
				reportError(env, in, err)
				return exitRuntime
			}
			if o.seq {
				out.WriteByte(0x1e)
			}
			if s, isStr := x.(string); isStr && o.rawOut && !o.ascii {
				out.WriteString(s)
			} else {
				out.Write(enc.encode(x))
			}
			switch {
			case o.rawOut0:
				out.WriteByte(0)
			case !o.join:
				out.WriteByte('\n')
			}
			if x == nil || x == false {
				r = -1
			} else {
				r = exitOK
			}
			if _, err := out.Write(nil); err != nil {
				return exitRuntime
			}
		}
	}
	record := func(r int) {
		ret = r
		if r <= 0 && r != exitNoOutput {
			if r == -1 {
				lastResult = 0
			} else {
				lastResult = 1
			}
		}
	}
	if o.nullIn {
		record(runOne(nil))
	} else {
		for !halted {
			if ctx.Err() != nil {
				break
			}
			v, ok := in.Next()
			if !ok {
				break
			}
			if err, isErr := v.(error); isErr {
				fmt.Fprintf(env.Stderr, "parse error: %s at %s\n", err, in.position())
				ret = exitUsage
				break
			}
			record(runOne(v))
		}
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(env.Stderr, "jq: error: writing output failed: %s\n", command.Strerror(err))
		return exitUsage
	}
	if ctx.Err() != nil {
		return exitRuntime
	}
	if halted {
		return haltCode
	}
	if in.openErrors && ret != exitRuntime {
		ret = exitUsage
	}
	if o.exitStatus {
		if ret != exitNoOutput {
			if ret < 0 {
				return -ret
			}
			return ret
		}
		switch lastResult {
		case -1:
			return exitNoOutput
		case 0:
			return exitFalsy
		}
		return exitOK
	}
	if ret > 0 && ret != exitNoOutput {
		return ret
	}
	return exitOK
}

// prelude redefines the builtins whose gojq behaviour differs from jq's
// on inputs jq accepts (jq returns a non-string input of ltrimstr/rtrimstr
// unchanged instead of failing) and adds jq 1.6 builtins gojq dropped.
const prelude = `def ltrimstr($x): if type == "string" and ($x|type) == "string" and startswith($x) then .[($x|length):] else . end; ` +
	`def rtrimstr($x): if type == "string" and ($x|type) == "string" and endswith($x) and ($x|length) > 0 then .[:length - ($x|length)] else . end; ` +
	`def leaf_paths: paths(scalars); def recurse_down: recurse; `

// withPrelude puts the prelude before a filter, unless the filter starts
// with module directives, which must come first.
func withPrelude(filter string) string {
	t := strings.TrimSpace(filter)
	if strings.HasPrefix(t, "import") || strings.HasPrefix(t, "include") || strings.HasPrefix(t, "module") {
		return filter
	}
	return prelude + filter
}

func reportError(env *command.Env, in *inputs, err error) {
	var ve gojq.ValueError
	if errors.As(err, &ve) {
		v := ve.Value()
		if s, ok := v.(string); ok {
			fmt.Fprintf(env.Stderr, "jq: error (at %s): %s\n", in.position(), s)
			return
		}
		if v == nil {
			fmt.Fprintf(env.Stderr, "jq: error (at %s) (not a string): null\n", in.position())
			return
		}
		e := encoder{}
		fmt.Fprintf(env.Stderr, "jq: error (at %s) (not a string): %s\n", in.position(), e.encode(v))
		return
	}
	fmt.Fprintf(env.Stderr, "jq: error (at %s): %s\n", in.position(), err)
}
