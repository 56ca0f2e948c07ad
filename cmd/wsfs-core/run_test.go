package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wsfs/wsfs/api"
	"github.com/wsfs/wsfs/runsvc"
)

type runOut struct {
	ExitCode   int      `json:"exit_code"`
	Stdout     string   `json:"stdout"`
	Stderr     string   `json:"stderr"`
	Truncated  bool     `json:"truncated"`
	OutputRef  string   `json:"output_ref"`
	Revision   int      `json:"revision"`
	Committed  bool     `json:"committed"`
	DurationMS *int64   `json:"duration_ms"`
	LimitsHit  []string `json:"limits_hit"`
}

func runJSONOut(t *testing.T, home string, args ...string) runOut {
	t.Helper()
	out, errOut, _ := wsfsBin(t, home, "", append([]string{"run", "--json"}, args...)...)
	var r runOut
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("wsfs run --json %q: %v\nstdout %s\nstderr %s", args, err, out, errOut)
	}
	if r.DurationMS == nil || r.LimitsHit == nil {
		t.Fatalf("wsfs run --json: duration_ms or limits_hit missing: %s", out)
	}
	return r
}

func revisionCount(t *testing.T, home, ws string) int {
	t.Helper()
	out, errOut, code := wsfsBin(t, home, "", "log", "--json", ws)
	if code != 0 {
		t.Fatalf("wsfs log: %d %s", code, errOut)
	}
	var revs []json.RawMessage
	if err := json.Unmarshal([]byte(out), &revs); err != nil {
		t.Fatalf("wsfs log --json: %v\n%s", err, out)
	}
	return len(revs)
}

func mustOK(t *testing.T, home, stdin string, args ...string) string {
	t.Helper()
	out, errOut, code := wsfsBin(t, home, stdin, args...)
	if code != 0 {
		t.Fatalf("wsfs %q: exit %d\n%s", args, code, errOut)
	}
	return out
}

// TestRunAgentSession is the product's smoke test: an agent's commands
// through wsfs run against a running server, one revision per command that
// changes something, the cwd kept between commands.
func TestRunAgentSession(t *testing.T) {
	requireFUSE(t)
	home, mnt := newMountDirs(t)
	s := startServer(t, home, mnt, "--quiet", "1h")
	mustOK(t, home, "", "create", "acme/r")

	out := mustOK(t, home, "", "run", "-w", "acme/r",
		`mkdir -p reports/empty; cd reports; printf 'name,score\nAlpha,8\nBeta,9\n' > scores.csv; cat scores.csv`)
	if want := "name,score\nAlpha,8\nBeta,9\n"; out != want {
		t.Fatalf("first command printed %q, want %q", out, want)
	}
	if n := revisionCount(t, home, "acme/r"); n != 2 {
		t.Fatalf("%d revisions after the first command, want 2", n)
	}
	// The script on stdin; the cwd persisted.
	out = mustOK(t, home, "pwd; cat scores.csv", "run", "-w", "acme/r")
	if want := "/workspace/reports\nname,score\nAlpha,8\nBeta,9\n"; out != want {
		t.Fatalf("second command printed %q, want %q", out, want)
	}
	if n := revisionCount(t, home, "acme/r"); n != 2 {
		t.Fatalf("a command that changed nothing made a revision: %d revisions", n)
	}
	r := runJSONOut(t, home, "-w", "acme/r", "mv scores.csv final.csv; ls")
	if r.ExitCode != 0 || !r.Committed || r.Revision != 3 || r.Stdout != "empty\nfinal.csv\n" || r.OutputRef == "" || r.Truncated {
		t.Fatalf("mv: %+v", r)
	}
	if b, err := os.ReadFile(filepath.Join(mnt, "acme/r/reports/final.csv")); err != nil || string(b) != "name,score\nAlpha,8\nBeta,9\n" {
		t.Fatalf("final.csv on the mount: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(mnt, "acme/r/reports/scores.csv")); !os.IsNotExist(err) {
		t.Fatalf("scores.csv still on the mount: %v", err)
	}
	if out := mustOK(t, home, "", "output", r.OutputRef); out != "empty\nfinal.csv\n" {
		t.Fatalf("wsfs output printed %q", out)
	}
	show := mustOK(t, home, "", "show", "--json", "acme/r@3")
	if !strings.Contains(show, "mv scores.csv final.csv; ls") || !strings.Contains(show, `"/reports"`) {
		t.Fatalf("revision 3 does not record the command and cwd:\n%s", show)
	}

	// Exit code, stderr and a file given with -f.
	script := filepath.Join(t.TempDir(), "s.sh")
	os.WriteFile(script, []byte("echo oops >&2; exit 7\n"), 0o644)
	stdout, stderr, code := wsfsBin(t, home, "", "run", "-w", "acme/r", "-f", script)
	if code != 7 || stdout != "" || stderr != "oops\n" {
		t.Fatalf("exit 7: code %d stdout %q stderr %q", code, stdout, stderr)
	}
	r = runJSONOut(t, home, "-w", "acme/r", "pwd")
	if r.Committed || r.Revision != 3 || r.Stdout != "/workspace/reports\n" {
		t.Fatalf("pwd: %+v", r)
	}

	// Quota refusals come with the server's words.
	mustOK(t, home, "", "quota", "acme/r", "set", "file-bytes=10")
	_, stderr, code = wsfsBin(t, home, "", "run", "-w", "acme/r", `printf '%0100d' 0 > big.txt`)
	// The exit code is the runner's: a write refused at close may not fail the command.
	_ = code
	if !strings.Contains(stderr, "10 bytes per file") || !strings.Contains(stderr, "big.txt") {
		t.Fatalf("quota refusal: code %d stderr %q", code, stderr)
	}

	// Bad input.
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"run", "echo hi"}, exitUsage, "-w TENANT/NAME is required"},
		{[]string{"run", "-w", "Bad Name", "echo hi"}, exitUsage, `"Bad Name": invalid: want tenant/name`},
		{[]string{"run", "-w", "acme/nope", "echo hi"}, exitNotFound, "acme/nope"},
		{[]string{"run", "-w", "acme/r", "if then fi"}, 2, "syntax"},
		{[]string{"output", "nothex"}, exitUsage, "not an output reference"},
	} {
		_, stderr, code := wsfsBin(t, home, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("wsfs %q: exit %d stderr %q, want exit %d and %q", tc.args, code, stderr, tc.code, tc.msg)
		}
	}
	if err := s.stop(os.Interrupt); err != nil {
		t.Fatalf("server: %v\n%s", err, s.stderr)
	}
}

// TestRunQueue: commands on one workspace run one at a time in arrival
// order; --wait bounds the wait with a busy error.
func TestRunQueue(t *testing.T) {
	requireFUSE(t)
	home, mnt := newMountDirs(t)
	startServer(t, home, mnt, "--quiet", "1h")
	mustOK(t, home, "", "create", "acme/q")
	mustOK(t, home, "", "create", "acme/other")

	// wsfs logs -f follows every command of acme/q from here on.
	follow := exec.Command(wsfsBinary(t), "logs", "-f", "acme/q")
	follow.Env = append(os.Environ(), "WSFS_HOME="+home, "WSFS_STORE=")
	fr, fw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	follow.Stdout, follow.Stderr = fw, fw
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	fw.Close()
	t.Cleanup(func() { follow.Process.Kill(); follow.Wait() })
	followed := make(chan string, 1)
	go func() {
		var b strings.Builder
		sc := bufio.NewScanner(fr)
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
			if strings.Contains(b.String(), "==> acme/q: cat order\n1\n2\n3\n==> exit 0\n") {
				break
			}
		}
		followed <- b.String()
	}()

	// The test waits for the first command's first line.
	// The first command holds the turn until the test opens the gate, so
	// that a busy machine cannot end it before the queue is looked at.
	mustOK(t, home, "", "quota", "acme/q", "set", "wall-time=5m")
	const firstScript = "echo go; until [ -e gate ]; do sleep 0.02; done; rm gate; echo 1 >> order"
	first := exec.Command(wsfsBinary(t), "run", "-w", "acme/q", firstScript)
	first.Env = append(os.Environ(), "WSFS_HOME="+home, "WSFS_STORE=")
	pipe, err := first.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(pipe).ReadString('\n')
	if err != nil || line != "go\n" {
		t.Fatalf("first command: %q %v", line, err)
	}
	// Another workspace is not held up.
	if out := mustOK(t, home, "", "run", "--wait", "0", "-w", "acme/other", "echo free"); out != "free\n" {
		t.Fatalf("other workspace: %q", out)
	}
	var wg sync.WaitGroup
	codes := make([]int, 4)
	for i := 2; i <= 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, stderr, code := wsfsBin(t, home, "", "run", "-w", "acme/q", fmt.Sprintf("echo %d >> order", i))
			if code != 0 {
				t.Errorf("command %d: exit %d %s", i, code, stderr)
			}
			codes[i] = code
		}()
		// Wait until the queue shows it (busy probes never join the queue).
		want := fmt.Sprintf("busy: %d commands ahead", i)
		for {
			_, stderr, code := wsfsBin(t, home, "", "run", "--wait", "0", "-w", "acme/q", "true")
			if code == exitStale && strings.Contains(stderr, want) {
				break
			}
			if code != exitStale || !strings.Contains(stderr, "busy: ") {
				t.Fatalf("probe: exit %d %q", code, stderr)
			}
		}
	}
	_, stderr, code := wsfsBin(t, home, "", "run", "--wait", "50ms", "-w", "acme/q", "true")
	if code != exitStale || !strings.Contains(stderr, "busy: 3 commands ahead on acme/q") {
		t.Fatalf("--wait 50ms: exit %d %q", code, stderr)
	}
	var qs []runsvc.Queue
	if err := json.Unmarshal([]byte(mustOK(t, home, "", "ps", "--json")), &qs); err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 || qs[0].Workspace != "acme/q" || qs[0].Running == nil || !strings.HasPrefix(qs[0].Running.Script, "echo go") ||
		len(qs[0].Waiting) != 2 || qs[0].Waiting[0].Script != "echo 2 >> order" || qs[0].Waiting[1].Script != "echo 3 >> order" {
		t.Fatalf("wsfs ps: %+v", qs)
	}
	lout, lerr, lcode := wsfsBin(t, home, "", "logs", "acme/q")
	if lcode != 0 || lout != "go\n" || !strings.Contains(lerr, "==> acme/q: echo go") {
		t.Fatalf("wsfs logs: exit %d stdout %q stderr %q", lcode, lout, lerr)
	}
	if err := os.WriteFile(filepath.Join(mnt, "acme", "q", "gate"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err := first.Wait(); err != nil {
		t.Fatal(err)
	}
	if out := mustOK(t, home, "", "run", "-w", "acme/q", "cat order"); out != "1\n2\n3\n" {
		t.Fatalf("order %q, want 1 2 3", out)
	}
	wantFollow := "==> acme/q: " + firstScript + "\ngo\n==> exit 0\n==> acme/q: echo 2 >> order\n==> exit 0\n" +
		"==> acme/q: echo 3 >> order\n==> exit 0\n==> acme/q: cat order\n1\n2\n3\n==> exit 0\n"
	select {
	case got := <-followed:
		if !strings.HasSuffix(got, wantFollow) {
			t.Fatalf("wsfs logs -f printed:\n%s\nwant:\n%s", got, wantFollow)
		}
	case <-time.After(time.Minute): // a hang guard, not a timing check
		follow.Process.Kill()
		t.Fatalf("wsfs logs -f printed, within a minute:\n%s\nwant:\n%s", <-followed, wantFollow)
	}
	if n := revisionCount(t, home, "acme/q"); n != 4 {
		t.Fatalf("%d revisions, want 4 (create and three commands)", n)
	}
}

// TestRunSharedServer: with no server running, the first wsfs run starts
// one for the home, and every command that comes meanwhile, however many
// at once, uses it (issue 15: two at once failed, "meta.db is in use");
// history verbs go on working beside it; it stays until idle, and a wsfs
// mount takes its place.
func TestRunSharedServer(t *testing.T) {
	requireFUSE(t)
	home := noServerHome(t)
	mustOK(t, home, "", "create", "acme/p")
	mustOK(t, home, "", "create", "acme/q")
	f := front{t: t, home: home}
	var wg sync.WaitGroup
	outs := make([]string, 6)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := []string{"acme/p", "acme/q"}[i%2]
			out, errOut, code := f.run("", "run", "-w", ws, fmt.Sprintf("echo %d >> n.txt; echo ran %d", i, i))
			if code != 0 {
				t.Errorf("concurrent run %d on %s with no server: exit %d\n%s", i, ws, code, errOut)
			}
			outs[i] = out
		}()
		if i == 2 {
			// History verbs beside the server that is starting.
			if out := mustOK(t, home, "", "log", "acme/p"); !strings.Contains(out, "create acme/p") {
				t.Errorf("wsfs log beside the starting server: %q", out)
			}
		}
	}
	wg.Wait()
	for i, out := range outs {
		if out != fmt.Sprintf("ran %d\n", i) {
			t.Errorf("run %d printed %q", i, out)
		}
	}
	info, err := api.ReadInfo(home)
	if err != nil || !info.Shared {
		t.Fatalf("no server.json of a shared server: %+v %v", info, err)
	}
	if n := revisionCount(t, home, "acme/p") + revisionCount(t, home, "acme/q"); n != 2+6 {
		t.Errorf("%d revisions, want 8", n)
	}
	// A wsfs mount takes the shared server's place.
	mnt := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, home, mnt, "--quiet", "1h")
	if !strings.Contains(s.stderr.String(), fmt.Sprintf("the server that wsfs run started (PID %d) stops", info.PID)) {
		t.Errorf("the mount did not say it replaced the shared server:\n%s", s.stderr)
	}
	if (api.Info{PID: info.PID}).Alive() || mountedFUSE(info.MountDir) {
		t.Errorf("the shared server PID %d (mount %s) still runs", info.PID, info.MountDir)
	}
	if out := f.ok("", "run", "-w", "acme/p", "wc -l < n.txt"); out != "3\n" {
		t.Errorf("on the new server: %q", out)
	}
	if err := s.stop(os.Interrupt); err != nil {
		t.Fatalf("server: %v\n%s", err, s.stderr)
	}
}

// noServerHome returns a home where no server runs yet; the server that a
// wsfs run starts there (runwire.StartServer) is stopped when the test
// ends.
func noServerHome(t *testing.T) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	t.Cleanup(func() {
		info, err := api.ReadInfo(home)
		if err != nil || !info.Alive() {
			return
		}
		if _, errOut, code := wsfsBin(t, home, "", "umount", info.MountDir); code != 0 {
			t.Errorf("stopping the shared server: %s", errOut)
			syscall.Kill(info.PID, syscall.SIGKILL)
			syscall.Unmount(info.MountDir, syscall.MNT_DETACH)
		}
	})
	return home
}

// TestRunLimitsAndLostWorker: a command stopped by the wall time keeps its
// changes; a worker killed mid-command still gets its changes committed,
// and the workspace's turn is freed for the next command.
func TestRunLimitsAndLostWorker(t *testing.T) {
	requireFUSE(t)
	home, mnt := newMountDirs(t)
	startServer(t, home, mnt, "--quiet", "1h")
	mustOK(t, home, "", "create", "acme/k")
	mustOK(t, home, "", "quota", "acme/k", "set", "wall-time=1s", "output-bytes=1000")

	r := runJSONOut(t, home, "-w", "acme/k", "echo before > a.txt; sleep 10; echo after > b.txt")
	if r.ExitCode != 124 || !r.Committed || len(r.LimitsHit) != 1 || !strings.Contains(r.LimitsHit[0], "time limit") {
		t.Fatalf("wall time: %+v", r)
	}
	r = runJSONOut(t, home, "-w", "acme/k", "seq 2000")
	if !r.Truncated || len(r.Stdout) > 1000 || !strings.HasSuffix(r.Stdout, "2000\n") || r.OutputRef == "" {
		t.Fatalf("output limit: truncated %v, %d bytes kept, ref %q", r.Truncated, len(r.Stdout), r.OutputRef)
	}
	full := mustOK(t, home, "", "output", r.OutputRef)
	want, _ := exec.Command("seq", "2000").Output()
	if full != string(want) {
		t.Fatalf("wsfs output gave %d bytes, want the full %d", len(full), len(want))
	}
	mustOK(t, home, "", "quota", "acme/k", "set", "wall-time=30s")
	if r := runJSONOut(t, home, "--timeout", "300ms", "-w", "acme/k", "sleep 5"); r.ExitCode != 124 || r.Committed {
		t.Fatalf("--timeout: %+v", r)
	}

	worker := exec.Command(wsfsBinary(t), "run", "-w", "acme/k", "echo x > lost.txt; echo go; sleep 30")
	worker.Env = append(os.Environ(), "WSFS_HOME="+home, "WSFS_STORE=")
	pipe, err := worker.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(pipe).ReadString('\n'); err != nil || line != "go\n" {
		t.Fatalf("worker: %q %v", line, err)
	}
	worker.Process.Kill()
	worker.Wait()
	// The next command waits for the lost one's snapshot, then runs.
	if out := mustOK(t, home, "", "run", "-w", "acme/k", "cat lost.txt a.txt; ls"); out != "x\nbefore\na.txt\nlost.txt\n" {
		t.Fatalf("after the lost worker: %q", out)
	}
	show := mustOK(t, home, "", "show", "--json", "acme/k")
	if !strings.Contains(show, "sleep 30") {
		t.Fatalf("the lost command's revision is not the head:\n%s", show)
	}
}

// TestLogs: -n shows the last commands, --since those since a time; -f
// starts at the running command (issue 15: it first replayed the whole
// previous output) and follows the next ones.
func TestLogs(t *testing.T) {
	requireFUSE(t)
	home, mnt := newMountDirs(t)
	s := startServer(t, home, mnt, "--quiet", "1h")
	mustOK(t, home, "", "create", "acme/l")
	mustOK(t, home, "", "run", "-w", "acme/l", "echo first")
	mustOK(t, home, "", "run", "-w", "acme/l", "echo second")
	if out, errs, _ := wsfsBin(t, home, "", "logs", "-n", "1", "acme/l"); out != "second\n" || !strings.Contains(errs, "==> acme/l: echo second") {
		t.Errorf("logs -n 1: %q %q", out, errs)
	}
	if out, _, _ := wsfsBin(t, home, "", "logs", "-n", "5", "acme/l"); out != "first\nsecond\n" {
		t.Errorf("logs -n 5: %q", out)
	}
	if out, _, _ := wsfsBin(t, home, "", "logs", "--since", "1h", "acme/l"); out != "first\nsecond\n" {
		t.Errorf("logs --since 1h: %q", out)
	}
	if out, errs, code := wsfsBin(t, home, "", "logs", "--since", time.Now().Add(time.Hour).Format(time.RFC3339), "acme/l"); out != "" || code != 0 {
		t.Errorf("logs --since an hour ahead: %q %q", out, errs)
	}
	if _, errs, code := wsfsBin(t, home, "", "logs", "--since", "yesterday-ish", "acme/l"); code != exitUsage || !strings.Contains(errs, "neither a duration") {
		t.Errorf("logs --since garbage: exit %d %q", code, errs)
	}

	follow := exec.Command(wsfsBinary(t), "logs", "-f", "acme/l")
	follow.Env = append(os.Environ(), "WSFS_HOME="+home, "WSFS_STORE=")
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	follow.Stdout, follow.Stderr = pw, pw
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	t.Cleanup(func() { follow.Process.Kill(); follow.Wait() })
	got := make(chan string, 1)
	go func() {
		var b strings.Builder
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
			if strings.Contains(b.String(), "==> exit 0\n") {
				break
			}
		}
		got <- b.String()
	}()
	// The follower has subscribed once ps... has nothing to show; a
	// command after it must reach it.
	waitFor(t, "the follower to subscribe", func() string {
		if mustOK(t, home, "", "run", "-w", "acme/l", "echo third"); len(got) == 0 {
			return "nothing followed yet"
		}
		return ""
	})
	out := <-got
	if strings.Contains(out, "first") || strings.Contains(out, "second") || !strings.Contains(out, "==> acme/l: echo third\nthird\n==> exit 0\n") {
		t.Errorf("logs -f printed:\n%s", out)
	}
	if err := s.stop(os.Interrupt); err != nil {
		t.Fatalf("server: %v\n%s", err, s.stderr)
	}
}
