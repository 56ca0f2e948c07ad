package meta

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wsfs/wsfs/meta/kv"
	"github.com/wsfs/wsfs/meta/kv/boltkv"
	"github.com/wsfs/wsfs/objects"
)

// Options tune Open. The zero value is usable.
type Options struct {
	// LockTimeout is how long Open waits for another process to release the
	// database before it fails with ErrInUse. Default 1 s.
	LockTimeout time.Duration
	// ReadOnly opens the database without taking the write lock (shared
	// flock): several readers may coexist, but no writer.
	ReadOnly bool
	// NoSync skips fsync on commit. Only for tests and benchmarks: a crash
	// may then lose committed revisions.
	NoSync bool
	// UploadParallelism bounds concurrent blob uploads in a commit.
	// Default 8.
	UploadParallelism int
	// TreeCacheSize is the number of decoded trees kept in memory. Default 4096.
	TreeCacheSize int
	// Logger receives warnings (a failed clean-up after an error). Default slog.Default().
	Logger *slog.Logger
	// Now returns the current time; tests set it. Default time.Now.
	Now func() time.Time
	// StoreID is the identity of the object store (storeurl's Identity):
	// Open records it in a database that has none, and refuses with
	// ErrWrongStore a store of another identity that does not hold the
	// database's objects (storeid.go). Empty: no check.
	StoreID string
}

// DB is an open metadata engine (meta.db, or etcd) together with the
// object store its trees, manifests and blobs live in. It is safe for
// concurrent use. Only one process can have a meta.db open for writing at
// a time; an etcd engine is shared by every server that opens it.
type DB struct {
	path    string // meta.db's path; "" on another engine
	where   string // the engine and where it keeps its records, for messages
	eng     kv.Engine
	raw     objects.Store // the store as opened: packs and single blobs
	store   objects.Store // its packed view (objects.Packed over the object index)
	opts    Options
	log     *slog.Logger
	now     func() time.Time
	trees   *treeCache
	pending pendingTrees // the trees of open batches
	guard   gcGuard
	subs    subscribers
	watch   struct { // the watch of other servers' changes (watch.go)
		once    sync.Once
		stop    context.CancelFunc
		done    <-chan struct{}
		mu      sync.Mutex
		deletes map[string]bool // incarnations this DB deletes
	}
	member   atomic.Pointer[Member] // this server's membership of a shared engine (owner.go)
	instance string                 // tags this DB's writes of workspace records ("" on an engine nobody else writes to)
	closed   sync.Once
}

// DBFileName is the name of the database file inside a wsfs data folder.
const DBFileName = "meta.db"

// PIDFile returns the file beside the database at path that names the
// process holding it ("meta.db.pid" for "meta.db").
func PIDFile(path string) string { return path + ".pid" }

func (o *Options) setDefaults() {
	if o.LockTimeout <= 0 {
		o.LockTimeout = time.Second
	}
	if o.UploadParallelism <= 0 {
		o.UploadParallelism = 8
	}
	if o.TreeCacheSize <= 0 {
		o.TreeCacheSize = 4096
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Open opens (creating if needed) the bbolt database at path, with store as
// its object store. It fails fast with ErrInUse when another process holds
// the database, with ErrCorruptDB (naming the file and the next step) when
// the file is damaged, and with ErrSchemaTooNew when a newer wsfs wrote it.
// A damaged file is never rewritten.
func Open(ctx context.Context, path string, store objects.Store, opts Options) (*DB, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("meta: open %s: %w", path, err)
	}
	if store == nil {
		return nil, fmt.Errorf("meta: open %s: no object store", path)
	}
	opts.setDefaults()
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("meta: open %s: %w", path, err)
		}
	}
	eng, err := boltkv.Open(path, boltkv.Options{LockTimeout: opts.LockTimeout, ReadOnly: opts.ReadOnly, NoSync: opts.NoSync})
	switch {
	case errors.Is(err, kv.ErrLocked):
		owner := "another process"
		if b, rerr := os.ReadFile(PIDFile(path)); rerr == nil {
			if pid := strings.TrimSpace(string(b)); pid != "" {
				owner = "PID " + pid
			}
		}
		return nil, &markedError{
			msg:    fmt.Sprintf("meta: the store at %s is in use by %s; talk to the running server (wsfs commands do so when it runs) or stop it", path, owner),
			target: ErrInUse,
		}
	case errors.Is(err, kv.ErrCorrupt):
		return nil, corruptf(path, "%s", strings.TrimPrefix(err.Error(), kv.ErrCorrupt.Error()+": "))
	case err != nil:
		return nil, fmt.Errorf("meta: open %s: %w", path, err)
	}
	db, err := open(ctx, eng, path, eng.String(), store, opts)
	if err != nil {
		eng.Close()
		return nil, err
	}
	if !opts.ReadOnly {
		pidPath := PIDFile(path)
		if err := os.WriteFile(pidPath, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
			db.log.Warn("meta: cannot write the pid file", "path", pidPath, "err", err)
		}
	}
	return db, nil
}

// OpenEngine opens meta on an engine other than a meta.db file (etcd:
// kv/etcdkv, opened from a URL by meta/metaurl), with store as its object
// store. The DB owns eng from then on: Close closes it, and so does a
// failed OpenEngine.
func OpenEngine(ctx context.Context, eng kv.Engine, store objects.Store, opts Options) (*DB, error) {
	if store == nil {
		eng.Close()
		return nil, fmt.Errorf("meta: open %s: no object store", eng)
	}
	opts.setDefaults()
	db, err := open(ctx, eng, "", eng.String(), store, opts)
	if err != nil {
		eng.Close()
		return nil, err
	}
	return db, nil
}

func open(ctx context.Context, eng kv.Engine, path, where string, store objects.Store, opts Options) (*DB, error) {
	db := &DB{
		path:  path,
		where: where,
		eng:   eng,
		raw:   store,
		opts:  opts,
		log:   opts.Logger,
		now:   opts.Now,
		trees: newTreeCache(opts.TreeCacheSize),
	}
	db.store = objects.NewPacked(store, locator{db})
	if _, shared := eng.(kv.Watcher); shared {
		db.instance = newID()
	}
	if err := db.initSchema(ctx); err != nil {
		return nil, err
	}
	if err := db.checkStore(ctx); err != nil {
		return nil, err
	}
	return db, nil
}

// initSchema writes the schema record of a new database, checks the
// version of an existing one and runs migrations.
func (db *DB) initSchema(ctx context.Context) error {
	var version uint64
	err := db.view(ctx, func(tx kv.Reader) error {
		v, err := readSchema(tx)
		version = v
		return err
	})
	if err != nil {
		if errors.Is(err, ErrCorruptDB) || errors.Is(err, kv.ErrUnavailable) {
			return err
		}
		return corruptf(db.where, "%v", err)
	}
	if version == 0 {
		// A store with records but no schema record is someone else's
		// database: leave it alone.
		empty, err := db.eng.Empty(ctx)
		if err != nil {
			return db.engineErr(err)
		}
		if !empty {
			return fmt.Errorf("%w: %s holds records without a wsfs schema record (another program's database?); point wsfs at another place, or move it aside and run `wsfs recover`",
				ErrCorruptDB, db.where)
		}
	}
	switch {
	case version > SchemaVersion:
		return fmt.Errorf("%w: %s has schema version %d, this wsfs knows versions up to %d; use a newer wsfs (the file was left as it is)",
			ErrSchemaTooNew, db.where, version, SchemaVersion)
	case version == SchemaVersion:
		return nil
	case db.opts.ReadOnly:
		return fmt.Errorf("meta: open %s: schema version %d needs an upgrade to %d; open it writable once", db.where, version, SchemaVersion)
	}
	return db.update(ctx, func(tx kv.Txn) error {
		v, err := readSchema(tx)
		if err != nil {
			return err
		}
		switch {
		case v > SchemaVersion:
			return fmt.Errorf("%w: %s has schema version %d, this wsfs knows versions up to %d; use a newer wsfs",
				ErrSchemaTooNew, db.where, v, SchemaVersion)
		case v == SchemaVersion:
			return nil // another server initialised it meanwhile
		case v == 0:
			if err := tx.Put(bucketMeta, keyCreated, []byte(db.now().UTC().Format(time.RFC3339Nano))); err != nil {
				return err
			}
			v = SchemaVersion
		}
		for ; v < SchemaVersion; v++ {
			m := migrations[v]
			if m == nil {
				return fmt.Errorf("meta: %s: no migration from schema version %d", db.where, v)
			}
			if err := m(tx); err != nil {
				return fmt.Errorf("meta: %s: migrating schema %d to %d: %w", db.where, v, v+1, err)
			}
		}
		return tx.Put(bucketMeta, keySchema, u64(SchemaVersion))
	})
}

// Path returns the database file's path ("" for an engine other than a
// meta.db file).
func (db *DB) Path() string { return db.path }

// Engine returns the engine the database keeps its records in. Callers
// outside meta use it for what is the engine's own (etcd's leases and
// watches); records are meta's to read and write.
func (db *DB) Engine() kv.Engine { return db.eng }

// String names the engine and where it keeps its records.
func (db *DB) String() string { return db.where }

// Store returns the object store as readers use it: the store the
// database was opened with, seen through the object index, so that
// objects in packs read like single blobs (objects.Packed). Its Close
// closes the store the database was opened with.
func (db *DB) Store() objects.Store { return db.store }

// Close closes the database and removes the pid file. It is safe to call
// more than once.
func (db *DB) Close() error {
	var err error
	db.closed.Do(func() {
		db.stopWatch()
		if m := db.member.Load(); m != nil {
			m.Leave()
		}
		if !db.opts.ReadOnly && db.path != "" {
			os.Remove(PIDFile(db.path))
		}
		if cerr := db.eng.Close(); cerr != nil {
			err = fmt.Errorf("meta: close %s: %w", db.where, cerr)
		}
	})
	return err
}

// view runs fn over one consistent snapshot of the engine.
func (db *DB) view(ctx context.Context, fn func(tx kv.Reader) error) error {
	return db.engineErr(db.eng.View(ctx, fn))
}

// update runs fn in a transaction of the engine; fn may run more than
// once (kv's package doc).
func (db *DB) update(ctx context.Context, fn func(tx kv.Txn) error) error {
	return db.engineErr(db.eng.Update(ctx, fn))
}

// engineErr turns damage the engine reports into ErrCorruptDB naming the
// database and the next step; every other error stays as it is.
func (db *DB) engineErr(err error) error {
	if err == nil || errors.Is(err, ErrCorruptDB) || !errors.Is(err, kv.ErrCorrupt) {
		return err
	}
	return corruptf(db.where, "%s", strings.TrimPrefix(err.Error(), kv.ErrCorrupt.Error()+": "))
}

// CheckFile walks every page of the database (bbolt's consistency check)
// and returns the problems found. Fsck calls it; it reads the whole file.
// An engine with no such check returns nothing.
func (db *DB) CheckFile(ctx context.Context) []string {
	c, ok := db.eng.(kv.Checker)
	if !ok {
		return nil
	}
	return c.Check(ctx)
}
