package runsvc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/wsfs/wsfs/meta"
)

// A session is one workspace's queue of turns: commands and the server's
// own changes (put, import, restore, a settings change, a fork's source),
// first come first served. The turn at its head holds the workspace: the
// mount's autocommit is paused (Mount.Hold) and nothing else changes it
// through the server. It is the one place that serialises a workspace;
// with several servers on one bucket (etcd), it is where the workspace's
// lease would be held.
type session struct {
	name  string
	turns []*turn // turns[0] holds the workspace once granted
}

// turn is a place in a session's queue.
type turn struct {
	run     *Run   // nil for a change made by the server
	what    string // what ps shows for a change
	since   time.Time
	granted chan struct{}
}

func (sess *session) running() *Run {
	if len(sess.turns) > 0 {
		select {
		case <-sess.turns[0].granted:
			return sess.turns[0].run
		default:
		}
	}
	return nil
}

// ErrBusy reports a command that did not get its turn within its wait.
var ErrBusy = errors.New("busy")

// acquire queues t on workspace ws and waits until it holds the
// workspace, within wait (nil: as long as it takes; zero: only if the
// workspace is free now) and ctx.
func (s *Service) acquire(ctx context.Context, ws string, t *turn, wait *time.Duration) error {
	if err := s.enqueue(ws, t, wait != nil && *wait <= 0); err != nil {
		return err
	}
	return s.await(ctx, ws, t, wait)
}

// enqueue puts t at the end of ws's queue, granting it at once when the
// workspace is free; with noWait a busy workspace refuses it instead.
// It returns at once: the queue's order is the order of the calls.
func (s *Service) enqueue(ws string, t *turn, noWait bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	sess := s.sessions[ws]
	if sess == nil {
		sess = &session{name: ws}
		s.sessions[ws] = sess
		s.idleChanged()
	}
	if len(sess.turns) == 0 {
		sess.turns = append(sess.turns, t)
		close(t.granted)
		return nil
	}
	if noWait {
		return busyError(ws, len(sess.turns), 0)
	}
	sess.turns = append(sess.turns, t)
	return nil
}

// await waits until t, queued on ws, holds the workspace, within wait
// (nil: as long as it takes) and ctx; giving up, it leaves the queue.
func (s *Service) await(ctx context.Context, ws string, t *turn, wait *time.Duration) error {
	var timeout <-chan time.Time
	if wait != nil && *wait > 0 {
		tm := time.NewTimer(*wait)
		defer tm.Stop()
		timeout = tm.C
	}
	var cause error
	select {
	case <-t.granted:
		return nil
	case <-timeout:
	case <-ctx.Done():
		cause = context.Cause(ctx)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-t.granted:
		// Granted as we gave up: pass the turn on.
		s.releaseLocked(ws, t)
		if cause != nil {
			return errorf(ErrBusy, "the command on %s gave up waiting for its turn: %w", ws, cause)
		}
		return busyError(ws, 1, *wait)
	default:
	}
	ahead := 0
	if sess := s.sessions[ws]; sess != nil {
		for i, x := range sess.turns {
			if x == t {
				sess.turns = append(sess.turns[:i], sess.turns[i+1:]...)
				break
			}
			ahead++
		}
		s.dropSessionLocked(sess)
	}
	if cause != nil {
		return errorf(ErrBusy, "the command on %s gave up waiting for its turn (%d ahead): %w", ws, ahead, cause)
	}
	return busyError(ws, ahead, *wait)
}

func busyError(ws string, ahead int, waited time.Duration) error {
	cmds := "commands"
	if ahead == 1 {
		cmds = "command"
	}
	return errorf(ErrBusy, "busy: %d %s ahead on %s (waited %s); retry later, or wait longer with --wait", ahead, cmds, ws, waited)
}

// release ends t's hold on ws and grants the next turn.
func (s *Service) release(ws string, t *turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.releaseLocked(ws, t)
}

func (s *Service) releaseLocked(ws string, t *turn) {
	sess := s.sessions[ws]
	if sess == nil || len(sess.turns) == 0 || sess.turns[0] != t {
		return
	}
	sess.turns = sess.turns[1:]
	if len(sess.turns) > 0 {
		close(sess.turns[0].granted)
	}
	s.dropSessionLocked(sess)
}

func (s *Service) dropSessionLocked(sess *session) {
	if len(sess.turns) == 0 && s.sessions[sess.name] == sess {
		delete(s.sessions, sess.name)
		s.idleChanged()
	}
}

// Exclusive runs fn as a turn of workspace ws: after the commands and
// changes queued before it, with the mount's autocommit paused and, with
// flush, the edits pending on the mount committed first (so that they
// come before the change in the history). The mount then follows the
// change itself (it merges meta's events). what is what ps shows, such as
// "wsfs put docs/a.txt".
func (s *Service) Exclusive(ctx context.Context, ws, what string, flush bool, fn func() error) error {
	name, err := meta.ParseWorkspace(ws)
	if err != nil {
		return err
	}
	ws = name
	t := &turn{what: what, since: time.Now(), granted: make(chan struct{})}
	if err := s.acquire(ctx, ws, t, nil); err != nil {
		return err
	}
	defer s.release(ws, t)
	if m := s.cfg.Mount; m != nil {
		defer m.Hold(ws)()
		if flush {
			if err := m.Flush(ctx, ws); err != nil {
				return fmt.Errorf("committing the pending edits of %s on the mount before the change: %w", ws, err)
			}
		}
	}
	return fn()
}
