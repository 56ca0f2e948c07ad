// Package jsexec is the runner's js-exec command: JavaScript and
// TypeScript (esbuild's transform) run in QuickJS compiled to WebAssembly
// (github.com/fastschema/qjs on wazero), with a Node-like environment.
//
// Confinement: QuickJS's std, os and bjson modules are cut out of the wasm
// (wasmcap.go), so the engine has no file, process or timer call of its
// own; its WASI root is an empty temporary folder. Everything Node-like
// comes from Go functions the prelude (prelude.js) captures before user
// code runs: fs over the command's confined FS (fsops.go: quotas and the
// runner's entry limit apply as for shell commands, refusals surface as
// Node errors with code EDQUOT/EFBIG), child_process over Env.Exec (the
// runner's own commands, childproc.go), the clock and the timers. Node's
// pure-JavaScript modules live in node/ (node.go). Network modules and
// fetch throw.
//
// Each run gets a fresh engine with a wall-time limit (a context that
// wazero checks) and a memory limit on the engine's whole wasm memory,
// which lies outside the Go heap and stops the engine when it would grow
// past the limit (linearmem.go; QuickJS's own limit bounds only single
// allocations under WASI, see wasmPages). Go drives the event
// loop: QuickJS runs promise jobs at the end of each evaluation, Go sleeps
// until the next timer. After each macrotask (the script, a timer
// callback) the prelude runs what Node's processTicksAndRejections runs:
// process.nextTick's queue before the promise jobs, and then, once no tick
// or job is left, ends the run on a rejection no handler took, which
// QuickJS reports through a rejection tracker that rejections.go adds to
// the wasm. Compiling QuickJS takes seconds, so it happens once
// per process, outside the time limit; Prepare loads it from wazero's
// compilation cache instead.
package jsexec

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/fastschema/qjs"

	"github.com/wsfs/wsfs/runner/command"
)

//go:embed prelude.js
var prelude string

// Config bounds one js-exec run.
type Config struct {
	Timeout     time.Duration // wall time; 0 means DefaultTimeout
	MemoryLimit int           // bytes of QuickJS heap; 0 means DefaultMemoryLimit
	// CacheDir keeps wazero's compiled QuickJS across processes; empty keeps
	// it in memory only. The first run in a process fixes it.
	CacheDir string
}

// Defaults of Config.
const (
	DefaultTimeout     = 5 * time.Second
	DefaultMemoryLimit = 64 << 20
)

// Commands returns js-exec with the default limits.
func Commands() []command.Spec {
	return []command.Spec{Spec(Config{})}
}

// Spec returns the js-exec command with the given limits.
func Spec(cfg Config) command.Spec {
	return command.Spec{
		Name:    "js-exec",
		Summary: "run JavaScript or TypeScript in a sandboxed QuickJS (fs and path bound to the workspace)",
		Flags:   []string{"-c CODE", "-e CODE"},
		Func:    cfg.run,
	}
}

var moduleSyntax = regexp.MustCompile(`(?m)^\s*(import\s*[\w{*'"]|export\s)`)

// exitMarker is the exception that unwinds the JavaScript stack after
// process.exit (the engine stops at its next context check anyway).
const exitMarker = "js-exec: process.exit"

func (cfg Config) run(ctx context.Context, env *command.Env) int {
	var code, file string
	args := env.Args[1:]
	switch {
	case len(args) > 0 && (args[0] == "-c" || args[0] == "-e"):
		if len(args) < 2 {
			env.Errorf("%s needs CODE: js-exec -c 'console.log(1)'", args[0])
			return 2
		}
		code, file, args = args[1], "[eval]", args[2:]
	case len(args) > 0 && args[0] != "-":
		f, err := readAll(env.FS, args[0])
		if err != nil {
			env.Errorf("%s: %s", args[0], command.Strerror(err))
			return 1
		}
		code, file, args = f, env.FS.Abs(args[0]), args[1:]
	default:
		if len(args) > 0 {
			args = args[1:]
		}
		b, err := io.ReadAll(env.Stdin)
		if err != nil {
			env.Errorf("reading stdin: %s", err)
			return 1
		}
		code, file = string(b), "[stdin]"
	}
	src, srcMap, err := transform(code, file)
	if err != nil {
		env.Errorf("%s", err)
		return 1
	}
	return cfg.exec(ctx, env, script{src: src, lines: srcMap, file: file, esm: isModule(code, file)}, args)
}

// script is the code a run evaluates.
type script struct {
	src   string   // as transformed
	lines *lineMap // back to the source's lines; nil when src is the source
	file  string
	// esm: Node would run the source as an ES module, whose evaluation
	// runs among the promise jobs, so its process.nextTick callbacks wait
	// for them.
	esm bool
}

// isModule tells whether Node runs code as an ES module: .mjs and .mts
// files, and code with import or export statements that is not .cjs.
func isModule(code, file string) bool {
	switch path.Ext(file) {
	case ".mjs", ".mts":
		return true
	case ".cjs", ".cts":
		return false
	}
	return moduleSyntax.MatchString(code)
}

// transform strips TypeScript types and turns ES module syntax into
// CommonJS (run by the prelude's require); plain scripts pass unchanged so
// that their line numbers stay right; a transformed file comes with the
// map of its lines back to the source.
func transform(code, file string) (string, *lineMap, error) {
	ext := path.Ext(file)
	isTS := ext == ".ts" || ext == ".mts" || ext == ".cts"
	if !isTS && !moduleSyntax.MatchString(code) {
		return code, nil, nil
	}
	opts := api.TransformOptions{
		Loader:     api.LoaderJS,
		Format:     api.FormatCommonJS,
		Target:     api.ES2022,
		Sourcefile: file,
		Sourcemap:  api.SourceMapExternal,
		Define:     map[string]string{"import.meta": "__wsfs_meta"},
	}
	if isTS {
		opts.Loader = api.LoaderTS
	}
	res := api.Transform(code, opts)
	if len(res.Errors) > 0 && strings.Contains(res.Errors[0].Text, "Top-level await") {
		// CommonJS cannot await at the top; the script runs in an async
		// function anyway, so keep ES module output and turn its (canonical)
		// import and export statements into require calls, line for line.
		opts.Format = api.FormatESModule
		if res = api.Transform(code, opts); len(res.Errors) == 0 {
			return esmToScript(string(res.Code)), parseSourceMap(res.Map), nil
		}
	}
	if len(res.Errors) > 0 {
		msgs := api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage})
		return "", nil, fmt.Errorf("%s: cannot compile:\n%s", file, strings.TrimRight(strings.Join(msgs, ""), "\n"))
	}
	return string(res.Code), parseSourceMap(res.Map), nil
}

var (
	esmImport     = regexp.MustCompile(`(?ms)^import\s+(?:(.*?)\s+from\s+)?("(?:[^"\\\n]|\\.)*");$`)
	esmExportAll  = regexp.MustCompile(`(?m)^export\s*\*\s*from\s*("(?:[^"\\\n]|\\.)*");$`)
	esmExportList = regexp.MustCompile(`(?ms)^export\s*\{([^}]*)\}(?:\s*from\s*("(?:[^"\\\n]|\\.)*"))?;$`)
	esmNamespace  = regexp.MustCompile(`^\*\s+as\s+([\w$]+)$`)
)

// esmToScript rewrites the import and export statements of esbuild's ES
// module output (one canonical form each) as require calls and
// module.exports assignments, leaving everything else, top-level await
// included, as it is.
func esmToScript(code string) string {
	code = esmImport.ReplaceAllStringFunc(code, func(m string) string {
		sub := esmImport.FindStringSubmatch(m)
		clause, spec := strings.TrimSpace(sub[1]), sub[2]
		req := "require(" + spec + ")"
		if clause == "" {
			return req + ";"
		}
		var out []string
		def, rest := clause, ""
		if i := strings.IndexAny(clause, "{*"); i >= 0 {
			def, rest = strings.TrimSuffix(strings.TrimSpace(clause[:i]), ","), clause[i:]
		}
		if def = strings.TrimSpace(def); def != "" {
			out = append(out, "const "+def+" = __wsfs_esm("+req+").default;")
		}
		if m := esmNamespace.FindStringSubmatch(strings.TrimSpace(rest)); m != nil {
			out = append(out, "const "+m[1]+" = __wsfs_esm("+req+");")
		} else if rest != "" {
			names := strings.NewReplacer(" as ", ": ").Replace(rest)
			out = append(out, "const "+names+" = "+req+";")
		}
		return keepLines(m, strings.Join(out, " "))
	})
	code = esmExportAll.ReplaceAllString(code, "Object.assign(module.exports, require($1));")
	return esmExportList.ReplaceAllStringFunc(code, func(m string) string {
		sub := esmExportList.FindStringSubmatch(m)
		src := ""
		if sub[2] != "" {
			src = "require(" + sub[2] + ")."
		}
		var out []string
		for _, item := range strings.Split(sub[1], ",") {
			local, exported, _ := strings.Cut(strings.TrimSpace(item), " as ")
			if local == "" {
				continue
			}
			if exported == "" {
				exported = local
			}
			out = append(out, "module.exports["+quoteJS(exported)+"] = "+src+local+";")
		}
		return keepLines(m, strings.Join(out, " "))
	})
}

// keepLines pads a replacement with the line ends it lacks, so that the
// code after it keeps its line numbers (and its source map).
func keepLines(old, repl string) string {
	if n := strings.Count(old, "\n") - strings.Count(repl, "\n"); n > 0 {
		return repl + strings.Repeat("\n", n)
	}
	return repl
}

func readAll(fsys command.FS, name string) (string, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	return string(b), err
}

func (cfg Config) exec(ctx context.Context, env *command.Env, sc script, args []string) (status int) {
	src, file := sc.src, sc.file
	lim := limits{time: cfg.Timeout, memory: cfg.MemoryLimit}
	if lim.time <= 0 {
		lim.time = DefaultTimeout
	}
	if lim.memory <= 0 {
		lim.memory = DefaultMemoryLimit
	}
	// The engine's WASI root: an empty folder, never the workspace, because
	// wazero's directory mount follows host symlinks. With QuickJS's std
	// and os modules removed nothing in the engine opens files there.
	empty, err := os.MkdirTemp("", "js-exec-root-")
	if err != nil {
		env.Errorf("cannot make the sandbox root: %s", err)
		return 1
	}
	defer os.RemoveAll(empty)

	wasm, err := cfg.prepare(ctx, empty, lim)
	if err != nil {
		env.Errorf("cannot start QuickJS: %s", err)
		return 1
	}
	// The wall time starts after the one-time compilation of the engine.
	// process.exit and a fatal error cancel runCtx: wazero then stops the
	// engine at its next check, so nothing of the script runs after them.
	limitCtx, cancel := context.WithTimeout(ctx, lim.time)
	defer cancel()
	runCtx, stop := context.WithCancel(limitCtx)
	defer stop()
	h := &host{env: env, exit: -1, stop: stop, lim: lim, start: time.Now(), timers: map[int]timer{}, ctx: runCtx,
		maps: map[string]*lineMap{file: sc.lines}}
	defer func() {
		if r := recover(); r != nil {
			status = h.failure(limitCtx, fmt.Errorf("%v", r))
		}
	}()
	// The engine's memory lies outside the Go heap (linearmem.go) and is
	// released when the run ends, however the engine stopped. Reaching
	// the limit stops the engine.
	h.mem = &engineMemory{limit: uint64(lim.memory), full: stop}
	defer h.mem.free()
	rt, err := qjs.New(qjs.Option{
		CWD:                empty,
		Context:            h.mem.context(runCtx),
		CloseOnContextDone: true,
		MemoryLimit:        lim.memory,
		CacheDir:           cfg.CacheDir,
		QuickJSWasmBytes:   wasm,
		Stdout:             env.Stdout,
		Stderr:             env.Stderr,
	})
	if err != nil {
		return h.failure(limitCtx, err)
	}
	defer func() {
		// Closing a runtime whose module was stopped by its context panics.
		defer func() { _ = recover() }()
		rt.Close()
	}()
	jctx := rt.Context()
	h.install(jctx, file, args)
	if err := preloadNode(jctx, src); err != nil {
		return h.failure(limitCtx, err)
	}
	eval := func(name, code string) bool {
		v, err := evalScript(jctx, name, code)
		if err != nil {
			status = h.failure(limitCtx, err)
			return false
		}
		v.Free()
		return h.exit < 0
	}
	track, err := evalPrelude(jctx)
	if err != nil {
		return h.failure(limitCtx, err)
	}
	if h.exit >= 0 {
		track.Free()
		return h.exit
	}
	hook, err := hookRejections(rt, track, rejectionTrackerSlot())
	if err != nil {
		track.Free()
		return h.failure(limitCtx, err)
	}
	defer hook.unhook()
	// A macrotask: then, while the prelude asks for it, what Node runs
	// after one (process.nextTick's queue, unhandled rejections).
	macrotask := func(name, code string) bool {
		if !eval(name, code) {
			return false
		}
		for h.pending {
			h.pending = false
			if !eval("[js-exec settle]", "__wsfs.settle()") {
				return false
			}
		}
		return true
	}
	dir := "."
	if strings.HasPrefix(file, "/") {
		dir = path.Dir(file)
	}
	// The script's first line shares the wrapper's line, so line numbers
	// in stacks stay those of the file. The call returns nothing: QuickJS
	// would otherwise spin on a promise that waits for a Go timer.
	if !macrotask(file, "__wsfs.main(async function (exports, module, __filename, __dirname, __wsfs_meta) {"+src+
		"\n}, "+quoteJS(file)+", "+quoteJS(dir)+", "+strconv.FormatBool(sc.esm)+");") {
		return h.exitOr(status)
	}
	// The event loop's timers: QuickJS runs promise jobs at the end of each
	// Eval; between them Go waits for the next timer.
	for {
		id, due, ok := h.nextTimer()
		if !ok {
			break
		}
		if d := time.Until(due); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-runCtx.Done():
				t.Stop()
				return h.failure(limitCtx, runCtx.Err())
			case <-t.C:
			}
		}
		if !macrotask("[js-exec timers]", "__wsfs.tick("+strconv.Itoa(id)+")") {
			return h.exitOr(status)
		}
	}
	// process.exitCode, as Node uses it when the script ends on its own.
	ev, err := evalScript(jctx, "[js-exec exit code]", "__wsfs.exitCode()")
	if err != nil {
		return h.failure(limitCtx, err)
	}
	defer ev.Free()
	return int(ev.Int32()) & 0xff
}

// limits are one run's bounds, defaults applied.
type limits struct {
	time   time.Duration
	memory int
}

func (l limits) memoryText() string {
	if l.memory%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", l.memory>>20)
	}
	return fmt.Sprintf("%d bytes", l.memory)
}

// evalPrelude runs the prelude from bytecode compiled once per process
// (reading bytecode is far cheaper than parsing the source on every run)
// and returns its rejection tracker function.
func evalPrelude(c *qjs.Context) (*qjs.Value, error) {
	bc, err := bytecodeOnce(c, "[js-exec prelude]", prelude)
	if err != nil {
		return nil, err
	}
	return c.Eval("[js-exec prelude]", qjs.Bytecode(bc))
}

// testCacheDir is the compilation cache of runs whose Config names none;
// only tests set it, so that switching memory caps reloads rather than
// recompiles.
var testCacheDir string

// Prepare compiles QuickJS for runs with cfg's memory limit, or loads it
// from cfg.CacheDir (wazero's compilation cache, written there on the first
// compile), so that the next js-exec of this process starts at once. A
// confined worker may read the cache but not write it, so the server fills
// it beforehand with an unconfined Prepare; a run that finds nothing there
// compiles in memory (seconds) before its time limit starts.
func Prepare(ctx context.Context, cfg Config) error {
	lim := limits{memory: cfg.MemoryLimit}
	if lim.memory <= 0 {
		lim.memory = DefaultMemoryLimit
	}
	root, err := os.MkdirTemp("", "js-exec-root-")
	if err != nil {
		return fmt.Errorf("jsexec: %w", err)
	}
	defer os.RemoveAll(root)
	if cfg.CacheDir != "" {
		if err := os.MkdirAll(cfg.CacheDir, 0o700); err != nil {
			return fmt.Errorf("jsexec: compilation cache: %w", err)
		}
	}
	wasm, err := cfg.prepare(ctx, root, lim)
	if err != nil || cfg.CacheDir == "" {
		return err
	}
	// The cache is a shortcut: a marker that cannot be written only means
	// the next Prepared says false.
	_ = os.WriteFile(preparedMarker(cfg.CacheDir, wasm), nil, 0o600)
	return nil
}

// Prepared reports whether cfg.CacheDir holds QuickJS compiled for cfg's
// memory limit by this program's wazero (a Prepare made it), so that a
// worker that may only read the cache loads it rather than compile it.
func Prepared(cfg Config) bool {
	if cfg.CacheDir == "" {
		return false
	}
	lim := cfg.MemoryLimit
	if lim <= 0 {
		lim = DefaultMemoryLimit
	}
	wasm, err := wasmWithCap(wasmPages(lim))
	if err != nil {
		return false
	}
	_, err = os.Stat(preparedMarker(cfg.CacheDir, wasm))
	return err == nil
}

// preparedMarker is the file that says cacheDir holds wasm compiled by
// this program's wazero.
func preparedMarker(cacheDir string, wasm []byte) string {
	h := sha256.New()
	h.Write(wasm)
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/tetratelabs/wazero" {
				h.Write([]byte(m.Version))
			}
		}
	}
	return filepath.Join(cacheDir, fmt.Sprintf("prepared-%x", h.Sum(nil)[:8]))
}

// prepare returns QuickJS's wasm for lim's memory cap, compiled.
func (cfg Config) prepare(ctx context.Context, root string, lim limits) ([]byte, error) {
	if cfg.CacheDir == "" {
		cfg.CacheDir = testCacheDir
	}
	wasm, err := wasmWithCap(wasmPages(lim.memory))
	if err != nil {
		return nil, err
	}
	if err := compileOnce(ctx, root, cfg.CacheDir, wasm); err != nil {
		return nil, err
	}
	return wasm, nil
}

var (
	compileMu sync.Mutex
	compiled  *byte // first byte of the wasm qjs compiled last
)

// compileOnce compiles QuickJS's wasm (seconds; qjs keeps one compiled
// module per process) outside any script's deadline. The first call fixes
// the compilation cache folder and the close-on-context-done setting; a
// run with another memory cap recompiles.
func compileOnce(ctx context.Context, root, cacheDir string, wasm []byte) (err error) {
	compileMu.Lock()
	defer compileMu.Unlock()
	if compiled == &wasm[0] {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("jsexec: %v", r)
		}
	}()
	rt, err := qjs.New(qjs.Option{CWD: root, Context: ctx, CloseOnContextDone: true, CacheDir: cacheDir,
		QuickJSWasmBytes: wasm, Stdout: io.Discard, Stderr: io.Discard})
	if err != nil && cacheDir != "" {
		// The cache is a shortcut, never a requirement: a confined worker
		// may read it but not write it, so a module it lacks compiles in
		// memory.
		rt, err = qjs.New(qjs.Option{CWD: root, Context: ctx, CloseOnContextDone: true,
			QuickJSWasmBytes: wasm, Stdout: io.Discard, Stderr: io.Discard})
	}
	if err != nil {
		return fmt.Errorf("jsexec: %w", err)
	}
	rt.Close()
	compiled = &wasm[0]
	return nil
}

// failure turns an engine error into a message and a status.
func (h *host) failure(limitCtx context.Context, err error) int {
	lim := h.lim
	if h.exit >= 0 {
		return h.exit
	}
	msg := err.Error()
	switch {
	case h.mem != nil && h.mem.reachedLimit():
		h.env.Limitf("memory limit %s reached", lim.memoryText())
		return 1
	case errors.Is(limitCtx.Err(), context.DeadlineExceeded):
		h.env.Limitf("time limit %s reached", lim.time)
		return 124
	case limitCtx.Err() != nil:
		h.env.Errorf("stopped: %s", limitCtx.Err())
		return 130
	case isOutOfMemory(msg):
		h.env.Limitf("memory limit %s reached", lim.memoryText())
		return 1
	case strings.Contains(msg, "stack overflow"):
		h.env.Errorf("stopped: %s", firstLine(msg))
		return 1
	}
	fmt.Fprintf(h.env.Stderr, "Uncaught %s\n", mapStack(strings.TrimRight(msg, "\n"), h.maps))
	return 1
}

func isOutOfMemory(msg string) bool {
	return strings.Contains(msg, "out of memory") || strings.Contains(msg, "failed to allocate memory")
}

// exitOr returns process.exit's status, or status when it was not called.
func (h *host) exitOr(status int) int {
	if h.exit >= 0 {
		return h.exit
	}
	return status
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func quoteJS(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x2028 || r == 0x2029:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
