package meta

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/wsfs/wsfs/meta/kv"

	"github.com/wsfs/wsfs/objects"
)

// RecoverOptions tune Recover.
type RecoverOptions struct {
	// StoreID is the store's identity, recorded in the new database
	// (Options.StoreID).
	StoreID string
	// Progress, if set, is called as blobs are classified.
	Progress func(done, total int)
	// Parallelism bounds concurrent header reads; 0 means 8.
	Parallelism int
	Logger      *slog.Logger
}

// RecoverReport says what Recover rebuilt.
type RecoverReport struct {
	Blobs      int      `json:"blobs"` // blobs in the store (a pack counts once)
	Packs      int      `json:"packs"`
	Trees      int      `json:"trees"`
	Manifests  int      `json:"manifests"`
	Settings   int      `json:"settings"`
	Tombstones int      `json:"tombstones"`
	Outputs    int      `json:"outputs"` // kept command outputs referenced again
	Workspaces []string `json:"workspaces"`
	Revisions  int      `json:"revisions"`
	// Skipped explains every metadata object or workspace that was not
	// used (a deleted workspace, a manifest with no settings, ...).
	Skipped []string `json:"skipped"`
}

// recoveredObject is a metadata object found in the store, with where it
// was found.
type recoveredObject struct {
	d       objects.Digest
	kind    objectKind
	data    []byte
	modTime time.Time
}

// Recover rebuilds the database at path from the object store alone: it
// lists every blob, reads the first bytes of each to find the metadata
// objects (see objfmt.go) and the packs, reads every pack (its index, then
// its objects, each verified against its digest), and writes every
// workspace that has a settings object and no tombstone, with the chain of
// revisions that ends at its newest manifest, its kept command outputs
// (from their reference objects), and the object index: every pack and
// every single blob. It refuses to overwrite an existing file at path, and
// it writes a new file beside it that it renames into place only when
// complete. A listing or read error stops it with nothing at path; a
// damaged object inside a pack is skipped (and named in the report).
//
// Every revision that was acknowledged (its Commit returned) comes back,
// with its workspace's newest settings. An operation cut short by a crash
// after its objects were stored but before its transaction may come back
// too: a commit that was never acknowledged, a settings change, a created
// workspace. A failed operation that could clean up removed its objects.
func Recover(ctx context.Context, path string, store objects.Store, opts RecoverOptions) (*RecoverReport, error) {
	if p, ok := store.(*objects.Packed); ok {
		store = p.Raw() // the store itself, packs and all
	}
	if _, err := os.Stat(path); err == nil {
		return nil, fmt.Errorf("meta: recover: %s exists; move it aside first (recover never overwrites a database)", path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("meta: recover: %w", err)
	}
	if opts.Parallelism <= 0 {
		opts.Parallelism = 8
	}
	rep := &RecoverReport{}
	var infos []objects.Info
	if err := store.List(ctx, func(info objects.Info) error {
		infos = append(infos, info)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("meta: recover: listing the object store: %w; nothing was written", err)
	}
	rep.Blobs = len(infos)

	kinds, err := classifyAll(ctx, store, infos, opts)
	if err != nil {
		return nil, fmt.Errorf("meta: recover: %w; nothing was written", err)
	}
	var found []recoveredObject
	var packs []objects.PackInfo
	var damaged []objects.Digest // objects found damaged inside packs
	var singles []singleRecord
	for i, info := range infos {
		k := kinds[i]
		switch k {
		case objGone:
			continue
		case objPack:
			idx, objs, bad, err := objects.ReadPack(ctx, store, info.Digest)
			switch {
			case errors.Is(err, objects.ErrNotFound):
				continue
			case errors.Is(err, objects.ErrBadPack):
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("blob %s starts like a pack but is not one: %v", info.Digest.Short(), err))
				singles = append(singles, singleRecord{d: info.Digest, size: info.Size, tag: tagFile, modTime: info.ModTime})
				continue
			case err != nil:
				return nil, fmt.Errorf("meta: recover: reading pack %s: %w; nothing was written", info.Digest.Short(), err)
			}
			rep.Packs++
			packs = append(packs, objects.PackInfo{Digest: info.Digest, Size: info.Size, ModTime: info.ModTime, Entries: idx.Entries})
			for _, e := range bad {
				damaged = append(damaged, e.Digest)
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("pack %s: object %s is damaged", info.Digest.Short(), e.Digest.Short()))
			}
			for _, o := range objs {
				switch pk := tagKind(o.Tag); pk {
				case objOther:
				case objTree:
					rep.Trees++
				default: // a copy, so the pack's bytes can go
					found = append(found, recoveredObject{d: o.Digest, kind: pk, data: bytes.Clone(o.Data), modTime: info.ModTime})
				}
			}
			continue
		}
		singles = append(singles, singleRecord{d: info.Digest, size: info.Size, tag: kindTag(k), modTime: info.ModTime})
		if k == objOther {
			continue
		}
		if k == objTree {
			rep.Trees++
			continue
		}
		b, err := objects.Get(ctx, store, info.Digest)
		if err != nil {
			return nil, fmt.Errorf("meta: recover: reading %s: %w; nothing was written", info.Digest.Short(), err)
		}
		found = append(found, recoveredObject{d: info.Digest, kind: k, data: b, modTime: info.ModTime})
	}

	settings := map[string]*settingsObject{} // by ID, newest Seq
	settingsDigest := map[string]objects.Digest{}
	tombstones := map[string]objects.Digest{}
	manifests := map[string][]*Revision{} // by workspace ID
	outputs := map[string][]Output{}      // by workspace ID
	for _, o := range found {
		b := o.data
		switch o.kind {
		case objSettings:
			var s settingsObject
			if err := decodeJSONObject(magicSettings, b, &s); err != nil || s.ID == "" {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("blob %s looks like a settings object but does not decode: %v", o.d.Short(), err))
				continue
			}
			if _, err := ParseWorkspace(s.Name); err != nil {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("settings %s: %v", o.d.Short(), err))
				continue
			}
			rep.Settings++
			if cur, ok := settings[s.ID]; !ok || s.Seq > cur.Seq {
				settings[s.ID] = &s
				settingsDigest[s.ID] = o.d
			}
		case objTombstone:
			var t tombstoneObject
			if err := decodeJSONObject(magicTombstone, b, &t); err != nil || t.ID == "" {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("blob %s looks like a tombstone but does not decode: %v", o.d.Short(), err))
				continue
			}
			rep.Tombstones++
			tombstones[t.ID] = o.d
		case objRevision:
			r, err := decodeManifest(b)
			if err != nil {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("blob %s looks like a manifest but does not decode: %v", o.d.Short(), err))
				continue
			}
			rep.Manifests++
			r.Manifest = o.d
			manifests[r.WorkspaceID] = append(manifests[r.WorkspaceID], r)
		case objOutputRef:
			var ref outputRef
			if err := decodeJSONObject(magicOutputRef, b, &ref); err != nil || ref.ID == "" {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("blob %s looks like an output reference but does not decode: %v", o.d.Short(), err))
				continue
			}
			outputs[ref.ID] = append(outputs[ref.ID], Output{Digest: ref.Output, Time: o.modTime.UTC()})
		}
	}
	// One incarnation per name: the newest created one that is not deleted.
	live := map[string]*settingsObject{}
	for id, s := range settings {
		if _, dead := tombstones[id]; dead {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("workspace %s (id %s) was deleted", s.Name, id))
			continue
		}
		if len(manifests[id]) == 0 {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("workspace %s (id %s) has no revision manifest left", s.Name, id))
			continue
		}
		if cur, ok := live[s.Name]; ok {
			older := s
			if s.Created > cur.Created {
				live[s.Name], older = s, cur
			}
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("workspace %s (id %s) is superseded by a newer one of the same name", older.Name, older.ID))
			continue
		}
		live[s.Name] = s
	}
	for id, ms := range manifests {
		if _, ok := settings[id]; !ok {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%d manifests of workspace id %s (%s) have no settings object", len(ms), id, ms[0].Workspace))
		}
	}

	// What the store holds in good order: single blobs and the intact
	// objects of packs.
	stored := map[objects.Digest]bool{}
	for _, sr := range singles {
		stored[sr.d] = true
	}
	bad := map[objects.Digest]bool{}
	for _, d := range damaged {
		bad[d] = true
	}
	for _, p := range packs {
		for _, e := range p.Entries {
			if !bad[e.Digest] {
				stored[e.Digest] = true
			}
		}
	}

	tmp := path + ".recovering"
	os.Remove(tmp)
	db, err := Open(ctx, tmp, store, Options{Logger: opts.Logger, StoreID: opts.StoreID})
	if err != nil {
		return nil, fmt.Errorf("meta: recover: %w", err)
	}
	names := sortedKeys(live)
	type rebuilt struct {
		w    *Workspace
		revs []*Revision
	}
	var all []rebuilt
	for _, name := range names {
		s := live[name]
		w, revs := rebuildWorkspace(s, settingsDigest[s.ID], manifests[s.ID])
		// An old manifest can outlive the trees of its revision when a GC
		// was interrupted; history then starts after the newest such one.
		for i := 1; i < len(revs); i++ {
			if !stored[revs[i].Root] && revs[i].Root != EmptyTreeDigest {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("workspace %s: revisions up to %d have lost their trees; its history starts at %d", name, revs[i].N, revs[i-1].N))
				revs = revs[:i]
				w.Oldest = revs[i-1].N
				break
			}
		}
		all = append(all, rebuilt{w, revs})
	}
	err = db.update(ctx, func(tx kv.Txn) error {
		rep.Workspaces, rep.Revisions, rep.Outputs = nil, 0, 0
		for _, rb := range all {
			w, revs, name := rb.w, rb.revs, rb.w.Name
			if err := putWorkspace(tx, w); err != nil {
				return err
			}
			for _, r := range revs {
				if err := putRevision(tx, w, r); err != nil {
					return err
				}
			}
			if err := db.pruneTx(tx, w); err != nil {
				return err
			}
			if err := putWorkspace(tx, w); err != nil {
				return err
			}
			rep.Workspaces = append(rep.Workspaces, name)
			rep.Revisions += int(w.Head - w.Oldest + 1)
			n, err := recoverOutputs(tx, w.ID, outputs[w.ID], stored)
			if err != nil {
				return err
			}
			rep.Outputs += n
		}
		for id, d := range tombstones {
			if err := tx.Put(bucketTombstones, []byte(id), d[:]); err != nil {
				return err
			}
		}
		return recoverIndex(tx, packs, singles, damaged)
	})
	if cerr := db.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("meta: recover: writing %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("meta: recover: %w", err)
	}
	return rep, nil
}

// recoverOutputs references again the kept outputs of a workspace
// incarnation whose output blobs are stored, newest MaxOutputsKept, oldest
// first.
func recoverOutputs(tx kv.Txn, id string, outs []Output, stored map[objects.Digest]bool) (int, error) {
	sort.SliceStable(outs, func(i, j int) bool { return outs[i].Time.Before(outs[j].Time) })
	seen := map[objects.Digest]bool{}
	var keep []Output
	for _, o := range outs {
		if stored[o.Digest] && !seen[o.Digest] {
			seen[o.Digest] = true
			keep = append(keep, o)
		}
	}
	if len(keep) > MaxOutputsKept {
		keep = keep[len(keep)-MaxOutputsKept:]
	}
	for _, o := range keep {
		rec, err := json.Marshal(o)
		if err != nil {
			return 0, err
		}
		if err := putOutputRecord(tx, id, rec); err != nil {
			return 0, err
		}
	}
	return len(keep), nil
}

// recoverIndex writes the object index of a recovered store: every pack
// (oldest first, so that an object in several is located in the newest),
// every single blob (where no pack holds the object), and the objects
// found damaged in packs, marked.
func recoverIndex(tx kv.Txn, packs []objects.PackInfo, singles []singleRecord, damaged []objects.Digest) error {
	sort.SliceStable(packs, func(i, j int) bool { return packs[i].ModTime.Before(packs[j].ModTime) })
	bad := map[objects.Digest]objects.Location{}
	for _, p := range packs {
		if err := indexAddPack(tx, p); err != nil {
			return err
		}
	}
	for _, d := range damaged {
		if e, ok, err := indexLocate(tx, d); err != nil {
			return err
		} else if ok {
			bad[d] = e.Location
		}
	}
	// A good copy in an older pack beats a damaged one in a newer pack.
	for _, p := range packs {
		for _, e := range p.Entries {
			if loc, isBad := bad[e.Digest]; isBad && loc.Pack != p.Digest {
				l := indexEntry{Location: objects.Location{Pack: p.Digest, Offset: e.Offset, Length: e.Length, ModTime: p.ModTime}, Tag: e.Tag}
				if err := tx.Put(bucketLoc, e.Digest[:], encodeLoc(l)); err != nil {
					return err
				}
				delete(bad, e.Digest)
			}
		}
	}
	for _, sr := range singles {
		if _, isBad := bad[sr.d]; isBad {
			if err := indexForget(tx, sr.d); err != nil {
				return err
			}
			delete(bad, sr.d)
		}
		if err := indexAddSingle(tx, sr.d, sr.size, sr.tag, sr.modTime); err != nil {
			return err
		}
	}
	for d, loc := range bad {
		if err := indexMarkDamaged(tx, d, loc); err != nil {
			return err
		}
	}
	return nil
}

// tagKind is the metadata kind of a packed object's tag (objOther for
// file contents and outputs).
func tagKind(tag byte) objectKind {
	switch tag {
	case tagTree:
		return objTree
	case tagManifest:
		return objRevision
	case tagSettings:
		return objSettings
	case tagTombstone:
		return objTombstone
	case tagOutputRef:
		return objOutputRef
	}
	return objOther
}

// kindTag is the tag the index records for a single blob of kind k.
func kindTag(k objectKind) byte {
	switch k {
	case objTree:
		return tagTree
	case objRevision:
		return tagManifest
	case objSettings:
		return tagSettings
	case objTombstone:
		return tagTombstone
	case objOutputRef:
		return tagOutputRef
	}
	return tagFile
}

// rebuildWorkspace picks the head manifest of one incarnation and follows
// parent links back as far as they go.
func rebuildWorkspace(s *settingsObject, sd objects.Digest, ms []*Revision) (*Workspace, []*Revision) {
	// Prefer, among the newest revision numbers, a manifest that another
	// names as its parent, then the latest time: a manifest whose commit
	// lost a race is normally deleted, but a crash can leave one behind.
	named := map[objects.Digest]bool{}
	byDigest := map[objects.Digest]*Revision{}
	for _, r := range ms {
		named[r.ParentManifest] = true
		byDigest[r.Manifest] = r
	}
	sort.Slice(ms, func(i, j int) bool {
		a, b := ms[i], ms[j]
		if a.N != b.N {
			return a.N > b.N
		}
		if named[a.Manifest] != named[b.Manifest] {
			return named[a.Manifest]
		}
		if !a.Time.Equal(b.Time) {
			return a.Time.After(b.Time)
		}
		return a.Manifest.String() < b.Manifest.String()
	})
	head := ms[0]
	revs := []*Revision{head}
	for cur := head; cur.N > 1; {
		p, ok := byDigest[cur.ParentManifest]
		if !ok || p.N != cur.N-1 {
			break
		}
		revs = append(revs, p)
		cur = p
	}
	created, _ := time.Parse(time.RFC3339Nano, s.Created)
	updated, _ := time.Parse(time.RFC3339Nano, s.Updated)
	w := &Workspace{
		Name: s.Name, ID: s.ID, Kind: s.Kind, Owner: s.Owner, Created: created, Updated: updated,
		Quotas: s.Quotas, Retention: s.Retention, ForkedFrom: s.ForkedFrom,
		Head: head.N, Oldest: revs[len(revs)-1].N, HeadRoot: head.Root, HeadCwd: head.Cwd, HeadTime: head.Time, Usage: head.Stats,
		Settings: sd, SettingsSeq: s.Seq,
	}
	return w, revs
}

// classifyAll reads the first bytes of every blob that could be a
// metadata object.
func classifyAll(ctx context.Context, store objects.Store, infos []objects.Info, opts RecoverOptions) ([]objectKind, error) {
	if opts.Parallelism <= 0 {
		opts.Parallelism = 8
	}
	kinds := make([]objectKind, len(infos))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	done := 0
	for w := 0; w < opts.Parallelism; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				k, err := classifyBlob(ctx, store, infos[i])
				if errors.Is(err, objects.ErrNotFound) {
					// Deleted since the listing (a failed operation's
					// clean-up): nothing to classify.
					k, err = objGone, nil
				}
				mu.Lock()
				if err != nil && first == nil {
					first = err
					cancel()
				}
				kinds[i] = k
				done++
				if opts.Progress != nil {
					opts.Progress(done, len(infos))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range infos {
		select {
		case next <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return nil, first
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return kinds, nil
}

func classifyBlob(ctx context.Context, store objects.Store, info objects.Info) (objectKind, error) {
	if info.Size < int64(len(magicSettings)) {
		return objOther, nil
	}
	rc, err := store.Open(ctx, info.Digest, 0, magicMaxLen)
	if err != nil {
		return objOther, fmt.Errorf("reading the start of %s: %w", info.Digest.Short(), err)
	}
	defer rc.Close()
	head, err := io.ReadAll(io.LimitReader(rc, magicMaxLen))
	if err != nil {
		return objOther, fmt.Errorf("reading the start of %s: %w", info.Digest.Short(), err)
	}
	return classify(head), nil
}
