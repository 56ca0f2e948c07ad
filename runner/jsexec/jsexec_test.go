package jsexec

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

func TestBasics(t *testing.T) {
	sb := commandtest.New(t)
	sb.WriteFiles(t, map[string]string{"main.js": "console.log(process.argv.slice(2).join(','), process.cwd())\n"})
	cases := []struct {
		name, stdin string
		args        []string
		out, errSub string
		code        int
	}{
		{"-c", "", []string{"-c", "console.log(1+1, 'a', {x:[1,'s']})"}, "2 a { x: [ 1, 's' ] }\n", "", 0},
		{"-e", "", []string{"-e", "console.log(process.argv.length)", "x"}, "3\n", "", 0},
		{"-c without code", "", []string{"-c"}, "", "-c needs CODE", 2},
		{"stdin", "console.log('in')", nil, "in\n", "", 0},
		{"file args", "", []string{"main.js", "a", "b"}, "a,b /workspace\n", "", 0},
		{"stderr", "", []string{"-c", "console.error('oops %d', 3)"}, "", "oops 3\n", 0},
		{"exit", "", []string{"-c", "console.log('x'); process.exit(3); console.log('y')"}, "x\n", "", 3},
		{"exception", "", []string{"-c", "function f() { throw new Error('boom') }\nf()"}, "", "Uncaught Error: boom\n    at f ([eval]:1:", 1},
		{"std gone", "", []string{"-c", "console.log(typeof std, typeof os, typeof bjson, typeof scriptArgs)"}, "undefined undefined undefined undefined\n", "", 0},
		{"fetch throws", "", []string{"-c", "try { fetch('http://example.com') } catch (e) { console.log(e.message) }"}, "js-exec: no network access in the sandbox\n", "", 0},
		{"esm import", "", []string{"-c", "import { join } from 'node:path'; console.log(join('/a', 'b/../c'))"}, "/a/c\n", "", 0},
		{"syntax error", "", []string{"-c", "let x = ;"}, "", "SyntaxError", 1},
		{"top-level await", "", []string{"-c", "const v = await new Promise((r) => setTimeout(() => r(5), 10)); console.log(v)"}, "5\n", "", 0},
		{"async exception", "", []string{"-c", "async function m() { await null; throw new Error('later') }\nawait m()"}, "", "Uncaught Error: later\n    at m ([eval]:1:", 1},
		{"exitCode", "", []string{"-c", "process.exitCode = 5; console.log('done')"}, "done\n", "", 5},
		{"missing module", "", []string{"-c", "try { require('./nope') } catch (e) { console.log(e.code, e.message) }"}, "MODULE_NOT_FOUND Cannot find module '/workspace/nope'\n", "", 0},
		{"env", "", []string{"-c", "console.log(process.env.FOO)"}, "bar\n", "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runWithEnv(t, sb, c.stdin, []string{"FOO=bar"}, c.args...)
			if r.Stdout != c.out || r.Code != c.code || !strings.Contains(r.Stderr, c.errSub) {
				t.Errorf("got out %q err %q code %d; want out %q err containing %q code %d", r.Stdout, r.Stderr, r.Code, c.out, c.errSub, c.code)
			}
		})
	}
}

func runWithEnv(t *testing.T, sb *commandtest.Sandbox, stdin string, environ []string, args ...string) commandtest.Result {
	t.Helper()
	var out, errb strings.Builder
	env := sb.Env("/workspace", append([]string{"js-exec"}, args...), strings.NewReader(stdin), &out, &errb)
	env.Environ = environ
	code := Spec(Config{}).Func(context.Background(), env)
	return commandtest.Result{Stdout: out.String(), Stderr: errb.String(), Code: code}
}

// TestUnusableCache: a compilation cache that cannot be used (a confined
// worker may read the cache folder but not write it; here the folder is a
// file) costs a compile in memory, never js-exec itself.
func TestUnusableCache(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "not-a-folder")
	if err := os.WriteFile(bad, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sb := commandtest.New(t)
	// A memory cap of its own: a wasm no other test compiled in this process.
	r := sb.Run(context.Background(), Spec(Config{CacheDir: bad, MemoryLimit: 40 << 20}).Func, "", "js-exec", "-c", "console.log(6 * 7)")
	if r.Code != 0 || r.Stdout != "42\n" {
		t.Fatalf("exit %d stdout %q stderr %q", r.Code, r.Stdout, r.Stderr)
	}
}
