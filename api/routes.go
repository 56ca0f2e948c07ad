package api

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/wsfs/wsfs/meta"
)

// The API (/v1/…): one route table, from which the router is built and
// the OpenAPI document (/v1/openapi.json) is written, so that the two
// cannot tell different stories; TestOpenAPIMatchesRouter holds them
// together.

// route is one operation of the API.
type route struct {
	method, path string
	// scope is what a key needs ("": no key, a public route). Routes with
	// {tenant}/{name} in their path check first that the key sees the
	// workspace (404 otherwise, as for a workspace that does not exist),
	// then its scope (403).
	scope   meta.KeyScope
	id      string // the OpenAPI operationId
	summary string
	params  []param
	body    *content // the request body, if any
	resp    []answer // the answers besides the errors every route has
	h       http.HandlerFunc
}

// param documents a query parameter.
type param struct {
	name, typ, desc string // typ: string, integer, boolean
}

// content documents a body: its media type and, for JSON, a value whose
// Go type is the body's schema.
type content struct {
	media  string
	schema any
}

// answer documents one answer of a route.
type answer struct {
	status int
	desc   string
	body   []content
}

// Media types the API speaks.
const (
	mediaJSON   = "application/json"
	mediaOctet  = "application/octet-stream"
	mediaTar    = "application/x-tar"
	mediaSSE    = "text/event-stream"
	mediaNDJSON = "application/x-ndjson"
)

func jsonBody(v any) *content { return &content{media: mediaJSON, schema: v} }
func ok(desc string, v any) answer {
	return answer{status: 200, desc: desc, body: []content{{media: mediaJSON, schema: v}}}
}

// add registers rt.
func (s *Server) add(rt route) {
	pattern := rt.method + " " + rt.path
	s.routes = append(s.routes, rt)
	if rt.scope == "" {
		s.public[pattern] = true
	}
	s.rest.Handle(pattern, s.guard(rt))
}

// guard checks what rt needs of the request's principal before its
// handler runs, and names the operation in the request log.
func (s *Server) guard(rt route) http.Handler {
	op := rt.method + " " + rt.path
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ri := infoOf(r.Context())
		ri.op = op
		if rt.scope == "" {
			rt.h(w, r)
			return
		}
		p := ri.principal
		if t := r.PathValue("tenant"); t != "" || strings.Contains(rt.path, "{tenant}") {
			ws, err := meta.ParseWorkspace(t + "/" + r.PathValue("name"))
			if err != nil {
				writeError(w, err)
				return
			}
			ri.workspace = ws
			if !p.Sees(ws) {
				writeError(w, meta.WorkspaceNotFound(ws))
				return
			}
		}
		if !p.Allows(rt.scope) {
			writeError(w, forbidden(p, rt.scope, op))
			return
		}
		rt.h(w, r)
	})
}

// restHandler serves the API's routes: paths with . or .. segments are
// refused (the router would redirect them elsewhere), and requests no
// route takes get a JSON 404 or 405.
func (s *Server) restHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkURLPath(r.URL); err != nil {
			writeError(w, err)
			return
		}
		if _, pattern := s.rest.Handler(r); pattern == "" {
			var allowed []string
			for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
				r2 := r.Clone(r.Context())
				r2.Method = m
				if _, p := s.rest.Handler(r2); p != "" {
					allowed = append(allowed, m)
				}
			}
			if len(allowed) > 0 {
				w.Header().Set("Allow", strings.Join(allowed, ", "))
				writeError(w, &apiError{status: http.StatusMethodNotAllowed, code: CodeMethod, err: meta.ErrInvalid,
					msg: fmt.Sprintf("%s %s: this path takes %s", r.Method, r.URL.Path, strings.Join(allowed, ", "))})
				return
			}
			writeError(w, &apiError{status: http.StatusNotFound, code: CodeNoRoute, err: meta.ErrNotFound,
				msg: fmt.Sprintf("no endpoint %s %s; /v1/openapi.json lists them", r.Method, r.URL.Path)})
			return
		}
		s.rest.ServeHTTP(w, r)
	})
}

// checkURLPath refuses a path with "." or ".." segments or empty ones
// (but a trailing slash), encoded or not: a workspace path is given from
// the workspace's top, and nothing may climb out of it.
func checkURLPath(u *url.URL) error {
	segs := strings.Split(strings.TrimPrefix(u.Path, "/"), "/")
	for i, seg := range segs {
		switch {
		case seg == "." || seg == "..":
			return badRequest("the path %s holds a %q segment: give paths from the workspace's top, without . or ..", u.EscapedPath(), seg)
		case seg == "" && i < len(segs)-1:
			return badRequest("the path %s holds an empty segment (//): give paths from the workspace's top (a/b, not /a/b)", u.EscapedPath())
		}
	}
	return nil
}

// apiRoutes registers the API's routes.
func (s *Server) apiRoutes() {
	s.add(route{method: "GET", path: "/v1/health", id: "health", summary: "Whether the server answers, and its API version (no key needed)",
		resp: []answer{ok("the server answers", Health{})}, h: s.health})
	s.add(route{method: "GET", path: "/v1/whoami", scope: meta.ScopeRead, id: "whoami", summary: "The key this request presents: its tenant, workspace, scope and limits",
		resp: []answer{ok("the key", Whoami{})}, h: s.whoami})
	s.keyRoutes()
}

// Whoami is what GET /v1/whoami answers.
type Whoami struct {
	// Key is the request's key; null on the control socket (the operator).
	Key    *meta.Key `json:"key"`
	Tenant string    `json:"tenant,omitempty"`
	Scope  string    `json:"scope"`
	// Limits are the key's: requests a second, burst, commands at once.
	Limits Limits `json:"limits"`
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	h := Health{Protocol: ProtocolVersion, Version: s.cfg.Version, Started: s.started}
	if principalOf(r.Context()).Operator() {
		// Where the server runs is the operator's business only.
		h.PID, h.MountDir, h.Store, h.Shared = os.Getpid(), s.cfg.MountDir, s.cfg.Store, s.cfg.Shared
	}
	writeJSONBody(w, http.StatusOK, h)
}

func (s *Server) whoami(w http.ResponseWriter, r *http.Request) {
	p := principalOf(r.Context())
	out := Whoami{Key: p.Key, Tenant: p.Tenant(), Scope: string(meta.ScopeAdmin), Limits: s.limits.def}
	if p.Key != nil {
		out.Scope = string(p.Key.Scope)
		if p.Key.Rate > 0 {
			out.Limits.Rate, out.Limits.Burst = p.Key.Rate, max(1, int(p.Key.Rate*2))
		}
		if p.Key.MaxRuns > 0 {
			out.Limits.MaxRuns = p.Key.MaxRuns
		}
	}
	writeJSONBody(w, http.StatusOK, out)
}

// KeyRequest makes a key (POST /v1/keys).
type KeyRequest struct {
	Name   string `json:"name,omitempty"`
	Tenant string `json:"tenant"`
	// Workspace confines the key to one workspace of its tenant.
	Workspace string `json:"workspace,omitempty"`
	// Scope: read, run or admin.
	Scope string `json:"scope"`
	// Expires is when the key stops working (RFC 3339); null: never.
	Expires *time.Time `json:"expires,omitempty"`
	// Rate and MaxRuns override the server's limits for this key.
	Rate    float64 `json:"rate,omitempty"`
	MaxRuns int     `json:"max_runs,omitempty"`
}

// NewKey is a key just made, with its secret: shown this once.
type NewKey struct {
	meta.Key
	// Secret is the key to present (Authorization: Bearer …, WSFS_KEY).
	Secret string `json:"secret"`
}

func (s *Server) keyRoutes() {
	s.add(route{method: "POST", path: "/v1/keys", scope: meta.ScopeAdmin, id: "createKey",
		summary: "Make an API key (an admin key makes keys of its own tenant, of any scope); its secret is in this answer only",
		body:    jsonBody(KeyRequest{}), resp: []answer{{status: 201, desc: "the key, with its secret", body: []content{{media: mediaJSON, schema: NewKey{}}}}},
		h: s.createKey})
	s.add(route{method: "GET", path: "/v1/keys", scope: meta.ScopeAdmin, id: "listKeys", summary: "The tenant's keys (every tenant's, on the control socket), revoked ones included",
		params: []param{{"tenant", "string", "only this tenant's keys (the operator)"}},
		resp:   []answer{ok("the keys, by tenant then age", []meta.Key{})}, h: s.listKeys})
	s.add(route{method: "DELETE", path: "/v1/keys/{id}", scope: meta.ScopeAdmin, id: "revokeKey", summary: "Revoke a key at once (its record stays, revoked)",
		resp: []answer{ok("the revoked key", meta.Key{})}, h: s.revokeKey})
}

func (s *Server) createKey(w http.ResponseWriter, r *http.Request) {
	var q KeyRequest
	if err := decodeJSON(w, r, maxJSONBody, &q); err != nil {
		writeError(w, err)
		return
	}
	p := principalOf(r.Context())
	tenant, err := meta.ParseTenant(q.Tenant)
	if err != nil {
		writeError(w, err)
		return
	}
	if !p.Operator() && tenant != p.Tenant() || p.Key != nil && p.Key.Workspace != "" && q.Workspace != p.Key.Workspace {
		writeError(w, &apiError{status: http.StatusForbidden, code: CodeForbidden,
			msg: fmt.Sprintf("key %s makes keys for what it sees only (tenant %s%s)", p.ID(), p.Tenant(), boundText(p))})
		return
	}
	spec := meta.KeySpec{Name: q.Name, Tenant: tenant, Workspace: q.Workspace, Scope: meta.KeyScope(q.Scope), CreatedBy: p.ID(),
		Rate: q.Rate, MaxRuns: q.MaxRuns}
	if q.Expires != nil {
		spec.Expires = *q.Expires
	}
	k, secret, err := s.cfg.DB.CreateKey(r.Context(), spec)
	if err != nil {
		writeError(w, err)
		return
	}
	s.log.Info("api: key created", "key", k.ID, "tenant", k.Tenant, "workspace", k.Workspace, "scope", k.Scope, "by", p.ID())
	writeJSONBody(w, http.StatusCreated, NewKey{Key: k, Secret: secret})
}

func boundText(p Principal) string {
	if p.Key != nil && p.Key.Workspace != "" {
		return ", workspace " + p.Key.Workspace
	}
	return ""
}

func (s *Server) listKeys(w http.ResponseWriter, r *http.Request) {
	p := principalOf(r.Context())
	tenant := r.URL.Query().Get("tenant")
	if !p.Operator() {
		if tenant != "" && tenant != p.Tenant() {
			writeJSONBody(w, http.StatusOK, []meta.Key{})
			return
		}
		tenant = p.Tenant()
	}
	keys, err := s.cfg.DB.Keys(r.Context(), tenant)
	if err != nil {
		writeError(w, err)
		return
	}
	out := []meta.Key{}
	for _, k := range keys {
		if p.Key == nil || p.Key.Workspace == "" || k.Workspace == p.Key.Workspace {
			out = append(out, k)
		}
	}
	writeJSONBody(w, http.StatusOK, out)
}

func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request) {
	p := principalOf(r.Context())
	id := r.PathValue("id")
	k, err := s.cfg.DB.GetKey(r.Context(), id)
	if err == nil && (!p.Operator() && k.Tenant != p.Tenant() || p.Key != nil && p.Key.Workspace != "" && k.Workspace != p.Key.Workspace) {
		err = fmt.Errorf("meta: key %s: %w", id, meta.ErrNotFound) // another tenant's: as if it did not exist
	}
	if err == nil {
		k, err = s.cfg.DB.RevokeKey(r.Context(), id)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	s.log.Info("api: key revoked", "key", k.ID, "tenant", k.Tenant, "by", p.ID())
	writeJSONBody(w, http.StatusOK, k)
}
