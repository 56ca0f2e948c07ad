package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/wsfs/wsfs/api"
	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/runsvc"
)

func init() {
	register(&verb{name: "logs", args: "[-f] [-n N] [--since D|TIME] TENANT/NAME",
		summary: "print the output of a workspace's commands: the running (or last) one; -n the last N, --since those since; -f then follows", run: runLogs})
	register(&verb{name: "ps", args: "[--json]", summary: "list the running and queued commands of every workspace", run: runPS})
}

func runLogs(ctx context.Context, a *app, args []string) error {
	v := verbs["logs"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	follow := fs.Bool("f", false, "follow: print the running command's output from its start, then every later command's, until interrupted")
	last := fs.Int("n", 0, "the last N finished commands")
	since := fs.String("since", "", "the finished commands that started since D ago (10m, 2h) or since TIME (RFC 3339: 2026-12-01T15:00:00Z)")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("takes one workspace")
	}
	if *last < 0 {
		return usagef("-n must be 0 or more")
	}
	name, err := parseWorkspace(fs.Arg(0))
	if err != nil {
		return err
	}
	opts := runsvc.LogOptions{Last: *last, Follow: *follow}
	if *since != "" {
		if opts.Since, err = parseSince(*since); err != nil {
			return err
		}
	}
	print := func(ev runsvc.Event) error {
		switch {
		case ev.Start != "":
			fmt.Fprintf(a.stderr, "==> %s: %s\n", name, oneLine(ev.Start, 100))
		case ev.Stdout != nil:
			_, err := a.stdout.Write(ev.Stdout)
			return err
		case ev.Stderr != nil:
			_, err := a.stderr.Write(ev.Stderr)
			return err
		case ev.End != nil:
			fmt.Fprintf(a.stderr, "==> exit %d\n", *ev.End)
		case ev.Dropped:
			return errors.New("this follower fell too far behind and was cut off; run wsfs logs -f again")
		}
		return nil
	}
	h, done, err := g.openHistory(ctx, true)
	if err != nil {
		return err
	}
	defer done()
	switch h := h.(type) {
	case *api.Client:
		return h.RunLogs(ctx, name, opts, print)
	case *meta.DB:
		// No server: the outputs meta keeps (nothing runs to follow).
		return runsvc.StoredLogs(ctx, h, name, opts, print)
	}
	return fmt.Errorf("logs: no way to read the outputs of %s", name)
}

// parseLocalTime reads a time given on the command line: RFC 3339, or a
// date with an optional time of day in the local zone.
func parseLocalTime(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// parseSince reads --since: a duration before now, or a time.
func parseSince(s string) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, usagef("--since %s: a duration before now must be positive", s)
		}
		return time.Now().Add(-d), nil
	}
	if t, ok := parseLocalTime(s); ok {
		return t, nil
	}
	return time.Time{}, usagef("--since %q is neither a duration (10m, 2h) nor a time (2026-12-01T15:00:00Z, 2026-12-01 15:00:00, 2026-12-01)", s)
}

func runPS(ctx context.Context, a *app, args []string) error {
	v := verbs["ps"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("takes no arguments")
	}
	home, err := g.homeDir()
	if err != nil {
		return err
	}
	qs := []runsvc.Queue{}
	c, err := api.Dial(ctx, home)
	switch {
	case err == nil:
		defer c.Close()
		if qs, err = c.RunPS(ctx); err != nil {
			return err
		}
	case errors.Is(err, api.ErrNoServer):
		// No server: no command runs or waits.
	default:
		return err
	}
	if *asJSON {
		return writeJSON(a.stdout, qs)
	}
	tw := newTable(a.stdout)
	fmt.Fprintln(tw, "WORKSPACE\tSTATE\tFOR\tCOMMAND")
	for _, q := range qs {
		if q.Running != nil {
			fmt.Fprintf(tw, "%s\trunning\t%s\t%s\n", q.Workspace, time.Since(q.Running.Since).Round(time.Millisecond), oneLine(q.Running.Script, 60))
		}
		for i, w := range q.Waiting {
			fmt.Fprintf(tw, "%s\tqueued %d\t%s\t%s\n", q.Workspace, i+1, time.Since(w.Since).Round(time.Millisecond), oneLine(w.Script, 60))
		}
	}
	return tw.Flush()
}
