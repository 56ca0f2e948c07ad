package fusefs

import (
	"sort"
	"testing"

	"github.com/hanwen/go-fuse/v2/posixtest"

	"github.com/wsfs/wsfs/meta"
)

// posixExclusions lists the posixtest cases wsfs does not pass, each with
// the reason. A name that posixtest no longer has fails the test, so the
// list cannot rot.
var posixExclusions = map[string]string{
	"FcntlFlockLocksFile": "byte-range locks are the kernel's local ones (wsfs does not implement FUSE locking); " +
		"this case expects a lock held through one open file to be seen from another",
}

func TestPosix(t *testing.T) {
	for name := range posixExclusions {
		if _, ok := posixtest.All[name]; !ok {
			t.Errorf("exclusion %q names no posixtest case; remove it", name)
		}
	}
	names := make([]string, 0, len(posixtest.All))
	for name := range posixtest.All {
		names = append(names, name)
	}
	sort.Strings(names)
	e := newEnv(t)
	q := meta.DefaultQuotas()
	q.MaxEntries = 100000
	q.MaxFileBytes = 1 << 30
	q.MaxWorkspaceBytes = 4 << 30
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			if why, ok := posixExclusions[name]; ok {
				t.Skip(why)
			}
			ws := "posix/" + sanitize(name)
			dir := e.create(ws, &q)
			posixtest.All[name](t, dir)
		})
	}
}

func sanitize(s string) string {
	b := []byte{}
	for _, c := range []byte(s) {
		switch {
		case c >= 'A' && c <= 'Z':
			b = append(b, c-'A'+'a')
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b = append(b, c)
		}
	}
	return string(b)
}
