// Package api is the control-socket protocol between the wsfs server and its
// clients (the CLI verbs and, next, the wsfs run worker): JSON over HTTP/1.1
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
// (not_found, stale, invalid, exists, quota, ...) in the JSON error body and
// the client rebuilds an error that wraps the same meta sentinel (and a
// *meta.QuotaError), so errors.Is and errors.As work as they do in-process.
// Streams (cat, export) report a failure found after the first byte in the
// Wsfs-Error trailer, and the client's reader returns it instead of io.EOF:
// a corrupt blob never reads as a short, clean file.
//
// Mutations of a workspace that is live on the mount (restore, put, import,
// quota changes, rm) pause its autocommit, commit its pending edits first
// and reload the live tree after, so the mount and the history agree. Calls
// on one workspace are serialised by the server; calls on different
// workspaces run in parallel.
//
// wsfs run (run.go): the worker asks for a turn (POST /v1/run/start), which
// waits in the workspace's FIFO queue (bounded by the request's wait: a
// "busy: N commands ahead" error with code run_busy). With the turn the
// server holds the workspace's lock and autocommit, commits its pending
// mount edits, and answers the workspace's folder on the mount, its head
// (the snapshot's base), the agent's cwd and the workspace's quotas. The
// worker then streams its output in one request (POST /v1/run/stream:
// framed stdout/stderr, then the report); the server keeps it, stores it as
// an output blob when the command ends, snapshots the workspace (no change,
// no revision) and answers the revision, the output_ref and the quota
// refusals. A stream that breaks (the worker died) is snapshotted all the
// same and the turn passes on. /v1/run/ps lists the queues and
// /v1/run/logs streams a workspace's command output (following, with -f).
package api
