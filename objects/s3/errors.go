package s3

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/wsfs/wsfs/objects"
)

// Errors that classify a failure of the store itself (as opposed to one
// blob). Test them with errors.Is.
var (
	// ErrNoBucket: the bucket does not exist at the endpoint.
	ErrNoBucket = errors.New("s3: no such bucket")
	// ErrAccess: the server rejected the credentials or denied access.
	ErrAccess = errors.New("s3: access denied")
	// ErrUnreachable: the endpoint could not be reached (refused, unknown
	// host, TLS mismatch).
	ErrUnreachable = errors.New("s3: endpoint unreachable")
)

// authCodes are S3 error codes that retrying cannot fix.
var authCodes = map[string]bool{
	"AccessDenied":                 true,
	"InvalidAccessKeyId":           true,
	"SignatureDoesNotMatch":        true,
	"InvalidToken":                 true,
	"ExpiredToken":                 true,
	"TokenRefreshRequired":         true,
	"AuthorizationHeaderMalformed": true,
	"InvalidSecurity":              true,
	"AccountProblem":               true,
	"AllAccessDisabled":            true,
}

// transientCodes are S3 error codes worth another try.
var transientCodes = map[string]bool{
	"SlowDown":                   true,
	"RequestTimeout":             true,
	"InternalError":              true,
	"ServiceUnavailable":         true,
	"Throttling":                 true,
	"ThrottlingException":        true,
	"RequestLimitExceeded":       true,
	"TooManyRequests":            true,
	"OperationAborted":           true,
	"XMinioServerNotInitialized": true,
	// Another conditional write on the key was in flight; the retry gets
	// the answer (stored, or taken).
	"ConditionalRequestConflict": true,
	// Put verified the bytes before sending them, so a payload that does
	// not match its hash at the server was damaged on the way.
	"XAmzContentSHA256Mismatch": true,
	"BadDigest":                 true,
}

func s3Error(err error) (minio.ErrorResponse, bool) {
	var er minio.ErrorResponse
	if errors.As(err, &er) {
		return er, true
	}
	var per *minio.ErrorResponse
	if errors.As(err, &per) && per != nil {
		return *per, true
	}
	return er, false
}

// retryable reports whether err is a transient failure worth another try.
func retryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if er, ok := s3Error(err); ok {
		if authCodes[er.Code] || er.Code == minio.NoSuchBucket || er.Code == minio.NoSuchKey ||
			er.Code == minio.NotImplemented || er.StatusCode == http.StatusNotImplemented {
			return false
		}
		if transientCodes[er.Code] {
			return true
		}
		switch {
		case er.StatusCode >= 500, er.StatusCode == http.StatusTooManyRequests, er.StatusCode == http.StatusRequestTimeout:
			return true
		}
		return false
	}
	if isTLSError(err) {
		return false
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return dnsErr.IsTemporary || dnsErr.IsTimeout
	}
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ETIMEDOUT) || errors.Is(err, syscall.EHOSTUNREACH) ||
		errors.Is(err, syscall.ENETUNREACH) ||
		errors.Is(err, net.ErrClosed) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	return false
}

func isTLSError(err error) bool {
	var rh tls.RecordHeaderError
	var cv *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	return errors.As(err, &rh) || errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &hn) ||
		strings.Contains(err.Error(), "server gave HTTP response to HTTPS client")
}

// backoff waits before retry number n (1 for the first retry): the base
// delay doubled n-1 times, capped, drawn from [d/2, d] so that clients
// that failed together spread out. It returns early with ctx's error.
func (s *Store) backoff(ctx context.Context, n int) error {
	delay := s.cfg.RetryBaseDelay
	for i := 1; i < n && delay < s.cfg.RetryMaxDelay; i++ {
		delay *= 2
	}
	delay = min(delay, s.cfg.RetryMaxDelay)
	t := time.NewTimer(delay/2 + rand.N(delay/2+1))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// retry runs fn until it succeeds, fails for good, runs out of attempts or
// ctx ends, waiting with backoff between attempts.
func (s *Store) retry(ctx context.Context, fn func(context.Context) error) error {
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := fn(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if attempt >= s.cfg.MaxAttempts || !retryable(err) {
			return err
		}
		slog.Debug("s3: transient error, retrying", "store", s.name, "attempt", attempt, "err", err)
		if err := s.backoff(ctx, attempt); err != nil {
			return err
		}
	}
}

// describe turns a failure of op (on blob d, if not zero) into one line
// naming the store and what to do, wrapping the classification sentinels.
func (s *Store) describe(op string, d objects.Digest, err error) error {
	what := op
	if !d.IsZero() {
		what = op + " " + d.Short()
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("s3: %s on %s: %w", what, s.name, ctxErr(err))
	}
	credVars := fmt.Sprintf("%s/%s (or %s/%s)", EnvAccessKey, EnvSecretKey, EnvAWSAccessKey, EnvAWSSecretKey)
	if er, ok := s3Error(err); ok {
		switch {
		case er.Code == minio.NoSuchKey:
			return fmt.Errorf("s3: %s: blob not in %s: %w", what, s.name, objects.ErrNotFound)
		case er.Code == minio.NoSuchBucket:
			return classified(ErrNoBucket, "s3: bucket %s does not exist at %s: create it or fix --store", s.cfg.Bucket, s.endpoint)
		case er.Region != "" && er.Region != s.cfg.Region &&
			(er.Code == "AuthorizationHeaderMalformed" || er.Code == "PermanentRedirect" || er.Code == minio.InvalidRegion || er.StatusCode == 301):
			return classified(ErrAccess, "s3: %s on %s: the bucket is in region %s, not %s: add region=%s to --store",
				what, s.name, er.Region, s.cfg.Region, er.Region)
		case er.Code == "AccessDenied":
			return classified(ErrAccess, "s3: %s on %s: access denied: check the credentials in %s and their permissions on bucket %s",
				what, s.name, credVars, s.cfg.Bucket)
		case authCodes[er.Code]:
			return classified(ErrAccess, "s3: %s on %s: the server rejected the credentials (%s: %s): check %s",
				what, s.name, er.Code, oneLine(er.Message), credVars)
		case er.Code == "RequestTimeTooSkewed":
			return classified(ErrAccess, "s3: %s on %s: the server refused the request because this machine's clock is off: fix the time (NTP)", what, s.name)
		case er.Code == "XAmzContentSHA256Mismatch":
			return fmt.Errorf("s3: %s on %s: the server received bytes that do not hash to the digest, which were right when sent: check the network and any proxy on the way", what, s.name)
		}
		code := er.Code
		if code == "" {
			code = fmt.Sprint(er.StatusCode)
		}
		return fmt.Errorf("s3: %s on %s: %s: %s", what, s.name, code, oneLine(er.Message))
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // the request URL would only repeat the store's name
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return classified(ErrUnreachable, "s3: %s on %s: cannot reach %s (connection refused): start the server or fix the endpoint in --store",
			what, s.name, s.endpoint)
	case isTLSError(err):
		return classified(ErrUnreachable, "s3: %s on %s: TLS with %s failed (%s): if the server speaks plain HTTP use secure=false or an http:// endpoint, else fix its certificate",
			what, s.name, s.endpoint, oneLine(err.Error()))
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return classified(ErrUnreachable, "s3: %s on %s: cannot resolve %s (%s): fix the endpoint in --store",
			what, s.name, dnsErr.Name, oneLine(dnsErr.Err))
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return classified(ErrUnreachable, "s3: %s on %s: %s did not answer in time", what, s.name, s.endpoint)
	}
	return fmt.Errorf("s3: %s on %s: %s", what, s.name, oneLine(err.Error()))
}

// classifiedError is a message that wraps a sentinel without repeating it.
type classifiedError struct {
	msg  string
	kind error
}

func (e *classifiedError) Error() string { return e.msg }
func (e *classifiedError) Unwrap() error { return e.kind }

func classified(kind error, format string, args ...any) error {
	return &classifiedError{msg: fmt.Sprintf(format, args...), kind: kind}
}

// ctxErr returns the context error inside err, so that callers can test
// errors.Is(err, context.DeadlineExceeded) and read a short message.
func ctxErr(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return context.DeadlineExceeded
	}
	return context.Canceled
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}
