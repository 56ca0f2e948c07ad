// Package api is the control-socket protocol between the wsfs server and its
// clients (the CLI verbs): JSON over HTTP/1.1
// on a unix socket, with the server handlers (Server) and a Go client
// (Client).
//
// The server is the one process that holds meta.db (bbolt allows one). It
// writes its socket at $WSFS_HOME/wsfs.sock (mode 0600; a short path under
// /run or the temp folder, keyed by a hash of the home, when that path would
// not fit a unix socket address) and records itself in $WSFS_HOME/server.json
// (Info: PID, mount dir, socket, store URL, start time). A client finds the
// server through server.json, checks it with GET /v1/health (the readiness
// handshake, which also compares ProtocolVersion) and then calls one
// endpoint per history operation. *meta.DB and *Client both satisfy
// History, so a caller is written once and works with or without a server.
//
// Errors keep their class across the wire: the server puts a stable code
// (runwire's codes: not_found, stale, invalid, exists, quota, ...; runsvc
// classifies errors) in the JSON error body and
// the client rebuilds an error that wraps the same meta sentinel (and a
// *meta.QuotaError), so errors.Is and errors.As work as they do in-process.
// Streams (cat, export) report a failure found after the first byte in the
// Wsfs-Error trailer, and the client's reader returns it instead of io.EOF:
// a corrupt blob never reads as a short, clean file.
//
// Changes to a workspace (restore, put, import, quota changes, rm, the
// source of a fork) run as a turn of the workspace in the run service
// (runsvc.Service.Exclusive): after the commands queued before them, with
// the mount's autocommit paused and, where the history should show them
// first, the edits pending on the mount committed. The mount follows the
// change through meta's events. Calls on different workspaces run in
// parallel.
//
// The run service's side of the socket (runs.go): /v1/run/ps lists the
// queued and running commands, /v1/run/logs streams a workspace's command
// output (NDJSON events; following, with follow), and /v1/run runs a
// command for a client without descriptors to pass (stdin the request's
// body; its output and report an NDJSON stream; a client that goes away
// interrupts it). `wsfs run` itself talks to the run socket, which the
// server also listens on and hands to the run service (runsvc.Serve).
//
// # The network API
//
// Server.Listen serves the API (routes.go: one route table from which both
// the router and /v1/openapi.json are built) on a TCP address, over HTTP/1.1
// and HTTP/2 (TLS with a certificate; plain HTTP, h2c included, on loopback
// or with ListenOptions.Insecure). The control socket serves the same routes
// to the operator. A network request presents an API key (Authorization:
// Bearer wsfs_<id>_<secret>; keys are meta's records, stored hashed, made
// with `wsfs key create`), or what another Authenticator reads (the web
// console's session). Its Principal sees one tenant, or one workspace of it:
// another tenant's workspace answers 404 exactly as a missing one does, and
// the key's scope (read < run < admin) is checked after that (403). Each key
// is held to a request rate and a number of commands under way (Limits;
// 429 with Retry-After past them). Every request is logged once with slog:
// the key's ID (never its secret), the workspace, the operation (the route),
// the status, the size and the duration. Bodies are read before anything is
// held (a workspace's turn), within a deadline, so a client that sends a
// byte a second holds nothing but its own connection.
//
// # Locks
//
// Server.authMu guards the authenticators, Server.netMu the network
// listeners, limiter.mu the keys' budgets; each is held for memory work only
// and none is taken under another.
package api
