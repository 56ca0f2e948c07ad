package runsvc

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta/metatest"
)

// BenchmarkServiceFirst times a new workspace's first command through the
// service (a new confined worker each), over plain folders.
func BenchmarkServiceFirst(b *testing.B) {
	db := metatest.Open(b, nil)
	m := &folderMount{root: b.TempDir()}
	svc, err := New(Config{DB: db, Mount: m, Program: core(b), JSCache: filepath.Join(b.TempDir(), "qjs"), MaxParked: -1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close(context.Background())
	for i := range b.N + 1 {
		metatest.Create(b, db, fmt.Sprintf("bench/w%d", i))
	}
	b.ResetTimer()
	for i := range b.N {
		r, err := svc.Submit(context.Background(), Job{Workspace: fmt.Sprintf("bench/w%d", i), Script: "echo hi"})
		if err != nil {
			b.Fatal(err)
		}
		if rep, err := r.Wait(context.Background()); err != nil || rep.ExitCode != 0 {
			b.Fatal(rep, err)
		}
	}
}

// BenchmarkServiceWarm times a command on a parked worker.
func BenchmarkServiceWarm(b *testing.B) {
	db := metatest.Open(b, nil)
	m := &folderMount{root: b.TempDir()}
	svc, err := New(Config{DB: db, Mount: m, Program: core(b), JSCache: filepath.Join(b.TempDir(), "qjs"),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close(context.Background())
	metatest.Create(b, db, "bench/w")
	run := func() {
		r, err := svc.Submit(context.Background(), Job{Workspace: "bench/w", Script: "echo hi"})
		if err != nil {
			b.Fatal(err)
		}
		if rep, err := r.Wait(context.Background()); err != nil || rep.ExitCode != 0 {
			b.Fatal(rep, err)
		}
	}
	run()
	b.ResetTimer()
	for range b.N {
		run()
		time.Sleep(0)
	}
}
