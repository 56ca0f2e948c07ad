package integration

// The harness: real binaries, a real server process, a real store.
//
//	env := NewEnv(t, Local)          // or S3 (a bucket on the shared MinIO)
//	srv := env.Start("--quiet", "200ms")
//	env.MustWsfs("create", "acme/r")
//	res := env.Run("acme/r", "echo hi > a.txt")   // wsfs run --json
//	revs := env.Log("acme/r")
//	srv.Stop()                        // SIGTERM; fails on a leftover mount or leaked fds
//
// Every Env has its own WSFS_HOME, mount dir and store; tests with
// separate Envs may run in parallel. The binaries are built once per test
// binary into one temp folder (bin/wsfs next to bin/wsfs-core, as `make
// build` lays them out), so the front finds its core the way a user's
// install does.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/wsfs/wsfs/internal/testenv"
	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/objects/s3/s3test"
)

func TestMain(m *testing.M) {
	code := s3test.Main(m)
	if left := leftoverMounts(); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "integration: FUSE mounts left behind (detached now): %v\n", left)
		for _, d := range left {
			_ = syscall.Unmount(d, syscall.MNT_DETACH)
		}
		code = 1
	}
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// commandTimeout bounds any one wsfs invocation; a hang is a failure with
// the process's output, not a stuck test binary.
const commandTimeout = 2 * time.Minute

// readyTimeout bounds how long a server may take to print its readiness line.
const readyTimeout = 30 * time.Second

// EnvBinDir names a folder holding prebuilt wsfs and wsfs-core to test
// instead of building the working tree (for bisecting, or when another
// package is mid-change).
const EnvBinDir = "WSFS_IT_BINDIR"

var (
	binOnce     sync.Once
	binDir      string // built here, removed by TestMain
	binPrebuilt string // or taken from $WSFS_IT_BINDIR
	binErr      error
)

// Binaries builds cmd/wsfs and cmd/wsfs-core once per test binary (or
// takes them from $WSFS_IT_BINDIR) and returns the path of the front
// (wsfs-core sits next to it).
func Binaries(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		if dir := os.Getenv(EnvBinDir); dir != "" {
			binPrebuilt = dir
			for _, name := range []string{"wsfs", "wsfs-core"} {
				if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
					binErr = fmt.Errorf("%s=%s: %w (build both with `go build -o DIR ./cmd/wsfs ./cmd/wsfs-core`, or unset it)", EnvBinDir, dir, err)
				}
			}
			return
		}
		if binDir, binErr = os.MkdirTemp("", "wsfs-integration-bin-"); binErr != nil {
			return
		}
		root, err := repoRoot()
		if err != nil {
			binErr = err
			return
		}
		for _, name := range []string{"wsfs", "wsfs-core"} {
			args := []string{"build", "-o", filepath.Join(binDir, name)}
			if name == "wsfs" {
				args = append(args, "-ldflags=-s -w") // as make build does
			}
			cmd := exec.Command("go", append(args, "./cmd/"+name)...)
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				binErr = fmt.Errorf("go build ./cmd/%s: %v\n%s", name, err, out)
				return
			}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	if binPrebuilt != "" {
		return filepath.Join(binPrebuilt, "wsfs")
	}
	return filepath.Join(binDir, "wsfs")
}

// repoRoot is the folder holding go.mod above this test's directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("integration: no go.mod above %s", dir)
		}
	}
}

// RequireFUSE skips t without /dev/fuse or root, and fails it instead
// under CI=true.
func RequireFUSE(t testing.TB) { testenv.RequireFUSE(t) }

// StoreKind picks the object store of an Env.
type StoreKind string

const (
	Local StoreKind = "local" // the default: a folder under WSFS_HOME
	S3    StoreKind = "s3"    // a fresh bucket on the shared MinIO
)

// Store is the object store an Env's processes use.
type Store struct {
	Kind StoreKind
	URL  string // what WSFS_STORE is set to

	Dir string // Local: the objects folder

	S3     *s3test.Server // S3: the server
	Bucket string         // S3: the bucket
	Prefix string         // S3: the key prefix (no slashes around it)
}

// Keys lists every object key in the store, relative to the store's root
// (for S3, with the prefix and its slash removed), sorted.
func (s *Store) Keys(t testing.TB) []string {
	t.Helper()
	var keys []string
	switch s.Kind {
	case Local:
		err := filepath.WalkDir(s.Dir, func(p string, d os.DirEntry, err error) error {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			if d.Type().IsRegular() {
				rel, _ := filepath.Rel(s.Dir, p)
				keys = append(keys, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			t.Fatalf("listing %s: %v", s.Dir, err)
		}
	case S3:
		for _, k := range s.listBucket(t, s.Prefix+"/") {
			keys = append(keys, strings.TrimPrefix(k, s.Prefix+"/"))
		}
	}
	sort.Strings(keys)
	return keys
}

// BucketKeys lists every object name in an S3 store's bucket, whatever
// its prefix, sorted.
func (s *Store) BucketKeys(t testing.TB) []string {
	t.Helper()
	if s.Kind != S3 {
		t.Fatalf("BucketKeys on a %s store", s.Kind)
	}
	return s.listBucket(t, "")
}

func (s *Store) listBucket(t testing.TB, prefix string) []string {
	t.Helper()
	c := s.S3.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var keys []string
	for obj := range c.ListObjects(ctx, s.Bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if obj.Err != nil {
			t.Fatalf("listing s3://%s/%s: %v", s.Bucket, prefix, obj.Err)
		}
		keys = append(keys, obj.Key)
	}
	sort.Strings(keys)
	return keys
}

// Blobs returns the hex digests of the objects in the store, sorted: the
// single blobs (keys blobs/<2 hex>/<64 hex>) and the objects inside packs.
func (s *Store) Blobs(t testing.TB) []string {
	t.Helper()
	var out []string
	for d := range s.objects(t) {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// storedObject is where the store holds an object: a key, and the
// object's bytes at [off, off+length) in it.
type storedObject struct {
	key         string
	off, length int64
	packed      bool
}

// objects maps the hex digest of every object in the store to where it
// is, reading every pack's index.
func (s *Store) objects(t testing.TB) map[string]storedObject {
	t.Helper()
	out := map[string]storedObject{}
	for _, k := range s.Keys(t) {
		parts := strings.Split(k, "/")
		if len(parts) != 3 || parts[0] != "blobs" || len(parts[2]) != 64 || !strings.HasPrefix(parts[2], parts[1]) {
			continue
		}
		b := s.Get(t, k)
		if objects.IsPackHead(b) {
			if idx, err := objects.DecodePack(b); err == nil {
				for _, e := range idx.Entries {
					out[e.Digest.String()] = storedObject{key: k, off: e.Offset, length: e.Length, packed: true}
				}
				continue
			}
		}
		if _, ok := out[parts[2]]; !ok {
			out[parts[2]] = storedObject{key: k, length: int64(len(b))}
		}
	}
	return out
}

// Get returns the bytes stored under key.
func (s *Store) Get(t testing.TB, key string) []byte {
	t.Helper()
	switch s.Kind {
	case Local:
		b, err := os.ReadFile(s.ObjectPath(key))
		if err != nil {
			t.Fatal(err)
		}
		return b
	default:
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		obj, err := s.S3.Client(t).GetObject(ctx, s.Bucket, s.ObjectPath(key), minio.GetObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer obj.Close()
		b, err := io.ReadAll(obj)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

// ObjectPath returns where key lives: a file path for Local, the full
// object name (prefix included) for S3.
func (s *Store) ObjectPath(key string) string {
	if s.Kind == Local {
		return filepath.Join(s.Dir, filepath.FromSlash(key))
	}
	return s.Prefix + "/" + key
}

// Env is one user's setup: a WSFS_HOME, a mount dir, a store, and the
// environment every wsfs process of the test gets.
type Env struct {
	T     testing.TB
	Bin   string // the wsfs front; wsfs-core is next to it
	Base  string // temp folder holding Home and Mnt
	Home  string // WSFS_HOME
	Mnt   string // where Start mounts
	Store *Store

	mu      sync.Mutex
	servers []*Server
}

// NewEnv prepares a home, a mount dir and a store of kind; S3 uses the
// test binary's shared MinIO (skipping without one, failing under CI=true).
// It checks FUSE too: every Env is meant to run a server.
func NewEnv(t testing.TB, kind StoreKind) *Env {
	t.Helper()
	RequireFUSE(t)
	var store *Store
	switch kind {
	case Local:
	case S3:
		srv := s3test.Start(t)
		store = NewS3Store(t, srv, srv.Bucket(t), "ws")
	default:
		t.Fatalf("integration: unknown store kind %q", kind)
	}
	return NewEnvWithStore(t, store)
}

// NewS3Store names prefix in bucket on srv as an Env's store.
func NewS3Store(t testing.TB, srv *s3test.Server, bucket, prefix string) *Store {
	t.Helper()
	return &Store{Kind: S3, URL: srv.StoreURL(bucket, prefix), S3: srv, Bucket: bucket, Prefix: strings.Trim(prefix, "/")}
}

// NewEnvWithStore is NewEnv with a given store (nil: the local default).
func NewEnvWithStore(t testing.TB, store *Store) *Env {
	t.Helper()
	base, err := os.MkdirTemp("", "wsfs-it-")
	if err != nil {
		t.Fatal(err)
	}
	e := &Env{T: t, Bin: Binaries(t), Base: base, Home: filepath.Join(base, "home"), Mnt: filepath.Join(base, "mnt")}
	if store == nil {
		store = &Store{Kind: Local, Dir: filepath.Join(e.Home, "objects")}
		store.URL = store.Dir
	}
	e.Store = store
	for _, d := range []string{e.Home, e.Mnt} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	registerBase(base)
	t.Cleanup(e.cleanup)
	return e
}

// Environ is the environment of every wsfs process: the host's, minus
// any WSFS_* or AWS_* setting, plus this Env's home, store and
// credentials.
func (e *Env) Environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "WSFS_") || strings.HasPrefix(kv, "AWS_") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "WSFS_HOME="+e.Home, "WSFS_STORE="+e.Store.URL)
	if e.Store.Kind == S3 {
		env = append(env, e.Store.S3.Env()...)
	}
	return env
}

// Result is what one wsfs invocation did.
type Result struct {
	Args   []string
	Stdout string
	Stderr string
	Code   int // exit code; -1 when killed by a signal
}

func (r Result) String() string {
	return fmt.Sprintf("wsfs %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(r.Args, " "), r.Code, clip(r.Stdout), clip(r.Stderr))
}

func clip(s string) string {
	if len(s) > 4000 {
		return s[:2000] + fmt.Sprintf("\n…(%d bytes)…\n", len(s)-4000) + s[len(s)-2000:]
	}
	return s
}

// Wsfs runs `wsfs ARGS` with empty stdin.
func (e *Env) Wsfs(args ...string) Result {
	e.T.Helper()
	return e.WsfsStdin("", args...)
}

// WsfsStdin runs `wsfs ARGS` with stdin.
func (e *Env) WsfsStdin(stdin string, args ...string) Result {
	e.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, args...)
	cmd.Env = e.Environ()
	cmd.Dir = e.Base
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := Result{Args: args, Stdout: out.String(), Stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		e.T.Fatalf("wsfs %s did not end within %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), commandTimeout, clip(r.Stdout), clip(r.Stderr))
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	case err != nil:
		e.T.Fatalf("wsfs %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// MustWsfs runs `wsfs ARGS` and fails the test unless it exits 0.
func (e *Env) MustWsfs(args ...string) Result {
	e.T.Helper()
	r := e.Wsfs(args...)
	if r.Code != 0 {
		e.T.Fatalf("%v", r)
	}
	return r
}

// RunResult is `wsfs run --json`'s answer.
type RunResult struct {
	ExitCode   int      `json:"exit_code"`
	Stdout     string   `json:"stdout"`
	Stderr     string   `json:"stderr"`
	Truncated  bool     `json:"truncated"`
	OutputRef  string   `json:"output_ref"`
	Revision   uint64   `json:"revision"`
	Committed  bool     `json:"committed"`
	DurationMS int64    `json:"duration_ms"`
	LimitsHit  []string `json:"limits_hit"`
	Refusals   []string `json:"refusals"` // quota refusals from the mount, in the server's words

	Raw Result `json:"-"` // the invocation itself
}

// Run runs script in ws through `wsfs run --json` (extra flags, such as
// --timeout 1s, go before the script) and decodes the result. The test
// fails if the answer is not the JSON result.
func (e *Env) Run(ws, script string, flags ...string) RunResult {
	e.T.Helper()
	args := append([]string{"run", "--json", "-w", ws}, flags...)
	args = append(args, script)
	raw := e.Wsfs(args...)
	var rr RunResult
	if err := json.Unmarshal([]byte(raw.Stdout), &rr); err != nil {
		e.T.Fatalf("wsfs run --json: not a JSON result: %v\n%v", err, raw)
	}
	rr.Raw = raw
	if raw.Code != rr.ExitCode {
		e.T.Fatalf("wsfs run --json exited %d but its result says exit_code %d\n%v", raw.Code, rr.ExitCode, raw)
	}
	return rr
}

// Revision is one entry of `wsfs log --json`.
type Revision struct {
	Workspace  string    `json:"workspace"`
	N          uint64    `json:"n"`
	Parent     uint64    `json:"parent"`
	Root       string    `json:"root"`
	Cwd        string    `json:"cwd"`
	Time       time.Time `json:"time"`
	Command    string    `json:"command"`
	ExitCode   int       `json:"exit_code"`
	DurationNS int64     `json:"duration_ns"`
	Author     string    `json:"author"`
	Stats      struct {
		Files    int64 `json:"files"`
		Dirs     int64 `json:"dirs"`
		Symlinks int64 `json:"symlinks"`
		Bytes    int64 `json:"bytes"`
	} `json:"stats"`
	Changes []struct {
		Path   string `json:"path"`
		Action string `json:"action"`
		Kind   string `json:"kind"`
	} `json:"changes"`
}

// Log returns ws's revisions, newest first (all of them, up to 10,000).
func (e *Env) Log(ws string) []Revision {
	e.T.Helper()
	r := e.MustWsfs("log", "--json", "--limit", "10000", ws)
	var revs []Revision
	if err := json.Unmarshal([]byte(r.Stdout), &revs); err != nil {
		e.T.Fatalf("wsfs log --json: %v\n%v", err, r)
	}
	return revs
}

// Head returns ws's newest revision.
func (e *Env) Head(ws string) Revision {
	e.T.Helper()
	revs := e.Log(ws)
	if len(revs) == 0 {
		e.T.Fatalf("wsfs log %s: no revisions", ws)
	}
	return revs[0]
}

// WorkspaceDir is ws's live folder on the mount of a server started with
// no --workspace flag.
func (e *Env) WorkspaceDir(ws string) string {
	return filepath.Join(e.Mnt, filepath.FromSlash(ws))
}

// Server is a `wsfs mount` process.
type Server struct {
	env     *Env
	Cmd     *exec.Cmd
	Mnt     string
	Line    string // the readiness line
	stderr  *lockedBuffer
	done    chan struct{}
	err     error // Wait's answer, once done is closed
	fds     FDs   // the baseline of CheckFDs
	ended   bool  // Stop, Kill or Wait returned
	killed  bool  // ended by Kill: a mount left behind is expected
	orphans []int // its children when Kill ended it
}

// PID is the server's process id.
func (s *Server) PID() int { return s.Cmd.Process.Pid }

// Stderr is everything the server logged so far.
func (s *Server) Stderr() string { return s.stderr.String() }

// Start runs `wsfs mount ARGS e.Mnt` and waits for its readiness line.
func (e *Env) Start(args ...string) *Server {
	e.T.Helper()
	return e.StartAt(e.Mnt, args...)
}

// StartAt is Start on another mount dir (it must exist).
func (e *Env) StartAt(mnt string, args ...string) *Server {
	e.T.Helper()
	cmd := exec.Command(e.Bin, append(append([]string{"mount"}, args...), mnt)...)
	cmd.Env = e.Environ()
	cmd.Dir = e.Base
	// If the test binary dies, the kernel ends the server (its mount is
	// then detached by TestMain or the next run's leftover check).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	s := &Server{env: e, Cmd: cmd, Mnt: mnt, stderr: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stderr = s.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		e.T.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		e.T.Fatalf("starting wsfs mount: %v", err)
	}
	e.mu.Lock()
	e.servers = append(e.servers, s)
	e.mu.Unlock()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "wsfs: serving ") {
				lines <- sc.Text()
				break
			}
		}
		close(lines)
		io.Copy(io.Discard, stdout)
		s.err = cmd.Wait()
		close(s.done)
	}()
	select {
	case line, ok := <-lines:
		if !ok {
			<-s.done
			e.T.Fatalf("wsfs mount exited before it was ready: %v\n%s", s.err, s.Stderr())
		}
		s.Line = line
	case <-time.After(readyTimeout):
		e.T.Fatalf("wsfs mount printed no readiness line after %v\n%s", readyTimeout, s.Stderr())
	}
	if !mounted(mnt) {
		e.T.Fatalf("wsfs mount said %q but %s is not in /proc/self/mountinfo", s.Line, mnt)
	}
	s.fds = s.FDs()
	return s
}

// Wait waits for the server to exit by itself and returns Wait's error.
func (s *Server) Wait() error {
	s.env.T.Helper()
	select {
	case <-s.done:
	case <-time.After(commandTimeout):
		s.env.T.Fatalf("wsfs mount (pid %d) did not exit within %v\n%s", s.PID(), commandTimeout, s.Stderr())
	}
	s.ended = true
	return s.err
}

// Exited reports whether the server process has ended.
func (s *Server) Exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// Stop checks the server's fds against the baseline (see CheckFDs), sends
// SIGTERM, and waits: the server must exit 0 and leave no mount behind.
func (s *Server) Stop() {
	s.env.T.Helper()
	if s.Exited() {
		s.env.T.Fatalf("wsfs mount (pid %d) had already exited: %v\n%s", s.PID(), s.err, s.Stderr())
	}
	s.CheckFDs()
	children := childrenOf(s.PID())
	if err := s.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		s.env.T.Fatal(err)
	}
	if err := s.Wait(); err != nil {
		s.env.T.Errorf("wsfs mount after SIGTERM: %v\n%s", err, s.Stderr())
	}
	if mounted(s.Mnt) {
		s.env.T.Errorf("wsfs mount exited after SIGTERM but %s is still mounted", s.Mnt)
	}
	s.checkChildrenGone(children)
}

// checkChildrenGone fails the test unless every pid in children (the
// server's warm workers) ends soon after the server.
func (s *Server) checkChildrenGone(children []int) {
	s.env.T.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for _, pid := range children {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if alive(pid) {
			s.env.T.Errorf("wsfs mount (pid %d) exited but its child %d still runs", s.PID(), pid)
		}
	}
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	rest := string(data)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest)
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// Kill ends the server with SIGKILL and waits for it; its mount stays
// behind (the next Start, or `wsfs umount`, must detach it). Its warm
// workers must end too, at the latest by the end of the test (one running
// a command may finish it first): the Env's cleanup checks.
func (s *Server) Kill() {
	s.env.T.Helper()
	s.killed = true
	s.orphans = childrenOf(s.PID())
	_ = s.Cmd.Process.Signal(syscall.SIGKILL)
	_ = s.Wait()
}

// Signal sends sig to the server (a test that follows it with Wait).
func (s *Server) Signal(sig os.Signal) {
	s.env.T.Helper()
	if err := s.Cmd.Process.Signal(sig); err != nil {
		s.env.T.Fatal(err)
	}
}

// FDs is a census of a process's open file descriptors.
type FDs struct {
	Total    int
	Spool    int            // files under $WSFS_HOME/spool (written files open now)
	TCP      int            // TCP sockets (idle connections to S3 are pooled)
	Other    map[string]int // everything else, by readlink target class
	List     []string       // every fd: "N -> target"
	Children int            // live child processes (warm workers: a pidfd and a socket each)
}

// FDs counts the server's open descriptors now.
func (s *Server) FDs() FDs {
	s.env.T.Helper()
	return countFDs(s.env.T, s.PID(), filepath.Join(s.env.Home, "spool"))
}

func countFDs(t testing.TB, pid int, spool string) FDs {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
	tcp := tcpInodes(pid)
	c := FDs{Other: map[string]int{}, Children: len(childrenOf(pid))}
	for _, ent := range ents {
		target, err := os.Readlink(filepath.Join(dir, ent.Name()))
		if err != nil {
			continue // closed while we looked
		}
		c.Total++
		c.List = append(c.List, ent.Name()+" -> "+target)
		switch {
		case strings.HasPrefix(target, spool+"/"):
			c.Spool++
		case strings.HasPrefix(target, "socket:[") && tcp[strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]")]:
			c.TCP++
		default:
			c.Other[fdClass(target)]++
		}
	}
	return c
}

// fdClass groups a readlink target: "pipe", "socket", "anon_inode:[x]",
// or the path itself.
func fdClass(target string) string {
	switch {
	case strings.HasPrefix(target, "pipe:"):
		return "pipe"
	case strings.HasPrefix(target, "socket:"):
		return "socket"
	case strings.HasPrefix(target, "anon_inode:"):
		return target
	}
	return target
}

// childrenOf lists the pids whose parent is pid.
func childrenOf(pid int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, ent := range ents {
		child, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", ent.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after
		// its closing parenthesis.
		rest := string(data)
		if i := strings.LastIndexByte(rest, ')'); i >= 0 {
			rest = rest[i+1:]
		}
		if f := strings.Fields(rest); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

// tcpInodes is the set of socket inodes of pid's TCP connections.
func tcpInodes(pid int) map[string]bool {
	out := map[string]bool{}
	for _, f := range []string{"tcp", "tcp6"} {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, f))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			fields := strings.Fields(line)
			if len(fields) > 9 {
				out[fields[9]] = true
			}
		}
	}
	return out
}

// Descriptors a healthy server may hold beyond its baseline, in pools
// that fill on first use and never shrink:
const (
	tcpSlack     = 32 // idle keep-alive connections to the object store
	spliceSlack  = 32 // go-fuse's splice pipe pairs (two fds each), one per concurrent read
	devNullSlack = 1  // go-fuse's /dev/null, opened for splice on the first read
)

// ResetFDs takes a new baseline for CheckFDs (Start takes the first one,
// right after the readiness line).
func (s *Server) ResetFDs() { s.fds = s.FDs() }

// CheckFDs fails the test if the server holds descriptors it did not hold
// at the baseline: every pipe, unix socket and file must be closed again
// (a spool file is open only while a handle on its file is), except the
// pools named by tcpSlack, spliceSlack and devNullSlack, and a pidfd and
// three sockets per live warm worker. It polls for a few seconds, so
// descriptors closed by a command that is just ending (or by the kernel's
// asynchronous releases) are not counted.
func (s *Server) CheckFDs() {
	s.env.T.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		now := s.FDs()
		leaked := fdGrowth(s.fds, now)
		if leaked == "" {
			return
		}
		if time.Now().After(deadline) {
			s.env.T.Errorf("wsfs mount (pid %d) leaks descriptors: %s\nbaseline:\n  %s\nnow:\n  %s", s.PID(), leaked,
				strings.Join(s.fds.List, "\n  "), strings.Join(now.List, "\n  "))
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// fdGrowth describes what now holds beyond base ("" when nothing).
func fdGrowth(base, now FDs) string {
	var grew []string
	// A warm worker holds a pidfd, the server's end of its socketpair and
	// up to two connections to the control socket (a command's turn and
	// its output stream), which it keeps from one job to the next.
	slack := map[string]int{"pipe": spliceSlack, "/dev/null": devNullSlack, "anon_inode:[pidfd]": now.Children, "socket": 3 * now.Children}
	for class, n := range now.Other {
		if n > base.Other[class]+slack[class] {
			grew = append(grew, fmt.Sprintf("%s: %d, was %d", class, n, base.Other[class]))
		}
	}
	if now.Spool > base.Spool {
		grew = append(grew, fmt.Sprintf("spool files: %d, was %d", now.Spool, base.Spool))
	}
	if now.TCP > base.TCP+tcpSlack {
		grew = append(grew, fmt.Sprintf("tcp: %d, was %d", now.TCP, base.TCP))
	}
	sort.Strings(grew)
	return strings.Join(grew, "; ")
}

func (e *Env) cleanup() {
	t := e.T
	e.mu.Lock()
	servers := e.servers
	e.mu.Unlock()
	expectMount := false
	for _, s := range servers {
		if !s.Exited() {
			// A test that ends without Stop (a failure, or a Fatal) still
			// must not leave a server or a mount behind.
			_ = s.Cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-s.done:
			case <-time.After(30 * time.Second):
				_ = s.Cmd.Process.Kill()
				<-s.done
			}
			if !t.Failed() {
				t.Errorf("wsfs mount (pid %d) was still running at the end of the test: stop it with Stop", s.PID())
			}
		}
		expectMount = s.killed
		s.checkChildrenGone(s.orphans)
	}
	if t.Failed() {
		for _, s := range servers {
			t.Logf("server pid %d log:\n%s", s.PID(), clip(s.Stderr()))
		}
	}
	for _, m := range mountsUnder(e.Base) {
		_ = syscall.Unmount(m, syscall.MNT_DETACH)
		if !expectMount {
			t.Errorf("FUSE mount left behind at %s (detached now)", m)
		}
	}
	if !t.Failed() || os.Getenv("WSFS_KEEP") == "" {
		os.RemoveAll(e.Base)
	}
}

var (
	basesMu sync.Mutex
	bases   []string
)

func registerBase(b string) {
	basesMu.Lock()
	defer basesMu.Unlock()
	bases = append(bases, b)
}

// leftoverMounts lists the mounts under any Env's folder still in place.
func leftoverMounts() []string {
	basesMu.Lock()
	defer basesMu.Unlock()
	var out []string
	for _, b := range bases {
		out = append(out, mountsUnder(b)...)
	}
	return out
}

// mountPoints reads /proc/self/mountinfo's mount points.
func mountPoints() []string {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) > 4 {
			out = append(out, unescapeMount(fields[4]))
		}
	}
	return out
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func mounted(dir string) bool {
	for _, m := range mountPoints() {
		if m == dir {
			return true
		}
	}
	return false
}

func mountsUnder(base string) []string {
	var out []string
	for _, m := range mountPoints() {
		if m == base || strings.HasPrefix(m, base+"/") {
			out = append(out, m)
		}
	}
	return out
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() < 4<<20 {
		l.b.Write(p)
	}
	return len(p), nil
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
