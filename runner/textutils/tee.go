package textutils

import (
	"context"
	"io"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

var teeSpec = getopt.Spec{
	Options: []getopt.Option{
		{Short: 'a', Long: "append"}, {Short: 'i', Long: "ignore-interrupts"}, {Short: 'p'},
		{Long: "output-error", Arg: getopt.Optional, ArgName: "MODE"},
	},
}

// Tee implements tee. Interrupt and pipe options are accepted and have
// nothing to do in the runner.
func Tee(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	flags, operands, st, ok := teeSpec.Run(env)
	if !ok {
		return st
	}
	appendMode := false
	for _, f := range flags {
		if f.Key == "append" {
			appendMode = true
		}
	}
	type out struct {
		name string
		w    io.Writer
		c    io.Closer
	}
	outs := []out{{name: "standard output", w: env.Stdout}}
	status := 0
	for _, name := range operands {
		f, err := r.create(name, appendMode)
		if err != nil {
			env.Errorf("%s: %s", name, command.Strerror(err))
			status = 1
			continue
		}
		outs = append(outs, out{name: name, w: f, c: f})
	}
	buf := make([]byte, 64<<10)
	for {
		if ctx.Err() != nil {
			status = 1
			break
		}
		n, err := env.Stdin.Read(buf)
		if n > 0 {
			live := 0
			for i := range outs {
				if outs[i].w == nil {
					continue
				}
				if _, werr := outs[i].w.Write(buf[:n]); werr != nil {
					env.Errorf("%s: %s", outs[i].name, command.Strerror(werr))
					outs[i].w = nil
					status = 1
					continue
				}
				live++
			}
			if live == 0 {
				break
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			env.Errorf("read error: %s", command.Strerror(err))
			status = 1
			break
		}
	}
	for _, o := range outs {
		if o.c != nil {
			if err := o.c.Close(); err != nil && o.w != nil {
				env.Errorf("%s: %s", o.name, command.Strerror(err))
				status = 1
			}
		}
	}
	return status
}
