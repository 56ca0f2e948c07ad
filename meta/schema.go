package meta

import (
	"encoding/binary"
	"fmt"

	"github.com/wsfs/wsfs/meta/kv"
)

// SchemaVersion is the layout version of meta.db written by this wsfs.
// Bump it, and add a migration from the previous version to migrations,
// whenever the bucket layout or a record's encoding changes incompatibly.
const SchemaVersion = 4

// The bucket layout of meta.db (schema version 4). Every record is JSON,
// except the object index's (objindex.go).
//
//	meta/                       schema version and database facts
//	    "schema"     -> uint64, big-endian
//	    "created"    -> RFC 3339 time the file was initialised
//	workspaces/                 one record per live workspace
//	    "tenant/name" -> workspaceRecord
//	revisions/                  one nested bucket per workspace incarnation
//	    <workspace ID>/
//	        uint64 n, big-endian -> revisionRecord
//	tombstones/                 deleted workspace incarnations, kept for
//	    <workspace ID> -> digest of the tombstone object (GC keeps it)
//	outputs/                    (version 2) the kept outputs of wsfs run
//	    <workspace ID>/
//	        uint64 sequence, big-endian -> outputRecord
//	objindex/                   (version 4) where every object is stored
//	    loc/    digest -> location; packs/  pack digest -> its index
//	                            (objindex.go)
//	keys/                       API keys of the network API (keys.go);
//	    <key ID> -> keyRecord   added without a version bump: a wsfs
//	                            that does not know it leaves it alone
//
// The layout is the same on every engine (kv.Bucket paths: nested buckets
// in bbolt, key prefixes in etcd); buckets exist while they hold records.
var (
	bucketMeta       = kv.B("meta")
	bucketWorkspaces = kv.B("workspaces")
	bucketTombstones = kv.B("tombstones")

	keySchema  = []byte("schema")
	keyCreated = []byte("created")
)

// revBucket is the bucket of the revisions of workspace incarnation id.
func revBucket(id string) kv.Bucket { return kv.B("revisions", id) }

// outBucket is the bucket of the kept outputs of workspace incarnation id.
func outBucket(id string) kv.Bucket { return kv.B("outputs", id) }

// migrations[v] upgrades a database from schema version v to v+1 inside the
// transaction that Open runs; Open then writes the new version.
var migrations = map[uint64]func(tx kv.Txn) error{
	// Version 2 keeps commands' outputs referenced, so that gc and fsck
	// see them as live rather than orphans (a bucket "outputs", made by
	// the first output recorded).
	1: func(tx kv.Txn) error { return nil },
	// Version 3 may name trees of format 2 (wsfs-tree2: owners, link
	// groups, special files, extended attributes), which an older wsfs
	// cannot read: the bump keeps it from opening this database. The
	// trees already stored stay as they are (format 1 is still read, and
	// still written for a directory that needs nothing newer), so nothing
	// is rewritten: an entry of a format 1 tree has no recorded owner,
	// which the mount shows as its own user's, as before.
	2: func(tx kv.Txn) error { return nil },
	// Version 4 adds the object index (objindex.go), empty: the objects
	// stored before it are single blobs, read as before and indexed as
	// commits meet them.
	3: func(tx kv.Txn) error { return nil },
}

func revKey(n RevNum) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(n))
	return b[:]
}

func u64(v uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	return b[:]
}

// readSchema returns the schema version stored in tx, or 0 for a database
// that has never been initialised.
func readSchema(tx kv.Reader) (uint64, error) {
	v, err := tx.Get(bucketMeta, keySchema)
	if v == nil || err != nil {
		return 0, err
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("schema version record has %d bytes, want 8", len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}
