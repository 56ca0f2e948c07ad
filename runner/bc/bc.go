// Package bc is the runner's bc: GNU bc 1.07.1's language, arbitrary
// precision decimal arithmetic with scale, ibase and obase, variables,
// arrays, functions with auto variables and array parameters (by value,
// or by reference as *a[]), void functions, if/else, while, for, break,
// continue, return, halt, print and strings, read(), length, scale and
// sqrt, and with -l the math library (s c a l e j, computed in Go and
// truncated to scale as GNU's library returns them).
//
// Output and messages are GNU's: numbers as bc_out_num prints them
// (".5", digits grouped for obase above 16, lines broken with a
// backslash at BC_LINE_LENGTH, 70 by default), "(standard_in) 2: syntax
// error", and run-time errors with the address GNU's compiled code
// would be at ("Runtime error (func=(main), adr=3): Divide by zero"): the
// parser lays out the sizes of GNU's code for every construct. As in GNU,
// a line (or a block or definition spanning lines) runs once it is read;
// an error anywhere in it means none of it runs; a run-time error ends
// the line; bc goes on with the next one and exits 0. quit ends bc as soon
// as it is read, halt when it runs. Files named on the command line run
// first, then standard input; -s makes POSIX's missing features errors and
// -w warnings.
//
// The runner's bounds: a number of more than 1,048,576 digits, more than
// 1,048,576 array elements in all, or calls nested deeper than 5,000 are
// run-time errors (GNU would go on until memory ran out), and every loop
// stops with the command's context.
//
// Not like GNU: a syntax error skips the rest of its line rather than
// following yacc's recovery (a line with several errors reports the
// first), read() reads the next line of standard input and accepts a
// number only, and `warranty` prints a short notice.
package bc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

// Commands lists bc for the runner's command table.
func Commands() []command.Spec {
	return []command.Spec{{Name: "bc", Summary: "an arbitrary precision calculator language", Flags: bcSpec.Flags(), Func: Bc}}
}

var bcSpec = getopt.Spec{
	Usage: []string{"[options] [file ...]"},
	Options: []getopt.Option{
		{Short: 'h', Long: "help"}, {Short: 'i', Long: "interactive"}, {Short: 'l', Long: "mathlib"},
		{Short: 'q', Long: "quiet"}, {Short: 's', Long: "standard"}, {Short: 'w', Long: "warn"},
		{Short: 'v', Long: "version"},
	},
}

const usageText = `usage: %s [options] [file ...]
  -h  --help         print this usage and exit
  -i  --interactive  force interactive mode
  -l  --mathlib      use the predefined math routines
  -q  --quiet        don't print initial banner
  -s  --standard     non-standard bc constructs are errors
  -w  --warn         warn about non-standard bc constructs
  -v  --version      print version information and exit
`

// Bc implements bc.
func Bc(ctx context.Context, env *command.Env) int {
	var args []string
	if len(env.Args) > 1 {
		args = env.Args[1:]
	}
	opts, files, err := bcSpec.Parse(args)
	if err != nil {
		var ge *getopt.Error
		if errors.As(err, &ge) {
			env.Errorf("%s", ge.Msg)
		}
		fmt.Fprintf(env.Stdout, usageText, env.Name())
		return 1
	}
	mathlib, std, warn := false, false, false
	for _, o := range opts {
		switch o.Key {
		case "help":
			fmt.Fprintf(env.Stdout, usageText, env.Name())
			return 0
		case "version":
			fmt.Fprintln(env.Stdout, "bc 1.07.1 (the wsfs runner's reimplementation of GNU bc)")
			return 0
		case "mathlib":
			mathlib = true
		case "standard":
			std = true
		case "warn":
			warn = true
		}
	}
	if env.Getenv != nil && env.Getenv("POSIXLY_CORRECT") != "" {
		std = true
	}
	width := 70
	if env.Getenv != nil {
		if s := env.Getenv("BC_LINE_LENGTH"); s != "" {
			n, _ := strconv.Atoi(s)
			if n < 3 && n != 0 {
				n = 70
			}
			width = n
		}
	}
	stdin := bufio.NewReader(env.Stdin)
	out := newOutWriter(env.Stdout, width)
	in := newInterp(ctx, out, env.Stderr, stdin)
	syms := newSymbols()
	if mathlib {
		in.scale = 20
		for _, f := range mathLib() {
			in.funcs[f.name] = f
			syms.funcID(f.name)
		}
	}
	status := 0
	run := func(r io.Reader, name string) (stop bool) {
		lx := newLexer(r, name, std)
		p := &parser{lx: lx, std: std, warn: warn, syms: syms}
		p.errf = func(msg string) {
			out.flush()
			fmt.Fprintln(env.Stderr, msg)
		}
		p.out = func(text string) {
			out.w.WriteString(text)
		}
		lx.err = func(line int, format string, a ...any) {
			p.errorAt(line, format, a...)
		}
		lx.fatal = func(msg string) {
			out.flush()
			fmt.Fprintln(env.Stderr, msg)
			p.failed = true
		}
		p.atEOL = true // read the first token in parseItem
		for {
			if ctx.Err() != nil {
				status = 1
				return true
			}
			it := p.parseItem()
			if p.quit {
				return true
			}
			if lx.readErr != nil {
				out.flush()
				env.Errorf("%s: %s", name, command.Strerror(lx.readErr))
				status = 1
				return true
			}
			if it.eof && !p.failed {
				return false
			}
			if p.failed {
				if it.eof {
					return false
				}
				continue
			}
			if it.fn != nil {
				in.funcs[it.fn.name] = it.fn
				syms.funcVoid[it.fn.name] = it.fn.void
				continue
			}
			switch err := in.runItem(it.stmts); {
			case err == nil, errors.Is(err, errRun):
			case errors.Is(err, errHalt):
				return true
			default:
				// The context ended or stdout failed.
				status = 1
				return true
			}
			out.flush()
			if out.err != nil {
				status = 1
				return true
			}
			if it.eof {
				return false
			}
		}
	}
	stopped := false
	for _, name := range files {
		f, err := env.FS.Open(name)
		if err == nil {
			if fi, serr := f.Stat(); serr == nil && fi.IsDir() {
				f.Close()
				err = errors.New("is a directory")
			}
		}
		if err != nil {
			out.flush()
			fmt.Fprintf(env.Stderr, "File %s is unavailable.\n", name)
			return 1
		}
		stopped = run(bufio.NewReader(f), name)
		f.Close()
		if stopped {
			break
		}
	}
	if !stopped {
		run(stdin, "(standard_in)")
	}
	out.flush()
	if out.err != nil && ctx.Err() == nil {
		env.Errorf("write error: %s", command.Strerror(out.err))
		return 1
	}
	return status
}
