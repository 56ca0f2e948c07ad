package jsexec

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// nodeCase is a snippet, what js-exec must print for it and, unless
// notNode says why not, the proof that Node prints the same.
type nodeCase struct {
	name, code, want string
	notNode          string // why Node's output differs (fixed host values); empty means compare
}

var (
	nodeOnce sync.Once
	nodePath string
)

// nodeBin returns Node to compare with, or skips the comparison: Node is a
// reference tool (scripts/deps.sh installs it), so under CI=true its
// absence fails the test.
func nodeBin(t *testing.T) string {
	nodeOnce.Do(func() { nodePath, _ = exec.LookPath("node") })
	if nodePath == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is missing: run scripts/deps.sh")
		}
		t.Log("node is missing: comparison with Node skipped (scripts/deps.sh installs it)")
	}
	return nodePath
}

// runNode runs code as Node would from a file in dir: an ES module when it
// has import/export syntax, CommonJS otherwise.
func runNode(t *testing.T, node, dir, code string) string {
	t.Helper()
	name := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
	if moduleSyntax.MatchString(code) {
		name += ".mjs"
	} else {
		name += ".cjs"
	}
	if err := os.WriteFile(name, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(context.Background(), node, name)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TZ=UTC")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	return string(out)
}

// runNodeCases runs each case through js-exec, in parallel, and where Node
// can serve as reference compares with what Node prints.
func runNodeCases(t *testing.T, cases []nodeCase) {
	t.Helper()
	sb := commandtest.New(t)
	node := nodeBin(t)
	nodeDir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := sb.Run(context.Background(), Spec(Config{}).Func, "", "js-exec", "-c", c.code)
			if r.Stdout != c.want || r.Code != 0 {
				t.Errorf("js-exec printed\n%s\nwant\n%s\n(stderr %q, status %d)", r.Stdout, c.want, r.Stderr, r.Code)
			}
			if node == "" || c.notNode != "" {
				return
			}
			if got := runNode(t, node, nodeDir, c.code); got != c.want {
				t.Errorf("node printed\n%s\nwant (js-exec's)\n%s", got, c.want)
			}
		})
	}
}

// TestTimers covers the timers modules; the timers themselves are the
// prelude's.
func TestTimers(t *testing.T) {
	runNodeCases(t, []nodeCase{
		{name: "timers module", code: `
const timers = require('node:timers');
const { setTimeout: sleep } = require('timers/promises');
timers.setTimeout(() => console.log('module'), 1);
sleep(5, 'v').then((v) => console.log('promise', v));
console.log(global === globalThis, typeof setImmediate, typeof timers.promises.setImmediate);`,
			want: "true function function\nmodule\npromise v\n"},
	})
}
