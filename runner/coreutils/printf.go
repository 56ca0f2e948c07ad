package coreutils

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/printfmt"
)

// runPrintf is GNU printf run as a command (env printf, xargs printf):
// no -v, \c in the format stops, %q quotes as ls --quoting-style=shell-escape.
// The shell's own printf builtin is bash's.
func runPrintf(_ context.Context, env *command.Env) int {
	args := env.Args[1:]
	if len(args) == 1 && (args[0] == "--help" || args[0] == "--version") {
		return helpOnly(env, args[0], "printf FORMAT [ARGUMENT]...", "")
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return usageFail(env, 1, "missing operand")
	}
	var out strings.Builder
	status := printfmt.Format(&out, env.Stderr, printfmt.GNU, args[0], args[1:])
	if _, err := io.WriteString(env.Stdout, out.String()); err != nil {
		env.Errorf("write error: %s", command.Strerror(err))
		return 1
	}
	return status
}

// runEcho is GNU echo run as a command: -n -e -E only as whole words of
// those letters, --help and --version only alone, -e escapes as GNU's
// (\0NNN and \NNN octal, \xHH, \c; no \u).
func runEcho(_ context.Context, env *command.Env) int {
	args := env.Args[1:]
	if len(args) == 1 && (args[0] == "--help" || args[0] == "--version") {
		return helpOnly(env, args[0], "echo [SHORT-OPTION]... [STRING]...", "-n -e -E")
	}
	if _, err := io.WriteString(env.Stdout, printfmt.Echo(args, printfmt.GNU)); err != nil {
		env.Errorf("write error: %s", command.Strerror(err))
		return 1
	}
	return 0
}

// helpOnly answers --help or --version for the commands that take no
// other options.
func helpOnly(env *command.Env, which, usage, flags string) int {
	if which == "--version" {
		fmt.Fprintf(env.Stdout, "%s (wsfs runner)\n", env.Name())
		return 0
	}
	fmt.Fprintf(env.Stdout, "Usage: %s\n", usage)
	if flags != "" {
		fmt.Fprintf(env.Stdout, "Options: %s\n", flags)
	}
	return 0
}
