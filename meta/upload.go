package meta

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/wsfs/wsfs/meta/kv"
	"github.com/wsfs/wsfs/objects"
)

// An upload stores the new objects of one operation (a commit, a create, a
// settings change) in as few requests as the store allows:
//
//   - an object the object index already locates is not stored again (no
//     request at all); one it does not know and must not write (a put op
//     without a source, a tree named by CommitTree) is looked up with
//     Stat, as stores written before the index need;
//   - objects smaller than objects.PackThreshold go into packs (one upload
//     each, usually one for the whole operation), larger ones are single
//     blobs (one conditional write each);
//   - objects marked last (a revision's manifest, which names the others)
//     travel in the final pack, uploaded only when everything else is
//     stored: a manifest never reaches the store before its trees and
//     blobs, so Recover never finds one whose objects are missing.
//
// The caller then records the upload in the object index in the same
// transaction that commits what uses it (record), deletes its packs if
// that transaction fails (discard), and releases the gc protection of its
// objects once the transaction is over (release). When recording it there
// would take that transaction past the engine's limits (etcd's, for a
// large commit), fitOrAhead records it first, in transactions of its own:
// the index then names objects that are stored but that no revision uses
// yet, which it may (gc's guard and grace period keep them), and discard
// takes them out of the index before it deletes a pack.
type upload struct {
	db      *DB
	objs    []*pendingObject
	byD     map[objects.Digest]*pendingObject
	guarded []objects.Digest

	mu      sync.Mutex
	packs   []objects.PackInfo
	singles []singleRecord
	ahead   bool // recorded ahead of the caller's transaction

	held      []objects.Digest // held in a shared engine (holds.go)
	heldEpoch uint64
}

// pendingObject is one object an operation needs stored.
type pendingObject struct {
	d    objects.Digest
	tag  byte
	size int64
	data []byte     // the content, when it is in memory
	src  BlobSource // else where to read it; with neither, it must be stored already
	what string     // the path (or kind) named in messages
	last bool       // stored after every other object
	// single stores the object as a blob of its own whatever its size,
	// for readers that read the store without the object index.
	single bool
	// healOnly stores the object only to replace a stored copy found
	// damaged (content a commit names again unchanged).
	healOnly bool
}

type singleRecord struct {
	d       objects.Digest
	size    int64
	tag     byte
	modTime time.Time
}

func (db *DB) newUpload() *upload {
	return &upload{db: db, byD: map[objects.Digest]*pendingObject{}}
}

// add queues an object and protects it from gc until release. An object
// queued twice is stored once; content given once is kept.
func (u *upload) add(o pendingObject) {
	if cur, ok := u.byD[o.d]; ok {
		if cur.data == nil && cur.src == nil {
			cur.data, cur.src = o.data, o.src
		}
		cur.last = cur.last || o.last
		cur.healOnly = cur.healOnly && o.healOnly
		return
	}
	p := &o
	u.objs = append(u.objs, p)
	u.byD[o.d] = p
	u.guarded = append(u.guarded, o.d)
	u.db.guard.protect(o.d)
}

// release ends the gc protection of the upload's objects.
func (u *upload) release() {
	u.db.guard.release(u.guarded...)
	u.guarded = nil
	if len(u.held) > 0 {
		u.db.dropHolds(context.Background(), u.held, u.heldEpoch)
		u.held = nil
	}
}

// run stores what the store lacks. Errors wrap ErrInvalid (bad content,
// a missing object that had to be stored) or ErrStore.
func (u *upload) run(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	locs := make([]indexEntry, len(u.objs))
	found := make([]bool, len(u.objs))
	err := u.db.view(ctx, func(tx kv.Reader) error {
		for i, o := range u.objs {
			var err error
			if locs[i], found[i], err = indexLocate(tx, o.d); err != nil {
				if errors.Is(err, kv.ErrUnavailable) {
					return err
				}
				return corruptf(u.db.where, "%v", err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if objects.IsLocal(u.db.raw) {
		u.checkCopies(ctx, locs, found)
	}
	if u.db.sharedHolds() {
		if err := u.holdReused(ctx, locs, found); err != nil {
			return err
		}
	}
	var small, last, large, lookups []*pendingObject
	rewrite := map[objects.Digest]bool{}
	for i, o := range u.objs {
		loc := locs[i]
		if o.healOnly && !(found[i] && loc.Damaged) {
			continue
		}
		if found[i] && !loc.Damaged {
			if o.tag == tagFile && loc.Length != o.size {
				return fmt.Errorf("%s: %w: it says %d bytes, the stored blob %s has %d", o.what, ErrInvalid, o.size, o.d.Short(), loc.Length)
			}
			continue
		}
		switch {
		case o.data == nil && o.src == nil && found[i]:
			// Stored, and known to be damaged: the revision names it as
			// any other, and fsck reports it until it is healed.
		case o.data == nil && o.src == nil:
			lookups = append(lookups, o)
		case o.size >= objects.PackThreshold || o.single:
			large = append(large, o)
			rewrite[o.d] = found[i] // a damaged single blob is replaced
		case o.last:
			last = append(last, o)
		default:
			small = append(small, o)
		}
	}
	if err := u.lookup(ctx, lookups); err != nil {
		return err
	}

	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(u.db.opts.UploadParallelism)
	for _, o := range large {
		g.Go(func() error { return u.putSingle(gctx, o, rewrite[o.d]) })
	}
	var cur []objects.PackObject
	var curSize int64
	for _, o := range small {
		if gctx.Err() != nil {
			break
		}
		data, err := u.content(gctx, o)
		if err != nil {
			g.Go(func() error { return err })
			break
		}
		if len(cur) > 0 && (curSize+int64(len(data)) > objects.MaxPackBytes || len(cur)+len(last) >= u.db.maxPackEntries()) {
			full := cur
			g.Go(func() error { return u.putPack(gctx, full) })
			cur, curSize = nil, 0
		}
		cur = append(cur, objects.PackObject{Digest: o.d, Tag: o.tag, Data: data})
		curSize += int64(len(data))
	}
	if len(last) == 0 {
		if len(cur) > 0 {
			g.Go(func() error { return u.putPack(gctx, cur) })
		}
		return g.Wait()
	}
	var lastSize int64
	for _, o := range last {
		lastSize += int64(len(o.data))
	}
	if len(cur) > 0 && curSize+lastSize > objects.MaxPackBytes {
		full := cur
		g.Go(func() error { return u.putPack(gctx, full) })
		cur = nil
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for _, o := range last {
		data, err := u.content(ctx, o)
		if err != nil {
			return err
		}
		cur = append(cur, objects.PackObject{Digest: o.d, Tag: o.tag, Data: data})
	}
	return u.putPack(ctx, cur)
}

// holdReused holds, in an engine other servers share, the objects the
// upload uses without storing them (holds.go), then looks them up in the
// index again: one a gc dropped meanwhile is stored again.
func (u *upload) holdReused(ctx context.Context, locs []indexEntry, found []bool) error {
	var ds []objects.Digest
	for i, o := range u.objs {
		if found[i] && !locs[i].Damaged || !found[i] && o.data == nil && o.src == nil {
			ds = append(ds, o.d)
		}
	}
	if len(ds) == 0 {
		return nil
	}
	epoch, err := u.db.placeHolds(ctx, ds)
	if err != nil {
		return err
	}
	u.held, u.heldEpoch = ds, epoch
	return u.db.view(ctx, func(tx kv.Reader) error {
		for i, o := range u.objs {
			if !found[i] {
				continue
			}
			var err error
			if locs[i], found[i], err = indexLocate(tx, o.d); err != nil {
				return err
			}
		}
		return nil
	})
}

// checkCopies reads back, on a local store, the stored copies of the
// objects the upload has content for: a copy that does not match its
// digest (or is gone) is stored again, which heals it. Reading a local
// copy costs less than the write it may save.
func (u *upload) checkCopies(ctx context.Context, locs []indexEntry, found []bool) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, u.db.opts.UploadParallelism)
	for i, o := range u.objs {
		if !found[i] || locs[i].Damaged || o.data == nil && o.src == nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			rc, err := u.db.store.Open(ctx, o.d, 0, -1)
			if err == nil {
				_, err = io.Copy(io.Discard, rc)
				rc.Close()
			}
			if err != nil && ctx.Err() == nil {
				u.db.log.Warn("meta: a stored copy is damaged or gone; storing the content again", "digest", o.d.String(), "err", err)
				locs[i].Damaged = true
			}
		}()
	}
	wg.Wait()
}

// lookup asks the store for objects the index does not know and that
// must be stored already, and indexes those it finds.
func (u *upload) lookup(ctx context.Context, objs []*pendingObject) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(u.db.opts.UploadParallelism)
	for _, o := range objs {
		g.Go(func() error {
			info, err := u.db.raw.Stat(gctx, o.d)
			switch {
			case errors.Is(err, objects.ErrNotFound):
				return fmt.Errorf("%s: %w: its %s %s is not in the object store", o.what, ErrInvalid, kindWord(o.tag), o.d.Short())
			case err != nil:
				return fmt.Errorf("%s: %w: %w", o.what, ErrStore, err)
			case o.tag == tagFile && info.Size != o.size:
				return fmt.Errorf("%s: %w: it says %d bytes, the stored blob %s has %d", o.what, ErrInvalid, o.size, o.d.Short(), info.Size)
			}
			u.mu.Lock()
			u.singles = append(u.singles, singleRecord{d: o.d, size: info.Size, tag: o.tag, modTime: info.ModTime})
			u.mu.Unlock()
			return nil
		})
	}
	return g.Wait()
}

func kindWord(tag byte) string {
	if tag == tagTree {
		return "tree"
	}
	return "content"
}

// content returns an object's bytes, read from its source and checked.
func (u *upload) content(ctx context.Context, o *pendingObject) ([]byte, error) {
	if o.data != nil || o.src == nil {
		return o.data, nil
	}
	rc, err := o.src(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: reading the content: %w", o.what, err)
	}
	defer rc.Close()
	buf := bytes.NewBuffer(make([]byte, 0, o.size+1))
	if _, err := io.Copy(buf, io.LimitReader(rc, o.size+1)); err != nil {
		return nil, fmt.Errorf("%s: reading the content: %w", o.what, err)
	}
	b := buf.Bytes()
	if int64(len(b)) != o.size || objects.Sum(b) != o.d {
		return nil, fmt.Errorf("%s: %w: %w: the content read is not the %d bytes of %s", o.what, ErrInvalid, objects.ErrDigestMismatch, o.size, o.d.Short())
	}
	return b, nil
}

func (u *upload) putSingle(ctx context.Context, o *pendingObject, replace bool) error {
	var r io.Reader
	if o.data != nil || o.src == nil {
		r = bytes.NewReader(o.data)
	} else {
		rc, err := o.src(ctx)
		if err != nil {
			return fmt.Errorf("%s: reading the content: %w", o.what, err)
		}
		defer rc.Close()
		r = rc
	}
	put := u.db.raw.Put
	if replace {
		put = func(ctx context.Context, d objects.Digest, r io.Reader, size int64) error {
			return objects.Rewrite(ctx, u.db.raw, d, r, size)
		}
	}
	if err := put(ctx, o.d, r, o.size); err != nil {
		if errors.Is(err, objects.ErrDigestMismatch) {
			return fmt.Errorf("%s: %w: %w", o.what, ErrInvalid, err)
		}
		return fmt.Errorf("%s: %w: %w", o.what, ErrStore, err)
	}
	u.mu.Lock()
	u.singles = append(u.singles, singleRecord{d: o.d, size: o.size, tag: o.tag, modTime: u.db.now().UTC()})
	u.mu.Unlock()
	return nil
}

func (u *upload) putPack(ctx context.Context, objs []objects.PackObject) error {
	p, err := objects.WritePack(ctx, u.db.raw, objs)
	if err != nil {
		if errors.Is(err, objects.ErrDigestMismatch) {
			return fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		return fmt.Errorf("%w: %w", ErrStore, err)
	}
	p.ModTime = u.db.now().UTC()
	u.mu.Lock()
	u.packs = append(u.packs, p)
	u.mu.Unlock()
	return nil
}

// record indexes what the upload stored, in the caller's transaction
// (nothing if fitOrAhead recorded it already).
func (u *upload) record(tx kv.Txn) error {
	if u.ahead {
		return nil
	}
	for _, p := range u.packs {
		if err := indexAddPack(tx, p); err != nil {
			return err
		}
	}
	for _, s := range u.singles {
		if err := indexAddSingle(tx, s.d, s.size, s.tag, s.modTime); err != nil {
			return err
		}
	}
	return nil
}

// commit records the upload in a transaction of its own (more than one if
// the engine's limits ask), for objects that an operation stores ahead of
// the transaction that uses them (WriteTree).
func (u *upload) commit(ctx context.Context) error {
	return u.db.indexInChunks(ctx, u.packs, u.singles)
}

// fitOrAhead records the upload ahead of the caller's transaction when
// recording it there, beside writes of its own of about otherBytes, would
// take that transaction past the engine's limits.
func (u *upload) fitOrAhead(ctx context.Context, otherBytes int) error {
	lim := u.db.eng.Limits()
	ops, size := u.recordSize()
	// Half the operations: the transaction also reads what it writes.
	if lim.Fits(2*(ops+8), size+otherBytes) {
		return nil
	}
	if err := u.commit(ctx); err != nil {
		return err
	}
	u.ahead = true
	return nil
}

// recordSize returns how many writes record makes, and about how many
// bytes they hold.
func (u *upload) recordSize() (ops, size int) {
	for _, p := range u.packs {
		ops += 1 + len(p.Entries)
		size += indexWriteOverhead + objects.DigestSize + 8 + len(p.Entries)*(objects.DigestSize+1+binary.MaxVarintLen64)
		size += len(p.Entries) * (indexWriteOverhead + objects.DigestSize + locRecordMax)
	}
	ops += len(u.singles)
	size += len(u.singles) * (indexWriteOverhead + objects.DigestSize + locRecordMax)
	return ops, size
}

// discardAfter is discard after the caller's transaction failed with err,
// unless err leaves it unknown whether the transaction was applied (then
// what it names must stay).
func (u *upload) discardAfter(ctx context.Context, err error, what string) {
	if errors.Is(err, kv.ErrUncertain) {
		u.db.log.Warn("meta: the engine failed after "+what+" was sent; its objects stay in the store", "err", err)
		u.packs = nil
		return
	}
	u.discard(ctx, what)
}

// discard deletes the packs of an upload whose transaction failed: nothing
// indexes them, and a pack holding a manifest would otherwise let Recover
// bring back an operation that never happened. Single blobs stay (another
// operation may be storing the same content); gc collects them.
func (u *upload) discard(ctx context.Context, what string) {
	if u.ahead {
		// The index names these packs' objects: take them out first, and
		// keep the packs if that fails (the index must never name a
		// deleted object; gc collects them later).
		ctx := context.WithoutCancel(ctx)
		for _, p := range u.packs {
			if _, err := u.db.unindexPack(ctx, p.Digest); err != nil {
				u.db.log.Warn("meta: could not take the packs of "+what+" out of the object index; gc will collect them", "pack", p.Digest.String(), "err", err)
				u.packs = nil
				return
			}
		}
	}
	for _, p := range u.packs {
		if err := u.db.raw.Delete(context.WithoutCancel(ctx), p.Digest); err != nil {
			u.db.log.Warn("meta: could not remove a pack of "+what, "pack", p.Digest.String(), "err", err)
		}
	}
	u.packs = nil
}
