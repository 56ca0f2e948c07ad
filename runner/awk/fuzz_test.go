package awk

import (
	"context"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// FuzzProgram feeds arbitrary program text to awk: it may fail, but must
// neither panic nor run away (the context is cancelled from the start, so
// any loop stops at its first context check).
func FuzzProgram(f *testing.F) {
	for _, c := range diffCases {
		if len(c.args) > 0 && !strings.HasPrefix(c.args[0], "-") {
			f.Add(c.args[0], c.stdin)
		}
	}
	f.Add(`BEGIN { printf "%*.*d|%c|%5%", 3, 2, 1, "" }`, "")
	f.Add(`{ $(NF+2) = $1; NF = 1; print; $0 = "a b"; print $2 }`, "x y z\n")
	f.Add(`BEGIN { RS = "(a|b)*" } { print }`, "aab\nab")
	s := commandtest.New(f)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f.Fuzz(func(t *testing.T, prog, stdin string) {
		if len(prog) > 2000 || len(stdin) > 10000 {
			return
		}
		r := s.Run(ctx, Main, stdin, "awk", prog)
		if strings.Contains(r.Stderr, "internal error") {
			t.Fatalf("program %q: %s", prog, r.Stderr)
		}
	})
}
