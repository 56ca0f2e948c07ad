package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"os/user"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/wsfs/wsfs/api"
	"github.com/wsfs/wsfs/api/runwire"
	"github.com/wsfs/wsfs/runner"
	"github.com/wsfs/wsfs/runner/jsexec"
)

// workerVerb is the hidden verb a server starts its warm workers with
// (api.Config.WorkerCommand). It is not for people: it takes its job from
// the socket the server gives it, not from its arguments.
const workerVerb = "__worker"

// workerCommand is how the server of this binary starts a warm worker.
func workerCommand() ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this binary to start wsfs run workers: %w (or pass --workers 0)", err)
	}
	return []string{exe, workerVerb}, nil
}

// maxWorkerJobs bounds the jobs one warm worker runs; then a fresh
// process takes over.
const maxWorkerJobs = 500

// maxWorkerHeap is the live heap past which a worker stops after its job
// rather than carry a command's leftovers into the next one.
const maxWorkerHeap = 64 << 20

// workerMain is a warm worker: it does what it can before the first job
// comes (package init, the server handshake, the user lookup, a throwaway
// command and js-exec), tells the server it is ready, then runs jobs: it
// takes each caller's stdin, stdout and stderr as its own and runs the
// job as `wsfs run` would. The first job confines the process to its
// workspace for good; the worker then offers to run more jobs of that
// workspace (the server parks it until one comes), and exits when the
// server lets it go or it cannot go on. Its exit status is its last job's.
func workerMain(ctx context.Context) int {
	wc, err := api.OpenWorkerConn()
	if err != nil {
		fmt.Fprintf(os.Stderr, "wsfs %s: %v\n", workerVerb, err)
		return exitUsage
	}
	defer wc.Close()
	home := os.Getenv("WSFS_HOME")
	// Temporary folders go into the worker's own folder, which its
	// confinement keeps: a warm-up under way when a job confines the
	// worker goes on.
	if tmp := os.Getenv(api.EnvWorkerTmp); tmp != "" {
		os.Setenv("TMPDIR", tmp)
	}
	// The connection stays for the worker's jobs: once confined, it may
	// not be able to dial again.
	client, dialErr := api.Dial(ctx, home)
	if client != nil {
		client.KeepIdle()
		defer client.Close()
	}
	self, _ := user.Current()
	warmUp(ctx, os.Getenv(api.EnvWorkerTmp))
	devNull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		fmt.Fprintf(os.Stderr, "wsfs %s: %v\n", workerVerb, err)
		return exitFailure
	}
	defer devNull.Close()
	if err := wc.Ready(); err != nil {
		return exitFailure // the server is gone
	}
	// A throwaway js-exec while the worker waits: QuickJS (the default
	// memory cap) loaded from the server's cache folder, the prelude
	// compiled, so that a job's js-exec starts at once (its own Prepare
	// waits for this one) instead of paying a third of a second. It runs
	// after Ready; a job that runs js-exec and comes first waits for it
	// (runCaller.jsWarm), since QuickJS keeps one compiled module per
	// process. Other jobs do not wait.
	jsWarm := make(chan struct{})
	go func() {
		defer close(jsWarm)
		warmUpJS(ctx, home, os.Getenv(api.EnvWorkerTmp))
	}()
	// The worker's folder holds its warm-ups' folders, each job's /tmp
	// and Confine's private folder: confined, the worker keeps it whole
	// (a warm-up still under way goes on).
	binding := &workerBinding{scratchRoot: os.Getenv(api.EnvWorkerTmp)}
	stopCPUWatch := watchCPULimit(binding)
	defer stopCPUWatch()
	code := 0
	for {
		stopWaiting := context.AfterFunc(ctx, func() { wc.Close() })
		job, files, err := wc.Job()
		stopWaiting()
		if errors.Is(err, io.EOF) {
			return code // the server let this worker go
		}
		if err != nil {
			if ctx.Err() == nil {
				fmt.Fprintf(os.Stderr, "wsfs %s: %v\n", workerVerb, err)
			}
			return exitFailure
		}
		if err := useStreams(files); err != nil {
			fmt.Fprintf(os.Stderr, "wsfs %s: taking the caller's standard streams: %v\n", workerVerb, err)
			return exitFailure
		}
		for _, k := range runwire.ForwardedEnv {
			os.Unsetenv(k)
		}
		for _, kv := range job.Env {
			if k, v, ok := strings.Cut(kv, "="); ok {
				os.Setenv(k, v)
			}
		}
		if client == nil {
			client, dialErr = api.Dial(ctx, home)
			if client != nil {
				client.KeepIdle()
				defer client.Close()
			}
		}
		code = runJob(ctx, job, client, dialErr, self, binding, jsWarm)
		// The caller's streams close before the status goes, so a caller
		// reading them to their end is not held up by this process.
		for fd := 0; fd <= 2; fd++ {
			_ = syscall.Dup3(int(devNull.Fd()), fd, 0)
		}
		binding.jobs++
		again := binding.dir != "" && !binding.retire && binding.jobs < maxWorkerJobs && ctx.Err() == nil
		if again && heapAlloc() >= maxWorkerHeap {
			runtime.GC() // rarely: the heap counts garbage until collected
			again = heapAlloc() < maxWorkerHeap
		}
		_ = wc.Done(code, again)
		if !again {
			return code
		}
	}
}

// heapAlloc is the heap's objects, garbage included, read without
// stopping the world (runtime.ReadMemStats would, before every status).
func heapAlloc() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64()
}

// workerBinding is what a warm worker keeps from one job to the next.
type workerBinding struct {
	// dir is the workspace folder the worker confined itself to on its
	// first job ("" until then); it serves no other workspace.
	dir string
	// scratchRoot holds each job's /tmp folder (the server removes it
	// when the worker ends; the worker empties it after each job).
	scratchRoot string
	jobs        int
	// retire says the worker must not take another job: it ran one
	// unconfined, or a job hit a limit (its leftovers stay with it).
	retire bool
	// cpuSeconds is the running job's CPU time limit.
	cpuSeconds atomic.Uint64
}

// runJob runs one job as `wsfs run` and returns its exit status.
func runJob(ctx context.Context, job runwire.Job, client *api.Client, dialErr error, self *user.User, binding *workerBinding, jsWarm <-chan struct{}) int {
	a := &app{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: logLevel()}))}
	v := *verbs["run"]
	if client == nil {
		// A worker never starts a private server.
		binding.retire = true
		v.run = func(context.Context, *app, []string) error {
			return fmt.Errorf("the wsfs server does not answer its warm worker: %w", dialErr)
		}
	} else {
		rc := runCaller{cwd: job.Cwd, author: userName(job, self), client: client, keepClient: true,
			confineTmp: os.Getenv(api.EnvWorkerTmp), binding: binding, jsWarm: jsWarm}
		switch {
		case job.HasScript:
			rc.fileScript = &job.Script
		case job.ScriptErr != "":
			rc.fileScriptErr = errors.New(job.ScriptErr)
		}
		v.run = func(ctx context.Context, a *app, args []string) error { return runCommand(ctx, a, args, rc) }
	}
	return a.dispatch(ctx, &v, job.Args)
}

// useStreams makes the caller's stdin, stdout and stderr this process's
// descriptors 0, 1 and 2.
func useStreams(files []*os.File) error {
	var first error
	for i, f := range files {
		if err := syscall.Dup3(int(f.Fd()), i, 0); err != nil && first == nil {
			first = err
		}
		f.Close()
	}
	return first
}

// watchCPULimit ends the worker when its job reaches its CPU time limit
// (runner.LimitCPU's soft limit sends SIGXCPU, which Go ignores), with
// the limit's line on the caller's stderr.
func watchCPULimit(binding *workerBinding) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGXCPU)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			fmt.Fprintf(os.Stderr, "wsfs: cpu time limit %ds reached\n", binding.cpuSeconds.Load())
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// userName is the caller's user name: that of the user ID the server saw
// on the socket, else $USER as the caller set it.
func userName(job runwire.Job, self *user.User) string {
	uid := strconv.Itoa(job.UID)
	if self != nil && self.Uid == uid {
		return self.Username
	}
	if job.UID >= 0 {
		if u, err := user.LookupId(uid); err == nil {
			return u.Username
		}
	}
	return os.Getenv("USER")
}

// warmUpJS runs one js-exec in a folder of its own under tmp.
func warmUpJS(ctx context.Context, home, tmp string) {
	if home == "" || tmp == "" {
		return
	}
	dir, err := os.MkdirTemp(tmp, "warm-js-")
	if err != nil {
		return
	}
	defer os.RemoveAll(dir)
	commands := runner.DefaultCommands()
	commands["js-exec"] = jsexec.Spec(jsexec.Config{CacheDir: jsCacheDir(home)})
	runner.Run(ctx, runner.Config{Script: "js-exec -c 'console.log(1)'", WorkspaceDir: dir, Commands: commands,
		Stdout: io.Discard, Stderr: io.Discard, Logger: slog.New(slog.DiscardHandler)})
}

// warmUp does, while the worker waits, the one-time work its command would
// otherwise pay for: a throwaway command in a folder of its own (the
// runner's command table, the interpreter's code, page faults included)
// and the JSON codecs of the run protocol. Nothing of the caller's is
// involved yet.
func warmUp(ctx context.Context, tmp string) {
	for _, v := range []any{&api.RunStartRequest{}, &api.RunTurn{}, &api.RunReport{}, &api.RunResult{}, &runJSON{}} {
		if b, err := json.Marshal(v); err == nil {
			_ = json.Unmarshal(b, v)
		}
	}
	if tmp == "" {
		return
	}
	dir, err := os.MkdirTemp(tmp, "warm-")
	if err != nil {
		return
	}
	defer os.RemoveAll(dir)
	runner.Run(ctx, runner.Config{Script: "cd /workspace && echo warm > f && cat f | wc -l && ls -l && rm f", WorkspaceDir: dir,
		Stdout: io.Discard, Stderr: io.Discard, Logger: slog.New(slog.DiscardHandler)})
}
