package bash

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/wsfs/wsfs/runner/internal/printfmt"
)

// echo and printf: bash's own (printfmt's bash dialect: %q, %b, format
// reuse, -v).

// writeOut writes a builtin's output as bash does: a refused write fails
// the builtin with "NAME: write error: …"; a write into a pipe whose
// reader is gone ends the (sub)shell quietly with 141, as SIGPIPE would.
func (sh *Shell) writeOut(name, out string) int {
	if out == "" {
		return 0
	}
	_, err := io.WriteString(sh.stdout(), out)
	if err == nil {
		return 0
	}
	if isEPIPE(err) {
		sh.flow = flowExit
		return 141
	}
	sh.errorf("%s: write error: %s", name, errText(unwrapPath(err)))
	return 1
}

func builtinEcho(sh *Shell, args []string) int {
	words := args[1:]
	if sh.shopts.xpgEcho {
		// xpg_echo: escapes on unless -E.
		hasE := false
		for _, w := range words {
			if !strings.HasPrefix(w, "-") {
				break
			}
			if strings.Contains(w, "E") {
				hasE = true
			}
		}
		if !hasE {
			words = append([]string{"-e"}, words...)
		}
	}
	return sh.writeOut("echo", printfmt.Echo(words, printfmt.Bash))
}

func builtinPrintf(sh *Shell, args []string) int {
	args = args[1:]
	varName := ""
	for len(args) > 0 {
		if args[0] == "--" {
			args = args[1:]
			break
		}
		if args[0] == "-v" {
			if len(args) < 2 {
				sh.errorf("printf: -v: option requires an argument")
				fmt.Fprintln(sh.stderr(), "printf: usage: printf [-v var] format [arguments]")
				return 2
			}
			varName = args[1]
			args = args[2:]
			continue
		}
		if strings.HasPrefix(args[0], "-v") && len(args[0]) > 2 {
			varName = args[0][2:]
			args = args[1:]
			continue
		}
		if strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
			sh.errorf("printf: %s: invalid option", args[0])
			fmt.Fprintln(sh.stderr(), "printf: usage: printf [-v var] format [arguments]")
			return 2
		}
		break
	}
	if len(args) == 0 {
		fmt.Fprintln(sh.stderr(), "printf: usage: printf [-v var] format [arguments]")
		return 2
	}
	if varName != "" {
		name := varName
		if b, _, ok := splitSubscript(varName); ok {
			name = b
		}
		if !isValidName(name) {
			sh.errorf("printf: `%s': not a valid identifier", varName)
			return 2
		}
	}
	var out strings.Builder
	status := printfmt.FormatTimes(&out, sh.stderr(), printfmt.Bash, args[0], args[1:], sh.printfTimes())
	if varName == "" {
		if s := sh.writeOut("printf", out.String()); s != 0 {
			return s
		}
		return status
	}
	value := strings.ReplaceAll(out.String(), "\x00", "")
	var err error
	if b, sub, ok := splitSubscript(varName); ok {
		r := sh.resolve(b)
		if v := sh.lookup(r.name); v != nil && v.attrs&aAssoc != 0 {
			err = sh.setElement(r.name, sub, value, false)
		} else {
			err = sh.setElement(r.name, sub, value, false)
		}
	} else {
		err = sh.setVar(varName, value)
	}
	if err != nil {
		sh.errorf("printf: %v", err)
		return 1
	}
	return status
}

// printfTimes is what %(fmt)T needs: the zone of the shell's TZ (the
// process's when unset or unknown) and the shell's start.
func (sh *Shell) printfTimes() printfmt.Times {
	t := printfmt.Times{Start: sh.run.start}
	if tz, ok := sh.getVar("TZ"); ok && tz != "" {
		if loc, err := time.LoadLocation(strings.TrimPrefix(tz, ":")); err == nil {
			t.Loc = loc
		}
	}
	return t
}
