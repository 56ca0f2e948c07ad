// Package runsvc is the run service: it owns an agent's command from the
// job to the report. Every way in calls it — the run socket that `wsfs
// run` (the small front, or wsfs-core) talks to, the control socket's
// handlers (ps, logs, a run over HTTP), and, next, the network API — and
// cmd only wires it.
//
//	wsfs run (front)        server process                                      worker process
//	────────────────        ─────────────────────────────────────────────       ───────────────────
//	parse flags once  ─J──► run socket ─► Submit ─► workspace's session ─┐      (started confined
//	 (typed job, +fds        (Serve)                (FIFO, --wait)       │       to the workspace:
//	  0,1,2 attached)                                                     ▼       Landlock from its
//	                                         Hold + Flush the mount (fusefs)     first instruction)
//	                                         choose a worker: parked, or start
//	                                         one confined ───────────────T──────► runner.Run on the
//	                                                                   (+fds)     mount, writing the
//	                         output log ◄─ stdout/stderr copies ───────o/e───────  caller's fds and
//	                         (Logs, followers)                                     copying to the server
//	                                         ◄──────────────────────────D────────  exit, cwd, limits
//	                                         Snapshot (a revision, or none),
//	   exit status   ◄─R──── report ◄──────── release, park; then store the output
//
//	J job · T turn · o/e output · D done · R report: runwire frames, one codec
//
// Four messages cross processes per command (J, T, D, R), plus the output
// copies; the worker never talks to the control socket and never re-parses
// anything: it receives a ready turn.
//
// # Sessions
//
// A workspace's session (session.go) is its FIFO of turns: commands and
// the server's own changes to it (put, import, restore, a settings
// change, the source of a fork: Exclusive). It is the one place that
// serialises a workspace; the turn at its head holds the mount's
// autocommit (Mount.Hold) and, for a command or a change that needs it,
// commits the edits pending on the mount first (Mount.Flush). The mount
// itself follows meta's events: a change made behind it is merged into
// its live tree, never reset, so no edit made on the mount is lost. With
// several servers on one bucket, the session is where a workspace's lease
// is held.
//
// # Workers
//
// A command runs in a worker: this program started with WorkerVerb for
// one workspace, confined to it by runner.StartConfined before its first
// instruction (no psx, no /proc/PID/task; see runner), with its own
// folder for TMPDIR and each command's /tmp. It stays, parked, for the
// workspace's next command unless the command left it unfit (pool.go),
// and exits when its socket closes (the server let it go, or died).
// js-exec's compiled QuickJS is shared through a cache folder that
// workers only read; an unconfined helper (PrepareVerb) fills it once per
// memory cap.
//
// # Streams and output
//
// The caller's stdin, stdout and stderr go to the worker as they are
// (SCM_RIGHTS), so a command reads its input and writes its output
// without the server in the way; the worker sends the server a copy of
// the output, batched, which the service keeps (up to 64 MiB), hashes as
// it comes (the output_ref), shows to followers (Logs) and stores as a
// blob, with meta's record of it, just after the report: the caller does
// not wait for the upload, and OpenOutput serves the output from memory
// until it is stored. A caller without descriptors (a network
// request) gives an io.Reader and io.Writers: the service feeds a pipe
// and writes the copies it receives.
//
// # Locks
//
// Service.mu guards the sessions, runs, followers and the idle time; it
// is taken last and held only for memory work (never across a worker's
// I/O, a flush or a snapshot). Run.mu (a run's worker and cancels) is
// taken under it only in Queues. The pool has its own mutex, taken
// without the service's.
package runsvc
