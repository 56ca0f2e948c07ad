package fusefs

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/objects/s3"
	"github.com/wsfs/wsfs/objects/s3/s3test"
)

// requestCount counts the requests a store is asked for (one per call of
// Put, Open, Stat, Delete; a listing counts once), as an object store
// bills them.
type requestCount struct {
	objects.Store
	n atomic.Int64
}

func (c *requestCount) Put(ctx context.Context, d objects.Digest, r io.Reader, size int64) error {
	c.n.Add(1)
	return c.Store.Put(ctx, d, r, size)
}

func (c *requestCount) Open(ctx context.Context, d objects.Digest, off, length int64) (io.ReadCloser, error) {
	c.n.Add(1)
	return c.Store.Open(ctx, d, off, length)
}

func (c *requestCount) Stat(ctx context.Context, d objects.Digest) (objects.Info, error) {
	c.n.Add(1)
	return c.Store.Stat(ctx, d)
}

func (c *requestCount) Delete(ctx context.Context, d objects.Digest) error {
	c.n.Add(1)
	return c.Store.Delete(ctx, d)
}

func (c *requestCount) List(ctx context.Context, fn func(objects.Info) error) error {
	c.n.Add(1)
	return c.Store.List(ctx, fn)
}

// IsLocal passes the store's own answer on (objects.Local).
func (c *requestCount) IsLocal() bool { return objects.IsLocal(c.Store) }

// delayProxy forwards to an S3 server on loopback after waiting delay per
// request, as a store across a WAN answers (R2 or S3: 10-30 ms a request).
func delayProxy(b *testing.B, srv *s3test.Server, delay time.Duration) string {
	b.Helper()
	if srv.Secure {
		b.Skip("the delaying proxy speaks plain HTTP")
	}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: srv.Endpoint})
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay)  // the latency being simulated
		rp.ServeHTTP(w, r) // Host stays the proxy's, which is what the client signed
	}))
	b.Cleanup(p.Close)
	return p.Listener.Addr().String()
}

// BenchmarkPackedCommits measures what an agent's command costs at its
// end, on three stores in the same run: it writes files on the mount and
// snapshots the workspace, with the local folder store, with MinIO on
// loopback, and with the same MinIO behind a proxy that adds 20 ms to
// every request. Each iteration runs the command on the three stores in
// turn, so all see the same load. The cases are 1, 10, 100 and 1,000
// small files (about 100 bytes, new content every iteration) and one
// 256 KiB file. It reports each store's median time per command (ms),
// MinIO's as a ratio to the folder store's, and the store requests per
// commit (req: Put, Open, Stat, Delete calls).
func BenchmarkPackedCommits(b *testing.B) {
	requireFUSE(b)
	ctx := context.Background()
	srv := s3test.Start(b)
	bucket := srv.Bucket(b)
	newS3 := func(endpoint, prefix string) objects.Store {
		st, err := s3.New(ctx, s3.Config{Endpoint: endpoint, Secure: srv.Secure, Bucket: bucket, Prefix: prefix,
			AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, Region: srv.Region})
		if err != nil {
			b.Fatal(err)
		}
		return st
	}
	slow := delayProxy(b, srv, 20*time.Millisecond)
	for _, c := range []struct {
		name  string
		files int
		size  int
	}{{"files=1", 1, 100}, {"files=10", 10, 100}, {"files=100", 100, 100}, {"files=1000", 1000, 100}, {"256KiB", 1, 256 << 10}} {
		b.Run(c.name, func(b *testing.B) {
			local, err := objects.OpenDir(filepath.Join(b.TempDir(), "objects"))
			if err != nil {
				b.Fatal(err)
			}
			type target struct {
				name    string
				count   *requestCount
				fsys    *FS
				dir     string
				head    meta.RevNum
				times   []time.Duration
				commits []time.Duration
				reqs    int64
			}
			var targets []*target
			for _, t := range []struct {
				name  string
				store objects.Store
			}{
				{"folder", local},
				{"minio", newS3(srv.Endpoint, "bench-"+c.name)},
				{"minio20ms", newS3(slow, "bench-slow-"+c.name)},
			} {
				count := &requestCount{Store: t.store}
				fsys, mnt := mountOne(b, count, meta.Options{}, "bench/p")
				dir := filepath.Join(mnt, "out")
				if err := os.Mkdir(dir, 0o755); err != nil {
					b.Fatal(err)
				}
				rev, _, err := fsys.Snapshot(ctx, "bench/p", 1, "", meta.CommitInfo{Command: "setup"})
				if err != nil {
					b.Fatal(err)
				}
				targets = append(targets, &target{name: t.name, count: count, fsys: fsys, dir: dir, head: rev.N})
			}
			payload := make([]byte, c.size)
			for i := range payload {
				payload[i] = byte('a' + i%26)
			}
			command := func(t *target, i int) {
				start := time.Now()
				before := t.count.n.Load()
				for f := range c.files {
					copy(payload, fmt.Sprintf("iteration %d file %d\n", i, f))
					if err := os.WriteFile(filepath.Join(t.dir, fmt.Sprintf("f%04d.txt", f)), payload, 0o644); err != nil {
						b.Fatal(err)
					}
				}
				commit := time.Now()
				rev, ok, err := t.fsys.Snapshot(ctx, "bench/p", t.head, "", meta.CommitInfo{Command: "bench"})
				if err != nil || !ok {
					b.Fatal(err, ok)
				}
				t.times = append(t.times, time.Since(start))
				t.commits = append(t.commits, time.Since(commit))
				t.reqs += t.count.n.Load() - before
				t.head = rev.N
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				for _, t := range targets {
					command(t, i)
				}
			}
			b.StopTimer()
			median := func(ds []time.Duration) float64 {
				slices.Sort(ds)
				return float64(ds[len(ds)/2]) / 1e6
			}
			p50 := map[string]float64{}
			for _, t := range targets {
				p50[t.name] = median(t.times)
				b.ReportMetric(p50[t.name], t.name+"-ms")
				b.ReportMetric(median(t.commits), t.name+"-commit-ms")
				b.ReportMetric(float64(t.reqs)/float64(len(t.times)), t.name+"-req")
			}
			b.ReportMetric(p50["minio"]/p50["folder"], "minio/folder")
			b.ReportMetric(p50["minio20ms"]/p50["folder"], "minio20ms/folder")
		})
	}
}
