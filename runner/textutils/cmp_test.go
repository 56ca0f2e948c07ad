package textutils

import (
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// cmpFiles are the files of cmp's differential cases.
var cmpFiles = map[string]string{
	"a":     "hello\nworld\n",
	"b":     "hello\nwurld\nx\n",
	"c":     "hello\n",
	"e":     "",
	"h1":    "a\xe9\x01\x7f b",
	"h2":    "a\x80\x02\x7e c",
	"big1":  strings.Repeat("line of text\n", 400),
	"big2":  strings.Repeat("line of text\n", 200) + "line of tExt\n" + strings.Repeat("line of text\n", 199) + "tail\n",
	"d/f":   "x",
	"nonl":  "abc",
	"nonl2": "abd",
}

// TestCmpGNU compares cmp with GNU diffutils' cmp: stdout, stderr, exit
// status.
func TestCmpGNU(t *testing.T) {
	d := commandtest.Differential{Commands: map[string]command.Func{"cmp": Cmp}, Files: cmpFiles}
	var cases []commandtest.Case
	for _, line := range []string{
		"cmp a b", "cmp a a", "cmp e e", "cmp a c", "cmp c a", "cmp e a", "cmp a e",
		"cmp -b a b", "cmp --print-bytes a b", "cmp -l a b", "cmp --verbose a b", "cmp -lb a b", "cmp -bl c a",
		"cmp -l a c", "cmp -l a e", "cmp -l h1 h2", "cmp -lb h1 h2", "cmp -b h1 h2",
		"cmp -s a b", "cmp --silent a b", "cmp --quiet a a", "cmp -s a c", "cmp -s a nope", "cmp -l -s a b",
		"cmp -n 3 a b", "cmp -n 8 a b", "cmp --bytes=7 a b", "cmp -n 0x2 a b", "cmp -n 1X a b", "cmp -n -1 a b",
		"cmp -n 99999999999999999999999 a b", "cmp -n 10 -l a b", "cmp -ln 20 a c",
		"cmp -i 8 a b", "cmp -i 2:3 a b", "cmp -i 2:3 -i 1 a b", "cmp --ignore-initial=2 a b", "cmp -i 1k a b",
		"cmp -i 1kB big1 big2", "cmp -i 1K big1 big2", "cmp -i 1KiB big1 big2", "cmp -i 010 a b", "cmp -i 2b a b",
		"cmp -i 1e a b", "cmp -i '' a b", "cmp -i 2:x a b", "cmp -i 2: a b", "cmp -i :2 a b", "cmp -i 1M a b",
		"cmp a b 1 2", "cmp a b 7 7", "cmp a b 1 x", "cmp a b 1 2 3", "cmp a b c d e", "cmp a b 1kB",
		"cmp big1 big2", "cmp -l big1 big2", "cmp -b big1 big2", "cmp big2 big1 5",
		"cmp nonl nonl2", "cmp nonl c", "cmp -l nonl nonl2",
		"cmp a nope", "cmp nope a", "cmp a d", "cmp d a", "cmp", "cmp -x a b", "cmp --frob a b",
		"cmp a", "cmp - a", "cmp a -",
	} {
		cases = append(cases, commandtest.Case{Line: line})
	}
	cases = append(cases,
		commandtest.Case{Line: "cmp - a", Stdin: "hello\nwurld\n"},
		commandtest.Case{Line: "cmp -l - a", Stdin: "hellO\nworld\n!"},
		commandtest.Case{Line: "cmp -l a -", Stdin: "Hello"},
		commandtest.Case{Line: "cmp a", Stdin: "hello\nworld\n"},
	)
	d.Run(t, cases)
}
