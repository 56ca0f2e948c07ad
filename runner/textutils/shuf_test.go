package textutils

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// randomBytes is n bytes of a fixed pseudo-random stream (SHA-256 in
// counter mode of seed): the reproducible --random-source of the tests.
func randomBytes(seed string, n int) string {
	var b []byte
	for i := 0; len(b) < n; i++ {
		sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", seed, i)))
		b = append(b, sum[:]...)
	}
	return string(b[:n])
}

// TestShufGNU compares shuf with GNU coreutils' with the same random
// source file: the same permutation, line for line.
func TestShufGNU(t *testing.T) {
	var words []string
	for i := range 300 {
		words = append(words, fmt.Sprintf("w%03d", i))
	}
	files := map[string]string{
		"ten":   "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
		"nonl":  "a\nb\nc",
		"words": strings.Join(words, "\n") + "\n",
		"zero":  "a\x00b\x00c\x00d\x00",
		"empty": "",
		"one":   "only\n",
		"rs":    randomBytes("shuf", 8192),
		"rs2":   randomBytes("other", 4096),
		"small": "\x07\x80",
	}
	d := commandtest.Differential{Commands: map[string]command.Func{"shuf": Shuf}, Files: files}
	var cases []commandtest.Case
	for _, line := range []string{
		"shuf --random-source=rs ten", "shuf --random-source=rs2 ten", "shuf --random-source=rs nonl",
		"shuf --random-source=rs words", "shuf --random-source=rs2 words", "shuf --random-source=rs one",
		"shuf --random-source=rs empty", "shuf -n 3 --random-source=rs ten", "shuf -n 3 --random-source=rs2 words",
		"shuf -n 0 --random-source=rs ten", "shuf -n 20 --random-source=rs ten", "shuf -n 5 -n 2 --random-source=rs ten",
		"shuf --head-count=4 --random-source=rs2 ten", "shuf -n +2 --random-source=rs ten",
		"shuf -n 99999999999999999999999 -i 1-3 --random-source=rs",
		"shuf -e --random-source=rs a b c d e", "shuf -e -n 2 --random-source=rs2 a b c d e", "shuf -e", "shuf -e --random-source=rs",
		"shuf -i 1-10 --random-source=rs", "shuf -i 0-0 --random-source=rs", "shuf -i 5-4 --random-source=rs",
		"shuf -i 1-1000 -n 5 --random-source=rs", "shuf -i 1000000-2000000000 -n 5 --random-source=rs",
		"shuf -i 0-18446744073709551614 -n 3 --random-source=rs", "shuf --input-range=3-7 --random-source=rs2",
		"shuf -i ' 1-3' --random-source=rs",
		"shuf -r -n 10 --random-source=rs ten", "shuf -r -n 10 -i 1-3 --random-source=rs", "shuf -r -n 7 -e --random-source=rs2 x y",
		"shuf -r -n 5 -i 1-1000000 --random-source=rs", "shuf -rn 3 --random-source=rs one",
		"shuf -z --random-source=rs zero", "shuf -z -e --random-source=rs a b c", "shuf -z -i 1-5 --random-source=rs",
		"shuf -o out --random-source=rs ten", "shuf --random-source=rs -o ten ten", "shuf -o nodir/out ten",
		"shuf --random-source=small words", "shuf -r --random-source=small -n 50 ten", "shuf --random-source=nope ten",
		"shuf -e -i 1-3", "shuf -i 5-3", "shuf -i 5", "shuf -n -1 ten", "shuf -n x ten", "shuf ten ten", "shuf -i 1-3 x",
		"shuf -o a -o b ten", "shuf -i 1-2 -i 1-3", "shuf -r empty", "shuf -r -i 1-0", "shuf -n 0 nope", "shuf nope",
		"shuf -i a-3", "shuf -i 1-", "shuf -i -3", "shuf -i 1-3-4", "shuf -i 1-99999999999999999999",
		"shuf -i 99999999999999999999-3", "shuf -i 0-18446744073709551615", "shuf -r -n 0 empty", "shuf --frob",
		"shuf --random-source=rs --random-source=rs2 ten", "shuf --random-source=rs --random-source=rs ten",
	} {
		cases = append(cases, commandtest.Case{Line: line})
	}
	cases = append(cases,
		commandtest.Case{Line: "shuf --random-source=rs", Stdin: "x\ny\nz\n"},
		commandtest.Case{Line: "shuf -n 1 --random-source=rs -", Stdin: "x\ny\nz\n"},
		commandtest.Case{Line: "shuf -n 3 --random-source=rs", Stdin: strings.Join(words, "\n")},
		commandtest.Case{Line: "shuf -n 3 --random-source=rs2 -", Stdin: strings.Join(words, "\n")},
		commandtest.Case{Line: "shuf -n 299 --random-source=rs", Stdin: strings.Join(words, "\n")},
		commandtest.Case{Line: "shuf -n 400 --random-source=rs", Stdin: strings.Join(words, "\n")},
		commandtest.Case{Line: "shuf -n 2 --random-source=rs", Stdin: "x\ny\n"},
		commandtest.Case{Line: "shuf -n 2 -z --random-source=rs", Stdin: "x\x00y\x00z\x00w"},
	)
	d.Run(t, cases)
}

// TestShufRepeatStops: -r without -n writes until the command is stopped.
func TestShufRepeatStops(t *testing.T) {
	sb := commandtest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	w := &cancelAfter{n: 1 << 20, cancel: cancel}
	env := sb.Env("/workspace", []string{"shuf", "-r", "-e", "a", "b"}, strings.NewReader(""), w, io.Discard)
	if code := Shuf(ctx, env); code == 0 || w.written < 1<<20 {
		t.Errorf("shuf -r: status %d after %d bytes", code, w.written)
	}
}

// TestWholeInputBound: shuf and iconv, which hold their input whole,
// refuse one over 64 MiB with a message instead of growing without end.
func TestWholeInputBound(t *testing.T) {
	sb := commandtest.New(t)
	for _, c := range []struct {
		fn   command.Func
		args []string
		want string
	}{
		{Shuf, []string{"shuf"}, "shuf: -: input is over the runner's limit of 64 MiB"},
		{Iconv, []string{"iconv", "-f", "latin1"}, "iconv: -: input is over the runner's limit of 64 MiB"},
	} {
		env := sb.Env("/workspace", c.args, io.LimitReader(zeros{}, maxWholeInput+10), io.Discard, &bytes.Buffer{})
		errb := env.Stderr.(*bytes.Buffer)
		if code := c.fn(t.Context(), env); code == 0 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: status %d, stderr %q", c.args, code, errb.String())
		}
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}
