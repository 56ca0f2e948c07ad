package bash

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wsfs/wsfs/runner/command"
	"mvdan.cc/sh/v3/syntax"
)

// Version is the GNU bash this interpreter follows, as $BASH_VERSION and
// bash --version report it.
const (
	Version     = "5.2.15(1)-release"
	VersionLine = "GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu), wsfs runner"
)

// Config is what the interpreter needs from its caller for one command:
// the agent's view of files, the command table and the limits.
type Config struct {
	// FS is the agent's view (its programs already set); relative names
	// are resolved against the shell's directory, never FS's own.
	FS *command.RootFS
	// WrapFS wraps every view handed to a command or a redirection (the
	// runner's entry limit); nil leaves them as they are.
	WrapFS func(command.FS) command.FS
	// Commands is the command table: the programs of /bin and /usr/bin.
	Commands map[string]command.Spec
	// History is the workspace's recent commands, for `history`.
	History []string
	// Limits; zero means the default.
	MaxCallDepth  int // nested function calls, sources, evals and subshells
	MaxOpenFiles  int // files the shell holds open at once
	MaxGoroutines int // pipeline stages, background jobs and substitutions running at once
	// Limit prints a limit's one-line message (once per key) and records
	// it; Stop ends the whole command because of it. Either may be nil.
	Limit func(key, line string)
	Stop  func(cause error)
	// Record records a limit a command reached and printed itself.
	Record func(line string)
}

// Default limits.
const (
	DefaultMaxCallDepth  = 1000
	DefaultMaxOpenFiles  = 256
	DefaultMaxGoroutines = 2048
)

// Invocation is one shell: what `bash -c SCRIPT NAME ARGS…` would be.
type Invocation struct {
	Script  string
	Name    string   // $0; "bash" when empty
	Args    []string // $1 …
	Env     []string // NAME=value, the environment
	Dir     string   // the working directory (an agent path)
	Options []string // set options: "-e", "-u", "-o", "pipefail" …
	// Shell is $BASH: "/bin/bash", or "/bin/sh" for sh.
	Shell string
	// File names the script file for BASH_SOURCE and messages ("" for -c).
	File   string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer

	hasScript, fromStdin, interactive bool // parseShellArgs
}

// LimitError ends a command because a limit was reached; the line is
// what was printed.
type LimitError struct{ Line string }

func (e *LimitError) Error() string { return e.Line }

// run is what every shell of one command shares: the configuration, the
// counters behind the limits, process ids.
type run struct {
	cfg       *Config
	ctx       context.Context
	done      atomic.Bool // ctx is over: every loop stops
	start     time.Time
	pids      atomic.Int64
	routines  atomic.Int64 // goroutines running shells
	openFiles atomic.Int64

	mu    sync.Mutex
	pipes []*pipe
	jobs  []*job // background jobs of every shell, stopped at the end
}

func (r *run) trackPipe(p *pipe) {
	r.mu.Lock()
	r.pipes = append(r.pipes, p)
	if len(r.pipes) > 4096 {
		// Drop pipes both of whose ends are closed.
		kept := r.pipes[:0]
		for _, q := range r.pipes {
			q.mu.Lock()
			open := !q.rClosed || !q.wClosed
			q.mu.Unlock()
			if open {
				kept = append(kept, q)
			}
		}
		r.pipes = kept
	}
	r.mu.Unlock()
	if r.done.Load() {
		p.breakAll()
	}
}

// programs lists the command table's names, sorted (help, compgen).
func (r *run) programs() []string {
	names := make([]string, 0, len(r.cfg.Commands))
	for n := range r.cfg.Commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// stopped reports whether the command is over (time limit, a limit,
// cancellation).
func (r *run) stopped() bool {
	if r.done.Load() {
		return true
	}
	if r.ctx.Err() != nil {
		r.done.Store(true)
		return true
	}
	return false
}

// limit reports a limit reached and ends the command.
func (r *run) limit(key, line string) {
	if r.cfg.Limit != nil {
		r.cfg.Limit(key, line)
	}
	if r.cfg.Stop != nil {
		r.cfg.Stop(&LimitError{line})
	}
	r.done.Store(true)
}

// frame is one function call (or sourced file) on the call stack.
type frame struct {
	fn       string // FUNCNAME entry ("source" for a sourced file)
	file     string // BASH_SOURCE entry
	callLine int    // BASH_LINENO entry: the line that called it
	level    int
	temp     bool     // a prefix-assignment scope, not a call
	locals   []string // names declared local here
	params   []string
	src      *source
}

// funcDef is a defined function.
type funcDef struct {
	name string
	body *syntax.Stmt
	src  *source
	file string
	line int
	// attrs: -t (trace), -x (export) and -r (readonly) of declare -f.
	trace, export, readonly bool
}

// Shell is one bash process: the command's shell, a subshell (a forked
// copy), or a nested bash.
type Shell struct {
	run *run
	ctx context.Context

	vars    *varTable
	funcs   map[string]*funcDef // copied on fork
	aliases map[string]string
	opts    options
	traps   map[string]string
	// parentTraps are the traps of the shell this subshell was forked
	// from: `trap` lists them until the subshell sets its own.
	parentTraps map[string]string
	fds         *fdTable
	dir         string // $PWD, logical
	dirs        []string
	params      []string
	arg0        string
	name        string // the shell's name in messages ("bash")
	frames      []*frame
	src         *source
	hash        map[string]string // command hash table
	// hashHits counts the runs of each hashed name (hash lists them).
	hashHits map[string]int
	jobs     *jobTable

	status     int
	flow       flowKind
	flowN      int
	loops      int // enclosing loops in the current function
	inCond     int // errexit is ignored (if/while conditions, && || lists, !)
	depth      int // nesting of calls, evals, sources and subshells
	pid        int
	subshell   int // $BASH_SUBSHELL
	lastBg     int // $!
	lastArg    string
	pipestatus []int
	line       int
	curCommand string // $BASH_COMMAND
	inTrap     string // the trap being run
	inFunc     int
	returnOK   int // functions and sourced files that `return` may end
	getoptsPos int // position inside a bundled option (getopts -abc)
	rng        *rand.Rand
	seconds    time.Time
	// pendingUnbound is the name an arithmetic evaluation found unset
	// under set -u.
	pendingUnbound string
	// completion specs (complete/compgen)
	completions map[string]*compSpec
	// inSubst: running a command substitution (for errexit's
	// inherit_errexit).
	inSubst bool
	// errexitOff: errexit disabled in this command substitution.
	errexitOff bool
	// exiting: the EXIT trap is running.
	exiting bool
	// stopTrapDepth guards RETURN and DEBUG traps against recursion.
	trapDepth int
	shopts    shopts
	disabled  map[string]bool // builtins turned off by enable -n
	umask     int
	// procFds are the descriptors of process substitutions, closed when
	// the command using them ends.
	procFds []int
	// substStatus is the status of the last command substitution of the
	// current command (an assignment's status).
	substStatus int
	hadSubst    bool
	// pendingErr is an error found deep in a lookup (a bad subscript).
	pendingErr error
	braceCount int
	// killed is the signal kill sent this shell's job (nil: not a job).
	killed *atomic.Int32
	// pendingSignals were sent by the shell to itself.
	pendingSignals []int
	scriptFile     string
	scriptLevel    bool // the next runText is the script itself
	interactive    bool
	shellPath      string
	getoptsInd     int
	traceLevel     int
	condTrace      *[]string // the operands of the [[ ]] being traced
	// returnTrapLevel is the call level where trap … RETURN was set.
	returnTrapLevel int
	traceOut        io.Writer // xtrace's destination for the running command
	rngSrc          *rand.PCG
}

// flowKind is a pending transfer of control.
type flowKind uint8

const (
	flowNone     flowKind = iota
	flowBreak             // break N (flowN levels left)
	flowContinue          // continue N
	flowReturn            // return from a function or a sourced file
	flowExit              // exit the shell
	flowAbort             // an expansion error: abandon the current command line
)

// Run runs inv in a new shell and returns its exit status and its
// working directory at the end. Background jobs still running when it
// ends are stopped.
func Run(ctx context.Context, cfg *Config, inv Invocation) (int, string) {
	r := &run{cfg: cfg, ctx: ctx, start: time.Now()}
	if cfg.MaxCallDepth <= 0 {
		cfg.MaxCallDepth = DefaultMaxCallDepth
	}
	if cfg.MaxOpenFiles <= 0 {
		cfg.MaxOpenFiles = DefaultMaxOpenFiles
	}
	if cfg.MaxGoroutines <= 0 {
		cfg.MaxGoroutines = DefaultMaxGoroutines
	}
	r.pids.Store(1000)
	stop := context.AfterFunc(ctx, func() {
		r.done.Store(true)
		r.mu.Lock()
		pipes := append([]*pipe(nil), r.pipes...)
		r.mu.Unlock()
		for _, p := range pipes {
			p.breakAll()
		}
	})
	defer stop()
	sh := newShell(r, ctx, inv)
	status := sh.runScript(inv.Script, inv.File)
	status = sh.exitShell(status)
	dir := sh.dir
	sh.fds.closeAll()
	r.waitProcSubsts()
	r.stopJobs()
	return status, dir
}

// newShell makes a fresh shell (the command's, or a nested bash) from an
// invocation.
func newShell(r *run, ctx context.Context, inv Invocation) *Shell {
	sh := &Shell{run: r, ctx: ctx, vars: newVarTable(), funcs: map[string]*funcDef{}, aliases: map[string]string{},
		traps: map[string]string{}, fds: &fdTable{}, dir: inv.Dir, params: inv.Args, arg0: inv.Name,
		jobs: &jobTable{}, seconds: time.Now()}
	if sh.arg0 == "" {
		sh.arg0 = "bash"
	}
	sh.name = sh.arg0
	if inv.File == "" && inv.Name == "" {
		sh.name = "bash"
	}
	if sh.dir == "" {
		sh.dir = "/workspace"
	}
	sh.pid = int(r.pids.Add(1))
	sh.rngSrc = rand.NewPCG(uint64(time.Now().UnixNano()), uint64(sh.pid))
	sh.rng = rand.New(sh.rngSrc)
	sh.opts = defaultOptions()
	sh.shopts = newShopts()
	sh.umask = 0o022
	if inv.File != "" {
		sh.opts.cmdString = false
	}
	stdin := inv.Stdin
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	stdout, stderr := inv.Stdout, inv.Stderr
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	sh.fds.set(0, streamFile("/dev/stdin", stdin, nil))
	sh.fds.set(1, streamFile("/dev/stdout", nil, stdout))
	sh.fds.set(2, streamFile("/dev/stderr", nil, stderr))
	sh.shellPath = inv.Shell
	sh.interactive = inv.interactive
	sh.initVars(inv.Env)
	// Exported SHELLOPTS and BASHOPTS carry options into nested shells.
	for _, kv := range inv.Env {
		if v, ok := strings.CutPrefix(kv, "SHELLOPTS="); ok {
			for _, name := range strings.Split(v, ":") {
				if so := findSetOption(name); so != nil {
					*so.field(&sh.opts) = true
				}
			}
		}
		if v, ok := strings.CutPrefix(kv, "BASHOPTS="); ok {
			for _, name := range strings.Split(v, ":") {
				if _, ok := sh.shopts.m[name]; ok {
					sh.shopts.set(name, true)
				}
			}
			sh.shopts.sync()
		}
	}
	sh.applyInvocationOptions(inv.Options)
	return sh
}

// initVars sets the environment and bash's own variables.
func (sh *Shell) initVars(env []string) {
	// The variables of a new shell come from one allocation.
	block := make([]variable, 0, len(env)+len(dynVars)+32)
	alloc := func(v variable) *variable {
		if len(block) == cap(block) {
			return &v
		}
		block = append(block, v)
		return &block[len(block)-1]
	}
	sh.vars.m = make(map[string]*variable, len(env)+len(dynVars)+32)
	t := sh.vars.m
	for _, kv := range env {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || !isValidName(name) {
			continue
		}
		t[name] = alloc(variable{attrs: aExport, set: true, str: val})
	}
	def := func(name, val string) {
		if _, ok := t[name]; !ok {
			t[name] = alloc(variable{set: true, str: val})
		}
	}
	def("PATH", DefaultPath)
	def("IFS", " \t\n")
	def("PS4", "+ ")
	def("PS1", "\\s-\\v\\$ ")
	def("PS2", "> ")
	def("OPTIND", "1")
	if sh.interactive {
		def("HISTFILE", "/workspace/.bash_history")
	}
	def("OPTERR", "1")
	def("HOSTNAME", "wsfs")
	def("HOSTTYPE", "x86_64")
	def("OSTYPE", "linux-gnu")
	def("MACHTYPE", "x86_64-pc-linux-gnu")
	shell := sh.shellPath
	if shell == "" {
		shell = "/bin/bash"
	}
	def("BASH", shell)
	def("SH", shell)
	def("BASH_VERSION", Version)
	// bash makes these read-only and takes no value for them from the
	// environment.
	for _, n := range []string{"UID", "EUID"} {
		t[n] = alloc(variable{attrs: aReadonly, set: true, str: "0"})
	}
	t["PPID"] = alloc(variable{attrs: aReadonly, set: true, str: "1000"})
	def("SHELL", "/bin/bash")
	t["PWD"] = alloc(variable{attrs: aExport, set: true, str: sh.dir})
	shlvl := 1
	if v, ok := t["SHLVL"]; ok {
		if n, err := strconv.Atoi(v.str); err == nil {
			shlvl = n + 1
		}
	}
	t["SHLVL"] = alloc(variable{attrs: aExport, set: true, str: strconv.Itoa(shlvl)})
	t["BASH_VERSINFO"] = &variable{attrs: aIndexed | aReadonly, set: true,
		arr: &indexed{keys: []int{0, 1, 2, 3, 4, 5}, vals: []string{"5", "2", "15", "1", "release", "x86_64-pc-linux-gnu"}}}
	for name, k := range dynVars {
		v := alloc(variable{dyn: k, set: true})
		if old, ok := t[name]; ok {
			v.attrs |= old.attrs & aExport
		}
		switch k {
		case dynFuncname, dynBashSource, dynBashLineno, dynDirstack, dynGroups, dynBashArgv, dynBashArgc, dynPipestatus:
			v.attrs = aIndexed
		case dynShellopts, dynBashopts:
			v.attrs = aReadonly
		}
		t[name] = v
	}
}

// dynVars are the variables the shell computes when they are read.
var dynVars = map[string]dynKind{"RANDOM": dynRandom, "SRANDOM": dynSRandom, "SECONDS": dynSeconds, "LINENO": dynLineno,
	"BASHPID": dynBashpid, "EPOCHSECONDS": dynEpochSeconds, "EPOCHREALTIME": dynEpochRealtime,
	"BASH_SUBSHELL": dynSubshell, "FUNCNAME": dynFuncname, "BASH_SOURCE": dynBashSource,
	"BASH_LINENO": dynBashLineno, "DIRSTACK": dynDirstack, "GROUPS": dynGroups, "SHELLOPTS": dynShellopts,
	"BASHOPTS": dynBashopts, "BASH_COMMAND": dynBashCommand, "BASH_ARGV": dynBashArgv, "BASH_ARGC": dynBashArgc,
	"PIPESTATUS": dynPipestatus}

// DefaultPath is PATH when the environment sets none: the folders that
// hold the runner's commands.
const DefaultPath = "/usr/local/bin:/usr/bin:/bin"

// fork copies the shell for a subshell: ( … ), a pipeline stage, a
// command substitution, a background job. Variables are shared until one
// side writes; descriptors are shared descriptions.
func (sh *Shell) fork() *Shell {
	c := *sh
	c.vars = sh.vars.share()
	c.funcs = make(map[string]*funcDef, len(sh.funcs))
	for k, v := range sh.funcs {
		c.funcs[k] = v
	}
	c.aliases = make(map[string]string, len(sh.aliases))
	for k, v := range sh.aliases {
		c.aliases[k] = v
	}
	// A subshell keeps only ignored signals (bash resets the other
	// traps), but `trap` in it still lists the parent's.
	c.traps = map[string]string{}
	for k, v := range sh.traps {
		if v == "" {
			c.traps[k] = v
		}
	}
	c.parentTraps = sh.traps
	c.fds = sh.fds.clone()
	c.dirs = append([]string(nil), sh.dirs...)
	c.params = append([]string(nil), sh.params...)
	c.frames = make([]*frame, len(sh.frames))
	for i, f := range sh.frames {
		cf := *f
		cf.locals = append([]string(nil), f.locals...)
		c.frames[i] = &cf
	}
	c.hash = nil
	c.jobs = &jobTable{}
	sh.shopts.own = false // both now share the map until one sets an option
	c.shopts = sh.shopts
	c.procFds = nil
	c.pendingSignals = nil
	if sh.disabled != nil {
		c.disabled = make(map[string]bool, len(sh.disabled))
		for k, v := range sh.disabled {
			c.disabled[k] = v
		}
	}
	c.pid = int(sh.run.pids.Add(1))
	c.subshell = sh.subshell + 1
	c.flow = flowNone
	c.pipestatus = nil
	c.completions = sh.completions
	return &c
}

// finish releases what a forked shell holds.
func (sh *Shell) finish() {
	sh.fds.closeAll()
	sh.vars.release()
}

// ended reports whether the shell must stop running commands: a pending
// exit or abort, or the command is over.
func (sh *Shell) ended() bool {
	return sh.flow == flowExit || sh.flow == flowAbort || sh.run.stopped()
}

// stderr is where the shell's own messages go: descriptor 2.
func (sh *Shell) stderr() io.Writer { return sh.fds.writer(2) }

// stdout is descriptor 1.
func (sh *Shell) stdout() io.Writer { return sh.fds.writer(1) }

// errorf prints a shell message with bash's prefix ("bash: line 3: ").
func (sh *Shell) errorf(format string, a ...any) {
	fmt.Fprintf(sh.stderr(), "%s%s\n", sh.prefix(), fmt.Sprintf(format, a...))
}

// prefix is bash's message prefix for the current line: the script's
// name (or "environment" inside a function of a -c string), then the
// line.
func (sh *Shell) prefix() string {
	name := sh.name
	if sh.src != nil && sh.src.file != "" {
		name = sh.src.file
	} else if len(sh.frames) > 0 && !sh.frames[len(sh.frames)-1].temp && sh.frames[len(sh.frames)-1].fn != "source" {
		name = "environment"
	}
	if sh.line > 0 {
		return name + ": line " + strconv.Itoa(sh.line) + ": "
	}
	return name + ": "
}

// exitShell runs the EXIT trap (once) and returns the final status.
func (sh *Shell) exitShell(status int) int {
	if sh.flow == flowExit {
		status = sh.status
	}
	if action, ok := sh.traps["EXIT"]; ok && !sh.exiting {
		sh.exiting = true
		delete(sh.traps, "EXIT")
		sh.flow = flowNone
		sh.status = status
		sh.runTrap("EXIT", action)
		if sh.flow == flowExit {
			status = sh.status
		}
	}
	return status
}

// frame returns the innermost function call, nil outside functions.
func (sh *Shell) frame() *frame {
	if len(sh.frames) == 0 {
		return nil
	}
	return sh.frames[len(sh.frames)-1]
}

// checkDepth counts one more level of nesting (a call, a source, an
// eval, a subshell) against the limit; false means the limit is reached
// and the command is ending.
func (sh *Shell) checkDepth() bool {
	if sh.depth+1 > sh.run.cfg.MaxCallDepth {
		sh.run.limit("call-depth", fmt.Sprintf("wsfs: function nesting limit %d reached", sh.run.cfg.MaxCallDepth))
		sh.flow, sh.status = flowExit, 1
		return false
	}
	return true
}

// goroutine starts fn in a new goroutine counted against the limit;
// false when the limit is reached (and the command is ending).
func (sh *Shell) goroutine(fn func()) bool {
	if sh.run.routines.Add(1) > int64(sh.run.cfg.MaxGoroutines) {
		sh.run.routines.Add(-1)
		sh.run.limit("goroutines", fmt.Sprintf("wsfs: limit of %d concurrent pipeline stages reached", sh.run.cfg.MaxGoroutines))
		sh.flow, sh.status = flowExit, 1
		return false
	}
	go func() {
		defer sh.run.routines.Add(-1)
		fn()
	}()
	return true
}

func itoa(n int) string { return strconv.Itoa(n) }
