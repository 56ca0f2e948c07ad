package fusefs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/wsfs/wsfs/meta"
)

// asUserEnv makes the test binary a helper that makes one system call as
// the user it was started as (see asUser) and exits with its errno.
const asUserEnv = "WSFS_FUSEFS_AS_USER_OP"

// runAsUserOp runs "op\x1farg\x1f…" (unit separators) and returns the errno (0: success).
func runAsUserOp(spec string) int {
	f := strings.Split(spec, "\x1f")
	op, a := f[0], f[1:]
	num := func(i int) int { n, _ := strconv.Atoi(a[i]); return n }
	var err error
	switch op {
	case "chown":
		err = os.Lchown(a[0], num(1), num(2))
	case "chmod":
		err = syscall.Chmod(a[0], uint32(num(1)))
	case "write":
		var fd int
		if fd, err = syscall.Open(a[0], syscall.O_WRONLY|syscall.O_APPEND, 0); err == nil {
			_, err = syscall.Write(fd, []byte("x"))
			syscall.Close(fd)
		}
	case "truncate":
		err = syscall.Truncate(a[0], 0)
	case "create":
		var fd int
		if fd, err = syscall.Open(a[0], syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL, uint32(num(1))); err == nil {
			syscall.Close(fd)
		}
	case "mkdir":
		err = syscall.Mkdir(a[0], uint32(num(1)))
	case "unlink":
		err = syscall.Unlink(a[0])
	case "rmdir":
		err = syscall.Rmdir(a[0])
	case "rename":
		err = syscall.Rename(a[0], a[1])
	case "link":
		err = syscall.Link(a[0], a[1])
	case "symlink":
		err = syscall.Symlink(a[0], a[1])
	case "mknod":
		err = syscall.Mknod(a[0], uint32(num(1)), num(2))
	case "mkfifo":
		err = syscall.Mkfifo(a[0], uint32(num(1)))
	case "utimes-now":
		err = unix.UtimesNanoAt(unix.AT_FDCWD, a[0], nil, 0)
	case "utimes-set":
		err = unix.UtimesNanoAt(unix.AT_FDCWD, a[0], []unix.Timespec{{Sec: 1}, {Sec: 1}}, 0)
	case "setxattr":
		err = unix.Lsetxattr(a[0], a[1], []byte(a[2]), 0)
	case "getxattr":
		_, err = unix.Lgetxattr(a[0], a[1], make([]byte, 256))
	case "removexattr":
		err = unix.Lremovexattr(a[0], a[1])
	case "open-read":
		var fd int
		if fd, err = syscall.Open(a[0], syscall.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			syscall.Close(fd)
		}
	default:
		fmt.Fprintf(os.Stderr, "unknown op %q\n", op)
		return 255
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return int(errno)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 254
	}
	return 0
}

// user is who runs an operation: root, or one of two unprivileged users
// with groups of their own (alice is also in the shared group 3000).
type user struct {
	name     string
	uid, gid uint32
	groups   []uint32
}

var (
	root  = user{"root", 0, 0, nil}
	alice = user{"alice", 2001, 2001, []uint32{2001, 3000}}
	bob   = user{"bob", 2002, 2002, []uint32{2002}}
)

// asUser runs one system call as u in a child process and returns its errno.
func asUser(t *testing.T, u user, op string, args ...string) syscall.Errno {
	t.Helper()
	cmd := exec.Command(helperBinary(t), "-test.run=^$")
	cmd.Env = append(os.Environ(), asUserEnv+"="+strings.Join(append([]string{op}, args...), "\x1f"))
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: u.uid, Gid: u.gid, Groups: u.groups}}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit) && exit.ExitCode() > 0 && exit.ExitCode() < 254:
		return syscall.Errno(exit.ExitCode())
	}
	t.Fatalf("%s as %s: %v: %s", op, u.name, err, out)
	return 0
}

var (
	helperOnce sync.Once
	helperPath string
	helperErr  error
)

// helperBinary is a copy of the test binary that other users may run (go
// test builds it in a folder only its owner can enter).
func helperBinary(t *testing.T) string {
	t.Helper()
	helperOnce.Do(func() {
		dir, err := os.MkdirTemp("", "wsfs-fusefs-helper-")
		if err != nil {
			helperErr = err
			return
		}
		helperPath = filepath.Join(dir, "helper")
		b, err := os.ReadFile(os.Args[0])
		if err == nil {
			err = os.WriteFile(helperPath, b, 0o755)
		}
		if err == nil {
			err = os.Chmod(dir, 0o755)
		}
		helperErr = err
	})
	if helperErr != nil {
		t.Fatal(helperErr)
	}
	return helperPath
}

func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("runs system calls as other users: needs root (CI runs as root)")
	}
}

func errnoName(e syscall.Errno) string {
	if e == 0 {
		return "ok"
	}
	return unix.ErrnoName(e)
}

// TestWhoMayDoWhat is the permission table pjdfstest checks, per system
// call, for root and two other users: the owner of the files (alice) and
// someone else (bob).
func TestWhoMayDoWhat(t *testing.T) {
	requireRoot(t)
	e := newEnv(t, func(o *Options) { o.AllowOther = true })
	for p := e.mnt; p != "/" && p != os.TempDir(); p = filepath.Dir(p) {
		os.Chmod(p, 0o755)
	}
	dir := e.create("perm/a", nil)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	id := func(u user) string { return strconv.Itoa(int(u.uid)) }
	gid := func(g uint32) string { return strconv.Itoa(int(g)) }
	// fresh makes a file (or directory) owned by alice with mode perm.
	n := 0
	fresh := func(t *testing.T, kind string, perm uint32) string {
		n++
		p := filepath.Join(dir, fmt.Sprintf("%s%d", kind, n))
		var errno syscall.Errno
		if kind == "d" {
			errno = asUser(t, alice, "mkdir", p, strconv.Itoa(int(perm)))
		} else {
			errno = asUser(t, alice, "create", p, strconv.Itoa(int(perm)))
		}
		if errno != 0 {
			t.Fatalf("alice makes %s: %v", p, errno)
		}
		if err := os.Chmod(p, os.FileMode(perm)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	type want struct{ root, alice, bob syscall.Errno }
	cases := []struct {
		name string
		kind string // "f" or "d": what fresh makes
		perm uint32
		op   string
		args func(p string) []string
		want want
	}{
		{"chown to another user", "f", 0o644, "chown", func(p string) []string { return []string{p, id(bob), "-1"} }, want{0, syscall.EPERM, syscall.EPERM}},
		{"chgrp to a group of the owner", "f", 0o644, "chown", func(p string) []string { return []string{p, "-1", "3000"} }, want{0, 0, syscall.EPERM}},
		{"chgrp to a group not the owner's", "f", 0o644, "chown", func(p string) []string { return []string{p, "-1", gid(bob.gid)} }, want{0, syscall.EPERM, syscall.EPERM}},
		{"chmod", "f", 0o644, "chmod", func(p string) []string { return []string{p, "384"} }, want{0, 0, syscall.EPERM}},
		{"write to 0644", "f", 0o644, "write", func(p string) []string { return []string{p} }, want{0, 0, syscall.EACCES}},
		{"write to 0444", "f", 0o444, "write", func(p string) []string { return []string{p} }, want{0, syscall.EACCES, syscall.EACCES}},
		{"truncate 0664", "f", 0o664, "truncate", func(p string) []string { return []string{p} }, want{0, 0, syscall.EACCES}},
		{"read 0600", "f", 0o600, "open-read", func(p string) []string { return []string{p} }, want{0, 0, syscall.EACCES}},
		{"utimes to now, not writable", "f", 0o644, "utimes-now", func(p string) []string { return []string{p} }, want{0, 0, syscall.EACCES}},
		{"utimes to a time, writable by all", "f", 0o666, "utimes-set", func(p string) []string { return []string{p} }, want{0, 0, syscall.EPERM}},
		{"create in 0755 dir", "d", 0o755, "create", func(p string) []string { return []string{p + "/new", "420"} }, want{0, 0, syscall.EACCES}},
		{"mkdir in 0755 dir", "d", 0o755, "mkdir", func(p string) []string { return []string{p + "/new", "493"} }, want{0, 0, syscall.EACCES}},
		{"mkfifo in 0755 dir", "d", 0o755, "mkfifo", func(p string) []string { return []string{p + "/fifo", "420"} }, want{0, 0, syscall.EACCES}},
		{"symlink in 0755 dir", "d", 0o755, "symlink", func(p string) []string { return []string{"x", p + "/sym"} }, want{0, 0, syscall.EACCES}},
		{"mknod of a device", "d", 0o777, "mknod", func(p string) []string {
			return []string{p + "/null", strconv.Itoa(syscall.S_IFCHR | 0o666), strconv.Itoa(int(unix.Mkdev(1, 3)))}
		}, want{0, syscall.EPERM, syscall.EPERM}},
		{"mknod of a regular file", "d", 0o777, "mknod", func(p string) []string {
			return []string{p + "/reg", strconv.Itoa(syscall.S_IFREG | 0o644), "0"}
		}, want{0, 0, 0}},
		{"setxattr user.* on 0644", "f", 0o644, "setxattr", func(p string) []string { return []string{p, "user.k", "v"} }, want{0, 0, syscall.EACCES}},
		{"setxattr trusted.*", "f", 0o666, "setxattr", func(p string) []string { return []string{p, "trusted.k", "v"} }, want{0, syscall.EPERM, syscall.EPERM}},
		{"setxattr security.* is not kept", "f", 0o666, "setxattr", func(p string) []string { return []string{p, "security.k", "v"} }, want{syscall.EOPNOTSUPP, syscall.EPERM, syscall.EPERM}}, // the kernel lets only root write security.*
		{"getxattr of a missing one", "f", 0o644, "getxattr", func(p string) []string { return []string{p, "user.none"} }, want{syscall.ENODATA, syscall.ENODATA, syscall.ENODATA}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, u := range []user{root, alice, bob} {
				p := fresh(t, c.kind, c.perm)
				want := map[string]syscall.Errno{"root": c.want.root, "alice": c.want.alice, "bob": c.want.bob}[u.name]
				if got := asUser(t, u, c.op, c.args(p)...); got != want {
					t.Errorf("%s as %s: %s, want %s", c.op, u.name, errnoName(got), errnoName(want))
				}
			}
		})
	}

	t.Run("unlink and rename in a sticky directory", func(t *testing.T) {
		sticky := filepath.Join(dir, "sticky")
		if err := os.Mkdir(sticky, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Chmod(sticky, 0o1777); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			u    user
			want syscall.Errno
		}{{bob, syscall.EPERM}, {alice, 0}, {root, 0}} {
			p := filepath.Join(sticky, "f-"+c.u.name)
			if errno := asUser(t, alice, "create", p, "438"); errno != 0 {
				t.Fatal(errno)
			}
			if got := asUser(t, c.u, "rename", p, p+"-moved"); got != c.want {
				t.Errorf("rename of alice's file as %s: %s, want %s", c.u.name, errnoName(got), errnoName(c.want))
			}
			if c.want != 0 {
				if got := asUser(t, c.u, "unlink", p); got != c.want {
					t.Errorf("unlink of alice's file as %s: %s, want %s", c.u.name, errnoName(got), errnoName(c.want))
				}
			}
		}
	})

	t.Run("new entries take the caller's uid and the setgid directory's group", func(t *testing.T) {
		sg := filepath.Join(dir, "sgid")
		if err := os.Mkdir(sg, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(sg, 0, 3000); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Chmod(sg, 0o2777); err != nil {
			t.Fatal(err)
		}
		if errno := asUser(t, bob, "create", sg+"/file", "420"); errno != 0 {
			t.Fatal(errno)
		}
		if errno := asUser(t, bob, "mkdir", sg+"/sub", "493"); errno != 0 {
			t.Fatal(errno)
		}
		if errno := asUser(t, bob, "create", dir+"/plain-bob", "420"); errno != 0 {
			t.Fatal(errno)
		}
		for p, w := range map[string][3]uint32{sg + "/file": {bob.uid, 3000, 0}, sg + "/sub": {bob.uid, 3000, unixSetgid}, dir + "/plain-bob": {bob.uid, bob.gid, 0}} {
			var st syscall.Stat_t
			if err := syscall.Lstat(p, &st); err != nil {
				t.Fatal(err)
			}
			if st.Uid != w[0] || st.Gid != w[1] || st.Mode&unixSetgid != w[2] {
				t.Errorf("%s: uid %d gid %d mode %o, want uid %d gid %d setgid %o", filepath.Base(p), st.Uid, st.Gid, st.Mode, w[0], w[1], w[2])
			}
		}
	})

	t.Run("chown clears SUID and SGID", func(t *testing.T) {
		p := fresh(t, "f", 0o755)
		if err := os.Chmod(p, 0o755|os.ModeSetuid|os.ModeSetgid); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, int(bob.uid), int(bob.gid)); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Lstat(p)
		if fi.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 {
			t.Fatalf("mode after chown: %v", fi.Mode())
		}
	})

	t.Run("owners are kept in revisions", func(t *testing.T) {
		p := fresh(t, "f", 0o640)
		if err := os.Chown(p, int(bob.uid), 3000); err != nil {
			t.Fatal(err)
		}
		rev, _ := e.snapshot("perm/a")
		ent, err := e.db.Lookup(t.Context(), meta.Ref{Workspace: "perm/a", Rev: rev.N}, filepath.Base(p))
		if err != nil {
			t.Fatal(err)
		}
		if !ent.Owned || ent.UID != bob.uid || ent.GID != 3000 {
			t.Fatalf("revision records %+v", ent)
		}
		fork := "perm/fork"
		if _, err := e.db.Fork(t.Context(), meta.Ref{Workspace: "perm/a", Rev: rev.N}, fork, meta.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		fdir, _ := e.fs.WorkspaceDir(fork)
		var st syscall.Stat_t
		if err := syscall.Lstat(filepath.Join(fdir, filepath.Base(p)), &st); err != nil || st.Uid != bob.uid || st.Gid != 3000 {
			t.Fatalf("loaded from the revision (a fork): uid %d gid %d, %v", st.Uid, st.Gid, err)
		}
	})
}
