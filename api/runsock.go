package api

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/wsfs/wsfs/api/runwire"
	"github.com/wsfs/wsfs/meta"
)

// The run socket (runwire.SocketPath of the home, mode 0600) takes `wsfs
// run` jobs from the small front: one connection per command, the job
// frame with the caller's stdin, stdout and stderr attached, then at most
// interrupt frames from the caller; the server answers one status frame
// when the worker has exited. Everything else about the command (its turn,
// output, snapshot) goes over the control socket as for any `wsfs run`.

// jobReadTimeout bounds the wait for a connected front's job.
const jobReadTimeout = 30 * time.Second

type runSocket struct {
	s     *Server
	ln    *net.UnixListener
	path  string
	pool  *workerPool
	conns sync.WaitGroup
}

// startRunSocket listens on the run socket and starts the warm workers.
func (s *Server) startRunSocket(ctx context.Context) error {
	path := runwire.SocketPath(s.cfg.Home)
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
	size := s.cfg.Workers
	if size == 0 {
		size = DefaultWorkers
	}
	parked := s.cfg.Parked
	if parked == 0 {
		parked = DefaultParked
	}
	rs := &runSocket{s: s, ln: ln.(*net.UnixListener), path: path,
		pool: newWorkerPool(s.cfg.WorkerCommand, s.cfg.Home, size, parked, s.log)}
	s.runSock = rs
	go rs.serve()
	return nil
}

func (rs *runSocket) serve() {
	for {
		c, err := rs.ln.AcceptUnix()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				rs.s.log.Error("api: the run socket stopped taking commands", "err", err)
			}
			return
		}
		rs.conns.Add(1)
		go func() {
			defer rs.conns.Done()
			rs.handle(c)
		}()
	}
}

// handle runs one front's job on a warm worker and answers its status.
func (rs *runSocket) handle(c *net.UnixConn) {
	defer c.Close()
	reply := func(st runwire.Status) { _, _ = c.Write(runwire.AppendStatus(st)) }
	_ = c.SetReadDeadline(time.Now().Add(jobReadTimeout))
	body, files, rest, err := readWithRights(c, 3)
	if err != nil {
		rs.s.log.Warn("api: run socket: a caller's job did not arrive", "err", err)
		reply(runwire.Status{Fallback: true})
		return
	}
	defer closeFiles(files)
	job, err := runwire.ParseJob(body)
	if err == nil && len(files) != 3 {
		err = fmt.Errorf("api: a job came with %d descriptors, not 3: %w", len(files), runwire.ErrFormat)
	}
	if err != nil {
		rs.s.log.Warn("api: run socket: a job the server cannot take; the caller runs it the slow way", "err", err)
		reply(runwire.Status{Fallback: true})
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	job.UID = peerUID(c)
	parkKey := rs.parkKey(job)
	w, err := rs.pool.get(parkKey)
	if err == nil {
		if err = w.send(job, files); err != nil {
			w.kill()
		}
	}
	if err != nil {
		rs.s.log.Error("api: run socket: no worker took the command; the caller runs it the slow way", "err", err)
		reply(runwire.Status{Fallback: true})
		return
	}
	closeFiles(files)
	rs.s.log.Debug("api: run socket: a command went to a warm worker", "pid", w.cmd.Process.Pid, "ready", w.isReady())

	// The caller interrupts (Ctrl-C) with a frame; a caller that goes
	// away (killed) interrupts as well, and the worker that does not stop
	// in time is killed. Once the status is sent, the caller hanging up
	// is the end of the command.
	// A worker that reported its status may serve another caller at once:
	// from then on this caller's frames and hang-up touch it no more.
	var mu sync.Mutex
	answered, hungUp := make(chan struct{}), make(chan struct{})
	interrupt := func() bool {
		mu.Lock()
		defer mu.Unlock()
		select {
		case <-answered:
			return false
		default:
			w.interrupt()
			return true
		}
	}
	go func() {
		defer close(hungUp)
		for {
			body, err := runwire.ReadFrame(rest)
			if err != nil {
				if !interrupt() {
					return
				}
				select {
				case <-answered: // it stopped and reported
				case <-w.done:
				case <-time.After(workerGrace):
					w.kill()
				}
				return
			}
			if runwire.IsInterrupt(body) {
				interrupt()
			}
		}
	}()
	st := w.wait()
	mu.Lock()
	close(answered)
	mu.Unlock()
	if st.Again {
		rs.pool.park(w, parkKey)
	}
	reply(runwire.Status{Code: st.Code, Message: st.Message, Fallback: st.Fallback})
	// The worker's exit and the start-up of the idle worker that replaces
	// it or the parked one (tens of milliseconds of CPU) wait until the
	// caller has exited, so they do not hold up the caller on a busy
	// machine.
	select {
	case <-hungUp:
	case <-time.After(hangUpWait):
	}
	if !st.Again {
		w.release()
	}
	rs.pool.refill()
}

// parkKey is the key a worker that ran job is parked under, and that a
// job's parked worker is looked up by: the workspace's name, incarnation
// and settings. A worker's confinement holds the workspace folder it
// first saw and its settings (js-exec's memory cap), so a workspace
// deleted and created again, or given new quotas, gets a fresh worker.
// A job whose workspace does not parse or exist gets "" (a fresh worker,
// whose wsfs run says what is wrong).
func (rs *runSocket) parkKey(job runwire.Job) string {
	ra, ok := runwire.ParseRunArgs(job.Args)
	if !ok {
		return ""
	}
	name, err := meta.ParseWorkspace(ra.Workspace)
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), jobReadTimeout)
	defer cancel()
	ws, err := rs.s.cfg.DB.Get(ctx, name)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s %s %d", name, ws.ID, ws.SettingsSeq)
}

// hangUpWait bounds the wait for a caller to hang up after its status.
const hangUpWait = time.Second

// close stops taking jobs and stops the workers: idle ones at once, busy
// ones when their command ends or ctx does.
func (rs *runSocket) close(ctx context.Context) {
	rs.ln.Close()
	os.Remove(rs.path)
	rs.pool.close(ctx.Done())
	rs.conns.Wait()
}

// peerUID is the user ID of the process at the other end of c, or -1.
func peerUID(c *net.UnixConn) int {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1
	}
	uid := -1
	_ = raw.Control(func(fd uintptr) {
		if cred, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED); err == nil {
			uid = int(cred.Uid)
		}
	})
	return uid
}
