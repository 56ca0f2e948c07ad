package meta

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta/kv/etcdkv"
	"github.com/wsfs/wsfs/meta/kv/etcdkv/etcdtest"
	"github.com/wsfs/wsfs/objects"
)

// benchClusters are the etcd clusters of a benchmark run (one member and
// three), started once per process.
var benchClusters struct {
	once   sync.Once
	c1, c3 *etcdtest.Cluster
	dir    string
	err    error
}

// stopBenchClusters stops the clusters benchmarks started (runOnEngines
// calls it when the run ends).
func stopBenchClusters() {
	for _, c := range []*etcdtest.Cluster{benchClusters.c1, benchClusters.c3} {
		if c != nil {
			c.Close()
		}
	}
	if benchClusters.dir != "" {
		os.RemoveAll(benchClusters.dir)
	}
}

func clusters(b *testing.B) (*etcdtest.Cluster, *etcdtest.Cluster) {
	benchClusters.once.Do(func() {
		dir, err := os.MkdirTemp("", "wsfs-bench-etcd-")
		if err != nil {
			benchClusters.err = err
			return
		}
		benchClusters.dir = dir
		if benchClusters.c1, err = etcdtest.StartDir(filepath.Join(dir, "one"), 1); err != nil {
			benchClusters.err = err
			return
		}
		benchClusters.c3, benchClusters.err = etcdtest.StartDir(filepath.Join(dir, "three"), 3)
	})
	if benchClusters.err != nil {
		b.Fatal(benchClusters.err)
	}
	return benchClusters.c1, benchClusters.c3
}

// benchEngines opens a database on each engine the comparison covers:
// bbolt (a file without fsync) and etcd with one and three members
// (embedded, without fsync either), all over the in-memory store.
func benchEngines(b *testing.B) []struct {
	name string
	db   *DB
} {
	c1, c3 := clusters(b)
	ctx := context.Background()
	bolt, err := Open(ctx, filepath.Join(b.TempDir(), DBFileName), objects.NewMemory(), Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { bolt.Close() })
	out := []struct {
		name string
		db   *DB
	}{{"bolt", bolt}}
	for _, c := range []struct {
		name string
		c    *etcdtest.Cluster
	}{{"etcd-1", c1}, {"etcd-3", c3}} {
		db, err := OpenEngine(ctx, c.c.Engine(b, etcdkv.Options{}), objects.NewMemory(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		out = append(out, struct {
			name string
			db   *DB
		}{c.name, db})
	}
	return out
}

// BenchmarkEngines compares the engines on a one-file commit and on a
// history read (wsfs log: the 50 newest of 200 revisions).
func BenchmarkEngines(b *testing.B) {
	ctx := context.Background()
	for _, e := range benchEngines(b) {
		w := mustCreate(b, e.db, "bench/w")
		head := w.Head
		b.Run("commit/"+e.name, func(b *testing.B) {
			for i := range b.N {
				r, _, err := e.db.Commit(ctx, w.Name, head, Change{Ops: []Op{PutBytes("f.txt", fmt.Appendf(nil, "%d", i), 0o644, t0)}, CommitInfo: CommitInfo{Command: "echo"}})
				if err != nil {
					b.Fatal(err)
				}
				head = r.N
			}
		})
		for head < 200 {
			head = mustCommit(b, e.db, w.Name, head, PutBytes("f.txt", fmt.Appendf(nil, "fill %d", head), 0o644, t0)).N
		}
		b.Run("log/"+e.name, func(b *testing.B) {
			for range b.N {
				log, err := e.db.Log(ctx, w.Name, LogOptions{Limit: 50})
				if err != nil || len(log) != 50 {
					b.Fatal(len(log), err)
				}
			}
		})
	}
}

// BenchmarkEtcdManyWorkspaces: creating a workspace and listing them all,
// with 100,000 workspaces on etcd (one member), against the same on bbolt.
// The 100,000 records are loaded directly (as a recover would write
// them); each has its revision 1.
func BenchmarkEtcdManyWorkspaces(b *testing.B) {
	const n = 100_000
	ctx := context.Background()
	c1, _ := clusters(b)
	bolt, err := Open(ctx, filepath.Join(b.TempDir(), DBFileName), objects.NewMemory(), Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer bolt.Close()
	etcd, err := OpenEngine(ctx, c1.Engine(b, etcdkv.Options{}), objects.NewMemory(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer etcd.Close()
	for _, e := range []struct {
		name string
		db   *DB
	}{{"bolt", bolt}, {"etcd-1", etcd}} {
		proto := mustCreate(b, e.db, "many/proto")
		rev, err := e.db.Show(ctx, Ref{Workspace: proto.Name, Rev: 1})
		if err != nil {
			b.Fatal(err)
		}
		w := &chunkWriter{ctx: ctx, eng: e.db.Engine(), lim: e.db.Engine().Limits()}
		for i := range n {
			ws := proto
			ws.Name, ws.ID = fmt.Sprintf("t%03d/w%05d", i%1000, i), newID()
			r := rev
			r.Workspace, r.WorkspaceID = ws.Name, ws.ID
			rb, _ := json.Marshal(revisionRecord{Manifest: rev.Manifest, Revision: r})
			wb, _ := json.Marshal(ws)
			if err := w.put(revBucket(ws.ID), revKey(1), rb); err != nil {
				b.Fatal(err)
			}
			if err := w.put(bucketWorkspaces, []byte(ws.Name), wb); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.flush(); err != nil {
			b.Fatal(err)
		}
		b.Run("create/"+e.name, func(b *testing.B) {
			for i := range b.N {
				if _, err := e.db.Create(ctx, fmt.Sprintf("new/w%d", i), CreateOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("list/"+e.name, func(b *testing.B) {
			for range b.N {
				all, err := e.db.List(ctx, "")
				if err != nil || len(all) < n {
					b.Fatal(len(all), err)
				}
			}
		})
	}
}

// BenchmarkTakeover measures the time from the death of a workspace's
// owner (a server on a three-member etcd whose 1 s lease stops being
// renewed) to the first commit another server makes to that workspace.
func BenchmarkTakeover(b *testing.B) {
	ctx := context.Background()
	_, c3 := clusters(b)
	store := objects.NewMemory()
	prefix := etcdtest.NewPrefix()
	open := func() *DB {
		db, err := OpenEngine(ctx, c3.Engine(b, etcdkv.Options{Prefix: prefix}), store, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		return db
	}
	other := open()
	w := mustCreate(b, other, "takeover/w")
	head := w.Head
	var total time.Duration
	for i := range b.N {
		b.StopTimer()
		owner := open()
		m, err := owner.Join(ctx, ServerInfo{ID: fmt.Sprintf("owner-%d", i)}, time.Second)
		if err != nil {
			b.Fatal(err)
		}
		head = mustCommit(b, owner, w.Name, head, PutBytes("f", fmt.Appendf(nil, "owner %d", i), 0, t0)).N
		next, err := other.Join(ctx, ServerInfo{ID: fmt.Sprintf("next-%d", i)}, time.Second)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		died := time.Now()
		m.Die()
		for {
			r, _, err := other.Commit(ctx, w.Name, head, Change{Ops: []Op{PutBytes("f", fmt.Appendf(nil, "next %d", i), 0, t0)}})
			if err == nil {
				head = r.N
				break
			}
			if !errors.Is(err, ErrNotOwner) {
				b.Fatal(err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		b.StopTimer()
		total += time.Since(died)
		next.Leave()
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "takeover-ms")
}
