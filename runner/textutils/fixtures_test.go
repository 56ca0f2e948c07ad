package textutils

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/command/commandtest"
	"github.com/wsfs/wsfs/runner/jq"
)

type fixture struct {
	Command  string            `json:"command"`
	Files    map[string]string `json:"files"`
	Stdout   string            `json:"stdout"`
	ExitCode int               `json:"exitCode"`
}

// shellBuiltins are run by the interpreter itself; they may appear in an
// in-scope fixture.
var shellBuiltins = map[string]bool{"echo": true, "printf": true, "true": true, "false": true, "exit": true, "test": true, "[": true}

// fixtureCommands lists the commands a fixture runs, or ok=false when it
// uses a construct the runner refuses or cannot be parsed.
func fixtureCommands(src string) ([]string, bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return nil, false
	}
	var names []string
	ok := true
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ProcSubst, *syntax.CoprocClause:
			ok = false
		case *syntax.Stmt:
			if n.Background {
				ok = false
			}
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				if lit := n.Args[0].Lit(); lit != "" {
					names = append(names, lit)
				} else {
					ok = false
				}
			}
		}
		return true
	})
	return names, ok
}

// runFixture runs a script under mvdan/sh with this package's commands
// (plus jq and a minimal cat) in place of host programs.
func runFixture(t *testing.T, script string, files map[string]string) (string, int) {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, files)
	fsys, err := command.NewRootFS(map[string]string{"/workspace": dir, "/tmp": t.TempDir()}, "/workspace")
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	table := commandTable()
	for _, s := range jq.Commands() {
		table[s.Name] = s.Func
	}
	var out bytes.Buffer
	var exec func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string, agentDir string) int
	exec = func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string, agentDir string) int {
		fn, ok := table[args[0]]
		if !ok {
			io.WriteString(stderr, args[0]+": command not found\n")
			return 127
		}
		env := &command.Env{Args: args, Stdin: stdin, Stdout: stdout, Stderr: stderr, Dir: agentDir,
			FS: fsys.WithDir(agentDir, stdin, stdout, stderr), Environ: environ}
		env.Getenv = func(name string) string {
			for _, kv := range environ {
				if k, v, ok := strings.Cut(kv, "="); ok && k == name {
					return v
				}
			}
			return ""
		}
		env.Exec = func(ctx context.Context, a []string, in io.Reader, o, e io.Writer) int {
			return exec(ctx, a, in, o, e, environ, agentDir)
		}
		return fn(ctx, env)
	}
	runner, err := interp.New(
		interp.Dir(dir),
		interp.Env(expand.ListEnviron("HOME=/workspace", "LANG=C.UTF-8")),
		interp.StdIO(strings.NewReader(""), &out, io.Discard),
		interp.ExecHandlers(func(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
			return func(ctx context.Context, args []string) error {
				hc := interp.HandlerCtx(ctx)
				rel, err := filepath.Rel(dir, hc.Dir)
				if err != nil || strings.HasPrefix(rel, "..") {
					rel = "."
				}
				var environ []string
				hc.Env.Each(func(name string, vr expand.Variable) bool {
					if vr.Exported {
						environ = append(environ, name+"="+vr.String())
					}
					return true
				})
				stdin := hc.Stdin
				if stdin == nil {
					stdin = strings.NewReader("")
				}
				code := exec(ctx, args, stdin, hc.Stdout, hc.Stderr, environ, filepath.ToSlash(filepath.Join("/workspace", rel)))
				if code != 0 {
					return interp.ExitStatus(uint8(code))
				}
				return nil
			}
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil {
		t.Fatal(err)
	}
	err = runner.Run(context.Background(), prog)
	code := 0
	var es interp.ExitStatus
	if errors.As(err, &es) {
		code = int(es)
	} else if err != nil {
		t.Logf("%s: %v", script, err)
		code = 1
	}
	return out.String(), code
}

// fixtureKnown lists recorded results that disagree with the reference
// tools on this machine (GNU coreutils 9.1, util-linux 2.38, jq 1.6) or
// with gojq; we follow the local tools.
var fixtureKnown = map[string]string{
	"2f59c89728536647": "util-linux 2.38 column -t pads short rows to the table width; the recording does not",
	"6e61839db2810b92": "GNU nl 9.1 prints width+1 spaces for an unnumbered line; the recording has spaces and a tab",
	"b9a885019f854664": "gojq prints object keys sorted",
	"c8f827cdc2badaa1": "gojq prints object keys sorted",
}

// TestJustBashFixtures runs the recorded bash cases whose commands are all
// ours (text tools, jq, cat) or shell builtins.
func TestJustBashFixtures(t *testing.T) {
	dir := commandtest.FixturesDir(t)
	if dir == "" {
		// Users' clones have no ../shared: a skip even under CI=true.
		t.Skip("just-bash fixtures missing (../shared/conformance/just-bash-fixtures)")
	}
	mine := commandTable()
	for _, s := range jq.Commands() {
		mine[s.Name] = s.Func
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(paths)
	total, inScope, pass, known := 0, 0, 0, 0
	perCommand := map[string][2]int{}
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
		for _, k := range keys {
			c := cases[k]
			total++
			names, ok := fixtureCommands(c.Command)
			if !ok || len(names) == 0 {
				continue
			}
			main := ""
			for _, n := range names {
				if _, isMine := mine[n]; isMine && n != "cat" && n != "echo" {
					main = n
				} else if !shellBuiltins[n] && n != "cat" {
					ok = false
				}
			}
			if !ok || main == "" {
				continue
			}
			inScope++
			if why, ok := fixtureKnown[k]; ok {
				known++
				t.Logf("%s [%s]: %q: known difference: %s", filepath.Base(p), k, c.Command, why)
				continue
			}
			stdout, code := runFixture(t, c.Command, c.Files)
			pc := perCommand[main]
			pc[1]++
			if stdout == c.Stdout && code == c.ExitCode {
				pass++
				pc[0]++
			} else {
				t.Errorf("%s [%s]: %q\n got %q exit %d\nwant %q exit %d", filepath.Base(p), k, c.Command, stdout, code, c.Stdout, c.ExitCode)
			}
			perCommand[main] = pc
		}
	}
	var summary []string
	for name, pc := range perCommand {
		summary = append(summary, name+" "+itoa(pc[0])+"/"+itoa(pc[1]))
	}
	sort.Strings(summary)
	t.Logf("just-bash fixtures: %d total, %d in scope (only our commands and builtins), %d pass, %d known differences; %s",
		total, inScope, pass, known, strings.Join(summary, ", "))
}

func itoa(n int) string { return strconv.Itoa(n) }
