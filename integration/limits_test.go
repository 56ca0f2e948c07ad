package integration

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLimits holds every quota and runner limit of DESIGN.md at its exact
// edge, through `wsfs run` and through plain file calls on the mount, on
// one server. Each case has its own workspace with small quotas.
func TestLimits(t *testing.T) {
	t.Parallel()
	e := NewEnv(t, Local)
	srv := e.Start("--quiet", "200ms")
	t.Run("group", func(t *testing.T) {
		t.Run("run-file-bytes", func(t *testing.T) { t.Parallel(); limitRunFileBytes(t, e) })
		t.Run("run-workspace-bytes", func(t *testing.T) { t.Parallel(); limitRunWorkspaceBytes(t, e) })
		t.Run("run-entries", func(t *testing.T) { t.Parallel(); limitRunEntries(t, e) })
		t.Run("run-paths", func(t *testing.T) { t.Parallel(); limitRunPaths(t, e) })
		t.Run("run-wall-time", func(t *testing.T) { t.Parallel(); limitRunWallTime(t, e) })
		t.Run("run-output", func(t *testing.T) { t.Parallel(); limitRunOutput(t, e) })
		t.Run("run-visible-entries", func(t *testing.T) { t.Parallel(); limitRunVisibleEntries(t, e) })
		t.Run("run-name-length", func(t *testing.T) { t.Parallel(); limitRunNameLength(t, e) })
		t.Run("run-js-exec", func(t *testing.T) { t.Parallel(); limitRunJS(t, e) })
		t.Run("mount-entries", func(t *testing.T) { t.Parallel(); limitMountEntries(t, e) })
		t.Run("mount-file-bytes", func(t *testing.T) { t.Parallel(); limitMountFileBytes(t, e) })
		t.Run("mount-workspace-bytes", func(t *testing.T) { t.Parallel(); limitMountWorkspaceBytes(t, e) })
		t.Run("mount-paths", func(t *testing.T) { t.Parallel(); limitMountPaths(t, e) })
	})
	srv.Stop()
}

// newWorkspace creates ws in e and sets its quotas (KEY=VALUE pairs of
// `wsfs quota set`).
func newWorkspace(t *testing.T, e *Env, ws string, quotas ...string) {
	t.Helper()
	e.MustWsfs("create", ws)
	if len(quotas) > 0 {
		e.MustWsfs(append([]string{"quota", ws, "set"}, quotas...)...)
	}
}

// zeros is a shell expression printing n '0' bytes.
func zeros(n int) string { return fmt.Sprintf(`printf '%%0%dd' 0`, n) }

// wantRun runs script and checks its exit code and that stdout is want.
func wantRun(t *testing.T, e *Env, ws, script string, code int, stdout string, flags ...string) RunResult {
	t.Helper()
	r := e.Run(ws, script, flags...)
	if r.ExitCode != code || r.Stdout != stdout {
		t.Errorf("%q: exit %d stdout %q, want exit %d stdout %q\nstderr: %s", script, r.ExitCode, r.Stdout, code, stdout, r.Stderr)
	}
	return r
}

// wantRefusal checks that r names the refusal words (the server's, with
// limit, usage and path) both in refusals and on stderr without --json.
func wantRefusal(t *testing.T, r RunResult, words string) {
	t.Helper()
	for _, s := range r.Refusals {
		if strings.Contains(s, words) {
			return
		}
	}
	t.Errorf("refusals %q lack %q (stderr %q)", r.Refusals, words, r.Stderr)
}

// fileOf returns path's content at ws's head, through `wsfs cat`.
func fileOf(t *testing.T, e *Env, ws, path string) (string, bool) {
	t.Helper()
	r := e.Wsfs("cat", ws, path)
	if r.Code == 4 {
		return "", false
	}
	if r.Code != 0 {
		t.Fatalf("%v", r)
	}
	return r.Stdout, true
}

func limitRunFileBytes(t *testing.T, e *Env) {
	const ws = "lim/run-file"
	newWorkspace(t, e, ws, "file-bytes=1000")
	wantRun(t, e, ws, zeros(1000)+" > at.txt; wc -c at.txt", 0, "1000 at.txt\n")
	// One byte past, by a Go command writing the file and by one writing
	// its stdout into a redirect: refused, named, the file not grown.
	r := wantRun(t, e, ws, zeros(1001)+" > /tmp/big; cp /tmp/big cp.txt; echo cp=$?; cat /tmp/big > cat.txt; echo cat=$?; wc -c at.txt", 0, "cp=1\ncat=1\n1000 at.txt\n")
	if !strings.Contains(r.Stderr, "cp: error writing 'cp.txt': File too large") || !strings.Contains(r.Stderr, "cat: write error: File too large") {
		t.Errorf("stderr %q does not say File too large for cp and cat", r.Stderr)
	}
	wantRefusal(t, r, "quota: 1000 bytes per file (the file would have 1001): cp.txt")
	wantRefusal(t, r, "quota: 1000 bytes per file (the file would have 1001): cat.txt")
	// Appending one byte to a full file leaves it as it was.
	// The shell's builtins say so too, as bash does.
	r = wantRun(t, e, ws, "echo >> at.txt; echo rc=$?; printf x >> at.txt; echo rc=$?; wc -c at.txt", 0, "rc=1\nrc=1\n1000 at.txt\n")
	wantRefusal(t, r, "quota: 1000 bytes per file (the file would have 1001): at.txt")
	if !strings.Contains(r.Stderr, "echo: write error: File too large") || !strings.Contains(r.Stderr, "printf: write error: File too large") {
		t.Errorf("stderr %q lacks the builtins' write errors", r.Stderr)
	}
	if got, _ := fileOf(t, e, ws, "at.txt"); got != strings.Repeat("0", 1000) {
		t.Errorf("at.txt at the head: %d bytes", len(got))
	}
	// Without --json the refusal is printed in the server's words.
	raw := e.Wsfs("run", "-w", ws, "cat /tmp/none at.txt >> at2.txt; cat at.txt >> at2.txt")
	if raw.Code != 1 || !strings.Contains(raw.Stderr, "quota: 1000 bytes per file (the file would have 2000): at2.txt") {
		t.Errorf("plain run past the file quota: %v", raw)
	}
}

func limitRunWorkspaceBytes(t *testing.T, e *Env) {
	const ws = "lim/run-bytes"
	newWorkspace(t, e, ws, "workspace-bytes=2500")
	wantRun(t, e, ws, zeros(1000)+" > a; "+zeros(1000)+" > b; "+zeros(500)+" > c; wc -c a b c | tail -n 1", 0, "2500 total\n")
	r := wantRun(t, e, ws, zeros(1)+" > /tmp/one; cat /tmp/one >> c; echo rc=$?; cat /tmp/one > d; echo rc=$?; wc -c c", 0, "rc=1\nrc=1\n500 c\n")
	wantRefusal(t, r, "quota: 2500 bytes per workspace (workspace "+ws+" has 2500): c")
	// Freeing bytes makes room again, exactly.
	wantRun(t, e, ws, "rm a; "+zeros(1000)+" > d; wc -c b c d | tail -n 1", 0, "2500 total\n")
	if head := e.Head(ws); head.Stats.Bytes != 2500 {
		t.Errorf("head stats bytes %d, want 2500", head.Stats.Bytes)
	}
}

func limitRunEntries(t *testing.T, e *Env) {
	const ws = "lim/run-entries"
	newWorkspace(t, e, ws, "entries=5")
	// The root counts: four more entries fit.
	wantRun(t, e, ws, "mkdir d; touch a b d/c; ls -A | wc -l", 0, "3\n")
	r := wantRun(t, e, ws, "touch e; echo touch=$?; mkdir f; echo mkdir=$?; ln -s a g; echo ln=$?", 0, "touch=1\nmkdir=1\nln=1\n")
	wantRefusal(t, r, "quota: 5 entries (workspace "+ws+" has 5): e")
	wantRefusal(t, r, "quota: 5 entries (workspace "+ws+" has 5): f")
	if r.Committed {
		t.Errorf("a command whose every change was refused committed revision %d", r.Revision)
	}
	wantRun(t, e, ws, "rm a; touch e; ls", 0, "b\nd\ne\n")
	if head := e.Head(ws); head.Stats.Files+head.Stats.Dirs+head.Stats.Symlinks+1 != 5 {
		t.Errorf("head stats %+v: want 5 entries with the root", head.Stats)
	}
}

func limitRunPaths(t *testing.T, e *Env) {
	const ws = "lim/run-paths"
	newWorkspace(t, e, ws, "path-components=4", "path-bytes=40", "symlink-target=20")
	name40 := strings.Repeat("n", 40)
	r := wantRun(t, e, ws, fmt.Sprintf("mkdir -p a/b/c/d; echo $?; mkdir a/b/c/d/e; echo $?; touch a/b/c/d/f; echo $?; touch %s; echo $?; touch %sn; echo $?; ln -s %s l1; echo $?; ln -s %s l2; echo $?",
		name40, name40, strings.Repeat("t", 20), strings.Repeat("t", 21)), 0, "0\n1\n1\n0\n1\n0\n1\n")
	wantRefusal(t, r, "quota: 4 path components (the path has 5): a/b/c/d/e")
	wantRefusal(t, r, "quota: 40 bytes per path (the path has 41): "+name40+"n")
	wantRefusal(t, r, "quota: 20 bytes per symlink target (the target has 21): l2")
	if !strings.Contains(r.Stderr, "File name too long") {
		t.Errorf("stderr %q lacks ENAMETOOLONG's words", r.Stderr)
	}
	// A move that would push a path past the limit is refused as well.
	r = wantRun(t, e, ws, "mkdir -p x/y; mv x a/b/c/x; echo $?; ls x", 0, "1\ny\n")
	wantRefusal(t, r, "path components")
	tree := treeOf(t, e.WorkspaceDir(ws))
	if !slices.Contains(tree, "a/b/c/d/") || !slices.Contains(tree, "x/y/") || slices.Contains(tree, "a/b/c/d/e/") || slices.Contains(tree, "l2 -> "+strings.Repeat("t", 21)) {
		t.Errorf("the tree holds a refused path or lacks an allowed one: %q", tree)
	}
}

func limitRunWallTime(t *testing.T, e *Env) {
	const ws = "lim/run-wall"
	newWorkspace(t, e, ws, "wall-time=2s")
	// Within the limit: an ordinary command.
	wantRun(t, e, ws, "sleep 0.2; echo ok", 0, "ok\n", "--timeout", "1s")
	// Past it: exit 124, one line naming the limit, the changes made so far
	// committed.
	r := wantRun(t, e, ws, "echo before > w.txt; while :; do :; done; echo never > n.txt", 124, "", "--timeout", "500ms")
	if !strings.Contains(r.Stderr, "time limit 500ms reached") || !slices.ContainsFunc(r.LimitsHit, func(s string) bool { return strings.Contains(s, "time limit") }) {
		t.Errorf("timeout: stderr %q limits_hit %q", r.Stderr, r.LimitsHit)
	}
	if !r.Committed {
		t.Errorf("the changes before the timeout were not committed: %+v", r)
	}
	if got, ok := fileOf(t, e, ws, "w.txt"); !ok || got != "before\n" {
		t.Errorf("w.txt at the head: %q %v", got, ok)
	}
	if _, ok := fileOf(t, e, ws, "n.txt"); ok {
		t.Errorf("n.txt exists: the command ran past its time limit")
	}
	head := e.Head(ws)
	if head.ExitCode != 124 || head.N != r.Revision {
		t.Errorf("head %d exit %d, want revision %d exit 124", head.N, head.ExitCode, r.Revision)
	}
	// --timeout cannot raise the workspace's wall time: asking is an error
	// that names the limit and the way to raise it, and nothing runs.
	raw := e.Wsfs("run", "-w", ws, "--timeout", "1m", "echo ran > late.txt")
	if raw.Code != 2 || !strings.Contains(raw.Stderr, "above the wall-time limit of 2s of lim/run-wall; raise the limit with wsfs quota lim/run-wall set wall-time=1m0s") {
		t.Errorf("--timeout 1m over a 2s quota: %v", raw)
	}
	if _, ok := fileOf(t, e, ws, "late.txt"); ok {
		t.Errorf("the command refused for its --timeout ran")
	}
	// A negative one is refused too, and so is --wait's.
	for _, args := range [][]string{{"--timeout", "-1s"}, {"--wait", "-1s"}} {
		if raw := e.Wsfs(append(append([]string{"run", "-w", ws}, args...), "true")...); raw.Code != 2 || !strings.Contains(raw.Stderr, args[0]+" -1s") {
			t.Errorf("%s -1s: %v", args[0], raw)
		}
	}
}

func limitRunOutput(t *testing.T, e *Env) {
	const ws = "lim/run-output"
	newWorkspace(t, e, ws)
	const keep = 128 << 10
	// Exactly 128 KiB on each stream: kept whole.
	r := e.Run(ws, zeros(keep-1)+"; echo; "+zeros(keep-1)+" >&2; echo >&2")
	if r.Truncated || len(r.Stdout) != keep || len(r.Stderr) != keep {
		t.Errorf("128 KiB exactly: truncated %v, %d and %d bytes", r.Truncated, len(r.Stdout), len(r.Stderr))
	}
	// One byte more: the last 128 KiB kept, truncated, and the whole
	// output printed by `wsfs output REF`.
	full := "x" + strings.Repeat("0", keep-1) + "\n"
	r = e.Run(ws, "printf x; "+zeros(keep-1)+"; echo")
	if !r.Truncated || r.Stdout != full[1:] || r.ExitCode != 0 {
		t.Errorf("128 KiB + 1: truncated %v, %d bytes kept, starting %.10q", r.Truncated, len(r.Stdout), r.Stdout)
	}
	if r.OutputRef == "" {
		t.Fatalf("no output_ref: %+v", r.Raw)
	}
	out := e.MustWsfs("output", r.OutputRef)
	if out.Stdout != full {
		t.Errorf("wsfs output %s: %d bytes, want %d", r.OutputRef, len(out.Stdout), len(full))
	}
	// A flood far past the limit, on stderr: the tail kept.
	r = e.Run(ws, "for i in $(seq 1 40000); do echo line$i >&2; done")
	if !r.Truncated || len(r.Stderr) != keep || !strings.HasSuffix(r.Stderr, "line39999\nline40000\n") {
		t.Errorf("stderr flood: truncated %v, %d bytes, tail %q", r.Truncated, len(r.Stderr), r.Stderr[max(0, len(r.Stderr)-30):])
	}
	out = e.MustWsfs("output", r.OutputRef)
	if !strings.HasPrefix(out.Stderr, "line1\nline2\n") || strings.Count(out.Stderr, "\n") != 40000 {
		t.Errorf("wsfs output of the flood: %d bytes on stderr, %d lines", len(out.Stderr), strings.Count(out.Stderr, "\n"))
	}
	// A smaller per-workspace output quota.
	e.MustWsfs("quota", ws, "set", "output-bytes=1000")
	r = e.Run(ws, "seq 1 2000")
	if !r.Truncated || len(r.Stdout) != 1000 || !strings.HasPrefix(r.Stdout, "1801\n") {
		t.Errorf("output-bytes=1000: truncated %v, %d bytes, head %.10q", r.Truncated, len(r.Stdout), r.Stdout)
	}
}

func limitRunVisibleEntries(t *testing.T, e *Env) {
	const ws = "lim/run-visible"
	newWorkspace(t, e, ws, "visible-entries=20")
	r := wantRun(t, e, ws, "for i in $(seq 1 30); do touch /tmp/f$i || { echo stop at $i; break; }; done", 0, "stop at 21\n")
	if !strings.Contains(r.Stderr, "entry limit 20 reached") || len(r.LimitsHit) != 1 {
		t.Errorf("visible entries in /tmp: stderr %q limits_hit %q", r.Stderr, r.LimitsHit)
	}
	r = wantRun(t, e, ws, "for i in $(seq 1 30); do touch f$i || { echo stop at $i; break; }; done; ls | wc -l", 0, "stop at 21\n20\n")
	if !r.Committed {
		t.Errorf("the 20 files made before the limit were not committed")
	}
	if head := e.Head(ws); head.Stats.Files != 20 {
		t.Errorf("head has %d files, want 20", head.Stats.Files)
	}
}

func limitRunNameLength(t *testing.T, e *Env) {
	const ws = "lim/run-names"
	newWorkspace(t, e, ws)
	n255, n256 := strings.Repeat("n", 255), strings.Repeat("m", 256)
	r := wantRun(t, e, ws, fmt.Sprintf("touch %s; echo $?; touch %s; echo $?; ls | wc -l", n255, n256), 0, "0\n1\n1\n")
	if !strings.Contains(r.Stderr, "File name too long") {
		t.Errorf("a 256-byte name: stderr %q", r.Stderr)
	}
}

func limitRunJS(t *testing.T, e *Env) {
	const ws = "lim/run-js"
	newWorkspace(t, e, ws, "js-time=1s", "js-memory=16MiB")
	// Far past any memory limit: stopped, one line naming the limit.
	r := wantRun(t, e, ws, `js-exec -c "new ArrayBuffer(100*1024*1024)"; echo rc=$?`, 0, "rc=1\n")
	if !strings.Contains(r.Stderr, "js-exec: memory limit") {
		t.Errorf("a 100 MiB buffer: stderr %q", r.Stderr)
	}
	// Past the workspace's 16 MiB, within the 64 MiB default.
	r = e.Run(ws, `js-exec -c "new ArrayBuffer(32*1024*1024); console.log('allocated')"; echo rc=$?`)
	switch {
	case r.Stdout == "rc=1\n" && strings.Contains(r.Stderr, "memory limit 16 MiB"):
	case r.Stdout == "rc=124\n" && strings.Contains(r.Stderr, "time limit"):
		t.Logf("inconclusive: allocating 32 MiB ran into js-exec's time limit on this (loaded) machine: %q", r.Stderr)
	case r.Stdout == "allocated\nrc=0\n":
		t.Errorf("the js-memory quota is not applied: js-exec allocated 32 MiB under `wsfs quota set js-memory=16MiB`")
	default:
		t.Errorf("32 MiB under js-memory=16MiB: %+v", r)
	}
	// The time limit: exit 124 and one line naming it.
	r = e.Run(ws, `js-exec -c "while (true) {}"; echo rc=$?`)
	switch {
	case r.Stdout != "rc=124\n" || !strings.Contains(r.Stderr, "js-exec: time limit"):
		t.Errorf("an endless loop in js-exec: %+v", r)
	case !strings.Contains(r.Stderr, "time limit 1s reached"):
		t.Errorf("the js-time quota is not applied: js-exec said %q under `wsfs quota set js-time=1s`", strings.TrimSpace(r.Stderr))
	}
	if r.Committed {
		t.Errorf("js-exec that wrote nothing committed revision %d", r.Revision)
	}
}

// waitHead polls ws's log until ok accepts the head (the autocommit of
// edits on the mount comes after its quiet period), failing after a
// generous bound.
func waitHead(t *testing.T, e *Env, ws string, ok func(Revision) bool) Revision {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		head := e.Head(ws)
		if ok(head) {
			return head
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the head never reached the expected state; last %+v", ws, head)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// wantErrno checks that err is errno (a *PathError or *LinkError from the
// mount).
func wantErrno(t *testing.T, what string, err error, errno syscall.Errno) {
	t.Helper()
	if !errors.Is(err, errno) {
		t.Errorf("%s: %v, want %v", what, err, errno)
	}
}

func mustOK(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %v", what, err)
	}
}

func limitMountEntries(t *testing.T, e *Env) {
	const ws = "lim/mnt-entries"
	newWorkspace(t, e, ws, "entries=5")
	dir := e.WorkspaceDir(ws)
	mustOK(t, "mkdir d", os.Mkdir(filepath.Join(dir, "d"), 0o755))
	for _, f := range []string{"a", "b", "d/c"} {
		mustOK(t, "create "+f, os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644))
	}
	wantErrno(t, "the 6th entry (a file)", os.WriteFile(filepath.Join(dir, "e"), nil, 0o644), syscall.EDQUOT)
	wantErrno(t, "the 6th entry (a folder)", os.Mkdir(filepath.Join(dir, "f"), 0o755), syscall.EDQUOT)
	wantErrno(t, "the 6th entry (a symlink)", os.Symlink("a", filepath.Join(dir, "g")), syscall.EDQUOT)
	// A rename adds no entry.
	mustOK(t, "rename a", os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "d/a")))
	if got := treeOf(t, dir); !slices.Equal(got, []string{"b", "d/", "d/a", "d/c"}) {
		t.Errorf("tree on the mount: %q", got)
	}
	head := waitHead(t, e, ws, func(r Revision) bool { return r.Stats.Files == 3 && r.Stats.Dirs == 1 })
	if head.N != 2 {
		t.Errorf("the edits became revision %d, want one revision (2)", head.N)
	}
}

func limitMountFileBytes(t *testing.T, e *Env) {
	const ws = "lim/mnt-file"
	newWorkspace(t, e, ws, "file-bytes=1000")
	dir := e.WorkspaceDir(ws)
	at := filepath.Join(dir, "at.bin")
	full := []byte(strings.Repeat("z", 1000))
	mustOK(t, "write 1000 bytes", os.WriteFile(at, full, 0o644))
	f, err := os.OpenFile(at, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Write([]byte("!"))
	wantErrno(t, "append one byte past 1000", err, syscall.EFBIG)
	f.Close()
	wantErrno(t, "truncate to 1001", os.Truncate(at, 1001), syscall.EFBIG)
	f, err = os.OpenFile(at, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteAt([]byte("y"), 1000)
	wantErrno(t, "pwrite at offset 1000", err, syscall.EFBIG)
	_, err = f.WriteAt([]byte("y"), 999)
	mustOK(t, "pwrite the last byte", err)
	f.Close()
	wantErrno(t, "a new file of 1001 bytes", os.WriteFile(filepath.Join(dir, "big.bin"), make([]byte, 1001), 0o644), syscall.EFBIG)
	want := append(full[:999:999], 'y')
	if data, err := os.ReadFile(at); err != nil || string(data) != string(want) {
		t.Errorf("at.bin after the refusals: %d bytes, %v", len(data), err)
	}
	waitHead(t, e, ws, func(r Revision) bool { return r.N >= 2 && r.Stats.Bytes == 1000 })
	if got, _ := fileOf(t, e, ws, "at.bin"); got != string(want) {
		t.Errorf("at.bin at the head: %d bytes", len(got))
	}
}

func limitMountWorkspaceBytes(t *testing.T, e *Env) {
	const ws = "lim/mnt-bytes"
	newWorkspace(t, e, ws, "workspace-bytes=2500")
	dir := e.WorkspaceDir(ws)
	for name, n := range map[string]int{"a": 1000, "b": 1000, "c": 500} {
		mustOK(t, "write "+name, os.WriteFile(filepath.Join(dir, name), make([]byte, n), 0o644))
	}
	f, err := os.OpenFile(filepath.Join(dir, "c"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Write([]byte{1})
	wantErrno(t, "one byte past 2500", err, syscall.EDQUOT)
	f.Close()
	wantErrno(t, "a new file's first byte", os.WriteFile(filepath.Join(dir, "d"), []byte{1}, 0o644), syscall.EDQUOT)
	// statfs shows the quota as size and free space.
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	if free := int64(st.Bavail) * int64(st.Bsize); free != 0 {
		t.Errorf("df shows %d bytes free on a full workspace", free)
	}
	mustOK(t, "truncate a to 0", os.Truncate(filepath.Join(dir, "a"), 0))
	mustOK(t, "write d now", os.WriteFile(filepath.Join(dir, "d"), make([]byte, 1000), 0o644))
	waitHead(t, e, ws, func(r Revision) bool { return r.Stats.Bytes == 2500 && r.Stats.Files == 4 })
}

func limitMountPaths(t *testing.T, e *Env) {
	const ws = "lim/mnt-paths"
	newWorkspace(t, e, ws, "path-components=4", "path-bytes=300", "symlink-target=20")
	dir := e.WorkspaceDir(ws)
	mustOK(t, "mkdir 4 deep", os.MkdirAll(filepath.Join(dir, "a/b/c/d"), 0o755))
	wantErrno(t, "mkdir 5 deep", os.Mkdir(filepath.Join(dir, "a/b/c/d/e"), 0o755), syscall.ENAMETOOLONG)
	wantErrno(t, "create 5 deep", os.WriteFile(filepath.Join(dir, "a/b/c/d/f"), nil, 0o644), syscall.ENAMETOOLONG)
	mustOK(t, "mkdir x/y", os.MkdirAll(filepath.Join(dir, "x/y"), 0o755))
	wantErrno(t, "rename x under a/b/c (x/y would be 5 deep)", os.Rename(filepath.Join(dir, "x"), filepath.Join(dir, "a/b/c/x")), syscall.ENAMETOOLONG)
	// NAME_MAX: 255 bytes fit, 256 do not.
	mustOK(t, "a 255-byte name", os.WriteFile(filepath.Join(dir, strings.Repeat("n", 255)), nil, 0o644))
	wantErrno(t, "a 256-byte name", os.WriteFile(filepath.Join(dir, strings.Repeat("n", 256)), nil, 0o644), syscall.ENAMETOOLONG)
	// Path bytes: 44 + 1 + 255 = 300 fits, 45 + 1 + 255 = 301 does not.
	name := strings.Repeat("p", 255)
	for _, n := range []int{44, 45} {
		mustOK(t, "mkdir", os.Mkdir(filepath.Join(dir, strings.Repeat("q", n)), 0o755))
	}
	mustOK(t, "a 300-byte path", os.WriteFile(filepath.Join(dir, strings.Repeat("q", 44), name), nil, 0o644))
	wantErrno(t, "a 301-byte path", os.WriteFile(filepath.Join(dir, strings.Repeat("q", 45), name), nil, 0o644), syscall.ENAMETOOLONG)
	mustOK(t, "a 20-byte symlink target", os.Symlink(strings.Repeat("t", 20), filepath.Join(dir, "l1")))
	wantErrno(t, "a 21-byte symlink target", os.Symlink(strings.Repeat("t", 21), filepath.Join(dir, "l2")), syscall.ENAMETOOLONG)
	waitHead(t, e, ws, func(r Revision) bool { return r.Stats.Symlinks == 1 && r.Stats.Files == 2 && r.Stats.Dirs == 8 })
	tree := treeOf(t, dir)
	for _, p := range []string{"a/b/c/d/e/", "a/b/c/x/", "l2 -> " + strings.Repeat("t", 21)} {
		if slices.Contains(tree, p) {
			t.Errorf("refused %s exists on the mount", p)
		}
	}
}
