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
	newline, escapes := true, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "neE") == "" {
		for _, c := range args[0][1:] {
			switch c {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
		args = args[1:]
	}
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if !escapes {
			b.WriteString(a)
			continue
		}
		if stop := echoEscapes(&b, a); stop {
			newline = false
			break
		}
	}
	if newline {
		b.WriteByte('\n')
	}
	if _, err := io.WriteString(env.Stdout, b.String()); err != nil {
		env.Errorf("write error: %s", command.Strerror(err))
		return 1
	}
	return 0
}

// echoEscapes writes a with GNU echo -e's escapes decoded; stop is true
// at \c, which ends all output.
func echoEscapes(b *strings.Builder, a string) (stop bool) {
	for i := 0; i < len(a); i++ {
		if a[i] != '\\' || i+1 == len(a) {
			b.WriteByte(a[i])
			continue
		}
		c := a[i+1]
		switch {
		case c == 'c':
			return true
		case c == 'u' || c == 'U' || c == 'E' || c == '?' || c == '\'':
			b.WriteByte('\\') // not escapes for GNU echo
			continue
		case c == 'x' && (i+2 >= len(a) || !isHexDigit(a[i+2])):
			b.WriteByte('\\')
			continue
		}
		n, s, _, _ := printfmt.Escape(a[i+1:], printfmt.GNU, true)
		if n == 0 {
			b.WriteByte('\\')
			continue
		}
		b.WriteString(s)
		i += n
	}
	return false
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
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
