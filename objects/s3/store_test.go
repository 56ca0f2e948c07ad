package s3_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/objects/s3"
	"github.com/wsfs/wsfs/objects/s3/s3test"
)

func TestMain(m *testing.M) { os.Exit(s3test.Main(m)) }

// config returns a Config for bucket on srv with fast retries.
func config(srv *s3test.Server, bucket, prefix string) s3.Config {
	return s3.Config{
		Endpoint:       srv.Endpoint,
		Secure:         srv.Secure,
		Bucket:         bucket,
		Prefix:         prefix,
		Region:         srv.Region,
		AccessKey:      srv.AccessKey,
		SecretKey:      srv.SecretKey,
		RetryBaseDelay: time.Millisecond,
		RetryMaxDelay:  10 * time.Millisecond,
	}
}

func newStore(t testing.TB, cfg s3.Config) *s3.Store {
	t.Helper()
	st, err := s3.New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("s3.New: %v", err)
	}
	return st
}

// freshStore is a store on a new bucket of the shared MinIO.
func freshStore(t testing.TB, prefix string) (*s3.Store, *s3test.Server, string) {
	t.Helper()
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	return newStore(t, config(srv, bucket, prefix)), srv, bucket
}

func randBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

func read(t *testing.T, st objects.Store, d objects.Digest, off, length int64) ([]byte, error) {
	t.Helper()
	rc, err := st.Open(context.Background(), d, off, length)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

func TestRoundTripAndRanges(t *testing.T) {
	st, _, _ := freshStore(t, "ws")
	ctx := context.Background()
	data := randBytes(1000)
	d, err := objects.PutBytes(ctx, st, data)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Stat(ctx, d)
	if err != nil || info.Size != 1000 || info.Digest != d || info.ModTime.IsZero() {
		t.Fatalf("Stat = %+v, %v", info, err)
	}
	for _, tc := range []struct {
		off, length int64
		want        []byte
	}{
		{0, -1, data},
		{0, 1000, data},
		{0, 5000, data},
		{0, 1, data[:1]},
		{10, 20, data[10:30]},
		{990, 100, data[990:]},
		{500, -1, data[500:]},
		{999, -1, data[999:]},
		{1000, -1, nil},
		{1000, 10, nil},
		{5000, 10, nil},
		{7, 0, nil},
		{0, 1 << 62, data},
		{1, 1<<63 - 1, data[1:]},
	} {
		got, err := read(t, st, d, tc.off, tc.length)
		if err != nil {
			t.Errorf("Open(%d, %d): %v", tc.off, tc.length, err)
			continue
		}
		if !bytes.Equal(got, tc.want) {
			t.Errorf("Open(%d, %d) = %d bytes, want %d", tc.off, tc.length, len(got), len(tc.want))
		}
	}

	// The empty blob is a blob too.
	e, err := objects.PutBytes(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]int64{{0, -1}, {0, 0}, {0, 10}, {3, 1}} {
		if got, err := read(t, st, e, r[0], r[1]); err != nil || len(got) != 0 {
			t.Errorf("empty blob Open(%d, %d) = %q, %v", r[0], r[1], got, err)
		}
	}

	if err := st.Delete(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := st.Delete(ctx, d); err != nil {
		t.Fatalf("deleting a missing blob: %v", err)
	}
	if _, err := st.Stat(ctx, d); !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("Stat after Delete: %v, want ErrNotFound", err)
	}
	for _, r := range [][2]int64{{0, -1}, {0, 0}, {5, 10}, {5000, 1}} {
		if _, err := read(t, st, d, r[0], r[1]); !errors.Is(err, objects.ErrNotFound) {
			t.Errorf("Open(%d, %d) after Delete: %v, want ErrNotFound", r[0], r[1], err)
		}
	}
}

func TestPutRejectsWrongBytes(t *testing.T) {
	st, _, _ := freshStore(t, "")
	ctx := context.Background()
	data := randBytes(300)
	d := objects.Sum(data)
	other := randBytes(300)
	for name, tc := range map[string]struct {
		r    io.Reader
		size int64
	}{
		"other bytes": {bytes.NewReader(other), 300},
		"short":       {bytes.NewReader(data[:299]), 300},
		"long":        {bytes.NewReader(append(append([]byte{}, data...), 'x')), 300},
		"wrong size":  {bytes.NewReader(data), 299},
		"negative":    {bytes.NewReader(data), -1},
	} {
		err := st.Put(ctx, d, tc.r, tc.size)
		if !errors.Is(err, objects.ErrDigestMismatch) {
			t.Errorf("%s: Put = %v, want ErrDigestMismatch", name, err)
		}
	}
	if _, err := st.Stat(ctx, d); !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("a rejected Put stored something: Stat = %v", err)
	}
	// Large blobs take the temp-file path; it must reject the same way.
	big := randBytes(9 << 20)
	bd := objects.Sum(big)
	big[len(big)/2] ^= 1
	if err := st.Put(ctx, bd, bytes.NewReader(big), int64(len(big))); !errors.Is(err, objects.ErrDigestMismatch) {
		t.Fatalf("large Put of wrong bytes = %v, want ErrDigestMismatch", err)
	}
	if _, err := st.Stat(ctx, bd); !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("a rejected large Put stored something: Stat = %v", err)
	}
}

func TestLargeBlob(t *testing.T) {
	st, _, _ := freshStore(t, "big")
	ctx := context.Background()
	data := randBytes(9<<20 + 123)
	d, err := objects.PutBytes(ctx, st, data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := objects.Get(ctx, st, d)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get = %d bytes, %v", len(got), err)
	}
}

// tamper overwrites the object of d behind the store's back.
func tamper(t *testing.T, srv *s3test.Server, bucket, key string, b []byte) {
	t.Helper()
	_, err := srv.Client(t).PutObject(context.Background(), bucket, key, bytes.NewReader(b), int64(len(b)), minio.PutObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

func TestTamperedBlobIsCorrupt(t *testing.T) {
	st, srv, bucket := freshStore(t, "p")
	ctx := context.Background()
	data := randBytes(4096)
	d, err := objects.PutBytes(ctx, st, data)
	if err != nil {
		t.Fatal(err)
	}
	key := "p/" + d.Key()
	flipped := bytes.Clone(data)
	flipped[100] ^= 0xff
	for name, b := range map[string][]byte{
		"flipped":   flipped,
		"truncated": data[:4000],
		"longer":    append(bytes.Clone(data), 1, 2, 3),
		"empty":     {},
	} {
		tamper(t, srv, bucket, key, b)
		for _, r := range [][2]int64{{0, -1}, {0, 1 << 20}} {
			got, err := read(t, st, d, r[0], r[1])
			if !errors.Is(err, objects.ErrCorrupt) {
				t.Errorf("%s: Open(%d, %d) read %d bytes, err %v; want ErrCorrupt", name, r[0], r[1], len(got), err)
			}
		}
	}
	// Put is a conditional write that keeps what is stored; Rewrite of
	// the right bytes heals the tampered blob.
	if err := objects.Rewrite(ctx, st, d, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	if got, err := objects.Get(ctx, st, d); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("after Rewrite: %d bytes, %v", len(got), err)
	}
}

func listAll(t *testing.T, st objects.Store) map[objects.Digest]objects.Info {
	t.Helper()
	m := map[objects.Digest]objects.Info{}
	err := st.List(context.Background(), func(i objects.Info) error {
		if _, dup := m[i.Digest]; dup {
			t.Errorf("List gave %s twice", i.Digest.Short())
		}
		m[i.Digest] = i
		return nil
	})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	return m
}

func TestPrefixIsolationAndForeignKeys(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	root := newStore(t, config(srv, bucket, ""))
	a := newStore(t, config(srv, bucket, "/a/"))
	ab := newStore(t, config(srv, bucket, "a/b"))

	da, err := objects.PutBytes(ctx, a, []byte("in a"))
	if err != nil {
		t.Fatal(err)
	}
	dab, err := objects.PutBytes(ctx, ab, []byte("in a/b"))
	if err != nil {
		t.Fatal(err)
	}
	var rootBlobs []objects.Digest
	for i := range 5 {
		d, err := objects.PutBytes(ctx, root, fmt.Appendf(nil, "root %d", i))
		if err != nil {
			t.Fatal(err)
		}
		rootBlobs = append(rootBlobs, d)
	}
	// Keys that look almost like blobs must be skipped by List.
	x := objects.Sum([]byte("x"))
	for _, k := range []string{
		"blobs/readme.txt",
		"blobs/zz/not-a-digest",
		"blobs/" + "00" + "/" + x.String(), // wrong shard
		"blobs/" + x.String()[:2] + "/" + strings.ToUpper(x.String()),
		"blobs/" + x.String()[:2] + "/" + x.String() + ".tmp",
		"blobs/" + x.String()[:2] + "/" + x.String() + "/deeper",
		"other/" + x.Key(),
	} {
		tamper(t, srv, bucket, k, []byte("foreign"))
	}

	if got := listAll(t, a); len(got) != 1 || got[da].Size != 4 {
		t.Errorf("List a = %v, want only %s", got, da.Short())
	}
	if got := listAll(t, ab); len(got) != 1 || got[dab].Size != 6 {
		t.Errorf("List a/b = %v, want only %s", got, dab.Short())
	}
	got := listAll(t, root)
	if len(got) != len(rootBlobs) {
		t.Errorf("List root = %d blobs, want %d", len(got), len(rootBlobs))
	}
	for _, d := range rootBlobs {
		if _, ok := got[d]; !ok {
			t.Errorf("List root misses %s", d.Short())
		}
	}
	if _, err := a.Stat(ctx, dab); !errors.Is(err, objects.ErrNotFound) {
		t.Errorf("store a sees a/b's blob: %v", err)
	}
	if _, err := root.Stat(ctx, da); !errors.Is(err, objects.ErrNotFound) {
		t.Errorf("root store sees a's blob: %v", err)
	}

	// fn's error stops the listing and comes back as is.
	stop := errors.New("enough")
	n := 0
	err = root.List(ctx, func(objects.Info) error { n++; return stop })
	if err != stop || n != 1 {
		t.Errorf("List with a failing fn = %v after %d calls, want %v after 1", err, n, stop)
	}
}

// faultProxy forwards to a real server, but lets a test answer (or delay)
// chosen requests itself and counts them.
type faultProxy struct {
	*httptest.Server
	requests atomic.Int64
	mu       sync.Mutex
	methods  []string
}

// startProxy forwards to srv; fault(n, w, r) handles request n (1-based)
// itself when it returns true.
func startProxy(t *testing.T, srv *s3test.Server, fault func(n int64, w http.ResponseWriter, r *http.Request) bool) *faultProxy {
	t.Helper()
	target := &url.URL{Scheme: "http", Host: srv.Endpoint}
	if srv.Secure {
		t.Skip("the fault proxy speaks plain HTTP")
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	p := &faultProxy{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := p.requests.Add(1)
		p.mu.Lock()
		p.methods = append(p.methods, r.Method)
		p.mu.Unlock()
		if fault != nil && fault(n, w, r) {
			return
		}
		rp.ServeHTTP(w, r) // Host stays the proxy's, which is what the client signed
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *faultProxy) endpoint() string { return strings.TrimPrefix(p.URL, "http://") }

func (p *faultProxy) seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.methods...)
}

func s3ErrorReply(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>injected by the test</Message></Error>`, code)
}

func TestRetriesTransientErrors(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		fault func(w http.ResponseWriter)
	}{
		{"503", func(w http.ResponseWriter) { s3ErrorReply(w, 503, "ServiceUnavailable") }},
		{"500 no body", func(w http.ResponseWriter) { w.WriteHeader(500) }},
		{"429 SlowDown", func(w http.ResponseWriter) { s3ErrorReply(w, 429, "SlowDown") }},
		{"connection reset", func(w http.ResponseWriter) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.(*net.TCPConn).SetLinger(0)
				conn.Close()
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startProxy(t, srv, func(n int64, w http.ResponseWriter, r *http.Request) bool {
				if n <= 2 {
					tc.fault(w)
					return true
				}
				return false
			})
			cfg := config(srv, bucket, "retry")
			cfg.Endpoint = p.endpoint()
			st := newStore(t, cfg)
			data := []byte("retried " + tc.name)
			d, err := objects.PutBytes(ctx, st, data)
			if err != nil {
				t.Fatalf("Put through two faults: %v", err)
			}
			if n := p.requests.Load(); n != 3 {
				t.Errorf("Put took %d requests (%v), want 2 failed + 1 good", n, p.seen())
			}
			if got, err := objects.Get(ctx, st, d); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("Get = %q, %v", got, err)
			}
		})
	}

	t.Run("gives up after MaxAttempts", func(t *testing.T) {
		p := startProxy(t, srv, func(n int64, w http.ResponseWriter, r *http.Request) bool {
			s3ErrorReply(w, 503, "SlowDown")
			return true
		})
		cfg := config(srv, bucket, "retry")
		cfg.Endpoint = p.endpoint()
		cfg.MaxAttempts = 4
		st := newStore(t, cfg)
		_, err := st.Open(ctx, objects.Sum([]byte("x")), 0, -1)
		if err == nil || !strings.Contains(err.Error(), "SlowDown") {
			t.Fatalf("Open = %v, want the SlowDown error", err)
		}
		if n := p.requests.Load(); n != 4 {
			t.Errorf("%d requests, want 4", n)
		}
	})
}

func TestNoRetryOnAuthOrMissingBucket(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	for _, code := range []string{"AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "NoSuchBucket"} {
		t.Run(code, func(t *testing.T) {
			status := 403
			if code == "NoSuchBucket" {
				status = 404
			}
			p := startProxy(t, srv, func(n int64, w http.ResponseWriter, r *http.Request) bool {
				s3ErrorReply(w, status, code)
				return true
			})
			cfg := config(srv, bucket, "")
			cfg.Endpoint = p.endpoint()
			st := newStore(t, cfg)
			_, err := objects.PutBytes(ctx, st, []byte("denied"))
			want := s3.ErrAccess
			if code == "NoSuchBucket" {
				want = s3.ErrNoBucket
			}
			if !errors.Is(err, want) {
				t.Errorf("Put = %v, want %v", err, want)
			}
			if n := p.requests.Load(); n != 1 {
				t.Errorf("%s was tried %d times, want once", code, n)
			}
		})
	}
}

func TestSkipExistingUpload(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	p := startProxy(t, srv, nil)
	cfg := config(srv, bucket, "")
	cfg.Endpoint = p.endpoint()
	cfg.SkipExistingMin = 1024
	st := newStore(t, cfg)

	big := randBytes(4096)
	if _, err := objects.PutBytes(ctx, st, big); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.seen(), " "); got != "HEAD PUT" {
		t.Errorf("first Put of a large blob sent %q, want HEAD PUT", got)
	}
	if _, err := objects.PutBytes(ctx, st, big); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.seen(), " "); got != "HEAD PUT HEAD" {
		t.Errorf("second Put of a large blob sent %q, want HEAD PUT HEAD", got)
	}
	// Small blobs go straight to PUT, again and again.
	small := []byte("small")
	for range 2 {
		if _, err := objects.PutBytes(ctx, st, small); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(p.seen(), " "); got != "HEAD PUT HEAD PUT PUT" {
		t.Errorf("Puts sent %q, want HEAD PUT HEAD PUT PUT", got)
	}
}

func TestClearErrors(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()

	t.Run("missing bucket", func(t *testing.T) {
		st := newStore(t, config(srv, "no-such-bucket-here", "x"))
		err := st.Check(ctx)
		want := "s3: bucket no-such-bucket-here does not exist at " + srv.Endpoint + ": create it or fix --store"
		if !errors.Is(err, s3.ErrNoBucket) || err.Error() != want {
			t.Errorf("Check = %v\nwant %s", err, want)
		}
		if _, err := objects.PutBytes(ctx, st, []byte("a")); !errors.Is(err, s3.ErrNoBucket) {
			t.Errorf("Put = %v, want ErrNoBucket", err)
		}
		if err := st.List(ctx, func(objects.Info) error { return nil }); !errors.Is(err, s3.ErrNoBucket) {
			t.Errorf("List = %v, want ErrNoBucket", err)
		}
	})
	t.Run("wrong secret", func(t *testing.T) {
		cfg := config(srv, bucket, "")
		cfg.SecretKey = "not-the-secret"
		err := newStore(t, cfg).Check(ctx)
		if !errors.Is(err, s3.ErrAccess) || !strings.Contains(err.Error(), "SignatureDoesNotMatch") {
			t.Errorf("Check = %v, want ErrAccess naming SignatureDoesNotMatch", err)
		}
	})
	t.Run("unknown access key", func(t *testing.T) {
		cfg := config(srv, bucket, "")
		cfg.AccessKey = "nobody"
		err := newStore(t, cfg).Check(ctx)
		if !errors.Is(err, s3.ErrAccess) || !strings.Contains(err.Error(), "InvalidAccessKeyId") {
			t.Errorf("Check = %v, want ErrAccess naming InvalidAccessKeyId", err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("error has several lines: %q", err)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closed := l.Addr().String()
		l.Close()
		cfg := config(srv, bucket, "")
		cfg.Endpoint = closed
		cfg.MaxAttempts = 2
		err = newStore(t, cfg).Check(ctx)
		want := "s3: check on s3://" + bucket + " (" + closed + "): cannot reach " + closed + " (connection refused): start the server or fix the endpoint in --store"
		if !errors.Is(err, s3.ErrUnreachable) || err.Error() != want {
			t.Errorf("Check = %v\nwant %s", err, want)
		}
	})
	t.Run("https to an http server", func(t *testing.T) {
		if srv.Secure {
			t.Skip("server speaks HTTPS")
		}
		cfg := config(srv, bucket, "")
		cfg.Secure = true
		cfg.MaxAttempts = 2
		err := newStore(t, cfg).Check(ctx)
		if !errors.Is(err, s3.ErrUnreachable) || !strings.Contains(err.Error(), "secure=false") {
			t.Errorf("Check = %v, want ErrUnreachable suggesting secure=false", err)
		}
	})
	t.Run("wrong region", func(t *testing.T) {
		p := startProxy(t, srv, func(n int64, w http.ResponseWriter, r *http.Request) bool {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(400)
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AuthorizationHeaderMalformed</Code>`+
				`<Message>the region 'us-east-1' is wrong; expecting 'eu-west-1'</Message><Region>eu-west-1</Region></Error>`)
			return true
		})
		cfg := config(srv, bucket, "")
		cfg.Endpoint = p.endpoint()
		err := newStore(t, cfg).Check(ctx)
		if !strings.Contains(err.Error(), "the bucket is in region eu-west-1, not us-east-1: add region=eu-west-1 to --store") {
			t.Errorf("Check = %v, want the region hint", err)
		}
		if n := p.requests.Load(); n != 1 {
			t.Errorf("a wrong region was tried %d times, want once", n)
		}
	})
	t.Run("ok", func(t *testing.T) {
		if err := newStore(t, config(srv, bucket, "")).Check(ctx); err != nil {
			t.Errorf("Check on a good store: %v", err)
		}
	})
}

func TestContextDeadline(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	release := make(chan struct{})
	p := startProxy(t, srv, func(n int64, w http.ResponseWriter, r *http.Request) bool {
		select { // hang until the client gives up or the test ends
		case <-r.Context().Done():
		case <-release:
		}
		return true
	})
	defer close(release)
	cfg := config(srv, bucket, "")
	cfg.Endpoint = p.endpoint()
	st := newStore(t, cfg)
	d := objects.Sum([]byte("slow"))
	calls := map[string]func(ctx context.Context) error{
		"Put": func(ctx context.Context) error {
			return st.Put(ctx, d, strings.NewReader("slow"), 4)
		},
		"Open":   func(ctx context.Context) error { _, err := st.Open(ctx, d, 0, -1); return err },
		"Stat":   func(ctx context.Context) error { _, err := st.Stat(ctx, d); return err },
		"Delete": func(ctx context.Context) error { return st.Delete(ctx, d) },
		"List": func(ctx context.Context) error {
			return st.List(ctx, func(objects.Info) error { return nil })
		},
		"Check": st.Check,
	}
	for name, call := range calls {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		err := call(ctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s with a deadline against a hung server = %v, want DeadlineExceeded", name, err)
		}
		ctx, cancel = context.WithCancel(context.Background())
		cancel()
		if err := call(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context = %v, want Canceled", name, err)
		}
	}
}

func TestCredentialsFromEnvironment(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	for _, env := range [][3]string{
		{"WSFS_S3_ACCESS_KEY_ID", "WSFS_S3_SECRET_ACCESS_KEY", ""},
		{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", ""},
	} {
		t.Run(env[0], func(t *testing.T) {
			for _, k := range []string{"WSFS_S3_ACCESS_KEY_ID", "WSFS_S3_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "WSFS_S3_SESSION_TOKEN"} {
				t.Setenv(k, "")
			}
			t.Setenv(env[0], srv.AccessKey)
			t.Setenv(env[1], srv.SecretKey)
			cfg := config(srv, bucket, "")
			cfg.AccessKey, cfg.SecretKey = "", ""
			if err := newStore(t, cfg).Check(ctx); err != nil {
				t.Fatalf("Check with credentials from %s: %v", env[0], err)
			}
		})
	}
	t.Run("WSFS_ wins over AWS_", func(t *testing.T) {
		t.Setenv("WSFS_S3_ACCESS_KEY_ID", srv.AccessKey)
		t.Setenv("WSFS_S3_SECRET_ACCESS_KEY", srv.SecretKey)
		t.Setenv("AWS_ACCESS_KEY_ID", "wrong")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong")
		cfg := config(srv, bucket, "")
		cfg.AccessKey, cfg.SecretKey = "", ""
		if err := newStore(t, cfg).Check(ctx); err != nil {
			t.Fatalf("Check: %v", err)
		}
	})
}

// TestListResumesOrFails fails the second page of a listing: a transient
// failure is retried from the last key seen (every blob once), a lasting
// one is returned as an error, never as a complete listing.
func TestListResumesOrFails(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	seed := newStore(t, config(srv, bucket, "l"))
	want := map[objects.Digest]bool{}
	for i := range 25 {
		d, err := objects.PutBytes(ctx, seed, fmt.Appendf(nil, "blob %d", i))
		if err != nil {
			t.Fatal(err)
		}
		want[d] = true
	}
	for _, tc := range []struct {
		name     string
		failures int64 // how many times the second page fails
	}{{"transient", 2}, {"lasting", 1000}} {
		t.Run(tc.name, func(t *testing.T) {
			var listings atomic.Int64
			p := startProxy(t, srv, func(n int64, w http.ResponseWriter, r *http.Request) bool {
				if r.URL.Query().Get("list-type") != "2" {
					return false
				}
				k := listings.Add(1)
				if k >= 2 && k < 2+tc.failures {
					s3ErrorReply(w, 503, "SlowDown")
					return true
				}
				return false
			})
			cfg := config(srv, bucket, "l")
			cfg.Endpoint = p.endpoint()
			cfg.MaxAttempts = 3
			st := newStore(t, cfg)
			s3.SetListPageSize(st, 10)
			seen := map[objects.Digest]int{}
			err := st.List(ctx, func(i objects.Info) error { seen[i.Digest]++; return nil })
			if tc.failures < int64(cfg.MaxAttempts) {
				if err != nil {
					t.Fatalf("List through %d transient failures: %v", tc.failures, err)
				}
				if len(seen) != len(want) {
					t.Errorf("List gave %d blobs, want %d", len(seen), len(want))
				}
				for d, n := range seen {
					if !want[d] || n != 1 {
						t.Errorf("List gave %s %d times (stored: %v)", d.Short(), n, want[d])
					}
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "SlowDown") {
				t.Fatalf("List with a lasting failure after %d blobs = %v, want the error", len(seen), err)
			}
			if len(seen) != 10 {
				t.Errorf("List called fn for %d blobs before failing, want the first page's 10", len(seen))
			}
		})
	}
}

// TestServerIgnoringRange reads ranges from a server that answers every
// GET with the whole object (200, no Content-Range), as some S3 look-alikes
// do: the store must still return exactly the range asked for.
func TestServerIgnoringRange(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	raw := srv.Client(t)
	p := startProxy(t, srv, func(n int64, w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet || r.Header.Get("Range") == "" {
			return false
		}
		key := strings.TrimPrefix(r.URL.Path, "/"+bucket+"/")
		obj, err := raw.GetObject(r.Context(), bucket, key, minio.GetObjectOptions{})
		if err != nil {
			s3ErrorReply(w, 500, "InternalError")
			return true
		}
		defer obj.Close()
		b, err := io.ReadAll(obj)
		if err != nil {
			s3ErrorReply(w, 404, "NoSuchKey")
			return true
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(b)))
		w.Header().Set("Last-Modified", time.Now().UTC().Format(http.TimeFormat))
		w.Write(b)
		return true
	})
	cfg := config(srv, bucket, "")
	cfg.Endpoint = p.endpoint()
	st := newStore(t, cfg)
	data := randBytes(1000)
	d, err := objects.PutBytes(ctx, st, data)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]int64{{0, 10}, {10, 20}, {990, 100}, {500, -1}, {0, 1000}, {0, 5000}} {
		got, err := read(t, st, d, r[0], r[1])
		want := data[r[0]:]
		if r[1] >= 0 && r[1] < int64(len(want)) {
			want = want[:r[1]]
		}
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("Open(%d, %d) = %d bytes, %v; want %d bytes", r[0], r[1], len(got), err, len(want))
		}
	}
	tamper(t, srv, bucket, d.Key(), randBytes(1000))
	if _, err := read(t, st, d, 0, 1000); !errors.Is(err, objects.ErrCorrupt) {
		t.Errorf("whole read of a tampered blob through a range-ignoring server: %v, want ErrCorrupt", err)
	}
}

// TestReadResumesAfterBrokenConnection cuts the connection in the middle of
// GET bodies: the store asks for the rest (Range, same ETag) and the reader
// sees every byte once, verified; when the cuts go on, the read fails.
func TestReadResumesAfterBrokenConnection(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	raw := srv.Client(t)
	data := randBytes(300 << 10)
	for _, tc := range []struct {
		name        string
		cuts        int64 // how many GETs are cut
		off, length int64
		ok          bool
	}{
		{"whole, one cut", 1, 0, -1, true},
		{"whole, two cuts", 2, 0, -1, true},
		{"range, one cut", 1, 1000, 200 << 10, true},
		{"cut every time", 1000, 0, -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var gets atomic.Int64
			p := startProxy(t, srv, func(n int64, w http.ResponseWriter, r *http.Request) bool {
				if r.Method != http.MethodGet || r.URL.Query().Has("list-type") {
					return false
				}
				if gets.Add(1) > tc.cuts {
					return false
				}
				// Answer like S3, but die after half of the body.
				opts := minio.GetObjectOptions{}
				for k, v := range r.Header {
					if k == "Range" || k == "If-Match" {
						opts.Set(k, v[0])
					}
				}
				key := strings.TrimPrefix(r.URL.Path, "/"+bucket+"/")
				obj, err := raw.GetObject(r.Context(), bucket, key, opts)
				if err != nil {
					s3ErrorReply(w, 500, "InternalError")
					return true
				}
				defer obj.Close()
				st, err := obj.Stat()
				if err != nil {
					s3ErrorReply(w, 500, "InternalError")
					return true
				}
				body, _ := io.ReadAll(obj)
				h := w.Header()
				h.Set("Content-Length", fmt.Sprint(len(body)))
				h.Set("ETag", `"`+st.ETag+`"`)
				h.Set("Last-Modified", st.LastModified.UTC().Format(http.TimeFormat))
				status := 200
				if rg := r.Header.Get("Range"); rg != "" {
					start := tc.off
					if n := gets.Load(); n > 1 {
						fmt.Sscanf(rg, "bytes=%d-", &start)
					}
					h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, start+int64(len(body))-1, st.Size))
					status = 206
				}
				w.WriteHeader(status)
				w.Write(body[:len(body)/2])
				w.(http.Flusher).Flush()
				panic(http.ErrAbortHandler)
			})
			cfg := config(srv, bucket, "")
			cfg.Endpoint = p.endpoint()
			cfg.MaxAttempts = 4
			st := newStore(t, cfg)
			d, err := objects.PutBytes(ctx, st, data)
			if err != nil {
				t.Fatal(err)
			}
			got, err := read(t, st, d, tc.off, tc.length)
			want := data[tc.off:]
			if tc.length >= 0 {
				want = want[:tc.length]
			}
			if !tc.ok {
				if err == nil {
					t.Fatalf("read through endless cuts succeeded with %d bytes", len(got))
				}
				if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "s3: read ") {
					t.Errorf("error is not one store line: %q", err)
				}
				return
			}
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("read through %d cuts: %d bytes (want %d), %v", tc.cuts, len(got), len(want), err)
			}
			if n := gets.Load(); n != tc.cuts+1 {
				t.Errorf("%d GETs, want %d", n, tc.cuts+1)
			}
		})
	}
}

// TestUploadDamagedOnTheWay flips a byte of PUT bodies between the store
// and MinIO: the signed payload hash makes MinIO refuse them, and the
// store sends the bytes again.
func TestUploadDamagedOnTheWay(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		damaged int64 // how many PUTs are damaged
		ok      bool
	}{{"once", 1, true}, {"always", 1000, false}} {
		t.Run(tc.name, func(t *testing.T) {
			var puts atomic.Int64
			p := startProxy(t, srv, func(n int64, w http.ResponseWriter, r *http.Request) bool {
				if r.Method != http.MethodPut || puts.Add(1) > tc.damaged {
					return false
				}
				body, _ := io.ReadAll(r.Body)
				body[len(body)/2] ^= 0x20
				r.Body = io.NopCloser(bytes.NewReader(body))
				return false
			})
			cfg := config(srv, bucket, tc.name)
			cfg.Endpoint = p.endpoint()
			cfg.MaxAttempts = 3
			st := newStore(t, cfg)
			data := randBytes(5000)
			d, err := objects.PutBytes(ctx, st, data)
			if !tc.ok {
				if err == nil || !strings.Contains(err.Error(), "do not hash to the digest") {
					t.Fatalf("Put through a damaging proxy = %v, want the damage named", err)
				}
				if _, err := st.Stat(ctx, d); !errors.Is(err, objects.ErrNotFound) {
					t.Fatalf("damaged bytes were stored: Stat = %v", err)
				}
				if n := puts.Load(); n != int64(cfg.MaxAttempts) {
					t.Errorf("%d PUTs, want %d", n, cfg.MaxAttempts)
				}
				return
			}
			if err != nil {
				t.Fatalf("Put after one damaged upload: %v", err)
			}
			if got, err := objects.Get(ctx, st, d); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("Get = %d bytes, %v", len(got), err)
			}
			if n := puts.Load(); n != 2 {
				t.Errorf("%d PUTs, want 2", n)
			}
		})
	}
}

// TestConditionalWrites checks that Put sends one conditional PUT, whether
// or not the blob is stored, and never rewrites a stored blob; that a
// server without conditional writes gets plain PUTs (after one 501) and
// HEADs for large blobs; and that Rewrite replaces a damaged blob.
func TestConditionalWrites(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()

	t.Run("one request, stored blob kept", func(t *testing.T) {
		var conditional atomic.Int64
		p := startProxy(t, srv, func(n int64, w http.ResponseWriter, r *http.Request) bool {
			if r.Method == http.MethodPut && r.Header.Get("If-None-Match") == "*" {
				conditional.Add(1)
			}
			return false
		})
		cfg := config(srv, bucket, "cond")
		cfg.Endpoint = p.endpoint()
		st := newStore(t, cfg)
		for _, size := range []int{10, 200 << 10} {
			data := randBytes(size)
			d := objects.Sum(data)
			before := len(p.seen())
			if err := st.Put(ctx, d, bytes.NewReader(data), int64(size)); err != nil {
				t.Fatal(err)
			}
			first, err := st.Stat(ctx, d)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Put(ctx, d, bytes.NewReader(data), int64(size)); err != nil {
				t.Fatalf("Put of a stored %d-byte blob: %v", size, err)
			}
			if got := strings.Join(p.seen()[before:], " "); got != "PUT HEAD PUT" {
				t.Errorf("Put, Stat, Put of %d bytes sent %q, want PUT HEAD PUT", size, got)
			}
			second, err := st.Stat(ctx, d)
			if err != nil || !second.ModTime.Equal(first.ModTime) {
				t.Errorf("the second Put rewrote the blob: store time %v, then %v (%v)", first.ModTime, second.ModTime, err)
			}
		}
		if n := conditional.Load(); n != 4 {
			t.Errorf("%d conditional PUTs, want 4", n)
		}
	})

	t.Run("server without conditional writes", func(t *testing.T) {
		var refused atomic.Int64
		p := startProxy(t, srv, func(n int64, w http.ResponseWriter, r *http.Request) bool {
			if r.Header.Get("If-None-Match") != "" {
				refused.Add(1)
				s3ErrorReply(w, http.StatusNotImplemented, "NotImplemented")
				return true
			}
			return false
		})
		cfg := config(srv, bucket, "nocond")
		cfg.Endpoint = p.endpoint()
		st := newStore(t, cfg)
		small, big := randBytes(100), randBytes(100<<10)
		for _, b := range [][]byte{small, small, big, big} {
			if _, err := objects.PutBytes(ctx, st, b); err != nil {
				t.Fatalf("Put on a server without conditional writes: %v", err)
			}
		}
		// One refused conditional PUT, then plain PUTs, and HEADs from
		// 64 KiB as before conditional writes.
		if got := strings.Join(p.seen(), " "); got != "PUT PUT PUT HEAD PUT HEAD" {
			t.Errorf("requests %q, want PUT PUT PUT HEAD PUT HEAD", got)
		}
		if n := refused.Load(); n != 1 {
			t.Errorf("%d conditional PUTs refused, want 1 (then none sent)", n)
		}
		if got, err := objects.Get(ctx, st, objects.Sum(big)); err != nil || !bytes.Equal(got, big) {
			t.Fatalf("Get = %d bytes, %v", len(got), err)
		}
	})

	t.Run("off", func(t *testing.T) {
		p := startProxy(t, srv, func(n int64, w http.ResponseWriter, r *http.Request) bool {
			if r.Header.Get("If-None-Match") != "" {
				t.Errorf("a conditional %s with ConditionalWrites off", r.Method)
			}
			return false
		})
		cfg := config(srv, bucket, "off")
		cfg.Endpoint = p.endpoint()
		cfg.ConditionalWrites = s3.ConditionalOff
		st := newStore(t, cfg)
		if _, err := objects.PutBytes(ctx, st, []byte("plain")); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("Rewrite replaces a damaged blob", func(t *testing.T) {
		st := newStore(t, config(srv, bucket, "heal"))
		data := randBytes(5000)
		d, err := objects.PutBytes(ctx, st, data)
		if err != nil {
			t.Fatal(err)
		}
		damaged := bytes.Clone(data)
		damaged[100] ^= 1
		tamper(t, srv, bucket, "heal/"+d.Key(), damaged)
		if err := st.Put(ctx, d, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
		if _, err := objects.Get(ctx, st, d); !errors.Is(err, objects.ErrCorrupt) {
			t.Fatalf("after a conditional Put over a damaged blob, Get = %v, want ErrCorrupt (the stored copy is kept)", err)
		}
		if err := objects.Rewrite(ctx, st, d, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
		if got, err := objects.Get(ctx, st, d); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("after Rewrite, Get = %d bytes, %v", len(got), err)
		}
	})
}
