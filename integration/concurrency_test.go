package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestConcurrency: commands on one workspace run one at a time in arrival
// order; commands on different workspaces overlap; a restore racing a
// command loses neither. One server for the three.
func TestConcurrency(t *testing.T) {
	t.Parallel()
	e := NewEnv(t, Local)
	srv := e.Start("--quiet", "200ms")
	t.Run("group", func(t *testing.T) {
		t.Run("one workspace, arrival order", func(t *testing.T) { t.Parallel(); concurrentOneWorkspace(t, e) })
		t.Run("eight workspaces overlap", func(t *testing.T) { t.Parallel(); concurrentManyWorkspaces(t, e) })
		t.Run("restore racing a command", func(t *testing.T) { t.Parallel(); concurrentRestore(t, e) })
	})
	srv.Stop()
}

// psEntry is one workspace of `wsfs ps --json`.
type psEntry struct {
	Workspace string `json:"workspace"`
	Running   *struct {
		Script string `json:"script"`
	} `json:"running"`
	Waiting []struct {
		Script string `json:"script"`
	} `json:"waiting"`
}

// seen reports whether `wsfs ps` lists script on ws, running or waiting
// (the server has it: its place in the queue is taken).
func seen(t *testing.T, e *Env, ws, script string) bool {
	t.Helper()
	r := e.MustWsfs("ps", "--json")
	var ps []psEntry
	if err := json.Unmarshal([]byte(r.Stdout), &ps); err != nil {
		t.Fatalf("wsfs ps --json: %v\n%v", err, r)
	}
	for _, p := range ps {
		if p.Workspace != ws {
			continue
		}
		if p.Running != nil && p.Running.Script == script {
			return true
		}
		for _, w := range p.Waiting {
			if w.Script == script {
				return true
			}
		}
	}
	return false
}

// goRun starts `wsfs run --json` of script in ws in the background.
func goRun(e *Env, wg *sync.WaitGroup, out *RunResult, ws, script string) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		*out = e.Run(ws, script)
	}()
}

// waitSeen waits until the server has script queued or running on ws.
func waitSeen(t *testing.T, e *Env, ws, script string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !seen(t, e, ws, script) {
		if time.Now().After(deadline) {
			t.Fatalf("wsfs ps never listed %q on %s", script, ws)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func concurrentOneWorkspace(t *testing.T, e *Env) {
	const ws = "conc/one"
	e.MustWsfs("create", ws)
	// The first command holds the workspace until the test, on the
	// mount, creates the file it waits for; the others queue behind it.
	// Each later one is started only once `wsfs ps` lists the previous
	// one, so the arrival order is known, not guessed from timing.
	const n = 8
	results := make([]RunResult, n)
	var wg sync.WaitGroup
	scripts := make([]string, n)
	for i := range n {
		wait := ""
		if i == 0 {
			wait = "while [ ! -e gate ]; do sleep 0.02; done; rm gate; "
		}
		scripts[i] = fmt.Sprintf("echo start %d >> order.txt; %secho end %d >> order.txt", i, wait, i)
		goRun(e, &wg, &results[i], ws, scripts[i])
		waitSeen(t, e, ws, scripts[i])
	}
	if err := os.WriteFile(filepath.Join(e.WorkspaceDir(ws), "gate"), nil, 0o644); err != nil {
		t.Fatalf("opening the gate on the mount: %v", err)
	}
	wg.Wait()
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("start %d", i), fmt.Sprintf("end %d", i))
		if r := results[i]; r.ExitCode != 0 || !r.Committed {
			t.Errorf("command %d: %+v", i, r)
		}
	}
	got, _ := fileOf(t, e, ws, "order.txt")
	if lines := strings.Split(strings.TrimSpace(got), "\n"); !slices.Equal(lines, want) {
		t.Errorf("order.txt:\n%s\nwant one command at a time in arrival order:\n%s", got, strings.Join(want, "\n"))
	}
	// One revision per command, in the same order, each on its
	// predecessor.
	revs := e.Log(ws)
	if len(revs) != n+1 {
		t.Fatalf("%d revisions, want %d", len(revs), n+1)
	}
	for i := range n {
		rev := revs[n-1-i]
		if rev.Command != scripts[i] || rev.N != uint64(i+2) || rev.Parent != uint64(i+1) || results[i].Revision != rev.N {
			t.Errorf("revision %d: %q (parent %d), result said %d; want command %d", rev.N, rev.Command, rev.Parent, results[i].Revision, i)
		}
	}
}

func concurrentManyWorkspaces(t *testing.T, e *Env) {
	const n = 8
	results := make([]RunResult, n)
	var wg sync.WaitGroup
	for i := range n {
		e.MustWsfs("create", fmt.Sprintf("conc/w%d", i))
	}
	// Each script notes when it started and ended (the runner's date, in
	// nanoseconds) in its own workspace.
	for i := range n {
		goRun(e, &wg, &results[i], fmt.Sprintf("conc/w%d", i), "date +%s%N > span; sleep 1.5; date +%s%N >> span")
	}
	wg.Wait()
	type span struct{ start, end int64 }
	var spans []span
	for i := range n {
		ws := fmt.Sprintf("conc/w%d", i)
		if r := results[i]; r.ExitCode != 0 || !r.Committed || r.Revision != 2 {
			t.Errorf("%s: %+v", ws, r)
		}
		data, _ := fileOf(t, e, ws, "span")
		f := strings.Fields(data)
		if len(f) != 2 {
			t.Fatalf("%s span: %q", ws, data)
		}
		a, err1 := strconv.ParseInt(f[0], 10, 64)
		b, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil || b < a {
			t.Fatalf("%s span: %q", ws, data)
		}
		spans = append(spans, span{a, b})
	}
	// The most commands running at one instant: with one at a time it
	// would be 1.
	most := 0
	for _, s := range spans {
		running := 0
		for _, o := range spans {
			if o.start <= s.start && s.start < o.end {
				running++
			}
		}
		most = max(most, running)
	}
	t.Logf("at most %d of %d commands on different workspaces ran at once", most, n)
	if most < 2 {
		t.Errorf("commands on different workspaces never overlapped: %+v", spans)
	}
}

func concurrentRestore(t *testing.T, e *Env) {
	const ws = "conc/restore"
	e.MustWsfs("create", ws)
	wantRun(t, e, ws, "echo one > one.txt", 0, "") // revision 2
	wantRun(t, e, ws, "echo two > two.txt", 0, "") // revision 3
	// The command holds the workspace until the test opens its gate on
	// the mount; the restore is started while it runs. Either may end up
	// first; neither may be lost.
	const script = "while [ ! -e gate ]; do sleep 0.02; done; rm gate; echo racer > racer.txt"
	var r RunResult
	var res Result
	var wg sync.WaitGroup
	goRun(e, &wg, &r, ws, script)
	waitSeen(t, e, ws, script)
	wg.Add(1)
	go func() {
		defer wg.Done()
		res = e.Wsfs("restore", ws+"@2")
	}()
	time.Sleep(100 * time.Millisecond) // lets the restore reach the server (either order is right)
	if err := os.WriteFile(filepath.Join(e.WorkspaceDir(ws), "gate"), nil, 0o644); err != nil {
		t.Fatalf("opening the gate on the mount: %v", err)
	}
	wg.Wait()
	if res.Code != 0 {
		t.Fatalf("the restore: %v", res)
	}
	if r.ExitCode != 0 || !r.Committed {
		t.Fatalf("the command: %+v", r)
	}
	revs := e.Log(ws)
	if len(revs) != 5 {
		t.Fatalf("%d revisions after a command and a restore, want 5", len(revs))
	}
	var cmdRev, restoreRev Revision
	for _, rev := range revs[:2] {
		if rev.Command == script {
			cmdRev = rev
		} else {
			restoreRev = rev
		}
	}
	if cmdRev.N == 0 || !strings.Contains(restoreRev.Command, "restore") || !strings.Contains(res.Stdout, fmt.Sprintf("revision %d", restoreRev.N)) {
		t.Fatalf("the log's newest two: %+v / %+v; restore said %q", revs[0], revs[1], res.Stdout)
	}
	tree := treeOf(t, e.WorkspaceDir(ws))
	if restoreRev.N > cmdRev.N {
		// The restore came second: revision 2's state, the racer gone
		// from the head but kept in the history.
		if !slices.Equal(tree, []string{"one.txt"}) {
			t.Errorf("tree after command then restore: %q", tree)
		}
		if c := e.MustWsfs("cat", fmt.Sprintf("%s@%d", ws, cmdRev.N), "racer.txt"); c.Stdout != "racer\n" {
			t.Errorf("racer.txt in revision %d: %q", cmdRev.N, c.Stdout)
		}
	} else if !slices.Equal(tree, []string{"one.txt", "racer.txt"}) {
		t.Errorf("tree after restore then command: %q", tree)
	}
	if head := e.Head(ws); head.Root == "" || head.N != max(cmdRev.N, restoreRev.N) {
		t.Errorf("head %+v", head)
	}
}
