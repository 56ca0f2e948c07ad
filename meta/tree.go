package meta

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/wsfs/wsfs/objects"
)

// EntryKind is the type of a directory entry.
type EntryKind uint8

// Entry kinds. FIFOs, sockets and devices are recorded as entries of their
// kind with no content (a device keeps its number, Rdev).
const (
	KindFile     EntryKind = 1
	KindDir      EntryKind = 2
	KindSymlink  EntryKind = 3
	KindFIFO     EntryKind = 4
	KindSocket   EntryKind = 5
	KindCharDev  EntryKind = 6
	KindBlockDev EntryKind = 7
)

var kindNames = map[EntryKind]string{KindFile: "file", KindDir: "dir", KindSymlink: "symlink",
	KindFIFO: "fifo", KindSocket: "socket", KindCharDev: "chardev", KindBlockDev: "blockdev"}

func (k EntryKind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind-%d", uint8(k))
}

// Special reports a FIFO, socket or device: an entry with no content.
func (k EntryKind) Special() bool { return k >= KindFIFO && k <= KindBlockDev }

// MarshalText implements encoding.TextMarshaler ("file", "dir", "symlink",
// "fifo", "socket", "chardev", "blockdev").
func (k EntryKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *EntryKind) UnmarshalText(b []byte) error {
	for kind, name := range kindNames {
		if name == string(b) {
			*k = kind
			return nil
		}
	}
	return fmt.Errorf("meta: unknown entry kind %q", b)
}

// Stats counts what a tree holds, recursively. The root directory itself is
// not counted; the entries quota counts it (Entries()+1).
type Stats struct {
	Files    int64 `json:"files"`
	Dirs     int64 `json:"dirs"`
	Symlinks int64 `json:"symlinks"`
	// Bytes is the sum of the file sizes and of the extended attributes'
	// names and values. A file with several names (a link group) counts
	// on each, like every entry.
	Bytes int64 `json:"bytes"`
	// Specials counts FIFOs, sockets and devices.
	Specials int64 `json:"specials,omitempty"`
	// Linked counts the names that belong to a link group: a directory
	// whose Sub.Linked is zero holds no name of one, so a reader that
	// must find every name of a group reads only the subtrees that do.
	Linked int64 `json:"linked,omitempty"`
}

// Entries returns the number of entries (files, dirs, symlinks, special
// files).
func (s Stats) Entries() int64 { return s.Files + s.Dirs + s.Symlinks + s.Specials }

// Add returns the sum of two totals.
func (s Stats) Add(o Stats) Stats {
	return Stats{s.Files + o.Files, s.Dirs + o.Dirs, s.Symlinks + o.Symlinks, s.Bytes + o.Bytes, s.Specials + o.Specials, s.Linked + o.Linked}
}

func (s Stats) sub(o Stats) Stats {
	return Stats{s.Files - o.Files, s.Dirs - o.Dirs, s.Symlinks - o.Symlinks, s.Bytes - o.Bytes, s.Specials - o.Specials, s.Linked - o.Linked}
}

// Entry is one name in a directory.
type Entry struct {
	Name string    `json:"name"`
	Kind EntryKind `json:"kind"`
	// Mode holds the permission bits only (fs.ModePerm | setuid/setgid/sticky).
	Mode fs.FileMode `json:"mode"`
	// Size is the file's length, the symlink target's length, or 0 for a
	// directory (see Sub) and a special file.
	Size  int64     `json:"size"`
	MTime time.Time `json:"mtime"`
	// Digest is the file's content blob or the directory's tree; zero for a
	// symlink and a special file.
	Digest objects.Digest `json:"digest"`
	Target string         `json:"target,omitempty"` // symlink only
	// Sub is what a directory holds, recursively (zero for others). It
	// lets a commit keep workspace totals without walking subtrees.
	Sub Stats `json:"sub"`
	// Owned says UID and GID are recorded. Entries written before wsfs
	// kept owners (tree format 1), and those made by layers that know no
	// owner (put, import without owners), have none: the mount shows
	// them as its own user's.
	Owned bool   `json:"owned,omitempty"`
	UID   uint32 `json:"uid,omitempty"`
	GID   uint32 `json:"gid,omitempty"`
	// Link, when not zero, makes this file one name of a link group (a
	// file with several hard links): every name of the group in the
	// workspace's tree carries the same Link and the same content, mode,
	// owner and attributes. Numbers are unique within a tree.
	Link uint64 `json:"link,omitempty"`
	// Rdev is a device's number (KindCharDev, KindBlockDev), as
	// unix.Mkdev makes it.
	Rdev uint64 `json:"rdev,omitempty"`
	// Xattrs are the extended attributes, sorted by name, unique.
	Xattrs []Xattr `json:"xattrs,omitempty"`
}

// Xattr is one extended attribute.
type Xattr struct {
	Name  string `json:"name"`
	Value []byte `json:"value"`
}

// Linux's limits on extended attributes (XATTR_NAME_MAX, XATTR_SIZE_MAX).
const (
	MaxXattrName  = 255
	MaxXattrValue = 65536
)

// XattrBytes is what e's extended attributes count in the bytes quota:
// their names and values.
func (e *Entry) XattrBytes() int64 { return XattrBytes(e.Xattrs) }

// XattrKey is a digest of a list of extended attributes, for callers that
// tell entries apart by their attributes.
func XattrKey(xs []Xattr) objects.Digest {
	var b []byte
	for _, x := range xs {
		b = binary.AppendUvarint(b, uint64(len(x.Name)))
		b = append(b, x.Name...)
		b = binary.AppendUvarint(b, uint64(len(x.Value)))
		b = append(b, x.Value...)
	}
	return objects.Sum(b)
}

// XattrBytes is what a list of extended attributes counts in the bytes
// quota: their names and values.
func XattrBytes(xs []Xattr) int64 {
	var n int64
	for _, x := range xs {
		n += int64(len(x.Name) + len(x.Value))
	}
	return n
}

// Stats returns what the entry adds to its parent's totals.
func (e *Entry) Stats() Stats {
	s := Stats{Bytes: e.XattrBytes()}
	switch {
	case e.Kind == KindFile:
		s.Files, s.Bytes = 1, s.Bytes+e.Size
		if e.Link != 0 {
			s.Linked = 1
		}
	case e.Kind == KindSymlink:
		s.Symlinks = 1
	case e.Kind == KindDir:
		s = s.Add(Stats{Dirs: 1}).Add(e.Sub)
	case e.Kind.Special():
		s.Specials = 1
	}
	return s
}

// Tree is one directory: entries sorted by name (byte order), unique.
type Tree struct {
	Entries []Entry `json:"entries"`
}

// Find returns the entry called name.
func (t *Tree) Find(name string) (Entry, bool) {
	i := t.search(name)
	if i < len(t.Entries) && t.Entries[i].Name == name {
		return t.Entries[i], true
	}
	return Entry{}, false
}

func (t *Tree) search(name string) int {
	return sort.Search(len(t.Entries), func(i int) bool { return t.Entries[i].Name >= name })
}

// Stats returns what the tree holds, recursively.
func (t *Tree) Stats() Stats {
	var s Stats
	for i := range t.Entries {
		s = s.Add(t.Entries[i].Stats())
	}
	return s
}

// clone copies t deeply enough that the copy's entries, and their
// attribute lists, can be changed without changing t.
func (t *Tree) clone() *Tree {
	c := &Tree{Entries: append([]Entry(nil), t.Entries...)}
	for i := range c.Entries {
		if xs := c.Entries[i].Xattrs; xs != nil {
			c.Entries[i].Xattrs = cloneXattrs(xs)
		}
	}
	return c
}

func cloneXattrs(xs []Xattr) []Xattr {
	c := make([]Xattr, len(xs))
	for i, x := range xs {
		c[i] = Xattr{Name: x.Name, Value: append([]byte(nil), x.Value...)}
	}
	return c
}

// emptyTree is the encoding of a directory with no entries.
var emptyTree = encodeTree(&Tree{})

// EmptyTreeDigest is the digest of the empty directory.
var EmptyTreeDigest = objects.Sum(emptyTree)

// validName reports whether s can be a directory entry name.
func validName(s string) error {
	switch {
	case s == "":
		return errors.New("empty name")
	case s == "." || s == "..":
		return fmt.Errorf("name %q is reserved", s)
	case len(s) > MaxNameBytes:
		return fmt.Errorf("name %.20q... is %d bytes, the most is %d", s, len(s), MaxNameBytes)
	case strings.ContainsAny(s, "/\x00"):
		return fmt.Errorf("name %q contains / or NUL", s)
	}
	return nil
}

// encodeTree returns the canonical encoding of t, whose entries must be
// sorted and valid. The encoding is deterministic, so equal directories
// have equal digests. A directory that format 1 can hold (no owners, link
// groups, special files or extended attributes in it, nor special files or
// link groups below it) is written in format 1, so the trees written
// before format 2 keep their digests:
//
//	"wsfs-tree1\n" uvarint(count) entry1*
//	entry1  = uvarint(len) name  kind:byte  uvarint(mode)  varint(mtime unix ns)  body
//	file    : uvarint(size) digest[32]
//	symlink : uvarint(len) target
//	dir     : digest[32] uvarint(files) uvarint(dirs) uvarint(symlinks) uvarint(bytes)
//
//	"wsfs-tree2\n" uvarint(count) entry2*
//	entry2  = uvarint(len) name  kind:byte  uvarint(mode)  varint(mtime unix ns)
//	          uvarint(uid+1, 0 if not owned)  uvarint(gid+1, 0 if not owned)
//	          uvarint(link)  uvarint(nxattrs) (uvarint(len) name uvarint(len) value)*  body2
//	body2   = body, and for a dir also uvarint(specials) uvarint(linked);
//	fifo, socket: nothing; chardev, blockdev: uvarint(rdev)
func encodeTree(t *Tree) []byte {
	v2 := needsFormat2(t)
	b := make([]byte, 0, len(magicTree)+8+len(t.Entries)*64)
	if v2 {
		b = append(b, magicTree2...)
	} else {
		b = append(b, magicTree...)
	}
	b = binary.AppendUvarint(b, uint64(len(t.Entries)))
	for i := range t.Entries {
		e := &t.Entries[i]
		b = binary.AppendUvarint(b, uint64(len(e.Name)))
		b = append(b, e.Name...)
		b = append(b, byte(e.Kind))
		b = binary.AppendUvarint(b, uint64(e.Mode))
		b = binary.AppendVarint(b, timeNanos(e.MTime))
		if v2 {
			var uid, gid uint64
			if e.Owned {
				uid, gid = uint64(e.UID)+1, uint64(e.GID)+1
			}
			b = binary.AppendUvarint(b, uid)
			b = binary.AppendUvarint(b, gid)
			b = binary.AppendUvarint(b, e.Link)
			b = binary.AppendUvarint(b, uint64(len(e.Xattrs)))
			for _, x := range e.Xattrs {
				b = binary.AppendUvarint(b, uint64(len(x.Name)))
				b = append(b, x.Name...)
				b = binary.AppendUvarint(b, uint64(len(x.Value)))
				b = append(b, x.Value...)
			}
		}
		switch e.Kind {
		case KindFile:
			b = binary.AppendUvarint(b, uint64(e.Size))
			b = append(b, e.Digest[:]...)
		case KindSymlink:
			b = binary.AppendUvarint(b, uint64(len(e.Target)))
			b = append(b, e.Target...)
		case KindDir:
			b = append(b, e.Digest[:]...)
			b = binary.AppendUvarint(b, uint64(e.Sub.Files))
			b = binary.AppendUvarint(b, uint64(e.Sub.Dirs))
			b = binary.AppendUvarint(b, uint64(e.Sub.Symlinks))
			b = binary.AppendUvarint(b, uint64(e.Sub.Bytes))
			if v2 {
				b = binary.AppendUvarint(b, uint64(e.Sub.Specials))
				b = binary.AppendUvarint(b, uint64(e.Sub.Linked))
			}
		case KindCharDev, KindBlockDev:
			b = binary.AppendUvarint(b, e.Rdev)
		}
	}
	return b
}

// needsFormat2 reports whether t holds anything format 1 cannot.
func needsFormat2(t *Tree) bool {
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.Owned || e.Link != 0 || len(e.Xattrs) > 0 || e.Kind.Special() || e.Sub.Specials != 0 || e.Sub.Linked != 0 {
			return true
		}
	}
	return false
}

// Entry times are stored as nanoseconds since the Unix epoch. The zero
// time.Time is stored as the epoch, and times outside what an int64 of
// nanoseconds holds (before 1678, after 2262) are clamped.
var (
	minEntryTime = time.Unix(0, math.MinInt64)
	maxEntryTime = time.Unix(0, math.MaxInt64)
)

func timeNanos(t time.Time) int64 {
	switch {
	case t.IsZero():
		return 0
	case t.Before(minEntryTime):
		return math.MinInt64
	case t.After(maxEntryTime):
		return math.MaxInt64
	}
	return t.UnixNano()
}

func nanosTime(n int64) time.Time { return time.Unix(0, n).UTC() }

// decodeTree parses and validates an encoded tree, of either format.
func decodeTree(b []byte) (*Tree, error) {
	var v2 bool
	switch {
	case bytes.HasPrefix(b, []byte(magicTree)):
	case bytes.HasPrefix(b, []byte(magicTree2)):
		v2 = true
	default:
		return nil, errors.New("not a tree (no wsfs-tree1 or wsfs-tree2 header)")
	}
	r := treeReader{b: b[len(magicTree):]}
	n := r.uvarint()
	if r.err == nil && n > uint64(len(r.b)) {
		return nil, fmt.Errorf("tree claims %d entries in %d bytes", n, len(r.b))
	}
	t := &Tree{Entries: make([]Entry, 0, n)}
	for i := uint64(0); i < n && r.err == nil; i++ {
		var e Entry
		e.Name = string(r.bytes(r.uvarint()))
		e.Kind = EntryKind(r.byte())
		e.Mode = fs.FileMode(r.uvarint())
		e.MTime = nanosTime(r.varint())
		if v2 {
			uid, gid := r.uvarint(), r.uvarint()
			if (uid == 0) != (gid == 0) || uid > math.MaxUint32+1 || gid > math.MaxUint32+1 {
				if r.err == nil {
					return nil, fmt.Errorf("entry %q has a bad owner", e.Name)
				}
			}
			if uid != 0 {
				e.Owned, e.UID, e.GID = true, uint32(uid-1), uint32(gid-1)
			}
			e.Link = r.uvarint()
			nx := r.uvarint()
			if r.err == nil && nx > uint64(len(r.b)) {
				return nil, fmt.Errorf("entry %q claims %d attributes in %d bytes", e.Name, nx, len(r.b))
			}
			for j := uint64(0); j < nx && r.err == nil; j++ {
				name := string(r.bytes(r.uvarint()))
				e.Xattrs = append(e.Xattrs, Xattr{Name: name, Value: append([]byte{}, r.bytes(r.uvarint())...)})
			}
		}
		switch e.Kind {
		case KindFile:
			e.Size = int64(r.uvarint())
			copy(e.Digest[:], r.bytes(objects.DigestSize))
		case KindSymlink:
			e.Target = string(r.bytes(r.uvarint()))
			e.Size = int64(len(e.Target))
		case KindDir:
			copy(e.Digest[:], r.bytes(objects.DigestSize))
			e.Sub.Files = int64(r.uvarint())
			e.Sub.Dirs = int64(r.uvarint())
			e.Sub.Symlinks = int64(r.uvarint())
			e.Sub.Bytes = int64(r.uvarint())
			if v2 {
				e.Sub.Specials = int64(r.uvarint())
				e.Sub.Linked = int64(r.uvarint())
			}
		case KindFIFO, KindSocket:
		case KindCharDev, KindBlockDev:
			e.Rdev = r.uvarint()
		default:
			if r.err == nil {
				return nil, fmt.Errorf("entry %q has unknown kind %d", e.Name, e.Kind)
			}
		}
		if r.err != nil {
			break
		}
		if !v2 && e.Kind.Special() {
			return nil, fmt.Errorf("entry %q: a %s in a format 1 tree", e.Name, e.Kind)
		}
		if err := validName(e.Name); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		if len(t.Entries) > 0 && t.Entries[len(t.Entries)-1].Name >= e.Name {
			return nil, fmt.Errorf("entries out of order at %q", e.Name)
		}
		if e.Mode&^validModeBits != 0 || e.Size < 0 || e.Sub.Bytes < 0 || e.Sub.Files < 0 || e.Sub.Dirs < 0 || e.Sub.Symlinks < 0 ||
			e.Sub.Specials < 0 || e.Sub.Linked < 0 || (e.Link != 0 && e.Kind != KindFile) {
			return nil, fmt.Errorf("entry %q has out-of-range fields", e.Name)
		}
		if err := validXattrs(e.Xattrs); err != nil {
			return nil, fmt.Errorf("entry %q: %w", e.Name, err)
		}
		t.Entries = append(t.Entries, e)
	}
	if r.err != nil {
		return nil, fmt.Errorf("truncated tree: %w", r.err)
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%d stray bytes after the last entry", len(r.b))
	}
	if v2 != needsFormat2(t) {
		// One encoding per directory: a tree format 1 can hold is written
		// in format 1.
		return nil, errors.New("a format 2 tree that format 1 can hold")
	}
	return t, nil
}

// validXattrs checks a list of extended attributes: sorted, unique, within
// Linux's limits, names with a namespace.
func validXattrs(xs []Xattr) error {
	for i, x := range xs {
		switch {
		case x.Name == "" || len(x.Name) > MaxXattrName || !strings.Contains(x.Name, ".") || strings.ContainsRune(x.Name, 0):
			return fmt.Errorf("bad extended attribute name %.40q", x.Name)
		case len(x.Value) > MaxXattrValue:
			return fmt.Errorf("extended attribute %q holds %d bytes, the most is %d", x.Name, len(x.Value), MaxXattrValue)
		case i > 0 && xs[i-1].Name >= x.Name:
			return fmt.Errorf("extended attributes out of order at %q", x.Name)
		}
	}
	return nil
}

const validModeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// Unix permission bits beyond rwx, as stat, chmod and tar use them.
const (
	unixSetuid = 0o4000
	unixSetgid = 0o2000
	unixSticky = 0o1000
)

// ModeFromUnix converts unix permission bits (rwx, setuid, setgid,
// sticky; a file type in m is ignored) to the fs.FileMode an Entry holds.
func ModeFromUnix(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	if m&unixSetuid != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unixSetgid != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unixSticky != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

// UnixMode converts an Entry's mode to unix permission bits.
func UnixMode(m fs.FileMode) uint32 {
	u := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		u |= unixSetuid
	}
	if m&fs.ModeSetgid != 0 {
		u |= unixSetgid
	}
	if m&fs.ModeSticky != 0 {
		u |= unixSticky
	}
	return u
}

type treeReader struct {
	b   []byte
	err error
}

func (r *treeReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || (n > 1 && r.b[n-1] == 0) {
		// A padded varint would give one directory two encodings.
		r.err = errors.New("bad or non-minimal varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *treeReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 || (n > 1 && r.b[n-1] == 0) {
		r.err = errors.New("bad or non-minimal varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *treeReader) byte() byte {
	b := r.bytes(1)
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

func (r *treeReader) bytes(n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = errors.New("unexpected end")
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

// readTree returns the (shared, read-only) decoded tree d.
func (db *DB) readTree(ctx context.Context, d objects.Digest) (*Tree, error) {
	if d == EmptyTreeDigest {
		return &Tree{}, nil
	}
	if t, ok := db.trees.get(d); ok {
		return t, nil
	}
	if t, ok := db.pending.get(d); ok {
		return t, nil
	}
	b, err := objects.Get(ctx, db.store, d)
	if err != nil {
		return nil, fmt.Errorf("meta: read tree %s: %w", d.Short(), err)
	}
	t, err := decodeTree(b)
	if err != nil {
		return nil, fmt.Errorf("meta: read tree %s: %w: %w", d.Short(), objects.ErrCorrupt, err)
	}
	db.trees.add(d, t)
	return t, nil
}

// ReadTree reads the directory stored under d (verified, cached). The
// caller owns the returned tree.
func (db *DB) ReadTree(ctx context.Context, d objects.Digest) (*Tree, error) {
	t, err := db.readTree(ctx, d)
	if err != nil {
		return nil, err
	}
	return t.clone(), nil
}

// WriteTree validates t and stores it, returning its digest. Entries are
// sorted by the call; a directory entry's Sub must match what its subtree
// holds (the subtree is read to check it), so that totals stay exact. It
// is for layers that build trees themselves (fusefs, import); CommitTree
// then commits a root written this way.
func (db *DB) WriteTree(ctx context.Context, t *Tree) (objects.Digest, error) {
	return db.writeTree(ctx, t, nil)
}

// writeTree validates t and stores it, or adds it to batch b.
func (db *DB) writeTree(ctx context.Context, t *Tree, b *Batch) (objects.Digest, error) {
	t = t.clone()
	sort.Slice(t.Entries, func(i, j int) bool { return t.Entries[i].Name < t.Entries[j].Name })
	for i := range t.Entries {
		e := &t.Entries[i]
		if err := validName(e.Name); err != nil {
			return objects.Digest{}, fmt.Errorf("meta: write tree: %w: %w", ErrInvalid, err)
		}
		if i > 0 && t.Entries[i-1].Name == e.Name {
			return objects.Digest{}, fmt.Errorf("meta: write tree: %w: duplicate name %q", ErrInvalid, e.Name)
		}
		e.Mode &= validModeBits
		sort.Slice(e.Xattrs, func(i, j int) bool { return e.Xattrs[i].Name < e.Xattrs[j].Name })
		if err := validXattrs(e.Xattrs); err != nil {
			return objects.Digest{}, fmt.Errorf("meta: write tree: %w: %q: %w", ErrInvalid, e.Name, err)
		}
		if e.Kind != KindFile {
			e.Link = 0
		}
		if e.Kind != KindCharDev && e.Kind != KindBlockDev {
			e.Rdev = 0
		}
		if !e.Owned {
			e.UID, e.GID = 0, 0
		}
		switch e.Kind {
		case KindFile:
			e.Target, e.Sub = "", Stats{}
			if e.Size < 0 {
				return objects.Digest{}, fmt.Errorf("meta: write tree: %w: %q has negative size", ErrInvalid, e.Name)
			}
		case KindSymlink:
			e.Digest, e.Sub, e.Size = objects.Digest{}, Stats{}, int64(len(e.Target))
		case KindDir:
			e.Target, e.Size = "", 0
			sub, err := db.readTree(ctx, e.Digest)
			if err != nil {
				return objects.Digest{}, fmt.Errorf("meta: write tree: subdirectory %q: %w", e.Name, err)
			}
			if got := sub.Stats(); got != e.Sub {
				return objects.Digest{}, fmt.Errorf("meta: write tree: %w: subdirectory %q says it holds %+v, its tree holds %+v", ErrInvalid, e.Name, e.Sub, got)
			}
		case KindFIFO, KindSocket, KindCharDev, KindBlockDev:
			e.Digest, e.Sub, e.Size, e.Target = objects.Digest{}, Stats{}, 0, ""
		default:
			return objects.Digest{}, fmt.Errorf("meta: write tree: %w: %q has unknown kind %d", ErrInvalid, e.Name, e.Kind)
		}
	}
	enc := encodeTree(t)
	d := objects.Sum(enc)
	if b != nil {
		b.addTree(d, enc, t)
		return d, nil
	}
	u := db.newUpload()
	defer u.release()
	u.add(pendingObject{d: d, tag: tagTree, size: int64(len(enc)), data: enc, what: "tree"})
	if err := u.run(ctx); err != nil {
		return d, fmt.Errorf("meta: write tree: %w", err)
	}
	if err := u.commit(ctx); err != nil {
		return d, fmt.Errorf("meta: write tree: %w", err)
	}
	db.trees.add(d, t)
	return d, nil
}

// DirEntry returns the entry of a subdirectory whose tree t is stored
// under d (as WriteTree returned it), with Sub filled from t.
func DirEntry(name string, mode fs.FileMode, mtime time.Time, d objects.Digest, t *Tree) Entry {
	return Entry{Name: name, Kind: KindDir, Mode: mode & validModeBits, MTime: mtime, Digest: d, Sub: t.Stats()}
}

// FileEntry returns the entry of a regular file with content d.
func FileEntry(name string, mode fs.FileMode, mtime time.Time, d objects.Digest, size int64) Entry {
	return Entry{Name: name, Kind: KindFile, Mode: mode & validModeBits, MTime: mtime, Digest: d, Size: size}
}

// SymlinkEntry returns the entry of a symlink.
func SymlinkEntry(name, target string, mtime time.Time) Entry {
	return Entry{Name: name, Kind: KindSymlink, Mode: 0o777, MTime: mtime, Target: target, Size: int64(len(target))}
}

// CleanPath turns a workspace path ("a/b", "/a/b/", "./a//b") into its
// canonical form ("a/b"; "" is the root). It refuses paths that climb out
// of the workspace ("..") and NUL bytes.
func CleanPath(p string) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("meta: path %q: %w: contains a NUL byte", p, ErrInvalid)
	}
	c := path.Clean("/" + p)
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return "", fmt.Errorf("meta: path %q: %w: .. is not allowed in workspace paths", p, ErrInvalid)
		}
	}
	return strings.TrimPrefix(c, "/"), nil
}

func splitPath(p string) []string {
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// LookupTree returns the entry at path in the tree rooted at root, without
// following symlinks (a symlink in the middle of the path is an error). The
// root itself ("") is returned as a directory entry with an empty name.
func (db *DB) LookupTree(ctx context.Context, root objects.Digest, p string) (Entry, error) {
	clean, err := CleanPath(p)
	if err != nil {
		return Entry{}, err
	}
	t, err := db.readTree(ctx, root)
	if err != nil {
		return Entry{}, err
	}
	cur := Entry{Kind: KindDir, Mode: 0o755, Digest: root, Sub: t.Stats()}
	parts := splitPath(clean)
	for i, name := range parts {
		if cur.Kind != KindDir {
			return Entry{}, fmt.Errorf("meta: path %q: %w: %s is a %s, not a directory", clean, ErrNotFound, strings.Join(parts[:i], "/"), cur.Kind)
		}
		if t == nil {
			if t, err = db.readTree(ctx, cur.Digest); err != nil {
				return Entry{}, err
			}
		}
		e, ok := t.Find(name)
		if !ok {
			return Entry{}, fmt.Errorf("meta: path %q: %w: no such file or directory", clean, ErrNotFound)
		}
		cur, t = e, nil
	}
	return cur, nil
}
