package meta

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

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
}

// DB is an open meta.db together with the object store its trees, manifests
// and blobs live in. It is safe for concurrent use. Only one process can
// have a DB open for writing at a time.
type DB struct {
	path    string
	bolt    *bolt.DB
	raw     objects.Store // the store as opened: packs and single blobs
	store   objects.Store // its packed view (objects.Packed over the object index)
	opts    Options
	log     *slog.Logger
	now     func() time.Time
	trees   *treeCache
	pending pendingTrees // the trees of open batches
	guard   gcGuard
	subs    subscribers
	closed  sync.Once
}

// DBFileName is the name of the database file inside a wsfs data folder.
const DBFileName = "meta.db"

// PIDFile returns the file beside the database at path that names the
// process holding it ("meta.db.pid" for "meta.db").
func PIDFile(path string) string { return path + ".pid" }

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
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = time.Second
	}
	if opts.UploadParallelism <= 0 {
		opts.UploadParallelism = 8
	}
	if opts.TreeCacheSize <= 0 {
		opts.TreeCacheSize = 4096
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("meta: open %s: %w", path, err)
		}
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() > 0 && fi.Size() < 4096*2 && !opts.ReadOnly {
		// bbolt would treat a file shorter than its two meta pages as
		// new and initialise it in place; that is a damaged file, not a
		// new one, and must be left alone.
		return nil, corruptf(path, "the file has only %d bytes", fi.Size())
	}
	bdb, err := openBolt(path, opts)
	if err != nil {
		return nil, err
	}
	db := &DB{
		path:  path,
		bolt:  bdb,
		raw:   store,
		opts:  opts,
		log:   opts.Logger,
		now:   opts.Now,
		trees: newTreeCache(opts.TreeCacheSize),
	}
	db.store = objects.NewPacked(store, locator{db})
	if err := db.initSchema(); err != nil {
		bdb.Close()
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

func openBolt(path string, opts Options) (bdb *bolt.DB, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			bdb, err = nil, corruptf(path, "bbolt failed reading it: %v", r)
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
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrChecksum),
		errors.Is(err, berrors.ErrInvalidMapping):
		return nil, corruptf(path, "%v", err)
	default:
		if errors.Is(err, os.ErrPermission) || errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("meta: open %s: %w", path, err)
		}
		// bbolt reports most damage (short files, bad page ids) with
		// errors of its own text; treat every other failure to read the
		// file as damage so that the next step is named.
		return nil, corruptf(path, "%v", err)
	}
}

// initSchema creates the buckets of a new database, checks the version of
// an existing one and runs migrations.
func (db *DB) initSchema() error {
	var version uint64
	var foreign bool
	err := db.view(func(tx *bolt.Tx) error {
		v, err := readSchema(tx)
		version = v
		if v == 0 {
			// A bbolt file with buckets but no schema record is someone
			// else's database: leave it alone.
			foreign = tx.ForEach(func([]byte, *bolt.Bucket) error { return errors.New("has buckets") }) != nil
		}
		return err
	})
	if err != nil {
		if errors.Is(err, ErrCorruptDB) {
			return err
		}
		return corruptf(db.path, "%v", err)
	}
	switch {
	case foreign:
		return fmt.Errorf("%w: %s is a bbolt file without a wsfs schema record (another program's database?); point wsfs at another folder, or move the file aside and run `wsfs recover`",
			ErrCorruptDB, db.path)
	case version > SchemaVersion:
		return fmt.Errorf("%w: %s has schema version %d, this wsfs knows versions up to %d; use a newer wsfs (the file was left as it is)",
			ErrSchemaTooNew, db.path, version, SchemaVersion)
	case version == SchemaVersion:
		return db.checkBuckets()
	case db.opts.ReadOnly:
		return fmt.Errorf("meta: open %s: schema version %d needs an upgrade to %d; open it writable once", db.path, version, SchemaVersion)
	}
	return db.update(func(tx *bolt.Tx) error {
		if version == 0 {
			for _, name := range allBuckets {
				if _, err := tx.CreateBucketIfNotExists(name); err != nil {
					return err
				}
			}
			if err := createObjIndex(tx); err != nil {
				return err
			}
			if err := tx.Bucket(bucketMeta).Put(keyCreated, []byte(db.now().UTC().Format(time.RFC3339Nano))); err != nil {
				return err
			}
			version = SchemaVersion
		}
		for ; version < SchemaVersion; version++ {
			m := migrations[version]
			if m == nil {
				return fmt.Errorf("meta: %s: no migration from schema version %d", db.path, version)
			}
			if err := m(tx); err != nil {
				return fmt.Errorf("meta: %s: migrating schema %d to %d: %w", db.path, version, version+1, err)
			}
		}
		return tx.Bucket(bucketMeta).Put(keySchema, u64(SchemaVersion))
	})
}

func (db *DB) checkBuckets() error {
	return db.view(func(tx *bolt.Tx) error {
		for _, name := range allBuckets {
			if tx.Bucket(name) == nil {
				return corruptf(db.path, "bucket %q is missing", name)
			}
		}
		for _, name := range [][]byte{bucketLoc, bucketPacks} {
			if tx.Bucket(bucketObjIndex).Bucket(name) == nil {
				return corruptf(db.path, "bucket objindex/%s is missing", name)
			}
		}
		return nil
	})
}

// Path returns the database file's path.
func (db *DB) Path() string { return db.path }

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
		if !db.opts.ReadOnly {
			os.Remove(PIDFile(db.path))
		}
		if cerr := db.bolt.Close(); cerr != nil {
			err = fmt.Errorf("meta: close %s: %w", db.path, cerr)
		}
	})
	return err
}

// view runs fn in a read transaction. A panic inside bbolt (which is how it
// reports some damaged pages) becomes ErrCorruptDB.
func (db *DB) view(fn func(tx *bolt.Tx) error) (err error) {
	// A page past the end of a truncated file faults (SIGBUS) in the mmap;
	// make that a panic we can turn into an error.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = corruptf(db.path, "bbolt failed reading it: %v", r)
		}
	}()
	return db.bolt.View(fn)
}

// update runs fn in a write transaction, with the same panic guard as view.
func (db *DB) update(fn func(tx *bolt.Tx) error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = corruptf(db.path, "bbolt failed reading it: %v", r)
		}
	}()
	return db.bolt.Update(fn)
}

// CheckFile walks every page of the database (bbolt's consistency check)
// and returns the problems found. Fsck calls it; it reads the whole file.
func (db *DB) CheckFile(ctx context.Context) []string {
	var problems []string
	err := db.view(func(tx *bolt.Tx) error {
		// Drain the channel fully: the checker reads pages until it is done.
		for e := range tx.Check() {
			if len(problems) < 100 {
				problems = append(problems, e.Error())
			}
		}
		return nil
	})
	if err != nil {
		problems = append(problems, err.Error())
	}
	return problems
}
