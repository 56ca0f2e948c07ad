package runsvc

import (
	"errors"
	"fmt"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/runsvc/runwire"
)

// ErrClosed reports a call refused because the service is stopping.
var ErrClosed = errors.New("the wsfs server is shutting down; run the command again once it is back")

// Class ties an error code to the sentinel an error of its class wraps
// and to the CLI's exit status for it.
type Class struct {
	Code string
	Err  error
	Exit int
}

// Classes lists every class with a sentinel, the most specific first: a
// server classifies an error by the first it wraps, and a client rebuilds
// an error that wraps the same sentinel.
var Classes = []Class{
	{runwire.CodeStale, meta.ErrStale, runwire.ExitStale},
	{runwire.CodeNotFound, meta.ErrNotFound, runwire.ExitNotFound},
	{runwire.CodeInvalid, meta.ErrInvalid, runwire.ExitUsage},
	{runwire.CodeExists, meta.ErrExists, runwire.ExitFailure},
	{runwire.CodeInUse, meta.ErrInUse, runwire.ExitFailure},
	{runwire.CodeGCRunning, meta.ErrGCRunning, runwire.ExitFailure},
	{runwire.CodeCorruptDB, meta.ErrCorruptDB, runwire.ExitFailure},
	{runwire.CodeBlobNotFound, objects.ErrNotFound, runwire.ExitNotFound},
	{runwire.CodeBlobCorrupt, objects.ErrCorrupt, runwire.ExitFailure},
	{runwire.CodeStore, meta.ErrStore, runwire.ExitFailure},
	{runwire.CodeBusy, ErrClosed, runwire.ExitFailure},
	{runwire.CodeRunBusy, ErrBusy, runwire.ExitStale},
}

// Classify returns err's code (runwire's Code constants) and the CLI's
// exit status for it. A quota refusal is CodeQuota; an error of no class
// CodeInternal.
func Classify(err error) (code string, exit int) {
	var qe *meta.QuotaError
	if errors.As(err, &qe) {
		return runwire.CodeQuota, runwire.ExitFailure
	}
	for _, c := range Classes {
		if errors.Is(err, c.Err) {
			return c.Code, c.Exit
		}
	}
	if errors.Is(err, objects.ErrDigestMismatch) {
		return runwire.CodeBlobCorrupt, runwire.ExitFailure
	}
	return runwire.CodeInternal, runwire.ExitFailure
}

// WireError is err as a run report carries it to the caller.
func WireError(err error) *runwire.Error {
	code, exit := Classify(err)
	return &runwire.Error{Code: code, Message: err.Error(), Exit: exit}
}

// classed is an error whose message says it all, of the class of a
// sentinel (for errors.Is and Classify, not for the message).
type classed struct {
	msg   string
	class error
}

func (e *classed) Error() string { return e.msg }
func (e *classed) Unwrap() error { return e.class }

// errorf returns an error of class with the formatted message (which may
// wrap further errors with %w).
func errorf(class error, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &classed{msg: err.Error(), class: errors.Join(class, errors.Unwrap(err))}
}
