package meta

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"time"

	"github.com/wsfs/wsfs/meta/kv"
	"github.com/wsfs/wsfs/meta/kv/boltkv"
	"github.com/wsfs/wsfs/objects"
)

// CopyReport says what CopyRecords copied.
type CopyReport struct {
	From       string `json:"from"`
	To         string `json:"to"`
	Workspaces int    `json:"workspaces"`
	Records    int    `json:"records"`
	Bytes      int64  `json:"bytes"`
	// Digest is the SHA-256 of every record copied, in copy order, as read
	// back from both engines.
	Digest string `json:"digest"`
}

// CopyRecords copies every record of meta from engine src to engine dst
// (`wsfs meta copy`: meta.db to etcd and back), then reads both again and
// checks that they hold the same records. dst must be empty; src is read
// in one consistent view, so stop the servers that write to it first (a
// change made during the copy fails the check). The records go in
// transactions that dst's limits allow, the object index first and each
// workspace's record after its revisions and outputs, the schema record
// last: a copy cut short leaves no schema record, which Open refuses to
// serve, naming the engine (empty it and copy again).
func CopyRecords(ctx context.Context, src, dst kv.Engine) (*CopyReport, error) {
	rep := &CopyReport{From: src.String(), To: dst.String()}
	empty, err := dst.Empty(ctx)
	if err != nil {
		return nil, fmt.Errorf("meta: copy: %w", err)
	}
	if !empty {
		return nil, fmt.Errorf("meta: copy: %s already holds records: copy into an empty meta.db or etcd prefix (remove the file, or `etcdctl del --prefix` the prefix, after checking what it holds)", dst)
	}
	w := &chunkWriter{ctx: ctx, eng: dst, lim: dst.Limits()}
	srcSum := sha256.New()
	err = src.View(ctx, func(tx kv.Reader) error {
		v, err := readSchema(tx)
		if err != nil {
			return err
		}
		if v == 0 {
			return fmt.Errorf("%s holds no wsfs records (no schema record)", src)
		}
		if v != SchemaVersion {
			return fmt.Errorf("%s has schema version %d; open it with this wsfs once (which upgrades it to %d) before copying", src, v, SchemaVersion)
		}
		return walkRecords(tx, func(b kv.Bucket, k, v []byte) error {
			rep.Records++
			rep.Bytes += int64(len(k) + len(v))
			if isWorkspaceRecord(b) {
				rep.Workspaces++
			}
			sumRecord(srcSum, b, k, v)
			return w.put(b, k, v)
		})
	})
	if err == nil {
		err = w.flush()
	}
	if err != nil {
		return nil, fmt.Errorf("meta: copy from %s to %s: %w", src, dst, err)
	}
	// Verify: both sides again, record by record.
	dstSum := sha256.New()
	n := 0
	err = dst.View(ctx, func(tx kv.Reader) error {
		return walkRecords(tx, func(b kv.Bucket, k, v []byte) error {
			n++
			sumRecord(dstSum, b, k, v)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("meta: copy: reading %s back: %w", dst, err)
	}
	if n != rep.Records || string(srcSum.Sum(nil)) != string(dstSum.Sum(nil)) {
		return nil, fmt.Errorf("meta: copy: %s holds %d records after the copy, %d were read from %s, and they differ: was a server writing to %s? Stop it, empty %s and copy again", dst, n, rep.Records, src, src, dst)
	}
	again := sha256.New()
	err = src.View(ctx, func(tx kv.Reader) error {
		return walkRecords(tx, func(b kv.Bucket, k, v []byte) error { sumRecord(again, b, k, v); return nil })
	})
	if err != nil {
		return nil, fmt.Errorf("meta: copy: reading %s again: %w", src, err)
	}
	if string(again.Sum(nil)) != string(srcSum.Sum(nil)) {
		return nil, fmt.Errorf("meta: copy: %s changed during the copy (a server was writing to it): stop the servers, empty %s and copy again", src, dst)
	}
	rep.Digest = fmt.Sprintf("%x", srcSum.Sum(nil))
	return rep, nil
}

func isWorkspaceRecord(b kv.Bucket) bool { return len(b) == 1 && b[0] == bucketWorkspaces[0] }

func sumRecord(h hash.Hash, b kv.Bucket, k, v []byte) {
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00", b, len(k), len(v))
	h.Write(k)
	h.Write(v)
}

// walkRecords visits every record of meta's layout in copy order: the
// object index, tombstones, each workspace's revisions and outputs then
// its record, and the schema bucket last (its schema record at the very
// end).
func walkRecords(tx kv.Reader, fn func(b kv.Bucket, k, v []byte) error) error {
	all := func(b kv.Bucket) error {
		return tx.Scan(b, kv.ScanOptions{}, func(k, v []byte) error { return fn(b, k, v) })
	}
	for _, b := range []kv.Bucket{bucketPacks, bucketLoc, bucketTombstones} {
		if err := all(b); err != nil {
			return err
		}
	}
	err := tx.Scan(bucketWorkspaces, kv.ScanOptions{}, func(k, v []byte) error {
		var w Workspace
		if err := json.Unmarshal(v, &w); err != nil || w.ID == "" {
			return fmt.Errorf("workspace record %q does not decode: %v", k, err)
		}
		if err := all(revBucket(w.ID)); err != nil {
			return err
		}
		if err := all(outBucket(w.ID)); err != nil {
			return err
		}
		return fn(bucketWorkspaces, k, v)
	})
	if err != nil {
		return err
	}
	var schema []byte
	err = tx.Scan(bucketMeta, kv.ScanOptions{}, func(k, v []byte) error {
		if string(k) == string(keySchema) {
			schema = append([]byte(nil), v...)
			return nil
		}
		return fn(bucketMeta, k, v)
	})
	if err != nil || schema == nil {
		return err
	}
	return fn(bucketMeta, keySchema, schema)
}

// chunkWriter writes records in transactions that keep within an
// engine's limits.
type chunkWriter struct {
	ctx   context.Context
	eng   kv.Engine
	lim   kv.Limits
	recs  []record
	bytes int
}

type record struct {
	b    kv.Bucket
	k, v []byte // v nil: a delete
}

// del deletes k from b in a transaction of the writer.
func (w *chunkWriter) del(b kv.Bucket, k []byte) error {
	size := indexWriteOverhead + len(b.String()) + len(k)
	if len(w.recs) > 0 && !w.lim.Fits(len(w.recs)+1, w.bytes+size) {
		if err := w.flush(); err != nil {
			return err
		}
	}
	w.recs = append(w.recs, record{b, append([]byte(nil), k...), nil})
	w.bytes += size
	return nil
}

func (w *chunkWriter) put(b kv.Bucket, k, v []byte) error {
	size := indexWriteOverhead + len(b.String()) + len(k) + len(v)
	if len(w.recs) > 0 && !w.lim.Fits(len(w.recs)+1, w.bytes+size) {
		if err := w.flush(); err != nil {
			return err
		}
	}
	if !w.lim.Fits(1, size) {
		return fmt.Errorf("%w: a record of %d bytes in %s is larger than one transaction of %s takes", kv.ErrTooLarge, size, b, w.eng)
	}
	w.recs = append(w.recs, record{b, append([]byte(nil), k...), append([]byte{}, v...)})
	w.bytes += size
	return nil
}

func (w *chunkWriter) flush() error {
	if len(w.recs) == 0 {
		return nil
	}
	recs := w.recs
	w.recs, w.bytes = nil, 0
	err := w.eng.Update(w.ctx, func(tx kv.Txn) error {
		for _, r := range recs {
			var err error
			if r.v == nil {
				err = tx.Delete(r.b, r.k)
			} else {
				err = tx.Put(r.b, r.k, r.v)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, kv.ErrUncertain) {
		return fmt.Errorf("%w (the copy is incomplete)", err)
	}
	return err
}

// RecoverEngine is Recover into an engine other than a meta.db file (etcd):
// it rebuilds the records from the store into a temporary meta.db in
// tmpDir, then copies them into dst (CopyRecords, verified), which must be
// empty, and removes the temporary file.
func RecoverEngine(ctx context.Context, dst kv.Engine, store objects.Store, tmpDir string, opts RecoverOptions) (*RecoverReport, error) {
	empty, err := dst.Empty(ctx)
	if err != nil {
		return nil, fmt.Errorf("meta: recover: %w", err)
	}
	if !empty {
		return nil, fmt.Errorf("meta: recover: %s already holds records: recover into an empty etcd prefix (check what it holds, then `etcdctl del --prefix` it, or name another prefix)", dst)
	}
	dir, err := os.MkdirTemp(tmpDir, "recover-")
	if err != nil {
		return nil, fmt.Errorf("meta: recover: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, DBFileName)
	rep, err := Recover(ctx, path, store, opts)
	if err != nil {
		return nil, err
	}
	src, err := boltkv.Open(path, boltkv.Options{ReadOnly: true, LockTimeout: time.Second})
	if err != nil {
		return nil, fmt.Errorf("meta: recover: reopening %s: %w", path, err)
	}
	defer src.Close()
	if _, err := CopyRecords(ctx, src, dst); err != nil {
		return nil, fmt.Errorf("meta: recover: %w", err)
	}
	return rep, nil
}
