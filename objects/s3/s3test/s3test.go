// Package s3test gives tests a real S3 server: a MinIO process started once
// per test binary, or an external server named by the environment.
//
// With WSFS_TEST_S3_ENDPOINT set (host:port or an http(s):// URL, plus
// WSFS_TEST_S3_ACCESS_KEY and WSFS_TEST_S3_SECRET_KEY), tests use that
// server. Otherwise Start runs the minio binary (WSFS_MINIO_BIN, then PATH,
// then $(go env GOPATH)/bin) on 127.0.0.1 with a free port and a throwaway
// data folder. When the binary is missing the test is skipped with the
// install hint (`make deps`), except under CI=true where it fails.
//
// A package whose tests use MinIO should run them through Main so that one
// server serves the whole test binary and is stopped at the end:
//
//	func TestMain(m *testing.M) { os.Exit(s3test.Main(m)) }
//
// Without Main, every Start starts its own server and stops it in the
// test's cleanup: correct, only slower. The server process also gets
// SIGKILL if the test binary dies, so no MinIO outlives the tests.
package s3test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Environment variables read by Start.
const (
	EnvEndpoint  = "WSFS_TEST_S3_ENDPOINT"
	EnvAccessKey = "WSFS_TEST_S3_ACCESS_KEY"
	EnvSecretKey = "WSFS_TEST_S3_SECRET_KEY"
	EnvMinioBin  = "WSFS_MINIO_BIN"
)

// readyTimeout bounds how long Start waits for a fresh MinIO to answer.
const readyTimeout = 60 * time.Second

// Server is a running S3 endpoint that tests may use.
type Server struct {
	Endpoint  string // host:port, without scheme
	Secure    bool   // true when the endpoint speaks HTTPS
	AccessKey string
	SecretKey string
	Region    string // "us-east-1"
	External  bool   // true when named by WSFS_TEST_S3_ENDPOINT

	cmd     *exec.Cmd
	bin     string // the minio binary, for Restart
	console string // the console's address
	dataDir string
	exited  chan struct{}
	log     *lockedBuffer
}

var (
	mu        sync.Mutex
	mainMode  bool    // Main is running: share one server, stop it at the end
	shared    *Server // the server shared under Main
	sharedErr error   // why starting the shared server failed, if it did
)

// Main runs the tests of a package with one shared server and stops that
// server (if one was started) before returning m.Run's exit code.
func Main(m *testing.M) int {
	mu.Lock()
	mainMode = true
	mu.Unlock()
	code := m.Run()
	mu.Lock()
	s := shared
	shared, mainMode = nil, false
	mu.Unlock()
	if s != nil {
		s.stop()
	}
	return code
}

// Start returns a running server for t, skipping t (or failing it when
// CI=true) if there is none to be had.
func Start(t testing.TB) *Server {
	t.Helper()
	if s, ok, err := external(); ok {
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	bin, err := findMinio()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("s3test: %v", err)
		}
		t.Skipf("s3test: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !mainMode {
		s, err := startMinio(bin)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.stop)
		return s
	}
	if shared == nil && sharedErr == nil {
		shared, sharedErr = startMinio(bin)
	}
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

// external reports whether the environment names a server, and that server.
func external() (*Server, bool, error) {
	ep := os.Getenv(EnvEndpoint)
	if ep == "" {
		return nil, false, nil
	}
	s := &Server{Endpoint: ep, AccessKey: os.Getenv(EnvAccessKey), SecretKey: os.Getenv(EnvSecretKey), Region: "us-east-1", External: true}
	if strings.Contains(ep, "://") {
		u, err := url.Parse(ep)
		if err != nil || u.Host == "" {
			return nil, true, fmt.Errorf("s3test: %s=%q is not host:port or an http(s) URL", EnvEndpoint, ep)
		}
		s.Endpoint, s.Secure = u.Host, u.Scheme == "https"
	}
	if s.AccessKey == "" || s.SecretKey == "" {
		return nil, true, fmt.Errorf("s3test: %s is set but %s or %s is empty: set both", EnvEndpoint, EnvAccessKey, EnvSecretKey)
	}
	return s, true, nil
}

// findMinio looks for the minio binary where the brief says it may be.
func findMinio() (string, error) {
	if p := os.Getenv(EnvMinioBin); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w: run `make deps` to build minio, or point %s at it", EnvMinioBin, p, err, EnvMinioBin)
		}
		return p, nil
	}
	if p, err := exec.LookPath("minio"); err == nil {
		return p, nil
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
			p := filepath.Join(dir, "bin", "minio")
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				return p, nil
			}
		}
	}
	return "", errors.New("minio binary not found (looked at $WSFS_MINIO_BIN, PATH, $(go env GOPATH)/bin): run `make deps` to build it, or set WSFS_TEST_S3_ENDPOINT to use another server")
}

// startMinio starts a fresh MinIO and waits until it answers.
func startMinio(bin string) (*Server, error) {
	var lastErr error
	// A free port found by listening may be taken before MinIO binds it;
	// a second try with another port covers that race.
	for range 3 {
		s, err := startMinioOnce(bin)
		if err == nil {
			return s, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

func startMinioOnce(bin string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	consolePort, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "wsfs-minio-")
	if err != nil {
		return nil, fmt.Errorf("s3test: data folder: %w", err)
	}
	s := &Server{
		Endpoint:  fmt.Sprintf("127.0.0.1:%d", port),
		AccessKey: "wsfs-test",
		SecretKey: "wsfs-test-secret-" + randomHex(8),
		Region:    "us-east-1",
		bin:       bin,
		console:   fmt.Sprintf("127.0.0.1:%d", consolePort),
		dataDir:   dir,
		log:       &lockedBuffer{},
	}
	if err := s.launch(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// launch starts the MinIO process of s on its address and data folder and
// waits until it answers.
func (s *Server) launch() error {
	cmd := exec.Command(s.bin, "server", "--quiet",
		"--address", s.Endpoint,
		"--console-address", s.console,
		s.dataDir)
	cmd.Env = append(os.Environ(),
		"MINIO_ROOT_USER="+s.AccessKey,
		"MINIO_ROOT_PASSWORD="+s.SecretKey,
		"MINIO_BROWSER=off",
		"MINIO_UPDATE=off",
		"MINIO_CI_CD=1", // lets MinIO run on a data folder under the root disk
	)
	cmd.Stdout, cmd.Stderr = s.log, s.log
	// If the test binary dies (panic, timeout, kill), the kernel kills MinIO.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("s3test: start %s: %w", s.bin, err)
	}
	exited := make(chan struct{})
	s.cmd, s.exited = cmd, exited
	go func() { cmd.Wait(); close(exited) }()
	if err := s.waitReady(readyTimeout); err != nil {
		s.halt()
		return err
	}
	return nil
}

// StartOwn starts a MinIO for t alone, even under Main, and stops it when
// t ends: for tests that Stop and Restart it. It skips t (fails it under
// CI=true) when the minio binary is missing.
func StartOwn(t testing.TB) *Server {
	t.Helper()
	bin, err := findMinio()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("s3test: %v", err)
		}
		t.Skipf("s3test: %v", err)
	}
	s, err := startMinio(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	return s
}

// Stop ends the MinIO process and keeps its data, so that Restart brings
// the same objects back on the same endpoint. Only a server that
// StartOwn started may be stopped.
func (s *Server) Stop() error {
	if s.cmd == nil || s.bin == "" {
		return errors.New("s3test: Stop: this server is not the test's own (use StartOwn)")
	}
	s.halt()
	return nil
}

// Restart starts the stopped MinIO again on the same endpoint, data and
// credentials, and waits until it answers.
func (s *Server) Restart() error {
	if s.bin == "" {
		return errors.New("s3test: Restart: this server is not the test's own (use StartOwn)")
	}
	select {
	case <-s.exited:
	default:
		return errors.New("s3test: Restart: the server is still running")
	}
	return s.launch()
}

// waitReady polls MinIO's liveness endpoint until it answers 200.
func (s *Server) waitReady(limit time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(limit)
	for {
		resp, err := client.Get("http://" + s.Endpoint + "/minio/health/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s.checkOwn()
			}
		}
		select {
		case <-s.exited:
			return fmt.Errorf("s3test: minio exited before it was ready: %s", s.log.tail())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("s3test: minio not ready at %s after %v: %s", s.Endpoint, limit, s.log.tail())
		}
	}
}

// checkOwn makes sure the server answering on the port is the one just
// started (another test binary's MinIO may have taken the port first): it
// must accept this server's credentials, and our process must be alive.
func (s *Server) checkOwn() error {
	c, err := minio.New(s.Endpoint, &minio.Options{Creds: credentials.NewStaticV4(s.AccessKey, s.SecretKey, ""), Region: s.Region})
	if err != nil {
		return fmt.Errorf("s3test: client: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.ListBuckets(ctx); err != nil {
		return fmt.Errorf("s3test: the server on %s is not the minio just started: %w", s.Endpoint, err)
	}
	select {
	case <-s.exited:
		return fmt.Errorf("s3test: minio exited at start: %s", s.log.tail())
	default:
		return nil
	}
}

// stop ends the MinIO process (if this server owns one) and removes its data.
func (s *Server) stop() {
	if s.cmd == nil {
		return
	}
	s.halt()
	os.RemoveAll(s.dataDir)
}

// halt ends the MinIO process and waits for it.
func (s *Server) halt() {
	select {
	case <-s.exited:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
	}
}

// Client returns a raw minio-go client for the server, for test setup and
// for tampering with objects behind a store's back.
func (s *Server) Client(t testing.TB) *minio.Client {
	t.Helper()
	c, err := minio.New(s.Endpoint, &minio.Options{
		Creds:  credentials.NewStaticV4(s.AccessKey, s.SecretKey, ""),
		Secure: s.Secure,
		Region: s.Region,
	})
	if err != nil {
		t.Fatalf("s3test: client: %v", err)
	}
	return c
}

// Bucket creates a fresh, empty bucket for t and returns its name. On an
// external server the bucket and its objects are removed when t ends.
func (s *Server) Bucket(t testing.TB) string {
	t.Helper()
	name := bucketName(t.Name())
	c := s.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.MakeBucket(ctx, name, minio.MakeBucketOptions{Region: s.Region}); err != nil {
		t.Fatalf("s3test: make bucket %s: %v", name, err)
	}
	if s.External {
		t.Cleanup(func() { removeBucket(c, name) })
	}
	return name
}

// StoreURL returns the wsfs store URL of prefix in bucket on this server
// (the form objects/storeurl parses); credentials go in the environment,
// see Env.
func (s *Server) StoreURL(bucket, prefix string) string {
	u := url.URL{Scheme: "s3", Host: bucket, Path: "/" + prefix}
	q := url.Values{}
	q.Set("endpoint", s.Endpoint)
	q.Set("secure", fmt.Sprint(s.Secure))
	q.Set("region", s.Region)
	u.RawQuery = q.Encode()
	return u.String()
}

// Env returns the environment variables that give a wsfs process this
// server's credentials (append them to exec.Cmd.Env).
func (s *Server) Env() []string {
	return []string{"WSFS_S3_ACCESS_KEY_ID=" + s.AccessKey, "WSFS_S3_SECRET_ACCESS_KEY=" + s.SecretKey}
}

func removeBucket(c *minio.Client, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	objs := c.ListObjects(ctx, name, minio.ListObjectsOptions{Recursive: true})
	for err := range c.RemoveObjects(ctx, name, objs, minio.RemoveObjectsOptions{}) {
		_ = err // best effort: the bucket removal below reports what is left
	}
	c.RemoveBucket(ctx, name)
}

// bucketName turns a test name into a valid, unique S3 bucket name
// (3-63 characters of [a-z0-9-], starting and ending with a letter or digit).
func bucketName(test string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(test) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			if s := b.String(); s != "" && !strings.HasSuffix(s, "-") {
				b.WriteByte('-')
			}
		}
	}
	base := strings.Trim(b.String(), "-")
	if len(base) > 40 {
		base = strings.Trim(base[:40], "-")
	}
	if base == "" {
		base = "x"
	}
	return "t-" + base + "-" + randomHex(6)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("s3test: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// lockedBuffer collects MinIO's output for error messages.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() < 1<<20 {
		l.b.Write(p)
	}
	return len(p), nil
}

func (l *lockedBuffer) tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := strings.TrimSpace(l.b.String())
	if len(s) > 2000 {
		s = "..." + s[len(s)-2000:]
	}
	if s == "" {
		return "(no output)"
	}
	return s
}
