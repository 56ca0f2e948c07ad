package api

import (
	"errors"
	"time"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/runsvc"
	"github.com/wsfs/wsfs/runsvc/runwire"
)

// The error codes a JSON error body carries, and the sentinels a client
// wraps again, are runsvc's (runsvc.Classes): one table for the control
// socket, the run socket and every verb's --json errors.

// ErrRunBusy reports a command that did not get its turn within --wait.
var ErrRunBusy = runsvc.ErrBusy

// wireError is the JSON body of a failed call.
type wireError struct {
	Code    string     `json:"code"`
	Message string     `json:"message"`
	Quota   *wireQuota `json:"quota,omitempty"`
	// Also lists further classes the error belongs to (an error can wrap
	// both ErrStore and objects.ErrNotFound).
	Also []string `json:"also,omitempty"`
	// RetryAfter is, in seconds, when to try again (429, as the
	// Retry-After header says).
	RetryAfter int64 `json:"retry_after,omitempty"`
	// Limit is the limit in bytes that a too-large request passed.
	Limit int64 `json:"limit,omitempty"`
}

// encodeError classifies err for the wire.
func encodeError(err error) wireError {
	code, _ := runsvc.Classify(err)
	var ae *apiError
	if errors.As(err, &ae) {
		code = ae.code
	}
	we := wireError{Code: code, Message: err.Error()}
	var qe *meta.QuotaError
	if errors.As(err, &qe) {
		we.Quota = quotaToWire(qe)
	}
	for _, c := range runsvc.Classes {
		if c.Code != we.Code && errors.Is(err, c.Err) {
			we.Also = append(we.Also, c.Code)
		}
	}
	if errors.Is(err, objects.ErrDigestMismatch) && we.Code != runwire.CodeBlobCorrupt {
		we.Also = append(we.Also, runwire.CodeBlobCorrupt)
	}
	return we
}

// RemoteError is an error the server returned. It wraps the meta (or
// objects) sentinel of its class and, for a quota refusal, the
// *meta.QuotaError, so errors.Is and errors.As see what the server saw.
type RemoteError struct {
	Code    string
	Message string
	// RetryAfter is when the server said to try again (a 429), or 0.
	RetryAfter time.Duration
	wrapped    []error
}

func (e *RemoteError) Error() string   { return e.Message }
func (e *RemoteError) Unwrap() []error { return e.wrapped }

// decodeError rebuilds the error the server encoded.
func decodeError(we wireError) error {
	e := &RemoteError{Code: we.Code, Message: we.Message, RetryAfter: time.Duration(we.RetryAfter) * time.Second}
	if e.Message == "" {
		e.Message = "api: the server failed without a message (code " + we.Code + ")"
	}
	if we.Quota != nil {
		e.wrapped = append(e.wrapped, we.Quota.quotaError())
	}
	for _, code := range append([]string{we.Code}, we.Also...) {
		for _, c := range runsvc.Classes {
			if c.Code == code {
				e.wrapped = append(e.wrapped, c.Err)
			}
		}
		if c := apiClasses[code]; c != nil {
			e.wrapped = append(e.wrapped, c)
		}
	}
	return e
}

// ErrBusy reports a call refused because the server is shutting down.
var ErrBusy = runsvc.ErrClosed

// wireQuota carries a *meta.QuotaError (whose kind has no text decoder)
// with its kind as a number.
type wireQuota struct {
	Kind      int    `json:"kind"`
	KindName  string `json:"kind_name"`
	Workspace string `json:"workspace"`
	Path      string `json:"path"`
	Limit     int64  `json:"limit"`
	Usage     int64  `json:"usage"`
}

func quotaToWire(q *meta.QuotaError) *wireQuota {
	return &wireQuota{Kind: int(q.Kind), KindName: q.Kind.String(), Workspace: q.Workspace, Path: q.Path, Limit: q.Limit, Usage: q.Usage}
}

func (w *wireQuota) quotaError() *meta.QuotaError {
	return &meta.QuotaError{Kind: meta.QuotaKind(w.Kind), Workspace: w.Workspace, Path: w.Path, Limit: w.Limit, Usage: w.Usage}
}
