package runsvc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/runsvc/runwire"
)

// Mount is what the service needs of the mount (*fusefs.FS satisfies
// it): pause a workspace's autocommit, commit its pending edits, the
// workspace's folder, the snapshot after a command, and the writes its
// quotas refused.
type Mount interface {
	Hold(ws string) (release func())
	Flush(ctx context.Context, ws string) error
	Snapshot(ctx context.Context, ws string, base meta.RevNum, cwd string, info meta.CommitInfo) (meta.Revision, bool, error)
	WorkspaceDir(ws string) (string, error)
	Refusals(ws string) []*meta.QuotaError
}

// Config configures a Service.
type Config struct {
	DB *meta.DB
	// Mount is the live mount; nil serves no command (Exclusive still
	// serialises the server's changes).
	Mount Mount
	// Program is this program's executable (wsfs-core): the service
	// starts its workers as Program WorkerVerb.
	Program string
	// JSCache is js-exec's compilation cache (read-only to workers).
	JSCache string
	// Store is the object store's URL: a command meant for another one is
	// refused.
	Store string
	// MaxRunning bounds the commands that run at once, across workspaces
	// (0: DefaultMaxRunning); the others wait.
	MaxRunning int
	// MaxParked bounds the workers kept for their workspace's next
	// command (0: DefaultParked; negative: none).
	MaxParked int
	// Unconfined starts workers without Landlock (WSFS_NO_CONFINE, for
	// debugging).
	Unconfined bool
	Logger     *slog.Logger
}

// DefaultMaxRunning is how many commands run at once by default.
const DefaultMaxRunning = 16

// Service runs agents' commands: it owns each one from the job to the
// report (see the package doc).
type Service struct {
	cfg   Config
	log   *slog.Logger
	pool  *pool
	slots chan struct{} // one per running command (MaxRunning)

	mu        sync.Mutex
	sessions  map[string]*session
	runs      map[string]*Run   // queued and running, by ID
	recent    map[string][]*Run // the last finished runs of each workspace
	followers map[string]map[*follower]bool
	users     map[int]string // user names by ID, for authors
	// pendingOutputs are the outputs reported but not stored yet.
	pendingOutputs map[objects.Digest]*Run
	closed         bool
	idleSince      time.Time // zero while a turn is queued or held
	closing        chan struct{}

	js jsPrep
	wg sync.WaitGroup // runs under way, their outputs stored
}

// New makes a service.
func New(cfg Config) (*Service, error) {
	if cfg.DB == nil {
		return nil, errors.New("runsvc: no database")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	if cfg.MaxRunning <= 0 {
		cfg.MaxRunning = DefaultMaxRunning
	}
	parked := cfg.MaxParked
	if parked == 0 {
		parked = DefaultParked
	}
	s := &Service{cfg: cfg, log: log, slots: make(chan struct{}, cfg.MaxRunning), sessions: map[string]*session{},
		runs: map[string]*Run{}, recent: map[string][]*Run{}, followers: map[string]map[*follower]bool{}, users: map[int]string{}, pendingOutputs: map[objects.Digest]*Run{},
		idleSince: time.Now(), closing: make(chan struct{})}
	if cfg.Mount != nil && cfg.Program != "" {
		s.pool = newPool([]string{cfg.Program, WorkerVerb}, cfg.JSCache, parked, cfg.Unconfined, log)
		s.js.init(s)
	}
	return s, nil
}

// Close stops taking commands and changes, waits for those under way
// (until ctx ends, then kills their workers) and ends the parked workers.
func (s *Service) Close(ctx context.Context) error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.closing)
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	if s.pool != nil {
		s.pool.close(ctx.Done())
	}
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("runsvc: commands still running at shutdown were stopped: %w", ctx.Err())
		<-done
	}
	return err
}

// IdleSince reports since when no command or change has been queued or
// running, or false while one is.
func (s *Service) IdleSince() (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.idleSince, !s.idleSince.IsZero()
}

// idleChanged updates idleSince after a session came or went. The caller
// holds s.mu.
func (s *Service) idleChanged() {
	switch {
	case len(s.sessions) > 0:
		s.idleSince = time.Time{}
	case s.idleSince.IsZero():
		s.idleSince = time.Now()
	}
}

// Job is a command to run.
type Job struct {
	Workspace string
	Script    string
	// Cwd is the agent's folder to start in (/workspace or below); ""
	// is where the workspace's last command ended.
	Cwd string
	// Stdin is the command's standard input; nil reads as empty. An
	// *os.File is handed to the worker as it is.
	Stdin io.Reader
	// Stdout and Stderr receive the command's output as it comes (an
	// *os.File is handed to the worker, which writes it directly); nil
	// keeps it for the report, Logs and the stored output only.
	Stdout, Stderr io.Writer
	// Timeout is the command's wall time: zero is the workspace's
	// wall-time quota, more than it an error.
	Timeout time.Duration
	// Wait bounds the time in the workspace's queue: nil waits as long as
	// it takes, zero refuses at once when another command runs or waits.
	Wait *time.Duration
	// Author is who runs the command, recorded in its revision.
	Author string
	// Env holds KEY=VALUE for the caller's forwarded variables
	// (runwire.ForwardedEnv).
	Env []string
	// Tails puts the last bytes of stdout and stderr in the report.
	Tails bool
}

// Report is how a command ended.
type Report struct {
	Run        string      `json:"run"`
	ExitCode   int         `json:"exit_code"`
	Stdout     string      `json:"stdout"`
	Stderr     string      `json:"stderr"`
	Truncated  bool        `json:"truncated"`
	OutputRef  string      `json:"output_ref"`
	Revision   meta.RevNum `json:"revision"`
	Committed  bool        `json:"committed"`
	DurationMS int64       `json:"duration_ms"`
	LimitsHit  []string    `json:"limits_hit"`
	Refusals   []string    `json:"refusals"`
	// Signal names the signal that killed the command's worker.
	Signal string `json:"signal,omitempty"`
	// Message is a line for the caller (the worker was killed, the
	// snapshot failed).
	Message string `json:"message,omitempty"`
	// Error says the command ran but its result could not be recorded
	// (the snapshot failed): no revision was made.
	Error *runwire.Error `json:"error,omitempty"`
	// Quota holds the refusals as errors (limit, usage, path).
	Quota []*meta.QuotaError `json:"-"`
}

// Run is a submitted command.
type Run struct {
	ID        string
	Workspace string
	Script    string
	Author    string
	Queued    time.Time

	svc    *Service
	job    Job
	out    *output
	ctx    context.Context
	cancel context.CancelCauseFunc
	turn   *turn
	done   chan struct{}

	mu      sync.Mutex
	worker  *worker // while it runs
	cancels int
	started time.Time
	report  Report
	err     error
}

// errCancelled is the cause of a run cancelled before it ran.
var errCancelled = errors.New("cancelled")

// Submit validates a job and queues it on its workspace; the command runs
// in the background (Run.Wait returns its report). Submit's ctx bounds
// the validation only: cancel the command with Run.Cancel.
func (s *Service) Submit(ctx context.Context, j Job) (*Run, error) {
	name, err := meta.ParseWorkspace(j.Workspace)
	if err != nil {
		return nil, err
	}
	j.Workspace = name
	switch {
	case strings.TrimSpace(j.Script) == "":
		return nil, errorf(meta.ErrInvalid, "no script: give the command to run")
	case len(j.Script) > runwire.MaxScript:
		return nil, errorf(meta.ErrInvalid, "the script is %.1f MiB, over the %d MiB a script may have; pass data on stdin or put it in a file in the workspace",
			float64(len(j.Script))/(1<<20), runwire.MaxScript>>20)
	case j.Timeout < 0:
		return nil, errorf(meta.ErrInvalid, "a timeout of %s: a wall time must be positive", j.Timeout)
	case j.Cwd != "" && (path.Clean(j.Cwd) != agentRoot && !strings.HasPrefix(path.Clean(j.Cwd), agentRoot+"/")):
		return nil, errorf(meta.ErrInvalid, "the folder %s is outside %s", j.Cwd, agentRoot)
	}
	if s.pool == nil {
		return nil, errorf(meta.ErrInvalid, "this wsfs server has no mount, so it runs no command (wsfs mount DIR starts one that does)")
	}
	w, err := s.cfg.DB.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := checkTimeout(w, j.Timeout); err != nil {
		return nil, err
	}
	var idb [9]byte
	_, _ = rand.Read(idb[:])
	r := &Run{ID: hex.EncodeToString(idb[:]), Workspace: name, Script: j.Script, Author: j.Author, Queued: time.Now(),
		svc: s, job: j, out: newOutput(), done: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancelCause(context.Background())
	r.turn = &turn{run: r, since: r.Queued, granted: make(chan struct{})}
	// Queued now, so that the queue's order is the order of the Submit
	// calls.
	if err := s.enqueue(name, r.turn, j.Wait != nil && *j.Wait <= 0); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.runs[r.ID] = r
	s.wg.Add(1)
	s.mu.Unlock()
	go s.execute(r)
	return r, nil
}

// checkTimeout refuses a timeout above the workspace's wall-time limit.
func checkTimeout(w meta.Workspace, timeout time.Duration) error {
	if limit := w.Quotas.WallTime; limit > 0 && timeout > limit {
		return errorf(meta.ErrInvalid, "a timeout of %s is above the wall-time limit of %s of %s; raise the limit with wsfs quota %s set wall-time=%s",
			timeout, limit, w.Name, w.Name, timeout)
	}
	return nil
}

// Get returns a queued, running or recently finished run by ID.
func (s *Service) Get(id string) (*Run, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.runs[id]; ok {
		return r, true
	}
	for _, rs := range s.recent {
		for _, r := range rs {
			if r.ID == id {
				return r, true
			}
		}
	}
	return nil, false
}

// Wait waits for the command's end (or ctx's) and returns its report, or
// the error that kept it from running (busy, cancelled, the server
// stopping).
func (r *Run) Wait(ctx context.Context) (Report, error) {
	select {
	case <-r.done:
	case <-ctx.Done():
		return Report{}, ctx.Err()
	}
	return r.report, r.err
}

// Done is closed when the command has ended.
func (r *Run) Done() <-chan struct{} { return r.done }

// Running reports whether the command has started (and not ended).
func (r *Run) Running() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.worker != nil
}

// Cancel stops the command: one still queued leaves the queue; a running
// one is interrupted as Ctrl-C would (its changes so far are committed),
// and killed at the second Cancel.
func (r *Run) Cancel() {
	r.mu.Lock()
	w := r.worker
	r.cancels++
	r.mu.Unlock()
	if w != nil {
		w.interrupt()
		return
	}
	r.cancel(errCancelled)
}

func (r *Run) startEvent() Event {
	return Event{Run: r.ID, Workspace: r.Workspace, Time: r.Queued, Start: r.Script}
}

func (r *Run) endEvent() Event {
	code := r.report.ExitCode
	return Event{Run: r.ID, Workspace: r.Workspace, Time: time.Now(), End: &code}
}

func (r *Run) event(kind byte, p []byte) Event {
	ev := Event{Run: r.ID, Workspace: r.Workspace, Time: time.Now()}
	if kind == runwire.KindStderr {
		ev.Stderr = p
	} else {
		ev.Stdout = p
	}
	return ev
}

// outputDigest is the digest of the run's stored output.
func (r *Run) outputDigest() (d [32]byte, ok bool) {
	_, dg, ok := r.out.blob()
	return dg, ok
}

// maxRecent is how many finished runs of a workspace the service keeps
// in memory (for Logs and Get).
const maxRecent = 20

// execute takes the run through its turn and records its end.
func (s *Service) execute(r *Run) {
	defer s.wg.Done()
	rep, err := s.runTurn(r)
	s.mu.Lock()
	r.report, r.err = rep, err
	delete(s.runs, r.ID)
	if err == nil {
		s.recent[r.Workspace] = append(s.recent[r.Workspace], r)
		if n := len(s.recent[r.Workspace]); n > maxRecent {
			s.recent[r.Workspace] = s.recent[r.Workspace][n-maxRecent:]
		}
		s.publishLocked(r.Workspace, r.endEvent())
	}
	s.mu.Unlock()
	close(r.done)
	if err == nil {
		s.storeOutput(r)
	}
}

// Queue is a workspace's running and waiting commands and changes.
type Queue struct {
	Workspace string  `json:"workspace"`
	Running   *Entry  `json:"running,omitempty"`
	Waiting   []Entry `json:"waiting"`
}

// Entry is one command (or change made by the server) in a queue.
type Entry struct {
	Run    string    `json:"run,omitempty"` // "" for a change made by the server
	Script string    `json:"script"`
	Author string    `json:"author,omitempty"`
	Since  time.Time `json:"since"` // started, or queued
}

// Queues lists the running and waiting commands of every workspace that
// has some, by name.
func (s *Service) Queues() []Queue {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Queue{}
	for name, sess := range s.sessions {
		q := Queue{Workspace: name, Waiting: []Entry{}}
		for i, t := range sess.turns {
			e := Entry{Script: t.what, Since: t.since}
			if t.run != nil {
				e.Run, e.Script, e.Author = t.run.ID, t.run.Script, t.run.Author
			}
			granted := false
			select {
			case <-t.granted:
				granted = true
			default:
			}
			if i == 0 && granted {
				if t.run != nil {
					t.run.mu.Lock()
					if !t.run.started.IsZero() {
						e.Since = t.run.started
					}
					t.run.mu.Unlock()
				}
				q.Running = &e
				continue
			}
			q.Waiting = append(q.Waiting, e)
		}
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Workspace < out[j].Workspace })
	return out
}
