package runner

import (
	"errors"
	"fmt"
	"io"
	"strings"
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
	args = args[1:]
	newline, escapes := true, false
	for len(args) > 0 && isEchoFlags(args[0]) {
		for _, c := range args[0][1:] {
			switch c {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
		args = args[1:]
	}
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if escapes && echoEscapes(&b, a) {
			return builtinOutput(hc, "echo", b.String(), 0)
		}
		if !escapes {
			b.WriteString(a)
		}
	}
	if newline {
		b.WriteByte('\n')
	}
	return builtinOutput(hc, "echo", b.String(), 0)
}

// echoEscapes writes a with echo -e's escapes decoded; it reports a \c,
// which ends the output.
func echoEscapes(b *strings.Builder, a string) (stop bool) {
	for i := 0; i < len(a); i++ {
		if a[i] != '\\' || i+1 == len(a) || strings.IndexByte("\"'?1234567", a[i+1]) >= 0 {
			b.WriteByte(a[i])
			continue
		}
		n, s, stop, _ := printfmt.Escape(a[i+1:], printfmt.Bash, true)
		b.WriteString(s)
		if stop {
			return true
		}
		i += n
	}
	return false
}

func isEchoFlags(a string) bool {
	return len(a) > 1 && a[0] == '-' && strings.Trim(a[1:], "neE") == ""
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
