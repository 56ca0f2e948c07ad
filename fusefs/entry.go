package fusefs

import (
	"os"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
)

// entry is one file, directory or symlink of a workspace's live tree. The
// live tree is the truth of a mounted workspace; FUSE nodes are thin
// wrappers that point at entries, so renames move entries and the kernel's
// inodes follow. Every field is guarded by the workspace's mutex, except
// io, which is taken without it (see the package doc's lock order).
type entry struct {
	ino    uint64
	kind   meta.EntryKind
	mode   uint32 // permission bits, setuid/setgid/sticky included
	mtime  time.Time
	ctime  time.Time
	atime  time.Time
	parent *entry // nil for the root and for unlinked entries
	name   string
	// extra are a file's other names (hard links), beyond parent/name;
	// link is its link group's number in the trees (0: one name).
	extra []dentry
	link  uint64

	// Owner: uid and gid when owned; else the entry has no recorded
	// owner (written before owners were kept) and shows as the mount's.
	owned    bool
	uid, gid uint32
	rdev     uint32       // devices
	xattrs   []meta.Xattr // sorted by name

	// dirty says the entry changed since the last commit: for a
	// directory, that its tree must be written again (a change in it or
	// below it); for a file, its content, mode or mtime.
	dirty bool
	// ver counts the changes to the entry and below it (markDirty), so a
	// commit that ran without the lock clears only the dirty marks of
	// entries that did not change while it uploaded.
	ver uint64

	// io serialises the store and spool I/O made for this entry outside
	// the workspace's mutex: fetching its blob, copying it to a spool,
	// reading its tree.
	io sync.Mutex
	// pin is set while a commit uploads the spool of this file; the
	// pinned spool is read without the lock, so it is never written: a
	// write first moves the file to a copy (prepareSpool).
	pin *spoolPin

	// Files. Content is the blob digest while spool is ""; once written
	// to, the content lives in the spool file at path spool (private to
	// this entry) and digest is stale until the next commit hashes it.
	// local is the spool's descriptor, open while a handle is (or for
	// the operation at hand): the server's descriptors follow the open
	// files, not the written ones. A clean file nobody has open gives
	// its spool up (retireSpool).
	size     int64
	digest   objects.Digest
	spool    string
	local    *os.File
	openers  int // open file handles
	writers  int // open handles with write access
	unlinked bool

	// Directories. children is nil until loaded from tree (the committed
	// tree digest, valid while the directory is clean).
	children map[string]*entry
	subdirs  uint32 // directories among children, for st_nlink without a scan
	tree     objects.Digest
	sub      meta.Stats // committed subtree totals, valid while clean and unloaded

	// Symlinks.
	target string
}

func (e *entry) isDir() bool { return e.kind == meta.KindDir }

// path returns the workspace-relative path, "" for the root.
func (e *entry) path() string {
	var parts []string
	for p := e; p != nil && p.parent != nil; p = p.parent {
		parts = append(parts, p.name)
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, "/")
}

// childPath returns the workspace-relative path of name inside e.
func (e *entry) childPath(name string) string {
	if p := e.path(); p != "" {
		return p + "/" + name
	}
	return name
}

// dentry is one name of an entry: its directory and the name in it.
type dentry struct {
	parent *entry
	name   string
}

// names returns every name of e (none once it is unlinked).
func (e *entry) names() []dentry {
	if e.parent == nil {
		return nil
	}
	return append([]dentry{{e.parent, e.name}}, e.extra...)
}

// nlink is st_nlink of a file: its number of names.
func (e *entry) nlink() uint32 {
	if e.parent == nil {
		return 0
	}
	return 1 + uint32(len(e.extra))
}

// perName is how many times e's bytes count in the workspace's total: a
// file counts on each of its names, as in the trees (meta.Stats).
// A file with no name left (unlinked while open, O_TMPFILE) counts for
// nothing: it is in no tree.
func (e *entry) perName() int64 { return int64(e.nlink()) }

// rename moves e's name (from, fromName) to (to, toName).
func (e *entry) rename(from *entry, fromName string, to *entry, toName string) {
	if e.parent == from && e.name == fromName {
		e.parent, e.name = to, toName
		return
	}
	for i, l := range e.extra {
		if l.parent == from && l.name == fromName {
			e.extra[i] = dentry{to, toName}
			return
		}
	}
}

// dropName removes e's name (d, name); with the last one, e is unlinked.
func (e *entry) dropName(d *entry, name string) {
	switch {
	case e.parent == d && e.name == name && len(e.extra) > 0:
		e.parent, e.name = e.extra[0].parent, e.extra[0].name
		e.extra = e.extra[1:]
	case e.parent == d && e.name == name:
		e.parent = nil
	default:
		for i, l := range e.extra {
			if l.parent == d && l.name == name {
				e.extra = append(e.extra[:i:i], e.extra[i+1:]...)
				break
			}
		}
	}
	if len(e.extra) == 0 {
		e.extra = nil
	}
}

// markDirty marks e and every directory above each of its names as
// changed.
func (e *entry) markDirty() {
	e.dirty = true
	e.ver++
	for _, l := range e.names() {
		for p := l.parent; p != nil; p = p.parent {
			p.dirty = true
			p.ver++
		}
	}
}

// xattrBytes is what e's extended attributes count in the bytes quota.
func (e *entry) xattrBytes() int64 { return meta.XattrBytes(e.xattrs) }

// spoolPin is a spool a commit is uploading. Once a write moves the file
// to a new spool, old holds the pinned spool's descriptor (reads that
// raced with the move may still use it) until the commit is done with it.
type spoolPin struct {
	spool string
	old   *os.File
	moved bool
}

// writable reports whether e's spool may be written now: it has one, and
// no commit is reading it.
func (e *entry) writable() bool {
	return e.spool != "" && (e.pin == nil || e.pin.moved)
}

// fileMode returns the mode as stat reports it.
func (e *entry) fileMode() uint32 {
	switch e.kind {
	case meta.KindDir:
		return syscall.S_IFDIR | e.mode
	case meta.KindSymlink:
		return syscall.S_IFLNK | 0o777
	case meta.KindFIFO:
		return syscall.S_IFIFO | e.mode
	case meta.KindSocket:
		return syscall.S_IFSOCK | e.mode
	case meta.KindCharDev:
		return syscall.S_IFCHR | e.mode
	case meta.KindBlockDev:
		return syscall.S_IFBLK | e.mode
	}
	return syscall.S_IFREG | e.mode
}

// sortedNames lists a loaded directory's children by name.
func (e *entry) sortedNames() []string {
	names := make([]string, 0, len(e.children))
	for n := range e.children {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// releaseLocal drops the spool file of an entry nobody can reach any more.
func (e *entry) releaseLocal() {
	if e.spool != "" && e.unlinked && e.openers == 0 && (e.pin == nil || e.pin.moved) {
		e.closeLocal()
		os.Remove(e.spool)
		e.spool = ""
	}
}

// closeLocal closes the spool's descriptor; the spool file stays.
func (e *entry) closeLocal() {
	if e.local != nil {
		e.local.Close()
		e.local = nil
	}
}

// closeIdle closes the spool's descriptor of a file no handle has open.
func (e *entry) closeIdle() {
	if e.openers == 0 {
		e.closeLocal()
	}
}

// retireSpool gives up the spool file of a file whose content is safely in
// the store (just committed, or copied from its blob and not changed
// since) and that no handle has open. The copy moves into the blob cache,
// where reads find it, so open descriptors and spool space follow the
// files in use, not every file ever written. The caller holds ws.mu.
func (ws *workspace) retireSpool(e *entry) {
	if e.spool == "" || e.dirty || e.openers > 0 || e.unlinked || e.kind != meta.KindFile || e.pin != nil {
		return
	}
	e.closeLocal()
	spool := e.spool
	e.spool = ""
	if err := ws.fsys.blobs.adopt(e.digest, e.size, spool); err != nil {
		ws.fsys.log.Warn("fusefs: could not keep a committed file's spool as its cached copy; it is read from the store",
			"workspace", ws.name, "path", e.path(), "digest", e.digest.String(), "err", err)
	}
}
