package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/wsfs/wsfs/internal/home"
	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/runsvc"
	"github.com/wsfs/wsfs/runsvc/runwire"
)

// Config configures a Server.
type Config struct {
	DB *meta.DB
	// Runs is the run service: it serialises the server's changes to a
	// workspace with its commands, runs the commands (the run socket, ps,
	// logs) and holds the mount. Nil for a server without one: changes
	// then go to meta directly.
	Runs *runsvc.Service
	// MountDir is the mount point ("" for a server without a mount).
	MountDir string
	// Home is the state folder: the socket and server.json go there.
	Home string
	// Store is the object store URL, recorded in server.json.
	Store   string
	Version string
	Logger  *slog.Logger
	// Shared marks a server started by `wsfs run` (not by wsfs mount),
	// which stops once idle: a wsfs mount may take its place.
	Shared bool
	// Limits bound each API key's requests and commands (zero fields:
	// DefaultLimits).
	Limits Limits
}

// Server serves the history API of one meta.DB on a unix socket.
type Server struct {
	cfg     Config
	log     *slog.Logger
	started time.Time
	mux     *http.ServeMux // the control socket's own endpoints
	rest    *http.ServeMux // the API (routes.go), on the socket and the network
	routes  []route
	public  map[string]bool // patterns of rest that need no key
	limits  *limiter
	http    *http.Server
	ln      net.Listener
	socket  string

	authMu sync.Mutex
	auth   []Authenticator

	netMu sync.Mutex
	nets  []*netListener // the network listeners (Listen)

	runLn   *net.UnixListener // the run socket
	runDone chan struct{}     // closed once the run socket stopped

	shutdownOnce sync.Once
	shutdown     chan struct{}
	// closing is closed when Close begins: streams that would run for
	// ever (wsfs logs -f) end, so that the calls in flight can finish.
	closing   chan struct{}
	closeOnce sync.Once
}

// NewServer makes a server for cfg; Start makes it listen.
func NewServer(cfg Config) *Server {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &Server{cfg: cfg, log: log, started: time.Now(), mux: http.NewServeMux(), rest: http.NewServeMux(), public: map[string]bool{},
		limits: newLimiter(cfg.Limits), shutdown: make(chan struct{}), closing: make(chan struct{})}
	s.auth = []Authenticator{bearer{db: cfg.DB}}
	s.socketRoutes()
	s.runRoutes()
	s.apiRoutes()
	// The control socket serves the API too, as the operator.
	s.mux.Handle("/v1/", operator(s.restHandler()))
	return s
}

// Handler returns the control socket's HTTP handler (for tests and
// embedding): the operator's, with no key asked.
func (s *Server) Handler() http.Handler { return s.logged(slog.LevelDebug, s.mux) }

// NetworkHandler returns the API as the network listeners serve it:
// every request logged, a key asked for (but on the public routes), each
// key within its limits.
func (s *Server) NetworkHandler() http.Handler {
	return s.logged(slog.LevelInfo, s.authenticated(s.restHandler()))
}

// ShutdownRequested is closed when a client asks the server to stop
// (wsfs umount); the owner of the server then unmounts and calls Close.
func (s *Server) ShutdownRequested() <-chan struct{} { return s.shutdown }

// Socket returns the path the server listens on (after Start).
func (s *Server) Socket() string { return s.socket }

// Start listens on the home's socket (mode 0600), records the server in
// server.json and serves in the background until Close. It refuses to
// start when another live server answers on the socket, and removes the
// socket of a dead one.
func (s *Server) Start(ctx context.Context) (Info, error) {
	if s.cfg.Home == "" || s.cfg.DB == nil {
		return Info{}, errors.New("api: server: no home or no database")
	}
	sock := home.Of(s.cfg.Home).ControlSocket()
	if c, err := DialSocket(ctx, sock); err == nil {
		h := c.Health()
		c.Close()
		return Info{}, fmt.Errorf("api: already served by PID %d at %s (socket %s)", h.PID, h.MountDir, sock)
	}
	if err := os.Remove(sock); err != nil && !errors.Is(err, os.ErrNotExist) {
		return Info{}, fmt.Errorf("api: removing the stale socket %s: %w", sock, err)
	}
	ln, err := listenPrivate(ctx, sock)
	if err != nil {
		return Info{}, err
	}
	s.ln, s.socket = ln, sock
	info := Info{PID: os.Getpid(), MountDir: s.cfg.MountDir, Socket: sock, Store: s.cfg.Store, Home: s.cfg.Home,
		Started: s.started, Protocol: ProtocolVersion, Version: s.cfg.Version, Shared: s.cfg.Shared}
	if err := writeInfo(s.cfg.Home, info); err != nil {
		ln.Close()
		os.Remove(sock)
		return Info{}, err
	}
	s.http = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	go func() {
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("api: serving the socket failed", "socket", sock, "err", err)
		}
	}()
	if s.cfg.Runs != nil {
		if err := s.startRunSocket(ctx); err != nil {
			s.http.Close()
			os.Remove(sock)
			os.Remove(home.Of(s.cfg.Home).Info())
			return Info{}, err
		}
	}
	s.log.Info("api: serving", "socket", sock, "pid", info.PID)
	return info, nil
}

// listenPrivate listens on a unix socket at sock that no other user can
// reach at any moment: it binds in a fresh 0700 folder beside sock, sets
// mode 0600, and only then renames the socket into place (binding at sock
// directly would expose it with the umask's mode until the chmod).
func listenPrivate(ctx context.Context, sock string) (net.Listener, error) {
	dir := filepath.Dir(sock)
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		return nil, fmt.Errorf("api: socket folder %s: %w", dir, err)
	}
	if int(st.Uid) != os.Getuid() || st.Mode&0o022 != 0 {
		return nil, fmt.Errorf("api: the socket folder %s is owned by uid %d with mode %o: another user could replace the socket; make it yours and not writable by others (chmod 700 %s), or set WSFS_HOME elsewhere",
			dir, st.Uid, st.Mode&0o777, dir)
	}
	tmpDir := filepath.Join(dir, fmt.Sprintf(".s%06d", rand.IntN(1_000_000)))
	if err := os.Mkdir(tmpDir, 0o700); err != nil {
		return nil, fmt.Errorf("api: preparing the socket %s: %w", sock, err)
	}
	defer os.RemoveAll(tmpDir)
	tmp := filepath.Join(tmpDir, "s")
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "unix", tmp)
	if err != nil {
		return nil, fmt.Errorf("api: listening on %s: %w", sock, err)
	}
	if ul, ok := ln.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(false) // Close removes sock itself
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("api: %w", err)
	}
	if err := os.Rename(tmp, sock); err != nil {
		ln.Close()
		return nil, fmt.Errorf("api: placing the socket at %s: %w", sock, err)
	}
	return ln, nil
}

// startRunSocket listens on the home's run socket for the run service.
func (s *Server) startRunSocket(ctx context.Context) error {
	path := home.Of(s.cfg.Home).RunSocket()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("api: run socket folder: %w", err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("api: removing the stale run socket %s: %w", path, err)
	}
	ln, err := listenPrivate(ctx, path)
	if err != nil {
		return err
	}
	s.runLn, s.runDone = ln.(*net.UnixListener), make(chan struct{})
	go func() {
		defer close(s.runDone)
		s.cfg.Runs.Serve(s.runLn)
	}()
	return nil
}

// Close stops accepting calls and commands, waits for the calls in flight
// (until ctx ends) and removes the sockets and server.json. The commands
// under way are the run service's to end (runsvc.Service.Close).
func (s *Server) Close(ctx context.Context) error {
	s.closeOnce.Do(func() { close(s.closing) })
	err := s.closeNetwork(ctx)
	if s.runLn != nil {
		s.runLn.Close()
		os.Remove(home.Of(s.cfg.Home).RunSocket())
	}
	if s.http != nil {
		if serr := s.http.Shutdown(ctx); serr != nil {
			s.http.Close()
			err = errors.Join(err, fmt.Errorf("api: calls still running at shutdown were cut: %w", serr))
		}
	}
	if s.socket != "" {
		os.Remove(s.socket)
	}
	if info, rerr := ReadInfo(s.cfg.Home); rerr == nil && info.PID == os.Getpid() {
		os.Remove(home.Of(s.cfg.Home).Info())
	}
	return err
}

// Handle adds an endpoint (pattern as http.ServeMux takes it, under
// "/v1/"). Call it before Start.
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// DB returns the database the server owns.
func (s *Server) DB() *meta.DB { return s.cfg.DB }

// touch runs fn, a change to workspace ws made behind the mount, as a
// turn of the workspace in the run service (after the commands queued
// before it, with the mount's autocommit paused), flushing the edits
// pending on the mount first when flush is set, so that they come before
// the change in the history. The mount follows the change itself (fusefs
// merges it into its live tree, keeping every edit made there meanwhile).
func (s *Server) touch(ctx context.Context, ws, what string, flush bool, fn func() error) error {
	name, err := meta.ParseWorkspace(ws)
	if err != nil {
		return err
	}
	if s.cfg.Runs == nil {
		return fn()
	}
	return s.cfg.Runs.Exclusive(ctx, name, what, flush, fn)
}

func (s *Server) socketRoutes() {
	db := s.cfg.DB
	s.mux.HandleFunc("GET /v1/health", func(w http.ResponseWriter, r *http.Request) {
		writeJSONBody(w, http.StatusOK, Health{Protocol: ProtocolVersion, Version: s.cfg.Version, PID: os.Getpid(),
			MountDir: s.cfg.MountDir, Store: s.cfg.Store, Started: s.started, Shared: s.cfg.Shared})
	})
	s.mux.HandleFunc("POST /v1/shutdown", func(w http.ResponseWriter, r *http.Request) {
		s.shutdownOnce.Do(func() { close(s.shutdown) })
		writeJSONBody(w, http.StatusOK, empty{})
	})
	handle(s, "POST /v1/create", func(ctx context.Context, q createReq) (ws meta.Workspace, err error) {
		return db.Create(ctx, q.Name, q.Options)
	})
	handle(s, "POST /v1/list", func(ctx context.Context, q listReq) ([]meta.Workspace, error) {
		return db.List(ctx, q.Prefix)
	})
	handle(s, "POST /v1/get", func(ctx context.Context, q nameReq) (meta.Workspace, error) {
		return db.Get(ctx, q.Name)
	})
	handle(s, "POST /v1/delete", func(ctx context.Context, q nameReq) (empty, error) {
		// Pending edits of a workspace being deleted are not worth a commit.
		return empty{}, s.touch(ctx, q.Name, "wsfs rm", false, func() error { return db.Delete(ctx, q.Name) })
	})
	handle(s, "POST /v1/update", func(ctx context.Context, q updateReq) (ws meta.Workspace, err error) {
		// A settings change leaves the tree alone: no flush needed.
		err = s.touch(ctx, q.Name, "wsfs quota", false, func() error {
			ws, err = db.Update(ctx, q.Name, q.Update)
			return err
		})
		return ws, err
	})
	handle(s, "POST /v1/log", func(ctx context.Context, q logReq) ([]wireRev, error) {
		revs, err := db.Log(ctx, q.Workspace, q.Options)
		return toWireRevs(revs), err
	})
	handle(s, "POST /v1/show", func(ctx context.Context, q refReq) (wireRev, error) {
		r, err := db.Show(ctx, q.Ref)
		return toWireRev(r), err
	})
	handle(s, "POST /v1/diff", func(ctx context.Context, q diffReq) ([]meta.FileDiff, error) {
		return db.Diff(ctx, q.A, q.B, q.Options)
	})
	handle(s, "POST /v1/restore", func(ctx context.Context, q restoreReq) (c commitResp, err error) {
		err = s.touch(ctx, q.Ref.Workspace, "wsfs restore", true, func() error {
			var r meta.Revision
			r, c.Committed, err = db.Restore(ctx, q.Ref, q.Info)
			c.Revision = toWireRev(r)
			return err
		})
		return c, err
	})
	handle(s, "POST /v1/fork", func(ctx context.Context, q forkReq) (ws meta.Workspace, err error) {
		// The fork starts from the source as it is on the mount.
		err = s.touch(ctx, q.From.Workspace, "wsfs fork", true, func() error {
			ws, err = db.Fork(ctx, q.From, q.Name, q.Options)
			return err
		})
		return ws, err
	})
	s.mux.HandleFunc("POST /v1/gc", func(w http.ResponseWriter, r *http.Request) {
		var q gcReq
		if !decodeRequest(w, r, &q) {
			return
		}
		withProgress(w, q.Progress, func(progress func(done, total int)) (any, error) {
			return db.GC(r.Context(), meta.GCOptions{Grace: time.Duration(q.Grace), Delete: q.Delete, Progress: progress})
		})
	})
	s.mux.HandleFunc("POST /v1/fsck", func(w http.ResponseWriter, r *http.Request) {
		var q fsckReq
		if !decodeRequest(w, r, &q) {
			return
		}
		withProgress(w, q.Progress, func(progress func(done, total int)) (any, error) {
			return db.Fsck(r.Context(), meta.FsckOptions{Quick: q.Quick, Progress: progress})
		})
	})
	s.mux.HandleFunc("POST /v1/cat", func(w http.ResponseWriter, r *http.Request) {
		var q catReq
		if !decodeRequest(w, r, &q) {
			return
		}
		rc, e, err := db.OpenFile(r.Context(), q.Ref, q.Path)
		if err != nil {
			writeError(w, err)
			return
		}
		defer rc.Close()
		eb, err := json.Marshal(e)
		if err != nil {
			writeError(w, err)
			return
		}
		w.Header().Set(headerEntry, base64.StdEncoding.EncodeToString(eb))
		s.stream(w, func(out io.Writer) error {
			_, err := io.Copy(out, rc)
			return err
		})
	})
	s.mux.HandleFunc("POST /v1/export", func(w http.ResponseWriter, r *http.Request) {
		var q refReq
		if !decodeRequest(w, r, &q) {
			return
		}
		s.stream(w, func(out io.Writer) error { return db.ExportTar(r.Context(), q.Ref, out) })
	})
	s.mux.HandleFunc("POST /v1/write", func(w http.ResponseWriter, r *http.Request) {
		var q writeReq
		if !decodeHeaderRequest(w, r, &q) {
			return
		}
		var c commitResp
		err := s.touch(r.Context(), q.Workspace, "wsfs put "+q.Path, true, func() (err error) {
			var rev meta.Revision
			rev, c.Committed, err = db.WriteFile(r.Context(), q.Workspace, q.Path, r.Body, q.Options)
			c.Revision = toWireRev(rev)
			return err
		})
		reply(w, c, err)
	})
	s.mux.HandleFunc("POST /v1/import", func(w http.ResponseWriter, r *http.Request) {
		var q importReq
		if !decodeHeaderRequest(w, r, &q) {
			return
		}
		var c commitResp
		err := s.touch(r.Context(), q.Workspace, "wsfs import", true, func() (err error) {
			var rev meta.Revision
			rev, c.Committed, err = db.ImportTar(r.Context(), q.Workspace, r.Body, q.Options)
			c.Revision = toWireRev(rev)
			return err
		})
		reply(w, c, err)
	})
}

// progressEvery throttles progress events.
const progressEvery = 100 * time.Millisecond

// withProgress runs a long call. Without streaming it is an ordinary JSON
// reply; with it, the reply is NDJSON: progress events (throttled; the last
// one always sent), then the result or the error.
func withProgress(w http.ResponseWriter, stream bool, run func(progress func(done, total int)) (any, error)) {
	if !stream {
		resp, err := run(nil)
		reply(w, resp, err)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	flusher, _ := w.(http.Flusher)
	send := func(ev event) {
		if enc.Encode(ev) == nil && flusher != nil {
			flusher.Flush()
		}
	}
	var last time.Time
	var held *[2]int // the newest progress not sent yet
	progress := func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(last) < progressEvery {
			held = &[2]int{done, total}
			return
		}
		last, held = time.Now(), nil
		send(event{Progress: &[2]int{done, total}})
	}
	resp, err := run(progress)
	mu.Lock()
	defer mu.Unlock()
	if held != nil {
		send(event{Progress: held})
	}
	if err != nil {
		we := encodeError(err)
		send(event{Error: &we})
		return
	}
	b, err := json.Marshal(resp)
	if err != nil {
		we := encodeError(fmt.Errorf("api: encoding the reply: %w", err))
		send(event{Error: &we})
		return
	}
	send(event{Result: b})
}

// handle registers a JSON endpoint.
func handle[Req, Resp any](s *Server, pattern string, fn func(context.Context, Req) (Resp, error)) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		var q Req
		if !decodeRequest(w, r, &q) {
			return
		}
		resp, err := fn(r.Context(), q)
		reply(w, resp, err)
	})
}

func reply(w http.ResponseWriter, resp any, err error) {
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSONBody(w, http.StatusOK, resp)
}

// maxRequestJSON bounds a JSON request body.
const maxRequestJSON = 1 << 20

func decodeRequest(w http.ResponseWriter, r *http.Request, q any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRequestJSON))
	if err := dec.Decode(q); err != nil {
		writeError(w, fmt.Errorf("api: bad request body for %s: %v: %w", r.URL.Path, err, meta.ErrInvalid))
		return false
	}
	return true
}

func decodeHeaderRequest(w http.ResponseWriter, r *http.Request, q any) bool {
	b, err := base64.StdEncoding.DecodeString(r.Header.Get(headerRequest))
	if err == nil {
		err = json.Unmarshal(b, q)
	}
	if err != nil {
		writeError(w, fmt.Errorf("api: bad %s header for %s: %v: %w", headerRequest, r.URL.Path, err, meta.ErrInvalid))
		return false
	}
	return true
}

// stream writes a body produced by fn. A failure before the first byte is
// an ordinary error reply; after it, the Wsfs-Error trailer carries it (the
// client turns it into the reader's error).
func (s *Server) stream(w http.ResponseWriter, fn func(io.Writer) error) {
	w.Header().Set("Trailer", trailerError)
	w.Header().Set("Content-Type", "application/octet-stream")
	sw := &startWriter{w: w}
	err := fn(sw)
	if err == nil {
		if !sw.started {
			w.WriteHeader(http.StatusOK)
		}
		return
	}
	if !sw.started {
		w.Header().Del("Trailer")
		writeError(w, err)
		return
	}
	b, _ := json.Marshal(encodeError(err))
	w.Header().Set(trailerError, base64.StdEncoding.EncodeToString(b))
}

type startWriter struct {
	w       http.ResponseWriter
	started bool
}

func (s *startWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if !s.started {
		s.started = true
		s.w.WriteHeader(http.StatusOK)
	}
	return s.w.Write(p)
}

func writeJSONBody(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b, _ = json.Marshal(wireError{Code: runwire.CodeInternal, Message: "api: encoding the reply: " + err.Error()})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func writeError(w http.ResponseWriter, err error) {
	we := encodeError(err)
	status := statusFor(we.Code)
	var ae *apiError
	if errors.As(err, &ae) {
		status = ae.status
		if ae.retryAfter > 0 {
			secs := int64(math.Ceil(ae.retryAfter.Seconds()))
			w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
			we.RetryAfter = secs
		}
		we.Limit = ae.limit
	}
	writeJSONBody(w, status, we)
}

func statusFor(code string) int {
	switch code {
	case runwire.CodeNotFound, runwire.CodeBlobNotFound:
		return http.StatusNotFound
	case runwire.CodeStale, runwire.CodeExists, runwire.CodeRunBusy:
		return http.StatusConflict
	case runwire.CodeInvalid:
		return http.StatusBadRequest
	case runwire.CodeQuota:
		return http.StatusForbidden
	case runwire.CodeInUse, runwire.CodeGCRunning, runwire.CodeBusy:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
