package metatest_test

import (
	"testing"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/meta/metatest"
)

func TestHelpers(t *testing.T) {
	db := metatest.Open(t, nil)
	w := metatest.Create(t, db, "acme/a")
	rev := metatest.Files(t, db, w.Name, map[string]string{"a/b.txt": "hi", "c": ""})
	got := metatest.Snapshot(t, db, meta.Ref{Workspace: w.Name, Rev: rev.N})
	want := map[string]string{"a": "dir/", "a/b.txt": "hi", "c": ""}
	if len(got) != len(want) {
		t.Fatalf("snapshot %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("snapshot %v, want %v", got, want)
		}
	}
}
