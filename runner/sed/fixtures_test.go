package sed

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

type fixture struct {
	Command  string            `json:"command"`
	Files    map[string]string `json:"files"`
	Stdout   string            `json:"stdout"`
	ExitCode int               `json:"exitCode"`
}

// TestJustBashFixtures runs the recorded sed cases whose command is a
// plain sed invocation, possibly fed by echo or printf; the others need
// the runner's shell and are counted as out of scope.
func TestJustBashFixtures(t *testing.T) {
	dir := commandtest.FixturesDir(t)
	if dir == "" {
		t.Skip("../shared/conformance/just-bash-fixtures not found")
	}
	names, err := filepath.Glob(filepath.Join(dir, "*sed*.json"))
	if err != nil || len(names) == 0 {
		t.Skip("no sed fixtures")
	}
	sort.Strings(names)
	pass, fail, skipped := 0, 0, 0
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var cases map[string]fixture
		if err := json.Unmarshal(data, &cases); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		keys := make([]string, 0, len(cases))
		for k := range cases {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			f := cases[k]
			args, stdin, ok := plainSed(f.Command)
			if !ok {
				skipped++
				t.Logf("out of scope (needs the shell): %q", f.Command)
				continue
			}
			r := runOurs(t, sedCase{args: args, stdin: stdin, files: f.Files})
			if r.stdout != f.Stdout || r.code != f.ExitCode {
				fail++
				t.Errorf("%s %s: %q: got %q (exit %d), want %q (exit %d); stderr %q",
					filepath.Base(name), k, f.Command, r.stdout, r.code, f.Stdout, f.ExitCode, r.stderr)
				continue
			}
			pass++
		}
	}
	t.Logf("just-bash sed fixtures: %d pass, %d fail, %d out of scope", pass, fail, skipped)
}

// plainSed recognises "sed ARGS", "echo [-e|-n] ARGS | sed ARGS" and
// "printf FORMAT | sed ARGS" and returns sed's arguments and input.
func plainSed(command string) ([]string, string, bool) {
	all, ok := shellWords(command)
	if !ok {
		return nil, "", false
	}
	var stages [][]string
	start := 0
	for i, w := range all {
		if w == pipeWord {
			stages = append(stages, all[start:i])
			start = i + 1
		}
	}
	stages = append(stages, all[start:])
	if len(stages) > 2 {
		return nil, "", false
	}
	words := stages[len(stages)-1]
	if len(words) == 0 || words[0] != "sed" {
		return nil, "", false
	}
	if len(stages) == 1 {
		return words[1:], "", true
	}
	feed := stages[0]
	if len(feed) == 0 {
		return nil, "", false
	}
	switch feed[0] {
	case "echo":
		args := feed[1:]
		escapes, newline := false, true
		for len(args) > 0 && (args[0] == "-e" || args[0] == "-n" || args[0] == "-en" || args[0] == "-ne") {
			escapes = escapes || strings.Contains(args[0], "e")
			newline = newline && !strings.Contains(args[0], "n")
			args = args[1:]
		}
		s := strings.Join(args, " ")
		if escapes {
			s = expandEchoEscapes(s)
		}
		if newline {
			s += "\n"
		}
		return words[1:], s, true
	case "printf":
		if len(feed) != 2 || strings.Contains(feed[1], "%") {
			return nil, "", false
		}
		return words[1:], expandEchoEscapes(feed[1]), true
	}
	return nil, "", false
}

func expandEchoEscapes(s string) string {
	r := strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`, `\a`, "\a", `\r`, "\r")
	return r.Replace(s)
}

// pipeWord stands for an unquoted | in shellWords' output.
const pipeWord = "\x00|"

// shellWords splits a simple command line with single and double quotes
// and backslashes; it fails on anything else the shell would interpret.
func shellWords(s string) ([]string, bool) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, false
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if strings.IndexByte("$`", s[i]) >= 0 {
					return nil, false
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, false
			}
			inWord = true
		case c == '|':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
			words = append(words, pipeWord)
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case strings.IndexByte("$`;&<>()*?[]{}~#!", c) >= 0:
			return nil, false
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, true
}
