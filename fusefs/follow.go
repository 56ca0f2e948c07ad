package fusefs

import (
	"context"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
)

// The mount follows meta's events (meta.DB.Subscribe): whatever changes a
// workspace behind the mount — a put, an import, a restore, a quota
// change, a delete, a fork, one day a commit made by another server —
// reaches its live tree without anyone telling the mount to reload.
//
// A commit made elsewhere is merged into the live tree. Every path it
// changed that the mount left alone since its own last commit takes the
// new version; a path that both changed keeps the mount's version (an
// edit made on the mount, or a file open for writing there), which the
// mount's next commit records on top, so both stay in the history and no
// write on the mount is dropped, whatever runs beside it. A settings
// change touches the quotas only, never the tree.
//
// Events reach follow in the goroutine that made the change. Those that
// arrive while this mount commits the workspace (its own commit's among
// them) wait in ws.pending until the commit is done (endCommit): a merge
// never runs beside a commit. A merge reads the trees it needs without
// ws.mu, then applies under it; it never waits on the store with the
// lock held.

// follow is the mount's meta.DB subscriber.
func (f *FS) follow(ev meta.Event) {
	name := ev.Workspace.Name
	switch ev.Kind {
	case meta.EventCreate:
		f.mu.Lock()
		own := f.creating[name]
		f.mu.Unlock()
		if !own {
			// Made behind the mount: the kernel may still cache "no
			// such folder" for the name. (A mkdir on the mount made it
			// otherwise, and the kernel is waiting for that reply.)
			f.notifyNewWorkspace(name)
		}
		return
	case meta.EventDelete:
		f.forget(name)
		return
	}
	f.mu.Lock()
	ws := f.workspaces[name]
	f.mu.Unlock()
	if ws == nil {
		return // not loaded: it loads its head when looked up
	}
	ws.deliver(ev.Workspace)
}

// notifyNewWorkspace drops what the kernel cached about a workspace name
// before it existed.
func (f *FS) notifyNewWorkspace(name string) {
	tenant, rest, found := strings.Cut(name, "/")
	if !found || f.opts.Workspace != "" {
		return
	}
	if parent := f.tenantInode(tenant); parent != nil {
		parent.NotifyEntry(rest)
	}
	if root := f.root; root != nil {
		root.NotifyEntry(tenant)
	}
}

// deliver applies w, the workspace's record after a change, or leaves it
// for the commit under way in this workspace.
func (ws *workspace) deliver(w meta.Workspace) {
	ws.pendMu.Lock()
	if ws.committing {
		if ws.pending == nil || newer(w, *ws.pending) {
			ws.pending = &w
		}
		ws.pendMu.Unlock()
		return
	}
	ws.pendMu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), followTimeout)
	defer cancel()
	trees := map[objects.Digest]*meta.Tree{}
	ws.mu.Lock()
	if w.ID == ws.id && w.Head > ws.head {
		from, owned := ws.root.tree, ws.ownedDirs()
		ws.mu.Unlock()
		ws.prefetch(ctx, "", from, w.HeadRoot, owned, trees)
		ws.mu.Lock()
	}
	for {
		missing := ws.missingTrees(w, trees)
		if len(missing) == 0 {
			break
		}
		// The tree changed meanwhile: read what the merge still needs.
		ws.mu.Unlock()
		for _, d := range missing {
			t, err := ws.fsys.db.ReadTree(ctx, d)
			if err != nil {
				ws.fsys.log.Error("fusefs: a change made behind the mount could not be merged into it; the mount's next commit will be refused as stale",
					"workspace", ws.name, "head", w.Head, "err", err)
				return
			}
			trees[d] = t
		}
		ws.mu.Lock()
	}
	notes := ws.apply(w, trees)
	// A folder left unloaded by the merge under a loaded one, that now
	// holds names of link groups, is loaded: every name of a group is
	// loaded with the first (see load).
	var linked []*entry
	if len(notes) > 0 && w.Usage.Linked > 0 {
		linked = ws.unloadedLinked()
	}
	for _, d := range linked {
		if err := ws.load(ctx, d); err != nil {
			ws.fsys.log.Error("fusefs: a folder holding hard links could not be read after a change made behind the mount",
				"workspace", ws.name, "path", d.path(), "err", err)
		}
	}
	ws.mu.Unlock()
	ws.fsys.notify(ws, notes)
}

// unloadedLinked lists the folders not loaded, under loaded ones, whose
// committed subtree holds names of link groups. The caller holds ws.mu.
func (ws *workspace) unloadedLinked() []*entry {
	var out []*entry
	var walk func(d *entry)
	walk = func(d *entry) {
		for _, c := range d.children {
			switch {
			case !c.isDir():
			case c.children == nil && c.sub.Linked > 0 && !c.dirty:
				out = append(out, c)
			case c.children != nil:
				walk(c)
			}
		}
	}
	if ws.root.children != nil {
		walk(ws.root)
	}
	return out
}

// endCommit lets the events of the workspace through again once a commit
// is done, and delivers the newest of those that waited.
func (ws *workspace) endCommit() {
	ws.pendMu.Lock()
	ws.committing = false
	p := ws.pending
	ws.pending = nil
	ws.pendMu.Unlock()
	if p != nil {
		ws.deliver(*p)
	}
}

// followTimeout bounds the tree reads of one merge.
const followTimeout = time.Minute

// newer reports whether record a is at least as recent as b.
func newer(a, b meta.Workspace) bool {
	if a.Head != b.Head {
		return a.Head > b.Head
	}
	return a.SettingsSeq >= b.SettingsSeq
}

// note names an entry the kernel may cache and must forget: name in the
// folder at dir (a workspace-relative path), or, with name "", the
// folder's own listing.
type note struct{ dir, name string }

// missingTrees lists the trees apply would need and trees lacks. The
// caller holds ws.mu.
func (ws *workspace) missingTrees(w meta.Workspace, trees map[objects.Digest]*meta.Tree) []objects.Digest {
	if w.ID != ws.id || w.Head <= ws.head {
		return nil
	}
	m := merger{ws: ws, trees: trees, dry: true, missing: map[objects.Digest]bool{}}
	m.dir(ws.root, w.HeadRoot, w.Usage)
	out := make([]objects.Digest, 0, len(m.missing))
	for d := range m.missing {
		out = append(out, d)
	}
	return out
}

// apply brings the live state to w where w is newer, with every tree it
// needs in trees (see missingTrees). The caller holds ws.mu; it notifies
// the kernel of the returned notes after letting go.
func (ws *workspace) apply(w meta.Workspace, trees map[objects.Digest]*meta.Tree) []note {
	if w.ID != ws.id {
		// Deleted and created again under the same name: this state is
		// gone (the delete's event drops it; this covers a lost race).
		return nil
	}
	if w.SettingsSeq >= ws.settingsSeq {
		ws.quotas, ws.settingsSeq = w.Quotas, w.SettingsSeq
	}
	if w.Head <= ws.head {
		return nil // already there (this mount's own commit, or older news)
	}
	var notes []note
	m := merger{ws: ws, trees: trees, notes: &notes}
	m.dir(ws.root, w.HeadRoot, w.Usage)
	if !ws.root.dirty {
		// Nothing of the mount's own: the totals are the head's.
		ws.entries, ws.bytes = w.Entries(), w.Usage.Bytes
	}
	ws.head, ws.cwd = w.Head, w.HeadCwd
	notes = append(notes, note{dir: historyNote, name: strconv.FormatUint(uint64(w.Head), 10)})
	return notes
}

// historyNote marks a note about the workspace's history folder.
const historyNote = "\x00history"

// merger merges one commit made elsewhere into a live tree, from the
// trees read beforehand. A dry merger changes nothing: it lists the trees
// a merge would need that are missing.
type merger struct {
	ws      *workspace
	trees   map[objects.Digest]*meta.Tree
	notes   *[]note
	dry     bool
	missing map[objects.Digest]bool
}

// tree returns a tree read beforehand, or nil (recorded as missing).
func (m *merger) tree(d objects.Digest) *meta.Tree {
	if d.IsZero() {
		return &meta.Tree{}
	}
	t, ok := m.trees[d]
	if !ok && m.missing != nil {
		m.missing[d] = true
	}
	return t
}

// dir brings directory d, whose committed tree is d.tree, to tree to
// (holding sub), keeping what the mount changed below d since. Entries
// that stay of the same kind keep their identity (and inode), so that an
// operation the kernel started on them before the merge lands in the
// live tree, not in a detached copy.
func (m *merger) dir(d *entry, to objects.Digest, sub meta.Stats) {
	if d.tree == to {
		return
	}
	if d.children == nil {
		// Never listed, so the kernel knows nothing below it: only its
		// committed tree changes.
		if !m.dry {
			m.ws.entries += sub.Entries() - d.sub.Entries()
			m.ws.bytes += sub.Bytes - d.sub.Bytes
			d.tree, d.sub = to, sub
		}
		return
	}
	oldT, newT := m.tree(d.tree), m.tree(to)
	if oldT == nil || newT == nil {
		return // dry: missing
	}
	dirPath := d.path()
	names := map[string]bool{}
	for _, te := range oldT.Entries {
		names[te.Name] = true
	}
	for _, te := range newT.Entries {
		names[te.Name] = true
	}
	for name := range names {
		o, hadOld := oldT.Find(name)
		n, hasNew := newT.Find(name)
		if hadOld == hasNew && (!hadOld || sameEntry(o, n)) {
			continue // not changed by the commit
		}
		c := d.children[name]
		bothDirs := c != nil && c.isDir() && hasNew && n.Kind == meta.KindDir
		switch {
		case c == nil && hadOld:
			// The mount removed it: its removal stands.
			continue
		case !hadOld && c != nil || c != nil && owned(c):
			// The mount made or changed it. Folders on both sides merge;
			// otherwise the mount's version stands (and is committed next).
			if bothDirs {
				m.dir(c, n.Digest, n.Sub)
			} else if !m.dry {
				c.markDirty()
			}
			continue
		case bothDirs:
			if !m.dry {
				c.mode, c.mtime, c.ctime = uint32(n.Mode.Perm())|modeExtra(n.Mode), n.MTime, n.MTime
			}
			m.dir(c, n.Digest, n.Sub)
		case m.dry:
			continue
		case c == nil:
			m.add(d, n)
		case !hasNew:
			m.remove(d, c)
		case c.kind != n.Kind || c.nlink() > 1 || c.link != 0 || n.Link != 0:
			// A name of a link group, before or after: it becomes a
			// name of the group the commit says (a new inode).
			m.remove(d, c)
			m.add(d, n)
		default:
			m.update(c, n)
		}
		if !m.dry {
			*m.notes = append(*m.notes, note{dirPath, name})
		}
	}
	if !m.dry {
		d.tree, d.sub = to, sub
		*m.notes = append(*m.notes, note{dirPath, ""})
	}
}

// update gives c, a file or symlink unchanged by the mount since its last
// commit, the committed te of the same kind, in place.
func (m *merger) update(c *entry, te meta.Entry) {
	c.mode = uint32(te.Mode.Perm()) | modeExtra(te.Mode)
	c.mtime, c.ctime = te.MTime, te.MTime
	c.owned, c.uid, c.gid, c.rdev = te.Owned, te.UID, te.GID, uint32(te.Rdev)
	m.ws.bytes += meta.XattrBytes(te.Xattrs) - c.xattrBytes()
	c.xattrs = te.Xattrs
	switch c.kind {
	case meta.KindFile:
		m.ws.bytes += te.Size - c.size
		c.size, c.digest = te.Size, te.Digest
		if c.spool != "" && c.pin == nil {
			// A copy of the old content: readers move to the new blob.
			c.closeLocal()
			os.Remove(c.spool)
			c.spool = ""
		}
	case meta.KindSymlink:
		c.target, c.size = te.Target, int64(len(te.Target))
	}
}

// add links a new entry made from the committed te into d.
func (m *merger) add(d *entry, te meta.Entry) {
	if g, ok := m.ws.groups[te.Link]; ok && te.Link != 0 && (g.dirty || g.digest != te.Digest || g.size != te.Size) {
		// The number names another file here (a group the mount made
		// since, a restore of an older tree): the mount's group takes a
		// new number, and the committed name its own file.
		delete(m.ws.groups, g.link)
		m.ws.maxLink = max(m.ws.maxLink, te.Link) + 1
		g.link = m.ws.maxLink
		m.ws.groups[g.link] = g
		g.markDirty()
	}
	c := m.ws.entryFromTree(d, te)
	d.children[te.Name] = c
	if c.isDir() {
		d.subdirs++
	}
	n, b := treeCount(te)
	m.ws.entries += n
	m.ws.bytes += b
}

// remove unlinks c, unchanged since the mount's last commit, from d.
func (m *merger) remove(d *entry, c *entry) {
	name := c.name
	for _, l := range c.names() {
		if l.parent == d && d.children[l.name] == c {
			name = l.name
		}
	}
	delete(d.children, name)
	if c.isDir() {
		d.subdirs--
	}
	n, b := liveCount(c)
	m.ws.entries -= n
	m.ws.bytes -= b
	c.dropName(d, name)
	if c.nlink() <= 1 && c.link != 0 {
		delete(m.ws.groups, c.link)
		c.link = 0
	}
	if c.parent == nil {
		detach(c)
	}
}

// treeCount is what a committed entry adds to the workspace's totals.
func treeCount(te meta.Entry) (entries, bytes int64) {
	st := te.Stats()
	return st.Entries(), st.Bytes
}

// liveCount is what one name of an entry unchanged since the last commit
// adds to the workspace's totals.
func liveCount(c *entry) (entries, bytes int64) {
	switch c.kind {
	case meta.KindDir:
		return 1 + c.sub.Entries(), c.sub.Bytes + c.xattrBytes()
	case meta.KindFile:
		return 1, c.size + c.xattrBytes()
	}
	return 1, c.xattrBytes()
}

// sameEntry reports two committed entries as equal.
func sameEntry(a, b meta.Entry) bool { return meta.SameEntry(a, b) }

// owned reports whether e holds something of the mount's own: a change
// since its last commit, or a file open for writing (whose next write
// must land where its writer sees it).
func owned(e *entry) bool {
	if e.dirty || e.writers > 0 {
		return true
	}
	for _, c := range e.children {
		if owned(c) {
			return true
		}
	}
	return false
}

// ownedDirs lists the workspace-relative paths of the loaded folders that
// hold something of the mount's own. The caller holds ws.mu.
func (ws *workspace) ownedDirs() map[string]bool {
	out := map[string]bool{}
	var walk func(d *entry, p string) bool
	walk = func(d *entry, p string) bool {
		mine := d.dirty || d.writers > 0
		for name, c := range d.children {
			if walk(c, path.Join(p, name)) {
				mine = true
			}
		}
		if mine && d.isDir() {
			out[p] = true
		}
		return mine
	}
	walk(ws.root, "")
	return out
}

// prefetch reads, into trees, the old and new trees of every folder a
// merge from tree a to tree b will compare: those that differ and hold
// something of the mount's own. Errors are left for the merge to meet.
func (ws *workspace) prefetch(ctx context.Context, p string, a, b objects.Digest, owned map[string]bool, trees map[objects.Digest]*meta.Tree) {
	if a == b || !owned[p] {
		if a != b && !b.IsZero() {
			if t, err := ws.fsys.db.ReadTree(ctx, b); err == nil {
				trees[b] = t // its listing, for the kernel's notes
			}
		}
		return
	}
	read := func(d objects.Digest) *meta.Tree {
		if d.IsZero() {
			return &meta.Tree{}
		}
		t, err := ws.fsys.db.ReadTree(ctx, d)
		if err != nil {
			return nil
		}
		trees[d] = t
		return t
	}
	ta, tb := read(a), read(b)
	if ta == nil || tb == nil {
		return
	}
	for _, n := range tb.Entries {
		if n.Kind != meta.KindDir {
			continue
		}
		if o, ok := ta.Find(n.Name); ok && o.Kind == meta.KindDir {
			ws.prefetch(ctx, path.Join(p, n.Name), o.Digest, n.Digest, owned, trees)
		}
	}
}

// notify tells the kernel to forget what it cached of the notes' entries.
// The caller holds no lock of the workspace: the kernel may call back.
func (f *FS) notify(ws *workspace, notes []note) {
	if len(notes) == 0 {
		return
	}
	ws.mu.Lock()
	node := ws.rootInode
	ws.mu.Unlock()
	var root *gofs.Inode
	if node != nil && node.EmbeddedInode().StableAttr().Ino != 0 {
		root = node.EmbeddedInode()
	}
	for _, n := range notes {
		if n.dir == historyNote {
			if f.root != nil && f.opts.Workspace == "" {
				tenant, name, _ := strings.Cut(ws.name, "/")
				if h := f.root.GetChild(historyName); h != nil {
					if t := h.GetChild(tenant); t != nil {
						if w := t.GetChild(name); w != nil {
							w.NotifyEntry(n.name)
						}
					}
				}
			}
			continue
		}
		if root == nil {
			continue
		}
		dir := root
		if n.dir != "" {
			for _, part := range strings.Split(n.dir, "/") {
				if dir = dir.GetChild(part); dir == nil {
					break
				}
			}
		}
		if dir == nil {
			continue // the kernel does not know that folder
		}
		if n.name == "" {
			dir.NotifyContent(0, 0)
			continue
		}
		if c := dir.GetChild(n.name); c != nil {
			c.NotifyContent(0, 0) // its attributes and cached pages
		}
		dir.NotifyEntry(n.name)
	}
}
