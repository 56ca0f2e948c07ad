// Package kv is the interface between meta and the engine that keeps its
// records: an ordered key-value store with consistent reads and
// transactions that compare and write. Two engines implement it: bbolt
// (kv/boltkv, one file on one machine, the default) and etcd (kv/etcdkv, a
// replicated cluster that several wsfs servers share). meta speaks only
// this interface; each engine is the only importer of its library.
//
// # Records and buckets
//
// A record is a key and a value, both bytes, in a Bucket: a path of names
// ("revisions", "<workspace id>"). A bucket holds records or buckets,
// never both, and exists as long as it holds anything: writing a record
// creates its buckets, and deleting a bucket's every record (DeleteRange
// with no bounds) removes it. Records of a bucket are ordered by key,
// byte-wise. A name in a bucket path is non-empty and holds no '/'.
//
// # Reads and transactions
//
// View gives a Reader over one consistent snapshot: every Get and Scan in
// it sees the same state. Update gives a Txn: the reads of a snapshot, and
// writes that take effect together, at once, if and only if nothing the
// transaction read has changed meanwhile. bbolt gets there by running one
// writer at a time; etcd by optimistic concurrency (the transaction
// commits with a compare of the modification revision of every record it
// read, and of every range it scanned, and runs again when one changed).
// So the function given to Update may run more than once, and must not
// keep what an earlier run left behind. What a scan cannot protect on
// etcd is the deletion of a record it returned (a compare over a range
// sees changes and additions only): a caller that deletes records which
// another transaction scans also writes a record that one reads with Get
// (meta writes the workspace record).
//
// Values returned by Get and Scan belong to the transaction: copy what is
// kept after the function returns.
//
// # Limits
//
// etcd bounds one transaction (by default 128 operations and a 1.5 MiB
// request); Limits reports an engine's bounds, an Update over them fails
// with ErrTooLarge before anything is sent, and callers that write many
// records split the safe part of their work into transactions of their
// own (see meta's package doc).
package kv

import (
	"context"
	"errors"
	"strings"
	"time"
)

// Bucket names a group of records: a path of names, outermost first.
type Bucket []string

// B returns the bucket path of names.
func B(names ...string) Bucket { return Bucket(names) }

// String returns the bucket's names joined by '/'.
func (b Bucket) String() string { return strings.Join(b, "/") }

// Valid reports whether every name of b is non-empty and free of '/'.
func (b Bucket) Valid() bool {
	if len(b) == 0 {
		return false
	}
	for _, n := range b {
		if n == "" || strings.Contains(n, "/") {
			return false
		}
	}
	return true
}

// ScanOptions choose the records a Scan visits.
type ScanOptions struct {
	// From is the first key visited (nil: the bucket's first); To the
	// first key not visited (nil: past the last). In a reverse scan, the
	// visit still covers [From, To), from its end.
	From, To []byte
	// Reverse visits keys in descending order.
	Reverse bool
	// Limit is the most records visited; 0 means all.
	Limit int
}

// ErrStop, returned by a Scan's function, ends the scan without error.
var ErrStop = errors.New("kv: stop scan")

// Reader reads one consistent snapshot.
type Reader interface {
	// Get returns the value of key in b, or nil when there is none.
	Get(b Bucket, key []byte) ([]byte, error)
	// Scan calls fn for the records of b that opts select, in key order
	// (descending for a reverse scan), until fn returns an error; ErrStop
	// ends it with none.
	Scan(b Bucket, opts ScanOptions, fn func(k, v []byte) error) error
}

// Txn is a Reader whose writes take effect when the Update that gave it
// commits, and that a later read of the same transaction sees.
type Txn interface {
	Reader
	// Put sets the value of key in b, creating b if needed. An empty value
	// is stored as such (a Get returns a non-nil empty slice).
	Put(b Bucket, key, value []byte) error
	// Delete removes key from b; a missing key is no error.
	Delete(b Bucket, key []byte) error
	// DeleteRange removes the keys of b in [from, to) (nil from: from the
	// first; nil to: through the last), in one operation however many
	// there are. With both nil it removes the bucket and every bucket
	// under it.
	DeleteRange(b Bucket, from, to []byte) error
}

// Limits are the bounds of one transaction. Zero means no bound.
type Limits struct {
	// Ops is the most reads a transaction may make (each record it reads
	// with Get and each Scan is one compare), and separately the most
	// writes.
	Ops int
	// Bytes is the most bytes of keys and values a transaction may write.
	Bytes int
}

// Fits reports whether a transaction of ops writes of bytes bytes in all
// (and as many reads) keeps within l.
func (l Limits) Fits(ops, bytes int) bool {
	return (l.Ops == 0 || ops <= l.Ops) && (l.Bytes == 0 || bytes <= l.Bytes)
}

// Engine keeps meta's records.
type Engine interface {
	// View runs fn over one consistent snapshot.
	View(ctx context.Context, fn func(Reader) error) error
	// Update runs fn in a transaction (see the package doc: fn may run
	// more than once). An error from fn aborts it, writing nothing, and is
	// returned as it is.
	Update(ctx context.Context, fn func(Txn) error) error
	// Empty reports whether the engine holds no record at all (a new
	// database), as opposed to one of wsfs's or someone else's.
	Empty(ctx context.Context) (bool, error)
	// Limits returns the bounds of one transaction.
	Limits() Limits
	// String names the engine and where it keeps its records, for
	// messages ("meta.db at /var/lib/wsfs/meta.db", "etcd at
	// 10.0.0.1:2379/wsfs").
	String() string
	// Close releases the engine.
	Close() error
}

// Checker is an Engine that can check its own storage (bbolt's page check).
type Checker interface {
	Check(ctx context.Context) []string
}

// Errors every engine reports, wrapped in an error that names the engine
// and what to do.
var (
	// ErrConflict: a transaction kept finding what it read changed by
	// others, and gave up.
	ErrConflict = errors.New("kv: transaction conflict")
	// ErrTooLarge: a transaction over the engine's Limits; nothing was
	// written.
	ErrTooLarge = errors.New("kv: transaction too large")
	// ErrUnavailable: the engine cannot be reached (etcd down or without
	// quorum); nothing was written.
	ErrUnavailable = errors.New("kv: engine unavailable")
	// ErrUncertain: the engine failed after a transaction was sent, so it
	// may or may not have been applied (an etcd answer lost in a
	// failover). It also matches ErrUnavailable. A caller must not undo
	// what the transaction depends on (meta keeps a commit's packs).
	ErrUncertain = errors.New("kv: outcome unknown")
	// ErrCorrupt: the engine's storage is damaged.
	ErrCorrupt = errors.New("kv: storage is damaged")
	// ErrLocked: another process holds the engine (bbolt's file lock).
	ErrLocked = errors.New("kv: in use by another process")
	// ErrReadOnly: a write to an engine opened read-only.
	ErrReadOnly = errors.New("kv: opened read-only")
)

// Change is one change of a record that a Watcher reports.
type Change struct {
	Key []byte
	// Value is the record after the change (nil: deleted); Prev before
	// it (nil: created, or unknown).
	Value, Prev []byte
}

// Watcher is an Engine whose records other processes change (etcd): Watch
// reports their changes, and the engine's own, as they commit.
type Watcher interface {
	// Watch calls fn, in a goroutine of its own, for every change of a
	// record of bucket b committed after Watch returns, in commit order,
	// until ctx ends; done is closed then. A lost connection is taken up
	// again where it stopped; when that is no longer possible (the engine
	// forgot the history in between), fn is called with a nil Change: the
	// caller reads what it follows again.
	Watch(ctx context.Context, b Bucket, fn func(*Change)) (done <-chan struct{}, err error)
}

// Leaser is an Engine that gives a server a session: a lease kept alive
// while the server lives, so that the records it puts under it (its
// registration, the workspaces it owns) vanish when it dies (etcd).
type Leaser interface {
	// Session starts a session whose lease lasts ttl past the server's
	// last sign of life.
	Session(ctx context.Context, ttl time.Duration) (Session, error)
}

// Session is a lease on an engine and the records held under it.
type Session interface {
	// ID names the lease (unique on the engine).
	ID() int64
	// Done is closed when the lease is lost (expired, revoked, or Close).
	Done() <-chan struct{}
	// Put sets key in b to value under the lease.
	Put(ctx context.Context, b Bucket, key, value []byte) error
	// Create sets key in b to value under the lease if key is absent, and
	// otherwise returns its value (the holder) with created false.
	Create(ctx context.Context, b Bucket, key, value []byte) (created bool, holder []byte, err error)
	// Delete removes key from b if its value is still value.
	Delete(ctx context.Context, b Bucket, key, value []byte) error
	// Orphan stops keeping the lease alive without revoking it, as a
	// server that dies does: the records go when the lease expires.
	Orphan()
	// Close revokes the lease: its records go at once.
	Close() error
}
