package fusefs

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
)

// stallStore is a store whose Open and Put, once armed, wait until the
// test releases them (or a safety cap passes, so that a mount that blocks
// on them fails the test instead of hanging it). blocked counts the calls
// waiting right now: an operation that returns while it is above zero
// provably did not wait for the store.
type stallStore struct {
	objects.Store
	armed   atomic.Bool
	blocked atomic.Int32
	entered chan string
	release chan struct{}
	once    sync.Once
}

const stallCap = 30 * time.Second

func newStallStore(st objects.Store) *stallStore {
	return &stallStore{Store: st, entered: make(chan string, 64), release: make(chan struct{})}
}

func (s *stallStore) stall(what string) {
	if !s.armed.Load() {
		return
	}
	s.blocked.Add(1)
	defer s.blocked.Add(-1)
	select {
	case s.entered <- what:
	default:
	}
	select {
	case <-s.release:
	case <-time.After(stallCap):
	}
}

func (s *stallStore) letGo() { s.once.Do(func() { close(s.release) }) }

func (s *stallStore) Put(ctx context.Context, d objects.Digest, r io.Reader, size int64) error {
	s.stall("put")
	return s.Store.Put(ctx, d, r, size)
}

func (s *stallStore) Open(ctx context.Context, d objects.Digest, off, length int64) (io.ReadCloser, error) {
	s.stall("get")
	return s.Store.Open(ctx, d, off, length)
}

// TestSlowStoreDoesNotStallTheWorkspace: while a commit's upload and a
// file's fetch are stuck in the store, stat, readdir, reads of cached
// files and writes in the same workspace still answer, and the edits made
// during the commit are neither lost nor taken into it.
func TestSlowStoreDoesNotStallTheWorkspace(t *testing.T) {
	var st *stallStore
	e := newEnvStore(t, func(s objects.Store) objects.Store { st = newStallStore(s); return st })
	ctx := t.Context()
	const name = "slow/a"
	dir := e.create(name, nil)
	// cold.txt is committed elsewhere: its blob is in the store only.
	if _, _, err := e.db.WriteFile(ctx, name, "cold.txt", strings.NewReader("cold content"), meta.WriteFileOptions{}); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "cached.txt"), "cached content")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "sub", "x"), "x")
	base, _ := e.snapshot(name) // cached.txt's spool becomes its cached copy
	mustWrite(t, filepath.Join(dir, "dirty.txt"), "frozen")
	if _, err := os.Stat(filepath.Join(dir, "cold.txt")); err != nil {
		t.Fatal(err)
	}

	st.armed.Store(true)
	type result struct {
		rev meta.Revision
		err error
	}
	committed := make(chan result, 1)
	go func() {
		rev, _, err := e.fs.Snapshot(context.Background(), name, base.N, "", meta.CommitInfo{Command: "stalled"})
		committed <- result{rev, err}
	}()
	fetched := make(chan error, 1)
	go func() {
		_, err := os.ReadFile(filepath.Join(dir, "cold.txt"))
		fetched <- err
	}()
	seen := map[string]bool{}
	for !seen["put"] || !seen["get"] {
		select {
		case what := <-st.entered:
			seen[what] = true
		case <-time.After(stallCap):
			t.Fatalf("the store saw %v, want a stalled put and get", seen)
		}
	}

	// Each operation must answer while the store is still holding both
	// calls. It runs in a goroutine so that a mount that waits for the
	// store fails the test when the cap frees the store, not hangs it.
	check := func(what string, op func() error) {
		t.Helper()
		start := time.Now()
		done := make(chan error, 1)
		go func() { done <- op() }()
		err := <-done
		took := time.Since(start)
		if err != nil {
			t.Fatalf("%s during a stalled store: %v", what, err)
		}
		if n := st.blocked.Load(); n < 2 {
			t.Fatalf("%s answered only after the store let go (%d calls still stalled, took %v)", what, n, took)
		}
		t.Logf("%s answered in %v while the store stalled", what, took)
	}
	check("stat", func() error { _, err := os.Stat(filepath.Join(dir, "cached.txt")); return err })
	check("stat of a directory", func() error { _, err := os.Stat(filepath.Join(dir, "sub")); return err })
	check("readdir", func() error { _, err := os.ReadDir(dir); return err })
	check("read of a cached file", func() error {
		b, err := os.ReadFile(filepath.Join(dir, "cached.txt"))
		if err == nil && string(b) != "cached content" {
			t.Errorf("cached.txt reads %q", b)
		}
		return err
	})
	check("write of a file being committed", func() error {
		return os.WriteFile(filepath.Join(dir, "dirty.txt"), []byte("written during the commit"), 0o644)
	})
	check("create", func() error { return os.WriteFile(filepath.Join(dir, "during.txt"), []byte("new"), 0o644) })
	check("read of the file being committed", func() error {
		b, err := os.ReadFile(filepath.Join(dir, "dirty.txt"))
		if err == nil && string(b) != "written during the commit" {
			t.Errorf("dirty.txt reads %q during the commit", b)
		}
		return err
	})
	select {
	case r := <-committed:
		t.Fatalf("the commit ended while its upload was stalled: %+v", r)
	case err := <-fetched:
		t.Fatalf("the cold read ended while its fetch was stalled: %v", err)
	default:
	}

	st.letGo()
	st.armed.Store(false)
	r := <-committed
	if r.err != nil {
		t.Fatal(r.err)
	}
	if err := <-fetched; err != nil {
		t.Fatalf("reading cold.txt after the stall: %v", err)
	}
	// The commit holds the tree as it froze it; the edits made during it
	// stay on the mount and go into the next one.
	if got := e.catRev(name, r.rev.N, "dirty.txt"); got != "frozen" {
		t.Fatalf("the stalled commit recorded dirty.txt as %q, want the frozen %q", got, "frozen")
	}
	if _, _, err := e.db.OpenFile(ctx, meta.Ref{Workspace: name, Rev: r.rev.N}, "during.txt"); err == nil {
		t.Fatal("a file created during the commit went into it")
	}
	if got := mustRead(t, filepath.Join(dir, "dirty.txt")); got != "written during the commit" {
		t.Fatalf("after the commit dirty.txt reads %q", got)
	}
	next, ok := e.snapshot(name)
	if !ok {
		t.Fatal("the edits made during the commit were left out of the next one (nothing to commit)")
	}
	if got := e.catRev(name, next.N, "dirty.txt"); got != "written during the commit" {
		t.Fatalf("next commit: dirty.txt is %q", got)
	}
	if got := e.catRev(name, next.N, "during.txt"); got != "new" {
		t.Fatalf("next commit: during.txt is %q", got)
	}
	if _, ok := e.snapshot(name); ok {
		t.Fatal("a third commit found changes: the second left entries dirty")
	}
}

// TestCommitDuringWritesLosesNothing commits again and again while files
// are written: every commit is a state the files had, and the last one
// holds every write.
func TestCommitDuringWritesLosesNothing(t *testing.T) {
	e := newEnv(t)
	const name = "busy/a"
	dir := e.create(name, nil)
	const files, rounds = 8, 40
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var commitErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			w, err := e.db.Get(context.Background(), name)
			if err == nil {
				_, _, err = e.fs.Snapshot(context.Background(), name, w.Head, "", meta.CommitInfo{Command: "busy"})
			}
			if err != nil {
				commitErr = err
				return
			}
		}
	}()
	for r := range rounds {
		for i := range files {
			p := filepath.Join(dir, "f"+string(rune('a'+i)))
			content := []byte(time.Duration(r).String() + "/" + string(rune('a'+i)))
			if err := os.WriteFile(p, content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(stop)
	wg.Wait()
	if commitErr != nil {
		t.Fatal(commitErr)
	}
	last, _ := e.snapshot(name)
	for i := range files {
		want := time.Duration(rounds-1).String() + "/" + string(rune('a'+i))
		if got := e.catRev(name, last.N, "f"+string(rune('a'+i))); got != want {
			t.Fatalf("f%c: committed %q, want %q", 'a'+i, got, want)
		}
	}
}
