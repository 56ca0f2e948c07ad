package jsexec

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// hostCase is a script run by js-exec in a fresh workspace holding files,
// and, unless notNode says why not, by Node in a folder with the same
// files: both must print want.
type hostCase struct {
	name, code, want string
	files            map[string]string
	notNode          string
	needs            string // a module of node/ the case needs, skipped while absent
	stdin            string
}

func runHostCases(t *testing.T, cases []hostCase) {
	t.Helper()
	node, _ := exec.LookPath("node")
	if node == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is missing: run scripts/deps.sh")
		}
		t.Log("node is missing: comparison with Node skipped")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if _, err := nodeModules.Open("node/" + c.needs + ".js"); c.needs != "" && err != nil {
				t.Skipf("node/%s.js is not there yet", c.needs)
			}
			sb := commandtest.New(t)
			sb.WriteFiles(t, c.files)
			// Parallel cases on a busy machine must not meet the 5 s default.
			r := sb.Run(context.Background(), Spec(Config{Timeout: time.Minute}).Func, c.stdin, "js-exec", "-c", c.code)
			if r.Stdout != c.want || r.Code != 0 {
				t.Errorf("js-exec printed\n%s\nwant\n%s\n(stderr %q, status %d)", r.Stdout, c.want, r.Stderr, r.Code)
			}
			if node == "" || c.notNode != "" {
				return
			}
			dir := t.TempDir()
			for name, content := range c.files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ext := ".cjs"
			if moduleSyntax.MatchString(c.code) {
				ext = ".mjs"
			}
			script := filepath.Join(t.TempDir(), "case"+ext)
			if err := os.WriteFile(script, []byte(c.code), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(node, script)
			cmd.Dir = dir
			cmd.Stdin = strings.NewReader(c.stdin)
			out, err := cmd.CombinedOutput()
			if err != nil || string(out) != c.want {
				t.Errorf("node printed (%v)\n%s\nwant (js-exec's)\n%s", err, out, c.want)
			}
		})
	}
}

func TestFSAPI(t *testing.T) {
	files := map[string]string{"a.txt": "héllo\n", "d/x.txt": "x", "d/sub/y.txt": "yy"}
	runHostCases(t, []hostCase{
		{name: "read and write", files: files, code: `
const fs = require('node:fs');
console.log(fs.readFileSync('a.txt', 'utf8').trim(), fs.readFileSync('a.txt', { encoding: 'utf-8' }).length);
const b = fs.readFileSync('a.txt');
console.log(b.length, b[1], b instanceof Uint8Array, b.toString().trim());
fs.writeFileSync('w.txt', 'one');
fs.appendFileSync('w.txt', new Uint8Array([0x32]));
fs.writeFileSync('w.txt', '3', { flag: 'a' });
console.log(fs.readFileSync('w.txt', 'utf8'));
try { fs.writeFileSync('w.txt', 'x', { flag: 'wx' }) } catch (e) { console.log(e.code, e.errno, e.syscall, e.path, e.message) }
try { fs.writeFileSync('d', 'x') } catch (e) { console.log(e.code, e.message) }
try { fs.readFileSync('d') } catch (e) { console.log(e.code, e.syscall) }
try { fs.readFileSync('nope/x') } catch (e) { console.log(e.code, e.errno, e.message) }
`, want: "héllo 6\n7 195 true héllo\none23\nEEXIST -17 open w.txt EEXIST: file already exists, open 'w.txt'\n" +
			"EISDIR EISDIR: illegal operation on a directory, open 'd'\nEISDIR read\nENOENT -2 ENOENT: no such file or directory, open 'nope/x'\n"},
		{name: "stat and readdir", files: files, code: `
const fs = require('fs');
const s = fs.statSync('a.txt'), d = fs.statSync('d');
console.log(s.isFile(), s.isDirectory(), s.size, s.mode & 0o777, (s.mode & fs.constants.S_IFMT) === fs.constants.S_IFREG, s.mtime instanceof Date, typeof s.mtimeMs);
console.log(d.isDirectory(), d.isFile(), fs.statSync('nope', { throwIfNoEntry: false }));
fs.symlinkSync('a.txt', 'link');
console.log(fs.lstatSync('link').isSymbolicLink(), fs.statSync('link').isSymbolicLink(), fs.readlinkSync('link'), fs.realpathSync('link') === fs.realpathSync('a.txt'));
console.log(fs.readdirSync('d').join(','), fs.readdirSync('d', { withFileTypes: true }).map((e) => e.name + ':' + e.isDirectory()).join(','));
console.log(fs.readdirSync('d', { recursive: true }).sort().join(','));
try { fs.readdirSync('a.txt') } catch (e) { console.log(e.code, e.message) }
const dd = fs.opendirSync('d'), names = [];
for (let e; (e = dd.readSync());) names.push(e.name + ':' + e.isFile());
dd.closeSync();
console.log(names.sort().join(','));
(async () => {
  const seen = [];
  for await (const e of await fs.promises.opendir('d/sub')) seen.push(e.name);
  console.log(seen.join(','));
})();
`, want: "true false 7 420 true true number\ntrue false undefined\ntrue false a.txt true\nsub,x.txt sub:true,x.txt:false\nsub,sub/y.txt,x.txt\nENOTDIR ENOTDIR: not a directory, scandir 'a.txt'\n" +
			"sub:false,x.txt:true\ny.txt\n"},
		{name: "mkdir rm rename copy", files: files, code: `
const fs = require('fs');
console.log(fs.mkdirSync('m/n/o', { recursive: true }), fs.mkdirSync('m/n', { recursive: true }), fs.mkdirSync('./q/r', { recursive: true }));
try { fs.mkdirSync('m') } catch (e) { console.log(e.code, e.message) }
try { fs.rmdirSync('d') } catch (e) { console.log(e.code, e.message) }
try { fs.rmdirSync('a.txt') } catch (e) { console.log(e.code) }
try { fs.rmSync('d') } catch (e) { console.log(e.code) }
try { fs.unlinkSync('d') } catch (e) { console.log(e.code, e.message) }
fs.rmSync('nope', { force: true });
try { fs.rmSync('nope') } catch (e) { console.log(e.code, e.syscall) }
fs.rmSync('d', { recursive: true });
fs.renameSync('a.txt', 'm/b.txt');
try { fs.renameSync('zz', 'yy') } catch (e) { console.log(e.message) }
fs.copyFileSync('m/b.txt', 'c.txt');
try { fs.copyFileSync('m/b.txt', 'c.txt', fs.constants.COPYFILE_EXCL) } catch (e) { console.log(e.code) }
fs.cpSync('m', 'm2', { recursive: true });
console.log(fs.existsSync('d'), fs.existsSync('m/b.txt'), fs.readFileSync('c.txt', 'utf8').trim(), fs.readdirSync('m2').sort().join(','));
fs.truncateSync('c.txt', 2);
console.log(JSON.stringify(fs.readFileSync('c.txt', 'latin1')), fs.statSync('c.txt').size);
try { fs.accessSync('nope') } catch (e) { console.log(e.code, e.syscall) }
fs.accessSync('c.txt', fs.constants.R_OK);
fs.unlinkSync('c.txt');
console.log(fs.readdirSync('.').sort().join(','));
`, want: "m undefined ./q\nEEXIST EEXIST: file already exists, mkdir 'm'\nENOTEMPTY ENOTEMPTY: directory not empty, rmdir 'd'\nENOTDIR\nERR_FS_EISDIR\n" +
			"EISDIR EISDIR: illegal operation on a directory, unlink 'd'\nENOENT lstat\nENOENT: no such file or directory, rename 'zz' -> 'yy'\nEEXIST\n" +
			"false true héllo b.txt,n\n\"hÃ\" 2\nENOENT access\nm,m2,q\n"},
		{name: "callbacks and promises", files: files, code: `
const fs = require('fs'), fsp = require('node:fs/promises');
fs.readFile('a.txt', 'utf8', (err, s) => {
  console.log('cb', err, s.trim());
  fs.stat('nope', async (err) => {
    console.log('cb err', err.code);
    await fsp.writeFile('p.txt', 'P');
    console.log('promise', await fs.promises.readFile('p.txt', 'utf8'), (await fsp.readdir('d')).length, fsp === fs.promises);
    try { await fsp.readFile('nope') } catch (e) { console.log('rejected', e.code, e.syscall) }
    fs.exists('p.txt', (ok) => console.log('exists', ok));
  });
});
`, want: "cb null héllo\ncb err ENOENT\npromise P 2 true\nrejected ENOENT open\nexists true\n"},
		{name: "file descriptors", files: files, code: `
const fs = require('fs');
const fd = fs.openSync('log.txt', 'w');
fs.writeSync(fd, 'ab');
fs.writeSync(fd, Buffer.from('cd'));
fs.closeSync(fd);
const r = fs.openSync('log.txt', 'r'), buf = Buffer.alloc(3);
console.log(fs.readSync(r, buf, 0, 3, null), buf.toString(), fs.readSync(r, buf, 0, 3, null), buf.toString('utf8', 0, 1));
fs.closeSync(r);
fs.writeSync(1, 'to stdout\n');
`, want: "3 abc 1 d\nto stdout\n"},
		{name: "streams", files: files, code: `
const fs = require('fs');
const w = fs.createWriteStream('s.txt');
w.write('one ');
w.end('two', () => {
  let got = '';
  fs.createReadStream('s.txt', 'utf8').on('data', (c) => { got += c }).on('end', () => console.log(got));
});
`, want: "one two\n", needs: "stream"},
	})
}

func TestProcessAPI(t *testing.T) {
	runHostCases(t, []hostCase{
		{name: "basics", code: `
console.log(process.platform, typeof process.version, process.argv.length >= 2, typeof process.env, process.cwd().startsWith('/'));
const t = process.hrtime(), b = process.hrtime.bigint();
console.log(Array.isArray(t), t.length, typeof b, process.hrtime(t)[0] >= 0, typeof process.uptime());
process.stdout.write('out ');
process.stdout.write('line\n');
process.nextTick((a) => console.log('tick', a), 1);
process.on('exit', (code) => console.log('exit', code));
process.exitCode = 0;
`, want: "linux string true object true\ntrue 2 bigint true number\nout line\ntick 1\nexit 0\n"},
		{name: "timers", code: `
const order = [];
const never = setTimeout(() => order.push('never'), 1);
clearTimeout(never);
queueMicrotask(() => order.push('micro'));
setTimeout((a, b) => order.push('args:' + a + b), 1, 'x', 'y');
setImmediate(() => order.push('immediate'));
let n = 0;
const iv = setInterval(() => {
  if (++n === 3) { clearInterval(iv); setTimeout(() => console.log(order.sort().join(','), n), 5); }
}, 2);
`, want: "args:xy,immediate,micro 3\n"},
		{name: "stdin", stdin: "b\na\r\nc", code: `
let all = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => { all += d }).on('end', () => console.log(JSON.stringify(all)));
`, want: "\"b\\na\\r\\nc\"\n"},
		{name: "readline", stdin: "one\ntwo\r\n\nlast", code: `
const readline = require('node:readline');
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
const lines = [];
rl.on('line', (l) => lines.push(l)).on('close', () => console.log(JSON.stringify(lines)));
`, want: "[\"one\",\"two\",\"\",\"last\"]\n"},
		{name: "readline iterator", stdin: "3\n4\n", code: `
import { createInterface } from 'node:readline';
let sum = 0;
for await (const l of createInterface({ input: process.stdin })) sum += Number(l);
console.log(sum);
`, want: "7\n"},
		{name: "unref ends the run", code: "setTimeout(() => console.log('never'), 50).unref(); console.log('done')", want: "done\n"},
	})
	sb := commandtest.New(t)
	sb.WriteFiles(t, map[string]string{"dir/main.js": "console.log(JSON.stringify(process.argv), __filename, __dirname, require.main === module)\n"})
	r := sb.Run(context.Background(), Spec(Config{}).Func, "", "js-exec", "dir/main.js", "a", "b c")
	if want := `["js-exec","/workspace/dir/main.js","a","b c"] /workspace/dir/main.js /workspace/dir true` + "\n"; r.Stdout != want {
		t.Errorf("argv: got %q (err %q), want %q", r.Stdout, r.Stderr, want)
	}
	r = sb.Run(context.Background(), Spec(Config{}).Func, "piped\n", "js-exec", "-c", "console.log(JSON.stringify(require('fs').readFileSync(0, 'utf8')))")
	if r.Stdout != "\"piped\\n\"\n" {
		t.Errorf("stdin: got %+v", r)
	}
	for _, c := range []struct{ code, out, err string }{
		{"setTimeout(() => { console.log('a'); process.exit(4); console.log('b') }, 1); setTimeout(() => console.log('never'), 50)", "a\n", ""},
		{"try { process.exit(4) } catch (e) {} console.log('after')", "", ""},
		{"process.stderr.write('e\\n'); process.exitCode = 4", "", "e\n"},
		{"Promise.resolve().then(() => { throw new RangeError('late') }).catch((e) => { process.exitCode = 4; console.log(e.name) })", "RangeError\n", ""},
	} {
		r := sb.Run(context.Background(), Spec(Config{}).Func, "", "js-exec", "-c", c.code)
		if r.Code != 4 || r.Stdout != c.out || r.Stderr != c.err {
			t.Errorf("%s: got %+v, want status 4, out %q, err %q", c.code, r, c.out, c.err)
		}
	}
}

// TestFailures: uncaught exceptions end the run with status 1 and the
// stack with file:line, wherever they happen.
func TestFailures(t *testing.T) {
	sb := commandtest.New(t)
	sb.WriteFiles(t, map[string]string{
		"bad.js":  "function f() {\n  throw new TypeError('bad ' + 1)\n}\nf()\n",
		"lib.ts":  "interface A {\n  n: number\n}\nexport function g(n: number): number {\n  if (n > 1) throw new Error('too big')\n  return n\n}\n",
		"use.ts":  "import { g } from './lib.ts'\ntype T = number\nconsole.log(g(1))\nconst t: T = 2\nconsole.log(g(t))\n",
		"tla.mts": "import {\n  g\n} from './lib.ts'\nawait null\nconsole.log(g(1))\ng(3)\n",
	})
	for _, c := range []struct {
		name string
		args []string
		out  string
		err  []string
	}{
		{"file", []string{"bad.js"}, "", []string{"Uncaught TypeError: bad 1\n", "at f (/workspace/bad.js:2:", "/workspace/bad.js:4"}},
		{"imported ts", []string{"use.ts"}, "1\n", []string{"Uncaught Error: too big\n", "at g (/workspace/lib.ts:5:", "(/workspace/use.ts:5:"}},
		{"top-level await", []string{"tla.mts"}, "1\n", []string{"Uncaught Error: too big\n", "at g (/workspace/lib.ts:5:", "(/workspace/tla.mts:6:"}},
		{"timer", []string{"-c", "setTimeout(() => { null.x }, 1); setTimeout(() => console.log('never'), 20)"}, "", []string{"Uncaught TypeError: cannot read property 'x' of null", "[eval]:1"}},
		{"rejection", []string{"-c", "await Promise.reject(new Error('no'))"}, "", []string{"Uncaught Error: no\n"}},
		{"non-error", []string{"-c", "throw {code: 3}"}, "", []string{"Uncaught { code: 3 }\n"}},
		{"error fields", []string{"-c", "const e = new Error('x'); e.code = 'E_X'; throw e"}, "", []string{"Uncaught Error: x\n", "code: 'E_X'"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := sb.Run(context.Background(), Spec(Config{}).Func, "", append([]string{"js-exec"}, c.args...)...)
			if r.Code != 1 || r.Stdout != c.out {
				t.Errorf("got %+v, want status 1 and out %q", r, c.out)
			}
			for _, want := range c.err {
				if !strings.Contains(r.Stderr, want) {
					t.Errorf("stderr %q lacks %q", r.Stderr, want)
				}
			}
		})
	}
}

func TestNoNetwork(t *testing.T) {
	sb := commandtest.New(t)
	r := sb.Run(context.Background(), Spec(Config{}).Func, "", "js-exec", "-c", `
for (const m of ['net', 'node:http', 'https', 'dns', 'tls', 'dgram', 'http2']) {
  try { require(m); console.log(m, 'loaded') } catch (e) { console.log(m, e.message) }
}
try { await fetch('https://example.com') } catch (e) { console.log('fetch', e.message) }
try { new WebSocket('ws://x') } catch (e) { console.log('ws', e.code) }
`)
	msg := "js-exec: no network access in the sandbox"
	want := "net " + msg + "\nnode:http " + msg + "\nhttps " + msg + "\ndns " + msg + "\ntls " + msg + "\ndgram " + msg + "\nhttp2 " + msg +
		"\nfetch " + msg + "\nws ERR_NETWORK_DISABLED\n"
	if r.Stdout != want || r.Code != 0 {
		t.Errorf("got %+v, want %q", r, want)
	}
}

// TestModules: TypeScript (enums and namespaces need esbuild's transform,
// not just stripping), ES modules with top-level await, CommonJS, JSON,
// and relative imports with explicit extensions.
func TestModules(t *testing.T) {
	sb := commandtest.New(t)
	sb.WriteFiles(t, map[string]string{
		"lib/shapes.ts": `export enum Color { Red, Green = 'g' }
export namespace Geo { export const unit = 2; export function area(n: number): number { return n * n * unit } }
export default class Box<T> { constructor(private v: T) {} get(): T { return this.v } }
export type Id = string
`,
		"lib/util.mjs":  "export const twice = (x) => x * 2;\nexport default 'util-default';\n",
		"lib/old.cjs":   "exports.name = 'old'; module.exports.add = (a, b) => a + b;\n",
		"lib/data.json": `{"k": [1, 2]}`,
		"main.mts": `import Box, { Color, Geo, type Id } from './lib/shapes.ts';
import utilDefault, { twice } from './lib/util.mjs';
import * as old from './lib/old.cjs';
import data from './lib/data.json' with { type: 'json' };
import { createRequire } from 'node:module';
const require2 = createRequire(import.meta.url);
const id: Id = 'x';
const late = await new Promise<number>((r) => setTimeout(() => r(7), 1));
console.log(Color.Red, Color.Green, Geo.area(3), new Box<number>(5).get(), id, late);
console.log(utilDefault, twice(4), old.name, old.add(1, 2), data.k.length, require2('./lib/data.json').k[1]);
console.log(import.meta.url, import.meta.filename);
`,
		"plain.cjs": "const { twice } = require('./lib/util.mjs'); const o = require('./lib/old'); console.log(twice(1), o.add(2, 3), require('./lib/data.json').k[0], typeof exports, module.exports === exports)\n",
	})
	for _, c := range []struct{ file, want string }{
		{"main.mts", "0 g 18 5 x 7\nutil-default 8 old 3 2 2\nfile:///workspace/main.mts /workspace/main.mts\n"},
		{"plain.cjs", "2 5 1 object true\n"},
	} {
		r := sb.Run(context.Background(), Spec(Config{}).Func, "", "js-exec", c.file)
		if r.Stdout != c.want || r.Code != 0 {
			t.Errorf("%s: got %+v, want %q", c.file, r, c.want)
		}
	}
}
