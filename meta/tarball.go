package meta

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wsfs/wsfs/objects"
)

// WriteFileOptions tune WriteFile.
type WriteFileOptions struct {
	// Force allows replacing an existing file or symlink at the path.
	Force bool
	// Mode is the file's permission bits; 0 means 0644.
	Mode fs.FileMode
	// MTime is the file's modification time; zero means now.
	MTime time.Time
	CommitInfo
}

// maxStaleRetries is how often the whole-workspace helpers (WriteFile,
// ImportTar) retry when another commit lands between reading the head and
// committing.
const maxStaleRetries = 5

// WriteFile commits the content of r as the file at p, as a new revision on
// top of the head. It creates missing parents, never follows a symlink in
// the parent path, refuses to replace an existing file unless Force (and a
// directory always), and enforces the workspace's quotas. It returns
// committed false if the file already had exactly this content and mode.
func (db *DB) WriteFile(ctx context.Context, ws, p string, r io.Reader, opts WriteFileOptions) (Revision, bool, error) {
	w, err := db.Get(ctx, ws)
	if err != nil {
		return Revision{}, false, err
	}
	clean, err := CleanPath(p)
	if err != nil {
		return Revision{}, false, err
	}
	if clean == "" {
		return Revision{}, false, fmt.Errorf("meta: put %s: %w: a file path is needed, not the workspace root", w.Name, ErrInvalid)
	}
	if err := w.Quotas.CheckPath(w.Name, clean); err != nil {
		return Revision{}, false, err
	}
	content, err := readLimited(r, w.Quotas.MaxFileBytes)
	if err != nil {
		var qe *QuotaError
		if errors.As(err, &qe) {
			qe.Workspace, qe.Path = w.Name, clean
		}
		return Revision{}, false, err
	}
	if opts.Command == "" {
		opts.Command = "put " + clean
	}
	for attempt := 0; ; attempt++ {
		w, err := db.Get(ctx, ws)
		if err != nil {
			return Revision{}, false, err
		}
		e, err := db.LookupTree(ctx, w.HeadRoot, clean)
		switch {
		case err == nil && e.Kind == KindDir:
			return Revision{}, false, fmt.Errorf("meta: put %s: %s: %w: it is a directory", w.Name, clean, ErrExists)
		case err == nil && !opts.Force:
			return Revision{}, false, fmt.Errorf("meta: put %s: %s: %w; use --force to replace it", w.Name, clean, ErrExists)
		case err != nil && !errors.Is(err, ErrNotFound):
			return Revision{}, false, err
		}
		op := PutBytes(clean, content, opts.Mode, opts.MTime)
		if op.MTime.IsZero() && err == nil && e.Digest == op.Digest {
			op.MTime = e.MTime // same content: a plain re-put changes nothing
		}
		rev, ok, err := db.Commit(ctx, w.Name, w.Head, Change{Ops: []Op{op}, CommitInfo: opts.CommitInfo})
		if errors.Is(err, ErrStale) && attempt < maxStaleRetries {
			continue
		}
		return rev, ok, err
	}
}

// readLimited reads all of r, failing with a file-bytes *QuotaError (whose
// Usage counts the bytes up to 1 GiB) when it holds more than max bytes.
func readLimited(r io.Reader, max int64) ([]byte, error) {
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("meta: reading the content: %w", err)
	}
	if n > max {
		rest, _ := io.Copy(io.Discard, io.LimitReader(r, 1<<30))
		return nil, &QuotaError{Kind: QuotaFileBytes, Limit: max, Usage: n + rest}
	}
	return buf.Bytes(), nil
}

// ImportOptions tune ImportTar.
type ImportOptions struct {
	// Under puts every entry below this workspace directory ("" = top).
	Under string
	CommitInfo
}

// ImportTar commits the files, directories, symlinks, FIFOs and devices
// of a tar stream as one new revision on top of the head, over what is
// there (existing files are replaced), with their user.* extended
// attributes (PAX SCHILY.xattr records). Hard links become copies of
// their target's content, and owners are not taken from the archive (the
// entries have none, as with put; GNU tar run by a user does the same).
// It refuses absolute paths, paths with "..", and other entry types,
// naming the entry; the quotas apply as for any commit. Nothing is
// committed if any entry is refused.
func (db *DB) ImportTar(ctx context.Context, ws string, r io.Reader, opts ImportOptions) (Revision, bool, error) {
	w, err := db.Get(ctx, ws)
	if err != nil {
		return Revision{}, false, err
	}
	under, err := CleanPath(opts.Under)
	if err != nil {
		return Revision{}, false, err
	}
	tr := tar.NewReader(r)
	var ops []Op
	files := map[string]Op{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Revision{}, false, fmt.Errorf("meta: import into %s: reading the tar stream: %w: %w", w.Name, ErrInvalid, err)
		}
		name, err := tarEntryPath(h.Name)
		if err != nil {
			return Revision{}, false, fmt.Errorf("meta: import into %s: tar entry %q: %w", w.Name, h.Name, err)
		}
		if name == "" {
			continue // "./" itself
		}
		p := joinPath(under, name)
		mode := ModeFromUnix(uint32(h.Mode & 0o7777))
		xattrs := tarXattrs(h)
		switch h.Typeflag {
		case tar.TypeReg: // the reader reports old TypeRegA entries as TypeReg
			if h.Size > w.Quotas.MaxFileBytes {
				return Revision{}, false, &QuotaError{Kind: QuotaFileBytes, Workspace: w.Name, Path: p, Limit: w.Quotas.MaxFileBytes, Usage: h.Size}
			}
			content, err := io.ReadAll(tr)
			if err != nil {
				return Revision{}, false, fmt.Errorf("meta: import into %s: tar entry %q: %w: %w", w.Name, h.Name, ErrInvalid, err)
			}
			op := PutBytes(p, content, mode, h.ModTime)
			op.Xattrs = xattrs
			files[p] = op
			ops = append(ops, op)
		case tar.TypeLink:
			target, err := tarEntryPath(h.Linkname)
			if err != nil {
				return Revision{}, false, fmt.Errorf("meta: import into %s: hard link %q to %q: %w", w.Name, h.Name, h.Linkname, err)
			}
			src, ok := files[joinPath(under, target)]
			if !ok {
				return Revision{}, false, fmt.Errorf("meta: import into %s: hard link %q: %w: its target %q is not an earlier file of the archive", w.Name, h.Name, ErrInvalid, h.Linkname)
			}
			src.Path = p
			if mode != 0 {
				src.Mode = mode
			}
			files[p] = src
			ops = append(ops, src)
		case tar.TypeDir:
			if mode == 0 {
				mode = 0o755
			}
			op := Mkdir(p, mode, h.ModTime)
			op.Xattrs = xattrs
			ops = append(ops, op)
		case tar.TypeSymlink:
			op := Symlink(p, h.Linkname, h.ModTime)
			op.Xattrs = xattrs
			ops = append(ops, op)
		case tar.TypeFifo, tar.TypeChar, tar.TypeBlock:
			kind := map[byte]EntryKind{tar.TypeFifo: KindFIFO, tar.TypeChar: KindCharDev, tar.TypeBlock: KindBlockDev}[h.Typeflag]
			op := Mknod(p, kind, mode, unix.Mkdev(uint32(h.Devmajor), uint32(h.Devminor)), h.ModTime)
			op.Xattrs = xattrs
			ops = append(ops, op)
		case tar.TypeXGlobalHeader:
			continue
		default:
			return Revision{}, false, fmt.Errorf("meta: import into %s: tar entry %q: %w: %s entries are not supported (only files, directories, symlinks, hard links, FIFOs and devices)",
				w.Name, h.Name, ErrInvalid, tarTypeName(h.Typeflag))
		}
	}
	if opts.Command == "" {
		opts.Command = "import"
	}
	for attempt := 0; ; attempt++ {
		w, err := db.Get(ctx, ws)
		if err != nil {
			return Revision{}, false, err
		}
		rev, ok, err := db.Commit(ctx, w.Name, w.Head, Change{Ops: ops, CommitInfo: opts.CommitInfo})
		if errors.Is(err, ErrStale) && attempt < maxStaleRetries {
			continue
		}
		return rev, ok, err
	}
}

// tarXattrs returns the user.* extended attributes of an archive member
// (PAX SCHILY.xattr records, as GNU tar --xattrs and export write them).
// Other namespaces are left out: trusted.* is root's on the mount, and
// security.* and ACLs are not kept.
func tarXattrs(h *tar.Header) []Xattr {
	var xs []Xattr
	for k, v := range h.PAXRecords {
		if name, ok := strings.CutPrefix(k, "SCHILY.xattr."); ok && strings.HasPrefix(name, "user.") {
			xs = append(xs, Xattr{Name: name, Value: []byte(v)})
		}
	}
	return xs
}

// tarEntryPath cleans an archive member name, refusing absolute paths and
// any "..".
func tarEntryPath(name string) (string, error) {
	if strings.HasPrefix(name, "/") {
		return "", fmt.Errorf("%w: absolute paths are refused (make the archive with relative paths, e.g. tar -C DIR -cf x.tar .)", ErrInvalid)
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", fmt.Errorf("%w: paths with .. are refused: they would leave the workspace", ErrInvalid)
		}
	}
	if strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("%w: the name contains a NUL byte", ErrInvalid)
	}
	return strings.TrimPrefix(path.Clean("/"+name), "/"), nil
}

func tarTypeName(t byte) string {
	switch t {
	case tar.TypeChar:
		return "character device"
	case tar.TypeBlock:
		return "block device"
	case tar.TypeFifo:
		return "FIFO"
	case tar.TypeCont:
		return "contiguous file"
	}
	return fmt.Sprintf("type %q", t)
}

// ExportTar writes revision ref as a tar stream: directories, files and
// symlinks in path order, with their modes and times. File contents are
// verified as they are read.
func (db *DB) ExportTar(ctx context.Context, ref Ref, out io.Writer) error {
	r, err := db.Show(ctx, ref)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(out)
	if err := db.exportDir(ctx, tw, r.Root, "", map[uint64]string{}); err != nil {
		return fmt.Errorf("meta: export %s@%d: %w", r.Workspace, r.N, err)
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("meta: export %s@%d: %w", r.Workspace, r.N, err)
	}
	return nil
}

// exportDir writes the entries below tree d. Owners are written when
// recorded, extended attributes as PAX SCHILY.xattr records, the second
// and later names of a link group as hard links to the first, FIFOs and
// devices as their tar types. A socket has no tar type: like GNU tar,
// export leaves it out.
func (db *DB) exportDir(ctx context.Context, tw *tar.Writer, d objects.Digest, prefix string, links map[uint64]string) error {
	t, err := db.readTree(ctx, d)
	if err != nil {
		return err
	}
	for _, e := range t.Entries {
		p := joinPath(prefix, e.Name)
		h := &tar.Header{Name: p, Mode: int64(UnixMode(e.Mode)), ModTime: e.MTime, Format: tar.FormatPAX}
		if e.Owned {
			h.Uid, h.Gid = int(e.UID), int(e.GID)
		}
		for _, x := range e.Xattrs {
			if h.PAXRecords == nil {
				h.PAXRecords = map[string]string{}
			}
			h.PAXRecords["SCHILY.xattr."+x.Name] = string(x.Value)
		}
		switch e.Kind {
		case KindDir:
			h.Typeflag, h.Name = tar.TypeDir, p+"/"
			if err := tw.WriteHeader(h); err != nil {
				return err
			}
			if err := db.exportDir(ctx, tw, e.Digest, p, links); err != nil {
				return err
			}
		case KindSymlink:
			h.Typeflag, h.Linkname = tar.TypeSymlink, e.Target
			if err := tw.WriteHeader(h); err != nil {
				return err
			}
		case KindFIFO, KindCharDev, KindBlockDev:
			h.Typeflag = map[EntryKind]byte{KindFIFO: tar.TypeFifo, KindCharDev: tar.TypeChar, KindBlockDev: tar.TypeBlock}[e.Kind]
			h.Devmajor, h.Devminor = int64(unix.Major(e.Rdev)), int64(unix.Minor(e.Rdev))
			if err := tw.WriteHeader(h); err != nil {
				return err
			}
		case KindFile:
			if first, ok := links[e.Link]; ok && e.Link != 0 {
				h.Typeflag, h.Linkname = tar.TypeLink, first
				if err := tw.WriteHeader(h); err != nil {
					return err
				}
				continue
			}
			if e.Link != 0 {
				links[e.Link] = p
			}
			h.Typeflag, h.Size = tar.TypeReg, e.Size
			if err := tw.WriteHeader(h); err != nil {
				return err
			}
			rc, err := db.store.Open(ctx, e.Digest, 0, -1)
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			_, err = io.Copy(tw, rc)
			rc.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
		}
	}
	return nil
}
