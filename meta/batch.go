package meta

import (
	"context"
	"sync"

	"github.com/wsfs/wsfs/objects"
)

// Batch holds the new objects of a commit that a layer builds itself (a
// mount: the contents of the files it wrote and the trees of the
// directories it changed), so that CommitBatch stores them together with
// the revision's manifest: one upload (a pack) for a commit of small
// files, instead of one request per object. Nothing reaches the store
// before CommitBatch, which stores only what the committed tree names and
// the store lacks. A Batch serves one commit; it is safe for concurrent
// use. Close it if CommitBatch is never called.
type Batch struct {
	db      *DB
	mu      sync.Mutex
	blobs   map[objects.Digest]pendingObject
	trees   map[objects.Digest]pendingObject
	decoded []cachedTree
}

// NewBatch returns an empty batch for a CommitBatch on db.
func (db *DB) NewBatch() *Batch {
	return &Batch{db: db, blobs: map[objects.Digest]pendingObject{}, trees: map[objects.Digest]pendingObject{}}
}

// PutBlob adds a file's content: size bytes hashing to d, read from src
// if the store lacks them. src must give the same bytes until CommitBatch
// returns.
func (b *Batch) PutBlob(d objects.Digest, size int64, src BlobSource) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.blobs[d] = pendingObject{d: d, tag: tagFile, size: size, src: src}
}

// WriteTree validates t as DB.WriteTree does and adds it to the batch,
// returning its digest. A directory entry may name a tree of the batch.
// Until CommitBatch or Close, the batch's trees read as stored trees
// through the DB (ReadTree, LookupTree), so a layer may look at what it
// is about to commit.
func (b *Batch) WriteTree(ctx context.Context, t *Tree) (objects.Digest, error) {
	return b.db.writeTree(ctx, t, b)
}

func (b *Batch) addTree(d objects.Digest, enc []byte, t *Tree) {
	b.mu.Lock()
	_, had := b.trees[d]
	b.trees[d] = pendingObject{d: d, tag: tagTree, size: int64(len(enc)), data: enc}
	if !had {
		b.decoded = append(b.decoded, cachedTree{d, t})
	}
	b.mu.Unlock()
	if !had {
		b.db.pending.add(d, t)
	}
}

// cacheTrees puts the batch's trees in the DB's tree cache, once they are
// stored, so that the next commit on top of them reads none of them back.
func (b *Batch) cacheTrees() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ct := range b.decoded {
		b.db.trees.add(ct.d, ct.t)
	}
}

type cachedTree struct {
	d objects.Digest
	t *Tree
}

// blobList returns the batch's file contents.
func (b *Batch) blobList() []pendingObject {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]pendingObject, 0, len(b.blobs))
	for _, o := range b.blobs {
		out = append(out, o)
	}
	return out
}

// Close forgets the batch's trees. CommitBatch closes the batch itself.
func (b *Batch) Close() {
	b.mu.Lock()
	trees := b.trees
	b.trees = map[objects.Digest]pendingObject{}
	b.mu.Unlock()
	for d := range trees {
		b.db.pending.remove(d)
	}
}

// object returns the batch's object d.
func (b *Batch) object(d objects.Digest) (pendingObject, bool) {
	if b == nil {
		return pendingObject{}, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if o, ok := b.trees[d]; ok {
		return o, true
	}
	o, ok := b.blobs[d]
	return o, ok
}

// pendingTrees are the trees of open batches, which readTree serves
// before they are stored. Several batches may hold the same tree.
type pendingTrees struct {
	mu    sync.Mutex
	trees map[objects.Digest]*pendingTree
}

type pendingTree struct {
	t    *Tree
	refs int
}

func (p *pendingTrees) add(d objects.Digest, t *Tree) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.trees == nil {
		p.trees = map[objects.Digest]*pendingTree{}
	}
	if pt, ok := p.trees[d]; ok {
		pt.refs++
		return
	}
	p.trees[d] = &pendingTree{t: t, refs: 1}
}

func (p *pendingTrees) remove(d objects.Digest) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pt, ok := p.trees[d]; ok {
		if pt.refs--; pt.refs <= 0 {
			delete(p.trees, d)
		}
	}
}

func (p *pendingTrees) get(d objects.Digest) (*Tree, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pt, ok := p.trees[d]
	if !ok {
		return nil, false
	}
	return pt.t, true
}
