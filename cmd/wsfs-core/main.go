// Command wsfs-core is the workspace filesystem for AI agents: flags,
// subcommands and wiring of the wsfs packages, nothing more. People and
// agents call it through the small `wsfs` front (cmd/wsfs), which execs it
// for every verb but the fast path of `wsfs run`; it also works on its own
// under either name.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"syscall"

	"github.com/wsfs/wsfs/runsvc"
	"github.com/wsfs/wsfs/runsvc/runwire"
)

// Exit codes, as `wsfs --help` lists them.
const (
	exitOK       = 0 // success
	exitFailure  = 1 // the operation failed, or fsck found problems
	exitUsage    = 2 // bad flags, arguments or names
	exitStale    = 3 // the workspace moved on (stale revision) or is busy
	exitNotFound = 4 // no such workspace, revision or path
)

// usageError marks errors in the command line itself. flags, when set,
// are the verb's, listed after the usage line (for a flag error).
type usageError struct {
	msg   string
	flags *flag.FlagSet
}

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{msg: fmt.Sprintf(format, a...)} }

// errSilent is an exitError's error when the verb printed its own
// message (or the command's status is all there is to say).
var errSilent = errors.New("")

// exitError carries an explicit exit code (fsck's 1 with a report already printed).
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

// verb is one subcommand.
type verb struct {
	name    string
	args    string // argument synopsis
	summary string
	run     func(ctx context.Context, app *app, args []string) error
}

var verbs = map[string]*verb{}

func register(v *verb) { verbs[v.name] = v }

// app carries what every verb shares: the streams and the global options.
type app struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	log    *slog.Logger
}

func main() {
	// The run service's hidden verbs: a worker, and js-exec's cache.
	switch {
	case len(os.Args) == 2 && os.Args[1] == runsvc.WorkerVerb:
		os.Exit(runsvc.WorkerMain())
	case len(os.Args) > 1 && os.Args[1] == runsvc.PrepareVerb:
		os.Exit(runsvc.PrepareMain(os.Args[2:]))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr,
		log: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: logLevel()}))}
	// Global flags may come before the verb: they go in front of its own.
	globals, args, err := runwire.LeadingGlobals(args)
	if err != nil {
		fmt.Fprintf(stderr, "wsfs: %v\n", err)
		return exitUsage
	}
	if len(args) == 0 {
		printHelp(stderr)
		return exitUsage
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		switch len(args) {
		case 1:
			printHelp(stdout)
			return exitOK
		case 2:
			if v, ok := verbs[args[1]]; ok {
				return a.dispatch(ctx, v, []string{"--help"})
			}
			fmt.Fprintf(stderr, "wsfs help: no command %q%s (wsfs help lists them)\n", args[1], suggestion(args[1]))
		default:
			fmt.Fprintf(stderr, "wsfs help: takes one command name, not %d\nusage: wsfs help [COMMAND]\n", len(args)-1)
		}
		return exitUsage
	}
	v, ok := verbs[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "wsfs: unknown command %q%s (wsfs help lists the commands)\n", args[0], suggestion(args[0]))
		return exitUsage
	}
	return a.dispatch(ctx, v, append(globals, args[1:]...))
}

// suggestion is "; did you mean X?" for the verb nearest to a mistyped
// one (at most two edits, a swap of neighbours counting as one, and no
// more than half the word), or "".
func suggestion(typed string) string {
	best, bestDist := "", 3
	for name := range verbs {
		if d := editDistance(typed, name); d < bestDist || d == bestDist && name < best {
			best, bestDist = name, d
		}
	}
	if best == "" || bestDist > (len(typed)+1)/2 {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of adjacent letters.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

func (a *app) dispatch(ctx context.Context, v *verb, args []string) int {
	err := v.run(ctx, a, args)
	if err == nil {
		return exitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	var ee exitError
	if runwire.JSONAsked(args) && !errors.As(err, &ee) {
		// With --json, a failure is JSON on stdout too (an exitError's verb
		// printed its own result, as fsck its report).
		var e runwire.Error
		var ue usageError
		if errors.As(err, &ue) {
			e = runwire.Error{Code: runwire.CodeInvalid, Message: ue.msg + "; usage: wsfs " + v.name + " " + v.args, Exit: exitUsage}
		} else {
			code, exit := runsvc.Classify(err)
			e = runwire.Error{Code: code, Message: runwire.UserMessage(err.Error()), Exit: exit}
		}
		if werr := runwire.WriteErrorJSON(a.stdout, e); werr == nil {
			return e.Exit
		}
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(a.stderr, "wsfs %s: %s\nusage: wsfs %s %s\n", v.name, ue.msg, v.name, v.args)
		if ue.flags != nil {
			fmt.Fprintln(a.stderr, "flags:")
			runwire.PrintFlags(a.stderr, ue.flags)
		}
		return exitUsage
	}
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintf(a.stderr, "wsfs %s: %s\n", v.name, runwire.UserMessage(ee.err.Error()))
		}
		return ee.code
	}
	fmt.Fprintf(a.stderr, "wsfs %s: %s\n", v.name, runwire.UserMessage(err.Error()))
	return exitCodeFor(err)
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "wsfs — durable, versioned workspaces for AI agents")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: wsfs COMMAND [flags] [args]   (wsfs help COMMAND for its flags)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(verbs))
	for n := range verbs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, verbs[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "global flags (every command, before or after its name): --store URL (or WSFS_STORE), --home DIR (or WSFS_HOME), --meta URL (or WSFS_META)")
	fmt.Fprintln(w, "  store URLs: file:///path  |  s3://bucket/prefix?endpoint=host:port&region=auto&secure=true")
	fmt.Fprintln(w, "  meta URLs:  bolt:///path/meta.db (default: meta.db in the home)  |  etcd://host:2379,host:2379/prefix")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "exit codes:")
	fmt.Fprintln(w, "  0  success")
	fmt.Fprintln(w, "  1  the operation failed (the message says what and what to do), or fsck found problems")
	fmt.Fprintln(w, "  2  bad flags, arguments or names")
	fmt.Fprintln(w, "  3  stale: the workspace moved on since the revision you named, or it is busy")
	fmt.Fprintln(w, "  4  not found: no such workspace, revision or path")
}

// newFlags makes a verb's flag set with the global flags, which every
// verb takes (g nil: the verb has no use for them, and ignores them).
func newFlags(a *app, v *verb, g *globalFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("wsfs "+v.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if g == nil {
		g = new(globalFlags)
	}
	fs.StringVar(&g.store, "store", os.Getenv("WSFS_STORE"), "object store `URL` (file:///path or s3://bucket/prefix?endpoint=...)")
	fs.StringVar(&g.home, "home", os.Getenv("WSFS_HOME"), "state folder `DIR` (meta.db, cache, socket)")
	fs.StringVar(&g.meta, "meta", os.Getenv("WSFS_META"), "metadata engine `URL`: bolt:///path/meta.db (default: meta.db in the home) or etcd://host:2379[,host:2379]/prefix")
	return fs
}

// parse parses flags, turning flag errors into usage errors and -h into help.
func parse(a *app, v *verb, fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(runwire.Interleave(fs, args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(a.stdout, "usage: wsfs %s %s\n\n%s\n\nflags:\n", v.name, v.args, v.summary)
			runwire.PrintFlags(a.stdout, fs)
			return flag.ErrHelp
		}
		return usageError{msg: runwire.FlagError(err), flags: fs}
	}
	return nil
}

func logLevel() slog.Level {
	if os.Getenv("WSFS_DEBUG") != "" {
		return slog.LevelDebug
	}
	return slog.LevelWarn
}

// globalFlags are accepted by every verb.
type globalFlags struct {
	store string
	home  string
	meta  string // --meta URL: the metadata engine ("": meta.db in the home)
}
