package runsvc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/runsvc/runwire"
)

// agentRoot is where the workspace appears in the agent's view.
const agentRoot = "/workspace"

// setupTimeout bounds the work of a turn outside the command: the flush
// before it, the snapshot and the stored output after it.
const setupTimeout = 2 * time.Minute

// killGrace is how long past its wall time a command's worker may take
// to report before it is killed.
const killGrace = 30 * time.Second

// runTurn takes r's turn on its workspace, runs the command in a worker
// and snapshots what it did.
func (s *Service) runTurn(r *Run) (Report, error) {
	ws := r.Workspace
	var tm timings
	tm.mark("start")
	defer func() { s.log.Debug("turn", "workspace", ws, "timings", tm.String()) }()
	if err := s.await(r.ctx, ws, r.turn, r.job.Wait); err != nil {
		if errors.Is(err, errCancelled) {
			return Report{}, errorf(ErrBusy, "the command on %s was cancelled before it started", ws)
		}
		return Report{}, err
	}
	defer s.release(ws, r.turn)
	select {
	case s.slots <- struct{}{}:
	case <-r.ctx.Done():
		return Report{}, errorf(ErrBusy, "the command on %s was cancelled before it started", ws)
	}
	defer func() { <-s.slots }()
	tm.mark("queued")

	m := s.cfg.Mount
	defer m.Hold(ws)()
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	if err := m.Flush(ctx, ws); err != nil {
		return Report{}, fmt.Errorf("committing the pending edits of %s on the mount before the command: %w", ws, err)
	}
	w, err := s.cfg.DB.Get(ctx, ws)
	if err != nil {
		return Report{}, err
	}
	if err := checkTimeout(w, r.job.Timeout); err != nil {
		return Report{}, err
	}
	dir, err := m.WorkspaceDir(ws)
	if err != nil {
		return Report{}, err
	}
	m.Refusals(ws) // those of before this command
	tm.mark("setup")
	t := s.turnFor(ctx, r, w, dir)
	if strings.Contains(r.Script, "js-exec") {
		s.js.ensure(ctx, int(w.Quotas.JSMemoryBytes))
	}
	files, direct, stop, err := s.streams(r)
	if err != nil {
		return Report{}, err
	}
	defer stop()
	t.Direct = direct

	r.mu.Lock()
	r.started = time.Now()
	r.mu.Unlock()
	wk, err := s.handTurn(dir, workerKey(w), t, files)
	if err != nil {
		return Report{}, err
	}
	tm.mark("handed")
	s.mu.Lock()
	s.publishLocked(ws, r.startEvent())
	s.mu.Unlock()
	r.mu.Lock()
	r.worker = wk
	cancels := r.cancels
	r.mu.Unlock()
	for range cancels {
		wk.interrupt() // cancelled while the turn was being set up
	}
	done, lost := s.collect(r, wk, t.WallTime)
	tm.mark("ran")
	r.mu.Lock()
	r.worker = nil
	r.mu.Unlock()

	rep := Report{Run: r.ID, ExitCode: done.ExitCode, Truncated: done.Truncated, LimitsHit: done.LimitsHit,
		Stdout: string(done.Stdout), Stderr: string(done.Stderr), DurationMS: done.Duration.Milliseconds()}
	if lost != "" {
		rep.ExitCode, rep.Signal = wk.exitStatus()
		rep.DurationMS = time.Since(r.started).Milliseconds()
		rep.Message = lost
		if rep.Signal != "" && rep.Signal != "SIGPIPE" { // a closed pipe ends a command quietly, as in a shell
			rep.Message = fmt.Sprintf("%s (killed by signal %d, %s); what the command did until then is committed", lost, rep.ExitCode-128, rep.Signal)
		} else if rep.Signal == "SIGPIPE" {
			rep.Message = ""
		}
		r.out.add(runwire.KindStderr, []byte("wsfs: "+rep.Message+"\n"))
	}
	if lost == "" && done.Again {
		s.pool.park(wk)
	} else {
		wk.release()
	}

	// The snapshot: what the command did becomes a revision (none when
	// nothing changed), on top of the head the command started from.
	ctx, cancel = context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	info := meta.CommitInfo{Command: r.Script, Author: r.Author, ExitCode: rep.ExitCode, Duration: time.Duration(rep.DurationMS) * time.Millisecond}
	cwd := w.HeadCwd
	if lost == "" {
		cwd = workspaceCwd(done.Cwd, w.HeadCwd)
	}
	rev, committed, serr := m.Snapshot(ctx, ws, w.Head, cwd, info)
	tm.mark("snapshot")
	if serr != nil {
		s.log.Error("the command's snapshot failed; its changes stay on the mount for the next commit", "workspace", ws, "base", w.Head, "err", serr)
		rep.Error = WireError(fmt.Errorf("the command ran (exit %d) but its snapshot failed: %w", rep.ExitCode, serr))
	} else {
		rep.Revision, rep.Committed = rev.N, committed
	}
	seen := map[string]bool{}
	for _, qe := range m.Refusals(ws) {
		if text := qe.Error(); !seen[text] {
			seen[text] = true
			rep.Refusals = append(rep.Refusals, text)
			rep.Quota = append(rep.Quota, qe)
		}
	}
	// The output's reference is its digest, known now: the blob is stored
	// once the caller has its report (storeOutput), and until then the
	// service serves it from memory (OpenOutput).
	if _, d, ok := r.out.blob(); ok {
		rep.OutputRef = d.String()
		s.mu.Lock()
		s.pendingOutputs[d] = r
		s.mu.Unlock()
	}
	return rep, nil
}

// timings are the moments of a turn, for the debug log.
type timings struct {
	names []string
	at    []time.Time
}

func (t *timings) mark(name string) {
	t.names = append(t.names, name)
	t.at = append(t.at, time.Now())
}

func (t *timings) String() string {
	var b strings.Builder
	for i := 1; i < len(t.at); i++ {
		fmt.Fprintf(&b, "%s %s ", t.names[i], t.at[i].Sub(t.at[i-1]).Round(10*time.Microsecond))
	}
	return strings.TrimSpace(b.String())
}

// turnFor is the turn a worker gets for r: the workspace's folder, its
// limits, the agent's folder, and the workspace's history when the script
// names it.
func (s *Service) turnFor(ctx context.Context, r *Run, w meta.Workspace, dir string) runwire.Turn {
	q := w.Quotas
	wall := q.WallTime
	if wall <= 0 {
		wall = meta.DefaultQuotas().WallTime
	}
	if r.job.Timeout > 0 {
		wall = r.job.Timeout
	}
	cwd := agentCwd(w.HeadCwd)
	if r.job.Cwd != "" {
		cwd = r.job.Cwd
	}
	t := runwire.Turn{Workspace: w.Name, Dir: dir, Cwd: cwd, Script: r.Script, Env: r.job.Env, WallTime: wall,
		MaxOutput: q.MaxOutputBytes, MaxVisible: q.MaxVisibleEntries, JSTime: q.JSTime, JSMemory: q.JSMemoryBytes,
		JSCache: s.cfg.JSCache, Tails: r.job.Tails}
	// Reading the log costs every command; like bash, whose scripts keep
	// no history, only a command line that names history gets it.
	if strings.Contains(r.Script, "history") {
		t.History = s.history(ctx, w.Name)
	}
	return t
}

// maxHistory is how many revisions `history` looks back.
const maxHistory = 100

// history lists the commands of the workspace's last revisions, oldest
// first, leaving out the first revision (create or fork), mount edits
// and wsfs verbs: they are not commands an agent typed. Read-only
// commands make no revision, so they are absent.
func (s *Service) history(ctx context.Context, ws string) []string {
	revs, err := s.cfg.DB.Log(ctx, ws, meta.LogOptions{Limit: maxHistory})
	if err != nil {
		s.log.Warn("runsvc: reading the history for the command failed", "workspace", ws, "err", err)
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

// workerKey is what a worker serves: a workspace incarnation with its
// settings. A worker's confinement holds the folder of the workspace it
// was started for, and its settings (js-exec's memory cap), so a
// workspace deleted and made again, or given new quotas, gets a fresh
// worker.
func workerKey(w meta.Workspace) string {
	return fmt.Sprintf("%s %s %d", w.Name, w.ID, w.SettingsSeq)
}

// handTurn gives t and the command's streams to the worker parked for
// key, or to a new one confined to dir.
func (s *Service) handTurn(dir, key string, t runwire.Turn, files [3]*os.File) (*worker, error) {
	if wk := s.pool.take(key); wk != nil {
		if err := wk.send(t, files); err == nil {
			return wk, nil
		}
		wk.release() // it died while parked: start another
	}
	name, _, _ := strings.Cut(key, " ")
	s.pool.forget(name + " ") // workers of the workspace's older settings
	wk, err := s.pool.start(dir, key)
	if err != nil {
		return nil, err
	}
	if err := wk.send(t, files); err != nil {
		wk.kill()
		wk.release()
		return nil, err
	}
	return wk, nil
}

// streams returns the three descriptors a worker gets for r's command,
// whether they are the caller's own (direct), and a function that ends
// what streams set up. Readers and writers that are not files go through
// pipes that the service feeds or that its frames fill.
func (s *Service) streams(r *Run) (files [3]*os.File, direct bool, stop func(), err error) {
	var closers []io.Closer
	stop = func() {
		for _, c := range closers {
			c.Close()
		}
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return files, false, stop, fmt.Errorf("runsvc: %w", err)
	}
	closers = append(closers, null)
	files = [3]*os.File{null, null, null}
	switch in := r.job.Stdin.(type) {
	case nil:
	case *os.File:
		files[0] = in
	default:
		pr, pw, err := os.Pipe()
		if err != nil {
			stop()
			return files, false, func() {}, fmt.Errorf("runsvc: %w", err)
		}
		closers = append(closers, pr)
		files[0] = pr
		go func() {
			// Ends when the input does, or when the worker lets go of the
			// pipe (EPIPE) after the command.
			_, _ = io.Copy(pw, in)
			pw.Close()
		}()
	}
	out, outOK := r.job.Stdout.(*os.File)
	errf, errOK := r.job.Stderr.(*os.File)
	if outOK && errOK {
		files[1], files[2] = out, errf
		direct = true
	}
	return files, direct, stop, nil
}

// collect reads what the worker says during r's command: its output,
// then its word that the command ended. lost says why that word never
// came (the worker died, or outlived the command's wall time).
func (s *Service) collect(r *Run, wk *worker, wall time.Duration) (done runwire.Done, lost string) {
	br := bufio.NewReaderSize(wk.conn, 256<<10)
	_ = wk.conn.SetReadDeadline(time.Now().Add(wall + killGrace))
	defer wk.conn.SetReadDeadline(time.Time{})
	// The output goes to the caller's writers from here, unless the worker
	// writes it to the caller's files itself.
	_, fileOut := r.job.Stdout.(*os.File)
	_, fileErr := r.job.Stderr.(*os.File)
	writeHere := !(fileOut && fileErr)
	for {
		body, err := runwire.ReadFrame(br)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				wk.kill()
				return done, fmt.Sprintf("the command did not end within its wall time of %s and its worker was killed", wall)
			}
			s.log.Warn("the command's worker stopped answering before its command ended", "workspace", r.Workspace, "pid", wk.cmd.Process.Pid, "err", err)
			return done, "the command's worker ended before the command did"
		}
		switch runwire.Kind(body) {
		case runwire.KindStdout, runwire.KindStderr:
			kind, p := body[0], body[1:]
			r.out.add(kind, p)
			if writeHere {
				w := r.job.Stdout
				if kind == runwire.KindStderr {
					w = r.job.Stderr
				}
				if w != nil {
					_, _ = w.Write(p)
				}
			}
			s.mu.Lock()
			s.publishLocked(r.Workspace, r.event(kind, p))
			s.mu.Unlock()
		case runwire.KindDone:
			d, err := runwire.ParseDone(body)
			if err != nil {
				wk.kill()
				return done, fmt.Sprintf("the command's worker said something the server does not understand (%v)", err)
			}
			return d, ""
		default:
			wk.kill()
			return done, fmt.Sprintf("the command's worker sent a frame of unknown kind %q", runwire.Kind(body))
		}
	}
}

// storeOutput stores r's output as a blob (with the reference object that
// lets recover find it again) and records it in meta, after the caller
// has its report; until then OpenOutput serves it from memory.
func (s *Service) storeOutput(r *Run) {
	b, d, ok := r.out.blob()
	if !ok {
		return
	}
	defer func() {
		s.mu.Lock()
		delete(s.pendingOutputs, d)
		s.mu.Unlock()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	rec := meta.Output{Run: r.ID, Command: r.Script, Started: r.started, ExitCode: r.report.ExitCode}
	if _, err := s.cfg.DB.StoreOutput(ctx, r.Workspace, b, rec); err != nil {
		// A blob stored but not recorded is collected by gc after its
		// grace period.
		s.log.Error("storing the command's output failed; wsfs output and wsfs logs cannot show it", "workspace", r.Workspace, "output", d, "err", err)
	}
}

// OpenOutput opens the stored output blob d (an output_ref): from memory
// while the command that wrote it has not stored it yet, else from the
// store.
func (s *Service) OpenOutput(ctx context.Context, d objects.Digest) (io.ReadCloser, error) {
	s.mu.Lock()
	r, pending := s.pendingOutputs[d]
	s.mu.Unlock()
	if pending {
		b, _, _ := r.out.blob()
		return io.NopCloser(bytes.NewReader(b)), nil
	}
	return s.cfg.DB.Store().Open(ctx, d, 0, -1)
}

func agentCwd(wsCwd string) string {
	if wsCwd == "" || wsCwd == "/" {
		return agentRoot
	}
	return agentRoot + "/" + strings.TrimPrefix(wsCwd, "/")
}

// workspaceCwd maps an agent cwd to the workspace-relative one; outside
// the workspace (/tmp) it keeps prev.
func workspaceCwd(agent, prev string) string {
	switch {
	case agent == agentRoot:
		return "/"
	case strings.HasPrefix(agent, agentRoot+"/"):
		return strings.TrimPrefix(agent, agentRoot)
	}
	return prev
}
