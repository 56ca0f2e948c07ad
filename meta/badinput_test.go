package meta

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta/kv"
	"github.com/wsfs/wsfs/meta/kv/boltkv"

	"github.com/wsfs/wsfs/objects"
)

func TestParseWorkspace(t *testing.T) {
	good := map[string]string{
		"acme/a": "acme/a", "a0/b.c_d-e": "a0/b.c_d-e",
		"x/" + strings.Repeat("a", 63): "x/" + strings.Repeat("a", 63),
	}
	for in, want := range good {
		got, err := ParseWorkspace(in)
		if err != nil || got != want {
			t.Errorf("ParseWorkspace(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "acme", "acme/", "/a", "a/b/c", "-a/b", "a/.b", "a/b c", "a/b\x00", "a/" + strings.Repeat("a", 64), "a/é", "a/_b"} {
		if _, err := ParseWorkspace(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseWorkspace(%q) = %v, want ErrInvalid", bad, err)
		}
	}
	if _, err := ParseRef("acme/a@0"); !errors.Is(err, ErrInvalid) {
		t.Errorf("ParseRef(@0) = %v", err)
	}
	if r, err := ParseRef("acme/a@12"); err != nil || r != (Ref{"acme/a", 12}) {
		t.Errorf("ParseRef = %v, %v", r, err)
	}
	// Upper case is refused with the rule and the lower-case name.
	for _, s := range []string{"Acme/Reports", "ACME/a@12", "acme/A"} {
		if _, err := ParseRef(s); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "lower case") ||
			!strings.Contains(err.Error(), strings.ToLower(strings.Split(s, "@")[0])) {
			t.Errorf("ParseRef(%q) = %v, want the lower-case rule", s, err)
		}
	}
}

func TestSecondOpenFailsFastWithPID(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), DBFileName)
	db, err := Open(ctx, path, objects.NewMemory(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = Open(ctx, path, objects.NewMemory(), Options{LockTimeout: 50 * time.Millisecond})
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "PID "+strconv.Itoa(os.Getpid())) || !strings.Contains(err.Error(), "talk to the running server") {
		t.Fatalf("second open: %v", err)
	}
}

func TestCorruptDatabaseIsReportedNotRewritten(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	db, err := Open(ctx, good, objects.NewMemory(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 30; i++ {
		mustCreate(t, db, "acme/w"+strconv.Itoa(i))
	}
	db.Close()
	full, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"garbage":   bytes.Repeat([]byte("not a database "), 2000),
		"short":     []byte("tiny"),
		"truncated": full[:len(full)/2],
		"zeroed":    append(make([]byte, 8192), full[8192:]...),
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), DBFileName)
			if err := os.WriteFile(path, content, 0o600); err != nil {
				t.Fatal(err)
			}
			db, err := Open(ctx, path, objects.NewMemory(), Options{})
			if err == nil {
				// Damage bbolt cannot see at open must show on use.
				_, err = db.List(ctx, "")
				if err == nil {
					rep, ferr := db.Fsck(ctx, FsckOptions{})
					if ferr == nil && rep.OK() {
						t.Fatalf("damaged database opened, listed and checked clean")
					}
					err = ErrCorruptDB
				}
				db.Close()
			}
			t.Logf("%s: %v", name, err)
			if !errors.Is(err, ErrCorruptDB) {
				t.Fatalf("open: %v, want ErrCorruptDB", err)
			}
			if err != ErrCorruptDB && (!strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "wsfs recover")) {
				t.Fatalf("error does not name the file and the next step: %v", err)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(after, content) {
				t.Fatalf("the damaged file was rewritten")
			}
		})
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), DBFileName)
	db, err := Open(ctx, path, objects.NewMemory(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	eng, err := boltkv.Open(path, boltkv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng.Update(ctx, func(tx kv.Txn) error { return tx.Put(bucketMeta, keySchema, u64(SchemaVersion+1)) })
	eng.Close()
	_, err = Open(ctx, path, objects.NewMemory(), Options{})
	if !errors.Is(err, ErrSchemaTooNew) || !strings.Contains(err.Error(), "newer wsfs") {
		t.Fatalf("open of a newer schema: %v", err)
	}
}

func TestForeignBoltFileRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), DBFileName)
	eng, err := boltkv.Open(path, boltkv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng.Update(context.Background(), func(tx kv.Txn) error { return tx.Put(kv.B("theirs"), []byte("k"), []byte("v")) })
	eng.Close()
	before, _ := os.ReadFile(path)
	if _, err := Open(context.Background(), path, objects.NewMemory(), Options{}); !errors.Is(err, ErrCorruptDB) {
		t.Fatalf("open of a foreign bbolt file: %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("the foreign file was changed")
	}
}

func TestUnknownWorkspaceAndRevision(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, nil)
	w := mustCreate(t, db, "acme/a")
	if _, err := db.Create(ctx, "acme/a", CreateOptions{}); !errors.Is(err, ErrExists) {
		t.Fatalf("duplicate create: %v", err)
	}
	if _, err := db.Get(ctx, "acme/none"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "workspace acme/none") {
		t.Fatalf("unknown workspace: %v", err)
	}
	if _, err := db.Show(ctx, Ref{w.Name, 9}); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "revision 9 does not exist") {
		t.Fatalf("unknown revision: %v", err)
	}
	if _, _, err := db.Commit(ctx, w.Name, 1, Change{Ops: []Op{PutBytes("../x", nil, 0, t0)}}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("path with ..: %v", err)
	}
	if _, _, err := db.Commit(ctx, w.Name, 1, Change{Ops: []Op{PutFile("x", objects.Sum([]byte("nope")), 4, 0, t0, nil)}}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("put of a missing blob without a source: %v", err)
	}
	if _, err := db.Fork(ctx, Ref{w.Name, 5}, "acme/b", CreateOptions{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("fork of an unknown revision: %v", err)
	}
	if _, _, err := db.Restore(ctx, Ref{w.Name, 7}, CommitInfo{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("restore of an unknown revision: %v", err)
	}
}

func tarOf(t *testing.T, entries ...*tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range entries {
		if h.Typeflag == tar.TypeReg && h.Size == 0 {
			h.Size = int64(len(h.Name))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte(h.Name)[:h.Size])
		}
	}
	tw.Close()
	return buf.Bytes()
}

func TestImportRefusesEscapes(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, nil)
	w := mustCreate(t, db, "acme/a")
	for _, name := range []string{"../evil", "a/../../evil", "/etc/passwd", "ok/../../x"} {
		data := tarOf(t, &tar.Header{Name: "fine.txt", Typeflag: tar.TypeReg, Mode: 0o644}, &tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644})
		_, _, err := db.ImportTar(ctx, w.Name, bytes.NewReader(data), ImportOptions{})
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), strconv.Quote(name)) {
			t.Errorf("import of %q: %v", name, err)
		}
	}
	data := tarOf(t, &tar.Header{Name: "cont", Typeflag: tar.TypeCont})
	if _, _, err := db.ImportTar(ctx, w.Name, bytes.NewReader(data), ImportOptions{}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "contiguous file") {
		t.Errorf("import of a contiguous file: %v", err)
	}
	if _, _, err := db.ImportTar(ctx, w.Name, strings.NewReader("this is not a tar archive at all, not even close......"), ImportOptions{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("import of garbage: %v", err)
	}
	got, _ := db.Get(ctx, w.Name)
	if got.Head != 1 {
		t.Fatalf("a refused import committed: head %d", got.Head)
	}
}
