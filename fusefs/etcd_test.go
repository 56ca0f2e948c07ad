package fusefs

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/meta/kv/etcdkv"
	"github.com/wsfs/wsfs/meta/kv/etcdkv/etcdtest"
	"github.com/wsfs/wsfs/objects"
)

// serverOn mounts a server of its own (home, spool, mount point) over the
// folder store at storeDir and the etcd records under prefix, as a second
// machine would.
func serverOn(t *testing.T, c *etcdtest.Cluster, prefix, storeDir string) *env {
	t.Helper()
	requireFUSE(t)
	home := t.TempDir()
	st, err := objects.OpenDir(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	eng, err := etcdkv.Open(ctx, etcdkv.Options{Endpoints: c.Endpoints(), Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	db, err := meta.OpenEngine(ctx, eng, st, meta.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, db: db, store: st, home: home, mnt: filepath.Join(home, "mnt")}
	if err := os.Mkdir(e.mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	trackMount(e.mnt)
	fsys, err := Mount(ctx, e.mnt, Options{DB: db, SpoolDir: filepath.Join(home, "spool"), QuietPeriod: -1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	e.fs = fsys
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := fsys.Unmount(ctx); err != nil {
			t.Errorf("unmount: %v", err)
		}
		db.Close()
	})
	return e
}

// eventually waits until cond holds, failing after a minute.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after a minute", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestTwoServersOneEtcd: two mounts on one etcd and one store; what one
// commits shows on the other's mount (the watch of workspace records), in
// both directions, and their revisions form one history.
func TestTwoServersOneEtcd(t *testing.T) {
	c := etcdtest.Start(t, 1)
	prefix := etcdtest.NewPrefix()
	storeDir := filepath.Join(t.TempDir(), "objects")
	a := serverOn(t, c, prefix, storeDir)
	b := serverOn(t, c, prefix, storeDir)
	dirA := a.create("two/w", nil)
	var dirB string
	eventually(t, "the workspace made on A shows on B", func() bool {
		d, err := b.fs.WorkspaceDir("two/w")
		if err != nil {
			return false
		}
		_, err = os.Stat(d)
		dirB = d
		return err == nil
	})
	mustWrite(t, filepath.Join(dirA, "from-a.txt"), "written on A\n")
	if _, ok := a.snapshot("two/w"); !ok {
		t.Fatal("A's snapshot committed nothing")
	}
	eventually(t, "A's commit shows on B", func() bool {
		got, err := os.ReadFile(filepath.Join(dirB, "from-a.txt"))
		return err == nil && string(got) == "written on A\n"
	})
	mustWrite(t, filepath.Join(dirB, "from-b.txt"), "written on B\n")
	r, ok := b.snapshot("two/w")
	if !ok {
		t.Fatal("B's snapshot committed nothing")
	}
	eventually(t, "B's commit shows on A", func() bool {
		got, err := os.ReadFile(filepath.Join(dirA, "from-b.txt"))
		return err == nil && string(got) == "written on B\n"
	})
	log, err := a.db.Log(context.Background(), "two/w", meta.LogOptions{})
	if err != nil || len(log) != 3 || log[0].N != r.N {
		t.Fatalf("one history: %d revisions, head %v (B committed %d): %v", len(log), log[0].N, r.N, err)
	}
	if got := mustRead(t, filepath.Join(dirA, "from-a.txt")); got != "written on A\n" {
		t.Fatalf("A's own file after B's commit: %q", got)
	}
}
