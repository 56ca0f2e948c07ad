package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
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

// workerMain is a warm worker: it does what it can before the job comes
// (package init, the server handshake, the user lookup), tells the server
// it is ready, waits for one job, takes the caller's stdin, stdout and
// stderr as its own and runs the job as `wsfs run` would, confinement
// included. Its exit status is the command's.
func workerMain(ctx context.Context) int {
	wc, err := api.OpenWorkerConn()
	if err != nil {
		fmt.Fprintf(os.Stderr, "wsfs %s: %v\n", workerVerb, err)
		return exitUsage
	}
	defer wc.Close()
	home := os.Getenv("WSFS_HOME")
	client, dialErr := api.Dial(ctx, home)
	if client != nil {
		// The handshake is done; an idle worker holds no connection to
		// the server (the job dials again, which costs little).
		client.Close()
	}
	self, _ := user.Current()
	warmUp(ctx, os.Getenv(api.EnvWorkerTmp))
	if err := wc.Ready(); err != nil {
		return exitFailure // the server is gone
	}
	// A throwaway js-exec while the worker waits: QuickJS (the default
	// memory cap) loaded from the server's cache folder, the prelude
	// compiled, so that a job's js-exec starts at once (its own Prepare
	// waits for this one) instead of paying a third of a second. It runs
	// after Ready; a job that runs js-exec and comes first waits for it
	// (runCaller.jsWarm), since the job's confinement would break a load
	// still reading the cache, and QuickJS keeps one compiled module per
	// process. Other jobs do not wait: this process ends with them.
	jsWarm := make(chan struct{})
	go func() {
		defer close(jsWarm)
		warmUpJS(ctx, home, os.Getenv(api.EnvWorkerTmp))
	}()
	stopWaiting := context.AfterFunc(ctx, func() { wc.Close() })
	job, files, err := wc.Job()
	stopWaiting()
	if err != nil {
		if ctx.Err() == nil {
			fmt.Fprintf(os.Stderr, "wsfs %s: %v\n", workerVerb, err)
		}
		return exitFailure
	}
	for i, f := range files {
		err := syscall.Dup3(int(f.Fd()), i, 0)
		f.Close()
		if err != nil {
			fmt.Fprintf(os.Stderr, "wsfs %s: taking the caller's standard streams: %v\n", workerVerb, err)
			return exitFailure
		}
	}
	for _, k := range runwire.ForwardedEnv {
		os.Unsetenv(k)
	}
	for _, kv := range job.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			os.Setenv(k, v)
		}
	}
	a := &app{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: logLevel()}))}
	v := *verbs["run"]
	if client == nil {
		client, dialErr = api.Dial(ctx, home)
	}
	if client == nil {
		// A worker never starts a private server.
		v.run = func(context.Context, *app, []string) error {
			return fmt.Errorf("the wsfs server does not answer its warm worker: %w", dialErr)
		}
	} else {
		rc := runCaller{cwd: job.Cwd, author: userName(job, self), client: client, confineTmp: os.Getenv(api.EnvWorkerTmp),
			scratch: os.Getenv(api.EnvWorkerScratch), jsWarm: jsWarm}
		v.run = func(ctx context.Context, a *app, args []string) error { return runCommand(ctx, a, args, rc) }
	}
	code := a.dispatch(ctx, &v, job.Args)
	// The caller's streams close before the status goes, so a caller
	// reading them to their end is not held up by this process's exit.
	for fd := 0; fd <= 2; fd++ {
		syscall.Close(fd)
	}
	_ = wc.Done(code)
	return code
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
	commands["js-exec"] = jsexec.Spec(jsexec.Config{CacheDir: filepath.Join(home, "cache", "qjs")})
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
