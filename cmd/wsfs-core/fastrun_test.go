package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wsfs/wsfs/runsvc"
)

var (
	frontOnce sync.Once
	frontDir  string
	frontErr  error
)

// frontBinaries builds the small front next to the core, as `make build`
// lays them out (bin/wsfs and bin/wsfs-core), and returns that folder.
func frontBinaries(t testing.TB) string {
	t.Helper()
	core := wsfsBinary(t)
	frontOnce.Do(func() {
		frontDir = filepath.Join(filepath.Dir(core), "bin")
		if frontErr = os.MkdirAll(frontDir, 0o755); frontErr != nil {
			return
		}
		if out, err := exec.Command("go", "build", "-ldflags=-s -w", "-o", filepath.Join(frontDir, "wsfs"), "../wsfs").CombinedOutput(); err != nil {
			frontErr = fmt.Errorf("go build ../wsfs: %v\n%s", err, out)
			return
		}
		frontErr = os.Link(core, filepath.Join(frontDir, "wsfs-core"))
	})
	if frontErr != nil {
		t.Fatal(frontErr)
	}
	return frontDir
}

// failingCore is a WSFS_CORE that fails loudly: with it, a `wsfs run` that
// succeeds took the fast path.
func failingCore(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "wsfs-core-shim")
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho 'shim: the front ran wsfs-core' >&2\nexit 99\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// front is a `wsfs` front command line.
type front struct {
	t    *testing.T
	home string
	env  []string // extra environment
	dir  string   // working folder
}

func (f front) cmd(stdin string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(frontBinaries(f.t), "wsfs"), args...)
	cmd.Env = append(append(os.Environ(), "WSFS_HOME="+f.home, "WSFS_STORE="), f.env...)
	cmd.Dir = f.dir
	cmd.Stdin = strings.NewReader(stdin)
	return cmd
}

// run runs the front and returns stdout, stderr and the exit code.
func (f front) run(stdin string, args ...string) (string, string, int) {
	f.t.Helper()
	cmd := f.cmd(stdin, args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), errb.String(), ee.ExitCode()
	} else if err != nil {
		f.t.Fatal(err)
	}
	return out.String(), errb.String(), 0
}

func (f front) ok(stdin string, args ...string) string {
	f.t.Helper()
	out, errOut, code := f.run(stdin, args...)
	if code != 0 {
		f.t.Fatalf("wsfs %q: exit %d\nstdout %q\nstderr %q", args, code, out, errOut)
	}
	return out
}

// start starts a long command and returns it once it printed its first
// line (the test's scripts print "go" once their work is under way).
func (f front) start(script string) (*exec.Cmd, *bufio.Reader, *strings.Builder) {
	cmd, r, errb, _ := f.startPipe(script)
	return cmd, r, errb
}

// startPipe is start that also returns the read end of the command's stdout.
func (f front) startPipe(script string) (*exec.Cmd, *bufio.Reader, *strings.Builder, *os.File) {
	f.t.Helper()
	cmd := f.cmd("", "run", "-w", "acme/f", script)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		f.t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		f.t.Fatal(err)
	}
	r := bufio.NewReader(pipe)
	if line, err := r.ReadString('\n'); err != nil || line != "go\n" {
		cmd.Process.Kill()
		cmd.Wait()
		f.t.Fatalf("%q: first line %q, %v; stderr %s", script, line, err, errb.String())
	}
	return cmd, r, &errb, pipe.(*os.File)
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestFastRun: with a server running, `wsfs run` goes through the run
// socket to a warm worker (the core the front would exec fails), with the
// script as an argument, from a file (relative to the caller's folder) or
// on stdin, and with the slow path's exit codes, JSON, errors and author.
func TestFastRun(t *testing.T) {
	requireFUSE(t)
	home, mnt := newMountDirs(t)
	t.Setenv("WSFS_TEST_SECRET", "a store credential") // the server has it; its workers must not
	s := startServer(t, home, mnt, "--quiet", "1h")
	mustOK(t, home, "", "create", "acme/f")
	scripts := t.TempDir()
	if err := os.MkdirAll(filepath.Join(scripts, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(scripts, "sub", "s.sh"), []byte("cat notes.txt; echo from-file >&2; exit 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := front{t: t, home: home, env: []string{"WSFS_CORE=" + failingCore(t)}, dir: scripts}

	if out := f.ok("", "run", "-w", "acme/f", "mkdir -p d; cd d; echo hi > notes.txt; cat notes.txt"); out != "hi\n" {
		t.Fatalf("script as argument printed %q", out)
	}
	// Global flags before the verb keep the fast path (the core is a shim
	// that fails).
	if out := f.ok("", "--home", home, "run", "-w", "acme/f", "cat notes.txt"); out != "hi\n" {
		t.Fatalf("wsfs --home H run printed %q", out)
	}
	serverFDs := settledFDs(t, s.cmd.Process.Pid, 1)
	for _, pid := range workerPIDs(t, s.cmd.Process.Pid) {
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil || strings.Contains(string(env), "WSFS_TEST_SECRET") || strings.Contains(string(env), "WSFS_STORE") {
			t.Errorf("worker %d's environment (%v): %q", pid, err, env)
		}
	}

	if out := f.ok("pwd; cat notes.txt\n", "run", "-w", "acme/f"); out != "/workspace/d\nhi\n" {
		t.Fatalf("script on stdin printed %q", out)
	}
	out, errOut, code := f.run("", "run", "-w", "acme/f", "-f", "sub/s.sh")
	if code != 7 || out != "hi\n" || errOut != "from-file\n" {
		t.Fatalf("-f sub/s.sh: exit %d stdout %q stderr %q", code, out, errOut)
	}
	out, errOut, code = f.run("", "run", "--json", "-w", "acme/f", "echo more >> notes.txt; echo done")
	var res runOut
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || res.Stdout != "done\n" || !res.Committed || res.Revision != 3 {
		t.Fatalf("--json: exit %d %+v %v\nstdout %s\nstderr %s", code, res, err, out, errOut)
	}
	show := mustOK(t, home, "", "show", "--json", "acme/f")
	if u, err := user.LookupId(strconv.Itoa(os.Getuid())); err == nil && !strings.Contains(show, `"author": "`+u.Username+`"`) {
		t.Fatalf("the revision's author is not %s:\n%s", u.Username, show)
	}

	// Errors and exit codes, from the front itself (it never starts the
	// core for a command).
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"run", "echo hi"}, exitUsage, "-w TENANT/NAME is required"},
		{[]string{"run", "-w", "Bad Name", "echo hi"}, exitUsage, "Bad Name"},
		{[]string{"run", "-w", "acme/nope", "echo hi"}, exitNotFound, "acme/nope"},
		{[]string{"run", "-w", "acme/f", "if then fi"}, 2, "syntax"},
		{[]string{"run", "-w", "acme/f", "-f", "missing.sh"}, exitFailure, "missing.sh"},
		{[]string{"run", "-w", "acme/f", "--frobnicate", "true"}, exitUsage, "-frobnicate"},
		{[]string{"run", "-w", "acme/f", "--timeout", "-1s", "true"}, exitUsage, "--timeout -1s"},
		{[]string{"run", "-w", "acme/f", "--timeout", "1h", "true"}, exitUsage, "above the wall-time limit of 15s of acme/f; raise the limit with wsfs quota acme/f set wall-time=1h0m0s"},
	} {
		_, errOut, code := f.run("", tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) || strings.Contains(errOut, "shim") {
			t.Errorf("wsfs %q: exit %d stderr %q, want exit %d and %q", tc.args, code, errOut, tc.code, tc.msg)
		}
	}
	if out, errOut, code := f.run("", "run", "--help"); code != 0 || !strings.Contains(out, "usage: wsfs run -w TENANT/NAME") || strings.Contains(errOut, "shim") {
		t.Errorf("wsfs run --help: exit %d stdout %q stderr %q", code, out, errOut)
	}

	// Busy: a second command with --wait 0 while one runs.
	long, r, _ := f.start("echo go; sleep 1")
	_, errOut, code = f.run("", "run", "--wait", "0", "-w", "acme/f", "true")
	if code != exitStale || !strings.Contains(errOut, "busy: 1 command ahead on acme/f") {
		t.Errorf("--wait 0 while busy: exit %d %q", code, errOut)
	}
	io.Copy(io.Discard, r)
	if err := long.Wait(); err != nil {
		t.Fatalf("the long command: %v", err)
	}

	// No descriptor stays behind in the server: its count comes back once
	// the pool has its workers again.
	waitFor(t, "the server's descriptors to come back to their count", func() string {
		if n := settledFDs(t, s.cmd.Process.Pid, 1); n != serverFDs {
			return fmt.Sprintf("%d descriptors, %d before", n, serverFDs)
		}
		return ""
	})
	if err := s.stop(os.Interrupt); err != nil {
		t.Fatalf("server: %v\n%s", err, s.stderr)
	}
}

// TestFastRunReusesWorkers: a worker that ran a command stays, confined,
// for the next command of the same workspace; each command still starts
// afresh (its own /tmp, no variables of the last one); another workspace
// gets another worker; a command whose output is cut keeps its worker,
// and one that hits a limit retires it.
func TestFastRunReusesWorkers(t *testing.T) {
	requireFUSE(t)
	home, mnt := newMountDirs(t)
	s := startServer(t, home, mnt, "--quiet", "1h")
	mustOK(t, home, "", "create", "acme/f")
	mustOK(t, home, "", "create", "acme/g")
	f := front{t: t, home: home, env: []string{"WSFS_CORE=" + failingCore(t)}}
	server := s.cmd.Process.Pid

	workerFor := func(workspace, script string) int {
		t.Helper()
		return f.workerFor(server, mnt, workspace, script)
	}

	first := workerFor("acme/f", "echo left > /tmp/x; export FOO=1; cd /workspace; mkdir -p d")
	if again := workerFor("acme/f", "true"); again != first {
		t.Fatalf("the second command of acme/f ran on worker %d, not on %d, which ran the first", again, first)
	}
	if out := f.ok("", "run", "-w", "acme/f", "ls -A /tmp; echo ${FOO-unset}"); out != "unset\n" {
		t.Fatalf("a reused worker's command saw the last one's /tmp or variables: %q", out)
	}
	if other := workerFor("acme/g", "true"); other == first {
		t.Fatalf("acme/g's command ran on worker %d, parked for acme/f", other)
	}
	if out := f.ok("", "run", "-w", "acme/g", "ls"); out != "" {
		t.Fatalf("acme/g sees %q", out)
	}

	// A workspace created again under the same name, and one given new
	// quotas, get fresh workers (a parked one holds the old folder and
	// js-exec's old memory cap).
	gWorker := workerFor("acme/g", "true")
	mustOK(t, home, "", "rm", "acme/g")
	mustOK(t, home, "", "create", "acme/g")
	if again := workerFor("acme/g", "echo new > n"); again == gWorker {
		t.Fatalf("acme/g, created again, ran on worker %d, parked for the deleted one", again)
	}
	if out := f.ok("", "run", "-w", "acme/g", "ls; js-exec -c 'console.log(2)'"); out != "n\n2\n" {
		t.Fatalf("the new acme/g: %q", out)
	}
	mustOK(t, home, "", "quota", "acme/f", "set", "js-memory=33554432")
	if again := workerFor("acme/f", "true"); again == first {
		t.Fatalf("acme/f with new quotas ran on worker %d, parked with the old ones", again)
	}
	if out := f.ok("", "run", "-w", "acme/f", "js-exec -c 'console.log(3)'"); out != "3\n" {
		t.Fatalf("js-exec under the new memory cap: %q", out)
	}
	first = workerFor("acme/f", "true")

	// The output limit is an ordinary one: the worker stays.
	if out := f.ok("", "run", "-w", "acme/f", "seq 1 100000 | wc -l"); out != "100000\n" {
		t.Fatalf("a long pipeline: %q", out)
	}
	f.ok("", "run", "-w", "acme/f", "seq 1 100000")
	if again := workerFor("acme/f", "true"); again != first {
		t.Fatalf("the worker %d went after an output past the kept 128 KiB (now %d)", first, again)
	}

	// A limit hit: the worker goes, and the next command gets another.
	if _, errOut, code := f.run("", "run", "--timeout", "1s", "-w", "acme/f", "sleep 5"); code != 124 || !strings.Contains(errOut, "time limit 1s reached") {
		t.Fatalf("the timed-out command: exit %d stderr %q", code, errOut)
	}
	if next := workerFor("acme/f", "true"); next == first {
		t.Fatalf("worker %d ran on after its command hit the wall-time limit", first)
	}
	// Parked: acme/g's new worker, acme/f's last one; those of the old
	// acme/g and of acme/f's old quotas went when their key did.
	settledFDs(t, server, 2)
	if err := s.stop(os.Interrupt); err != nil {
		t.Fatalf("server: %v\n%s", err, s.stderr)
	}
}

// workerFor runs a short command in workspace (mounted on mnt) and
// returns the server's worker that ran it: the command prints "go", then
// waits for a gate file, which the test writes through the mount once it
// has found the worker.
func (f front) workerFor(server int, mnt, workspace, script string) int {
	t := f.t
	t.Helper()
	cmd := f.cmd("", "run", "-w", workspace, "echo go; until [ -e .gate ]; do sleep 0.02; done; rm .gate; "+script)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(pipe)
	if line, err := r.ReadString('\n'); err != nil || line != "go\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("%q: first line %q, %v; stderr %s", script, line, err, errb.String())
	}
	pid := workerOf(t, server, pipe.(*os.File))
	if err := os.WriteFile(filepath.Join(mnt, workspace, ".gate"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, r)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%q: %v; stderr %s", script, err, errb.String())
	}
	return pid
}

// TestFastRunParkedZero: with --parked 0 every command gets a fresh
// worker; a negative count is a usage error.
func TestFastRunParkedZero(t *testing.T) {
	requireFUSE(t)
	home, mnt := newMountDirs(t)
	if _, errOut, code := wsfsBin(t, home, "", "mount", "--parked", "-1", mnt); code != exitUsage || !strings.Contains(errOut, "--parked must be 0 or more") {
		t.Fatalf("--parked -1: exit %d %q", code, errOut)
	}
	s := startServer(t, home, mnt, "--quiet", "1h", "--parked", "0")
	mustOK(t, home, "", "create", "acme/f")
	f := front{t: t, home: home, env: []string{"WSFS_CORE=" + failingCore(t)}}
	server := s.cmd.Process.Pid
	if a, b := f.workerFor(server, mnt, "acme/f", "true"), f.workerFor(server, mnt, "acme/f", "true"); a == b {
		t.Fatalf("with --parked 0 two commands ran on worker %d", a)
	}
	settledFDs(t, server, 0)
	if err := s.stop(os.Interrupt); err != nil {
		t.Fatalf("server: %v\n%s", err, s.stderr)
	}
}

// TestFastRunCallerAndWorkerLost: a caller interrupted (Ctrl-C) or killed
// stops its command, whose changes so far are committed, and the next
// command runs; a worker killed mid-command gives a clear error; the
// workers die with the server.
func TestFastRunCallerAndWorkerLost(t *testing.T) {
	requireFUSE(t)
	home, mnt := newMountDirs(t)
	s := startServer(t, home, mnt, "--quiet", "1h")
	mustOK(t, home, "", "create", "acme/f")
	f := front{t: t, home: home, env: []string{"WSFS_CORE=" + failingCore(t)}}

	// Ctrl-C: the front asks the server to interrupt the worker.
	cmd, r, errb := f.start("echo one > one.txt; echo go; sleep 30")
	cmd.Process.Signal(os.Interrupt)
	io.Copy(io.Discard, r)
	if code := exitCode(cmd.Wait()); code != 130 || !strings.Contains(errb.String(), "cancelled") {
		t.Fatalf("interrupted: exit %d stderr %q", code, errb)
	}

	// The front killed: the command stops all the same.
	cmd, r, _ = f.start("echo two > two.txt; echo go; sleep 30")
	cmd.Process.Kill()
	cmd.Wait()
	io.Copy(io.Discard, r)
	if out := f.ok("", "run", "-w", "acme/f", "cat one.txt two.txt"); out != "one\ntwo\n" {
		t.Fatalf("after the lost caller: %q", out)
	}
	if show := mustOK(t, home, "", "show", "--json", "acme/f@3"); !strings.Contains(show, "echo two") {
		t.Fatalf("the killed caller's command is not revision 3:\n%s", show)
	}

	// The worker killed.
	cmd, r, errb, pipe := f.startPipe("echo three > three.txt; echo go; sleep 30")
	worker := workerOf(t, s.cmd.Process.Pid, pipe)
	syscall.Kill(worker, syscall.SIGKILL)
	io.Copy(io.Discard, r)
	if code := exitCode(cmd.Wait()); code != 128+9 || !strings.Contains(errb.String(), "killed by signal 9, SIGKILL") {
		t.Fatalf("worker killed: exit %d stderr %q", code, errb)
	}
	// The revision records what the caller saw: 128+9 (issue 15: -1).
	if show := mustOK(t, home, "", "show", "--json", "acme/f"); !strings.Contains(show, `"exit_code": 137`) {
		t.Fatalf("the killed command's revision:\n%s", show)
	}
	if out := f.ok("", "run", "-w", "acme/f", "cat three.txt"); out != "three\n" {
		t.Fatalf("after the killed worker: %q", out)
	}

	// The workers die with the server, even killed (their sockets close).
	f.ok("", "run", "-w", "acme/f", "true")
	workers := workerPIDs(t, s.cmd.Process.Pid)
	if len(workers) == 0 {
		t.Fatal("no parked worker")
	}
	s.stop(syscall.SIGKILL)
	syscall.Unmount(mnt, syscall.MNT_DETACH)
	waitFor(t, "the workers to die with the server", func() string {
		for _, pid := range workers {
			if syscall.Kill(pid, 0) == nil && !zombie(pid) {
				return fmt.Sprintf("worker %d lives", pid)
			}
		}
		return ""
	})
}

// waitFor polls cond (which says what it still waits for) until it is
// satisfied; the deadline only keeps a broken server from hanging the test.
func waitFor(t *testing.T, what string, cond func() string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		msg := cond()
		if msg == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: %s", what, msg)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func countFDs(t *testing.T, pid int) int {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// settledFDs counts the server's descriptors once it is at rest: its only
// children are its parked workers (a finished one is reaped), and the
// count holds still for a moment (a client's connection is closed).
func settledFDs(t *testing.T, server, parked int) int {
	t.Helper()
	n := -1
	waitFor(t, "the server to settle with its parked workers", func() string {
		children, workers := childPIDs(t, server), workerPIDs(t, server)
		if len(children) != parked || len(workers) != parked {
			return fmt.Sprintf("children %v, workers %v", children, workers)
		}
		first := countFDs(t, server)
		time.Sleep(100 * time.Millisecond)
		if n = countFDs(t, server); n != first {
			return fmt.Sprintf("%d descriptors, then %d", first, n)
		}
		return ""
	})
	return n
}

// childPIDs lists the server's children, zombies included.
func childPIDs(t testing.TB, server int) []int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", server, server))
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	// Children of the server's other threads.
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", server))
	for _, task := range tasks {
		if task.Name() == strconv.Itoa(server) {
			continue
		}
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", server, task.Name()))
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// workerPIDs lists the server's workers (busy or parked).
func workerPIDs(t *testing.T, server int) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(server) || fields[0] == "Z" {
			continue
		}
		if cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); strings.Contains(string(cmdline), runsvc.WorkerVerb) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// workerOf finds the worker that holds the pipe the caller's stdout
// writes to (pipe is its read end).
func workerOf(t *testing.T, server int, pipe *os.File) int {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(pipe.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("pipe:[%d]", st.Ino)
	for _, pid := range workerPIDs(t, server) {
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		for _, fd := range fds {
			if link, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); link == want {
				return pid
			}
		}
	}
	t.Fatalf("no worker of server %d writes to %s", server, want)
	return 0
}

func zombie(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] == "Z"
}
