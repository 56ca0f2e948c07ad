package textutils

import (
	"context"

	"github.com/wsfs/wsfs/runner/command"
)

func notYet(ctx context.Context, env *command.Env) int { env.Errorf("not available yet"); return 127 }

var sumFlags []string

var Diff command.Func = notYet
var Base64 command.Func = notYet
var Md5sum command.Func = notYet
var Sha1sum command.Func = notYet
var Sha256sum command.Func = notYet
var Sha512sum command.Func = notYet
var Od command.Func = notYet
var Strings command.Func = notYet
var Split command.Func = notYet
