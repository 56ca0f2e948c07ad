package api

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sync"

	"github.com/wsfs/wsfs/fusefs"
)

var _ RunMount = (*fusefs.FS)(nil)

// RunStart waits for a turn on a workspace (in its FIFO queue, bounded by
// q.Wait and ctx) and returns it. The caller must then call RunStream.
func (c *Client) RunStart(ctx context.Context, q RunStartRequest) (RunTurn, error) {
	var t RunTurn
	err := c.call(ctx, "POST", "/v1/run/start", q, &t)
	return t, err
}

// RunStream is a command's output on its way to the server.
type RunStream struct {
	mu   sync.Mutex
	pw   *io.PipeWriter
	done chan struct{}
	res  RunResult
	err  error
	lost error // the first write error: the server no longer listens
}

// RunStream opens the stream of a granted turn. Write the output with
// Stdout and Stderr, then call Finish.
func (c *Client) RunStream(ctx context.Context, lease string) *RunStream {
	pr, pw := io.Pipe()
	s := &RunStream{pw: pw, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		hr, err := c.do(ctx, "POST", "/v1/run/stream?lease="+url.QueryEscape(lease), pr, nil)
		if err != nil {
			s.err = err
			pr.CloseWithError(err)
			return
		}
		defer hr.Body.Close()
		if err := json.NewDecoder(hr.Body).Decode(&s.res); err != nil {
			s.err = fmt.Errorf("api: reading the result of the command: %w", err)
		}
	}()
	return s
}

func (s *RunStream) frame(kind byte, p []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lost != nil {
		return s.lost
	}
	var hdr [5]byte
	hdr[0] = kind
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(p)))
	if _, err := s.pw.Write(append(hdr[:], p...)); err != nil {
		s.lost = fmt.Errorf("api: the server stopped taking the output: %w", err)
		return s.lost
	}
	return nil
}

type streamWriter struct {
	s    *RunStream
	kind byte
}

func (w streamWriter) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		n := min(len(p), 1<<20)
		if err := w.s.frame(w.kind, p[:n]); err != nil {
			return 0, err
		}
		p = p[n:]
	}
	return total, nil
}

// Stdout and Stderr are the command's streams to the server.
func (s *RunStream) Stdout() io.Writer { return streamWriter{s, FrameStdout} }
func (s *RunStream) Stderr() io.Writer { return streamWriter{s, FrameStderr} }

// Attach returns once the stream's request is on its connection to the
// server (it sends an empty frame), so a worker can confine itself after
// it and still reach the server.
func (s *RunStream) Attach() error { return s.frame(FrameStdout, nil) }

// Finish sends the report and returns the server's result.
func (s *RunStream) Finish(rep RunReport) (RunResult, error) {
	b, err := json.Marshal(rep)
	if err != nil {
		return RunResult{}, fmt.Errorf("api: encoding the report: %w", err)
	}
	ferr := s.frame(frameReport, b)
	s.pw.Close()
	<-s.done
	if s.err != nil {
		return s.res, s.err
	}
	if ferr != nil {
		return s.res, ferr
	}
	return s.res, nil
}

// RunPS lists the running and queued commands of every workspace.
func (c *Client) RunPS(ctx context.Context) ([]RunQueue, error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	var qs []RunQueue
	err := c.call(ctx, "POST", "/v1/run/ps", empty{}, &qs)
	return qs, err
}

// RunLogs calls fn with a workspace's command events: the running
// command's output so far (or the last command's), then, with follow,
// every later event until ctx ends or fn fails.
func (c *Client) RunLogs(ctx context.Context, ws string, follow bool, fn func(RunEvent) error) error {
	b, err := json.Marshal(runLogsReq{Workspace: ws, Follow: follow})
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
		var ev RunEvent
		if err := dec.Decode(&ev); err != nil {
			if errors.Is(err, io.EOF) || ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("api: logs of %s: the stream was cut: %w", ws, err)
		}
		if err := fn(ev); err != nil {
			return err
		}
	}
}
