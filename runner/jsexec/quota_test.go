package jsexec

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// quotaFS refuses writes as the mount does when a quota is reached.
type quotaFS struct {
	*command.RootFS
	errno syscall.Errno
}

type quotaFile struct {
	command.File
	errno syscall.Errno
}

func (f quotaFile) Write([]byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: f.Name(), Err: f.errno}
}

func (q quotaFS) OpenFile(name string, flag int, perm fs.FileMode) (command.File, error) {
	f, err := q.RootFS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return quotaFile{f, q.errno}, nil
}

func TestQuotaErrors(t *testing.T) {
	sb := commandtest.New(t)
	for _, c := range []struct {
		errno syscall.Errno
		code  string
	}{{syscall.EDQUOT, "EDQUOT"}, {syscall.EFBIG, "EFBIG"}} {
		var out, errb strings.Builder
		env := sb.Env("/workspace", []string{"js-exec", "-c",
			"try { require('fs').writeFileSync('big.bin', 'data') } catch (e) { console.log(e.code, e.syscall, e.path, e.message) }"},
			strings.NewReader(""), &out, &errb)
		env.FS = quotaFS{sb.FS, c.errno}
		code := Spec(Config{}).Func(context.Background(), env)
		want := c.code + " write big.bin " + c.code + ": " + errnoText[c.errno] + ", write 'big.bin' (" + quotaHint[c.errno] + ")\n"
		if code != 0 || out.String() != want {
			t.Errorf("%s: got %q (err %q, code %d), want %q", c.code, out.String(), errb.String(), code, want)
		}
	}
}

// TestFileTooLarge: a file that cannot fit in the script's memory is
// refused before it is read.
func TestFileTooLarge(t *testing.T) {
	sb := commandtest.New(t)
	if err := os.WriteFile(filepath.Join(sb.Workspace, "big.bin"), make([]byte, 65<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	r := sb.Run(context.Background(), Spec(Config{}).Func, "", "js-exec", "-c",
		"try { require('fs').readFileSync('big.bin') } catch (e) { console.log(e.code, e.message) }")
	want := "ERR_FS_FILE_TOO_LARGE File size (68157440) is greater than js-exec's memory limit (64 MiB): big.bin\n"
	if r.Stdout != want || r.Code != 0 {
		t.Errorf("got %+v, want %q", r, want)
	}
}
