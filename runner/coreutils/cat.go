package coreutils

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

type catFlags struct {
	number, nonblank, ends, squeeze, tabs, nonprint bool
}

var catSpec = getopt.Spec{Options: []getopt.Option{
	{Short: 'A', Long: "show-all"}, {Short: 'b', Long: "number-nonblank"}, {Short: 'e'}, {Short: 'E', Long: "show-ends"},
	{Short: 'n', Long: "number"}, {Short: 's', Long: "squeeze-blank"}, {Short: 't'}, {Short: 'T', Long: "show-tabs"},
	{Short: 'u'}, {Short: 'v', Long: "show-nonprinting"},
}}

// catState carries line numbers and blank-line squeezing across files, as
// GNU cat does.
type catState struct {
	f        catFlags
	line     int
	blankRun int
	midLine  bool
}

func runCat(ctx context.Context, env *command.Env) int {
	opts, files, code, ok := catSpec.Run(env)
	if !ok {
		return code
	}
	all := opts.Has("show-all")
	f := catFlags{number: opts.Has("number"), nonblank: opts.Has("number-nonblank"), squeeze: opts.Has("squeeze-blank"),
		ends:     all || opts.Has("e") || opts.Has("show-ends"),
		tabs:     all || opts.Has("t") || opts.Has("show-tabs"),
		nonprint: all || opts.Has("e") || opts.Has("t") || opts.Has("show-nonprinting")}
	if f.nonblank {
		f.number = false
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	o := newOut(env)
	st := &catState{f: f}
	plain := !(f.number || f.nonblank || f.ends || f.squeeze || f.tabs || f.nonprint)
	status := 0
	for _, name := range files {
		if done(ctx) {
			return o.finish(env, statusCanceled)
		}
		var r io.Reader
		var fh command.File
		if name == "-" {
			r = env.Stdin
			if r == nil {
				continue
			}
		} else {
			var err error
			fh, err = env.FS.Open(name)
			if err != nil {
				env.Errorf("%s: %s", name, command.Strerror(err))
				status = 1
				continue
			}
			r = fh
		}
		var err error
		if plain {
			err = copyCtx(ctx, o, r)
		} else {
			err = st.copy(ctx, o, r)
		}
		if fh != nil {
			fh.Close()
		}
		if o.failed() {
			return o.finish(env, 1)
		}
		if err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return o.finish(env, statusCanceled)
			}
			env.Errorf("%s: %s", name, command.Strerror(err))
			status = 1
		}
		// Flush between files so output from stdin streams as it comes.
		o.Flush()
	}
	return o.finish(env, status)
}

// copyCtx copies r to w in chunks, stopping when ctx ends or w fails. Read
// errors are returned; write errors stay in w.
func copyCtx(ctx context.Context, w io.Writer, r io.Reader) error {
	buf := make([]byte, 64<<10)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return nil
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if bw, ok := w.(*out); ok && n < len(buf) {
			bw.Flush() // a short read is a stream: pass it on now
		}
	}
}

func (st *catState) copy(ctx context.Context, o *out, r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 0; ; n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			err = nil // a long line: go on with its next part
		}
		if len(line) > 0 {
			st.line1(o, line)
			if o.failed() {
				return nil
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// line1 writes one piece of a line; a piece not ending in '\n' leaves the
// line open for the next piece or file.
func (st *catState) line1(o *out, p []byte) {
	f := st.f
	if !st.midLine {
		blank := len(p) == 1 && p[0] == '\n'
		if blank {
			st.blankRun++
			if f.squeeze && st.blankRun > 1 {
				return
			}
		} else {
			st.blankRun = 0
		}
		if f.number || (f.nonblank && !blank) {
			st.line++
			o.WriteString(padLeft(strconv.Itoa(st.line), 6))
			o.WriteByte('\t')
		}
	}
	body := p
	nl := len(p) > 0 && p[len(p)-1] == '\n'
	if nl {
		body = p[:len(p)-1]
	}
	if f.nonprint || f.tabs {
		for _, ch := range body {
			writeVisible(o, ch, f.nonprint, f.tabs)
		}
	} else {
		o.Write(body)
	}
	if nl {
		if f.ends {
			o.WriteByte('$')
		}
		o.WriteByte('\n')
	}
	st.midLine = !nl
}

// writeVisible writes a byte as cat -v (and -T) shows it.
func writeVisible(o *out, ch byte, nonprint, tabs bool) {
	switch {
	case ch == '\t':
		if tabs {
			o.WriteString("^I")
		} else {
			o.WriteByte(ch)
		}
		return
	case !nonprint:
		o.WriteByte(ch)
		return
	}
	if ch >= 128 {
		o.WriteString("M-")
		ch -= 128
	}
	switch {
	case ch < 32:
		o.WriteByte('^')
		o.WriteByte(ch + 64)
	case ch == 127:
		o.WriteString("^?")
	default:
		o.WriteByte(ch)
	}
}

func padLeft(s string, n int) string {
	for len(s) < n {
		s = " " + s
	}
	return s
}
