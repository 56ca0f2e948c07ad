package objects_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/wsfs/wsfs/objects"
)

func TestCopies(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	good, bad := []byte("a good copy"), []byte("a copy damaged since")
	os.WriteFile(filepath.Join(dir, objects.Sum(good).String()), good, 0o600)
	os.WriteFile(filepath.Join(dir, objects.Sum(bad).String()), []byte("a copy DAMAGED since"), 0o600)
	os.WriteFile(filepath.Join(dir, "not-a-digest"), []byte("x"), 0o600)
	c, err := objects.OpenCopies(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := objects.Get(ctx, c, objects.Sum(good)); err != nil || !bytes.Equal(b, good) {
		t.Fatalf("Get of a good copy: %q, %v", b, err)
	}
	if _, err := objects.Get(ctx, c, objects.Sum(bad)); !errors.Is(err, objects.ErrCorrupt) {
		t.Fatalf("Get of a damaged copy: %v, want ErrCorrupt", err)
	}
	if _, err := objects.Get(ctx, c, objects.Sum([]byte("none"))); !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("Get of a missing copy: %v, want ErrNotFound", err)
	}
	n := 0
	if err := c.List(ctx, func(objects.Info) error { n++; return nil }); err != nil || n != 2 {
		t.Fatalf("List: %d copies, %v", n, err)
	}
	if _, err := objects.PutBytes(ctx, c, []byte("x")); err == nil {
		t.Fatal("Put into copies succeeded")
	}
	if _, err := objects.OpenCopies(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("OpenCopies of a missing folder succeeded")
	}
}
