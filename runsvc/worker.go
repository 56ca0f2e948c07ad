package runsvc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/wsfs/wsfs/runner"
	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/jsexec"
	"github.com/wsfs/wsfs/runsvc/runwire"
)

// The hidden verbs of this program that the service starts.
const (
	// WorkerVerb starts a worker: Program WorkerVerb, with its socket on
	// descriptor workerFD (WorkerMain).
	WorkerVerb = "__worker"
	// PrepareVerb fills js-exec's compilation cache, unconfined:
	// Program PrepareVerb CACHEDIR MEMORYBYTES (PrepareMain).
	PrepareVerb = "__prepare-js"
)

// workerFD is the descriptor a worker finds its socket to the server on.
const workerFD = 3

// maxWorkerJobs bounds the commands one worker runs; then a fresh
// process takes over.
const maxWorkerJobs = 500

// maxWorkerHeap is the live heap past which a worker ends after its
// command rather than carry the command's leftovers into the next one.
const maxWorkerHeap = 64 << 20

// turnMsg is a turn with the three streams that came with it.
type turnMsg struct {
	t     runwire.Turn
	files []*os.File
}

// WorkerMain is a worker process: started confined by its server (see
// pool.go), it runs the turns the server sends on its socket, one at a
// time, each with the caller's streams (or the server's pipes), and
// answers each with its output and a Done. It ends when the server lets
// it go (or dies) or when a command leaves it unfit for another, and
// returns its exit status.
func WorkerMain() int {
	f := os.NewFile(workerFD, "wsfs-worker")
	if f == nil {
		fmt.Fprintf(os.Stderr, "wsfs %s: no worker socket (a worker is started by the wsfs server, not by hand)\n", WorkerVerb)
		return runwire.ExitUsage
	}
	fc, err := net.FileConn(f)
	f.Close()
	uc, ok := fc.(*net.UnixConn)
	if err != nil || !ok {
		fmt.Fprintf(os.Stderr, "wsfs %s: descriptor %d is not a worker socket (a worker is started by the wsfs server, not by hand)\n", WorkerVerb, workerFD)
		return runwire.ExitUsage
	}
	if _, err := runner.LimitProcess(runner.Limits{}); err != nil {
		fmt.Fprintf(os.Stderr, "wsfs %s: %v\n", WorkerVerb, err)
		return runwire.ExitFailure
	}
	w := &workerProc{conn: uc, tmp: os.Getenv(EnvWorkerTmp)}
	turns := make(chan turnMsg)
	go w.listen(turns)
	stop := w.watchSignals()
	defer stop()
	code := 0
	for tm := range turns {
		var again bool
		code, again = w.run(tm)
		if !again {
			break
		}
	}
	return code
}

// workerProc is a worker's own state.
type workerProc struct {
	conn *net.UnixConn
	tmp  string // its folder: each command's /tmp is made in it
	jobs int

	// table is the command table with js-exec under tableJS, built once:
	// a worker's workspace settings do not change (its key holds them).
	table   map[string]command.Spec
	tableJS jsexec.Config

	mu          sync.Mutex
	cancel      context.CancelFunc // the running command's
	stderr      io.Writer          // the running command's
	interrupted bool
	cpuSeconds  atomic.Uint64
}

// listen reads the server's turns; the socket's end (the server let the
// worker go, or died) ends the process, whatever it was doing.
func (w *workerProc) listen(turns chan<- turnMsg) {
	for {
		body, files, _, err := readWithRights(w.conn, 3)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				fmt.Fprintf(os.Stderr, "wsfs %s: reading the server's socket: %v\n", WorkerVerb, err)
			}
			os.Exit(0)
		}
		t, err := runwire.ParseTurn(body)
		if err == nil && len(files) != 3 {
			err = fmt.Errorf("a turn came with %d descriptors, not 3: %w", len(files), runwire.ErrFormat)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "wsfs %s: %v\n", WorkerVerb, err)
			os.Exit(runwire.ExitFailure)
		}
		turns <- turnMsg{t: t, files: files}
	}
}

// watchSignals makes Ctrl-C (SIGINT, from the server) interrupt the
// running command, and ends the worker when a command reaches its CPU
// time (the soft RLIMIT_CPU sends SIGXCPU, which Go ignores).
func (w *workerProc) watchSignals() (stop func()) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGXCPU)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-sigs:
				w.mu.Lock()
				cancel, stderr := w.cancel, w.stderr
				if sig == syscall.SIGINT {
					w.interrupted = true
				}
				w.mu.Unlock()
				if sig == syscall.SIGXCPU {
					if stderr != nil {
						fmt.Fprintf(stderr, "wsfs: cpu time limit %ds reached\n", w.cpuSeconds.Load())
					}
					_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
				}
				if cancel != nil {
					cancel()
				}
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// run runs one turn and reports it; again says the worker can take
// another turn of its workspace.
func (w *workerProc) run(tm turnMsg) (code int, again bool) {
	stdin, callerOut, callerErr := tm.files[0], tm.files[1], tm.files[2]
	sink := newFrameSink(w.conn)
	var stdout, stderr io.Writer = sink.writer(runwire.KindStdout), sink.writer(runwire.KindStderr)
	if tm.t.Direct {
		stdout, stderr = teeWriter{callerOut, stdout}, teeWriter{callerErr, stderr}
	}
	for _, kv := range tm.t.Env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == "TZ" {
			if loc, err := time.LoadLocation(v); err == nil {
				time.Local = loc
			}
		}
	}
	level := slog.LevelWarn
	for _, kv := range tm.t.Env {
		if strings.HasPrefix(kv, "WSFS_DEBUG=") && kv != "WSFS_DEBUG=" {
			level = slog.LevelDebug
		}
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.mu.Lock()
	w.cancel, w.stderr = cancel, stderr
	interrupted := w.interrupted
	w.mu.Unlock()
	if interrupted {
		cancel() // interrupted before the command began
	}
	defer func() {
		w.mu.Lock()
		w.cancel, w.stderr = nil, nil
		w.mu.Unlock()
	}()

	limits := runner.Limits{WallTime: tm.t.WallTime, MaxOutputBytes: int(tm.t.MaxOutput), MaxVisibleEntries: int(tm.t.MaxVisible),
		MaxMemoryBytes: runner.DefaultWorkerHeap, MaxCPUTime: tm.t.CPUTime}
	res := runner.Result{ExitCode: runwire.ExitFailure, Cwd: tm.t.Cwd}
	retire := ""
	if cpu, err := runner.LimitCPU(limits); err != nil {
		fmt.Fprintf(stderr, "wsfs: %v\n", err)
		retire = "its CPU limit could not be set"
	} else {
		w.cpuSeconds.Store(cpu)
		scratch, err := os.MkdirTemp(w.tmp, "job-")
		if err != nil {
			fmt.Fprintf(stderr, "wsfs: making the command's /tmp: %v\n", err)
			retire = "its folder cannot hold a /tmp"
		} else {
			js := jsexec.Config{Timeout: tm.t.JSTime, MemoryLimit: int(tm.t.JSMemory), CacheDir: tm.t.JSCache}
			if strings.Contains(tm.t.Script, "js-exec") {
				// From the cache the server filled (read only here), or
				// compiled in memory when it could not.
				if err := jsexec.Prepare(ctx, js); err != nil {
					log.Warn("wsfs run: js-exec could not be prepared; it will compile QuickJS itself", "err", err)
				}
			}
			commands := w.commands(js)
			res = runner.Run(ctx, runner.Config{Script: tm.t.Script, WorkspaceDir: tm.t.Dir, ScratchDir: scratch, Cwd: tm.t.Cwd,
				Limits: limits, Stdin: stdin, Stdout: stdout, Stderr: stderr, Commands: commands,
				History: append(tm.t.History, tm.t.Script), Logger: log})
			os.RemoveAll(scratch)
		}
	}
	w.jobs++
	w.mu.Lock()
	interrupted = w.interrupted
	w.mu.Unlock()
	switch {
	case retire != "":
	case interrupted:
		retire = "its command was interrupted"
	case fatalLimit(res.LimitsHit) != "":
		retire = "its command hit a limit: " + fatalLimit(res.LimitsHit)
	case w.jobs >= maxWorkerJobs:
		retire = fmt.Sprintf("it ran %d commands", maxWorkerJobs)
	case heapAlloc() >= maxWorkerHeap:
		runtime.GC() // rarely: the heap counts garbage until collected
		if heapAlloc() >= maxWorkerHeap {
			retire = "its heap stays above 64 MiB"
		}
	}
	d := runwire.Done{ExitCode: res.ExitCode, Cwd: res.Cwd, Duration: res.Duration, Truncated: res.Truncated,
		LimitsHit: res.LimitsHit, Again: retire == "", Retire: retire}
	if tm.t.Tails {
		d.Stdout, d.Stderr = res.Stdout, res.Stderr
	}
	// The caller's streams close before Done goes, so a caller reading
	// them to their end is not held up by this process.
	closeFiles(tm.files)
	sink.finish(runwire.AppendDone(d))
	return res.ExitCode, d.Again
}

// commands returns the command table with js-exec under js (the runner
// only reads it).
func (w *workerProc) commands(js jsexec.Config) map[string]command.Spec {
	if w.table == nil || w.tableJS != js {
		w.table = runner.DefaultCommands()
		w.table["js-exec"] = jsexec.Spec(js)
		w.tableJS = js
	}
	return w.table
}

// fatalLimit returns the first limit in hit that leaves a worker unfit
// for another command (its heap, its goroutines, its stack or a command
// cut short), or "". The output kept, the entries made and the files open
// are ordinary limits, as are js-exec's (its engine goes with its run).
func fatalLimit(hit []string) string {
	for _, line := range hit {
		switch {
		case strings.HasPrefix(line, "wsfs: output limit"), strings.HasPrefix(line, "wsfs: entry limit"),
			strings.HasPrefix(line, "wsfs: open file limit"), strings.HasPrefix(line, "js-exec:"):
		default:
			return line
		}
	}
	return ""
}

// heapAlloc is the heap's objects, garbage included, read without
// stopping the world (runtime.ReadMemStats would).
func heapAlloc() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64()
}

// teeWriter writes to the caller's stream and copies to the server; a
// server that stopped listening does not stop the command's output.
type teeWriter struct{ local, remote io.Writer }

func (t teeWriter) Write(p []byte) (int, error) {
	_, _ = t.remote.Write(p)
	return t.local.Write(p)
}

// frameSink sends a command's output to the server as frames, batched:
// while one write to the socket is under way, further output gathers and
// goes in the next, so a large output costs few system calls and a small
// one goes at once. At most maxPending bytes wait; a writer past that
// waits for the socket.
type frameSink struct {
	conn    *net.UnixConn
	mu      sync.Mutex
	cond    *sync.Cond
	pending []byte
	closed  bool
	failed  bool // the server stopped reading: output is dropped
	done    chan struct{}
}

const (
	maxPending  = 1 << 20
	maxOutFrame = 256 << 10
)

func newFrameSink(c *net.UnixConn) *frameSink {
	s := &frameSink{conn: c, done: make(chan struct{})}
	s.cond = sync.NewCond(&s.mu)
	go s.flush()
	return s
}

func (s *frameSink) flush() {
	defer close(s.done)
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		for len(s.pending) == 0 && !s.closed {
			s.cond.Wait()
		}
		if len(s.pending) == 0 && s.closed {
			return
		}
		b := s.pending
		s.pending = nil
		s.cond.Broadcast()
		s.mu.Unlock()
		var err error
		if !s.failed {
			_, err = s.conn.Write(b)
		}
		s.mu.Lock()
		if err != nil {
			s.failed = true
		}
	}
}

// writer returns the writer of one stream.
func (s *frameSink) writer(kind byte) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		n := len(p)
		s.mu.Lock()
		defer s.mu.Unlock()
		for len(p) > 0 {
			for len(s.pending) >= maxPending && !s.failed {
				s.cond.Wait()
			}
			chunk := p[:min(len(p), maxOutFrame)]
			s.pending = runwire.AppendOutput(s.pending, kind, chunk)
			p = p[len(chunk):]
			s.cond.Broadcast()
		}
		return n, nil
	})
}

// finish sends the last frame after all the output and waits until it
// is written.
func (s *frameSink) finish(last []byte) {
	s.mu.Lock()
	s.pending = append(s.pending, last...)
	s.closed = true
	s.cond.Broadcast()
	s.mu.Unlock()
	<-s.done
}

// PrepareMain fills js-exec's compilation cache for a memory cap (the
// hidden verb PrepareVerb CACHEDIR MEMORYBYTES), unconfined: the server
// runs it before a worker's first js-exec, since workers may only read
// the cache.
func PrepareMain(args []string) int {
	if len(args) != 2 {
		fmt.Fprintf(os.Stderr, "wsfs %s: want CACHEDIR MEMORYBYTES (the wsfs server runs this)\n", PrepareVerb)
		return runwire.ExitUsage
	}
	mem, err := strconv.Atoi(args[1])
	if err != nil || mem <= 0 {
		fmt.Fprintf(os.Stderr, "wsfs %s: bad memory size %q\n", PrepareVerb, args[1])
		return runwire.ExitUsage
	}
	if err := jsexec.Prepare(context.Background(), jsexec.Config{CacheDir: args[0], MemoryLimit: mem}); err != nil {
		fmt.Fprintf(os.Stderr, "wsfs %s: %v\n", PrepareVerb, err)
		return runwire.ExitFailure
	}
	return 0
}

// jsPrep runs PrepareMain in a helper process once per memory cap, for
// the workers.
type jsPrep struct {
	s     *Service
	mu    sync.Mutex
	ready map[int]bool
}

func (j *jsPrep) init(s *Service) {
	j.s, j.ready = s, map[int]bool{}
}

// ensure makes sure the cache holds QuickJS for memory cap mem (0: the
// default), running the helper if it does not. A failure only means the
// worker compiles in memory, and is logged.
func (j *jsPrep) ensure(ctx context.Context, mem int) {
	if mem <= 0 {
		mem = jsexec.DefaultMemoryLimit
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.ready[mem] || j.s.cfg.JSCache == "" {
		return
	}
	if jsexec.Prepared(jsexec.Config{CacheDir: j.s.cfg.JSCache, MemoryLimit: mem}) {
		j.ready[mem] = true
		return
	}
	if err := os.MkdirAll(j.s.cfg.JSCache, 0o700); err != nil {
		j.s.log.Warn("runsvc: js-exec's cache folder cannot be made; workers compile QuickJS in memory", "err", err)
		return
	}
	cmd := exec.CommandContext(ctx, j.s.cfg.Program, PrepareVerb, j.s.cfg.JSCache, strconv.Itoa(mem))
	cmd.Env = []string{"TMPDIR=" + os.TempDir()}
	out, err := cmd.CombinedOutput()
	if err != nil {
		j.s.log.Warn("runsvc: js-exec could not be prepared; workers compile QuickJS in memory", "err", err, "output", strings.TrimSpace(string(out)))
		return
	}
	j.ready[mem] = true
}
