package jsexec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fastschema/qjs"

	"github.com/wsfs/wsfs/runner/command"
)

// execCmd is child_process's Go half: it runs a runner command through
// Env.Exec (the runner's own table, same sandbox, never a host program)
// and returns {status, stdout, stderr, timedOut}. Arguments: the argv as
// JSON (or ""), a command line for bash -c (or ""), stdin (string or
// bytes), the environment as JSON "NAME=value" list (or "" to inherit),
// and a timeout in ms (0: none beyond js-exec's own).
func (h *host) execCmd(this *qjs.This) (*qjs.Value, error) {
	if h.env.Exec == nil {
		return nil, errors.New("js-exec: child_process: no commands can be run here")
	}
	var argv []string
	if s := argString(this, 0); s != "" {
		if err := json.Unmarshal([]byte(s), &argv); err != nil || len(argv) == 0 {
			return nil, fmt.Errorf("js-exec: child_process: bad command %q", s)
		}
	} else {
		argv = h.shellArgs(argString(this, 1))
	}
	var stdin []byte
	if v := arg(this, 2); v != nil && v.IsString() {
		stdin = []byte(v.String())
	} else if v != nil && v.IsByteArray() {
		stdin = v.ToByteArray()
	}
	ctx := h.ctx
	if s := argString(this, 3); s != "" {
		var environ []string
		if err := json.Unmarshal([]byte(s), &environ); err != nil {
			return nil, fmt.Errorf("js-exec: child_process: bad env: %w", err)
		}
		ctx = command.WithEnviron(ctx, environ)
	}
	if v := arg(this, 4); v != nil && v.Float64() > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(v.Float64()*float64(time.Millisecond)))
		defer cancel()
	}
	// The child's output is held in memory: at most the script's own memory
	// limit, beyond which the bytes are dropped (the JS heap could not hold
	// them anyway).
	stdout := &cappedBuffer{max: h.lim.memory}
	stderr := &cappedBuffer{max: h.lim.memory}
	status := h.env.Exec(ctx, argv, bytes.NewReader(stdin), stdout, stderr)
	timedOut := ctx.Err() != nil && h.ctx.Err() == nil

	c := this.Context()
	res := c.NewObject()
	res.SetPropertyStr("status", c.NewInt32(int32(status)))
	res.SetPropertyStr("stdout", c.NewArrayBuffer(stdout.Bytes()))
	res.SetPropertyStr("stderr", c.NewArrayBuffer(stderr.Bytes()))
	res.SetPropertyStr("timedOut", c.NewBool(timedOut))
	if timedOut {
		res.SetPropertyStr("signal", c.NewString("SIGTERM"))
	}
	return res, nil
}

// shellArgs turns a command line into an argv: the words of a simple
// command (quotes and backslashes, no expansion or operator) go straight to
// the command, anything else to bash -c LINE (the runner's nested shell).
func (h *host) shellArgs(line string) []string {
	if words, ok := simpleWords(line); ok {
		return words
	}
	return []string{"bash", "-c", line}
}

// simpleWords splits a command line with no shell syntax beyond quoting.
func simpleWords(line string) ([]string, bool) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
			continue
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				switch line[i] {
				case '$', '`':
					return nil, false
				case '\\':
					if i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
						i++
					}
				}
				cur.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, false
			}
		case c == '\\':
			if i+1 >= len(line) {
				return nil, false
			}
			i++
			cur.WriteByte(line[i])
		case strings.IndexByte("|&;<>()$`*?[]{}\n", c) >= 0, (c == '~' || c == '#') && !inWord:
			return nil, false
		case c == '=' && len(words) == 0:
			return nil, false // an assignment before the command
		default:
			cur.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, len(words) > 0
}

// cappedBuffer keeps the first max bytes written to it.
type cappedBuffer struct {
	bytes.Buffer
	max int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room < len(p) {
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}
