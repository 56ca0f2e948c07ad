package grep

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/wsfs/wsfs/internal/testenv"
	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// gnuGrep returns the path of GNU grep, or skips the test (fails under
// CI=true, where .ci/run installs it).
func gnuGrep(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("grep")
	if err == nil {
		out, verr := exec.Command(p, "--version").Output()
		if verr == nil && bytes.Contains(out, []byte("GNU grep")) {
			return p
		}
	}
	testenv.Missing(t, "GNU grep not found; differential tests skipped")
	return ""
}

// result is what one run printed and returned.
type result struct {
	stdout, stderr string
	code           int
}

// runGNU runs GNU grep in dir (the sandbox's workspace folder).
func runGNU(t testing.TB, gnu, dir, stdin string, args []string) result {
	t.Helper()
	argv := args[1:]
	switch args[0] {
	case "egrep":
		argv = append([]string{"-E"}, argv...)
	case "fgrep":
		argv = append([]string{"-F"}, argv...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gnu, argv...)
	cmd.Dir = dir
	cmd.Env = []string{"LC_ALL=C.UTF-8", "PATH=/usr/bin:/bin"}
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("run GNU grep %q: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return result{out.String(), errb.String(), code}
}

func runOurs(sb *commandtest.Sandbox, fn command.Func, stdin string, args []string) result {
	r := sb.Run(context.Background(), fn, stdin, args...)
	return result{r.Stdout, r.Stderr, r.Code}
}

// sameClass compares what the differential tests hold equal: stdout and
// status exactly, stderr by whether there is any.
func sameClass(a, b result) bool {
	return a.stdout == b.stdout && a.code == b.code && (a.stderr == "") == (b.stderr == "")
}

// splitArgs splits a command line on blanks, honouring '…' and "…"
// quotes (no escapes inside single quotes, \" and \\ inside double).
func splitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\' || s[i+1] == '$') {
					i++
				}
				cur.WriteByte(s[i])
			}
		case c == ' ' || c == '\t':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\' && i+1 < len(s):
			inWord = true
			i++
			cur.WriteByte(s[i])
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}
