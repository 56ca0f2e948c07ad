package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/wsfs/wsfs/api"
	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/runner"
	"github.com/wsfs/wsfs/runner/jsexec"
)

func init() {
	register(&verb{name: "run", args: "-w TENANT/NAME [--json] [--timeout D] [--wait D] [-f FILE | SCRIPT | < script]",
		summary: "run a bash script as an agent in a workspace (confined; one revision per command that changes something)", run: runRun})
	register(&verb{name: "output", args: "REF", summary: "print the full output of a command (its output_ref)", run: runOutput})
}

// runJSON is what wsfs run --json prints.
type runJSON struct {
	ExitCode   int         `json:"exit_code"`
	Stdout     string      `json:"stdout"`
	Stderr     string      `json:"stderr"`
	Truncated  bool        `json:"truncated"`
	OutputRef  string      `json:"output_ref"`
	Revision   meta.RevNum `json:"revision"`
	Committed  bool        `json:"committed"`
	DurationMS int64       `json:"duration_ms"`
	LimitsHit  []string    `json:"limits_hit"`
	Refusals   []string    `json:"refusals,omitempty"`
}

func runRun(ctx context.Context, a *app, args []string) error {
	return runCommand(ctx, a, args, runCaller{})
}

// runCaller is what a `wsfs run` gets from whoever called it, beyond the
// streams and arguments in a and args: the process itself (the slow path)
// or a warm worker running a job from the run socket (worker.go).
type runCaller struct {
	// cwd is the caller's folder, where a relative -f FILE is read; ""
	// is this process's.
	cwd string
	// author is the default author; "" is this process's user name.
	author string
	// client is a connection to the server made in advance; nil dials the
	// running server or starts a private one.
	client *api.Client
	// confineTmp is where runner.Confine makes its private temporary
	// folder (the worker's server removes it); "" is $TMPDIR.
	confineTmp string
	// jsWarm closes when a warm worker's idle js-exec warm-up has ended; a
	// script that runs js-exec waits for it (at most jsWarmUpWait) before
	// preparing its own. Nil: nothing to wait for.
	jsWarm <-chan struct{}
	// keepClient leaves client's connections open after the command (a
	// warm worker's next job uses them).
	keepClient bool
	// fileScript is the content of -f FILE as the caller read it, or
	// fileScriptErr why it did not read; both nil: FILE is read here.
	fileScript    *string
	fileScriptErr error
	// binding, for a warm worker, keeps its confinement between jobs:
	// the first job confines the process to its workspace (reusably),
	// later ones check they run in that workspace; each job's /tmp is
	// a folder under binding.scratchRoot that the worker removes. Nil:
	// this process runs one command.
	binding *workerBinding
}

// jsWarmUpWait bounds how long a job waits for the idle js-exec warm-up.
const jsWarmUpWait = 10 * time.Second

// runCommand is `wsfs run`: it takes a turn on the workspace from the
// server, confines itself, runs the script on the mount, streams its
// output to the server and reports the snapshot.
func runCommand(ctx context.Context, a *app, args []string, rc runCaller) error {
	v := verbs["run"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	var workspace string
	fs.StringVar(&workspace, "w", "", "the workspace (TENANT/NAME)")
	fs.StringVar(&workspace, "workspace", "", "the workspace (TENANT/NAME)")
	asJSON := fs.Bool("json", false, "print {exit_code, stdout, stderr, truncated, output_ref, revision, committed, duration_ms, limits_hit}")
	timeout := fs.Duration("timeout", 0, "wall time of the command (at most the workspace's wall-time quota)")
	wait := fs.Duration("wait", -1, "give up with \"busy\" when the command has not started after this long (default: wait for its turn)")
	file := fs.String("f", "", "read the script from FILE (- for stdin)")
	author := fs.String("author", "", "who runs the command, recorded in the revision (default: the user name)")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if workspace == "" {
		return usagef("-w TENANT/NAME is required (the workspace to run in)")
	}
	name, err := meta.ParseWorkspace(workspace)
	if err != nil {
		return usagef("-w: %v", err)
	}
	if *file != "" && *file != "-" && rc.cwd != "" && !filepath.IsAbs(*file) {
		*file = filepath.Join(rc.cwd, *file)
	}
	script, err := readScript(a, *file, fs.Args(), rc.fileScript, rc.fileScriptErr)
	if err != nil {
		return err
	}
	if *author == "" {
		*author = rc.author
	}
	if *author == "" {
		if u, err := user.Current(); err == nil {
			*author = u.Username
		}
	}
	home, err := g.homeDir()
	if err != nil {
		return err
	}

	c, stopPrivate := rc.client, func() {}
	if c == nil {
		if c, stopPrivate, err = dialOrStart(ctx, a, &g, home); err != nil {
			return err
		}
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			stopPrivate()
		}
	}
	defer stop()
	if !rc.keepClient {
		defer c.Close()
	}

	var scratch string
	switch {
	case rc.binding != nil:
		// The worker's own folder: the server has nothing to remove.
		if scratch, err = os.MkdirTemp(rc.binding.scratchRoot, "job-"); err != nil {
			rc.binding.retire = true
			return fmt.Errorf("run: making the scratch folder for /tmp: %w", err)
		}
		defer os.RemoveAll(scratch)
	default:
		if scratch, err = os.MkdirTemp("", "wsfs-run-"); err != nil {
			return fmt.Errorf("run: making the scratch folder for /tmp: %w", err)
		}
	}
	// Without a warm worker's folder, Confine's private folder goes into
	// one the server removes after the command (the confined worker
	// cannot remove it).
	private := ""
	if rc.confineTmp == "" {
		if private, err = os.MkdirTemp("", "wsfs-run-"); err != nil {
			os.RemoveAll(scratch)
			return fmt.Errorf("run: making the worker's private folder: %w", err)
		}
		rc.confineTmp = private
	}
	removeScratch := rc.binding == nil
	defer func() {
		if removeScratch {
			os.RemoveAll(scratch)
			if private != "" {
				os.RemoveAll(private)
			}
		}
	}()
	q := api.RunStartRequest{Workspace: name, Script: script, Author: *author, PrivateDir: private}
	if rc.binding == nil {
		q.ScratchDir = scratch
	}
	if *wait >= 0 {
		q.Wait = wait
	}
	turn, err := c.RunStart(ctx, q)
	if err != nil {
		return err
	}
	removeScratch = false // the server removes it when the command ends

	limits := runner.Limits{WallTime: turn.Quotas.WallTime, MaxOutputBytes: int(turn.Quotas.MaxOutputBytes),
		MaxVisibleEntries: int(turn.Quotas.MaxVisibleEntries), MaxMemoryBytes: runner.DefaultWorkerHeap}
	if *timeout > 0 && (limits.WallTime <= 0 || *timeout < limits.WallTime) {
		limits.WallTime = *timeout
	}
	// The report must reach the server even after an interrupt stopped the
	// command, so the stream outlives ctx.
	stream := c.RunStream(context.WithoutCancel(ctx), turn.Lease)
	// An empty frame returns once the request is on its connection: the
	// rest of the command talks over it, so the confined worker needs no
	// new connection to the socket.
	if err := stream.Attach(); err != nil {
		a.log.Warn("wsfs run: the output stream did not open", "err", err)
	}
	// js-exec under the workspace's own limits.
	js := jsexec.Config{Timeout: turn.Quotas.JSTime, MemoryLimit: int(turn.Quotas.JSMemoryBytes), CacheDir: jsCacheDir(home)}
	commands := runner.DefaultCommands()
	commands["js-exec"] = jsexec.Spec(js)
	cfg := runner.Config{Script: script, WorkspaceDir: turn.Dir, ScratchDir: scratch, Cwd: turn.Cwd, Limits: limits,
		Commands: commands, History: append(turn.History, script), Logger: a.log}
	// The caller's stdin is the command's, unless it carried the script.
	if *file != "-" && (*file != "" || len(fs.Args()) > 0) {
		cfg.Stdin = a.stdin
	}
	// js-exec's QuickJS, loaded from (or compiled into) the server's cache
	// folder while the worker can still write it; once confined it can
	// only read it, and a module missing there compiles in memory
	// (seconds). A script that names js-exec waits for a warm worker's
	// idle warm-up (the default memory cap), then prepares its own cap.
	// A warm worker's first job also prepares a cap other than the
	// default, for its later jobs; otherwise it does not wait: the
	// warm-up goes on once the worker is confined.
	firstOfWorker := rc.binding != nil && rc.binding.dir == ""
	otherCap := js.MemoryLimit > 0 && js.MemoryLimit != jsexec.DefaultMemoryLimit
	if strings.Contains(script, "js-exec") || firstOfWorker && otherCap {
		if rc.jsWarm != nil {
			select {
			case <-rc.jsWarm:
			case <-time.After(jsWarmUpWait):
			}
		}
		if err := jsexec.Prepare(ctx, js); err != nil {
			a.log.Warn("wsfs run: js-exec could not be prepared; it will compile QuickJS itself", "err", err)
		}
	}
	var stdout, stderr io.Writer = a.stdout, a.stderr
	if *asJSON {
		stdout, stderr = io.Discard, io.Discard
	}
	cfg.Stdout = teeWriter{stdout, stream.Stdout()}
	cfg.Stderr = teeWriter{stderr, stream.Stderr()}
	var res runner.Result
	// What a confined worker still reaches: js-exec's compiled QuickJS
	// (read only: a worker that could write it could plant code for
	// every other one), and the server's control socket.
	cfg.ReadOnlyDirs, cfg.Sockets = []string{js.CacheDir}, []string{c.Socket()}
	if err := confine(a, rc, cfg); err != nil {
		fmt.Fprintf(cfg.Stderr, "wsfs: %v\n", err)
		res = runner.Result{ExitCode: exitFailure, Cwd: cfg.Cwd}
	} else {
		res = runner.Run(ctx, cfg)
	}
	if rc.binding != nil && len(res.LimitsHit) > 0 {
		rc.binding.retire = true
	}
	result, ferr := stream.Finish(api.RunReport{ExitCode: res.ExitCode, Cwd: res.Cwd, Duration: res.Duration,
		Truncated: res.Truncated, LimitsHit: res.LimitsHit})
	stop()

	var refusals []string
	for _, r := range result.Refusals {
		refusals = append(refusals, r.Text)
	}
	if *asJSON {
		out := runJSON{ExitCode: res.ExitCode, Stdout: string(res.Stdout), Stderr: string(res.Stderr), Truncated: res.Truncated,
			OutputRef: result.OutputRef, Revision: result.Revision, Committed: result.Committed,
			DurationMS: res.Duration.Milliseconds(), LimitsHit: res.LimitsHit, Refusals: refusals}
		if out.LimitsHit == nil {
			out.LimitsHit = []string{}
		}
		if err := writeJSON(a.stdout, out); err != nil {
			return err
		}
	} else {
		for _, r := range refusals {
			fmt.Fprintf(a.stderr, "wsfs: %s\n", strings.TrimPrefix(r, "wsfs: "))
		}
	}
	if ferr != nil {
		return fmt.Errorf("the command ran (exit %d) but its snapshot failed: %w", res.ExitCode, ferr)
	}
	if res.ExitCode != 0 {
		return exitError{code: res.ExitCode, err: errors.New("")}
	}
	return nil
}

// confine confines this process for the command in cfg (see
// runner.Confine), unless WSFS_NO_CONFINE is set. A warm worker's first
// job confines it to its workspace for good, reusably; its later jobs
// must run in that workspace and only renew the CPU time limit.
func confine(a *app, rc runCaller, cfg runner.Config) error {
	b := rc.binding
	if b != nil && b.dir != "" {
		if cfg.WorkspaceDir != b.dir {
			b.retire = true
			return fmt.Errorf("this warm worker serves %s, not %s; run the command again", b.dir, cfg.WorkspaceDir)
		}
		cpu, err := runner.LimitCPU(cfg.Limits)
		b.cpuSeconds.Store(cpu)
		return err
	}
	if os.Getenv("WSFS_NO_CONFINE") != "" {
		if b != nil {
			b.retire = true // an unconfined worker serves nobody else
		}
		return nil
	}
	if rc.confineTmp != "" {
		os.Setenv("TMPDIR", rc.confineTmp)
	}
	if b != nil {
		cfg.ScratchDir, cfg.Reusable = b.scratchRoot, true
	}
	rep, err := runner.Confine(cfg)
	if err != nil {
		if b != nil {
			b.retire = true
		}
		a.log.Warn("wsfs run: the worker could not be confined beyond os.Root", "err", err)
		return nil
	}
	if b != nil {
		b.dir = cfg.WorkspaceDir
		b.cpuSeconds.Store(rep.CPUSeconds)
	}
	a.log.Debug("wsfs run: confined", "landlock_abi", rep.LandlockABI, "filesystem", rep.Filesystem, "network", rep.Network)
	return nil
}

// teeWriter writes to the terminal and to the server; a server that stopped
// listening does not stop the command's output.
type teeWriter struct{ local, remote io.Writer }

func (t teeWriter) Write(p []byte) (int, error) {
	_, _ = t.remote.Write(p)
	return t.local.Write(p)
}

// readScript takes the script from -f (read by the caller when
// fileScript is not nil), the arguments or stdin.
func readScript(a *app, file string, args []string, fileScript *string, fileScriptErr error) (string, error) {
	var b []byte
	var err error
	switch {
	case file != "" && len(args) > 0:
		return "", usagef("give the script with -f or as an argument, not both")
	case file == "-":
		b, err = io.ReadAll(a.stdin)
	case file != "" && fileScriptErr != nil:
		return "", fmt.Errorf("reading the script: %w", fileScriptErr)
	case file != "" && fileScript != nil:
		b = []byte(*fileScript)
	case file != "":
		b, err = os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("reading the script: %w", err)
		}
	case len(args) > 0:
		return strings.Join(args, " "), nil
	default:
		b, err = io.ReadAll(a.stdin)
	}
	if err != nil {
		return "", fmt.Errorf("reading the script: %w", err)
	}
	if strings.TrimSpace(string(b)) == "" {
		return "", usagef("no script: give it as an argument, with -f FILE, or on stdin")
	}
	return string(b), nil
}

// dialOrStart connects to the running server, or starts a private one
// (wsfs mount on a temporary folder under home) for the duration.
func dialOrStart(ctx context.Context, a *app, g *globalFlags, home string) (*api.Client, func(), error) {
	c, err := api.Dial(ctx, home)
	if err == nil {
		return c, func() {}, nil
	}
	if !errors.Is(err, api.ErrNoServer) && !errors.Is(err, api.ErrUnreachable) {
		return nil, nil, err
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, nil, fmt.Errorf("cannot create the state folder %s: %w (set --home or WSFS_HOME)", home, err)
	}
	dir, err := os.MkdirTemp(home, "run-mount-")
	if err != nil {
		return nil, nil, fmt.Errorf("run: making a mount point for the private server: %w", err)
	}
	exe, err := os.Executable()
	if err != nil {
		os.Remove(dir)
		return nil, nil, fmt.Errorf("run: finding the wsfs binary to start a private server: %w", err)
	}
	// The private server serves this one command, which runs here: it
	// needs no warm workers.
	margs := []string{"mount", "--home", home, "--remove-mount-point", "--workers", "0"}
	if g.store != "" {
		margs = append(margs, "--store", g.store)
	}
	cmd := exec.Command(exe, append(margs, dir)...)
	var logs bytes.Buffer
	cmd.Stderr = &logs
	// The server dies with this process even when a confined worker can no
	// longer signal it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		os.Remove(dir)
		return nil, nil, fmt.Errorf("run: %w", err)
	}
	if err := cmd.Start(); err != nil {
		os.Remove(dir)
		return nil, nil, fmt.Errorf("run: starting a private server (%s mount): %w", exe, err)
	}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		ok := false
		for sc.Scan() {
			if !ok && strings.HasPrefix(sc.Text(), "wsfs: serving") {
				ok = true
				ready <- true
			}
		}
		if !ok {
			ready <- false
		}
	}()
	exited := make(chan struct{})
	stop := func() {
		select {
		case <-exited:
			return
		default:
		}
		if c != nil {
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			err := c.Shutdown(sctx)
			cancel()
			if err != nil {
				_ = cmd.Process.Signal(syscall.SIGTERM)
			}
		} else {
			_ = cmd.Process.Signal(syscall.SIGTERM)
		}
		select {
		case <-exited:
		case <-time.After(shutdownTimeout):
			slog.Warn("wsfs run: the private server did not stop", "pid", cmd.Process.Pid)
		}
	}
	go func() { cmd.Wait(); close(exited) }()
	select {
	case ok := <-ready:
		if !ok {
			<-exited
			os.Remove(dir)
			return nil, nil, fmt.Errorf("run: the private server did not start:\n%s", strings.TrimSpace(logs.String()))
		}
	case <-ctx.Done():
		stop()
		return nil, nil, fmt.Errorf("run: %w", ctx.Err())
	}
	c, err = api.Dial(ctx, home)
	if err != nil {
		stop()
		return nil, nil, fmt.Errorf("run: the private server started but does not answer: %w", err)
	}
	a.log.Debug("wsfs run: private server", "pid", cmd.Process.Pid, "dir", dir)
	return c, stop, nil
}

func runOutput(ctx context.Context, a *app, args []string) error {
	v := verbs["output"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("takes one output reference (the output_ref of wsfs run --json)")
	}
	d, err := objects.ParseDigest(fs.Arg(0))
	if err != nil {
		return usagef("%s is not an output reference (64 hex digits): %v", fs.Arg(0), err)
	}
	st, _, err := g.openStore(ctx)
	if err != nil {
		return err
	}
	defer closeStore(st)
	rc, err := st.Open(ctx, d, 0, -1)
	if err != nil {
		return fmt.Errorf("output %s: %w", filepath.Base(fs.Arg(0)), err)
	}
	defer rc.Close()
	return api.DecodeOutput(rc, a.stdout, a.stderr)
}

// jsCacheDir is where js-exec keeps QuickJS compiled, under home.
func jsCacheDir(home string) string { return filepath.Join(home, "cache", "qjs") }
