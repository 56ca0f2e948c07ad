package fusefs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// openFDs counts this process's open descriptors. The file system runs in
// the test process, so its spool files are among them.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// spoolUsage counts the files and bytes under the mount's spool folder.
func spoolUsage(t *testing.T, dir string) (files int, bytes int64) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // a blob copy evicted meanwhile
		}
		if err != nil {
			return err
		}
		files++
		bytes += info.Size()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, bytes
}

// waitReleased waits until the server has seen the release of every file
// closed on the mount: the kernel sends RELEASE after close(2) returns.
func (e *env) waitReleased(name string) {
	e.t.Helper()
	ws, err := e.fs.workspace(context.Background(), name)
	if err != nil {
		e.t.Fatal(err)
	}
	var open func(d *entry) int
	open = func(d *entry) int {
		n := d.openers
		for _, c := range d.children {
			n += open(c)
		}
		return n
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		ws.mu.Lock()
		n := open(ws.root)
		ws.mu.Unlock()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%s: %d handles still open on the server 10 s after their files were closed", name, n)
		}
	}
}

func manyFilesContent(i int) []byte {
	return bytes.Repeat([]byte(fmt.Sprintf("file %d\n", i)), 100+i)
}

// TestSpoolDescriptorsBounded writes many files through the mount and
// commits them: the server must not keep a descriptor per written file,
// nor a spool file once its content is in the store, and every file must
// still read back byte for byte.
func TestSpoolDescriptorsBounded(t *testing.T) {
	const n = 300
	e := newEnv(t, func(o *Options) { o.BlobCacheBytes = 256 << 10 })
	dir := e.create("spool/a", bigQuotas())
	var before syscall.Statfs_t
	if err := syscall.Statfs(dir, &before); err != nil {
		t.Fatal(err)
	}
	base := openFDs(t)
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.txt", i)), manyFilesContent(i), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.waitReleased("spool/a")
	if got := openFDs(t) - base; got > 20 {
		t.Fatalf("after writing %d files the server holds %d more descriptors than before", n, got)
	}
	if _, ok := e.snapshot("spool/a"); !ok {
		t.Fatal("nothing committed")
	}
	if got := openFDs(t) - base; got > 20 {
		t.Fatalf("after committing %d files the server still holds %d more descriptors than before", n, got)
	}
	spool := filepath.Join(e.home, "spool")
	files, used := spoolUsage(t, spool)
	if used > 256<<10+64<<10 {
		t.Fatalf("spool folder holds %d files, %d bytes after the commit; want at most the blob cache's 256 KiB", files, used)
	}
	var after syscall.Statfs_t
	if err := syscall.Statfs(dir, &after); err != nil {
		t.Fatal(err)
	}
	if before.Bfree-after.Bfree != usedBlocks(n) {
		t.Fatalf("statfs free blocks %d → %d, want %d fewer", before.Bfree, after.Bfree, usedBlocks(n))
	}
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("f%03d.txt", i))
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, manyFilesContent(i)) {
			t.Fatalf("%s reads back %d bytes that differ from the %d written", p, len(got), len(manyFilesContent(i)))
		}
	}
	e.waitReleased("spool/a")
	if got := openFDs(t) - base; got > 20 {
		t.Fatalf("after reading %d committed files the server holds %d more descriptors than before", n, got)
	}
	if _, used := spoolUsage(t, spool); used > 256<<10+64<<10 {
		t.Fatalf("spool folder holds %d bytes after reading every file back; want at most the blob cache's 256 KiB", used)
	}
	// Nothing changed, so there is nothing to commit; a rewrite of one
	// committed file and a commit store the new content.
	if _, ok := e.snapshot("spool/a"); ok {
		t.Fatal("reading files made a revision")
	}
	mustWrite(t, filepath.Join(dir, "f007.txt"), "rewritten\n")
	rev, ok := e.snapshot("spool/a")
	if !ok {
		t.Fatal("rewrite not committed")
	}
	if got := e.catRev("spool/a", rev.N, "f007.txt"); got != "rewritten\n" {
		t.Fatalf("committed rewrite %q", got)
	}
	if got := mustRead(t, filepath.Join(dir, "f007.txt")); got != "rewritten\n" {
		t.Fatalf("rewrite reads back %q", got)
	}
}

// usedBlocks is how many statfs blocks the files of
// TestSpoolFilesClosedAfterCommit take from the quota.
func usedBlocks(n int) uint64 {
	var total int64
	for i := range n {
		total += int64(len(manyFilesContent(i)))
	}
	return uint64(1<<30)/4096 - uint64((1<<30)-total)/4096
}

// TestOpenFilesKeepSpoolAcrossCommit commits while files are open: a file
// open for writing keeps its spool (later writes are not lost), and one
// open for reading keeps reading.
func TestOpenFilesKeepSpoolAcrossCommit(t *testing.T) {
	e := newEnv(t)
	dir := e.create("spool/b", nil)
	w, err := os.OpenFile(filepath.Join(dir, "log.txt"), os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	mustWrite(t, filepath.Join(dir, "read.txt"), "read me\n")
	if _, err := w.WriteString("one\n"); err != nil {
		t.Fatal(err)
	}
	r, err := os.Open(filepath.Join(dir, "read.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rev, _ := e.snapshot("spool/b")
	if got := e.catRev("spool/b", rev.N, "log.txt"); got != "one\n" {
		t.Fatalf("first commit of log.txt %q", got)
	}
	if _, err := w.WriteString("two\n"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	k, err := r.ReadAt(buf, 0)
	if string(buf[:k]) != "read me\n" {
		t.Fatalf("read across a commit: %q, %v", buf[:k], err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rev, _ = e.snapshot("spool/b")
	if got := e.catRev("spool/b", rev.N, "log.txt"); got != "one\ntwo\n" {
		t.Fatalf("second commit of log.txt %q", got)
	}
	if got := mustRead(t, filepath.Join(dir, "log.txt")); got != "one\ntwo\n" {
		t.Fatalf("log.txt reads %q", got)
	}
	// Appending to a committed file starts from its committed content.
	f, err := os.OpenFile(filepath.Join(dir, "log.txt"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("three\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rev, _ = e.snapshot("spool/b")
	if got := e.catRev("spool/b", rev.N, "log.txt"); got != "one\ntwo\nthree\n" {
		t.Fatalf("third commit of log.txt %q", got)
	}
}

// TestClosedDirtyFileSpool works on files written, closed and not yet
// committed, whose spool stays on disk without a descriptor: appending,
// truncating and reading find their content, removing one removes its
// spool, and the commit stores them and leaves no spool behind.
func TestClosedDirtyFileSpool(t *testing.T) {
	e := newEnv(t)
	dir := e.create("spool/c", nil)
	p := filepath.Join(dir, "a.txt")
	mustWrite(t, p, "one\n")
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("two\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, p); got != "one\ntwo\n" {
		t.Fatalf("after append %q", got)
	}
	if err := os.Truncate(p, 6); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, p); got != "one\ntw" {
		t.Fatalf("after truncate %q", got)
	}
	mustWrite(t, filepath.Join(dir, "b.txt"), "gone\n")
	e.waitReleased("spool/c") // a file removed while open keeps its spool until then
	if err := os.Remove(filepath.Join(dir, "b.txt")); err != nil {
		t.Fatal(err)
	}
	wsSpools := filepath.Join(e.home, "spool", "ws")
	if files, _ := spoolUsage(t, wsSpools); files != 1 {
		t.Fatalf("%d spool files for one written file and one removed", files)
	}
	rev, _ := e.snapshot("spool/c")
	if got := e.catRev("spool/c", rev.N, "a.txt"); got != "one\ntw" {
		t.Fatalf("committed %q", got)
	}
	if files, _ := spoolUsage(t, wsSpools); files != 0 {
		t.Fatalf("%d spool files left after the commit", files)
	}
	if got := mustRead(t, p); got != "one\ntw" {
		t.Fatalf("after commit %q", got)
	}
}
