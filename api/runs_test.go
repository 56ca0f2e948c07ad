package api

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/runsvc"
	"github.com/wsfs/wsfs/runsvc/runwire"
)

// TestRunEndpoints: ps lists the server's own changes waiting for a
// workspace as they would commands; a server whose run service has no
// mount refuses to run a command, clearly.
func TestRunEndpoints(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.client.Create(ctx, "acme/a", meta.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	held, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- e.srv.cfg.Runs.Exclusive(ctx, "acme/a", "wsfs test", false, func() error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	// A put queues behind the change that holds the workspace.
	put := make(chan error, 1)
	go func() {
		_, _, err := e.client.WriteFile(ctx, "acme/a", "f", strings.NewReader("x"), meta.WriteFileOptions{})
		put <- err
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		qs, err := e.client.RunPS(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(qs) == 1 && qs[0].Running != nil && qs[0].Running.Script == "wsfs test" && len(qs[0].Waiting) == 1 &&
			qs[0].Waiting[0].Script == "wsfs put f" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ps: %+v", qs)
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := <-put; err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.Run(ctx, RunRequest{Workspace: "acme/a", Script: "echo hi"}, nil, nil); !errors.Is(err, meta.ErrInvalid) ||
		!strings.Contains(err.Error(), "no mount") {
		t.Fatalf("a run on a server without a mount: %v", err)
	}
}

// TestRunLogsStored: logs shows a workspace's kept outputs, with the
// command and its exit code, in order.
func TestRunLogsStored(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.client.Create(ctx, "acme/l", meta.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, cmd := range []string{"echo one", "echo two; echo err >&2; exit 3"} {
		b := []byte(runwire.OutputMagic)
		b = runwire.AppendOutput(b, runwire.KindStdout, []byte(strings.Fields(cmd)[1]+"\n"))
		if i == 1 {
			b = runwire.AppendOutput(b, runwire.KindStderr, []byte("err\n"))
		}
		d, err := objects.PutBytes(ctx, e.db.Store(), b)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.db.RecordOutput(ctx, "acme/l", meta.Output{Digest: d, Command: cmd, ExitCode: 3 * i, Started: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	err := e.client.RunLogs(ctx, "acme/l", runsvc.LogOptions{Last: 2}, func(ev runsvc.Event) error {
		switch {
		case ev.Start != "":
			got = append(got, "start "+ev.Start)
		case ev.Stdout != nil:
			got = append(got, "out "+string(ev.Stdout))
		case ev.Stderr != nil:
			got = append(got, "err "+string(ev.Stderr))
		case ev.End != nil:
			got = append(got, "end "+strings.Repeat("I", *ev.End))
		}
		return nil
	})
	want := "start echo one|out one\n|end |start echo two; echo err >&2; exit 3|out two;\n|err err\n|end III"
	if err != nil || strings.Join(got, "|") != want {
		t.Fatalf("logs: %v\n%q\nwant\n%q", err, strings.Join(got, "|"), want)
	}
}

// TestRunOutput: the output endpoint streams a stored output blob, and
// says clearly when a reference is malformed or names nothing stored.
func TestRunOutput(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	b := runwire.AppendOutput([]byte(runwire.OutputMagic), runwire.KindStdout, []byte("hello\n"))
	d, err := objects.PutBytes(ctx, e.db.Store(), b)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := e.client.RunOutput(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(got) != string(b) {
		t.Fatalf("the output: %q %v", got, err)
	}
	missing := objects.Sum([]byte("never stored"))
	rc, err = e.client.RunOutput(ctx, missing)
	if err == nil {
		_, err = io.ReadAll(rc)
		rc.Close()
	}
	if !errors.Is(err, meta.ErrNotFound) && !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("a missing output: %v", err)
	}
	var out struct{}
	if err := e.client.call(ctx, "POST", "/v1/run/output", outputReq{Ref: "nothex"}, &out); !errors.Is(err, meta.ErrInvalid) ||
		!strings.Contains(err.Error(), "not an output reference") {
		t.Fatalf("a malformed reference: %v", err)
	}
}
