package s3test

import (
	"context"
	"os"
	"strings"
	"testing"
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
