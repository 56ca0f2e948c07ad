package coreutils

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
	"github.com/wsfs/wsfs/runner/internal/printfmt"
)

// The fixed answers of the session commands: the agent's view has no
// host, user or terminal of its own, so these never reveal the worker's.
const (
	fixedHostname = "wsfs"
	fixedUser     = "agent"
	// clearScreen is what ncurses' clear prints for xterm-like terminals:
	// home, erase the screen, erase the scrollback (E3).
	clearScreen     = "\x1b[H\x1b[2J"
	clearScrollback = "\x1b[3J"
)

var hostnameSpec = getopt.Spec{
	Usage: []string{"[-s|-f|-d|-i|-I]"},
	Options: []getopt.Option{
		{Short: 's', Long: "short"}, {Short: 'f', Long: "fqdn"}, {Short: 'A', Long: "all-fqdns"},
		{Short: 'd', Long: "domain"}, {Short: 'i', Long: "ip-address"}, {Short: 'I', Long: "all-ip-addresses"},
	},
}

// runHostname prints "wsfs" (-s, -f, --fqdn alike; -d an empty domain,
// -i and -I 127.0.0.1); setting the name is refused.
func runHostname(_ context.Context, env *command.Env) int {
	opts, args, code, ok := hostnameSpec.Run(env)
	if !ok {
		return code
	}
	answer := fixedHostname
	for _, o := range opts {
		switch o.Key {
		case "short", "fqdn", "all-fqdns":
			answer = fixedHostname
		case "domain":
			answer = ""
		case "ip-address", "all-ip-addresses":
			answer = "127.0.0.1"
		}
	}
	if len(args) > 0 {
		env.Errorf("you must be root to change the host name")
		return 1
	}
	fmt.Fprintln(env.Stdout, answer)
	return 0
}

// runWhoami prints "agent", the owner every file shows.
var whoamiSpec = getopt.Spec{Usage: []string{"[OPTION]..."}}

func runWhoami(_ context.Context, env *command.Env) int {
	_, args, code, ok := whoamiSpec.Run(env)
	if !ok {
		return code
	}
	if len(args) > 0 {
		return usageFail(env, 1, "extra operand "+printfmt.LocaleQuote(args[0]))
	}
	fmt.Fprintln(env.Stdout, fixedUser)
	return 0
}

// runClear prints the xterm clear sequence whatever TERM says (the agent
// has no terminal to ask), except for TERM=dumb, which cannot clear.
var clearSpec = getopt.Spec{
	Usage: []string{"[-x] [-T TERM]"},
	Options: []getopt.Option{
		{Short: 'x'}, {Short: 'T', Arg: getopt.Required, ArgName: "TERM"}, {Short: 'V'},
	},
}

func runClear(_ context.Context, env *command.Env) int {
	opts, args, code, ok := clearSpec.Run(env)
	if !ok {
		return code
	}
	keepScrollback := opts.Has("x")
	term, ok := opts.Value("T")
	if !ok {
		term = env.Getenv("TERM")
	}
	if len(args) > 0 {
		return usageFail(env, 1, "extra operand "+printfmt.LocaleQuote(args[0]))
	}
	if term == "dumb" {
		return 0
	}
	seq := clearScreen
	if !keepScrollback {
		seq += clearScrollback
	}
	fmt.Fprint(env.Stdout, seq)
	return 0
}

// runHistory prints the workspace's recent commands (Env.History, from
// its revision log: commands that changed files or the cwd, and this
// one) numbered as bash numbers them; `history N` prints the last N.
func runHistory(_ context.Context, env *command.Env) int {
	args := env.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	} else if len(args) == 1 && args[0] == "--help" {
		return helpOnly(env, args[0], "history [N]", "")
	}
	if len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-" {
		fmt.Fprintf(env.Stderr, "bash: history: %s: invalid option\nhistory: usage: history [n]\n", args[0])
		return 2
	}
	if len(args) > 1 {
		fmt.Fprintf(env.Stderr, "bash: history: too many arguments\n")
		return 1
	}
	lines := env.History
	if len(args) == 1 {
		n, err := strconv.Atoi(args[0])
		if err != nil || n < 0 {
			fmt.Fprintf(env.Stderr, "bash: history: %s: numeric argument required\n", args[0])
			return 1
		}
		if n < len(lines) {
			lines = lines[len(lines)-n:]
		}
	}
	first := len(env.History) - len(lines) + 1
	o := newOut(env)
	for i, l := range lines {
		fmt.Fprintf(o, "%5d  %s\n", first+i, l)
	}
	return o.finish(env, 0)
}
