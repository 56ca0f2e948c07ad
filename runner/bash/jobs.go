package bash

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// Background jobs (cmd &), process substitutions and coprocesses run in
// goroutines: a forked shell each, with a context of its own that kill
// cancels. $! and the job's number name them; wait collects their
// statuses. Whatever still runs when the command ends is stopped
// (run.stopJobs), and the wall-time limit covers them all.

// job is one background job.
type job struct {
	id        int // %N
	pid       int
	text      string
	shell     *Shell
	cancel    context.CancelFunc
	done      chan struct{}
	status    int
	procSubst bool
	killed    atomic.Int32 // the signal kill sent
}

func (j *job) end(status int) {
	if sig := j.killed.Load(); sig != 0 && status == 0 {
		status = 128 + int(sig)
	}
	j.status = status
	close(j.done)
}

func (j *job) finished() bool {
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}

// jobTable is one shell's jobs.
type jobTable struct {
	mu   sync.Mutex
	list []*job
	next int
}

// newJob registers a job running sub, giving it a context of its own.
func (sh *Shell) newJob(sub *Shell, text string) *job {
	ctx, cancel := context.WithCancel(sh.ctx)
	sub.ctx = ctx
	sub.killed = &atomic.Int32{}
	j := &job{pid: sub.pid, text: text, shell: sub, cancel: cancel, done: make(chan struct{})}
	t := sh.jobs
	t.mu.Lock()
	t.next++
	j.id = t.next
	t.list = append(t.list, j)
	t.mu.Unlock()
	sh.run.mu.Lock()
	sh.run.jobs = append(sh.run.jobs, j)
	sh.run.mu.Unlock()
	return j
}

// background starts a statement as a job: cmd &.
func (sh *Shell) background(s *syntax.Stmt) {
	if !sh.checkDepth() {
		return
	}
	cp := *s
	cp.Background = false
	sub := sh.fork()
	sub.depth++
	// A background job's stdin is /dev/null unless redirected (no job
	// control).
	text := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(sh.nodeText(s)), "&"))
	j := sh.newJob(sub, text)
	ok := sh.goroutine(func() {
		sh.runForked(sub, func(b *Shell) {
			b.stmt(&cp)
			if b.flow == flowReturn {
				b.flow = flowNone
			}
		})
		j.end(sub.status)
	})
	if !ok {
		sub.finish()
		return
	}
	sh.lastBg = j.pid
	sh.status = 0
}

// stopped reports whether this shell must stop: the command is over or
// its job was killed.
func (sh *Shell) stopped() bool {
	if sh.run.stopped() {
		return true
	}
	if sh.killed != nil {
		if sig := sh.killed.Load(); sig != 0 {
			return true
		}
	}
	return false
}

// stopJobs stops every job still running at the end of the command and
// waits a moment for them.
func (r *run) stopJobs() {
	r.mu.Lock()
	jobs := append([]*job(nil), r.jobs...)
	r.mu.Unlock()
	if len(jobs) == 0 {
		return
	}
	running := false
	for _, j := range jobs {
		if !j.finished() {
			running = true
			j.killed.Store(15)
			if j.shell.killed != nil {
				j.shell.killed.Store(15)
			}
			j.cancel()
		}
	}
	if !running {
		return
	}
	r.done.Store(true)
	r.mu.Lock()
	pipes := append([]*pipe(nil), r.pipes...)
	r.mu.Unlock()
	for _, p := range pipes {
		p.breakAll()
	}
	deadline := time.After(2 * time.Second)
	for _, j := range jobs {
		select {
		case <-j.done:
		case <-deadline:
			return
		}
	}
}

// waitProcSubsts waits for the process substitutions still running when
// the command's shell ends (tee >(grep -c x) prints after tee is done):
// their output is part of the command's. The wall time bounds the wait.
func (r *run) waitProcSubsts() {
	r.mu.Lock()
	jobs := append([]*job(nil), r.jobs...)
	r.mu.Unlock()
	for _, j := range jobs {
		if !j.procSubst {
			continue
		}
		select {
		case <-j.done:
		case <-r.ctx.Done():
			return
		}
	}
}

// waitJobsAtExit is what a nested shell does with its jobs when it ends:
// they go on (bash leaves them running); the command's end stops them.
func (sh *Shell) waitJobsAtExit() {}

// findJob resolves a job spec: %N, %%, %+, %-, %string, %?string, or a
// process id.
func (sh *Shell) findJob(spec string) (*job, bool) {
	t := sh.jobs
	t.mu.Lock()
	defer t.mu.Unlock()
	var live []*job
	for _, j := range t.list {
		if !j.procSubst {
			live = append(live, j)
		}
	}
	if !strings.HasPrefix(spec, "%") {
		n, err := strconv.Atoi(spec)
		if err != nil {
			return nil, false
		}
		for _, j := range t.list {
			if j.pid == n {
				return j, true
			}
		}
		return nil, false
	}
	s := spec[1:]
	switch {
	case s == "" || s == "%" || s == "+":
		if len(live) > 0 {
			return live[len(live)-1], true
		}
	case s == "-":
		if len(live) > 1 {
			return live[len(live)-2], true
		}
		if len(live) == 1 {
			return live[0], true
		}
	case isDigits(s):
		n, _ := strconv.Atoi(s)
		for _, j := range live {
			if j.id == n {
				return j, true
			}
		}
	case strings.HasPrefix(s, "?"):
		for _, j := range live {
			if strings.Contains(j.text, s[1:]) {
				return j, true
			}
		}
	default:
		for _, j := range live {
			if strings.HasPrefix(j.text, s) {
				return j, true
			}
		}
	}
	return nil, false
}

// waitFor waits for a job, returning false when the command ended first.
func (sh *Shell) waitFor(j *job) bool {
	select {
	case <-j.done:
		return true
	case <-sh.ctx.Done():
		return false
	}
}

// forget drops a finished job from the table.
func (sh *Shell) forget(j *job) {
	t := sh.jobs
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, x := range t.list {
		if x == j {
			t.list = append(t.list[:i], t.list[i+1:]...)
			return
		}
	}
}

func builtinWait(sh *Shell, args []string) int {
	args = args[1:]
	anyOne := false
	pvar := ""
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
		switch args[0] {
		case "-n":
			anyOne = true
		case "-f":
		case "-p":
			if len(args) < 2 {
				sh.errorf("wait: -p: option requires an argument")
				return 2
			}
			pvar = args[1]
			args = args[1:]
		case "--":
		default:
			sh.errorf("wait: %s: invalid option", args[0])
			fmt.Fprintln(sh.stderr(), "wait: usage: wait [-fn] [-p var] [id ...]")
			return 2
		}
		args = args[1:]
	}
	if anyOne {
		sh.jobs.mu.Lock()
		var pending []*job
		for _, j := range sh.jobs.list {
			if !j.procSubst || len(args) > 0 {
				pending = append(pending, j)
			}
		}
		sh.jobs.mu.Unlock()
		if len(pending) == 0 {
			return 127
		}
		for {
			for _, j := range pending {
				if j.finished() {
					sh.forget(j)
					if pvar != "" {
						sh.setVar(pvar, strconv.Itoa(j.pid))
					}
					return j.status
				}
			}
			select {
			case <-sh.ctx.Done():
				return 124
			case <-time.After(time.Millisecond):
			}
		}
	}
	if len(args) == 0 {
		sh.jobs.mu.Lock()
		all := append([]*job(nil), sh.jobs.list...)
		sh.jobs.mu.Unlock()
		for _, j := range all {
			if !sh.waitFor(j) {
				return 124
			}
			sh.forget(j)
		}
		return 0
	}
	status := 0
	for _, a := range args {
		j, ok := sh.findJob(a)
		if !ok {
			if strings.HasPrefix(a, "%") {
				sh.errorf("wait: %s: no such job", a)
			} else if _, err := strconv.Atoi(a); err != nil {
				sh.errorf("wait: `%s': not a pid or valid job spec", a)
				status = 2
				continue
			} else {
				sh.errorf("wait: pid %s is not a child of this shell", a)
			}
			status = 127
			continue
		}
		if !sh.waitFor(j) {
			return 124
		}
		sh.forget(j)
		status = j.status
		if pvar != "" {
			sh.setVar(pvar, strconv.Itoa(j.pid))
		}
	}
	return status
}

func builtinJobs(sh *Shell, args []string) int {
	long, pidsOnly, running, stoppedOnly := false, false, false, false
	for _, a := range args[1:] {
		switch a {
		case "-l":
			long = true
		case "-p":
			pidsOnly = true
		case "-r":
			running = true
		case "-s":
			stoppedOnly = true
		case "-n":
		default:
			sh.errorf("jobs: %s: invalid option", a)
			fmt.Fprintln(sh.stderr(), "jobs: usage: jobs [-lnprs] [jobspec ...] or jobs -x command [args]")
			return 2
		}
	}
	if stoppedOnly {
		return 0
	}
	sh.jobs.mu.Lock()
	list := append([]*job(nil), sh.jobs.list...)
	sh.jobs.mu.Unlock()
	var live []*job
	for _, j := range list {
		if !j.procSubst {
			live = append(live, j)
		}
	}
	w := sh.stdout()
	for i, j := range live {
		done := j.finished()
		if running && done {
			continue
		}
		if pidsOnly {
			fmt.Fprintln(w, j.pid)
			continue
		}
		mark := " "
		switch i {
		case len(live) - 1:
			mark = "+"
		case len(live) - 2:
			mark = "-"
		}
		state := "Running"
		if done {
			state = "Done"
			if j.status != 0 {
				state = "Exit " + strconv.Itoa(j.status)
				if j.killed.Load() != 0 {
					state = "Terminated"
				}
			}
		}
		text := j.text
		if !done {
			text += " &"
		}
		if long {
			fmt.Fprintf(w, "[%d]%s %d %-24s%s\n", j.id, mark, j.pid, state, text)
		} else {
			fmt.Fprintf(w, "[%d]%s  %-24s%s\n", j.id, mark, state, text)
		}
		if done {
			sh.forget(j)
		}
	}
	return 0
}

func builtinKill(sh *Shell, args []string) int {
	args = args[1:]
	sig := 15
	if len(args) == 0 {
		fmt.Fprintln(sh.stderr(), "kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]")
		return 2
	}
	switch {
	case args[0] == "-l" || args[0] == "-L":
		if len(args) == 1 {
			sh.printSignals()
			return 0
		}
		status := 0
		for _, a := range args[1:] {
			n, err := strconv.Atoi(a)
			if err == nil {
				if n > 128 {
					n -= 128
				}
				if n > 0 && n < len(signals) {
					fmt.Fprintln(sh.stdout(), signals[n])
					continue
				}
			} else if num, _, ok := signalNumber(a); ok && num > 0 {
				fmt.Fprintln(sh.stdout(), num)
				continue
			}
			sh.errorf("kill: %s: invalid signal specification", a)
			status = 1
		}
		return status
	case args[0] == "-s" || args[0] == "-n":
		if len(args) < 2 {
			sh.errorf("kill: %s: option requires an argument", args[0])
			return 2
		}
		n, _, ok := signalNumber(args[1])
		if !ok || n < 0 {
			sh.errorf("kill: %s: invalid signal specification", args[1])
			return 1
		}
		sig = n
		args = args[2:]
	case strings.HasPrefix(args[0], "-") && len(args[0]) > 1 && args[0] != "--":
		n, _, ok := signalNumber(args[0][1:])
		if !ok || n < 0 {
			sh.errorf("kill: %s: invalid signal specification", args[0][1:])
			return 1
		}
		sig = n
		args = args[1:]
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	status := 0
	for _, a := range args {
		if n, err := strconv.Atoi(a); err == nil && (n == sh.run.rootPid() || n == sh.pid) && sig != 0 {
			sh.deliverLater(sig)
			continue
		}
		j, ok := sh.findJob(a)
		if !ok {
			if strings.HasPrefix(a, "%") {
				sh.errorf("kill: %s: no such job", a)
			} else if _, err := strconv.Atoi(a); err != nil {
				sh.errorf("kill: %s: arguments must be process or job IDs", a)
			} else {
				sh.errorf("kill: (%s) - No such process", a)
			}
			status = 1
			continue
		}
		if sig == 0 {
			if j.finished() {
				status = 1
			}
			continue
		}
		if j.finished() {
			continue
		}
		j.killed.Store(int32(sig))
		if j.shell.killed != nil {
			j.shell.killed.Store(int32(sig))
		}
		j.cancel()
	}
	return status
}

// deliverLater queues a signal this shell sent itself; it is handled
// once the current command is done.
func (sh *Shell) deliverLater(sig int) {
	sh.pendingSignals = append(sh.pendingSignals, sig)
}

// rootPid is $$: the id of the command's shell.
func (r *run) rootPid() int { return 1000 + 1 }

func builtinDisown(sh *Shell, args []string) int {
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		j, ok := sh.findJob(a)
		if !ok {
			sh.errorf("disown: %s: no such job", a)
			return 1
		}
		sh.forget(j)
	}
	if len(args) == 1 {
		sh.jobs.mu.Lock()
		if n := len(sh.jobs.list); n > 0 {
			sh.jobs.list = sh.jobs.list[:n-1]
		}
		sh.jobs.mu.Unlock()
	}
	return 0
}

func builtinFg(sh *Shell, args []string) int {
	sh.errorf("%s: no job control", args[0])
	return 1
}

// coproc runs coproc [NAME] command: a job whose stdin and stdout are
// pipes, NAME[0] (read its output) and NAME[1] (write its input) in the
// shell.
func (sh *Shell) coproc(c *syntax.CoprocClause) {
	name := "COPROC"
	if c.Name != nil {
		n, err := sh.expandString(c.Name)
		if err != nil {
			sh.expandFailed(err)
			return
		}
		name = n
	}
	if !sh.checkDepth() {
		return
	}
	inR, inW := sh.run.pipeFiles()
	outR, outW := sh.run.pipeFiles()
	sub := sh.fork()
	sub.depth++
	sub.fds.set(0, inR)
	sub.fds.set(1, outW)
	readFd := sh.fds.free(60)
	sh.fds.set(readFd, outR)
	writeFd := sh.fds.free(60)
	sh.fds.set(writeFd, inW)
	j := sh.newJob(sub, "coproc "+name)
	stmt := c.Stmt
	ok := sh.goroutine(func() {
		sh.runForked(sub, func(b *Shell) { b.stmt(stmt) })
		j.end(sub.status)
	})
	if !ok {
		sub.finish()
		return
	}
	sh.setArray(name, []arrayValue{{val: strconv.Itoa(readFd)}, {val: strconv.Itoa(writeFd)}}, false, false)
	sh.setVar(name+"_PID", strconv.Itoa(j.pid))
	sh.lastBg = j.pid
	sh.status = 0
}

// stopNow ends the shell because the command is over (124, the wall
// time's status) or its job was killed (128+N).
func (sh *Shell) stopNow() {
	status := 124
	if sh.killed != nil {
		if sig := sh.killed.Load(); sig != 0 {
			status = 128 + int(sig)
		}
	}
	sh.flow, sh.status = flowExit, status
}
