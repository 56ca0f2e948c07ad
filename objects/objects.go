// Package objects stores bytes by their SHA-256 digest and nothing else.
//
// A Store is a flat namespace of immutable blobs keyed by Digest. Every
// implementation follows the contract written on the Store interface and
// passes the same conformance suite in objectstest:
//
//   - Dir (OpenDir), the local folder store and the embedded default: one
//     read-only file per blob under blobs/<2 hex>/<64 hex>, written
//     atomically and durably, never visible half-written, even after
//     kill -9.
//   - Memory (NewMemory), for unit tests, with hooks to damage or age
//     blobs behind its back.
//   - The S3 store in objects/s3, for any S3-compatible bucket (Cloudflare
//     R2, MinIO, AWS S3).
//   - Cache (NewCache), a bounded on-disk LRU read cache in front of a
//     remote store, itself a Store.
//
// Whole-blob reads are verified: a blob whose size or hash does not match
// its digest is reported as ErrCorrupt, never returned as wrong bytes. Put
// verifies too: bytes that do not hash to the digest are refused with
// ErrDigestMismatch and nothing is stored.
//
// # Packs
//
// Uploading every small object on its own costs a request each, which
// over a WAN (R2, S3: 10-30 ms a request) dominates a commit. A pack holds
// many small objects in one blob, stored like any other under the SHA-256
// of its bytes, with its own index at the front (pack.go has the exact
// layout):
//
//	"wsfs-pack1\n"  uvarint index length
//	index: uvarint count, then per object {digest, tag byte, uvarint length}
//	SHA-256 of the magic and index
//	the objects' bytes, in index order
//
// EncodePack, WritePack and SplitPacks write packs (objects smaller than
// PackThreshold, 512 KiB; a pack stays within MaxPackBytes, 8 MiB, and
// MaxPackEntries); ReadPackIndex reads a stored pack's index with one
// ranged read; DecodePack and VerifyPack check a whole pack. The tag is the
// writer's (meta records an object's kind there), so that a reader of the
// bucket alone knows what every pack holds.
//
// Packed is the Store that readers use over a store of packs: a Locator
// (meta keeps one in its database; MemoryLocator is for tests) maps a
// digest to its pack, offset and length; Open fetches the object with one
// ranged read of its pack and verifies a whole read against the object's
// own digest, reporting a damaged copy to the Locator; objects the Locator
// does not know are read as single blobs, so stores written before packs
// keep working. PutBatch writes a batch as packs plus single blobs for the
// large objects. objectstest.Packed runs the conformance suite on packs.
package objects

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"
)

// ErrNotFound reports that no blob is stored under a digest. Every store
// wraps it so that errors.Is(err, ErrNotFound) holds.
var ErrNotFound = errors.New("objects: blob not found")

// ErrCorrupt reports that stored bytes do not match their digest (wrong size
// or wrong SHA-256). Readers never see such bytes as valid data.
var ErrCorrupt = errors.New("objects: blob is corrupt")

// ErrDigestMismatch reports that bytes handed to Put do not hash to the
// digest they were put under.
var ErrDigestMismatch = errors.New("objects: content does not match digest")

// DigestSize is the length of a digest in bytes.
const DigestSize = sha256.Size

// Digest is the SHA-256 of a blob's content. The zero Digest is not the hash
// of anything stored; use IsZero to test for it.
type Digest [DigestSize]byte

// Sum returns the digest of b.
func Sum(b []byte) Digest { return Digest(sha256.Sum256(b)) }

// ParseDigest parses the 64-character lower- or upper-case hex form.
func ParseDigest(s string) (Digest, error) {
	var d Digest
	if len(s) != 2*DigestSize {
		return d, fmt.Errorf("objects: digest %q: want %d hex characters, got %d", s, 2*DigestSize, len(s))
	}
	if _, err := hex.Decode(d[:], []byte(s)); err != nil {
		return d, fmt.Errorf("objects: digest %q: %w", s, err)
	}
	return d, nil
}

// String returns the 64-character lower-case hex form.
func (d Digest) String() string { return hex.EncodeToString(d[:]) }

// Short returns the first 12 hex characters, for logs and tables.
func (d Digest) Short() string { return hex.EncodeToString(d[:6]) }

// IsZero reports whether d is the zero value.
func (d Digest) IsZero() bool { return d == Digest{} }

// MarshalText implements encoding.TextMarshaler (hex form).
func (d Digest) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler (hex form).
func (d *Digest) UnmarshalText(b []byte) error {
	p, err := ParseDigest(string(b))
	if err != nil {
		return err
	}
	*d = p
	return nil
}

// Key returns the blob's key inside a store: "blobs/<first 2 hex>/<64 hex>".
func (d Digest) Key() string {
	s := d.String()
	return "blobs/" + s[:2] + "/" + s
}

// Info describes one stored blob.
type Info struct {
	Digest  Digest
	Size    int64
	ModTime time.Time // when the blob was stored; GC compares it with its grace period
}

// Store is a content-addressed blob store. Implementations are safe for
// concurrent use by multiple goroutines. Every method honours ctx: it
// returns promptly with ctx.Err() (wrapped) once ctx is done.
type Store interface {
	// Put stores size bytes read from r under d. It is idempotent: putting
	// a digest that is already stored succeeds and leaves the blob as it
	// was, except that a store that can tell a damaged copy cheaply (the
	// folder store and Memory check the stored bytes) replaces it with the
	// bytes put; Rewrite replaces a damaged copy in every store. It fails
	// with an error wrapping ErrDigestMismatch, and stores nothing, if the
	// bytes read do not hash to d or are not exactly size bytes long. A
	// blob is never visible under d before it is complete, even if the
	// process dies during Put.
	Put(ctx context.Context, d Digest, r io.Reader, size int64) error

	// Open returns a reader of length bytes of the blob starting at off.
	// length < 0 means "to the end". A range past the end is clipped; off
	// at or beyond the end yields an empty reader; off < 0 is an error.
	// When the whole blob is read (off == 0, and length < 0 or length >=
	// the stored size; see IsWholeRange), the reader verifies size and
	// SHA-256 as it reaches EOF and returns an error wrapping ErrCorrupt
	// instead of io.EOF on mismatch. A read of part of a blob is not
	// verified. A missing blob gives an error wrapping ErrNotFound (from
	// Open itself, not from the first Read). The caller must Close the
	// reader; reads fail once ctx is done.
	Open(ctx context.Context, d Digest, off, length int64) (io.ReadCloser, error)

	// Stat returns the blob's size and store time, or an error wrapping
	// ErrNotFound. It does not read the content.
	Stat(ctx context.Context, d Digest) (Info, error)

	// Delete removes the blob. Deleting a missing blob is not an error.
	Delete(ctx context.Context, d Digest) error

	// List calls fn for every stored blob, in no particular order, and
	// stops at the first error fn returns (which List then returns). An
	// error while listing is returned as is: callers such as GC must not
	// treat a partial listing as complete.
	List(ctx context.Context, fn func(Info) error) error
}

// Get reads a whole blob into memory, verified.
func Get(ctx context.Context, s Store, d Digest) ([]byte, error) {
	rc, err := s.Open(ctx, d, 0, -1)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// PutBytes stores b under its own digest and returns that digest.
func PutBytes(ctx context.Context, s Store, b []byte) (Digest, error) {
	d := Sum(b)
	if err := s.Put(ctx, d, bytesReader(b), int64(len(b))); err != nil {
		return d, err
	}
	return d, nil
}

// Rewriter is implemented by stores whose Put keeps a stored blob without
// looking at it (S3's conditional write), and which can replace one
// instead, in one step, when a stored copy is known to be damaged.
type Rewriter interface {
	// Rewrite stores the size bytes read from r under d whether or not a
	// blob is stored there, with Put's verification and atomicity.
	Rewrite(ctx context.Context, d Digest, r io.Reader, size int64) error
}

// Rewrite stores the size bytes read from r under d in s, replacing a
// stored copy that is damaged: through Rewriter where s implements it, and
// through Put elsewhere (the stores that keep a stored blob check it
// first). It heals a blob that reads as ErrCorrupt.
func Rewrite(ctx context.Context, s Store, d Digest, r io.Reader, size int64) error {
	if rw, ok := s.(Rewriter); ok {
		return rw.Rewrite(ctx, d, r, size)
	}
	return s.Put(ctx, d, r, size)
}

// Local is implemented by stores whose blobs are on this machine (the
// folder store, Memory), where reading a stored copy back costs less than
// a round trip. A writer that finds content already stored checks the
// copy of such a store before it trusts it, so that writing the same
// content again heals a damaged copy; for a remote store it trusts the
// store, as every request saved counts.
type Local interface {
	// IsLocal reports whether the store is on this machine.
	IsLocal() bool
}

// IsLocal reports whether s is a local store (see Local).
func IsLocal(s Store) bool {
	l, ok := s.(Local)
	return ok && l.IsLocal()
}
