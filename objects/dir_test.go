package objects_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/objects/objectstest"
)

func openDir(t testing.TB, path string) *objects.Dir {
	t.Helper()
	s, err := objects.OpenDir(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// tamperFile replaces a blob's file as a disk fault or a stray editor would.
func tamperFile(path string, content []byte) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, content, 0o444)
}

func tamperDir(_ context.Context, s objects.Store, d objects.Digest, content []byte) error {
	return tamperFile(s.(*objects.Dir).Path(d), content)
}

func TestDirConformance(t *testing.T) {
	objectstest.Run(t, func(t *testing.T) objects.Store { return openDir(t, t.TempDir()) },
		objectstest.WithTamper(tamperDir))
}

func FuzzDirPutOpen(f *testing.F) { objectstest.Fuzz(f, openDir(f, f.TempDir())) }

func TestDirLayout(t *testing.T) {
	root := t.TempDir()
	s := openDir(t, root)
	d, err := objects.PutBytes(t.Context(), s, []byte("layout"))
	if err != nil {
		t.Fatal(err)
	}
	h := d.String()
	want := filepath.Join(root, "blobs", h[:2], h)
	if s.Path(d) != want {
		t.Fatalf("Path = %s, want %s", s.Path(d), want)
	}
	info, err := os.Stat(want)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm()&0o222 != 0 {
		t.Fatalf("blob file mode %v, want read-only", info.Mode())
	}
	st, err := s.Stat(t.Context(), d)
	if err != nil || !st.ModTime.Equal(info.ModTime()) {
		t.Fatalf("Stat ModTime %v, %v; want the file's %v", st.ModTime, err, info.ModTime())
	}
	if entries, _ := os.ReadDir(filepath.Join(root, "tmp")); len(entries) != 0 {
		t.Fatalf("tmp/ holds %d files after a Put, want none", len(entries))
	}
}

// TestDirListSkipsStrangers checks that files which are not blobs (temp
// files, notes, wrongly named or misplaced files) are never listed.
func TestDirListSkipsStrangers(t *testing.T) {
	root := t.TempDir()
	s := openDir(t, root)
	d, err := objects.PutBytes(t.Context(), s, []byte("real"))
	if err != nil {
		t.Fatal(err)
	}
	other := objects.Sum([]byte("other")).String()
	for _, p := range []string{
		"blobs/README",
		"blobs/zz/" + strings.Repeat("z", 64),
		"blobs/" + other[:2] + "/" + strings.ToUpper(other),
		"blobs/" + other[:2] + "/" + other + ".tmp",
		"blobs/00/" + other, // in the wrong shard
		"tmp/" + other[:16] + "-123.tmp",
	} {
		if err := tamperFile(filepath.Join(root, p), []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	var got []objects.Digest
	if err := s.List(t.Context(), func(i objects.Info) error { got = append(got, i.Digest); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != d {
		t.Fatalf("List = %v, want only %s", got, d.Short())
	}
}

// TestDirListErrors checks that List fails, rather than returning a
// partial listing, when it cannot read the store's folders.
func TestDirListErrors(t *testing.T) {
	root := t.TempDir()
	s := openDir(t, root)
	if _, err := objects.PutBytes(t.Context(), s, []byte("x")); err != nil {
		t.Fatal(err)
	}
	blobs := filepath.Join(root, "blobs")
	if err := os.Rename(blobs, blobs+".away"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blobs, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.List(t.Context(), func(objects.Info) error { return nil }); err == nil || !strings.Contains(err.Error(), root) {
		t.Fatalf("List with blobs/ not a folder = %v, want an error naming %s", err, root)
	}
}

func TestDirListUnreadableShard(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads folders whatever their mode")
	}
	root := t.TempDir()
	s := openDir(t, root)
	shard := filepath.Join(root, "blobs", "fe")
	if err := os.Mkdir(shard, 0o000); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(shard, 0o755)
	if err := s.List(t.Context(), func(objects.Info) error { return nil }); err == nil {
		t.Fatalf("List with an unreadable shard succeeded, want an error")
	}
}

func TestOpenDirErrors(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"", file, filepath.Join(file, "below")} {
		_, err := objects.OpenDir(p)
		if err == nil {
			t.Fatalf("OpenDir(%q) succeeded, want an error", p)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "objects: store folder") || (p != "" && !strings.Contains(msg, p)) {
			t.Fatalf("OpenDir(%q) error %q does not name the folder", p, msg)
		}
		if !strings.Contains(msg, "choose another folder") && !strings.Contains(msg, "give a folder") {
			t.Fatalf("OpenDir(%q) error %q does not say what to do", p, msg)
		}
	}
}

func TestDirCleanTemp(t *testing.T) {
	root := t.TempDir()
	openDir(t, root)
	old := filepath.Join(root, "tmp", "0123456789abcdef-1.tmp")
	young := filepath.Join(root, "tmp", "0123456789abcdef-2.tmp")
	keep := filepath.Join(root, "tmp", "not-ours")
	for _, p := range []string{old, young, keep} {
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-2 * objects.TempGrace)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	s := openDir(t, root) // cleans what is older than TempGrace
	if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("OpenDir left an old temporary file: %v", err)
	}
	if _, err := os.Stat(young); err != nil {
		t.Fatalf("OpenDir removed a young temporary file: %v", err)
	}
	n, err := s.CleanTemp(0)
	if err != nil || n != 1 {
		t.Fatalf("CleanTemp(0) = %d, %v; want 1, nil", n, err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("CleanTemp removed a file that is not a temporary file: %v", err)
	}
}

// TestDirPutRepairsWrongSize checks that a damaged blob of the wrong size
// is replaced by a verified Put of the right bytes.
func TestDirPutRepairsWrongSize(t *testing.T) {
	s := openDir(t, t.TempDir())
	b := objectstest.Content(1, 5000)
	d, err := objects.PutBytes(t.Context(), s, b)
	if err != nil {
		t.Fatal(err)
	}
	if err := tamperFile(s.Path(d), b[:100]); err != nil {
		t.Fatal(err)
	}
	if _, err := objects.PutBytes(t.Context(), s, b); err != nil {
		t.Fatal(err)
	}
	got, err := objects.Get(t.Context(), s, d)
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("Get after repair: %d bytes, %v", len(got), err)
	}
}

// TestDirCorruptNamesFile checks that reading a damaged blob names the
// file on disk and the way out, and still wraps ErrCorrupt.
func TestDirCorruptNamesFile(t *testing.T) {
	s := openDir(t, t.TempDir())
	b := objectstest.Content(2, 3000)
	d, err := objects.PutBytes(t.Context(), s, b)
	if err != nil {
		t.Fatal(err)
	}
	damaged := bytes.Clone(b)
	damaged[1500] ^= 0x01
	if err := tamperFile(s.Path(d), damaged); err != nil {
		t.Fatal(err)
	}
	_, err = objects.Get(t.Context(), s, d)
	if !errors.Is(err, objects.ErrCorrupt) {
		t.Fatalf("Get of a damaged blob = %v, want ErrCorrupt", err)
	}
	for _, want := range []string{s.Path(d), "wsfs fsck", "earlier revision"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestDirTwoStoresSameFolder puts the same blobs through two Dir values
// on one folder at once, as two processes sharing a store would.
func TestDirTwoStoresSameFolder(t *testing.T) {
	root := t.TempDir()
	stores := []*objects.Dir{openDir(t, root), openDir(t, root)}
	blobs := make([][]byte, 20)
	for i := range blobs {
		blobs[i] = objectstest.Content(uint64(i), 10<<10+i)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8*len(blobs))
	for w := range 8 {
		wg.Go(func() {
			s := stores[w%2]
			for i := range blobs {
				b := blobs[(i+w)%len(blobs)]
				if _, err := objects.PutBytes(t.Context(), s, b); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, b := range blobs {
		for _, s := range stores {
			got, err := objects.Get(t.Context(), s, objects.Sum(b))
			if err != nil || !bytes.Equal(got, b) {
				t.Fatalf("Get: %d bytes, %v", len(got), err)
			}
		}
	}
	if n, err := stores[0].CleanTemp(0); err != nil || n != 0 {
		t.Fatalf("temporary files left after concurrent Puts: %d, %v", n, err)
	}
}

const killChildEnv = "WSFS_OBJECTS_KILL_CHILD"

// TestDirKillChild is the child of TestDirKill9: it puts blobs into the
// folder named by $WSFS_OBJECTS_KILL_CHILD until it is killed, printing
// each digest once its Put has returned.
func TestDirKillChild(t *testing.T) {
	root := os.Getenv(killChildEnv)
	if root == "" {
		t.Skip("helper process of TestDirKill9")
	}
	s := openDir(t, root)
	seed := uint64(time.Now().UnixNano())
	base := objectstest.Content(seed, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for i := uint64(0); ; i++ {
		// Sizes from empty to 1 MiB, so kills land inside long writes too;
		// the content is cheap to make, so most of the time is spent in Put.
		size := int((seed + i*104729) % (1 << 20))
		if i%3 == 0 {
			size %= 4096
		}
		b := base[:size]
		if size >= 8 {
			binary.LittleEndian.PutUint64(b, seed+i)
		}
		d := objects.Sum(b)
		// Small reads make the write phase long.
		if err := s.Put(context.Background(), d, iotest.HalfReader(bytes.NewReader(b)), int64(size)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		fmt.Fprintln(out, d)
		out.Flush()
	}
}

// TestDirKill9 kills a process putting blobs at random points, several
// times over, and then checks that every listed blob verifies and every
// Put that returned left its blob.
func TestDirKill9(t *testing.T) {
	if os.Getenv(killChildEnv) != "" {
		t.Skip("running as the child")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	done := map[objects.Digest]bool{}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	for round := range 10 {
		cmd := exec.Command(exe, "-test.run=^TestDirKillChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), killChildEnv+"="+root)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(stdout)
		want := 1 + rng.IntN(12)
		for n := 0; n < want && lines.Scan(); n++ {
			d, err := objects.ParseDigest(lines.Text())
			if err != nil {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("round %d: child printed %q: %v (stderr: %s)", round, lines.Text(), err, stderr.String())
			}
			done[d] = true
		}
		// Land the kill anywhere in the next Put: before, while writing,
		// between fsync and rename.
		time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		// Digests printed before the kill landed are complete Puts too.
		for lines.Scan() {
			if d, err := objects.ParseDigest(lines.Text()); err == nil {
				done[d] = true
			}
		}
		err = cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: child ended with %v, want killed (stderr: %s)", round, err, stderr.String())
		}
	}

	s := openDir(t, root)
	listed := map[objects.Digest]bool{}
	err = s.List(t.Context(), func(i objects.Info) error {
		listed[i.Digest] = true
		if _, err := objects.Get(t.Context(), s, i.Digest); err != nil {
			return fmt.Errorf("listed blob %s does not verify: %w", i.Digest.Short(), err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for d := range done {
		if !listed[d] {
			t.Fatalf("blob %s was put (Put returned) but is not listed after the kill", d.Short())
		}
	}
	leftover, err := s.CleanTemp(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d completed Puts, %d blobs listed, %d temporary files left by kills and removed", len(done), len(listed), leftover)
}

const fsizeChildEnv = "WSFS_OBJECTS_FSIZE_CHILD"

// TestDirWriteFailure runs a child whose file size limit (RLIMIT_FSIZE)
// makes writes fail midway, as a full disk would: Put must fail with a
// clear error and leave no blob and no temporary file behind, and blobs
// stored before must still verify.
func TestDirWriteFailure(t *testing.T) {
	if root := os.Getenv(fsizeChildEnv); root != "" {
		dirWriteFailureChild(t, root)
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestDirWriteFailure$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), fsizeChildEnv+"="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("child checks passed")) {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func dirWriteFailureChild(t *testing.T, root string) {
	const limit = 64 << 10
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		t.Fatal(err)
	}
	s := openDir(t, root)
	small := objectstest.Content(1, 10<<10)
	ds, err := objects.PutBytes(t.Context(), s, small)
	if err != nil {
		t.Fatal(err)
	}
	big := objectstest.Content(2, 256<<10)
	db, err := objects.PutBytes(t.Context(), s, big)
	if !errors.Is(err, syscall.EFBIG) || !strings.Contains(err.Error(), root) || !strings.Contains(err.Error(), "ulimit -f") {
		t.Fatalf("Put over the file size limit = %v, want EFBIG naming the folder and the fix", err)
	}
	t.Logf("Put over the file size limit: %v", err)
	if _, err := s.Stat(t.Context(), db); !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("Stat of the failed blob = %v, want ErrNotFound", err)
	}
	if n, err := s.CleanTemp(0); err != nil || n != 0 {
		t.Fatalf("temporary files left by the failed Put: %d, %v", n, err)
	}
	got, err := objects.Get(t.Context(), s, ds)
	if err != nil || !bytes.Equal(got, small) {
		t.Fatalf("earlier blob after the failed Put: %d bytes, %v", len(got), err)
	}
	t.Log("child checks passed")
}
