package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/wsfs/wsfs/meta"
)

// DialTimeout bounds connecting to the socket and the health handshake.
const DialTimeout = 3 * time.Second

// ErrUnreachable reports a server.json whose server does not answer.
var ErrUnreachable = errors.New("api: the wsfs server does not answer")

// Client calls a wsfs server over its unix socket. Its methods mirror
// *meta.DB's and return meta's types and error classes. It is safe for
// concurrent use.
type Client struct {
	// Timeout bounds a metadata call (create, ls, log, show, diff, restore,
	// fork, quota...) whose context has no deadline, so a hung server
	// cannot hang its clients. Streams, gc and fsck are bounded by their
	// context only. Dial sets it to DefaultTimeout.
	Timeout time.Duration

	hc     *http.Client
	socket string
	health Health
}

// DefaultTimeout is a Client's Timeout unless changed.
const DefaultTimeout = 5 * time.Minute

// bounded applies Timeout to a metadata call without a deadline.
func (c *Client) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok || c.Timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, c.Timeout)
}

// Dial connects to the server that home/server.json names and checks it
// answers the health handshake with this ProtocolVersion. It returns an
// error wrapping ErrNoServer when no server.json exists or its process is
// gone, and ErrUnreachable when the process lives but its socket does not
// answer.
func Dial(ctx context.Context, home string) (*Client, error) {
	info, err := ReadInfo(home)
	if err != nil {
		return nil, err
	}
	if !info.Alive() {
		return nil, fmt.Errorf("api: server.json names server PID %d, which is gone (stale file): %w", info.PID, ErrNoServer)
	}
	c, err := DialSocket(ctx, info.Socket)
	if err != nil {
		return nil, fmt.Errorf("api: server PID %d: %w", info.PID, err)
	}
	return c, nil
}

// DialSocket connects to the server listening on socket (see Dial).
func DialSocket(ctx context.Context, socket string) (*Client, error) {
	dialer := &net.Dialer{Timeout: DialTimeout}
	c := &Client{Timeout: DefaultTimeout, socket: socket, hc: &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, "unix", socket)
		},
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     30 * time.Second,
	}}}
	hctx, cancel := context.WithTimeout(ctx, DialTimeout)
	defer cancel()
	if err := c.call(hctx, "GET", "/v1/health", nil, &c.health); err != nil {
		c.Close()
		return nil, fmt.Errorf("%w on %s: %v", ErrUnreachable, socket, err)
	}
	if c.health.Protocol != ProtocolVersion {
		c.Close()
		return nil, fmt.Errorf("api: the server (PID %d, wsfs %s) speaks protocol %d and this wsfs speaks %d; restart the server with this wsfs (wsfs umount %s, then wsfs mount %s)",
			c.health.PID, c.health.Version, c.health.Protocol, ProtocolVersion, c.health.MountDir, c.health.MountDir)
	}
	return c, nil
}

// KeepIdle keeps the client's idle connections open for as long as the
// client lives, rather than closing them after 30 s: a warm worker's, so
// that its next command needs no new connection (once confined it may not
// be allowed one) and it holds a steady number of them. The connections
// idle now (the handshake's) close: their timers already run.
func (c *Client) KeepIdle() {
	if t, ok := c.hc.Transport.(*http.Transport); ok {
		t.IdleConnTimeout = 0
	}
	c.hc.CloseIdleConnections()
}

// Socket is the control socket the client talks to.
func (c *Client) Socket() string { return c.socket }

// Health returns what the server said in the handshake.
func (c *Client) Health() Health { return c.health }

// Close releases the client's idle connections.
func (c *Client) Close() error {
	c.hc.CloseIdleConnections()
	return nil
}

// Shutdown asks the server to unmount and exit. It returns once the server
// has accepted; the server then commits pending edits, unmounts and removes
// its socket.
func (c *Client) Shutdown(ctx context.Context) error {
	return c.call(ctx, "POST", "/v1/shutdown", empty{}, nil)
}

// call sends a JSON request and decodes a JSON reply into resp (if not nil).
func (c *Client) call(ctx context.Context, method, path string, req, resp any) error {
	var body io.Reader
	if req != nil {
		b, err := json.Marshal(req)
		if err != nil {
			return fmt.Errorf("api: encoding %s: %w", path, err)
		}
		body = bytes.NewReader(b)
	}
	hr, err := c.do(ctx, method, path, body, nil)
	if err != nil {
		return err
	}
	defer hr.Body.Close()
	if resp == nil {
		_, err = io.Copy(io.Discard, hr.Body)
		return err
	}
	if err := json.NewDecoder(hr.Body).Decode(resp); err != nil {
		return fmt.Errorf("api: reading the reply of %s: %w", path, err)
	}
	return nil
}

// do sends a request; a non-200 reply is decoded into its error.
func (c *Client) do(ctx context.Context, method, path string, body io.Reader, header http.Header) (*http.Response, error) {
	hreq, err := http.NewRequestWithContext(ctx, method, "http://wsfs"+path, body)
	if err != nil {
		return nil, fmt.Errorf("api: %w", err)
	}
	for k, v := range header {
		hreq.Header[k] = v
	}
	hr, err := c.hc.Do(hreq)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, fmt.Errorf("api: %s: %w", path, ctxErr)
		}
		return nil, fmt.Errorf("api: calling the server on %s (%s): %w", c.socket, path, err)
	}
	if hr.StatusCode >= 200 && hr.StatusCode < 300 {
		return hr, nil
	}
	defer hr.Body.Close()
	var we wireError
	b, _ := io.ReadAll(io.LimitReader(hr.Body, maxRequestJSON))
	if err := json.Unmarshal(b, &we); err != nil || we.Code == "" {
		return nil, fmt.Errorf("api: %s: the server answered %s: %s", path, hr.Status, bytes.TrimSpace(b))
	}
	return nil, decodeError(we)
}

// send posts content with a JSON request in the Wsfs-Request header.
func (c *Client) send(ctx context.Context, path string, req any, content io.Reader, resp any) error {
	b, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("api: encoding %s: %w", path, err)
	}
	h := http.Header{}
	h.Set(headerRequest, base64.StdEncoding.EncodeToString(b))
	h.Set("Content-Type", "application/octet-stream")
	hr, err := c.do(ctx, "POST", path, content, h)
	if err != nil {
		return err
	}
	defer hr.Body.Close()
	if err := json.NewDecoder(hr.Body).Decode(resp); err != nil {
		return fmt.Errorf("api: reading the reply of %s: %w", path, err)
	}
	return nil
}

// streamReader returns a stream's body; a failure the server met after the
// first byte (the Wsfs-Error trailer) is returned in place of io.EOF.
type streamReader struct {
	hr  *http.Response
	err error
}

func (s *streamReader) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.hr.Body.Read(p)
	if errors.Is(err, io.EOF) {
		if t := s.hr.Trailer.Get(trailerError); t != "" {
			var we wireError
			b, derr := base64.StdEncoding.DecodeString(t)
			if derr == nil {
				derr = json.Unmarshal(b, &we)
			}
			if derr != nil {
				s.err = fmt.Errorf("api: the stream failed and its error cannot be read: %v", derr)
			} else {
				s.err = decodeError(we)
			}
			return n, s.err
		}
	} else if err != nil {
		err = fmt.Errorf("api: the stream was cut: %w", err)
	}
	return n, err
}

func (s *streamReader) Close() error { return s.hr.Body.Close() }

func (c *Client) Create(ctx context.Context, name string, opts meta.CreateOptions) (ws meta.Workspace, err error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	err = c.call(ctx, "POST", "/v1/create", createReq{name, opts}, &ws)
	return ws, err
}

func (c *Client) List(ctx context.Context, prefix string) (list []meta.Workspace, err error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	err = c.call(ctx, "POST", "/v1/list", listReq{prefix}, &list)
	return list, err
}

func (c *Client) Get(ctx context.Context, name string) (ws meta.Workspace, err error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	err = c.call(ctx, "POST", "/v1/get", nameReq{name}, &ws)
	return ws, err
}

func (c *Client) Delete(ctx context.Context, name string) error {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	return c.call(ctx, "POST", "/v1/delete", nameReq{name}, nil)
}

func (c *Client) Update(ctx context.Context, name string, u meta.WorkspaceUpdate) (ws meta.Workspace, err error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	err = c.call(ctx, "POST", "/v1/update", updateReq{name, u}, &ws)
	return ws, err
}

func (c *Client) Log(ctx context.Context, ws string, opts meta.LogOptions) ([]meta.Revision, error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	var wrs []wireRev
	if err := c.call(ctx, "POST", "/v1/log", logReq{ws, opts}, &wrs); err != nil {
		return nil, err
	}
	var revs []meta.Revision
	for _, w := range wrs {
		revs = append(revs, w.revision())
	}
	return revs, nil
}

func (c *Client) Show(ctx context.Context, ref meta.Ref) (meta.Revision, error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	var w wireRev
	err := c.call(ctx, "POST", "/v1/show", refReq{ref}, &w)
	return w.revision(), err
}

func (c *Client) Diff(ctx context.Context, a, b meta.Ref, opts meta.DiffOptions) (d []meta.FileDiff, err error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	err = c.call(ctx, "POST", "/v1/diff", diffReq{a, b, opts}, &d)
	return d, err
}

// OpenFile streams a file of a revision. As with *meta.DB, the content is
// verified by the time the reader reaches its end: a corrupt blob makes the
// last Read fail.
func (c *Client) OpenFile(ctx context.Context, ref meta.Ref, p string) (io.ReadCloser, meta.Entry, error) {
	var e meta.Entry
	b, _ := json.Marshal(catReq{ref, p})
	hr, err := c.do(ctx, "POST", "/v1/cat", bytes.NewReader(b), nil)
	if err != nil {
		return nil, e, err
	}
	eb, err := base64.StdEncoding.DecodeString(hr.Header.Get(headerEntry))
	if err == nil {
		err = json.Unmarshal(eb, &e)
	}
	if err != nil {
		hr.Body.Close()
		return nil, e, fmt.Errorf("api: cat: the server sent no readable entry: %w", err)
	}
	return &streamReader{hr: hr}, e, nil
}

func (c *Client) Restore(ctx context.Context, ref meta.Ref, info meta.CommitInfo) (meta.Revision, bool, error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	var r commitResp
	err := c.call(ctx, "POST", "/v1/restore", restoreReq{ref, info}, &r)
	return r.Revision.revision(), r.Committed, err
}

func (c *Client) Fork(ctx context.Context, from meta.Ref, newName string, opts meta.CreateOptions) (ws meta.Workspace, err error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	err = c.call(ctx, "POST", "/v1/fork", forkReq{from, newName, opts}, &ws)
	return ws, err
}

func (c *Client) WriteFile(ctx context.Context, ws, p string, r io.Reader, opts meta.WriteFileOptions) (meta.Revision, bool, error) {
	var resp commitResp
	err := c.send(ctx, "/v1/write", writeReq{ws, p, opts}, r, &resp)
	return resp.Revision.revision(), resp.Committed, err
}

func (c *Client) ExportTar(ctx context.Context, ref meta.Ref, out io.Writer) error {
	b, _ := json.Marshal(refReq{ref})
	hr, err := c.do(ctx, "POST", "/v1/export", bytes.NewReader(b), nil)
	if err != nil {
		return err
	}
	sr := &streamReader{hr: hr}
	defer sr.Close()
	_, err = io.Copy(out, sr)
	return err
}

func (c *Client) ImportTar(ctx context.Context, ws string, r io.Reader, opts meta.ImportOptions) (meta.Revision, bool, error) {
	var resp commitResp
	err := c.send(ctx, "/v1/import", importReq{ws, opts}, r, &resp)
	return resp.Revision.revision(), resp.Committed, err
}

// GC runs gc on the server; opts.Progress, if set, is called as the
// server reports progress.
func (c *Client) GC(ctx context.Context, opts meta.GCOptions) (*meta.GCReport, error) {
	var rep meta.GCReport
	if err := c.callProgress(ctx, "/v1/gc", gcReq{int64(opts.Grace), opts.Delete, opts.Progress != nil}, opts.Progress, &rep); err != nil {
		return nil, err
	}
	return &rep, nil
}

// Fsck runs fsck on the server; opts.Progress, if set, is called as the
// server reports progress.
func (c *Client) Fsck(ctx context.Context, opts meta.FsckOptions) (*meta.FsckReport, error) {
	var rep meta.FsckReport
	if err := c.callProgress(ctx, "/v1/fsck", fsckReq{opts.Quick, opts.Progress != nil}, opts.Progress, &rep); err != nil {
		return nil, err
	}
	return &rep, nil
}

// callProgress makes a call whose reply streams progress events when
// progress is set.
func (c *Client) callProgress(ctx context.Context, path string, req any, progress func(done, total int), resp any) error {
	if progress == nil {
		return c.call(ctx, "POST", path, req, resp)
	}
	b, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("api: encoding %s: %w", path, err)
	}
	hr, err := c.do(ctx, "POST", path, bytes.NewReader(b), nil)
	if err != nil {
		return err
	}
	defer hr.Body.Close()
	dec := json.NewDecoder(hr.Body)
	for {
		var ev event
		if err := dec.Decode(&ev); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return fmt.Errorf("api: %s: %w", path, ctxErr)
			}
			return fmt.Errorf("api: %s: the reply was cut before its result: %w", path, err)
		}
		switch {
		case ev.Error != nil:
			return decodeError(*ev.Error)
		case ev.Result != nil:
			if err := json.Unmarshal(ev.Result, resp); err != nil {
				return fmt.Errorf("api: reading the reply of %s: %w", path, err)
			}
			return nil
		case ev.Progress != nil:
			progress(ev.Progress[0], ev.Progress[1])
		}
	}
}
