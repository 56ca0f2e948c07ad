package jsexec

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

func jsRun(t *testing.T, sb *commandtest.Sandbox, cfg Config, args ...string) commandtest.Result {
	t.Helper()
	return sb.Run(context.Background(), Spec(cfg).Func, "", append([]string{"js-exec"}, args...)...)
}

func TestFS(t *testing.T) {
	sb := commandtest.New(t)
	sb.WriteFiles(t, map[string]string{"data/in.json": `{"n": 41}`, "old.txt": "old"})
	script := `
const fs = require('fs'), path = require('node:path');
const d = JSON.parse(fs.readFileSync('data/in.json', 'utf8'));
fs.mkdirSync('out/deep/er', { recursive: true });
fs.writeFileSync(path.join('out', 'deep', 'r.json'), JSON.stringify({ n: d.n + 1 }));
fs.appendFileSync('out/log.txt', 'a');
fs.appendFileSync('out/log.txt', new Uint8Array([98, 10]));
console.log(fs.readFileSync('out/log.txt').toString().trim(), fs.readFileSync('out/log.txt').length);
console.log(fs.existsSync('out/deep'), fs.existsSync('nope'), fs.statSync('out').isDirectory(), fs.statSync('old.txt').size);
console.log(fs.readdirSync('out').join(','));
fs.renameSync('old.txt', 'new.txt');
fs.unlinkSync('new.txt');
try { fs.readFileSync('missing.txt') } catch (e) { console.log(e.code, e.message) }
try { fs.mkdirSync('out') } catch (e) { console.log(e.code) }
fs.rmSync('out/deep', { recursive: true });
fs.rmSync('nothing', { force: true });
console.log(fs.readdirSync('.').join(','));
`
	r := jsRun(t, sb, Config{}, "-c", script)
	want := "ab 3\ntrue false true 3\ndeep,log.txt\nENOENT ENOENT: no such file or directory, open 'missing.txt'\nEEXIST\ndata,out\n"
	if r.Stdout != want || r.Code != 0 {
		t.Fatalf("got out %q err %q code %d, want %q", r.Stdout, r.Stderr, r.Code, want)
	}
	b, err := os.ReadFile(filepath.Join(sb.Workspace, "out", "log.txt"))
	if err != nil || string(b) != "ab\n" {
		t.Fatalf("out/log.txt = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(sb.Workspace, "out", "deep")); !os.IsNotExist(err) {
		t.Fatalf("out/deep still there: %v", err)
	}
}

func TestPath(t *testing.T) {
	sb := commandtest.New(t)
	r := jsRun(t, sb, Config{}, "-c", `const p = require('path');
console.log([p.join('a', '../b', 'c/'), p.resolve('x', '../y'), p.resolve('/r', 's'), p.dirname('/a/b/c.txt'), p.dirname('c'),
  p.basename('/a/b/c.txt'), p.basename('/a/b/c.txt', '.txt'), p.extname('x.tar.gz'), p.extname('.bashrc'),
  p.relative('/a/b/c', '/a/d'), p.join()].join('|'))`)
	want := "b/c/|/workspace/y|/r/s|/a/b|.|c.txt|c|.gz||../../d|.\n"
	if r.Stdout != want {
		t.Fatalf("got %q (err %q), want %q", r.Stdout, r.Stderr, want)
	}
}

// TestConfinement: the engine reads and writes no host file, even through
// a workspace symlink, and QuickJS's own std/os/bjson modules (file and
// timer calls on the engine's WASI root) cannot be reached at all.
func TestConfinement(t *testing.T) {
	sb := commandtest.New(t)
	if err := os.Symlink("/etc/passwd", filepath.Join(sb.Workspace, "pw")); err != nil {
		t.Fatal(err)
	}
	r := jsRun(t, sb, Config{}, "-c", `const fs = require('fs');
for (const p of ['pw', '/etc/passwd', '../../../etc/passwd', '/proc/self/environ', '/workspace/../etc/hostname']) {
  try { console.log(fs.readFileSync(p, 'utf8')) } catch (e) { console.log('read', p, e.code) }
}
for (const p of ['/etc/x', '/x', '/workspace/../y']) {
  try { fs.writeFileSync(p, 'x'); console.log('wrote', p) } catch (e) { console.log('write', p, e.code) }
}
fs.writeFileSync('/tmp/t.txt', 'scratch');
console.log(fs.readdirSync('/').sort().join(','), fs.realpathSync('/tmp/t.txt'));
const tries = {
  std: () => import('qjs:std'), os: () => import('qjs:os'), bjson: () => import('qjs:bjson'),
  eval: () => (0, eval)("import('qjs:os')"), fn: () => new Function("return import('qjs:std')")(),
  file: () => import('/etc/passwd'), rel: () => import('./pw'),
};
for (const [k, f] of Object.entries(tries)) {
  try { const m = await f(); console.log(k, 'loaded', Object.keys(m).join(',')) } catch (e) { console.log(k, 'refused') }
}
console.log(typeof std, typeof os, typeof bjson, typeof globalThis.__wsfs_read, typeof Worker);
`)
	want := `read pw ENOENT
read /etc/passwd ENOENT
read ../../../etc/passwd ENOENT
read /proc/self/environ ENOENT
read /workspace/../etc/hostname ENOENT
write /etc/x ENOENT
write /x EACCES
write /workspace/../y EACCES
dev,tmp,workspace /tmp/t.txt
std refused
os refused
bjson refused
eval refused
fn refused
file refused
rel refused
undefined undefined undefined undefined undefined
`
	if r.Stdout != want || r.Code != 0 {
		t.Errorf("got out\n%s\nerr %q code %d\nwant\n%s", r.Stdout, r.Stderr, r.Code, want)
	}
	if b, err := os.ReadFile(filepath.Join(sb.Tmp, "t.txt")); err != nil || string(b) != "scratch" {
		t.Errorf("/tmp/t.txt: %q %v", b, err)
	}
}

func TestLimits(t *testing.T) {
	sb := commandtest.New(t)
	r := jsRun(t, sb, Config{Timeout: 300 * time.Millisecond}, "-c", "for (;;) {}")
	if r.Code == 0 || r.Stderr != "js-exec: time limit 300ms reached\n" {
		t.Errorf("busy loop: code %d err %q", r.Code, r.Stderr)
	}
	// Only the memory limit may end these, however busy the machine.
	r = jsRun(t, sb, Config{MemoryLimit: 8 << 20, Timeout: time.Minute}, "-c", "let s = 'x'; for (;;) s = s + s")
	if r.Code == 0 || r.Stderr != "js-exec: memory limit 8 MiB reached\n" {
		t.Errorf("allocation loop: code %d err %q", r.Code, r.Stderr)
	}
	// ArrayBuffer contents count too: the limit bounds the engine's whole
	// memory.
	r = jsRun(t, sb, Config{MemoryLimit: 8 << 20, Timeout: time.Minute}, "-c", "const a = []; for (;;) a.push(new Uint8Array(1 << 20))")
	if r.Code == 0 || r.Stderr != "js-exec: memory limit 8 MiB reached\n" {
		t.Errorf("typed array loop: code %d err %q", r.Code, r.Stderr)
	}
	// A run after both stops works again.
	r = jsRun(t, sb, Config{}, "-c", "console.log('ok')")
	if r.Stdout != "ok\n" {
		t.Errorf("run after limits: %+v", r)
	}
}

func TestTypeScript(t *testing.T) {
	sb := commandtest.New(t)
	sb.WriteFiles(t, map[string]string{
		"in.json":        `{"items": [1, 2, 3]}`,
		"lib/sum.ts":     "export function sum(xs: number[]): number { return xs.reduce((a, b) => a + b, 0) }\n",
		"lib/names.js":   "module.exports = { label: require('./label.json').label }\n",
		"lib/label.json": `{"label": "total"}`,
		"report.ts": `import * as fs from 'node:fs';
import { sum } from './lib/sum.ts';
const { label } = require('./lib/names');
interface Report { total: number; count: number }
enum Kind { A = 'a' }
const d: { items: number[] } = JSON.parse(fs.readFileSync('in.json', 'utf8'));
const r: Report = { total: sum(d.items), count: d.items.length };
fs.writeFileSync('report.json', JSON.stringify(r));
console.log(Kind.A, label, r.total as number);
`,
		"bad.ts": "let x: = 1;\n",
	})
	r := jsRun(t, sb, Config{}, "report.ts")
	if r.Stdout != "a total 6\n" || r.Code != 0 {
		t.Fatalf("report.ts: %+v", r)
	}
	b, err := os.ReadFile(filepath.Join(sb.Workspace, "report.json"))
	if err != nil || string(b) != `{"total":6,"count":3}` {
		t.Fatalf("report.json = %q, %v", b, err)
	}
	r = jsRun(t, sb, Config{}, "bad.ts")
	if r.Code != 1 || !strings.Contains(r.Stderr, "bad.ts") {
		t.Fatalf("bad.ts: %+v", r)
	}
}
