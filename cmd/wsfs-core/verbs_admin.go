package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/wsfs/wsfs/api"
	"github.com/wsfs/wsfs/fusefs"
	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/meta/kv"
	"github.com/wsfs/wsfs/meta/metaurl"
	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/objects/storeurl"
)

func init() {
	register(&verb{name: "gc", args: "[--delete] [--grace 1h] [--json]", summary: "find (and with --delete remove) blobs no retained revision reaches", run: runGC})
	register(&verb{name: "fsck", args: "[--quick] [--repair [--from URL]...] [--json]", summary: "check every retained revision's trees and blobs; exit 1 on problems; --repair rebuilds the object index and heals damaged blobs from good copies", run: runFsck})
	register(&verb{name: "recover", args: "[--json]", summary: "rebuild the metadata (meta.db, or an empty etcd prefix with --meta) from the object store alone", run: runRecover})
	register(&verb{name: "meta", args: "copy FROM TO [--json]", summary: "copy every metadata record from one engine to another (bolt:///path/meta.db, etcd://host:2379/prefix) and check the copy", run: runMeta})
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
	grace := fs.Duration("grace", meta.DefaultGrace, "spare unreached blobs younger than `D` (0s spares none: only when no other server writes to this store)")
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
	opts := meta.GCOptions{Grace: *grace, Delete: *del, Progress: tick}
	if *grace == 0 {
		opts.Grace = meta.NoGrace
	}
	rep, err := db.GC(ctx, opts)
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
	fmt.Fprintf(a.stdout, "  %d blobs in the store (%d packs); %d unreached but younger than %s (kept)\n", rep.Listed, rep.Packs, rep.Young, *grace)
	fmt.Fprintf(a.stdout, "  garbage: %d blobs and packs, %s\n", len(rep.Garbage), humanBytes(rep.GarbageBytes))
	if len(rep.Repack) > 0 {
		fmt.Fprintf(a.stdout, "  to rewrite: %d packs, %s (%d mostly garbage, %d small ones to combine; their live objects move to new packs)\n",
			len(rep.Repack), humanBytes(rep.RepackBytes), len(rep.Repack)-rep.RepackSmall, rep.RepackSmall)
	}
	if !rep.DryRun {
		fmt.Fprintf(a.stdout, "  deleted: %d blobs and packs, %s", rep.Deleted, humanBytes(rep.DeletedBytes))
		if rep.Skipped > 0 {
			fmt.Fprintf(a.stdout, " (%d skipped: a commit started using them)", rep.Skipped)
		}
		fmt.Fprintln(a.stdout)
		if rep.Repacked > 0 {
			fmt.Fprintf(a.stdout, "  repacked: %d packs (%s of live objects copied)\n", rep.Repacked, humanBytes(rep.RepackedLive))
		}
	}
	if rep.Unindexed > 0 {
		fmt.Fprintf(a.stdout, "  kept %d packs the object index did not know, which hold live objects (indexed again; run 'wsfs fsck --repair' to rebuild the whole index)\n", rep.Unindexed)
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
	repair := fs.Bool("repair", false, "rebuild the object index from the store, and write again every damaged or missing blob a good copy is found for (the read cache, a crashed server's spool, --from stores)")
	var from []string
	fs.Func("from", "with --repair: another store `URL` to take good copies from (repeatable)", func(u string) error {
		from = append(from, u)
		return nil
	})
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("takes no arguments")
	}
	if len(from) > 0 && !*repair {
		return usagef("--from names where --repair takes good copies from: add --repair")
	}
	opts := meta.FsckOptions{Quick: *quick, Repair: *repair}
	var db api.History
	var done func()
	var err error
	if *repair {
		var sources []objects.Store
		db, sources, done, err = g.openForRepair(ctx, from)
		opts.Sources = sources
	} else {
		db, done, err = g.openHistory(ctx, true)
	}
	if err != nil {
		return err
	}
	defer done()
	tick, stop := progress(a, "fsck")
	opts.Progress = tick
	rep, err := db.Fsck(ctx, opts)
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

// openForRepair opens meta.db for writing, which fsck --repair needs to
// itself, and the stores to take good copies from: the spool a crashed
// server left (a clean stop removes it) and the stores named by --from.
func (g *globalFlags) openForRepair(ctx context.Context, from []string) (*meta.DB, []objects.Store, func(), error) {
	home, err := g.homeDir()
	if err != nil {
		return nil, nil, nil, err
	}
	if c, err := api.Dial(ctx, home); err == nil {
		pid := c.Health().PID
		c.Close()
		return nil, nil, nil, fmt.Errorf("fsck --repair needs meta.db to itself, and the wsfs server (PID %d) has it: stop the server (wsfs umount DIR), then run wsfs fsck --repair", pid)
	}
	db, closeDB, err := g.openDB(ctx, false)
	if errors.Is(err, meta.ErrInUse) {
		return nil, nil, nil, heldError(home, err)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	var sources []objects.Store
	closeAll := func() {
		for _, s := range sources {
			closeStore(s)
		}
		closeDB()
	}
	if c, err := objects.OpenCopies(fusefs.CopiesDir(filepath.Join(home, "spool"))); err == nil {
		sources = append(sources, c)
	}
	for _, u := range from {
		st, err := storeurl.Open(ctx, u, storeurl.Options{Home: home})
		if err != nil {
			closeAll()
			return nil, nil, nil, fmt.Errorf("--from %s: %w", u, err)
		}
		sources = append(sources, st)
	}
	return db, sources, closeAll, nil
}

// clearUnused makes way for recover: no meta.db, or one that holds no
// workspace, live or deleted (a new one), which it removes. A meta.db in
// use, or one with workspaces, stays, and recover is refused.
func clearUnused(ctx context.Context, st objects.Store, home, path string) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if c, err := api.Dial(ctx, home); err == nil {
		pid := c.Health().PID
		c.Close()
		return fmt.Errorf("the wsfs server (PID %d) has %s open: stop it (wsfs umount DIR) before wsfs recover", pid, path)
	}
	db, err := meta.Open(ctx, path, st, meta.Options{})
	if errors.Is(err, meta.ErrInUse) {
		return heldError(home, err)
	}
	if err != nil {
		return fmt.Errorf("%w\n%s cannot be read; move it aside (mv %s %s.bad) and run wsfs recover again", err, path, path, path)
	}
	unused, err := db.Unused(ctx)
	db.Close()
	if err != nil {
		return err
	}
	if !unused {
		return fmt.Errorf("%s exists and holds workspaces; to rebuild it from the store anyway, move it aside first (mv %s %s.bad) and run wsfs recover again", path, path, path)
	}
	// A new database, with nothing the store does not have: replaced.
	for _, p := range []string{path, meta.PIDFile(path)} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
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
	if rep.Packs > 0 {
		fmt.Fprintf(w, "  %d packs of small objects in the store\n", rep.Packs)
	}
	if len(rep.Orphans) > 0 {
		fmt.Fprintf(w, "  %d orphan blobs and packs (referenced by no retained revision; 'wsfs gc' reclaims them)\n", len(rep.Orphans))
	}
	if ix := rep.Index; ix != nil {
		fmt.Fprintf(w, "  object index rebuilt from the store: %d objects in %d packs and %d single blobs (%d added, %d moved, %d dropped)\n",
			ix.Objects, ix.Packs, ix.Singles, ix.Added, ix.Moved, ix.Dropped)
	}
	for _, r := range rep.Repaired {
		fmt.Fprintf(w, "  repaired: %s %s, written again from %s\n", r.Kind, r.Digest[:12], r.Source)
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
	if len(rep.Damaged) > 0 {
		fmt.Fprintf(w, "  %d damaged or missing objects, and the revisions they break:\n", len(rep.Damaged))
		for _, dm := range rep.Damaged {
			where := ""
			if len(dm.Paths) > 0 {
				where = " (" + strings.Join(dm.Paths, ", ") + ")"
			}
			fmt.Fprintf(w, "    %s %s%s: %s\n", dm.Kind, dm.Digest[:12], where, strings.Join(dm.Revisions, " "))
		}
		if rep.Index == nil {
			fmt.Fprintln(w, "  run 'wsfs fsck --repair' to write again those a good copy is found for (the read cache, a crashed server's spool, --from URL); restore the files of the others from an earlier revision, or write them again")
		} else {
			fmt.Fprintln(w, "  no good copy was found of those: restore their files from an earlier revision, write them again, or run 'wsfs fsck --repair --from URL' with a store that holds them")
		}
	}
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
	spec, err := g.metaSpec(home)
	if err != nil {
		return err
	}
	raw, err := g.storeURL(home)
	if err != nil {
		return err
	}
	id, err := storeurl.Identity(raw)
	if err != nil {
		return err
	}
	path := spec.Path
	var rep *meta.RecoverReport
	tick, stop := progress(a, "recover")
	if spec.Kind == metaurl.Bolt {
		if err = clearUnused(ctx, st, home, path); err == nil {
			rep, err = meta.Recover(ctx, path, st, meta.RecoverOptions{Progress: tick, Logger: a.log, StoreID: id})
		}
	} else {
		path = spec.String()
		var eng kv.Engine
		if eng, err = metaurl.OpenEngine(ctx, spec, false); err == nil {
			rep, err = meta.RecoverEngine(ctx, eng, st, home, meta.RecoverOptions{Progress: tick, Logger: a.log, StoreID: id})
			eng.Close()
		}
	}
	stop()
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.stdout, rep)
	}
	fmt.Fprintf(a.stdout, "recover: rebuilt %s from %d blobs (%d packs; %d trees, %d manifests)\n", path, rep.Blobs, rep.Packs, rep.Trees, rep.Manifests)
	fmt.Fprintf(a.stdout, "  %d workspaces, %d revisions, %d kept command outputs\n", len(rep.Workspaces), rep.Revisions, rep.Outputs)
	for _, s := range rep.Skipped {
		fmt.Fprintf(a.stdout, "  skipped: %s\n", s)
	}
	fmt.Fprintln(a.stdout, "next: run 'wsfs fsck' to check the result")
	return nil
}

func runMeta(ctx context.Context, a *app, args []string) error {
	v := verbs["meta"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 3 || fs.Arg(0) != "copy" {
		return usagef("usage: wsfs meta copy FROM TO (each bolt:///path/meta.db or etcd://host:2379/prefix)")
	}
	home, err := g.homeDir()
	if err != nil {
		return err
	}
	from, err := metaurl.Parse(fs.Arg(1), home)
	if err != nil {
		return usageError{msg: err.Error()}
	}
	to, err := metaurl.Parse(fs.Arg(2), home)
	if err != nil {
		return usageError{msg: err.Error()}
	}
	if from.String() == to.String() {
		return usagef("FROM and TO are the same (%s)", from)
	}
	src, err := metaurl.OpenEngine(ctx, from, true)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := metaurl.OpenEngine(ctx, to, false)
	if err != nil {
		return err
	}
	defer dst.Close()
	rep, err := meta.CopyRecords(ctx, src, dst)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.stdout, rep)
	}
	fmt.Fprintf(a.stdout, "meta copy: %d records (%d workspaces, %d bytes) from %s to %s, checked (sha256 %s)\n",
		rep.Records, rep.Workspaces, rep.Bytes, rep.From, rep.To, rep.Digest[:16])
	return nil
}
