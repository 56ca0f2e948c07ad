package integration

// Fault scenarios (issue 8): the server SIGKILLed mid-command and
// mid-commit, MinIO stopped mid-commit, a full spool disk, a corrupted
// blob. Each ends with the previous revision intact, a clear error, and
// `wsfs fsck` telling the truth.
//
// "Mid-commit" is caught without timing: the S3 store is reached through
// stallProxy, which holds a chosen upload (recognised by its bytes) until
// the test has done its damage.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/objects/s3/s3test"
)

// TestFaultKillServerMidCommand: SIGKILL the server while a command sleeps.
// The command's caller gets a clear error, the revision before it is
// intact, the next server detaches the stale mount, and the command's
// uncommitted edit is gone (as documented), never half there.
func TestFaultKillServerMidCommand(t *testing.T) {
	t.Parallel()
	e := NewEnv(t, Local)
	const ws = "acme/kill-cmd"
	srv := startWithOneFile(t, e, ws)

	p := startRun(e, ws, "echo partial > two.txt; sleep 10; echo after > three.txt")
	waitFor(t, "two.txt on the mount", func() bool {
		_, err := os.Stat(filepath.Join(e.WorkspaceDir(ws), "two.txt"))
		return err == nil
	})
	srv.Kill()
	res := p.wait(t)
	if res.Code == 0 || !strings.Contains(res.Stderr, "server") {
		t.Errorf("wsfs run whose server was killed: want a non-zero exit and an error about the server\n%v", res)
	}
	// (statfs always asks the FUSE connection; stat may be answered from
	// the kernel's attribute cache for a moment.)
	var st syscall.Statfs_t
	if err := syscall.Statfs(e.Mnt, &st); !errors.Is(err, syscall.ENOTCONN) {
		t.Errorf("statfs of the dead server's mount: %v, want ENOTCONN", err)
	}

	// With the server dead, the history verbs open meta.db themselves.
	assertHead(t, e, ws, 2, map[string]string{"one.txt": "one\n"}, "two.txt")
	assertFsckClean(t, e)

	srv = e.Start("--quiet", "1h")
	// (Its stderr and the readiness line on stdout travel apart: poll.)
	waitFor(t, "the restarted server's word on cleaning up after the dead one", func() bool {
		log := srv.Stderr()
		return strings.Contains(log, "died without cleaning up") && strings.Contains(log, "stale mount")
	})
	if got := treeOf(t, e.WorkspaceDir(ws)); !slices.Equal(got, []string{"one.txt"}) {
		t.Errorf("tree after restart: %q, want only one.txt", got)
	}
	endWithThree(t, e, srv, ws)
}

// TestFaultKillServerMidCommit: SIGKILL the server while its snapshot
// uploads the revision's manifest (in the commit's pack, with the file and
// the trees: the last upload before the metadata is written). Nothing of
// the commit reaches the store, no revision names anything missing, and
// fsck is clean.
func TestFaultKillServerMidCommit(t *testing.T) {
	t.Parallel()
	e, proxy := proxiedEnv(t, s3test.Start(t))
	const ws = "acme/kill-commit"
	srv := startWithOneFile(t, e, ws)

	held, release := proxy.arm(func(body []byte) bool { return isPackWith(body, "wsfs-rev1\n") })
	p := startRun(e, ws, "echo two > two.txt")
	waitHeld(t, held, "the manifest upload of the command's revision")
	srv.Kill()
	release(false) // its client is dead: the manifest never reaches MinIO
	if res := p.wait(t); res.Code == 0 || !strings.Contains(res.Stderr, "server") {
		t.Errorf("wsfs run whose server was killed mid-commit: want a non-zero exit and an error about the server\n%v", res)
	}

	// wsfs umount detaches the dead server's mount and says so.
	u := e.Wsfs("umount", e.Mnt)
	if u.Code != 0 || !strings.Contains(u.Stderr, "stale mount") || mounted(e.Mnt) {
		t.Errorf("wsfs umount of a dead server's mount: want exit 0, a word about the stale mount, and no mount left (mounted: %v)\n%v", mounted(e.Mnt), u)
	}
	srv = e.Start("--quiet", "1h")
	assertHead(t, e, ws, 2, map[string]string{"one.txt": "one\n"}, "two.txt")
	rep := fsck(t, e)
	if len(rep.Problems) != 0 {
		t.Errorf("fsck after a commit killed before its metadata: problems %+v", rep.Problems)
	}
	if slices.Contains(e.Store.Blobs(t), digestOf("two\n")) {
		t.Errorf("the store holds two.txt's content %s, which only the killed commit's pack had", digestOf("two\n"))
	}
	endWithThree(t, e, srv, ws)
}

// TestFaultMinioStoppedMidCommit: MinIO stops while the snapshot uploads
// the command's file. The command's caller gets an error that names the
// store, no revision is recorded, the server lives on, and once MinIO is
// back the next command commits the edits of both commands.
func TestFaultMinioStoppedMidCommit(t *testing.T) {
	t.Parallel()
	minioSrv := s3test.StartOwn(t)
	e, proxy := proxiedEnv(t, minioSrv)
	const ws = "acme/minio-down"
	srv := startWithOneFile(t, e, ws)

	held, release := proxy.arm(func(body []byte) bool { return isPackWith(body, "two\n") })
	p := startRun(e, ws, "echo two > two.txt")
	waitHeld(t, held, "the upload of two.txt")
	if err := minioSrv.Stop(); err != nil {
		t.Fatal(err)
	}
	release(true) // on to a dead MinIO, and so are the retries
	res := p.wait(t)
	if res.Code == 0 || !strings.Contains(res.Stderr, e.Store.Bucket) || !strings.Contains(res.Stderr, proxy.endpoint()) ||
		!strings.Contains(res.Stderr, "head stays at revision 2") {
		t.Errorf("wsfs run whose store died mid-commit: want a non-zero exit and an error naming the store (bucket %s at %s) and the head\n%v",
			e.Store.Bucket, proxy.endpoint(), res)
	}
	if srv.Exited() {
		t.Fatalf("the server died with its store:\n%s", srv.Stderr())
	}
	assertHead(t, e, ws, 2, map[string]string{"one.txt": "one\n"}, "two.txt")
	// With the store down, fsck cannot vouch for anything, and says so.
	if rep := fsck(t, e); rep.code == 0 || !slices.ContainsFunc(rep.Problems, func(p fsckProblem) bool { return strings.Contains(p.Detail, e.Store.Bucket) }) {
		t.Errorf("fsck with the store down: exit %d, problems %+v; want a failure naming the store", rep.code, rep.Problems)
	}

	if err := minioSrv.Restart(); err != nil {
		t.Fatal(err)
	}
	// The edit the failed commit could not store is still on the mount:
	// the next command commits it (as pending edits of the mount, then
	// its own revision).
	mustCommit(t, e, ws, "cat two.txt; echo three > three.txt", 0)
	srv.Stop()
	assertHead(t, e, ws, 0, map[string]string{"one.txt": "one\n", "two.txt": "two\n", "three.txt": "three\n"})
	assertFsckClean(t, e)
}

// TestFaultSpoolFull: the server's spool (where the mount keeps written
// bytes until they are committed) on a 2 MiB tmpfs. Writing past it, by a
// command or on the mount, fails with ENOSPC; what is committed is what
// the mount shows; the server survives and serves the next command.
func TestFaultSpoolFull(t *testing.T) {
	t.Parallel()
	e := NewEnv(t, Local)
	spool := filepath.Join(e.Home, "spool")
	if err := os.MkdirAll(spool, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", spool, "tmpfs", 0, "size=2m"); err != nil {
		t.Fatalf("mounting a 2 MiB tmpfs on the spool: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(spool, syscall.MNT_DETACH) })
	const ws = "acme/spool"
	e.MustWsfs("create", ws)
	e.MustWsfs("quota", ws, "set", "file-bytes=16MiB", "workspace-bytes=64MiB")
	srv := e.Start("--quiet", "1h")
	mustCommit(t, e, ws, "echo small > small.txt", 2)

	// A command: seq's 3.4 MB cannot fit.
	r := e.Run(ws, "seq 1 500000 > big.txt")
	if r.ExitCode == 0 || !strings.Contains(strings.ToLower(r.Stderr), "no space left on device") {
		t.Errorf("a command writing past the full spool: want a failure saying no space left on device, got %+v", r)
	}
	assertCommittedMatchesMount(t, e, ws, "big.txt")

	// A developer on the mount.
	big := bytes.Repeat([]byte("0123456789abcdef"), 3<<20/16)
	err := os.WriteFile(filepath.Join(e.WorkspaceDir(ws), "mounted.bin"), big, 0o644)
	if !errors.Is(err, syscall.ENOSPC) && !errors.Is(err, syscall.EDQUOT) {
		t.Errorf("writing 3 MiB on the mount with a 2 MiB spool: %v, want ENOSPC or EDQUOT", err)
	}

	// The server lives on: freeing the space lets the next command commit.
	if srv.Exited() {
		t.Fatalf("the server died of a full spool:\n%s", srv.Stderr())
	}
	mustCommit(t, e, ws, "rm -f big.txt mounted.bin; echo after > after.txt; cat small.txt", 0)
	srv.Stop()
	head := assertHead(t, e, ws, 0, map[string]string{"small.txt": "small\n", "after.txt": "after\n"}, "big.txt", "mounted.bin")
	if head.N < 3 {
		t.Errorf("head %d after the last command, want a new revision", head.N)
	}
	assertFsckClean(t, e)
}

// TestFaultCorruptBlob: a blob overwritten in the store behind wsfs's back
// (same size, other bytes). Reading the file on the mount fails with EIO
// and the server logs the digest; `wsfs cat` fails; neither ever yields
// the wrong bytes; fsck reports the blob as corrupt.
func TestFaultCorruptBlob(t *testing.T) {
	for _, kind := range []StoreKind{Local, S3} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			e := NewEnv(t, kind)
			const ws = "acme/corrupt"
			const content = "precious data\n"
			e.MustWsfs("create", ws)
			srv := e.Start("--quiet", "1h")
			mustCommit(t, e, ws, "printf 'precious data\\n' > data.txt; echo fine > other.txt", 2)
			srv.Stop()

			digest := digestOf(content)
			corrupt(t, e.Store, digest, []byte(strings.ToUpper(content)))
			// The read cache would still hold the good copy.
			if err := os.RemoveAll(filepath.Join(e.Home, "cache")); err != nil {
				t.Fatal(err)
			}

			srv = e.Start("--quiet", "1h")
			data, err := os.ReadFile(filepath.Join(e.WorkspaceDir(ws), "data.txt"))
			if !errors.Is(err, syscall.EIO) {
				t.Errorf("reading the corrupted file on the mount: %q, %v; want EIO", data, err)
			}
			if bytes.Contains(data, []byte("PRECIOUS")) {
				t.Errorf("the mount returned the corrupted bytes %q", data)
			}
			waitFor(t, "the server's log line naming the corrupt blob "+digest, func() bool { return strings.Contains(srv.Stderr(), digest) })
			if other, err := os.ReadFile(filepath.Join(e.WorkspaceDir(ws), "other.txt")); err != nil || string(other) != "fine\n" {
				t.Errorf("other.txt, whose blob is sound: %q, %v", other, err)
			}
			c := e.Wsfs("cat", ws, "data.txt")
			if c.Code == 0 || strings.Contains(c.Stdout, "PRECIOUS") || !strings.Contains(c.Stderr, digest[:12]) {
				t.Errorf("wsfs cat of the corrupted file: want a failure naming the digest and none of its bytes\n%v", c)
			}
			// The workspace goes on: a command that replaces the file commits.
			mustCommit(t, e, ws, "rm data.txt; echo fresh > data.txt; cat other.txt", 3)
			srv.Stop()
			assertHead(t, e, ws, 3, map[string]string{"data.txt": "fresh\n", "other.txt": "fine\n"})

			// Revision 2, still retained, names the damaged blob.
			rep := fsck(t, e)
			found := false
			for _, p := range rep.Problems {
				if p.Kind == "blob-corrupt" && p.Digest == digest && p.Workspace == ws {
					found = true
				} else {
					t.Errorf("fsck found a problem besides the corrupt blob: %+v", p)
				}
			}
			if !found || rep.code == 0 {
				t.Errorf("fsck (exit %d) does not report blob %s as corrupt: %+v", rep.code, digest, rep.Problems)
			}
		})
	}
}

// startWithOneFile creates ws, starts a server that commits only after
// commands (and at its stop), and commits one.txt as revision 2.
func startWithOneFile(t *testing.T, e *Env, ws string) *Server {
	t.Helper()
	e.MustWsfs("create", ws)
	srv := e.Start("--quiet", "1h")
	mustCommit(t, e, ws, "echo one > one.txt", 2)
	return srv
}

// endWithThree checks that the workspace goes on after the fault: the next
// command commits revision 3 on top of revision 2, and after the server's
// stop the history has one.txt and three.txt, never two.txt, and fsck is
// clean.
func endWithThree(t *testing.T, e *Env, srv *Server, ws string) {
	t.Helper()
	mustCommit(t, e, ws, "cat one.txt; echo three > three.txt", 3)
	srv.Stop()
	assertHead(t, e, ws, 3, map[string]string{"one.txt": "one\n", "three.txt": "three\n"}, "two.txt")
	assertFsckClean(t, e)
}

// mustCommit runs script and fails unless it exits 0 and commits revision
// want (0: any new revision).
func mustCommit(t *testing.T, e *Env, ws, script string, want uint64) RunResult {
	t.Helper()
	r := e.Run(ws, script)
	if r.ExitCode != 0 || !r.Committed || want != 0 && r.Revision != want {
		t.Fatalf("%q: want exit 0 and revision %d committed, got %+v", script, want, r)
	}
	return r
}

// assertHead checks ws's head revision (want 0: any) and, through `wsfs
// cat` of that revision, the content of files and the absence of gone.
func assertHead(t *testing.T, e *Env, ws string, want uint64, files map[string]string, gone ...string) Revision {
	t.Helper()
	head := e.Head(ws)
	if want != 0 && head.N != want {
		t.Errorf("head of %s is revision %d (%q), want %d", ws, head.N, head.Command, want)
	}
	ref := fmt.Sprintf("%s@%d", ws, head.N)
	for name, content := range files {
		if c := e.Wsfs("cat", ref, name); c.Code != 0 || c.Stdout != content {
			t.Errorf("%s %s: want %q\n%v", ref, name, content, c)
		}
	}
	for _, name := range gone {
		if c := e.Wsfs("cat", ref, name); c.Code == 0 {
			t.Errorf("%s has %s (%q), which was never committed", ref, name, c.Stdout)
		}
	}
	return head
}

// assertCommittedMatchesMount checks that the head has name exactly as the
// mount shows it, or that neither has it.
func assertCommittedMatchesMount(t *testing.T, e *Env, ws, name string) {
	t.Helper()
	onMount, err := os.ReadFile(filepath.Join(e.WorkspaceDir(ws), name))
	c := e.Wsfs("cat", ws, name)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if c.Code == 0 {
			t.Errorf("%s is committed (%d bytes) but not on the mount", name, len(c.Stdout))
		}
	case err != nil:
		t.Errorf("reading %s on the mount: %v", name, err)
	case c.Code != 0 || c.Stdout != string(onMount):
		t.Errorf("%s: the mount shows %d bytes, the head revision has %d (wsfs cat exit %d: %s)", name, len(onMount), len(c.Stdout), c.Code, c.Stderr)
	}
}

// fsckReport is `wsfs fsck --json`'s report and exit code.
type fsckReport struct {
	Problems []fsckProblem `json:"problems"`
	Orphans  []struct {
		Digest string `json:"digest"`
	} `json:"orphans"`
	code int
}

type fsckProblem struct {
	Kind      string `json:"kind"`
	Workspace string `json:"workspace"`
	Rev       uint64 `json:"rev"`
	Path      string `json:"path"`
	Digest    string `json:"digest"`
	Detail    string `json:"detail"`
}

func fsck(t *testing.T, e *Env) fsckReport {
	t.Helper()
	r := e.Wsfs("fsck", "--json")
	var rep fsckReport
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("wsfs fsck --json: %v\n%v", err, r)
	}
	rep.code = r.Code
	if (r.Code == 0) != (len(rep.Problems) == 0) {
		t.Errorf("wsfs fsck exited %d with %d problems", r.Code, len(rep.Problems))
	}
	return rep
}

func assertFsckClean(t *testing.T, e *Env) {
	t.Helper()
	if rep := fsck(t, e); len(rep.Problems) != 0 {
		t.Errorf("fsck: %+v", rep.Problems)
	}
}

// isPackWith reports whether an upload's body is a pack holding bytes
// that contain part.
func isPackWith(body []byte, part string) bool {
	return objects.IsPackHead(body) && bytes.Contains(body, []byte(part))
}

func digestOf(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])
}

// corrupt overwrites the object digest where the store holds it (its pack
// or its single blob) with other bytes of the same length, behind wsfs's
// back.
func corrupt(t *testing.T, s *Store, digest string, bad []byte) {
	t.Helper()
	at, ok := s.objects(t)[digest]
	if !ok {
		t.Fatalf("object %s is not in the store", digest)
	}
	if int64(len(bad)) != at.length {
		t.Fatalf("corrupt: %d bad bytes for an object of %d", len(bad), at.length)
	}
	b := s.Get(t, at.key)
	copy(b[at.off:], bad)
	switch s.Kind {
	case Local:
		p := s.ObjectPath(at.key)
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o444); err != nil {
			t.Fatal(err)
		}
	case S3:
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := s.S3.Client(t).PutObject(ctx, s.Bucket, s.ObjectPath(at.key), bytes.NewReader(b), int64(len(b)), minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// pendingRun is a `wsfs run` started in the background.
type pendingRun struct {
	args []string
	cmd  *exec.Cmd
	out  strings.Builder
	errb strings.Builder
	done chan struct{}
	res  Result
}

// startRun starts `wsfs run -w ws script` and returns at once.
func startRun(e *Env, ws, script string) *pendingRun {
	e.T.Helper()
	p := &pendingRun{args: []string{"run", "-w", ws, script}, done: make(chan struct{})}
	p.cmd = exec.Command(e.Bin, p.args...)
	p.cmd.Env = e.Environ()
	p.cmd.Dir = e.Base
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.errb
	if err := p.cmd.Start(); err != nil {
		e.T.Fatalf("wsfs run: %v", err)
	}
	go func() {
		err := p.cmd.Wait()
		p.res = Result{Args: p.args, Stdout: p.out.String(), Stderr: p.errb.String()}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			p.res.Code = ee.ExitCode()
		}
		close(p.done)
	}()
	e.T.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// wait waits for the run to end (a failure after commandTimeout).
func (p *pendingRun) wait(t testing.TB) Result {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(commandTimeout):
		t.Fatalf("wsfs %s did not end within %v", strings.Join(p.args, " "), commandTimeout)
	}
	return p.res
}

// waitFor polls cond until it holds, failing t after commandTimeout.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(commandTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", commandTimeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitHeld(t testing.TB, held <-chan string, what string) {
	t.Helper()
	select {
	case <-held:
	case <-time.After(commandTimeout):
		t.Fatalf("waited %v for %s to reach the proxy", commandTimeout, what)
	}
}

// stallProxy forwards HTTP to an S3 server. Armed with a predicate on a
// PUT's body, it holds the first upload that matches until released, and
// tells the test it holds it: the moment a commit is mid-way, caught
// without timing. When the server behind it is down, it drops the client's
// connection, as a dead server does.
type stallProxy struct {
	*httptest.Server
	mu      sync.Mutex
	match   func(body []byte) bool
	held    chan string
	forward chan bool
}

func startStallProxy(t testing.TB, target string) *stallProxy {
	t.Helper()
	p := &stallProxy{}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: target})
	rp.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, herr := hj.Hijack(); herr == nil {
				conn.Close()
				return
			}
		}
		w.WriteHeader(http.StatusBadGateway)
	}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var forward chan bool
		if r.Method == http.MethodPut {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			p.mu.Lock()
			if p.match != nil && p.match(body) {
				p.match = nil
				forward = p.forward
				p.held <- r.URL.Path
			}
			p.mu.Unlock()
		}
		if forward != nil {
			select {
			case ok := <-forward:
				if !ok {
					return
				}
			case <-r.Context().Done():
				return
			}
		}
		rp.ServeHTTP(w, r) // Host stays the proxy's, which is what the client signed
	}))
	t.Cleanup(p.Close)
	return p
}

// arm makes the proxy hold the next upload whose body match accepts; held
// then receives its path, and release(forward) sends it on to the server
// or drops it.
func (p *stallProxy) arm(match func(body []byte) bool) (held <-chan string, release func(forward bool)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.match, p.held, p.forward = match, make(chan string, 1), make(chan bool, 1)
	ch := p.forward
	var once sync.Once
	return p.held, func(forward bool) { once.Do(func() { ch <- forward }) }
}

func (p *stallProxy) endpoint() string { return strings.TrimPrefix(p.URL, "http://") }

// proxiedEnv is an Env whose store is a fresh bucket of srv reached
// through a stallProxy.
func proxiedEnv(t *testing.T, srv *s3test.Server) (*Env, *stallProxy) {
	t.Helper()
	RequireFUSE(t)
	p := startStallProxy(t, srv.Endpoint)
	store := NewS3Store(t, srv, srv.Bucket(t), "ws")
	proxied := *srv
	proxied.Endpoint = p.endpoint()
	store.URL = proxied.StoreURL(store.Bucket, store.Prefix)
	return NewEnvWithStore(t, store), p
}
