package grep

import (
	"context"

	"github.com/wsfs/wsfs/runner/command"
)

var rgFlags = []string{}

// Rg is ripgrep.
func Rg(ctx context.Context, env *command.Env) int {
	env.Errorf("not available yet")
	return 2
}
