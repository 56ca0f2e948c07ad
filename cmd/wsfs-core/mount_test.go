package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wsfs/wsfs/api"
	"github.com/wsfs/wsfs/internal/testenv"
	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	if left := leftoverMounts(); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "cmd/wsfs-core tests left FUSE mounts behind: %v\n", left)
		for _, d := range left {
			_ = syscall.Unmount(d, syscall.MNT_DETACH)
		}
		code = 1
	}
	os.Exit(code)
}

// mountDirs are the mount points these tests used (other packages' tests
// may be mounting elsewhere at the same time).
var (
	mountDirsMu sync.Mutex
	mountDirs   []string
)

// leftoverMounts lists this package's mount points still in /proc/mounts.
func leftoverMounts() []string {
	mountDirsMu.Lock()
	defer mountDirsMu.Unlock()
	var out []string
	for _, d := range mountDirs {
		if mountedFUSE(d) {
			out = append(out, d)
		}
	}
	return out
}

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// wsfsBinary builds the wsfs binary once per test run.
func wsfsBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "wsfs-bin-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "wsfs")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// requireFUSE stops the test without FUSE (skip, or fail under CI=true).
func requireFUSE(t testing.TB) { testenv.RequireFUSE(t) }

// server is a `wsfs mount` child process.
type server struct {
	t      testing.TB
	cmd    *exec.Cmd
	home   string
	mnt    string
	stderr *lockedBuffer
	done   chan error
	line   string
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServer runs `wsfs mount` on mnt with home and waits for its
// readiness line.
func startServer(t testing.TB, home, mnt string, args ...string) *server {
	t.Helper()
	return startVerb(t, home, mnt, append(append([]string{"mount"}, args...), mnt)...)
}

// startVerb runs a server verb (mount, serve) whose mount is mnt, and
// waits for its readiness line.
func startVerb(t testing.TB, home, mnt string, args ...string) *server {
	t.Helper()
	cmd := exec.Command(wsfsBinary(t), args...)
	cmd.Env = append(os.Environ(), "WSFS_HOME="+home, "WSFS_STORE=")
	s := &server{t: t, cmd: cmd, home: home, mnt: mnt, stderr: &lockedBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = s.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		io.Copy(io.Discard, stdout)
		s.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			s.cmd.Process.Kill()
			<-s.done
			_ = syscall.Unmount(mnt, syscall.MNT_DETACH)
		}
	})
	select {
	case line, ok := <-lines:
		if !ok {
			<-s.done
			t.Fatalf("wsfs mount exited before it was ready: %v\n%s", cmd.ProcessState, s.stderr)
		}
		s.line = line
	case <-time.After(30 * time.Second):
		t.Fatalf("wsfs mount not ready after 30 s\n%s", s.stderr)
	}
	return s
}

// stderrSays waits until the server's stderr holds every one of want
// (or it exits, or 30 s pass).
func (s *server) stderrSays(want ...string) bool {
	deadline := time.Now().Add(30 * time.Second)
	for {
		errs := s.stderr.String()
		all := true
		for _, w := range want {
			all = all && strings.Contains(errs, w)
		}
		if all {
			return true
		}
		if time.Now().After(deadline) || s.cmd.ProcessState != nil {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stop sends sig and waits for the process to exit.
func (s *server) stop(sig os.Signal) error {
	s.t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		s.t.Fatal(err)
	}
	return s.wait()
}

func (s *server) wait() error {
	s.t.Helper()
	select {
	case err := <-s.done:
		return err
	case <-time.After(60 * time.Second):
		s.t.Fatalf("wsfs mount did not exit\n%s", s.stderr)
		return nil
	}
}

// wsfsBin runs the binary with home and returns stdout, stderr, exit code.
func wsfsBin(t testing.TB, home, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(wsfsBinary(t), args...)
	cmd.Env = append(os.Environ(), "WSFS_HOME="+home, "WSFS_STORE=")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func mountListed(dir string) bool { return mountedFUSE(dir) }

func newMountDirs(t *testing.T) (home, mnt string) {
	base := t.TempDir()
	home, mnt = filepath.Join(base, "home"), filepath.Join(base, "mnt")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	mountDirsMu.Lock()
	mountDirs = append(mountDirs, mnt)
	mountDirsMu.Unlock()
	return home, mnt
}

func TestMountServesHistoryVerbs(t *testing.T) {
	requireFUSE(t)
	home, mnt := newMountDirs(t)
	// A quiet period longer than the test: only the server's flush (before
	// a change) and the unmount commit edits made on the mount.
	s := startServer(t, home, mnt, "--quiet", "1h")
	sock := api.SocketPath(home)
	if want := fmt.Sprintf("wsfs: serving %s (socket %s)", mnt, sock); s.line != want {
		t.Fatalf("readiness line %q, want %q", s.line, want)
	}
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket: %v %v", fi, err)
	}
	info, err := api.ReadInfo(home)
	if err != nil || info.PID != s.cmd.Process.Pid || info.MountDir != mnt || info.Socket != sock || !strings.HasPrefix(info.Store, "file://") {
		t.Fatalf("server.json %+v, %v", info, err)
	}

	// The verbs run in-process here: each would fail with "database in
	// use" if it opened meta.db instead of calling the server.
	t.Setenv("WSFS_HOME", home)
	t.Setenv("WSFS_STORE", "")
	c := &cli{t: t, home: home}
	c.ok("", "create", "acme/a")
	ws := filepath.Join(mnt, "acme", "a")
	if err := os.WriteFile(filepath.Join(ws, "edit.txt"), []byte("typed on the mount\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.ok("from put\n", "put", "acme/a", "put.txt")
	var revs []struct {
		N       int    `json:"n"`
		Command string `json:"command"`
	}
	if err := json.Unmarshal([]byte(c.ok("", "log", "--json", "acme/a")), &revs); err != nil {
		t.Fatal(err)
	}
	if len(revs) != 3 || revs[1].Command != "(edits on the mount)" || !strings.HasPrefix(revs[0].Command, "wsfs put") {
		t.Fatalf("the mount's pending edit must be committed before put: %+v", revs)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "put.txt")); err != nil || string(b) != "from put\n" {
		t.Fatalf("the mount does not show the put: %q %v", b, err)
	}
	if got := c.ok("", "cat", "acme/a", "edit.txt"); got != "typed on the mount\n" {
		t.Fatalf("cat = %q", got)
	}
	// Restore reloads the live tree.
	c.ok("", "restore", "acme/a@2")
	if _, err := os.Stat(filepath.Join(ws, "put.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("after restore to @2, put.txt on the mount: %v", err)
	}
	// A quota change reaches the mount: root + edit.txt = 2 entries.
	c.ok("", "quota", "acme/a", "set", "entries=2")
	if err := os.WriteFile(filepath.Join(ws, "third"), []byte("x"), 0o644); !errors.Is(err, syscall.EDQUOT) {
		t.Fatalf("a file past the lowered entries quota: %v, want EDQUOT", err)
	}
	c.ok("", "quota", "acme/a", "set", "entries=200")
	c.ok("", "fork", "acme/a", "acme/b")
	c.fails(exitNotFound, "not found", "show", "acme/nope")
	c.ok("", "create", "acme/gone")
	if err := os.WriteFile(filepath.Join(mnt, "acme/gone/f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.ok("", "rm", "acme/gone")
	if _, err := os.Stat(filepath.Join(mnt, "acme/gone/f")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a deleted workspace is still on the mount: %v", err)
	}
	c.ok("", "fsck")
	c.ok("", "gc")
	tarPath := filepath.Join(t.TempDir(), "a.tar")
	c.ok("", "export", "-o", tarPath, "acme/a")
	c.ok("", "import", "--under", "copy", "acme/b", tarPath)
	if got := c.ok("", "cat", "acme/b", "copy/edit.txt"); got != "typed on the mount\n" {
		t.Fatalf("cat of the imported copy = %q", got)
	}

	// A second server on the same store is refused, naming the first.
	_, errs, code := wsfsBin(t, home, "", "mount", t.TempDir())
	if want := fmt.Sprintf("already served by PID %d at %s", s.cmd.Process.Pid, mnt); code != exitFailure || !strings.Contains(errs, want) {
		t.Fatalf("second mount: exit %d, %q; want %q", code, errs, want)
	}

	// SIGTERM commits what is pending, unmounts and cleans up.
	if err := os.WriteFile(filepath.Join(ws, "last.txt"), []byte("just before the end\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.stop(syscall.SIGTERM); err != nil {
		t.Fatalf("wsfs mount after SIGTERM: %v\n%s", err, s.stderr)
	}
	if mountListed(mnt) {
		t.Fatal("the mount is still in /proc/mounts after SIGTERM")
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left after SIGTERM: %v", err)
	}
	if _, err := api.ReadInfo(home); !errors.Is(err, api.ErrNoServer) {
		t.Fatalf("server.json left after SIGTERM: %v", err)
	}
	// Without a server the verbs open meta.db again.
	if got := c.ok("", "cat", "acme/a", "last.txt"); got != "just before the end\n" {
		t.Fatalf("an edit pending at SIGTERM was not committed: %q", got)
	}
}

func TestMountAfterKill(t *testing.T) {
	requireFUSE(t)
	home, mnt := newMountDirs(t)
	s := startServer(t, home, mnt, "--quiet", "50ms")
	if _, errs, code := wsfsBin(t, home, "", "create", "acme/a"); code != 0 {
		t.Fatal(errs)
	}
	if _, errs, code := wsfsBin(t, home, "kept\n", "put", "acme/a", "kept.txt"); code != 0 {
		t.Fatal(errs)
	}
	if err := s.stop(syscall.SIGKILL); err == nil {
		t.Fatal("a SIGKILLed server exited cleanly?")
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(mnt, &st); !errors.Is(err, syscall.ENOTCONN) {
		t.Fatalf("statfs of the dead mount: %v, want ENOTCONN", err)
	}
	// With no server, a verb opens meta.db itself (the dead server's
	// server.json notwithstanding).
	if out, errs, code := wsfsBin(t, home, "", "ls"); code != 0 || !strings.Contains(out, "acme/a") {
		t.Fatalf("ls with a dead server: exit %d %s %s", code, out, errs)
	}

	s2 := startServer(t, home, mnt, "--quiet", "50ms")
	// The server's stderr is copied by another goroutine than its ready
	// line: wait for it.
	if !s2.stderrSays(fmt.Sprintf("server PID %d", s.cmd.Process.Pid), "stale mount") {
		t.Fatalf("remount after a kill must say what it cleaned:\n%s", s2.stderr.String())
	}
	if b, err := os.ReadFile(filepath.Join(mnt, "acme/a/kept.txt")); err != nil || string(b) != "kept\n" {
		t.Fatalf("committed file after remount: %q %v", b, err)
	}

	// wsfs umount stops a live server cleanly.
	out, errs, code := wsfsBin(t, home, "", "umount", mnt)
	if code != 0 || !strings.Contains(out, "unmounted "+mnt) {
		t.Fatalf("umount: exit %d %q %q", code, out, errs)
	}
	if err := s2.wait(); err != nil {
		t.Fatalf("server after umount: %v\n%s", err, s2.stderr)
	}
	if mountListed(mnt) {
		t.Fatal("mount left after wsfs umount")
	}

	// wsfs umount of a stale mount detaches it lazily, and says so.
	s3 := startServer(t, home, mnt)
	s3.stop(syscall.SIGKILL)
	_, errs, code = wsfsBin(t, home, "", "umount", mnt)
	if code != 0 || !strings.Contains(errs, "stale mount") || mountListed(mnt) {
		t.Fatalf("umount of a stale mount: exit %d %q, still mounted %v", code, errs, mountListed(mnt))
	}
	if _, errs, code = wsfsBin(t, home, "", "mount", filepath.Join(mnt, "missing")); code != exitFailure || !strings.Contains(errs, "does not exist") {
		t.Fatalf("mount on a missing folder: exit %d %q", code, errs)
	}
	if _, errs, code = wsfsBin(t, home, "", "umount", mnt); code != exitNotFound || !strings.Contains(errs, "not mounted") {
		t.Fatalf("umount of nothing: exit %d %q", code, errs)
	}
}

// A process that holds meta.db without answering on the socket is named,
// with what to do.
func TestHeldDatabaseIsExplained(t *testing.T) {
	c := newCLI(t)
	c.ok("", "create", "acme/a")
	st, err := objects.OpenDir(filepath.Join(c.home, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := meta.Open(context.Background(), filepath.Join(c.home, meta.DBFileName), st, meta.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c.fails(exitFailure, fmt.Sprintf("process %d holds meta.db but does not answer on the wsfs socket", os.Getpid()), "ls")
}

func TestMountOneWorkspace(t *testing.T) {
	requireFUSE(t)
	home, mnt := newMountDirs(t)
	if _, errs, code := wsfsBin(t, home, "hello\n", "put", "acme/solo", "x.txt"); code != exitNotFound || !strings.Contains(errs, "acme/solo") {
		t.Fatalf("put to a missing workspace: exit %d %q", code, errs)
	}
	if _, errs, code := wsfsBin(t, home, "", "create", "acme/solo"); code != 0 {
		t.Fatal(errs)
	}
	if _, errs, code := wsfsBin(t, home, "hello\n", "put", "acme/solo", "x.txt"); code != 0 {
		t.Fatal(errs)
	}
	if _, errs, code := wsfsBin(t, home, "", "create", "acme/other"); code != 0 {
		t.Fatal(errs)
	}
	s := startServer(t, home, mnt, "--workspace", "acme/solo")
	if b, err := os.ReadFile(filepath.Join(mnt, "x.txt")); err != nil || string(b) != "hello\n" {
		t.Fatalf("--workspace: x.txt at the mount point: %q %v", b, err)
	}
	// Commands run in that workspace, on this mount, and in the others
	// too (issue 15: "not mounted").
	if out, errs, code := wsfsBin(t, home, "", "run", "-w", "acme/solo", "cat x.txt; echo more >> x.txt"); code != 0 || out != "hello\n" {
		t.Fatalf("run in the mounted workspace: exit %d %q %q", code, out, errs)
	}
	if b, err := os.ReadFile(filepath.Join(mnt, "x.txt")); err != nil || string(b) != "hello\nmore\n" {
		t.Fatalf("the command's edit on the mount point: %q %v", b, err)
	}
	if out, errs, code := wsfsBin(t, home, "", "run", "-w", "acme/other", "echo there > y.txt; cat y.txt"); code != 0 || out != "there\n" {
		t.Fatalf("run in another workspace: exit %d %q %q", code, out, errs)
	}
	if out, _, _ := wsfsBin(t, home, "", "cat", "acme/other", "y.txt"); out != "there\n" {
		t.Fatalf("acme/other's y.txt: %q", out)
	}
	other := t.TempDir()
	_, errs, code := wsfsBin(t, home, "", "umount", other)
	if code != exitFailure || !strings.Contains(errs, "serves "+mnt+", not "+other) {
		t.Fatalf("umount of another folder: exit %d %q", code, errs)
	}
	if err := s.stop(syscall.SIGINT); err != nil {
		t.Fatalf("SIGINT: %v\n%s", err, s.stderr)
	}
	if mountListed(mnt) || mountListed(filepath.Join(home, "run-mount")) {
		t.Fatal("mount left after SIGINT")
	}
}
