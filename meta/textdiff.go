package meta

import (
	"bytes"
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/wsfs/wsfs/internal/linediff"
	"github.com/wsfs/wsfs/objects"
)

// textDiff fills d.Unified (or d.Binary) for a file diff: GNU diff -u's
// output (internal/linediff), with a/ and b/ before the path.
func (db *DB) textDiff(ctx context.Context, d *FileDiff, opts DiffOptions) error {
	isFile := func(e *Entry) bool { return e == nil || e.Kind == KindFile }
	if !isFile(d.Old) || !isFile(d.New) || (d.Old == nil && d.New == nil) {
		return nil
	}
	if d.Old != nil && d.New != nil && d.Old.Digest == d.New.Digest {
		return nil // mode or mtime only
	}
	max := opts.MaxTextBytes
	if max <= 0 {
		max = 1 << 20
	}
	read := func(e *Entry) ([]byte, bool, error) {
		if e == nil {
			return nil, true, nil
		}
		if e.Size > max {
			return nil, false, nil
		}
		b, err := objects.Get(ctx, db.store, e.Digest)
		if err != nil {
			return nil, false, fmt.Errorf("meta: diff %s: %w", d.Path, err)
		}
		return b, isText(b), nil
	}
	a, okA, err := read(d.Old)
	if err != nil {
		return err
	}
	b, okB, err := read(d.New)
	if err != nil {
		return err
	}
	if !okA || !okB {
		d.Binary = true
		return nil
	}
	ctxLines := opts.Context
	if ctxLines <= 0 {
		ctxLines = 3
	}
	from, to := "a/"+d.Path, "b/"+d.Path
	if d.Old == nil {
		from = "/dev/null"
	}
	if d.New == nil {
		to = "/dev/null"
	}
	d.Unified = linediff.Unified(from, to, a, b, ctxLines)
	return nil
}

func isText(b []byte) bool {
	return bytes.IndexByte(b, 0) < 0 && utf8.Valid(b)
}
