package s3test

import (
	"context"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
)

func TestBucketName(t *testing.T) {
	for _, name := range []string{"TestX", "TestX/sub_test#01", "", "///", strings.Repeat("Long/", 40)} {
		b := bucketName(name)
		if len(b) < 3 || len(b) > 63 || strings.Contains(b, "--") || strings.HasSuffix(b, "-") {
			t.Errorf("bucketName(%q) = %q: not a valid bucket name", name, b)
		}
		for _, r := range b {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				t.Errorf("bucketName(%q) = %q: bad character %q", name, b, r)
			}
		}
	}
	if a, b := bucketName("TestX"), bucketName("TestX"); a == b {
		t.Error("two buckets for the same test share a name")
	}
}

func TestExternalEnv(t *testing.T) {
	t.Setenv(EnvEndpoint, "https://s3.example.com")
	t.Setenv(EnvAccessKey, "k")
	t.Setenv(EnvSecretKey, "s")
	s, ok, err := external()
	if !ok || err != nil || s.Endpoint != "s3.example.com" || !s.Secure || !s.External {
		t.Fatalf("external() = %+v, %v, %v", s, ok, err)
	}
	t.Setenv(EnvSecretKey, "")
	if _, ok, err := external(); !ok || err == nil {
		t.Fatalf("missing secret key: ok %v err %v, want an error", ok, err)
	}
	t.Setenv(EnvEndpoint, "")
	if _, ok, _ := external(); ok {
		t.Fatal("no endpoint set, but external() found one")
	}
}

// TestStart starts a server without Main (its own, stopped at cleanup) and
// uses a bucket on it.
func TestStart(t *testing.T) {
	var srv *Server
	t.Run("use", func(t *testing.T) {
		srv = Start(t)
		b := srv.Bucket(t)
		ok, err := srv.Client(t).BucketExists(context.Background(), b)
		if err != nil || !ok {
			t.Fatalf("bucket %s: exists %v, %v", b, ok, err)
		}
	})
	if srv == nil || srv.External {
		return // skipped, or not ours to stop
	}
	// The subtest's cleanup stopped the server and removed its data.
	select {
	case <-srv.exited:
	default:
		t.Fatal("minio still running after the test that started it ended")
	}
	if _, err := os.Stat(srv.dataDir); !os.IsNotExist(err) {
		t.Fatalf("data folder %s left behind: %v", srv.dataDir, err)
	}
}

func TestFindMinioHint(t *testing.T) {
	t.Setenv(EnvMinioBin, "/nonexistent/minio")
	if _, err := findMinio(); err == nil || !strings.Contains(err.Error(), "make deps") {
		t.Fatalf("findMinio with a wrong %s = %v, want the install hint", EnvMinioBin, err)
	}
}

// TestStopRestart stops a server of the test's own and starts it again:
// in between the endpoint refuses connections, after it the objects are
// back on the same endpoint.
func TestStopRestart(t *testing.T) {
	srv := StartOwn(t)
	ctx := context.Background()
	b := srv.Bucket(t)
	c := srv.Client(t)
	if _, err := c.PutObject(ctx, b, "k", strings.NewReader("kept"), 4, minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Restart(); err == nil {
		t.Fatal("Restart of a running server succeeded")
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if conn, err := net.DialTimeout("tcp", srv.Endpoint, time.Second); err == nil {
		conn.Close()
		t.Fatalf("%s still accepts connections after Stop", srv.Endpoint)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	obj, err := c.GetObject(ctx, b, "k", minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	if data, err := io.ReadAll(obj); err != nil || string(data) != "kept" {
		t.Fatalf("after Restart: %q, %v", data, err)
	}
	shared := &Server{Endpoint: "127.0.0.1:1"}
	if err := shared.Stop(); err == nil {
		t.Error("Stop of a server that is not the test's own succeeded")
	}
}
