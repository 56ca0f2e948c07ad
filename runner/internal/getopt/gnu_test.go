package getopt_test

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/internal/testenv"
	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/command/commandtest"
	"github.com/wsfs/wsfs/runner/coreutils"
	"github.com/wsfs/wsfs/runner/grep"
	"github.com/wsfs/wsfs/runner/sed"
	"github.com/wsfs/wsfs/runner/textutils"
)

// TestUsageErrorsMatchGNU runs every GNU-style command of the runner and
// its GNU original on bad command lines: the messages and statuses are
// glibc's and the tools' own.
func TestUsageErrorsMatchGNU(t *testing.T) {
	table := map[string]command.Func{}
	for _, specs := range [][]command.Spec{coreutils.Commands(), textutils.Commands(), grep.Commands(), sed.Commands()} {
		for _, s := range specs {
			table[s.Name] = s.Func
		}
	}
	names := strings.Fields(`cat cp mv ls du date mkdir rmdir touch rm ln chmod readlink realpath stat tar gzip
		basename dirname env printenv timeout mktemp truncate install head tail wc sort uniq cut tr paste join
		comm nl tac fold expand unexpand seq tee xargs diff base64 md5sum od split grep sed cmp shuf iconv`)
	var cases [][]string
	for _, n := range names {
		cases = append(cases, []string{n, "--no-such"}, []string{n, "--no-such=x"}, []string{n, "-%"},
			[]string{n, "--help=x"}, []string{n, "--vers=x"})
	}
	cases = append(cases, []string{"head", "-n"}, []string{"cut", "--fi"}, []string{"sort", "-k"},
		[]string{"ls", "--s"}, []string{"grep", "--in", "x"}, []string{"sed", "--e"}, []string{"tail", "--lines"},
		[]string{"date", "-d"}, []string{"ls", "--sort"}, []string{"diff", "-U", "x", "a", "b"}, []string{"diff", "a"})
	sb := commandtest.New(t)
	for _, c := range cases {
		host, err := exec.LookPath(c[0])
		if err != nil {
			testenv.Missing(t, "GNU "+c[0]+", the reference for its usage errors")
			continue
		}
		var out, ours bytes.Buffer
		code := table[c[0]](context.Background(), sb.Env("/workspace", c, bytes.NewReader(nil), &out, &ours))
		cmd := exec.Command(host, c[1:]...)
		cmd.Args[0] = c[0] // GNU names itself by argv[0]
		cmd.Dir, cmd.Env = sb.Workspace, []string{"LC_ALL=C.UTF-8"}
		var theirs bytes.Buffer
		cmd.Stderr = &theirs
		gnuCode := 0
		var ee *exec.ExitError
		if err := cmd.Run(); errors.As(err, &ee) {
			gnuCode = ee.ExitCode()
		}
		got, want := comparable(c[0], ours.String()), comparable(c[0], theirs.String())
		if code != gnuCode || got != want {
			t.Errorf("%q: status %d, GNU's %d\n ours: %q\n  GNU: %q", c, code, gnuCode, got, want)
		}
	}
}

// comparable drops what legitimately differs from GNU's text: sed's
// usage text after its first line (ours names what the runner refuses),
// gzip's old `quote', tar's options the runner does not have, and the
// order in which an ambiguous prefix lists its possibilities (the order
// of each tool's option table, which ours keeps in --help order).
func comparable(name, stderr string) string {
	lines := strings.Split(stderr, "\n")
	if name == "sed" && len(lines) > 2 {
		lines = lines[:2]
	}
	for i, l := range lines {
		l = strings.ReplaceAll(l, "`"+name+" --help'", "'"+name+" --help'")
		if head, poss, ok := strings.Cut(l, "; possibilities: "); ok {
			p := strings.Fields(poss)
			if name == "tar" {
				p = slices.DeleteFunc(p, func(s string) bool { return s == "'--verify'" || s == "'--verbatim-files-from'" })
			}
			slices.Sort(p)
			l = head + "; possibilities: " + strings.Join(p, " ")
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}
