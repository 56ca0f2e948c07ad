package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/wsfs/wsfs/meta"
)

func init() {
	register(&verb{name: "gc", args: "[--delete] [--grace 1h] [--json]", summary: "find (and with --delete remove) blobs no retained revision reaches", run: runGC})
	register(&verb{name: "fsck", args: "[--quick] [--json]", summary: "check every retained revision's trees and blobs; exit 1 on problems", run: runFsck})
	register(&verb{name: "recover", args: "[--json]", summary: "rebuild meta.db from the object store alone", run: runRecover})
}

// progress returns a callback drawing a progress bar on stderr when it is a
// terminal, and nothing otherwise; call the returned stop when done.
func progress(a *app, what string) (func(done, total int), func()) {
	f, ok := a.stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, func() {}
	}
	var mu sync.Mutex
	bar := progressbar.NewOptions(-1, progressbar.OptionSetWriter(f), progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(), progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	return func(done, total int) {
			mu.Lock()
			defer mu.Unlock()
			if int64(total) != bar.GetMax64() {
				bar.ChangeMax(total)
			}
			bar.Set(done)
		}, func() {
			mu.Lock()
			defer mu.Unlock()
			bar.Finish()
		}
}

func runGC(ctx context.Context, a *app, args []string) error {
	v := verbs["gc"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	del := fs.Bool("delete", false, "delete the garbage (default: dry run, report only)")
	grace := fs.Duration("grace", time.Hour, "spare unreached blobs younger than this")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	verbose := fs.Bool("v", false, "list every garbage blob")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("takes no arguments")
	}
	if *grace < 0 {
		return usagef("--grace must not be negative")
	}
	db, done, err := g.openHistory(ctx, false)
	if err != nil {
		return err
	}
	defer done()
	tick, stop := progress(a, "gc")
	rep, err := db.GC(ctx, meta.GCOptions{Grace: *grace, Delete: *del, Progress: tick})
	stop()
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.stdout, rep)
	}
	mode := "dry run (nothing deleted; run with --delete to act)"
	if !rep.DryRun {
		mode = "deleted"
	}
	fmt.Fprintf(a.stdout, "gc: %s\n", mode)
	fmt.Fprintf(a.stdout, "  marked from %d revisions of %d workspaces: %d reachable objects\n", rep.Revisions, rep.Workspaces, rep.Reachable)
	fmt.Fprintf(a.stdout, "  %d blobs in the store; %d unreached but younger than %s (kept)\n", rep.Listed, rep.Young, *grace)
	fmt.Fprintf(a.stdout, "  garbage: %d blobs, %s\n", len(rep.Garbage), humanBytes(rep.GarbageBytes))
	if !rep.DryRun {
		fmt.Fprintf(a.stdout, "  deleted: %d blobs, %s", rep.Deleted, humanBytes(rep.DeletedBytes))
		if rep.Skipped > 0 {
			fmt.Fprintf(a.stdout, " (%d skipped: a commit started using them)", rep.Skipped)
		}
		fmt.Fprintln(a.stdout)
	}
	if *verbose {
		for _, b := range rep.Garbage {
			fmt.Fprintf(a.stdout, "  %s %8d %s\n", b.Digest, b.Size, shortTime(b.ModTime))
		}
	}
	return nil
}

func runFsck(ctx context.Context, a *app, args []string) error {
	v := verbs["fsck"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	quick := fs.Bool("quick", false, "check file blobs by size only (no hashing)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("takes no arguments")
	}
	db, done, err := g.openHistory(ctx, true)
	if err != nil {
		return err
	}
	defer done()
	tick, stop := progress(a, "fsck")
	rep, err := db.Fsck(ctx, meta.FsckOptions{Quick: *quick, Progress: tick})
	stop()
	if err != nil {
		return err
	}
	if *asJSON {
		if err := writeJSON(a.stdout, rep); err != nil {
			return err
		}
	} else {
		printFsck(a.stdout, rep)
	}
	if !rep.OK() {
		return exitError{code: exitFailure, err: fmt.Errorf("%d problems found", len(rep.Problems))}
	}
	return nil
}

func printFsck(w io.Writer, rep *meta.FsckReport) {
	how := "full (every blob read and hashed)"
	if rep.Quick {
		how = "quick (blob sizes only)"
	}
	fmt.Fprintf(w, "fsck: %s\n", how)
	fmt.Fprintf(w, "  %d workspaces, %d revisions, %d trees, %d blobs (%s)\n", rep.Workspaces, rep.Revisions, rep.Trees, rep.Blobs, humanBytes(rep.Bytes))
	if len(rep.Orphans) > 0 {
		fmt.Fprintf(w, "  %d orphan blobs (referenced by no retained revision; 'wsfs gc' reclaims them)\n", len(rep.Orphans))
	}
	if len(rep.Problems) == 0 {
		fmt.Fprintln(w, "  no problems")
		return
	}
	fmt.Fprintf(w, "  %d problems:\n", len(rep.Problems))
	tw := newTable(w)
	fmt.Fprintln(tw, "  KIND\tWORKSPACE\tREV\tPATH\tDIGEST\tDETAIL")
	for _, p := range rep.Problems {
		d := p.Digest
		if len(d) > 12 {
			d = d[:12]
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\t%s\n", p.Kind, p.Workspace, p.Rev, p.Path, d, p.Detail)
	}
	tw.Flush()
}

func runRecover(ctx context.Context, a *app, args []string) error {
	v := verbs["recover"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("takes no arguments")
	}
	st, home, err := g.openStore(ctx)
	if err != nil {
		return err
	}
	defer closeStore(st)
	path := filepath.Join(home, meta.DBFileName)
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("%s exists; move it aside first (mv %s %s.bad) and run wsfs recover again", path, path, path)
	}
	tick, stop := progress(a, "recover")
	rep, err := meta.Recover(ctx, path, st, meta.RecoverOptions{Progress: tick, Logger: a.log})
	stop()
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.stdout, rep)
	}
	fmt.Fprintf(a.stdout, "recover: rebuilt %s from %d blobs (%d trees, %d manifests)\n", path, rep.Blobs, rep.Trees, rep.Manifests)
	fmt.Fprintf(a.stdout, "  %d workspaces, %d revisions\n", len(rep.Workspaces), rep.Revisions)
	for _, s := range rep.Skipped {
		fmt.Fprintf(a.stdout, "  skipped: %s\n", s)
	}
	fmt.Fprintln(a.stdout, "next: run 'wsfs fsck' to check the result")
	return nil
}
