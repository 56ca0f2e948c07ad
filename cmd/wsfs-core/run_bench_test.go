package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wsfs/wsfs/internal/testenv"
)

// BenchmarkRun measures what an agent waits for (issue 5 item 10, issue
// 15 point 9): one command, from process start to exit, through the real
// binaries with a server running on a real FUSE mount, against GNU bash,
// GNU sed and the just-bash CLI in the same run:
//
//	go test -run '^$' -bench BenchmarkRun -benchtime 30x ./cmd/wsfs-core
//
// Its subs:
//
//   - wsfs-echo: `wsfs run -w T/N 'echo hi'` after the first (on the worker
//     parked for the workspace, as an agent's session runs); bash-echo is
//     `bash -c 'echo hi'`, justbash-echo `just-bash --allow-write --root
//     DIR -c 'echo hi'` (installed with npm into the user's cache folder
//     once).
//   - wsfs-echo-first: the same command as the first of a new workspace,
//     with cpu-ms/op, the CPU time of the server and its workers per
//     command (from /proc, reaped workers included).
//   - wsfs-echo-first-4x20 and bash-echo-4x20: 20 new workspaces' first
//     commands, four at a time (ns/op is a batch of 20; p50-ms one
//     command; cpu-ms/op the server's and workers' CPU per batch).
//   - wsfs-write: a command that writes a file (a revision each time).
//   - wsfs-edit and bash-edit: `echo $RANDOM >> log.txt`, wsfs's with its
//     commit, bash's on tmpfs.
//   - wsfs-sed10m and gnu-sed10m: `sed s/a/b/g` of a 10 MB file to
//     stdout, the workspace's file against GNU sed on local disk.
//   - wsfs-create: `wsfs create` through the front.
//   - wsfs-jsexec, wsfs-jsexec-first and justbash-jsexec: `js-exec -c
//     'console.log(1)'` warm (the parked worker has loaded QuickJS), as a
//     workspace's first command, and through the just-bash CLI (under a
//     Node 22 that npm installs into the cache folder once).
//
// Each reports p50-ms besides ns/op. Between two commands the benchmark
// pauses untimed (WSFS_BENCH_PAUSE, default 500ms; 0 for back-to-back
// commands), as an agent does between its commands, so the server has
// its warm workers back; bash, sed and just-bash get the same pause.
func BenchmarkRun(b *testing.B) {
	requireFUSE(b)
	pause := 500 * time.Millisecond
	if v := os.Getenv("WSFS_BENCH_PAUSE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("WSFS_BENCH_PAUSE=%s: %v", v, err)
		}
		pause = d
	}
	bin := frontBinaries(b)
	base := b.TempDir()
	home, mnt := filepath.Join(base, "home"), filepath.Join(base, "mnt")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		b.Fatal(err)
	}
	mountDirsMu.Lock()
	mountDirs = append(mountDirs, mnt)
	mountDirsMu.Unlock()
	// Enough parked workers that none of the first commands' workers is
	// evicted (their CPU is read while they live).
	s := startServer(b, home, mnt, "--quiet", "1h", "--parked", "256")
	defer s.stop(os.Interrupt)
	if _, errOut, code := wsfsBin(b, home, "", "create", "bench/run"); code != 0 {
		b.Fatalf("create: %s", errOut)
	}
	env := append(os.Environ(), "WSFS_HOME="+home, "WSFS_STORE=")
	wsfs := func(script string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(bin, "wsfs"), "run", "-w", "bench/run", script)
		cmd.Env = env
		return cmd
	}
	b.Run("wsfs-echo", func(b *testing.B) {
		timeCommands(b, pause, "hi\n", func(int) *exec.Cmd { return wsfs("echo hi") })
	})
	// firstCommands runs each command as the first of a workspace of its
	// own: no worker is parked for it, so an idle one confines itself
	// (Landlock) first.
	created := 0 // the testing package may call a benchmark more than once
	firstCommands := func(b *testing.B, want, script string) {
		first := created
		for range b.N + 1 {
			if _, errOut, code := wsfsBin(b, home, "", "create", fmt.Sprintf("bench/first%d", created)); code != 0 {
				b.Fatalf("create: %s", errOut)
			}
			created++
		}
		timeCommands(b, pause, want, func(i int) *exec.Cmd {
			cmd := exec.Command(filepath.Join(bin, "wsfs"), "run", "-w", fmt.Sprintf("bench/first%d", first+i+1), script)
			cmd.Env = env
			return cmd
		})
	}
	b.Run("wsfs-echo-first", func(b *testing.B) {
		cpu := serverCPU(b, s.cmd.Process.Pid)
		firstCommands(b, "hi\n", "echo hi")
		b.ReportMetric((serverCPU(b, s.cmd.Process.Pid)-cpu).Seconds()*1000/float64(b.N+1), "cpu-ms/op")
	})
	// Twenty new workspaces' first commands, four at a time.
	batch := 0
	b.Run("wsfs-echo-first-4x20", func(b *testing.B) {
		var names [][]string
		for range b.N + 1 {
			var ws []string
			for j := range 20 {
				name := fmt.Sprintf("bench/batch%d-%d", batch, j)
				if _, errOut, code := wsfsBin(b, home, "", "create", name); code != 0 {
					b.Fatalf("create: %s", errOut)
				}
				ws = append(ws, name)
			}
			batch++
			names = append(names, ws)
		}
		cpu := serverCPU(b, s.cmd.Process.Pid)
		timeBatches(b, pause, func(i, j int) *exec.Cmd {
			cmd := exec.Command(filepath.Join(bin, "wsfs"), "run", "-w", names[i+1][j], "echo hi")
			cmd.Env = env
			return cmd
		})
		b.ReportMetric((serverCPU(b, s.cmd.Process.Pid)-cpu).Seconds()*1000/float64(b.N), "cpu-ms/op")
	})
	b.Run("bash-echo-4x20", func(b *testing.B) {
		timeBatches(b, pause, func(int, int) *exec.Cmd { return exec.Command("bash", "-c", "echo hi") })
	})
	b.Run("wsfs-write", func(b *testing.B) {
		before := benchRevisions(b, home)
		timeCommands(b, pause, "", func(i int) *exec.Cmd { return wsfs(fmt.Sprintf("echo %d > out.txt", i)) })
		// Every command made its revision (the snapshot was part of it).
		if got := benchRevisions(b, home) - before; got < b.N {
			b.Fatalf("%d commands that each changed out.txt made %d revisions", b.N, got)
		}
	})
	// An edit, its commit included, against bash appending to a file on
	// tmpfs.
	b.Run("wsfs-edit", func(b *testing.B) {
		before := benchRevisions(b, home)
		timeCommands(b, pause, "", func(int) *exec.Cmd { return wsfs("echo $RANDOM >> log.txt") })
		if got := benchRevisions(b, home) - before; got < b.N {
			b.Fatalf("%d edits made %d revisions", b.N, got)
		}
	})
	b.Run("bash-edit", func(b *testing.B) {
		dir, err := os.MkdirTemp("/dev/shm", "wsfs-bench-")
		if err != nil {
			b.Fatal(err)
		}
		defer os.RemoveAll(dir)
		timeCommands(b, pause, "", func(int) *exec.Cmd {
			return exec.Command("bash", "-c", "echo $RANDOM >> "+filepath.Join(dir, "log.txt"))
		})
	})
	// 10 MB of output: sed over a 10 MB file to stdout, against GNU sed
	// over the same file on local disk.
	big := sedInput(b)
	b.Run("wsfs-sed10m", func(b *testing.B) {
		const ws = "bench/sed"
		if _, errOut, code := wsfsBin(b, home, "", "create", ws); code != 0 && !strings.Contains(errOut, "exists") {
			b.Fatalf("create: %s", errOut)
		}
		if _, errOut, code := wsfsBin(b, home, "", "quota", ws, "set", "file-bytes=16MiB", "workspace-bytes=64MiB"); code != 0 {
			b.Fatalf("quota: %s", errOut)
		}
		in, err := os.Open(big)
		if err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(filepath.Join(bin, "wsfs"), "put", "--force", ws, "big.txt")
		cmd.Env, cmd.Stdin = env, in
		out, err := cmd.CombinedOutput()
		in.Close()
		if err != nil {
			b.Fatalf("put: %v\n%s", err, out)
		}
		timeCommands(b, pause, "", func(int) *exec.Cmd {
			cmd := exec.Command(filepath.Join(bin, "wsfs"), "run", "-w", ws, "sed s/a/b/g big.txt")
			cmd.Env = env
			return cmd
		})
	})
	b.Run("gnu-sed10m", func(b *testing.B) {
		timeCommands(b, pause, "", func(int) *exec.Cmd { return exec.Command("sed", "s/a/b/g", big) })
	})
	// wsfs create, through the front, against bash -c.
	creates := 0
	b.Run("wsfs-create", func(b *testing.B) {
		timeCommands(b, pause, "", func(int) *exec.Cmd {
			creates++
			cmd := exec.Command(filepath.Join(bin, "wsfs"), "create", fmt.Sprintf("bench/create%d", creates))
			cmd.Env = env
			return cmd
		})
	})
	b.Run("wsfs-jsexec", func(b *testing.B) {
		timeCommands(b, pause, "1\n", func(int) *exec.Cmd { return wsfs("js-exec -c 'console.log(1)'") })
	})
	b.Run("wsfs-jsexec-first", func(b *testing.B) { firstCommands(b, "1\n", "js-exec -c 'console.log(1)'") })
	b.Run("bash-echo", func(b *testing.B) {
		timeCommands(b, pause, "hi\n", func(int) *exec.Cmd { return exec.Command("bash", "-c", "echo hi") })
	})
	b.Run("justbash-echo", func(b *testing.B) {
		jb := testenv.JustBash(b)
		root := b.TempDir()
		timeCommands(b, pause, "hi\n", func(int) *exec.Cmd {
			return exec.Command(jb, "--allow-write", "--root", root, "-c", "echo hi")
		})
	})
	b.Run("justbash-jsexec", func(b *testing.B) {
		script, node := testenv.JustBash(b), testenv.Node22(b)
		root := b.TempDir()
		timeCommands(b, pause, "1\n", func(int) *exec.Cmd {
			return exec.Command(node, script, "--javascript", "--allow-write", "--root", root, "-c", "js-exec -c 'console.log(1)'")
		})
	})
}

// timeCommands runs b.N commands one after the other, each timed from
// start to exit (its stdout on /dev/null), and reports their median. The
// first command's output is checked against want (if not empty).
func timeCommands(b *testing.B, pause time.Duration, want string, mk func(i int) *exec.Cmd) {
	b.Helper()
	if want != "" {
		out, err := mk(-1).Output()
		if err != nil || string(out) != want {
			b.Fatalf("the command printed %q, %v; want %q", out, err, want)
		}
	}
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devNull.Close()
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	b.StopTimer()
	for i := range b.N {
		time.Sleep(pause)
		cmd := mk(i)
		var stderr strings.Builder
		cmd.Stdout, cmd.Stderr = devNull, &stderr
		b.StartTimer()
		t0 := time.Now()
		err := cmd.Run()
		d := time.Since(t0)
		b.StopTimer()
		if err != nil {
			b.Fatalf("%s: %v\n%s", cmd, err, stderr.String())
		}
		times = append(times, d)
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
}

// timeBatches runs b.N batches of 20 commands, 4 at a time, each batch
// timed from the first start to the last exit; it reports the median of
// the commands' own times too.
func timeBatches(b *testing.B, pause time.Duration, mk func(i, j int) *exec.Cmd) {
	b.Helper()
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devNull.Close()
	var times []time.Duration
	var mu sync.Mutex
	b.ResetTimer()
	b.StopTimer()
	for i := range b.N {
		time.Sleep(pause)
		b.StartTimer()
		sem := make(chan struct{}, 4)
		var wg sync.WaitGroup
		for j := range 20 {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				cmd := mk(i, j)
				var stderr strings.Builder
				cmd.Stdout, cmd.Stderr = devNull, &stderr
				t0 := time.Now()
				if err := cmd.Run(); err != nil {
					b.Errorf("%s: %v\n%s", cmd, err, stderr.String())
				}
				mu.Lock()
				times = append(times, time.Since(t0))
				mu.Unlock()
			}()
		}
		wg.Wait()
		b.StopTimer()
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
}

// serverCPU is the CPU time of the server and of its workers so far:
// the server's threads, its live children's, and what its reaped
// children used (in clock ticks, the kernel's only record of them).
func serverCPU(b *testing.B, server int) time.Duration {
	b.Helper()
	total := taskCPU(server)
	for _, pid := range childPIDs(b, server) {
		total += taskCPU(pid)
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", server))
	if err != nil {
		b.Fatal(err)
	}
	// Fields after the command name: cutime and cstime are the 14th and
	// 15th (utime 12th).
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	for _, k := range []int{13, 14} {
		if n, err := strconv.ParseInt(f[k], 10, 64); err == nil {
			total += time.Duration(n) * 10 * time.Millisecond // USER_HZ is 100
		}
	}
	return total
}

// taskCPU sums the CPU time of a process's threads (schedstat, in ns).
func taskCPU(pid int) time.Duration {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	var total time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				total += time.Duration(n)
			}
		}
	}
	return total
}

// sedInput is a text file of about 10 MB (lines of words, many a's) in
// the temporary folder, made once.
func sedInput(b *testing.B) string {
	b.Helper()
	line := []byte("a quick brown fox jumps over the lazy dog and a cat, again and again, as a fable has it.\n")
	n := (10_000_000 + len(line) - 1) / len(line)
	p := filepath.Join(os.TempDir(), "wsfs-bench-sed10m.txt")
	if fi, err := os.Stat(p); err == nil && fi.Size() == int64(n*len(line)) {
		return p
	}
	if err := os.WriteFile(p, bytes.Repeat(line, n), 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

// benchRevisions counts a workspace's revisions.
func benchRevisions(b *testing.B, home string) int {
	b.Helper()
	out, errOut, code := wsfsBin(b, home, "", "log", "--json", "bench/run")
	var revs []json.RawMessage
	if code != 0 || json.Unmarshal([]byte(out), &revs) != nil {
		b.Fatalf("wsfs log: exit %d %s", code, errOut)
	}
	return len(revs)
}
