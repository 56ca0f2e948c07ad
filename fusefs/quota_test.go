package fusefs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/wsfs/wsfs/meta"
)

// TestQuotaPaths hits every limit at its exact edge on every path that
// adds entries or bytes.
func TestQuotaPaths(t *testing.T) {
	e := newEnv(t)
	wantErr := func(t *testing.T, what string, err, want error) {
		t.Helper()
		if !errors.Is(err, want) {
			t.Fatalf("%s: %v, want %v", what, err, want)
		}
	}

	t.Run("entries", func(t *testing.T) {
		q := meta.DefaultQuotas()
		q.MaxEntries = 4 // the root and three more
		dir := e.create("quota/entries", &q)
		mustWrite(t, filepath.Join(dir, "f"), "")
		if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("f", filepath.Join(dir, "l")); err != nil {
			t.Fatalf("the 4th entry: %v", err)
		}
		wantErr(t, "create", os.WriteFile(filepath.Join(dir, "g"), nil, 0o644), syscall.EDQUOT)
		wantErr(t, "mkdir", os.Mkdir(filepath.Join(dir, "e"), 0o755), syscall.EDQUOT)
		wantErr(t, "symlink", os.Symlink("f", filepath.Join(dir, "m")), syscall.EDQUOT)
		wantErr(t, "link", os.Link(filepath.Join(dir, "f"), filepath.Join(dir, "h")), syscall.EDQUOT)
		wantErr(t, "mkfifo", syscall.Mkfifo(filepath.Join(dir, "p"), 0o644), syscall.EDQUOT)
		wantErr(t, "mknod", syscall.Mknod(filepath.Join(dir, "r"), syscall.S_IFREG|0o644, 0), syscall.EDQUOT)
		// Renaming over an existing name adds nothing: allowed.
		if err := os.Rename(filepath.Join(dir, "l"), filepath.Join(dir, "f")); err != nil {
			t.Fatalf("rename over: %v", err)
		}
		// Freed entries can be used again.
		mustWrite(t, filepath.Join(dir, "g"), "")
		// The snapshot holds exactly the quota.
		rev, _ := e.snapshot("quota/entries")
		if got := rev.Stats.Entries() + 1; got != 4 {
			t.Fatalf("committed entries %d", got)
		}
		r := e.fs.Refusals("quota/entries")
		if len(r) != 6 || !strings.Contains(r[0].Error(), "4 entries (workspace quota/entries has 4): g") {
			t.Fatalf("refusals: %+v", r)
		}
	})

	t.Run("bytes", func(t *testing.T) {
		q := meta.DefaultQuotas()
		q.MaxFileBytes = 1000
		q.MaxWorkspaceBytes = 1500
		dir := e.create("quota/bytes", &q)
		p := filepath.Join(dir, "a")
		mustWrite(t, p, strings.Repeat("a", 1000))
		wantErr(t, "write past file limit", appendTo(p, "x"), syscall.EFBIG)
		wantErr(t, "truncate past file limit", os.Truncate(p, 1001), syscall.EFBIG)
		f, _ := os.OpenFile(p, os.O_RDWR, 0)
		wantErr(t, "fallocate past file limit", unix.Fallocate(int(f.Fd()), 0, 0, 1001), syscall.EFBIG)
		f.Close()
		b := filepath.Join(dir, "b")
		mustWrite(t, b, strings.Repeat("b", 500)) // workspace at 1500 exactly
		wantErr(t, "write past workspace limit", appendTo(b, "x"), syscall.EDQUOT)
		wantErr(t, "truncate past workspace limit", os.Truncate(b, 501), syscall.EDQUOT)
		// copy_file_range falls back to writes, which the quota checks.
		src := filepath.Join(dir, "a")
		in, _ := os.Open(src)
		out, _ := os.OpenFile(filepath.Join(dir, "c"), os.O_CREATE|os.O_WRONLY, 0o644)
		_, err := unix.CopyFileRange(int(in.Fd()), nil, int(out.Fd()), nil, 10, 0)
		in.Close()
		out.Close()
		if err == nil {
			t.Fatal("copy_file_range past the workspace limit succeeded")
		}
		if got := mustRead(t, p); len(got) != 1000 {
			t.Fatalf("a refused write changed the file: %d bytes", len(got))
		}
		var st syscall.Statfs_t
		if err := syscall.Statfs(dir, &st); err != nil {
			t.Fatal(err)
		}
		if st.Bfree != 0 || st.Files != 200 {
			t.Fatalf("statfs: free blocks %d, files %d", st.Bfree, st.Files)
		}
	})

	t.Run("paths", func(t *testing.T) {
		q := meta.DefaultQuotas()
		q.MaxPathComponents = 3
		q.MaxPathBytes = 20
		q.MaxSymlinkTarget = 8
		dir := e.create("quota/paths", &q)
		if err := os.MkdirAll(filepath.Join(dir, "a/b"), 0o755); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, filepath.Join(dir, "a/b/c"), "")
		wantErr(t, "4 components", os.Mkdir(filepath.Join(dir, "a/b/d2"), 0o755), nil)
		wantErr(t, "4 components", os.WriteFile(filepath.Join(dir, "a/b/d2/x"), nil, 0o644), syscall.ENAMETOOLONG)
		wantErr(t, "21-byte path", os.WriteFile(filepath.Join(dir, strings.Repeat("p", 21)), nil, 0o644), syscall.ENAMETOOLONG)
		mustWrite(t, filepath.Join(dir, strings.Repeat("p", 20)), "")
		if err := os.Symlink("12345678", filepath.Join(dir, "l8")); err != nil {
			t.Fatalf("8-byte target: %v", err)
		}
		wantErr(t, "9-byte target", os.Symlink("123456789", filepath.Join(dir, "l9")), syscall.ENAMETOOLONG)
		// Moving a tree deeper checks every path inside it.
		wantErr(t, "rename deeper", os.Rename(filepath.Join(dir, "a/b"), filepath.Join(dir, "a/b/d2/b")), syscall.EINVAL)
		if err := os.Mkdir(filepath.Join(dir, "z"), 0o755); err != nil {
			t.Fatal(err)
		}
		wantErr(t, "rename a tree under z", os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "z/a")), syscall.ENAMETOOLONG)
	})
}

func appendTo(p, s string) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// TestTruncateFreesBytes truncates a committed file that the mount never
// copied: the freed bytes count again at once.
func TestTruncateFreesBytes(t *testing.T) {
	e := newEnv(t)
	q := meta.DefaultQuotas()
	q.MaxWorkspaceBytes = 1000
	dir := e.create("quota/trunc", &q)
	if _, _, err := e.db.WriteFile(t.Context(), "quota/trunc", "a", strings.NewReader(strings.Repeat("a", 800)), meta.WriteFileOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(dir, "a"), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b"), []byte(strings.Repeat("b", 900)), 0o644); err != nil {
		t.Fatalf("900 bytes after freeing 800 of 1000: %v", err)
	}
}

// TestXattrQuota: extended attributes count their names and values in the
// workspace's bytes quota (on every name of a linked file), within Linux's
// limits, and the revision's totals hold them.
func TestXattrQuota(t *testing.T) {
	e := newEnv(t)
	q := meta.DefaultQuotas()
	q.MaxWorkspaceBytes = 100
	dir := e.create("quota/xattr", &q)
	f := filepath.Join(dir, "f")
	mustWrite(t, f, strings.Repeat("x", 50))
	// 50 used: "user.a" and 45 bytes make 101.
	if err := unix.Setxattr(f, "user.a", make([]byte, 45), 0); !errors.Is(err, syscall.EDQUOT) {
		t.Fatalf("an attribute past the quota: %v, want EDQUOT", err)
	}
	if err := unix.Setxattr(f, "user.a", make([]byte, 44), 0); err != nil {
		t.Fatalf("an attribute at the quota: %v", err)
	}
	// Full: a second name would count the file and its attribute again.
	if err := os.Link(f, filepath.Join(dir, "g")); !errors.Is(err, syscall.EDQUOT) {
		t.Fatalf("a link past the quota: %v, want EDQUOT", err)
	}
	// Replacing the value counts the difference; removing frees it all.
	if err := unix.Setxattr(f, "user.a", make([]byte, 4), unix.XATTR_REPLACE); err != nil {
		t.Fatal(err)
	}
	rev, _ := e.snapshot("quota/xattr")
	if rev.Stats.Bytes != 50+int64(len("user.a"))+4 {
		t.Fatalf("revision bytes %d, want the file's and the attribute's", rev.Stats.Bytes)
	}
	if err := unix.Removexattr(f, "user.a"); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(f, filepath.Join(dir, "g")); err != nil {
		t.Fatalf("a link within the quota: %v", err)
	}
	// Linux's limits, and the flags (in a workspace with room).
	dir = e.create("quota/xattr2", nil)
	f = filepath.Join(dir, "f")
	mustWrite(t, f, "x")
	if err := os.Link(f, filepath.Join(dir, "g")); err != nil {
		t.Fatal(err)
	}
	if err := unix.Setxattr(f, "user."+strings.Repeat("n", 256), nil, 0); !errors.Is(err, syscall.ERANGE) {
		t.Errorf("a 261-byte name: %v, want ERANGE", err)
	}
	if err := unix.Setxattr(f, "user.big", make([]byte, 65537), 0); !errors.Is(err, syscall.E2BIG) {
		t.Errorf("a 64 KiB + 1 value: %v, want E2BIG", err)
	}
	if err := unix.Setxattr(f, "user.new", nil, unix.XATTR_REPLACE); !errors.Is(err, syscall.ENODATA) {
		t.Errorf("XATTR_REPLACE of a missing attribute: %v, want ENODATA", err)
	}
	if err := unix.Setxattr(f, "user.k", []byte("v"), unix.XATTR_CREATE); err != nil {
		t.Fatal(err)
	}
	if err := unix.Setxattr(f, "user.k", []byte("w"), unix.XATTR_CREATE); !errors.Is(err, syscall.EEXIST) {
		t.Errorf("XATTR_CREATE of an existing attribute: %v, want EEXIST", err)
	}
	buf := make([]byte, 1)
	if _, err := unix.Getxattr(filepath.Join(dir, "g"), "user.k", buf[:0]); err != nil {
		t.Errorf("size probe through the other name: %v", err)
	}
	if _, err := unix.Listxattr(f, make([]byte, 2)); !errors.Is(err, syscall.ERANGE) {
		t.Errorf("listxattr into a short buffer: %v, want ERANGE", err)
	}
}
