package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
)

// BenchmarkMountScale measures issue 4's scale target: a server over
// 10,000 workspaces starts (process start to readiness line) in ≤ 1 s and
// stays ≤ 100 MiB resident while idle. It also reports the resident size
// after every workspace has been looked up on the mount.
//
//	go test -run '^$' -bench MountScale -benchtime 3x ./cmd/wsfs-core
func BenchmarkMountScale(b *testing.B) {
	requireFUSE(b)
	const tenants, perTenant = 100, 100
	base := b.TempDir()
	home, mnt := filepath.Join(base, "home"), filepath.Join(base, "mnt")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		b.Fatal(err)
	}
	mountDirsMu.Lock()
	mountDirs = append(mountDirs, mnt)
	mountDirsMu.Unlock()
	populate(b, home, tenants, perTenant)
	wsfsBinary(b) // built on first use: before the clock starts, not in the first start

	var startTotal time.Duration
	var idleRSS, busyRSS int64
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		s := startServer(b, home, mnt, "--quiet", "2s")
		startTotal += time.Since(t0)
		b.StopTimer()
		time.Sleep(time.Second) // idle: let start-up garbage be collected
		idleRSS = max(idleRSS, vmRSS(b, s.cmd.Process.Pid))
		for i := range tenants {
			tdir := filepath.Join(mnt, fmt.Sprintf("t%03d", i))
			names, err := os.ReadDir(tdir)
			if err != nil || len(names) != perTenant {
				b.Fatalf("readdir %s: %d entries, %v", tdir, len(names), err)
			}
			for _, n := range names {
				if _, err := os.Stat(filepath.Join(tdir, n.Name())); err != nil {
					b.Fatal(err)
				}
			}
		}
		busyRSS = max(busyRSS, vmRSS(b, s.cmd.Process.Pid))
		if err := s.stop(syscall.SIGTERM); err != nil {
			b.Fatalf("stop: %v\n%s", err, s.stderr)
		}
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(startTotal.Milliseconds())/float64(b.N), "ms/start")
	b.ReportMetric(float64(idleRSS)/(1<<20), "MiB-rss-idle")
	b.ReportMetric(float64(busyRSS)/(1<<20), "MiB-rss-all-looked-up")
}

// populate creates tenants×perTenant workspaces in home (NoSync).
func populate(b *testing.B, home string, tenants, perTenant int) {
	b.Helper()
	ctx := context.Background()
	st, err := objects.OpenDir(filepath.Join(home, "objects"))
	if err != nil {
		b.Fatal(err)
	}
	db, err := meta.Open(ctx, filepath.Join(home, meta.DBFileName), st, meta.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var wg sync.WaitGroup
	errs := make(chan error, tenants)
	for i := range tenants {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range perTenant {
				if _, err := db.Create(ctx, fmt.Sprintf("t%03d/w%03d", i, j), meta.CreateOptions{Owner: "bench"}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

// vmRSS reads a process's resident set size in bytes.
func vmRSS(b *testing.B, pid int) int64 {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatal("no VmRSS in /proc/PID/status")
	return 0
}
