package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/runsvc"
)

// The run endpoints are the control socket's side of the run service
// (runsvc): what runs and waits (ps), the commands' output (logs), and a
// command run over HTTP (its stdin the request body, its output and
// report an NDJSON stream).

// RunRequest is a command to run over the control socket (POST /v1/run,
// in the Wsfs-Request header; the body is its stdin).
type RunRequest struct {
	Workspace string         `json:"workspace"`
	Script    string         `json:"script"`
	Cwd       string         `json:"cwd,omitempty"`
	Timeout   time.Duration  `json:"timeout_ns,omitempty"`
	Wait      *time.Duration `json:"wait_ns,omitempty"`
	Author    string         `json:"author,omitempty"`
}

// RunMessage is one line of POST /v1/run's reply: an output event, then
// the report or the error that kept the command from running.
type RunMessage struct {
	Event  *runsvc.Event  `json:"event,omitempty"`
	Report *runsvc.Report `json:"report,omitempty"`
	Error  *wireError     `json:"error,omitempty"`
}

type runLogsReq struct {
	Workspace string    `json:"workspace"`
	Last      int       `json:"last,omitempty"`
	Since     time.Time `json:"since,omitzero"`
	Follow    bool      `json:"follow,omitempty"`
}

func (s *Server) runRoutes() {
	handle(s, "POST /v1/run/ps", func(ctx context.Context, _ empty) ([]runsvc.Queue, error) {
		if s.cfg.Runs == nil {
			return []runsvc.Queue{}, nil
		}
		return s.cfg.Runs.Queues(), nil
	})
	s.mux.HandleFunc("POST /v1/run/logs", s.runLogs)
	s.mux.HandleFunc("POST /v1/run", s.run)
	s.mux.HandleFunc("POST /v1/run/output", s.runOutput)
}

type outputReq struct {
	Ref string `json:"ref"`
}

// runOutput streams a command's stored output blob (wsfs output REF),
// from the run service's memory if it is not stored yet.
func (s *Server) runOutput(w http.ResponseWriter, r *http.Request) {
	var q outputReq
	if !decodeRequest(w, r, &q) {
		return
	}
	d, err := objects.ParseDigest(q.Ref)
	if err != nil {
		writeError(w, fmt.Errorf("api: %s is not an output reference (64 hex digits): %w", q.Ref, meta.ErrInvalid))
		return
	}
	var rc io.ReadCloser
	if s.cfg.Runs != nil {
		rc, err = s.cfg.Runs.OpenOutput(r.Context(), d)
	} else {
		rc, err = s.cfg.DB.Store().Open(r.Context(), d, 0, -1)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	defer rc.Close()
	s.stream(w, func(out io.Writer) error {
		_, err := io.Copy(out, rc)
		return err
	})
}

// RunOutput opens a command's output blob by its reference (output_ref);
// a failure found after the first byte is the reader's error.
func (c *Client) RunOutput(ctx context.Context, d objects.Digest) (io.ReadCloser, error) {
	b, err := json.Marshal(outputReq{Ref: d.String()})
	if err != nil {
		return nil, fmt.Errorf("api: %w", err)
	}
	hr, err := c.do(ctx, "POST", "/v1/run/output", bytes.NewReader(b), nil)
	if err != nil {
		return nil, err
	}
	return &streamReader{hr: hr}, nil
}

// ndjson writes one JSON value per line, flushed, from any goroutine.
type ndjson struct {
	mu  sync.Mutex
	w   http.ResponseWriter
	enc *json.Encoder
	err error
}

func newNDJSON(w http.ResponseWriter) *ndjson {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	return &ndjson{w: w, enc: json.NewEncoder(w)}
}

func (n *ndjson) send(v any) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.err != nil {
		return n.err
	}
	if n.err = n.enc.Encode(v); n.err == nil {
		if f, ok := n.w.(http.Flusher); ok {
			f.Flush()
		}
	}
	return n.err
}

// runLogs streams a workspace's command output as NDJSON events (see
// runsvc.Service.Logs).
func (s *Server) runLogs(w http.ResponseWriter, r *http.Request) {
	var q runLogsReq
	if !decodeRequest(w, r, &q) {
		return
	}
	name, err := meta.ParseWorkspace(q.Workspace)
	if err == nil {
		_, err = s.cfg.DB.Get(r.Context(), name)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	opts := runsvc.LogOptions{Last: q.Last, Since: q.Since, Follow: q.Follow}
	out := newNDJSON(w)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		select {
		case <-s.shutdown:
			cancel()
		case <-s.closing:
			cancel()
		case <-ctx.Done():
		}
	}()
	send := func(ev runsvc.Event) error { return out.send(ev) }
	if s.cfg.Runs == nil {
		err = runsvc.StoredLogs(ctx, s.cfg.DB, name, opts, send)
	} else {
		err = s.cfg.Runs.Logs(ctx, name, opts, send)
	}
	if err != nil && ctx.Err() == nil {
		we := encodeError(err)
		_ = out.send(event{Error: &we})
	}
}

// run runs one command: its stdin is the request's body, its output and
// then its report (or error) the reply's NDJSON lines. A client that goes
// away interrupts the command.
func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	var q RunRequest
	if !decodeHeaderRequest(w, r, &q) {
		return
	}
	if s.cfg.Runs == nil {
		writeError(w, fmt.Errorf("api: this wsfs server has no mount, so it runs no command: %w", meta.ErrInvalid))
		return
	}
	var out *ndjson
	started := make(chan struct{})
	writer := func(kind byte) io.Writer {
		return writerFunc(func(p []byte) (int, error) {
			<-started
			ev := runsvc.Event{Workspace: q.Workspace, Time: time.Now()}
			if kind == 'e' {
				ev.Stderr = p
			} else {
				ev.Stdout = p
			}
			return len(p), out.send(RunMessage{Event: &ev})
		})
	}
	run, err := s.cfg.Runs.Submit(r.Context(), runsvc.Job{Workspace: q.Workspace, Script: q.Script, Cwd: q.Cwd, Stdin: r.Body,
		Stdout: writer('o'), Stderr: writer('e'), Timeout: q.Timeout, Wait: q.Wait, Author: q.Author, Tails: true})
	if err != nil {
		writeError(w, err)
		return
	}
	out = newNDJSON(w)
	close(started)
	stop := context.AfterFunc(r.Context(), run.Cancel)
	defer stop()
	rep, err := run.Wait(context.Background())
	if err != nil {
		we := encodeError(err)
		_ = out.send(RunMessage{Error: &we})
		return
	}
	_ = out.send(RunMessage{Report: &rep})
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// RunPS lists the running and queued commands of every workspace.
func (c *Client) RunPS(ctx context.Context) ([]runsvc.Queue, error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	var qs []runsvc.Queue
	err := c.call(ctx, "POST", "/v1/run/ps", empty{}, &qs)
	return qs, err
}

// RunLogs calls fn with a workspace's command events, as opts choose
// (runsvc.Service.Logs), until the server ends the stream, ctx ends or fn
// fails.
func (c *Client) RunLogs(ctx context.Context, ws string, opts runsvc.LogOptions, fn func(runsvc.Event) error) error {
	b, err := json.Marshal(runLogsReq{Workspace: ws, Last: opts.Last, Since: opts.Since, Follow: opts.Follow})
	if err != nil {
		return fmt.Errorf("api: %w", err)
	}
	hr, err := c.do(ctx, "POST", "/v1/run/logs", bytes.NewReader(b), nil)
	if err != nil {
		return err
	}
	defer hr.Body.Close()
	dec := json.NewDecoder(hr.Body)
	for {
		var ev struct {
			runsvc.Event
			Error *wireError `json:"error"`
		}
		if err := dec.Decode(&ev); err != nil {
			if errors.Is(err, io.EOF) || ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("api: logs of %s: the stream was cut: %w", ws, err)
		}
		if ev.Error != nil {
			return decodeError(*ev.Error)
		}
		if err := fn(ev.Event); err != nil {
			return err
		}
	}
}

// Run runs a command over the control socket: stdin is its input (nil:
// none), output is called with its output events as they come, and the
// report comes back when it has ended. Cancelling ctx interrupts it.
func (c *Client) Run(ctx context.Context, q RunRequest, stdin io.Reader, output func(runsvc.Event)) (runsvc.Report, error) {
	if stdin == nil {
		stdin = http.NoBody
	}
	b, err := json.Marshal(q)
	if err != nil {
		return runsvc.Report{}, fmt.Errorf("api: %w", err)
	}
	h := http.Header{}
	h.Set(headerRequest, base64Encode(b))
	hr, err := c.do(ctx, "POST", "/v1/run", stdin, h)
	if err != nil {
		return runsvc.Report{}, err
	}
	defer hr.Body.Close()
	dec := json.NewDecoder(hr.Body)
	for {
		var m RunMessage
		if err := dec.Decode(&m); err != nil {
			return runsvc.Report{}, fmt.Errorf("api: the run's reply was cut before its report: %w", err)
		}
		switch {
		case m.Error != nil:
			return runsvc.Report{}, decodeError(*m.Error)
		case m.Report != nil:
			return *m.Report, nil
		case m.Event != nil && output != nil:
			output(*m.Event)
		}
	}
}

func base64Encode(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
