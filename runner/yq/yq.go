// Package yq is the runner's `yq` command: mikefarah/yq's expression
// language (pkg/yqlib) over YAML, JSON, TOML, XML, CSV/TSV and properties.
//
// yqlib reads files by host path and keeps its settings in package globals,
// so this package reads every input through the command's confined FS into
// memory, runs one evaluation at a time under a lock with the settings of
// that call, and turns off yq's env, file-loading and system operators: an
// expression can reach nothing outside the bytes it was handed.
package yq

import (
	"bytes"
	"container/list"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/mikefarah/yq/v4/pkg/yqlib"

	"github.com/wsfs/wsfs/runner/command"
)

// Commands lists the command this package provides.
func Commands() []command.Spec {
	return []command.Spec{{
		Name:    "yq",
		Summary: "YAML/JSON/TOML/XML/CSV processor (mikefarah/yq v4)",
		Flags: []string{"eval", "eval-all", "-i", "-o FORMAT", "--output-format=FORMAT", "-p FORMAT",
			"--input-format=FORMAT", "-r", "-I N", "--indent=N", "-n", "-e", "-P", "-N", "-C", "-M",
			"--expression=EXPR", "--from-file=FILE"},
		Func: Run,
	}}
}

// maxInput bounds what one call reads into memory, so a huge file gives a
// clear error instead of exhausting the runner.
const maxInput = 256 << 20

type options struct {
	all          bool // eval-all: every document of every file at once
	inPlace      bool
	outputFormat string
	inputFormat  string
	unwrap       *bool
	indent       int
	nullInput    bool
	exitStatus   bool
	pretty       bool
	noDoc        bool
	expression   *string
	fromFile     string
	args         []string
}

// evalLock serialises evaluations: yqlib's preferences are package globals.
var evalLock sync.Mutex

// Run is the yq command.
func Run(ctx context.Context, env *command.Env) int {
	opts, err := parseArgs(env.Args[1:])
	if err != nil {
		env.Errorf("%v", err)
		env.Errorf("usage: yq [eval|eval-all] [flags] EXPRESSION [FILE...]")
		return 1
	}
	return opts.run(ctx, env)
}

func parseArgs(args []string) (*options, error) {
	o := &options{indent: 2, outputFormat: "auto", inputFormat: "auto"}
	if len(args) > 0 {
		switch args[0] {
		case "eval", "e":
			args = args[1:]
		case "eval-all", "ea":
			o.all = true
			args = args[1:]
		}
	}
	value := func(i *int, flag, inline string) (string, error) {
		if inline != "" {
			return inline, nil
		}
		if *i+1 >= len(args) {
			return "", fmt.Errorf("flag needs an argument: %s", flag)
		}
		*i++
		return args[*i], nil
	}
	onlyArgs := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if onlyArgs || a == "-" || !strings.HasPrefix(a, "-") {
			o.args = append(o.args, a)
			continue
		}
		if a == "--" {
			onlyArgs = true
			continue
		}
		if strings.HasPrefix(a, "--") {
			name, inline, _ := strings.Cut(a[2:], "=")
			var err error
			switch name {
			case "output-format":
				o.outputFormat, err = value(&i, a, inline)
			case "input-format":
				o.inputFormat, err = value(&i, a, inline)
			case "indent":
				var v string
				if v, err = value(&i, a, inline); err == nil {
					o.indent, err = parseIndent(v)
				}
			case "expression":
				var v string
				if v, err = value(&i, a, inline); err == nil {
					o.expression = &v
				}
			case "from-file":
				o.fromFile, err = value(&i, a, inline)
			case "inplace":
				o.inPlace = true
			case "null-input":
				o.nullInput = true
			case "exit-status":
				o.exitStatus = true
			case "prettyPrint":
				o.pretty = true
			case "no-doc":
				o.noDoc = true
			case "unwrapScalar":
				b := true
				if inline != "" {
					if b, err = strconv.ParseBool(inline); err != nil {
						err = fmt.Errorf("invalid value %q for --unwrapScalar", inline)
					}
				}
				o.unwrap = &b
			case "colors", "no-colors":
			case "tojson":
				o.outputFormat = "json"
			default:
				return nil, fmt.Errorf("unknown flag: --%s (supported: %s)", name, strings.Join(Commands()[0].Flags, " "))
			}
			if err != nil {
				return nil, err
			}
			continue
		}
		// Short flags, possibly bundled (-rn) or with an attached value (-oj, -o=json, -I4).
		for j := 1; j < len(a); j++ {
			c := a[j]
			rest := strings.TrimPrefix(a[j+1:], "=")
			var err error
			switch c {
			case 'i':
				o.inPlace = true
			case 'n':
				o.nullInput = true
			case 'e':
				o.exitStatus = true
			case 'P':
				o.pretty = true
			case 'N':
				o.noDoc = true
			case 'C', 'M':
			case 'j':
				o.outputFormat = "json"
			case 'r':
				b := true
				if strings.HasPrefix(a[j+1:], "=") {
					if b, err = strconv.ParseBool(rest); err != nil {
						return nil, fmt.Errorf("invalid value %q for -r", rest)
					}
					j = len(a)
				}
				o.unwrap = &b
			case 'o', 'p', 'I':
				var v string
				if v, err = value(&i, "-"+string(c), rest); err != nil {
					return nil, err
				}
				j = len(a)
				switch c {
				case 'o':
					o.outputFormat = v
				case 'p':
					o.inputFormat = v
				case 'I':
					if o.indent, err = parseIndent(v); err != nil {
						return nil, err
					}
				}
			default:
				return nil, fmt.Errorf("unknown shorthand flag: '%c' in %s", c, a)
			}
		}
	}
	return o, nil
}

func parseIndent(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid indent %q: want a number >= 0", v)
	}
	return n, nil
}

// input is one file's content, read before evaluation starts.
type input struct {
	name string
	data []byte
}

func (o *options) run(ctx context.Context, env *command.Env) int {
	expression, files, err := o.split(env)
	if err != nil {
		env.Errorf("%v", err)
		return 1
	}
	if o.inPlace && (len(files) == 0 || files[0] == "-") {
		env.Errorf("write in place flag only applicable when giving an expression and at least one file")
		return 1
	}
	if o.nullInput && len(files) > 0 {
		env.Errorf("cannot pass files in when using null-input flag")
		return 1
	}
	if !o.nullInput && len(files) == 0 {
		files = []string{"-"}
	}
	var inputs []input
	for _, name := range files {
		data, err := readInput(env, name)
		if err != nil {
			env.Errorf("%v", err)
			return 1
		}
		inputs = append(inputs, input{name: name, data: data})
	}
	if o.pretty {
		if strings.TrimSpace(expression) == "" {
			expression = yqlib.PrettyPrintExp
		} else {
			expression = expression + " | " + yqlib.PrettyPrintExp
		}
	}
	if strings.TrimSpace(expression) == "" {
		expression = "."
	}

	if err := ctx.Err(); err != nil {
		env.Errorf("interrupted: %v", context.Cause(ctx))
		return 130
	}
	var out, warnings bytes.Buffer
	type result struct {
		printed bool
		err     error
	}
	done := make(chan result, 1)
	firstName := "-"
	if len(files) > 0 {
		firstName = files[0]
	}
	go func() {
		printed, err := o.evaluate(expression, firstName, inputs, &out, &warnings)
		done <- result{printed, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		// yqlib cannot be interrupted; the evaluation finishes in the
		// background on private buffers and its result is dropped.
		env.Errorf("interrupted: %v", context.Cause(ctx))
		return 130
	}
	env.Stderr.Write(warnings.Bytes())
	if res.err != nil {
		env.Errorf("Error: %v", res.err)
		return 1
	}
	if o.inPlace {
		if err := writeBack(env, files[0], out.Bytes()); err != nil {
			env.Errorf("%v", err)
			return 1
		}
	} else if _, err := env.Stdout.Write(out.Bytes()); err != nil {
		return 1
	}
	if o.exitStatus && !res.printed {
		env.Errorf("Error: no matches found")
		return 1
	}
	return 0
}

// split separates the expression from the files the way yq does: the first
// argument is the expression unless it names an existing file.
func (o *options) split(env *command.Env) (string, []string, error) {
	args := o.args
	if o.fromFile != "" {
		data, err := readInput(env, o.fromFile)
		if err != nil {
			return "", nil, err
		}
		return strings.ReplaceAll(string(data), "\r\n", "\n"), args, nil
	}
	if o.expression != nil {
		return *o.expression, args, nil
	}
	if len(args) == 0 {
		if o.nullInput {
			return "", nil, nil
		}
		return "", nil, errors.New("no expression given")
	}
	if args[0] != "-" && !isFile(env, args[0]) {
		return args[0], args[1:], nil
	}
	return "", args, nil
}

func isFile(env *command.Env, name string) bool {
	fi, err := env.FS.Stat(name)
	return err == nil && !fi.IsDir()
}

func readInput(env *command.Env, name string) ([]byte, error) {
	var r io.Reader
	if name == "-" {
		r = env.Stdin
	} else {
		f, err := env.FS.Open(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %s", name, command.Strerror(err))
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return nil, fmt.Errorf("%s: Is a directory", name)
		}
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %s", name, command.Strerror(err))
	}
	if len(data) > maxInput {
		return nil, fmt.Errorf("%s: larger than %d MiB; split the input first", name, maxInput>>20)
	}
	return data, nil
}

// configure resets yqlib's global preferences to their defaults and
// applies this call's flags. The caller holds evalLock.
func (o *options) configure(firstName string, warnings io.Writer) (in, out *yqlib.Format, err error) {
	yqlib.ConfiguredYamlPreferences = yqlib.NewDefaultYamlPreferences()
	yqlib.ConfiguredKYamlPreferences = yqlib.NewDefaultKYamlPreferences()
	yqlib.ConfiguredJSONPreferences = yqlib.NewDefaultJsonPreferences()
	yqlib.ConfiguredXMLPreferences = yqlib.NewDefaultXmlPreferences()
	yqlib.ConfiguredPropertiesPreferences = yqlib.NewDefaultPropertiesPreferences()
	yqlib.ConfiguredCsvPreferences = yqlib.NewDefaultCsvPreferences()
	yqlib.ConfiguredTsvPreferences = yqlib.NewDefaultTsvPreferences()
	yqlib.ConfiguredTomlPreferences = yqlib.NewDefaultTomlPreferences()
	yqlib.ConfiguredShellVariablesPreferences = yqlib.NewDefaultShellVariablesPreferences()
	yqlib.ConfiguredHclPreferences = yqlib.NewDefaultHclPreferences()
	yqlib.ConfiguredJSONPreferences.ColorsEnabled = false
	yqlib.ConfiguredSecurityPreferences = yqlib.SecurityPreferences{DisableEnvOps: true, DisableFileOps: true}
	yqlib.InitExpressionParser()
	yqlib.GetLogger().SetSlogger(slog.New(slog.NewTextHandler(warnings, &slog.HandlerOptions{Level: slog.LevelWarn})))
	yqlib.GetLogger().SetLevel(slog.LevelWarn)

	auto := func(s string) bool { return s == "" || s == "auto" || s == "a" }
	inName, outName := o.inputFormat, o.outputFormat
	if auto(inName) {
		inName = yqlib.FormatStringFromFilename(firstName)
		if _, err := yqlib.FormatFromString(inName); err != nil {
			inName = "yaml"
			if auto(outName) {
				outName = "yaml"
			}
		} else if auto(outName) {
			outName = inName
		}
	} else if auto(outName) {
		outName = "yaml"
	}
	if in, err = yqlib.FormatFromString(inName); err != nil {
		return nil, nil, err
	}
	if in.DecoderFactory == nil {
		return nil, nil, fmt.Errorf("no support for %s input format", inName)
	}
	if out, err = yqlib.FormatFromString(outName); err != nil {
		return nil, nil, err
	}
	unwrap := out == yqlib.YamlFormat || out == yqlib.PropertiesFormat
	if o.unwrap != nil {
		unwrap = *o.unwrap
	}
	yqlib.ConfiguredXMLPreferences.Indent = o.indent
	yqlib.ConfiguredYamlPreferences.Indent = o.indent
	yqlib.ConfiguredKYamlPreferences.Indent = o.indent
	yqlib.ConfiguredJSONPreferences.Indent = o.indent
	yqlib.ConfiguredYamlPreferences.UnwrapScalar = unwrap
	yqlib.ConfiguredKYamlPreferences.UnwrapScalar = unwrap
	yqlib.ConfiguredPropertiesPreferences.UnwrapScalar = unwrap
	yqlib.ConfiguredJSONPreferences.UnwrapScalar = unwrap
	yqlib.ConfiguredShellVariablesPreferences.UnwrapScalar = unwrap
	yqlib.ConfiguredYamlPreferences.PrintDocSeparators = !o.noDoc
	yqlib.ConfiguredKYamlPreferences.PrintDocSeparators = !o.noDoc
	yqlib.ConfiguredYamlPreferences.EvaluateTogether = o.all
	return in, out, nil
}

// evaluate runs the expression over the inputs and writes the results to
// out. It reports whether anything other than null or false was printed.
func (o *options) evaluate(expression, firstName string, inputs []input, out, warnings io.Writer) (printed bool, err error) {
	evalLock.Lock()
	defer evalLock.Unlock()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error evaluating %q: %v", expression, r)
		}
	}()
	inFormat, outFormat, err := o.configure(firstName, warnings)
	if err != nil {
		return false, err
	}
	encoder := outFormat.EncoderFactory()
	if encoder == nil {
		return false, fmt.Errorf("no support for %s output format", outFormat.FormalName)
	}
	printer := yqlib.NewPrinter(encoder, yqlib.NewSinglePrinterWriter(out))
	if o.nullInput {
		err = yqlib.NewStreamEvaluator().EvaluateNew(expression, printer)
		return printer.PrintedAnything(), err
	}
	if o.all {
		docs := list.New()
		for i, in := range inputs {
			nodes, err := yqlib.ReadDocuments(bytes.NewReader(in.data), inFormat.DecoderFactory())
			if err != nil {
				return false, fmt.Errorf("bad file '%v': %w", in.name, err)
			}
			for e := nodes.Front(); e != nil; e = e.Next() {
				node := e.Value.(*yqlib.CandidateNode)
				node.SetFilename(in.name)
				node.SetFileIndex(i)
			}
			docs.PushBackList(nodes)
		}
		if docs.Len() == 0 {
			err = yqlib.NewStreamEvaluator().EvaluateNew(expression, printer)
			return printer.PrintedAnything(), err
		}
		matches, err := yqlib.NewAllAtOnceEvaluator().EvaluateCandidateNodes(expression, docs)
		if err != nil {
			return false, err
		}
		err = printer.PrintResults(matches)
		return printer.PrintedAnything(), err
	}
	node, err := yqlib.ExpressionParser.ParseExpression(expression)
	if err != nil {
		return false, err
	}
	evaluator := yqlib.NewStreamEvaluator()
	var total uint
	for _, in := range inputs {
		n, err := evaluator.Evaluate(in.name, bytes.NewReader(in.data), node, printer, inFormat.DecoderFactory())
		if err != nil {
			return false, err
		}
		total += n
	}
	if total == 0 {
		err = evaluator.EvaluateNew(expression, printer)
	}
	return printer.PrintedAnything(), err
}

// writeBack replaces name with data through the confined FS: a temporary
// file in the same folder, then a rename, so a failure leaves the old file.
func writeBack(env *command.Env, name string, data []byte) error {
	fi, err := env.FS.Stat(name)
	if err != nil {
		return fmt.Errorf("%s: %s", name, command.Strerror(err))
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", name)
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	tmp := path.Join(path.Dir(env.FS.Abs(name)), ".yq-inplace-"+hex.EncodeToString(rnd[:]))
	f, err := env.FS.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return fmt.Errorf("cannot create temporary file %s: %s", tmp, command.Strerror(err))
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = env.FS.Chmod(tmp, fi.Mode().Perm()&fs.ModePerm)
	}
	if werr == nil {
		werr = env.FS.Rename(tmp, name)
	}
	if werr != nil {
		env.FS.Remove(tmp)
		return fmt.Errorf("cannot write %s: %s", name, command.Strerror(werr))
	}
	return nil
}
