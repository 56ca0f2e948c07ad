package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/wsfs/wsfs/api"
	"github.com/wsfs/wsfs/internal/home"
	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/runsvc"
	"github.com/wsfs/wsfs/runsvc/runwire"
)

func init() {
	register(&verb{name: "run", args: runwire.Usage, summary: runwire.Summary, run: runRun})
	register(&verb{name: "output", args: "REF", summary: "print the full output of a command (its output_ref)", run: runOutput})
}

// runRun is `wsfs run`, as the small front runs it (runwire.Main): the
// job goes to the home's server, which a first command starts.
func runRun(ctx context.Context, a *app, args []string) error {
	files, closeFiles, err := streamFiles(a)
	if err != nil {
		return err
	}
	defer closeFiles()
	code := runwire.Main(args, files[0], files[1], files[2], sharedServer)
	if code == 0 {
		return nil
	}
	return exitError{code: code, err: errSilent}
}

// sharedServer is the command line of a server that `wsfs run` starts for
// home, up to its mount point.
func sharedServer(h, store string) ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this binary to start a wsfs server: %w", err)
	}
	argv := []string{exe, "mount", "--shared", "--home", h}
	if store != "" {
		argv = append(argv, "--store", store)
	}
	return argv, nil
}

// streamFiles returns the app's streams as files: its own when they are,
// pipes fed from them otherwise (a verb run in-process by a test).
func streamFiles(a *app) (files [3]*os.File, done func(), err error) {
	var cleanups []func()
	done = func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}
	if f, ok := a.stdin.(*os.File); ok {
		files[0] = f
	} else {
		r, w, err := os.Pipe()
		if err != nil {
			return files, done, err
		}
		go func() {
			_, _ = io.Copy(w, a.stdin)
			w.Close()
		}()
		files[0] = r
		cleanups = append(cleanups, func() { r.Close() })
	}
	for i, out := range []io.Writer{a.stdout, a.stderr} {
		if f, ok := out.(*os.File); ok {
			files[i+1] = f
			continue
		}
		r, w, err := os.Pipe()
		if err != nil {
			done()
			return files, func() {}, err
		}
		copied := make(chan struct{})
		go func() {
			_, _ = io.Copy(out, r)
			r.Close()
			close(copied)
		}()
		files[i+1] = w
		cleanups = append(cleanups, func() { w.Close(); <-copied })
	}
	return files, done, nil
}

func runOutput(ctx context.Context, a *app, args []string) error {
	v := verbs["output"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("takes one output reference (the output_ref of wsfs run --json)")
	}
	d, err := objects.ParseDigest(fs.Arg(0))
	if err != nil {
		return usagef("%s is not an output reference (64 hex digits): %v", fs.Arg(0), err)
	}
	// A running server has the outputs it has not stored yet; otherwise
	// the store alone has them all.
	h, err := g.homeDir()
	if err != nil {
		return err
	}
	var rc io.ReadCloser
	if c, derr := api.Dial(ctx, h); derr == nil {
		defer c.Close()
		rc, err = c.RunOutput(ctx, d)
	} else {
		st, _, oerr := g.openStore(ctx)
		if oerr != nil {
			return oerr
		}
		defer closeStore(st)
		rc, err = st.Open(ctx, d, 0, -1)
	}
	if err != nil {
		return fmt.Errorf("output %s: %w", filepath.Base(fs.Arg(0)), err)
	}
	defer rc.Close()
	return runsvc.DecodeOutput(rc, a.stdout, a.stderr)
}

// jsCacheDir is where js-exec keeps QuickJS compiled, under home.
func jsCacheDir(h string) string { return home.Of(h).JSCache() }
