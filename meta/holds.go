package meta

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/wsfs/wsfs/meta/kv"
	"github.com/wsfs/wsfs/objects"
)

// Holds across servers. On one server the gc guard (cache.go) keeps gc
// from deleting an object a commit is about to use without storing it
// again (it is already stored, perhaps as garbage). Servers that share an
// engine see each other's commits only through it, so there a commit
// also holds, in the engine, every object it uses without storing it:
//
//	holds/<32-byte digest><instance> -> the gc epoch when it was placed
//	meta/gc-epoch                    -> uint64, raised by every gc
//
// A commit places its holds (reading the epoch) before it checks the
// object index once more: either a gc's transaction that drops an object
// from the index sees the hold and keeps the object, or the commit sees
// the object gone from the index and stores it again. When the commit is
// over it removes its holds in a transaction that applies only if no gc
// started meanwhile (the epoch is unchanged); otherwise the holds stay,
// for that gc, which marked before the commit landed, and a later gc
// removes them: each gc raises the epoch when it starts and, when it ends,
// removes the holds placed before the previous gc started (their commits
// have had a whole gc to land, and the gcs after them see their
// revisions).
var (
	bucketHolds = kv.B("holds")
	keyGCEpoch  = []byte("gc-epoch")
)

// errHeld stops gc from deleting an object a commit on some server holds.
var errHeld = errors.New("meta: held by a commit")

// sharedHolds reports whether this DB's engine is shared with other
// servers, so that holds go in the engine.
func (db *DB) sharedHolds() bool { return db.instance != "" }

func holdKey(d objects.Digest, instance string) []byte {
	return append(append([]byte(nil), d[:]...), instance...)
}

func readEpoch(tx kv.Reader) (uint64, error) {
	v, err := tx.Get(bucketMeta, keyGCEpoch)
	if err != nil || v == nil {
		return 0, err
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("the gc epoch record has %d bytes, want 8", len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}

// placeHolds holds ds for this DB in the engine and returns the epoch they
// were placed in.
func (db *DB) placeHolds(ctx context.Context, ds []objects.Digest) (uint64, error) {
	var epoch uint64
	step := len(ds)
	if lim := db.eng.Limits(); lim.Ops > 0 {
		step = max(1, lim.Ops-2)
	}
	for i := 0; i < len(ds); i += step {
		part := ds[i:min(i+step, len(ds))]
		err := db.update(ctx, func(tx kv.Txn) error {
			e, err := readEpoch(tx)
			if err != nil {
				return err
			}
			if i == 0 {
				epoch = e
			}
			for _, d := range part {
				if err := tx.Put(bucketHolds, holdKey(d, db.instance), u64(epoch)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return 0, fmt.Errorf("holding the objects the commit reuses: %w", err)
		}
	}
	return epoch, nil
}

// dropHolds removes this DB's holds on ds if no gc started since they
// were placed in epoch.
func (db *DB) dropHolds(ctx context.Context, ds []objects.Digest, epoch uint64) {
	step := len(ds)
	if lim := db.eng.Limits(); lim.Ops > 0 {
		step = max(1, lim.Ops-2)
	}
	for i := 0; i < len(ds); i += step {
		part := ds[i:min(i+step, len(ds))]
		err := db.update(context.WithoutCancel(ctx), func(tx kv.Txn) error {
			if e, err := readEpoch(tx); err != nil || e != epoch {
				return err // a gc started: it keeps them, a later one drops them
			}
			for _, d := range part {
				if err := tx.Delete(bucketHolds, holdKey(d, db.instance)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			db.log.Warn("meta: could not remove the holds of a commit; a later gc removes them", "err", err)
			return
		}
	}
}

// held reports, inside gc's transaction, whether any server holds d (the
// scan makes the transaction depend on no hold appearing meanwhile).
func held(tx kv.Reader, d objects.Digest) (bool, error) {
	found := false
	err := tx.Scan(bucketHolds, kv.ScanOptions{From: d[:], To: prefixEnd(d[:]), Limit: 1}, func(k, v []byte) error {
		found = true
		return kv.ErrStop
	})
	return found, err
}

// startGCEpoch raises the gc epoch (a gc starts) and returns the new one.
func (db *DB) startGCEpoch(ctx context.Context) (uint64, error) {
	var epoch uint64
	err := db.update(ctx, func(tx kv.Txn) error {
		e, err := readEpoch(tx)
		if err != nil {
			return err
		}
		epoch = e + 1
		return tx.Put(bucketMeta, keyGCEpoch, u64(epoch))
	})
	return epoch, err
}

// endGCEpoch removes the holds placed before the gc before this one
// started (epoch is this gc's).
func (db *DB) endGCEpoch(ctx context.Context, epoch uint64) {
	if epoch < 2 {
		return
	}
	var old [][]byte
	err := db.view(ctx, func(tx kv.Reader) error {
		old = old[:0]
		return tx.Scan(bucketHolds, kv.ScanOptions{}, func(k, v []byte) error {
			if len(v) == 8 && binary.BigEndian.Uint64(v) < epoch-1 {
				old = append(old, append([]byte(nil), k...))
			}
			return nil
		})
	})
	w := &chunkWriter{ctx: ctx, eng: db.eng, lim: db.eng.Limits()}
	for _, k := range old {
		if err != nil {
			break
		}
		err = w.del(bucketHolds, k)
	}
	if err == nil {
		err = w.flush()
	}
	if err != nil {
		db.log.Warn("meta: gc could not remove old holds; the next gc does", "err", err)
	}
}
