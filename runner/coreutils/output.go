package coreutils

import (
	"bufio"
	"context"
	"errors"
	"io"
	"syscall"

	"github.com/wsfs/wsfs/runner/command"
)

// statusCanceled is returned when the command's context ends first: the
// status a shell gives a command stopped by SIGINT.
const statusCanceled = 130

// out is a command's buffered stdout that remembers the first write error.
type out struct {
	*bufio.Writer
	sticky *stickyWriter
}

func newOut(env *command.Env) *out {
	s := &stickyWriter{w: env.Stdout}
	return &out{Writer: bufio.NewWriterSize(s, 32<<10), sticky: s}
}

// failed reports a write error so far.
func (o *out) failed() bool { return o.sticky.err != nil }

// finish flushes stdout and turns a write error into a diagnostic and
// status 1 (a closed pipe is silent, as SIGPIPE would be).
func (o *out) finish(env *command.Env, status int) int {
	o.Flush()
	if err := o.sticky.err; err != nil {
		if !errors.Is(err, syscall.EPIPE) && !errors.Is(err, io.ErrClosedPipe) {
			env.Errorf("write error: %s", command.Strerror(err))
		}
		if status == 0 {
			status = 1
		}
	}
	return status
}

// done reports whether ctx has ended.
func done(ctx context.Context) bool { return ctx.Err() != nil }
