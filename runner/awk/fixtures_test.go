package awk

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

func fixturesDir(t *testing.T) string {
	t.Helper()
	fx := commandtest.FixturesDir(t)
	if fx == "" {
		t.Skip("conformance fixtures not present (../shared/conformance/just-bash-fixtures)")
	}
	return fx
}

type fixture struct {
	Command  string            `json:"command"`
	Files    map[string]string `json:"files"`
	Stdout   string            `json:"stdout"`
	ExitCode int               `json:"exitCode"`
}

// shellWords splits a simple shell command line into pipeline stages of
// words, handling quotes; ok is false for anything beyond that.
func shellWords(s string) (stages [][]string, ok bool) {
	var words []string
	var b strings.Builder
	in := false
	flush := func() {
		if in {
			words = append(words, b.String())
			b.Reset()
			in = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '$' || s[i] == '`' {
					return nil, false
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				b.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, false
			}
			in = true
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
			in = true
		case c == '|':
			flush()
			stages = append(stages, words)
			words = nil
		case strings.IndexByte("&;<>()$`\n*?", c) >= 0:
			return nil, false
		default:
			b.WriteByte(c)
			in = true
		}
	}
	flush()
	stages = append(stages, words)
	return stages, true
}

// feederOutput runs `echo ...` or `printf FMT` (no arguments) as bash would.
func feederOutput(words []string) (string, bool) {
	switch words[0] {
	case "echo":
		if len(words) > 1 && strings.HasPrefix(words[1], "-") {
			return "", false
		}
		return strings.Join(words[1:], " ") + "\n", true
	case "printf":
		if len(words) != 2 || strings.Contains(words[1], "%") {
			return "", false
		}
		return processEscapes(words[1]), true
	}
	return "", false
}

func TestJustBashFixtures(t *testing.T) {
	dir := fixturesDir(t)
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(paths)
	passed, failed, outOfScope := 0, 0, 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var cases map[string]fixture
		if err := json.Unmarshal(data, &cases); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		ids := make([]string, 0, len(cases))
		for id := range cases {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			c := cases[id]
			if !strings.Contains(c.Command, "awk") {
				continue
			}
			stages, ok := shellWords(c.Command)
			if !ok || len(stages) > 2 || len(stages[len(stages)-1]) == 0 || stages[len(stages)-1][0] != "awk" {
				outOfScope++
				continue
			}
			stdin := ""
			if len(stages) == 2 {
				if stdin, ok = feederOutput(stages[0]); !ok {
					outOfScope++
					continue
				}
			}
			t.Run(filepath.Base(path)+"/"+id, func(t *testing.T) {
				s := commandtest.New(t)
				s.WriteFiles(t, c.Files)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				r := s.Run(ctx, Main, stdin, stages[len(stages)-1]...)
				if r.Stdout != c.Stdout || r.Code != c.ExitCode {
					failed++
					t.Errorf("%s\nstdout: %q (want %q)\nstatus: %d (want %d)\nstderr: %s", c.Command, r.Stdout, c.Stdout, r.Code, c.ExitCode, r.Stderr)
					return
				}
				passed++
			})
		}
	}
	t.Logf("just-bash awk fixtures: %d passed, %d failed, %d out of scope until the runner's shell exists", passed, failed, outOfScope)
}
