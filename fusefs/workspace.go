package fusefs

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
)

// workspace is the live state of one mounted workspace.
type workspace struct {
	fsys *FS
	name string

	mu        sync.Mutex
	root      *entry
	head      meta.RevNum
	cwd       string
	quotas    meta.Quotas
	entries   int64 // live entries, the root included
	bytes     int64 // live file bytes
	changed   time.Time
	refusals  []Refusal
	spoolDir  string
	spoolSeq  uint64
	rootInode *wsNode // the FUSE node of the root, once looked up
}

// Refusal is a write the quotas refused, kept for the runner to print.
type Refusal struct {
	Time  time.Time        `json:"time"`
	Error *meta.QuotaError `json:"error"`
	Text  string           `json:"text"`
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
	ws := &workspace{fsys: f, name: name, spoolDir: spool}
	ws.reset(w)
	return ws, nil
}

// reset makes the live tree the head of w. The caller holds ws.mu (or owns ws).
func (ws *workspace) reset(w meta.Workspace) {
	now := time.Now()
	ino := ws.fsys.nextIno()
	if ws.root != nil {
		ino = ws.root.ino // the kernel keeps the root's inode across a reload
	}
	ws.root = &entry{ino: ino, kind: meta.KindDir, mode: 0o755, mtime: w.Updated, ctime: w.Updated, atime: now,
		tree: w.HeadRoot, sub: w.Usage}
	ws.head = w.Head
	ws.cwd = w.HeadCwd
	ws.quotas = w.Quotas
	ws.entries = w.Usage.Files + w.Usage.Dirs + w.Usage.Symlinks + 1
	ws.bytes = w.Usage.Bytes
}

// load reads a directory's children from its committed tree.
func (ws *workspace) load(ctx context.Context, d *entry) error {
	if d.children != nil {
		return nil
	}
	children := map[string]*entry{}
	if !d.tree.IsZero() {
		t, err := ws.fsys.db.ReadTree(ctx, d.tree)
		if err != nil {
			return fmt.Errorf("fusefs: %s: reading directory %q: %w", ws.name, d.path(), err)
		}
		for _, te := range t.Entries {
			c := &entry{ino: ws.fsys.nextIno(), kind: te.Kind, mode: uint32(te.Mode.Perm()) | modeExtra(te.Mode),
				mtime: te.MTime, ctime: te.MTime, atime: te.MTime, parent: d, name: te.Name}
			switch te.Kind {
			case meta.KindFile:
				c.size, c.digest = te.Size, te.Digest
			case meta.KindDir:
				c.tree, c.sub = te.Digest, te.Sub
			case meta.KindSymlink:
				c.target, c.size = te.Target, int64(len(te.Target))
			}
			children[te.Name] = c
			if te.Kind == meta.KindDir {
				d.subdirs++
			}
		}
	}
	d.children = children
	return nil
}

// refuse records a quota refusal and returns it.
func (ws *workspace) refuse(qe *meta.QuotaError) error {
	ws.fsys.log.Warn("fusefs: quota refused a write", "workspace", ws.name, "limit", qe.Kind.String(), "max", qe.Limit, "usage", qe.Usage, "path", qe.Path)
	ws.refusals = append(ws.refusals, Refusal{Time: time.Now(), Error: qe, Text: qe.Error()})
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
	if grow := newSize - e.size; grow > 0 && ws.bytes+grow > ws.quotas.MaxWorkspaceBytes {
		return ws.refuse(&meta.QuotaError{Kind: meta.QuotaWorkspaceBytes, Workspace: ws.name, Path: e.path(), Limit: ws.quotas.MaxWorkspaceBytes, Usage: ws.bytes})
	}
	return nil
}

// touched records a change for the autocommit's quiet period.
func (ws *workspace) touched(e *entry) {
	e.markDirty()
	ws.changed = time.Now()
}

// materialize gives file e a private spool file holding its content, open
// in e.local, so it can be written. The caller holds ws.mu; one that holds
// no handle on e closes the descriptor again when done (closeIdle).
func (ws *workspace) materialize(ctx context.Context, e *entry) error {
	if e.local != nil {
		return nil
	}
	if e.spool != "" {
		f, err := os.OpenFile(e.spool, os.O_RDWR, 0)
		if err != nil {
			return fmt.Errorf("fusefs: %s: reopening the spool of %q: %w", ws.name, e.path(), err)
		}
		e.local = f
		return nil
	}
	ws.spoolSeq++
	f, err := os.OpenFile(filepath.Join(ws.spoolDir, fmt.Sprintf("%d-%d", e.ino, ws.spoolSeq)), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("fusefs: %s: spool for %q: %w", ws.name, e.path(), err)
	}
	if e.size > 0 {
		src, err := ws.fsys.blobs.open(ctx, e.digest, e.size)
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			ws.fsys.logBlobError(ws.name, e.path(), e.digest, err)
			return err
		}
		_, err = io.Copy(f, io.NewSectionReader(src, 0, e.size))
		src.Close()
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			return fmt.Errorf("fusefs: %s: copying %q to the spool: %w", ws.name, e.path(), err)
		}
	}
	e.local, e.spool = f, f.Name()
	return nil
}

// commit writes the live tree as a revision on top of base. It holds
// ws.mu throughout, so the snapshot is consistent: nothing changes the
// tree while its blobs upload.
func (ws *workspace) commit(ctx context.Context, base meta.RevNum, cwd string, info meta.CommitInfo) (meta.Revision, bool, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if !ws.root.dirty && (cwd == "" || cwd == ws.cwd) {
		if base != ws.head {
			return meta.Revision{}, false, fmt.Errorf("fusefs: commit to %s: %w: base revision %d, but the head is %d", ws.name, meta.ErrStale, base, ws.head)
		}
		rev, err := ws.fsys.db.Show(ctx, meta.Ref{Workspace: ws.name, Rev: ws.head})
		return rev, false, err
	}
	if err := ws.uploadDirty(ctx, ws.root); err != nil {
		return meta.Revision{}, false, fmt.Errorf("fusefs: commit to %s: %w; the head stays at revision %d", ws.name, err, ws.head)
	}
	root, _, err := ws.writeTrees(ctx, ws.root)
	if err != nil {
		return meta.Revision{}, false, fmt.Errorf("fusefs: commit to %s: %w; the head stays at revision %d", ws.name, err, ws.head)
	}
	rev, committed, err := ws.fsys.db.CommitTree(ctx, ws.name, base, root, cwd, info)
	if err != nil {
		return rev, false, err
	}
	ws.markClean(ws.root)
	ws.head = rev.N
	ws.cwd = rev.Cwd
	return rev, committed, nil
}

// uploadDirty hashes and uploads the content of every changed file, in
// parallel, before any tree names it.
func (ws *workspace) uploadDirty(ctx context.Context, root *entry) error {
	var files []*entry
	var walk func(d *entry)
	walk = func(d *entry) {
		for _, c := range d.children {
			switch {
			case c.isDir() && c.dirty:
				walk(c)
			case c.kind == meta.KindFile && c.dirty && c.spool != "":
				files = append(files, c)
			}
		}
	}
	walk(root)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for _, e := range files {
		g.Go(func() error {
			// A descriptor of its own: e.local is open only while a
			// handle is, and at most 8 of these are at a time.
			f, err := os.Open(e.spool)
			if err != nil {
				return fmt.Errorf("reading the spool of %q: %w", e.path(), err)
			}
			defer f.Close()
			h := sha256.New()
			if _, err := io.Copy(h, io.NewSectionReader(f, 0, e.size)); err != nil {
				return fmt.Errorf("hashing %q: %w", e.path(), err)
			}
			d := objects.Digest(h.Sum(nil))
			if err := ws.fsys.store.Put(gctx, d, io.NewSectionReader(f, 0, e.size), e.size); err != nil {
				return fmt.Errorf("uploading %q: %w", e.path(), err)
			}
			e.digest = d
			return nil
		})
	}
	return g.Wait()
}

// writeTrees writes the trees of every changed directory below and at d,
// bottom up, and returns d's tree and totals. Clean directories keep the
// digest they had, so the cost follows the change.
func (ws *workspace) writeTrees(ctx context.Context, d *entry) (objects.Digest, meta.Stats, error) {
	if !d.dirty || d.children == nil {
		return d.tree, d.sub, nil
	}
	t := &meta.Tree{Entries: make([]meta.Entry, 0, len(d.children))}
	var total meta.Stats
	for _, name := range d.sortedNames() {
		c := d.children[name]
		te := meta.Entry{Name: name, Kind: c.kind, Mode: permToMode(c.mode), MTime: c.mtime}
		switch c.kind {
		case meta.KindFile:
			te.Size, te.Digest = c.size, c.digest
			total.Files++
			total.Bytes += c.size
		case meta.KindSymlink:
			te.Target, te.Size = c.target, int64(len(c.target))
			total.Symlinks++
		case meta.KindDir:
			digest, sub, err := ws.writeTrees(ctx, c)
			if err != nil {
				return objects.Digest{}, meta.Stats{}, err
			}
			te.Digest, te.Sub = digest, sub
			total.Dirs++
			total.Files += sub.Files
			total.Dirs += sub.Dirs
			total.Symlinks += sub.Symlinks
			total.Bytes += sub.Bytes
		}
		t.Entries = append(t.Entries, te)
	}
	digest, err := ws.fsys.db.WriteTree(ctx, t)
	if err != nil {
		return objects.Digest{}, meta.Stats{}, err
	}
	d.tree, d.sub = digest, total
	return digest, total, nil
}

// markClean clears the dirty marks after a commit and retires the spools
// of the committed files nobody has open.
func (ws *workspace) markClean(d *entry) {
	if !d.dirty {
		return
	}
	d.dirty = false
	for _, c := range d.children {
		if c.dirty {
			if c.isDir() {
				ws.markClean(c)
			} else {
				c.dirty = false
				ws.retireSpool(c)
			}
		}
	}
}
