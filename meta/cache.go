package meta

import (
	"container/list"
	"sync"

	"github.com/wsfs/wsfs/objects"
)

// treeCache keeps decoded trees by digest. Trees are immutable, so a cached
// tree is always right; callers outside the package get copies.
type treeCache struct {
	mu    sync.Mutex
	max   int
	ll    *list.List
	items map[objects.Digest]*list.Element
}

type treeCacheItem struct {
	d objects.Digest
	t *Tree
}

func newTreeCache(max int) *treeCache {
	return &treeCache{max: max, ll: list.New(), items: make(map[objects.Digest]*list.Element)}
}

func (c *treeCache) get(d objects.Digest) (*Tree, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[d]; ok {
		c.ll.MoveToFront(e)
		return e.Value.(*treeCacheItem).t, true
	}
	return nil, false
}

func (c *treeCache) add(d objects.Digest, t *Tree) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[d]; ok {
		c.ll.MoveToFront(e)
		return
	}
	c.items[d] = c.ll.PushFront(&treeCacheItem{d, t})
	for c.ll.Len() > c.max {
		e := c.ll.Back()
		c.ll.Remove(e)
		delete(c.items, e.Value.(*treeCacheItem).d)
	}
}

// gcGuard keeps GC from deleting blobs that a commit in flight relies on.
// A commit protects every digest it uploads or finds already stored before
// it checks or uploads it, and releases them after its transaction; a GC
// that runs meanwhile also keeps every digest protected while it runs.
// Check-and-delete in GC and protect in a commit take the same lock, so a
// blob is never deleted between a commit's existence check and its use.
type gcGuard struct {
	mu       sync.Mutex
	inflight map[objects.Digest]int
	seen     map[objects.Digest]struct{} // non-nil while a GC runs
}

func (g *gcGuard) protect(ds ...objects.Digest) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.inflight == nil {
		g.inflight = make(map[objects.Digest]int)
	}
	for _, d := range ds {
		g.inflight[d]++
		if g.seen != nil {
			g.seen[d] = struct{}{}
		}
	}
}

func (g *gcGuard) release(ds ...objects.Digest) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, d := range ds {
		if g.inflight[d] <= 1 {
			delete(g.inflight, d)
		} else {
			g.inflight[d]--
		}
	}
}

// startGC begins recording protected digests; it returns false if another
// GC is running.
func (g *gcGuard) startGC() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.seen != nil {
		return false
	}
	g.seen = make(map[objects.Digest]struct{}, len(g.inflight))
	for d := range g.inflight {
		g.seen[d] = struct{}{}
	}
	return true
}

func (g *gcGuard) endGC() {
	g.mu.Lock()
	g.seen = nil
	g.mu.Unlock()
}

// deleteUnlessProtected runs del unless a commit protected one of ds
// since the GC started (or protects it now); it reports whether del ran.
func (g *gcGuard) deleteUnlessProtected(ds []objects.Digest, del func() error) (bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, d := range ds {
		if _, ok := g.seen[d]; ok {
			return false, nil
		}
		if g.inflight[d] > 0 {
			return false, nil
		}
	}
	return true, del()
}
