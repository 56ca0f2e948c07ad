package fusefs

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestPosixCorners covers what a go-fuse loopback gets wrong.
func TestPosixCorners(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.AllowOther = true })
	dir := e.create("corners/a", nil)

	t.Run("mode 0000 on create", func(t *testing.T) {
		old := syscall.Umask(0)
		defer syscall.Umask(old)
		p := filepath.Join(dir, "zero")
		fd, err := syscall.Open(p, syscall.O_CREAT|syscall.O_WRONLY|syscall.O_EXCL, 0)
		if err != nil {
			t.Fatal(err)
		}
		syscall.Close(fd)
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode().Perm() != 0 {
			t.Fatalf("mode %v, %v; want 0000", fi.Mode(), err)
		}
	})
	t.Run("umask applied once", func(t *testing.T) {
		// The server's own umask must not be applied on top of the caller's.
		old := syscall.Umask(0)
		defer syscall.Umask(old)
		p := filepath.Join(dir, "open")
		fd, err := syscall.Open(p, syscall.O_CREAT|syscall.O_WRONLY|syscall.O_EXCL, 0o666)
		if err != nil {
			t.Fatal(err)
		}
		syscall.Close(fd)
		if fi, _ := os.Lstat(p); fi.Mode().Perm() != 0o666 {
			t.Fatalf("mode %v; want 0666 with umask 0", fi.Mode())
		}
		syscall.Umask(0o027)
		if err := os.Mkdir(filepath.Join(dir, "masked"), 0o777); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Lstat(filepath.Join(dir, "masked")); fi.Mode().Perm() != 0o750 {
			t.Fatalf("mkdir mode %v; want 0750 with umask 027", fi.Mode())
		}
	})
	t.Run("ENAMETOOLONG at NAME_MAX", func(t *testing.T) {
		name := make([]byte, nameMax+1)
		for i := range name {
			name[i] = 'x'
		}
		if err := os.Mkdir(filepath.Join(dir, string(name[:nameMax])), 0o755); err != nil {
			t.Fatalf("NAME_MAX: %v", err)
		}
		if err := os.Mkdir(filepath.Join(dir, string(name)), 0o755); !errors.Is(err, syscall.ENAMETOOLONG) {
			t.Fatalf("NAME_MAX+1: %v", err)
		}
	})

	// The rest runs commands as nobody, so the folders above the mount
	// must let nobody through.
	for p := e.mnt; p != "/" && p != os.TempDir(); p = filepath.Dir(p) {
		os.Chmod(p, 0o755)
	}
	asNobody := func(script string) error {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Dir = "/"
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			return errors.New(string(out))
		}
		return nil
	}
	t.Run("SUID and SGID cleared on write by a non-owner", func(t *testing.T) {
		p := filepath.Join(dir, "setid")
		mustWrite(t, p, "x")
		if err := os.Chmod(p, 0o777|os.ModeSetuid|os.ModeSetgid); err != nil {
			t.Fatal(err)
		}
		if err := asNobody("echo more >> " + p); err != nil {
			t.Fatalf("write as nobody: %v", err)
		}
		fi, _ := os.Lstat(p)
		if fi.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 {
			t.Fatalf("mode after a write by a non-owner: %v", fi.Mode())
		}
	})
	t.Run("rename of a directory needs write permission on it", func(t *testing.T) {
		for _, d := range []string{"from", "to"} {
			if err := os.Mkdir(filepath.Join(dir, d), 0o777); err != nil {
				t.Fatal(err)
			}
			os.Chmod(filepath.Join(dir, d), 0o777)
		}
		if err := os.Mkdir(filepath.Join(dir, "from/locked"), 0o555); err != nil {
			t.Fatal(err)
		}
		err := asNobody("mv " + filepath.Join(dir, "from/locked") + " " + filepath.Join(dir, "to/locked"))
		if err == nil {
			t.Fatal("nobody moved a directory it cannot write to another parent")
		}
		if _, err := os.Lstat(filepath.Join(dir, "from/locked")); err != nil {
			t.Fatalf("the directory moved anyway: %v", err)
		}
	})
}
