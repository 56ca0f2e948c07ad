package fusefs

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
)

// workspace is the live state of one mounted workspace.
type workspace struct {
	fsys *FS
	name string
	id   string // the incarnation (meta.Workspace.ID) this state belongs to

	mu          sync.Mutex
	root        *entry
	head        meta.RevNum
	cwd         string
	quotas      meta.Quotas
	settingsSeq uint64 // of the quotas above
	entries     int64  // live entries, the root included
	bytes       int64  // live file bytes
	changed     time.Time
	refusals    []*meta.QuotaError
	spoolDir    string
	spoolSeq    uint64
	rootInode   *wsNode // the FUSE node of the root, once looked up
	dropped     bool    // load let go of mu (see retrying)
	// groups are the loaded files with several names, by link group
	// number; maxLink is the highest number seen, so new groups get new
	// ones. A directory whose subtree holds a name of a group is loaded
	// with its parent, so every name of a group is loaded with the first.
	groups  map[uint64]*entry
	maxLink uint64

	commitMu sync.Mutex // one commit at a time; taken before mu

	// pendMu guards committing and pending (see follow.go): while this
	// mount commits, the events of the workspace wait in pending.
	pendMu     sync.Mutex
	committing bool
	pending    *meta.Workspace
}

// loadWorkspace reads a workspace's head into a fresh live tree.
func (f *FS) loadWorkspace(ctx context.Context, name string) (*workspace, error) {
	w, err := f.db.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	spool := filepath.Join(f.spoolDir, "ws", fmt.Sprintf("%x", sha256.Sum256([]byte(name+"\x00"+w.ID)))[:16])
	if err := os.MkdirAll(spool, 0o700); err != nil {
		return nil, fmt.Errorf("fusefs: spool folder for %s: %w", name, err)
	}
	now := time.Now()
	ws := &workspace{fsys: f, name: name, id: w.ID, spoolDir: spool,
		root: &entry{ino: f.nextIno(), kind: meta.KindDir, mode: 0o755, mtime: w.Updated, ctime: w.Updated, atime: now,
			tree: w.HeadRoot, sub: w.Usage},
		head: w.Head, cwd: w.HeadCwd, quotas: w.Quotas, settingsSeq: w.SettingsSeq,
		entries: w.Entries(), bytes: w.Usage.Bytes, groups: map[uint64]*entry{}}
	return ws, nil
}

// load reads a directory's children from its committed tree. The caller
// holds ws.mu; when the tree must be read, load lets go of it for the read
// (made under d.io) and takes it again, setting ws.dropped, so a caller
// that checked something before must check it again (see retrying). The
// subtrees that hold names of link groups are read with it and installed
// at once, so every name of a group is loaded with the first, in one
// hold of the lock.
func (ws *workspace) load(ctx context.Context, d *entry) error {
	for d.children == nil {
		if d.tree.IsZero() {
			d.children = map[string]*entry{}
			return nil
		}
		digest := d.tree
		ws.mu.Unlock()
		d.io.Lock()
		trees := map[objects.Digest]*meta.Tree{}
		err := ws.readLinked(ctx, digest, trees)
		d.io.Unlock()
		ws.mu.Lock()
		if err != nil {
			return fmt.Errorf("fusefs: %s: reading directory %q: %w", ws.name, d.path(), err)
		}
		ws.dropped = true
		if d.children != nil || d.tree != digest {
			continue // loaded meanwhile, or moved on by a merge (follow.go)
		}
		ws.install(d, trees)
	}
	return nil
}

// readLinked reads tree d, and below it every subtree that holds a name
// of a link group, into trees.
func (ws *workspace) readLinked(ctx context.Context, d objects.Digest, trees map[objects.Digest]*meta.Tree) error {
	if _, ok := trees[d]; ok {
		return nil
	}
	t, err := ws.fsys.db.ReadTree(ctx, d)
	if err != nil {
		return err
	}
	trees[d] = t
	for _, te := range t.Entries {
		if te.Kind == meta.KindDir && te.Sub.Linked > 0 {
			if err := ws.readLinked(ctx, te.Digest, trees); err != nil {
				return err
			}
		}
	}
	return nil
}

// install gives d, not loaded, its children from trees (read by
// readLinked), and the same to each subdirectory whose tree is there.
// The caller holds ws.mu.
func (ws *workspace) install(d *entry, trees map[objects.Digest]*meta.Tree) {
	t := trees[d.tree]
	children := make(map[string]*entry, len(t.Entries))
	var linked []*entry
	for _, te := range t.Entries {
		c := ws.entryFromTree(d, te)
		children[te.Name] = c
		if te.Kind == meta.KindDir {
			d.subdirs++
			if _, ok := trees[te.Digest]; ok && te.Sub.Linked > 0 {
				linked = append(linked, c)
			}
		}
	}
	d.children = children
	for _, c := range linked {
		ws.install(c, trees)
	}
}

// entryFromTree makes the live entry of committed entry te in folder d
// (not linked into d).
func (ws *workspace) entryFromTree(d *entry, te meta.Entry) *entry {
	if g, ok := ws.groups[te.Link]; ok && te.Link != 0 && te.Kind == meta.KindFile {
		// Another name of a file already loaded.
		g.extra = append(g.extra, dentry{d, te.Name})
		return g
	}
	c := &entry{ino: ws.fsys.nextIno(), kind: te.Kind, mode: uint32(te.Mode.Perm()) | modeExtra(te.Mode),
		mtime: te.MTime, ctime: te.MTime, atime: te.MTime, parent: d, name: te.Name,
		owned: te.Owned, uid: te.UID, gid: te.GID, rdev: uint32(te.Rdev), xattrs: te.Xattrs}
	switch te.Kind {
	case meta.KindFile:
		c.size, c.digest = te.Size, te.Digest
		if te.Link != 0 {
			c.link = te.Link
			ws.groups[te.Link] = c
			ws.maxLink = max(ws.maxLink, te.Link)
		}
	case meta.KindDir:
		c.tree, c.sub = te.Digest, te.Sub
	case meta.KindSymlink:
		c.target, c.size = te.Target, int64(len(te.Target))
	}
	return c
}

// retrying runs op under ws.mu (held by the caller) again from the start
// whenever it had to let go of the lock to read a tree, so that an
// operation that checks several things before it changes anything sees
// them all at one moment. The trees read stay loaded, so it ends.
func (ws *workspace) retrying(op func() syscall.Errno) syscall.Errno {
	for {
		ws.dropped = false
		errno := op()
		if !ws.dropped {
			return errno
		}
	}
}

// refuse records a quota refusal and returns it.
func (ws *workspace) refuse(qe *meta.QuotaError) error {
	ws.fsys.log.Warn("fusefs: quota refused a write", "workspace", ws.name, "limit", qe.Kind.String(), "max", qe.Limit, "usage", qe.Usage, "path", qe.Path)
	ws.refusals = append(ws.refusals, qe)
	if len(ws.refusals) > 100 {
		ws.refusals = ws.refusals[len(ws.refusals)-100:]
	}
	return qe
}

// checkNewEntries refuses n more entries at path p beyond the quota.
func (ws *workspace) checkNewEntries(p string, n int64) error {
	if ws.entries+n > ws.quotas.MaxEntries {
		return ws.refuse(&meta.QuotaError{Kind: meta.QuotaEntries, Workspace: ws.name, Path: p, Limit: ws.quotas.MaxEntries, Usage: ws.entries})
	}
	return nil
}

// checkPath refuses a path that breaks the path limits.
func (ws *workspace) checkPath(p string) error {
	if err := ws.quotas.CheckPath(ws.name, p); err != nil {
		var qe *meta.QuotaError
		if errors.As(err, &qe) {
			return ws.refuse(qe)
		}
		return err
	}
	return nil
}

// checkSize refuses growing file e (at path p) from its size to newSize.
func (ws *workspace) checkSize(e *entry, newSize int64) error {
	if newSize > ws.quotas.MaxFileBytes && newSize > e.size {
		return ws.refuse(&meta.QuotaError{Kind: meta.QuotaFileBytes, Workspace: ws.name, Path: e.path(), Limit: ws.quotas.MaxFileBytes, Usage: newSize})
	}
	if grow := (newSize - e.size) * e.perName(); grow > 0 && ws.bytes+grow > ws.quotas.MaxWorkspaceBytes {
		return ws.refuse(&meta.QuotaError{Kind: meta.QuotaWorkspaceBytes, Workspace: ws.name, Path: e.path(), Limit: ws.quotas.MaxWorkspaceBytes, Usage: ws.bytes})
	}
	return nil
}

// checkBytes refuses adding grow bytes (extended attributes, a new name of
// a file) at path p beyond the workspace's bytes quota.
func (ws *workspace) checkBytes(p string, grow int64) error {
	if grow > 0 && ws.bytes+grow > ws.quotas.MaxWorkspaceBytes {
		return ws.refuse(&meta.QuotaError{Kind: meta.QuotaWorkspaceBytes, Workspace: ws.name, Path: p, Limit: ws.quotas.MaxWorkspaceBytes, Usage: ws.bytes})
	}
	return nil
}

// touched records a change for the autocommit's quiet period.
func (ws *workspace) touched(e *entry) {
	e.markDirty()
	ws.changed = time.Now()
}

// makeWritable gives file e a spool it may write, open in e.local. The
// caller holds ws.mu; when the content must first be fetched from the
// store, or copied away from a spool a commit is reading, makeWritable
// lets go of the lock for that (prepareSpool) and takes it again, so the
// caller reads e's state only after it returns. A caller that holds no
// handle on e closes the descriptor again when done (closeIdle).
func (ws *workspace) makeWritable(ctx context.Context, e *entry) error {
	for !e.writable() {
		if e.size == 0 && e.spool == "" {
			// Nothing to fetch: start from an empty spool.
			return ws.newSpool(e)
		}
		ws.mu.Unlock()
		err := ws.prepareSpool(ctx, e)
		ws.mu.Lock()
		if err != nil {
			return err
		}
	}
	if e.local == nil {
		f, err := os.OpenFile(e.spool, os.O_RDWR, 0)
		if err != nil {
			return fmt.Errorf("fusefs: %s: reopening the spool of %q: %w", ws.name, e.path(), err)
		}
		e.local = f
	}
	return nil
}

// newSpool gives e a new empty spool, the pinned one (if any) left to its
// commit. The caller holds ws.mu.
func (ws *workspace) newSpool(e *entry) error {
	f, err := ws.createSpool(e)
	if err != nil {
		return err
	}
	ws.installSpool(e, f)
	return nil
}

func (ws *workspace) createSpool(e *entry) (*os.File, error) {
	ws.spoolSeq++
	f, err := os.OpenFile(filepath.Join(ws.spoolDir, fmt.Sprintf("%d-%d", e.ino, ws.spoolSeq)), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("fusefs: %s: spool for %q: %w", ws.name, e.path(), err)
	}
	return f, nil
}

// installSpool makes f e's spool. A pinned spool stays with its commit,
// its descriptor kept open for reads that raced with the move. The caller
// holds ws.mu.
func (ws *workspace) installSpool(e *entry, f *os.File) {
	if e.pin != nil && !e.pin.moved && e.spool == e.pin.spool {
		e.pin.moved = true
		e.pin.old = e.local
	} else {
		e.closeLocal()
		if e.spool != "" {
			os.Remove(e.spool)
		}
	}
	e.local, e.spool = f, f.Name()
}

// prepareSpool copies e's content into a new spool: from its blob (fetched
// and verified) when it has no spool, from its pinned spool when a commit
// is reading that one. It runs without ws.mu, under e.io, and installs the
// copy only if e is still as it found it.
func (ws *workspace) prepareSpool(ctx context.Context, e *entry) error {
	e.io.Lock()
	defer e.io.Unlock()
	ws.mu.Lock()
	if e.writable() || (e.size == 0 && e.spool == "") {
		ws.mu.Unlock()
		return nil
	}
	digest, size, from, p := e.digest, e.size, e.spool, e.path()
	dst, err := ws.createSpool(e)
	ws.mu.Unlock()
	if err != nil {
		return err
	}
	var src *os.File
	if from != "" {
		src, err = os.Open(from) // pinned: nobody writes it
	} else {
		src, err = ws.fsys.blobs.open(ctx, digest, size)
		if err != nil {
			ws.fsys.logBlobError(ws.name, p, digest, err)
		}
	}
	if err == nil {
		_, err = io.Copy(dst, io.NewSectionReader(src, 0, size))
		src.Close()
		if err != nil {
			err = fmt.Errorf("fusefs: %s: copying %q to the spool: %w", ws.name, p, err)
		}
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if err != nil || e.spool != from || e.size != size || e.digest != digest || e.writable() {
		dst.Close()
		os.Remove(dst.Name())
		return err // a nil error with nothing installed: the caller looks again
	}
	ws.installSpool(e, dst)
	return nil
}

// openBlob opens the verified copy of file e's committed content for
// reading, fetching it from the store under e.io without ws.mu (which the
// caller holds, and holds again on return). It returns nil, nil when the
// content moved to a spool meanwhile: the caller reads that instead.
func (ws *workspace) openBlob(ctx context.Context, e *entry) (*os.File, error) {
	for e.spool == "" && e.size > 0 {
		digest, size, p := e.digest, e.size, e.path()
		ws.mu.Unlock()
		e.io.Lock()
		f, err := ws.fsys.blobs.open(ctx, digest, size)
		e.io.Unlock()
		ws.mu.Lock()
		if err != nil {
			ws.fsys.logBlobError(ws.name, p, digest, err)
			return nil, err
		}
		if e.spool == "" && e.digest == digest && e.size == size {
			return f, nil
		}
		f.Close()
	}
	return nil, nil
}

// commit writes the live tree as a revision on top of base. It holds
// ws.mu only to freeze the changed part of the tree and to install the
// result: the uploads, the trees and the revision are written without it,
// so the mount keeps answering. Edits made meanwhile stay dirty for the
// next commit; a file written meanwhile moves to a new spool, and the
// commit keeps the content it froze. Commits of one workspace run one at
// a time (ws.commitMu). Meta's events about the workspace wait until the
// commit is done, then reach the live tree (see follow.go).
func (ws *workspace) commit(ctx context.Context, base meta.RevNum, cwd string, info meta.CommitInfo) (meta.Revision, bool, error) {
	ws.commitMu.Lock()
	defer ws.commitMu.Unlock()
	return ws.commitLocked(ctx, base, cwd, info)
}

// waitCommit returns once no commit of the workspace is under way.
func (ws *workspace) waitCommit() {
	ws.commitMu.Lock()
	defer ws.commitMu.Unlock()
}

// commitLocked is commit for a caller that holds ws.commitMu.
func (ws *workspace) commitLocked(ctx context.Context, base meta.RevNum, cwd string, info meta.CommitInfo) (meta.Revision, bool, error) {
	ws.pendMu.Lock()
	ws.committing = true
	ws.pendMu.Unlock()
	defer ws.endCommit()
	ws.mu.Lock()
	if !ws.root.dirty && (cwd == "" || cwd == ws.cwd) {
		head := ws.head
		ws.mu.Unlock()
		if base != head {
			return meta.Revision{}, false, fmt.Errorf("fusefs: commit to %s: %w: base revision %d, but the head is %d", ws.name, meta.ErrStale, base, head)
		}
		rev, err := ws.fsys.db.Show(ctx, meta.Ref{Workspace: ws.name, Rev: head})
		return rev, false, err
	}
	fz := &frozen{root: ws.root}
	top := fz.freeze(ws.root)
	head := ws.head
	ws.mu.Unlock()

	installed := false
	defer func() {
		if !installed {
			ws.mu.Lock()
			fz.unpin(ws, false)
			ws.mu.Unlock()
		}
	}()
	// The files' contents and the new trees go in one batch, which meta
	// stores with the revision's manifest: one upload (a pack) for a
	// commit of small files.
	batch := ws.fsys.db.NewBatch()
	defer batch.Close()
	if err := fz.hash(ctx, batch); err != nil {
		return meta.Revision{}, false, fmt.Errorf("fusefs: commit to %s: %w; the head stays at revision %d", ws.name, err, head)
	}
	root, _, err := fz.writeTrees(ctx, batch, top)
	if err != nil {
		return meta.Revision{}, false, fmt.Errorf("fusefs: commit to %s: %w; the head stays at revision %d", ws.name, err, head)
	}
	rev, committed, err := ws.fsys.db.CommitBatch(ctx, ws.name, base, batch, root, cwd, info)
	if err != nil {
		return rev, false, err
	}
	ws.mu.Lock()
	installed = true
	fz.unpin(ws, true)
	if ws.root == fz.root {
		ws.head = rev.N
		ws.cwd = rev.Cwd
	}
	ws.mu.Unlock()
	return rev, committed, nil
}

// frozen is the changed part of a live tree as a commit saw it under
// ws.mu: the directories to write and the files to upload, with the
// change count (ver) of each, so that only what did not change since is
// marked clean when the commit is done.
type frozen struct {
	root  *entry
	dirs  []*frozenDir
	files []*frozenFile
	seen  map[*entry]*frozenFile
}

type frozenDir struct {
	e        *entry
	ver      uint64
	entries  []meta.Entry
	children map[int]*frozenDir  // index in entries of a changed directory
	files    map[int]*frozenFile // index in entries of a file to upload
	tree     objects.Digest
	sub      meta.Stats
}

type frozenFile struct {
	e      *entry
	path   string // for messages: e's path when frozen (read without ws.mu)
	ver    uint64
	spool  string // pinned until the commit is done
	size   int64
	digest objects.Digest // set by the upload
}

// freeze records the changed directory d and what it holds. The caller
// holds ws.mu.
func (fz *frozen) freeze(d *entry) *frozenDir {
	fd := &frozenDir{e: d, ver: d.ver, children: map[int]*frozenDir{}, files: map[int]*frozenFile{}}
	fz.dirs = append(fz.dirs, fd)
	if !d.dirty || d.children == nil {
		fd.tree, fd.sub = d.tree, d.sub
		fd.entries = nil
		return fd
	}
	fd.entries = make([]meta.Entry, 0, len(d.children))
	for _, name := range d.sortedNames() {
		c := d.children[name]
		te := meta.Entry{Name: name, Kind: c.kind, Mode: permToMode(c.mode), MTime: c.mtime,
			Owned: c.owned, UID: c.uid, GID: c.gid, Rdev: uint64(c.rdev), Xattrs: slices.Clone(c.xattrs)}
		i := len(fd.entries)
		if c.kind != meta.KindDir && c.dirty {
			// A file with several names is frozen (and uploaded) once.
			ff, seen := fz.seen[c]
			if !seen {
				ff = &frozenFile{e: c, path: d.childPath(name), ver: c.ver, size: c.size, digest: c.digest}
				if c.kind == meta.KindFile && c.spool != "" {
					ff.spool = c.spool
					c.pin = &spoolPin{spool: c.spool}
				}
				fz.files = append(fz.files, ff)
				if fz.seen == nil {
					fz.seen = map[*entry]*frozenFile{}
				}
				fz.seen[c] = ff
			}
			if ff.spool != "" {
				fd.files[i] = ff
			}
		}
		switch c.kind {
		case meta.KindFile:
			te.Size, te.Digest = c.size, c.digest
			if c.nlink() > 1 {
				te.Link = c.link
			}
		case meta.KindSymlink:
			te.Target, te.Size = c.target, int64(len(c.target))
		case meta.KindDir:
			if c.dirty && c.children != nil {
				fd.children[i] = fz.freeze(c)
			} else {
				te.Digest, te.Sub = c.tree, c.sub
				if c.dirty {
					fz.dirs = append(fz.dirs, &frozenDir{e: c, ver: c.ver, tree: c.tree, sub: c.sub})
				}
			}
		}
		fd.entries = append(fd.entries, te)
	}
	return fd
}

// hash hashes the content of every changed file, in parallel, from the
// pinned spools, without ws.mu, and adds it to batch, which reads the
// spool again if the store lacks it.
func (fz *frozen) hash(ctx context.Context, batch *meta.Batch) error {
	g, _ := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for _, ff := range fz.files {
		if ff.spool == "" {
			continue
		}
		g.Go(func() error {
			p := ff.path
			f, err := os.Open(ff.spool)
			if err != nil {
				return fmt.Errorf("reading the spool of %q: %w", p, err)
			}
			defer f.Close()
			h := sha256.New()
			if _, err := io.Copy(h, io.NewSectionReader(f, 0, ff.size)); err != nil {
				return fmt.Errorf("hashing %q: %w", p, err)
			}
			ff.digest = objects.Digest(h.Sum(nil))
			spool, size := ff.spool, ff.size
			batch.PutBlob(ff.digest, size, func(context.Context) (io.ReadCloser, error) {
				f, err := os.Open(spool)
				if err != nil {
					return nil, fmt.Errorf("reading the spool of %q: %w", p, err)
				}
				return struct {
					io.Reader
					io.Closer
				}{io.NewSectionReader(f, 0, size), f}, nil
			})
			return nil
		})
	}
	return g.Wait()
}

// writeTrees writes the trees of the frozen directories, bottom up, and
// returns fd's tree and totals. Clean directories keep the digest they
// had, so the cost follows the change.
func (fz *frozen) writeTrees(ctx context.Context, batch *meta.Batch, fd *frozenDir) (objects.Digest, meta.Stats, error) {
	if fd.entries == nil {
		return fd.tree, fd.sub, nil
	}
	var total meta.Stats
	for i := range fd.entries {
		te := &fd.entries[i]
		if ff, ok := fd.files[i]; ok {
			te.Digest = ff.digest
		}
		if sub, ok := fd.children[i]; ok {
			digest, st, err := fz.writeTrees(ctx, batch, sub)
			if err != nil {
				return objects.Digest{}, meta.Stats{}, err
			}
			te.Digest, te.Sub = digest, st
		}
		total = total.Add(te.Stats())
	}
	digest, err := batch.WriteTree(ctx, &meta.Tree{Entries: fd.entries})
	if err != nil {
		return objects.Digest{}, meta.Stats{}, err
	}
	fd.tree, fd.sub = digest, total
	return digest, total, nil
}

// unpin ends the commit under ws.mu. Done (the revision is recorded), it
// installs the new digests and marks clean every frozen entry that did not
// change since; either way it gives the pinned spools back: to their file
// when it still uses them, else to the blob cache (done) or the bin.
func (fz *frozen) unpin(ws *workspace, done bool) {
	for _, ff := range fz.files {
		e := ff.e
		pin := e.pin
		if ff.spool != "" && pin != nil {
			e.pin = nil
			if pin.moved {
				if pin.old != nil {
					pin.old.Close()
				}
				if done {
					if err := ws.fsys.blobs.adopt(ff.digest, ff.size, pin.spool); err != nil {
						ws.fsys.log.Warn("fusefs: could not keep a committed file's spool as its cached copy; it is read from the store",
							"workspace", ws.name, "digest", ff.digest.String(), "err", err)
					}
				} else {
					os.Remove(pin.spool)
				}
			}
			// The content is still the one uploaded unless it changed
			// since (a change to the content moves the pin).
			if done && (!pin.moved || e.ver == ff.ver) {
				e.digest = ff.digest
			}
		}
		if done && e.ver == ff.ver {
			e.dirty = false
		}
		if e.unlinked {
			e.releaseLocal()
		} else {
			ws.retireSpool(e)
		}
	}
	if !done {
		return
	}
	for _, fd := range fz.dirs {
		if fd.e.ver == fd.ver {
			fd.e.tree, fd.e.sub = fd.tree, fd.sub
			fd.e.dirty = false
		}
	}
}
