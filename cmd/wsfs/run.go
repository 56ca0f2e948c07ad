package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/wsfs/wsfs/api/runwire"
)

// The fast path of `wsfs run`: a running server keeps warm workers (wsfs-core
// processes that have done their start-up work) and takes jobs on its run
// socket. The front sends the job with its stdin, stdout and stderr
// attached, waits for the exit status and exits with it, so a command costs
// this small process's start rather than the core's. When no server takes
// the job (no socket, nobody listening, a flag this path does not know) the
// front execs wsfs-core as for every other verb, which runs the command
// the slow way (and starts a private server when none runs).

// fastRun runs `wsfs run args` through the server's run socket. It
// reports false when the job must go to wsfs-core instead (nothing ran).
func fastRun(args []string) (code int, ok bool) {
	ra, ok := runwire.ParseRunArgs(args)
	if !ok {
		return 0, false
	}
	home, ok := runHome(ra)
	if !ok {
		return 0, false
	}
	for fd := 0; fd <= 2; fd++ {
		if _, err := fcntl(fd, syscall.F_GETFD); err != nil {
			return 0, false // a closed standard stream: the core copes
		}
	}
	cwd, err := os.Getwd()
	if err != nil {
		return 0, false
	}
	sock, err := dialRun(runwire.SocketPath(home))
	if err != nil {
		return 0, false
	}
	conn := fdConn(sock)
	job := runwire.Job{Version: runwire.Version, Args: args, Cwd: cwd, UID: -1}
	if ra.File != "" && ra.File != "-" {
		// Read here, with the caller's rights: the worker is confined to
		// the workspace.
		b, err := os.ReadFile(ra.File)
		if err != nil {
			job.ScriptErr = err.Error()
		}
		job.Script, job.HasScript = string(b), err == nil
	}
	for _, k := range runwire.ForwardedEnv {
		if v, set := os.LookupEnv(k); set {
			job.Env = append(job.Env, k+"="+v)
		}
	}
	msg := runwire.AppendJob(job)
	n, err := syscall.SendmsgN(sock, msg, syscall.UnixRights(0, 1, 2), nil, 0)
	if err != nil {
		syscall.Close(sock)
		return 0, false // the server has no whole job: nothing ran
	}
	if _, err := conn.Write(msg[n:]); err != nil {
		syscall.Close(sock)
		return 0, false
	}

	// Ctrl-C and SIGTERM reach the command through the server, which
	// interrupts the worker (and kills it at the second).
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		for range sigs {
			_, _ = conn.Write(runwire.Interrupt())
		}
	}()

	body, err := runwire.ReadFrame(conn)
	var st runwire.Status
	if err == nil {
		st, err = runwire.ParseStatus(body)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "wsfs run: the wsfs server dropped the command before its end (%v); did the server stop? See `wsfs ps` and `wsfs log`\n", err)
		return 1, true
	}
	if st.Fallback {
		signal.Reset()
		syscall.Close(sock)
		return 0, false
	}
	if st.Message != "" {
		fmt.Fprintf(os.Stderr, "wsfs run: %s\n", st.Message)
	}
	return st.Code, true
}

// runHome finds the wsfs home as wsfs-core would: --home, else
// WSFS_HOME, else the default.
func runHome(ra runwire.RunArgs) (string, bool) {
	home := ra.Home
	if home == "" {
		home = os.Getenv("WSFS_HOME")
	}
	if home != "" {
		abs, err := filepath.Abs(home)
		return abs, err == nil
	}
	// The rule of objects/storeurl.Home.
	if os.Geteuid() == 0 {
		return "/var/lib/wsfs", true
	}
	uhome, err := os.UserHomeDir()
	if err != nil {
		return "", false
	}
	return filepath.Join(uhome, ".local", "share", "wsfs"), true
}

// dialRun connects to the run socket; any failure (no socket, no server
// listening) means the slow path.
func dialRun(path string) (int, error) {
	if len(path) > 107 {
		return -1, errors.New("socket path too long")
	}
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	for {
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: path})
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}

func fcntl(fd, cmd int) (int, error) {
	r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), uintptr(cmd), 0)
	if errno != 0 {
		return 0, errno
	}
	return int(r), nil
}

// fdConn reads and writes a socket descriptor with plain system calls.
type fdConn int

func (c fdConn) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(c), p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c fdConn) Write(p []byte) (int, error) {
	total := 0
	for len(p) > 0 {
		n, err := syscall.Write(int(c), p)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return total, err
		}
		total += n
		p = p[n:]
	}
	return total, nil
}
