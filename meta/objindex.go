package meta

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/wsfs/wsfs/objects"
)

// The object index says where every object meta knows of is stored, so
// that a commit knows what is already stored without asking the store
// (one HEAD per object), and readers find a packed object's pack. It is
// kept apart from the rest of meta.db, in the bucket "objindex", and only
// the functions of this file touch it, so that it can move to another
// engine as a unit:
//
//	objindex/
//	    loc/     <32-byte digest> -> location record
//	    packs/   <32-byte pack digest> -> pack record
//
// A location record is
//
//	byte     where: 1 single blob, 2 in a pack
//	byte     flags: bit 0, the copy was found damaged
//	byte     tag: the object's kind (tagFile, tagTree, ...)
//	uvarint  length
//	varint   store time, Unix nanoseconds
//	[32]byte pack digest, uvarint offset   (in a pack only)
//
// and a pack record is
//
//	uvarint  size of the pack
//	varint   store time, Unix nanoseconds
//	uvarint  data start (offset of the first object)
//	uvarint  count
//	count × { [32]byte digest, byte tag, uvarint length }
//
// which is the pack's own index again, so that gc and fsck know what a
// pack holds without reading it. The index is a cache of the store, never
// the other way round: it may miss an object that is stored (a store
// written before packs; a commit cut short) and then a writer stores the
// object again, but it never names an object that is not stored: packs
// are recorded in the transaction that commits what uses them (after the
// upload), and gc drops an object from the index before deleting it.
// fsck --repair rebuilds it from the store; Recover writes it anew.
var (
	bucketObjIndex = []byte("objindex")
	bucketLoc      = []byte("loc")
	bucketPacks    = []byte("packs")
)

// Object tags: the kind of an object, as packs and the index record it.
const (
	tagFile      byte = iota // a file's content
	tagTree                  // a directory (magicTree)
	tagManifest              // a revision manifest (magicRevision)
	tagSettings              // a workspace's settings (magicSettings)
	tagTombstone             // a deleted workspace (magicTombstone)
	tagOutput                // a command's kept output
	tagOutputRef             // the record tying an output to its workspace (magicOutputRef)
)

const (
	locSingle byte = 1
	locPacked byte = 2

	locFlagDamaged byte = 1
)

// indexEntry is a decoded location record.
type indexEntry struct {
	objects.Location
	Tag byte
}

// packRecord is a decoded pack record.
type packRecord struct {
	Digest    objects.Digest
	Size      int64
	ModTime   time.Time
	DataStart int64
	Entries   []objects.PackEntry
}

func encodeLoc(e indexEntry) []byte {
	where := locSingle
	if e.InPack() {
		where = locPacked
	}
	var flags byte
	if e.Damaged {
		flags |= locFlagDamaged
	}
	b := []byte{where, flags, e.Tag}
	b = binary.AppendUvarint(b, uint64(e.Length))
	b = binary.AppendVarint(b, e.ModTime.UnixNano())
	if e.InPack() {
		b = append(b, e.Pack[:]...)
		b = binary.AppendUvarint(b, uint64(e.Offset))
	}
	return b
}

func decodeLoc(b []byte) (indexEntry, error) {
	var e indexEntry
	if len(b) < 5 {
		return e, errors.New("location record too short")
	}
	where, flags := b[0], b[1]
	e.Tag, e.Damaged = b[2], flags&locFlagDamaged != 0
	r := indexReader{b: b[3:]}
	e.Length = int64(r.uvarint())
	e.ModTime = time.Unix(0, r.varint()).UTC()
	switch where {
	case locSingle:
	case locPacked:
		copy(e.Pack[:], r.bytes(objects.DigestSize))
		e.Offset = int64(r.uvarint())
	default:
		return e, fmt.Errorf("location record of unknown kind %d", where)
	}
	if r.err != nil || len(r.b) != 0 || e.Length < 0 || e.Offset < 0 {
		return e, errors.New("location record does not decode")
	}
	return e, nil
}

func encodePackRecord(p objects.PackInfo) []byte {
	start := int64(0)
	if len(p.Entries) > 0 {
		start = p.Entries[0].Offset
	}
	b := binary.AppendUvarint(nil, uint64(p.Size))
	b = binary.AppendVarint(b, p.ModTime.UnixNano())
	b = binary.AppendUvarint(b, uint64(start))
	b = binary.AppendUvarint(b, uint64(len(p.Entries)))
	for _, e := range p.Entries {
		b = append(b, e.Digest[:]...)
		b = append(b, e.Tag)
		b = binary.AppendUvarint(b, uint64(e.Length))
	}
	return b
}

func decodePackRecord(d objects.Digest, b []byte) (*packRecord, error) {
	r := indexReader{b: b}
	p := &packRecord{Digest: d}
	p.Size = int64(r.uvarint())
	p.ModTime = time.Unix(0, r.varint()).UTC()
	p.DataStart = int64(r.uvarint())
	n := r.uvarint()
	if r.err != nil || n > uint64(len(r.b)/(objects.DigestSize+2)) {
		return nil, errors.New("pack record does not decode")
	}
	off := p.DataStart
	p.Entries = make([]objects.PackEntry, 0, n)
	for range n {
		var e objects.PackEntry
		copy(e.Digest[:], r.bytes(objects.DigestSize))
		e.Tag = r.byte()
		e.Length = int64(r.uvarint())
		e.Offset = off
		off += e.Length
		p.Entries = append(p.Entries, e)
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, errors.New("pack record does not decode")
	}
	return p, nil
}

type indexReader struct {
	b   []byte
	err error
}

func (r *indexReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errors.New("bad uvarint")
		r.b = nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *indexReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errors.New("bad varint")
		r.b = nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *indexReader) byte() byte {
	if len(r.b) < 1 {
		r.err = errors.New("short record")
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *indexReader) bytes(n int) []byte {
	if len(r.b) < n {
		r.err = errors.New("short record")
		r.b = nil
		return make([]byte, n)
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

// createObjIndex creates the index's buckets (schema migration 2 to 3).
func createObjIndex(tx *bolt.Tx) error {
	b, err := tx.CreateBucketIfNotExists(bucketObjIndex)
	if err != nil {
		return err
	}
	if _, err := b.CreateBucketIfNotExists(bucketLoc); err != nil {
		return err
	}
	_, err = b.CreateBucketIfNotExists(bucketPacks)
	return err
}

func locBucket(tx *bolt.Tx) *bolt.Bucket  { return tx.Bucket(bucketObjIndex).Bucket(bucketLoc) }
func packBucket(tx *bolt.Tx) *bolt.Bucket { return tx.Bucket(bucketObjIndex).Bucket(bucketPacks) }

// indexLocate returns where d is stored, if the index knows.
func indexLocate(tx *bolt.Tx, d objects.Digest) (indexEntry, bool, error) {
	v := locBucket(tx).Get(d[:])
	if v == nil {
		return indexEntry{}, false, nil
	}
	e, err := decodeLoc(v)
	if err != nil {
		return indexEntry{}, false, fmt.Errorf("object index: %s: %w", d.Short(), err)
	}
	return e, true, nil
}

// indexAddPack records a stored pack and locates every object in it
// there, replacing what the index said about those objects.
func indexAddPack(tx *bolt.Tx, p objects.PackInfo) error {
	if err := packBucket(tx).Put(p.Digest[:], encodePackRecord(p)); err != nil {
		return err
	}
	for _, e := range p.Entries {
		loc := indexEntry{Location: objects.Location{Pack: p.Digest, Offset: e.Offset, Length: e.Length, ModTime: p.ModTime}, Tag: e.Tag}
		if err := locBucket(tx).Put(e.Digest[:], encodeLoc(loc)); err != nil {
			return err
		}
	}
	return nil
}

// indexAddSingle records that d is stored as a single blob. An object the
// index already locates in good order keeps its location.
func indexAddSingle(tx *bolt.Tx, d objects.Digest, size int64, tag byte, modTime time.Time) error {
	if cur, ok, err := indexLocate(tx, d); err == nil && ok && !cur.Damaged {
		return nil
	}
	loc := indexEntry{Location: objects.Location{Length: size, ModTime: modTime}, Tag: tag}
	return locBucket(tx).Put(d[:], encodeLoc(loc))
}

// indexForget drops d from the index.
func indexForget(tx *bolt.Tx, d objects.Digest) error { return locBucket(tx).Delete(d[:]) }

// indexMarkDamaged marks the copy of d at loc as damaged (a zero loc.Pack:
// the single blob), unless the index has located d elsewhere since.
func indexMarkDamaged(tx *bolt.Tx, d objects.Digest, loc objects.Location) error {
	cur, ok, err := indexLocate(tx, d)
	if err != nil {
		return err
	}
	if ok && (cur.Pack != loc.Pack || cur.Offset != loc.Offset) {
		return nil
	}
	if !ok {
		cur = indexEntry{Location: loc}
	}
	cur.Damaged = true
	return locBucket(tx).Put(d[:], encodeLoc(cur))
}

// indexPack returns the record of pack p.
func indexPack(tx *bolt.Tx, p objects.Digest) (*packRecord, bool, error) {
	v := packBucket(tx).Get(p[:])
	if v == nil {
		return nil, false, nil
	}
	r, err := decodePackRecord(p, v)
	if err != nil {
		return nil, false, fmt.Errorf("object index: pack %s: %w", p.Short(), err)
	}
	return r, true, nil
}

// indexDropPack forgets pack p and every object the index locates in it,
// and returns those objects.
func indexDropPack(tx *bolt.Tx, p objects.Digest) ([]objects.Digest, error) {
	rec, ok, err := indexPack(tx, p)
	if err != nil || !ok {
		return nil, err
	}
	var dropped []objects.Digest
	for _, e := range rec.Entries {
		cur, ok, err := indexLocate(tx, e.Digest)
		if err != nil {
			return nil, err
		}
		if ok && cur.Pack == p {
			if err := indexForget(tx, e.Digest); err != nil {
				return nil, err
			}
			dropped = append(dropped, e.Digest)
		}
	}
	return dropped, packBucket(tx).Delete(p[:])
}

// indexForEach calls fn for every located object.
func indexForEach(tx *bolt.Tx, fn func(d objects.Digest, e indexEntry) error) error {
	return locBucket(tx).ForEach(func(k, v []byte) error {
		if len(k) != objects.DigestSize {
			return fmt.Errorf("object index: a key of %d bytes", len(k))
		}
		e, err := decodeLoc(v)
		if err != nil {
			return fmt.Errorf("object index: %x: %w", k, err)
		}
		return fn(objects.Digest(k), e)
	})
}

// indexForEachPack calls fn for every recorded pack.
func indexForEachPack(tx *bolt.Tx, fn func(p *packRecord) error) error {
	return packBucket(tx).ForEach(func(k, v []byte) error {
		if len(k) != objects.DigestSize {
			return fmt.Errorf("object index: a pack key of %d bytes", len(k))
		}
		r, err := decodePackRecord(objects.Digest(k), v)
		if err != nil {
			return fmt.Errorf("object index: pack %x: %w", k, err)
		}
		return fn(r)
	})
}

// locator is the object index as an objects.Locator, for the Packed view
// of the store that DB.Store returns.
type locator struct{ db *DB }

var _ objects.Locator = locator{}

func (l locator) Locate(ctx context.Context, d objects.Digest) (objects.Location, bool, error) {
	if err := ctx.Err(); err != nil {
		return objects.Location{}, false, err
	}
	var e indexEntry
	var ok bool
	err := l.db.view(func(tx *bolt.Tx) error {
		var err error
		e, ok, err = indexLocate(tx, d)
		return err
	})
	return e.Location, ok, err
}

func (l locator) Record(ctx context.Context, p objects.PackInfo) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return l.db.update(func(tx *bolt.Tx) error { return indexAddPack(tx, p) })
}

func (l locator) Forget(ctx context.Context, d objects.Digest) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return l.db.update(func(tx *bolt.Tx) error { return indexForget(tx, d) })
}

// Damaged marks the copy, so that the next write of d stores a good one.
// A read-only database (fsck's) leaves the index as it is.
func (l locator) Damaged(ctx context.Context, d objects.Digest, loc objects.Location) error {
	if l.db.opts.ReadOnly {
		return nil
	}
	l.db.log.Warn("meta: a stored object does not match its digest; the next write of the same content stores a good copy",
		"digest", d.String(), "pack", packName(loc.Pack))
	return l.db.update(func(tx *bolt.Tx) error { return indexMarkDamaged(tx, d, loc) })
}

func (l locator) ForEach(ctx context.Context, fn func(objects.Digest, objects.Location) error) error {
	type item struct {
		d   objects.Digest
		loc objects.Location
	}
	var all []item
	err := l.db.view(func(tx *bolt.Tx) error {
		return indexForEach(tx, func(d objects.Digest, e indexEntry) error {
			all = append(all, item{d, e.Location})
			return nil
		})
	})
	if err != nil {
		return err
	}
	for _, it := range all {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(it.d, it.loc); err != nil {
			return err
		}
	}
	return nil
}

func (l locator) IsPack(ctx context.Context, p objects.Digest) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	var ok bool
	err := l.db.view(func(tx *bolt.Tx) error {
		ok = packBucket(tx).Get(p[:]) != nil
		return nil
	})
	return ok, err
}

// packName names a pack in logs ("" for a single blob).
func packName(p objects.Digest) string {
	if p.IsZero() {
		return ""
	}
	return p.Short()
}
