package runsvc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/meta/metatest"
	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/runsvc/runwire"
)

// The service's tests run real workers (this module's wsfs-core, built
// once) over a fake mount: each workspace is a plain folder, and a
// snapshot records what it was asked. The FUSE mount's side is fusefs's
// tests and cmd/wsfs-core's.

var (
	coreOnce sync.Once
	corePath string
	coreErr  error
)

func core(t testing.TB) string {
	t.Helper()
	coreOnce.Do(func() {
		dir, err := os.MkdirTemp("", "runsvc-test-bin-")
		if err != nil {
			coreErr = err
			return
		}
		corePath = filepath.Join(dir, "wsfs-core")
		out, err := exec.Command("go", "build", "-o", corePath, "../cmd/wsfs-core").CombinedOutput()
		if err != nil {
			coreErr = fmt.Errorf("go build ../cmd/wsfs-core: %v\n%s", err, out)
		}
	})
	if coreErr != nil {
		t.Fatal(coreErr)
	}
	return corePath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if corePath != "" {
		os.RemoveAll(filepath.Dir(corePath))
	}
	os.Exit(code)
}

// folderMount is a Mount over plain folders, one per workspace.
type folderMount struct {
	root string
	mu   sync.Mutex
	log  []string
}

func (m *folderMount) record(s string) {
	m.mu.Lock()
	m.log = append(m.log, s)
	m.mu.Unlock()
}

func (m *folderMount) calls() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.log...)
}

func (m *folderMount) Hold(ws string) func() {
	m.record("hold " + ws)
	return func() { m.record("release " + ws) }
}
func (m *folderMount) Flush(_ context.Context, ws string) error { m.record("flush " + ws); return nil }
func (m *folderMount) WorkspaceDir(ws string) (string, error) {
	d := filepath.Join(m.root, filepath.FromSlash(ws))
	return d, os.MkdirAll(d, 0o755)
}
func (m *folderMount) Snapshot(_ context.Context, ws string, base meta.RevNum, cwd string, info meta.CommitInfo) (meta.Revision, bool, error) {
	m.record(fmt.Sprintf("snapshot %s base %d cwd %s exit %d: %s", ws, base, cwd, info.ExitCode, info.Command))
	return meta.Revision{Workspace: ws, N: base}, false, nil
}
func (m *folderMount) Refusals(string) []*meta.QuotaError { return nil }

type testEnv struct {
	svc   *Service
	db    *meta.DB
	mount *folderMount
}

func newEnv(t *testing.T, workspaces ...string) *testEnv {
	t.Helper()
	db := metatest.Open(t, nil)
	for _, ws := range workspaces {
		metatest.Create(t, db, ws)
	}
	m := &folderMount{root: t.TempDir()}
	svc, err := New(Config{DB: db, Mount: m, Program: core(t), JSCache: filepath.Join(t.TempDir(), "qjs"),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := svc.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	return &testEnv{svc: svc, db: db, mount: m}
}

func (e *testEnv) run(t *testing.T, j Job) Report {
	t.Helper()
	r, err := e.svc.Submit(context.Background(), j)
	if err != nil {
		t.Fatalf("Submit %q: %v", j.Script, err)
	}
	rep, err := r.Wait(context.Background())
	if err != nil {
		t.Fatalf("%q: %v", j.Script, err)
	}
	return rep
}

// TestServiceRunsWithReaderAndWriters runs commands as a network caller
// would: stdin an io.Reader, the output io.Writers fed as it comes, the
// report with the last bytes of each stream and the stored output.
func TestServiceRunsWithReaderAndWriters(t *testing.T) {
	e := newEnv(t, "acme/a")
	var out, errb bytes.Buffer
	rep := e.run(t, Job{Workspace: "acme/a", Script: "tr a-z A-Z; echo warn >&2; mkdir -p sub; cd sub; exit 3",
		Stdin: strings.NewReader("hello\nworld\n"), Stdout: &out, Stderr: &errb, Author: "me", Tails: true})
	if rep.ExitCode != 3 || rep.Stdout != "HELLO\nWORLD\n" || rep.Stderr != "warn\n" || out.String() != rep.Stdout || errb.String() != rep.Stderr {
		t.Fatalf("report %+v; writers %q %q", rep, out.String(), errb.String())
	}
	d, err := objects.ParseDigest(rep.OutputRef)
	if err != nil {
		t.Fatal(err)
	}
	// The output is stored after the report: the service has it at once,
	// the store once it is stored (then meta records it too).
	rc, err := e.svc.OpenOutput(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	var so, se bytes.Buffer
	if err := DecodeOutput(rc, &so, &se); err != nil || so.String() != "HELLO\nWORLD\n" || se.String() != "warn\n" {
		t.Fatalf("the output: %q %q %v", so.String(), se.String(), err)
	}
	rc.Close()
	waitUntil(t, "the output to be recorded", func() bool {
		outs, _ := e.db.Outputs(context.Background(), "acme/a")
		return len(outs) == 1 && outs[0].Digest == d && outs[0].Run == rep.Run && outs[0].ExitCode == 3 && strings.HasPrefix(outs[0].Command, "tr a-z")
	})
	if _, err := objects.Get(context.Background(), e.db.Store(), d); err != nil {
		t.Fatalf("the stored output: %v", err)
	}
	want := []string{"hold acme/a", "flush acme/a", "snapshot acme/a base 1 cwd /sub exit 3: tr a-z A-Z; echo warn >&2; mkdir -p sub; cd sub; exit 3", "release acme/a"}
	if got := e.mount.calls(); !slices.Equal(got, want) {
		t.Fatalf("mount calls:\n%q\nwant\n%q", got, want)
	}
	// No stdin is EOF.
	if rep := e.run(t, Job{Workspace: "acme/a", Script: "cat; echo end", Tails: true}); rep.Stdout != "end\n" {
		t.Fatalf("no stdin: %+v", rep)
	}
}

// TestServiceQueue: commands on one workspace run one at a time in
// arrival order (the server's own changes too), Wait bounds a command's
// wait, Cancel takes one out of the queue, and Queues shows it all.
func TestServiceQueue(t *testing.T) {
	e := newEnv(t, "acme/q")
	ctx := context.Background()
	gate := filepath.Join(e.mount.root, "acme", "q", "gate")
	first, err := e.svc.Submit(ctx, Job{Workspace: "acme/q", Script: "until [ -e gate ]; do sleep 0.01; done; echo 1 >> order"})
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the first command to run", func() bool { return first.Running() })
	second, err := e.svc.Submit(ctx, Job{Workspace: "acme/q", Script: "echo 2 >> order"})
	if err != nil {
		t.Fatal(err)
	}
	change := make(chan error, 1)
	go func() {
		change <- e.svc.Exclusive(ctx, "acme/q", "wsfs test", true, func() error { return nil })
	}()
	waitUntil(t, "the change to queue", func() bool {
		qs := e.svc.Queues()
		return len(qs) == 1 && len(qs[0].Waiting) == 2
	})
	cancelled, err := e.svc.Submit(ctx, Job{Workspace: "acme/q", Script: "echo never >> order"})
	if err != nil {
		t.Fatal(err)
	}
	zero := time.Duration(0)
	if _, err := e.svc.Submit(ctx, Job{Workspace: "acme/q", Script: "true", Wait: &zero}); !errors.Is(err, ErrBusy) ||
		!strings.Contains(err.Error(), "busy: 4 commands ahead on acme/q") {
		t.Fatalf("--wait 0: %v", err)
	}
	qs := e.svc.Queues()
	if len(qs) != 1 || qs[0].Running == nil || qs[0].Running.Run != first.ID || len(qs[0].Waiting) != 3 ||
		qs[0].Waiting[0].Run != second.ID || qs[0].Waiting[1].Script != "wsfs test" || qs[0].Waiting[2].Run != cancelled.ID {
		t.Fatalf("queues: %+v", qs)
	}
	cancelled.Cancel()
	if _, err := cancelled.Wait(ctx); !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "cancelled before it started") {
		t.Fatalf("cancelled while queued: %v", err)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*Run{first, second} {
		if rep, err := r.Wait(ctx); err != nil || rep.ExitCode != 0 {
			t.Fatalf("%q: %+v %v", r.Script, rep, err)
		}
	}
	if err := <-change; err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(e.mount.root, "acme", "q", "order"))
	if string(b) != "1\n2\n" {
		t.Fatalf("order: %q", b)
	}
	waitUntil(t, "the queue to empty", func() bool { return len(e.svc.Queues()) == 0 })
	if since, idle := e.svc.IdleSince(); !idle || time.Since(since) < 0 {
		t.Fatalf("idle: %v %v", since, idle)
	}
}

// TestServiceCancelRunning: a running command interrupted stops with 130
// (its changes are snapshotted) and its worker goes; the next command
// runs.
func TestServiceCancelRunning(t *testing.T) {
	e := newEnv(t, "acme/c")
	ctx := context.Background()
	r, err := e.svc.Submit(ctx, Job{Workspace: "acme/c", Script: "echo started > f; sleep 30", Tails: true})
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the command to start", func() bool {
		b, _ := os.ReadFile(filepath.Join(e.mount.root, "acme", "c", "f"))
		return string(b) == "started\n"
	})
	r.Cancel()
	rep, err := r.Wait(ctx)
	if err != nil || rep.ExitCode != 130 || !strings.Contains(rep.Stderr, "cancelled") {
		t.Fatalf("interrupted: %+v %v", rep, err)
	}
	if rep := e.run(t, Job{Workspace: "acme/c", Script: "cat f", Tails: true}); rep.Stdout != "started\n" {
		t.Fatalf("after: %+v", rep)
	}
}

// TestServiceLogs: Logs shows the running command's output from its
// start and follows the next ones; the last N finished ones come from
// memory or meta's records.
func TestServiceLogs(t *testing.T) {
	e := newEnv(t, "acme/l")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.run(t, Job{Workspace: "acme/l", Script: "echo old"})
	var mu sync.Mutex
	var got []string
	done := make(chan error, 1)
	started := make(chan struct{})
	go func() {
		done <- e.svc.Logs(ctx, "acme/l", LogOptions{Follow: true}, func(ev Event) error {
			mu.Lock()
			defer mu.Unlock()
			switch {
			case ev.Start != "":
				got = append(got, "start "+ev.Start)
				if ev.Start == "echo two" {
					close(started)
				}
			case ev.Stdout != nil:
				got = append(got, "out "+string(ev.Stdout))
			case ev.End != nil:
				got = append(got, fmt.Sprintf("end %d", *ev.End))
				if len(got) >= 6 {
					cancel()
				}
			}
			return nil
		})
	}()
	// Followers see commands from the one running when they start.
	waitUntil(t, "the follower", func() bool {
		e.svc.mu.Lock()
		defer e.svc.mu.Unlock()
		return len(e.svc.followers["acme/l"]) == 1
	})
	e.run(t, Job{Workspace: "acme/l", Script: "echo one"})
	e.run(t, Job{Workspace: "acme/l", Script: "echo two"})
	<-started
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := []string{"start echo one", "out one\n", "end 0", "start echo two", "out two\n", "end 0"}
	if !slices.Equal(got, want) {
		t.Fatalf("followed %q, want %q", got, want)
	}
	var last []string
	if err := e.svc.Logs(context.Background(), "acme/l", LogOptions{Last: 2}, func(ev Event) error {
		if ev.Stdout != nil {
			last = append(last, string(ev.Stdout))
		}
		return nil
	}); err != nil || !slices.Equal(last, []string{"one\n", "two\n"}) {
		t.Fatalf("-n 2: %q %v", last, err)
	}
}

// TestServiceRefusals: bad jobs are refused before they queue, each with
// a class and a message that says what to do.
func TestServiceRefusals(t *testing.T) {
	e := newEnv(t, "acme/r")
	ctx := context.Background()
	for _, tc := range []struct {
		job  Job
		code string
		msg  string
	}{
		{Job{Workspace: "Bad Name", Script: "true"}, runwire.CodeInvalid, "tenant/name"},
		{Job{Workspace: "acme/none", Script: "true"}, runwire.CodeNotFound, "acme/none"},
		{Job{Workspace: "acme/r", Script: "  "}, runwire.CodeInvalid, "no script"},
		{Job{Workspace: "acme/r", Script: strings.Repeat("x", runwire.MaxScript+1)}, runwire.CodeInvalid, "8 MiB"},
		{Job{Workspace: "acme/r", Script: "true", Timeout: -time.Second}, runwire.CodeInvalid, "must be positive"},
		{Job{Workspace: "acme/r", Script: "true", Timeout: time.Hour}, runwire.CodeInvalid, "above the wall-time limit of 15s of acme/r; raise the limit with wsfs quota acme/r set wall-time=1h0m0s"},
		{Job{Workspace: "acme/r", Script: "true", Cwd: "/etc"}, runwire.CodeInvalid, "outside /workspace"},
	} {
		_, err := e.svc.Submit(ctx, tc.job)
		if code, _ := Classify(err); err == nil || code != tc.code || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q on %s: %v (%s), want %s and %q", tc.job.Script[:min(10, len(tc.job.Script))], tc.job.Workspace, err, code, tc.code, tc.msg)
		}
	}
}

// TestHistory checks the commands a turn carries for `history`: the
// workspace's revisions oldest first, without mount edits and wsfs verbs.
func TestHistory(t *testing.T) {
	ctx := context.Background()
	db := metatest.Open(t, nil)
	metatest.Create(t, db, "acme/h")
	for _, cmd := range []string{"mkdir src", "(edits on the mount)", "wsfs import acme/h dir", "touch a\ntouch b", "", "echo x > y"} {
		w, err := db.Get(ctx, "acme/h")
		if err != nil {
			t.Fatal(err)
		}
		ops := []meta.Op{meta.PutBytes("f", []byte(cmd+"!"), 0, w.Created)}
		if _, _, err := db.Commit(ctx, w.Name, w.Head, meta.Change{Ops: ops, CommitInfo: meta.CommitInfo{Command: cmd, Author: "test"}}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(Config{DB: db, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	got := s.history(ctx, "acme/h")
	want := []string{"mkdir src", "touch a\ntouch b", "echo x > y"}
	if !slices.Equal(got, want) {
		t.Errorf("history %q, want %q", got, want)
	}
	if h := s.history(ctx, "acme/nope"); h != nil {
		t.Errorf("history of a missing workspace: %q", h)
	}
}

// TestDecodeOutputBothFormats reads an output stored now and one stored
// before runwire's frames.
func TestDecodeOutputBothFormats(t *testing.T) {
	now := runwire.AppendOutput([]byte(runwire.OutputMagic), runwire.KindStdout, []byte("out\n"))
	now = runwire.AppendOutput(now, runwire.KindStderr, []byte("err\n"))
	legacy := []byte(legacyOutputMagic + "o\x00\x00\x00\x04out\ne\x00\x00\x00\x04err\n")
	for name, b := range map[string][]byte{"now": now, "legacy": legacy} {
		var o, e bytes.Buffer
		if err := DecodeOutput(bytes.NewReader(b), &o, &e); err != nil || o.String() != "out\n" || e.String() != "err\n" {
			t.Errorf("%s: %q %q %v", name, o.String(), e.String(), err)
		}
	}
	if err := DecodeOutput(strings.NewReader("not an output"), io.Discard, io.Discard); !errors.Is(err, meta.ErrInvalid) {
		t.Errorf("garbage: %v", err)
	}
}

// waitUntil polls cond; the deadline only guards against a hang.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
