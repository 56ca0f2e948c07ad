package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
)

// fakeRunMount records the run protocol's calls on the mount; its
// snapshots commit nothing.
type fakeRunMount struct{ fakeLive }

func (f *fakeRunMount) WorkspaceDir(ws string) (string, error) { return "/mnt/" + ws, nil }
func (f *fakeRunMount) Snapshot(_ context.Context, ws string, base meta.RevNum, cwd string, info meta.CommitInfo) (meta.Revision, bool, error) {
	f.record(fmt.Sprintf("snapshot %s base %d cwd %s exit %d: %s", ws, base, cwd, info.ExitCode, info.Command))
	return meta.Revision{Workspace: ws, N: base}, false, nil
}
func (f *fakeRunMount) Refusals(string) []*meta.QuotaError { return nil }

func newRunEnv(t *testing.T) (*Client, *fakeRunMount, *meta.DB) {
	t.Helper()
	home := t.TempDir()
	st, err := objects.OpenDir(filepath.Join(home, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := meta.Open(ctx, filepath.Join(home, meta.DBFileName), st, meta.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	mount := &fakeRunMount{}
	srv := NewServer(Config{DB: db, Mount: mount, MountDir: "/mnt", Home: home, Version: "test",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if _, err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := Dial(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		srv.Close(context.Background())
		db.Close()
	})
	if _, err := db.Create(ctx, "acme/a", meta.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return c, mount, db
}

func TestRunProtocol(t *testing.T) {
	c, mount, db := newRunEnv(t)
	ctx := context.Background()
	turn, err := c.RunStart(ctx, RunStartRequest{Workspace: "acme/a", Script: "echo hi", Author: "me"})
	if err != nil {
		t.Fatal(err)
	}
	if turn.Dir != "/mnt/acme/a" || turn.Base != 1 || turn.Cwd != "/workspace" || turn.Quotas.WallTime == 0 {
		t.Fatalf("turn %+v", turn)
	}
	// While the command runs, another waits; one that will not wait is busy.
	zero := time.Duration(0)
	if _, err := c.RunStart(ctx, RunStartRequest{Workspace: "acme/a", Script: "x", Wait: &zero}); !errors.Is(err, ErrRunBusy) ||
		!strings.Contains(err.Error(), "busy: 1 command ahead on acme/a") {
		t.Fatalf("busy: %v", err)
	}
	second := make(chan error, 1)
	go func() {
		_, err := c.RunStart(ctx, RunStartRequest{Workspace: "acme/a", Script: "second"})
		second <- err
	}()
	s := c.RunStream(ctx, turn.Lease)
	if err := s.Attach(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(s.Stdout(), "hi\n")
	io.WriteString(s.Stderr(), "warn\n")
	select {
	case err := <-second:
		t.Fatalf("the second command started while the first ran: %v", err)
	default:
	}
	res, err := s.Finish(RunReport{ExitCode: 3, Cwd: "/workspace/sub", Duration: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Committed || res.Revision != 1 || res.OutputRef == "" {
		t.Fatalf("result %+v", res)
	}
	d, _ := objects.ParseDigest(res.OutputRef)
	blob, err := objects.Get(ctx, db.Store(), d)
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if err := DecodeOutput(bytes.NewReader(blob), &out, &errOut); err != nil || out.String() != "hi\n" || errOut.String() != "warn\n" {
		t.Fatalf("output blob: %q %q %v", out.String(), errOut.String(), err)
	}
	// The record is written after the answer.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		kept, err := db.Outputs(ctx, "acme/a")
		if err == nil && len(kept) == 1 && kept[0].Digest == d {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the output is not referenced in meta: %v %v", kept, err)
		}
	}
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	calls := strings.Join(mount.take(), "\n")
	want := "hold acme/a\nflush acme/a\nsnapshot acme/a base 1 cwd /sub exit 3: echo hi\nrelease acme/a\nhold acme/a\nflush acme/a"
	if calls != want {
		t.Fatalf("mount calls:\n%s\nwant:\n%s", calls, want)
	}
}

// TestRunLostWorker: a stream cut before the report still snapshots and
// frees the turn.
func TestRunLostWorker(t *testing.T) {
	c, mount, _ := newRunEnv(t)
	ctx := context.Background()
	turn, err := c.RunStart(ctx, RunStartRequest{Workspace: "acme/a", Script: "lost"})
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	s := c.RunStream(sctx, turn.Lease)
	if err := s.Attach(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(s.Stdout(), "partial\n")
	// The worker dies: its request is cut before the report.
	cancel()
	s.pw.CloseWithError(errors.New("killed"))
	<-s.done
	wait := 30 * time.Second
	if _, err := c.RunStart(ctx, RunStartRequest{Workspace: "acme/a", Script: "next", Wait: &wait}); err != nil {
		t.Fatal(err)
	}
	calls := mount.take()
	if len(calls) < 3 || calls[2] != "snapshot acme/a base 1 cwd / exit -1: lost" {
		t.Fatalf("mount calls: %q", calls)
	}
}
