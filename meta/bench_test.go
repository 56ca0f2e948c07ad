package meta

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

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
	rev := mustCommit(b, db, w.Name, 1, ops...)
	target := fmt.Sprintf("d%03d/f%03d", 0, 0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, ok, err := db.Commit(ctx, w.Name, rev.N, Change{Ops: []Op{PutBytes(target, []byte(fmt.Sprint("edit ", i)), 0, t0)}})
		if err != nil || !ok {
			b.Fatal(err, ok)
		}
		rev = r
	}
}
