package api

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/wsfs/wsfs/api/runwire"
)

// Warm workers: `wsfs run` costs one process start of the small front
// rather than the core's (whose package init and page faults are most of a
// command's time), because the server keeps a few worker processes that
// have already started and wait for a job on a socketpair. A worker runs
// the `wsfs run` code path and confines itself to the workspace of its
// first job; it may then run more jobs of that workspace, one at a time
// (it says so with each status), so an agent's next command finds a worker
// already confined, with js-exec warm. The server parks such a worker
// under its workspace until the next job, an idle timeout, or too many
// parked workers. A worker that cannot go on (interrupted, a limit hit)
// exits, and the pool starts a fresh unbound one. A runaway script kills
// its worker, never the server.

// WorkerFD is the descriptor a warm worker finds its socket to the server on.
const WorkerFD = 3

// EnvWorkerTmp names the environment variable that gives a warm worker
// its own folder: it makes its temporary folders there (runner.Confine's,
// each job's /tmp); the server removes it when the worker ends.
const EnvWorkerTmp = "WSFS_WORKER_TMPDIR"

// DefaultWorkers is how many warm workers a server keeps ready.
const DefaultWorkers = 2

// Parked workers (confined to a workspace, waiting for its next job): at
// most DefaultParked in all (Config.Parked), each for at most parkedIdle.
// A parked worker holds its memory (about 60 MiB with QuickJS loaded).
const (
	DefaultParked = 8
	parkedIdle    = 10 * time.Minute
)

// workerGrace bounds how long a worker may take to stop once its caller
// is gone (the interrupt lets it snapshot; then it is killed).
const workerGrace = 2 * time.Minute

// worker is one warm worker process.
type worker struct {
	cmd  *exec.Cmd
	conn *net.UnixConn // the server's end of the socketpair
	tmp  string
	// ready is closed when the worker says it waits for a job; result
	// carries the exit status it reports for each job (having closed the
	// caller's streams); heard is closed once the server has read all the
	// worker said.
	ready, heard chan struct{}
	result       chan runwire.Status
	done         chan struct{} // closed once it has exited and is reaped

	// Set under the pool's lock: what a parked worker serves (see
	// runSocket.parkKey), and its idle timeout.
	parkKey   string
	parkedAt  time.Time
	idleTimer *time.Timer

	mu         sync.Mutex
	interrupts int
}

// interrupt stops the worker's command as Ctrl-C would; a second one
// kills the worker.
func (w *worker) interrupt() {
	select {
	case <-w.done:
		return
	default:
	}
	w.mu.Lock()
	w.interrupts++
	n := w.interrupts
	w.mu.Unlock()
	sig := syscall.SIGINT
	if n > 1 {
		sig = syscall.SIGKILL
	}
	_ = w.cmd.Process.Signal(sig)
}

func (w *worker) kill() { _ = w.cmd.Process.Kill() }

// release lets a worker that reported its status exit (it waits for the
// server to close its socket).
func (w *worker) release() { w.conn.Close() }

func (w *worker) isReady() bool {
	select {
	case <-w.ready:
		return true
	default:
		return false
	}
}

// send hands the worker a job with the caller's standard streams.
func (w *worker) send(job runwire.Job, files []*os.File) error {
	fds := make([]int, len(files))
	for i, f := range files {
		fds[i] = int(f.Fd())
	}
	msg := runwire.AppendJob(job)
	n, _, err := w.conn.WriteMsgUnix(msg, syscall.UnixRights(fds...), nil)
	if err == nil && n < len(msg) {
		_, err = w.conn.Write(msg[n:])
	}
	if err != nil {
		return fmt.Errorf("api: handing the command to worker PID %d: %w", w.cmd.Process.Pid, err)
	}
	return nil
}

// wait waits for the job's exit status: the one the worker reports as the
// job ends (it has closed the caller's streams; Again says whether it can
// take another job), or else the way its process ended.
func (w *worker) wait() runwire.Status {
	select {
	case st := <-w.result:
		return st
	case <-w.done:
	}
	<-w.heard
	select {
	case st := <-w.result:
		st.Again = false
		return st
	default:
	}
	ps := w.cmd.ProcessState
	ws, _ := ps.Sys().(syscall.WaitStatus)
	switch {
	case !w.isReady():
		// It died before it could read the job: nothing ran.
		return runwire.Status{Fallback: true}
	case ws.Signaled():
		sig := ws.Signal()
		st := runwire.Status{Code: 128 + int(sig)}
		if sig != syscall.SIGPIPE { // a closed pipe ends a command quietly, as in a shell
			st.Message = fmt.Sprintf("the command's worker was killed by signal %d (%s); what the command did until then is committed", int(sig), sig)
		}
		return st
	}
	return runwire.Status{Code: ps.ExitCode()}
}

// workerPool keeps Size warm workers.
type workerPool struct {
	argv      []string
	env       []string
	size      int
	maxParked int
	log       *slog.Logger

	// spawns runs every process start on one locked OS thread: a child's
	// Pdeathsig fires when the thread that started it ends, and the Go
	// runtime may end other threads.
	spawns   chan spawnRequest
	spawning sync.WaitGroup

	mu       sync.Mutex
	idle     []*worker            // started, not given a job yet (ready or not)
	pending  int                  // starts under way for the idle list
	parked   map[string][]*worker // by key (runSocket.parkKey), oldest first
	nParked  int
	all      map[*worker]bool
	closed   bool
	failures int // workers in a row that died before taking a job
	retry    *time.Timer
}

type spawnRequest struct {
	cmd *exec.Cmd
	err chan error
}

// workerEnv names the server's environment variables a worker inherits:
// the temporary folder, time zone and locale, the Go runtime's knobs and
// wsfs's debug switches. Nothing else (a store's credentials, say) reaches
// the process that runs an agent's script.
var workerEnv = []string{"TMPDIR", "TZ", "LANG", "LC_ALL", "GODEBUG", "GOMAXPROCS", "GOGC", "GOMEMLIMIT",
	"WSFS_DEBUG", "WSFS_NO_CONFINE"}

func newWorkerPool(argv []string, home string, size, maxParked int, log *slog.Logger) *workerPool {
	env := []string{"WSFS_HOME=" + home}
	for _, k := range workerEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	p := &workerPool{argv: argv, env: env, size: size, maxParked: maxParked, log: log, spawns: make(chan spawnRequest), all: map[*worker]bool{},
		parked: map[string][]*worker{}}
	go sweepPoolDirs(os.TempDir(), log)
	go p.spawner()
	p.refill()
	return p
}

func (p *workerPool) spawner() {
	runtime.LockOSThread() // never unlocked: the thread ends with the pool
	for r := range p.spawns {
		r.err <- r.cmd.Start()
	}
}

// start starts one worker process.
func (p *workerPool) start() (*worker, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New("api: the server is stopping")
	}
	p.spawning.Add(1)
	p.mu.Unlock()
	defer p.spawning.Done()

	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("api: worker socket: %w", err)
	}
	mine, theirs := os.NewFile(uintptr(pair[0]), "worker"), os.NewFile(uintptr(pair[1]), "worker")
	defer theirs.Close()
	defer mine.Close()
	tmp, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", poolDirPrefix, os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("api: worker temporary folder: %w", err)
	}
	removeDirs := func() { os.RemoveAll(tmp) }
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Env = append(p.env[:len(p.env):len(p.env)], EnvWorkerTmp+"="+tmp)
	cmd.ExtraFiles = []*os.File{theirs} // WorkerFD
	// Not the server's folder: it may be deleted while the server runs.
	cmd.Dir = "/"
	cmd.Stderr = os.Stderr // until a job arrives: a crash shows in the server's log
	// Its own process group: a Ctrl-C meant for the server does not reach
	// the workers, which die with the server all the same.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	req := spawnRequest{cmd: cmd, err: make(chan error, 1)}
	p.spawns <- req
	if err := <-req.err; err != nil {
		removeDirs()
		return nil, fmt.Errorf("api: starting a worker (%s): %w", p.argv[0], err)
	}
	fc, err := net.FileConn(mine)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		removeDirs()
		return nil, fmt.Errorf("api: worker socket: %w", err)
	}
	w := &worker{cmd: cmd, conn: fc.(*net.UnixConn), tmp: tmp, ready: make(chan struct{}),
		heard: make(chan struct{}), result: make(chan runwire.Status, 1), done: make(chan struct{})}
	p.mu.Lock()
	p.all[w] = true
	p.mu.Unlock()
	go w.listen(p)
	go func() {
		_ = cmd.Wait()
		w.conn.Close()
		removeDirs()
		close(w.done)
		p.exited(w)
	}()
	return w, nil
}

// listen reads what the worker says: that it is ready, then each job's
// exit status.
func (w *worker) listen(p *workerPool) {
	defer close(w.heard)
	body, err := runwire.ReadFrame(w.conn)
	if err != nil || !runwire.IsReady(body) {
		return
	}
	close(w.ready)
	p.mu.Lock()
	p.failures = 0
	p.mu.Unlock()
	for {
		if body, err = runwire.ReadFrame(w.conn); err != nil {
			return
		}
		st, err := runwire.ParseStatus(body)
		if err != nil {
			p.log.Warn("api: a warm worker said something the server does not understand; stopping it", "pid", w.cmd.Process.Pid, "err", err)
			w.kill()
			return
		}
		w.result <- st
	}
}

// get returns a worker for a job: one parked under its key (the latest),
// else an idle one (a ready one first), else it starts one. The
// replacement of an idle worker starts when the job ends (done), not now,
// so that its start-up (tens of milliseconds of CPU) does not compete
// with the command; only a pool left empty refills at once.
func (p *workerPool) get(parkKey string) (*worker, error) {
	p.mu.Lock()
	if ws := p.parked[parkKey]; parkKey != "" && len(ws) > 0 {
		w := ws[len(ws)-1]
		p.unparkLocked(w)
		p.mu.Unlock()
		return w, nil
	}
	pick := -1
	for i, w := range p.idle {
		if w.isReady() {
			pick = i
			break
		}
	}
	if pick < 0 && len(p.idle) > 0 {
		pick = 0 // the one furthest along
	}
	var w *worker
	if pick >= 0 {
		w = p.idle[pick]
		p.idle = append(p.idle[:pick], p.idle[pick+1:]...)
	}
	empty := len(p.idle) == 0
	p.mu.Unlock()
	var err error
	if w == nil {
		w, err = p.start()
	}
	if empty {
		p.refill()
	}
	return w, err
}

// refill starts workers until Size are idle or starting.
func (p *workerPool) refill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.retry != nil {
		return
	}
	for len(p.idle)+p.pending < p.size {
		p.pending++
		go func() {
			w, err := p.start()
			p.mu.Lock()
			defer p.mu.Unlock()
			p.pending--
			switch {
			case p.closed:
				if w != nil {
					w.kill()
				}
			case err != nil:
				p.log.Error("api: a warm worker did not start; wsfs run starts one per command meanwhile", "err", err)
				p.failedLocked()
			default:
				p.idle = append(p.idle, w)
			}
		}()
	}
}

// failedLocked counts a worker that failed before taking a job and, after
// a few in a row, pauses the refills (a broken binary must not make the
// server start processes in a loop).
func (p *workerPool) failedLocked() {
	p.failures++
	if p.failures < 3 || p.retry != nil || p.closed {
		return
	}
	wait := min(time.Second<<(p.failures-3), 30*time.Second)
	p.log.Warn("api: warm workers keep failing; pausing their restarts", "failures", p.failures, "retry_in", wait)
	p.retry = time.AfterFunc(wait, func() {
		p.mu.Lock()
		p.retry = nil
		p.mu.Unlock()
		p.refill()
	})
}

// park keeps w, which has just run a job and can run more, for the next
// job of the same key: at most maxParked workers in all (the oldest goes)
// and each for parkedIdle.
func (p *workerPool) park(w *worker, parkKey string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-w.done:
		return
	default:
	}
	if p.closed || parkKey == "" || p.maxParked <= 0 {
		w.release()
		return
	}
	w.parkKey, w.parkedAt = parkKey, time.Now()
	p.parked[parkKey] = append(p.parked[parkKey], w)
	p.nParked++
	w.idleTimer = time.AfterFunc(parkedIdle, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.unparkLocked(w) {
			w.release()
		}
	})
	for p.nParked > p.maxParked {
		var oldest *worker
		for _, ws := range p.parked {
			if oldest == nil || ws[0].parkedAt.Before(oldest.parkedAt) {
				oldest = ws[0]
			}
		}
		p.unparkLocked(oldest)
		oldest.release()
	}
}

// unparkLocked takes w off the parked list; false if it was not there.
func (p *workerPool) unparkLocked(w *worker) bool {
	ws := p.parked[w.parkKey]
	for i, x := range ws {
		if x == w {
			ws = append(ws[:i:i], ws[i+1:]...)
			if len(ws) == 0 {
				delete(p.parked, w.parkKey)
			} else {
				p.parked[w.parkKey] = ws
			}
			p.nParked--
			w.idleTimer.Stop()
			return true
		}
	}
	return false
}

// exited drops a worker that ended; one that ended while idle is replaced.
func (p *workerPool) exited(w *worker) {
	p.mu.Lock()
	delete(p.all, w)
	p.unparkLocked(w)
	wasIdle := false
	for i, x := range p.idle {
		if x == w {
			p.idle = append(p.idle[:i], p.idle[i+1:]...)
			wasIdle = true
			break
		}
	}
	if wasIdle && !p.closed {
		p.log.Warn("api: a warm worker ended before it had a job", "pid", w.cmd.Process.Pid, "state", w.cmd.ProcessState.String())
		p.failedLocked()
	}
	p.mu.Unlock()
	if wasIdle {
		p.refill()
	}
}

// close kills the idle workers, waits (until stop is closed) for the
// busy ones to end, then kills what is left and ends the spawner thread.
func (p *workerPool) close(stop <-chan struct{}) {
	p.mu.Lock()
	p.closed = true
	if p.retry != nil {
		p.retry.Stop()
	}
	idle := p.idle
	p.idle = nil
	for _, ws := range p.parked {
		idle = append(idle, ws...)
	}
	for _, w := range idle {
		p.unparkLocked(w)
	}
	p.mu.Unlock()
	for _, w := range idle {
		w.kill()
	}
	p.spawning.Wait()
	for {
		p.mu.Lock()
		var left []*worker
		for w := range p.all {
			left = append(left, w)
		}
		p.mu.Unlock()
		if len(left) == 0 {
			break
		}
		select {
		case <-left[0].done:
		case <-stop:
			for _, w := range left {
				w.kill()
			}
			<-left[0].done
		}
	}
	close(p.spawns)
}

// Name prefixes of a worker's folders in the temporary folder, followed by
// the server's PID: its own folder, and (made by servers before workers
// ran several jobs, swept all the same) its command's /tmp.
const (
	poolDirPrefix     = "wsfs-pool-"
	poolScratchPrefix = "wsfs-run-p"
)

// sweepPoolDirs removes the worker folders that servers which died without
// cleaning up (killed, crashed) left in dir: those named with the PID of
// a process that no longer exists, and owned by this user.
func sweepPoolDirs(dir string, log *slog.Logger) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		rest, ok := strings.CutPrefix(name, poolDirPrefix)
		if !ok {
			rest, ok = strings.CutPrefix(name, poolScratchPrefix)
		}
		pidText, _, found := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || !found || err != nil || pid <= 0 || pid == os.Getpid() || !e.IsDir() {
			continue
		}
		if err := syscall.Kill(pid, 0); err == nil || errors.Is(err, syscall.EPERM) {
			continue // its server lives
		}
		path := filepath.Join(dir, name)
		var st syscall.Stat_t
		if syscall.Lstat(path, &st) != nil || int(st.Uid) != os.Getuid() {
			continue
		}
		if err := os.RemoveAll(path); err != nil {
			log.Warn("api: a dead server's worker folder stays", "path", path, "err", err)
		}
	}
}

// readWithRights reads one frame and the descriptors sent with its first
// bytes (at most max), closed on exec. rest reads what follows the frame.
func readWithRights(c *net.UnixConn, max int) (body []byte, files []*os.File, rest io.Reader, err error) {
	buf := make([]byte, 64<<10)
	oob := make([]byte, syscall.CmsgSpace(4*max))
	n, oobn, flags, _, err := c.ReadMsgUnix(buf, oob)
	if err != nil {
		return nil, nil, nil, err
	}
	if oobn > 0 {
		msgs, perr := syscall.ParseSocketControlMessage(oob[:oobn])
		for _, m := range msgs {
			fds, ferr := syscall.ParseUnixRights(&m)
			if ferr != nil {
				continue
			}
			for _, fd := range fds {
				files = append(files, os.NewFile(uintptr(fd), "caller"))
			}
		}
		if perr != nil {
			err = fmt.Errorf("api: descriptors: %w", perr)
		}
	}
	if flags&syscall.MSG_CTRUNC != 0 && err == nil {
		err = fmt.Errorf("api: more than %d descriptors came: %w", max, runwire.ErrFormat)
	}
	rest = io.MultiReader(bytes.NewReader(buf[:n]), c)
	if err == nil && n == 0 {
		err = io.EOF
	}
	if err == nil {
		body, err = runwire.ReadFrame(rest)
	}
	if err != nil {
		closeFiles(files)
		return nil, nil, nil, err
	}
	return body, files, rest, nil
}

func closeFiles(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// WorkerConn is a warm worker's end of its socket to the server (see
// WorkerFD).
type WorkerConn struct{ c *net.UnixConn }

// OpenWorkerConn takes the socket the server gave the worker.
func OpenWorkerConn() (*WorkerConn, error) {
	f := os.NewFile(WorkerFD, "wsfs-worker")
	if f == nil {
		return nil, errors.New("api: no worker socket")
	}
	defer f.Close()
	fc, err := net.FileConn(f)
	if err != nil {
		return nil, fmt.Errorf("api: descriptor %d is not a worker socket (the worker is started by the wsfs server, not by hand): %w", WorkerFD, err)
	}
	uc, ok := fc.(*net.UnixConn)
	if !ok {
		fc.Close()
		return nil, fmt.Errorf("api: descriptor %d is not a unix socket", WorkerFD)
	}
	return &WorkerConn{c: uc}, nil
}

// Done tells the server the job's exit status, and whether the worker can
// take another job of the same workspace (then Job waits for it). The
// worker calls it after closing the caller's streams, so the caller need
// not wait for the process. A worker that cannot go on then waits (at
// most a second) until the server lets it go, so its teardown waits until
// the caller exited.
func (w *WorkerConn) Done(code int, again bool) error {
	if _, err := w.c.Write(runwire.AppendStatus(runwire.Status{Code: code, Again: again})); err != nil {
		return err
	}
	if !again {
		_ = w.c.SetReadDeadline(time.Now().Add(hangUpWait))
		_, _ = w.c.Read(make([]byte, 1))
	}
	return nil
}

// Ready tells the server the worker waits for a job.
func (w *WorkerConn) Ready() error {
	_, err := w.c.Write(runwire.Ready())
	return err
}

// Job waits for the next job and returns it with the caller's stdin,
// stdout and stderr. io.EOF means the server let the worker go.
func (w *WorkerConn) Job() (runwire.Job, []*os.File, error) {
	body, files, _, err := readWithRights(w.c, 3)
	if errors.Is(err, io.EOF) {
		return runwire.Job{}, nil, io.EOF
	}
	if err != nil {
		return runwire.Job{}, nil, fmt.Errorf("api: waiting for a job: %w", err)
	}
	job, err := runwire.ParseJob(body)
	if err == nil && len(files) != 3 {
		err = fmt.Errorf("api: the job came with %d descriptors, not 3: %w", len(files), runwire.ErrFormat)
	}
	if err != nil {
		closeFiles(files)
		return runwire.Job{}, nil, err
	}
	return job, files, nil
}

// Close closes the worker's socket.
func (w *WorkerConn) Close() error { return w.c.Close() }
