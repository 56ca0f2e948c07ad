package meta

import (
	"bytes"
	"testing"

	"github.com/wsfs/wsfs/objects"
)

// FuzzDecodeTree: a damaged or hostile tree object never panics, and
// whatever decodes re-encodes to the same bytes (the encoding is canonical,
// so a tree's digest names exactly one directory).
func FuzzDecodeTree(f *testing.F) {
	f.Add(emptyTree)
	f.Add(encodeTree(&Tree{Entries: []Entry{
		FileEntry("a", 0o644, t0, objects.Sum([]byte("a")), 1),
		DirEntry("d", 0o755, t0, EmptyTreeDigest, &Tree{}),
		SymlinkEntry("l", "a", t0),
	}}))
	f.Add([]byte("wsfs-tree1\n\xff\xff\xff\xff\x0f"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := decodeTree(b)
		if err != nil {
			return
		}
		if again := encodeTree(tr); !bytes.Equal(again, b) {
			t.Fatalf("decode/encode is not the identity:\n in %q\nout %q", b, again)
		}
	})
}

func TestCleanPath(t *testing.T) {
	good := map[string]string{"": "", "/": "", "a": "a", "/a/b/": "a/b", "./a//b/.": "a/b", "a/./b": "a/b"}
	for in, want := range good {
		if got, err := CleanPath(in); err != nil || got != want {
			t.Errorf("CleanPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"..", "../a", "a/../b", "a/..", "a\x00b"} {
		if _, err := CleanPath(bad); err == nil {
			t.Errorf("CleanPath(%q) succeeded", bad)
		}
	}
}
