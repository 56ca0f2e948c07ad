package meta

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/wsfs/wsfs/objects"
)

// GCOptions tune GC.
type GCOptions struct {
	// Grace spares unreached blobs younger than this (they may belong to a
	// commit or an upload in progress). 0 means 1 hour.
	Grace time.Duration
	// Delete deletes the garbage; without it GC only reports it.
	Delete bool
	// Progress, if set, is called as GC reads trees (total grows as it
	// finds more) and again as it deletes (total is the garbage count).
	Progress func(done, total int)
}

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
	Listed     int  `json:"listed"`    // blobs in the store
	// Young counts unreached blobs spared by the grace period.
	Young int `json:"young"`
	// Garbage lists unreached blobs older than the grace period (deleted
	// unless DryRun; Skipped ones excepted).
	Garbage      []BlobInfo `json:"garbage"`
	GarbageBytes int64      `json:"garbage_bytes"`
	Deleted      int        `json:"deleted"`
	DeletedBytes int64      `json:"deleted_bytes"`
	// Skipped counts garbage left alone because a commit in progress
	// started using it.
	Skipped int `json:"skipped"`
}

// ErrGCRunning reports a GC started while another runs.
var ErrGCRunning = errors.New("meta: gc is already running")

// GC finds the blobs that no retained revision of any workspace reaches
// (file contents, trees, manifests, plus the current settings object of
// each workspace and the tombstones) and, with Delete, removes those older
// than the grace period. Before marking, Delete also drops from the
// database the revisions that retention no longer keeps. GC stops at the
// first listing or read error and then deletes nothing. It deletes
// manifests first, then trees, then file contents, so that a GC cut short
// never leaves a manifest whose objects are gone. Commits may run
// meanwhile: a blob a commit starts using while GC runs is never deleted.
func (db *DB) GC(ctx context.Context, opts GCOptions) (*GCReport, error) {
	if opts.Grace <= 0 {
		opts.Grace = time.Hour
	}
	if !db.guard.startGC() {
		return nil, ErrGCRunning
	}
	defer db.guard.endGC()
	rep := &GCReport{DryRun: !opts.Delete}
	if opts.Delete {
		if err := db.pruneAll(); err != nil {
			return nil, fmt.Errorf("meta: gc: %w", err)
		}
	}
	roots, err := db.retainedRoots()
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
	cutoff := db.now().Add(-opts.Grace)
	err = db.store.List(ctx, func(info objects.Info) error {
		rep.Listed++
		if _, ok := reach[info.Digest]; ok {
			return nil
		}
		if !info.ModTime.Before(cutoff) {
			rep.Young++
			return nil
		}
		rep.Garbage = append(rep.Garbage, BlobInfo{Digest: info.Digest, Size: info.Size, ModTime: info.ModTime})
		rep.GarbageBytes += info.Size
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("meta: gc: listing the object store: %w; nothing was deleted", err)
	}
	sort.Slice(rep.Garbage, func(i, j int) bool { return rep.Garbage[i].Digest.String() < rep.Garbage[j].Digest.String() })
	if !opts.Delete {
		return rep, nil
	}
	// Delete manifests first, then trees, then contents, so that an
	// interrupted GC never leaves a manifest whose trees or blobs are gone
	// (Recover trusts manifests). That needs the kind of each victim.
	infos := make([]objects.Info, len(rep.Garbage))
	for i, g := range rep.Garbage {
		infos[i] = objects.Info{Digest: g.Digest, Size: g.Size, ModTime: g.ModTime}
	}
	kinds, err := classifyAll(ctx, db.store, infos, RecoverOptions{})
	if err != nil {
		return nil, fmt.Errorf("meta: gc: %w; nothing was deleted", err)
	}
	rank := func(k objectKind) int {
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
	order := make([]int, len(infos))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rank(kinds[order[a]]) < rank(kinds[order[b]]) })
	victims := make([]BlobInfo, 0, len(order))
	for _, j := range order {
		if kinds[j] != objGone {
			victims = append(victims, rep.Garbage[j])
		}
	}
	for i, g := range victims {
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("meta: gc: %w after deleting %d of %d blobs", err, rep.Deleted, len(victims))
		}
		ran, err := db.guard.deleteUnlessProtected(g.Digest, func() error { return db.store.Delete(ctx, g.Digest) })
		if err != nil {
			return rep, fmt.Errorf("meta: gc: deleting %s: %w (deleted %d of %d blobs; the rest are still garbage)", g.Digest.Short(), err, rep.Deleted, len(victims))
		}
		if ran {
			rep.Deleted++
			rep.DeletedBytes += g.Size
		} else {
			rep.Skipped++
		}
		if opts.Progress != nil {
			opts.Progress(i+1, len(victims))
		}
	}
	return rep, nil
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
func (db *DB) retainedRevisions(tx *bolt.Tx, w *Workspace) ([]*Revision, error) {
	b := tx.Bucket(bucketRevisions).Bucket([]byte(w.ID))
	if b == nil {
		return nil, corruptf(db.path, "the revisions of %s are missing", w.Name)
	}
	now := db.now()
	var out []*Revision
	dropping := !w.Retention.KeepsAll()
	for n := w.Oldest; n <= w.Head && n > 0; n++ {
		r, err := db.getRevision(tx, w, n)
		if err != nil {
			return nil, err
		}
		if dropping && !w.Retention.keeps(n, w.Head, r.Time, now) {
			continue
		}
		dropping = false
		out = append(out, r)
	}
	return out, nil
}

func (db *DB) retainedRoots() (*markRoots, error) {
	roots := &markRoots{}
	err := db.view(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketWorkspaces).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			var w Workspace
			if err := json.Unmarshal(v, &w); err != nil {
				return corruptf(db.path, "workspace record %q: %v", k, err)
			}
			roots.workspaces++
			roots.objects = append(roots.objects, w.Settings)
			if err := forEachOutput(tx, db.path, w.ID, func(o Output) { roots.objects = append(roots.objects, o.Digest) }); err != nil {
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
		}
		return tx.Bucket(bucketTombstones).ForEach(func(k, v []byte) error {
			if len(v) != objects.DigestSize {
				return corruptf(db.path, "tombstone record %q has %d bytes", k, len(v))
			}
			roots.objects = append(roots.objects, objects.Digest(v))
			return nil
		})
	})
	return roots, err
}

// pruneAll applies every workspace's retention policy to the database.
func (db *DB) pruneAll() error {
	return db.update(func(tx *bolt.Tx) error {
		var ws []Workspace
		err := tx.Bucket(bucketWorkspaces).ForEach(func(k, v []byte) error {
			var w Workspace
			if err := json.Unmarshal(v, &w); err != nil {
				return corruptf(db.path, "workspace record %q: %v", k, err)
			}
			ws = append(ws, w)
			return nil
		})
		if err != nil {
			return err
		}
		for i := range ws {
			old := ws[i].Oldest
			if err := db.pruneTx(tx, &ws[i]); err != nil {
				return err
			}
			if ws[i].Oldest != old {
				if err := putWorkspace(tx, &ws[i]); err != nil {
					return err
				}
			}
		}
		return nil
	})
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
