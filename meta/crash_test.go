package meta

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wsfs/wsfs/objects"
)

const crashChildEnv = "WSFS_META_CRASH_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		os.Exit(crashChild(dir))
	}
	os.Exit(runOnEngines(m))
}

// crashChild commits in a loop until it is killed, printing every
// revision it was told is committed: "rev N ROOT PATH CONTENT".
func crashChild(dir string) int {
	ctx := context.Background()
	store, err := objects.OpenDir(filepath.Join(dir, "store"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	db, err := Open(ctx, filepath.Join(dir, DBFileName), store, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	const ws = "crash/w"
	if _, err := db.Get(ctx, ws); err != nil {
		q := DefaultQuotas()
		q.MaxFileBytes, q.MaxWorkspaceBytes = 1<<20, 64<<20
		if _, err := db.Create(ctx, ws, CreateOptions{Retention: Retention{KeepLast: 40}, Quotas: &q}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	out := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		w, err := db.Get(ctx, ws)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		p := fmt.Sprintf("d%d/f%d", i%3, i%7)
		content := fmt.Sprintf("pid %d commit %d", os.Getpid(), i)
		// Small files go up in the commit's pack, a large one (every
		// fourth commit) as a single blob before it.
		ops := []Op{PutBytes(p, []byte(content), 0, time.Time{})}
		for j := range i % 3 {
			ops = append(ops, PutBytes(fmt.Sprintf("e%d/g%d", j, i%11), []byte(fmt.Sprintf("%s extra %d", content, j)), 0, time.Time{}))
		}
		if i%4 == 3 {
			big := bytes.Repeat([]byte(content+"\n"), objects.PackThreshold/len(content)+1)
			ops = append(ops, PutBytes(fmt.Sprintf("big%d", i%2), big, 0, time.Time{}))
		}
		if i%5 == 4 {
			ops = append(ops, Remove(fmt.Sprintf("d%d", (i+1)%3)))
		}
		rev, _, err := db.Commit(ctx, ws, w.Head, Change{Ops: ops, CommitInfo: CommitInfo{Command: "loop"}})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		if i%10 == 9 {
			if _, err := db.GC(ctx, GCOptions{Delete: true, Grace: time.Nanosecond}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
		}
		fmt.Fprintf(out, "rev %d %s %s %s\n", rev.N, rev.Root, p, strconv.Quote(content))
		out.Flush()
	}
}

type reported struct {
	n       RevNum
	root    objects.Digest
	path    string
	content string
}

// TestCrashAtRandomPoints kills a committing child process with SIGKILL at
// random moments; every revision it reported must then be intact, the
// database must open and fsck must be clean.
func TestCrashAtRandomPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped in -short mode")
	}
	dir := t.TempDir()
	ctx := context.Background()
	var all []reported
	rounds := 6
	for round := 0; round < rounds; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Kill after a random number of reported commits (so the kill
		// lands at varied points of a commit), or after a deadline.
		target := 3 + rand.IntN(25)
		deadline := time.After(20 * time.Second)
		seen := 0
	wait:
		for seen < target {
			select {
			case l, ok := <-lines:
				if !ok {
					break wait
				}
				all = append(all, parseReport(t, l))
				seen++
			case <-deadline:
				break wait
			}
		}
		time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		for l := range lines {
			all = append(all, parseReport(t, l))
		}
		cmd.Wait()
		if seen == 0 {
			t.Fatalf("round %d: the child reported nothing; stderr: %s", round, stderr.String())
		}
		if strings.TrimSpace(stderr.String()) != "" {
			t.Fatalf("round %d: child error: %s", round, stderr.String())
		}

		store, err := objects.OpenDir(filepath.Join(dir, "store"))
		if err != nil {
			t.Fatal(err)
		}
		db, err := Open(ctx, filepath.Join(dir, DBFileName), store, Options{})
		if err != nil {
			t.Fatalf("round %d: open after kill: %v", round, err)
		}
		rep, err := db.Fsck(ctx, FsckOptions{})
		if err != nil || !rep.OK() {
			db.Close()
			t.Fatalf("round %d: fsck after kill: %v %+v", round, err, rep)
		}
		w, err := db.Get(ctx, "crash/w")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range all {
			if r.n > w.Head {
				t.Fatalf("round %d: revision %d was reported but the head is %d", round, r.n, w.Head)
			}
			if r.n < w.Oldest {
				continue // dropped by retention, as configured
			}
			rev, err := db.Show(ctx, Ref{"crash/w", r.n})
			if err != nil {
				t.Fatalf("round %d: reported revision %d: %v", round, r.n, err)
			}
			if rev.Root != r.root {
				t.Fatalf("round %d: revision %d has root %s, reported %s", round, r.n, rev.Root.Short(), r.root.Short())
			}
			rc, _, err := db.OpenFile(ctx, Ref{"crash/w", r.n}, r.path)
			if err != nil {
				t.Fatalf("round %d: revision %d: %v", round, r.n, err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || string(b) != r.content {
				t.Fatalf("round %d: revision %d %s = %q, %v; want %q", round, r.n, r.path, b, err, r.content)
			}
		}
		db.Close()
	}
	t.Logf("%d reported revisions checked over %d kills", len(all), rounds)

	// The store alone gives them back too.
	store, err := objects.OpenDir(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	recovered := filepath.Join(dir, "recovered.db")
	if _, err := Recover(ctx, recovered, store, RecoverOptions{}); err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, recovered, store, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if rep, err := db.Fsck(ctx, FsckOptions{}); err != nil || !rep.OK() {
		t.Fatalf("fsck after recover: %v %+v", err, rep)
	}
	w, err := db.Get(ctx, "crash/w")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range all {
		if r.n < w.Oldest {
			continue
		}
		rev, err := db.Show(ctx, Ref{"crash/w", r.n})
		if err != nil || rev.Root != r.root {
			t.Fatalf("recovered revision %d: %v (root %s, reported %s)", r.n, err, rev.Root.Short(), r.root.Short())
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no reported revision was recent enough to check after recover")
	}
}

func parseReport(t *testing.T, l string) reported {
	t.Helper()
	f := strings.SplitN(l, " ", 5)
	if len(f) != 5 || f[0] != "rev" {
		t.Fatalf("bad child line %q", l)
	}
	n, _ := strconv.ParseUint(f[1], 10, 64)
	d, err := objects.ParseDigest(f[2])
	if err != nil {
		t.Fatal(err)
	}
	c, err := strconv.Unquote(f[4])
	if err != nil {
		t.Fatal(err)
	}
	return reported{RevNum(n), d, f[3], c}
}
