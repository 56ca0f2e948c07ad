// Package boltkv is the bbolt engine of meta (kv.Engine): one file on one
// machine, one writer at a time (the file lock), transactions that are
// serializable because bbolt runs one write transaction at a time. It is
// the only wsfs package that imports bbolt.
//
// A bucket path is a path of nested bbolt buckets, so a meta.db written
// before engines existed reads as it is. Pages bbolt finds damaged (a
// panic inside bbolt, or SIGBUS on a truncated mmap) are reported as
// kv.ErrCorrupt rather than crashing the process.
package boltkv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/wsfs/wsfs/meta/kv"
)

// Options tune Open.
type Options struct {
	// LockTimeout is how long Open waits for the file lock; then it fails
	// with kv.ErrLocked.
	LockTimeout time.Duration
	// ReadOnly takes a shared lock: several readers, no writer.
	ReadOnly bool
	// NoSync skips fsync on commit (tests and benchmarks only).
	NoSync bool
}

// Engine is a bbolt file as a kv.Engine.
type Engine struct {
	path string
	db   *bolt.DB
	ro   bool
}

var (
	_ kv.Engine  = (*Engine)(nil)
	_ kv.Checker = (*Engine)(nil)
)

// Open opens (creating if needed) the bbolt file at path. Errors wrap
// kv.ErrLocked (another process holds it) or kv.ErrCorrupt (not a bbolt
// file, or damaged); a damaged file is never rewritten.
func Open(path string, opts Options) (*Engine, error) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > 0 && fi.Size() < 4096*2 && !opts.ReadOnly {
		// bbolt would treat a file shorter than its two meta pages as new
		// and initialise it in place; that is a damaged file, not a new
		// one, and must be left alone.
		return nil, fmt.Errorf("%w: the file has only %d bytes", kv.ErrCorrupt, fi.Size())
	}
	db, err := openBolt(path, opts)
	if err != nil {
		return nil, err
	}
	return &Engine{path: path, db: db, ro: opts.ReadOnly}, nil
}

func openBolt(path string, opts Options) (bdb *bolt.DB, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			bdb, err = nil, fmt.Errorf("%w: bbolt failed reading it: %v", kv.ErrCorrupt, r)
		}
	}()
	bdb, err = bolt.Open(path, 0o600, &bolt.Options{
		Timeout:  opts.LockTimeout,
		ReadOnly: opts.ReadOnly,
		NoSync:   opts.NoSync,
	})
	switch {
	case err == nil:
		return bdb, nil
	case errors.Is(err, berrors.ErrTimeout):
		return nil, kv.ErrLocked
	case errors.Is(err, os.ErrPermission) || errors.Is(err, os.ErrNotExist):
		return nil, err
	default:
		// bbolt reports most damage (short files, bad page ids, a bad
		// magic or checksum) with errors of its own; every failure to read
		// the file is damage, so that the caller names the next step.
		return nil, fmt.Errorf("%w: %v", kv.ErrCorrupt, err)
	}
}

// Path returns the file's path.
func (e *Engine) Path() string { return e.path }

// String implements kv.Engine.
func (e *Engine) String() string { return "meta.db at " + e.path }

// Limits implements kv.Engine: bbolt bounds nothing but the disk.
func (e *Engine) Limits() kv.Limits { return kv.Limits{} }

// Close implements kv.Engine.
func (e *Engine) Close() error { return e.db.Close() }

// guard turns a panic or a fault inside bbolt into kv.ErrCorrupt.
func guard(fn func() error) (err error) {
	// A page past the end of a truncated file faults (SIGBUS) in the
	// mmap; make that a panic we can turn into an error.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: bbolt failed reading it: %v", kv.ErrCorrupt, r)
		}
	}()
	return fn()
}

// View implements kv.Engine.
func (e *Engine) View(ctx context.Context, fn func(kv.Reader) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return guard(func() error { return e.db.View(func(tx *bolt.Tx) error { return fn(txn{tx}) }) })
}

// Update implements kv.Engine.
func (e *Engine) Update(ctx context.Context, fn func(kv.Txn) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if e.ro {
		return kv.ErrReadOnly
	}
	return guard(func() error { return e.db.Update(func(tx *bolt.Tx) error { return fn(txn{tx}) }) })
}

// Empty implements kv.Engine: a file with no bucket at all.
func (e *Engine) Empty(ctx context.Context) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	empty := true
	err := guard(func() error {
		return e.db.View(func(tx *bolt.Tx) error {
			return tx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return errStop })
		})
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return empty, err
}

var errStop = errors.New("stop")

// Check implements kv.Checker: bbolt's walk over every page.
func (e *Engine) Check(ctx context.Context) []string {
	var problems []string
	err := guard(func() error {
		return e.db.View(func(tx *bolt.Tx) error {
			// Drain the channel fully: the checker reads pages until done.
			for err := range tx.Check() {
				if len(problems) < 100 {
					problems = append(problems, err.Error())
				}
			}
			return nil
		})
	})
	if err != nil {
		problems = append(problems, err.Error())
	}
	return problems
}

type txn struct{ tx *bolt.Tx }

// bucket returns the bucket at path b, or nil if it does not exist.
func (t txn) bucket(b kv.Bucket) (*bolt.Bucket, error) {
	if !b.Valid() {
		return nil, fmt.Errorf("kv: bad bucket path %q", b.String())
	}
	bk := t.tx.Bucket([]byte(b[0]))
	for _, name := range b[1:] {
		if bk == nil {
			return nil, nil
		}
		bk = bk.Bucket([]byte(name))
	}
	return bk, nil
}

func (t txn) Get(b kv.Bucket, key []byte) ([]byte, error) {
	bk, err := t.bucket(b)
	if bk == nil || err != nil {
		return nil, err
	}
	v := bk.Get(key)
	if v == nil && bk.Bucket(key) != nil {
		return nil, nil
	}
	if v == nil {
		return nil, nil
	}
	if len(v) == 0 {
		return []byte{}, nil
	}
	return v, nil
}

func (t txn) Scan(b kv.Bucket, opts kv.ScanOptions, fn func(k, v []byte) error) error {
	bk, err := t.bucket(b)
	if bk == nil || err != nil {
		return err
	}
	c := bk.Cursor()
	n := 0
	visit := func(k, v []byte) (bool, error) {
		if v == nil { // a nested bucket
			return true, nil
		}
		if err := fn(k, v); err != nil {
			if errors.Is(err, kv.ErrStop) {
				return false, nil
			}
			return false, err
		}
		n++
		return opts.Limit == 0 || n < opts.Limit, nil
	}
	if !opts.Reverse {
		k, v := c.First()
		if opts.From != nil {
			k, v = c.Seek(opts.From)
		}
		for ; k != nil && (opts.To == nil || bytes.Compare(k, opts.To) < 0); k, v = c.Next() {
			if more, err := visit(k, v); !more || err != nil {
				return err
			}
		}
		return nil
	}
	var k, v []byte
	if opts.To != nil {
		k, _ = c.Seek(opts.To)
	}
	if k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	for ; k != nil && (opts.From == nil || bytes.Compare(k, opts.From) >= 0); k, v = c.Prev() {
		if more, err := visit(k, v); !more || err != nil {
			return err
		}
	}
	return nil
}

// create returns the bucket at path b, creating what is missing.
func (t txn) create(b kv.Bucket) (*bolt.Bucket, error) {
	if !b.Valid() {
		return nil, fmt.Errorf("kv: bad bucket path %q", b.String())
	}
	bk, err := t.tx.CreateBucketIfNotExists([]byte(b[0]))
	for _, name := range b[1:] {
		if err != nil {
			break
		}
		bk, err = bk.CreateBucketIfNotExists([]byte(name))
	}
	return bk, err
}

func (t txn) Put(b kv.Bucket, key, value []byte) error {
	bk, err := t.create(b)
	if err != nil {
		return err
	}
	if value == nil {
		value = []byte{}
	}
	return bk.Put(key, value)
}

func (t txn) Delete(b kv.Bucket, key []byte) error {
	bk, err := t.bucket(b)
	if bk == nil || err != nil {
		return err
	}
	return bk.Delete(key)
}

func (t txn) DeleteRange(b kv.Bucket, from, to []byte) error {
	if from == nil && to == nil {
		if !b.Valid() {
			return fmt.Errorf("kv: bad bucket path %q", b.String())
		}
		if len(b) == 1 {
			if t.tx.Bucket([]byte(b[0])) == nil {
				return nil
			}
			return t.tx.DeleteBucket([]byte(b[0]))
		}
		parent, err := t.bucket(b[:len(b)-1])
		if parent == nil || err != nil {
			return err
		}
		if parent.Bucket([]byte(b[len(b)-1])) == nil {
			return nil
		}
		return parent.DeleteBucket([]byte(b[len(b)-1]))
	}
	bk, err := t.bucket(b)
	if bk == nil || err != nil {
		return err
	}
	// Deleting under a bbolt cursor can skip keys: collect them first.
	var keys [][]byte
	c := bk.Cursor()
	k, v := c.First()
	if from != nil {
		k, v = c.Seek(from)
	}
	for ; k != nil && (to == nil || bytes.Compare(k, to) < 0); k, v = c.Next() {
		if v != nil {
			keys = append(keys, append([]byte(nil), k...))
		}
	}
	for _, k := range keys {
		if err := bk.Delete(k); err != nil {
			return err
		}
	}
	return nil
}
