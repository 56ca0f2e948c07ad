package grep

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
	"syscall"
	"time"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/gnuregex"
)

// Commands lists grep, egrep, fgrep and rg for the runner's command table.
func Commands() []command.Spec {
	return []command.Spec{
		{Name: "grep", Summary: "print lines that match patterns (GNU grep 3.8)", Flags: grepSpec.Flags(), Func: Grep},
		{Name: "egrep", Summary: "grep -E", Flags: grepSpec.Flags(), Func: Grep},
		{Name: "fgrep", Summary: "grep -F", Flags: grepSpec.Flags(), Func: Grep},
		{Name: "rg", Summary: "ripgrep: recursively search for a regex, respecting .gitignore", Flags: rgFlags, Func: Rg},
	}
}

// Grep is grep, egrep and fgrep (by Args[0]).
func Grep(ctx context.Context, env *command.Env) int {
	name := env.Name()
	if name != "egrep" && name != "fgrep" {
		name = "grep"
	}
	readFile := func(p string) (string, error) {
		var r io.Reader
		if p == "-" {
			r = stdinOf(env)
		} else {
			f, err := env.FS.Open(p)
			if err != nil {
				return "", err
			}
			defer f.Close()
			r = f
		}
		b, err := io.ReadAll(r)
		return string(b), err
	}
	o, err := parseArgs(name, env.Args[1:], readFile)
	if err != nil {
		return reportArgError(env, err)
	}
	for _, w := range o.warnings {
		env.Errorf("warning: %s", w)
	}
	eng, warnings, err := newEngine(o)
	for _, w := range warnings {
		env.Errorf("warning: %s", w)
	}
	if err != nil {
		env.Errorf("%s", err.Error())
		return 2
	}
	g := &grep{ctx: ctx, env: env, o: o, eng: eng}
	g.out = bufio.NewWriterSize(&errWriter{w: env.Stdout, g: g}, 64<<10)
	g.contextOn = o.after >= 0 || o.before >= 0
	if o.after < 0 {
		o.after = 0
	}
	if o.before < 0 {
		o.before = 0
	}
	return g.run()
}

// grep is one invocation's running state.
type grep struct {
	ctx       context.Context
	env       *command.Env
	o         *options
	eng       *engine
	out       *bufio.Writer
	contextOn bool

	withName   bool
	anyOutput  bool // a line was printed (for "--" between files)
	anySelect  bool
	hadError   bool
	stopAll    bool // -q matched, or output failed
	writeErr   error
	searchErr  error // context cancelled or backtracking budget
	buf        []byte
	implicitRd bool // -r with no operand: paths print without "./"
	searched   int  // files (and stdin) read so far
	// matchNothing: no line can be selected, so files are not read.
	matchNothing bool
	// listedNonMatching: -L printed a name (rg's success for it).
	listedNonMatching bool
	// rgBinaryExplicit: rg searches a named binary file (and says so);
	// a binary file found while walking is skipped.
	rgBinaryExplicit bool
	// rg --json: when the run began and its statistics.
	start     time.Time
	jsonTotal jsonStats
}

// errWriter records the first write error so searching stops (the runner
// may cap output).
type errWriter struct {
	w io.Writer
	g *grep
}

func (e *errWriter) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil && e.g.writeErr == nil {
		e.g.writeErr = err
		e.g.stopAll = true
	}
	return n, err
}

func (g *grep) run() int {
	o := g.o
	files := o.files
	if len(files) == 0 {
		if o.recursive > 0 {
			files = []string{"."}
			g.implicitRd = true
		} else {
			files = []string{"-"}
		}
	}
	switch o.withFilename {
	case 1:
		g.withName = true
	case 0:
		g.withName = false
	default:
		g.withName = len(files) > 1 || o.recursive > 0 && !(len(files) == 1 && g.isPlainFile(files[0]))
	}
	// As GNU: -q overrides -l and -L, which override -c; listing needs
	// no context. With no pattern at all (grep -f /dev/null) nothing can
	// match, and GNU stops before reading anything.
	if o.quiet {
		o.listMatching, o.listNonMatching, o.count = false, false, false
	}
	if o.quiet || o.listMatching || o.listNonMatching {
		o.count = false
		o.after, o.before = 0, 0
		g.contextOn = false
	}
	if o.maxCount == 0 {
		return 1
	}
	// GNU sees that no line can be selected (no pattern at all, or -v of
	// the empty pattern) and reads no file: only -L still names them.
	g.matchNothing = len(o.patterns) == 0 && !o.invert ||
		o.invert && len(o.patterns) == 1 && o.patterns[0] == "" && !o.wholeLine && !o.word
	for _, f := range files {
		if g.stopAll {
			break
		}
		g.operand(f)
	}
	if err := g.out.Flush(); err != nil && g.writeErr == nil {
		g.writeErr = err
	}
	if g.writeErr != nil && !(o.quiet && g.anySelect) {
		g.env.Errorf("write error: %s", command.Strerror(g.writeErr))
		return 2
	}
	if g.searchErr != nil {
		if errors.Is(g.searchErr, gnuregex.ErrBudget) {
			g.env.Errorf("%s", g.searchErr.Error())
		} else {
			g.env.Errorf("%s", g.searchErr.Error())
		}
		return 2
	}
	switch {
	case o.quiet && g.anySelect:
		return 0
	case g.hadError:
		return 2
	case g.anySelect:
		return 0
	}
	return 1
}

// stdinOf is the command's standard input; none reads as empty.
func stdinOf(env *command.Env) io.Reader {
	if env.Stdin == nil {
		return strings.NewReader("")
	}
	return env.Stdin
}

func (g *grep) isPlainFile(name string) bool {
	if name == "-" {
		return true
	}
	fi, err := g.env.FS.Stat(name)
	return err == nil && !fi.IsDir()
}

// fileError reports a file that cannot be read (unless -s) and marks the
// status 2.
func (g *grep) fileError(name string, err error) {
	g.hadError = true
	if !g.o.noMessages {
		g.out.Flush()
		g.env.Errorf("%s: %s", name, command.Strerror(err))
	}
}

// operand searches one command-line operand.
func (g *grep) operand(name string) {
	o := g.o
	if name == "-" {
		label := o.label
		if label == "" {
			label = "(standard input)"
		}
		g.searchReader(label, stdinOf(g.env))
		return
	}
	fi, err := g.env.FS.Stat(name)
	if err != nil {
		g.fileError(name, err)
		return
	}
	if fi.IsDir() {
		if o.recursive == 0 {
			if o.skipDirs {
				return
			}
			g.fileError(name, &fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR})
			if o.count || o.listNonMatching {
				// GNU counts what it could read of the directory: nothing.
				s := &fileSearch{g: g, name: name}
				s.finish()
			}
			return
		}
		if name != "." && name != ".." && excludedName(o.excludeDirs, nil, name, true) {
			return
		}
		g.walk(trimSlashes(name), 0)
		return
	}
	if excludedName(o.excludes, o.includes, name, true) {
		return
	}
	if fi.Mode()&(fs.ModeDevice|fs.ModeNamedPipe|fs.ModeSocket) != 0 && o.skipDevices {
		return
	}
	g.searchFile(name)
}

func trimSlashes(name string) string {
	for len(name) > 1 && strings.HasSuffix(name, "/") {
		name = name[:len(name)-1]
	}
	return name
}

func (g *grep) searchFile(name string) {
	f, err := g.env.FS.Open(name)
	if err != nil {
		g.fileError(name, err)
		return
	}
	defer f.Close()
	g.searchReader(name, f)
}
