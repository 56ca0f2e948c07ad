package api

import (
	"errors"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
)

// Error codes carried in a JSON error body. They are part of the protocol:
// add new ones, never rename one.
const (
	CodeNotFound     = "not_found"
	CodeStale        = "stale"
	CodeInvalid      = "invalid"
	CodeExists       = "exists"
	CodeQuota        = "quota"
	CodeInUse        = "in_use"
	CodeGCRunning    = "gc_running"
	CodeStore        = "store"
	CodeCorruptDB    = "corrupt_db"
	CodeBlobNotFound = "blob_not_found"
	CodeBlobCorrupt  = "blob_corrupt"
	CodeBusy         = "busy"
	CodeInternal     = "internal"
	CodeRunBusy      = "run_busy" // wsfs run: the workspace's queue did not reach this command within --wait
)

// codeSentinels maps each code to the sentinel the client wraps again, in
// the order the server tries them (the most specific class first).
var codeSentinels = []struct {
	code string
	err  error
}{
	{CodeStale, meta.ErrStale},
	{CodeNotFound, meta.ErrNotFound},
	{CodeInvalid, meta.ErrInvalid},
	{CodeExists, meta.ErrExists},
	{CodeInUse, meta.ErrInUse},
	{CodeGCRunning, meta.ErrGCRunning},
	{CodeCorruptDB, meta.ErrCorruptDB},
	{CodeBlobNotFound, objects.ErrNotFound},
	{CodeBlobCorrupt, objects.ErrCorrupt},
	{CodeStore, meta.ErrStore},
	{CodeBusy, ErrBusy},
	{CodeRunBusy, ErrRunBusy},
}

// wireError is the JSON body of a failed call.
type wireError struct {
	Code    string     `json:"code"`
	Message string     `json:"message"`
	Quota   *wireQuota `json:"quota,omitempty"`
	// Also lists further classes the error belongs to (an error can wrap
	// both ErrStore and objects.ErrNotFound).
	Also []string `json:"also,omitempty"`
}

// encodeError classifies err for the wire.
func encodeError(err error) wireError {
	we := wireError{Code: CodeInternal, Message: err.Error()}
	var qe *meta.QuotaError
	if errors.As(err, &qe) {
		we.Code, we.Quota = CodeQuota, quotaToWire(qe)
	}
	for _, cs := range codeSentinels {
		if !errors.Is(err, cs.err) {
			continue
		}
		if we.Code == CodeInternal {
			we.Code = cs.code
		} else {
			we.Also = append(we.Also, cs.code)
		}
	}
	if errors.Is(err, objects.ErrDigestMismatch) && we.Code != CodeBlobCorrupt {
		we.Also = append(we.Also, CodeBlobCorrupt)
	}
	return we
}

// RemoteError is an error the server returned. It wraps the meta (or
// objects) sentinel of its class and, for a quota refusal, the
// *meta.QuotaError, so errors.Is and errors.As see what the server saw.
type RemoteError struct {
	Code    string
	Message string
	wrapped []error
}

func (e *RemoteError) Error() string   { return e.Message }
func (e *RemoteError) Unwrap() []error { return e.wrapped }

// decodeError rebuilds the error the server encoded.
func decodeError(we wireError) error {
	e := &RemoteError{Code: we.Code, Message: we.Message}
	if e.Message == "" {
		e.Message = "api: the server failed without a message (code " + we.Code + ")"
	}
	if we.Quota != nil {
		e.wrapped = append(e.wrapped, we.Quota.quotaError())
	}
	for _, code := range append([]string{we.Code}, we.Also...) {
		for _, cs := range codeSentinels {
			if cs.code == code {
				e.wrapped = append(e.wrapped, cs.err)
			}
		}
	}
	return e
}

// ErrBusy reports a call refused because the server is shutting down.
var ErrBusy = errors.New("api: the server is shutting down")

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
