package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wsfs/wsfs/internal/testenv"
)

// BenchmarkRun measures what an agent waits for (issue 5 item 10): one
// command, from process start to exit, through the real binaries with a
// server running on a real FUSE mount, against GNU bash and the just-bash
// CLI in the same run:
//
//	go test -run '^$' -bench BenchmarkRun -benchtime 30x ./cmd/wsfs-core
//
// wsfs-echo is `wsfs run -w T/N 'echo hi'` (after the first, on the worker
// parked for the workspace, as an agent's session runs); wsfs-echo-first
// is the same command as the first of its workspace; wsfs-jsexec runs `js-exec -c
// 'console.log(1)'` (warm: the worker parked for the workspace has loaded
// QuickJS), wsfs-jsexec-first the same as the first command of its
// workspace, and justbash-jsexec the just-bash CLI's js-exec (`just-bash
// --javascript ... -c "js-exec -c 'console.log(1)'"`, under a Node 22 that
// npm installs into the cache folder once); wsfs-write
// writes one file (a new revision each time, so the snapshot is included);
// bash-echo is
// `bash -c 'echo hi'`; justbash-echo is `just-bash --allow-write --root DIR
// -c 'echo hi'` (installed with npm into the user's cache folder once;
// skipped without npm and node). Each reports p50-ms besides ns/op. Between
// two commands the benchmark pauses untimed (WSFS_BENCH_PAUSE, default
// 500ms; 0 for back-to-back commands), as an agent does between its
// commands, so the server has its warm workers back (on a busy two-core
// machine their start-up takes a few hundred milliseconds); bash and
// just-bash get the same pause.
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
	s := startServer(b, home, mnt, "--quiet", "1h")
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
	b.Run("wsfs-echo-first", func(b *testing.B) { firstCommands(b, "hi\n", "echo hi") })
	b.Run("wsfs-write", func(b *testing.B) {
		before := benchRevisions(b, home)
		timeCommands(b, pause, "", func(i int) *exec.Cmd { return wsfs(fmt.Sprintf("echo %d > out.txt", i)) })
		// Every command made its revision (the snapshot was part of it).
		if got := benchRevisions(b, home) - before; got < b.N {
			b.Fatalf("%d commands that each changed out.txt made %d revisions", b.N, got)
		}
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
