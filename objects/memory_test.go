package objects_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/wsfs/wsfs/objects"
)

func TestMemoryBasics(t *testing.T) {
	ctx := context.Background()
	m := objects.NewMemory()
	d, err := objects.PutBytes(ctx, m, []byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := objects.Get(ctx, m, d)
	if err != nil || string(got) != "hello" {
		t.Fatalf("Get = %q, %v", got, err)
	}
	rc, err := m.Open(ctx, d, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	part, _ := io.ReadAll(rc)
	rc.Close()
	if string(part) != "ell" {
		t.Fatalf("range read = %q", part)
	}
	if err := m.Put(ctx, d, bytes.NewReader([]byte("hellO")), 5); !errors.Is(err, objects.ErrDigestMismatch) {
		t.Fatalf("Put of wrong bytes: %v", err)
	}
	if err := m.Tamper(ctx, d, []byte("hellO")); err != nil {
		t.Fatal(err)
	}
	if _, err := objects.Get(ctx, m, d); !errors.Is(err, objects.ErrCorrupt) {
		t.Fatalf("Get of tampered blob: %v", err)
	}
	if err := m.Delete(ctx, d); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Stat(ctx, d); !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("Stat after Delete: %v", err)
	}
}
