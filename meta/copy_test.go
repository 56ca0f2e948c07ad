package meta

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/meta/kv"
	"github.com/wsfs/wsfs/meta/kv/boltkv"
	"github.com/wsfs/wsfs/meta/kv/etcdkv"
	"github.com/wsfs/wsfs/meta/kv/etcdkv/etcdtest"
	"github.com/wsfs/wsfs/objects"
)

// etcdEngine returns an empty etcd engine: on the run's cluster, or on one
// of the test's own in a run on bbolt.
func etcdEngine(t *testing.T) *etcdkv.Engine {
	t.Helper()
	c := testCluster
	if c == nil {
		c = etcdtest.Start(t, 1)
	}
	return c.Engine(t, etcdkv.Options{})
}

// history returns what a workspace's log and files say, to compare two
// databases.
func history(t *testing.T, db *DB, ws string) string {
	t.Helper()
	ctx := context.Background()
	log, err := db.Log(ctx, ws, LogOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range log {
		fmt.Fprintf(&b, "%d %s %s\n", r.N, r.Root, r.Command)
	}
	outs, err := db.Outputs(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		b.WriteString("output " + o.Digest.String() + "\n")
	}
	return b.String()
}

// TestCopyBoltEtcdBolt: meta.db → etcd → meta.db keeps every record (the
// copy checks itself), and each copy serves the same history; a copy into
// an engine that holds records is refused.
func TestCopyBoltEtcdBolt(t *testing.T) {
	ctx := context.Background()
	store := objects.NewMemory()
	dir := t.TempDir()
	src, err := Open(ctx, filepath.Join(dir, "a.db"), store, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i := range 5 {
		w := mustCreate(t, src, "copy/w"+string(rune('a'+i)))
		names = append(names, w.Name)
		r := w.Head
		for j := range 30 + i {
			r = mustCommit(t, src, w.Name, r, PutBytes("f", []byte(strings.Repeat("x", j+i)), 0, t0)).N
		}
		d, err := src.PutOutput(ctx, w.Name, []byte("out "+w.Name))
		if err != nil {
			t.Fatal(err)
		}
		if err := src.RecordOutput(ctx, w.Name, Output{Digest: d, Time: t0}); err != nil {
			t.Fatal(err)
		}
	}
	if err := src.Delete(ctx, names[4]); err != nil {
		t.Fatal(err)
	}
	names = names[:4]
	want := map[string]string{}
	for _, n := range names {
		want[n] = history(t, src, n)
	}
	src.Close()

	bolt1, err := boltkv.Open(filepath.Join(dir, "a.db"), boltkv.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer bolt1.Close()
	e := etcdEngine(t)
	rep, err := CopyRecords(ctx, bolt1, e)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Workspaces != 4 || rep.Records < 4*30 {
		t.Fatalf("copied %+v", rep)
	}
	if _, err := CopyRecords(ctx, bolt1, e); err == nil || !strings.Contains(err.Error(), "already holds records") {
		t.Fatalf("a second copy into the same prefix: %v", err)
	}
	bolt2, err := boltkv.Open(filepath.Join(dir, "b.db"), boltkv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	back, err := CopyRecords(ctx, e, bolt2)
	if err != nil {
		t.Fatal(err)
	}
	if back.Digest != rep.Digest || back.Records != rep.Records {
		t.Fatalf("etcd → meta.db copied %+v, meta.db → etcd %+v", back, rep)
	}
	bolt2.Close()

	onEtcd, err := OpenEngine(ctx, sameEngine(t, e), store, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer onEtcd.Close()
	onBolt, err := Open(ctx, filepath.Join(dir, "b.db"), store, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer onBolt.Close()
	for _, db := range []*DB{onEtcd, onBolt} {
		for _, n := range names {
			if got := history(t, db, n); got != want[n] {
				t.Fatalf("%s: %s after the copy:\n%s\nwant\n%s", db, n, got, want[n])
			}
		}
		if _, err := db.Get(ctx, "copy/we"); err == nil {
			t.Fatalf("%s: the deleted workspace came back", db)
		}
		if rep, err := db.Fsck(ctx, FsckOptions{}); err != nil || !rep.OK() {
			t.Fatalf("%s: fsck after the copy: %v %+v", db, err, rep)
		}
		// And it takes commits.
		w, _ := db.Get(ctx, names[0])
		mustCommit(t, db, names[0], w.Head, PutBytes("g", []byte("after"), 0, t0))
	}
}

// sameEngine opens a second engine on e's records.
func sameEngine(t *testing.T, e *etcdkv.Engine) kv.Engine {
	t.Helper()
	eng, err := etcdkv.Open(context.Background(), etcdkv.Options{Endpoints: e.Client().Endpoints(), Prefix: strings.TrimSuffix(e.Prefix(), "/")})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// TestRecoverIntoEtcd: the bucket alone rebuilds meta on etcd.
func TestRecoverIntoEtcd(t *testing.T) {
	ctx := context.Background()
	store := objects.NewMemory()
	src := openTestDB(t, store)
	w := mustCreate(t, src, "rec/w")
	r := w.Head
	for j := range 12 {
		r = mustCommit(t, src, w.Name, r, PutBytes("f", []byte(strings.Repeat("y", j)), 0, t0)).N
	}
	want := history(t, src, w.Name)
	e := etcdEngine(t)
	rep, err := RecoverEngine(ctx, sameEngine(t, e), store, t.TempDir(), RecoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Workspaces) != 1 || rep.Revisions != 13 {
		t.Fatalf("recovered %+v", rep)
	}
	db, err := OpenEngine(ctx, e, store, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := history(t, db, w.Name); got != want {
		t.Fatalf("recovered history:\n%s\nwant\n%s", got, want)
	}
	if _, err := RecoverEngine(ctx, sameEngine(t, e), store, t.TempDir(), RecoverOptions{}); err == nil || !strings.Contains(err.Error(), "already holds records") {
		t.Fatalf("recover into a prefix that holds records: %v", err)
	}
}
