package jsexec_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner"
)

// runScript runs a bash script through the runner (its command table, its
// confinement and limits), in a workspace holding files.
func runScript(t *testing.T, files map[string]string, lim runner.Limits, script string) (runner.Result, string) {
	t.Helper()
	ws := t.TempDir()
	for name, content := range files {
		p := filepath.Join(ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	res := runner.Run(context.Background(), runner.Config{Script: script, WorkspaceDir: ws, ScratchDir: t.TempDir(),
		Limits: lim, Stdout: &out, Stderr: &errb})
	return res, ws
}

// TestChildProcess: child_process runs the runner's own commands, in the
// same sandbox, never a host program.
func TestChildProcess(t *testing.T) {
	files := map[string]string{"a.txt": "b\na\n", "run.js": `
const cp = require('node:child_process');
console.log(JSON.stringify(cp.execSync('echo hi there').toString()), cp.execSync("printf '%s-' 'x y'", { encoding: 'utf8' }));
console.log(cp.execSync('sort', { input: 'z\ny\n' }).toString().trim().split('\n').join(','));
console.log(cp.execFileSync('cat', ['a.txt'], { encoding: 'utf8' }).trim().split('\n').join(','));
try { cp.execSync('cat nope.txt') } catch (e) { console.log('status', e.status, JSON.stringify(String(e.stderr)), e.message.split('\n')[0]) }
const r = cp.spawnSync('ls', ['nope'], { encoding: 'utf8' });
console.log('spawnSync', r.status, r.stdout === '', r.stderr.includes('nope'));
console.log(cp.execSync('echo b a | tr " " "\\n" | sort | paste -sd, -; echo "$((6 * 7))"', { encoding: 'utf8' }).trim().replace('\n', ' '));
const env = cp.execSync('printenv X', { env: { X: 'from-js' }, encoding: 'utf8' });
console.log('env', env.trim());
for (const c of ['./run.js', 'nosuchcmd', 'python3 -c 1']) {
  const s = cp.spawnSync(c.split(' ')[0], c.split(' ').slice(1), { encoding: 'utf8' });
  console.log(c, s.status, s.stdout === '', s.stderr.split(':')[0]);
}
cp.exec('echo async', (err, stdout, stderr) => console.log('exec', err, stdout.trim()));
const child = cp.spawn('wc', ['-l']);
child.stdout.on('data', (d) => console.log('spawn data', String(d).trim()));
child.on('close', (code) => console.log('spawn close', code));
child.stdin.write('1\n2\n');
child.stdin.end();
`}
	res, ws := runScript(t, files, runner.Limits{}, "js-exec run.js 2>err.txt")
	errText, _ := os.ReadFile(filepath.Join(ws, "err.txt"))
	want := `"hi there\n" x y-
y,z
b,a
status 1 "cat: nope.txt: No such file or directory\n" Command failed: cat nope.txt
spawnSync 2 true true
a,b 42
env from-js
./run.js 126 true bash
nosuchcmd 127 true nosuchcmd
python3 -c 1 127 true python3
exec null async
spawn data 2
spawn close 0
`
	if got := string(res.Stdout); got != want || res.ExitCode != 0 {
		t.Errorf("got status %d, out\n%s\nwant\n%s\nstderr: %s", res.ExitCode, got, want, errText)
	}
	// execSync shows the child's stderr, as Node does.
	if string(errText) != "cat: nope.txt: No such file or directory\n" {
		t.Errorf("stderr: %q", errText)
	}
}

// TestRunnerLimits: the runner's entry limit reaches a script as EDQUOT
// naming the limit, and what the script wrote before stays.
func TestRunnerLimits(t *testing.T) {
	res, ws := runScript(t, nil, runner.Limits{MaxVisibleEntries: 3}, `js-exec -c "
const fs = require('fs');
for (let i = 0; i < 5; i++) {
  try { fs.writeFileSync('f' + i, 'x') } catch (e) { console.log(i, e.code, e.message) }
}"`)
	want := "3 EDQUOT EDQUOT: disk quota exceeded, open 'f3' (the workspace's byte or entry quota, or the command's entry limit)\n" +
		"4 EDQUOT EDQUOT: disk quota exceeded, open 'f4' (the workspace's byte or entry quota, or the command's entry limit)\n"
	if string(res.Stdout) != want || !strings.Contains(string(res.Stderr), "entry limit 3 reached") {
		t.Errorf("got %+v\nwant out %q", res, want)
	}
	ents, _ := os.ReadDir(ws)
	if len(ents) != 3 {
		t.Errorf("workspace holds %d entries, want 3", len(ents))
	}
}
