package meta

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/wsfs/wsfs/meta/kv"

	"github.com/wsfs/wsfs/objects"
)

// OpKind names a path-level operation of a Change.
type OpKind string

// Operations a Change can hold. Parents of a created path are created as
// needed (mode 0755); a symlink in the parent path is never followed (the
// operation fails instead).
const (
	// OpPut makes Path a regular file with content Digest (Size bytes),
	// replacing a file or symlink there. Mode 0 means 0644.
	OpPut OpKind = "put"
	// OpMkdir makes Path a directory; on an existing directory it sets
	// Mode and MTime. Mode 0 means 0755.
	OpMkdir OpKind = "mkdir"
	// OpSymlink makes Path a symlink to Target, replacing a file or symlink.
	OpSymlink OpKind = "symlink"
	// OpRemove removes Path, recursively. Removing a missing path does nothing.
	OpRemove OpKind = "remove"
	// OpChmod sets Path's permission bits to Mode (exactly, 0 included).
	OpChmod OpKind = "chmod"
	// OpChtimes sets Path's MTime.
	OpChtimes OpKind = "chtimes"
	// OpRename moves Path to To, replacing a file, symlink or empty
	// directory there as rename(2) does.
	OpRename OpKind = "rename"
	// OpMknod makes Path a special file of kind Special (a FIFO, socket
	// or device, with Rdev), replacing a file or symlink. Mode 0 means
	// 0644.
	OpMknod OpKind = "mknod"
)

// BlobSource opens the content of a blob to upload.
type BlobSource func(ctx context.Context) (io.ReadCloser, error)

// Op is one path-level operation. Paths are workspace-relative (CleanPath
// rules). A zero MTime means the commit's time.
type Op struct {
	Kind   OpKind         `json:"op"`
	Path   string         `json:"path"`
	To     string         `json:"to,omitempty"`
	Digest objects.Digest `json:"digest"`
	Size   int64          `json:"size,omitempty"`
	Mode   fs.FileMode    `json:"mode,omitempty"`
	MTime  time.Time      `json:"mtime"`
	Target string         `json:"target,omitempty"`
	// Special and Rdev: what OpMknod makes.
	Special EntryKind `json:"special,omitempty"`
	Rdev    uint64    `json:"rdev,omitempty"`
	// Xattrs are the extended attributes of what put, mkdir (a new
	// directory), symlink or mknod makes.
	Xattrs []Xattr `json:"xattrs,omitempty"`
	// Source supplies a put's content when the store does not have the
	// blob yet; nil means the blob must already be stored (a layer that
	// uploads ahead of the commit holds the blob with DB.Hold until
	// Commit returns, so that GC cannot take it meanwhile).
	Source BlobSource `json:"-"`
}

// PutFile returns an OpPut; src may be nil if the blob is already stored.
func PutFile(p string, d objects.Digest, size int64, mode fs.FileMode, mtime time.Time, src BlobSource) Op {
	return Op{Kind: OpPut, Path: p, Digest: d, Size: size, Mode: mode, MTime: mtime, Source: src}
}

// PutBytes returns an OpPut of content held in memory.
func PutBytes(p string, content []byte, mode fs.FileMode, mtime time.Time) Op {
	return PutFile(p, objects.Sum(content), int64(len(content)), mode, mtime, func(context.Context) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(content)), nil
	})
}

// Mkdir returns an OpMkdir.
func Mkdir(p string, mode fs.FileMode, mtime time.Time) Op {
	return Op{Kind: OpMkdir, Path: p, Mode: mode, MTime: mtime}
}

// Symlink returns an OpSymlink.
func Symlink(p, target string, mtime time.Time) Op {
	return Op{Kind: OpSymlink, Path: p, Target: target, MTime: mtime}
}

// Mknod returns an OpMknod.
func Mknod(p string, kind EntryKind, mode fs.FileMode, rdev uint64, mtime time.Time) Op {
	return Op{Kind: OpMknod, Path: p, Special: kind, Mode: mode, Rdev: rdev, MTime: mtime}
}

// Remove returns an OpRemove.
func Remove(p string) Op { return Op{Kind: OpRemove, Path: p} }

// Chmod returns an OpChmod.
func Chmod(p string, mode fs.FileMode) Op { return Op{Kind: OpChmod, Path: p, Mode: mode} }

// Chtimes returns an OpChtimes.
func Chtimes(p string, mtime time.Time) Op { return Op{Kind: OpChtimes, Path: p, MTime: mtime} }

// Rename returns an OpRename.
func Rename(from, to string) Op { return Op{Kind: OpRename, Path: from, To: to} }

// CommitInfo is what a revision records about the command that made it.
type CommitInfo struct {
	Command  string        `json:"command"`
	ExitCode int           `json:"exit_code"`
	Duration time.Duration `json:"duration_ns"`
	Author   string        `json:"author"`
	Time     time.Time     `json:"time"` // zero means now
}

// Change is what a command did to a workspace: operations applied in
// order to the base revision's tree, the cwd after it ("" keeps the
// base's) and what to record about it.
type Change struct {
	Ops []Op   `json:"ops"`
	Cwd string `json:"cwd"`
	CommitInfo
}

// Commit applies change to revision base of workspace ws and records the
// result as revision base+1, if the tree or the cwd changed; otherwise it
// writes nothing and returns the base revision with committed false.
//
// The order keeps every committed revision whole: the blobs of put
// operations (missing ones only) and the new trees (only those on changed
// paths) are uploaded first, in parallel, then the manifest, then one bbolt
// transaction checks that the head is still base and writes the revision.
// If the head moved, Commit returns ErrStale and the database is unchanged.
// If the store fails, the head is untouched and the error wraps ErrStore.
// A quota breach returns a *QuotaError naming the first path that broke it.
func (db *DB) Commit(ctx context.Context, ws string, base RevNum, change Change) (Revision, bool, error) {
	w, baseRev, err := db.commitBase(ctx, ws, base)
	if err != nil {
		return Revision{}, false, err
	}
	now := db.now().UTC()
	if change.Time.IsZero() {
		change.Time = now
	}
	cwd, err := cleanCwd(change.Cwd, baseRev.Cwd)
	if err != nil {
		return Revision{}, false, err
	}
	ed, err := db.newEditor(ctx, w, baseRev.Root, change.Time)
	if err != nil {
		return Revision{}, false, err
	}
	for i := range change.Ops {
		if err := ed.apply(ctx, &change.Ops[i]); err != nil {
			return Revision{}, false, err
		}
	}
	newTrees, root := ed.serialize()
	if root == baseRev.Root && cwd == baseRev.Cwd {
		// Nothing to commit, but content written again over itself heals
		// a damaged stored copy all the same.
		if err := db.healPuts(ctx, change.Ops); err != nil {
			db.log.Warn("meta: could not store again a damaged copy of content written over itself", "workspace", w.Name, "err", err)
		}
		return *baseRev, false, nil
	}
	changes, err := ed.changes(ctx, baseRev.Root)
	if err != nil {
		return Revision{}, false, err
	}

	// The contents of put operations and the new trees go up with the
	// manifest (finishCommit): those the store lacks, in one pack when they
	// are small.
	u := db.newUpload()
	defer u.release()
	for i := range change.Ops {
		if op := &change.Ops[i]; op.Kind == OpPut {
			u.add(pendingObject{d: op.Digest, tag: tagFile, size: op.Size, src: op.Source, what: op.Path})
		}
	}
	for d, b := range newTrees {
		u.add(pendingObject{d: d, tag: tagTree, size: int64(len(b)), data: b, what: "a tree"})
	}
	rev := &Revision{
		Workspace: w.Name, WorkspaceID: w.ID, N: base + 1, Parent: base, ParentManifest: baseRev.Manifest,
		Root: root, Cwd: cwd, Time: change.Time, Command: change.Command, ExitCode: change.ExitCode,
		Duration: change.Duration, Author: change.Author, Stats: ed.root.sub, Changes: changes,
	}
	r, ok, err := db.finishCommit(ctx, w, rev, nil, u)
	if err == nil {
		for d, t := range ed.decoded {
			db.trees.add(d, t)
		}
	}
	return r, ok, err
}

// revPin names a revision whose tree a commit reuses (Restore, Fork). The
// commit's transaction checks that it still exists: then GC, which marks
// from every retained revision, cannot have reclaimed its objects.
type revPin struct {
	wsID string
	name string
	n    RevNum
}

func (p *revPin) check(tx kv.Reader) error {
	if p == nil {
		return nil
	}
	v, err := tx.Get(revBucket(p.wsID), revKey(p.n))
	if err != nil {
		return err
	}
	if v == nil {
		return fmt.Errorf("meta: %s@%d: %w: the revision was deleted or dropped by retention meanwhile", p.name, p.n, ErrStale)
	}
	return nil
}

// CommitTree records a complete new root tree (written with WriteTree or
// taken from another revision) as revision base+1 of ws, with cwd ("" keeps
// the base's). It is for restore, import and layers that build trees
// themselves. The same stale check, quota check on growth and
// no-op rule as Commit apply; the changed paths are computed by comparing
// the trees, descending only where they differ.
//
// Every tree and blob under root must be in the store. Objects written in
// the last GCOptions.Grace (WriteTree, Store.Put) and objects of retained
// revisions are safe from GC; the caller must not rely on older objects
// that no retained revision reaches.
func (db *DB) CommitTree(ctx context.Context, ws string, base RevNum, root objects.Digest, cwd string, info CommitInfo) (Revision, bool, error) {
	return db.commitTree(ctx, ws, base, root, cwd, info, nil, nil)
}

// CommitBatch is CommitTree for a root tree built in batch b (with
// Batch.WriteTree, its files added with Batch.PutBlob): the objects of b
// that the new tree names and the store lacks are stored with the
// revision's manifest, in one upload when they are small (see the package
// doc). Objects the tree names that b does not hold must be in the store,
// as for CommitTree. CommitBatch closes b.
func (db *DB) CommitBatch(ctx context.Context, ws string, base RevNum, b *Batch, root objects.Digest, cwd string, info CommitInfo) (Revision, bool, error) {
	defer b.Close()
	return db.commitTree(ctx, ws, base, root, cwd, info, nil, b)
}

func (db *DB) commitTree(ctx context.Context, ws string, base RevNum, root objects.Digest, cwd string, info CommitInfo, pin *revPin, batch *Batch) (Revision, bool, error) {
	w, baseRev, err := db.commitBase(ctx, ws, base)
	if err != nil {
		return Revision{}, false, err
	}
	if info.Time.IsZero() {
		info.Time = db.now().UTC()
	}
	if cwd, err = cleanCwd(cwd, baseRev.Cwd); err != nil {
		return Revision{}, false, err
	}
	db.guard.protect(root)
	defer db.guard.release(root)
	t, err := db.readTree(ctx, root)
	if err != nil {
		return Revision{}, false, fmt.Errorf("meta: commit to %s: new root: %w; the head stays at revision %d", w.Name, err, base)
	}
	if root == baseRev.Root && cwd == baseRev.Cwd {
		return *baseRev, false, nil
	}
	stats := t.Stats()
	if err := checkTotals(w, baseRev.Stats, stats, ""); err != nil {
		return Revision{}, false, err
	}
	// Every object the new tree has and the base lacks must be stored,
	// and stay stored until the transaction: the upload protects them
	// from GC, stores those the batch holds and the store lacks, and
	// checks that the others are there (the tree cache is not proof).
	var fresh []freshObject
	if err := db.newObjects(ctx, baseRev.Root, root, "", &fresh); err != nil {
		return Revision{}, false, fmt.Errorf("meta: commit to %s: %w; the head stays at revision %d", w.Name, err, base)
	}
	u := db.newUpload()
	defer u.release()
	for _, f := range fresh {
		o := pendingObject{d: f.d, tag: tagFile, size: f.size, what: displayPath(f.path)}
		if f.tree {
			o.tag, o.size = tagTree, 0
		}
		if bo, ok := batch.object(f.d); ok {
			o.data, o.src, o.size = bo.data, bo.src, bo.size
		} else if f.d == EmptyTreeDigest {
			// The empty tree is stored again if need be: it is tiny and
			// may have been reclaimed when no revision used it.
			o.data, o.size = emptyTree, int64(len(emptyTree))
		}
		u.add(o)
	}
	// Files of the batch the base has already (written again unchanged):
	// stored again only over a copy found damaged, which heals it.
	for _, o := range batch.blobList() {
		if _, fresh := u.byD[o.d]; !fresh {
			o.healOnly, o.what = true, "a file written again"
			u.add(o)
		}
	}
	diffs, err := db.diffTrees(ctx, baseRev.Root, root, "", nil)
	if err != nil {
		return Revision{}, false, err
	}
	changes := make([]PathChange, 0, len(diffs))
	for _, d := range diffs {
		changes = append(changes, PathChange{Path: d.Path, Action: d.Action, Kind: d.kind()})
	}
	rev := &Revision{
		Workspace: w.Name, WorkspaceID: w.ID, N: base + 1, Parent: base, ParentManifest: baseRev.Manifest,
		Root: root, Cwd: cwd, Time: info.Time, Command: info.Command, ExitCode: info.ExitCode,
		Duration: info.Duration, Author: info.Author, Stats: stats, Changes: changes,
	}
	r, ok, err := db.finishCommit(ctx, w, rev, pin, u)
	if err == nil {
		batch.cacheTrees()
	}
	return r, ok, err
}

// freshObject is an object a new tree names that its base does not.
type freshObject struct {
	d    objects.Digest
	path string
	tree bool
	size int64
}

// newObjects lists the trees and blobs under b that are not under a at the
// same place, descending only where the two differ.
func (db *DB) newObjects(ctx context.Context, a, b objects.Digest, p string, out *[]freshObject) error {
	if a == b {
		return nil
	}
	*out = append(*out, freshObject{d: b, path: p, tree: true})
	tb, err := db.readTree(ctx, b)
	if err != nil {
		return fmt.Errorf("%s: %w", displayPath(p), err)
	}
	ta := &Tree{}
	if !a.IsZero() {
		if ta, err = db.readTree(ctx, a); err != nil {
			return err
		}
	}
	for _, e := range tb.Entries {
		old, ok := ta.Find(e.Name)
		switch e.Kind {
		case KindDir:
			var oa objects.Digest
			if ok && old.Kind == KindDir {
				oa = old.Digest
			}
			if err := db.newObjects(ctx, oa, e.Digest, joinPath(p, e.Name), out); err != nil {
				return err
			}
		case KindFile:
			if !ok || old.Kind != KindFile || old.Digest != e.Digest {
				*out = append(*out, freshObject{d: e.Digest, path: joinPath(p, e.Name), size: e.Size})
			}
		}
	}
	return nil
}

func displayPath(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}

// checkTotals refuses growth of entries or bytes past the quotas.
func checkTotals(w *Workspace, before, after Stats, p string) error {
	q := w.Quotas
	if after.Entries() > before.Entries() && after.Entries()+1 > q.MaxEntries {
		return &QuotaError{Kind: QuotaEntries, Workspace: w.Name, Path: p, Limit: q.MaxEntries, Usage: before.Entries() + 1}
	}
	if after.Bytes > before.Bytes && after.Bytes > q.MaxWorkspaceBytes {
		return &QuotaError{Kind: QuotaWorkspaceBytes, Workspace: w.Name, Path: p, Limit: q.MaxWorkspaceBytes, Usage: before.Bytes}
	}
	return nil
}

func cleanCwd(cwd, baseCwd string) (string, error) {
	if cwd == "" {
		return baseCwd, nil
	}
	c, err := CleanPath(cwd)
	if err != nil {
		return "", fmt.Errorf("meta: cwd: %w", err)
	}
	return "/" + c, nil
}

// commitBase reads the workspace and its base revision, failing early with
// ErrStale when base is not the head.
func (db *DB) commitBase(ctx context.Context, ws string, base RevNum) (*Workspace, *Revision, error) {
	name, err := ParseWorkspace(ws)
	if err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("meta: commit to %s: %w", name, err)
	}
	var w *Workspace
	var rev *Revision
	err = db.view(ctx, func(tx kv.Reader) error {
		var err error
		if w, err = getWorkspace(tx, name); err != nil {
			return err
		}
		if base != w.Head {
			return fmt.Errorf("meta: commit to %s: %w: base revision %d, but the head is %d", name, ErrStale, base, w.Head)
		}
		rev, err = db.getRevision(tx, w, base)
		return err
	})
	return w, rev, err
}

// finishCommit stores the upload's objects with the revision's manifest
// (last) and then, in one transaction, records the revision and indexes
// what was stored, if the head is still rev.Parent.
func (db *DB) finishCommit(ctx context.Context, w *Workspace, rev *Revision, pin *revPin, u *upload) (Revision, bool, error) {
	// A server that shares the engine commits only to what it owns: take
	// the workspace (if nobody holds it) before storing anything.
	if err := db.own(ctx, w.Name); err != nil {
		return Revision{}, false, err
	}
	rev.Nonce = newID()
	mb, err := encodeManifest(rev)
	if err != nil {
		return Revision{}, false, err
	}
	rev.Manifest = objects.Sum(mb)
	u.add(pendingObject{d: rev.Manifest, tag: tagManifest, size: int64(len(mb)), data: mb, what: "the manifest", last: true})
	if err := u.run(ctx); err != nil {
		return Revision{}, false, fmt.Errorf("meta: commit to %s: %w; the head stays at revision %d", w.Name, err, rev.Parent)
	}
	if err := u.fitOrAhead(ctx, len(mb)+4096); err != nil {
		u.discard(ctx, "a failed commit to "+w.Name)
		return Revision{}, false, fmt.Errorf("meta: commit to %s: %w; the head stays at revision %d", w.Name, err, rev.Parent)
	}
	var after *Workspace
	err = db.update(ctx, func(tx kv.Txn) error {
		cur, err := getWorkspace(tx, w.Name)
		after = cur
		if err != nil {
			return err
		}
		if cur.ID != w.ID {
			return fmt.Errorf("meta: commit to %s: %w: the workspace was deleted and re-created", w.Name, ErrStale)
		}
		if cur.Head != rev.Parent {
			return fmt.Errorf("meta: commit to %s: %w: base revision %d, but the head is now %d", w.Name, ErrStale, rev.Parent, cur.Head)
		}
		if err := pin.check(tx); err != nil {
			return err
		}
		if err := db.fence(tx, w.Name); err != nil {
			return err
		}
		if err := putRevision(tx, cur, rev); err != nil {
			return err
		}
		cur.Head, cur.HeadRoot, cur.HeadCwd, cur.Usage, cur.HeadTime = rev.N, rev.Root, rev.Cwd, rev.Stats, rev.Time
		if err := db.pruneTx(tx, cur); err != nil {
			return err
		}
		if err := u.record(tx); err != nil {
			return err
		}
		return db.putWorkspace(tx, cur)
	})
	if err != nil {
		// The manifest names a revision that does not exist; remove its
		// pack so that Recover cannot mistake it for a committed one.
		u.discardAfter(ctx, err, "a failed commit to "+w.Name)
		return Revision{}, false, err
	}
	db.emit(EventCommit, *after)
	return *rev, true, nil
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func parentOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// healPuts checks, on a local store, the stored copies of the contents of
// put operations and stores again those found damaged (upload.run does
// the check), for a commit that otherwise writes nothing.
func (db *DB) healPuts(ctx context.Context, ops []Op) error {
	if !objects.IsLocal(db.raw) {
		return nil
	}
	u := db.newUpload()
	defer u.release()
	for i := range ops {
		if op := &ops[i]; op.Kind == OpPut && op.Source != nil {
			u.add(pendingObject{d: op.Digest, tag: tagFile, size: op.Size, src: op.Source, what: op.Path})
		}
	}
	if len(u.objs) == 0 {
		return nil
	}
	if err := u.run(ctx); err != nil {
		return err
	}
	if len(u.packs) == 0 && len(u.singles) == 0 {
		return nil
	}
	return u.commit(ctx)
}
