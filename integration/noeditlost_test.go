package integration

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestNoEditLost writes files on the mount while wsfs changes the same
// workspace behind it (issue 15: 3,000 writes during 40 quota changes
// once left 2,963 files, 5 of them empty, with no error): every write
// made on the mount stays, with its content, on the mount and in the
// revision its edits are committed in.
func TestNoEditLost(t *testing.T) {
	t.Parallel()
	e := NewEnv(t, Local)
	srv := e.Start("--quiet", "100ms")
	defer srv.Stop()
	t.Run("quota changes", func(t *testing.T) {
		const ws = "lost/quota"
		e.MustWsfs("create", ws)
		e.MustWsfs("quota", ws, "set", "entries=5000", "workspace-bytes=10MiB")
		changes := 0
		writeDuring(t, e, ws, 3000, func(i int) bool {
			keep := []string{"keep-last=0", "keep-last=100"}[i%2]
			e.MustWsfs("quota", ws, "set", keep)
			changes++
			return changes < 40
		})
	})
	t.Run("put, import, fork and runs", func(t *testing.T) {
		const ws = "lost/mixed"
		e.MustWsfs("create", ws)
		e.MustWsfs("quota", ws, "set", "entries=5000", "workspace-bytes=10MiB")
		writeDuring(t, e, ws, 1500, func(i int) bool {
			switch i % 4 {
			case 0:
				r := e.WsfsStdin(fmt.Sprintf("put %d\n", i), "put", ws, fmt.Sprintf("put/%d.txt", i))
				if r.Code != 0 {
					t.Errorf("%v", r)
				}
			case 1:
				var tb bytes.Buffer
				tw := tar.NewWriter(&tb)
				body := fmt.Sprintf("import %d\n", i)
				tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("import/%d.txt", i), Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
				tw.Write([]byte(body))
				tw.Close()
				if r := e.WsfsStdin(tb.String(), "import", ws, "-"); r.Code != 0 {
					t.Errorf("%v", r)
				}
			case 2:
				e.MustWsfs("fork", ws, fmt.Sprintf("lost/fork-%d", i))
			case 3:
				if r := e.Run(ws, fmt.Sprintf("echo %d >> runs.txt", i)); r.ExitCode != 0 {
					t.Errorf("run: %+v", r)
				}
			}
			return i < 16
		})
	})
	// A restore makes the workspace equal to an older revision: the
	// edits committed before it (it commits the mount's pending edits
	// first) are reverted, and stay in the history; those made while it
	// runs stay on the mount. So every write is on the mount or in a
	// revision, and the last ones are on the mount.
	t.Run("restores", func(t *testing.T) {
		const ws = "lost/restore"
		e.MustWsfs("create", ws)
		e.MustWsfs("quota", ws, "set", "entries=5000", "workspace-bytes=10MiB")
		e.MustWsfs("put", ws, "base.txt")
		writeDuringRestores(t, e, ws, 1500, 20)
	})
}

// writeDuringRestores writes n files on the mount of ws while restores
// to its second revision run, then checks each write is on the mount or
// in a revision.
func writeDuringRestores(t *testing.T, e *Env, ws string, n, restores int) {
	t.Helper()
	dir := filepath.Join(e.WorkspaceDir(ws), "w")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var written atomic.Int64
	go func() {
		defer close(done)
		for i := range n {
			p := filepath.Join(dir, fmt.Sprintf("%04d", i))
			// The folder itself may be restored away (between the mkdir
			// and the write, too): make it again.
			var err error
			for try := 0; try < 100; try++ {
				os.MkdirAll(dir, 0o755)
				if err = os.WriteFile(p, []byte(fmt.Sprintf("content %d\n", i)), 0o644); !errors.Is(err, os.ErrNotExist) {
					break
				}
			}
			if err != nil {
				t.Errorf("write %s: %v", p, err)
				return
			}
			written.Store(int64(i + 1))
		}
	}()
	// Restores while the writes go on; the writes that start after the
	// last restore ended must all be on the mount.
	after := int64(n)
	for i := 0; i < restores; i++ {
		if r := e.Wsfs("restore", ws+"@2"); r.Code != 0 {
			t.Errorf("%v", r)
		}
		after = written.Load() + 1
	}
	<-done
	if r := e.Run(ws, "true"); r.ExitCode != 0 {
		t.Fatalf("%+v", r)
	}
	onMount := map[string]bool{}
	for i := range n {
		name := fmt.Sprintf("w/%04d", i)
		b, err := os.ReadFile(filepath.Join(e.WorkspaceDir(ws), name))
		onMount[name] = err == nil && string(b) == fmt.Sprintf("content %d\n", i)
	}
	inHistory := map[string]bool{}
	for _, rev := range e.Log(ws) {
		for name, body := range exportFilesAt(t, e, fmt.Sprintf("%s@%d", ws, rev.N)) {
			var i int
			if _, err := fmt.Sscanf(name, "w/%04d", &i); err == nil && body == fmt.Sprintf("content %d\n", i) {
				inHistory[name] = true
			}
		}
	}
	lost := 0
	for i := range n {
		name := fmt.Sprintf("w/%04d", i)
		if !onMount[name] && !inHistory[name] {
			if lost++; lost <= 5 {
				t.Errorf("%s is neither on the mount nor in any revision", name)
			}
		}
	}
	for i := int(after); i < n; i++ {
		if name := fmt.Sprintf("w/%04d", i); !onMount[name] {
			t.Errorf("%s, written after the last restore, is not on the mount", name)
		}
	}
	if lost > 0 {
		t.Fatalf("%d of %d writes lost", lost, n)
	}
}

// exportFilesAt returns the files of a revision (wsfs export).
func exportFilesAt(t *testing.T, e *Env, ref string) map[string]string {
	t.Helper()
	files := map[string]string{}
	tr := tar.NewReader(strings.NewReader(e.MustWsfs("export", ref).Stdout))
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		var b bytes.Buffer
		b.ReadFrom(tr)
		files[strings.TrimPrefix(h.Name, "./")] = b.String()
	}
	return files
}

// writeDuring writes n files under w/ on the mount of ws while change(i)
// runs for i = 0, 1, ... until it returns false and the writes are done;
// then it checks every file on the mount and, after the mount's commit,
// in the head.
func writeDuring(t *testing.T, e *Env, ws string, n int, change func(i int) bool) {
	t.Helper()
	dir := filepath.Join(e.WorkspaceDir(ws), "w")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var written atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer written.Store(true)
		for i := range n {
			p := filepath.Join(dir, fmt.Sprintf("%04d", i))
			if err := os.WriteFile(p, []byte(fmt.Sprintf("content %d\n", i)), 0o644); err != nil {
				t.Errorf("write %s: %v", p, err)
				return
			}
		}
	}()
	for i := 0; change(i) || !written.Load(); i++ {
	}
	wg.Wait()
	lost := 0
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("%04d", i))
		b, err := os.ReadFile(p)
		if want := fmt.Sprintf("content %d\n", i); err != nil || string(b) != want {
			if lost++; lost <= 5 {
				t.Errorf("%s on the mount: %q, %v", p, b, err)
			}
		}
	}
	if lost > 0 {
		t.Fatalf("%d of %d writes lost on the mount", lost, n)
	}
	// A run's snapshot commits the mount's edits; the head then has them all.
	if r := e.Run(ws, "true"); r.ExitCode != 0 {
		t.Fatalf("%+v", r)
	}
	files := exportFilesAt(t, e, ws)
	for i := range n {
		name := fmt.Sprintf("w/%04d", i)
		if want := fmt.Sprintf("content %d\n", i); files[name] != want {
			if lost++; lost <= 5 {
				t.Errorf("%s in the head: %q", name, files[name])
			}
		}
	}
	if lost > 0 {
		t.Fatalf("%d of %d writes missing from the head", lost, n)
	}
}
