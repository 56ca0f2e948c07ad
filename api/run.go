package api

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
)

// The run protocol (wsfs run): the worker asks for a turn on a workspace
// (POST /v1/run/start, which waits in the workspace's FIFO queue), runs the
// command on the mount, and streams its output to the server in one
// request (POST /v1/run/stream?lease=ID) whose body is a sequence of frames
// ending with the report frame; the server answers that request with the
// snapshot's result. If the stream breaks (the worker died or was killed)
// the server snapshots what the command did anyway and frees the turn.

// RunMount is what the run endpoints need of the mount (*fusefs.FS
// satisfies it).
type RunMount interface {
	Live
	WorkspaceDir(ws string) (string, error)
	Snapshot(ctx context.Context, ws string, base meta.RevNum, cwd string, info meta.CommitInfo) (meta.Revision, bool, error)
	Refusals(ws string) []*meta.QuotaError
}

// ErrRunBusy reports a command that did not get its turn within --wait.
var ErrRunBusy = errors.New("api: busy")

// AgentRoot is where the workspace appears in the agent's view.
const AgentRoot = "/workspace"

// RunStartRequest asks for a turn on a workspace.
type RunStartRequest struct {
	Workspace string `json:"workspace"`
	Script    string `json:"script"`
	Author    string `json:"author,omitempty"`
	// Wait bounds the time in the queue; nil waits as long as it takes,
	// zero refuses at once when another command runs or waits.
	Wait *time.Duration `json:"wait_ns,omitempty"`
	// ScratchDir is the worker's /tmp folder (a wsfs-run-* folder directly
	// in the temp folder): the server removes it when the command ends,
	// since the confined worker cannot remove its own folder.
	ScratchDir string `json:"scratch_dir,omitempty"`
	// PrivateDir is the worker's own temporary folder (TMPDIR once
	// confined, outside the agent's view; a wsfs-run-* folder directly in
	// the temp folder too), removed with the scratch folder.
	PrivateDir string `json:"private_dir,omitempty"`
}

// RunTurn is what the worker gets with its turn.
type RunTurn struct {
	Lease     string        `json:"lease"`
	Workspace string        `json:"workspace"`
	Dir       string        `json:"dir"`  // the workspace's folder on the mount
	Base      meta.RevNum   `json:"base"` // the head the snapshot goes on top of
	Cwd       string        `json:"cwd"`  // agent path, /workspace/...
	Quotas    meta.Quotas   `json:"quotas"`
	Queued    time.Duration `json:"queued_ns"`
	// History lists the workspace's last commands (revision log), oldest
	// first, for the runner's `history`.
	// Only a script that names history gets it.
	History []string `json:"history,omitempty"`
}

// RunReport is what the worker tells the server at the end.
type RunReport struct {
	ExitCode  int           `json:"exit_code"`
	Cwd       string        `json:"cwd"` // agent path
	Duration  time.Duration `json:"duration_ns"`
	Truncated bool          `json:"truncated"`
	LimitsHit []string      `json:"limits_hit,omitempty"`
}

// RunResult is the server's answer once the command is snapshotted.
type RunResult struct {
	Revision  meta.RevNum  `json:"revision"`
	Committed bool         `json:"committed"`
	OutputRef string       `json:"output_ref,omitempty"`
	Refusals  []RunRefusal `json:"refusals,omitempty"`
}

// RunRefusal is a write the workspace's quotas refused during a command,
// with the server's text (limit, usage, path).
type RunRefusal struct {
	Text  string     `json:"text"`
	Quota *wireQuota `json:"quota,omitempty"`
}

// QuotaError returns the refusal as a *meta.QuotaError (nil if unknown).
func (r RunRefusal) QuotaError() *meta.QuotaError {
	if r.Quota == nil {
		return nil
	}
	return r.Quota.quotaError()
}

// runRefusals converts the mount's refusals, dropping repeats of the same
// text (one write can be refused at open and again at close).
func runRefusals(rs []*meta.QuotaError) []RunRefusal {
	var out []RunRefusal
	seen := map[string]bool{}
	for _, r := range rs {
		text := r.Error()
		if seen[text] {
			continue
		}
		seen[text] = true
		out = append(out, RunRefusal{Text: text, Quota: quotaToWire(r)})
	}
	return out
}

// Output frame kinds.
const (
	FrameStdout = 'o'
	FrameStderr = 'e'
	frameReport = 'r'
)

// outputMagic starts a stored output blob; frames follow.
const outputMagic = "wsfs-out1\n"

// maxKeptOutput bounds the full output the server keeps for one command;
// past it the blob ends with a note.
const maxKeptOutput = 64 << 20

// maxLastOutput bounds the output kept in memory for the last command of
// a workspace (wsfs logs).
const maxLastOutput = 1 << 20

// leaseAttach bounds the time between a granted turn and its stream.
const leaseAttach = 30 * time.Second

// runQueues is the per-workspace FIFO of commands.
type runQueues struct {
	mu     sync.Mutex
	ws     map[string]*wsQueue
	leases map[string]*runLease
	// subs follow a workspace's commands (wsfs logs -f); last is the
	// newest finished command of each workspace.
	subs map[string]map[chan RunEvent]bool
	last map[string]*runLease
}

type wsQueue struct {
	running *runLease // nil when free (or a turn is being set up: busy set)
	busy    bool
	waiting []*runTicket
}

type runTicket struct {
	ready  chan struct{}
	script string
	since  time.Time
}

type runLease struct {
	q                                        *runQueues
	id, ws, script, author, scratch, private string
	base                                     meta.RevNum
	started                                  time.Time
	release                                  func()
	attach                                   *time.Timer
	once                                     sync.Once
	result                                   RunResult
	err                                      error

	exitCode int // set when finished

	outMu  sync.Mutex
	output bytes.Buffer
	cut    bool
}

func (s *Server) runMount() (RunMount, error) {
	if rm, ok := s.cfg.Mount.(RunMount); ok && rm != nil {
		return rm, nil
	}
	return nil, fmt.Errorf("api: this wsfs server has no mount; wsfs run needs one (wsfs mount DIR): %w", meta.ErrInvalid)
}

func (s *Server) runRoutes() {
	s.runs = &runQueues{ws: map[string]*wsQueue{}, leases: map[string]*runLease{},
		subs: map[string]map[chan RunEvent]bool{}, last: map[string]*runLease{}}
	handle(s, "POST /v1/run/start", s.runStart)
	s.mux.HandleFunc("POST /v1/run/stream", s.runStream)
	handle(s, "POST /v1/run/ps", func(ctx context.Context, _ empty) ([]RunQueue, error) { return s.runs.ps(), nil })
	s.mux.HandleFunc("POST /v1/run/logs", s.runLogs)
}

// runStart waits for the workspace's turn and sets it up.
func (s *Server) runStart(ctx context.Context, q RunStartRequest) (RunTurn, error) {
	rm, err := s.runMount()
	if err != nil {
		return RunTurn{}, err
	}
	name, err := meta.ParseWorkspace(q.Workspace)
	if err != nil {
		return RunTurn{}, err
	}
	if _, err := s.cfg.DB.Get(ctx, name); err != nil {
		return RunTurn{}, err
	}
	if q.ScratchDir != "" && !validScratch(q.ScratchDir) {
		return RunTurn{}, fmt.Errorf("api: run: scratch folder %s is not a wsfs-run-* folder of yours in %s: %w", q.ScratchDir, os.TempDir(), meta.ErrInvalid)
	}
	if q.PrivateDir != "" && !validScratch(q.PrivateDir) {
		return RunTurn{}, fmt.Errorf("api: run: private folder %s is not a wsfs-run-* folder of yours in %s: %w", q.PrivateDir, os.TempDir(), meta.ErrInvalid)
	}
	since := time.Now()
	if err := s.runs.take(ctx, name, q, since); err != nil {
		return RunTurn{}, err
	}
	turn, err := s.setUpTurn(ctx, rm, name, q, since)
	if err != nil {
		s.runs.pass(name)
		return RunTurn{}, err
	}
	return turn, nil
}

// take waits for name's turn (FIFO) within q.Wait.
func (r *runQueues) take(ctx context.Context, name string, q RunStartRequest, since time.Time) error {
	r.mu.Lock()
	wq := r.ws[name]
	if wq == nil {
		wq = &wsQueue{}
		r.ws[name] = wq
	}
	if !wq.busy && len(wq.waiting) == 0 {
		wq.busy = true
		r.mu.Unlock()
		return nil
	}
	ahead := len(wq.waiting) + 1
	if q.Wait != nil && *q.Wait <= 0 {
		r.mu.Unlock()
		return busyError(name, ahead, 0)
	}
	t := &runTicket{ready: make(chan struct{}), script: q.Script, since: since}
	wq.waiting = append(wq.waiting, t)
	r.mu.Unlock()

	var timeout <-chan time.Time
	if q.Wait != nil {
		tm := time.NewTimer(*q.Wait)
		defer tm.Stop()
		timeout = tm.C
	}
	var cause error
	select {
	case <-t.ready:
		return nil
	case <-timeout:
	case <-ctx.Done():
		cause = ctx.Err()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case <-t.ready:
		// Granted as we gave up: pass the turn on.
		r.passLocked(name)
	default:
		ahead = 0
		for i, w := range wq.waiting {
			if w == t {
				wq.waiting = append(wq.waiting[:i], wq.waiting[i+1:]...)
				break
			}
			ahead++
		}
		if !wq.busy {
			ahead-- // cannot happen while someone waits, kept for safety
		}
		ahead++ // the running command
	}
	if cause != nil {
		return fmt.Errorf("api: run on %s: gave up waiting for its turn: %w", name, cause)
	}
	return busyError(name, ahead, *q.Wait)
}

func busyError(name string, ahead int, waited time.Duration) error {
	cmds := "commands"
	if ahead == 1 {
		cmds = "command"
	}
	return fmt.Errorf("busy: %d %s ahead on %s (waited %s); retry later, or wait longer with --wait: %w", ahead, cmds, name, waited, ErrRunBusy)
}

// pass frees name's turn and gives it to the first waiter.
func (r *runQueues) pass(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.passLocked(name)
}

func (r *runQueues) passLocked(name string) {
	wq := r.ws[name]
	if wq == nil {
		return
	}
	wq.running = nil
	if len(wq.waiting) == 0 {
		wq.busy = false
		delete(r.ws, name)
		return
	}
	t := wq.waiting[0]
	wq.waiting = wq.waiting[1:]
	close(t.ready) // busy stays set: the turn moves to t
}

// setUpTurn pauses the workspace's autocommit, commits its pending edits
// and records the lease.
func (s *Server) setUpTurn(ctx context.Context, rm RunMount, name string, q RunStartRequest, since time.Time) (RunTurn, error) {
	unlock := s.lockWorkspace(name)
	unhold := rm.Hold(name)
	release := func() { unhold(); unlock() }
	if err := rm.Flush(ctx, name); err != nil {
		release()
		return RunTurn{}, fmt.Errorf("api: run: committing the pending edits of %s on the mount first: %w", name, err)
	}
	ws, err := s.cfg.DB.Get(ctx, name)
	if err != nil {
		release()
		return RunTurn{}, err
	}
	dir, err := rm.WorkspaceDir(name)
	if err != nil {
		release()
		return RunTurn{}, err
	}
	rm.Refusals(name) // drop refusals that happened before this command
	var idb [12]byte
	_, _ = rand.Read(idb[:])
	l := &runLease{q: s.runs, id: hex.EncodeToString(idb[:]), ws: name, script: q.Script, author: q.Author, scratch: q.ScratchDir, private: q.PrivateDir,
		base: ws.Head, started: time.Now(), release: release}
	s.runs.mu.Lock()
	s.runs.leases[l.id] = l
	if wq := s.runs.ws[name]; wq != nil {
		wq.running = l
	}
	s.runs.publishLocked(name, RunEvent{Start: q.Script})
	s.runs.mu.Unlock()
	l.attach = time.AfterFunc(leaseAttach, func() {
		s.log.Warn("api: run: the worker never streamed its command; snapshotting and freeing the turn", "workspace", name, "lease", l.id)
		s.finishRun(l, nil)
	})
	turn := RunTurn{Lease: l.id, Workspace: name, Dir: dir, Base: ws.Head, Cwd: agentCwd(ws.HeadCwd), Quotas: ws.Quotas,
		Queued: time.Since(since)}
	// Reading the log costs every command; like bash, whose scripts keep
	// no history, only a command line that names history gets it.
	if strings.Contains(q.Script, "history") {
		turn.History = s.runHistory(ctx, name)
	}
	return turn, nil
}

// maxRunHistory is how many revisions `history` looks back.
const maxRunHistory = 100

// runHistory lists the commands of the workspace's last revisions, oldest
// first, leaving out the first revision (create or fork), mount edits and
// wsfs verbs: they are not commands an agent typed. Read-only commands
// make no revision, so they are absent.
func (s *Server) runHistory(ctx context.Context, name string) []string {
	revs, err := s.cfg.DB.Log(ctx, name, meta.LogOptions{Limit: maxRunHistory})
	if err != nil {
		s.log.Warn("api: run: reading the history for the command failed", "workspace", name, "err", err)
		return nil
	}
	var out []string
	for i := len(revs) - 1; i >= 0; i-- {
		c := revs[i].Command
		if revs[i].N == 1 || c == "" || strings.HasPrefix(c, "(") || strings.HasPrefix(c, "wsfs ") {
			continue
		}
		out = append(out, c)
	}
	return out
}

func agentCwd(wsCwd string) string {
	if wsCwd == "" || wsCwd == "/" {
		return AgentRoot
	}
	return AgentRoot + "/" + strings.TrimPrefix(wsCwd, "/")
}

// workspaceCwd maps an agent cwd to the workspace-relative one; outside
// the workspace (/tmp) it keeps old.
func workspaceCwd(agent, prev string) string {
	switch {
	case agent == AgentRoot:
		return "/"
	case strings.HasPrefix(agent, AgentRoot+"/"):
		return strings.TrimPrefix(agent, AgentRoot)
	}
	return prev
}

func validScratch(p string) bool {
	if !filepath.IsAbs(p) || filepath.Dir(p) != filepath.Clean(os.TempDir()) || !strings.HasPrefix(filepath.Base(p), "wsfs-run-") {
		return false
	}
	fi, err := os.Lstat(p)
	if err != nil || !fi.IsDir() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// runStream receives a command's output and report, then snapshots.
func (s *Server) runStream(w http.ResponseWriter, r *http.Request) {
	s.runs.mu.Lock()
	l := s.runs.leases[r.URL.Query().Get("lease")]
	s.runs.mu.Unlock()
	if l == nil {
		writeError(w, fmt.Errorf("api: run: no such lease (the command ended or its turn expired): %w", meta.ErrNotFound))
		return
	}
	if !l.attach.Stop() {
		writeError(w, fmt.Errorf("api: run: the lease of this command expired: %w", meta.ErrNotFound))
		return
	}
	if ws, err := s.cfg.DB.Get(r.Context(), l.ws); err == nil {
		wall := ws.Quotas.WallTime
		if wall <= 0 {
			wall = 15 * time.Second
		}
		// A worker that hangs with its connection open must not hold the
		// workspace for ever.
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(2*wall + time.Minute))
	}
	report, err := l.readFrames(bufio.NewReader(r.Body))
	if err != nil {
		s.log.Warn("api: run: the worker's stream broke; committing what the command did", "workspace", l.ws, "err", err)
	}
	res, ferr := s.finishRun(l, report)
	reply(w, res, ferr)
}

// readFrames keeps the output frames and returns the report.
func (l *runLease) readFrames(br *bufio.Reader) (*RunReport, error) {
	var hdr [5]byte
	for {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			return nil, fmt.Errorf("api: run: the stream ended before the report: %w", err)
		}
		n := binary.BigEndian.Uint32(hdr[1:])
		if n > 16<<20 {
			return nil, fmt.Errorf("api: run: frame of %d bytes: %w", n, meta.ErrInvalid)
		}
		buf := make([]byte, n)
		if _, err := io.ReadFull(br, buf); err != nil {
			return nil, fmt.Errorf("api: run: a frame was cut: %w", err)
		}
		switch hdr[0] {
		case FrameStdout, FrameStderr:
			l.keep(hdr[0], buf)
		case frameReport:
			var rep RunReport
			if err := json.Unmarshal(buf, &rep); err != nil {
				return nil, fmt.Errorf("api: run: bad report: %v: %w", err, meta.ErrInvalid)
			}
			return &rep, nil
		default:
			return nil, fmt.Errorf("api: run: unknown frame %q: %w", hdr[0], meta.ErrInvalid)
		}
	}
}

func (l *runLease) keep(kind byte, p []byte) {
	if len(p) == 0 {
		return
	}
	l.q.mu.Lock()
	defer l.q.mu.Unlock()
	l.outMu.Lock()
	defer l.outMu.Unlock()
	if l.cut {
		return
	}
	ev := RunEvent{Stdout: p}
	if kind == FrameStderr {
		ev = RunEvent{Stderr: p}
	}
	l.q.publishLocked(l.ws, ev)
	if l.output.Len()+len(p) > maxKeptOutput {
		l.cut = true
		note := fmt.Sprintf("wsfs: the output passed %d MiB; the rest was not kept\n", maxKeptOutput>>20)
		appendFrame(&l.output, FrameStderr, []byte(note))
		return
	}
	appendFrame(&l.output, kind, p)
}

func appendFrame(b *bytes.Buffer, kind byte, p []byte) {
	var hdr [5]byte
	hdr[0] = kind
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(p)))
	b.Write(hdr[:])
	b.Write(p)
}

// finishRun snapshots the command's changes (once), stores its output and
// frees the turn. A nil report means the worker was lost.
func (s *Server) finishRun(l *runLease, rep *RunReport) (RunResult, error) {
	l.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownSnapshot)
		defer cancel()
		rm, _ := s.runMount()
		info := meta.CommitInfo{Command: l.script, Author: l.author}
		prevCwd := "/"
		if ws, err := s.cfg.DB.Get(ctx, l.ws); err == nil {
			prevCwd = ws.HeadCwd
		}
		cwd := prevCwd
		if rep != nil {
			info.ExitCode, info.Duration = rep.ExitCode, rep.Duration
			cwd = workspaceCwd(rep.Cwd, prevCwd)
		} else {
			info.ExitCode, info.Duration = -1, time.Since(l.started)
			l.keep(FrameStderr, []byte("wsfs: the worker was lost before the command ended; what it did so far is committed\n"))
		}
		l.exitCode = info.ExitCode
		l.outMu.Lock()
		out := append([]byte(outputMagic), l.output.Bytes()...)
		hasOutput := l.output.Len() > 0
		l.outMu.Unlock()
		if hasOutput {
			if d, err := s.cfg.DB.PutOutput(ctx, l.ws, out); err != nil {
				s.log.Error("api: run: storing the command's output failed", "workspace", l.ws, "err", err)
			} else {
				l.result.OutputRef = d.String()
				s.recordOutput(l.ws, d)
			}
		}
		rev, committed, err := rm.Snapshot(ctx, l.ws, l.base, cwd, info)
		if err != nil {
			l.err = fmt.Errorf("api: run: snapshotting %s after the command: %w", l.ws, err)
			s.log.Error("api: run: the command's snapshot failed; its changes stay on the mount for the next commit", "workspace", l.ws, "base", l.base, "err", err)
		} else {
			l.result.Revision, l.result.Committed = rev.N, committed
		}
		l.result.Refusals = runRefusals(rm.Refusals(l.ws))
		l.outMu.Lock()
		if l.output.Len() > maxLastOutput {
			// wsfs logs shows the last command of each workspace: keep a
			// pointer to a large output rather than the output itself.
			n := l.output.Len()
			l.output.Reset()
			appendFrame(&l.output, FrameStderr, fmt.Appendf(nil, "wsfs: %d bytes of output; wsfs output %s prints them\n", n, l.result.OutputRef))
		}
		l.outMu.Unlock()
		l.release()
		if l.private != "" && validScratch(l.private) {
			os.RemoveAll(l.private)
		}
		if l.scratch != "" && validScratch(l.scratch) {
			os.RemoveAll(l.scratch)
		}
		s.runs.mu.Lock()
		delete(s.runs.leases, l.id)
		code := info.ExitCode
		s.runs.publishLocked(l.ws, RunEvent{End: &code})
		s.runs.last[l.ws] = l
		s.runs.passLocked(l.ws)
		s.runs.mu.Unlock()
	})
	return l.result, l.err
}

// recordOutput references a command's output blob in meta after the
// caller has its answer: the record costs a database sync, and gc's grace
// period keeps the young blob meanwhile. Close waits for pending records.
func (s *Server) recordOutput(ws string, d objects.Digest) {
	s.records.Add(1)
	go func() {
		defer s.records.Done()
		ctx, cancel := context.WithTimeout(context.Background(), shutdownSnapshot)
		defer cancel()
		if err := s.cfg.DB.RecordOutput(ctx, ws, d); err != nil {
			// Unreferenced, gc collects it after its grace period.
			s.log.Error("api: run: recording the command's output failed", "workspace", ws, "output", d, "err", err)
		}
	}()
}

// shutdownSnapshot bounds the snapshot and output store of one command.
const shutdownSnapshot = 2 * time.Minute

// DecodeOutput writes a stored output blob's streams to stdout and stderr.
func DecodeOutput(r io.Reader, stdout, stderr io.Writer) error {
	br := bufio.NewReader(r)
	magic := make([]byte, len(outputMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != outputMagic {
		return fmt.Errorf("api: this blob is not a command's output: %w", meta.ErrInvalid)
	}
	var hdr [5]byte
	for {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("api: output blob cut: %w", err)
		}
		n := int64(binary.BigEndian.Uint32(hdr[1:]))
		w := stdout
		if hdr[0] == FrameStderr {
			w = stderr
		}
		if _, err := io.CopyN(w, br, n); err != nil {
			return fmt.Errorf("api: output blob: %w", err)
		}
	}
}

// RunEvent is one event of `wsfs logs`: a command starts, writes, ends.
type RunEvent struct {
	Start  string `json:"start,omitempty"` // the script
	Stdout []byte `json:"stdout,omitempty"`
	Stderr []byte `json:"stderr,omitempty"`
	End    *int   `json:"end,omitempty"` // the exit code
	// Dropped says the follower was too slow and missed output.
	Dropped bool `json:"dropped,omitempty"`
}

// RunQueue is a workspace's running and waiting commands (wsfs ps).
type RunQueue struct {
	Workspace string     `json:"workspace"`
	Running   *RunEntry  `json:"running,omitempty"`
	Waiting   []RunEntry `json:"waiting"`
}

// RunEntry is one command in a queue.
type RunEntry struct {
	Script string    `json:"script"`
	Since  time.Time `json:"since"` // started, or queued
}

func (r *runQueues) ps() []RunQueue {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := []RunQueue{}
	for name, wq := range r.ws {
		q := RunQueue{Workspace: name, Waiting: []RunEntry{}}
		if wq.running != nil {
			q.Running = &RunEntry{Script: wq.running.script, Since: wq.running.started}
		}
		for _, t := range wq.waiting {
			q.Waiting = append(q.Waiting, RunEntry{Script: t.script, Since: t.since})
		}
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Workspace < out[j].Workspace })
	return out
}

// followBuffer is how many events a follower may lag behind.
const followBuffer = 1024

// publishLocked sends ev to the workspace's followers; one that lags
// too far is cut off (its channel closed after a Dropped event, if room).
func (r *runQueues) publishLocked(ws string, ev RunEvent) {
	for ch := range r.subs[ws] {
		select {
		case ch <- ev:
		default:
			delete(r.subs[ws], ch)
			close(ch)
		}
	}
}

// events returns the output so far of a lease as events.
func (l *runLease) events(end bool) []RunEvent {
	l.outMu.Lock()
	defer l.outMu.Unlock()
	evs := []RunEvent{{Start: l.script}}
	b := l.output.Bytes()
	for len(b) >= 5 {
		n := int(binary.BigEndian.Uint32(b[1:5]))
		if len(b) < 5+n {
			break
		}
		p := append([]byte(nil), b[5:5+n]...)
		if b[0] == FrameStderr {
			evs = append(evs, RunEvent{Stderr: p})
		} else {
			evs = append(evs, RunEvent{Stdout: p})
		}
		b = b[5+n:]
	}
	if end {
		code := l.exitCode
		evs = append(evs, RunEvent{End: &code})
	}
	return evs
}

type runLogsReq struct {
	Workspace string `json:"workspace"`
	Follow    bool   `json:"follow"`
}

// runLogs streams a workspace's command output as NDJSON events: the
// running command's output so far (or the last command's), then, when
// following, everything that comes.
func (s *Server) runLogs(w http.ResponseWriter, r *http.Request) {
	var q runLogsReq
	if !decodeRequest(w, r, &q) {
		return
	}
	name, err := meta.ParseWorkspace(q.Workspace)
	if err == nil {
		_, err = s.cfg.DB.Get(r.Context(), name)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	var ch chan RunEvent
	s.runs.mu.Lock()
	var initial []RunEvent
	if wq := s.runs.ws[name]; wq != nil && wq.running != nil {
		initial = wq.running.events(false)
	} else if l := s.runs.last[name]; l != nil {
		initial = l.events(true)
	}
	if q.Follow {
		ch = make(chan RunEvent, followBuffer)
		if s.runs.subs[name] == nil {
			s.runs.subs[name] = map[chan RunEvent]bool{}
		}
		s.runs.subs[name][ch] = true
	}
	s.runs.mu.Unlock()
	if ch != nil {
		defer func() {
			s.runs.mu.Lock()
			if s.runs.subs[name][ch] {
				delete(s.runs.subs[name], ch)
			}
			if len(s.runs.subs[name]) == 0 {
				delete(s.runs.subs, name)
			}
			s.runs.mu.Unlock()
		}()
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	flusher, _ := w.(http.Flusher)
	send := func(ev RunEvent) bool {
		if enc.Encode(ev) != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	for _, ev := range initial {
		if !send(ev) {
			return
		}
	}
	if ch == nil {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.shutdown:
			return
		case ev, ok := <-ch:
			if !ok {
				send(RunEvent{Dropped: true})
				return
			}
			if !send(ev) {
				return
			}
		}
	}
}
