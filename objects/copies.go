package objects

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Copies is a read-only Store over a folder of files each named by the
// 64-hex digest of its content, as a mount keeps verified copies of blobs
// in its spool: a place to find good copies when repairing a store. Reads
// are verified like any store's; Put and Delete refuse.
type Copies struct{ dir string }

var _ Store = (*Copies)(nil)

// OpenCopies opens the folder dir (which must exist) as Copies.
func OpenCopies(dir string) (*Copies, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("objects: copies in %s: %w", dir, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("objects: copies in %s: not a folder", dir)
	}
	return &Copies{dir: dir}, nil
}

// String names the folder in messages.
func (c *Copies) String() string { return "the copies in " + c.dir }

func (c *Copies) path(d Digest) string { return filepath.Join(c.dir, d.String()) }

var errReadOnly = errors.New("objects: a folder of copies is read-only")

// Put implements Store: it refuses.
func (c *Copies) Put(ctx context.Context, d Digest, r io.Reader, size int64) error {
	return fmt.Errorf("objects: put %s: %w", d.Short(), errReadOnly)
}

// Delete implements Store: it refuses.
func (c *Copies) Delete(ctx context.Context, d Digest) error {
	return fmt.Errorf("objects: delete %s: %w", d.Short(), errReadOnly)
}

// Open implements Store.
func (c *Copies) Open(ctx context.Context, d Digest, off, length int64) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("objects: open %s: %w", d.Short(), err)
	}
	if off < 0 {
		return nil, fmt.Errorf("objects: open %s: negative offset %d", d.Short(), off)
	}
	f, err := os.Open(c.path(d))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("objects: open %s in %s: %w", d.Short(), c.dir, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("objects: open %s in %s: %w", d.Short(), c.dir, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("objects: open %s: %w", d.Short(), err)
	}
	return serveFile(ctx, f, d, info.Size(), off, length)
}

// Stat implements Store.
func (c *Copies) Stat(ctx context.Context, d Digest) (Info, error) {
	if err := ctx.Err(); err != nil {
		return Info{}, fmt.Errorf("objects: stat %s: %w", d.Short(), err)
	}
	info, err := os.Stat(c.path(d))
	if errors.Is(err, fs.ErrNotExist) {
		return Info{}, fmt.Errorf("objects: stat %s in %s: %w", d.Short(), c.dir, ErrNotFound)
	}
	if err != nil {
		return Info{}, fmt.Errorf("objects: stat %s in %s: %w", d.Short(), c.dir, err)
	}
	return Info{Digest: d, Size: info.Size(), ModTime: info.ModTime()}, nil
}

// List implements Store: files whose names are not digests are skipped.
func (c *Copies) List(ctx context.Context, fn func(Info) error) error {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return fmt.Errorf("objects: list %s: %w", c.dir, err)
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("objects: list %s: %w", c.dir, err)
		}
		d, err := ParseDigest(e.Name())
		if err != nil || d.String() != e.Name() || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("objects: list %s: %w", c.dir, err)
		}
		if err := fn(Info{Digest: d, Size: info.Size(), ModTime: info.ModTime()}); err != nil {
			return err
		}
	}
	return nil
}
