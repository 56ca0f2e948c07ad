package meta

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/wsfs/wsfs/meta/kv"
	"github.com/wsfs/wsfs/objects"
)

// A database belongs to one object store: its revisions name objects
// that only that store holds. The store's identity (Options.StoreID, its
// URL without the settings that do not change which objects it names) is
// recorded in the meta bucket when a database is first opened for
// writing, so that opening it with another store — a forgotten
// WSFS_STORE falls back to the home's folder — is refused with a message
// naming both, rather than reporting every object of every revision
// missing.
//
//	meta/
//	    "store" -> storeRecord (JSON)

var keyStore = []byte("store")

// storeRecord is the store a database belongs to.
type storeRecord struct {
	ID       string    `json:"id"`
	Recorded time.Time `json:"recorded"`
}

// ErrWrongStore reports a database opened with an object store other than
// the one it belongs to. The wrapping error names both and what to do.
var ErrWrongStore = errors.New("the database belongs to another object store")

// RecordedStore returns the identity of the store the database belongs
// to, "" when none is recorded yet.
func (db *DB) RecordedStore(ctx context.Context) (string, error) {
	rec, err := db.storeRecord(ctx)
	return rec.ID, err
}

func (db *DB) storeRecord(ctx context.Context) (storeRecord, error) {
	var rec storeRecord
	err := db.view(ctx, func(tx kv.Reader) error {
		v, err := tx.Get(bucketMeta, keyStore)
		if v == nil || err != nil {
			return err
		}
		if err := json.Unmarshal(v, &rec); err != nil {
			return corruptf(db.where, "store record: %v", err)
		}
		return nil
	})
	return rec, err
}

// checkStore compares Options.StoreID with the store the database
// records, and records it when none is (unless read-only). Another
// identity is accepted only when the store holds the database's objects
// (the same bucket reached by another endpoint, or a copy of it): the
// record then follows it.
func (db *DB) checkStore(ctx context.Context) error {
	id := db.opts.StoreID
	if id == "" {
		return nil
	}
	rec, err := db.storeRecord(ctx)
	if err != nil || rec.ID == id {
		return err
	}
	holds, err := db.holdsItsObjects(ctx)
	if err != nil {
		return fmt.Errorf("meta: checking that %s holds the objects of %s: %w", id, db.where, err)
	}
	if !holds {
		if rec.ID == "" {
			return &markedError{target: ErrWrongStore, msg: fmt.Sprintf(
				"the object store %s does not hold the revisions %s names: give the store this database was used with (--store or WSFS_STORE), or use another home (--home or WSFS_HOME) for %s",
				id, db.where, id)}
		}
		return &markedError{target: ErrWrongStore, msg: fmt.Sprintf(
			"%s belongs to the object store %s (recorded %s), not to %s, which does not hold its revisions: set --store or WSFS_STORE to %s, or use another home (--home or WSFS_HOME) for %s",
			db.where, rec.ID, rec.Recorded.Local().Format("2006-01-02 15:04"), id, rec.ID, id)}
	}
	if db.opts.ReadOnly {
		return nil
	}
	b, err := json.Marshal(storeRecord{ID: id, Recorded: db.now().UTC()})
	if err != nil {
		return err
	}
	return db.update(ctx, func(tx kv.Txn) error { return tx.Put(bucketMeta, keyStore, b) })
}

// holdsItsObjects reports whether the store holds the head tree of the
// first workspace (true when there is none: nothing would be lost).
func (db *DB) holdsItsObjects(ctx context.Context) (bool, error) {
	var root objects.Digest
	err := db.view(ctx, func(tx kv.Reader) error {
		return tx.Scan(bucketWorkspaces, kv.ScanOptions{Limit: 1}, func(k, v []byte) error {
			var w Workspace
			if err := json.Unmarshal(v, &w); err != nil {
				return corruptf(db.where, "workspace record %q: %v", k, err)
			}
			root = w.HeadRoot
			return nil
		})
	})
	if err != nil || root.IsZero() {
		return true, err
	}
	// Ask the store itself (the index would answer for it): for the
	// pack that holds the tree, or the tree's own blob.
	where := root
	if loc, ok, err := (locator{db}).Locate(ctx, root); err != nil {
		return false, err
	} else if ok && loc.InPack() {
		where = loc.Pack
	}
	_, err = db.raw.Stat(ctx, where)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, objects.ErrNotFound):
		return false, nil
	}
	return false, err
}

// Unused reports whether the database holds no workspace, live or
// deleted: a new one, which `wsfs recover` may replace.
func (db *DB) Unused(ctx context.Context) (bool, error) {
	unused := true
	err := db.view(ctx, func(tx kv.Reader) error {
		for _, b := range []kv.Bucket{bucketWorkspaces, bucketTombstones} {
			if err := tx.Scan(b, kv.ScanOptions{Limit: 1}, func(k, v []byte) error {
				unused = false
				return kv.ErrStop
			}); err != nil {
				return err
			}
		}
		return nil
	})
	return unused, err
}
