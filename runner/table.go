package runner

import (
	"sync"

	"github.com/wsfs/wsfs/runner/awk"
	"github.com/wsfs/wsfs/runner/bc"
	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/coreutils"
	"github.com/wsfs/wsfs/runner/grep"
	"github.com/wsfs/wsfs/runner/htmlmd"
	"github.com/wsfs/wsfs/runner/jq"
	"github.com/wsfs/wsfs/runner/jsexec"
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
		yq.Commands(), htmlmd.Commands(), sqlite.Commands(), xan.Commands(), bc.Commands(),
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

// NotAvailableYet lists the names the runner reserves for commands still
// to come; running one says so (status 127), never runs a host program.
func NotAvailableYet() []string { return append([]string(nil), notYet...) }
