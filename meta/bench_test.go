package meta

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/wsfs/wsfs/objects"
)

// BenchmarkCommitOneFile measures a commit that changes one file, in a
// workspace of 10 files and in one of 10,000 (100 directories of 100), on a
// real bbolt file without fsync and the in-memory store, so that the disk
// does not hide the CPU cost. Only the trees on the changed path are
// rewritten, so the two should cost about the same; the design allows at
// most 2x. The 10,000 files arrive in one commit, so the benchmark also
// shows that one huge revision does not slow the commits after it.
func BenchmarkCommitOneFile(b *testing.B) {
	for _, size := range []int{10, 10000} {
		b.Run(fmt.Sprintf("files=%d", size), func(b *testing.B) {
			benchCommitOneFile(b, openTestDB(b, nil), size)
		})
	}
}

// BenchmarkCommitOneFileDurable is the same commit with everything a
// deployment on one machine does: fsync in bbolt and the folder store.
func BenchmarkCommitOneFileDurable(b *testing.B) {
	for _, size := range []int{10, 10000} {
		b.Run(fmt.Sprintf("files=%d", size), func(b *testing.B) {
			dir := b.TempDir()
			store, err := objects.OpenDir(filepath.Join(dir, "store"))
			if err != nil {
				b.Fatal(err)
			}
			db, err := Open(context.Background(), filepath.Join(dir, DBFileName), store, Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			benchCommitOneFile(b, db, size)
		})
	}
}

func benchCommitOneFile(b *testing.B, db *DB, size int) {
	ctx := context.Background()
	rev := setupWorkspace(b, db, size)
	target := fmt.Sprintf("d%03d/f%03d", 0, 0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, ok, err := db.Commit(ctx, "bench/w", rev.N, Change{Ops: []Op{PutBytes(target, []byte(fmt.Sprint("edit ", i)), 0, t0)}})
		if err != nil || !ok {
			b.Fatal(err, ok)
		}
		rev = r
	}
}

// setupWorkspace creates bench/w with size files in directories of 100,
// in one commit.
func setupWorkspace(b *testing.B, db *DB, size int) Revision {
	ctx := context.Background()
	q := DefaultQuotas()
	q.MaxEntries = 1 << 20
	q.MaxWorkspaceBytes = 1 << 30
	w, err := db.Create(ctx, "bench/w", CreateOptions{Quotas: &q})
	if err != nil {
		b.Fatal(err)
	}
	var ops []Op
	dirs := (size + 99) / 100
	for i := 0; i < size; i++ {
		ops = append(ops, PutBytes(fmt.Sprintf("d%03d/f%03d", i%dirs, i/dirs), []byte(fmt.Sprint("content ", i)), 0, t0))
	}
	return mustCommit(b, db, w.Name, 1, ops...)
}

// BenchmarkCommitScaling alternates the one-file commit between a 10-file
// and a 10,000-file workspace, so that both see the same machine load, and
// reports the cost ratio (large/small) as the "ratio" metric; the design
// wants it at most 2.
func BenchmarkCommitScaling(b *testing.B) {
	ctx := context.Background()
	type side struct {
		db   *DB
		rev  Revision
		took time.Duration
	}
	sides := []*side{{db: openTestDB(b, nil)}, {db: openTestDB(b, nil)}}
	for i, size := range []int{10, 10000} {
		sides[i].rev = setupWorkspace(b, sides[i].db, size)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, s := range sides {
			start := time.Now()
			r, ok, err := s.db.Commit(ctx, "bench/w", s.rev.N, Change{Ops: []Op{PutBytes("d000/f000", []byte(fmt.Sprint("edit ", i)), 0, t0)}})
			s.took += time.Since(start)
			if err != nil || !ok {
				b.Fatal(err, ok)
			}
			s.rev = r
		}
	}
	b.ReportMetric(float64(sides[1].took)/float64(sides[0].took), "ratio")
	b.ReportMetric(float64(sides[0].took.Nanoseconds())/float64(b.N), "ns/small")
	b.ReportMetric(float64(sides[1].took.Nanoseconds())/float64(b.N), "ns/large")
}
