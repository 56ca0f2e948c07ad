package jq

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
)

// inputs is jq's input stream: the files (or stdin) read back to back as
// one stream of JSON texts or raw lines, slurped when asked. It serves both
// the main loop and the filter's input/inputs.
type inputs struct {
	ctx        context.Context
	env        *command.Env
	o          *options
	names      []string
	next       int
	cur        io.Reader
	closer     io.Closer
	current    string // file being read, "-" for stdin
	openErrors bool
	lines      int // newlines consumed, for messages
	dec        *json.Decoder
	raw        *bufio.Reader
	done       bool
}

func newInputs(ctx context.Context, env *command.Env, o *options) *inputs {
	in := &inputs{ctx: ctx, env: env, o: o, names: o.files}
	if len(in.names) == 0 {
		in.names = []string{"-"}
	}
	if o.rawIn {
		in.raw = bufio.NewReaderSize(in, 64<<10)
	} else {
		in.dec = json.NewDecoder(in)
		in.dec.UseNumber()
	}
	return in
}

// Read implements io.Reader over the files in turn; a file that cannot be
// opened is reported and skipped, as jq does.
func (in *inputs) Read(p []byte) (int, error) {
	for {
		if err := in.ctx.Err(); err != nil {
			return 0, err
		}
		if in.cur == nil {
			if in.next >= len(in.names) {
				return 0, io.EOF
			}
			name := in.names[in.next]
			in.next++
			if name == "-" {
				in.cur = in.env.Stdin
				in.closer = nil
			} else {
				f, err := in.env.FS.Open(name)
				if err != nil {
					fmt.Fprintf(in.env.Stderr, "jq: error: Could not open %s: %s\n", name, command.Strerror(err))
					in.openErrors = true
					continue
				}
				in.cur, in.closer = f, f
			}
			in.current = name
		}
		n, err := in.cur.Read(p)
		for _, c := range p[:n] {
			if c == '\n' {
				in.lines++
			}
		}
		if err == io.EOF {
			if in.closer != nil {
				in.closer.Close()
			}
			in.cur, in.closer = nil, nil
			if n > 0 {
				return n, nil
			}
			continue
		}
		if err != nil {
			fmt.Fprintf(in.env.Stderr, "jq: error: %s: %s\n", in.current, command.Strerror(err))
			in.openErrors = true
			if in.closer != nil {
				in.closer.Close()
			}
			in.cur, in.closer = nil, nil
			if n > 0 {
				return n, nil
			}
			continue
		}
		return n, nil
	}
}

func (in *inputs) position() string {
	name := in.current
	if name == "" || name == "-" {
		name = "<stdin>"
	}
	return fmt.Sprintf("%s:%d", name, in.lines)
}

// Next implements gojq.Iter.
func (in *inputs) Next() (any, bool) {
	if in.done {
		return nil, false
	}
	if in.o.slurp {
		in.done = true
		if in.o.rawIn {
			var sb strings.Builder
			if _, err := io.Copy(&sb, in.raw); err != nil {
				return err, true
			}
			return sb.String(), true
		}
		all := []any{}
		for {
			v, ok, err := in.one()
			if err != nil {
				return err, true
			}
			if !ok {
				return all, true
			}
			all = append(all, v)
		}
	}
	v, ok, err := in.one()
	if err != nil {
		in.done = true
		return err, true
	}
	if !ok {
		in.done = true
	}
	return v, ok
}

func (in *inputs) one() (any, bool, error) {
	if in.o.rawIn {
		line, err := in.raw.ReadString('\n')
		if err == io.EOF {
			if line == "" {
				return nil, false, nil
			}
			return line, true, nil
		}
		if err != nil {
			return nil, false, err
		}
		return line[:len(line)-1], true, nil
	}
	var v any
	err := in.dec.Decode(&v)
	if err == io.EOF {
		return nil, false, nil
	}
	if err != nil {
		if err == io.ErrUnexpectedEOF {
			return nil, false, errors.New("unfinished JSON term at EOF")
		}
		return nil, false, err
	}
	return v, true, nil
}
