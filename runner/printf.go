package runner

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/wsfs/wsfs/runner/internal/printfmt"
)

// printfBuiltin answers bash's printf (mvdan/sh's own lacks precision,
// %e/%g/%X/%q, -v and format reuse). It writes the output, or assigns it
// with -v through eval, and hands the interpreter a builtin giving the
// status.
func printfBuiltin(hc interp.HandlerContext, args []string) []string {
	args = args[1:]
	varName := ""
	for len(args) > 0 {
		if args[0] == "--" {
			args = args[1:]
			break
		}
		if args[0] == "-v" && len(args) > 1 {
			varName = args[1]
			args = args[2:]
			continue
		}
		if strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
			fmt.Fprintf(hc.Stderr, "bash: printf: %s: invalid option\nprintf: usage: printf [-v var] format [arguments]\n", args[0])
			return statusArgs(2)
		}
		break
	}
	if len(args) == 0 {
		fmt.Fprintf(hc.Stderr, "printf: usage: printf [-v var] format [arguments]\n")
		return statusArgs(2)
	}
	if varName != "" && !validVarRef(varName) {
		fmt.Fprintf(hc.Stderr, "bash: printf: `%s': not a valid identifier\n", varName)
		return statusArgs(2)
	}
	var out strings.Builder
	status := printfmt.Format(&out, hc.Stderr, printfmt.Bash, args[0], args[1:])
	if varName == "" {
		return builtinOutput(hc, "printf", out.String(), status)
	}
	q, err := syntax.Quote(out.String(), syntax.LangBash)
	if err != nil {
		// A value with a NUL byte cannot be held by a variable anyway.
		q, _ = syntax.Quote(strings.ReplaceAll(out.String(), "\x00", ""), syntax.LangBash)
	}
	script := varName + "=" + q
	if status != 0 {
		script += "; false"
	}
	return []string{"eval", script}
}

func validVarRef(s string) bool {
	name, index, hasIndex := strings.Cut(s, "[")
	if hasIndex && !strings.HasSuffix(index, "]") {
		return false
	}
	if name == "" {
		return false
	}
	for i, r := range name {
		if r != '_' && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z') && (i == 0 || !(r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}
