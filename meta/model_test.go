package meta

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/wsfs/wsfs/objects"
)

// The model: a workspace is a list of snapshots, each a map from path to
// "d" (directory), "f:<content>" or "l:<target>".
type snapshot map[string]string

type modelWS struct {
	revs   map[RevNum]snapshot
	head   RevNum
	oldest RevNum
	keep   int64
}

type model struct {
	ws map[string]*modelWS
}

var modelPaths = []string{"a", "b", "d", "d/a", "d/b", "d/e", "d/e/a", "l", "l/a"}

// apply mirrors the editor's rules on a snapshot; ok false means the
// commit must fail and change nothing.
func (s snapshot) apply(op Op) bool {
	if op.Kind == OpRename {
		return s.rename(op.Path, op.To)
	}
	parts := strings.Split(op.Path, "/")
	for i := 1; i < len(parts); i++ {
		parent := strings.Join(parts[:i], "/")
		kind, ok := s[parent]
		switch {
		case !ok && op.Kind == OpRemove:
			return true
		case !ok:
			s[parent] = "d"
		case kind != "d" && op.Kind == OpRemove:
			return true
		case kind != "d":
			return false
		}
	}
	cur, exists := s[op.Path]
	switch op.Kind {
	case OpPut:
		if cur == "d" {
			return false
		}
		content := ""
		if op.Source != nil {
			rc, _ := op.Source(context.Background())
			b := new(strings.Builder)
			buf := make([]byte, 64)
			for {
				n, err := rc.Read(buf)
				b.Write(buf[:n])
				if err != nil {
					break
				}
			}
			content = b.String()
		}
		s[op.Path] = "f:" + content
	case OpMkdir:
		if exists && cur != "d" {
			return false
		}
		s[op.Path] = "d"
	case OpSymlink:
		if cur == "d" {
			return false
		}
		s[op.Path] = "l:" + op.Target
	case OpRemove:
		for p := range s {
			if p == op.Path || strings.HasPrefix(p, op.Path+"/") {
				delete(s, p)
			}
		}
	}
	return true
}

// rename mirrors rename(2) as the editor implements it.
func (s snapshot) rename(from, to string) bool {
	if from == to {
		return true
	}
	src, ok := s[from]
	if !ok || strings.HasPrefix(to, from+"/") {
		return false
	}
	parts := strings.Split(to, "/")
	for i := 1; i < len(parts); i++ {
		parent := strings.Join(parts[:i], "/")
		kind, ok := s[parent]
		switch {
		case !ok:
			s[parent] = "d"
		case kind != "d":
			return false
		}
	}
	if dst, ok := s[to]; ok {
		switch {
		case src == "d" && dst != "d", src != "d" && dst == "d":
			return false
		case dst == "d":
			for p := range s {
				if strings.HasPrefix(p, to+"/") {
					return false
				}
			}
		}
		delete(s, to)
	}
	moved := map[string]string{}
	for p, v := range s {
		if p == from || strings.HasPrefix(p, from+"/") {
			moved[to+strings.TrimPrefix(p, from)] = v
			delete(s, p)
		}
	}
	for p, v := range moved {
		s[p] = v
	}
	return true
}

func (db *DB) flatten(ctx context.Context, root objects.Digest) (snapshot, error) {
	out := snapshot{}
	var walk func(d objects.Digest, prefix string) error
	walk = func(d objects.Digest, prefix string) error {
		t, err := db.ReadTree(ctx, d)
		if err != nil {
			return err
		}
		for _, e := range t.Entries {
			p := joinPath(prefix, e.Name)
			switch e.Kind {
			case KindDir:
				out[p] = "d"
				if err := walk(e.Digest, p); err != nil {
					return err
				}
			case KindSymlink:
				out[p] = "l:" + e.Target
			case KindFile:
				b, err := objects.Get(ctx, db.store, e.Digest)
				if err != nil {
					return err
				}
				out[p] = "f:" + string(b)
			}
		}
		return nil
	}
	return out, walk(root, "")
}

func TestModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		ctx := context.Background()
		db := openTestDB(t, nil)
		m := &model{ws: map[string]*modelWS{}}
		names := []string{"t/a", "t/b", "u/c"}
		wsName := rapid.SampledFrom(names)
		pickWS := func(rt *rapid.T) (string, *modelWS) {
			live := sortedKeys(m.ws)
			if len(live) == 0 {
				rt.Skip("no workspace")
			}
			n := rapid.SampledFrom(live).Draw(rt, "ws")
			return n, m.ws[n]
		}
		pickRev := func(rt *rapid.T, w *modelWS) RevNum {
			return RevNum(rapid.Uint64Range(uint64(w.oldest), uint64(w.head)).Draw(rt, "rev"))
		}
		rt.Repeat(map[string]func(*rapid.T){
			"create": func(rt *rapid.T) {
				n := wsName.Draw(rt, "name")
				_, err := db.Create(ctx, n, CreateOptions{})
				if _, ok := m.ws[n]; ok {
					if !errors.Is(err, ErrExists) {
						rt.Fatalf("create existing %s: %v", n, err)
					}
					return
				}
				if err != nil {
					rt.Fatal(err)
				}
				m.ws[n] = &modelWS{revs: map[RevNum]snapshot{1: {}}, head: 1, oldest: 1}
			},
			"commit": func(rt *rapid.T) {
				n, w := pickWS(rt)
				base := w.head
				stale := rapid.IntRange(0, 9).Draw(rt, "stale") == 0 && w.head > 1
				if stale {
					base = w.head - 1
				}
				var ops []Op
				for i, k := 0, rapid.IntRange(1, 4).Draw(rt, "nops"); i < k; i++ {
					p := rapid.SampledFrom(modelPaths).Draw(rt, "path")
					switch rapid.IntRange(0, 5).Draw(rt, "op") {
					case 0, 1:
						ops = append(ops, PutBytes(p, []byte(rapid.SampledFrom([]string{"x", "y", ""}).Draw(rt, "content")), 0, t0))
					case 2:
						ops = append(ops, Mkdir(p, 0, time.Time{}))
					case 3:
						ops = append(ops, Symlink(p, "d", t0))
					case 4:
						ops = append(ops, Remove(p))
					case 5:
						ops = append(ops, Rename(p, rapid.SampledFrom(modelPaths).Draw(rt, "to")))
					}
				}
				next := maps.Clone(w.revs[w.head])
				valid := true
				for _, op := range ops {
					if !next.apply(op) {
						valid = false
						break
					}
				}
				rev, ok, err := db.Commit(ctx, n, base, Change{Ops: ops})
				switch {
				case stale:
					if !errors.Is(err, ErrStale) {
						rt.Fatalf("stale commit: %v", err)
					}
					return
				case !valid:
					if err == nil {
						rt.Fatalf("commit %v should have failed", ops)
					}
					return
				case err != nil:
					rt.Fatalf("commit %v: %v", ops, err)
				}
				changed := !maps.Equal(next, w.revs[w.head])
				if changed && !ok {
					rt.Fatalf("commit %v changed the model but committed nothing", ops)
				}
				if ok {
					w.head++
					if rev.N != w.head {
						rt.Fatalf("new revision %d, want %d", rev.N, w.head)
					}
					w.revs[w.head] = next
					w.prune()
				}
			},
			"restore": func(rt *rapid.T) {
				n, w := pickWS(rt)
				r := pickRev(rt, w)
				_, ok, err := db.Restore(ctx, Ref{n, r}, CommitInfo{})
				if err != nil {
					rt.Fatal(err)
				}
				if ok {
					w.head++
					w.revs[w.head] = maps.Clone(w.revs[r])
					w.prune()
				}
			},
			"fork": func(rt *rapid.T) {
				n, w := pickWS(rt)
				r := pickRev(rt, w)
				to := wsName.Draw(rt, "to")
				_, err := db.Fork(ctx, Ref{n, r}, to, CreateOptions{})
				if _, exists := m.ws[to]; exists {
					if !errors.Is(err, ErrExists) {
						rt.Fatalf("fork onto existing: %v", err)
					}
					return
				}
				if err != nil {
					rt.Fatal(err)
				}
				m.ws[to] = &modelWS{revs: map[RevNum]snapshot{1: maps.Clone(w.revs[r])}, head: 1, oldest: 1, keep: w.keep}
			},
			"delete": func(rt *rapid.T) {
				n, _ := pickWS(rt)
				if err := db.Delete(ctx, n); err != nil {
					rt.Fatal(err)
				}
				delete(m.ws, n)
			},
			"gc": func(rt *rapid.T) {
				// With no grace at all, GC deletes everything unreached;
				// the check below then reads every retained revision.
				if _, err := db.GC(ctx, GCOptions{Delete: true, Grace: time.Nanosecond}); err != nil {
					rt.Fatal(err)
				}
			},
			"retention": func(rt *rapid.T) {
				n, w := pickWS(rt)
				k := rapid.Int64Range(0, 4).Draw(rt, "keep")
				if _, err := db.Update(ctx, n, WorkspaceUpdate{Retention: &Retention{KeepLast: k}}); err != nil {
					rt.Fatal(err)
				}
				w.keep = k
				w.prune()
			},
			"": func(rt *rapid.T) {
				live, err := db.List(ctx, "")
				if err != nil {
					rt.Fatal(err)
				}
				var got []string
				for _, w := range live {
					got = append(got, w.Name)
				}
				if want := sortedKeys(m.ws); fmt.Sprint(got) != fmt.Sprint(want) {
					rt.Fatalf("workspaces %v, want %v", got, want)
				}
				for _, n := range sortedKeys(m.ws) {
					w := m.ws[n]
					for r := RevNum(1); r <= w.head; r++ {
						rev, err := db.Show(ctx, Ref{n, r})
						if r < w.oldest {
							if !errors.Is(err, ErrNotFound) {
								rt.Fatalf("%s@%d should be dropped: %v", n, r, err)
							}
							continue
						}
						if err != nil {
							rt.Fatal(err)
						}
						snap, err := db.flatten(ctx, rev.Root)
						if err != nil {
							rt.Fatal(err)
						}
						if !maps.Equal(snap, w.revs[r]) {
							rt.Fatalf("%s@%d = %v, want %v", n, r, sorted(snap), sorted(w.revs[r]))
						}
						if rev.Stats.Entries() != int64(len(snap)) {
							rt.Fatalf("%s@%d stats %+v for %d entries", n, r, rev.Stats, len(snap))
						}
					}
				}
			},
		})
		rep, err := db.Fsck(ctx, FsckOptions{})
		if err != nil || !rep.OK() {
			rt.Fatalf("fsck: %v %+v", err, rep)
		}
	})
}

func (w *modelWS) prune() {
	if w.keep <= 0 {
		return
	}
	for w.oldest < w.head && int64(w.head-w.oldest) >= w.keep {
		delete(w.revs, w.oldest)
		w.oldest++
	}
}

func sorted(s snapshot) []string {
	var out []string
	for k, v := range s {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
