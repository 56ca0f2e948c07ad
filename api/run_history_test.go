package api

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"testing"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/meta/metatest"
)

// TestRunHistory checks the commands a turn carries for `history`: the
// workspace's revisions oldest first, without mount edits and wsfs verbs.
func TestRunHistory(t *testing.T) {
	ctx := context.Background()
	db := metatest.Open(t, nil)
	metatest.Create(t, db, "acme/h")
	for _, cmd := range []string{"mkdir src", "(edits on the mount)", "wsfs import acme/h dir", "touch a\ntouch b", "", "echo x > y"} {
		w, err := db.Get(ctx, "acme/h")
		if err != nil {
			t.Fatal(err)
		}
		ops := []meta.Op{meta.PutBytes("f", []byte(cmd+"!"), 0, w.Created)}
		if _, _, err := db.Commit(ctx, w.Name, w.Head, meta.Change{Ops: ops, CommitInfo: meta.CommitInfo{Command: cmd, Author: "test"}}); err != nil {
			t.Fatal(err)
		}
	}
	srv := NewServer(Config{DB: db, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	got := srv.runHistory(ctx, "acme/h")
	want := []string{"mkdir src", "touch a\ntouch b", "echo x > y"}
	if !slices.Equal(got, want) {
		t.Errorf("history %q, want %q", got, want)
	}
	if h := srv.runHistory(ctx, "acme/nope"); h != nil {
		t.Errorf("history of a missing workspace: %q", h)
	}
}

// BenchmarkRunHistory measures what reading the history adds to each
// run's turn: the last 100 revisions' log entries.
func BenchmarkRunHistory(b *testing.B) {
	ctx := context.Background()
	db := metatest.Open(b, nil)
	metatest.Create(b, db, "acme/h")
	for i := range 120 {
		w, err := db.Get(ctx, "acme/h")
		if err != nil {
			b.Fatal(err)
		}
		var ops []meta.Op
		for j := range 5 {
			ops = append(ops, meta.PutBytes(fmt.Sprintf("d/f%d", j), fmt.Appendf(nil, "%d", i), 0, w.Created))
		}
		if _, _, err := db.Commit(ctx, w.Name, w.Head, meta.Change{Ops: ops, CommitInfo: meta.CommitInfo{Command: fmt.Sprintf("step %d", i), Author: "test"}}); err != nil {
			b.Fatal(err)
		}
	}
	srv := NewServer(Config{DB: db, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	b.ResetTimer()
	for b.Loop() {
		if h := srv.runHistory(ctx, "acme/h"); len(h) != 100 {
			b.Fatalf("%d commands", len(h))
		}
	}
}
