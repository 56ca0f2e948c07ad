package meta

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/wsfs/wsfs/meta/kv"

	"github.com/wsfs/wsfs/objects"
)

// GCOptions tune GC.
type GCOptions struct {
	// Grace spares unreached blobs younger than this (they may belong to a
	// commit or an upload in progress). 0 means DefaultGrace; a negative
	// Grace (NoGrace) spares nothing, which is safe only when no other
	// process writes to the store (this DB's own commits are guarded).
	Grace time.Duration
	// Delete deletes the garbage; without it GC only reports it.
	Delete bool
	// Progress, if set, is called as GC reads trees (total grows as it
	// finds more) and again as it deletes (total is the garbage count).
	Progress func(done, total int)
}

// DefaultGrace is GC's grace period when GCOptions.Grace is 0.
const DefaultGrace = time.Hour

// NoGrace is a GCOptions.Grace that spares nothing: every unreached
// object is garbage at once.
const NoGrace time.Duration = -1

// BlobInfo describes one stored blob in a report.
type BlobInfo struct {
	Digest  objects.Digest `json:"digest"`
	Size    int64          `json:"size"`
	ModTime time.Time      `json:"mod_time"`
}

// GCReport says what GC found and did.
type GCReport struct {
	DryRun     bool `json:"dry_run"`
	Workspaces int  `json:"workspaces"`
	Revisions  int  `json:"revisions"` // retained revisions marked from
	Reachable  int  `json:"reachable"` // distinct reachable objects
	Listed     int  `json:"listed"`    // blobs in the store (a pack counts once)
	Packs      int  `json:"packs"`     // of which packs
	// Young counts unreached blobs and packs spared by the grace period.
	Young int `json:"young"`
	// Garbage lists unreached blobs, and packs none of whose objects is
	// reached, older than the grace period (deleted unless DryRun;
	// Skipped ones excepted).
	Garbage      []BlobInfo `json:"garbage"`
	GarbageBytes int64      `json:"garbage_bytes"`
	Deleted      int        `json:"deleted"`
	DeletedBytes int64      `json:"deleted_bytes"`
	// Repack lists the packs older than the grace period to rewrite: those
	// mostly garbage (less than half of their bytes reached), and the small
	// ones (under 1 MiB) once there are 16 or more, combined: their live
	// objects are written to new packs, and then they are deleted (unless
	// DryRun). RepackSmall counts the small ones.
	Repack       []BlobInfo `json:"repack"`
	RepackSmall  int        `json:"repack_small"`
	RepackBytes  int64      `json:"repack_bytes"`  // what the repacked packs held
	Repacked     int        `json:"repacked"`      // packs replaced
	RepackedLive int64      `json:"repacked_live"` // bytes copied to new packs
	// Unindexed counts packs the object index does not know that hold
	// reached objects found nowhere else: kept, and indexed again (run
	// wsfs fsck --repair to rebuild the whole index).
	Unindexed int `json:"unindexed,omitempty"`
	// Skipped counts garbage left alone because a commit in progress
	// started using it.
	Skipped int `json:"skipped"`
}

// ErrGCRunning reports a GC started while another runs.
var ErrGCRunning = errors.New("meta: gc is already running")

// GC finds the objects that no retained revision of any workspace reaches
// (file contents, trees, manifests, plus the current settings object of
// each workspace, the tombstones and the kept command outputs) and, with
// Delete, removes those older than the grace period. Before marking,
// Delete also drops from the database the revisions that retention no
// longer keeps.
//
// Objects live as single blobs or in packs. A single blob is garbage when
// nothing reaches it; a pack when none of the objects the object index
// locates in it is reached. A pack that is mostly garbage (less than half
// of its bytes reached) is repacked, and so are small packs (under 1 MiB:
// most commits make one) once there are 16, combined: their live objects
// are read (verified) and written to new packs, which the index then
// locates them in, and only then are the old packs deleted. An object leaves the index before its
// blob or pack leaves the store, so the index never names a deleted one.
//
// GC stops at the first listing or read error, deleting nothing after it
// (nothing at all if the error came before the first deletion). It deletes
// what holds manifests first, newest first, then trees, then file
// contents, so that a GC cut short never leaves a manifest whose objects
// are gone. Commits may run meanwhile: an object a commit starts using
// while GC runs is never deleted, nor is the pack that holds it.
func (db *DB) GC(ctx context.Context, opts GCOptions) (*GCReport, error) {
	switch {
	case opts.Grace == 0:
		opts.Grace = DefaultGrace
	case opts.Grace < 0:
		opts.Grace = 0
	}
	if !db.guard.startGC() {
		return nil, ErrGCRunning
	}
	defer db.guard.endGC()
	if db.sharedHolds() && opts.Delete {
		// Before the mark: a commit on any server that holds an object
		// from now on keeps its hold until a later gc (holds.go).
		epoch, err := db.startGCEpoch(ctx)
		if err != nil {
			return nil, fmt.Errorf("meta: gc: %w; nothing was deleted", err)
		}
		defer db.endGCEpoch(ctx, epoch)
	}
	rep := &GCReport{DryRun: !opts.Delete}
	if opts.Delete {
		if err := db.pruneAll(ctx); err != nil {
			return nil, fmt.Errorf("meta: gc: %w", err)
		}
	}
	roots, err := db.retainedRoots(ctx)
	if err != nil {
		return nil, fmt.Errorf("meta: gc: %w; nothing was deleted", err)
	}
	rep.Workspaces, rep.Revisions = roots.workspaces, roots.revisions
	reach, err := db.markFrom(ctx, roots, opts.Progress)
	if err != nil {
		hint := ""
		if errors.Is(err, objects.ErrNotFound) || errors.Is(err, objects.ErrCorrupt) {
			hint = " (a retained revision is damaged: run wsfs fsck to see which)"
		}
		return nil, fmt.Errorf("meta: gc: %w; nothing was deleted%s", err, hint)
	}
	rep.Reachable = len(reach)
	plan, err := db.gcPlan(ctx, reach, opts.Grace, rep)
	if err != nil {
		return nil, fmt.Errorf("meta: gc: %w; nothing was deleted", err)
	}
	if !opts.Delete {
		return rep, nil
	}
	for _, p := range plan.adopt {
		if err := db.recordPacks(ctx, []objects.PackInfo{p}); err != nil {
			return rep, fmt.Errorf("meta: gc: indexing pack %s: %w; nothing was deleted", p.Digest.Short(), err)
		}
	}
	total := len(plan.victims)
	done := 0
	progress := func() {
		done++
		if opts.Progress != nil {
			opts.Progress(done, total+len(plan.repack))
		}
	}
	for _, v := range plan.victims {
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("meta: gc: %w after deleting %d of %d blobs", err, rep.Deleted, total)
		}
		ran, err := db.deleteVictim(ctx, v)
		if err != nil {
			return rep, fmt.Errorf("meta: gc: deleting %s: %w (deleted %d of %d blobs; the rest are still garbage)", v.info.Digest.Short(), err, rep.Deleted, total)
		}
		if ran {
			rep.Deleted++
			rep.DeletedBytes += v.info.Size
		} else {
			rep.Skipped++
		}
		progress()
	}
	if err := db.repack(ctx, plan.repack, reach, rep, progress); err != nil {
		return rep, fmt.Errorf("meta: gc: repacking: %w (the packs not repacked yet are kept)", err)
	}
	return rep, nil
}

// gcVictim is a blob GC deletes: a single blob, or a pack with the
// objects it holds.
type gcVictim struct {
	info    objects.Info
	pack    bool
	entries []objects.PackEntry
	rank    int
}

type gcPlan struct {
	victims []gcVictim
	repack  []*packRecord
	adopt   []objects.PackInfo // packs missing from the index that hold live objects
}

// rankOf orders deletions: manifests first, then settings and tombstones,
// then trees, then everything else.
func rankOf(tag byte) int {
	switch tag {
	case tagManifest:
		return 0
	case tagSettings, tagTombstone, tagOutputRef:
		return 1
	case tagTree:
		return 2
	}
	return 3
}

func kindRank(k objectKind) int {
	switch k {
	case objRevision:
		return 0
	case objSettings, objTombstone:
		return 1
	case objTree:
		return 2
	}
	return 3
}

// gcPlan lists the store and decides what to delete and what to repack,
// filling in rep. It deletes nothing.
func (db *DB) gcPlan(ctx context.Context, reach map[objects.Digest]struct{}, grace time.Duration, rep *GCReport) (*gcPlan, error) {
	var listed []objects.Info
	if err := db.raw.List(ctx, func(info objects.Info) error {
		listed = append(listed, info)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("listing the object store: %w", err)
	}
	packs := map[objects.Digest]*packRecord{}
	locs := map[objects.Digest]indexEntry{} // of reached objects
	err := db.view(ctx, func(tx kv.Reader) error {
		if err := indexForEachPack(tx, func(p *packRecord) error { packs[p.Digest] = p; return nil }); err != nil {
			return err
		}
		// One pass over the index rather than a read per reached object:
		// on etcd a read is a round trip.
		return indexForEach(tx, func(d objects.Digest, e indexEntry) error {
			if _, ok := reach[d]; ok {
				locs[d] = e
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	singles := make(map[objects.Digest]bool, len(listed))
	for _, info := range listed {
		singles[info.Digest] = true
	}
	// live reports whether pack p holds a reached object that the index
	// locates there, or that is stored nowhere else.
	liveIn := func(p objects.Digest, e objects.PackEntry) bool {
		if _, ok := reach[e.Digest]; !ok {
			return false
		}
		loc, ok := locs[e.Digest]
		switch {
		case ok && !loc.Damaged:
			return loc.Pack == p
		case ok:
			return true // the indexed copy is damaged: this one may be good
		}
		return !singles[e.Digest] // unindexed: live here unless a single blob holds it
	}
	cutoff := db.now().Add(-grace)
	plan := &gcPlan{}
	var candidates []objects.Info
	var small []*packRecord // live, old and small: combined once there are enough
	for _, info := range listed {
		rep.Listed++
		if _, ok := reach[info.Digest]; ok {
			continue
		}
		young := !info.ModTime.Before(cutoff)
		if p, ok := packs[info.Digest]; ok {
			rep.Packs++
			var live, data int64
			rank := 3
			for _, e := range p.Entries {
				data += e.Length
				rank = min(rank, rankOf(e.Tag))
				if liveIn(p.Digest, e) {
					live += e.Length + 1 // an empty object is live too
				}
			}
			switch {
			case young && live == 0:
				rep.Young++
			case young:
			case live == 0:
				plan.victims = append(plan.victims, gcVictim{info: info, pack: true, entries: p.Entries, rank: rank})
			case 2*live < data:
				plan.repack = append(plan.repack, p)
				rep.Repack = append(rep.Repack, BlobInfo{Digest: p.Digest, Size: info.Size, ModTime: info.ModTime})
				rep.RepackBytes += info.Size
			case info.Size < smallPack:
				small = append(small, p)
			}
			continue
		}
		if young {
			rep.Young++
			continue
		}
		candidates = append(candidates, info)
	}
	// A commit makes a pack, mostly a small one: combined into full packs,
	// they cost fewer listing pages, fewer reads for recover, and fewer
	// index records.
	if len(small) >= minSmallPacks {
		sort.Slice(small, func(i, j int) bool { return small[i].ModTime.Before(small[j].ModTime) })
		for _, p := range small {
			plan.repack = append(plan.repack, p)
			rep.Repack = append(rep.Repack, BlobInfo{Digest: p.Digest, Size: p.Size, ModTime: p.ModTime})
			rep.RepackBytes += p.Size
			rep.RepackSmall++
		}
	}
	// Unreached blobs old enough: read the first bytes of each, to order
	// the deletions and to find the packs the index does not know.
	kinds, err := classifyAll(ctx, db.raw, candidates, RecoverOptions{})
	if err != nil {
		return nil, err
	}
	for i, info := range candidates {
		switch kinds[i] {
		case objGone:
			continue
		case objPack:
			rep.Packs++
			idx, err := objects.ReadPackIndex(ctx, db.raw, info.Digest)
			if errors.Is(err, objects.ErrNotFound) {
				continue
			}
			if errors.Is(err, objects.ErrBadPack) {
				// Not a pack after all (a file that starts like one), or a
				// damaged one: nothing of it can be read as a pack.
				plan.victims = append(plan.victims, gcVictim{info: info, rank: 3})
				continue
			}
			if err != nil {
				return nil, err
			}
			rank, live := 3, false
			for _, e := range idx.Entries {
				rank = min(rank, rankOf(e.Tag))
				live = live || liveIn(info.Digest, e)
			}
			if live {
				rep.Unindexed++
				plan.adopt = append(plan.adopt, objects.PackInfo{Digest: info.Digest, Size: info.Size, ModTime: info.ModTime, Entries: idx.Entries})
				continue
			}
			plan.victims = append(plan.victims, gcVictim{info: info, pack: true, entries: idx.Entries, rank: rank})
		default:
			plan.victims = append(plan.victims, gcVictim{info: info, rank: kindRank(kinds[i])})
		}
	}
	// Manifests first, newest first: a manifest's objects are as old as it
	// or older, so no pack goes before one whose manifest names it.
	sort.SliceStable(plan.victims, func(a, b int) bool {
		va, vb := plan.victims[a], plan.victims[b]
		if va.rank != vb.rank {
			return va.rank < vb.rank
		}
		return va.info.ModTime.After(vb.info.ModTime)
	})
	for _, v := range plan.victims {
		rep.Garbage = append(rep.Garbage, BlobInfo{Digest: v.info.Digest, Size: v.info.Size, ModTime: v.info.ModTime})
		rep.GarbageBytes += v.info.Size
	}
	sort.Slice(rep.Garbage, func(i, j int) bool { return rep.Garbage[i].Digest.String() < rep.Garbage[j].Digest.String() })
	return plan, nil
}

// deleteVictim deletes one garbage blob or pack unless a commit protected
// it (or, for a pack, one of its objects) since GC started. The objects
// leave the index first, in the same step as the check, so a commit that
// protects one of them afterwards finds it unindexed and stores it again.
func (db *DB) deleteVictim(ctx context.Context, v gcVictim) (bool, error) {
	ds := []objects.Digest{v.info.Digest}
	for _, e := range v.entries {
		ds = append(ds, e.Digest)
	}
	dropIndex := func() error {
		if v.pack {
			_, err := db.unindexPack(ctx, v.info.Digest)
			return err
		}
		return db.update(ctx, func(tx kv.Txn) error {
			if e, ok, err := indexLocate(tx, v.info.Digest); err != nil || !ok || e.InPack() {
				return err
			}
			if db.sharedHolds() {
				if h, err := held(tx, v.info.Digest); err != nil || h {
					if h {
						return errHeld
					}
					return err
				}
			}
			return indexForget(tx, v.info.Digest)
		})
	}
	if !v.pack {
		// A single blob goes under the guard's lock: a commit may find it
		// with Stat (stores written before the index) or rely on a
		// conditional write that saw it stored.
		ran, err := db.guard.deleteUnlessProtected(ds, func() error {
			if err := dropIndex(); err != nil {
				return err
			}
			return db.raw.Delete(ctx, v.info.Digest)
		})
		if errors.Is(err, errHeld) {
			return false, nil
		}
		return ran, err
	}
	ran, err := db.guard.deleteUnlessProtected(ds, dropIndex)
	if errors.Is(err, errHeld) {
		return false, nil
	}
	if err != nil || !ran {
		return ran, err
	}
	return true, db.raw.Delete(ctx, v.info.Digest)
}

// splitPacks is objects.SplitPacks with packs of at most the objects this
// database's engine can record (maxPackEntries).
func (db *DB) splitPacks(objs []objects.PackObject) [][]objects.PackObject {
	var out [][]objects.PackObject
	limit := db.maxPackEntries()
	for _, g := range objects.SplitPacks(objs) {
		for len(g) > limit {
			out = append(out, g[:limit])
			g = g[limit:]
		}
		out = append(out, g)
	}
	return out
}

// Packs GC combines: smaller than smallPack, once there are minSmallPacks.
const (
	smallPack     = objects.MaxPackBytes / 8
	minSmallPacks = 16
)

// repack writes the live objects of the packs old to new packs (those of
// several packs together, up to objects.MaxPackBytes), indexes them
// there, and then deletes the old packs. Any read or write error stops
// it; a pack is deleted only after its live objects are stored and
// indexed elsewhere.
func (db *DB) repack(ctx context.Context, old []*packRecord, reach map[objects.Digest]struct{}, rep *GCReport, progress func()) error {
	var group []*packRecord
	var objs []objects.PackObject
	var size, liveBytes int64
	flush := func() error {
		for _, g := range db.splitPacks(objs) {
			np, err := objects.WritePack(ctx, db.raw, g)
			if err != nil {
				return err
			}
			np.ModTime = db.now().UTC()
			if err := db.recordPacks(ctx, []objects.PackInfo{np}); err != nil {
				return err
			}
		}
		for _, p := range group {
			ran, err := db.deleteVictim(ctx, gcVictim{info: objects.Info{Digest: p.Digest, Size: p.Size}, pack: true, entries: p.Entries})
			if err != nil {
				return err
			}
			if ran {
				rep.Repacked++
			} else {
				rep.Skipped++
			}
			progress()
		}
		rep.RepackedLive += liveBytes
		group, objs, size, liveBytes = nil, nil, 0, 0
		return nil
	}
	for _, p := range old {
		if err := ctx.Err(); err != nil {
			return err
		}
		// The live objects now (a commit may have stored some since).
		var live []objects.PackEntry
		err := db.view(ctx, func(tx kv.Reader) error {
			for _, e := range p.Entries {
				loc, ok, err := indexLocate(tx, e.Digest)
				if err != nil {
					return err
				}
				if _, reached := reach[e.Digest]; reached && ok && loc.Pack == p.Digest && !loc.Damaged {
					live = append(live, e)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		var n int64
		for _, e := range live {
			n += e.Length
		}
		if len(group) > 0 && size+n > objects.MaxPackBytes {
			if err := flush(); err != nil {
				return err
			}
		}
		// An object not reached is garbage; a commit that started using
		// it since keeps the pack (deleteVictim).
		for _, e := range live {
			b, err := objects.Get(ctx, db.store, e.Digest)
			if err != nil {
				return fmt.Errorf("pack %s: %w", p.Digest.Short(), err)
			}
			objs = append(objs, objects.PackObject{Digest: e.Digest, Tag: e.Tag, Data: b})
		}
		group = append(group, p)
		size += n
		liveBytes += n
	}
	if len(group) > 0 {
		return flush()
	}
	return nil
}

// markRoots are the starting points of a mark: every retained revision's
// manifest and root tree, and the other metadata objects to keep.
type markRoots struct {
	workspaces int
	revisions  int
	objects    []objects.Digest // manifests, settings, tombstones, outputs
	trees      []objects.Digest // root trees
	revs       []markRev
}

type markRev struct {
	ws   *Workspace
	rev  *Revision
	prev bool // the parent is retained too
}

// retainedRevisions returns the revisions of w that the retention policy
// keeps now, oldest first.
func (db *DB) retainedRevisions(tx kv.Reader, w *Workspace) ([]*Revision, error) {
	now := db.now()
	var out []*Revision
	dropping := !w.Retention.KeepsAll()
	err := db.scanRevisions(tx, w, w.Oldest, w.Head, false, func(r *Revision) error {
		if dropping && !w.Retention.keeps(r.N, w.Head, r.Time, now) {
			return nil
		}
		dropping = false
		out = append(out, r)
		return nil
	})
	return out, err
}

func (db *DB) retainedRoots(ctx context.Context) (*markRoots, error) {
	roots := &markRoots{}
	err := db.view(ctx, func(tx kv.Reader) error {
		*roots = markRoots{}
		err := tx.Scan(bucketWorkspaces, kv.ScanOptions{}, func(k, v []byte) error {
			var w Workspace
			if err := json.Unmarshal(v, &w); err != nil {
				return corruptf(db.where, "workspace record %q: %v", k, err)
			}
			roots.workspaces++
			roots.objects = append(roots.objects, w.Settings)
			err := forEachOutput(tx, db.where, w.ID, func(o Output) {
				roots.objects = append(roots.objects, o.Digest, objects.Sum(encodeOutputRef(w.ID, o.Digest)))
			})
			if err != nil {
				return err
			}
			revs, err := db.retainedRevisions(tx, &w)
			if err != nil {
				return err
			}
			for i, r := range revs {
				roots.revisions++
				roots.objects = append(roots.objects, r.Manifest)
				roots.trees = append(roots.trees, r.Root)
				roots.revs = append(roots.revs, markRev{ws: &w, rev: r, prev: i > 0})
			}
			return nil
		})
		if err != nil {
			return err
		}
		return tx.Scan(bucketTombstones, kv.ScanOptions{}, func(k, v []byte) error {
			if len(v) != objects.DigestSize {
				return corruptf(db.where, "tombstone record %q has %d bytes", k, len(v))
			}
			roots.objects = append(roots.objects, objects.Digest(v))
			return nil
		})
	})
	return roots, err
}

// errNoChange aborts a transaction that found nothing to write.
var errNoChange = errors.New("meta: nothing to change")

// pruneAll applies every workspace's retention policy to the database, one
// workspace per transaction.
func (db *DB) pruneAll(ctx context.Context) error {
	var names []string
	err := db.view(ctx, func(tx kv.Reader) error {
		names = names[:0]
		return tx.Scan(bucketWorkspaces, kv.ScanOptions{}, func(k, v []byte) error {
			var w Workspace
			if err := json.Unmarshal(v, &w); err != nil {
				return corruptf(db.where, "workspace record %q: %v", k, err)
			}
			if !w.Retention.KeepsAll() {
				names = append(names, w.Name)
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	for _, name := range names {
		err := db.update(ctx, func(tx kv.Txn) error {
			w, err := getWorkspace(tx, name)
			if errors.Is(err, ErrNotFound) {
				return errNoChange
			}
			if err != nil {
				return err
			}
			old := w.Oldest
			if err := db.pruneTx(tx, w); err != nil {
				return err
			}
			if w.Oldest == old {
				return errNoChange
			}
			return db.putWorkspace(tx, w)
		})
		if err != nil && !errors.Is(err, errNoChange) {
			return err
		}
	}
	return nil
}

// markFrom walks every tree from roots and returns every reachable digest.
// Any read error stops it.
func (db *DB) markFrom(ctx context.Context, roots *markRoots, progress func(done, total int)) (map[objects.Digest]struct{}, error) {
	reach := make(map[objects.Digest]struct{})
	for _, d := range roots.objects {
		reach[d] = struct{}{}
	}
	stack := append([]objects.Digest(nil), roots.trees...)
	done := 0
	for len(stack) > 0 {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if _, ok := reach[d]; ok {
			continue
		}
		reach[d] = struct{}{}
		t, err := db.readTree(ctx, d)
		if err != nil {
			return nil, err
		}
		for _, e := range t.Entries {
			switch e.Kind {
			case KindFile:
				reach[e.Digest] = struct{}{}
			case KindDir:
				if _, ok := reach[e.Digest]; !ok {
					stack = append(stack, e.Digest)
				}
			}
		}
		done++
		if progress != nil {
			progress(done, done+len(stack))
		}
	}
	return reach, nil
}

// Hold keeps GC from deleting the blobs ds until release is called. A
// layer that uploads blobs ahead of a commit (a mount spooling writes)
// holds them from before it uploads until the commit returns: Store.Put
// of a blob that is already stored keeps its old time, so the grace period
// alone does not protect a blob that was garbage a moment ago.
func (db *DB) Hold(ds ...objects.Digest) (release func()) {
	held := append([]objects.Digest(nil), ds...)
	db.guard.protect(held...)
	var once sync.Once
	return func() { once.Do(func() { db.guard.release(held...) }) }
}
