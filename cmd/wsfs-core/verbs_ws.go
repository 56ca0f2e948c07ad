package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"

	"github.com/wsfs/wsfs/meta"
)

func init() {
	register(&verb{name: "create", args: "[--kind private|shared] [--owner NAME] TENANT/NAME", summary: "create a workspace", run: runCreate})
	register(&verb{name: "ls", args: "[--json] [TENANT[/PREFIX]]", summary: "list workspaces", run: runLs})
	register(&verb{name: "rm", args: "TENANT/NAME", summary: "delete a workspace (its blobs stay until gc)", run: runRm})
	register(&verb{name: "log", args: "[--json] [--limit N] [--before N] TENANT/NAME", summary: "list a workspace's revisions, newest first", run: runLog})
	register(&verb{name: "show", args: "[--json] TENANT/NAME[@REV]", summary: "show one revision: command, exit code, duration, changed paths", run: runShow})
	register(&verb{name: "diff", args: "[--json] [--stat] WS@A WS@B [PATH]", summary: "compare two revisions (added, modified, removed, text diffs)", run: runDiff})
	register(&verb{name: "cat", args: "TENANT/NAME[@REV] PATH", summary: "print a file of a revision", run: runCat})
	register(&verb{name: "restore", args: "[--json] TENANT/NAME@REV", summary: "make a new revision equal to an older one", run: runRestore})
	register(&verb{name: "fork", args: "[--json] TENANT/NAME[@REV] NEW/NAME", summary: "create a workspace from any revision, copying no blobs", run: runFork})
	register(&verb{name: "quota", args: "[--json] TENANT/NAME [set KEY=VALUE ...]", summary: "show or change a workspace's quotas and retention", run: runQuota})
	register(&verb{name: "put", args: "[--force] [--mode 0644] TENANT/NAME PATH < content", summary: "write stdin into one file as its own revision", run: runPut})
	register(&verb{name: "export", args: "[-o FILE] TENANT/NAME[@REV]", summary: "write a revision as a tar stream", run: runExport})
	register(&verb{name: "import", args: "[--under DIR] TENANT/NAME FILE.tar|-", summary: "commit a tar as one new revision", run: runImport})
}

// author names who made a change from the command line.
func author() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "cli"
}

func cmdInfo(args []string) meta.CommitInfo {
	return meta.CommitInfo{Command: "wsfs " + strings.Join(args, " "), Author: author()}
}

func runCreate(ctx context.Context, a *app, args []string) error {
	v := verbs["create"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	kind := fs.String("kind", "private", "private or shared")
	owner := fs.String("owner", "", "owner kept for access checks (default: you)")
	asJSON := fs.Bool("json", false, "print the workspace as JSON")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("takes one workspace name")
	}
	name, err := parseWorkspace(fs.Arg(0))
	if err != nil {
		return err
	}
	k := meta.WorkspaceKind(*kind)
	if k != meta.Private && k != meta.Shared {
		return usagef("--kind must be private or shared, not %q", *kind)
	}
	if *owner == "" {
		*owner = author()
	}
	db, done, err := g.openHistory(ctx, false)
	if err != nil {
		return err
	}
	defer done()
	ws, err := db.Create(ctx, name, meta.CreateOptions{Kind: k, Owner: *owner, Author: author()})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.stdout, ws)
	}
	fmt.Fprintf(a.stdout, "created %s (revision %d)\n", ws.Name, ws.Head)
	return nil
}

func runLs(ctx context.Context, a *app, args []string) error {
	v := verbs["ls"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usagef("takes at most one prefix")
	}
	db, done, err := g.openHistory(ctx, true)
	if err != nil {
		return err
	}
	defer done()
	list, err := db.List(ctx, strings.ToLower(fs.Arg(0)))
	if err != nil {
		return err
	}
	if *asJSON {
		if list == nil {
			list = []meta.Workspace{}
		}
		return writeJSON(a.stdout, list)
	}
	tw := newTable(a.stdout)
	fmt.Fprintln(tw, "WORKSPACE\tHEAD\tFILES\tBYTES\tKIND\tOWNER\tUPDATED")
	for _, ws := range list {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\n", ws.Name, ws.Head, ws.Usage.Files, humanBytes(ws.Usage.Bytes), ws.Kind, ws.Owner, shortTime(lastChange(ws)))
	}
	return tw.Flush()
}

// lastChange is when a workspace's files last changed: its head
// revision's time (its settings' for a record written before head times
// were kept).
func lastChange(ws meta.Workspace) time.Time {
	if ws.HeadTime.IsZero() {
		return ws.Updated
	}
	return ws.HeadTime
}

func runRm(ctx context.Context, a *app, args []string) error {
	v := verbs["rm"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("takes one workspace name")
	}
	name, err := parseWorkspace(fs.Arg(0))
	if err != nil {
		return err
	}
	db, done, err := g.openHistory(ctx, false)
	if err != nil {
		return err
	}
	defer done()
	if err := db.Delete(ctx, name); err != nil {
		if errors.Is(err, meta.ErrNotFound) {
			return classedError{fmt.Sprintf("no workspace %s to delete (wsfs ls lists the workspaces)", name), err}
		}
		return err
	}
	fmt.Fprintf(a.stdout, "deleted %s (run 'wsfs gc --delete' to reclaim its blobs)\n", name)
	return nil
}

func runLog(ctx context.Context, a *app, args []string) error {
	v := verbs["log"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	asJSON := fs.Bool("json", false, "print JSON")
	limit := fs.Int("limit", 50, "most revisions to list")
	before := fs.Uint64("before", 0, "list revisions older than this one")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("takes one workspace name")
	}
	name, err := parseWorkspace(fs.Arg(0))
	if err != nil {
		return err
	}
	db, done, err := g.openHistory(ctx, true)
	if err != nil {
		return err
	}
	defer done()
	revs, err := db.Log(ctx, name, meta.LogOptions{Limit: *limit, Before: meta.RevNum(*before)})
	if err != nil {
		return err
	}
	if *asJSON {
		if revs == nil {
			revs = []meta.Revision{}
		}
		return writeJSON(a.stdout, revs)
	}
	tw := newTable(a.stdout)
	fmt.Fprintln(tw, "REV\tTIME\tEXIT\tDURATION\tCHANGES\tAUTHOR\tCOMMAND")
	for _, r := range revs {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%d\t%s\t%s\n", r.N, shortTime(r.Time), r.ExitCode, r.Duration.Round(time.Millisecond), len(r.Changes), r.Author, oneLine(r.Command, 60))
	}
	return tw.Flush()
}

// parseWorkspace parses a TENANT/NAME argument; a bad one is a usage error.
func parseWorkspace(s string) (string, error) {
	name, err := meta.ParseWorkspace(s)
	if err != nil {
		return "", usagef("%v", err)
	}
	return name, nil
}

func parseRef(s string) (meta.Ref, error) {
	ref, err := meta.ParseRef(s)
	if err != nil {
		return ref, usagef("%v", err)
	}
	return ref, nil
}

func runShow(ctx context.Context, a *app, args []string) error {
	v := verbs["show"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("takes one revision, TENANT/NAME[@REV]")
	}
	ref, err := parseRef(fs.Arg(0))
	if err != nil {
		return err
	}
	db, done, err := g.openHistory(ctx, true)
	if err != nil {
		return err
	}
	defer done()
	r, err := db.Show(ctx, ref)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.stdout, r)
	}
	fmt.Fprintf(a.stdout, "revision  %s@%d (parent %d)\n", r.Workspace, r.N, r.Parent)
	fmt.Fprintf(a.stdout, "time      %s\n", shortTime(r.Time))
	fmt.Fprintf(a.stdout, "author    %s\n", r.Author)
	fmt.Fprintf(a.stdout, "command   %s\n", r.Command)
	fmt.Fprintf(a.stdout, "exit      %d\n", r.ExitCode)
	fmt.Fprintf(a.stdout, "duration  %s\n", r.Duration.Round(time.Millisecond))
	fmt.Fprintf(a.stdout, "cwd       %s\n", r.Cwd)
	fmt.Fprintf(a.stdout, "tree      %s (%d files, %d dirs, %d symlinks, %s)\n", r.Root.Short(), r.Stats.Files, r.Stats.Dirs, r.Stats.Symlinks, humanBytes(r.Stats.Bytes))
	if len(r.Changes) == 0 {
		fmt.Fprintln(a.stdout, "changes   none")
		return nil
	}
	fmt.Fprintln(a.stdout, "changes:")
	for _, c := range r.Changes {
		fmt.Fprintf(a.stdout, "  %-8s %-7s %s\n", c.Action, c.Kind, c.Path)
	}
	return nil
}

func runDiff(ctx context.Context, a *app, args []string) error {
	v := verbs["diff"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	asJSON := fs.Bool("json", false, "print JSON")
	stat := fs.Bool("stat", false, "list changed paths only, without text diffs")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() < 2 || fs.NArg() > 3 {
		return usagef("takes two revisions and an optional path")
	}
	from, err := parseRef(fs.Arg(0))
	if err != nil {
		return err
	}
	to, err := parseRef(fs.Arg(1))
	if err != nil {
		return err
	}
	db, done, err := g.openHistory(ctx, true)
	if err != nil {
		return err
	}
	defer done()
	diffs, err := db.Diff(ctx, from, to, meta.DiffOptions{Path: fs.Arg(2), Text: !*stat})
	if err != nil {
		return err
	}
	if *asJSON {
		if diffs == nil {
			diffs = []meta.FileDiff{}
		}
		return writeJSON(a.stdout, diffs)
	}
	for _, d := range diffs {
		var size string
		switch {
		case d.Old != nil && d.New != nil:
			size = fmt.Sprintf("%d → %d bytes", d.Old.Size, d.New.Size)
		case d.New != nil:
			size = fmt.Sprintf("%d bytes", d.New.Size)
		case d.Old != nil:
			size = fmt.Sprintf("%d bytes", d.Old.Size)
		}
		fmt.Fprintf(a.stdout, "%-8s %s (%s)\n", d.Action, d.Path, size)
	}
	if !*stat {
		for _, d := range diffs {
			if d.Unified != "" {
				fmt.Fprint(a.stdout, "\n", d.Unified)
			} else if d.Binary {
				fmt.Fprintf(a.stdout, "\nBinary files differ: %s\n", d.Path)
			}
		}
	}
	return nil
}

func runCat(ctx context.Context, a *app, args []string) error {
	v := verbs["cat"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usagef("takes a revision and a path")
	}
	ref, err := parseRef(fs.Arg(0))
	if err != nil {
		return err
	}
	db, done, err := g.openHistory(ctx, true)
	if err != nil {
		return err
	}
	defer done()
	rc, _, err := db.OpenFile(ctx, ref, fs.Arg(1))
	if err != nil {
		return err
	}
	defer rc.Close()
	// Read all before printing: the content is verified at its end, and a
	// corrupt blob must print nothing rather than wrong bytes.
	b, err := io.ReadAll(rc)
	if err != nil {
		return err
	}
	_, err = a.stdout.Write(b)
	return err
}

func runRestore(ctx context.Context, a *app, args []string) error {
	v := verbs["restore"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("takes one revision, TENANT/NAME@REV")
	}
	ref, err := parseRef(fs.Arg(0))
	if err != nil {
		return err
	}
	if ref.Rev == 0 {
		return usagef("name the revision to restore: %s@REV", ref.Workspace)
	}
	db, done, err := g.openHistory(ctx, false)
	if err != nil {
		return err
	}
	defer done()
	rev, committed, err := db.Restore(ctx, ref, cmdInfo(append([]string{"restore"}, args...)))
	if err != nil {
		return err
	}
	return printCommit(a, *asJSON, rev, committed, fmt.Sprintf("restored %s to revision %d", ref.Workspace, ref.Rev))
}

func printCommit(a *app, asJSON bool, rev meta.Revision, committed bool, what string) error {
	if asJSON {
		return writeJSON(a.stdout, struct {
			Committed bool          `json:"committed"`
			Revision  meta.Revision `json:"revision"`
		}{committed, rev})
	}
	if !committed {
		fmt.Fprintf(a.stdout, "%s: nothing changed, no new revision (head is %d)\n", what, rev.N)
		return nil
	}
	fmt.Fprintf(a.stdout, "%s: revision %d\n", what, rev.N)
	return nil
}

func runFork(ctx context.Context, a *app, args []string) error {
	v := verbs["fork"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usagef("takes a source revision and a new workspace name")
	}
	ref, err := parseRef(fs.Arg(0))
	if err != nil {
		return err
	}
	name, err := parseWorkspace(fs.Arg(1))
	if err != nil {
		return err
	}
	db, done, err := g.openHistory(ctx, false)
	if err != nil {
		return err
	}
	defer done()
	ws, err := db.Fork(ctx, ref, name, meta.CreateOptions{Owner: author(), Author: author()})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.stdout, ws)
	}
	fmt.Fprintf(a.stdout, "forked %s into %s (revision %d)\n", ref, ws.Name, ws.Head)
	return nil
}

// quotaKeys are the settings `wsfs quota WS set KEY=VALUE` changes.
var quotaKeys = []struct {
	key, help string
	get       func(q *meta.Quotas, r *meta.Retention) string
	set       func(q *meta.Quotas, r *meta.Retention, v string) error
}{
	{"entries", "files, dirs and symlinks, the root included", func(q *meta.Quotas, _ *meta.Retention) string { return strconv.FormatInt(q.MaxEntries, 10) },
		func(q *meta.Quotas, _ *meta.Retention, v string) error { return setInt(&q.MaxEntries, v) }},
	{"file-bytes", "bytes of one file", func(q *meta.Quotas, _ *meta.Retention) string { return strconv.FormatInt(q.MaxFileBytes, 10) },
		func(q *meta.Quotas, _ *meta.Retention, v string) error { return setBytes(&q.MaxFileBytes, v) }},
	{"workspace-bytes", "bytes of all files", func(q *meta.Quotas, _ *meta.Retention) string { return strconv.FormatInt(q.MaxWorkspaceBytes, 10) },
		func(q *meta.Quotas, _ *meta.Retention, v string) error { return setBytes(&q.MaxWorkspaceBytes, v) }},
	{"path-components", "components of a path", func(q *meta.Quotas, _ *meta.Retention) string { return strconv.FormatInt(q.MaxPathComponents, 10) },
		func(q *meta.Quotas, _ *meta.Retention, v string) error { return setInt(&q.MaxPathComponents, v) }},
	{"path-bytes", "bytes of a path", func(q *meta.Quotas, _ *meta.Retention) string { return strconv.FormatInt(q.MaxPathBytes, 10) },
		func(q *meta.Quotas, _ *meta.Retention, v string) error { return setInt(&q.MaxPathBytes, v) }},
	{"symlink-target", "bytes of a symlink target", func(q *meta.Quotas, _ *meta.Retention) string { return strconv.FormatInt(q.MaxSymlinkTarget, 10) },
		func(q *meta.Quotas, _ *meta.Retention, v string) error { return setInt(&q.MaxSymlinkTarget, v) }},
	{"wall-time", "one command's wall time", func(q *meta.Quotas, _ *meta.Retention) string { return q.WallTime.String() },
		func(q *meta.Quotas, _ *meta.Retention, v string) error { return setDuration(&q.WallTime, v) }},
	{"output-bytes", "stdout/stderr tail kept in a result", func(q *meta.Quotas, _ *meta.Retention) string { return strconv.FormatInt(q.MaxOutputBytes, 10) },
		func(q *meta.Quotas, _ *meta.Retention, v string) error { return setBytes(&q.MaxOutputBytes, v) }},
	{"js-time", "js-exec time", func(q *meta.Quotas, _ *meta.Retention) string { return q.JSTime.String() },
		func(q *meta.Quotas, _ *meta.Retention, v string) error { return setDuration(&q.JSTime, v) }},
	{"js-memory", "js-exec memory", func(q *meta.Quotas, _ *meta.Retention) string { return strconv.FormatInt(q.JSMemoryBytes, 10) },
		func(q *meta.Quotas, _ *meta.Retention, v string) error { return setBytes(&q.JSMemoryBytes, v) }},
	{"visible-entries", "entries visible during a command", func(q *meta.Quotas, _ *meta.Retention) string { return strconv.FormatInt(q.MaxVisibleEntries, 10) },
		func(q *meta.Quotas, _ *meta.Retention, v string) error { return setInt(&q.MaxVisibleEntries, v) }},
	{"keep-last", "retention: keep the last N revisions (0 = all)", func(_ *meta.Quotas, r *meta.Retention) string { return strconv.FormatInt(r.KeepLast, 10) },
		func(_ *meta.Quotas, r *meta.Retention, v string) error { return setInt(&r.KeepLast, v) }},
	{"keep-for", "retention: keep revisions younger than D (0 = all)", func(_ *meta.Quotas, r *meta.Retention) string { return r.KeepFor.String() },
		func(_ *meta.Quotas, r *meta.Retention, v string) error { return setDuration(&r.KeepFor, v) }},
}

func setInt(dst *int64, v string) error {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("%q is not a whole number ≥ 0", v)
	}
	*dst = n
	return nil
}

// setBytes accepts 1024, 256K, 256KiB, 5M, 5MiB, 1G.
func setBytes(dst *int64, v string) error {
	s := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(v), "IB"), "B")
	mult := int64(1)
	if s != "" {
		switch s[len(s)-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		}
		if mult > 1 {
			s = s[:len(s)-1]
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("%q is not a size (examples: 1024, 256KiB, 5MiB)", v)
	}
	*dst = n * mult
	return nil
}

func setDuration(dst *time.Duration, v string) error {
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return fmt.Errorf("%q is not a duration (examples: 15s, 2m, 24h)", v)
	}
	*dst = d
	return nil
}

func runQuota(ctx context.Context, a *app, args []string) error {
	v := verbs["quota"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 {
		return usagef("takes a workspace name")
	}
	name, err := parseWorkspace(fs.Arg(0))
	if err != nil {
		return err
	}
	rest := fs.Args()[1:]
	if len(rest) > 0 && rest[0] != "set" {
		return usagef("unknown action %q: use 'set KEY=VALUE ...'", rest[0])
	}
	if len(rest) == 1 {
		return usagef("set needs KEY=VALUE pairs; keys: %s", quotaKeyList())
	}
	db, done, err := g.openHistory(ctx, len(rest) == 0)
	if err != nil {
		return err
	}
	defer done()
	ws, err := db.Get(ctx, name)
	if err != nil {
		return err
	}
	if len(rest) > 1 {
		q, r := ws.Quotas, ws.Retention
		for _, kv := range rest[1:] {
			key, val, ok := strings.Cut(kv, "=")
			if !ok {
				return usagef("%q is not KEY=VALUE; keys: %s", kv, quotaKeyList())
			}
			found := false
			for _, qk := range quotaKeys {
				if qk.key == key {
					found = true
					if err := qk.set(&q, &r, val); err != nil {
						return usagef("%s: %v", key, err)
					}
				}
			}
			if !found {
				return usagef("unknown key %q; keys: %s", key, quotaKeyList())
			}
		}
		if ws, err = db.Update(ctx, name, meta.WorkspaceUpdate{Quotas: &q, Retention: &r}); err != nil {
			return err
		}
	}
	if *asJSON {
		return writeJSON(a.stdout, struct {
			Workspace string         `json:"workspace"`
			Quotas    meta.Quotas    `json:"quotas"`
			Retention meta.Retention `json:"retention"`
			Usage     meta.Stats     `json:"usage"`
		}{ws.Name, ws.Quotas, ws.Retention, ws.Usage})
	}
	tw := newTable(a.stdout)
	fmt.Fprintf(tw, "KEY\tVALUE\tMEANING\n")
	for _, qk := range quotaKeys {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", qk.key, qk.get(&ws.Quotas, &ws.Retention), qk.help)
	}
	tw.Flush()
	fmt.Fprintf(a.stdout, "usage: %d entries (%d files, %d dirs, %d symlinks), %s\n",
		ws.Usage.Files+ws.Usage.Dirs+ws.Usage.Symlinks+1, ws.Usage.Files, ws.Usage.Dirs, ws.Usage.Symlinks, humanBytes(ws.Usage.Bytes))
	return nil
}

func quotaKeyList() string {
	keys := make([]string, len(quotaKeys))
	for i, qk := range quotaKeys {
		keys[i] = qk.key
	}
	return strings.Join(keys, ", ")
}

func runPut(ctx context.Context, a *app, args []string) error {
	v := verbs["put"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	force := fs.Bool("force", false, "replace an existing file")
	mode := fs.String("mode", "0644", "the file's permission bits, octal")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usagef("takes a workspace and a path; the content comes on stdin")
	}
	name, err := parseWorkspace(fs.Arg(0))
	if err != nil {
		return err
	}
	m, err := strconv.ParseUint(*mode, 8, 32)
	if err != nil || m > 0o7777 {
		return usagef("--mode %q is not an octal mode such as 0644", *mode)
	}
	content, err := io.ReadAll(a.stdin)
	if err != nil {
		return fmt.Errorf("reading stdin: %w", err)
	}
	db, done, err := g.openHistory(ctx, false)
	if err != nil {
		return err
	}
	defer done()
	rev, committed, err := db.WriteFile(ctx, name, fs.Arg(1), bytes.NewReader(content), meta.WriteFileOptions{
		Force: *force, Mode: os.FileMode(m), CommitInfo: cmdInfo(append([]string{"put"}, args...))})
	if err != nil {
		return err
	}
	return printCommit(a, *asJSON, rev, committed, fmt.Sprintf("wrote %s:%s", name, fs.Arg(1)))
}

func runExport(ctx context.Context, a *app, args []string) error {
	v := verbs["export"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	out := fs.String("o", "-", "write the tar to this file instead of stdout")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("takes one revision, TENANT/NAME[@REV]")
	}
	ref, err := parseRef(fs.Arg(0))
	if err != nil {
		return err
	}
	db, done, err := g.openHistory(ctx, true)
	if err != nil {
		return err
	}
	defer done()
	if *out == "-" {
		return db.ExportTar(ctx, ref, a.stdout)
	}
	// Write beside the target and rename, so a failed export leaves no
	// half-written tar under the name asked for.
	tmp := *out + ".partial"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := db.ExportTar(ctx, ref, f); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, *out)
}

func runImport(ctx context.Context, a *app, args []string) error {
	v := verbs["import"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	under := fs.String("under", "", "put the tar's entries below this folder of the workspace")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usagef("takes a workspace and a tar file (- for stdin)")
	}
	name, err := parseWorkspace(fs.Arg(0))
	if err != nil {
		return err
	}
	var r io.Reader = a.stdin
	if fs.Arg(1) != "-" {
		f, err := os.Open(fs.Arg(1))
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	db, done, err := g.openHistory(ctx, false)
	if err != nil {
		return err
	}
	defer done()
	rev, committed, err := db.ImportTar(ctx, name, r, meta.ImportOptions{Under: *under, CommitInfo: cmdInfo(append([]string{"import"}, args...))})
	if err != nil {
		return err
	}
	return printCommit(a, *asJSON, rev, committed, fmt.Sprintf("imported %s into %s", fs.Arg(1), name))
}
