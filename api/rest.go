package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/runsvc/runwire"
)

// The API's own error codes, beside runwire's (not_found, invalid, stale,
// exists, quota, run_busy, ...). Each is stable: programs may branch on
// it; the message says what to do.
const (
	CodeUnauthorized     = "unauthorized"           // 401: no key, or one that is not valid
	CodeKeyExpired       = "key_expired"            // 401
	CodeKeyRevoked       = "key_revoked"            // 401
	CodeForbidden        = "forbidden"              // 403: the key's scope does not allow it
	CodeRateLimited      = "rate_limited"           // 429: too many requests; Retry-After
	CodeTooManyRuns      = "too_many_runs"          // 429: too many commands under way; Retry-After
	CodeTooLarge         = "too_large"              // 413: a body over its limit (named)
	CodeMethod           = "method_not_allowed"     // 405
	CodeNoRoute          = "no_route"               // 404: no such endpoint
	CodeUnsupportedMedia = "unsupported_media_type" // 415
	CodePrecondition     = "precondition_failed"    // 412: If-Match / If-None-Match
	CodeNotModified      = "not_modified"           // 304 (no body)
)

// Errors a client rebuilds from the API's codes.
var (
	ErrUnauthorized = errors.New("the server refused the key")
	ErrForbidden    = errors.New("the key may not do this")
	ErrRateLimited  = errors.New("too many requests")
	ErrTooLarge     = errors.New("the request is too large")
	ErrPrecondition = errors.New("the precondition failed")
)

// apiClasses ties the API's codes to the errors a client wraps.
var apiClasses = map[string]error{
	CodeUnauthorized: ErrUnauthorized, CodeKeyExpired: ErrUnauthorized, CodeKeyRevoked: ErrUnauthorized,
	CodeForbidden: ErrForbidden, CodeRateLimited: ErrRateLimited, CodeTooManyRuns: ErrRateLimited,
	CodeTooLarge: ErrTooLarge, CodePrecondition: ErrPrecondition,
	CodeMethod: meta.ErrInvalid, CodeNoRoute: meta.ErrNotFound, CodeUnsupportedMedia: meta.ErrInvalid,
}

// apiError is a refusal the API makes itself, with its status and code.
type apiError struct {
	status     int
	code       string
	msg        string
	retryAfter time.Duration
	limit      int64 // the limit a too-large body passed
	err        error // wrapped, if any
}

func (e *apiError) Error() string { return e.msg }
func (e *apiError) Unwrap() error { return e.err }

func badRequest(format string, args ...any) error {
	return &apiError{status: http.StatusBadRequest, code: runwire.CodeInvalid, msg: fmt.Sprintf(format, args...), err: meta.ErrInvalid}
}

func forbidden(p Principal, need meta.KeyScope, what string) error {
	return &apiError{status: http.StatusForbidden, code: CodeForbidden,
		msg: fmt.Sprintf("key %s has scope %s; %s needs a key of scope %s (wsfs key create --scope %s)", p.ID(), p.Key.Scope, what, need, need)}
}

func tooLarge(what string, limit int64) error {
	return &apiError{status: http.StatusRequestEntityTooLarge, code: CodeTooLarge, limit: limit,
		msg: fmt.Sprintf("%s is over its limit of %s; send less (see the limits in /v1/openapi.json)", what, sizeText(limit))}
}

// sizeText prints a byte count as the limits are set: 1 MiB, 256 KiB.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// maxJSONBody bounds a JSON request body; a run's, which carries a script
// of up to runwire.MaxScript and inline stdin, has its own bound.
const maxJSONBody = 1 << 20

// decodeJSON reads a JSON request body into q: one JSON value of at most
// limit bytes, no unknown field, nothing after it. A body that does not
// come within the read timeout is cut off (a client sending a byte a
// second holds nothing but its own connection).
func decodeJSON(w http.ResponseWriter, r *http.Request, limit int64, q any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !isJSON(ct) {
		return &apiError{status: http.StatusUnsupportedMediaType, code: CodeUnsupportedMedia, err: meta.ErrInvalid,
			msg: fmt.Sprintf("the body is %s; send JSON (Content-Type: application/json)", ct)}
	}
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(bodyReadTimeout))
	b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return badRequest("reading the request body: %v", err)
	}
	if int64(len(b)) > limit {
		return tooLarge("the request body", limit)
	}
	return decodeJSONBytes(b, q)
}

// decodeJSONBytes decodes one JSON value strictly (the decoders' fuzz
// tests call it).
func decodeJSONBytes(b []byte, q any) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return badRequest("the request body is empty; send a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(q); err != nil {
		return badRequest("the request body is not what this endpoint takes: %s", jsonProblem(err))
	}
	if dec.More() {
		return badRequest("the request body holds more than one JSON value")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return badRequest("the request body has text after its JSON value")
	}
	return nil
}

// jsonProblem words a JSON decoding error for the sender.
func jsonProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d (%v)", se.Offset, se)
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "the body"
		}
		return fmt.Sprintf("%s must be %s, not a JSON %s", field, jsonTypeName(te.Type.Kind().String()), te.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON ends too early"
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return strings.TrimPrefix(err.Error(), "json: ") + " (the fields are listed in /v1/openapi.json)"
	}
	return err.Error()
}

func jsonTypeName(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "struct", "map":
		return "an object"
	case "slice", "array":
		return "an array"
	case "int", "int64", "int32", "uint", "uint64", "uint32", "float64":
		return "a number"
	}
	return "a " + kind
}

func isJSON(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.TrimSpace(strings.ToLower(mt))
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// bodyReadTimeout bounds the read of a request body.
const bodyReadTimeout = 2 * time.Minute

// Duration is a length of time in JSON: a Go duration ("15s", "1m30s")
// or a number of seconds.
type Duration time.Duration

// MarshalJSON writes d as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration string or a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("%q is not a duration (15s, 2m, 1h30m)", s)
		}
		*d = Duration(v)
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("a duration is a string (15s) or a number of seconds, not %s", b)
	}
	if f > float64(1<<62)/float64(time.Second) || f < -float64(1<<62)/float64(time.Second) {
		return fmt.Errorf("%s seconds is out of range", b)
	}
	*d = Duration(f * float64(time.Second))
	return nil
}
