package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/wsfs/wsfs/runner/command"
)

// Default limits (DESIGN.md, "Runner limits").
const (
	DefaultWallTime          = 15 * time.Second
	DefaultMaxOutputBytes    = 128 << 10
	DefaultMaxVisibleEntries = 1000
	DefaultMaxOpenFiles      = 256
	DefaultMaxCallDepth      = 1000
	DefaultMaxGoroutines     = 2048
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

// runState is shared by the handlers of one Run.
type runState struct {
	cfg    Config
	lim    Limits
	fsys   *command.RootFS
	table  map[string]command.Spec
	stderr io.Writer // the run's stderr, for limit lines

	mu        sync.Mutex
	created   int
	open      map[*trackedFile]struct{}
	limitsHit []string
	hitOnce   map[string]bool
	calls     atomic.Int64 // simple commands run, to pace the depth check
	cancel    context.CancelCauseFunc
	wrapFile  func(command.File) command.File // see run
	fdt       fdTable                         // descriptors above 2
	noclobber atomic.Bool                     // set -o noclobber
	pipes     pipeStatuses                    // for PIPESTATUS
	// goroutineBase is the process's goroutine count when the run began;
	// the pipeline limit counts above it.
	goroutineBase int
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

	prog, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cfg.Script), "")
	if err != nil {
		fmt.Fprintf(stderrTail, "wsfs: syntax error: %v\n", err)
		return finish(StatusUsage, nil)
	}
	if msg := Preflight(prog); msg != "" {
		fmt.Fprintf(stderrTail, "wsfs: %s\n", msg)
		return finish(StatusUsage, nil)
	}
	rewriteFile(prog)
	prog.Name = "bash" // $0, as under bash -c

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

	st := &runState{cfg: cfg, lim: lim, fsys: fsys, table: cfg.Commands, stderr: stderrTail,
		open: map[*trackedFile]struct{}{}, hitOnce: map[string]bool{},
		goroutineBase: runtime.NumGoroutine(), wrapFile: wrapFile}
	if st.table == nil {
		st.table = defaultTable()
	}
	defer st.closeAll()

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

	env := append([]string{"HOME=/workspace", "PATH=", "LANG=C.UTF-8", "SHELL=/bin/bash", "USER=agent"}, cfg.Env...)
	r, err := st.newInterp(append(env, noFIFOs), cfg.Stdin, stdoutTail, stderrTail)
	if err != nil {
		fmt.Fprintf(stderrTail, "wsfs: %v\n", err)
		return finish(1, st)
	}
	r.Dir = res.Cwd

	type outcome struct {
		err error
		dir string
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				logger.Error("runner: interpreter panic", "panic", p)
				done <- outcome{err: fmt.Errorf("runner: internal error: %v", p), dir: res.Cwd}
			}
		}()
		// The interpreter fixes its FIFO folder from TMPDIR at its first
		// run (a folder no agent path reaches); the agent sees no TMPDIR.
		for _, s := range prelude("/bin/bash") {
			if err := r.Run(runCtx, s); err != nil {
				done <- outcome{err: err, dir: res.Cwd}
				return
			}
		}
		err := r.Run(withScope(runCtx, prog), prog)
		done <- outcome{err: err, dir: r.Dir}
	}()
	var out outcome
	select {
	case out = <-done:
	case <-runCtx.Done():
		// Commands must return promptly once the context is done; give
		// them a moment, then report without waiting for a stuck one.
		select {
		case out = <-done:
		case <-time.After(2 * time.Second):
			logger.Warn("runner: command did not stop after its context ended")
			out = outcome{err: context.Cause(runCtx), dir: res.Cwd}
		}
	}
	res.Cwd = out.dir
	code := 0
	var status interp.ExitStatus
	var limErr *limitError
	cause := context.Cause(runCtx)
	switch {
	case errors.Is(cause, errWallTime) || (ctx.Err() == nil && errors.Is(out.err, context.DeadlineExceeded)):
		st.hit("wall-time", fmt.Sprintf("wsfs: time limit %s reached", lim.WallTime))
		code = StatusTimeout
	case errors.As(cause, &limErr):
		code = 1
	case ctx.Err() != nil:
		fmt.Fprintf(stderrTail, "wsfs: command cancelled: %v\n", context.Cause(ctx))
		code = 130
	case out.err == nil:
	case errors.As(out.err, &status):
		code = int(status)
	case errors.As(out.err, &limErr):
		code = 1
	default:
		fmt.Fprintf(stderrTail, "wsfs: %v\n", out.err)
		code = 1
	}
	return finish(code, st)
}

var errWallTime = errors.New("runner: wall time reached")

// noFIFOs points the interpreter's FIFO folder (TMPDIR at its first run)
// at a folder no agent path reaches. Process substitution, refused by the
// preflight, makes FIFOs there through host calls, and the interpreter opens
// any path in that folder with the host's open, bypassing the handlers.
const noFIFOs = "TMPDIR=/dev/wsfs-no-fifos"

// newInterp builds an interpreter with every handler confined. A nil
// stdin reads as empty (and spares the interpreter a pipe and a goroutine
// to feed it).
func (st *runState) newInterp(env []string, stdin io.Reader, stdout, stderr io.Writer, extra ...interp.RunnerOption) (*interp.Runner, error) {
	return interp.New(append([]interp.RunnerOption{
		interp.Env(expand.ListEnviron(env...)),
		interp.StdIO(stdin, stdout, traceFilter{stderr}),
		interp.CallHandler(st.call),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return st.exec }),
		interp.OpenHandler(st.openHandler),
		interp.ReadDirHandler2(st.readDir),
		interp.StatHandler(st.stat),
		interp.AccessHandler(st.access),
	}, extra...)...)
}

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

// agentEnviron lists the exported variables of a handler context.
func agentEnviron(hc interp.HandlerContext) []string {
	var environ []string
	hc.Env.Each(func(name string, vr expand.Variable) bool {
		if vr.Exported && vr.IsSet() {
			environ = append(environ, name+"="+vr.String())
		}
		return true
	})
	return environ
}

// fsFor is the agent's view for one command or handler call.
func (st *runState) fsFor(dir string, stdin io.Reader, stdout, stderr io.Writer) command.FS {
	return &limitFS{RootFS: st.fsys.WithDir(dir, stdin, stdout, stderr), st: st}
}

// osPathError returns err as the unwrapped *os.PathError the interpreter
// needs to treat a failure as ordinary (anything else halts it).
func osPathError(op, name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &os.PathError{Op: pe.Op, Path: pe.Path, Err: pe.Err}
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return &os.PathError{Op: le.Op, Path: le.New, Err: le.Err}
	}
	return &os.PathError{Op: op, Path: name, Err: err}
}

// shellScope is what belongs to one shell, the command's or a nested
// bash: the functions its script declares (for type and command -v) and
// the aliases it defined. It travels in the context the shell runs with,
// so every handler of that shell finds it.
type shellScope struct {
	mu      sync.Mutex
	funcs   map[string]bool
	aliases map[string]bool
	// pendingSource is the rewritten text of the file `source` is about
	// to open (the open handler hands it over instead of the file).
	pendingSource     string
	pendingSourceText string
}

func (sc *shellScope) setPendingSource(name, text string) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.pendingSource, sc.pendingSourceText = name, text
}

// takePendingSource returns the rewritten text for name once, if source
// registered it; any other open drops it.
func (sc *shellScope) takePendingSource(name string) (string, bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.pendingSource == "" {
		return "", false
	}
	match := sc.pendingSource == name
	text := sc.pendingSourceText
	sc.pendingSource, sc.pendingSourceText = "", ""
	return text, match
}

type scopeKey struct{}

// withScope returns ctx for running the script f in a shell of its own.
func withScope(ctx context.Context, f *syntax.File) context.Context {
	return context.WithValue(ctx, scopeKey{}, &shellScope{funcs: declaredFuncs(f), aliases: map[string]bool{}})
}

// scopeOf returns the scope of the shell a handler runs for.
func scopeOf(ctx context.Context) *shellScope {
	if sc, ok := ctx.Value(scopeKey{}).(*shellScope); ok {
		return sc
	}
	return &shellScope{funcs: map[string]bool{}, aliases: map[string]bool{}}
}

// declaredFuncs lists the functions a script declares anywhere.
func declaredFuncs(f *syntax.File) map[string]bool {
	names := map[string]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			names[fd.Name.Value] = true
		}
		return true
	})
	return names
}
