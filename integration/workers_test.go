package integration

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestWorkersStartWhileDentriesDrop starts the first command of 200 new
// workspaces, each in a new worker, while another goroutine makes the
// kernel drop its dentry cache over and over (issue 15: confining a
// running worker through libpsx re-opened /proc/PID/task after
// restricting the first thread, which fails once the dentry is gone: 19
// of 20 first commands were killed with "failed to read /proc/PID/task -
// aborting"). Workers are now confined from their first instruction, and
// none may die.
func TestWorkersStartWhileDentriesDrop(t *testing.T) {
	t.Parallel()
	const dropCaches = "/proc/sys/vm/drop_caches"
	if f, err := os.OpenFile(dropCaches, os.O_WRONLY, 0); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("dropping the dentry cache needs root (%v); CI runs as root", err)
		}
		t.Skipf("dropping the dentry cache needs root: %v", err)
	} else {
		f.Close()
	}
	e := NewEnv(t, Local)
	srv := e.Start("--quiet", "1h")
	defer srv.Stop()
	const n = 200
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("fresh/w%03d", i)
	}
	parallel(t, 8, names, func(ws string) {
		e.MustWsfs("create", ws)
	})

	stop := make(chan struct{})
	var drops atomic.Int64
	var dropper sync.WaitGroup
	dropper.Add(1)
	go func() {
		defer dropper.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := os.WriteFile(dropCaches, []byte("2\n"), 0o200); err != nil {
				t.Errorf("dropping the dentry cache: %v", err)
				return
			}
			drops.Add(1)
			// A short breath: the machine is shared (the drops hit every
			// process on it), and a few hundred a second are plenty.
			time.Sleep(2 * time.Millisecond)
		}
	}()
	var mu sync.Mutex
	var failed []string
	parallel(t, 4, names, func(ws string) {
		r := e.Wsfs("run", "-w", ws, "echo ok; echo "+ws+" > f")
		if r.Code != 0 || r.Stdout != "ok\n" {
			mu.Lock()
			failed = append(failed, fmt.Sprintf("%s: exit %d, stdout %q, stderr %q", ws, r.Code, r.Stdout, strings.TrimSpace(r.Stderr)))
			mu.Unlock()
		}
	})
	close(stop)
	dropper.Wait()
	t.Logf("%d first commands while the dentry cache was dropped %d times", n, drops.Load())
	if drops.Load() == 0 {
		t.Fatal("the dentry cache was never dropped")
	}
	if len(failed) > 0 {
		t.Fatalf("%d of %d first commands failed:\n%s", len(failed), n, strings.Join(failed[:min(len(failed), 10)], "\n"))
	}
}

// parallel calls fn for each item, at most k at a time.
func parallel(t *testing.T, k int, items []string, fn func(string)) {
	t.Helper()
	sem := make(chan struct{}, k)
	var wg sync.WaitGroup
	for _, it := range items {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			fn(it)
		}()
	}
	wg.Wait()
}
