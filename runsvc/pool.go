package runsvc

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
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wsfs/wsfs/runner"
	"github.com/wsfs/wsfs/runsvc/runwire"
)

// Workers: a command runs in a worker, a process of this program started
// for one workspace and confined to it from its first instruction
// (runner.StartConfined: Landlock on the thread that starts it). Its
// first turn comes with its start; after a command it may stay, parked
// under its workspace, for the workspace's next command (each still gets
// a fresh shell, its own /tmp and its own CPU-time limit), until an idle
// timeout, too many parked workers, or a command that leaves it unfit
// (interrupted, a memory or CPU limit, 500 commands, a heap that stays
// large). A runaway script kills its worker, never the server. A worker
// whose server dies sees its socket close and exits.

// Parked workers: at most DefaultParked in all (Config.MaxParked), each for
// at most parkedIdle. A parked worker holds its memory (about 30 MiB, 60
// with QuickJS loaded).
const (
	DefaultParked = 8
	parkedIdle    = 10 * time.Minute
)

// EnvWorkerTmp names the environment variable that gives a worker its
// own folder (its TMPDIR; each command's /tmp is made in it). The server
// removes it when the worker ends.
const EnvWorkerTmp = "WSFS_WORKER_TMPDIR"

// workerEnv names the server's environment variables a worker inherits:
// the temporary folder, time zone and locale, the Go runtime's knobs and
// wsfs's debug switch. Nothing else (a store's credentials, say) reaches
// the process that runs an agent's script.
var workerEnv = []string{"TZ", "LANG", "LC_ALL", "GODEBUG", "GOMAXPROCS", "GOGC", "GOMEMLIMIT", "WSFS_DEBUG"}

// worker is one worker process, seen from the server.
type worker struct {
	cmd     *exec.Cmd
	conn    *net.UnixConn // the server's end of its socketpair
	private string        // its folder (TMPDIR)
	key     string        // the workspace incarnation and settings it serves
	exited  chan struct{} // closed once it has exited and is reaped

	// Set under the pool's lock while parked.
	parkedAt  time.Time
	idleTimer *time.Timer

	mu         sync.Mutex
	interrupts int
}

// pool starts, parks and ends the workers.
type pool struct {
	argv      []string
	env       []string
	maxParked int
	jsCache   string
	log       *slog.Logger
	noConfine bool

	mu      sync.Mutex
	parked  map[string][]*worker // by key, oldest first
	nParked int
	all     map[*worker]bool
	closed  bool
}

func newPool(argv []string, jsCache string, maxParked int, noConfine bool, log *slog.Logger) *pool {
	var env []string
	for _, k := range workerEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	p := &pool{argv: argv, env: env, maxParked: maxParked, jsCache: jsCache, log: log, noConfine: noConfine,
		parked: map[string][]*worker{}, all: map[*worker]bool{}}
	go sweepWorkerDirs(os.TempDir(), log)
	return p
}

// take returns the worker parked under key (the newest), or nil.
func (p *pool) take(key string) *worker {
	p.mu.Lock()
	defer p.mu.Unlock()
	ws := p.parked[key]
	if len(ws) == 0 {
		return nil
	}
	w := ws[len(ws)-1]
	p.unparkLocked(w)
	return w
}

// workerDirPrefix starts a worker's folder in the temporary folder,
// followed by the server's PID.
const workerDirPrefix = "wsfs-worker-"

// start starts a worker confined to the workspace folder dir, serving key.
func (p *pool) start(dir, key string) (*worker, error) {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("runsvc: worker socket: %w", err)
	}
	mine, theirs := os.NewFile(uintptr(pair[0]), "worker"), os.NewFile(uintptr(pair[1]), "worker")
	defer theirs.Close()
	defer mine.Close()
	private, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", workerDirPrefix, os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("runsvc: worker folder: %w", err)
	}
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Env = append(p.env[:len(p.env):len(p.env)], "TMPDIR="+private, EnvWorkerTmp+"="+private)
	cmd.ExtraFiles = []*os.File{theirs} // runwire's worker descriptor, 3
	cmd.Dir = "/"
	// Until a command comes: a crash shows in the server's log.
	cmd.Stderr = os.Stderr
	// Its own process group: a Ctrl-C meant for the server does not reach
	// it (it ends when its socket closes with the server).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if p.noConfine {
		err = cmd.Start()
	} else {
		_, err = runner.StartConfined(cmd, runner.Confinement{ReadWrite: []string{dir, private}, ReadOnly: []string{p.jsCache}}, p.log)
	}
	if err != nil {
		os.RemoveAll(private)
		return nil, fmt.Errorf("starting a worker for the command (%s): %w", p.argv[0], err)
	}
	fc, err := net.FileConn(mine)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		os.RemoveAll(private)
		return nil, fmt.Errorf("runsvc: worker socket: %w", err)
	}
	w := &worker{cmd: cmd, conn: fc.(*net.UnixConn), private: private, key: key, exited: make(chan struct{})}
	p.mu.Lock()
	p.all[w] = true
	p.mu.Unlock()
	go func() {
		_ = cmd.Wait()
		os.RemoveAll(private)
		close(w.exited)
		p.mu.Lock()
		delete(p.all, w)
		wasParked := p.unparkLocked(w)
		p.mu.Unlock()
		// A busy worker's socket is its command's to close (release): it
		// may still hold the worker's last words, written just before it
		// exited.
		if wasParked {
			w.conn.Close()
		}
	}()
	return w, nil
}

// send hands w a turn with the command's three streams.
func (w *worker) send(t runwire.Turn, files [3]*os.File) error {
	msg := runwire.AppendTurn(t)
	rights := syscall.UnixRights(int(files[0].Fd()), int(files[1].Fd()), int(files[2].Fd()))
	n, _, err := w.conn.WriteMsgUnix(msg, rights, nil)
	if err == nil && n < len(msg) {
		_, err = w.conn.Write(msg[n:])
	}
	if err != nil {
		return fmt.Errorf("handing the command to its worker (PID %d): %w", w.cmd.Process.Pid, err)
	}
	return nil
}

// interrupt stops w's command as Ctrl-C would; a second one kills w.
func (w *worker) interrupt() {
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

// release lets w go: it exits when its socket closes.
func (w *worker) release() { w.conn.Close() }

// exitStatus describes how w ended: exit code 128+signal and the
// signal's name for a killed one.
func (w *worker) exitStatus() (code int, signal string) {
	<-w.exited
	ps := w.cmd.ProcessState
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), signalName(ws.Signal())
	}
	return ps.ExitCode(), ""
}

// signalName names a signal as kill -l does, with SIG.
func signalName(sig syscall.Signal) string {
	if n := unix.SignalName(sig); n != "" {
		return n
	}
	return "SIG" + strconv.Itoa(int(sig))
}

// park keeps w, which has just run a command and can run more, for the
// next command of its key: at most maxParked workers in all (the oldest
// goes) and each for parkedIdle.
func (p *pool) park(w *worker) {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-w.exited:
		w.release()
		return
	default:
	}
	if p.closed || p.maxParked <= 0 {
		w.release()
		return
	}
	w.parkedAt = time.Now()
	p.parked[w.key] = append(p.parked[w.key], w)
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
func (p *pool) unparkLocked(w *worker) bool {
	ws := p.parked[w.key]
	for i, x := range ws {
		if x == w {
			ws = append(ws[:i:i], ws[i+1:]...)
			if len(ws) == 0 {
				delete(p.parked, w.key)
			} else {
				p.parked[w.key] = ws
			}
			p.nParked--
			w.idleTimer.Stop()
			return true
		}
	}
	return false
}

// forget releases the workers parked for a workspace whose incarnation
// or settings changed (their key no longer matches).
func (p *pool) forget(prefix string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for key, ws := range p.parked {
		if strings.HasPrefix(key, prefix) {
			for _, w := range append([]*worker(nil), ws...) {
				p.unparkLocked(w)
				w.release()
			}
		}
	}
}

// close releases the parked workers, waits (until stop is closed) for the
// busy ones to end, then kills what is left.
func (p *pool) close(stop <-chan struct{}) {
	p.mu.Lock()
	p.closed = true
	var idle []*worker
	for _, ws := range p.parked {
		idle = append(idle, ws...)
	}
	for _, w := range idle {
		p.unparkLocked(w)
		w.release()
	}
	p.mu.Unlock()
	for {
		p.mu.Lock()
		var left []*worker
		for w := range p.all {
			left = append(left, w)
		}
		p.mu.Unlock()
		if len(left) == 0 {
			return
		}
		select {
		case <-left[0].exited:
		case <-stop:
			for _, w := range left {
				w.kill()
			}
			<-left[0].exited
		}
	}
}

// sweepWorkerDirs removes the worker folders that servers which died
// without cleaning up (killed, crashed) left in dir: those named with the
// PID of a process that no longer exists, and owned by this user.
func sweepWorkerDirs(dir string, log *slog.Logger) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		rest, ok := strings.CutPrefix(name, workerDirPrefix)
		if !ok {
			rest, ok = strings.CutPrefix(name, "wsfs-pool-") // made by servers before this one
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
			log.Warn("runsvc: a dead server's worker folder stays", "path", path, "err", err)
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
				syscall.CloseOnExec(fd)
				files = append(files, os.NewFile(uintptr(fd), "caller"))
			}
		}
		if perr != nil {
			err = fmt.Errorf("runsvc: descriptors: %w", perr)
		}
	}
	if flags&syscall.MSG_CTRUNC != 0 && err == nil {
		err = fmt.Errorf("runsvc: more than %d descriptors came: %w", max, runwire.ErrFormat)
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
