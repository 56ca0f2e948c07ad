package fusefs

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wsfs/wsfs/internal/testenv"
	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
)

func TestMain(m *testing.M) {
	if op := os.Getenv(asUserEnv); op != "" {
		os.Exit(runAsUserOp(op))
	}
	code := m.Run()
	if helperPath != "" {
		os.RemoveAll(filepath.Dir(helperPath))
	}
	if left := leftoverMounts(); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "fusefs tests left FUSE mounts behind: %v\n", left)
		for _, d := range left {
			_ = syscall.Unmount(d, syscall.MNT_DETACH)
		}
		code = 1
	}
	os.Exit(code)
}

// ownMounts holds the mount points this test binary made, so the leftover
// check looks only at those: other packages' tests mount wsfs at the same
// time, and their live mounts are none of this package's business.
var ownMounts sync.Map

func trackMount(dir string) { ownMounts.Store(dir, true) }

// leftoverMounts lists this binary's mount points still in /proc/mounts.
func leftoverMounts() []string {
	b, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || !strings.HasPrefix(f[2], "fuse") {
			continue
		}
		if _, ok := ownMounts.Load(f[1]); ok {
			out = append(out, f[1])
		}
	}
	return out
}

// requireFUSE stops the test without FUSE (skip, or fail under CI=true).
func requireFUSE(t testing.TB) { testenv.RequireFUSE(t) }

type env struct {
	t     testing.TB
	db    *meta.DB
	store objects.Store
	fs    *FS
	mnt   string
	home  string
}

type envOption func(*Options)

func newEnv(t testing.TB, opts ...envOption) *env {
	t.Helper()
	return newEnvStore(t, nil, opts...)
}

// newEnvStore mounts a fresh home whose folder store is seen through wrap
// (nil: as it is).
func newEnvStore(t testing.TB, wrap func(objects.Store) objects.Store, opts ...envOption) *env {
	t.Helper()
	return newEnvAt(t, t.TempDir(), wrap, opts...)
}

// openHome mounts an existing home (meta.db and objects/).
func openHome(t testing.TB, home string, opts ...envOption) *env {
	t.Helper()
	return newEnvAt(t, home, nil, opts...)
}

func newEnvAt(t testing.TB, home string, wrap func(objects.Store) objects.Store, opts ...envOption) *env {
	t.Helper()
	requireFUSE(t)
	var st objects.Store
	st, err := objects.OpenDir(filepath.Join(home, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	if wrap != nil {
		st = wrap(st)
	}
	ctx := context.Background()
	db, err := meta.Open(ctx, filepath.Join(home, "meta.db"), st, meta.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, db: db, store: st, home: home, mnt: filepath.Join(home, "mnt")}
	if err := os.Mkdir(e.mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	o := Options{DB: db, SpoolDir: filepath.Join(home, "spool"), QuietPeriod: -1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, opt := range opts {
		opt(&o)
	}
	trackMount(e.mnt)
	fsys, err := Mount(ctx, e.mnt, o)
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

// create makes a workspace and returns its folder on the mount.
func (e *env) create(name string, q *meta.Quotas) string {
	e.t.Helper()
	if _, err := e.db.Create(context.Background(), name, meta.CreateOptions{Quotas: q}); err != nil {
		e.t.Fatal(err)
	}
	dir, err := e.fs.WorkspaceDir(name)
	if err != nil {
		e.t.Fatal(err)
	}
	return dir
}

func (e *env) snapshot(name string) (meta.Revision, bool) {
	e.t.Helper()
	w, err := e.db.Get(context.Background(), name)
	if err != nil {
		e.t.Fatal(err)
	}
	rev, ok, err := e.fs.Snapshot(context.Background(), name, w.Head, "", meta.CommitInfo{Command: "test"})
	if err != nil {
		e.t.Fatalf("snapshot %s: %v", name, err)
	}
	return rev, ok
}

func (e *env) catRev(name string, rev meta.RevNum, p string) string {
	e.t.Helper()
	rc, _, err := e.db.OpenFile(context.Background(), meta.Ref{Workspace: name, Rev: rev}, p)
	if err != nil {
		e.t.Fatalf("open %s@%d:%s: %v", name, rev, p, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func mustWrite(t testing.TB, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// damageStored flips one byte of the object d where the folder store of
// env e holds it: its pack, or its single blob.
func damageStored(t *testing.T, e *env, d objects.Digest) {
	t.Helper()
	ctx := context.Background()
	loc, ok, err := e.db.Store().(*objects.Packed).Locator().Locate(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	key, off := d.Key(), int64(0)
	if ok && loc.InPack() {
		key, off = loc.Pack.Key(), loc.Offset
	}
	p := filepath.Join(e.home, "objects", filepath.FromSlash(key))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[off] ^= 0xff
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, b, 0o444); err != nil {
		t.Fatal(err)
	}
}
