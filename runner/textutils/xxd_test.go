package textutils

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

func allBytes() string {
	var b strings.Builder
	for i := range 256 {
		b.WriteByte(byte(i))
	}
	return b.String()
}

// xxdFiles are the files of xxd's differential cases.
var xxdFiles = map[string]string{
	"x":           "hello world, this is xxd\x00\x01\xff",
	"all":         allBytes(),
	"e":           "",
	"z":           strings.Repeat("\x00", 100) + "x",
	"z2":          strings.Repeat("\x00", 64),
	"z3":          "abc" + strings.Repeat("\x00", 80) + "def" + strings.Repeat("\x00", 40),
	"my-file.bin": "AB",
	"9lives":      "\x09",
	"d/f":         "x",
	"dump.txt":    "00000000: 6865 6c6c 6f0a                           hello.\n",
	"gap.txt":     "00000000: 4142\n00000010: 4344\n",
	"plain.txt":   "48656c6c6f\n0a\n",
	"target":      "0123456789abcdef",
	"patch.txt":   "00000004: 5858\n",
	"back.txt":    "00000010: 41\n00000000: 42\n",
}

// TestXxdGNU compares xxd with the host's (vim 9.0's): stdout, stderr,
// exit status and the files it writes.
func TestXxdGNU(t *testing.T) {
	d := commandtest.Differential{Commands: map[string]command.Func{"xxd": Xxd}, Files: xxdFiles}
	var cases []commandtest.Case
	for _, line := range []string{
		"xxd x", "xxd all", "xxd e", "xxd -u all", "xxd -e x", "xxd -e -g 8 x", "xxd -e -g 2 all", "xxd -e -g 3 x",
		"xxd -b x", "xxd -b -c 4 x", "xxd -b -g 2 x", "xxd -c 5 -g 3 x", "xxd -c 8 x", "xxd -c8 x", "xxd -cols 8 x",
		"xxd --cols 8 x", "xxd -c 256 x", "xxd -c 257 x", "xxd -c 0 x", "xxd -c -1 x", "xxd -g 0 x", "xxd -g 1 x",
		"xxd -g 16 all", "xxd -g 20 x", "xxd -g1 x", "xxd -group 4 x",
		"xxd -i x", "xxd -i all", "xxd -i e", "xxd -i my-file.bin", "xxd -i 9lives", "xxd -i -C my-file.bin",
		"xxd -i -n name x", "xxd -i -n 2x x", "xxd -i -u x", "xxd -i -c 4 x", "xxd -include x", "xxd -capitalize -i x",
		"xxd -p x", "xxd -ps all", "xxd -p -c 0 x", "xxd -p -c 1000 all", "xxd -p -c 7 x", "xxd -p -c -1 x", "xxd -pu x",
		"xxd -p -u x", "xxd -p e", "xxd -p -l 0 x", "xxd -p -l 30 x",
		"xxd -l 3 x", "xxd -l 0 x", "xxd -l -1 x", "xxd -l 0x10 x", "xxd -l 010 x", "xxd -len 5 x",
		"xxd -s 2 x", "xxd -s 2 -l 3 x", "xxd -s -3 x", "xxd -s +2 x", "xxd -s +2 -s 4 x", "xxd -s 100 x", "xxd -s 0x10 all",
		"xxd -seek 4 x", "xxd -skip 4 x",
		"xxd -d x", "xxd -d -s 10 all", "xxd -o 100 x", "xxd -o 0x100 -d x", "xxd -offset 16 x",
		"xxd -a z", "xxd -a z2", "xxd -a z3", "xxd -a -a z", "xxd -a -c 4 z3",
		"xxd -E all", "xxd -E x",
		"xxd nope", "xxd d", "xxd -Z x", "xxd x y z", "xxd -c", "xxd -v", "xxd -h", "xxd -",
		"xxd x out", "xxd -p x out", "xxd x -", "xxd x nodir/out", "xxd -i x out",
		"xxd -r dump.txt", "xxd -r gap.txt", "xxd -r -p plain.txt", "xxd -r -ps plain.txt", "xxd -r -i x",
		"xxd -r -b x", "xxd -r patch.txt target", "xxd -r dump.txt newfile", "xxd -r -s 4 dump.txt",
		"xxd -r -s 2 patch.txt target", "xxd -r back.txt", "xxd -r back.txt target", "xxd -r -c 2 dump.txt",
		"xxd -r nope", "xxd -r -e x",
	} {
		cases = append(cases, commandtest.Case{Line: line})
	}
	hexOf := func(s string) string {
		const h = "0123456789abcdef"
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			b.WriteByte(h[s[i]>>4])
			b.WriteByte(h[s[i]&15])
		}
		return b.String()
	}
	cases = append(cases,
		commandtest.Case{Line: "xxd", Stdin: "from stdin\n"},
		commandtest.Case{Line: "xxd -i", Stdin: "from stdin\n"},
		commandtest.Case{Line: "xxd -s 3", Stdin: "from stdin\n"},
		commandtest.Case{Line: "xxd -s 30", Stdin: "from stdin\n"},
		commandtest.Case{Line: "xxd -s -3", Stdin: "from stdin\n"},
		commandtest.Case{Line: "xxd -r", Stdin: "00000000: 6865 6c6c 6f0a                           hello.\n"},
		commandtest.Case{Line: "xxd -r", Stdin: "00000000: 3031 3233 3435 3637 3839 6162 6364 6566  0123456789abcdef\n00000010: 0a                                       .\n"},
		commandtest.Case{Line: "xxd -r", Stdin: "00000000: 4142 4344\r\n00000004: 45\r\n"},
		commandtest.Case{Line: "xxd -r", Stdin: "garbage line\n00000000: 4142\n"},
		commandtest.Case{Line: "xxd -r", Stdin: "0: 41 42 43\n3: 44\n"},
		commandtest.Case{Line: "xxd -r -p", Stdin: hexOf(allBytes()) + "\n"},
		commandtest.Case{Line: "xxd -r -p", Stdin: "48 65\t6c\n6c 6f 2"},
		commandtest.Case{Line: "xxd -r -p", Stdin: "zz4142zz43\n"},
		commandtest.Case{Line: "xxd -r -p", Stdin: "0x41,0x42\n"},
		commandtest.Case{Line: "xxd -r -c 4", Stdin: "00000000: 41424344 45464748  ABCDEFGH\n"},
	)
	d.Run(t, cases)
}

// TestXxdLimits: a reverted dump whose offset is far away stops with the
// context (its zeros go to stdout) or at the file quota (a seek, then a
// refused write), never runs on.
func TestXxdLimits(t *testing.T) {
	sb := commandtest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	w := &cancelAfter{n: 1 << 20, cancel: cancel}
	env := sb.Env("/workspace", []string{"xxd", "-r"}, strings.NewReader("7fffffff: 41\n"), w, io.Discard)
	if code := Xxd(ctx, env); code == 0 {
		t.Errorf("xxd -r to a far offset ended with status 0 after %d bytes", w.written)
	}
}

// cancelAfter cancels a context once n bytes were written to it.
type cancelAfter struct {
	n, written int
	cancel     func()
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	c.written += len(p)
	if c.written >= c.n {
		c.cancel()
	}
	return len(p), nil
}
