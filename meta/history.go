package meta

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/wsfs/wsfs/meta/kv"

	"github.com/wsfs/wsfs/objects"
)

// LogOptions page through a workspace's history.
type LogOptions struct {
	// Before lists revisions older than this one; 0 starts at the head.
	Before RevNum
	// Limit is the most revisions returned; 0 means 50.
	Limit int
}

// Log returns revisions newest first. To page, pass the last returned N as
// the next call's Before; an empty result means the end.
func (db *DB) Log(ctx context.Context, ws string, opts LogOptions) ([]Revision, error) {
	name, err := ParseWorkspace(ws)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	limit := opts.Limit
	if limit <= 0 {
		limit = 50
	}
	var out []Revision
	err = db.view(ctx, func(tx kv.Reader) error {
		w, err := getWorkspace(tx, name)
		if err != nil {
			return err
		}
		n := w.Head
		if opts.Before != 0 {
			if opts.Before > w.Head+1 {
				return fmt.Errorf("meta: log %s: %w: revision %d does not exist (the head is %d)", name, ErrNotFound, opts.Before, w.Head)
			}
			n = opts.Before - 1
		}
		out = out[:0]
		return db.scanRevisions(tx, w, max(w.Oldest, n+1-RevNum(min(uint64(limit), uint64(n)))), n, true, func(r *Revision) error {
			out = append(out, *r)
			return nil
		})
	})
	return out, err
}

// Show returns one revision (Rev 0: the head), with all its changed paths.
func (db *DB) Show(ctx context.Context, ref Ref) (Revision, error) {
	r, err := db.revision(ctx, ref)
	if err != nil {
		return Revision{}, err
	}
	if r.ChangesOmitted > 0 || r.CommandOmitted > 0 {
		b, err := objects.Get(ctx, db.store, r.Manifest)
		if err != nil {
			return Revision{}, fmt.Errorf("meta: %s@%d: reading the manifest for the full list of changes: %w", r.Workspace, r.N, err)
		}
		m, err := decodeManifest(b)
		if err != nil {
			return Revision{}, fmt.Errorf("meta: %s@%d: manifest %s: %w: %w", r.Workspace, r.N, r.Manifest.Short(), objects.ErrCorrupt, err)
		}
		r.Changes, r.ChangesOmitted = m.Changes, 0
		r.Command, r.CommandOmitted = m.Command, 0
	}
	return *r, nil
}

// revision returns one revision as the database records it (a long list
// of changed paths cut short), without reading the store.
func (db *DB) revision(ctx context.Context, ref Ref) (*Revision, error) {
	name, err := ParseWorkspace(ref.Workspace)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var r *Revision
	err = db.view(ctx, func(tx kv.Reader) error {
		w, err := getWorkspace(tx, name)
		if err != nil {
			return err
		}
		r, err = db.getRevision(tx, w, ref.Rev)
		return err
	})
	return r, err
}

// Lookup returns the entry at path p in revision ref, following no
// symlinks. The root ("") is a directory entry with an empty name.
func (db *DB) Lookup(ctx context.Context, ref Ref, p string) (Entry, error) {
	r, err := db.revision(ctx, ref)
	if err != nil {
		return Entry{}, err
	}
	e, err := db.LookupTree(ctx, r.Root, p)
	if err != nil {
		return Entry{}, inContext(Ref{Workspace: r.Workspace, Rev: r.N}.String(), err)
	}
	return e, nil
}

// OpenFile opens the content of the file at p in revision ref. Symlinks
// are followed while they stay inside the workspace (a relative target, or
// an absolute one under /workspace); the returned entry is the file's. The
// reader verifies the content as it reaches the end.
func (db *DB) OpenFile(ctx context.Context, ref Ref, p string) (io.ReadCloser, Entry, error) {
	r, err := db.revision(ctx, ref)
	if err != nil {
		return nil, Entry{}, err
	}
	where := Ref{Workspace: r.Workspace, Rev: r.N}
	cur, err := CleanPath(p)
	if err != nil {
		return nil, Entry{}, err
	}
	for hops := 0; ; hops++ {
		e, err := db.resolve(ctx, r.Root, cur)
		if err != nil {
			return nil, Entry{}, inContext(where.String(), err)
		}
		switch e.Kind {
		case KindDir:
			return nil, Entry{}, fmt.Errorf("meta: %s: %s: %w: is a directory", where, cur, ErrInvalid)
		case KindFile:
			rc, err := db.store.Open(ctx, e.Digest, 0, -1)
			if err != nil {
				return nil, Entry{}, fmt.Errorf("meta: %s: %s: %w", where, cur, err)
			}
			return rc, e, nil
		}
		if e.Kind != KindSymlink {
			return nil, Entry{}, fmt.Errorf("meta: %s: %s: %w: is a %s, not a regular file", where, cur, ErrInvalid, e.Kind)
		}
		if hops >= 40 {
			return nil, Entry{}, fmt.Errorf("meta: %s: %s: %w: too many levels of symbolic links", where, p, ErrInvalid)
		}
		next, ok := symlinkTarget(parentOf(cur), e.Target)
		if !ok {
			return nil, Entry{}, fmt.Errorf("meta: %s: %s: %w: symlink to %s points outside the workspace", where, cur, ErrInvalid, e.Target)
		}
		cur = next
	}
}

// resolve looks p up following symlinks in the parent path (inside the
// workspace only); the last component is returned as is.
func (db *DB) resolve(ctx context.Context, root objects.Digest, p string) (Entry, error) {
	parts := splitPath(p)
	dir := ""
	hops := 0
	for i := 0; i < len(parts); i++ {
		cur := joinPath(dir, parts[i])
		e, err := db.LookupTree(ctx, root, cur)
		if err != nil {
			return Entry{}, err
		}
		if i == len(parts)-1 {
			return e, nil
		}
		if e.Kind == KindSymlink {
			next, ok := symlinkTarget(dir, e.Target)
			if !ok {
				return Entry{}, fmt.Errorf("meta: %s: %w: symlink to %s points outside the workspace", cur, ErrInvalid, e.Target)
			}
			if hops++; hops > 40 {
				return Entry{}, fmt.Errorf("meta: %s: %w: too many levels of symbolic links", p, ErrInvalid)
			}
			rest := append(splitPath(next), parts[i+1:]...)
			parts, dir, i = rest, "", -1
			continue
		}
		dir = cur
	}
	return db.LookupTree(ctx, root, "")
}

// symlinkTarget resolves a symlink target against the directory holding it.
func symlinkTarget(dir, target string) (string, bool) {
	var full string
	if strings.HasPrefix(target, "/") {
		rest, ok := strings.CutPrefix(target, "/workspace")
		if !ok || (rest != "" && !strings.HasPrefix(rest, "/")) {
			return "", false
		}
		full = path.Clean("/" + rest)
	} else {
		full = path.Clean("/" + dir + "/" + target)
	}
	// path.Clean of an absolute path never climbs above "/", so a target
	// with too many ".." ends at the workspace root, as a chroot would.
	return strings.TrimPrefix(full, "/"), true
}

// Restore makes a new revision whose tree and cwd are those of revision
// ref.Rev; history is never rewritten. It returns committed false when the
// head already equals that revision.
func (db *DB) Restore(ctx context.Context, ref Ref, info CommitInfo) (Revision, bool, error) {
	if ref.Rev == 0 {
		return Revision{}, false, fmt.Errorf("meta: restore %s: %w: name the revision to restore (WS@N)", ref.Workspace, ErrInvalid)
	}
	old, err := db.revision(ctx, ref)
	if err != nil {
		return Revision{}, false, err
	}
	w, err := db.Get(ctx, old.Workspace)
	if err != nil {
		return Revision{}, false, err
	}
	if w.ID != old.WorkspaceID {
		return Revision{}, false, fmt.Errorf("meta: restore %s: %w: the workspace was re-created meanwhile", ref, ErrStale)
	}
	if info.Command == "" {
		info.Command = fmt.Sprintf("restore %s@%d", old.Workspace, old.N)
	}
	return db.commitTree(ctx, old.Workspace, w.Head, old.Root, old.Cwd, info, &revPin{wsID: old.WorkspaceID, name: old.Workspace, n: old.N}, nil)
}

// Fork creates workspace newName whose revision 1 has the tree and cwd of
// revision from. No blob is copied: both share them. Unset options are
// taken from the source (quotas, retention, kind, owner).
func (db *DB) Fork(ctx context.Context, from Ref, newName string, opts CreateOptions) (Workspace, error) {
	newName, err := ParseWorkspace(newName)
	if err != nil {
		return Workspace{}, err
	}
	src, err := db.Get(ctx, from.Workspace)
	if err != nil {
		return Workspace{}, err
	}
	rev, err := db.revision(ctx, from)
	if err != nil {
		return Workspace{}, err
	}
	if _, err := db.Get(ctx, newName); err == nil {
		return Workspace{}, fmt.Errorf("meta: fork %s: %w", newName, ErrExists)
	} else if !errors.Is(err, ErrNotFound) {
		return Workspace{}, err
	}
	if opts.Quotas == nil {
		q := src.Quotas
		opts.Quotas = &q
	}
	if opts.Kind == "" {
		opts.Kind = src.Kind
	}
	if opts.Owner == "" {
		opts.Owner = src.Owner
	}
	if opts.Retention == (Retention{}) {
		opts.Retention = src.Retention
	}
	db.guard.protect(rev.Root)
	defer db.guard.release(rev.Root)
	origin := fmt.Sprintf("%s@%d", rev.Workspace, rev.N)
	return db.createWith(ctx, newName, opts, rev.Root, rev.Stats, rev.Cwd, origin, "fork "+origin,
		&revPin{wsID: rev.WorkspaceID, name: rev.Workspace, n: rev.N}, nil)
}

// FileDiff is one difference between two trees.
type FileDiff struct {
	Path   string       `json:"path"`
	Action ChangeAction `json:"action"`
	Old    *Entry       `json:"old,omitempty"`
	New    *Entry       `json:"new,omitempty"`
	// Unified is a unified diff of a text file's content (with
	// DiffOptions.Text); Binary says the contents differ but are not text
	// or are too large to show.
	Unified string `json:"unified,omitempty"`
	Binary  bool   `json:"binary,omitempty"`
}

func (d *FileDiff) kind() EntryKind {
	if d.New != nil {
		return d.New.Kind
	}
	if d.Old != nil {
		return d.Old.Kind
	}
	return 0
}

// DiffOptions tune Diff.
type DiffOptions struct {
	// Path limits the diff to one file or directory.
	Path string
	// Text adds unified diffs of text files (files that are valid UTF-8
	// without NUL bytes, both at most MaxTextBytes).
	Text bool
	// MaxTextBytes bounds the files Text diffs; 0 means 1 MiB.
	MaxTextBytes int64
	// Context is the number of context lines; 0 means 3.
	Context int
}

// Diff compares two revisions (of one workspace or of two) and returns the
// added, modified and removed paths in path order. Directories that were
// added or removed are listed with everything under them. Subtrees with
// equal digests are skipped without being read.
func (db *DB) Diff(ctx context.Context, a, b Ref, opts DiffOptions) ([]FileDiff, error) {
	ra, err := db.Show(ctx, a)
	if err != nil {
		return nil, err
	}
	rb, err := db.Show(ctx, b)
	if err != nil {
		return nil, err
	}
	p, err := CleanPath(opts.Path)
	if err != nil {
		return nil, err
	}
	ea, erra := db.LookupTree(ctx, ra.Root, p)
	eb, errb := db.LookupTree(ctx, rb.Root, p)
	for _, err := range []error{erra, errb} {
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, err
		}
	}
	var out []FileDiff
	expand := func(e Entry) *Entry { return &e }
	switch {
	case erra != nil && errb != nil:
		return nil, fmt.Errorf("meta: diff: %s: %w in either revision", p, ErrNotFound)
	case erra == nil && errb == nil && ea.Kind == KindDir && eb.Kind == KindDir:
		out, err = db.diffTrees(ctx, ea.Digest, eb.Digest, p, &diffExpand{})
	default:
		var oe, ne *Entry
		if erra == nil {
			oe = expand(ea)
		}
		if errb == nil {
			ne = expand(eb)
		}
		out, err = db.diffEntries(ctx, p, oe, ne, &diffExpand{})
	}
	if err != nil {
		return nil, err
	}
	if opts.Text {
		for i := range out {
			if err := db.textDiff(ctx, &out[i], opts); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// diffExpand, when non-nil, makes diffTrees list the contents of added and
// removed directories too.
type diffExpand struct{}

// diffTrees compares two directories, descending only into subtrees whose
// digests differ.
func (db *DB) diffTrees(ctx context.Context, a, b objects.Digest, prefix string, expand *diffExpand) ([]FileDiff, error) {
	if a == b {
		return nil, nil
	}
	ta, err := db.readTree(ctx, a)
	if err != nil {
		return nil, err
	}
	tb, err := db.readTree(ctx, b)
	if err != nil {
		return nil, err
	}
	var out []FileDiff
	i, j := 0, 0
	for i < len(ta.Entries) || j < len(tb.Entries) {
		var oe, ne *Entry
		switch {
		case j >= len(tb.Entries) || (i < len(ta.Entries) && ta.Entries[i].Name < tb.Entries[j].Name):
			oe = &ta.Entries[i]
			i++
		case i >= len(ta.Entries) || tb.Entries[j].Name < ta.Entries[i].Name:
			ne = &tb.Entries[j]
			j++
		default:
			oe, ne = &ta.Entries[i], &tb.Entries[j]
			i++
			j++
		}
		name := ""
		if oe != nil {
			name = oe.Name
		} else {
			name = ne.Name
		}
		d, err := db.diffEntries(ctx, joinPath(prefix, name), oe, ne, expand)
		if err != nil {
			return nil, err
		}
		out = append(out, d...)
	}
	return out, nil
}

func (db *DB) diffEntries(ctx context.Context, p string, oe, ne *Entry, expand *diffExpand) ([]FileDiff, error) {
	cp := func(e *Entry) *Entry {
		if e == nil {
			return nil
		}
		c := *e
		return &c
	}
	switch {
	case oe == nil && ne == nil:
		return nil, nil
	case oe != nil && ne != nil && oe.Kind == KindDir && ne.Kind == KindDir:
		var out []FileDiff
		if oe.Mode != ne.Mode {
			out = append(out, FileDiff{Path: p, Action: Modified, Old: cp(oe), New: cp(ne)})
		}
		sub, err := db.diffTrees(ctx, oe.Digest, ne.Digest, p, expand)
		return append(out, sub...), err
	case oe != nil && ne != nil && oe.Kind == ne.Kind:
		if sameEntry(*oe, *ne) {
			return nil, nil
		}
		return []FileDiff{{Path: p, Action: Modified, Old: cp(oe), New: cp(ne)}}, nil
	}
	var out []FileDiff
	if oe != nil {
		out = append(out, FileDiff{Path: p, Action: Removed, Old: cp(oe)})
		if oe.Kind == KindDir && expand != nil {
			sub, err := db.diffTrees(ctx, oe.Digest, EmptyTreeDigest, p, expand)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
	}
	if ne != nil {
		out = append(out, FileDiff{Path: p, Action: Added, New: cp(ne)})
		if ne.Kind == KindDir && expand != nil {
			sub, err := db.diffTrees(ctx, EmptyTreeDigest, ne.Digest, p, expand)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
	}
	return out, nil
}
