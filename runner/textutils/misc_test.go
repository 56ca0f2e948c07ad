package textutils

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// TestTable covers behaviour that needs no reference tool: the runner's
// special files, confinement and refusals.
func TestTable(t *testing.T) {
	sb := commandtest.New(t)
	sb.Commands = commandTable()
	sb.WriteFiles(t, map[string]string{"f.txt": "b\na\n", "d/g.txt": "x\n"})
	for _, c := range []struct {
		args   []string
		stdin  string
		out    string
		code   int
		errHas string
	}{
		{[]string{"tee", "/dev/stdout"}, "hi\n", "hi\nhi\n", 0, ""},
		{[]string{"sort", "-o", "/dev/stdout", "f.txt"}, "", "a\nb\n", 0, ""},
		{[]string{"head", "-n1", "/etc/passwd"}, "", "", 1, "No such file"},
		{[]string{"sort", "../../etc/passwd"}, "", "", 2, "No such file"},
		{[]string{"wc", "-l", "/tmp/../workspace/f.txt"}, "", "2 /tmp/../workspace/f.txt\n", 0, ""},
		{[]string{"tail", "-f", "f.txt"}, "", "", 1, "not supported"},
		{[]string{"diff", "-y", "f.txt", "f.txt"}, "", "", 2, "not supported"},
		{[]string{"cat"}, "", "", 0, ""},
		{[]string{"xargs", "nosuch"}, "a\n", "", 127, "command not found"},
		{[]string{"split", "-l", "1", "f.txt", "/tmp/part"}, "", "", 0, ""},
		{[]string{"md5sum", "d"}, "", "", 1, "Is a directory"},
		{[]string{"sort", "--debug", "f.txt"}, "", "", 2, "not supported"},
		{[]string{"head", "--help"}, "", "Usage: head", 0, ""},
	} {
		res := sb.Run(context.Background(), sb.Commands[c.args[0]], c.stdin, c.args...)
		if !strings.HasPrefix(res.Stdout, c.out) || (c.out == "" && res.Stdout != "") || res.Code != c.code || !strings.Contains(res.Stderr, c.errHas) {
			t.Errorf("%v: got %q, %d, %q; want %q, %d, stderr containing %q", c.args, res.Stdout, res.Code, res.Stderr, c.out, c.code, c.errHas)
		}
	}
	if b, err := os.ReadFile(filepath.Join(sb.Tmp, "partab")); err != nil || string(b) != "a\n" {
		t.Errorf("split into /tmp: %q, %v", b, err)
	}
}
