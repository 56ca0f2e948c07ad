package meta

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/wsfs/wsfs/objects"
)

// editor applies operations to a tree in memory. Only the directories on
// the paths the operations touch are loaded (from the tree cache or the
// store) and rewritten, so its cost grows with the change.
type editor struct {
	db       *DB
	w        *Workspace
	root     *mdir
	baseRoot objects.Digest
	decoded  map[objects.Digest]*Tree // trees serialize made, for the cache
	now      time.Time
	touched  map[string]struct{}
}

// mdir is a directory being edited: its own copy of the entries, the
// subdirectories loaded so far and what it holds recursively.
type mdir struct {
	entries []Entry
	kids    map[string]*mdir
	sub     Stats
	parent  *mdir
	name    string
	dirty   bool
}

func (db *DB) newEditor(ctx context.Context, w *Workspace, root objects.Digest, now time.Time) (*editor, error) {
	t, err := db.readTree(ctx, root)
	if err != nil {
		return nil, fmt.Errorf("meta: commit to %s: base tree: %w", w.Name, err)
	}
	r := &mdir{entries: append([]Entry(nil), t.Entries...), sub: t.Stats()}
	return &editor{db: db, w: w, root: r, baseRoot: root, decoded: map[objects.Digest]*Tree{}, now: now, touched: make(map[string]struct{})}, nil
}

func (d *mdir) find(name string) (int, bool) {
	t := Tree{Entries: d.entries}
	i := t.search(name)
	return i, i < len(d.entries) && d.entries[i].Name == name
}

// child returns the loaded subdirectory name of d, loading it if needed.
func (ed *editor) child(ctx context.Context, d *mdir, name string) (*mdir, error) {
	if k, ok := d.kids[name]; ok {
		return k, nil
	}
	i, ok := d.find(name)
	if !ok || d.entries[i].Kind != KindDir {
		return nil, fmt.Errorf("meta: %s is not a directory", name)
	}
	t, err := ed.db.readTree(ctx, d.entries[i].Digest)
	if err != nil {
		return nil, err
	}
	k := &mdir{entries: append([]Entry(nil), t.Entries...), sub: d.entries[i].Sub, parent: d, name: name}
	if d.kids == nil {
		d.kids = make(map[string]*mdir)
	}
	d.kids[name] = k
	return k, nil
}

// changed propagates a change of totals from d up to the root and marks
// the directories on the way as dirty.
func (d *mdir) changed(delta Stats) {
	for x := d; x != nil; x = x.parent {
		x.sub = x.sub.Add(delta)
		x.dirty = true
	}
}

// set inserts or replaces an entry of d.
func (d *mdir) set(e Entry) {
	i, ok := d.find(e.Name)
	delta := e.Stats()
	if ok {
		old := d.entries[i]
		if old.Kind == KindDir {
			if k := d.kids[old.Name]; k != nil {
				old.Sub = k.sub
			}
		}
		delta = delta.sub(old.Stats())
		d.entries[i] = e
		delete(d.kids, e.Name)
	} else {
		d.entries = append(d.entries, Entry{})
		copy(d.entries[i+1:], d.entries[i:])
		d.entries[i] = e
	}
	d.changed(delta)
}

// remove drops an entry of d (and its loaded subdirectory) and returns it,
// with Sub brought up to date.
func (d *mdir) remove(name string) (Entry, *mdir, bool) {
	i, ok := d.find(name)
	if !ok {
		return Entry{}, nil, false
	}
	e := d.entries[i]
	k := d.kids[name]
	if k != nil {
		e.Sub = k.sub
		delete(d.kids, name)
	}
	d.entries = append(d.entries[:i], d.entries[i+1:]...)
	d.changed(Stats{}.sub(e.Stats()))
	return e, k, true
}

// errParentSymlink and errNotDir explain why a path cannot be reached.
var (
	errParentSymlink = errors.New("a symlink in the parent path (wsfs never follows symlinks there)")
	errNotDir        = errors.New("a file in the parent path is not a directory")
)

// walkParent returns the directory holding the last component of p,
// creating missing parents when create is set.
func (ed *editor) walkParent(ctx context.Context, p string, create bool) (*mdir, string, error) {
	parts := splitPath(p)
	d := ed.root
	for i, name := range parts[:len(parts)-1] {
		j, ok := d.find(name)
		if !ok {
			if !create {
				return nil, "", ErrNotFound
			}
			sofar := strings.Join(parts[:i+1], "/")
			before := ed.root.sub
			d.set(Entry{Name: name, Kind: KindDir, Mode: 0o755, MTime: ed.now, Digest: EmptyTreeDigest})
			k := &mdir{parent: d, name: name, dirty: true}
			if d.kids == nil {
				d.kids = make(map[string]*mdir)
			}
			d.kids[name] = k
			ed.touched[sofar] = struct{}{}
			if err := checkTotals(ed.w, before, ed.root.sub, sofar); err != nil {
				return nil, "", err
			}
			d = k
			continue
		}
		switch d.entries[j].Kind {
		case KindSymlink:
			return nil, "", fmt.Errorf("%s: %w", strings.Join(parts[:i+1], "/"), errParentSymlink)
		case KindFile:
			return nil, "", fmt.Errorf("%s: %w", strings.Join(parts[:i+1], "/"), errNotDir)
		}
		k, err := ed.child(ctx, d, name)
		if err != nil {
			return nil, "", err
		}
		d = k
	}
	return d, parts[len(parts)-1], nil
}

func (ed *editor) opError(op *Op, err error) error {
	var qe *QuotaError
	if errors.As(err, &qe) {
		return err
	}
	kind := ErrInvalid
	switch {
	case errors.Is(err, ErrNotFound):
		kind = ErrNotFound
	case errors.Is(err, ErrExists):
		kind = ErrExists
	case errors.Is(err, objects.ErrNotFound), errors.Is(err, objects.ErrCorrupt):
		return fmt.Errorf("meta: commit to %s: %s %s: %w", ed.w.Name, op.Kind, op.Path, err)
	}
	if errors.Is(err, kind) {
		return fmt.Errorf("meta: commit to %s: %s %s: %w", ed.w.Name, op.Kind, op.Path, err)
	}
	return fmt.Errorf("meta: commit to %s: %s %s: %w: %w", ed.w.Name, op.Kind, op.Path, kind, err)
}

func (ed *editor) mtime(t time.Time) time.Time {
	if t.IsZero() {
		return ed.now
	}
	return t.UTC()
}

// apply applies one operation, checking the quotas.
func (ed *editor) apply(ctx context.Context, op *Op) error {
	p, err := CleanPath(op.Path)
	if err != nil {
		return err
	}
	q := ed.w.Quotas
	if p == "" {
		switch op.Kind {
		case OpChmod, OpChtimes:
			return nil // the root has no entry of its own to change
		}
		return ed.opError(op, errors.New("the workspace root cannot be replaced or removed"))
	}
	before := ed.root.sub
	creates := op.Kind == OpPut || op.Kind == OpMkdir || op.Kind == OpSymlink || op.Kind == OpMknod
	var xattrs []Xattr
	if creates && len(op.Xattrs) > 0 {
		xattrs = cloneXattrs(op.Xattrs)
		sort.Slice(xattrs, func(i, j int) bool { return xattrs[i].Name < xattrs[j].Name })
		if err := validXattrs(xattrs); err != nil {
			return ed.opError(op, err)
		}
	}
	if creates {
		if err := q.CheckPath(ed.w.Name, p); err != nil {
			return err
		}
	}
	switch op.Kind {
	case OpPut:
		if op.Size < 0 {
			return ed.opError(op, fmt.Errorf("negative size %d", op.Size))
		}
		if op.Size > q.MaxFileBytes {
			return &QuotaError{Kind: QuotaFileBytes, Workspace: ed.w.Name, Path: p, Limit: q.MaxFileBytes, Usage: op.Size}
		}
	case OpSymlink:
		if op.Target == "" {
			return ed.opError(op, errors.New("empty symlink target"))
		}
		if strings.ContainsRune(op.Target, 0) {
			return ed.opError(op, errors.New("symlink target contains NUL"))
		}
		if n := int64(len(op.Target)); n > q.MaxSymlinkTarget {
			return &QuotaError{Kind: QuotaSymlinkTarget, Workspace: ed.w.Name, Path: p, Limit: q.MaxSymlinkTarget, Usage: n}
		}
	}

	if op.Kind == OpMknod && !op.Special.Special() {
		return ed.opError(op, fmt.Errorf("%s is not a FIFO, socket or device", op.Special))
	}
	switch op.Kind {
	case OpPut, OpMkdir, OpSymlink, OpMknod:
		d, name, err := ed.walkParent(ctx, p, true)
		if err != nil {
			return ed.opError(op, err)
		}
		i, exists := d.find(name)
		var old Entry
		if exists {
			old = d.entries[i]
		}
		switch op.Kind {
		case OpPut:
			if exists && old.Kind == KindDir {
				return ed.opError(op, fmt.Errorf("%w: a directory is there", ErrExists))
			}
			mode := op.Mode & validModeBits
			if mode == 0 {
				mode = 0o644
			}
			d.set(Entry{Name: name, Kind: KindFile, Mode: mode, Size: op.Size, MTime: ed.mtime(op.MTime), Digest: op.Digest, Xattrs: xattrs})
		case OpMkdir:
			if exists && old.Kind != KindDir {
				return ed.opError(op, fmt.Errorf("%w: a %s is there", ErrExists, old.Kind))
			}
			if exists {
				if op.Mode != 0 {
					old.Mode = op.Mode & validModeBits
				}
				if !op.MTime.IsZero() {
					old.MTime = op.MTime.UTC()
				}
				d.entries[i].Mode, d.entries[i].MTime = old.Mode, old.MTime
				d.changed(Stats{})
				break
			}
			mode := op.Mode & validModeBits
			if mode == 0 {
				mode = 0o755
			}
			d.set(Entry{Name: name, Kind: KindDir, Mode: mode, MTime: ed.mtime(op.MTime), Digest: EmptyTreeDigest, Xattrs: xattrs})
			k := &mdir{parent: d, name: name, dirty: true}
			if d.kids == nil {
				d.kids = make(map[string]*mdir)
			}
			d.kids[name] = k
		case OpSymlink:
			if exists && old.Kind == KindDir {
				return ed.opError(op, fmt.Errorf("%w: a directory is there", ErrExists))
			}
			d.set(Entry{Name: name, Kind: KindSymlink, Mode: 0o777, Size: int64(len(op.Target)), MTime: ed.mtime(op.MTime), Target: op.Target, Xattrs: xattrs})
		case OpMknod:
			if exists && old.Kind == KindDir {
				return ed.opError(op, fmt.Errorf("%w: a directory is there", ErrExists))
			}
			mode := op.Mode & validModeBits
			if mode == 0 {
				mode = 0o644
			}
			e := Entry{Name: name, Kind: op.Special, Mode: mode, MTime: ed.mtime(op.MTime), Xattrs: xattrs}
			if op.Special == KindCharDev || op.Special == KindBlockDev {
				e.Rdev = op.Rdev
			}
			d.set(e)
		}
	case OpRemove:
		d, name, err := ed.walkParent(ctx, p, false)
		if err != nil {
			if errors.Is(err, ErrNotFound) || errors.Is(err, errParentSymlink) || errors.Is(err, errNotDir) {
				return nil
			}
			return ed.opError(op, err)
		}
		d.remove(name)
	case OpChmod, OpChtimes:
		d, name, err := ed.walkParent(ctx, p, false)
		if err != nil {
			return ed.opError(op, err)
		}
		i, ok := d.find(name)
		if !ok {
			return ed.opError(op, fmt.Errorf("%w: no such file or directory", ErrNotFound))
		}
		before := d.entries[i].Stats()
		if op.Kind == OpChmod {
			d.entries[i].Mode = op.Mode & validModeBits
		} else {
			d.entries[i].MTime = ed.mtime(op.MTime)
		}
		// This name leaves its link group: the editor sees one name, and
		// every name of a group must keep the same attributes.
		d.entries[i].Link = 0
		d.changed(d.entries[i].Stats().sub(before))
	case OpRename:
		if err := ed.rename(ctx, op, p); err != nil {
			return err
		}
	default:
		return ed.opError(op, fmt.Errorf("unknown operation %q", op.Kind))
	}
	ed.touched[p] = struct{}{}
	return checkTotals(ed.w, before, ed.root.sub, p)
}

func (ed *editor) rename(ctx context.Context, op *Op, from string) error {
	to, err := CleanPath(op.To)
	if err != nil {
		return err
	}
	if to == "" {
		return ed.opError(op, errors.New("cannot rename onto the workspace root"))
	}
	if to == from {
		return nil
	}
	if strings.HasPrefix(to, from+"/") {
		return ed.opError(op, fmt.Errorf("cannot move a directory into itself (%s)", to))
	}
	if err := ed.w.Quotas.CheckPath(ed.w.Name, to); err != nil {
		return err
	}
	sd, sname, err := ed.walkParent(ctx, from, false)
	if err != nil {
		return ed.opError(op, err)
	}
	if _, ok := sd.find(sname); !ok {
		return ed.opError(op, fmt.Errorf("%w: no such file or directory", ErrNotFound))
	}
	// Load the source directory before the destination's parents are
	// created, so that moving it carries its edits.
	si, _ := sd.find(sname)
	srcKind := sd.entries[si].Kind
	if srcKind == KindDir {
		if _, err := ed.child(ctx, sd, sname); err != nil {
			return ed.opError(op, err)
		}
	}
	dd, dname, err := ed.walkParent(ctx, to, true)
	if err != nil {
		return ed.opError(op, err)
	}
	if di, ok := dd.find(dname); ok {
		dst := dd.entries[di]
		switch {
		case srcKind == KindDir && dst.Kind != KindDir:
			return ed.opError(op, fmt.Errorf("%w: %s is a %s, not a directory", ErrExists, to, dst.Kind))
		case srcKind != KindDir && dst.Kind == KindDir:
			return ed.opError(op, fmt.Errorf("%w: %s is a directory", ErrExists, to))
		case dst.Kind == KindDir:
			k, err := ed.child(ctx, dd, dname)
			if err != nil {
				return ed.opError(op, err)
			}
			if len(k.entries) > 0 {
				return ed.opError(op, fmt.Errorf("%w: directory %s is not empty", ErrExists, to))
			}
		}
		dd.remove(dname)
	}
	e, k, _ := sd.remove(sname)
	e.Name = dname
	dd.set(e)
	if k != nil {
		k.parent, k.name = dd, dname
		if dd.kids == nil {
			dd.kids = make(map[string]*mdir)
		}
		dd.kids[dname] = k
		// Its digest is recomputed on serialize only if it is dirty.
		if k.dirty {
			dd.changed(Stats{})
		}
	}
	ed.touched[from] = struct{}{}
	ed.touched[to] = struct{}{}
	// A directory moved deeper or under a longer name may push paths
	// inside it past the path limits; only then is it walked.
	if k != nil && (len(to) > len(from) || strings.Count(to, "/") > strings.Count(from, "/")) {
		return ed.checkPaths(ctx, k, to)
	}
	return nil
}

// checkPaths applies the path limits to every path under d, which is at p.
func (ed *editor) checkPaths(ctx context.Context, d *mdir, p string) error {
	for i := range d.entries {
		e := &d.entries[i]
		ep := p + "/" + e.Name
		if err := ed.w.Quotas.CheckPath(ed.w.Name, ep); err != nil {
			return err
		}
		if e.Kind == KindDir {
			k, err := ed.child(ctx, d, e.Name)
			if err != nil {
				return err
			}
			if err := ed.checkPaths(ctx, k, ep); err != nil {
				return err
			}
		}
	}
	return nil
}

// serialize encodes every dirty directory, bottom up, and returns the new
// trees by digest and the root's digest.
func (ed *editor) serialize() (map[objects.Digest][]byte, objects.Digest) {
	out := make(map[objects.Digest][]byte)
	var enc func(d *mdir) objects.Digest
	enc = func(d *mdir) objects.Digest {
		for name, k := range d.kids {
			if !k.dirty {
				continue
			}
			kd := enc(k)
			i, ok := d.find(name)
			if ok {
				d.entries[i].Digest = kd
				d.entries[i].Sub = k.sub
			}
		}
		b := encodeTree(&Tree{Entries: d.entries})
		dg := objects.Sum(b)
		if _, seen := out[dg]; !seen {
			out[dg] = b
			// The editor no longer changes d.entries, so the cache can
			// share them once the commit has stored the tree.
			ed.decoded[dg] = &Tree{Entries: d.entries}
		}
		d.dirty = false
		return dg
	}
	if !ed.root.dirty {
		return out, ed.baseRoot
	}
	return out, enc(ed.root)
}

// lookup finds p in the edited tree (no symlinks followed).
func (ed *editor) lookup(ctx context.Context, p string) (Entry, bool, error) {
	parts := splitPath(p)
	d := ed.root
	for i, name := range parts {
		j, ok := d.find(name)
		if !ok {
			return Entry{}, false, nil
		}
		if i == len(parts)-1 {
			return d.entries[j], true, nil
		}
		if d.entries[j].Kind != KindDir {
			return Entry{}, false, nil
		}
		k, err := ed.child(ctx, d, name)
		if err != nil {
			return Entry{}, false, err
		}
		d = k
	}
	return Entry{}, false, nil
}

// changes compares every touched path between the base tree and the edited
// one (after serialize).
func (ed *editor) changes(ctx context.Context, baseRoot objects.Digest) ([]PathChange, error) {
	var out []PathChange
	for _, p := range sortedKeys(ed.touched) {
		old, err := ed.db.LookupTree(ctx, baseRoot, p)
		hadOld := err == nil
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, err
		}
		cur, hasNew, err := ed.lookup(ctx, p)
		if err != nil {
			return nil, err
		}
		switch {
		case hadOld && !hasNew:
			out = append(out, PathChange{Path: p, Action: Removed, Kind: old.Kind})
		case !hadOld && hasNew:
			out = append(out, PathChange{Path: p, Action: Added, Kind: cur.Kind})
		case hadOld && hasNew && !sameEntry(old, cur):
			out = append(out, PathChange{Path: p, Action: Modified, Kind: cur.Kind})
		}
	}
	return out, nil
}

func sameEntry(a, b Entry) bool { return SameEntry(a, b) }

// SameEntry reports two entries as equal in every field a tree keeps but
// the name.
func SameEntry(a, b Entry) bool {
	return a.Kind == b.Kind && a.Mode == b.Mode && a.Size == b.Size && a.MTime.Equal(b.MTime) &&
		a.Digest == b.Digest && a.Target == b.Target && a.Owned == b.Owned && a.UID == b.UID && a.GID == b.GID &&
		a.Link == b.Link && a.Rdev == b.Rdev && slices.EqualFunc(a.Xattrs, b.Xattrs, func(x, y Xattr) bool {
		return x.Name == y.Name && bytes.Equal(x.Value, y.Value)
	})
}
