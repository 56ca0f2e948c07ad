package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sort"
	"sync"
	"time"

	"github.com/wsfs/wsfs/runner/bash"
	"github.com/wsfs/wsfs/runner/command"
)

// Default limits (DESIGN.md, "Runner limits").
const (
	DefaultWallTime          = 15 * time.Second
	DefaultMaxOutputBytes    = 128 << 10
	DefaultMaxVisibleEntries = 1000
	DefaultMaxOpenFiles      = bash.DefaultMaxOpenFiles
	DefaultMaxCallDepth      = bash.DefaultMaxCallDepth
	DefaultMaxGoroutines     = bash.DefaultMaxGoroutines
)

// Exit statuses the runner itself gives.
const (
	StatusUsage    = 2   // the script does not parse or uses a refused construct
	StatusNotFound = 127 // unknown command
	StatusTimeout  = 124 // wall time reached, as GNU timeout
)

// Limits bound one command. A zero field takes its default; MaxMemoryBytes
// zero means no in-process memory watch (the process then relies on
// LimitProcess's address-space rlimit alone).
type Limits struct {
	WallTime          time.Duration
	MaxOutputBytes    int // tail kept per stream in the Result
	MaxVisibleEntries int // files, folders and links created in /workspace and /tmp
	MaxOpenFiles      int // files the shell holds open at once (redirections, exec N<file)
	MaxCallDepth      int // nested shell function calls
	// MaxMemoryBytes stops the command when the Go heap grows past it. It
	// watches the whole process, so it suits a worker process (or a test).
	MaxMemoryBytes uint64
	// MaxAddressSpace is the worker's address-space rlimit (LimitProcess);
	// zero means DefaultWorkerMemory. It is a last wall, far above the heap
	// watch: Go and wazero reserve address space generously.
	MaxAddressSpace uint64
	// MaxCPUTime is a command's CPU time (LimitCPU); zero means
	// twice WallTime.
	MaxCPUTime time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.WallTime <= 0 {
		l.WallTime = DefaultWallTime
	}
	if l.MaxOutputBytes <= 0 {
		l.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if l.MaxVisibleEntries <= 0 {
		l.MaxVisibleEntries = DefaultMaxVisibleEntries
	}
	if l.MaxOpenFiles <= 0 {
		l.MaxOpenFiles = DefaultMaxOpenFiles
	}
	if l.MaxCallDepth <= 0 {
		l.MaxCallDepth = DefaultMaxCallDepth
	}
	return l
}

// Config is one agent command.
type Config struct {
	Script       string
	WorkspaceDir string // host folder shown as /workspace
	ScratchDir   string // host folder shown as /tmp, for this command only
	Cwd          string // agent path; "" means /workspace
	Env          []string
	Limits       Limits
	Stdin        io.Reader // nil: empty input
	Stdout       io.Writer // live streams; nil discards
	Stderr       io.Writer
	// Commands is the command table; nil means DefaultCommands().
	Commands map[string]command.Spec
	Logger   *slog.Logger // nil: slog.Default()

	// History lists the workspace's recent commands, oldest first and
	// ending with this one (as bash's history does), for `history`.
	History []string
}

// Result is what the command did.
type Result struct {
	ExitCode  int
	Stdout    []byte // the last Limits.MaxOutputBytes of stdout
	Stderr    []byte // the last Limits.MaxOutputBytes of stderr
	Truncated bool   // a stream was longer than what Stdout/Stderr keep
	Cwd       string // the agent's working directory at the end
	Duration  time.Duration
	LimitsHit []string // one line per limit reached, as printed on stderr
}

// runState is what one Run shares with its interpreter's hooks: the
// limits reached, the cancellation.
type runState struct {
	cfg    Config
	lim    Limits
	fsys   *command.RootFS
	stderr io.Writer // the run's stderr, for limit lines

	mu        sync.Mutex
	created   int
	limitsHit []string
	hitOnce   map[string]bool
	cancel    context.CancelCauseFunc
	wrapFile  func(command.File) command.File // see run
}

// hit records a limit once and prints its line on stderr.
func (s *runState) hit(key, line string) {
	s.mu.Lock()
	if s.hitOnce[key] {
		s.mu.Unlock()
		return
	}
	s.hitOnce[key] = true
	s.limitsHit = append(s.limitsHit, line)
	s.mu.Unlock()
	io.WriteString(s.stderr, line+"\n")
}

// recordLimit records a limit a command reached and printed itself.
func (s *runState) recordLimit(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.hitOnce[line] {
		s.hitOnce[line] = true
		s.limitsHit = append(s.limitsHit, line)
	}
}

// limitError stops the script when a limit is reached.
type limitError struct{ line string }

func (e *limitError) Error() string { return e.line }

// Run runs one agent command to completion and returns its result. It
// never returns an error: every failure is an exit status and a message on
// the command's stderr, as a shell would give it.
func Run(ctx context.Context, cfg Config) Result {
	return run(ctx, cfg, nil)
}

// run is Run with a hook that wraps every file the command opens (nil in
// production; tests use it to make a file refuse writes as a full quota
// on the mount would).
func run(ctx context.Context, cfg Config, wrapFile func(command.File) command.File) Result {
	start := time.Now()
	lim := cfg.Limits.withDefaults()
	stdoutTail := newTail(lim.MaxOutputBytes, cfg.Stdout)
	stderrTail := newTail(lim.MaxOutputBytes, cfg.Stderr)
	res := Result{Cwd: "/workspace"}
	if cfg.Cwd != "" {
		res.Cwd = path.Clean(cfg.Cwd)
	}
	finish := func(code int, st *runState) Result {
		res.ExitCode = code
		res.Stdout, res.Stderr = stdoutTail.bytes(), stderrTail.bytes()
		res.Truncated = stdoutTail.truncated() || stderrTail.truncated()
		res.Duration = time.Since(start)
		if st != nil {
			st.mu.Lock()
			res.LimitsHit = append([]string(nil), st.limitsHit...)
			st.mu.Unlock()
		}
		if res.Truncated {
			// Nothing is cut from the live streams, so no line is printed;
			// the result says what it left out.
			res.LimitsHit = append(res.LimitsHit, fmt.Sprintf("wsfs: output limit reached: the result keeps the last %d bytes of each stream", lim.MaxOutputBytes))
		}
		return res
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}

	mounts := map[string]string{"/workspace": cfg.WorkspaceDir}
	if cfg.ScratchDir != "" {
		mounts["/tmp"] = cfg.ScratchDir
	}
	fsys, err := command.NewRootFS(mounts, "/workspace")
	if err != nil {
		fmt.Fprintf(stderrTail, "wsfs: cannot open the workspace: %v\n", err)
		return finish(1, nil)
	}
	defer fsys.Close()
	table := cfg.Commands
	names := func() []string { return programNames(table) }
	if table == nil {
		table = defaultTable()
		names = defaultNames
	}
	fsys.SetProgramTable(func(n string) bool { _, ok := table[n]; return ok }, names)

	st := &runState{cfg: cfg, lim: lim, fsys: fsys, stderr: stderrTail, hitOnce: map[string]bool{}, wrapFile: wrapFile}

	if fi, err := fsys.Stat(res.Cwd); err != nil || !fi.IsDir() {
		fmt.Fprintf(stderrTail, "wsfs: working directory %s no longer exists; starting in /workspace\n", res.Cwd)
		res.Cwd = "/workspace"
	}

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	st.cancel = cancel
	runCtx, cancelTimer := context.WithTimeoutCause(runCtx, lim.WallTime, errWallTime)
	defer cancelTimer()
	if lim.MaxMemoryBytes > 0 {
		stop := watchMemory(runCtx, st, lim.MaxMemoryBytes)
		defer stop()
	}

	env := append([]string{"HOME=/workspace", "PATH=" + bash.DefaultPath, "LANG=C.UTF-8", "SHELL=/bin/bash", "USER=agent"}, cfg.Env...)
	bcfg := &bash.Config{
		FS:            fsys,
		WrapFS:        func(v command.FS) command.FS { return &limitFS{FS: v, st: st} },
		Commands:      table,
		History:       cfg.History,
		MaxCallDepth:  lim.MaxCallDepth,
		MaxOpenFiles:  lim.MaxOpenFiles,
		MaxGoroutines: DefaultMaxGoroutines,
		Limit:         st.hit,
		Record:        st.recordLimit,
		Stop:          func(cause error) { cancel(&limitError{cause.Error()}) },
	}
	inv := bash.Invocation{Script: cfg.Script, Env: env, Dir: res.Cwd, Stdin: cfg.Stdin, Stdout: stdoutTail, Stderr: stderrTail}

	type outcome struct {
		status int
		dir    string
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				logger.Error("runner: interpreter panic", "panic", p, "stack", string(debug.Stack()))
				fmt.Fprintf(stderrTail, "wsfs: internal error: %v\n", p)
				done <- outcome{status: 1, dir: res.Cwd}
			}
		}()
		status, dir := bash.Run(runCtx, bcfg, inv)
		done <- outcome{status, dir}
	}()
	var out outcome
	select {
	case out = <-done:
	case <-runCtx.Done():
		// The interpreter stops promptly once the context is done; give it
		// a moment, then report without waiting for a stuck command.
		select {
		case out = <-done:
		case <-time.After(2 * time.Second):
			logger.Warn("runner: command did not stop after its context ended")
			out = outcome{status: StatusTimeout, dir: res.Cwd}
		}
	}
	res.Cwd = out.dir
	code := out.status
	var limErr *limitError
	cause := context.Cause(runCtx)
	switch {
	case errors.Is(cause, errWallTime):
		st.hit("wall-time", fmt.Sprintf("wsfs: time limit %s reached", lim.WallTime))
		code = StatusTimeout
	case errors.As(cause, &limErr):
		code = 1
	case ctx.Err() != nil:
		fmt.Fprintf(stderrTail, "wsfs: command cancelled: %v\n", context.Cause(ctx))
		code = 130
	}
	return finish(code, st)
}

// programNames lists the command table's names, sorted, for /bin and
// /usr/bin.
func programNames(table map[string]command.Spec) []string {
	names := make([]string, 0, len(table))
	for n := range table {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// defaultNames is programNames of the default table, sorted once.
var defaultNames = sync.OnceValue(func() []string { return programNames(defaultTable()) })

var errWallTime = errors.New("runner: wall time reached")

// watchMemory cancels the run when the heap passes max.
func watchMemory(ctx context.Context, st *runState, max uint64) func() {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	// The watch counts garbage too: a previous command's leftovers are
	// collected first when they are large, rather than after every
	// command (a full collection costs milliseconds).
	metrics.Read(sample)
	if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > max/4 {
		runtime.GC()
	}
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > max {
				line := fmt.Sprintf("wsfs: memory limit %d MiB reached", max>>20)
				st.hit("memory", line)
				st.cancel(&limitError{line})
				return
			}
		}
	}()
	return func() { close(stop) }
}
