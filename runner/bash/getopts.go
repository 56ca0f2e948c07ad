package bash

import (
	"fmt"
	"strconv"
	"strings"
)

// builtinGetopts is getopts OPTSTRING NAME [ARGS]: one option per call,
// OPTIND and OPTARG as POSIX says, bundled options (-abc) remembered
// between calls.
func builtinGetopts(sh *Shell, args []string) (status int) {
	if len(args) < 3 {
		sh.errorf("getopts: usage: getopts optstring name [arg ...]")
		return 2
	}
	optstring, name := args[1], args[2]
	badName := !isValidName(name)
	if badName {
		// bash parses the option anyway, then fails.
		bad := name
		defer func() {
			sh.errorf("getopts: `%s': not a valid identifier", bad)
			status = 2
		}()
		name = "__wsfs_getopts_bad"
		defer sh.unsetVar(name, true)
	}
	params := sh.params
	if len(args) > 3 {
		params = args[3:]
	}
	silent := strings.HasPrefix(optstring, ":")
	if silent {
		optstring = optstring[1:]
	}
	report := !silent
	if v, ok := sh.getVar("OPTERR"); ok && v == "0" {
		report = false
	}
	optind := 1
	if v, ok := sh.getVar("OPTIND"); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 1 {
			optind = n
		}
	}
	if optind != sh.getoptsInd {
		sh.getoptsPos = 0
	}
	if optind > len(params)+1 {
		optind = len(params) + 1
	}
	done := func() int {
		sh.setVar(name, "?")
		sh.unsetVar("OPTARG", false)
		sh.getoptsPos = 0
		sh.getoptsInd = optind
		sh.setVar("OPTIND", strconv.Itoa(optind))
		sh.getoptsInd = optind
		return 1
	}
	if optind > len(params) {
		return done()
	}
	arg := params[optind-1]
	if sh.getoptsPos == 0 {
		if arg == "--" {
			optind++
			return done()
		}
		if len(arg) < 2 || arg[0] != '-' {
			return done()
		}
		sh.getoptsPos = 1
	}
	c := arg[sh.getoptsPos]
	sh.getoptsPos++
	next := func() {
		if sh.getoptsPos >= len(arg) {
			optind++
			sh.getoptsPos = 0
		}
	}
	i := strings.IndexByte(optstring, c)
	if i < 0 || c == ':' {
		if report {
			sh.errorf("getopts: illegal option -- %c", c)
			fmt.Fprint(sh.stderr(), "")
		}
		next()
		sh.setVar(name, "?")
		if silent {
			sh.setVar("OPTARG", string(c))
		} else {
			sh.unsetVar("OPTARG", false)
		}
		sh.setOptind(optind)
		return 0
	}
	if i+1 < len(optstring) && optstring[i+1] == ':' {
		var val string
		if sh.getoptsPos < len(arg) {
			val = arg[sh.getoptsPos:]
			optind++
			sh.getoptsPos = 0
		} else {
			optind++
			sh.getoptsPos = 0
			if optind > len(params) {
				if report {
					sh.errorf("getopts: option requires an argument -- %c", c)
				}
				if silent {
					sh.setVar(name, ":")
					sh.setVar("OPTARG", string(c))
				} else {
					sh.setVar(name, "?")
					sh.unsetVar("OPTARG", false)
				}
				sh.setOptind(optind)
				return 0
			}
			val = params[optind-1]
			optind++
		}
		sh.setVar("OPTARG", val)
		sh.setVar(name, string(c))
		sh.setOptind(optind)
		return 0
	}
	next()
	sh.setVar(name, string(c))
	sh.unsetVar("OPTARG", false)
	sh.setOptind(optind)
	return 0
}

// setOptind sets OPTIND without resetting the position in a bundle.
func (sh *Shell) setOptind(n int) {
	pos := sh.getoptsPos
	sh.setVar("OPTIND", strconv.Itoa(n))
	sh.getoptsPos = pos
	sh.getoptsInd = n
}
