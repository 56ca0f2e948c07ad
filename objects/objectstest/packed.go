package objectstest

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/wsfs/wsfs/objects"
)

// Packed returns a store over raw whose every Put goes through
// objects.Packed.PutBatch with a MemoryLocator of its own: a blob smaller
// than objects.PackThreshold lands in a pack of its own, a larger one is a
// single blob of raw. Run on it, the suite checks the pack format, ranged
// reads of packs, verification of packed objects and the Locator against
// the same contract as any store:
//
//	objectstest.Run(t, func(t *testing.T) objects.Store {
//		return objectstest.Packed(newRawStore(t), nil)
//	})
//
// The store is a Tamperer: it damages a packed blob inside its pack (the
// object's bytes replaced, the locator updated to the damaged length, as
// an index rebuilt from a damaged pack would say) and a single blob with
// tamper (nil: raw must be a Tamperer).
func Packed(raw objects.Store, tamper TamperFunc) objects.Store {
	if tamper == nil {
		tamper = func(ctx context.Context, s objects.Store, d objects.Digest, content []byte) error {
			t, ok := s.(Tamperer)
			if !ok {
				return fmt.Errorf("the store %T cannot be tampered with: pass a TamperFunc to objectstest.Packed", s)
			}
			return t.Tamper(ctx, d, content)
		}
	}
	loc := objects.NewMemoryLocator()
	return &packedStore{Packed: objects.NewPacked(raw, loc), raw: raw, loc: loc, tamper: tamper}
}

type packedStore struct {
	*objects.Packed
	raw    objects.Store
	loc    *objects.MemoryLocator
	tamper TamperFunc
}

// Put reads the blob, checks it as every store must, and stores it
// through PutBatch.
func (s *packedStore) Put(ctx context.Context, d objects.Digest, r io.Reader, size int64) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("objectstest: put %s: %w", d.Short(), err)
	}
	if size < 0 {
		return fmt.Errorf("objectstest: put %s: negative size %d: %w", d.Short(), size, objects.ErrDigestMismatch)
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(r, size+1)); err != nil {
		return fmt.Errorf("objectstest: put %s: %w", d.Short(), err)
	}
	if err := ctx.Err(); err != nil { // cancelled while the bytes were read
		return fmt.Errorf("objectstest: put %s: %w", d.Short(), err)
	}
	if int64(buf.Len()) != size || objects.Sum(buf.Bytes()) != d {
		return fmt.Errorf("objectstest: put %s: %w", d.Short(), objects.ErrDigestMismatch)
	}
	_, err := s.PutBatch(ctx, []objects.PackObject{{Digest: d, Data: buf.Bytes()}})
	return err
}

// Tamper implements Tamperer.
func (s *packedStore) Tamper(ctx context.Context, d objects.Digest, content []byte) error {
	l, ok, err := s.loc.Locate(ctx, d)
	if err != nil {
		return err
	}
	if !ok || !l.InPack() {
		return s.tamper(ctx, s.raw, d, content)
	}
	pack, err := objects.Get(ctx, s.raw, l.Pack)
	if err != nil {
		return err
	}
	damaged := append(append(bytes.Clone(pack[:l.Offset]), content...), pack[l.Offset+l.Length:]...)
	if err := s.tamper(ctx, s.raw, l.Pack, damaged); err != nil {
		return err
	}
	l.Length = int64(len(content))
	s.loc.Set(d, l)
	return nil
}
