package meta_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
)

// The life of a workspace: create, commit a command's changes, read the
// history, restore.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "wsfs-example")
	defer os.RemoveAll(dir)
	store := objects.NewMemory()
	db, err := meta.Open(ctx, filepath.Join(dir, meta.DBFileName), store, meta.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()

	ws, _ := db.Create(ctx, "acme/reports", meta.CreateOptions{Owner: "ana"})
	fmt.Println("created", ws.Name, "at revision", ws.Head)

	// What a command did, as path operations on the head.
	mtime := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rev, committed, err := db.Commit(ctx, ws.Name, ws.Head, meta.Change{
		Ops: []meta.Op{
			meta.PutBytes("q1/summary.csv", []byte("region,total\nnorth,12\n"), 0o644, mtime),
			meta.Symlink("latest", "q1/summary.csv", mtime),
		},
		Cwd:        "/q1",
		CommitInfo: meta.CommitInfo{Command: "python report.py", ExitCode: 0, Author: "agent-7"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("revision", rev.N, committed, rev.Cwd, rev.Stats.Files, "file(s)")
	for _, c := range rev.Changes {
		fmt.Println(" ", c.Action, c.Path)
	}

	// A second commit on the same base loses the race.
	_, _, err = db.Commit(ctx, ws.Name, ws.Head, meta.Change{Ops: []meta.Op{meta.Remove("latest")}})
	fmt.Println("stale:", errors.Is(err, meta.ErrStale))

	// Restore adds a revision; history is never rewritten.
	back, _, _ := db.Restore(ctx, meta.Ref{Workspace: ws.Name, Rev: 1}, meta.CommitInfo{Author: "ana"})
	log, _ := db.Log(ctx, ws.Name, meta.LogOptions{})
	for _, r := range log {
		fmt.Println(r.N, r.Command)
	}
	fmt.Println("head is empty again:", back.Root == meta.EmptyTreeDigest)

	rc, _, err := db.OpenFile(ctx, meta.Ref{Workspace: ws.Name, Rev: 2}, "latest")
	if err == nil {
		b, _ := io.ReadAll(rc) // verified against the digest at the end
		rc.Close()
		fmt.Printf("%q\n", b)
	}
	// Output:
	// created acme/reports at revision 1
	// revision 2 true /q1 1 file(s)
	//   added latest
	//   added q1
	//   added q1/summary.csv
	// stale: true
	// 3 restore acme/reports@1
	// 2 python report.py
	// 1 create acme/reports
	// head is empty again: true
	// "region,total\nnorth,12\n"
}
