package fusefs

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
)

func TestAutocommit(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.QuietPeriod = 200 * time.Millisecond })
	dir := e.create("auto/a", nil)
	// An editor-style save: write a temp file, rename it over the target.
	mustWrite(t, filepath.Join(dir, ".notes.txt.swp"), "draft\n")
	if err := os.Rename(filepath.Join(dir, ".notes.txt.swp"), filepath.Join(dir, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		w, err := e.db.Get(context.Background(), "auto/a")
		if err != nil {
			t.Fatal(err)
		}
		if w.Head == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no autocommit; head %d", w.Head)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := e.catRev("auto/a", 2, "notes.txt"); got != "draft\n" {
		t.Fatalf("autocommitted content %q", got)
	}
	// Held workspaces are not autocommitted.
	release := e.fs.Hold("auto/a")
	mustWrite(t, filepath.Join(dir, "held.txt"), "x")
	time.Sleep(600 * time.Millisecond)
	if w, _ := e.db.Get(context.Background(), "auto/a"); w.Head != 2 {
		t.Fatalf("a held workspace was committed (head %d)", w.Head)
	}
	release()
}

func TestUnmountCommitsPendingEdits(t *testing.T) {
	requireFUSE(t)
	home := t.TempDir()
	st, err := objects.OpenDir(filepath.Join(home, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := meta.Open(ctx, filepath.Join(home, "meta.db"), st, meta.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Create(ctx, "acme/u", meta.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	mnt := filepath.Join(home, "mnt")
	os.Mkdir(mnt, 0o755)
	trackMount(mnt)
	fsys, err := Mount(ctx, mnt, Options{DB: db, SpoolDir: filepath.Join(home, "spool"), QuietPeriod: time.Hour, Workspace: "acme/u",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(mnt, "typed.txt"), "nothing a person types is lost\n")
	if err := fsys.Unmount(ctx); err != nil {
		t.Fatal(err)
	}
	rc, _, err := db.OpenFile(ctx, meta.Ref{Workspace: "acme/u"}, "typed.txt")
	if err != nil {
		t.Fatalf("edit not committed at unmount: %v", err)
	}
	rc.Close()
}

// TestCrashMidWrite SIGKILLs a server process (this test binary re-run)
// while the test writes into its mount, then mounts again: the stale mount
// is cleaned and every revision the server reported is intact. The writer
// is the parent, never the server itself: a process blocked writing into
// its own FUSE mount cannot die.
func TestCrashMidWrite(t *testing.T) {
	if os.Getenv("WSFS_FUSEFS_CRASH_CHILD") != "" {
		crashChild()
		return
	}
	requireFUSE(t)
	home := t.TempDir()
	mnt := filepath.Join(home, "mnt")
	os.Mkdir(mnt, 0o755)
	trackMount(mnt)
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashMidWrite$")
	cmd.Env = append(os.Environ(), "WSFS_FUSEFS_CRASH_CHILD="+home)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	sc := bufio.NewScanner(out)
	expect := func(prefix string) uint64 {
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), prefix); ok {
				n, _ := strconv.ParseUint(v, 10, 64)
				return n
			}
		}
		t.Fatalf("child ended before %q", prefix)
		return 0
	}
	head := expect("ready ")
	var revs []meta.RevNum
	for i := 0; i < 5; i++ {
		mustWrite(t, filepath.Join(mnt, "file.txt"), fmt.Sprintf("revision content %d\n", head+1))
		fmt.Fprintln(in, "snap")
		head = expect("committed ")
		revs = append(revs, meta.RevNum(head))
	}
	// Write a large file and kill the server in the middle of it.
	done := make(chan struct{})
	go func() {
		defer close(done)
		f, err := os.Create(filepath.Join(mnt, "big.bin"))
		if err != nil {
			return
		}
		defer f.Close()
		buf := make([]byte, 64<<10)
		for {
			if _, err := f.Write(buf); err != nil {
				return
			}
		}
	}()
	time.Sleep(50 * time.Millisecond)
	cmd.Process.Kill()
	cmd.Wait()
	killed = true
	<-done
	var st syscall.Stat_t
	if err := syscall.Stat(mnt, &st); !errors.Is(err, syscall.ENOTCONN) {
		t.Logf("after the kill, stat of the mount point: %v (ENOTCONN expected)", err)
	}
	e2, err := reopen(t, home)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range revs {
		want := fmt.Sprintf("revision content %d\n", r)
		if got := e2.catRev("crash/a", r, "file.txt"); got != want {
			t.Fatalf("revision %d: %q", r, got)
		}
	}
	rep, err := e2.db.Fsck(context.Background(), meta.FsckOptions{})
	if err != nil || !rep.OK() {
		t.Fatalf("fsck after crash: %v %+v", err, rep)
	}
	w, _ := e2.db.Get(context.Background(), "crash/a")
	if w.Head != revs[len(revs)-1] {
		t.Fatalf("head %d, want %d", w.Head, revs[len(revs)-1])
	}
	if got := mustRead(t, filepath.Join(e2.mnt, "file.txt")); got != fmt.Sprintf("revision content %d\n", w.Head) {
		t.Fatalf("remounted content %q", got)
	}
}

// reopen mounts the state folder of a killed server again.
func reopen(t *testing.T, home string) (*env, error) {
	st, err := objects.OpenDir(filepath.Join(home, "objects"))
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	db, err := meta.Open(ctx, filepath.Join(home, "meta.db"), st, meta.Options{})
	if err != nil {
		return nil, err
	}
	e := &env{t: t, db: db, store: st, home: home, mnt: filepath.Join(home, "mnt")}
	fsys, err := Mount(ctx, e.mnt, Options{DB: db, SpoolDir: filepath.Join(home, "spool"), QuietPeriod: -1, Workspace: "crash/a",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		db.Close()
		return nil, err
	}
	e.fs = fsys
	t.Cleanup(func() {
		fsys.Unmount(context.Background())
		db.Close()
	})
	return e, nil
}

func crashChild() {
	home := os.Getenv("WSFS_FUSEFS_CRASH_CHILD")
	ctx := context.Background()
	st, err := objects.OpenDir(filepath.Join(home, "objects"))
	if err != nil {
		panic(err)
	}
	db, err := meta.Open(ctx, filepath.Join(home, "meta.db"), st, meta.Options{})
	if err != nil {
		panic(err)
	}
	w, err := db.Create(ctx, "crash/a", meta.CreateOptions{Quotas: bigQuotas()})
	if err != nil {
		panic(err)
	}
	fsys, err := Mount(ctx, filepath.Join(home, "mnt"), Options{DB: db, SpoolDir: filepath.Join(home, "spool"), QuietPeriod: -1, Workspace: "crash/a",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		panic(err)
	}
	head := w.Head
	fmt.Printf("ready %d\n", head)
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		rev, _, err := fsys.Snapshot(ctx, "crash/a", head, "", meta.CommitInfo{Command: "loop"})
		if err != nil {
			panic(err)
		}
		head = rev.N
		fmt.Printf("committed %d\n", head)
	}
	select {} // serve until killed
}

// TestDeviceNotInherited: a program the server starts (a warm worker) must
// not inherit /dev/fuse.
func TestDeviceNotInherited(t *testing.T) {
	newEnv(t)
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, ent := range ents {
		if target, _ := os.Readlink("/proc/self/fd/" + ent.Name()); target != "/dev/fuse" {
			continue
		}
		found++
		info, err := os.ReadFile("/proc/self/fdinfo/" + ent.Name())
		if err != nil {
			t.Fatal(err)
		}
		var flags string
		for _, line := range strings.Split(string(info), "\n") {
			if v, ok := strings.CutPrefix(line, "flags:"); ok {
				flags = strings.TrimSpace(v)
			}
		}
		f, err := strconv.ParseUint(flags, 8, 64)
		if err != nil {
			t.Fatalf("fdinfo %s: flags %q: %v", ent.Name(), flags, err)
		}
		if f&syscall.O_CLOEXEC == 0 {
			t.Errorf("/dev/fuse is open on fd %s without close-on-exec (flags %s)", ent.Name(), flags)
		}
	}
	if found == 0 {
		t.Fatal("no descriptor on /dev/fuse while mounted")
	}
}
