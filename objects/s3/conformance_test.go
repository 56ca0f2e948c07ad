package s3_test

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/objects/objectstest"
	"github.com/wsfs/wsfs/objects/s3"
	"github.com/wsfs/wsfs/objects/s3/s3test"
)

// TestConformance runs the objects.Store suite against MinIO, every subtest
// on a fresh prefix of one bucket. Tampering overwrites the blob's object
// with a raw minio-go PutObject, as a faulty disk or a stray writer would.
func TestConformance(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	raw := srv.Client(t)
	var n atomic.Int64
	prefixes := map[*s3.Store]string{}
	newStore := func(t *testing.T) objects.Store {
		prefix := fmt.Sprintf("conf-%d", n.Add(1))
		st := newStore(t, config(srv, bucket, prefix))
		prefixes[st] = prefix
		return st
	}
	tamper := func(ctx context.Context, st objects.Store, d objects.Digest, content []byte) error {
		key := prefixes[st.(*s3.Store)] + "/" + d.Key()
		_, err := raw.PutObject(ctx, bucket, key, bytes.NewReader(content), int64(len(content)), minio.PutObjectOptions{})
		return err
	}
	objectstest.Run(t, newStore, objectstest.WithTamper(tamper), objectstest.WithConcurrency(8))
}

// TestPackedConformance runs the suite on packs in MinIO: every blob put
// lands in a pack of its own (or, from objects.PackThreshold, a single
// object), read back with ranged GETs.
func TestPackedConformance(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	raw := srv.Client(t)
	var n atomic.Int64
	var mu sync.Mutex
	prefixes := map[*s3.Store]string{}
	tamper := func(ctx context.Context, st objects.Store, d objects.Digest, content []byte) error {
		mu.Lock()
		key := prefixes[st.(*s3.Store)] + "/" + d.Key()
		mu.Unlock()
		_, err := raw.PutObject(ctx, bucket, key, bytes.NewReader(content), int64(len(content)), minio.PutObjectOptions{})
		return err
	}
	objectstest.Run(t, func(t *testing.T) objects.Store {
		prefix := fmt.Sprintf("packed-%d", n.Add(1))
		st := newStore(t, config(srv, bucket, prefix))
		mu.Lock()
		prefixes[st] = prefix
		mu.Unlock()
		return objectstest.Packed(st, tamper)
	}, objectstest.WithConcurrency(8))
}

func FuzzPutOpen(f *testing.F) {
	srv := s3test.Start(f)
	objectstest.Fuzz(f, newStore(f, config(srv, srv.Bucket(f), "fuzz")))
}
