package meta

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/wsfs/wsfs/objects"
)

// RecoverOptions tune Recover.
type RecoverOptions struct {
	// Progress, if set, is called as blobs are classified.
	Progress func(done, total int)
	// Parallelism bounds concurrent header reads; 0 means 8.
	Parallelism int
	Logger      *slog.Logger
}

// RecoverReport says what Recover rebuilt.
type RecoverReport struct {
	Blobs      int      `json:"blobs"`
	Trees      int      `json:"trees"`
	Manifests  int      `json:"manifests"`
	Settings   int      `json:"settings"`
	Tombstones int      `json:"tombstones"`
	Workspaces []string `json:"workspaces"`
	Revisions  int      `json:"revisions"`
	// Skipped explains every metadata object or workspace that was not
	// used (a deleted workspace, a manifest with no settings, ...).
	Skipped []string `json:"skipped"`
}

// Recover rebuilds the database at path from the object store alone: it
// lists every blob, reads the first bytes of each to find the metadata
// objects (see objfmt.go), and writes every workspace that has a settings
// object and no tombstone, with the chain of revisions that ends at its
// newest manifest. It refuses to overwrite an existing file at path, and
// it writes a new file beside it that it renames into place only when
// complete. A listing or read error stops it with nothing at path.
// Commands' kept outputs (RecordOutput) name no workspace in their blobs,
// so they are not referenced again: gc collects them after its grace.
//
// Every revision that was acknowledged (its Commit returned) comes back,
// with its workspace's newest settings. An operation cut short by a crash
// after its objects were stored but before its transaction may come back
// too: a commit that was never acknowledged, a settings change, a created
// workspace. A failed operation that could clean up removed its objects.
func Recover(ctx context.Context, path string, store objects.Store, opts RecoverOptions) (*RecoverReport, error) {
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
	settings := map[string]*settingsObject{} // by ID, newest Seq
	settingsDigest := map[string]objects.Digest{}
	tombstones := map[string]objects.Digest{}
	manifests := map[string][]*Revision{} // by workspace ID
	for i, info := range infos {
		k := kinds[i]
		if k == objOther || k == objTree || k == objGone {
			if k == objTree {
				rep.Trees++
			}
			continue
		}
		b, err := objects.Get(ctx, store, info.Digest)
		if err != nil {
			return nil, fmt.Errorf("meta: recover: reading %s: %w; nothing was written", info.Digest.Short(), err)
		}
		switch k {
		case objSettings:
			var s settingsObject
			if err := decodeJSONObject(magicSettings, b, &s); err != nil || s.ID == "" {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("blob %s looks like a settings object but does not decode: %v", info.Digest.Short(), err))
				continue
			}
			if _, err := ParseWorkspace(s.Name); err != nil {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("settings %s: %v", info.Digest.Short(), err))
				continue
			}
			rep.Settings++
			if cur, ok := settings[s.ID]; !ok || s.Seq > cur.Seq {
				settings[s.ID] = &s
				settingsDigest[s.ID] = info.Digest
			}
		case objTombstone:
			var t tombstoneObject
			if err := decodeJSONObject(magicTombstone, b, &t); err != nil || t.ID == "" {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("blob %s looks like a tombstone but does not decode: %v", info.Digest.Short(), err))
				continue
			}
			rep.Tombstones++
			tombstones[t.ID] = info.Digest
		case objRevision:
			r, err := decodeManifest(b)
			if err != nil {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("blob %s looks like a manifest but does not decode: %v", info.Digest.Short(), err))
				continue
			}
			rep.Manifests++
			r.Manifest = info.Digest
			manifests[r.WorkspaceID] = append(manifests[r.WorkspaceID], r)
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

	tmp := path + ".recovering"
	os.Remove(tmp)
	db, err := Open(ctx, tmp, store, Options{Logger: opts.Logger})
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
			if _, err := store.Stat(ctx, revs[i].Root); err != nil {
				if !errors.Is(err, objects.ErrNotFound) {
					db.Close()
					os.Remove(tmp)
					return nil, fmt.Errorf("meta: recover: %w; nothing was written", err)
				}
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("workspace %s: revisions up to %d have lost their trees; its history starts at %d", name, revs[i].N, revs[i-1].N))
				revs = revs[:i]
				w.Oldest = revs[i-1].N
				break
			}
		}
		all = append(all, rebuilt{w, revs})
	}
	err = db.update(func(tx *bolt.Tx) error {
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
		}
		for id, d := range tombstones {
			if err := tx.Bucket(bucketTombstones).Put([]byte(id), d[:]); err != nil {
				return err
			}
		}
		return nil
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
		Head: head.N, Oldest: revs[len(revs)-1].N, HeadRoot: head.Root, HeadCwd: head.Cwd, Usage: head.Stats,
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
