package command_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// newView makes a sandbox with a few files, folders and links, some made by
// the host (as a hostile earlier command or a restored revision could).
func newView(t *testing.T) *commandtest.Sandbox {
	t.Helper()
	s := commandtest.New(t)
	s.WriteFiles(t, map[string]string{
		"a.txt":       "alpha\n",
		"sub/b.txt":   "beta\n",
		"sub/deep/c":  "gamma\n",
		"x/y/z.txt":   "zeta\n",
		"other/o.txt": "omicron\n",
	})
	links := map[string]string{
		"to-a":        "/workspace/a.txt",
		"rel-a":       "a.txt",
		"sub/up-a":    "../a.txt",
		"passwd":      "/etc/passwd",
		"rel-passwd":  "../../../../../../etc/passwd",
		"up":          "../../..",
		"rootlink":    "/",
		"loop1":       "loop2",
		"loop2":       "loop1",
		"self":        "self",
		"dirlink":     "x/y",
		"dangling":    "/workspace/new-file",
		"host-abs":    filepath.Join(s.Workspace, "a.txt"),
		"proc":        "/proc/self/root/etc/passwd",
		"tmp-link":    "/tmp",
		"sub/deep/up": "../../x/y/z.txt",
		"empty-hop":   "sub/../x/./y//z.txt",
		"to-dev-null": "/dev/null",
		"chain1":      "chain2",
		"chain2":      "chain3",
		"chain3":      "a.txt",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(s.Workspace, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func readAll(fsys command.FS, name string) (string, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	return string(b), err
}

func TestRootFSOpenResolvesInAgentNamespace(t *testing.T) {
	s := newView(t)
	cases := []struct {
		name, dir string
		want      string
		errno     error
	}{
		{name: "a.txt", want: "alpha\n"},
		{name: "/workspace/a.txt", want: "alpha\n"},
		{name: "to-a", want: "alpha\n"},
		{name: "rel-a", want: "alpha\n"},
		{name: "sub/up-a", want: "alpha\n"},
		{name: "chain1", want: "alpha\n"},
		{name: "up-a", dir: "/workspace/sub", want: "alpha\n"},
		{name: "../a.txt", dir: "/workspace/sub", want: "alpha\n"},
		{name: "dirlink/z.txt", want: "zeta\n"},
		{name: "dirlink/../y/z.txt", want: "zeta\n"}, // ".." after a link is physical: x/y/.. = x
		{name: "sub/deep/up", want: "zeta\n"},
		{name: "empty-hop", want: "zeta\n"},
		{name: "up/workspace/a.txt", want: "alpha\n"},
		{name: "rootlink/workspace/sub/b.txt", want: "beta\n"},
		{name: "/workspace/../../../workspace/a.txt", want: "alpha\n"},
		{name: "to-dev-null", want: ""},
		{name: "/dev/null", want: ""},
		{name: "passwd", errno: syscall.ENOENT},
		{name: "rel-passwd", errno: syscall.ENOENT},
		{name: "up/etc/passwd", errno: syscall.ENOENT},
		{name: "rootlink/etc/passwd", errno: syscall.ENOENT},
		{name: "/etc/passwd", errno: syscall.ENOENT},
		{name: "../../../../etc/passwd", errno: syscall.ENOENT},
		{name: "/workspace/../etc/passwd", errno: syscall.ENOENT},
		{name: "proc", errno: syscall.ENOENT},
		{name: "/proc/self/root/etc/passwd", errno: syscall.ENOENT},
		{name: "host-abs", errno: syscall.ENOENT},
		{name: filepath.Join(s.Workspace, "a.txt"), errno: syscall.ENOENT},
		{name: "loop1", errno: syscall.ELOOP},
		{name: "self", errno: syscall.ELOOP},
		{name: "self/x", errno: syscall.ELOOP},
		{name: "dangling", errno: syscall.ENOENT},
		{name: "a.txt/x", errno: syscall.ENOTDIR},
		{name: "a.txt/", errno: syscall.ENOTDIR},
		{name: "to-a/", errno: syscall.ENOTDIR},
		{name: "missing/x", errno: syscall.ENOENT},
		{name: "/dev/null/x", errno: syscall.ENOTDIR},
		{name: "/dev/nope", errno: syscall.ENOENT},
		{name: "", errno: syscall.ENOENT},
	}
	for _, c := range cases {
		dir := c.dir
		if dir == "" {
			dir = "/workspace"
		}
		fsys := s.FS.WithDir(dir, nil, nil, nil)
		got, err := readAll(fsys, c.name)
		if c.errno != nil {
			if !errors.Is(err, c.errno) {
				t.Errorf("open %q in %s: err %v, want %v", c.name, dir, err, c.errno)
				continue
			}
			var pe *fs.PathError
			if !errors.As(err, &pe) || pe.Path != c.name {
				t.Errorf("open %q: error %#v does not name the agent path", c.name, err)
			}
			if strings.Contains(err.Error(), s.Workspace) && !strings.Contains(c.name, s.Workspace) {
				t.Errorf("open %q: error %q leaks the host path", c.name, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("open %q in %s: %q, %v; want %q", c.name, dir, got, err, c.want)
		}
	}
}

func TestRootFSCreateThroughLinks(t *testing.T) {
	s := newView(t)
	outside := t.TempDir()
	// A link to the host folder of another sandbox must not reach it.
	if err := os.Symlink(outside, filepath.Join(s.Workspace, "outside")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"passwd", "rel-passwd", "outside/new", "/etc/new", "/new", "up/new", "proc"} {
		f, err := s.FS.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err == nil {
			f.Close()
			t.Errorf("create %q succeeded", name)
			continue
		}
		if !errors.Is(err, syscall.EACCES) && !errors.Is(err, syscall.ENOENT) {
			t.Errorf("create %q: %v, want EACCES or ENOENT", name, err)
		}
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("the folder outside got %d entries", len(ents))
	}
	// A dangling link inside the view creates its target, as Linux does.
	f, err := s.FS.OpenFile("dangling", os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatalf("create through dangling link: %v", err)
	}
	if f.Name() != "/workspace/new-file" {
		t.Errorf("Name() = %q, want the agent path", f.Name())
	}
	f.Close()
	if _, err := os.Stat(filepath.Join(s.Workspace, "new-file")); err != nil {
		t.Error(err)
	}
}

func TestRootFSEntryOperations(t *testing.T) {
	s := newView(t)
	fsys := s.FS
	checks := []struct {
		what  string
		err   error
		errno error
	}{
		{"mkdir /workspace", fsys.Mkdir("/workspace", 0o755), syscall.EEXIST},
		{"mkdir /", fsys.Mkdir("/", 0o755), syscall.EEXIST},
		{"mkdir /dev", fsys.Mkdir("/dev", 0o755), syscall.EEXIST},
		{"mkdir /etc", fsys.Mkdir("/etc", 0o755), syscall.EACCES},
		{"mkdir /dev/x", fsys.Mkdir("/dev/x", 0o755), syscall.EACCES},
		{"mkdir up/evil", fsys.Mkdir("up/evil", 0o755), syscall.EACCES},
		{"mkdir a.txt", fsys.Mkdir("a.txt", 0o755), syscall.EEXIST},
		{"mkdir missing/x", fsys.Mkdir("missing/x", 0o755), syscall.ENOENT},
		{"mkdirall a.txt/x", fsys.MkdirAll("a.txt/x", 0o755), syscall.ENOTDIR},
		{"remove /workspace", fsys.Remove("/workspace"), syscall.EBUSY},
		{"removeall /workspace", fsys.RemoveAll("/workspace"), syscall.EBUSY},
		{"remove /", fsys.Remove("/"), syscall.EBUSY},
		{"remove /dev/null", fsys.Remove("/dev/null"), syscall.EACCES},
		{"remove /etc/passwd", fsys.Remove("/etc/passwd"), syscall.ENOENT},
		{"remove .", fsys.Remove("."), syscall.EINVAL},
		{"remove sub", fsys.Remove("sub"), syscall.ENOTEMPTY},
		{"rename to tmp", fsys.Rename("a.txt", "/tmp/a.txt"), syscall.EXDEV},
		{"rename to /", fsys.Rename("a.txt", "/a.txt"), syscall.EACCES},
		{"rename to /etc", fsys.Rename("a.txt", "/etc/a.txt"), syscall.ENOENT},
		{"rename mount", fsys.Rename("/workspace", "/tmp/w"), syscall.EBUSY},
		{"link across", fsys.Link("a.txt", "/tmp/a.txt"), syscall.EXDEV},
		{"link outside", fsys.Link("/etc/passwd", "pw"), syscall.ENOENT},
		{"link via ..", fsys.Link("../../etc/passwd", "pw"), syscall.ENOENT},
		{"link dev", fsys.Link("/dev/null", "nul"), syscall.EXDEV},
		{"link dir", fsys.Link("sub", "sub2"), syscall.EPERM},
		{"link into /", fsys.Link("a.txt", "/pw"), syscall.EACCES},
		{"symlink exists", fsys.Symlink("x", "a.txt"), syscall.EEXIST},
		{"symlink into /", fsys.Symlink("x", "/evil"), syscall.EACCES},
		{"chmod /etc/passwd", fsys.Chmod("/etc/passwd", 0o777), syscall.ENOENT},
		{"chmod passwd link", fsys.Chmod("passwd", 0o777), syscall.ENOENT},
		{"chtimes passwd link", fsys.Chtimes("passwd", time.Now(), time.Now()), syscall.ENOENT},
	}
	for _, c := range checks {
		if !errors.Is(c.err, c.errno) {
			t.Errorf("%s: %v, want %v", c.what, c.err, c.errno)
		}
		if c.err != nil && strings.Contains(c.err.Error(), s.Workspace) {
			t.Errorf("%s: %q leaks the host path", c.what, c.err)
		}
	}
	var le *os.LinkError
	if err := fsys.Rename("a.txt", "/tmp/a.txt"); !errors.As(err, &le) || le.Old != "a.txt" || le.New != "/tmp/a.txt" {
		t.Errorf("rename error %#v does not name both agent paths", err)
	}
	if _, err := os.Stat(filepath.Join(s.Workspace, "a.txt")); err != nil {
		t.Errorf("a.txt is gone after refused operations: %v", err)
	}
	if err := fsys.RemoveAll("missing"); err != nil {
		t.Errorf("RemoveAll of a missing name: %v", err)
	}

	// What works.
	if err := fsys.Link("a.txt", "hard"); err != nil {
		t.Fatal(err)
	}
	if got, _ := readAll(fsys, "hard"); got != "alpha\n" {
		t.Errorf("hard link reads %q", got)
	}
	if err := fsys.Link("passwd", "hard-link-of-symlink"); err != nil {
		t.Fatal(err)
	}
	if _, err := readAll(fsys, "hard-link-of-symlink"); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("a hard link of a link to /etc/passwd reads: %v", err)
	}
	if err := fsys.Rename("/tmp-link", "/workspace/renamed"); !errors.Is(err, syscall.EACCES) && !errors.Is(err, syscall.ENOENT) {
		t.Errorf("rename of /tmp-link: %v", err)
	}
	if err := fsys.Rename("tmp-link", "tl"); err != nil {
		t.Errorf("renaming a link itself: %v", err)
	}
	if err := fsys.MkdirAll("tl/p/q", 0o755); err != nil {
		t.Errorf("MkdirAll through a link to /tmp: %v", err)
	}
	if _, err := os.Stat(filepath.Join(s.Tmp, "p", "q")); err != nil {
		t.Error(err)
	}
	if err := fsys.Remove("passwd"); err != nil {
		t.Errorf("removing a link to /etc/passwd: %v", err)
	}
	if _, err := os.Stat("/etc/passwd"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Log(err)
	}
}

func TestRootFSReadlinkAndStat(t *testing.T) {
	s := newView(t)
	fsys := s.FS
	if got, err := fsys.Readlink("passwd"); err != nil || got != "/etc/passwd" {
		t.Errorf("readlink passwd = %q, %v", got, err)
	}
	if _, err := fsys.Readlink("a.txt"); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("readlink of a file: %v", err)
	}
	if _, err := fsys.Readlink("missing"); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("readlink of a missing name: %v", err)
	}
	if _, err := fsys.Readlink("/workspace"); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("readlink /workspace: %v", err)
	}
	fi, err := fsys.Lstat("passwd")
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("lstat passwd: %v %v", fi, err)
	}
	if _, err := fsys.Stat("passwd"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stat passwd: %v", err)
	}
	fi, err = fsys.Stat("/workspace")
	if err != nil || !fi.IsDir() || fi.Name() != "workspace" {
		t.Errorf("stat /workspace: %v %v", fi, err)
	}
	fi, err = fsys.Stat("dirlink")
	if err != nil || !fi.IsDir() {
		t.Errorf("stat dirlink: %v", err)
	}
	fi, err = fsys.Lstat("dirlink/")
	if err != nil || !fi.IsDir() {
		t.Errorf("lstat dirlink/ must follow the link: %v %v", fi, err)
	}
	for _, name := range []string{"/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr"} {
		fi, err := fsys.Stat(name)
		if err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
			t.Errorf("stat %s: %v %v", name, fi, err)
		}
	}
	names := func(dir string) string {
		ents, err := fsys.ReadDir(dir)
		if err != nil {
			return err.Error()
		}
		var n []string
		for _, e := range ents {
			n = append(n, e.Name())
		}
		return strings.Join(n, " ")
	}
	if got := names("/"); got != "dev tmp workspace" {
		t.Errorf("ls / = %q", got)
	}
	if got := names("/dev"); got != "full null random stderr stdin stdout urandom zero" {
		t.Errorf("ls /dev = %q", got)
	}
	if got := names("rootlink"); got != "dev tmp workspace" {
		t.Errorf("ls rootlink = %q", got)
	}
	if got := names("up"); got != "dev tmp workspace" {
		t.Errorf("ls up = %q", got)
	}
	if got := names("/etc"); !strings.Contains(got, "no such file") {
		t.Errorf("ls /etc = %q", got)
	}
}

func TestRootFSDevStreams(t *testing.T) {
	s := newView(t)
	var out, errb bytes.Buffer
	fsys := s.FS.WithDir("/workspace/sub", strings.NewReader("input\n"), &out, &errb)
	if got, err := readAll(fsys, "/dev/stdin"); err != nil || got != "input\n" {
		t.Errorf("/dev/stdin: %q %v", got, err)
	}
	for name, buf := range map[string]*bytes.Buffer{"/dev/stdout": &out, "/dev/stderr": &errb} {
		f, err := fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(f, "to "+name); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if buf.String() != "to "+name {
			t.Errorf("%s got %q", name, buf.String())
		}
	}
	f, err := fsys.OpenFile("/dev/null", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(f, "gone"); err != nil {
		t.Error(err)
	}
	f.Close()
	if got, err := readAll(fsys, "b.txt"); err != nil || got != "beta\n" {
		t.Errorf("relative to the new dir: %q %v", got, err)
	}
	// Without streams, /dev/stdin cannot be opened.
	if _, err := s.FS.WithDir("/workspace", nil, nil, nil).Open("/dev/stdin"); err == nil {
		t.Error("/dev/stdin opened without a stdin")
	}
}

func TestRootFSOpenFileErrorsNameAgentPaths(t *testing.T) {
	s := newView(t)
	f, err := s.FS.Open("sub")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = f.Read(make([]byte, 10))
	if !errors.Is(err, syscall.EISDIR) {
		t.Fatalf("read of a dir: %v", err)
	}
	if !strings.Contains(err.Error(), "/workspace/sub") || strings.Contains(err.Error(), s.Workspace) {
		t.Errorf("read error %q does not name the agent path", err)
	}
	if f.Name() != "/workspace/sub" {
		t.Errorf("Name() = %q", f.Name())
	}
	// Copies between files of the view keep working through the wrapper.
	src, err := s.FS.Open("a.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := s.FS.OpenFile("/tmp/copy", os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	dst.Close()
	if got, _ := readAll(s.FS, "/tmp/copy"); got != "alpha\n" {
		t.Errorf("copy = %q", got)
	}
}

func TestNewRootFSRejectsBadMounts(t *testing.T) {
	for _, m := range []string{"/", "/dev", "/a/b", "rel"} {
		if _, err := command.NewRootFS(map[string]string{m: t.TempDir()}, "/"); err == nil {
			t.Errorf("mount %q accepted", m)
		}
	}
	if _, err := command.NewRootFS(map[string]string{"/w": filepath.Join(t.TempDir(), "missing")}, "/"); err == nil {
		t.Error("a missing host folder was accepted")
	}
}

// BenchmarkRootFSStatDeep stats a file five folders down: one os.Root
// call on the direct path, one per component when links need resolving.
func BenchmarkRootFSStatDeep(b *testing.B) {
	s := commandtest.New(b)
	s.WriteFiles(b, map[string]string{"a/b/c/d/e/f.txt": "x"})
	if err := os.Symlink("/workspace/a/b/c/d/e", filepath.Join(s.Workspace, "abs")); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"a/b/c/d/e/f.txt", "abs/f.txt"} {
		b.Run(strings.ReplaceAll(name, "/", "_"), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := s.FS.Stat(name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestRootFSTrailingSlashOnLinks: "link/" in an entry operation names the
// link as a directory, which it is not; the target must stay.
func TestRootFSTrailingSlashOnLinks(t *testing.T) {
	s := newView(t)
	for what, err := range map[string]error{
		"remove dirlink/":    s.FS.Remove("dirlink/"),
		"removeall dirlink/": s.FS.RemoveAll("dirlink/"),
		"rename dirlink/":    s.FS.Rename("dirlink/", "moved"),
		"remove a.txt/":      s.FS.Remove("a.txt/"),
	} {
		if !errors.Is(err, syscall.ENOTDIR) {
			t.Errorf("%s: %v, want ENOTDIR", what, err)
		}
	}
	for _, p := range []string{"x/y/z.txt", "a.txt"} {
		if _, err := os.Stat(filepath.Join(s.Workspace, p)); err != nil {
			t.Errorf("%s is gone: %v", p, err)
		}
	}
	if err := s.FS.Mkdir("newdir/", 0o755); err != nil {
		t.Errorf("mkdir newdir/: %v", err)
	}
	if err := s.FS.Remove("newdir/"); err != nil {
		t.Errorf("rmdir newdir/: %v", err)
	}
}

func TestProgramsInBinFolders(t *testing.T) {
	s := commandtest.New(t)
	if _, err := s.FS.Stat("/usr/bin"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("/usr/bin without programs: %v", err)
	}
	s.FS.SetPrograms([]string{"cat", "ls", "cat", "../x", ""})
	for _, dir := range []string{"/bin", "/usr/bin"} {
		ents, err := s.FS.ReadDir(dir)
		if err != nil || len(ents) != 2 || ents[0].Name() != "cat" || ents[1].Name() != "ls" {
			t.Fatalf("%s: %v %v", dir, ents, err)
		}
		fi, err := s.FS.Stat(dir + "/cat")
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o755 || fi.Size() != 0 {
			t.Fatalf("%s/cat: %v %v", dir, fi, err)
		}
		f, err := s.FS.Open(dir + "/ls")
		if err != nil {
			t.Fatal(err)
		}
		if data, err := io.ReadAll(f); err != nil || len(data) != 0 {
			t.Fatalf("read %s/ls: %q %v", dir, data, err)
		}
		f.Close()
		if _, err := s.FS.OpenFile(dir+"/cat", os.O_WRONLY|os.O_TRUNC, 0); !errors.Is(err, syscall.EACCES) {
			t.Fatalf("write %s/cat: %v", dir, err)
		}
		for _, op := range []func() error{
			func() error { return s.FS.Remove(dir + "/cat") },
			func() error { return s.FS.Mkdir(dir+"/new", 0o755) },
			func() error { _, err := s.FS.OpenFile(dir+"/new", os.O_CREATE|os.O_WRONLY, 0o644); return err },
		} {
			if err := op(); err == nil {
				t.Fatalf("%s: a change in a synthetic folder succeeded", dir)
			}
		}
	}
	if _, err := s.FS.Stat("/bin/nosuch"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("/bin/nosuch: %v", err)
	}
	if _, err := s.FS.Stat("/bin/cat/x"); !errors.Is(err, syscall.ENOTDIR) {
		t.Fatalf("/bin/cat/x: %v", err)
	}
	ents, err := s.FS.ReadDir("/")
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if err != nil || strings.Join(names, " ") != "bin dev tmp usr workspace" {
		t.Fatalf("/: %v %v", names, err)
	}
}

func TestDevFdThroughTheShell(t *testing.T) {
	s := commandtest.New(t)
	open := map[int]string{0: "in", 3: "three"}
	view := s.FS.WithFds(func(n int) (command.File, bool) {
		text, ok := open[n]
		if !ok {
			return nil, false
		}
		f, err := os.CreateTemp(t.TempDir(), "fd")
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(text)
		f.Seek(0, io.SeekStart)
		t.Cleanup(func() { f.Close() })
		return f, true
	})
	for name, want := range map[string]string{"/dev/fd/3": "three", "/dev/stdin": "in", "/dev/fd/0": "in"} {
		f, err := view.Open(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if data, _ := io.ReadAll(f); string(data) != want {
			t.Fatalf("%s: %q", name, data)
		}
	}
	for _, name := range []string{"/dev/fd/4", "/dev/fd/03", "/dev/fd/x", "/dev/stdout"} {
		if _, err := view.Open(name); err == nil {
			t.Fatalf("%s opened", name)
		}
	}
	ents, err := view.ReadDir("/dev/fd")
	if err != nil || len(ents) != 2 || ents[0].Name() != "0" || ents[1].Name() != "3" {
		t.Fatalf("/dev/fd: %v %v", ents, err)
	}
	if _, err := s.FS.Stat("/dev/fd/3"); err == nil {
		t.Fatal("/dev/fd/3 exists without a shell")
	}
}

func TestDevStreams(t *testing.T) {
	s := commandtest.New(t)
	buf := make([]byte, 16)
	for _, name := range []string{"/dev/zero", "/dev/urandom", "/dev/random", "/dev/full"} {
		f, err := s.FS.Open(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n, err := io.ReadFull(f, buf); n != 16 || err != nil {
			t.Fatalf("read %s: %d %v", name, n, err)
		}
		if name == "/dev/zero" && !bytes.Equal(buf, make([]byte, 16)) {
			t.Fatalf("/dev/zero gave %x", buf)
		}
		f.Close()
	}
	w, _ := s.FS.OpenFile("/dev/full", os.O_WRONLY, 0)
	if _, err := w.Write([]byte("x")); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("write /dev/full: %v", err)
	}
	w, _ = s.FS.OpenFile("/dev/zero", os.O_WRONLY, 0)
	if n, err := w.Write([]byte("x")); n != 1 || err != nil {
		t.Fatalf("write /dev/zero: %d %v", n, err)
	}
}
