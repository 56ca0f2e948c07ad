package runwire

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Usage is `wsfs run`'s synopsis.
const Usage = "-w TENANT/NAME [--json] [--timeout D] [--wait D] [--author NAME] [-f FILE | SCRIPT | < script]"

// Summary is what `wsfs run` does, in one line.
const Summary = "run a bash script as an agent in a workspace (confined; one revision per command that changes something)"

// Args is a `wsfs run` command line, parsed: the job and what the caller
// must do to complete it (read the script, find the home).
type Args struct {
	Job  Job
	Home string // --home ("" when not given)
	// File is -f's value: the script's file ("-": stdin).
	File string
	// Words are the script given as arguments (joined by spaces).
	Words []string
	// Help says --help was asked for.
	Help bool
}

// UsageError is a mistake in the command line; its exit status is 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func newFlagSet(a *Args) *flag.FlagSet {
	fs := flag.NewFlagSet("wsfs run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	j := &a.Job
	fs.StringVar(&j.Workspace, "w", "", "the workspace (`TENANT/NAME`)")
	fs.StringVar(&j.Workspace, "workspace", "", "the workspace (`TENANT/NAME`)")
	fs.BoolVar(&j.JSON, "json", false, "print {exit_code, stdout, stderr, truncated, output_ref, revision, committed, duration_ms, limits_hit, refusals}")
	fs.DurationVar(&j.Timeout, "timeout", 0, "wall time of the command (at most the workspace's wall-time quota, which is the default)")
	fs.Func("wait", "give up with \"busy\" when the command has not started after `D` (default: wait for its turn)", func(s string) error {
		d, err := time.ParseDuration(s)
		if err != nil {
			return errors.New("parse error")
		}
		j.Wait, j.WaitSet = d, true
		return nil
	})
	fs.StringVar(&a.File, "f", "", "read the script from `FILE` (- for stdin)")
	fs.StringVar(&j.Author, "author", "", "the `NAME` of who runs the command, recorded in the revision (default: your user name)")
	fs.StringVar(&j.Store, "store", "", "the object store `URL`; it must be the one the server serves (default: $WSFS_STORE)")
	fs.StringVar(&a.Home, "home", "", "state folder `DIR` (meta.db, cache, sockets; default: $WSFS_HOME)")
	return fs
}

// ParseArgs parses the arguments after `run`. Flags may come anywhere
// before "--"; the rest is the script.
func ParseArgs(args []string) (Args, error) {
	var a Args
	fs := newFlagSet(&a)
	if err := fs.Parse(Interleave(fs, args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return Args{Help: true}, nil
		}
		return Args{}, &UsageError{FlagError(err)}
	}
	a.Words = fs.Args()
	j := &a.Job
	switch {
	case j.Workspace == "":
		return Args{}, &UsageError{"-w TENANT/NAME is required (the workspace to run in)"}
	case j.Timeout < 0:
		return Args{}, &UsageError{fmt.Sprintf("--timeout %s: a wall time must be positive", j.Timeout)}
	case j.WaitSet && j.Wait < 0:
		return Args{}, &UsageError{fmt.Sprintf("--wait %s: must be 0 (do not wait) or more", j.Wait)}
	case a.File != "" && len(a.Words) > 0:
		return Args{}, &UsageError{"give the script with -f or as an argument, not both"}
	}
	if j.Store == "" {
		j.Store = os.Getenv("WSFS_STORE")
	}
	for _, k := range ForwardedEnv {
		if v, ok := os.LookupEnv(k); ok {
			j.Env = append(j.Env, k+"="+v)
		}
	}
	return a, nil
}

// PrintHelp writes `wsfs run --help`.
func PrintHelp(w io.Writer) {
	var a Args
	fs := newFlagSet(&a)
	fmt.Fprintf(w, "usage: wsfs run %s\n\n%s\n\nThe script runs in a restricted bash confined to the workspace, which it sees as\n/workspace; the caller's stdin is the command's. Scripts are limited to %d MiB.\n\nflags:\n",
		Usage, Summary, MaxScript>>20)
	PrintFlags(w, fs)
}

// LoadScript completes a.Job.Script: from the words, from -f FILE (read
// with the caller's rights, relative to its folder) or from stdin (when
// neither is given, or with -f -). It reports whether the script took
// stdin, which the command then sees empty.
func (a *Args) LoadScript(stdin io.Reader) (fromStdin bool, err error) {
	var b []byte
	switch {
	case len(a.Words) > 0:
		a.Job.Script = strings.Join(a.Words, " ")
		if len(a.Job.Script) > MaxScript {
			return false, scriptTooLong(len(a.Job.Script))
		}
		return false, nil
	case a.File != "" && a.File != "-":
		f, err := os.Open(a.File)
		if err != nil {
			return false, fmt.Errorf("reading the script: %w", err)
		}
		defer f.Close()
		b, err = readScript(f)
		if err != nil {
			return false, err
		}
	default:
		fromStdin = true
		if b, err = readScript(stdin); err != nil {
			return true, err
		}
	}
	if strings.TrimSpace(string(b)) == "" {
		return fromStdin, &UsageError{"no script: give it as an argument, with -f FILE, or on stdin"}
	}
	a.Job.Script = string(b)
	return fromStdin, nil
}

// readScript reads a script of at most MaxScript bytes.
func readScript(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxScript+1))
	if err != nil {
		return nil, fmt.Errorf("reading the script: %w", err)
	}
	if len(b) > MaxScript {
		return nil, scriptTooLong(-1)
	}
	return b, nil
}

func scriptTooLong(n int) error {
	size := "longer than"
	if n >= 0 {
		size = fmt.Sprintf("%.1f MiB, over", float64(n)/(1<<20))
	}
	return &UsageError{fmt.Sprintf("the script is %s the %d MiB a script may have; pass data on stdin or put it in a file in the workspace", size, MaxScript>>20)}
}

// ErrNoServer reports that no server takes jobs on the run socket.
var ErrNoServer = errors.New("runwire: no wsfs server takes commands")

// Call sends job over the run socket at sock with the descriptors the
// command takes as stdin, stdout and stderr (sent with SCM_RIGHTS), turns
// the caller's Ctrl-C, SIGTERM and SIGHUP into interrupts of the command,
// and returns the server's report. It returns an error wrapping
// ErrNoServer, with nothing sent, when no server listens.
func Call(sock string, job Job, fds [3]int) (Report, error) {
	fd, err := dial(sock)
	if err != nil {
		return Report{}, fmt.Errorf("%w (%s: %v)", ErrNoServer, sock, err)
	}
	defer syscall.Close(fd)
	conn := fdConn(fd)
	msg := AppendJob(job)
	n, err := syscall.SendmsgN(fd, msg, syscall.UnixRights(fds[0], fds[1], fds[2]), nil, 0)
	if err == nil && n < len(msg) {
		_, err = conn.Write(msg[n:])
	}
	if err != nil {
		return Report{}, fmt.Errorf("%w (sending the command: %v)", ErrNoServer, err)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-sigs:
				_, _ = conn.Write(Interrupt())
			case <-done:
				return
			}
		}
	}()
	body, err := ReadFrame(conn)
	var rep Report
	if err == nil {
		rep, err = ParseReport(body)
	}
	if err != nil {
		return Report{}, fmt.Errorf("the wsfs server dropped the command before its end (%v); did the server stop? See wsfs ps and wsfs log", err)
	}
	return rep, nil
}

// dial connects to a unix socket with plain system calls (the front does
// without the net package).
func dial(path string) (int, error) {
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

// fdConn reads and writes a descriptor with plain system calls.
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

// Answers reports whether a server takes jobs on the run socket at sock.
func Answers(sock string) bool {
	fd, err := dial(sock)
	if err != nil {
		return false
	}
	syscall.Close(fd)
	return true
}

// SharedIdle is how long a server started for `wsfs run` stays with no
// command before it stops.
const SharedIdle = 5 * time.Minute

// startWait bounds the start of a server for `wsfs run`.
const startWait = time.Minute

// StartServer starts a server for `wsfs run` on the home whose run
// socket is sock, unless one answers there: of concurrent callers, the
// first (under the home's start lock) starts it and the others wait for
// it, so all use one server. The server mounts at mountDir, logs to
// logFile, and stops once idle for SharedIdle (or at wsfs umount). argv
// is wsfs-core's command line for it up to the mount point (wsfs-core
// mount --shared ...).
func StartServer(sock, lockFile, logFile, mountDir string, argv []string) error {
	if Answers(sock) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(lockFile), 0o700); err != nil {
		return fmt.Errorf("cannot create the state folder %s: %w (set --home or WSFS_HOME)", filepath.Dir(lockFile), err)
	}
	lock, err := os.OpenFile(lockFile, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("starting a wsfs server: %w", err)
	}
	defer lock.Close()
	deadline := time.Now().Add(startWait)
	for {
		err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if err != syscall.EWOULDBLOCK && err != syscall.EINTR {
			return fmt.Errorf("starting a wsfs server: locking %s: %w", lockFile, err)
		}
		// Another command is starting the server: use it once it answers.
		if Answers(sock) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("another command has been starting the wsfs server for %s and it does not answer; see %s", startWait, logFile)
		}
		time.Sleep(10 * time.Millisecond)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if Answers(sock) {
		return nil
	}
	if err := os.MkdirAll(mountDir, 0o700); err != nil {
		return fmt.Errorf("starting a wsfs server: mount point: %w", err)
	}
	logf, err := os.OpenFile(logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("starting a wsfs server: %w", err)
	}
	defer logf.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		return fmt.Errorf("starting a wsfs server: %w", err)
	}
	defer null.Close()
	// Its own session: no terminal's signal reaches it, and it outlives
	// the command that started it.
	p, err := os.StartProcess(argv[0], append(argv, mountDir), &os.ProcAttr{Dir: "/", Files: []*os.File{null, logf, logf},
		Sys: &syscall.SysProcAttr{Setsid: true}})
	if err != nil {
		return fmt.Errorf("starting a wsfs server (%s): %w", argv[0], err)
	}
	exited := make(chan struct{})
	go func() {
		_, _ = p.Wait()
		close(exited)
	}()
	for !Answers(sock) {
		select {
		case <-exited:
			return fmt.Errorf("the wsfs server did not start:\n%s", tail(logFile))
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = p.Kill()
			return fmt.Errorf("the wsfs server did not start within %s:\n%s", startWait, tail(logFile))
		}
	}
	return nil
}

// tail returns the last lines of a log file.
func tail(p string) string {
	b, _ := os.ReadFile(p)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	return strings.Join(lines, "\n")
}
