package runner

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"

	"mvdan.cc/sh/v3/interp"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/printfmt"
)

// builtinOutput writes a builtin's output as bash does: a refused write
// (a full disk, a quota, a closed descriptor) fails the builtin with
// "bash: NAME: write error: …" (mvdan/sh ignores write errors, so `echo x
// > f` on a full quota would succeed), and a write into a pipe whose
// reader is gone ends the pipeline stage quietly with 141, as SIGPIPE
// ends a bash subshell.
func builtinOutput(hc interp.HandlerContext, name, out string, status int) []string {
	if out == "" {
		return statusArgs(status)
	}
	_, err := io.WriteString(hc.Stdout, out)
	switch {
	case err == nil:
		return statusArgs(status)
	case errors.Is(err, syscall.EPIPE):
		return []string{"exit", "141"}
	}
	fmt.Fprintf(hc.Stderr, "bash: %s: write error: %s\n", name, command.Strerror(err))
	return statusArgs(1)
}

// echoBuiltin is bash's echo: -n, -e, -E and their clusters (-ne), with
// echo -e's escapes.
func echoBuiltin(hc interp.HandlerContext, args []string) []string {
	return builtinOutput(hc, "echo", printfmt.Echo(args[1:], printfmt.Bash), 0)
}

// commandOutput watches a runner command's stdout: a write into a pipe
// whose reader is gone stops the command (status 141, as SIGPIPE would),
// and any other refused write is remembered, so that a command that
// ignores it still fails.
type commandOutput struct {
	w      io.Writer
	cancel func()
	mu     sync.Mutex
	broken bool
	err    error // the first refused write other than EPIPE
}

func (c *commandOutput) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil {
		c.mu.Lock()
		if errors.Is(err, syscall.EPIPE) {
			c.broken = true
			c.cancel()
		} else if c.err == nil {
			c.err = err
		}
		c.mu.Unlock()
	}
	return n, err
}

// state returns whether the pipe broke and the first other write error.
func (c *commandOutput) state() (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.broken, c.err
}

// quietAfterEPIPE drops the diagnostics of a command whose output pipe
// broke ("write error: Broken pipe"), which bash never shows.
type quietAfterEPIPE struct {
	w io.Writer
	p *commandOutput
}

func (q *quietAfterEPIPE) Write(p []byte) (int, error) {
	if broken, _ := q.p.state(); broken {
		return len(p), nil
	}
	return q.w.Write(p)
}
