package jsexec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/fastschema/qjs"

	"github.com/wsfs/wsfs/runner/command"
)

// host holds the Go side of one run: the functions the prelude captures.
type host struct {
	env  *command.Env
	exit int    // status given to process.exit (1 after a fatal error), -1 while running
	stop func() // stops the engine (cancels its context)
	lim  limits
	mem  *engineMemory // the engine's memory, and whether it reached lim.memory

	ctx      context.Context // the run's, for sub-commands
	start    time.Time
	timers   map[int]timer       // pending setTimeout/setInterval, by id
	maps     map[string]*lineMap // esbuild's line maps, by agent path
	timerSeq int
	// pending: the prelude has ticks or rejections to settle once the
	// engine's promise jobs ran (its settle function; timer(0, -3)).
	pending bool
}

// timer is one pending timer: when it is due, its order among timers due
// at the same time, and whether it keeps the run alive (Node's ref).
type timer struct {
	due time.Time
	seq int
	ref bool
}

// nextTimer removes and returns the timer due first, while a ref'd timer
// is pending.
func (h *host) nextTimer() (id int, due time.Time, ok bool) {
	alive := false
	for i, t := range h.timers {
		alive = alive || t.ref
		if !ok || t.due.Before(due) || t.due.Equal(due) && t.seq < h.timers[id].seq {
			id, due, ok = i, t.due, true
		}
	}
	if !alive {
		return 0, time.Time{}, false
	}
	if ok {
		delete(h.timers, id)
	}
	return id, due, ok
}

// timer arms timer id: timer(id, delay in ms, ref); a delay of -1
// disarms it, -2 only sets its ref, -3 (no id) tells that the prelude has
// ticks or rejections to settle after the promise jobs (one host function
// less to install on every run).
func (h *host) timer(this *qjs.This) (*qjs.Value, error) {
	id, ms := 0, 0.0
	if v := arg(this, 0); v != nil {
		id = int(v.Int32())
	}
	if v := arg(this, 1); v != nil {
		ms = v.Float64()
	}
	ref := argBool(this, 2)
	switch {
	case ms == -1:
		delete(h.timers, id)
	case ms == -2:
		if t, ok := h.timers[id]; ok {
			t.ref = ref
			h.timers[id] = t
		}
	case ms == -3:
		h.pending = true
	case ms >= 0:
		h.timerSeq++
		h.timers[id] = timer{due: time.Now().Add(time.Duration(ms * float64(time.Millisecond))), seq: h.timerSeq, ref: ref}
	}
	return this.Context().NewUndefined(), nil
}

// clock returns the milliseconds since the run began (monotonic), for
// performance.now, process.hrtime and console.time.
func (h *host) clock(this *qjs.This) (*qjs.Value, error) {
	return this.Context().NewFloat64(float64(time.Since(h.start).Nanoseconds()) / 1e6), nil
}

// fatal ends the run after an uncaught exception or a rejection of the
// script's promise: the description (the prelude's) goes to stderr and
// the status is 1.
func (h *host) fatal(this *qjs.This) (*qjs.Value, error) {
	if h.exit < 0 {
		if h.mem.reachedLimit() {
			h.env.Limitf("memory limit %s reached", h.lim.memoryText())
		} else if msg := argString(this, 0); isOutOfMemory(msg) {
			h.env.Limitf("memory limit %s reached", h.lim.memoryText())
		} else {
			fmt.Fprintf(h.env.Stderr, "Uncaught %s\n", mapStack(strings.TrimRight(msg, "\n"), h.maps))
		}
		h.exit = 1
		h.stop()
	}
	return nil, errors.New(exitMarker)
}

func (h *host) install(c *qjs.Context, file string, args []string) {
	argv := append([]string{"js-exec", file}, args...)
	envMap := map[string]string{}
	for _, kv := range h.env.Environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			envMap[k] = v
		}
	}
	dir := h.env.Dir
	if strings.HasPrefix(file, "/") {
		dir = path.Dir(file)
	}
	info, _ := json.Marshal(map[string]any{"argv": argv, "env": envMap, "cwd": h.env.Dir, "dir": dir})
	c.Global().SetPropertyStr("__wsfs_info", c.NewString(string(info)))
	c.SetFunc("__wsfs_out", h.out)
	c.SetFunc("__wsfs_read", h.read)
	c.SetFunc("__wsfs_write", h.write)
	c.SetFunc("__wsfs_op", h.op)
	c.SetFunc("__wsfs_exit", h.exitFn)
	c.SetFunc("__wsfs_load", h.load)
	c.SetFunc("__wsfs_timer", h.timer)
	c.SetFunc("__wsfs_fatal", h.fatal)
	c.SetFunc("__wsfs_clock", h.clock)
	c.SetFunc("__wsfs_exec", h.execCmd)
	c.SetFunc("__wsfs_builtin", nodeSource)
}

func arg(this *qjs.This, i int) *qjs.Value {
	if a := this.Args(); i < len(a) {
		return a[i]
	}
	return nil
}

func argString(this *qjs.This, i int) string {
	if v := arg(this, i); v != nil && !v.IsUndefined() {
		return v.String()
	}
	return ""
}

func argBool(this *qjs.This, i int) bool {
	if v := arg(this, i); v != nil {
		return v.Bool()
	}
	return false
}

func (h *host) out(this *qjs.This) (*qjs.Value, error) {
	if h.exit >= 0 {
		return this.Context().NewUndefined(), nil
	}
	w := h.env.Stdout
	if v := arg(this, 0); v != nil && v.Int32() == 2 {
		w = h.env.Stderr
	}
	_, _ = io.WriteString(w, argString(this, 1))
	return this.Context().NewUndefined(), nil
}

func (h *host) exitFn(this *qjs.This) (*qjs.Value, error) {
	code := 0
	if v := arg(this, 0); v != nil {
		code = int(v.Int32()) & 0xff
	}
	if h.exit < 0 {
		h.exit = code
		h.stop()
	}
	return nil, errors.New(exitMarker)
}

// load compiles a workspace module (as CommonJS) into the function the
// prelude calls with (exports, require, module, __filename, __dirname,
// import.meta), named by its agent path so that stacks show file:line.
func (h *host) load(this *qjs.This) (*qjs.Value, error) {
	name := argString(this, 0)
	code, err := readAll(h.env.FS, name)
	if err != nil {
		return nil, nodeError("open", name, "", err)
	}
	src, srcMap, err := transform(code, name)
	if err != nil {
		return nil, err
	}
	h.maps[name] = srcMap
	return evalScript(this.Context(), name, moduleWrapper+src+"\n})")
}

// moduleWrapper opens a module's function on its first line, so that line
// numbers stay those of the module's code.
const moduleWrapper = "(function (exports, require, module, __filename, __dirname, __wsfs_meta) {"

// evalScript is qjs's Context.Eval without the strict mode it forces: Node
// runs CommonJS code sloppy unless it says "use strict" (ES modules and
// TypeScript come out of esbuild strict anyway).
func evalScript(c *qjs.Context, file, code string) (*qjs.Value, error) {
	fileV, codeV := c.NewStringHandle(file), c.NewStringHandle(code)
	defer c.FreeJsValue(fileV.Raw())
	defer c.FreeJsValue(codeV.Raw())
	opts := c.Call("QJS_CreateEvalOption", codeV.Raw(), 0, 0, fileV.Raw(), qjs.JsEvalTypeGlobal)
	v := c.Call("QJS_Eval", c.Raw(), opts.Raw())
	if c.HasException() {
		v.Free()
		return nil, c.Exception()
	}
	if v.IsError() {
		defer v.Free()
		return nil, v.Exception()
	}
	return v, nil
}
