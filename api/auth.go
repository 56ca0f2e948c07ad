package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/wsfs/wsfs/meta"
)

// Principal is who makes a request: the holder of an API key, or the
// operator on the control socket (a unix socket of mode 0600, so whoever
// reaches it is the server's own user), who sees every tenant. The zero
// Principal is nobody: it sees nothing and may do nothing.
type Principal struct {
	// Key is the request's key; nil for the operator and for nobody.
	Key      *meta.Key
	operator bool
}

// Operator reports whether p is the control socket's operator.
func (p Principal) Operator() bool { return p.operator }

// ID names p in logs and revisions: the key's ID, "local" for the
// operator, "anonymous" for nobody.
func (p Principal) ID() string {
	switch {
	case p.operator:
		return "local"
	case p.Key != nil:
		return p.Key.ID
	}
	return "anonymous"
}

// Tenant is the tenant p is confined to ("" for the operator: every one).
func (p Principal) Tenant() string {
	if p.Key == nil {
		return ""
	}
	return p.Key.Tenant
}

// Sees reports whether p reaches workspace ws (a valid name).
func (p Principal) Sees(ws string) bool { return p.operator || p.Key != nil && p.Key.Sees(ws) }

// Allows reports whether p may do what needs scope need.
func (p Principal) Allows(need meta.KeyScope) bool {
	return p.operator || p.Key != nil && p.Key.Scope.Allows(need)
}

// An Authenticator finds the key a request presents. The API reads bearer
// keys (Authorization: Bearer wsfs_…); the web console adds its session
// (a session stands for the key it was opened with, and checks its CSRF
// token itself). found is false when the request presents no credential
// of this kind; err is a credential presented and refused (it should wrap
// meta.ErrKeyRefused).
type Authenticator interface {
	Authenticate(r *http.Request) (key meta.Key, found bool, err error)
}

// bearer reads Authorization: Bearer <key>.
type bearer struct{ db *meta.DB }

func (b bearer) Authenticate(r *http.Request) (meta.Key, bool, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return meta.Key{}, false, nil
	}
	scheme, token, _ := strings.Cut(h, " ")
	if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return meta.Key{}, true, fmt.Errorf("%w: the Authorization header must read Bearer <key>", meta.ErrKeyRefused)
	}
	k, err := b.db.Authenticate(r.Context(), strings.TrimSpace(token))
	return k, true, err
}

// Limits bound what one key may ask of the server. A key's own Rate and
// MaxRuns (wsfs key create --rate, --max-runs) override them.
type Limits struct {
	// Rate is the requests a second a key may make on average, Burst how
	// many it may make at once above that.
	Rate  float64
	Burst int
	// MaxRuns is how many commands a key may have queued or running at
	// once.
	MaxRuns int
}

// DefaultLimits are a key's limits unless the server or the key says
// otherwise.
var DefaultLimits = Limits{Rate: 50, Burst: 100, MaxRuns: 8}

// limiter holds each key's request budget and its commands under way.
type limiter struct {
	def Limits

	mu    sync.Mutex
	rates map[string]*rate.Limiter
	runs  map[string]int
}

func newLimiter(l Limits) *limiter {
	if l.Rate <= 0 {
		l.Rate = DefaultLimits.Rate
	}
	if l.Burst <= 0 {
		l.Burst = max(DefaultLimits.Burst, int(math.Ceil(l.Rate)))
	}
	if l.MaxRuns <= 0 {
		l.MaxRuns = DefaultLimits.MaxRuns
	}
	return &limiter{def: l, rates: map[string]*rate.Limiter{}, runs: map[string]int{}}
}

// allow takes one request from k's budget, or says how long to wait.
func (l *limiter) allow(k *meta.Key) (ok bool, retry time.Duration, per float64) {
	r, burst := l.def.Rate, l.def.Burst
	if k.Rate > 0 {
		r, burst = k.Rate, max(1, int(math.Ceil(k.Rate*2)))
	}
	l.mu.Lock()
	lim := l.rates[k.ID]
	if lim == nil || lim.Limit() != rate.Limit(r) {
		lim = rate.NewLimiter(rate.Limit(r), burst)
		l.rates[k.ID] = lim
	}
	l.mu.Unlock()
	res := lim.Reserve()
	if d := res.Delay(); d > 0 {
		res.Cancel()
		return false, d, r
	}
	return true, 0, r
}

// reqInfo is what the request log records of a request, filled in as it
// is served.
type reqInfo struct {
	principal Principal
	op        string // the route's operation
	workspace string
}

type reqInfoKey struct{}

func infoOf(ctx context.Context) *reqInfo {
	if ri, ok := ctx.Value(reqInfoKey{}).(*reqInfo); ok {
		return ri
	}
	return &reqInfo{}
}

// principalOf is who makes the request.
func principalOf(ctx context.Context) Principal { return infoOf(ctx).principal }

// statusWriter records the status and size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(p []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(p)
	s.bytes += int64(n)
	return n, err
}

// Flush keeps streams (SSE, NDJSON) flowing through the wrapper.
func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// logged logs every request once it is answered: who (the key's ID,
// never a secret), the workspace, the operation, the status, the size
// and the duration. The network's requests log at Info, the control
// socket's (the CLI's own) at Debug.
func (s *Server) logged(level slog.Level, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ri := &reqInfo{}
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			op := ri.op
			if op == "" {
				op = r.Method + " (no route)"
			}
			s.log.Log(r.Context(), level, "api: request", "key", ri.principal.ID(), "workspace", ri.workspace, "op", op,
				"status", sw.status, "bytes", sw.bytes, "ms", time.Since(start).Milliseconds())
		}()
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), reqInfoKey{}, ri)))
	})
}

// authenticated lets through requests that present a valid key (to one
// of the server's authenticators), within the key's request rate; the
// others get 401 (no key, a bad, expired or revoked one) or 429 with
// Retry-After. Routes that need no key (health, the OpenAPI document)
// pass without one.
func (s *Server) authenticated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ri := infoOf(r.Context())
		var key meta.Key
		found := false
		for _, a := range s.authenticators() {
			k, ok, err := a.Authenticate(r)
			if err != nil {
				writeError(w, refusedKey(err))
				return
			}
			if ok {
				key, found = k, true
				break
			}
		}
		if !found {
			if _, pattern := s.rest.Handler(r); s.public[pattern] {
				next.ServeHTTP(w, r)
				return
			}
			writeError(w, &apiError{status: http.StatusUnauthorized, code: CodeUnauthorized,
				msg: "this request needs an API key: send Authorization: Bearer <key> (wsfs key create makes one; the CLI reads WSFS_KEY)"})
			return
		}
		ri.principal = Principal{Key: &key}
		if ok, retry, per := s.limits.allow(&key); !ok {
			writeError(w, &apiError{status: http.StatusTooManyRequests, code: CodeRateLimited, retryAfter: retry,
				msg: fmt.Sprintf("key %s made more than its %g requests a second; retry after %s", key.ID, per, retryAfterSeconds(retry))})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// operator marks the control socket's requests as the operator's.
func operator(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		infoOf(r.Context()).principal = Principal{operator: true}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) authenticators() []Authenticator {
	s.authMu.Lock()
	defer s.authMu.Unlock()
	return s.auth
}

// AddAuthenticator adds a way for requests to present a key, tried after
// the bearer key (the web console's session).
func (s *Server) AddAuthenticator(a Authenticator) {
	s.authMu.Lock()
	defer s.authMu.Unlock()
	s.auth = append(append([]Authenticator(nil), s.auth...), a)
}

// refusedKey is the 401 of a refused key: its code says why.
func refusedKey(err error) error {
	code := CodeUnauthorized
	switch {
	case errors.Is(err, meta.ErrKeyExpired):
		code = CodeKeyExpired
	case errors.Is(err, meta.ErrKeyRevoked):
		code = CodeKeyRevoked
	case !errors.Is(err, meta.ErrKeyRefused):
		return err // the database failed: not the key's fault
	}
	return &apiError{status: http.StatusUnauthorized, code: code, msg: err.Error(), err: err}
}

func retryAfterSeconds(d time.Duration) string {
	return fmt.Sprintf("%ds", int(math.Ceil(d.Seconds())))
}
