package bash

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Traps: EXIT, ERR, RETURN and DEBUG, and the signals a script sends
// with kill (to itself or to its jobs).

// signals are Linux's signal numbers by name.
var signals = []string{"", "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV",
	"USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU",
	"XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS"}

// signalNumber reads a signal name (with or without SIG, any case) or
// number; pseudo-signals are EXIT (0), DEBUG, ERR and RETURN (-1).
func signalNumber(s string) (int, string, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		if n == 0 {
			return 0, "EXIT", true
		}
		if n > 0 && n < len(signals) {
			return n, signals[n], true
		}
		return 0, "", false
	}
	u := strings.ToUpper(s)
	u = strings.TrimPrefix(u, "SIG")
	switch u {
	case "EXIT":
		return 0, "EXIT", true
	case "DEBUG", "ERR", "RETURN":
		return -1, u, true
	case "IOT":
		return 6, "ABRT", true
	case "POLL":
		return 29, "IO", true
	}
	for i, name := range signals {
		if i > 0 && name == u {
			return i, name, true
		}
	}
	return 0, "", false
}

// trapName is how trap -p names a condition.
func trapName(name string) string {
	switch name {
	case "EXIT", "DEBUG", "ERR", "RETURN":
		return name
	}
	return "SIG" + name
}

func builtinTrap(sh *Shell, args []string) int {
	args = args[1:]
	printMode := false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		switch args[0] {
		case "-p":
			printMode = true
			args = args[1:]
			continue
		case "-l":
			sh.printSignals()
			return 0
		case "--":
			args = args[1:]
		default:
			if _, _, ok := signalNumber(args[0][1:]); ok && len(args) == 1 {
				break
			}
			if args[0] == "-" {
				break
			}
			sh.errorf("trap: %s: invalid option", args[0])
			fmt.Fprintln(sh.stderr(), "trap: usage: trap [-lp] [[arg] signal_spec ...]")
			return 2
		}
		break
	}
	if len(args) == 0 || printMode {
		traps := sh.traps
		if len(traps) == 0 && sh.parentTraps != nil && sh.inSubst {
			traps = sh.parentTraps
		}
		names := args
		if len(names) == 0 {
			names = sortedTrapNames(traps)
		}
		status := 0
		for _, n := range names {
			_, name, ok := signalNumber(n)
			if !ok {
				sh.errorf("trap: %s: invalid signal specification", n)
				status = 1
				continue
			}
			if action, set := traps[name]; set {
				fmt.Fprintf(sh.stdout(), "trap -- %s %s\n", shellQuote(action), trapName(name))
			}
		}
		return status
	}
	action := args[0]
	specs := args[1:]
	reset := false
	if len(specs) == 0 {
		// trap SIG: reset
		specs, reset = args, true
	} else if action == "-" {
		reset = true
	} else if _, err := strconv.Atoi(action); err == nil {
		// A number first: POSIX reads every operand as a condition to reset.
		specs, reset = args, true
	}
	status := 0
	for _, s := range specs {
		_, name, ok := signalNumber(s)
		if !ok {
			sh.errorf("trap: %s: invalid signal specification", s)
			status = 1
			continue
		}
		if reset {
			delete(sh.traps, name)
		} else {
			sh.traps[name] = action
		}
		if name == "DEBUG" {
			_, sh.opts.debug = sh.traps["DEBUG"]
		}
		if name == "RETURN" {
			// A RETURN trap set inside a function fires when it returns,
			// traced or not.
			sh.returnTrapLevel = sh.level()
		}
	}
	return status
}

func sortedTrapNames(traps map[string]string) []string {
	order := func(n string) int {
		num, _, _ := signalNumber(n)
		switch n {
		case "EXIT":
			return -10
		case "DEBUG":
			return 100
		case "ERR":
			return 101
		case "RETURN":
			return 102
		}
		return num
	}
	names := make([]string, 0, len(traps))
	for n := range traps {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return order(names[i]) < order(names[j]) })
	return names
}

func (sh *Shell) printSignals() {
	var b strings.Builder
	for i := 1; i < len(signals); i++ {
		fmt.Fprintf(&b, "%2d) SIG%-8s", i, signals[i])
		if i%5 == 0 {
			b.WriteString("\n")
		} else {
			b.WriteString("\t")
		}
	}
	out := strings.TrimRight(b.String(), "\t") + "\n"
	sh.writeOut("trap", out)
}

// runTrap runs a trap's action with $? as it was, and gives $? back
// (unless the action exits).
func (sh *Shell) runTrap(name, action string) {
	if action == "" {
		return
	}
	if sh.trapDepth > 16 {
		return
	}
	saved := sh.status
	savedIn := sh.inTrap
	savedLine := sh.line
	sh.inTrap = name
	sh.trapDepth++
	sh.runText(action, "", sh.line-1)
	sh.trapDepth--
	sh.inTrap = savedIn
	sh.line = savedLine
	if sh.flow == flowReturn && name != "RETURN" {
		// return in a trap returns from the function the trap ran in.
		return
	}
	if sh.flow != flowExit {
		sh.status = saved
	}
}

// runDebugTrap runs the DEBUG trap before a simple command; false means
// extdebug skips the command.
func (sh *Shell) runDebugTrap(c *syntax.CallExpr) bool {
	action, ok := sh.traps["DEBUG"]
	if !ok || sh.inTrap != "" || (sh.inFunc > 0 && !sh.opts.functrace && !sh.funcTraced()) {
		return true
	}
	sh.curCommand = strings.TrimSpace(sh.nodeText(c))
	saved := sh.status
	sh.inTrap = "DEBUG"
	sh.runText(action, "", sh.line-1)
	sh.inTrap = ""
	st := sh.status
	if sh.flow != flowExit {
		sh.status = saved
	}
	return !(sh.shopts.m["extdebug"] && st != 0)
}

// funcTraced reports whether the innermost function has -t.
func (sh *Shell) funcTraced() bool {
	f := sh.frame()
	if f == nil {
		return false
	}
	fn, ok := sh.funcs[f.fn]
	return ok && fn.trace
}

// deliver handles a signal sent to this shell: its trap, or the default
// action (ending the shell with 128+N); ignored signals do nothing.
func (sh *Shell) deliver(sig int) {
	name := signals[sig]
	if action, ok := sh.traps[name]; ok {
		if action != "" {
			sh.runTrap(name, action)
		}
		return
	}
	switch name {
	case "CHLD", "WINCH", "URG", "CONT":
		return
	case "STOP", "TSTP", "TTIN", "TTOU":
		return
	}
	sh.status = 128 + sig
	sh.flow = flowExit
}
