package api

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/runsvc"
	"github.com/wsfs/wsfs/runsvc/runwire"
)

type testEnv struct {
	home   string
	db     *meta.DB
	srv    *Server
	client *Client
	live   *fakeLive
}

// fakeLive records what the server asks of the mount, in order.
type fakeLive struct {
	mu    sync.Mutex
	calls []string
}

func (f *fakeLive) record(s string) {
	f.mu.Lock()
	f.calls = append(f.calls, s)
	f.mu.Unlock()
}
func (f *fakeLive) Flush(_ context.Context, ws string) error { f.record("flush " + ws); return nil }
func (f *fakeLive) Hold(ws string) func() {
	f.record("hold " + ws)
	return func() { f.record("release " + ws) }
}
func (f *fakeLive) WorkspaceDir(ws string) (string, error) { return "/mnt/" + ws, nil }
func (f *fakeLive) Snapshot(_ context.Context, ws string, base meta.RevNum, cwd string, info meta.CommitInfo) (meta.Revision, bool, error) {
	f.record("snapshot " + ws)
	return meta.Revision{Workspace: ws, N: base}, false, nil
}
func (f *fakeLive) Refusals(string) []*meta.QuotaError { return nil }
func (f *fakeLive) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.calls
	f.calls = nil
	return c
}

func newEnv(t *testing.T) *testEnv { t.Helper(); return newEnvWith(t, nil) }

// newEnvWith is newEnv with the server's Config changed by tweak.
func newEnvWith(t *testing.T, tweak func(*Config)) *testEnv {
	t.Helper()
	home := t.TempDir()
	st, err := objects.OpenDir(filepath.Join(home, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := meta.Open(context.Background(), filepath.Join(home, meta.DBFileName), st, meta.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	live := &fakeLive{}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	runs, err := runsvc.New(runsvc.Config{DB: db, Mount: live, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{DB: db, Runs: runs, MountDir: "/nowhere", Home: home, Store: "file://" + home + "/objects",
		Version: "test", Logger: log}
	if tweak != nil {
		tweak(&cfg)
	}
	srv := NewServer(cfg)
	ctx := context.Background()
	if _, err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := Dial(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		if err := srv.Close(context.Background()); err != nil {
			t.Error(err)
		}
		db.Close()
	})
	return &testEnv{home: home, db: db, srv: srv, client: c, live: live}
}

func TestSocketAndServerJSON(t *testing.T) {
	e := newEnv(t)
	sock := SocketPath(e.home)
	fi, err := os.Stat(sock)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, want a socket with 0600", fi.Mode())
	}
	info, err := ReadInfo(e.home)
	if err != nil {
		t.Fatal(err)
	}
	if info.PID != os.Getpid() || info.Socket != sock || info.MountDir != "/nowhere" || info.Protocol != ProtocolVersion || !strings.HasPrefix(info.Store, "file://") {
		t.Fatalf("server.json = %+v", info)
	}
	if h := e.client.Health(); h.PID != os.Getpid() || h.Version != "test" {
		t.Fatalf("health = %+v", h)
	}
	// A second server on the same home is refused, naming the first.
	second := NewServer(Config{DB: e.db, Home: e.home})
	if _, err := second.Start(context.Background()); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("already served by PID %d at /nowhere", os.Getpid())) {
		t.Fatalf("second server: %v", err)
	}
	// Close removes the socket and server.json.
	if err := e.srv.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left after Close: %v", err)
	}
	if _, err := ReadInfo(e.home); !errors.Is(err, ErrNoServer) {
		t.Fatalf("server.json left after Close: %v", err)
	}
	if _, err := Dial(context.Background(), e.home); !errors.Is(err, ErrNoServer) {
		t.Fatalf("Dial after Close: %v", err)
	}
}

func TestStaleServerJSON(t *testing.T) {
	home := t.TempDir()
	// A PID that cannot be alive: beyond pid_max.
	if err := writeInfo(home, Info{PID: 1 << 30, Socket: SocketPath(home)}); err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(context.Background(), home); !errors.Is(err, ErrNoServer) || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("Dial with a stale server.json: %v", err)
	}
	if err := RemoveStale(home); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadInfo(home); !errors.Is(err, ErrNoServer) {
		t.Fatalf("RemoveStale left server.json: %v", err)
	}
}

func TestProtocolMismatch(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSONBody(w, 200, Health{Protocol: ProtocolVersion + 1, PID: 42, MountDir: "/mnt/x"})
	})}
	go srv.Serve(ln)
	defer srv.Close()
	_, err = DialSocket(context.Background(), sock)
	if err == nil || !strings.Contains(err.Error(), "protocol") || !strings.Contains(err.Error(), "wsfs umount /mnt/x") {
		t.Fatalf("DialSocket to a newer server: %v", err)
	}
}

func TestHistoryOverTheSocket(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	c := e.client
	info := meta.CommitInfo{Command: "test", Author: "tester"}

	ws, err := c.Create(ctx, "acme/a", meta.CreateOptions{Owner: "ann"})
	if err != nil || ws.Name != "acme/a" || ws.Head != 1 || ws.Owner != "ann" {
		t.Fatalf("Create = %+v, %v", ws, err)
	}
	if calls := e.live.take(); len(calls) != 0 {
		t.Fatalf("a create needs nothing of the mount (it follows meta's events); calls %v", calls)
	}
	rev, committed, err := c.WriteFile(ctx, "acme/a", "docs/a.txt", strings.NewReader("one\n"), meta.WriteFileOptions{Mode: 0o640, CommitInfo: info})
	if err != nil || !committed || rev.N != 2 {
		t.Fatalf("WriteFile = %d %v %v", rev.N, committed, err)
	}
	if calls := e.live.take(); strings.Join(calls, ",") != "hold acme/a,flush acme/a,release acme/a" {
		t.Fatalf("a write must hold, flush, change and release; calls %v", calls)
	}
	if _, _, err := c.WriteFile(ctx, "acme/a", "docs/a.txt", strings.NewReader("two\n"), meta.WriteFileOptions{Force: true, CommitInfo: info}); err != nil {
		t.Fatal(err)
	}
	list, err := c.List(ctx, "acme/")
	if err != nil || len(list) != 1 || list[0].Head != 3 {
		t.Fatalf("List = %+v, %v", list, err)
	}
	revs, err := c.Log(ctx, "acme/a", meta.LogOptions{Limit: 2})
	want, _ := e.db.Log(ctx, "acme/a", meta.LogOptions{Limit: 2})
	if err != nil || len(revs) != 2 || revs[0].N != 3 || revs[0].Manifest != want[0].Manifest || revs[0].Duration != want[0].Duration || !revs[0].Time.Equal(want[0].Time) {
		t.Fatalf("Log = %+v, %v; want %+v", revs, err, want)
	}
	shown, err := c.Show(ctx, meta.Ref{Workspace: "acme/a", Rev: 2})
	if err != nil || shown.N != 2 || len(shown.Changes) == 0 || shown.Root != want[1].Root {
		t.Fatalf("Show = %+v, %v", shown, err)
	}
	diffs, err := c.Diff(ctx, meta.Ref{Workspace: "acme/a", Rev: 2}, meta.Ref{Workspace: "acme/a", Rev: 3}, meta.DiffOptions{Text: true})
	if err != nil || len(diffs) != 1 || diffs[0].Action != meta.Modified || !strings.Contains(diffs[0].Unified, "+two") {
		t.Fatalf("Diff = %+v, %v", diffs, err)
	}
	rc, entry, err := c.OpenFile(ctx, meta.Ref{Workspace: "acme/a", Rev: 2}, "docs/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(b) != "one\n" || entry.Mode != 0o640 || entry.Kind != meta.KindFile || entry.Size != 4 {
		t.Fatalf("OpenFile = %q %+v %v", b, entry, err)
	}
	e.live.take()
	rev, committed, err = c.Restore(ctx, meta.Ref{Workspace: "acme/a", Rev: 2}, info)
	if err != nil || !committed || rev.N != 4 || rev.Root != shown.Root {
		t.Fatalf("Restore = %+v %v %v", rev, committed, err)
	}
	if calls := e.live.take(); strings.Join(calls, ",") != "hold acme/a,flush acme/a,release acme/a" {
		t.Fatalf("restore calls %v", calls)
	}
	forked, err := c.Fork(ctx, meta.Ref{Workspace: "acme/a", Rev: 3}, "acme/b", meta.CreateOptions{Owner: "bob"})
	if err != nil || forked.Name != "acme/b" || forked.ForkedFrom != "acme/a@3" {
		t.Fatalf("Fork = %+v, %v", forked, err)
	}
	if calls := e.live.take(); strings.Join(calls, ",") != "hold acme/a,flush acme/a,release acme/a" {
		t.Fatalf("fork calls %v", calls)
	}
	q := meta.DefaultQuotas()
	q.MaxEntries = 50
	upd, err := c.Update(ctx, "acme/a", meta.WorkspaceUpdate{Quotas: &q})
	if err != nil || upd.Quotas.MaxEntries != 50 {
		t.Fatalf("Update = %+v, %v", upd, err)
	}
	if calls := e.live.take(); strings.Join(calls, ",") != "hold acme/a,release acme/a" {
		t.Fatalf("a quota change needs no flush (the tree stays); calls %v", calls)
	}
	got, err := c.Get(ctx, "acme/a")
	if err != nil || got.Quotas.MaxEntries != 50 || got.Head != 4 {
		t.Fatalf("Get = %+v, %v", got, err)
	}

	var tarball bytes.Buffer
	if err := c.ExportTar(ctx, meta.Ref{Workspace: "acme/a"}, &tarball); err != nil {
		t.Fatal(err)
	}
	var direct bytes.Buffer
	if err := e.db.ExportTar(ctx, meta.Ref{Workspace: "acme/a"}, &direct); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(tarball.Bytes(), direct.Bytes()) {
		t.Fatal("the exported tar differs from the in-process export")
	}
	rev, committed, err = c.ImportTar(ctx, "acme/b", bytes.NewReader(tarball.Bytes()), meta.ImportOptions{Under: "copy", CommitInfo: info})
	if err != nil || !committed || rev.N != 2 {
		t.Fatalf("ImportTar = %+v %v %v", rev, committed, err)
	}
	rc, _, err = c.OpenFile(ctx, meta.Ref{Workspace: "acme/b"}, "copy/docs/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(rc)
	rc.Close()
	if string(b) != "one\n" {
		t.Fatalf("imported file = %q", b)
	}
	gc, err := c.GC(ctx, meta.GCOptions{Grace: time.Hour})
	if err != nil || !gc.DryRun || gc.Workspaces != 2 {
		t.Fatalf("GC = %+v, %v", gc, err)
	}
	fsck, err := c.Fsck(ctx, meta.FsckOptions{})
	if err != nil || !fsck.OK() || fsck.Workspaces != 2 {
		t.Fatalf("Fsck = %+v, %v", fsck, err)
	}
	// With a progress callback the reply streams progress, then the report.
	var ticks, lastDone, lastTotal int
	fsck, err = c.Fsck(ctx, meta.FsckOptions{Progress: func(done, total int) { ticks, lastDone, lastTotal = ticks+1, done, total }})
	var wantLast [2]int
	if _, err := e.db.Fsck(ctx, meta.FsckOptions{Progress: func(done, total int) { wantLast = [2]int{done, total} }}); err != nil {
		t.Fatal(err)
	}
	if err != nil || !fsck.OK() || fsck.Workspaces != 2 || ticks == 0 || [2]int{lastDone, lastTotal} != wantLast {
		t.Fatalf("Fsck with progress = %+v, %v; %d ticks, last %d/%d, in-process last %v", fsck, err, ticks, lastDone, lastTotal, wantLast)
	}
	ticks = 0
	gc, err = c.GC(ctx, meta.GCOptions{Grace: time.Hour, Progress: func(done, total int) { ticks++ }})
	if err != nil || !gc.DryRun || ticks == 0 {
		t.Fatalf("GC with progress = %+v, %v, %d ticks", gc, err, ticks)
	}
	if err := c.Delete(ctx, "acme/b"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.Get(ctx, "acme/b"); !errors.Is(err, meta.ErrNotFound) {
		t.Fatalf("after Delete: %v", err)
	}
}

func TestErrorClassesSurviveTheWire(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	c := e.client
	if _, err := c.Create(ctx, "acme/a", meta.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Get(ctx, "acme/missing")
	if !errors.Is(err, meta.ErrNotFound) || !strings.Contains(err.Error(), "acme/missing") {
		t.Fatalf("Get missing: %v", err)
	}
	if _, err := c.Create(ctx, "acme/a", meta.CreateOptions{}); !errors.Is(err, meta.ErrExists) {
		t.Fatalf("Create twice: %v", err)
	}
	if _, err := c.Create(ctx, "Bad Name", meta.CreateOptions{}); !errors.Is(err, meta.ErrInvalid) {
		t.Fatalf("Create with a bad name: %v", err)
	}
	if _, err := c.Show(ctx, meta.Ref{Workspace: "acme/a", Rev: 99}); !errors.Is(err, meta.ErrNotFound) {
		t.Fatalf("Show of a missing revision: %v", err)
	}
	if _, _, err := c.OpenFile(ctx, meta.Ref{Workspace: "acme/a"}, "nope"); !errors.Is(err, meta.ErrNotFound) {
		t.Fatalf("OpenFile of a missing path: %v", err)
	}
	if err := c.ExportTar(ctx, meta.Ref{Workspace: "acme/zz"}, io.Discard); !errors.Is(err, meta.ErrNotFound) {
		t.Fatalf("ExportTar of a missing workspace: %v", err)
	}
	q := meta.DefaultQuotas()
	q.MaxFileBytes = 10
	if _, err := c.Update(ctx, "acme/a", meta.WorkspaceUpdate{Quotas: &q}); err != nil {
		t.Fatal(err)
	}
	_, _, err = c.WriteFile(ctx, "acme/a", "big", strings.NewReader(strings.Repeat("x", 11)), meta.WriteFileOptions{})
	var qe *meta.QuotaError
	if !errors.As(err, &qe) || qe.Kind != meta.QuotaFileBytes || qe.Limit != 10 || qe.Usage != 11 || qe.Path != "big" || qe.Workspace != "acme/a" {
		t.Fatalf("WriteFile over the file quota: %v (%+v)", err, qe)
	}
	var re *RemoteError
	if !errors.As(err, &re) || re.Code != runwire.CodeQuota {
		t.Fatalf("quota error code: %v", err)
	}
	// A bad tar is invalid input, and nothing is committed.
	_, _, err = c.ImportTar(ctx, "acme/a", strings.NewReader("not a tar"), meta.ImportOptions{})
	if err == nil {
		t.Fatal("ImportTar of garbage succeeded")
	}
	if ws, _ := c.Get(ctx, "acme/a"); ws.Head != 1 {
		t.Fatalf("a failed import moved the head to %d", ws.Head)
	}
}

// Every class the server can meet is rebuilt by the client, including
// those the history verbs cannot easily provoke (stale, in use).
func TestErrorCodecEveryClass(t *testing.T) {
	for _, cs := range runsvc.Classes {
		err := fmt.Errorf("meta: somewhere: %w", cs.Err)
		got := decodeError(encodeError(err))
		if !errors.Is(got, cs.Err) || got.Error() != err.Error() {
			t.Errorf("%s: decoded %v (is %v)", cs.Code, got, errors.Is(got, cs.Err))
		}
		for _, other := range runsvc.Classes {
			if other.Err != cs.Err && errors.Is(got, other.Err) && !errors.Is(err, other.Err) {
				t.Errorf("%s decodes as %s too", cs.Code, other.Code)
			}
		}
	}
	both := fmt.Errorf("meta: commit: %w (%w)", meta.ErrStore, objects.ErrNotFound)
	got := decodeError(encodeError(both))
	if !errors.Is(got, meta.ErrStore) || !errors.Is(got, objects.ErrNotFound) {
		t.Errorf("an error of two classes keeps both: %v", got)
	}
	plain := decodeError(encodeError(errors.New("disk on fire")))
	if errors.Is(plain, meta.ErrNotFound) || plain.Error() != "disk on fire" {
		t.Errorf("an unclassified error: %v", plain)
	}
}

// A blob damaged in the store must never read as a clean file over the
// socket, even though the server has already sent bytes when it finds out.
func TestCorruptBlobFailsTheStream(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.client.Create(ctx, "acme/a", meta.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	content := bytes.Repeat([]byte("0123456789abcdef"), 8<<10) // 128 KiB: streamed in many writes
	if _, _, err := e.client.WriteFile(ctx, "acme/a", "f.bin", bytes.NewReader(content), meta.WriteFileOptions{}); err != nil {
		t.Fatal(err)
	}
	// Damage the content's last byte where the store holds it (its pack).
	d := objects.Sum(content)
	loc, ok, err := e.db.Store().(*objects.Packed).Locator().Locate(ctx, d)
	if err != nil || !ok || !loc.InPack() {
		t.Fatalf("the content is not in a pack: %+v, %v", loc, err)
	}
	blob := filepath.Join(e.home, "objects", filepath.FromSlash(loc.Pack.Key()))
	damaged, err := os.ReadFile(blob)
	if err != nil {
		t.Fatal(err)
	}
	damaged[loc.Offset+loc.Length-1] ^= 1
	if err := os.WriteFile(blob, damaged, 0o600); err != nil {
		t.Fatal(err)
	}
	rc, _, err := e.client.OpenFile(ctx, meta.Ref{Workspace: "acme/a"}, "f.bin")
	if err == nil {
		b, rerr := io.ReadAll(rc)
		rc.Close()
		if rerr == nil {
			t.Fatalf("read %d bytes of a corrupt blob without an error", len(b))
		}
		err = rerr
	}
	if !errors.Is(err, objects.ErrCorrupt) && !errors.Is(err, objects.ErrDigestMismatch) {
		t.Fatalf("reading a corrupt blob: %v (want a corruption error)", err)
	}
	err = e.client.ExportTar(ctx, meta.Ref{Workspace: "acme/a"}, io.Discard)
	if !errors.Is(err, objects.ErrCorrupt) && !errors.Is(err, objects.ErrDigestMismatch) {
		t.Fatalf("exporting a corrupt blob: %v", err)
	}
}

func TestConcurrentClients(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.client.Create(ctx, "acme/shared", meta.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const clients, writes = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, clients*writes*2)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := Dial(ctx, e.home)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			own := fmt.Sprintf("acme/c%d", i)
			if _, err := c.Create(ctx, own, meta.CreateOptions{}); err != nil {
				errs <- err
				return
			}
			for j := range writes {
				body := fmt.Sprintf("client %d write %d\n", i, j)
				if _, _, err := c.WriteFile(ctx, own, fmt.Sprintf("f%d", j), strings.NewReader(body), meta.WriteFileOptions{}); err != nil {
					errs <- err
				}
				// Writes to one workspace from many clients are serialised
				// by the server: none is stale.
				if _, _, err := c.WriteFile(ctx, "acme/shared", fmt.Sprintf("c%d/f%d", i, j), strings.NewReader(body), meta.WriteFileOptions{}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	ws, err := e.db.Get(ctx, "acme/shared")
	if err != nil || ws.Head != 1+clients*writes || ws.Usage.Files != clients*writes {
		t.Fatalf("shared workspace after concurrent writes: head %d, %d files, %v", ws.Head, ws.Usage.Files, err)
	}
	for i := range clients {
		ws, err := e.db.Get(ctx, fmt.Sprintf("acme/c%d", i))
		if err != nil || ws.Head != 1+writes {
			t.Fatalf("acme/c%d: head %d, %v", i, ws.Head, err)
		}
	}
}

func TestCallsHonourContext(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.client.List(ctx, ""); !errors.Is(err, context.Canceled) {
		t.Fatalf("a call with a cancelled context: %v", err)
	}
	// A request the server cannot decode is invalid input, not a crash.
	var tw bytes.Buffer
	_ = tar.NewWriter(&tw).Close()
	hr, err := e.client.do(context.Background(), "POST", "/v1/log", strings.NewReader("{"), nil)
	if err == nil {
		hr.Body.Close()
	}
	if !errors.Is(err, meta.ErrInvalid) {
		t.Fatalf("a broken request body: %v", err)
	}
}

// A long call that fails after it started streaming progress returns the
// error with its class.
func TestProgressStreamError(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/health", func(w http.ResponseWriter, r *http.Request) {
		writeJSONBody(w, 200, Health{Protocol: ProtocolVersion})
	})
	mux.HandleFunc("POST /v1/long", func(w http.ResponseWriter, r *http.Request) {
		withProgress(w, true, func(progress func(done, total int)) (any, error) {
			for i := range 5 {
				progress(i, 10)
			}
			return nil, fmt.Errorf("meta: gc: listing: %w", meta.ErrStore)
		})
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	defer srv.Close()
	c, err := DialSocket(context.Background(), sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var last [2]int
	var rep meta.GCReport
	err = c.callProgress(context.Background(), "/v1/long", gcReq{}, func(done, total int) { last = [2]int{done, total} }, &rep)
	if !errors.Is(err, meta.ErrStore) || !strings.Contains(err.Error(), "listing") {
		t.Fatalf("error after progress: %v", err)
	}
	if last != [2]int{4, 10} {
		t.Fatalf("the newest progress before the error was not delivered: %v", last)
	}
}

// A metadata call to a server that does not answer ends at the client's
// Timeout instead of hanging.
func TestHungServerTimesOut(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/health", func(w http.ResponseWriter, r *http.Request) {
		writeJSONBody(w, 200, Health{Protocol: ProtocolVersion})
	})
	mux.HandleFunc("POST /v1/list", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	defer srv.Close()
	defer close(release)
	c, err := DialSocket(context.Background(), sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Timeout = 50 * time.Millisecond
	if _, err := c.List(context.Background(), ""); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("List on a hung server: %v", err)
	}
}

func TestSocketFolderChecks(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	st, err := objects.OpenDir(filepath.Join(home, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := meta.Open(ctx, filepath.Join(home, meta.DBFileName), st, meta.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := os.Chmod(home, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := NewServer(Config{DB: db, Home: home}).Start(ctx); err == nil || !strings.Contains(err.Error(), "could replace the socket") {
		t.Fatalf("a socket folder writable by others: %v", err)
	}
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	// A home too deep for a socket address gets a short socket elsewhere,
	// recorded in server.json, and clients find it.
	deep := filepath.Join(home, strings.Repeat("d", 100))
	if err := os.MkdirAll(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	srv := NewServer(Config{DB: db, Home: deep, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	info, err := srv.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(ctx)
	if len(info.Socket) > 107 || strings.HasPrefix(info.Socket, deep) {
		t.Fatalf("socket of a deep home: %q", info.Socket)
	}
	c, err := Dial(ctx, deep)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.List(ctx, ""); err != nil {
		t.Fatal(err)
	}
}
