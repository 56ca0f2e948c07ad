package objects

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
)

// A pack holds many small objects in one blob, so that storing them costs
// one upload instead of one per object. It is stored like any blob, under
// the SHA-256 of its bytes, and it carries its own index, so the store
// alone says what every pack holds:
//
//	"wsfs-pack1\n"                 magic line (11 bytes)
//	uvarint  n                     length of the index that follows
//	index (n bytes):
//	    uvarint  count             number of objects
//	    count × {
//	        [32]byte  digest       SHA-256 of the object
//	        byte      tag          chosen by the writer (meta: the object's kind)
//	        uvarint   length       the object's size in bytes
//	    }
//	[32]byte  SHA-256 of everything above (magic, n and index)
//	the objects' bytes, concatenated in index order
//
// An object's offset is where the data starts (just after the index's
// checksum) plus the lengths of the objects before it, so entries cannot
// overlap, and a pack is exactly as long as its index says. Digests are
// unique within a pack. The index's checksum lets a reader trust an index
// read on its own (a ranged read of the pack's first bytes); every object
// read out of a pack is verified against its own digest, like any blob.
const packMagic = "wsfs-pack1\n"

// Pack limits. Objects smaller than PackThreshold go into packs; a pack is
// closed before it would grow past MaxPackBytes or MaxPackEntries, so the
// read cache can keep whole packs and a pack's index stays small enough to
// read in one request.
const (
	PackThreshold  = 512 << 10
	MaxPackBytes   = 8 << 20
	MaxPackEntries = 50_000

	// packHeadRead is how many bytes ReadPackIndex asks for first: the
	// whole index of a pack of up to about 1,500 objects.
	packHeadRead = 64 << 10
	// packEntryMin is the smallest encoding of an index entry.
	packEntryMin = DigestSize + 2
)

// ErrBadPack reports a pack whose index does not decode, does not match
// its checksum, or does not match the pack's size.
var ErrBadPack = errors.New("objects: damaged pack")

// PackObject is one object to put in a pack.
type PackObject struct {
	Digest Digest
	Tag    byte
	Data   []byte
}

// PackEntry is one object of a pack, as its index describes it.
type PackEntry struct {
	Digest Digest `json:"digest"`
	Tag    byte   `json:"tag"`
	Offset int64  `json:"offset"` // from the start of the pack
	Length int64  `json:"length"`
}

// PackIndex is what a pack's own index says.
type PackIndex struct {
	Entries   []PackEntry
	DataStart int64 // offset of the first object's bytes
	Size      int64 // the pack's size in bytes
}

// Find returns the entry of d.
func (p *PackIndex) Find(d Digest) (PackEntry, bool) {
	for _, e := range p.Entries {
		if e.Digest == d {
			return e, true
		}
	}
	return PackEntry{}, false
}

// PackInfo describes a stored pack.
type PackInfo struct {
	Digest  Digest
	Size    int64
	ModTime time.Time // when it was stored (for WritePack: when it was written)
	Entries []PackEntry
}

// IsPackHead reports whether b, the first bytes of a blob, start a pack.
func IsPackHead(b []byte) bool { return bytes.HasPrefix(b, []byte(packMagic)) }

// PackMagicLen is how many first bytes of a blob IsPackHead needs.
const PackMagicLen = len(packMagic)

// EncodePack lays objs out as a pack, in the order given, and returns its
// bytes and entries. Every object must hash to its digest (else the error
// wraps ErrDigestMismatch) and digests must be unique.
func EncodePack(objs []PackObject) ([]byte, []PackEntry, error) {
	if len(objs) > MaxPackEntries {
		return nil, nil, fmt.Errorf("objects: pack of %d objects: at most %d fit", len(objs), MaxPackEntries)
	}
	seen := make(map[Digest]bool, len(objs))
	index := binary.AppendUvarint(nil, uint64(len(objs)))
	var dataLen int64
	for _, o := range objs {
		if seen[o.Digest] {
			return nil, nil, fmt.Errorf("objects: pack: object %s given twice", o.Digest.Short())
		}
		seen[o.Digest] = true
		if Sum(o.Data) != o.Digest {
			return nil, nil, fmt.Errorf("objects: pack: object %s: %w", o.Digest.Short(), ErrDigestMismatch)
		}
		index = append(index, o.Digest[:]...)
		index = append(index, o.Tag)
		index = binary.AppendUvarint(index, uint64(len(o.Data)))
		dataLen += int64(len(o.Data))
	}
	head := append([]byte(packMagic), binary.AppendUvarint(nil, uint64(len(index)))...)
	head = append(head, index...)
	sum := sha256.Sum256(head)
	head = append(head, sum[:]...)
	out := make([]byte, len(head), int64(len(head))+dataLen)
	copy(out, head)
	entries := make([]PackEntry, len(objs))
	for i, o := range objs {
		entries[i] = PackEntry{Digest: o.Digest, Tag: o.Tag, Offset: int64(len(out)), Length: int64(len(o.Data))}
		out = append(out, o.Data...)
	}
	return out, entries, nil
}

// errShortHead reports that more of the pack's first bytes are needed.
type errShortHead struct{ need int64 }

func (e errShortHead) Error() string { return fmt.Sprintf("need the first %d bytes", e.need) }

// parsePackHead decodes a pack's index from its first bytes. It returns
// errShortHead when head is too short to hold the whole index.
func parsePackHead(head []byte) (*PackIndex, error) {
	if !IsPackHead(head) {
		if len(head) < len(packMagic) && bytes.HasPrefix([]byte(packMagic), head) {
			return nil, errShortHead{int64(len(packMagic)) + binary.MaxVarintLen64}
		}
		return nil, fmt.Errorf("%w: it does not start with %q", ErrBadPack, packMagic)
	}
	rest := head[len(packMagic):]
	n, k := binary.Uvarint(rest)
	switch {
	case k == 0:
		return nil, errShortHead{int64(len(packMagic)) + binary.MaxVarintLen64}
	case k < 0 || n > uint64(MaxPackEntries)*(DigestSize+1+binary.MaxVarintLen64)+binary.MaxVarintLen64:
		return nil, fmt.Errorf("%w: index length out of range", ErrBadPack)
	}
	indexStart := len(packMagic) + k
	dataStart := int64(indexStart) + int64(n) + DigestSize
	if int64(len(head)) < dataStart {
		return nil, errShortHead{dataStart}
	}
	index := head[indexStart : indexStart+int(n)]
	if sha256.Sum256(head[:indexStart+int(n)]) != [32]byte(head[indexStart+int(n):dataStart]) {
		return nil, fmt.Errorf("%w: its index does not match its checksum", ErrBadPack)
	}
	count, k := binary.Uvarint(index)
	if k <= 0 || count > uint64(len(index)/packEntryMin) || count > MaxPackEntries {
		return nil, fmt.Errorf("%w: bad object count", ErrBadPack)
	}
	index = index[k:]
	p := &PackIndex{Entries: make([]PackEntry, 0, count), DataStart: dataStart}
	off := dataStart
	seen := make(map[Digest]bool, count)
	for i := uint64(0); i < count; i++ {
		if len(index) < DigestSize+2 {
			return nil, fmt.Errorf("%w: index cut in entry %d", ErrBadPack, i)
		}
		var e PackEntry
		copy(e.Digest[:], index)
		e.Tag = index[DigestSize]
		length, k := binary.Uvarint(index[DigestSize+1:])
		if k <= 0 || length > 1<<40 {
			return nil, fmt.Errorf("%w: bad length in entry %d", ErrBadPack, i)
		}
		if seen[e.Digest] {
			return nil, fmt.Errorf("%w: object %s listed twice", ErrBadPack, e.Digest.Short())
		}
		seen[e.Digest] = true
		e.Offset, e.Length = off, int64(length)
		off += e.Length
		p.Entries = append(p.Entries, e)
		index = index[DigestSize+1+k:]
	}
	if len(index) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the last index entry", ErrBadPack, len(index))
	}
	p.Size = off
	return p, nil
}

// DecodePack decodes the index of a whole pack held in memory and checks
// that the pack is as long as the index says. It does not hash the
// objects: VerifyPack does.
func DecodePack(b []byte) (*PackIndex, error) {
	p, err := parsePackHead(b)
	var short errShortHead
	if errors.As(err, &short) {
		return nil, fmt.Errorf("%w: %d bytes, too short for its index", ErrBadPack, len(b))
	}
	if err != nil {
		return nil, err
	}
	if int64(len(b)) != p.Size {
		return nil, fmt.Errorf("%w: %d bytes, its index says %d", ErrBadPack, len(b), p.Size)
	}
	return p, nil
}

// VerifyPack decodes a whole pack and hashes every object in it. It returns
// the index and the entries whose bytes do not hash to their digest; an
// index that does not decode is an error wrapping ErrBadPack.
func VerifyPack(b []byte) (*PackIndex, []PackEntry, error) {
	p, err := DecodePack(b)
	if err != nil {
		return nil, nil, err
	}
	var bad []PackEntry
	for _, e := range p.Entries {
		if Sum(b[e.Offset:e.Offset+e.Length]) != e.Digest {
			bad = append(bad, e)
		}
	}
	return p, bad, nil
}

// ReadPackIndex reads the index of the pack stored under pack in s, with
// one ranged read of its first bytes (two for a pack of many objects). It
// does not check the pack's length: a read of an object past the end of a
// truncated pack fails verification.
func ReadPackIndex(ctx context.Context, s Store, pack Digest) (*PackIndex, error) {
	want := int64(packHeadRead)
	for range 3 {
		head, err := readHead(ctx, s, pack, want)
		if err != nil {
			return nil, err
		}
		p, err := parsePackHead(head)
		var short errShortHead
		switch {
		case err == nil:
			return p, nil
		case errors.As(err, &short) && int64(len(head)) == want && short.need > want:
			want = short.need
			continue
		case errors.As(err, &short):
			return nil, fmt.Errorf("objects: pack %s: %w: %d bytes, too short for its index", pack.Short(), ErrBadPack, len(head))
		}
		return nil, fmt.Errorf("objects: pack %s: %w", pack.Short(), err)
	}
	return nil, fmt.Errorf("objects: pack %s: %w: its index keeps growing as it is read", pack.Short(), ErrBadPack)
}

// readHead reads the first n bytes of blob d (fewer if it is shorter).
// A read of a blob shorter than n is a whole read, which the store
// verifies: a damaged pack then fails it, though its index (checked by
// its own checksum) may be intact, so the bytes are read again as two
// ranges, which no store verifies.
func readHead(ctx context.Context, s Store, d Digest, n int64) ([]byte, error) {
	read := func(off, length int64) ([]byte, error) {
		rc, err := s.Open(ctx, d, off, length)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		if err != nil {
			return nil, fmt.Errorf("objects: pack %s: %w", d.Short(), err)
		}
		return b, nil
	}
	b, err := read(0, n)
	if !errors.Is(err, ErrCorrupt) {
		return b, err
	}
	first, err := read(0, 1)
	if err != nil {
		return nil, err
	}
	rest, err := read(1, n-1)
	if err != nil {
		return nil, err
	}
	return append(first, rest...), nil
}

// WritePack stores objs as one pack in s and returns what it stored.
func WritePack(ctx context.Context, s Store, objs []PackObject) (PackInfo, error) {
	b, entries, err := EncodePack(objs)
	if err != nil {
		return PackInfo{}, err
	}
	d := Sum(b)
	if err := s.Put(ctx, d, bytes.NewReader(b), int64(len(b))); err != nil {
		return PackInfo{}, err
	}
	return PackInfo{Digest: d, Size: int64(len(b)), ModTime: time.Now(), Entries: entries}, nil
}

// SplitPacks groups objs, in order, into packs within MaxPackBytes and
// MaxPackEntries (an object larger than MaxPackBytes gets a pack of its
// own).
func SplitPacks(objs []PackObject) [][]PackObject {
	var out [][]PackObject
	var cur []PackObject
	var size int64
	for _, o := range objs {
		if len(cur) > 0 && (size+int64(len(o.Data)) > MaxPackBytes || len(cur) >= MaxPackEntries) {
			out = append(out, cur)
			cur, size = nil, 0
		}
		cur = append(cur, o)
		size += int64(len(o.Data))
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// ReadPack reads a stored pack with two ranged reads (its index, then its
// objects) and returns its index and its objects, each checked against its
// digest: a damaged or missing (cut) object is left out of objs and listed
// in bad, so that one damaged byte costs one object, not the pack.
func ReadPack(ctx context.Context, s Store, pack Digest) (idx *PackIndex, objs []PackObject, bad []PackEntry, err error) {
	idx, err = ReadPackIndex(ctx, s, pack)
	if err != nil {
		return nil, nil, nil, err
	}
	var data []byte
	if n := idx.Size - idx.DataStart; n > 0 {
		rc, err := s.Open(ctx, pack, idx.DataStart, n)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("objects: pack %s: %w", pack.Short(), err)
		}
		data, err = io.ReadAll(io.LimitReader(rc, n))
		rc.Close()
		if err != nil {
			return nil, nil, nil, fmt.Errorf("objects: pack %s: %w", pack.Short(), err)
		}
	}
	for _, e := range idx.Entries {
		start, end := e.Offset-idx.DataStart, e.Offset-idx.DataStart+e.Length
		if end > int64(len(data)) || Sum(data[start:end]) != e.Digest {
			bad = append(bad, e)
			continue
		}
		objs = append(objs, PackObject{Digest: e.Digest, Tag: e.Tag, Data: data[start:end:end]})
	}
	return idx, objs, bad, nil
}
