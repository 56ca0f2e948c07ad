package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/wsfs/wsfs/api"
)

func init() {
	register(&verb{name: "logs", args: "[-f] TENANT/NAME", summary: "print the output of a workspace's running (or last) command; -f follows it and the next ones", run: runLogs})
	register(&verb{name: "ps", args: "[--json]", summary: "list the running and queued commands of every workspace", run: runPS})
}

// dialServer connects to the running server; logs and ps have nothing to
// show without one.
func dialServer(ctx context.Context, g *globalFlags) (*api.Client, error) {
	home, err := g.homeDir()
	if err != nil {
		return nil, err
	}
	c, err := api.Dial(ctx, home)
	if errors.Is(err, api.ErrNoServer) {
		return nil, fmt.Errorf("no wsfs server runs for %s, so no command runs (start one with wsfs mount DIR): %w", home, err)
	}
	return c, err
}

func runLogs(ctx context.Context, a *app, args []string) error {
	v := verbs["logs"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	follow := fs.Bool("f", false, "follow: keep printing the output of the running command and the next ones")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("takes one workspace")
	}
	name, err := parseWorkspace(fs.Arg(0))
	if err != nil {
		return err
	}
	c, err := dialServer(ctx, &g)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.RunLogs(ctx, name, *follow, func(ev api.RunEvent) error {
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
	})
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
	c, err := dialServer(ctx, &g)
	if err != nil {
		return err
	}
	defer c.Close()
	qs, err := c.RunPS(ctx)
	if err != nil {
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
