package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wsfs/wsfs/meta"
)

func init() {
	register(&verb{name: "key", args: "create --tenant T [--workspace T/N] --scope read|run|admin [--expires D] [--name TEXT] [--rate N] [--max-runs N] | ls [--tenant T] | revoke ID",
		summary: "make, list and revoke the API keys of wsfs serve (a key's secret is printed once, when it is made)", run: runKey})
}

// keyStore is where keys are made and revoked: the server (over its
// socket, or the network with an admin key), or meta.db itself when no
// server runs.
type keyStore interface {
	CreateKey(ctx context.Context, spec meta.KeySpec) (meta.Key, string, error)
	Keys(ctx context.Context, tenant string) ([]meta.Key, error)
	RevokeKey(ctx context.Context, id string) (meta.Key, error)
}

func runKey(ctx context.Context, a *app, args []string) error {
	v := verbs["key"]
	if len(args) == 0 {
		return usagef("takes create, ls or revoke")
	}
	switch args[0] {
	case "create":
		return runKeyCreate(ctx, a, v, args[1:])
	case "ls", "list":
		return runKeyLs(ctx, a, v, args[1:])
	case "revoke", "rm":
		return runKeyRevoke(ctx, a, v, args[1:])
	case "-h", "--help", "help":
		return parse(a, v, newFlags(a, v, nil), []string{"--help"})
	}
	return usagef("unknown action %q: use create, ls or revoke", args[0])
}

func openKeys(ctx context.Context, g *globalFlags, readOnly bool) (keyStore, func(), error) {
	h, done, err := g.openHistory(ctx, readOnly)
	if err != nil {
		return nil, nil, err
	}
	ks, ok := h.(keyStore)
	if !ok {
		done()
		return nil, nil, fmt.Errorf("keys cannot be managed through %T", h)
	}
	return ks, done, nil
}

func runKeyCreate(ctx context.Context, a *app, v *verb, args []string) error {
	var g globalFlags
	fs := newFlags(a, v, &g)
	tenant := fs.String("tenant", "", "the tenant the key sees (required)")
	workspace := fs.String("workspace", "", "confine the key to one workspace of its tenant (TENANT/NAME)")
	scope := fs.String("scope", "", "read (read only), run (also run commands and change files) or admin (also create, delete, quotas, keys, gc, fsck)")
	expires := fs.String("expires", "", "the key stops working after this long (90d, 12h, 1w) or at this time (2026-12-31, RFC 3339); default never")
	name := fs.String("name", "", "a label for wsfs key ls (who or what holds the key)")
	rate := fs.Float64("rate", 0, "requests a second for this key (0: the server's --rate)")
	maxRuns := fs.Int("max-runs", 0, "commands this key may have queued or running at once (0: the server's --max-runs)")
	asJSON := fs.Bool("json", false, "print the key and its secret as JSON")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("create takes flags only")
	}
	if *tenant == "" {
		return usagef("--tenant is required (the tenant whose workspaces the key sees)")
	}
	if *scope == "" {
		return usagef("--scope is required: read, run or admin")
	}
	sc, err := meta.ParseKeyScope(*scope)
	if err != nil {
		return usagef("--scope %q: want read, run or admin", *scope)
	}
	if *rate < 0 || *maxRuns < 0 {
		return usagef("--rate and --max-runs must be 0 (the server's) or more")
	}
	spec := meta.KeySpec{Name: *name, Tenant: *tenant, Workspace: *workspace, Scope: sc, CreatedBy: author(), Rate: *rate, MaxRuns: *maxRuns}
	if *expires != "" {
		if spec.Expires, err = parseExpiry(*expires, time.Now()); err != nil {
			return err
		}
	}
	ks, done, err := openKeys(ctx, &g, false)
	if err != nil {
		return err
	}
	defer done()
	k, secret, err := ks.CreateKey(ctx, spec)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.stdout, struct {
			meta.Key
			Secret string `json:"secret"`
		}{k, secret})
	}
	// The secret alone on stdout, so that WSFS_KEY=$(wsfs key create ...)
	// works; the rest on stderr.
	fmt.Fprintf(a.stderr, "made key %s: tenant %s%s, scope %s, %s; the secret below is shown this once (wsfs keeps its hash only)\n",
		k.ID, k.Tenant, onWorkspace(k), k.Scope, expiryText(k))
	fmt.Fprintln(a.stdout, secret)
	return nil
}

func onWorkspace(k meta.Key) string {
	if k.Workspace == "" {
		return ""
	}
	return ", workspace " + k.Workspace
}

func expiryText(k meta.Key) string {
	if k.Expires.IsZero() {
		return "never expires"
	}
	return "expires " + shortTime(k.Expires)
}

// parseExpiry reads --expires: a duration from now (Go's, or with a d or
// w suffix for days and weeks) or a time.
func parseExpiry(s string, now time.Time) (time.Time, error) {
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			if f, err := strconv.ParseFloat(n, 64); err == nil && f > 0 && f < 100*365 {
				return now.Add(time.Duration(f * float64(unit))), nil
			}
		}
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d <= 0 {
			return time.Time{}, usagef("--expires %s: a duration from now must be positive", s)
		}
		return now.Add(d), nil
	}
	if t, ok := parseLocalTime(s); ok {
		if !t.After(now) {
			return time.Time{}, usagef("--expires %s is past", s)
		}
		return t, nil
	}
	return time.Time{}, usagef("--expires %q is neither a duration (90d, 12h, 1w) nor a time (2026-12-31, 2026-12-31T18:00:00Z)", s)
}

func runKeyLs(ctx context.Context, a *app, v *verb, args []string) error {
	var g globalFlags
	fs := newFlags(a, v, &g)
	tenant := fs.String("tenant", "", "only this tenant's keys")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("ls takes flags only")
	}
	ks, done, err := openKeys(ctx, &g, true)
	if err != nil {
		return err
	}
	defer done()
	keys, err := ks.Keys(ctx, *tenant)
	if err != nil {
		return err
	}
	if *asJSON {
		if keys == nil {
			keys = []meta.Key{}
		}
		return writeJSON(a.stdout, keys)
	}
	tw := newTable(a.stdout)
	fmt.Fprintln(tw, "ID\tTENANT\tWORKSPACE\tSCOPE\tSTATE\tCREATED\tEXPIRES\tNAME")
	now := time.Now()
	for _, k := range keys {
		state := "active"
		switch {
		case !k.Revoked.IsZero():
			state = "revoked " + shortTime(k.Revoked)
		case !k.Expires.IsZero() && !now.Before(k.Expires):
			state = "expired"
		}
		ws, exp := k.Workspace, shortTime(k.Expires)
		if ws == "" {
			ws = "*"
		}
		if k.Expires.IsZero() {
			exp = "never"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Tenant, ws, k.Scope, state, shortTime(k.Created), exp, k.Name)
	}
	return tw.Flush()
}

func runKeyRevoke(ctx context.Context, a *app, v *verb, args []string) error {
	var g globalFlags
	fs := newFlags(a, v, &g)
	asJSON := fs.Bool("json", false, "print the revoked key as JSON")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("revoke takes one key ID (wsfs key ls lists them)")
	}
	ks, done, err := openKeys(ctx, &g, false)
	if err != nil {
		return err
	}
	defer done()
	k, err := ks.RevokeKey(ctx, fs.Arg(0))
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.stdout, k)
	}
	fmt.Fprintf(a.stdout, "revoked key %s (tenant %s%s); it is refused from now on\n", k.ID, k.Tenant, onWorkspace(k))
	return nil
}
