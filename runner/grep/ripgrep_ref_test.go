package grep

import (
	"bytes"
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// ripgrepReference returns the ripgrep binary named by RG_REFERENCE, or
// skips: ripgrep is not one of the project's reference tools, so this
// comparison is opt-in (RG_REFERENCE=/usr/bin/rg after apt-get install
// ripgrep).
func ripgrepReference(t *testing.T) string {
	t.Helper()
	p := os.Getenv("RG_REFERENCE")
	if p == "" {
		t.Skip("RG_REFERENCE not set: no ripgrep to compare with")
	}
	return p
}

func runRipgrep(t *testing.T, rg, dir, stdin string, args []string) result {
	t.Helper()
	cmd := exec.Command(rg, args[1:]...)
	cmd.Dir = dir
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin) // a pipe: ripgrep searches it
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %s: %v", rg, err)
	}
	return result{out.String(), errb.String(), code}
}

// TestRgAgainstRipgrep checks rgCases and random flag sets against a real
// ripgrep (writing to a pipe). Output order is compared sorted: ripgrep
// searches in parallel.
func TestRgAgainstRipgrep(t *testing.T) {
	rg := ripgrepReference(t)
	sb := commandtest.New(t)
	sb.WriteFiles(t, rgFiles)
	var cmds []string
	for _, c := range rgCases {
		if !strings.Contains(c.cmd, "-U") && c.stdin == "" {
			cmds = append(cmds, c.cmd)
		}
	}
	rnd := rand.New(rand.NewSource(3))
	flags := []string{"-n", "-c", "-l", "-o", "-v", "-w", "-x", "-i", "-S", "-F", "-H", "-I", "-N", "--hidden",
		"--no-ignore", "-A1", "-B1", "-C1", "-m1", "--column", "--vimgrep", "-b", "-t go", "-T md", "-g *.txt",
		"-g !src", "--count-matches", "-u", "-e foo", "--max-depth 1", "-q"}
	pats := []string{"hello", "o", "^f", "e$", "H", "[a-z]+", "foo|two", `\bhello\b`, "l+", "x", "Foo", "."}
	paths := []string{"", "", "a.txt", "ctx.txt words.txt", "src", ".", "docs a.txt"}
	for i := 0; i < 300; i++ {
		cmd := "rg"
		for k := rnd.Intn(3); k >= 0; k-- {
			cmd += " " + flags[rnd.Intn(len(flags))]
		}
		cmds = append(cmds, cmd+" '"+pats[rnd.Intn(len(pats))]+"' "+paths[rnd.Intn(len(paths))])
	}
	pass := 0
	for _, c := range cmds {
		args := splitArgs(c)
		want := runRipgrep(t, rg, sb.Workspace, "", args)
		got := runOurs(sb, Rg, "", args)
		if sortedLines(got.stdout) == sortedLines(want.stdout) && got.code == want.code {
			pass++
			continue
		}
		t.Errorf("%s\nripgrep: code %d stdout %q stderr %q\nours:    code %d stdout %q stderr %q",
			c, want.code, want.stdout, want.stderr, got.code, got.stdout, got.stderr)
	}
	t.Logf("rg: %d/%d same as ripgrep", pass, len(cmds))
}
