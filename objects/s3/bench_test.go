package s3_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/objects/s3/s3test"
)

var benchSizes = []int{4 << 10, 256 << 10}

// benchCounter makes every benchmark blob new, across runs (-count).
var benchCounter atomic.Uint64

func sizeName(n int) string { return fmt.Sprintf("%dKiB", n>>10) }

// BenchmarkPut measures Store.Put of new blobs (and of blobs already
// stored) on MinIO, next to minio-go's own PutObject of the same bytes as
// the baseline. "head" variants ask the server first (SkipExistingMin 1:
// always), "nohead" variants never do; the default store sends one
// conditional PUT (and asks first only from 8 MiB).
func BenchmarkPut(b *testing.B) {
	srv := s3test.Start(b)
	bucket := srv.Bucket(b)
	ctx := context.Background()
	raw := srv.Client(b)
	for _, size := range benchSizes {
		data := randBytes(size)
		// Each iteration puts a new blob: the first 8 bytes count.
		next := func() ([]byte, objects.Digest) {
			binary.LittleEndian.PutUint64(data, benchCounter.Add(1))
			return data, objects.Sum(data)
		}
		for _, variant := range []struct {
			name    string
			headMin int64
		}{{"default", 0}, {"head", 1}, {"nohead", -1}} {
			b.Run(sizeName(size)+"/store-new-"+variant.name, func(b *testing.B) {
				cfg := config(srv, bucket, "bench-"+variant.name)
				cfg.SkipExistingMin = variant.headMin
				st := newStore(b, cfg)
				b.SetBytes(int64(size))
				for b.Loop() {
					buf, d := next()
					if err := st.Put(ctx, d, bytes.NewReader(buf), int64(size)); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(sizeName(size)+"/store-existing-"+variant.name, func(b *testing.B) {
				cfg := config(srv, bucket, "bench-existing")
				cfg.SkipExistingMin = variant.headMin
				st := newStore(b, cfg)
				buf, d := next()
				if err := st.Put(ctx, d, bytes.NewReader(buf), int64(size)); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(size))
				for b.Loop() {
					if err := st.Put(ctx, d, bytes.NewReader(buf), int64(size)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(sizeName(size)+"/raw-minio-go", func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				buf, d := next()
				_, err := raw.PutObject(ctx, bucket, "raw/"+d.Key(), bytes.NewReader(buf), int64(size), minio.PutObjectOptions{})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOpen measures a verified whole-blob read through the store and
// minio-go's GetObject of the same object as the baseline.
func BenchmarkOpen(b *testing.B) {
	srv := s3test.Start(b)
	bucket := srv.Bucket(b)
	ctx := context.Background()
	raw := srv.Client(b)
	st := newStore(b, config(srv, bucket, "bench"))
	for _, size := range benchSizes {
		data := randBytes(size)
		d, err := objects.PutBytes(ctx, st, data)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(sizeName(size)+"/store", func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				got, err := objects.Get(ctx, st, d)
				if err != nil || len(got) != size {
					b.Fatalf("Get: %d bytes, %v", len(got), err)
				}
			}
		})
		b.Run(sizeName(size)+"/store-range-4KiB", func(b *testing.B) {
			b.SetBytes(4 << 10)
			for b.Loop() {
				rc, err := st.Open(ctx, d, int64(size)/2-2048, 4<<10)
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.Copy(io.Discard, rc)
				rc.Close()
				if err != nil || n != min(4<<10, int64(size)/2+2048) {
					b.Fatalf("range read: %d bytes, %v", n, err)
				}
			}
		})
		b.Run(sizeName(size)+"/raw-minio-go", func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				obj, err := raw.GetObject(ctx, bucket, "bench/"+d.Key(), minio.GetObjectOptions{})
				if err != nil {
					b.Fatal(err)
				}
				got, err := io.ReadAll(obj)
				obj.Close()
				if err != nil || len(got) != size {
					b.Fatalf("GetObject: %d bytes, %v", len(got), err)
				}
			}
		})
	}
}

// BenchmarkCompare interleaves, within each iteration, the operations that
// BenchmarkPut and BenchmarkOpen measure one after the other, and reports
// the median milliseconds of each and their ratio to raw minio-go. On a
// busy machine, load drifts between sub-benchmarks; interleaving gives
// every operation the same load, so the ratios stay meaningful.
func BenchmarkCompare(b *testing.B) {
	srv := s3test.Start(b)
	bucket := srv.Bucket(b)
	ctx := context.Background()
	raw := srv.Client(b)
	for _, size := range benchSizes {
		b.Run(sizeName(size), func(b *testing.B) {
			head := config(srv, bucket, "cmp")
			head.SkipExistingMin = 1
			noHead := config(srv, bucket, "cmp")
			noHead.SkipExistingMin = -1
			stDefault, stHead, stNoHead := newStore(b, config(srv, bucket, "cmp")), newStore(b, head), newStore(b, noHead)
			data := randBytes(size)
			existing := randBytes(size)
			ed, err := objects.PutBytes(ctx, stDefault, existing)
			if err != nil {
				b.Fatal(err)
			}
			fresh := func() ([]byte, objects.Digest) {
				binary.LittleEndian.PutUint64(data, benchCounter.Add(1))
				return data, objects.Sum(data)
			}
			times := map[string][]time.Duration{}
			timed := func(name string, fn func() error) {
				t0 := time.Now()
				if err := fn(); err != nil {
					b.Fatalf("%s: %v", name, err)
				}
				times[name] = append(times[name], time.Since(t0))
			}
			for b.Loop() {
				for name, st := range map[string]objects.Store{"put-new-store": stDefault, "put-new-head": stHead, "put-new-nohead": stNoHead} {
					buf, d := fresh()
					timed(name, func() error { return st.Put(ctx, d, bytes.NewReader(buf), int64(size)) })
				}
				buf, d := fresh()
				timed("put-new-raw", func() error {
					_, err := raw.PutObject(ctx, bucket, "cmp/"+d.Key(), bytes.NewReader(buf), int64(size), minio.PutObjectOptions{})
					return err
				})
				timed("put-existing-head", func() error { return stHead.Put(ctx, ed, bytes.NewReader(existing), int64(size)) })
				timed("put-existing-nohead", func() error { return stNoHead.Put(ctx, ed, bytes.NewReader(existing), int64(size)) })
				timed("open-store", func() error {
					rc, err := stDefault.Open(ctx, ed, 0, -1)
					if err != nil {
						return err
					}
					defer rc.Close()
					_, err = io.Copy(io.Discard, rc) // verified at EOF
					return err
				})
				timed("open-raw", func() error {
					obj, err := raw.GetObject(ctx, bucket, "cmp/"+ed.Key(), minio.GetObjectOptions{})
					if err != nil {
						return err
					}
					defer obj.Close()
					_, err = io.Copy(io.Discard, obj)
					return err
				})
			}
			med := map[string]float64{}
			for name, ts := range times {
				slices.Sort(ts)
				med[name] = float64(ts[len(ts)/2]) / 1e6
				b.ReportMetric(med[name], name+"-ms")
			}
			b.ReportMetric(med["put-new-store"]/med["put-new-raw"], "put-store/raw")
			b.ReportMetric(med["open-store"]/med["open-raw"], "open-store/raw")
		})
	}
}
