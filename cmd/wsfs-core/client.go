package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/wsfs/wsfs/api"
	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects/storeurl"
)

// openHistory returns the history API for a verb: the server's socket when
// $WSFS_HOME/server.json names a live server that answers (it holds meta.db,
// which bbolt lets one process open), else meta.db opened directly. done
// releases it.
//
// A meta.db held by another process is waited for, up to heldWait: a
// server that is starting (wsfs run starts one when none runs) answers
// soon, and another verb that opened meta.db directly lets it go.
func (g *globalFlags) openHistory(ctx context.Context, readOnly bool) (h api.History, done func(), err error) {
	home, err := g.homeDir()
	if err != nil {
		return nil, nil, err
	}
	deadline := time.Now().Add(heldWait)
	for {
		c, err := api.Dial(ctx, home)
		switch {
		case err == nil:
			if srv := c.Health().Store; g.store != "" && srv != "" && !sameStore(g.store, srv) {
				c.Close()
				return nil, nil, fmt.Errorf("the wsfs server (PID %d) serves the store %s, not %s; drop --store/WSFS_STORE, or use another --home for that store",
					c.Health().PID, srv, g.store)
			}
			return c, func() { c.Close() }, nil
		case errors.Is(err, api.ErrNoServer), errors.Is(err, api.ErrUnreachable):
			// No server (or one that died or does not answer): open meta.db.
		default:
			return nil, nil, err
		}
		db, closeDB, err := g.openDB(ctx, readOnly)
		if errors.Is(err, meta.ErrInUse) && time.Now().Before(deadline) && ctx.Err() == nil {
			continue // openDB waited a second for the lock: look again
		}
		if errors.Is(err, meta.ErrInUse) {
			return nil, nil, heldError(home, err)
		}
		if err != nil {
			return nil, nil, err
		}
		return db, closeDB, nil
	}
}

// heldWait bounds the wait for a meta.db that another process holds.
const heldWait = 30 * time.Second

// heldError explains a meta.db held by a process that does not answer on
// the socket.
func heldError(home string, err error) error {
	who := "another process"
	if b, rerr := os.ReadFile(meta.PIDFile(filepath.Join(home, meta.DBFileName))); rerr == nil {
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil {
			who = fmt.Sprintf("process %d", pid)
		}
	}
	return fmt.Errorf("%w\n%s holds meta.db but does not answer on the wsfs socket (%s): if it is a wsfs server still starting, retry in a moment; otherwise stop it (kill it, or wsfs umount DIR) and run the command again",
		err, who, api.SocketPath(home))
}

// sameStore reports whether two store URLs name the same store (their
// identities are equal), or are spelled the same.
func sameStore(a, b string) bool {
	if a == b {
		return true
	}
	ia, erra := storeurl.Identity(a)
	ib, errb := storeurl.Identity(b)
	return erra == nil && errb == nil && ia == ib
}
