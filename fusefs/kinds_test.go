package fusefs

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
)

// checkKinds checks, in a workspace folder on the mount (live or under
// .history), what makeKinds made: a FIFO, a socket, two names of one
// file and an extended attribute, and a device as root.
func checkKinds(t *testing.T, where, dir string) {
	t.Helper()
	kind := func(name string) uint32 {
		t.Helper()
		var st syscall.Stat_t
		if err := syscall.Lstat(filepath.Join(dir, name), &st); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		return st.Mode & syscall.S_IFMT
	}
	if k := kind("fifo"); k != syscall.S_IFIFO {
		t.Errorf("%s: fifo has type %o", where, k)
	}
	if k := kind("sock"); k != syscall.S_IFSOCK {
		t.Errorf("%s: sock has type %o", where, k)
	}
	var a, b, dev syscall.Stat_t
	if err := errors.Join(syscall.Lstat(filepath.Join(dir, "a"), &a), syscall.Lstat(filepath.Join(dir, "sub/b"), &b), syscall.Lstat(filepath.Join(dir, "null"), &dev)); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	if a.Ino != b.Ino || a.Nlink != 2 || b.Nlink != 2 {
		t.Errorf("%s: a and sub/b are inodes %d and %d with %d and %d links, want one inode with 2", where, a.Ino, b.Ino, a.Nlink, b.Nlink)
	}
	if got := mustRead(t, filepath.Join(dir, "sub/b")); got != "through a" {
		t.Errorf("%s: sub/b reads %q", where, got)
	}
	buf := make([]byte, 64)
	n, err := unix.Lgetxattr(filepath.Join(dir, "sub/b"), "user.color", buf)
	if err != nil || string(buf[:n]) != "blue" {
		t.Errorf("%s: user.color of sub/b: %q, %v", where, buf[:max(n, 0)], err)
	}
	if dev.Mode&syscall.S_IFMT != syscall.S_IFCHR || dev.Rdev != unix.Mkdev(1, 3) {
		t.Errorf("%s: null is mode %o rdev %d", where, dev.Mode, dev.Rdev)
	}
}

// TestSpecialFilesLinksXattrs: a FIFO and a socket work on the live mount,
// two names of a file share their writes, and with an extended attribute
// and a device they survive commit, reload, restore, fork, export, the
// history view and recover.
func TestSpecialFilesLinksXattrs(t *testing.T) {
	requireRoot(t)
	e := newEnv(t)
	ctx := context.Background()
	const name = "kinds/a"
	dir := e.create(name, nil)

	// A FIFO carries data.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		b, err := os.ReadFile(fifo)
		if err != nil {
			got <- err.Error()
		}
		got <- string(b)
	}()
	if err := os.WriteFile(fifo, []byte("through the fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the fifo" {
		t.Fatalf("fifo read %q", s)
	}
	// A unix socket binds and connects.
	l, err := net.Listen("unix", filepath.Join(dir, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		c, err := l.Accept()
		if err == nil {
			c.Write([]byte("hello over the socket"))
			c.Close()
		}
	}()
	c, err := net.Dial("unix", filepath.Join(dir, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(c)
	c.Close()
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	if string(b) != "hello over the socket" {
		t.Fatalf("socket read %q", b)
	}
	// Two names, one file.
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "a"), "first")
	if err := os.Link(filepath.Join(dir, "a"), filepath.Join(dir, "sub/b")); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "a"), "through a")
	if err := unix.Lsetxattr(filepath.Join(dir, "a"), "user.color", []byte("blue"), 0); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mknod(filepath.Join(dir, "null"), syscall.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Fatal(err)
	}
	// The mount is nodev: the device is recorded, not opened.
	if _, err := os.Open(filepath.Join(dir, "null")); !errors.Is(err, syscall.EACCES) {
		t.Errorf("opening a device on the mount: %v, want EACCES", err)
	}
	checkKinds(t, "live", dir)
	// Across workspaces a link is EXDEV.
	other := e.create("kinds/other", nil)
	if err := os.Link(filepath.Join(dir, "a"), filepath.Join(other, "a")); !errors.Is(err, syscall.EXDEV) {
		t.Errorf("link across workspaces: %v, want EXDEV", err)
	}

	rev, ok := e.snapshot(name)
	if !ok {
		t.Fatal("nothing committed")
	}
	ea, err := e.db.Lookup(ctx, meta.Ref{Workspace: name, Rev: rev.N}, "a")
	if err != nil {
		t.Fatal(err)
	}
	eb, err := e.db.Lookup(ctx, meta.Ref{Workspace: name, Rev: rev.N}, "sub/b")
	if err != nil {
		t.Fatal(err)
	}
	if ea.Link == 0 || ea.Link != eb.Link || ea.Digest != eb.Digest || len(eb.Xattrs) != 1 {
		t.Fatalf("the revision records a %+v and sub/b %+v, want one link group", ea, eb)
	}
	if rev.Stats.Specials != 3 {
		t.Errorf("revision totals %+v, want 3 special files", rev.Stats)
	}

	// Restore after a revision that removed them all: the mount follows.
	for _, p := range []string{"fifo", "sock", "a", "sub/b", "null"} {
		if err := os.Remove(filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	e.snapshot(name)
	if _, _, err := e.db.Restore(ctx, meta.Ref{Workspace: name, Rev: rev.N}, meta.CommitInfo{Command: "restore"}); err != nil {
		t.Fatal(err)
	}
	checkKinds(t, "restored", dir)
	// The names come back as one file: a write through one after the restore is seen through the other
	// and committed under both.
	mustWrite(t, filepath.Join(dir, "sub/b"), "through b")
	if got := mustRead(t, filepath.Join(dir, "a")); got != "through b" {
		t.Errorf("after a write through sub/b, a reads %q", got)
	}
	r2, _ := e.snapshot(name)
	if got := e.catRev(name, r2.N, "a"); got != "through b" {
		t.Errorf("committed a: %q", got)
	}
	mustWrite(t, filepath.Join(dir, "sub/b"), "through a")
	e.snapshot(name)

	// Fork.
	if _, err := e.db.Fork(ctx, meta.Ref{Workspace: name, Rev: rev.N}, "kinds/fork", meta.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	fork, _ := e.fs.WorkspaceDir("kinds/fork")
	checkKinds(t, "fork", fork)
	// The history view.
	checkKinds(t, ".history", filepath.Join(e.mnt, ".history", name, strconv.FormatUint(uint64(rev.N), 10)))

	// Export: a FIFO, a device, a hard link and a PAX xattr; no socket.
	var buf bytes.Buffer
	if err := e.db.ExportTar(ctx, meta.Ref{Workspace: name, Rev: rev.N}, &buf); err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(&buf)
	seen := map[string]*tar.Header{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		seen[h.Name] = h
	}
	if h := seen["fifo"]; h == nil || h.Typeflag != tar.TypeFifo {
		t.Errorf("export: fifo %+v", h)
	}
	if h := seen["null"]; h == nil || h.Typeflag != tar.TypeChar || h.Devmajor != 1 || h.Devminor != 3 {
		t.Errorf("export: null %+v", h)
	}
	if h := seen["sub/b"]; h == nil || h.Typeflag != tar.TypeLink || h.Linkname != "a" {
		t.Errorf("export: sub/b %+v, want a hard link to a", h)
	}
	if h := seen["a"]; h == nil || h.PAXRecords["SCHILY.xattr.user.color"] != "blue" {
		t.Errorf("export: a %+v, want its xattr", h)
	}
	if _, ok := seen["sock"]; ok {
		t.Error("export wrote a socket (tar has no type for one)")
	}

	// fsck finds nothing wrong with them.
	if rep, err := e.db.Fsck(ctx, meta.FsckOptions{}); err != nil || !rep.OK() {
		t.Fatalf("fsck: %+v, %v", rep, err)
	}
	// Recover: a new meta.db from the store alone.
	path := filepath.Join(t.TempDir(), "meta.db")
	if _, err := meta.Recover(ctx, path, e.store, meta.RecoverOptions{}); err != nil {
		t.Fatal(err)
	}
	rdb, err := meta.Open(ctx, path, e.store, meta.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	for p, k := range map[string]meta.EntryKind{"fifo": meta.KindFIFO, "sock": meta.KindSocket, "null": meta.KindCharDev, "sub/b": meta.KindFile} {
		got, err := rdb.Lookup(ctx, meta.Ref{Workspace: name, Rev: rev.N}, p)
		if err != nil || got.Kind != k {
			t.Errorf("recovered %s: %+v, %v", p, got, err)
		}
		if p == "sub/b" && (got.Link != ea.Link || len(got.Xattrs) != 1) {
			t.Errorf("recovered sub/b %+v", got)
		}
	}
}

// TestHardLinks covers link counts, unlink and rename over names of one
// file, O_TMPFILE, and the quota each name counts in.
func TestHardLinks(t *testing.T) {
	e := newEnv(t)
	q := meta.DefaultQuotas()
	q.MaxWorkspaceBytes = 100
	dir := e.create("links/a", &q)
	p := func(s string) string { return filepath.Join(dir, s) }
	mustWrite(t, p("f"), "0123456789")
	for _, n := range []string{"g", "h"} {
		if err := os.Link(p("f"), p(n)); err != nil {
			t.Fatal(err)
		}
	}
	nlink := func(s string) uint64 {
		var st syscall.Stat_t
		if err := syscall.Lstat(p(s), &st); err != nil {
			t.Fatal(err)
		}
		return st.Nlink
	}
	if nlink("f") != 3 {
		t.Fatalf("nlink %d, want 3", nlink("f"))
	}
	// Each name counts its bytes: 3 × 10 used, 70 left.
	if err := os.WriteFile(p("big"), make([]byte, 71), 0o644); !errors.Is(err, syscall.EDQUOT) {
		t.Errorf("71 more bytes with 30 of 100 used by three names: %v, want EDQUOT", err)
	}
	os.Remove(p("big"))
	if err := os.Remove(p("g")); err != nil {
		t.Fatal(err)
	}
	if nlink("f") != 2 {
		t.Fatalf("after unlink nlink %d, want 2", nlink("f"))
	}
	// Renaming one name over another of the same file does nothing.
	if err := os.Rename(p("f"), p("h")); err != nil {
		t.Fatal(err)
	}
	if nlink("f") != 2 {
		t.Fatalf("after rename onto itself nlink %d", nlink("f"))
	}
	if err := os.Rename(p("h"), p("moved")); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, p("moved"), "changed")
	if mustRead(t, p("f")) != "changed" {
		t.Fatal("a write through a renamed name is not seen through the other")
	}
	rev, _ := e.snapshot("links/a")
	if e.catRev("links/a", rev.N, "f") != "changed" || e.catRev("links/a", rev.N, "moved") != "changed" {
		t.Fatal("the revision does not hold the change under both names")
	}
	if err := os.Remove(p("moved")); err != nil {
		t.Fatal(err)
	}
	if nlink("f") != 1 {
		t.Fatalf("nlink %d, want 1", nlink("f"))
	}
	rev, _ = e.snapshot("links/a")
	if ent, _ := e.db.Lookup(t.Context(), meta.Ref{Workspace: "links/a", Rev: rev.N}, "f"); ent.Link != 0 {
		t.Errorf("a file with one name left is still recorded in link group %d", ent.Link)
	}

	// O_TMPFILE: a nameless file, named later by linkat through /proc.
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR, 0o600)
	if err != nil {
		t.Fatalf("O_TMPFILE: %v", err)
	}
	if _, err := unix.Write(fd, []byte("tmp")); err != nil {
		t.Fatal(err)
	}
	if err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), unix.AT_FDCWD, p("named"), unix.AT_SYMLINK_FOLLOW); err != nil {
		t.Fatalf("linkat of an O_TMPFILE file: %v", err)
	}
	unix.Close(fd)
	if got := mustRead(t, p("named")); got != "tmp" {
		t.Fatalf("named tmpfile reads %q", got)
	}
	rev, _ = e.snapshot("links/a")
	if e.catRev("links/a", rev.N, "named") != "tmp" {
		t.Fatal("the named tmpfile is not in the revision")
	}
}

// TestOldHome mounts a home written before tree format 2 (meta's schema 2
// fixture): its files read as they were, belong to the mount's user, and
// a commit on top keeps the untouched trees as they were.
func TestOldHome(t *testing.T) {
	requireFUSE(t)
	home := t.TempDir()
	if err := os.CopyFS(home, os.DirFS("../meta/testdata/schema2")); err != nil {
		t.Fatal(err)
	}
	e := openHome(t, home)
	dir, _ := e.fs.WorkspaceDir("old/app")
	if got := mustRead(t, filepath.Join(dir, "src/main.go")); got != "package main\n\nfunc main() {}\n" {
		t.Fatalf("src/main.go reads %q", got)
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(filepath.Join(dir, "run.sh"), &st); err != nil {
		t.Fatal(err)
	}
	if st.Uid != uint32(os.Getuid()) || st.Gid != uint32(os.Getgid()) || st.Mode&0o7777 != 0o4755 || st.Nlink != 1 {
		t.Fatalf("run.sh: uid %d gid %d mode %o nlink %d", st.Uid, st.Gid, st.Mode, st.Nlink)
	}
	if target, err := os.Readlink(filepath.Join(dir, "latest")); err != nil || target != "src/main.go" {
		t.Fatalf("latest -> %q, %v", target, err)
	}
	w, err := e.db.Get(t.Context(), "old/app")
	if err != nil {
		t.Fatal(err)
	}
	oldSrc, err := e.db.LookupTree(t.Context(), w.HeadRoot, "deep")
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "new.txt"), "new")
	rev, ok := e.snapshot("old/app")
	if !ok {
		t.Fatal("nothing committed")
	}
	if got, _ := e.db.LookupTree(t.Context(), rev.Root, "deep"); got.Digest != oldSrc.Digest {
		t.Fatal("an untouched old directory got a new tree")
	}
	if ent, _ := e.db.LookupTree(t.Context(), rev.Root, "new.txt"); !ent.Owned || ent.UID != uint32(os.Getuid()) {
		t.Fatalf("the new file is recorded as %+v, want its owner", ent)
	}
}

// TestCtimeAndDirSync: every change of an inode moves its ctime (an
// atime-only touch included), and fsync/fdatasync of a directory succeed.
func TestCtimeAndDirSync(t *testing.T) {
	e := newEnv(t)
	dir := e.create("times/a", nil)
	p := filepath.Join(dir, "f")
	mustWrite(t, p, "x")
	ctime := func() unix.Timespec {
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		return st.Ctim
	}
	for _, c := range []struct {
		name   string
		change func() error
	}{
		{"touch -a", func() error {
			return unix.UtimesNanoAt(unix.AT_FDCWD, p, []unix.Timespec{{Sec: 5}, {Nsec: unix.UTIME_OMIT}}, 0)
		}},
		{"chmod", func() error { return os.Chmod(p, 0o600) }},
		{"chown", func() error { return os.Chown(p, os.Getuid(), os.Getgid()) }},
		{"setxattr", func() error { return unix.Setxattr(p, "user.t", []byte("1"), 0) }},
		{"removexattr", func() error { return unix.Removexattr(p, "user.t") }},
		{"link", func() error { return os.Link(p, p+"2") }},
		{"unlink", func() error { return os.Remove(p + "2") }},
		{"truncate", func() error { return os.Truncate(p, 0) }},
	} {
		name, change := c.name, c.change
		before := ctime()
		waitTick(t, before)
		if err := change(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if after := ctime(); after == before {
			t.Errorf("%s left ctime at %v", name, before)
		}
	}
	for _, sync := range []func(int) error{unix.Fsync, unix.Fdatasync} {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := sync(fd); err != nil {
			t.Errorf("sync of a directory: %v", err)
		}
		unix.Close(fd)
	}
}

// waitTick waits until the clock has moved past ts, so that a new ctime
// differs from it.
func waitTick(t *testing.T, ts unix.Timespec) {
	for {
		var now unix.Timespec
		unix.ClockGettime(unix.CLOCK_REALTIME, &now)
		if now.Sec > ts.Sec || (now.Sec == ts.Sec && now.Nsec > ts.Nsec) {
			return
		}
		runtime.Gosched()
	}
}

// TestLinkGroupNumbersMeetInAMerge: a link group the mount made and one a
// restore brings back under the same number stay two files.
func TestLinkGroupNumbersMeetInAMerge(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const name = "links/merge"
	dir := e.create(name, nil)
	// Revision 2, made behind the mount: a and b, one file, group 1.
	blob, err := objects.PutBytes(ctx, e.store, []byte("theirs"))
	if err != nil {
		t.Fatal(err)
	}
	mtime := time.Unix(1700000000, 0)
	root, err := e.db.WriteTree(ctx, &meta.Tree{Entries: []meta.Entry{
		{Name: "a", Kind: meta.KindFile, Mode: 0o644, MTime: mtime, Digest: blob, Size: 6, Link: 1},
		{Name: "b", Kind: meta.KindFile, Mode: 0o644, MTime: mtime, Digest: blob, Size: 6, Link: 1},
	}})
	if err != nil {
		t.Fatal(err)
	}
	r2, _, err := e.db.CommitTree(ctx, name, 1, root, "", meta.CommitInfo{Command: "behind"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.db.Restore(ctx, meta.Ref{Workspace: name, Rev: 1}, meta.CommitInfo{Command: "empty again"}); err != nil {
		t.Fatal(err)
	}
	// The mount, which saw no group, makes one: it gets number 1 too.
	mustWrite(t, filepath.Join(dir, "c"), "mine")
	if err := os.Link(filepath.Join(dir, "c"), filepath.Join(dir, "d")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.db.Restore(ctx, meta.Ref{Workspace: name, Rev: r2.N}, meta.CommitInfo{Command: "restore"}); err != nil {
		t.Fatal(err)
	}
	ino := func(p string) (uint64, uint64) {
		var st syscall.Stat_t
		if err := syscall.Lstat(filepath.Join(dir, p), &st); err != nil {
			t.Fatal(err)
		}
		return st.Ino, st.Nlink
	}
	ia, na := ino("a")
	ib, nb := ino("b")
	ic, nc := ino("c")
	id, nd := ino("d")
	if ia != ib || ic != id || ia == ic || na != 2 || nb != 2 || nc != 2 || nd != 2 {
		t.Fatalf("a %d/%d b %d/%d c %d/%d d %d/%d: want two files of two names each", ia, na, ib, nb, ic, nc, id, nd)
	}
	if mustRead(t, filepath.Join(dir, "d")) != "mine" || mustRead(t, filepath.Join(dir, "b")) != "theirs" {
		t.Fatal("the contents mixed")
	}
	rev, _ := e.snapshot(name)
	la, _ := e.db.Lookup(ctx, meta.Ref{Workspace: name, Rev: rev.N}, "a")
	lc, _ := e.db.Lookup(ctx, meta.Ref{Workspace: name, Rev: rev.N}, "c")
	ld, _ := e.db.Lookup(ctx, meta.Ref{Workspace: name, Rev: rev.N}, "d")
	if la.Link == 0 || lc.Link == 0 || la.Link == lc.Link || lc.Link != ld.Link {
		t.Fatalf("committed groups a %d c %d d %d", la.Link, lc.Link, ld.Link)
	}
}

// TestMergeLoadsLinkedFolders: when a change made behind the mount puts a
// second name of a loaded file into a folder the mount has not listed,
// the file shows both names, and a write through one is committed under
// both.
func TestMergeLoadsLinkedFolders(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const name = "links/follow"
	dir := e.create(name, nil)
	blob, err := objects.PutBytes(ctx, e.store, []byte("shared"))
	if err != nil {
		t.Fatal(err)
	}
	x, err := objects.PutBytes(ctx, e.store, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	mtime := time.Unix(1700000000, 0)
	commit := func(base meta.RevNum, deep []meta.Entry, a meta.Entry) meta.Revision {
		t.Helper()
		dt := &meta.Tree{Entries: deep}
		dd, err := e.db.WriteTree(ctx, dt)
		if err != nil {
			t.Fatal(err)
		}
		root, err := e.db.WriteTree(ctx, &meta.Tree{Entries: []meta.Entry{a, meta.DirEntry("deep", 0o755, mtime, dd, dt)}})
		if err != nil {
			t.Fatal(err)
		}
		r, _, err := e.db.CommitTree(ctx, name, base, root, "", meta.CommitInfo{Command: "behind"})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	plainA := meta.FileEntry("a", 0o644, mtime, blob, 6)
	r2 := commit(1, []meta.Entry{meta.FileEntry("x", 0o644, mtime, x, 1)}, plainA)
	// The mount lists the top only: deep stays unloaded.
	if got := mustRead(t, filepath.Join(dir, "a")); got != "shared" {
		t.Fatalf("a reads %q", got)
	}
	linkedA := plainA
	linkedA.Link = 1
	linkedB := linkedA
	linkedB.Name = "b"
	commit(r2.N, []meta.Entry{linkedB, meta.FileEntry("x", 0o644, mtime, x, 1)}, linkedA)
	var st syscall.Stat_t
	if err := syscall.Lstat(filepath.Join(dir, "a"), &st); err != nil || st.Nlink != 2 {
		t.Fatalf("a after the change: nlink %d, %v", st.Nlink, err)
	}
	mustWrite(t, filepath.Join(dir, "a"), "changed")
	rev, _ := e.snapshot(name)
	if got := e.catRev(name, rev.N, "deep/b"); got != "changed" {
		t.Fatalf("deep/b committed as %q after a write through a", got)
	}
}
