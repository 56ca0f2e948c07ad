package coreutils

import (
	"archive/zip"
	"bytes"
	"context"
	"testing"
)

// TestFileKinds covers what the differential test against file(1)
// cannot: formats described through mimetype, and -f, -0 and -b with -i.
func TestFileKinds(t *testing.T) {
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	w, _ := zw.Create("a.txt")
	w.Write([]byte("hello"))
	zw.Close()
	s := sandbox(t)
	s.WriteFiles(t, map[string]string{
		"a.zip":     zbuf.String(),
		"m.wasm":    "\x00asm\x01\x00\x00\x00",
		"names":     "a.zip\nm.wasm\n",
		"notes.txt": "plain\n",
	})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"file", "a.zip", "m.wasm"}, "a.zip:  Zip archive data\nm.wasm: WASM data (application/wasm)\n"},
		{[]string{"file", "--mime-type", "-b", "a.zip", "m.wasm"}, "application/zip\napplication/wasm\n"},
		{[]string{"file", "-f", "names", "-N"}, "a.zip: Zip archive data\nm.wasm: WASM data (application/wasm)\n"},
		{[]string{"file", "-0", "notes.txt"}, "notes.txt\x00 ASCII text\n"},
		{[]string{"file", "-bi", "notes.txt"}, "text/plain; charset=us-ascii\n"},
		{[]string{"file", "/tmp", "/dev/null"}, "/tmp:      directory\n/dev/null: character special\n"},
	} {
		r := s.Run(context.Background(), runFile, "", tc.args...)
		if r.Stdout != tc.want || r.Code != 0 {
			t.Errorf("%q: %q exit %d (stderr %q), want %q", tc.args, r.Stdout, r.Code, r.Stderr, tc.want)
		}
	}
}
