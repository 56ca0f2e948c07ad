package runsvc

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/runsvc/runwire"
)

// maxKeptOutput bounds the output kept for one command; past it the
// stored output ends with a note (the caller's own streams get it all).
const maxKeptOutput = 64 << 20

// output is one command's output as the service keeps it: the frames of
// its stored blob (runwire.OutputMagic, then stdout and stderr frames in
// the order they came), hashed as they come, so that the blob's digest
// (the output_ref) is known the moment the command ends.
type output struct {
	mu   sync.Mutex
	buf  []byte
	hash hash.Hash
	cut  bool
}

func newOutput() *output {
	o := &output{buf: append(make([]byte, 0, 4096), runwire.OutputMagic...), hash: sha256.New()}
	o.hash.Write(o.buf)
	return o
}

// add keeps p, written by the command to stdout or stderr (kind).
func (o *output) add(kind byte, p []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cut || len(p) == 0 {
		return
	}
	if len(o.buf)+len(p) > maxKeptOutput {
		o.cut = true
		kind = runwire.KindStderr
		p = fmt.Appendf(nil, "wsfs: the output passed %d MiB; the rest was not kept\n", maxKeptOutput>>20)
	}
	start := len(o.buf)
	o.buf = runwire.AppendOutput(o.buf, kind, p)
	o.hash.Write(o.buf[start:])
}

// blob returns the stored output's bytes and digest; ok is false when
// the command wrote nothing.
func (o *output) blob() (b []byte, d objects.Digest, ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.buf) == len(runwire.OutputMagic) {
		return nil, objects.Digest{}, false
	}
	return o.buf, objects.Digest(o.hash.Sum(nil)), true
}

// events returns the output so far as events of run r.
func (o *output) events(r *Run) []Event {
	o.mu.Lock()
	b := o.buf[len(runwire.OutputMagic):]
	o.mu.Unlock()
	var evs []Event
	_ = eachFrame(b, func(kind byte, p []byte) error {
		evs = append(evs, r.event(kind, p))
		return nil
	})
	return evs
}

// eachFrame calls fn with each output frame of b.
func eachFrame(b []byte, fn func(kind byte, p []byte) error) error {
	r := strings.NewReader(string(b))
	for {
		body, err := runwire.ReadFrame(r)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("runsvc: output cut: %w", err)
		}
		if err := fn(body[0], body[1:]); err != nil {
			return err
		}
	}
}

// DecodeOutput writes a stored output blob's streams to stdout and
// stderr (wsfs output REF). It reads the outputs stored before the
// current format too.
func DecodeOutput(r io.Reader, stdout, stderr io.Writer) error {
	br := bufio.NewReader(r)
	magic := make([]byte, len(runwire.OutputMagic))
	if _, err := io.ReadFull(br, magic); err != nil {
		return fmt.Errorf("runsvc: this blob is not a command's output: %w", meta.ErrInvalid)
	}
	if string(magic) == legacyOutputMagic {
		return decodeLegacyOutput(br, stdout, stderr)
	}
	if string(magic) != runwire.OutputMagic {
		return fmt.Errorf("runsvc: this blob is not a command's output: %w", meta.ErrInvalid)
	}
	for {
		body, err := runwire.ReadFrame(br)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("runsvc: output blob cut: %w", err)
		}
		w := stdout
		if body[0] == runwire.KindStderr {
			w = stderr
		}
		if _, err := w.Write(body[1:]); err != nil {
			return err
		}
	}
}

// legacyOutputMagic starts the outputs stored before the frames of
// runwire (a kind byte, then a 4-byte length): wsfs output still reads
// them.
const legacyOutputMagic = "wsfs-out1\n"

func decodeLegacyOutput(br *bufio.Reader, stdout, stderr io.Writer) error {
	var hdr [5]byte
	for {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("runsvc: output blob cut: %w", err)
		}
		n := int64(hdr[1])<<24 | int64(hdr[2])<<16 | int64(hdr[3])<<8 | int64(hdr[4])
		w := stdout
		if hdr[0] == runwire.KindStderr {
			w = stderr
		}
		if _, err := io.CopyN(w, br, n); err != nil {
			return fmt.Errorf("runsvc: output blob: %w", err)
		}
	}
}

// Event is one step of a workspace's commands as `wsfs logs` shows them:
// a command starts, writes, ends.
type Event struct {
	Run       string    `json:"run,omitempty"`
	Workspace string    `json:"workspace"`
	Time      time.Time `json:"time"`
	// Start is the script of a command that starts.
	Start  string `json:"start,omitempty"`
	Stdout []byte `json:"stdout,omitempty"`
	Stderr []byte `json:"stderr,omitempty"`
	// End is the exit code of a command that ended.
	End *int `json:"end,omitempty"`
	// Dropped says the follower fell behind and missed events: it is cut
	// off after this one.
	Dropped bool `json:"dropped,omitempty"`
}

// LogOptions choose the commands Logs shows.
type LogOptions struct {
	// Last shows the last N finished commands.
	Last int
	// Since shows the finished commands that started at or after it.
	Since time.Time
	// Follow then shows the running command from its start, and every
	// later one, until the context ends.
	Follow bool
}

// followBuffer is how many events a follower may lag behind.
const followBuffer = 1024

// follower receives a workspace's events.
type follower struct {
	ch chan Event
}

// publish sends ev to the workspace's followers; one that lags too far
// is cut off (its channel closed after a Dropped event, if room). The
// caller holds s.mu.
func (s *Service) publishLocked(ws string, ev Event) {
	for f := range s.followers[ws] {
		select {
		case f.ch <- ev:
		default:
			delete(s.followers[ws], f)
			select {
			case f.ch <- Event{Workspace: ws, Time: ev.Time, Dropped: true}:
			default:
			}
			close(f.ch)
		}
	}
}

// Logs calls fn with a workspace's command output, as opts choose: the
// finished commands asked for (or, with no option, the running command's
// output so far, else the last command's), then, with Follow, the running
// command and every later one until ctx ends or fn fails. Finished
// commands come from the service's memory or, older, from the outputs
// meta keeps (StoredLogs).
func (s *Service) Logs(ctx context.Context, ws string, opts LogOptions, fn func(Event) error) error {
	name, err := meta.ParseWorkspace(ws)
	if err != nil {
		return err
	}
	if _, err := s.cfg.DB.Get(ctx, name); err != nil {
		return err
	}
	s.mu.Lock()
	var running *Run
	if sess := s.sessions[name]; sess != nil {
		running = sess.running()
	}
	recent := append([]*Run(nil), s.recent[name]...)
	var f *follower
	if opts.Follow {
		f = &follower{ch: make(chan Event, followBuffer)}
		if s.followers[name] == nil {
			s.followers[name] = map[*follower]bool{}
		}
		s.followers[name][f] = true
	}
	// The running command's output so far, taken with the subscription
	// under one lock, so nothing falls between the two.
	var runningEvents []Event
	if running != nil && (opts.Follow || (opts.Last == 0 && opts.Since.IsZero())) {
		runningEvents = append([]Event{running.startEvent()}, running.out.events(running)...)
	}
	s.mu.Unlock()
	if f != nil {
		defer func() {
			s.mu.Lock()
			if s.followers[name][f] {
				delete(s.followers[name], f)
			}
			if len(s.followers[name]) == 0 {
				delete(s.followers, name)
			}
			s.mu.Unlock()
		}()
	}

	switch {
	case opts.Last > 0 || !opts.Since.IsZero():
		if err := s.finishedLogs(ctx, name, recent, opts, fn); err != nil {
			return err
		}
	case running == nil && !opts.Follow && len(recent) > 0:
		last := recent[len(recent)-1]
		if err := sendRun(last, fn); err != nil {
			return err
		}
	case running == nil && !opts.Follow:
		if err := StoredLogs(ctx, s.cfg.DB, name, LogOptions{Last: 1}, fn); err != nil {
			return err
		}
	}
	for _, ev := range runningEvents {
		if err := fn(ev); err != nil {
			return err
		}
	}
	if f == nil {
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.closing:
			return nil
		case ev, ok := <-f.ch:
			if !ok {
				return nil
			}
			if err := fn(ev); err != nil {
				return err
			}
			if ev.Dropped {
				return nil
			}
		}
	}
}

// finishedLogs sends the finished commands opts asks for: from meta's
// records, then those the service still holds that meta does not list
// yet (their records are written after the command ends).
func (s *Service) finishedLogs(ctx context.Context, ws string, recent []*Run, opts LogOptions, fn func(Event) error) error {
	stored, err := s.cfg.DB.Outputs(ctx, ws)
	if err != nil {
		return err
	}
	have := map[objects.Digest]bool{}
	for _, o := range stored {
		have[o.Digest] = true
	}
	type item struct {
		run    *Run
		stored *meta.Output
	}
	var items []item
	for i := range stored {
		items = append(items, item{stored: &stored[i]})
	}
	for _, r := range recent {
		if d, ok := r.outputDigest(); !ok || !have[d] {
			items = append(items, item{run: r})
		}
	}
	var keep []item
	for _, it := range items {
		started := time.Time{}
		if it.run != nil {
			started = it.run.started
		} else {
			started = it.stored.Started
		}
		if !opts.Since.IsZero() && started.Before(opts.Since) {
			continue
		}
		keep = append(keep, it)
	}
	if opts.Last > 0 && len(keep) > opts.Last {
		keep = keep[len(keep)-opts.Last:]
	}
	for _, it := range keep {
		if it.run != nil {
			if err := sendRun(it.run, fn); err != nil {
				return err
			}
			continue
		}
		if err := sendStored(ctx, s.cfg.DB, ws, *it.stored, fn); err != nil {
			return err
		}
	}
	return nil
}

// sendRun sends a finished run's start, output and end.
func sendRun(r *Run, fn func(Event) error) error {
	evs := append([]Event{r.startEvent()}, r.out.events(r)...)
	evs = append(evs, r.endEvent())
	for _, ev := range evs {
		if err := fn(ev); err != nil {
			return err
		}
	}
	return nil
}

// StoredLogs calls fn with the finished commands of workspace ws that
// opts asks for (Last and Since; the default is the last one), from the
// outputs meta keeps: it needs no server.
func StoredLogs(ctx context.Context, db *meta.DB, ws string, opts LogOptions, fn func(Event) error) error {
	outs, err := db.Outputs(ctx, ws)
	if err != nil {
		return err
	}
	var keep []meta.Output
	for _, o := range outs {
		if opts.Since.IsZero() || !o.Started.Before(opts.Since) {
			keep = append(keep, o)
		}
	}
	last := opts.Last
	if last == 0 && opts.Since.IsZero() {
		last = 1
	}
	if last > 0 && len(keep) > last {
		keep = keep[len(keep)-last:]
	}
	for _, o := range keep {
		if err := sendStored(ctx, db, ws, o, fn); err != nil {
			return err
		}
	}
	return nil
}

// sendStored sends one stored command's start, output and end.
func sendStored(ctx context.Context, db *meta.DB, ws string, o meta.Output, fn func(Event) error) error {
	command := o.Command
	if command == "" {
		command = "(a command whose record was recovered or kept before commands were named)"
	}
	if err := fn(Event{Run: o.Run, Workspace: ws, Time: o.Started, Start: command}); err != nil {
		return err
	}
	rc, err := db.Store().Open(ctx, o.Digest, 0, -1)
	if err != nil {
		return fmt.Errorf("runsvc: the output of %q (%s): %w", o.Command, o.Digest.Short(), err)
	}
	defer rc.Close()
	ew := func(kind byte) io.Writer {
		return writerFunc(func(p []byte) (int, error) {
			ev := Event{Run: o.Run, Workspace: ws, Time: o.Time}
			if kind == runwire.KindStderr {
				ev.Stderr = append([]byte(nil), p...)
			} else {
				ev.Stdout = append([]byte(nil), p...)
			}
			return len(p), fn(ev)
		})
	}
	if err := DecodeOutput(rc, ew(runwire.KindStdout), ew(runwire.KindStderr)); err != nil {
		return err
	}
	code := o.ExitCode
	return fn(Event{Run: o.Run, Workspace: ws, Time: o.Time, End: &code})
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
