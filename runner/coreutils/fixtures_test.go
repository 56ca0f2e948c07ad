package coreutils

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// fixture is one recorded bash result of the just-bash project.
type fixture struct {
	Command  string            `json:"command"`
	Files    map[string]string `json:"files"`
	Stdout   string            `json:"stdout"`
	ExitCode int               `json:"exitCode"`
}

// shellBuiltins are what the test shell answers itself (as the runner's
// interpreter will); with this package's commands and a plain sort they
// make the scripts the harness can run.
var shellBuiltins = map[string]bool{
	"echo": true, "printf": true, "test": true, "[": true, "cd": true, "exit": true, ":": true, "export": true,
	"true": true, "false": true, "pwd": true, "set": true, "read": true, "return": true, "shift": true,
}

// classify says how a fixture can run: "direct" (one call of a command of
// this package with literal words), "shell" (a script of those commands,
// shell builtins and a plain sort) or "" (out of scope: other commands or
// constructs).
func classify(script string, cmds map[string]command.Func) (string, []string) {
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
	if err != nil {
		return "", nil
	}
	inScope, mine := true, false
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ProcSubst, *syntax.CoprocClause:
			inScope = false
		case *syntax.Stmt:
			if n.Background || n.Coprocess {
				inScope = false
			}
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				return true
			}
			name := n.Args[0].Lit()
			switch {
			case name == "sort":
				if len(n.Args) > 1 {
					inScope = false
				}
			case cmds[name] != nil:
				mine = true
			case !shellBuiltins[name]:
				inScope = false
			}
		}
		return true
	})
	if !inScope || !mine {
		return "", nil
	}
	if len(f.Stmts) == 1 {
		st := f.Stmts[0]
		if call, ok := st.Cmd.(*syntax.CallExpr); ok && len(st.Redirs) == 0 && len(call.Assigns) == 0 {
			var args []string
			literal := true
			for _, w := range call.Args {
				for _, p := range w.Parts {
					switch p.(type) {
					case *syntax.Lit, *syntax.SglQuoted:
					case *syntax.DblQuoted:
						for _, q := range p.(*syntax.DblQuoted).Parts {
							if _, ok := q.(*syntax.Lit); !ok {
								literal = false
							}
						}
					default:
						literal = false
					}
				}
				if lit := w.Lit(); strings.ContainsAny(lit, "*?[") {
					literal = false // a glob the shell would expand
				}
				if !literal {
					break
				}
				s, err := expand.Literal(nil, w)
				if err != nil {
					literal = false
					break
				}
				args = append(args, s)
			}
			if literal && cmds[args[0]] != nil {
				return "direct", args
			}
		}
	}
	return "shell", nil
}

// interpLimits are scripts the test shell (mvdan.cc/sh) runs differently
// from bash for reasons outside this package: file descriptors above 2
// and PIPESTATUS. The runner's own tests own those.
var interpLimits = []string{">&9", ">&7", ">&5", "PIPESTATUS"}

func interpLimited(script string) bool {
	for _, l := range interpLimits {
		if strings.Contains(script, l) {
			return true
		}
	}
	return false
}

// testSort is sort without options for the test shell: lines in byte order.
func testSort(_ context.Context, env *command.Env) int {
	b, _ := io.ReadAll(env.Stdin)
	if len(b) == 0 {
		return 0
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n")+"\n", "\n")
	sort.Strings(lines)
	io.WriteString(env.Stdout, strings.Join(lines, ""))
	return 0
}

// runShell runs a script with mvdan's interpreter whose commands are this
// package's, in the sandbox's workspace. It stands in for the runner in
// tests only.
func runShell(ctx context.Context, s *commandtest.Sandbox, script string) (string, int, error) {
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
	if err != nil {
		return "", 0, err
	}
	var out, errb bytes.Buffer
	agentDir := func(host string) string {
		rel, err := filepath.Rel(s.Workspace, host)
		if err != nil || strings.HasPrefix(rel, "..") {
			return "/workspace"
		}
		return filepath.ToSlash(filepath.Join("/workspace", rel))
	}
	r, err := interp.New(
		interp.Dir(s.Workspace),
		interp.StdIO(strings.NewReader(""), &out, &errb),
		interp.Env(expand.ListEnviron("HOME=/workspace", "PATH=", "PPID=1")),
		interp.OpenHandler(func(ctx context.Context, p string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
			if rest, ok := strings.CutPrefix(p, "/tmp/"); ok {
				p = filepath.Join(s.Tmp, rest)
			}
			return interp.DefaultOpenHandler()(ctx, p, flag, perm)
		}),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc {
			return func(ctx context.Context, args []string) error {
				hc := interp.HandlerCtx(ctx)
				fn := s.Commands[args[0]]
				if fn == nil {
					fmt.Fprintf(hc.Stderr, "%s: command not found\n", args[0])
					return interp.ExitStatus(127)
				}
				if code := fn(ctx, s.Env(agentDir(hc.Dir), args, hc.Stdin, hc.Stdout, hc.Stderr)); code != 0 {
					return interp.ExitStatus(uint8(code))
				}
				return nil
			}
		}),
	)
	if err != nil {
		return "", 0, err
	}
	err = r.Run(ctx, f)
	code := 0
	if err != nil {
		var status interp.ExitStatus
		if !errors.As(err, &status) {
			return out.String(), 0, err
		}
		code = int(status)
	}
	return out.String(), code, nil
}

func TestJustBashFixtures(t *testing.T) {
	dir := commandtest.FixturesDir(t)
	if dir == "" {
		t.Skip("../shared/conformance/just-bash-fixtures is missing")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Skipf("no fixtures in %s", dir)
	}
	cmds := commandMap()
	for _, n := range []string{"echo", "printf", "test", "["} {
		delete(cmds, n) // the shell's builtins answer these
	}
	counts := map[string][2]int{}
	outOfScope, limited := 0, 0
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var set map[string]fixture
		if err := json.Unmarshal(b, &set); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		keys := make([]string, 0, len(set))
		for k := range set {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fx := set[k]
			kind, args := classify(fx.Command, cmds)
			if kind == "" {
				outOfScope++
				continue
			}
			if kind == "shell" && interpLimited(fx.Command) {
				limited++
				continue
			}
			name := strings.TrimSuffix(filepath.Base(file), ".comparison.fixtures.json") + "/" + fx.Command
			ok := t.Run(name, func(t *testing.T) {
				s := commandtest.New(t)
				s.Commands = commandMap()
				s.Commands["sort"] = testSort
				s.WriteFiles(t, fx.Files)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				var stdout string
				var code int
				if kind == "direct" {
					r := s.Run(ctx, s.Commands[args[0]], "", args...)
					stdout, code = r.Stdout, r.Code
				} else {
					var err error
					stdout, code, err = runShell(ctx, s, fx.Command)
					if err != nil {
						t.Fatalf("shell: %v", err)
					}
				}
				if stdout != fx.Stdout || code != fx.ExitCode {
					t.Errorf("%s\n got: %q (exit %d)\nwant: %q (exit %d)", fx.Command, stdout, code, fx.Stdout, fx.ExitCode)
				}
			})
			c := counts[kind]
			c[1]++
			if ok {
				c[0]++
			}
			counts[kind] = c
		}
	}
	t.Logf("just-bash fixtures: direct %d/%d pass, through the test shell %d/%d pass, %d left to the runner (interpreter features), %d out of scope (other commands or constructs)",
		counts["direct"][0], counts["direct"][1], counts["shell"][0], counts["shell"][1], limited, outOfScope)
}
