package textutils

import (
	"context"

	"github.com/wsfs/wsfs/runner/command"
)

func notYet(ctx context.Context, env *command.Env) int { env.Errorf("not available yet"); return 127 }

var (
	Uniq, Cut, Tr, Paste, Join, Comm, Nl, Tac, Rev, Fold, Expand, Unexpand, Column, Seq, Tee, Xargs, Diff, Base64, Md5sum, Sha1sum, Sha256sum, Sha512sum, Od, Strings, Split command.Func = notYet, notYet, notYet, notYet, notYet, notYet, notYet, notYet, notYet, notYet, notYet, notYet, notYet, notYet, notYet, notYet, notYet, notYet, notYet, notYet, notYet, notYet, notYet, notYet, notYet
	sumFlags                                                                                                                                                                 []string
)
