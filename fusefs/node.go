package fusefs

import (
	"bytes"
	"context"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/wsfs/wsfs/meta"
)

// nameMax is the longest file name, as statfs reports it (NAME_MAX).
const nameMax = 255

// wsNode is the FUSE node of one live entry of a workspace. It holds no
// state of its own: e is the entry (replaced for a workspace root on
// Reload), read under the workspace's mutex.
type wsNode struct {
	gofs.Inode
	ws *workspace
	e  *entry
}

var (
	_ gofs.NodeGetattrer     = (*wsNode)(nil)
	_ gofs.NodeSetattrer     = (*wsNode)(nil)
	_ gofs.NodeLookuper      = (*wsNode)(nil)
	_ gofs.NodeReaddirer     = (*wsNode)(nil)
	_ gofs.NodeCreater       = (*wsNode)(nil)
	_ gofs.NodeMkdirer       = (*wsNode)(nil)
	_ gofs.NodeUnlinker      = (*wsNode)(nil)
	_ gofs.NodeRmdirer       = (*wsNode)(nil)
	_ gofs.NodeRenamer       = (*wsNode)(nil)
	_ gofs.NodeSymlinker     = (*wsNode)(nil)
	_ gofs.NodeReadlinker    = (*wsNode)(nil)
	_ gofs.NodeLinker        = (*wsNode)(nil)
	_ gofs.NodeOpener        = (*wsNode)(nil)
	_ gofs.NodeStatfser      = (*wsNode)(nil)
	_ gofs.NodeGetxattrer    = (*wsNode)(nil)
	_ gofs.NodeSetxattrer    = (*wsNode)(nil)
	_ gofs.NodeListxattrer   = (*wsNode)(nil)
	_ gofs.NodeRemovexattrer = (*wsNode)(nil)
	_ gofs.NodeMknoder       = (*wsNode)(nil)
	_ gofs.NodeFsyncer       = (*wsNode)(nil)
	_ gofs.NodeTmpfiler      = (*wsNode)(nil)
)

// fillAttr fills stat data for e. The caller holds ws.mu.
func (ws *workspace) fillAttr(e *entry, out *fuse.Attr) {
	out.Ino = e.ino
	out.Mode = e.fileMode()
	out.Size = uint64(e.size)
	out.Blocks = (uint64(e.size) + 511) / 512
	out.Blksize = 4096
	out.Uid, out.Gid = ws.fsys.uid, ws.fsys.gid
	if e.owned {
		out.Uid, out.Gid = e.uid, e.gid
	}
	out.Nlink = e.nlink()
	switch {
	case e.isDir():
		out.Nlink = 2 + e.subdirs
		out.Size = 4096
		out.Blocks = 8
	case e.kind == meta.KindCharDev || e.kind == meta.KindBlockDev:
		out.Rdev = e.rdev
	}
	out.SetTimes(&e.atime, &e.mtime, &e.ctime)
}

// caller returns the uid and gid of the process making a FUSE request
// (the mount's own when the request carries none).
func (ws *workspace) caller(ctx context.Context) (uid, gid uint32) {
	if c, ok := fuse.FromContext(ctx); ok {
		return c.Uid, c.Gid
	}
	return ws.fsys.uid, ws.fsys.gid
}

func (n *wsNode) child(c *entry) *wsNode { return &wsNode{ws: n.ws, e: c} }

func (n *wsNode) newInode(ctx context.Context, c *entry) *gofs.Inode {
	return n.NewInode(ctx, n.child(c), gofs.StableAttr{Mode: c.fileMode() & syscall.S_IFMT, Ino: c.ino})
}

func (n *wsNode) Getattr(ctx context.Context, fh gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.ws.mu.Lock()
	defer n.ws.mu.Unlock()
	n.ws.fillAttr(n.e, &out.Attr)
	return 0
}

func (n *wsNode) Setattr(ctx context.Context, fh gofs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	ws := n.ws
	ws.mu.Lock()
	defer ws.mu.Unlock()
	e := n.e
	now := time.Now()
	if size, ok := in.GetSize(); ok {
		if e.isDir() {
			return syscall.EISDIR
		}
		if e.kind != meta.KindFile {
			return syscall.EINVAL
		}
		if errno := ws.truncate(ctx, e, int64(size)); errno != 0 {
			return errno
		}
	}
	// The kernel has checked who may make these changes
	// (default_permissions: chown by root, chgrp by the owner to one of
	// its groups, chmod by the owner), and sends the clearing of SUID
	// and SGID that a chown or a write by another user implies as a mode
	// change of its own.
	uid, uidOK := in.GetUID()
	gid, gidOK := in.GetGID()
	if uidOK || gidOK {
		if !e.owned {
			e.owned, e.uid, e.gid = true, ws.fsys.uid, ws.fsys.gid
		}
		if uidOK {
			e.uid = uid
		}
		if gidOK {
			e.gid = gid
		}
		e.ctime = now
		ws.touched(e)
	}
	if mode, ok := in.GetMode(); ok {
		e.mode = mode & 0o7777
		e.ctime = now
		ws.touched(e)
	}
	if mtime, ok := in.GetMTime(); ok {
		e.mtime = mtime
		e.ctime = now
		ws.touched(e)
	}
	if atime, ok := in.GetATime(); ok {
		// Not kept in revisions, but a change of the inode all the same.
		e.atime = atime
		e.ctime = now
	}
	ws.fillAttr(e, &out.Attr)
	return 0
}

// truncate sets a file's size, checking the quotas when it grows. The
// caller holds ws.mu, which truncate may let go of while it fetches the
// file's content (makeWritable).
func (ws *workspace) truncate(ctx context.Context, e *entry, size int64) syscall.Errno {
	if size == e.size && e.spool != "" {
		return 0
	}
	if err := ws.checkSize(e, size); err != nil {
		return MapErrno(err)
	}
	defer e.closeIdle()
	var err error
	if size == 0 && !e.writable() {
		// Nothing worth copying: start from an empty spool.
		err = ws.newSpool(e)
	} else {
		err = ws.makeWritable(ctx, e)
		if err == nil && size > e.size {
			err = ws.checkSize(e, size) // e may have changed while the lock was let go
		}
	}
	if err != nil {
		return MapErrno(err)
	}
	if err := e.local.Truncate(size); err != nil {
		return MapErrno(err)
	}
	ws.bytes += (size - e.size) * e.perName()
	e.size = size
	now := time.Now()
	e.mtime, e.ctime = now, now
	ws.touched(e)
	return 0
}

func (n *wsNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	ws := n.ws
	ws.mu.Lock()
	defer ws.mu.Unlock()
	d := n.e
	if !d.isDir() {
		return nil, syscall.ENOTDIR
	}
	if err := ws.load(ctx, d); err != nil {
		ws.fsys.log.Error("fusefs: lookup failed", "workspace", ws.name, "path", d.childPath(name), "err", err)
		return nil, MapErrno(err)
	}
	c, ok := d.children[name]
	if !ok {
		if len(name) > nameMax {
			return nil, syscall.ENAMETOOLONG
		}
		return nil, syscall.ENOENT
	}
	ws.fillAttr(c, &out.Attr)
	return n.newInode(ctx, c), 0
}

func (n *wsNode) Readdir(ctx context.Context) (gofs.DirStream, syscall.Errno) {
	ws := n.ws
	ws.mu.Lock()
	defer ws.mu.Unlock()
	d := n.e
	if err := ws.load(ctx, d); err != nil {
		return nil, MapErrno(err)
	}
	ents := make([]fuse.DirEntry, 0, len(d.children))
	for _, name := range d.sortedNames() {
		c := d.children[name]
		ents = append(ents, fuse.DirEntry{Name: name, Mode: c.fileMode(), Ino: c.ino})
	}
	return gofs.NewListDirStream(ents), 0
}

// prepareNew checks that name can be added to d as one new entry.
func (ws *workspace) prepareNew(ctx context.Context, d *entry, name string) syscall.Errno {
	if len(name) > nameMax {
		return syscall.ENAMETOOLONG
	}
	if err := ws.load(ctx, d); err != nil {
		return MapErrno(err)
	}
	if d.unlinked {
		return syscall.ENOENT
	}
	if _, ok := d.children[name]; ok {
		return syscall.EEXIST
	}
	p := d.childPath(name)
	if err := ws.checkPath(p); err != nil {
		return MapErrno(err)
	}
	if err := ws.checkNewEntries(p, 1); err != nil {
		return MapErrno(err)
	}
	return 0
}

// add links a new entry into d, owned by the caller: its uid, and the
// directory's group when the directory has the setgid bit (which a new
// directory inherits), else the caller's gid.
func (ws *workspace) add(ctx context.Context, d *entry, name string, c *entry) {
	c.owned = true
	c.uid, c.gid = ws.caller(ctx)
	if d.mode&unixSetgid != 0 {
		if d.owned {
			c.gid = d.gid
		} else {
			c.gid = ws.fsys.gid
		}
		if c.isDir() {
			c.mode |= unixSetgid
		}
	}
	now := time.Now()
	c.ino = ws.fsys.nextIno()
	c.parent, c.name = d, name
	c.mtime, c.ctime, c.atime = now, now, now
	d.children[name] = c
	if c.isDir() {
		d.subdirs++
	}
	d.mtime, d.ctime = now, now
	ws.entries++
	ws.touched(c)
}

func (n *wsNode) Create(ctx context.Context, name string, flags uint32, mode uint32, out *fuse.EntryOut) (*gofs.Inode, gofs.FileHandle, uint32, syscall.Errno) {
	ws := n.ws
	ws.mu.Lock()
	defer ws.mu.Unlock()
	d := n.e
	if errno := ws.prepareNew(ctx, d, name); errno != 0 {
		return nil, nil, 0, errno
	}
	c := &entry{kind: meta.KindFile, mode: mode & 0o7777}
	ws.add(ctx, d, name, c)
	if err := ws.newSpool(c); err != nil {
		delete(d.children, name)
		ws.entries--
		return nil, nil, 0, MapErrno(err)
	}
	c.openers++
	c.writers++
	ws.fillAttr(c, &out.Attr)
	return n.newInode(ctx, c), &fileHandle{ws: ws, e: c, write: true, appendOnly: flags&syscall.O_APPEND != 0}, 0, 0
}

func (n *wsNode) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	ws := n.ws
	ws.mu.Lock()
	defer ws.mu.Unlock()
	d := n.e
	if errno := ws.prepareNew(ctx, d, name); errno != 0 {
		return nil, errno
	}
	c := &entry{kind: meta.KindDir, mode: mode & 0o7777, children: map[string]*entry{}}
	ws.add(ctx, d, name, c)
	ws.fillAttr(c, &out.Attr)
	return n.newInode(ctx, c), 0
}

// Mknod makes a FIFO, a socket (bind(2) of a unix socket), a device (the
// kernel lets only root) or a regular file. FIFOs and sockets work on the
// live mount (the kernel carries their data); the mount is nodev, so
// opening a device fails as on any nodev mount. Revisions record each as
// an entry of its kind.
func (n *wsNode) Mknod(ctx context.Context, name string, mode uint32, dev uint32, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	var kind meta.EntryKind
	switch mode & syscall.S_IFMT {
	case syscall.S_IFREG, 0:
		kind = meta.KindFile
	case syscall.S_IFIFO:
		kind = meta.KindFIFO
	case syscall.S_IFSOCK:
		kind = meta.KindSocket
	case syscall.S_IFCHR:
		kind = meta.KindCharDev
	case syscall.S_IFBLK:
		kind = meta.KindBlockDev
	default:
		return nil, syscall.EINVAL
	}
	ws := n.ws
	ws.mu.Lock()
	defer ws.mu.Unlock()
	d := n.e
	if errno := ws.prepareNew(ctx, d, name); errno != 0 {
		return nil, errno
	}
	c := &entry{kind: kind, mode: mode & 0o7777}
	if kind == meta.KindCharDev || kind == meta.KindBlockDev {
		c.rdev = dev
	}
	ws.add(ctx, d, name, c)
	if kind == meta.KindFile {
		if err := ws.newSpool(c); err != nil {
			ws.remove(d, name)
			return nil, MapErrno(err)
		}
		c.closeIdle()
	}
	ws.fillAttr(c, &out.Attr)
	return n.newInode(ctx, c), 0
}

func (n *wsNode) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	ws := n.ws
	ws.mu.Lock()
	defer ws.mu.Unlock()
	d := n.e
	if errno := ws.prepareNew(ctx, d, name); errno != 0 {
		return nil, errno
	}
	if int64(len(target)) > ws.quotas.MaxSymlinkTarget {
		qe := &meta.QuotaError{Kind: meta.QuotaSymlinkTarget, Workspace: ws.name, Path: d.childPath(name), Limit: ws.quotas.MaxSymlinkTarget, Usage: int64(len(target))}
		return nil, MapErrno(ws.refuse(qe))
	}
	c := &entry{kind: meta.KindSymlink, mode: 0o777, target: target, size: int64(len(target))}
	ws.add(ctx, d, name, c)
	ws.fillAttr(c, &out.Attr)
	return n.newInode(ctx, c), 0
}

func (n *wsNode) Readlink(ctx context.Context) ([]byte, syscall.Errno) {
	n.ws.mu.Lock()
	defer n.ws.mu.Unlock()
	if n.e.kind != meta.KindSymlink {
		return nil, syscall.EINVAL
	}
	return []byte(n.e.target), 0
}

// Link gives a file of the same workspace another name (EXDEV across
// workspaces). Every name shows the same inode, so writes are seen
// through each; a revision records the names as one link group.
func (n *wsNode) Link(ctx context.Context, target gofs.InodeEmbedder, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	tn, ok := target.(*wsNode)
	if !ok || tn.ws != n.ws {
		return nil, syscall.EXDEV
	}
	ws := n.ws
	ws.mu.Lock()
	defer ws.mu.Unlock()
	d, c := n.e, tn.e
	if c.isDir() {
		return nil, syscall.EPERM
	}
	if errno := ws.prepareNew(ctx, d, name); errno != 0 {
		return nil, errno
	}
	if c.kind == meta.KindFile {
		if err := ws.checkBytes(d.childPath(name), c.size+c.xattrBytes()); err != nil {
			return nil, MapErrno(err)
		}
	} else if err := ws.checkBytes(d.childPath(name), c.xattrBytes()); err != nil {
		return nil, MapErrno(err)
	}
	if c.parent == nil {
		// A file with no name left (O_TMPFILE, or unlinked while open)
		// gets one back through linkat(AT_EMPTY_PATH).
		c.parent, c.name, c.unlinked = d, name, false
	} else {
		c.extra = append(c.extra, dentry{d, name})
	}
	if c.kind == meta.KindFile && c.link == 0 && c.nlink() > 1 {
		ws.maxLink++
		c.link = ws.maxLink
		ws.groups[c.link] = c
	}
	d.children[name] = c
	ws.entries++
	ws.bytes += c.xattrBytes()
	if c.kind == meta.KindFile {
		ws.bytes += c.size
	}
	now := time.Now()
	d.mtime, d.ctime, c.ctime = now, now, now
	ws.touched(c)
	ws.fillAttr(c, &out.Attr)
	return tn.EmbeddedInode(), 0
}

// remove unlinks child name of d. The caller holds ws.mu.
func (ws *workspace) remove(d *entry, name string) {
	c := d.children[name]
	delete(d.children, name)
	if c.isDir() {
		d.subdirs--
	}
	ws.entries--
	ws.bytes -= c.xattrBytes()
	if c.kind == meta.KindFile {
		ws.bytes -= c.size
	}
	now := time.Now()
	c.dropName(d, name)
	c.ctime = now
	if c.nlink() <= 1 && c.link != 0 {
		delete(ws.groups, c.link)
		c.link = 0
	}
	if c.parent == nil {
		c.unlinked = true
		c.releaseLocal()
	} else {
		ws.touched(c) // the names left change with it (a link group of one is no group)
	}
	d.mtime, d.ctime = now, now
	ws.touched(d)
}

func (n *wsNode) Unlink(ctx context.Context, name string) syscall.Errno {
	ws := n.ws
	ws.mu.Lock()
	defer ws.mu.Unlock()
	d := n.e
	if err := ws.load(ctx, d); err != nil {
		return MapErrno(err)
	}
	c, ok := d.children[name]
	if !ok {
		return syscall.ENOENT
	}
	if c.isDir() {
		return syscall.EISDIR
	}
	ws.remove(d, name)
	return 0
}

func (n *wsNode) Rmdir(ctx context.Context, name string) syscall.Errno {
	ws := n.ws
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.retrying(func() syscall.Errno { return ws.rmdir(ctx, n.e, name) })
}

func (ws *workspace) rmdir(ctx context.Context, d *entry, name string) syscall.Errno {
	if err := ws.load(ctx, d); err != nil {
		return MapErrno(err)
	}
	c, ok := d.children[name]
	if !ok {
		return syscall.ENOENT
	}
	if !c.isDir() {
		return syscall.ENOTDIR
	}
	if err := ws.load(ctx, c); err != nil {
		return MapErrno(err)
	}
	if len(c.children) > 0 {
		return syscall.ENOTEMPTY
	}
	ws.remove(d, name)
	return 0
}

// renameFlags of renameat2(2).
const (
	renameNoReplace = 0x1
	renameExchange  = 0x2
)

func (n *wsNode) Rename(ctx context.Context, name string, newParent gofs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	np, ok := newParent.(*wsNode)
	if !ok || np.ws != n.ws {
		return syscall.EXDEV
	}
	if flags&^(renameNoReplace|renameExchange) != 0 || flags == renameNoReplace|renameExchange {
		return syscall.EINVAL
	}
	ws := n.ws
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.retrying(func() syscall.Errno { return ws.rename(ctx, n.e, name, np.e, newName, flags) })
}

func (ws *workspace) rename(ctx context.Context, src *entry, name string, dst *entry, newName string, flags uint32) syscall.Errno {
	if dst.unlinked {
		return syscall.ENOENT
	}
	if len(newName) > nameMax {
		return syscall.ENAMETOOLONG
	}
	if err := ws.load(ctx, src); err != nil {
		return MapErrno(err)
	}
	if err := ws.load(ctx, dst); err != nil {
		return MapErrno(err)
	}
	c, ok := src.children[name]
	if !ok {
		return syscall.ENOENT
	}
	// A directory cannot move into itself or below itself.
	if c.isDir() {
		for p := dst; p != nil; p = p.parent {
			if p == c {
				return syscall.EINVAL
			}
		}
	}
	old, exists := dst.children[newName]
	if old == c {
		return 0
	}
	switch {
	case flags&renameExchange != 0:
		if !exists {
			return syscall.ENOENT
		}
		if old.isDir() {
			for p := src; p != nil; p = p.parent {
				if p == old {
					return syscall.EINVAL
				}
			}
		}
		if errno := ws.checkMovedPaths(ctx, c, dst.childPath(newName)); errno != 0 {
			return errno
		}
		if errno := ws.checkMovedPaths(ctx, old, src.childPath(name)); errno != 0 {
			return errno
		}
		src.children[name], dst.children[newName] = old, c
		old.rename(dst, newName, src, name)
		c.rename(src, name, dst, newName)
		if c.isDir() != old.isDir() {
			if c.isDir() {
				src.subdirs--
				dst.subdirs++
			} else {
				src.subdirs++
				dst.subdirs--
			}
		}
	default:
		if exists {
			if flags&renameNoReplace != 0 {
				return syscall.EEXIST
			}
			if c.isDir() && !old.isDir() {
				return syscall.ENOTDIR
			}
			if !c.isDir() && old.isDir() {
				return syscall.EISDIR
			}
			if old.isDir() {
				if err := ws.load(ctx, old); err != nil {
					return MapErrno(err)
				}
				if len(old.children) > 0 {
					return syscall.ENOTEMPTY
				}
			}
		}
		if errno := ws.checkMovedPaths(ctx, c, dst.childPath(newName)); errno != 0 {
			return errno
		}
		if exists {
			ws.remove(dst, newName)
		}
		delete(src.children, name)
		dst.children[newName] = c
		c.rename(src, name, dst, newName)
		if c.isDir() {
			src.subdirs--
			dst.subdirs++
		}
	}
	now := time.Now()
	src.mtime, src.ctime, dst.mtime, dst.ctime, c.ctime = now, now, now, now, now
	ws.touched(src)
	ws.touched(c)
	if exists && flags&renameExchange != 0 {
		ws.touched(old)
	}
	return 0
}

// checkMovedPaths checks the path limits for e and everything below it
// placed at path p.
func (ws *workspace) checkMovedPaths(ctx context.Context, e *entry, p string) syscall.Errno {
	if err := ws.checkPath(p); err != nil {
		return MapErrno(err)
	}
	if !e.isDir() {
		return 0
	}
	if err := ws.load(ctx, e); err != nil {
		return MapErrno(err)
	}
	for name, c := range e.children {
		if errno := ws.checkMovedPaths(ctx, c, p+"/"+name); errno != 0 {
			return errno
		}
	}
	return 0
}

func (n *wsNode) Open(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	ws := n.ws
	ws.mu.Lock()
	defer ws.mu.Unlock()
	e := n.e
	switch {
	case e.isDir():
		return nil, 0, syscall.EISDIR
	case e.kind != meta.KindFile:
		return nil, 0, syscall.ENXIO // the kernel opens FIFOs itself, and the mount is nodev
	}
	write := flags&syscall.O_ACCMODE != syscall.O_RDONLY
	h := &fileHandle{ws: ws, e: e, write: write, appendOnly: flags&syscall.O_APPEND != 0}
	// Counted as open first, so that the spool's descriptor, once
	// opened below, stays open for the handle.
	e.openers++
	if write {
		e.writers++
	}
	fail := func(errno syscall.Errno) (gofs.FileHandle, uint32, syscall.Errno) {
		e.openers--
		if write {
			e.writers--
		}
		e.closeIdle()
		return nil, 0, errno
	}
	// A new spool is made by the first write or truncate, not here:
	// without FUSE_ATOMIC_O_TRUNC the kernel sends O_TRUNC as a truncate
	// to 0 after the open, and overwriting a file must not need its old
	// content (which may be unreadable).
	if write && flags&syscall.O_TRUNC != 0 {
		if errno := ws.truncate(ctx, e, 0); errno != 0 {
			return fail(errno)
		}
	}
	if !write && e.spool == "" && e.size > 0 {
		// Fetched under e.io, without ws.mu: a slow store stalls this
		// open, not the workspace.
		f, err := ws.openBlob(ctx, e)
		if err != nil {
			return fail(MapErrno(err))
		}
		h.blob = f
	}
	if e.spool != "" && e.local == nil {
		f, err := os.OpenFile(e.spool, os.O_RDWR, 0)
		if err != nil {
			ws.fsys.log.Error("fusefs: cannot open a file's spool", "workspace", ws.name, "path", e.path(), "err", err)
			return fail(MapErrno(err))
		}
		e.local = f
	}
	return h, 0, 0
}

func (n *wsNode) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	ws := n.ws
	ws.mu.Lock()
	defer ws.mu.Unlock()
	const bsize = 4096
	q := ws.quotas
	out.Bsize, out.Frsize, out.NameLen = bsize, bsize, nameMax
	out.Blocks = uint64(q.MaxWorkspaceBytes) / bsize
	free := max(q.MaxWorkspaceBytes-ws.bytes, 0)
	out.Bfree = uint64(free) / bsize
	out.Bavail = out.Bfree
	out.Files = uint64(q.MaxEntries)
	out.Ffree = uint64(max(q.MaxEntries-ws.entries, 0))
	return 0
}

// Extended attributes: user.* and trusted.* are kept with the entry and
// in revisions, within Linux's limits (the kernel refuses longer names and
// values, and checks who may read and write each namespace: user.* by the
// file's permissions on files and directories only, trusted.* by root
// only). Their names and values count in the workspace's bytes quota.
// security.* and system.* (ACLs) are not kept: reads find none and writes
// are EOPNOTSUPP, which cp -a and rsync -X take as "not supported here".
const (
	xattrCreate  = 0x1 // XATTR_CREATE
	xattrReplace = 0x2 // XATTR_REPLACE
)

func xattrKept(name string) bool {
	return strings.HasPrefix(name, "user.") || strings.HasPrefix(name, "trusted.")
}

func findXattr(xs []meta.Xattr, name string) (int, bool) {
	return slices.BinarySearchFunc(xs, name, func(x meta.Xattr, n string) int { return strings.Compare(x.Name, n) })
}

func (n *wsNode) Getxattr(ctx context.Context, attr string, dest []byte) (uint32, syscall.Errno) {
	ws := n.ws
	ws.mu.Lock()
	defer ws.mu.Unlock()
	i, ok := findXattr(n.e.xattrs, attr)
	if !ok {
		return 0, syscall.ENODATA
	}
	v := n.e.xattrs[i].Value
	if len(dest) < len(v) {
		return uint32(len(v)), syscall.ERANGE
	}
	return uint32(copy(dest, v)), 0
}

func (n *wsNode) Setxattr(ctx context.Context, attr string, data []byte, flags uint32) syscall.Errno {
	if !xattrKept(attr) {
		return syscall.EOPNOTSUPP
	}
	if len(attr) > meta.MaxXattrName || len(data) > meta.MaxXattrValue {
		return syscall.ERANGE
	}
	ws := n.ws
	ws.mu.Lock()
	defer ws.mu.Unlock()
	e := n.e
	i, ok := findXattr(e.xattrs, attr)
	switch {
	case ok && flags&xattrCreate != 0:
		return syscall.EEXIST
	case !ok && flags&xattrReplace != 0:
		return syscall.ENODATA
	}
	grow := int64(len(data))
	if ok {
		grow -= int64(len(e.xattrs[i].Value))
	} else {
		grow += int64(len(attr))
	}
	if err := ws.checkBytes(e.path(), grow*e.perName()); err != nil {
		return MapErrno(err)
	}
	x := meta.Xattr{Name: attr, Value: bytes.Clone(data)}
	if ok {
		e.xattrs[i] = x
	} else {
		e.xattrs = slices.Insert(e.xattrs, i, x)
	}
	ws.bytes += grow * e.perName()
	e.ctime = time.Now()
	ws.touched(e)
	return 0
}

func (n *wsNode) Listxattr(ctx context.Context, dest []byte) (uint32, syscall.Errno) {
	ws := n.ws
	uid, _ := ws.caller(ctx)
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return listXattrs(n.e.xattrs, uid, dest)
}

// listXattrs answers listxattr(2) for user uid: the names, NUL-terminated;
// only root sees trusted.* (as on ext4).
func listXattrs(xs []meta.Xattr, uid uint32, dest []byte) (uint32, syscall.Errno) {
	var list []byte
	for _, x := range xs {
		if uid != 0 && strings.HasPrefix(x.Name, "trusted.") {
			continue
		}
		list = append(append(list, x.Name...), 0)
	}
	if len(dest) < len(list) {
		return uint32(len(list)), syscall.ERANGE
	}
	return uint32(copy(dest, list)), 0
}

func (n *wsNode) Removexattr(ctx context.Context, attr string) syscall.Errno {
	if !xattrKept(attr) {
		return syscall.EOPNOTSUPP
	}
	ws := n.ws
	ws.mu.Lock()
	defer ws.mu.Unlock()
	e := n.e
	i, ok := findXattr(e.xattrs, attr)
	if !ok {
		return syscall.ENODATA
	}
	ws.bytes -= int64(len(attr)+len(e.xattrs[i].Value)) * e.perName()
	e.xattrs = slices.Delete(e.xattrs, i, i+1)
	if len(e.xattrs) == 0 {
		e.xattrs = nil
	}
	e.ctime = time.Now()
	ws.touched(e)
	return 0
}

// Fsync of a directory (fsync, fdatasync, sync DIR) succeeds: as for a
// file, the mount's edits become durable when they are committed as a
// revision (after the quiet period, at a run's end, at unmount), and
// nothing is written to disk earlier that fsync could wait for.
func (n *wsNode) Fsync(ctx context.Context, f gofs.FileHandle, flags uint32) syscall.Errno {
	return 0
}

// Tmpfile is open(2) with O_TMPFILE: a file with no name, written like any
// other, that linkat(2) may give a name later; one never named is dropped
// at its last close, and counts against the entries quota while open.
func (n *wsNode) Tmpfile(ctx context.Context, flags uint32, mode uint32, out *fuse.EntryOut) (*gofs.Inode, gofs.FileHandle, uint32, syscall.Errno) {
	ws := n.ws
	ws.mu.Lock()
	defer ws.mu.Unlock()
	d := n.e
	if err := ws.load(ctx, d); err != nil {
		return nil, nil, 0, MapErrno(err)
	}
	if d.unlinked {
		return nil, nil, 0, syscall.ENOENT
	}
	c := &entry{kind: meta.KindFile, mode: mode & 0o7777, ino: ws.fsys.nextIno()}
	c.owned = true
	c.uid, c.gid = ws.caller(ctx)
	if d.mode&unixSetgid != 0 && d.owned {
		c.gid = d.gid
	}
	now := time.Now()
	c.mtime, c.ctime, c.atime = now, now, now
	c.unlinked = true
	if err := ws.newSpool(c); err != nil {
		return nil, nil, 0, MapErrno(err)
	}
	c.openers++
	c.writers++
	ws.fillAttr(c, &out.Attr)
	return n.newInode(ctx, c), &fileHandle{ws: ws, e: c, write: true, appendOnly: flags&syscall.O_APPEND != 0}, 0, 0
}

// fileHandle is an open file of a workspace.
type fileHandle struct {
	ws         *workspace
	e          *entry
	write      bool
	appendOnly bool
	blob       *os.File // verified blob copy for reads of unchanged content
}

var (
	_ gofs.FileReader    = (*fileHandle)(nil)
	_ gofs.FileWriter    = (*fileHandle)(nil)
	_ gofs.FileFlusher   = (*fileHandle)(nil)
	_ gofs.FileFsyncer   = (*fileHandle)(nil)
	_ gofs.FileReleaser  = (*fileHandle)(nil)
	_ gofs.FileAllocater = (*fileHandle)(nil)
)

func (h *fileHandle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	ws := h.ws
	ws.mu.Lock()
	e := h.e
	if e.spool != "" && e.local == nil {
		// Not expected (an open handle keeps the descriptor open), but
		// the spool, not the stale blob, holds the content.
		f, err := os.OpenFile(e.spool, os.O_RDWR, 0)
		if err != nil {
			ws.mu.Unlock()
			return nil, MapErrno(err)
		}
		e.local = f
	}
	if e.spool == "" && h.blob == nil && e.size > 0 {
		f, err := ws.openBlob(ctx, e)
		if err != nil {
			ws.mu.Unlock()
			return nil, MapErrno(err)
		}
		if f != nil {
			if h.blob != nil { // another read on this handle fetched it too
				f.Close()
			} else {
				h.blob = f
			}
		}
	}
	src, size := e.local, e.size
	if e.spool == "" {
		src = h.blob
	}
	ws.mu.Unlock()
	if src == nil || off >= size {
		return fuse.ReadResultData(nil), 0
	}
	if int64(len(dest)) > size-off {
		dest = dest[:size-off]
	}
	k, err := src.ReadAt(dest, off)
	if err != nil && err != io.EOF {
		return nil, MapErrno(err)
	}
	return fuse.ReadResultData(dest[:k]), 0
}

func (h *fileHandle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	ws := h.ws
	if !h.write {
		return 0, syscall.EBADF
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	e := h.e
	if err := ws.makeWritable(ctx, e); err != nil {
		return 0, MapErrno(err)
	}
	if h.appendOnly {
		off = e.size
	}
	end := off + int64(len(data))
	if end > e.size {
		if err := ws.checkSize(e, end); err != nil {
			return 0, MapErrno(err)
		}
	}
	k, err := e.local.WriteAt(data, off)
	if err != nil {
		return uint32(k), MapErrno(err)
	}
	if end > e.size {
		ws.bytes += (end - e.size) * e.perName()
		e.size = end
	}
	now := time.Now()
	e.mtime, e.ctime = now, now
	ws.touched(e)
	return uint32(k), 0
}

// Flush is close(2). Written bytes are in the live tree from the moment
// they are written; what close adds is that the file no longer holds back
// the autocommit (see hasWriters).
func (h *fileHandle) Flush(ctx context.Context) syscall.Errno { return 0 }

// Fsync has nothing to make durable: a workspace's edits become durable
// when they are committed as a revision.
func (h *fileHandle) Fsync(ctx context.Context, flags uint32) syscall.Errno { return 0 }

func (h *fileHandle) Release(ctx context.Context) syscall.Errno {
	ws := h.ws
	ws.mu.Lock()
	defer ws.mu.Unlock()
	e := h.e
	e.openers--
	if h.write {
		e.writers--
		ws.changed = time.Now()
	}
	if h.blob != nil {
		h.blob.Close()
		h.blob = nil
	}
	e.releaseLocal()
	ws.retireSpool(e)
	e.closeIdle()
	return 0
}

// fallocate modes of fallocate(2).
const fallocKeepSize = 0x1

// Allocate implements fallocate(2) mode 0 (grow, zero-filled, counted
// against the quotas) and FALLOC_FL_KEEP_SIZE (nothing to reserve); other
// modes (punch hole, collapse, zero range) are EOPNOTSUPP.
func (h *fileHandle) Allocate(ctx context.Context, off uint64, size uint64, mode uint32) syscall.Errno {
	ws := h.ws
	ws.mu.Lock()
	defer ws.mu.Unlock()
	switch mode {
	case 0:
		end := int64(off + size)
		if end <= h.e.size {
			return 0
		}
		if err := ws.makeWritable(ctx, h.e); err != nil {
			return MapErrno(err)
		}
		if end <= h.e.size { // it grew while the lock was let go
			return 0
		}
		return ws.truncate(ctx, h.e, end)
	case fallocKeepSize:
		return 0
	}
	return syscall.EOPNOTSUPP
}
