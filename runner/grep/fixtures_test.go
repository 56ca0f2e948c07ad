package grep

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

type bashCase struct {
	Command  string            `json:"command"`
	Files    map[string]string `json:"files"`
	Stdout   string            `json:"stdout"`
	ExitCode int               `json:"exitCode"`
}

// plainCase is a fixture command reduced to one grep/rg call: its stdin
// (from a leading printf or echo) and how the shell around it changes
// stdout and status.
type plainCase struct {
	stdin      string
	args       []string
	sortOut    bool
	statusEcho bool   // "; echo status=$?"
	orEcho     string // "|| echo X"
	andEcho    string // "&& echo X"
	orTrue     bool
	ifYesNo    bool // if CMD >/dev/null; then echo yes; else echo no; fi
	quietOut   bool // >/dev/null
}

var (
	rePrintfPipe = regexp.MustCompile(`^printf '([^']*)' \| (.*)$`)
	reEchoPipe   = regexp.MustCompile(`^echo "([^"]*)" \| (.*)$`)
	reIfYesNo    = regexp.MustCompile(`^if (.*) >/dev/null; then echo yes; else echo no; fi$`)
	reOrEcho     = regexp.MustCompile(`^(.*) \|\| echo "([^"]*)"$`)
	reAndEcho    = regexp.MustCompile(`^(.*) && echo (\w+)$`)
	reShellVar   = regexp.MustCompile(`\$[A-Za-z_{(?@*#0-9]`)
)

// reduce turns a fixture command into a plainCase, or ok false when it
// needs a real shell (out of scope until the runner exists).
func reduce(cmd string) (plainCase, bool) {
	var pc plainCase
	if m := reIfYesNo.FindStringSubmatch(cmd); m != nil {
		pc.ifYesNo = true
		cmd = m[1]
	}
	if m := rePrintfPipe.FindStringSubmatch(cmd); m != nil {
		if strings.Contains(m[1], "%") {
			return pc, false
		}
		pc.stdin = unescapePrintf(m[1])
		cmd = m[2]
	} else if m := reEchoPipe.FindStringSubmatch(cmd); m != nil {
		pc.stdin = m[1] + "\n"
		cmd = m[2]
	}
	switch {
	case strings.HasSuffix(cmd, "; echo status=$?"):
		pc.statusEcho = true
		cmd = strings.TrimSuffix(cmd, "; echo status=$?")
	case strings.HasSuffix(cmd, " || true"):
		pc.orTrue = true
		cmd = strings.TrimSuffix(cmd, " || true")
	case strings.HasSuffix(cmd, " | sort"):
		pc.sortOut = true
		cmd = strings.TrimSuffix(cmd, " | sort")
	}
	if m := reOrEcho.FindStringSubmatch(cmd); m != nil {
		pc.orEcho, cmd = m[2], m[1]
	} else if m := reAndEcho.FindStringSubmatch(cmd); m != nil {
		pc.andEcho, cmd = m[2], m[1]
	}
	cmd = strings.TrimSuffix(cmd, " 2>/dev/null")
	if strings.HasSuffix(cmd, " >/dev/null") {
		pc.quietOut = true
		cmd = strings.TrimSuffix(cmd, " >/dev/null")
	}
	if strings.ContainsAny(cmd, "|;&<>`()") || reShellVar.MatchString(cmd) {
		return pc, false
	}
	pc.args = splitArgs(cmd)
	if len(pc.args) == 0 || (pc.args[0] != "grep" && pc.args[0] != "egrep" && pc.args[0] != "fgrep" && pc.args[0] != "rg") {
		return pc, false
	}
	return pc, true
}

func unescapePrintf(s string) string {
	r := strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`)
	return r.Replace(s)
}

// shellResult applies the shell around the call to its result.
func (pc plainCase) shellResult(r result) (string, int) {
	out, code := r.stdout, r.code
	if pc.quietOut {
		out = ""
	}
	if pc.sortOut {
		lines := strings.SplitAfter(out, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		sort.Strings(lines)
		out, code = strings.Join(lines, ""), 0
	}
	switch {
	case pc.statusEcho:
		out += "status=" + strconv.Itoa(code) + "\n"
		code = 0
	case pc.orTrue:
		code = 0
	case pc.orEcho != "":
		if code != 0 {
			out += pc.orEcho + "\n"
			code = 0
		}
	case pc.andEcho != "":
		if code == 0 {
			out += pc.andEcho + "\n"
		}
	case pc.ifYesNo:
		if code == 0 {
			out = "yes\n"
		} else {
			out = "no\n"
		}
		code = 0
	}
	return out, code
}

func TestJustBashFixtures(t *testing.T) {
	dir := commandtest.FixturesDir(t)
	if dir == "" {
		t.Skip("../shared/conformance/just-bash-fixtures not found")
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	total, run, pass := 0, 0, 0
	for _, name := range names {
		base := filepath.Base(name)
		if !strings.Contains(base, "grep") && !strings.HasPrefix(base, "rg") {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var cases map[string]bashCase
		if err := json.Unmarshal(data, &cases); err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		keys := make([]string, 0, len(cases))
		for k := range cases {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			c := cases[k]
			total++
			pc, ok := reduce(c.Command)
			if !ok {
				t.Logf("out of scope (needs the shell): %s", c.Command)
				continue
			}
			run++
			sb := commandtest.New(t)
			sb.WriteFiles(t, c.Files)
			fn := Grep
			if pc.args[0] == "rg" {
				fn = Rg
			}
			out, code := pc.shellResult(runOurs(sb, fn, pc.stdin, pc.args))
			if out == c.Stdout && code == c.ExitCode {
				pass++
				continue
			}
			t.Errorf("%s: %s\nwant code %d stdout %q\ngot  code %d stdout %q", base, c.Command, c.ExitCode, c.Stdout, code, out)
		}
	}
	t.Logf("just-bash grep/rg fixtures: %d cases, %d run directly, %d pass, %d out of scope", total, run, pass, total-run)
}
