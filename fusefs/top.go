package fusefs

import (
	"context"
	"errors"
	"sort"
	"strings"
	"syscall"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/wsfs/wsfs/meta"
)

// historyName is the read-only history folder at the top of a full mount.
const historyName = ".history"

// rootNode is the top of a full mount: one folder per tenant, and .history.
type rootNode struct {
	gofs.Inode
	fsys *FS
}

var (
	_ gofs.NodeLookuper  = (*rootNode)(nil)
	_ gofs.NodeReaddirer = (*rootNode)(nil)
	_ gofs.NodeMkdirer   = (*rootNode)(nil)
	_ gofs.NodeGetattrer = (*rootNode)(nil)
	_ gofs.NodeStatfser  = (*rootNode)(nil)
)

func (f *FS) dirAttr(out *fuse.Attr, ino uint64, mode uint32) {
	out.Ino = ino
	out.Mode = syscall.S_IFDIR | mode
	out.Nlink = 2
	out.Uid, out.Gid = f.uid, f.gid
	out.Blksize = 4096
	out.SetTimes(&f.started, &f.started, &f.started)
}

// tenantNames lists tenants with workspaces, plus those made by mkdir.
func (f *FS) tenantNames(ctx context.Context) ([]string, error) {
	list, err := f.db.List(ctx, "")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	f.mu.Lock()
	for t := range f.tenants {
		seen[t] = true
	}
	f.mu.Unlock()
	for _, w := range list {
		seen[strings.SplitN(w.Name, "/", 2)[0]] = true
	}
	names := make([]string, 0, len(seen))
	for t := range seen {
		names = append(names, t)
	}
	sort.Strings(names)
	return names, nil
}

func (f *FS) tenantExists(ctx context.Context, tenant string) (bool, error) {
	f.mu.Lock()
	made := f.tenants[tenant]
	f.mu.Unlock()
	if made {
		return true, nil
	}
	list, err := f.db.List(ctx, tenant+"/")
	if err != nil {
		return false, err
	}
	return len(list) > 0, nil
}

// tenantInode returns the live FUSE node of a tenant folder, if the kernel knows it.
func (f *FS) tenantInode(tenant string) *gofs.Inode {
	if f.opts.Workspace != "" || f.server == nil {
		return nil
	}
	if f.root == nil {
		return nil
	}
	return f.root.GetChild(tenant)
}

func (n *rootNode) Getattr(ctx context.Context, fh gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.fsys.dirAttr(&out.Attr, 1, 0o755)
	return 0
}

func (n *rootNode) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	out.Bsize, out.Frsize, out.NameLen = 4096, 4096, 255
	return 0
}

func (n *rootNode) OnAdd(ctx context.Context) { n.fsys.root = &n.Inode }

func (n *rootNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	if name == historyName {
		n.fsys.dirAttr(&out.Attr, 2, 0o555)
		return n.NewInode(ctx, &histNode{fsys: n.fsys, level: histTop}, gofs.StableAttr{Mode: syscall.S_IFDIR, Ino: 2}), 0
	}
	ok, err := n.fsys.tenantExists(ctx, name)
	if err != nil {
		return nil, MapErrno(err)
	}
	if !ok {
		return nil, syscall.ENOENT
	}
	ino := n.fsys.stableIno("tenant/" + name)
	n.fsys.dirAttr(&out.Attr, ino, 0o755)
	return n.NewInode(ctx, &tenantNode{fsys: n.fsys, tenant: name}, gofs.StableAttr{Mode: syscall.S_IFDIR, Ino: ino}), 0
}

func (n *rootNode) Readdir(ctx context.Context) (gofs.DirStream, syscall.Errno) {
	names, err := n.fsys.tenantNames(ctx)
	if err != nil {
		return nil, MapErrno(err)
	}
	ents := []fuse.DirEntry{{Name: historyName, Mode: syscall.S_IFDIR, Ino: 2}}
	for _, t := range names {
		ents = append(ents, fuse.DirEntry{Name: t, Mode: syscall.S_IFDIR, Ino: n.fsys.stableIno("tenant/" + t)})
	}
	return gofs.NewListDirStream(ents), 0
}

// Mkdir at the top makes a tenant folder (it exists in memory until a
// workspace is made in it).
func (n *rootNode) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	if _, err := meta.ParseWorkspace(name + "/x"); err != nil || strings.ToLower(name) != name {
		n.fsys.log.Warn("fusefs: mkdir of a bad tenant name refused", "name", name, "rule", "[a-z0-9][a-z0-9._-]{0,62}")
		return nil, syscall.EINVAL
	}
	if ok, _ := n.fsys.tenantExists(ctx, name); ok || name == historyName {
		return nil, syscall.EEXIST
	}
	n.fsys.mu.Lock()
	n.fsys.tenants[name] = true
	n.fsys.mu.Unlock()
	return n.Lookup(ctx, name, out)
}

// stableIno gives synthetic folders (tenants, history levels) inode
// numbers that stay the same for the mount's life.
func (f *FS) stableIno(key string) uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.synthetic == nil {
		f.synthetic = map[string]uint64{}
	}
	if ino, ok := f.synthetic[key]; ok {
		return ino
	}
	ino := f.nextIno()
	f.synthetic[key] = ino
	return ino
}

// tenantNode lists a tenant's workspaces; mkdir in it creates one.
type tenantNode struct {
	gofs.Inode
	fsys   *FS
	tenant string
}

var (
	_ gofs.NodeLookuper  = (*tenantNode)(nil)
	_ gofs.NodeReaddirer = (*tenantNode)(nil)
	_ gofs.NodeMkdirer   = (*tenantNode)(nil)
	_ gofs.NodeRmdirer   = (*tenantNode)(nil)
)

func (n *tenantNode) Getattr(ctx context.Context, fh gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.fsys.dirAttr(&out.Attr, n.StableAttr().Ino, 0o755)
	return 0
}

func (n *tenantNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	full := n.tenant + "/" + name
	if _, err := meta.ParseWorkspace(full); err != nil || strings.ToLower(name) != name || full == n.fsys.opts.Except {
		return nil, syscall.ENOENT
	}
	ws, err := n.fsys.workspace(ctx, full)
	if err != nil {
		return nil, MapErrno(err)
	}
	ws.mu.Lock()
	node := ws.rootInode
	if node == nil {
		node = &wsNode{ws: ws, e: ws.root}
		ws.rootInode = node
	}
	e := node.e
	ws.fillAttr(e, &out.Attr)
	ws.mu.Unlock()
	return n.NewInode(ctx, node, gofs.StableAttr{Mode: syscall.S_IFDIR, Ino: e.ino}), 0
}

func (n *tenantNode) Readdir(ctx context.Context) (gofs.DirStream, syscall.Errno) {
	list, err := n.fsys.db.List(ctx, n.tenant+"/")
	if err != nil {
		return nil, MapErrno(err)
	}
	var ents []fuse.DirEntry
	for _, w := range list {
		if w.Name == n.fsys.opts.Except {
			continue
		}
		ents = append(ents, fuse.DirEntry{Name: strings.SplitN(w.Name, "/", 2)[1], Mode: syscall.S_IFDIR})
	}
	return gofs.NewListDirStream(ents), 0
}

// Mkdir in a tenant folder creates a workspace with the default quotas.
func (n *tenantNode) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	full := n.tenant + "/" + name
	if _, err := meta.ParseWorkspace(full); err != nil || strings.ToLower(name) != name {
		n.fsys.log.Warn("fusefs: mkdir of a bad workspace name refused", "name", full, "rule", "[a-z0-9][a-z0-9._-]{0,62}")
		return nil, syscall.EINVAL
	}
	if full == n.fsys.opts.Except {
		return nil, syscall.EEXIST
	}
	// The kernel waits for this reply: the create's event must not
	// notify it about the name (see follow).
	n.fsys.mu.Lock()
	n.fsys.creating[full] = true
	n.fsys.mu.Unlock()
	_, err := n.fsys.db.Create(ctx, full, meta.CreateOptions{Author: "mount"})
	n.fsys.mu.Lock()
	delete(n.fsys.creating, full)
	n.fsys.mu.Unlock()
	if err != nil {
		if errors.Is(err, meta.ErrExists) {
			return nil, syscall.EEXIST
		}
		n.fsys.log.Error("fusefs: creating a workspace failed", "name", full, "err", err)
		return nil, MapErrno(err)
	}
	return n.Lookup(ctx, name, out)
}

// Rmdir of a workspace is refused: deleting history takes `wsfs rm`.
func (n *tenantNode) Rmdir(ctx context.Context, name string) syscall.Errno {
	return syscall.EPERM
}
