package runsvc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/runsvc/runwire"
)

// The run socket takes `wsfs run` jobs from callers (the small front, or
// wsfs-core run): one connection per command, the job frame with the
// caller's stdin, stdout and stderr attached (SCM_RIGHTS), then at most
// interrupt frames from the caller; the service answers the report frame
// when the command has ended and been snapshotted.

// jobReadTimeout bounds the wait for a connected caller's job.
const jobReadTimeout = 30 * time.Second

// callerGrace bounds how long a command may go on once its caller is gone
// (interrupted at once, it may still commit); then it is killed.
const callerGrace = 2 * time.Minute

// Serve takes jobs from the run socket ln until ln is closed.
func (s *Service) Serve(ln *net.UnixListener) {
	var conns sync.WaitGroup
	defer conns.Wait()
	for {
		c, err := ln.AcceptUnix()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				s.log.Error("the run socket stopped taking commands", "err", err)
			}
			return
		}
		conns.Add(1)
		go func() {
			defer conns.Done()
			s.serveCaller(c)
		}()
	}
}

// serveCaller runs one caller's job and answers its report.
func (s *Service) serveCaller(c *net.UnixConn) {
	defer c.Close()
	reply := func(rep runwire.Report) { _, _ = c.Write(runwire.AppendReport(rep)) }
	fail := func(err error) {
		e := WireError(err)
		reply(runwire.Report{ExitCode: e.Exit, Err: e})
	}
	_ = c.SetReadDeadline(time.Now().Add(jobReadTimeout))
	body, files, rest, err := readWithRights(c, 3)
	if err != nil {
		s.log.Warn("run socket: a caller's job did not arrive", "err", err)
		fail(fmt.Errorf("the wsfs server did not get the whole command (%v); run it again", err))
		return
	}
	defer closeFiles(files)
	job, err := runwire.ParseJob(body)
	switch {
	case errors.Is(err, runwire.ErrVersion):
		fail(fmt.Errorf("this wsfs and the running server are different versions (%v); restart the server with this wsfs: wsfs umount DIR, then run the command again", err))
		return
	case err == nil && len(files) != 3:
		err = fmt.Errorf("the command came with %d descriptors, not 3: %w", len(files), runwire.ErrFormat)
	}
	if err != nil {
		fail(err)
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	if job.Store != "" && s.cfg.Store != "" && job.Store != s.cfg.Store {
		fail(fmt.Errorf("the wsfs server (PID %d) serves the store %s, not %s; drop --store/WSFS_STORE, or use another --home for that store: %w",
			os.Getpid(), s.cfg.Store, job.Store, meta.ErrInvalid))
		return
	}
	j := Job{Workspace: job.Workspace, Script: job.Script, Stdin: files[0], Timeout: job.Timeout, Author: job.Author,
		Env: job.Env, Tails: job.JSON}
	if job.WaitSet {
		j.Wait = &job.Wait
	}
	if j.Author == "" {
		j.Author = s.userName(peerUID(c), job.Env)
	}
	if !job.JSON {
		j.Stdout, j.Stderr = files[1], files[2]
	}
	run, err := s.Submit(context.Background(), j)
	if err != nil {
		fail(err)
		return
	}
	// The caller interrupts (Ctrl-C) with a frame; a caller that goes
	// away (killed) interrupts as well, and the command that does not stop
	// in time is killed.
	go func() {
		for {
			body, err := runwire.ReadFrame(rest)
			if err != nil {
				select {
				case <-run.Done():
					return
				default:
				}
				run.Cancel()
				select {
				case <-run.Done():
				case <-time.After(callerGrace):
					run.Cancel()
				}
				return
			}
			if runwire.Kind(body) == runwire.KindInterrupt {
				run.Cancel()
			}
		}
	}()
	rep, err := run.Wait(context.Background())
	if err != nil {
		fail(err)
		return
	}
	reply(wireReport(rep))
}

// wireReport is rep as the caller gets it.
func wireReport(rep Report) runwire.Report {
	return runwire.Report{ExitCode: rep.ExitCode, Stdout: []byte(rep.Stdout), Stderr: []byte(rep.Stderr), Truncated: rep.Truncated,
		OutputRef: rep.OutputRef, Revision: int64(rep.Revision), Committed: rep.Committed,
		Duration: time.Duration(rep.DurationMS) * time.Millisecond, LimitsHit: rep.LimitsHit, Refusals: rep.Refusals,
		Signal: rep.Signal, Message: rep.Message, Err: rep.Error}
}

// userName is the name of user uid, who runs a command without --author:
// from the user database, else $USER as the caller set it.
func (s *Service) userName(uid int, env []string) string {
	if uid >= 0 {
		s.mu.Lock()
		name, ok := s.users[uid]
		s.mu.Unlock()
		if ok {
			return name
		}
		if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
			s.mu.Lock()
			s.users[uid] = u.Username
			s.mu.Unlock()
			return u.Username
		}
	}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "USER="); ok {
			return v
		}
	}
	return ""
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
