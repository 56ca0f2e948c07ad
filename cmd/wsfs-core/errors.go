package main

import (
	"errors"

	"github.com/wsfs/wsfs/api"
	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
)

// exitCodeFor maps a failed operation's error to the exit code that
// `wsfs --help` documents. Errors that came over the control socket keep
// their class (api rebuilds the sentinels), so one mapping serves both paths.
func exitCodeFor(err error) int {
	switch {
	case errors.Is(err, meta.ErrStale), errors.Is(err, api.ErrRunBusy):
		return exitStale
	case errors.Is(err, meta.ErrNotFound), errors.Is(err, objects.ErrNotFound):
		return exitNotFound
	case errors.Is(err, meta.ErrInvalid):
		return exitUsage
	}
	return exitFailure
}
