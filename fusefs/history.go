package fusefs

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
)

// The read-only history: .history/<tenant>/<name>/<rev>/… Every level is a
// histNode; writes anywhere in it fail with EROFS.
type histLevel int

const (
	histTop    histLevel = iota // .history: tenants
	histTenant                  // .history/t: workspaces
	histWS                      // .history/t/n: revision numbers
	histTree                    // a directory, file or symlink of a revision
)

type histNode struct {
	gofs.Inode
	fsys   *FS
	level  histLevel
	tenant string
	ws     string
	entry  meta.Entry // histTree: the entry (the root's Digest is the revision's tree)
	root   objects.Digest
	nlink  uint32 // histTree files: the names of its link group in the revision
}

var (
	_ gofs.NodeLookuper      = (*histNode)(nil)
	_ gofs.NodeReaddirer     = (*histNode)(nil)
	_ gofs.NodeGetattrer     = (*histNode)(nil)
	_ gofs.NodeOpener        = (*histNode)(nil)
	_ gofs.NodeReadlinker    = (*histNode)(nil)
	_ gofs.NodeSetattrer     = (*histNode)(nil)
	_ gofs.NodeCreater       = (*histNode)(nil)
	_ gofs.NodeMkdirer       = (*histNode)(nil)
	_ gofs.NodeUnlinker      = (*histNode)(nil)
	_ gofs.NodeRmdirer       = (*histNode)(nil)
	_ gofs.NodeRenamer       = (*histNode)(nil)
	_ gofs.NodeSymlinker     = (*histNode)(nil)
	_ gofs.NodeLinker        = (*histNode)(nil)
	_ gofs.NodeMknoder       = (*histNode)(nil)
	_ gofs.NodeGetxattrer    = (*histNode)(nil)
	_ gofs.NodeListxattrer   = (*histNode)(nil)
	_ gofs.NodeSetxattrer    = (*histNode)(nil)
	_ gofs.NodeRemovexattrer = (*histNode)(nil)
)

func (n *histNode) isDir() bool { return n.level < histTree || n.entry.Kind == meta.KindDir }

func (n *histNode) fill(out *fuse.Attr, ino uint64) {
	out.Ino = ino
	out.Uid, out.Gid = n.fsys.uid, n.fsys.gid
	out.Blksize = 4096
	if n.level < histTree {
		out.Mode = syscall.S_IFDIR | 0o555
		out.Nlink = 2
		out.SetTimes(&n.fsys.started, &n.fsys.started, &n.fsys.started)
		return
	}
	e := n.entry
	if e.Owned {
		out.Uid, out.Gid = e.UID, e.GID
	}
	out.Nlink = max(n.nlink, 1)
	perm := uint32(e.Mode.Perm()) | modeExtra(e.Mode)
	switch e.Kind {
	case meta.KindDir:
		out.Mode = syscall.S_IFDIR | perm
		out.Nlink = 2
		out.Size = 4096
	case meta.KindSymlink:
		out.Mode = syscall.S_IFLNK | 0o777
		out.Size = uint64(len(e.Target))
	case meta.KindFIFO, meta.KindSocket, meta.KindCharDev, meta.KindBlockDev:
		out.Mode = kindType(e.Kind) | perm
		out.Rdev = uint32(e.Rdev)
	default:
		out.Mode = syscall.S_IFREG | perm
		out.Size = uint64(e.Size)
		out.Blocks = (uint64(e.Size) + 511) / 512
	}
	out.SetTimes(&e.MTime, &e.MTime, &e.MTime)
}

// kindType is the S_IFMT type of an entry kind.
func kindType(k meta.EntryKind) uint32 {
	switch k {
	case meta.KindDir:
		return syscall.S_IFDIR
	case meta.KindSymlink:
		return syscall.S_IFLNK
	case meta.KindFIFO:
		return syscall.S_IFIFO
	case meta.KindSocket:
		return syscall.S_IFSOCK
	case meta.KindCharDev:
		return syscall.S_IFCHR
	case meta.KindBlockDev:
		return syscall.S_IFBLK
	}
	return syscall.S_IFREG
}

// linkCounts returns how many names each link group has in the revision
// whose tree is root, reading only the subtrees that hold such names.
// Revisions never change, so the answer is kept (for the last few).
func (f *FS) linkCounts(ctx context.Context, root objects.Digest) (map[uint64]uint32, error) {
	f.mu.Lock()
	counts, ok := f.histLinks[root]
	f.mu.Unlock()
	if ok {
		return counts, nil
	}
	counts = map[uint64]uint32{}
	var walk func(d objects.Digest) error
	walk = func(d objects.Digest) error {
		t, err := f.db.ReadTree(ctx, d)
		if err != nil {
			return err
		}
		for _, e := range t.Entries {
			switch {
			case e.Link != 0:
				counts[e.Link]++
			case e.Kind == meta.KindDir && e.Sub.Linked > 0:
				if err := walk(e.Digest); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(root); err != nil {
		return nil, err
	}
	f.mu.Lock()
	if len(f.histLinks) >= 64 {
		clear(f.histLinks)
	}
	f.histLinks[root] = counts
	f.mu.Unlock()
	return counts, nil
}

func (n *histNode) Getattr(ctx context.Context, fh gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.fill(&out.Attr, n.StableAttr().Ino)
	return 0
}

func (n *histNode) childNode(level histLevel, tenant, ws string, e meta.Entry) *histNode {
	return &histNode{fsys: n.fsys, level: level, tenant: tenant, ws: ws, entry: e, root: n.root}
}

func (n *histNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	var c *histNode
	var key string
	switch n.level {
	case histTop:
		ok, err := n.fsys.tenantExists(ctx, name)
		if err != nil {
			return nil, MapErrno(err)
		}
		if !ok {
			return nil, syscall.ENOENT
		}
		c, key = n.childNode(histTenant, name, "", meta.Entry{}), "h/"+name
	case histTenant:
		full := n.tenant + "/" + name
		if _, err := n.fsys.db.Get(ctx, full); err != nil {
			return nil, MapErrno(err)
		}
		c, key = n.childNode(histWS, n.tenant, full, meta.Entry{}), "h/"+full
	case histWS:
		num, err := strconv.ParseUint(name, 10, 64)
		if err != nil || num == 0 || strconv.FormatUint(num, 10) != name {
			return nil, syscall.ENOENT
		}
		rev, err := n.fsys.db.Show(ctx, meta.Ref{Workspace: n.ws, Rev: meta.RevNum(num)})
		if err != nil {
			return nil, MapErrno(err)
		}
		root := meta.Entry{Name: name, Kind: meta.KindDir, Mode: 0o555, MTime: rev.Time, Digest: rev.Root}
		c, key = n.childNode(histTree, n.tenant, n.ws, root), "h/"+n.ws+"@"+name
		c.root = rev.Root
	default:
		if n.entry.Kind != meta.KindDir {
			return nil, syscall.ENOTDIR
		}
		t, err := n.fsys.db.ReadTree(ctx, n.entry.Digest)
		if err != nil {
			n.fsys.log.Error("fusefs: history: reading a tree failed", "workspace", n.ws, "digest", n.entry.Digest.String(), "err", err)
			return nil, MapErrno(err)
		}
		e, ok := t.Find(name)
		if !ok {
			return nil, syscall.ENOENT
		}
		c = n.childNode(histTree, n.tenant, n.ws, e)
		// Content-addressed: the same entry in two revisions is the same
		// inode, so the kernel's page cache is shared between them. The
		// names of a link group are one inode within their revision.
		key = fmt.Sprintf("h:%d/%s/%s/%s/%s/%t/%d/%d/%d/%x", e.Kind, e.Digest, e.Target, e.Mode, e.MTime, e.Owned, e.UID, e.GID, e.Rdev, meta.XattrKey(e.Xattrs))
		if e.Link != 0 {
			counts, err := n.fsys.linkCounts(ctx, n.root)
			if err != nil {
				return nil, MapErrno(err)
			}
			c.nlink = counts[e.Link]
			key += fmt.Sprintf("/%s/%d", n.root, e.Link)
		}
	}
	ino := n.fsys.stableIno(key)
	c.fill(&out.Attr, ino)
	mode := uint32(syscall.S_IFDIR)
	if !c.isDir() {
		mode = out.Attr.Mode & syscall.S_IFMT
	}
	return n.NewInode(ctx, c, gofs.StableAttr{Mode: mode, Ino: ino}), 0
}

func (n *histNode) Readdir(ctx context.Context) (gofs.DirStream, syscall.Errno) {
	var ents []fuse.DirEntry
	switch n.level {
	case histTop:
		names, err := n.fsys.tenantNames(ctx)
		if err != nil {
			return nil, MapErrno(err)
		}
		for _, t := range names {
			ents = append(ents, fuse.DirEntry{Name: t, Mode: syscall.S_IFDIR})
		}
	case histTenant:
		list, err := n.fsys.db.List(ctx, n.tenant+"/")
		if err != nil {
			return nil, MapErrno(err)
		}
		for _, w := range list {
			ents = append(ents, fuse.DirEntry{Name: strings.SplitN(w.Name, "/", 2)[1], Mode: syscall.S_IFDIR})
		}
	case histWS:
		w, err := n.fsys.db.Get(ctx, n.ws)
		if err != nil {
			return nil, MapErrno(err)
		}
		for r := w.Oldest; r <= w.Head; r++ {
			if r == 0 {
				continue
			}
			ents = append(ents, fuse.DirEntry{Name: strconv.FormatUint(uint64(r), 10), Mode: syscall.S_IFDIR})
		}
	default:
		t, err := n.fsys.db.ReadTree(ctx, n.entry.Digest)
		if err != nil {
			return nil, MapErrno(err)
		}
		for _, e := range t.Entries {
			ents = append(ents, fuse.DirEntry{Name: e.Name, Mode: kindType(e.Kind)})
		}
	}
	return gofs.NewListDirStream(ents), 0
}

func (n *histNode) Readlink(ctx context.Context) ([]byte, syscall.Errno) {
	if n.level != histTree || n.entry.Kind != meta.KindSymlink {
		return nil, syscall.EINVAL
	}
	return []byte(n.entry.Target), 0
}

func (n *histNode) Open(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	if flags&syscall.O_ACCMODE != syscall.O_RDONLY || flags&syscall.O_TRUNC != 0 {
		return nil, 0, syscall.EROFS
	}
	if n.level != histTree || n.entry.Kind != meta.KindFile {
		return nil, 0, syscall.EISDIR
	}
	if n.entry.Size == 0 {
		return &histFile{}, fuse.FOPEN_KEEP_CACHE, 0
	}
	f, err := n.fsys.blobs.open(ctx, n.entry.Digest, n.entry.Size)
	if err != nil {
		n.fsys.logBlobError(n.ws, n.entry.Name, n.entry.Digest, err)
		return nil, 0, MapErrno(err)
	}
	// History never changes: the kernel may keep its cached pages.
	return &histFile{f: f, size: n.entry.Size}, fuse.FOPEN_KEEP_CACHE, 0
}

func (n *histNode) Setattr(ctx context.Context, fh gofs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return syscall.EROFS
}
func (n *histNode) Create(ctx context.Context, name string, flags uint32, mode uint32, out *fuse.EntryOut) (*gofs.Inode, gofs.FileHandle, uint32, syscall.Errno) {
	return nil, nil, 0, syscall.EROFS
}
func (n *histNode) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	return nil, syscall.EROFS
}
func (n *histNode) Mknod(ctx context.Context, name string, mode uint32, dev uint32, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	return nil, syscall.EROFS
}
func (n *histNode) Unlink(ctx context.Context, name string) syscall.Errno { return syscall.EROFS }
func (n *histNode) Rmdir(ctx context.Context, name string) syscall.Errno  { return syscall.EROFS }
func (n *histNode) Rename(ctx context.Context, name string, newParent gofs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	return syscall.EROFS
}
func (n *histNode) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	return nil, syscall.EROFS
}
func (n *histNode) Link(ctx context.Context, target gofs.InodeEmbedder, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	return nil, syscall.EROFS
}

// histFile reads a verified blob copy.
type histFile struct {
	f    *os.File
	size int64
}

func (h *histFile) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if h.f == nil || off >= h.size {
		return fuse.ReadResultData(nil), 0
	}
	k, err := h.f.ReadAt(dest, off)
	if err != nil && err != io.EOF {
		return nil, MapErrno(err)
	}
	return fuse.ReadResultData(dest[:k]), 0
}

func (h *histFile) Release(ctx context.Context) syscall.Errno {
	if h.f != nil {
		h.f.Close()
	}
	return 0
}

// Extended attributes of a revision's entries read as they were kept.
func (n *histNode) Getxattr(ctx context.Context, attr string, dest []byte) (uint32, syscall.Errno) {
	i, ok := findXattr(n.entry.Xattrs, attr)
	if !ok || n.level != histTree {
		return 0, syscall.ENODATA
	}
	v := n.entry.Xattrs[i].Value
	if len(dest) < len(v) {
		return uint32(len(v)), syscall.ERANGE
	}
	return uint32(copy(dest, v)), 0
}

func (n *histNode) Listxattr(ctx context.Context, dest []byte) (uint32, syscall.Errno) {
	uid := n.fsys.uid
	if c, ok := fuse.FromContext(ctx); ok {
		uid = c.Uid
	}
	return listXattrs(n.entry.Xattrs, uid, dest)
}

func (n *histNode) Setxattr(ctx context.Context, attr string, data []byte, flags uint32) syscall.Errno {
	return syscall.EROFS
}

func (n *histNode) Removexattr(ctx context.Context, attr string) syscall.Errno {
	return syscall.EROFS
}
