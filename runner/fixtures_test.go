package runner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

type fixture struct {
	Command  string            `json:"command"`
	Files    map[string]string `json:"files"`
	Stdout   string            `json:"stdout"`
	ExitCode int               `json:"exitCode"`
}

// justBashFloor is the pass count the recorded cases may not drop below;
// raise it as the runner and its commands improve.
const justBashFloor = 771

// TestJustBashFixtures runs the 778 recorded bash cases through Run and
// compares stdout and exit code.
func TestJustBashFixtures(t *testing.T) {
	dir := commandtest.FixturesDir(t)
	if dir == "" {
		// Users' clones have no ../shared: a skip even under CI=true.
		t.Skip("just-bash fixtures missing (../shared/conformance/just-bash-fixtures)")
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(paths)
	table := DefaultCommands()
	total, pass := 0, 0
	refused := map[string]int{}
	failsByFile := map[string]int{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var cases map[string]fixture
		if err := json.Unmarshal(data, &cases); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		keys := make([]string, 0, len(cases))
		for k := range cases {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		base := strings.TrimSuffix(filepath.Base(p), ".comparison.fixtures.json")
		for _, k := range keys {
			c := cases[k]
			total++
			ws := t.TempDir()
			for name, content := range c.Files {
				fp := filepath.Join(ws, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(fp), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(fp, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res := Run(context.Background(), Config{Script: c.Command, WorkspaceDir: ws, ScratchDir: t.TempDir(),
				Commands: table, Limits: Limits{WallTime: 5 * time.Second}})
			if string(res.Stdout) == c.Stdout && res.ExitCode == c.ExitCode {
				pass++
				continue
			}
			failsByFile[base]++
			if testing.Verbose() {
				t.Logf("%s [%s]: %q\n got %q exit %d (stderr %.200q)\nwant %q exit %d", base, k, c.Command,
					res.Stdout, res.ExitCode, res.Stderr, c.Stdout, c.ExitCode)
			}
		}
	}
	nRefused := 0
	var reasons []string
	for why, n := range refused {
		nRefused += n
		reasons = append(reasons, why+" "+itoa(n))
	}
	sort.Strings(reasons)
	var fails []string
	for f, n := range failsByFile {
		fails = append(fails, f+" "+itoa(n))
	}
	sort.Strings(fails)
	t.Logf("just-bash fixtures: %d passed, %d failed, %d refused on purpose (%s) of %d; failures by file: %s",
		pass, total-pass-nRefused, nRefused, strings.Join(reasons, ", "), total, strings.Join(fails, ", "))
	if pass < justBashFloor {
		t.Errorf("just-bash fixtures: %d pass, below the floor of %d", pass, justBashFloor)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
