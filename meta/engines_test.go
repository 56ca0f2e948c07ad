package meta

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta/kv/etcdkv"
	"github.com/wsfs/wsfs/meta/kv/etcdkv/etcdtest"
	"github.com/wsfs/wsfs/objects"
)

// engineEnv chooses the engine of openTestDB in a test binary: "etcd" runs
// the tests on a one-member etcd embedded in the process; anything else,
// bbolt.
const engineEnv = "WSFS_TEST_META_ENGINE"

// testCluster is the embedded etcd of a run on etcd (nil on bbolt).
var testCluster *etcdtest.Cluster

// runOnEngines runs the package's tests on bbolt and then, in a child
// process of the same binary with the same flags, on etcd: every test that
// opens its database with openTestDB (the model test among them) runs on
// both engines. Tests of the meta.db file itself (damage, locks, old
// schemas, crashes) run on bbolt alone. A run of benchmarks, or -short,
// stays on bbolt.
func runOnEngines(m *testing.M) int {
	if os.Getenv(engineEnv) == "etcd" {
		dir, err := os.MkdirTemp("", "wsfs-meta-etcd-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		defer os.RemoveAll(dir)
		c, err := etcdtest.StartDir(dir, 1)
		if err != nil {
			fmt.Fprintln(os.Stderr, "meta tests on etcd:", err)
			return 2
		}
		defer c.Close()
		testCluster = c
		return m.Run()
	}
	code := m.Run()
	stopBenchClusters()
	if code != 0 || testing.Short() || flagSet("test.bench") || os.Getenv(engineEnv) == "bolt" {
		return code
	}
	var args []string
	for _, a := range os.Args[1:] {
		name := strings.TrimLeft(strings.SplitN(a, "=", 2)[0], "-")
		switch name {
		case "test.testlogfile", "test.coverprofile", "test.cpuprofile", "test.memprofile", "test.trace", "test.outputdir", "test.gocoverdir":
			continue
		}
		args = append(args, a)
	}
	fmt.Println("meta: the same tests on etcd")
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), engineEnv+"=etcd")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "meta tests on etcd:", err)
		return 1
	}
	return 0
}

func flagSet(name string) bool {
	f := flag.Lookup(name)
	return f != nil && f.Value.String() != ""
}

// TestEngineInUse holds openTestDB to the engine the run is on.
func TestEngineInUse(t *testing.T) {
	db := openTestDB(t, nil)
	want := "meta.db at "
	if testCluster != nil {
		want = "etcd at "
	}
	if !strings.HasPrefix(db.String(), want) {
		t.Fatalf("openTestDB opened %s, want %s…", db, want)
	}
	t.Log(db)
}

// sameRecords returns a second DB over db's records, as a second server
// would open them: on etcd a new engine under the same prefix; on bbolt,
// which one process holds, db itself.
func sameRecords(t *testing.T, db *DB, store objects.Store) *DB {
	t.Helper()
	e, ok := db.Engine().(*etcdkv.Engine)
	if !ok {
		return db
	}
	eng, err := etcdkv.Open(context.Background(), etcdkv.Options{Endpoints: testCluster.Endpoints(), Prefix: strings.TrimSuffix(e.Prefix(), "/")})
	if err != nil {
		t.Fatal(err)
	}
	db2, err := OpenEngine(context.Background(), eng, store, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db2.Close() })
	return db2
}

// TestCommitsRaceAcrossServers: commits on one base from two servers (two
// DBs over the same records, many goroutines each): exactly one wins per
// base, the others get ErrStale, and no revision is lost or doubled.
func TestCommitsRaceAcrossServers(t *testing.T) {
	ctx := context.Background()
	store := objects.NewMemory()
	a := openTestDB(t, store)
	b := sameRecords(t, a, store)
	w := mustCreate(t, a, "race/w")
	const rounds, racers = 8, 4
	base := w.Head
	for round := range rounds {
		var wg sync.WaitGroup
		wins := make(chan RevNum, racers)
		errs := make(chan error, racers)
		for i := range racers {
			db := a
			if i%2 == 1 {
				db = b
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, ok, err := db.Commit(ctx, w.Name, base, Change{Ops: []Op{PutBytes(fmt.Sprintf("f%d", i), fmt.Appendf(nil, "%d/%d", round, i), 0o644, t0)}, CommitInfo: CommitInfo{Command: "race"}})
				switch {
				case err == nil && ok:
					wins <- r.N
				case errors.Is(err, ErrStale):
				default:
					errs <- fmt.Errorf("racer %d: %v (committed %v)", i, err, ok)
				}
			}()
		}
		wg.Wait()
		close(wins)
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		var won []RevNum
		for n := range wins {
			won = append(won, n)
		}
		if len(won) != 1 || won[0] != base+1 {
			t.Fatalf("round %d: commits won %v on base %d, want exactly one, revision %d", round, won, base, base+1)
		}
		base++
	}
	for _, db := range []*DB{a, b} {
		log, err := db.Log(ctx, w.Name, LogOptions{Limit: 100})
		if err != nil || len(log) != rounds+1 || log[0].N != base {
			t.Fatalf("log after the races: %d revisions, head %v, %v", len(log), log[0].N, err)
		}
	}
	if rep, err := a.Fsck(ctx, FsckOptions{}); err != nil || !rep.OK() {
		t.Fatalf("fsck after the races: %v %+v", err, rep)
	}
}

// TestLargeCommitAndCommand: a commit of more files than one etcd
// transaction can index, and a command larger than one can hold, commit
// whole on either engine; the full command comes back from Show.
func TestLargeCommitAndCommand(t *testing.T) {
	ctx := context.Background()
	store := objects.NewMemory()
	db := openTestDB(t, store)
	w, err := db.Create(ctx, "big/w", CreateOptions{Quotas: bigQuotas()})
	if err != nil {
		t.Fatal(err)
	}
	var ops []Op
	for i := range 1500 {
		ops = append(ops, PutBytes(fmt.Sprintf("d%02d/f%04d", i%30, i), fmt.Appendf(nil, "file %d", i), 0o644, t0))
	}
	script := strings.Repeat("echo 'a long script, é' >> out.txt\n", 60_000) // 2 MiB
	r, ok, err := db.Commit(ctx, w.Name, w.Head, Change{Ops: ops, CommitInfo: CommitInfo{Command: script}})
	if err != nil || !ok {
		t.Fatalf("commit of 1500 files with a 2 MiB command: %v %v", ok, err)
	}
	got, err := db.Show(ctx, Ref{Workspace: w.Name, Rev: r.N})
	if err != nil || got.Command != script || len(got.Changes) != 1530 { // 1500 files and 30 folders
		t.Fatalf("show: %d bytes of command, %d changes, %v", len(got.Command), len(got.Changes), err)
	}
	log, err := db.Log(ctx, w.Name, LogOptions{Limit: 1})
	if err != nil || log[0].CommandOmitted == 0 || len(log[0].Command) > MaxInlineCommand || !strings.HasPrefix(script, log[0].Command) {
		t.Fatalf("log keeps %d bytes of the command (omitted %d), %v", len(log[0].Command), log[0].CommandOmitted, err)
	}
	if got := readFile(t, db, Ref{Workspace: w.Name}, "d07/f1237"); got != "file 1237" {
		t.Fatalf("a file of the large commit reads %q", got)
	}
	if rep, err := db.Fsck(ctx, FsckOptions{}); err != nil || !rep.OK() {
		t.Fatalf("fsck: %v %+v", err, rep)
	}
	gc, err := db.GC(ctx, GCOptions{Delete: true})
	if err != nil || gc.Deleted != 0 {
		t.Fatalf("gc after the large commit: %v %+v", err, gc)
	}
}

// TestEventsAcrossServers: a subscriber of one server sees the creates,
// commits, settings changes and deletes another server makes, in order
// (on bbolt, which one process holds, the two are one DB).
func TestEventsAcrossServers(t *testing.T) {
	ctx := context.Background()
	store := objects.NewMemory()
	a := openTestDB(t, store)
	b := sameRecords(t, a, store)
	events := make(chan Event, 100)
	cancel := b.Subscribe(func(ev Event) {
		if ev.Workspace.Name == "ev/w" {
			events <- ev
		}
	})
	defer cancel()
	next := func(want EventKind) Event {
		t.Helper()
		select {
		case ev := <-events:
			if ev.Kind != want {
				t.Fatalf("event %s (head %d), want %s", ev.Kind, ev.Workspace.Head, want)
			}
			return ev
		case <-time.After(time.Minute):
			t.Fatalf("no %s event", want)
		}
		return Event{}
	}
	w := mustCreate(t, a, "ev/w")
	if ev := next(EventCreate); ev.Workspace.ID != w.ID {
		t.Fatalf("create event of %s", ev.Workspace.ID)
	}
	r := mustCommit(t, a, w.Name, w.Head, PutBytes("f", []byte("x"), 0, t0))
	if ev := next(EventCommit); ev.Workspace.Head != r.N || ev.Workspace.HeadRoot != r.Root {
		t.Fatalf("commit event: head %d, want %d", ev.Workspace.Head, r.N)
	}
	keep := Retention{KeepLast: 5}
	if _, err := a.Update(ctx, w.Name, WorkspaceUpdate{Retention: &keep}); err != nil {
		t.Fatal(err)
	}
	if ev := next(EventUpdate); ev.Workspace.Retention != keep {
		t.Fatalf("update event: %+v", ev.Workspace.Retention)
	}
	if err := a.Delete(ctx, w.Name); err != nil {
		t.Fatal(err)
	}
	next(EventDelete)
}
