package meta

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/wsfs/wsfs/meta/kv"

	"github.com/wsfs/wsfs/objects"
)

// IndexRebuild says what RebuildIndex found.
type IndexRebuild struct {
	Packs   int `json:"packs"`   // packs in the store
	Singles int `json:"singles"` // single blobs in the store
	Objects int `json:"objects"` // objects the index locates now
	Added   int `json:"added"`   // located now, unknown to the index before
	Dropped int `json:"dropped"` // known to the index before, not in the store
	Moved   int `json:"moved"`   // located elsewhere than the index said
}

// RebuildIndex writes the object index anew from the store: it lists
// every blob, reads the first bytes of each and the index of every pack,
// and locates every object where the store has it (the newest pack, where
// several hold it). A mark of damage stays on a copy that is still where
// it was. What the old index said and the store lacks is dropped.
func (db *DB) RebuildIndex(ctx context.Context) (*IndexRebuild, error) {
	var infos []objects.Info
	if err := db.raw.List(ctx, func(info objects.Info) error {
		infos = append(infos, info)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("listing the object store: %w; the index was left as it was", err)
	}
	kinds, err := classifyAll(ctx, db.raw, infos, RecoverOptions{})
	if err != nil {
		return nil, fmt.Errorf("%w; the index was left as it was", err)
	}
	rep := &IndexRebuild{}
	var packs []objects.PackInfo
	var singles []singleRecord
	for i, info := range infos {
		switch kinds[i] {
		case objGone:
			continue
		case objPack:
			idx, err := objects.ReadPackIndex(ctx, db.raw, info.Digest)
			switch {
			case errors.Is(err, objects.ErrNotFound):
				continue
			case err == nil:
				rep.Packs++
				packs = append(packs, objects.PackInfo{Digest: info.Digest, Size: info.Size, ModTime: info.ModTime, Entries: idx.Entries})
				continue
			case !errors.Is(err, objects.ErrBadPack):
				return nil, fmt.Errorf("reading pack %s: %w; the index was left as it was", info.Digest.Short(), err)
			}
			// A blob that starts like a pack and is none: a single blob.
		}
		rep.Singles++
		singles = append(singles, singleRecord{d: info.Digest, size: info.Size, tag: kindTag(kinds[i]), modTime: info.ModTime})
	}
	err = db.update(ctx, func(tx kv.Txn) error {
		*rep = IndexRebuild{Packs: rep.Packs, Singles: rep.Singles}
		old := map[objects.Digest]indexEntry{}
		if err := indexForEach(tx, func(d objects.Digest, e indexEntry) error {
			old[d] = e
			return nil
		}); err != nil {
			return err
		}
		if err := tx.DeleteRange(bucketLoc, nil, nil); err != nil {
			return err
		}
		if err := tx.DeleteRange(bucketPacks, nil, nil); err != nil {
			return err
		}
		if err := recoverIndex(tx, packs, singles, nil); err != nil {
			return err
		}
		return indexForEach(tx, func(d objects.Digest, e indexEntry) error {
			rep.Objects++
			was, ok := old[d]
			switch {
			case !ok:
				rep.Added++
			case was.Pack != e.Pack || was.Offset != e.Offset:
				rep.Moved++
			case was.Damaged:
				e.Damaged = true
				return tx.Put(bucketLoc, d[:], encodeLoc(e))
			}
			delete(old, d)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("writing the object index: %w", err)
	}
	return rep, nil
}

// repairKinds are the problems whose object a good copy fixes, with the
// tag of that object.
var repairKinds = map[string]byte{
	"blob-missing": tagFile,
	"blob-corrupt": tagFile,
	"blob-size":    tagFile,
	"tree":         tagTree,
	"manifest":     tagManifest,
	"output":       tagOutput,
}

// repair writes again every object of c's problems that a good copy is
// found for, and the missing reference objects of kept outputs.
func (db *DB) repair(ctx context.Context, c *fsckRun, sources []objects.Store, tried map[objects.Digest]bool) ([]Repaired, error) {
	type named struct {
		s    objects.Store
		name string
	}
	var srcs []named
	if _, ok := db.raw.(interface{ Remote() objects.Store }); ok {
		srcs = append(srcs, named{db.raw, "the read cache"})
	}
	for _, s := range sources {
		srcs = append(srcs, named{s, storeName(s)})
	}
	var out []Repaired
	for _, p := range c.rep.Problems {
		tag, ok := repairKinds[p.Kind]
		if !ok || p.Digest == "" {
			continue
		}
		d, err := objects.ParseDigest(p.Digest)
		if err != nil || tried[d] {
			continue
		}
		tried[d] = true
		for _, s := range srcs {
			b, err := db.copyFrom(ctx, s.s, d)
			if err != nil {
				continue
			}
			if err := db.heal(ctx, d, tag, b); err != nil {
				return out, fmt.Errorf("writing %s again: %w", d.Short(), err)
			}
			out = append(out, Repaired{Digest: d.String(), Kind: p.Kind, Source: s.name})
			break
		}
	}
	// The reference objects of outputs recorded before there were any.
	for _, o := range c.outputs {
		for _, d := range o.outputs {
			ref := encodeOutputRef(o.id, d)
			rd := objects.Sum(ref)
			if _, err := c.store.Stat(ctx, rd); !errors.Is(err, objects.ErrNotFound) {
				continue
			}
			u := db.newUpload()
			u.add(pendingObject{d: rd, tag: tagOutputRef, size: int64(len(ref)), data: ref, what: "an output's reference"})
			err := u.run(ctx)
			if err == nil {
				err = u.commit(ctx)
			}
			u.release()
			if err != nil {
				return out, fmt.Errorf("storing the reference of output %s: %w", d.Short(), err)
			}
			out = append(out, Repaired{Digest: rd.String(), Kind: "output-ref", Source: "the database's record of the output"})
		}
	}
	return out, nil
}

// storeName names a store in a report.
func storeName(s objects.Store) string {
	if n, ok := s.(fmt.Stringer); ok {
		return n.String()
	}
	return fmt.Sprintf("%T", s)
}

// copyFrom returns a verified copy of object d from store s: a single blob
// there, or d inside s's copy of the pack the object index locates it in.
func (db *DB) copyFrom(ctx context.Context, s objects.Store, d objects.Digest) ([]byte, error) {
	if b, err := objects.Get(ctx, s, d); err == nil {
		return b, nil
	}
	return objects.Get(ctx, objects.NewPacked(s, readOnlyLocator{locator{db}}), d)
}

// heal stores the good bytes b of object d again, replacing the copy the
// index locates (marked damaged first, so the upload does not trust it).
func (db *DB) heal(ctx context.Context, d objects.Digest, tag byte, b []byte) error {
	err := db.update(ctx, func(tx kv.Txn) error {
		e, ok, err := indexLocate(tx, d)
		if err != nil || !ok {
			return err
		}
		return indexMarkDamaged(tx, d, e.Location)
	})
	if err != nil {
		return err
	}
	u := db.newUpload()
	defer u.release()
	u.add(pendingObject{d: d, tag: tag, size: int64(len(b)), data: b, what: d.Short()})
	if err := u.run(ctx); err != nil {
		return err
	}
	return u.commit(ctx)
}

// readOnlyLocator locates objects for reads from another store and
// records nothing.
type readOnlyLocator struct{ locator }

func (readOnlyLocator) Record(context.Context, objects.PackInfo) error { return nil }
func (readOnlyLocator) Forget(context.Context, objects.Digest) error   { return nil }
func (readOnlyLocator) Damaged(context.Context, objects.Digest, objects.Location) error {
	return nil
}

// damage fills the report's Damaged list: every damaged or missing object
// of a retained revision, with the revisions that reach it.
func (c *fsckRun) damage() {
	byDigest := map[string]*Damage{}
	var order []string
	for _, p := range c.rep.Problems {
		if _, ok := repairKinds[p.Kind]; !ok || p.Digest == "" {
			continue
		}
		dm, ok := byDigest[p.Digest]
		if !ok {
			dm = &Damage{Digest: p.Digest, Kind: p.Kind}
			byDigest[p.Digest] = dm
			order = append(order, p.Digest)
		}
		if p.Path != "" && len(dm.Paths) < 5 {
			dm.Paths = append(dm.Paths, p.Path)
		}
		switch p.Kind {
		case "manifest":
			dm.Revisions = append(dm.Revisions, Ref{Workspace: p.Workspace, Rev: p.Rev}.String())
		case "output":
			dm.Revisions = append(dm.Revisions, p.Workspace+" (a kept command output)")
		default:
			d, err := objects.ParseDigest(p.Digest)
			if err == nil {
				dm.Revisions = append(dm.Revisions, c.revisionsReaching(d)...)
			}
		}
	}
	for _, k := range order {
		dm := byDigest[k]
		sort.Strings(dm.Revisions)
		dm.Revisions = compactStrings(dm.Revisions)
		c.rep.Damaged = append(c.rep.Damaged, *dm)
	}
}

// revisionsReaching walks up from object d to the root trees that reach
// it and returns their revisions.
func (c *fsckRun) revisionsReaching(d objects.Digest) []string {
	var out []string
	seen := map[objects.Digest]bool{d: true}
	stack := []objects.Digest{d}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, c.roots[cur]...)
		for _, p := range c.parents[cur] {
			if !seen[p] {
				seen[p] = true
				stack = append(stack, p)
			}
		}
	}
	return out
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
