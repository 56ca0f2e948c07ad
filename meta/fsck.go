package meta

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/wsfs/wsfs/meta/kv"

	"github.com/wsfs/wsfs/objects"
)

// FsckOptions tune Fsck.
type FsckOptions struct {
	// Quick checks file blobs with Stat (existence and size) instead of
	// reading and hashing them. Trees and manifests are always read.
	Quick bool
	// Progress, if set, is called as objects are checked (total grows as
	// more are found).
	Progress func(done, total int) `json:"-"`
	// Repair rebuilds the object index from the store before the check;
	// then it writes again every damaged or missing object of a retained
	// revision (file content, tree, manifest, kept output) that a good
	// copy of is found for, verified against its digest: in the read
	// cache in front of the store, if any, or in Sources; and it stores
	// the reference objects that kept outputs recorded before them lack.
	// The report is that of a check run again after the repairs. It needs
	// the database open for writing.
	Repair bool
	// Sources are stores to take good copies from (a mount's spool left by
	// a crash, another store holding the same objects). A packed object is
	// looked for as a single blob and, through the object index, in a
	// source's copy of its pack.
	Sources []objects.Store `json:"-"`
}

// Problem is one thing Fsck found wrong.
type Problem struct {
	// Kind is a stable short name: "db", "workspace", "revision",
	// "manifest", "tree", "blob-missing", "blob-corrupt", "blob-size",
	// "stats", "store", "output", "pack" (a pack that retained revisions
	// use is missing, damaged or does not match the object index),
	// "index" (the
	// object index cannot be read or lacks a pack that holds needed
	// objects).
	Kind      string `json:"kind"`
	Workspace string `json:"workspace,omitempty"`
	Rev       RevNum `json:"rev,omitempty"`
	Path      string `json:"path,omitempty"`
	Digest    string `json:"digest,omitempty"`
	Detail    string `json:"detail"`
}

// FsckReport is what Fsck found. OK reports a clean result; orphans are
// not problems (GC reclaims them).
type FsckReport struct {
	Quick      bool       `json:"quick"`
	Workspaces int        `json:"workspaces"`
	Revisions  int        `json:"revisions"`
	Trees      int        `json:"trees"`
	Blobs      int        `json:"blobs"`
	Bytes      int64      `json:"bytes"`
	Packs      int        `json:"packs"`
	Problems   []Problem  `json:"problems"`
	Orphans    []BlobInfo `json:"orphans"`
	// Damaged lists every damaged or missing object of a retained
	// revision, with the revisions it breaks.
	Damaged []Damage `json:"damaged,omitempty"`
	// With Repair: the object index rebuilt from the store, and what was
	// written again.
	Index    *IndexRebuild `json:"index,omitempty"`
	Repaired []Repaired    `json:"repaired,omitempty"`
}

// Damage is a damaged or missing object and the retained revisions that
// reach it (restore an earlier revision, or write the files again).
type Damage struct {
	Digest    string   `json:"digest"`
	Kind      string   `json:"kind"` // the Problem's kind
	Revisions []string `json:"revisions"`
	Paths     []string `json:"paths,omitempty"` // where the revisions have it (first ones)
}

// Repaired is an object fsck --repair wrote again from a good copy.
type Repaired struct {
	Digest string `json:"digest"`
	Kind   string `json:"kind"`
	Source string `json:"source"`
}

// OK reports whether no problem was found.
func (r *FsckReport) OK() bool { return len(r.Problems) == 0 }

// Fsck checks the database and the store: the database file's pages, that
// every retained revision's parent exists, its manifest matches, every
// tree decodes and its directory totals add up, and every file blob
// exists with the right size and hash (Quick: size only), as does every kept
// command output (RecordOutput). It lists orphans:
// stored blobs nothing references. An error is returned only when the
// check itself cannot run (the database cannot be read); everything else is
// a Problem in the report.
func (db *DB) Fsck(ctx context.Context, opts FsckOptions) (*FsckReport, error) {
	if !opts.Repair {
		rep, c, err := db.fsck(ctx, opts)
		if err != nil {
			return nil, err
		}
		c.damage()
		return rep, nil
	}
	if db.opts.ReadOnly {
		return nil, fmt.Errorf("meta: fsck --repair: %s is open read-only; it needs the database to itself", db.path)
	}
	idx, err := db.RebuildIndex(ctx)
	if err != nil {
		return nil, fmt.Errorf("meta: fsck --repair: %w", err)
	}
	// Repair, check again, and go on while that repairs more: a healed
	// tree shows the files under it, which the check could not reach.
	var repaired []Repaired
	seen := map[objects.Digest]bool{}
	for {
		rep, c, err := db.fsck(ctx, opts)
		if err != nil {
			return nil, err
		}
		more, err := db.repair(ctx, c, opts.Sources, seen)
		repaired = append(repaired, more...)
		if err != nil {
			return nil, fmt.Errorf("meta: fsck --repair: %w", err)
		}
		if len(more) == 0 {
			c.damage()
			rep.Index, rep.Repaired = idx, repaired
			return rep, nil
		}
	}
}

// fsck runs the check and returns its report and state.
func (db *DB) fsck(ctx context.Context, opts FsckOptions) (*FsckReport, *fsckRun, error) {
	rep := &FsckReport{Quick: opts.Quick}
	for _, p := range db.CheckFile(ctx) {
		rep.Problems = append(rep.Problems, Problem{Kind: "db", Detail: p})
	}
	type wsRevs struct {
		w       Workspace
		revs    []*Revision
		outputs []objects.Digest
	}
	var all []wsRevs
	refs := map[objects.Digest]struct{}{}
	err := db.view(ctx, func(tx kv.Reader) error {
		ws, err := db.listTx(tx)
		if err != nil {
			return err
		}
		for _, w := range ws {
			wr := wsRevs{w: w}
			refs[w.Settings] = struct{}{}
			if err := forEachOutput(tx, db.where, w.ID, func(o Output) { wr.outputs = append(wr.outputs, o.Digest) }); err != nil {
				rep.Problems = append(rep.Problems, Problem{Kind: "output", Workspace: w.Name, Detail: err.Error()})
			}
			err := db.scanRevisions(tx, &w, w.Oldest, w.Head, false, func(r *Revision) error {
				wr.revs = append(wr.revs, r)
				return nil
			})
			if err != nil {
				if !errors.Is(err, ErrCorruptDB) {
					return err
				}
				// Read one by one, to name every revision that is missing
				// or does not decode.
				wr.revs = wr.revs[:0]
				for n := w.Oldest; n <= w.Head && n > 0; n++ {
					r, err := db.getRevision(tx, &w, n)
					if err != nil {
						rep.Problems = append(rep.Problems, Problem{Kind: "revision", Workspace: w.Name, Rev: n, Detail: err.Error()})
						continue
					}
					wr.revs = append(wr.revs, r)
				}
			}
			all = append(all, wr)
		}
		return tx.Scan(bucketTombstones, kv.ScanOptions{}, func(k, v []byte) error {
			if len(v) == objects.DigestSize {
				refs[objects.Digest(v)] = struct{}{}
			}
			return nil
		})
	})
	if err != nil {
		return nil, nil, fmt.Errorf("meta: fsck: %w", err)
	}
	c := &fsckRun{db: db, opts: opts, rep: rep, refs: refs, trees: map[objects.Digest]treeCheck{},
		store: db.checkedStore(), parents: map[objects.Digest][]objects.Digest{}, roots: map[objects.Digest][]string{}}
	for _, wr := range all {
		rep.Workspaces++
		w := wr.w
		c.outputs = append(c.outputs, outputOf{w.ID, wr.outputs})
		if _, err := c.store.Stat(ctx, w.Settings); err != nil {
			c.problem(Problem{Kind: "workspace", Workspace: w.Name, Digest: w.Settings.String(), Detail: "settings object: " + err.Error()})
		}
		if n := len(wr.revs); n > 0 {
			if h := wr.revs[n-1]; h.N != w.Head || h.Root != w.HeadRoot || h.Cwd != w.HeadCwd || h.Stats != w.Usage {
				c.problem(Problem{Kind: "workspace", Workspace: w.Name, Rev: w.Head, Detail: "the workspace record's head fields do not match its head revision"})
			}
		}
		for _, d := range wr.outputs {
			refs[d] = struct{}{}
			// Its reference object is not required (outputs recorded
			// before there were any have none); --repair stores it.
			refs[objects.Sum(encodeOutputRef(w.ID, d))] = struct{}{}
			if _, err := c.store.Stat(ctx, d); err != nil {
				c.problem(Problem{Kind: "output", Workspace: w.Name, Digest: d.String(), Detail: "a command's kept output: " + err.Error()})
			}
		}
		for _, r := range wr.revs {
			rep.Revisions++
			c.checkRevision(ctx, &w, r)
			if ctx.Err() != nil {
				return nil, nil, fmt.Errorf("meta: fsck: %w", ctx.Err())
			}
		}
	}
	c.checkStore(ctx)
	sort.Slice(rep.Orphans, func(i, j int) bool { return rep.Orphans[i].Digest.String() < rep.Orphans[j].Digest.String() })
	return rep, c, nil
}

// checkedStore is the store fsck reads: the DB's, seen through the object
// index, but past its read cache, if it has one (a good cached copy would
// hide a damaged stored one). On a remote store, a pack is fetched once
// for all the objects read from it (packReads), not once per object.
func (db *DB) checkedStore() objects.Store {
	raw := db.raw
	if r, ok := raw.(interface{ Remote() objects.Store }); ok {
		raw = r.Remote()
	}
	if objects.IsLocal(raw) {
		return objects.NewPacked(raw, locator{db})
	}
	return objects.NewPacked(&packReads{Store: raw, packs: map[objects.Digest][]byte{}}, locator{db})
}

// packReads serves ranged reads (a packed object is always one) out of
// whole packs it fetches once and keeps in memory, up to packReadsMax
// bytes, the oldest dropped first. A pack that does not hash to its name
// is not kept: its ranges are read from the store one by one (the object
// read is verified on its own, so one damaged object spoils only itself).
// Whole reads go to the store.
type packReads struct {
	objects.Store
	mu      sync.Mutex
	packs   map[objects.Digest][]byte
	order   []objects.Digest
	bytes   int
	damaged map[objects.Digest]bool
}

const packReadsMax = 64 << 20

func (p *packReads) Open(ctx context.Context, d objects.Digest, off, length int64) (io.ReadCloser, error) {
	if off == 0 && length < 0 {
		return p.Store.Open(ctx, d, off, length)
	}
	p.mu.Lock()
	b, ok := p.packs[d]
	bad := p.damaged[d]
	p.mu.Unlock()
	if !ok && !bad {
		got, err := objects.Get(ctx, p.Store, d)
		switch {
		case err == nil:
			b, ok = got, true
			p.keep(d, got)
		case errors.Is(err, objects.ErrCorrupt):
			p.mu.Lock()
			if p.damaged == nil {
				p.damaged = map[objects.Digest]bool{}
			}
			p.damaged[d] = true
			p.mu.Unlock()
		default:
			return nil, err
		}
	}
	if !ok {
		return p.Store.Open(ctx, d, off, length)
	}
	start, n := objects.ClipRange(off, length, int64(len(b)))
	return io.NopCloser(bytes.NewReader(b[start : start+n])), nil
}

func (p *packReads) keep(d objects.Digest, b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.packs[d]; ok || len(b) > packReadsMax {
		return
	}
	p.packs[d] = b
	p.order = append(p.order, d)
	p.bytes += len(b)
	for p.bytes > packReadsMax && len(p.order) > 0 {
		old := p.order[0]
		p.order = p.order[1:]
		p.bytes -= len(p.packs[old])
		delete(p.packs, old)
	}
}

// checkStore lists the store: every pack the object index records must be
// there, with the index it was recorded with; a stored pack the index does
// not record must not hold objects that retained revisions need; and
// blobs and packs that nothing reaches are orphans.
func (c *fsckRun) checkStore(ctx context.Context) {
	db := c.db
	var listed []objects.Info
	if err := db.raw.List(ctx, func(info objects.Info) error {
		listed = append(listed, info)
		return nil
	}); err != nil {
		c.problem(Problem{Kind: "store", Detail: "listing the object store: " + err.Error()})
		return
	}
	packs := map[objects.Digest]*packRecord{}
	locs := map[objects.Digest]indexEntry{}
	err := db.view(ctx, func(tx kv.Reader) error {
		if err := indexForEachPack(tx, func(p *packRecord) error { packs[p.Digest] = p; return nil }); err != nil {
			return err
		}
		return indexForEach(tx, func(d objects.Digest, e indexEntry) error {
			locs[d] = e
			return nil
		})
	})
	if err != nil {
		c.problem(Problem{Kind: "index", Detail: err.Error() + "; run wsfs fsck --repair to rebuild the object index"})
		return
	}
	livePacks := map[objects.Digest]bool{}
	for d := range c.refs {
		if e, ok := locs[d]; ok && e.InPack() {
			livePacks[e.Pack] = true
		}
	}
	byDigest := make(map[objects.Digest]objects.Info, len(listed))
	for _, info := range listed {
		byDigest[info.Digest] = info
	}
	for _, p := range packs {
		c.rep.Packs++
		info, ok := byDigest[p.Digest]
		if !ok {
			if livePacks[p.Digest] {
				c.problem(Problem{Kind: "pack", Digest: p.Digest.String(), Detail: "the object index records this pack of objects that retained revisions use, and the store does not have it"})
			}
			continue
		}
		if info.Size != p.Size {
			c.problem(Problem{Kind: "pack", Digest: p.Digest.String(), Detail: fmt.Sprintf("the store has %d bytes, the object index says %d", info.Size, p.Size)})
			continue
		}
		if livePacks[p.Digest] {
			c.checkPack(ctx, p)
		}
	}
	var candidates []objects.Info
	for _, info := range listed {
		if _, ok := c.refs[info.Digest]; ok {
			continue
		}
		if _, ok := packs[info.Digest]; ok {
			if !livePacks[info.Digest] {
				c.rep.Orphans = append(c.rep.Orphans, BlobInfo{Digest: info.Digest, Size: info.Size, ModTime: info.ModTime})
			}
			continue
		}
		candidates = append(candidates, info)
	}
	// Unreached blobs: orphans, unless one is a pack the index does not
	// know that holds objects the revisions need.
	kinds, err := classifyAll(ctx, db.raw, candidates, RecoverOptions{})
	if err != nil {
		c.problem(Problem{Kind: "store", Detail: "reading the store: " + err.Error()})
		return
	}
	for i, info := range candidates {
		if kinds[i] == objPack {
			c.rep.Packs++
			if idx, err := objects.ReadPackIndex(ctx, db.raw, info.Digest); err == nil {
				needed := false
				for _, e := range idx.Entries {
					if _, ref := c.refs[e.Digest]; ref {
						if loc, ok := locs[e.Digest]; !ok || loc.Damaged {
							needed = true
						}
					}
				}
				if needed {
					c.problem(Problem{Kind: "index", Digest: info.Digest.String(), Detail: "this pack holds objects of retained revisions and the object index does not record it; run wsfs fsck --repair to rebuild the index"})
					continue
				}
			}
		}
		if kinds[i] != objGone {
			c.rep.Orphans = append(c.rep.Orphans, BlobInfo{Digest: info.Digest, Size: info.Size, ModTime: info.ModTime})
		}
	}
}

// checkPack compares the index of a stored pack that retained revisions
// use (one ranged read) with its record in the object index. The objects
// in it are checked where the revisions use them (a damaged object that
// nothing uses harms nothing; gc drops it).
func (c *fsckRun) checkPack(ctx context.Context, p *packRecord) {
	pr := Problem{Kind: "pack", Digest: p.Digest.String()}
	idx, err := objects.ReadPackIndex(ctx, c.db.raw, p.Digest)
	if err != nil {
		pr.Detail = "reading it: " + err.Error()
		c.problem(pr)
		return
	}
	if len(idx.Entries) != len(p.Entries) {
		pr.Detail = fmt.Sprintf("its index lists %d objects, the object index recorded %d", len(idx.Entries), len(p.Entries))
		c.problem(pr)
		return
	}
	for i, e := range idx.Entries {
		if e != p.Entries[i] {
			pr.Detail = fmt.Sprintf("its index differs from the object index's record at object %d (%s)", i, e.Digest.Short())
			c.problem(pr)
			return
		}
	}
}

func (db *DB) listTx(tx kv.Reader) ([]Workspace, error) {
	var out []Workspace
	err := tx.Scan(bucketWorkspaces, kv.ScanOptions{}, func(k, v []byte) error {
		var w Workspace
		if err := json.Unmarshal(v, &w); err != nil {
			return corruptf(db.where, "workspace %s: record does not decode: %v", k, err)
		}
		out = append(out, w)
		return nil
	})
	return out, err
}

type treeCheck struct {
	stats Stats
	ok    bool
}

type fsckRun struct {
	db    *DB
	opts  FsckOptions
	rep   *FsckReport
	store objects.Store // what the check reads (checkedStore)
	refs  map[objects.Digest]struct{}
	trees map[objects.Digest]treeCheck
	done  int
	// parents maps a tree or file content to the trees naming it, and
	// roots a root tree to the revisions ("ws@n") whose root it is, so
	// that a damaged object's revisions can be found.
	parents map[objects.Digest][]objects.Digest
	roots   map[objects.Digest][]string
	outputs []outputOf
}

type outputOf struct {
	id      string
	outputs []objects.Digest
}

func (c *fsckRun) problem(p Problem) { c.rep.Problems = append(c.rep.Problems, p) }

func (c *fsckRun) progress() {
	c.done++
	if c.opts.Progress != nil {
		c.opts.Progress(c.done, len(c.refs))
	}
}

func (c *fsckRun) checkRevision(ctx context.Context, w *Workspace, r *Revision) {
	c.refs[r.Manifest] = struct{}{}
	switch {
	case r.N == 1 && r.Parent != 0, r.N > 1 && r.Parent != r.N-1:
		c.problem(Problem{Kind: "revision", Workspace: w.Name, Rev: r.N, Detail: fmt.Sprintf("parent is %d, want %d", r.Parent, r.N-1)})
	}
	c.roots[r.Root] = append(c.roots[r.Root], Ref{Workspace: w.Name, Rev: r.N}.String())
	if b, err := objects.Get(ctx, c.store, r.Manifest); err != nil {
		c.problem(Problem{Kind: "manifest", Workspace: w.Name, Rev: r.N, Digest: r.Manifest.String(), Detail: err.Error()})
	} else if m, err := decodeManifest(b); err != nil {
		c.problem(Problem{Kind: "manifest", Workspace: w.Name, Rev: r.N, Digest: r.Manifest.String(), Detail: err.Error()})
	} else if m.N != r.N || m.Root != r.Root || m.WorkspaceID != w.ID || m.ParentManifest != r.ParentManifest {
		c.problem(Problem{Kind: "manifest", Workspace: w.Name, Rev: r.N, Digest: r.Manifest.String(), Detail: "the manifest does not match the database record"})
	}
	c.progress()
	stats, ok := c.checkTree(ctx, w, r, r.Root, "")
	if ok && stats != r.Stats {
		c.problem(Problem{Kind: "stats", Workspace: w.Name, Rev: r.N, Detail: fmt.Sprintf("revision says %+v, its tree holds %+v", r.Stats, stats)})
	}
}

// checkTree verifies tree d and everything under it once, returning what
// it holds.
func (c *fsckRun) checkTree(ctx context.Context, w *Workspace, r *Revision, d objects.Digest, p string) (Stats, bool) {
	if tc, seen := c.trees[d]; seen {
		return tc.stats, tc.ok
	}
	c.refs[d] = struct{}{}
	c.rep.Trees++
	c.progress()
	b, err := objects.Get(ctx, c.store, d)
	if err != nil {
		c.problem(Problem{Kind: "tree", Workspace: w.Name, Rev: r.N, Path: p, Digest: d.String(), Detail: err.Error()})
		c.trees[d] = treeCheck{}
		return Stats{}, false
	}
	t, err := decodeTree(b)
	if err != nil {
		c.problem(Problem{Kind: "tree", Workspace: w.Name, Rev: r.N, Path: p, Digest: d.String(), Detail: err.Error()})
		c.trees[d] = treeCheck{}
		return Stats{}, false
	}
	ok := true
	for _, e := range t.Entries {
		ep := joinPath(p, e.Name)
		if e.Kind == KindDir || e.Kind == KindFile {
			c.parents[e.Digest] = append(c.parents[e.Digest], d)
		}
		switch e.Kind {
		case KindDir:
			sub, subOK := c.checkTree(ctx, w, r, e.Digest, ep)
			if subOK && sub != e.Sub {
				c.problem(Problem{Kind: "stats", Workspace: w.Name, Rev: r.N, Path: ep, Digest: e.Digest.String(), Detail: fmt.Sprintf("entry says %+v, the tree holds %+v", e.Sub, sub)})
			}
			ok = ok && subOK
		case KindFile:
			c.checkBlob(ctx, w, r, e, ep)
		}
	}
	c.trees[d] = treeCheck{stats: t.Stats(), ok: ok}
	return t.Stats(), ok
}

func (c *fsckRun) checkBlob(ctx context.Context, w *Workspace, r *Revision, e Entry, p string) {
	if _, seen := c.refs[e.Digest]; seen {
		return
	}
	c.refs[e.Digest] = struct{}{}
	c.rep.Blobs++
	c.rep.Bytes += e.Size
	c.progress()
	pr := Problem{Workspace: w.Name, Rev: r.N, Path: p, Digest: e.Digest.String()}
	info, err := c.store.Stat(ctx, e.Digest)
	if err != nil {
		pr.Kind, pr.Detail = "blob-missing", err.Error()
		if !errors.Is(err, objects.ErrNotFound) {
			pr.Kind = "store"
		}
		c.problem(pr)
		return
	}
	if info.Size != e.Size {
		pr.Kind, pr.Detail = "blob-size", fmt.Sprintf("the store has %d bytes, the tree says %d", info.Size, e.Size)
		c.problem(pr)
		return
	}
	if c.opts.Quick {
		return
	}
	rc, err := c.store.Open(ctx, e.Digest, 0, -1)
	if err == nil {
		_, err = io.Copy(io.Discard, rc)
		rc.Close()
	}
	if err != nil {
		pr.Kind, pr.Detail = "blob-corrupt", err.Error()
		c.problem(pr)
	}
}
