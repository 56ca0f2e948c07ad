package runner

import (
	"context"
	"sync"

	"github.com/wsfs/wsfs/runner/awk"
	"github.com/wsfs/wsfs/runner/bc"
	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/coreutils"
	"github.com/wsfs/wsfs/runner/grep"
	"github.com/wsfs/wsfs/runner/htmlmd"
	"github.com/wsfs/wsfs/runner/jq"
	"github.com/wsfs/wsfs/runner/jsexec"
	"github.com/wsfs/wsfs/runner/patch"
	"github.com/wsfs/wsfs/runner/sed"
	"github.com/wsfs/wsfs/runner/sqlite"
	"github.com/wsfs/wsfs/runner/textutils"
	"github.com/wsfs/wsfs/runner/xan"
	"github.com/wsfs/wsfs/runner/yq"
)

// CommandSpecs lists every runner command from the command packages, in
// package order; a later package does not override an earlier name. It is
// what `help` and `wsfs commands` print.
func CommandSpecs() []command.Spec {
	var all []command.Spec
	seen := map[string]bool{}
	for _, specs := range [][]command.Spec{
		shellSpecs(), coreutils.Commands(), textutils.Commands(), grep.Commands(),
		sed.Commands(), awk.Commands(), jq.Commands(), jsexec.Commands(),
		yq.Commands(), htmlmd.Commands(), sqlite.Commands(), xan.Commands(), bc.Commands(), patch.Commands(),
	} {
		for _, s := range specs {
			if !seen[s.Name] {
				seen[s.Name] = true
				all = append(all, s)
			}
		}
	}
	return all
}

// DefaultCommands is the command table by name.
func DefaultCommands() map[string]command.Spec {
	t := map[string]command.Spec{}
	for _, s := range CommandSpecs() {
		t[s.Name] = s
	}
	return t
}

// defaultTable is DefaultCommands built once; Run only reads it.
var defaultTable = sync.OnceValue(DefaultCommands)

// shellSpecs are bash and sh in the command table, for help, which,
// command -v and `wsfs commands`. The interpreter runs them itself (a
// nested shell), so Func answers only a caller outside it.
func shellSpecs() []command.Spec {
	flags := []string{"-c STRING [NAME [ARGS]]", "-s [ARGS]", "FILE [ARGS]", "-e", "-u", "-x", "-f", "-n", "-a", "-o OPTION", "-O SHOPT", "--version"}
	outside := func(_ context.Context, env *command.Env) int {
		env.Errorf("a nested shell runs only inside wsfs run")
		return 126
	}
	return []command.Spec{
		{Name: "bash", Summary: "run a script or a command string in a nested shell (same sandbox, limits and revision)", Flags: flags, Func: outside},
		{Name: "sh", Summary: "bash under another name (bash's dialect, not dash)", Flags: flags, Func: outside},
	}
}
