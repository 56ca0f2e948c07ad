package fusefs

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/wsfs/wsfs/meta"
)

func bigQuotas() *meta.Quotas {
	q := meta.DefaultQuotas()
	q.MaxEntries = 1 << 20
	q.MaxFileBytes = 64 << 20
	q.MaxWorkspaceBytes = 1 << 30
	return &q
}

// TestParallelStress runs create/write/rename/readdir from many goroutines
// at once, with GOMAXPROCS as set and at 1, then checks the tree and a
// snapshot against what the workers report.
func TestParallelStress(t *testing.T) {
	for _, procs := range []int{runtime.GOMAXPROCS(0), 1} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			old := runtime.GOMAXPROCS(procs)
			defer runtime.GOMAXPROCS(old)
			e := newEnv(t)
			name := fmt.Sprintf("stress/p%d", procs)
			dir := e.create(name, bigQuotas())
			const workers, files = 8, 40
			var wg sync.WaitGroup
			errs := make(chan error, workers)
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					sub := filepath.Join(dir, fmt.Sprintf("w%d", w))
					if err := os.Mkdir(sub, 0o755); err != nil {
						errs <- err
						return
					}
					for i := 0; i < files; i++ {
						p := filepath.Join(sub, fmt.Sprintf("f%d.tmp", i))
						if err := os.WriteFile(p, []byte(fmt.Sprintf("worker %d file %d\n", w, i)), 0o644); err != nil {
							errs <- err
							return
						}
						if err := os.Rename(p, filepath.Join(sub, fmt.Sprintf("f%d", i))); err != nil {
							errs <- err
							return
						}
						if _, err := os.ReadDir(dir); err != nil {
							errs <- err
							return
						}
					}
				}(w)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			rev, _ := e.snapshot(name)
			if rev.Stats.Files != workers*files || rev.Stats.Dirs != workers {
				t.Fatalf("snapshot stats %+v", rev.Stats)
			}
			for w := 0; w < workers; w++ {
				for i := 0; i < files; i += 7 {
					want := fmt.Sprintf("worker %d file %d\n", w, i)
					if got := e.catRev(name, rev.N, fmt.Sprintf("w%d/f%d", w, i)); got != want {
						t.Fatalf("w%d/f%d = %q", w, i, got)
					}
				}
			}
		})
	}
}

// TestFsx drives a seeded random sequence of writes, truncates, reads,
// renames and close/reopen against a shadow model in memory, committing
// now and then and checking the committed content too.
func TestFsx(t *testing.T) {
	const ops = 10000
	e := newEnv(t)
	dir := e.create("fsx/a", bigQuotas())
	seed := int64(20261130)
	rng := rand.New(rand.NewSource(seed))
	names := []string{"a", "b", "c"}
	shadow := map[string][]byte{}
	open := map[string]*os.File{}
	defer func() {
		for _, f := range open {
			f.Close()
		}
	}()
	get := func(n string) *os.File {
		if f, ok := open[n]; ok {
			return f
		}
		f, err := os.OpenFile(filepath.Join(dir, n), os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatalf("seed %d: open %s: %v", seed, n, err)
		}
		if _, ok := shadow[n]; !ok {
			shadow[n] = nil
		}
		open[n] = f
		return f
	}
	const maxLen = 64 << 10
	for i := 0; i < ops; i++ {
		n := names[rng.Intn(len(names))]
		switch op := rng.Intn(10); {
		case op < 4: // write
			f := get(n)
			off := rng.Intn(maxLen - 4096)
			buf := make([]byte, 1+rng.Intn(4096))
			rng.Read(buf)
			if _, err := f.WriteAt(buf, int64(off)); err != nil {
				t.Fatalf("seed %d op %d: write %s: %v", seed, i, n, err)
			}
			s := shadow[n]
			if len(s) < off+len(buf) {
				s = append(s, make([]byte, off+len(buf)-len(s))...)
			}
			copy(s[off:], buf)
			shadow[n] = s
		case op < 5: // truncate
			f := get(n)
			size := rng.Intn(maxLen)
			if err := f.Truncate(int64(size)); err != nil {
				t.Fatalf("seed %d op %d: truncate %s: %v", seed, i, n, err)
			}
			s := shadow[n]
			if len(s) > size {
				s = s[:size]
			} else {
				s = append(s, make([]byte, size-len(s))...)
			}
			shadow[n] = s
		case op < 8: // read and compare
			if _, ok := shadow[n]; !ok {
				continue
			}
			f := get(n)
			got, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<30))
			if err != nil {
				t.Fatalf("seed %d op %d: read %s: %v", seed, i, n, err)
			}
			if !bytes.Equal(got, shadow[n]) {
				t.Fatalf("seed %d op %d: %s differs from the model (%d vs %d bytes)", seed, i, n, len(got), len(shadow[n]))
			}
		case op < 9: // close and reopen later
			if f, ok := open[n]; ok {
				f.Close()
				delete(open, n)
			}
		default: // rename over another name
			to := names[rng.Intn(len(names))]
			if _, ok := shadow[n]; !ok || to == n {
				continue
			}
			if err := os.Rename(filepath.Join(dir, n), filepath.Join(dir, to)); err != nil {
				t.Fatalf("seed %d op %d: rename %s %s: %v", seed, i, n, to, err)
			}
			if f, ok := open[to]; ok {
				f.Close()
				delete(open, to)
			}
			if f, ok := open[n]; ok {
				open[to] = f
				delete(open, n)
			}
			shadow[to] = shadow[n]
			delete(shadow, n)
		}
		if i%2000 == 1999 {
			for n, f := range open {
				f.Close()
				delete(open, n)
			}
			rev, _ := e.snapshot("fsx/a")
			for n, want := range shadow {
				if got := e.catRev("fsx/a", rev.N, n); got != string(want) {
					t.Fatalf("seed %d op %d: committed %s differs from the model", seed, i, n)
				}
			}
		}
	}
}
