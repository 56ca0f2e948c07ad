package meta

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/wsfs/wsfs/meta/kv"
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
	bucketLoc   = kv.B("objindex", "loc")
	bucketPacks = kv.B("objindex", "packs")
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

// indexLocate returns where d is stored, if the index knows.
func indexLocate(tx kv.Reader, d objects.Digest) (indexEntry, bool, error) {
	v, err := tx.Get(bucketLoc, d[:])
	if v == nil || err != nil {
		return indexEntry{}, false, err
	}
	e, err := decodeLoc(v)
	if err != nil {
		return indexEntry{}, false, fmt.Errorf("object index: %s: %w", d.Short(), err)
	}
	return e, true, nil
}

// indexAddPack records a stored pack and locates every object in it
// there, replacing what the index said about those objects.
func indexAddPack(tx kv.Txn, p objects.PackInfo) error {
	if err := tx.Put(bucketPacks, p.Digest[:], encodePackRecord(p)); err != nil {
		return err
	}
	for _, e := range p.Entries {
		loc := indexEntry{Location: objects.Location{Pack: p.Digest, Offset: e.Offset, Length: e.Length, ModTime: p.ModTime}, Tag: e.Tag}
		if err := tx.Put(bucketLoc, e.Digest[:], encodeLoc(loc)); err != nil {
			return err
		}
	}
	return nil
}

// indexAddSingle records that d is stored as a single blob. An object the
// index already locates in good order keeps its location.
func indexAddSingle(tx kv.Txn, d objects.Digest, size int64, tag byte, modTime time.Time) error {
	if cur, ok, err := indexLocate(tx, d); err == nil && ok && !cur.Damaged {
		return nil
	}
	loc := indexEntry{Location: objects.Location{Length: size, ModTime: modTime}, Tag: tag}
	return tx.Put(bucketLoc, d[:], encodeLoc(loc))
}

// indexForget drops d from the index.
func indexForget(tx kv.Txn, d objects.Digest) error { return tx.Delete(bucketLoc, d[:]) }

// indexMarkDamaged marks the copy of d at loc as damaged (a zero loc.Pack:
// the single blob), unless the index has located d elsewhere since.
func indexMarkDamaged(tx kv.Txn, d objects.Digest, loc objects.Location) error {
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
	return tx.Put(bucketLoc, d[:], encodeLoc(cur))
}

// indexPack returns the record of pack p.
func indexPack(tx kv.Reader, p objects.Digest) (*packRecord, bool, error) {
	v, err := tx.Get(bucketPacks, p[:])
	if v == nil || err != nil {
		return nil, false, err
	}
	r, err := decodePackRecord(p, v)
	if err != nil {
		return nil, false, fmt.Errorf("object index: pack %s: %w", p.Short(), err)
	}
	return r, true, nil
}

// indexDropPack forgets pack p and every object the index locates in it,
// and returns those objects.
func indexDropPack(tx kv.Txn, p objects.Digest) ([]objects.Digest, error) {
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
	return dropped, tx.Delete(bucketPacks, p[:])
}

// indexForEach calls fn for every located object.
func indexForEach(tx kv.Reader, fn func(d objects.Digest, e indexEntry) error) error {
	return tx.Scan(bucketLoc, kv.ScanOptions{}, func(k, v []byte) error {
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
func indexForEachPack(tx kv.Reader, fn func(p *packRecord) error) error {
	return tx.Scan(bucketPacks, kv.ScanOptions{}, func(k, v []byte) error {
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
	err := l.db.view(ctx, func(tx kv.Reader) error {
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
	return l.db.recordPacks(ctx, []objects.PackInfo{p})
}

func (l locator) Forget(ctx context.Context, d objects.Digest) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return l.db.update(ctx, func(tx kv.Txn) error { return indexForget(tx, d) })
}

// Damaged marks the copy, so that the next write of d stores a good one.
// A read-only database (fsck's) leaves the index as it is.
func (l locator) Damaged(ctx context.Context, d objects.Digest, loc objects.Location) error {
	if l.db.opts.ReadOnly {
		return nil
	}
	l.db.log.Warn("meta: a stored object does not match its digest; the next write of the same content stores a good copy",
		"digest", d.String(), "pack", packName(loc.Pack))
	return l.db.update(ctx, func(tx kv.Txn) error { return indexMarkDamaged(tx, d, loc) })
}

func (l locator) ForEach(ctx context.Context, fn func(objects.Digest, objects.Location) error) error {
	type item struct {
		d   objects.Digest
		loc objects.Location
	}
	var all []item
	err := l.db.view(ctx, func(tx kv.Reader) error {
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
	err := l.db.view(ctx, func(tx kv.Reader) error {
		v, err := tx.Get(bucketPacks, p[:])
		ok = v != nil
		return err
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

// Sizes for planning index writes against an engine's limits: a location
// record's largest encoding, and what an engine adds to every write (its
// key prefix and framing).
const (
	locRecordMax       = 3 + 3*binary.MaxVarintLen64 + objects.DigestSize
	indexWriteOverhead = 64
)

// maxPackEntries is the most objects a pack of this database holds: as
// many as a pack may (objects.MaxPackEntries), and few enough that its
// record fits in a quarter of one transaction of the engine.
func (db *DB) maxPackEntries() int {
	n := objects.MaxPackEntries
	if b := db.eng.Limits().Bytes; b > 0 {
		n = min(n, b/4/(objects.DigestSize+1+binary.MaxVarintLen64))
	}
	return max(n, 1)
}

// recordPacks records stored packs in the object index (indexInChunks).
func (db *DB) recordPacks(ctx context.Context, packs []objects.PackInfo) error {
	return db.indexInChunks(ctx, packs, nil)
}

// indexInChunks records stored packs and single blobs in the object index,
// in one transaction when the engine's limits allow and otherwise in
// several, each pack's record before the locations of its objects. Every
// transaction names only stored objects, so a cut between two of them
// leaves the index missing objects, which it may.
func (db *DB) indexInChunks(ctx context.Context, packs []objects.PackInfo, singles []singleRecord) error {
	type write struct {
		fn    func(tx kv.Txn) error
		bytes int
	}
	var ws []write
	for _, p := range packs {
		rec := encodePackRecord(p)
		ws = append(ws, write{func(tx kv.Txn) error { return tx.Put(bucketPacks, p.Digest[:], rec) }, indexWriteOverhead + objects.DigestSize + len(rec)})
		for _, e := range p.Entries {
			loc := encodeLoc(indexEntry{Location: objects.Location{Pack: p.Digest, Offset: e.Offset, Length: e.Length, ModTime: p.ModTime}, Tag: e.Tag})
			ws = append(ws, write{func(tx kv.Txn) error { return tx.Put(bucketLoc, e.Digest[:], loc) }, indexWriteOverhead + objects.DigestSize + len(loc)})
		}
	}
	for _, s := range singles {
		ws = append(ws, write{func(tx kv.Txn) error { return indexAddSingle(tx, s.d, s.size, s.tag, s.modTime) }, indexWriteOverhead + objects.DigestSize + locRecordMax})
	}
	lim := db.eng.Limits()
	for len(ws) > 0 {
		n, size := 0, 0
		for n < len(ws) && (n == 0 || lim.Fits(n+1, size+ws[n].bytes)) {
			size += ws[n].bytes
			n++
		}
		chunk := ws[:n]
		ws = ws[n:]
		err := db.update(ctx, func(tx kv.Txn) error {
			for _, w := range chunk {
				if err := w.fn(tx); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// unindexPack forgets pack p and every object the index locates in it, in
// as many transactions as the engine's limits ask (the locations first,
// the pack's record last), and returns those objects.
func (db *DB) unindexPack(ctx context.Context, p objects.Digest) ([]objects.Digest, error) {
	var rec *packRecord
	err := db.view(ctx, func(tx kv.Reader) error {
		var err error
		rec, _, err = indexPack(tx, p)
		return err
	})
	if err != nil || rec == nil {
		return nil, err
	}
	lim := db.eng.Limits()
	if lim.Ops == 0 || len(rec.Entries) < lim.Ops/3 {
		var dropped []objects.Digest
		err := db.update(ctx, func(tx kv.Txn) error {
			if err := db.checkHolds(tx, rec.Entries); err != nil {
				return err
			}
			var err error
			dropped, err = indexDropPack(tx, p)
			return err
		})
		return dropped, err
	}
	step := max(1, lim.Ops/3)
	var dropped []objects.Digest
	for i := 0; i < len(rec.Entries); i += step {
		part := rec.Entries[i:min(i+step, len(rec.Entries))]
		var got []objects.Digest
		err := db.update(ctx, func(tx kv.Txn) error {
			got = got[:0]
			if err := db.checkHolds(tx, part); err != nil {
				return err
			}
			for _, e := range part {
				cur, ok, err := indexLocate(tx, e.Digest)
				if err != nil {
					return err
				}
				if ok && cur.Pack == p {
					if err := indexForget(tx, e.Digest); err != nil {
						return err
					}
					got = append(got, e.Digest)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		dropped = append(dropped, got...)
	}
	err = db.update(ctx, func(tx kv.Txn) error { return tx.Delete(bucketPacks, p[:]) })
	return dropped, err
}

// checkHolds fails with errHeld when a commit on some server holds one of
// the objects of a pack gc is about to drop (holds.go).
func (db *DB) checkHolds(tx kv.Reader, entries []objects.PackEntry) error {
	if !db.sharedHolds() {
		return nil
	}
	for _, e := range entries {
		if h, err := held(tx, e.Digest); err != nil || h {
			if h {
				return errHeld
			}
			return err
		}
	}
	return nil
}
