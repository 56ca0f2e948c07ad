package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/wsfs/wsfs/fusefs"
	"github.com/wsfs/wsfs/internal/home"
	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/runsvc"
)

// mountOthers mounts, privately under home h, every workspace but one
// (which a mount of its own serves): a server that mounts one workspace
// for people still runs commands in all of them.
func mountOthers(ctx context.Context, h string, db *meta.DB, except string, quiet time.Duration, log *slog.Logger) (*fusefs.FS, error) {
	p := home.Of(h)
	if err := os.MkdirAll(p.SharedMount(), 0o700); err != nil {
		return nil, fmt.Errorf("the private mount point for the other workspaces: %w", err)
	}
	return fusefs.Mount(ctx, p.SharedMount(), fusefs.Options{DB: db, SpoolDir: p.OthersSpool(), QuietPeriod: quiet,
		Except: except, Logger: log})
}

// oneAndOthers is the run service's mount when one workspace has a mount
// of its own and the others share another.
type oneAndOthers struct {
	name        string
	one, others *fusefs.FS
}

var _ runsvc.Mount = oneAndOthers{}

func (m oneAndOthers) of(ws string) *fusefs.FS {
	if ws == m.name {
		return m.one
	}
	return m.others
}

func (m oneAndOthers) Hold(ws string) func() { return m.of(ws).Hold(ws) }
func (m oneAndOthers) Flush(ctx context.Context, ws string) error {
	return m.of(ws).Flush(ctx, ws)
}
func (m oneAndOthers) Snapshot(ctx context.Context, ws string, base meta.RevNum, cwd string, info meta.CommitInfo) (meta.Revision, bool, error) {
	return m.of(ws).Snapshot(ctx, ws, base, cwd, info)
}
func (m oneAndOthers) WorkspaceDir(ws string) (string, error) { return m.of(ws).WorkspaceDir(ws) }
func (m oneAndOthers) Refusals(ws string) []*meta.QuotaError  { return m.of(ws).Refusals(ws) }

// unmountBoth unmounts the private mount, then the workspace's own.
func (m oneAndOthers) unmountBoth(ctx context.Context) error {
	return errors.Join(m.one.Unmount(ctx), m.others.Unmount(ctx))
}
