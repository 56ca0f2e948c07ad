package objects

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// TempGrace is how old a temporary file must be before OpenDir removes it.
// A younger one may belong to a Put still running in another process.
const TempGrace = time.Hour

const tempSuffix = ".tmp"

// Dir is the local folder store, the embedded default. Its layout under the
// folder is:
//
//	blobs/<2 hex>/<64 hex>   one read-only file per blob
//	tmp/                     blobs being written
//
// Put writes a temporary file in tmp/ (inside the folder, so on the same
// file system), hashes and counts the bytes while writing, fsyncs it,
// renames it into place and fsyncs the shard folder. A blob therefore
// appears under its name complete or not at all, even if the process is
// killed; two writers of the same digest both rename identical content, so
// either may win. Keeping temporary files out of blobs/ means List never
// sees them, and cleaning them up reads one folder instead of 256.
//
// Put of a blob already present reads and hashes the file: an intact one
// is left as it was (ModTime included), a damaged one (wrong size or
// hash) is replaced by the verified bytes being put, so writing the same
// content again heals a blob that reads as ErrCorrupt. Reading a local
// file costs far less than the fsyncs of writing one.
type Dir struct {
	root  string
	blobs string
	tmp   string
}

var _ Store = (*Dir)(nil)

// OpenDir opens the folder store at path, creating the folder if needed,
// and removes temporary files older than TempGrace left by killed writers.
func OpenDir(path string) (*Dir, error) {
	if path == "" {
		return nil, errors.New("objects: store folder: empty path; give a folder, for example --store file:///var/lib/wsfs/objects")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("objects: store folder %s: %w", path, err)
	}
	d := &Dir{root: abs, blobs: filepath.Join(abs, "blobs"), tmp: filepath.Join(abs, "tmp")}
	for _, p := range []string{abs, d.blobs, d.tmp} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return nil, fmt.Errorf("objects: store folder %s: cannot create %s: %w; create it, fix its permissions, or choose another folder", abs, p, err)
		}
	}
	probe, err := os.CreateTemp(d.tmp, "probe-*"+tempSuffix)
	if err != nil {
		return nil, fmt.Errorf("objects: store folder %s is not writable: %w; fix its permissions or choose another folder", abs, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	if _, err := d.CleanTemp(TempGrace); err != nil {
		return nil, err
	}
	return d, nil
}

// Root returns the store's folder.
func (s *Dir) Root() string { return s.root }

// Path returns the file that holds (or would hold) the blob d. It is meant
// for messages and tests; the file must not be written directly.
func (s *Dir) Path(d Digest) string {
	h := d.String()
	return filepath.Join(s.blobs, h[:2], h)
}

// String names the store in messages.
func (s *Dir) String() string { return "folder store " + s.root }

// IsLocal implements Local.
func (s *Dir) IsLocal() bool { return true }

// CleanTemp removes temporary files older than olderThan (all of them if
// olderThan <= 0, which is only safe when no other process is writing to
// the folder) and returns how many it removed.
func (s *Dir) CleanTemp(olderThan time.Duration) (int, error) {
	entries, err := os.ReadDir(s.tmp)
	if err != nil {
		return 0, fmt.Errorf("objects: store folder %s: reading temporary files: %w", s.root, err)
	}
	cutoff := time.Now().Add(-olderThan)
	removed := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), tempSuffix) {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // renamed into place or removed meanwhile
		}
		if err != nil {
			return removed, fmt.Errorf("objects: store folder %s: %w", s.root, err)
		}
		if olderThan > 0 && info.ModTime().After(cutoff) {
			continue
		}
		if err := os.Remove(filepath.Join(s.tmp, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("objects: store folder %s: removing temporary file: %w", s.root, err)
		}
		removed++
	}
	if removed > 0 {
		slog.Debug("objects: removed temporary files", "folder", s.root, "count", removed)
	}
	return removed, nil
}

// Put implements Store.
func (s *Dir) Put(ctx context.Context, d Digest, r io.Reader, size int64) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("objects: put %s: %w", d.Short(), err)
	}
	if size < 0 {
		return fmt.Errorf("objects: put %s: negative size %d", d.Short(), size)
	}
	final := s.Path(d)
	// A blob already in place is kept as it was if it is intact; a damaged
	// one is replaced by the verified bytes being put.
	if intact(ctx, final, d, size) {
		return nil
	}
	if err := writeVerified(ctx, s.tmp, final, d, r, size); err != nil {
		return fmt.Errorf("objects: put %s in %s: %w%s", d.Short(), s.root, err, fixHint(err))
	}
	return nil
}

// intact reports whether the file at path holds exactly the size bytes
// that hash to d.
func intact(ctx context.Context, path string, d Digest, size int64) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() != size {
		return false
	}
	h := sha256.New()
	if _, err := io.Copy(h, contextReader{ctx, f}); err != nil {
		return false
	}
	return Digest(h.Sum(nil)) == d
}

// fixHint tells a person what to do about a file system error.
func fixHint(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return "; free space on the store folder's disk, or choose another folder"
	case errors.Is(err, syscall.EFBIG):
		return "; the file system or the file size limit (ulimit -f) refuses a file this large"
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		return "; make the store folder writable, or choose another folder"
	}
	return ""
}

// writeVerified copies exactly size bytes hashing to d from r into a new
// temporary file in tmpDir and renames it to final, durably.
func writeVerified(ctx context.Context, tmpDir, final string, d Digest, r io.Reader, size int64) (err error) {
	f, err := os.CreateTemp(tmpDir, d.String()[:16]+"-*"+tempSuffix)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(contextReader{ctx, r}, size+1))
	if err != nil {
		return err
	}
	if n != size {
		return fmt.Errorf("%w: got %s bytes, announced %d", ErrDigestMismatch, countWord(n, size), size)
	}
	if got := Digest(h.Sum(nil)); got != d {
		return fmt.Errorf("%w: the %d bytes hash to %s", ErrDigestMismatch, size, got.Short())
	}
	if err := f.Chmod(0o444); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	shard := filepath.Dir(final)
	if err := os.Mkdir(shard, 0o755); err == nil {
		if err := syncDir(filepath.Dir(shard)); err != nil {
			return err
		}
	} else if !errors.Is(err, fs.ErrExist) {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), final); err != nil {
		return err
	}
	return syncDir(shard)
}

func countWord(n, size int64) string {
	if n > size {
		return "more than that"
	}
	return fmt.Sprint(n)
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// Open implements Store.
func (s *Dir) Open(ctx context.Context, d Digest, off, length int64) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("objects: open %s: %w", d.Short(), err)
	}
	if off < 0 {
		return nil, fmt.Errorf("objects: open %s: negative offset %d", d.Short(), off)
	}
	f, err := os.Open(s.Path(d))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("objects: open %s in %s: %w", d.Short(), s.root, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("objects: open %s in %s: %w%s", d.Short(), s.root, err, fixHint(err))
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("objects: open %s: %w", d.Short(), err)
	}
	size := info.Size()
	if IsWholeRange(off, length, size) {
		return damageHint{VerifyingReader(&contextReadCloser{contextReader{ctx, f}, f}, d, -1), f.Name()}, nil
	}
	start, n := ClipRange(off, length, size)
	return &contextReadCloser{contextReader{ctx, io.NewSectionReader(f, start, n)}, f}, nil
}

// damageAdvice is what a person can do about a damaged blob.
const damageAdvice = "`wsfs fsck --repair` writes again every damaged blob it finds a good copy of and lists the others with the revisions they break; " +
	"writing the same content again also replaces the damaged copy; or restore the files from an earlier revision (wsfs restore, or copy from .history on the mount)"

// damageHint adds to a corrupt blob's error the file that holds it and
// what a person can do about it.
type damageHint struct {
	io.ReadCloser
	path string
}

func (r damageHint) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if err != nil && errors.Is(err, ErrCorrupt) {
		err = fmt.Errorf("%w; the damaged file is %s: %s", err, r.path, damageAdvice)
	}
	return n, err
}

type contextReadCloser struct {
	contextReader
	io.Closer
}

// Stat implements Store.
func (s *Dir) Stat(ctx context.Context, d Digest) (Info, error) {
	if err := ctx.Err(); err != nil {
		return Info{}, fmt.Errorf("objects: stat %s: %w", d.Short(), err)
	}
	info, err := os.Stat(s.Path(d))
	if errors.Is(err, fs.ErrNotExist) {
		return Info{}, fmt.Errorf("objects: stat %s in %s: %w", d.Short(), s.root, ErrNotFound)
	}
	if err != nil {
		return Info{}, fmt.Errorf("objects: stat %s in %s: %w", d.Short(), s.root, err)
	}
	return Info{Digest: d, Size: info.Size(), ModTime: info.ModTime()}, nil
}

// Delete implements Store.
func (s *Dir) Delete(ctx context.Context, d Digest) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("objects: delete %s: %w", d.Short(), err)
	}
	if err := os.Remove(s.Path(d)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("objects: delete %s from %s: %w%s", d.Short(), s.root, err, fixHint(err))
	}
	return nil
}

// List implements Store. It walks the shard folders; files whose names are
// not blob names are skipped, unreadable folders are errors.
func (s *Dir) List(ctx context.Context, fn func(Info) error) error {
	shards, err := os.ReadDir(s.blobs)
	if err != nil {
		return fmt.Errorf("objects: list %s: %w", s.root, err)
	}
	for _, shard := range shards {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("objects: list %s: %w", s.root, err)
		}
		if !shard.IsDir() || !isShardName(shard.Name()) {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(s.blobs, shard.Name()))
		if err != nil {
			return fmt.Errorf("objects: list %s: %w", s.root, err)
		}
		for _, e := range entries {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("objects: list %s: %w", s.root, err)
			}
			name := e.Name()
			if !e.Type().IsRegular() || !strings.HasPrefix(name, shard.Name()) {
				continue
			}
			d, err := ParseDigest(name)
			if err != nil || d.String() != name {
				continue
			}
			info, err := e.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue // deleted meanwhile
			}
			if err != nil {
				return fmt.Errorf("objects: list %s: %w", s.root, err)
			}
			if err := fn(Info{Digest: d, Size: info.Size(), ModTime: info.ModTime()}); err != nil {
				return err
			}
		}
	}
	return nil
}

func isShardName(name string) bool {
	if len(name) != 2 {
		return false
	}
	for _, c := range name {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
