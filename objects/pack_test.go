package objects_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/objects/objectstest"
)

// The conformance suite on packed stores: every blob put lands in a pack
// (or, from objects.PackThreshold, in a single blob) of a memory store, a
// folder store and a read cache; the S3 store runs it in objects/s3.
func TestPackedMemoryConformance(t *testing.T) {
	objectstest.Run(t, func(t *testing.T) objects.Store { return objectstest.Packed(objects.NewMemory(), nil) })
}

func TestPackedDirConformance(t *testing.T) {
	objectstest.Run(t, func(t *testing.T) objects.Store { return objectstest.Packed(openDir(t, t.TempDir()), tamperDir) })
}

func TestPackedCacheConformance(t *testing.T) {
	objectstest.Run(t, func(t *testing.T) objects.Store {
		return objectstest.Packed(newCache(t, objects.NewMemory(), 8<<20), tamperCache)
	})
}

func packObjects(n int, size func(i int) int) []objects.PackObject {
	objs := make([]objects.PackObject, n)
	for i := range objs {
		b := objectstest.Content(uint64(i+1), size(i))
		objs[i] = objects.PackObject{Digest: objects.Sum(b), Tag: byte(i % 5), Data: b}
	}
	return objs
}

func TestPackRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 2, 100, 3000} {
		objs := packObjects(n, func(i int) int { return 1 + i%700 })
		b, entries, err := objects.EncodePack(objs)
		if err != nil {
			t.Fatal(err)
		}
		if !objects.IsPackHead(b) {
			t.Fatal("a pack does not start with the pack magic")
		}
		p, bad, err := objects.VerifyPack(b)
		if err != nil || len(bad) != 0 {
			t.Fatalf("%d objects: VerifyPack = %v, %d bad", n, err, len(bad))
		}
		if p.Size != int64(len(b)) || len(p.Entries) != n {
			t.Fatalf("%d objects: index says size %d, %d entries; pack has %d bytes", n, p.Size, len(p.Entries), len(b))
		}
		for i, e := range p.Entries {
			if e != entries[i] || e.Digest != objs[i].Digest || e.Tag != objs[i].Tag ||
				!bytes.Equal(b[e.Offset:e.Offset+e.Length], objs[i].Data) {
				t.Fatalf("%d objects: entry %d = %+v, want %+v", n, i, e, entries[i])
			}
		}
		// The index alone, read from a store in ranged reads.
		st := &countingStore{Store: objects.NewMemory()}
		pd, _ := objects.PutBytes(t.Context(), st, b)
		st.opens.Store(0)
		got, err := objects.ReadPackIndex(t.Context(), st, pd)
		if err != nil || len(got.Entries) != n || got.DataStart != p.DataStart {
			t.Fatalf("%d objects: ReadPackIndex = %+v, %v", n, got, err)
		}
		want := int64(1)
		if p.DataStart > 64<<10 {
			want = 2 // a large index takes a second read
		}
		if o := st.opens.Load(); o != want {
			t.Errorf("%d objects: ReadPackIndex took %d reads, want %d", n, o, want)
		}
	}
}

func TestPackRefusesBadInput(t *testing.T) {
	b := []byte("hello")
	if _, _, err := objects.EncodePack([]objects.PackObject{{Digest: objects.Sum([]byte("other")), Data: b}}); !errors.Is(err, objects.ErrDigestMismatch) {
		t.Fatalf("EncodePack of bytes that do not hash to their digest = %v", err)
	}
	o := objects.PackObject{Digest: objects.Sum(b), Data: b}
	if _, _, err := objects.EncodePack([]objects.PackObject{o, o}); err == nil {
		t.Fatal("EncodePack of an object twice succeeded")
	}
}

// TestPackDamage damages a pack's bytes: an index byte makes the index
// refuse to decode; a data byte damages that object alone.
func TestPackDamage(t *testing.T) {
	objs := packObjects(10, func(i int) int { return 100 + i })
	b, entries, err := objects.EncodePack(objs)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < int(entries[0].Offset); i++ {
		c := bytes.Clone(b)
		c[i] ^= 0x01
		if _, err := objects.DecodePack(c); !errors.Is(err, objects.ErrBadPack) {
			t.Fatalf("flipped header byte %d: DecodePack = %v, want ErrBadPack", i, err)
		}
	}
	for _, cut := range []int{0, 5, 11, int(entries[0].Offset) - 1, int(entries[0].Offset), len(b) - 1} {
		if _, err := objects.DecodePack(b[:cut]); !errors.Is(err, objects.ErrBadPack) {
			t.Fatalf("pack cut to %d bytes: DecodePack = %v, want ErrBadPack", cut, err)
		}
	}
	if _, err := objects.DecodePack(append(bytes.Clone(b), 0)); !errors.Is(err, objects.ErrBadPack) {
		t.Fatalf("pack with a byte appended: DecodePack = %v, want ErrBadPack", err)
	}
	c := bytes.Clone(b)
	c[entries[3].Offset+7] ^= 0x80
	_, bad, err := objects.VerifyPack(c)
	if err != nil || len(bad) != 1 || bad[0].Digest != objs[3].Digest {
		t.Fatalf("one damaged object: VerifyPack = %v, bad %v", err, bad)
	}
}

// recordingLocator records what a Packed store reports as damaged.
type recordingLocator struct {
	*objects.MemoryLocator
	damaged []objects.Digest
}

func (r *recordingLocator) Damaged(ctx context.Context, d objects.Digest, loc objects.Location) error {
	r.damaged = append(r.damaged, d)
	return r.MemoryLocator.Damaged(ctx, d, loc)
}

// TestPackedReads checks the packed view of a store: one ranged read per
// object, whole reads verified, damage confined to the damaged object and
// reported to the locator, a missing pack reported as not found.
func TestPackedReads(t *testing.T) {
	ctx := t.Context()
	raw := objects.NewMemory()
	counting := &countingStore{Store: raw}
	loc := &recordingLocator{MemoryLocator: objects.NewMemoryLocator()}
	p := objects.NewPacked(counting, loc)
	objs := packObjects(50, func(i int) int { return 1000 + i })
	objs = append(objs, objects.PackObject{Digest: objects.Sum(nil)}) // the empty object
	big := objectstest.Content(99, objects.PackThreshold)
	objs = append(objs, objects.PackObject{Digest: objects.Sum(big), Data: big})
	packs, err := p.PutBatch(ctx, objs)
	if err != nil {
		t.Fatal(err)
	}
	if len(packs) != 1 || len(packs[0].Entries) != 51 {
		t.Fatalf("PutBatch wrote %d packs (%+v), want one of 51 objects (the large one is single)", len(packs), packs)
	}
	if raw.Len() != 2 {
		t.Fatalf("the raw store holds %d blobs, want the pack and the large blob", raw.Len())
	}
	for _, o := range objs {
		counting.opens.Store(0)
		got, err := objects.Get(ctx, p, o.Digest)
		if err != nil || !bytes.Equal(got, o.Data) {
			t.Fatalf("Get %s: %d bytes, %v", o.Digest.Short(), len(got), err)
		}
		if n := counting.opens.Load(); n > 1 || n == 0 && len(o.Data) > 0 {
			t.Fatalf("Get of a %d-byte object took %d reads, want 1", len(o.Data), n)
		}
		rc, err := p.Open(ctx, o.Digest, 3, 10)
		if err != nil {
			t.Fatal(err)
		}
		part, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(part, o.Data[min(3, len(o.Data)):min(13, len(o.Data))]) {
			t.Fatalf("range of %s: %q, %v", o.Digest.Short(), part, err)
		}
	}
	n := 0
	if err := p.List(ctx, func(objects.Info) error { n++; return nil }); err != nil || n != len(objs) {
		t.Fatalf("List gave %d objects, %v; want %d (packs themselves are not listed)", n, err, len(objs))
	}

	// Damage one object's bytes inside the pack.
	pack := packs[0]
	pb, _ := objects.Get(ctx, raw, pack.Digest)
	victim := pack.Entries[7]
	pb[victim.Offset+victim.Length-1] ^= 0x55
	if err := raw.Tamper(ctx, pack.Digest, pb); err != nil {
		t.Fatal(err)
	}
	if _, err := objects.Get(ctx, p, victim.Digest); !errors.Is(err, objects.ErrCorrupt) {
		t.Fatalf("Get of a damaged packed object = %v, want ErrCorrupt", err)
	}
	if len(loc.damaged) != 1 || loc.damaged[0] != victim.Digest {
		t.Fatalf("damage reported for %v, want %s", loc.damaged, victim.Digest.Short())
	}
	for _, e := range pack.Entries {
		if e.Digest == victim.Digest {
			continue
		}
		if _, err := objects.Get(ctx, p, e.Digest); err != nil {
			t.Fatalf("an intact object of a damaged pack: %v", err)
		}
	}
	// Truncate the pack: objects past the end are damaged, not short.
	if err := raw.Tamper(ctx, pack.Digest, pb[:pack.Entries[40].Offset+3]); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{40, 45} {
		e := pack.Entries[i]
		if _, err := objects.Get(ctx, p, e.Digest); !errors.Is(err, objects.ErrCorrupt) {
			t.Fatalf("Get of an object past the end of a cut pack = %v, want ErrCorrupt", err)
		}
		rc, err := p.Open(ctx, e.Digest, 1, 5)
		if err == nil {
			_, err = io.ReadAll(rc)
			rc.Close()
		}
		if !errors.Is(err, objects.ErrCorrupt) && !errors.Is(err, objects.ErrNotFound) {
			t.Fatalf("a range past the end of a cut pack = %v, want ErrCorrupt", err)
		}
	}
	// A missing pack: its objects are not found.
	if err := raw.Delete(ctx, pack.Digest); err != nil {
		t.Fatal(err)
	}
	if _, err := objects.Get(ctx, p, pack.Entries[0].Digest); !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("Get from a missing pack = %v, want ErrNotFound", err)
	}
}

// TestPutBatchSplits checks that a batch too large for one pack is split
// into packs within the limits.
func TestPutBatchSplits(t *testing.T) {
	ctx := t.Context()
	raw := objects.NewMemory()
	p := objects.NewPacked(raw, objects.NewMemoryLocator())
	objs := packObjects(80, func(int) int { return 300 << 10 }) // 24 MiB in all
	packs, err := p.PutBatch(ctx, objs)
	if err != nil {
		t.Fatal(err)
	}
	if len(packs) < 3 {
		t.Fatalf("%d packs for 24 MiB, want at least 3", len(packs))
	}
	for _, pk := range packs {
		if pk.Size > objects.MaxPackBytes+64<<10 {
			t.Fatalf("a pack of %d bytes, over the limit of %d", pk.Size, objects.MaxPackBytes)
		}
	}
	for _, o := range objs {
		if _, err := objects.Get(ctx, p, o.Digest); err != nil {
			t.Fatal(err)
		}
	}
}

func FuzzPackHead(f *testing.F) {
	b, _, _ := objects.EncodePack(packObjects(3, func(i int) int { return i * 10 }))
	f.Add(b)
	f.Add([]byte("wsfs-pack1\n"))
	f.Add([]byte("wsfs-pack1\n\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, bad, err := objects.VerifyPack(b)
		if err != nil {
			if !errors.Is(err, objects.ErrBadPack) {
				t.Fatalf("VerifyPack error %v does not wrap ErrBadPack", err)
			}
			return
		}
		if p.Size != int64(len(b)) {
			t.Fatalf("accepted a pack of %d bytes whose index says %d", len(b), p.Size)
		}
		_ = bad
		st := objects.NewMemory()
		d, _ := objects.PutBytes(t.Context(), st, b)
		q, err := objects.ReadPackIndex(t.Context(), st, d)
		if err != nil || fmt.Sprint(q.Entries) != fmt.Sprint(p.Entries) {
			t.Fatalf("ReadPackIndex = %v, %v; VerifyPack said %v", q, err, p)
		}
	})
}

// TestPackedCacheConfinesDamage: through a read cache, an object of a
// pack with another object damaged still reads (the cache cannot keep the
// damaged pack, and serves the range from the remote instead).
func TestPackedCacheConfinesDamage(t *testing.T) {
	ctx := t.Context()
	remote := objects.NewMemory()
	p := objects.NewPacked(newCache(t, remote, 8<<20), objects.NewMemoryLocator())
	objs := packObjects(5, func(i int) int { return 100 + i })
	packs, err := p.PutBatch(ctx, objs)
	if err != nil {
		t.Fatal(err)
	}
	pb, _ := objects.Get(ctx, remote, packs[0].Digest)
	bad := packs[0].Entries[1]
	pb[bad.Offset] ^= 1
	remote.Tamper(ctx, packs[0].Digest, pb)
	// A fresh cache over the damaged remote.
	p = objects.NewPacked(newCache(t, remote, 8<<20), p.Locator())
	for i, o := range objs {
		got, err := objects.Get(ctx, p, o.Digest)
		if i == 1 {
			if !errors.Is(err, objects.ErrCorrupt) {
				t.Fatalf("the damaged object: %v, want ErrCorrupt", err)
			}
			continue
		}
		if err != nil || !bytes.Equal(got, o.Data) {
			t.Fatalf("object %d of a pack with another object damaged: %v", i, err)
		}
	}
}
