package s3_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"sync/atomic"
	"testing"

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
// the baseline. "head" variants ask the server first (SkipExistingMin 0 →
// always), "nohead" variants never do; the default store asks from 64 KiB.
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
