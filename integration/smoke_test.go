package integration

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const scoresCSV = "name,score\nAlpha,8\nBeta,9\n"

// TestSmoke is the product's smoke test (issue 8) on both stores: an
// agent's three commands through `wsfs run`, then the tree on the mount,
// the revision log, the blobs in the store and a restore.
// The local store runs it twice: with the server's warm workers (the
// fast path of `wsfs run`) and without (the front execs the core).
func TestSmoke(t *testing.T) {
	for _, c := range []struct {
		name string
		kind StoreKind
		args []string
	}{
		{"local", Local, nil},
		{"local-one-at-a-time", Local, []string{"--workers", "1", "--parked", "0"}},
		{"s3", S3, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			smoke(t, NewEnv(t, c.kind), c.args...)
		})
	}
}

func smoke(t *testing.T, e *Env, serverArgs ...string) {
	const ws = "acme/reports"
	e.MustWsfs("create", ws)
	srv := e.Start(append([]string{"--quiet", "200ms"}, serverArgs...)...)

	r := e.Run(ws, `mkdir -p reports/empty; cd reports; printf 'name,score\nAlpha,8\nBeta,9\n' > scores.csv; cat scores.csv`)
	if r.ExitCode != 0 || r.Stdout != scoresCSV || r.Stderr != "" || !r.Committed || r.Revision != 2 {
		t.Fatalf("first command: %+v", r)
	}
	r = e.Run(ws, "pwd; cat scores.csv")
	if r.ExitCode != 0 || r.Stdout != "/workspace/reports\n"+scoresCSV || r.Committed || r.Revision != 2 {
		t.Fatalf("second command (cwd must persist, nothing to commit): %+v", r)
	}
	r = e.Run(ws, "mv scores.csv final.csv")
	if r.ExitCode != 0 || r.Stdout != "" || !r.Committed || r.Revision != 3 {
		t.Fatalf("mv: %+v", r)
	}

	// The tree, through the mount.
	dir := e.WorkspaceDir(ws)
	if got := treeOf(t, dir); !slices.Equal(got, []string{"reports/", "reports/empty/", "reports/final.csv"}) {
		t.Fatalf("tree on the mount: %q", got)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "reports/final.csv")); err != nil || string(data) != scoresCSV {
		t.Fatalf("final.csv on the mount: %q, %v", data, err)
	}

	// The log: create, the first command, the mv; the cwd recorded.
	revs := e.Log(ws)
	if len(revs) != 3 {
		t.Fatalf("log has %d revisions, want 3: %+v", len(revs), revs)
	}
	for i, want := range []struct {
		n       uint64
		command string
		cwd     string
	}{
		{3, "mv scores.csv final.csv", "/reports"},
		{2, "mkdir -p reports/empty; cd reports; printf 'name,score\\nAlpha,8\\nBeta,9\\n' > scores.csv; cat scores.csv", "/reports"},
		{1, "create " + ws, "/"},
	} {
		if revs[i].N != want.n || revs[i].Command != want.command || revs[i].Cwd != want.cwd || revs[i].ExitCode != 0 {
			t.Errorf("log[%d] = n %d command %q cwd %q exit %d, want n %d command %q cwd %q", i, revs[i].N, revs[i].Command, revs[i].Cwd, revs[i].ExitCode, want.n, want.command, want.cwd)
		}
	}
	if revs[0].Stats.Files != 1 || revs[0].Stats.Dirs != 2 || revs[0].Stats.Bytes != int64(len(scoresCSV)) {
		t.Errorf("revision 3 stats: %+v", revs[0].Stats)
	}

	// The store: the file's content in the pack its commit uploaded, a
	// blob under blobs/<2 hex>/<64 hex> (under the bucket's prefix for
	// S3), and nothing outside the store's root.
	sum := sha256.Sum256([]byte(scoresCSV))
	digest := hex.EncodeToString(sum[:])
	at, ok := e.Store.objects(t)[digest]
	if !ok || !at.packed {
		t.Errorf("the content %s of scores.csv is not in a pack of the store: %+v", digest, at)
	}
	keys := e.Store.Keys(t)
	if !slices.Contains(keys, at.key) || !strings.HasPrefix(at.key, "blobs/") {
		t.Errorf("store keys %q lack the pack %s", keys, at.key)
	}
	if e.Store.Kind == S3 {
		assertAllUnderPrefix(t, e.Store)
	}

	// Restore the first revision that had scores.csv: a new revision, and
	// the file back byte for byte, on the mount and through wsfs cat.
	res := e.MustWsfs("restore", ws+"@2")
	if !strings.Contains(res.Stdout, "revision 4") {
		t.Errorf("restore said %q, want it to name revision 4", res.Stdout)
	}
	if head := e.Head(ws); head.N != 4 || head.Cwd != "/reports" {
		t.Errorf("head after restore: n %d cwd %q", head.N, head.Cwd)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "reports/scores.csv")); err != nil || string(data) != scoresCSV {
		t.Errorf("scores.csv on the mount after restore: %q, %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "reports/final.csv")); !os.IsNotExist(err) {
		t.Errorf("final.csv after restoring revision 2: %v, want it gone", err)
	}
	if c := e.MustWsfs("cat", ws+"@4", "reports/scores.csv"); c.Stdout != scoresCSV {
		t.Errorf("wsfs cat @4: %q", c.Stdout)
	}
	r = e.Run(ws, "pwd; cat scores.csv")
	if r.ExitCode != 0 || r.Stdout != "/workspace/reports\n"+scoresCSV || r.Committed {
		t.Errorf("after restore: %+v", r)
	}
	srv.Stop()

	// With the server gone, the history verbs open meta.db directly and
	// tell the same story.
	if revs := e.Log(ws); len(revs) != 4 || revs[0].N != 4 {
		t.Errorf("log without a server: %+v", revs)
	}
	if c := e.MustWsfs("fsck"); c.Code != 0 {
		t.Errorf("fsck: %v", c)
	}
}

// assertAllUnderPrefix fails if the bucket holds a key outside the store's
// prefix.
func assertAllUnderPrefix(t *testing.T, s *Store) {
	t.Helper()
	all := s.BucketKeys(t)
	for _, k := range all {
		if !strings.HasPrefix(k, s.Prefix+"/") {
			t.Errorf("bucket %s has %q, outside the store's prefix %s/", s.Bucket, k, s.Prefix)
		}
	}
	if len(all) == 0 {
		t.Errorf("bucket %s is empty", s.Bucket)
	}
}

// treeOf lists every path below dir ("a/" for a folder, "a -> t" for a
// symlink), sorted.
func treeOf(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.IsDir():
			rel += "/"
		case d.Type()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			rel += " -> " + target
		}
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", dir, err)
	}
	slices.Sort(out)
	return out
}
