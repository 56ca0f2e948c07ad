package textutils

import (
	"context"

	"github.com/wsfs/wsfs/runner/command"
)

func notYet(ctx context.Context, env *command.Env) int { env.Errorf("not available yet"); return 127 }

