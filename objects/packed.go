package objects

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// Location says where an object is stored: at Offset in the pack Pack, or,
// with a zero Pack, as a single blob of its own.
type Location struct {
	Pack    Digest
	Offset  int64
	Length  int64
	ModTime time.Time // when the object was stored
	// Damaged marks a copy found not to match its digest: reads still go
	// there (and fail), but a writer stores the object again.
	Damaged bool
}

// InPack reports whether the object is in a pack.
func (l Location) InPack() bool { return !l.Pack.IsZero() }

// Locator is an index from digest to location, kept beside a store that
// holds packs (meta keeps one in its database; MemoryLocator is for
// tests). Every method honours ctx.
type Locator interface {
	// Locate returns where d is stored; false means the index does not
	// know d (it may still be a single blob of the store).
	Locate(ctx context.Context, d Digest) (Location, bool, error)
	// Record adds a stored pack: every object in it is located there
	// from now on.
	Record(ctx context.Context, p PackInfo) error
	// Forget drops d from the index.
	Forget(ctx context.Context, d Digest) error
	// Damaged reports that the copy of d at loc does not match its digest:
	// the index marks it (Location.Damaged) so that the next write of d
	// stores a good copy, which then takes its place.
	Damaged(ctx context.Context, d Digest, loc Location) error
	// ForEach calls fn for every object the index locates in a pack.
	ForEach(ctx context.Context, fn func(d Digest, loc Location) error) error
	// IsPack reports whether the blob p is a pack the index knows.
	IsPack(ctx context.Context, p Digest) (bool, error)
}

// Packed is a Store over another store (the raw store) whose small objects
// may live in packs, found through a Locator:
//
//   - Open reads a packed object with one ranged read of its pack (the
//     raw store's read cache then keeps the pack), verifying a whole read
//     against the object's digest as every store does; other objects are
//     single blobs of the raw store. A damaged copy is reported to the
//     Locator (Damaged).
//   - Stat answers a packed object from the index; Put stores a single
//     blob (PutBatch packs small ones); Rewrite stores a single blob and
//     stops locating the object in its pack; Delete forgets a packed object
//     and deletes a single blob.
//   - List lists every object it can open: the packed ones and the raw
//     store's blobs that are not packs.
//
// Packs themselves are blobs of the raw store. Nothing here deletes a
// pack: that is the job of whoever keeps the Locator (meta's gc).
type Packed struct {
	raw   Store
	index Locator
}

var (
	_ Store    = (*Packed)(nil)
	_ Rewriter = (*Packed)(nil)
)

// NewPacked returns the packed view of raw, with index as its Locator.
func NewPacked(raw Store, index Locator) *Packed { return &Packed{raw: raw, index: index} }

// Raw returns the store underneath, where packs and single blobs live.
func (p *Packed) Raw() Store { return p.raw }

// Locator returns the store's index.
func (p *Packed) Locator() Locator { return p.index }

// String names the raw store in messages.
func (p *Packed) String() string { return fmt.Sprint(p.raw) }

// Close closes the raw store if it has a Close method.
func (p *Packed) Close() error {
	if c, ok := p.raw.(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}

// Put implements Store: it stores d as a single blob of the raw store.
func (p *Packed) Put(ctx context.Context, d Digest, r io.Reader, size int64) error {
	return p.raw.Put(ctx, d, r, size)
}

// Rewrite implements Rewriter: it rewrites d as a single blob of the raw
// store and stops locating d in a pack, so reads get the new copy.
func (p *Packed) Rewrite(ctx context.Context, d Digest, r io.Reader, size int64) error {
	if err := Rewrite(ctx, p.raw, d, r, size); err != nil {
		return err
	}
	loc, ok, err := p.index.Locate(ctx, d)
	if err != nil {
		return fmt.Errorf("objects: rewrite %s: %w", d.Short(), err)
	}
	if ok && loc.InPack() {
		if err := p.index.Forget(ctx, d); err != nil {
			return fmt.Errorf("objects: rewrite %s: %w", d.Short(), err)
		}
	}
	return nil
}

// PutBatch stores objs: those smaller than PackThreshold in packs (one
// upload per pack, in parallel), the others as single blobs, and records
// the packs in the Locator. It returns the packs it wrote.
func (p *Packed) PutBatch(ctx context.Context, objs []PackObject) ([]PackInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("objects: put: %w", err)
	}
	var small []PackObject
	seen := map[Digest]bool{}
	for _, o := range objs {
		if seen[o.Digest] {
			continue
		}
		seen[o.Digest] = true
		if Sum(o.Data) != o.Digest {
			return nil, fmt.Errorf("objects: put %s: %w: the %d bytes hash to %s", o.Digest.Short(), ErrDigestMismatch, len(o.Data), Sum(o.Data).Short())
		}
		if len(o.Data) < PackThreshold {
			small = append(small, o)
			continue
		}
		if err := p.raw.Put(ctx, o.Digest, bytes.NewReader(o.Data), int64(len(o.Data))); err != nil {
			return nil, err
		}
	}
	groups := SplitPacks(small)
	packs := make([]PackInfo, len(groups))
	errs := make([]error, len(groups))
	var wg sync.WaitGroup
	for i, g := range groups {
		wg.Go(func() { packs[i], errs[i] = WritePack(ctx, p.raw, g) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for _, pk := range packs {
		if err := p.index.Record(ctx, pk); err != nil {
			return nil, fmt.Errorf("objects: recording pack %s: %w", pk.Digest.Short(), err)
		}
	}
	return packs, nil
}

// Open implements Store.
func (p *Packed) Open(ctx context.Context, d Digest, off, length int64) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("objects: open %s: %w", d.Short(), err)
	}
	if off < 0 {
		return nil, fmt.Errorf("objects: open %s: negative offset %d", d.Short(), off)
	}
	loc, ok, err := p.index.Locate(ctx, d)
	if err != nil {
		return nil, fmt.Errorf("objects: open %s: %w", d.Short(), err)
	}
	if !ok || !loc.InPack() {
		rc, err := p.raw.Open(ctx, d, off, length)
		if err != nil || off != 0 { // only whole reads are verified
			return rc, err
		}
		return p.report(ctx, rc, d, Location{}), nil
	}
	whole := IsWholeRange(off, length, loc.Length)
	start, n := ClipRange(off, length, loc.Length)
	if n == 0 {
		if whole { // the empty object: its digest says whether it is one
			return p.report(ctx, VerifyingReader(io.NopCloser(bytes.NewReader(nil)), d, 0), d, loc), nil
		}
		return io.NopCloser(bytes.NewReader(nil)), nil
	}
	rc, err := p.raw.Open(ctx, loc.Pack, loc.Offset+start, n)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("objects: open %s: its pack %s is missing: %w", d.Short(), loc.Pack.Short(), ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("objects: open %s in pack %s: %w", d.Short(), loc.Pack.Short(), err)
	}
	exact := &exactReader{ReadCloser: rc, left: n, d: d, pack: loc.Pack}
	if whole {
		return p.report(ctx, VerifyingReader(exact, d, loc.Length), d, loc), nil
	}
	return exact, nil
}

func (p *Packed) report(ctx context.Context, rc io.ReadCloser, d Digest, loc Location) io.ReadCloser {
	return &damageReporter{ReadCloser: rc, ctx: ctx, p: p, d: d, loc: loc}
}

// damageReporter tells the Locator about a copy found damaged by a whole,
// verified read.
type damageReporter struct {
	io.ReadCloser
	ctx  context.Context
	p    *Packed
	d    Digest
	loc  Location
	once sync.Once
}

func (r *damageReporter) Read(b []byte) (int, error) {
	n, err := r.ReadCloser.Read(b)
	if err != nil && errors.Is(err, ErrCorrupt) {
		r.once.Do(func() {
			if derr := r.p.index.Damaged(context.WithoutCancel(r.ctx), r.d, r.loc); derr != nil {
				err = fmt.Errorf("%w (and recording the damage failed: %v)", err, derr)
			}
		})
		if r.loc.InPack() {
			err = fmt.Errorf("%w; it is in pack %s: %s", err, r.loc.Pack.Short(), damageAdvice)
		}
	}
	return n, err
}

// exactReader reads a range of a pack that must be exactly left bytes
// long: a pack shorter than its index says is damaged, not short.
type exactReader struct {
	io.ReadCloser
	left int64
	d    Digest
	pack Digest
}

func (r *exactReader) Read(b []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(b)) > r.left {
		b = b[:r.left]
	}
	n, err := r.ReadCloser.Read(b)
	r.left -= int64(n)
	if err == io.EOF && r.left > 0 {
		return n, fmt.Errorf("%w: object %s: its pack %s ends %d bytes early", ErrCorrupt, r.d.Short(), r.pack.Short(), r.left)
	}
	if err == nil && r.left == 0 {
		err = io.EOF
	}
	return n, err
}

// Stat implements Store.
func (p *Packed) Stat(ctx context.Context, d Digest) (Info, error) {
	if err := ctx.Err(); err != nil {
		return Info{}, fmt.Errorf("objects: stat %s: %w", d.Short(), err)
	}
	loc, ok, err := p.index.Locate(ctx, d)
	if err != nil {
		return Info{}, fmt.Errorf("objects: stat %s: %w", d.Short(), err)
	}
	if ok && loc.InPack() {
		return Info{Digest: d, Size: loc.Length, ModTime: loc.ModTime}, nil
	}
	return p.raw.Stat(ctx, d)
}

// Delete implements Store: a packed object is forgotten (its pack stays
// until gc collects it), a single blob deleted.
func (p *Packed) Delete(ctx context.Context, d Digest) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("objects: delete %s: %w", d.Short(), err)
	}
	loc, ok, err := p.index.Locate(ctx, d)
	if err != nil {
		return fmt.Errorf("objects: delete %s: %w", d.Short(), err)
	}
	if ok {
		if err := p.index.Forget(ctx, d); err != nil {
			return fmt.Errorf("objects: delete %s: %w", d.Short(), err)
		}
	}
	if ok && loc.InPack() {
		return nil
	}
	return p.raw.Delete(ctx, d)
}

// List implements Store: packed objects first, then the raw store's blobs
// that are neither packs nor listed already.
func (p *Packed) List(ctx context.Context, fn func(Info) error) error {
	seen := map[Digest]bool{}
	err := p.index.ForEach(ctx, func(d Digest, loc Location) error {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("objects: list: %w", err)
		}
		if !loc.InPack() || seen[d] {
			return nil
		}
		seen[d] = true
		return fn(Info{Digest: d, Size: loc.Length, ModTime: loc.ModTime})
	})
	if err != nil {
		return err
	}
	return p.raw.List(ctx, func(info Info) error {
		if seen[info.Digest] {
			return nil
		}
		pack, err := p.index.IsPack(ctx, info.Digest)
		if err != nil {
			return fmt.Errorf("objects: list: %w", err)
		}
		if pack {
			return nil
		}
		return fn(info)
	})
}

// MemoryLocator is a Locator in memory, for tests and for tools that read
// a store of packs without a database.
type MemoryLocator struct {
	mu    sync.Mutex
	locs  map[Digest]Location
	packs map[Digest]bool
}

var _ Locator = (*MemoryLocator)(nil)

// NewMemoryLocator returns an empty MemoryLocator.
func NewMemoryLocator() *MemoryLocator {
	return &MemoryLocator{locs: map[Digest]Location{}, packs: map[Digest]bool{}}
}

// Locate implements Locator.
func (m *MemoryLocator) Locate(ctx context.Context, d Digest) (Location, bool, error) {
	if err := ctx.Err(); err != nil {
		return Location{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	loc, ok := m.locs[d]
	return loc, ok, nil
}

// Record implements Locator.
func (m *MemoryLocator) Record(ctx context.Context, p PackInfo) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.packs[p.Digest] = true
	for _, e := range p.Entries {
		m.locs[e.Digest] = Location{Pack: p.Digest, Offset: e.Offset, Length: e.Length, ModTime: p.ModTime}
	}
	return nil
}

// Set locates d at loc, as a test that damages a pack needs.
func (m *MemoryLocator) Set(d Digest, loc Location) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.locs[d] = loc
}

// Forget implements Locator.
func (m *MemoryLocator) Forget(ctx context.Context, d Digest) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.locs, d)
	return nil
}

// Damaged implements Locator. A single blob (zero loc.Pack) it does not
// locate is recorded as a damaged single blob.
func (m *MemoryLocator) Damaged(ctx context.Context, d Digest, loc Location) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.locs[d]
	if ok && (cur.Pack != loc.Pack || cur.Offset != loc.Offset) {
		return nil // located elsewhere since the read began
	}
	if !ok {
		cur = loc
	}
	cur.Damaged = true
	m.locs[d] = cur
	return nil
}

// ForEach implements Locator. It works on a snapshot, so fn may call the
// locator.
func (m *MemoryLocator) ForEach(ctx context.Context, fn func(Digest, Location) error) error {
	m.mu.Lock()
	snap := make(map[Digest]Location, len(m.locs))
	for d, l := range m.locs {
		snap[d] = l
	}
	m.mu.Unlock()
	for d, l := range snap {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(d, l); err != nil {
			return err
		}
	}
	return nil
}

// IsPack implements Locator.
func (m *MemoryLocator) IsPack(ctx context.Context, p Digest) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.packs[p], nil
}
