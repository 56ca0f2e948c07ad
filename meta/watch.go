package meta

import (
	"context"
	"encoding/json"

	"github.com/wsfs/wsfs/meta/kv"
)

// An engine that other servers write to (etcd) tells each DB of their
// changes: the first Subscribe starts a watch of the workspace records,
// and every change seen there is emitted as an event, so that a mount
// follows a commit, restore, settings change or delete made on another
// server as it follows its own (within the watch's delay: tens of
// milliseconds). A DB's own changes come through the watch too: it
// reported them as it made them, so it tags the workspace records it
// writes with its instance and remembers the incarnations it deletes, and
// its watch skips those.

// watchWorkspaces starts the watch once, if the engine has one; changes
// committed after it returns are all seen.
func (db *DB) watchWorkspaces() {
	w, ok := db.eng.(kv.Watcher)
	if !ok {
		return
	}
	db.watch.once.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		done, err := w.Watch(ctx, bucketWorkspaces, func(c *kv.Change) { db.onRecordChange(ctx, c) })
		if err != nil {
			cancel()
			db.log.Warn("meta: cannot watch the workspace records; changes made by other servers are not followed", "engine", db.where, "err", err)
			return
		}
		db.watch.stop, db.watch.done = cancel, done
	})
}

// stopWatch ends the watch (Close).
func (db *DB) stopWatch() {
	db.watch.once.Do(func() {}) // no watch starts after Close
	if db.watch.stop != nil {
		db.watch.stop()
		<-db.watch.done
	}
}

// onRecordChange turns one change of a workspace record into an event.
func (db *DB) onRecordChange(ctx context.Context, c *kv.Change) {
	if c == nil {
		// Changes were missed: tell every subscriber every head.
		all, err := db.List(ctx, "")
		if err != nil {
			db.log.Warn("meta: cannot read the workspaces again after the watch lost changes", "err", err)
			return
		}
		for _, w := range all {
			db.emit(EventCommit, w)
		}
		return
	}
	var prev *Workspace
	if c.Prev != nil {
		var p Workspace
		if json.Unmarshal(c.Prev, &p) == nil {
			prev = &p
		}
	}
	if c.Value == nil {
		if prev == nil || db.isDeleting(prev.ID) {
			return
		}
		// A delete seen late must not drop a workspace re-created since.
		if now, err := db.Get(ctx, prev.Name); err == nil && now.ID != prev.ID {
			return
		}
		db.emit(EventDelete, *prev)
		return
	}
	var w Workspace
	var tag struct {
		Writer string `json:"writer"`
	}
	if err := json.Unmarshal(c.Value, &w); err != nil || json.Unmarshal(c.Value, &tag) != nil {
		db.log.Warn("meta: a workspace record changed by another server does not decode", "name", string(c.Key), "err", err)
		return
	}
	if tag.Writer != "" && tag.Writer == db.instance {
		return // this DB's own change, reported as it was made
	}
	switch {
	case prev == nil || prev.ID != w.ID:
		db.emit(EventCreate, w)
	case prev.Head != w.Head:
		db.emit(EventCommit, w)
	default:
		db.emit(EventUpdate, w)
	}
}

// deleting marks (or unmarks, after a failure) an incarnation this DB is
// deleting, so that its watch does not report the delete a second time.
func (db *DB) deleting(id string, on bool) {
	if db.instance == "" {
		return
	}
	db.watch.mu.Lock()
	defer db.watch.mu.Unlock()
	if db.watch.deletes == nil {
		db.watch.deletes = map[string]bool{}
	}
	if on {
		db.watch.deletes[id] = true
	} else {
		delete(db.watch.deletes, id)
	}
}

func (db *DB) isDeleting(id string) bool {
	db.watch.mu.Lock()
	defer db.watch.mu.Unlock()
	return db.watch.deletes[id]
}
