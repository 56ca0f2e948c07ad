package jsexec

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wsfs/wsfs/internal/testenv"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// loopCase is a script run as `js-exec -c CODE` and as `node -e CODE`
// (an ES module when it has import statements): both print stdout and end
// with status; stderr is compared by its meaningful lines (see
// meaningfulStderr), which the case also lists.
type loopCase struct {
	name, code, stdout string
	status             int
	stderr             []string
}

// nextTickCases: process.nextTick's queue runs after the macrotask and
// before the promise jobs; ticks queued by promise jobs run once the job
// queue is empty.
var nextTickCases = []loopCase{
	{name: "before promise jobs", code: "Promise.resolve().then(() => console.log('p')); process.nextTick(() => console.log('t'))", stdout: "t\np\n"},
	{name: "before queueMicrotask", code: "queueMicrotask(() => console.log('m')); process.nextTick(() => console.log('t')); console.log('sync')", stdout: "sync\nt\nm\n"},
	{name: "nested", code: `Promise.resolve().then(() => { console.log('p1'); process.nextTick(() => console.log('t-from-p')) }).then(() => console.log('p2'))
process.nextTick(() => { console.log('t1'); process.nextTick(() => console.log('t-from-t')); Promise.resolve().then(() => console.log('p-from-t')) })
process.nextTick(() => console.log('t2'))`, stdout: "t1\nt2\nt-from-t\np1\np-from-t\np2\nt-from-p\n"},
	{name: "from a promise job, after the job queue", code: "Promise.resolve().then(() => { process.nextTick(() => console.log('t')); return 1 }).then(() => console.log('p2')).then(() => console.log('p3'))", stdout: "p2\np3\nt\n"},
	{name: "arguments", code: "process.nextTick((a, b) => console.log(a + b), 1, 2)", stdout: "3\n"},
	{name: "not a function", code: "try { process.nextTick(1) } catch (e) { console.log(e.name, e.code) }", stdout: "TypeError ERR_INVALID_ARG_TYPE\n"},
	{name: "in timers", code: `setTimeout(() => { Promise.resolve().then(() => console.log('p')); process.nextTick(() => console.log('t')); console.log('timer1') }, 0)
setTimeout(() => console.log('timer2'), 0)`, stdout: "timer1\nt\np\ntimer2\n"},
	{name: "before setImmediate", code: "setImmediate(() => console.log('i')); process.nextTick(() => console.log('t')); Promise.resolve().then(() => console.log('p'))", stdout: "t\np\ni\n"},
	{name: "async function", code: "(async () => { console.log('a1'); await null; console.log('a2'); process.nextTick(() => console.log('t2')) })(); process.nextTick(() => console.log('t1'))", stdout: "a1\nt1\na2\nt2\n"},
	{name: "awaiting a tick", code: "(async () => { await new Promise((r) => process.nextTick(r)); console.log('resumed') })(); Promise.resolve().then(() => console.log('p'))", stdout: "p\nresumed\n"},
	{name: "a tick throws", code: "process.nextTick(() => { throw new Error('boom') }); Promise.resolve().then(() => console.log('p'))", status: 1, stderr: []string{"Error: boom", "[eval]:1"}},
	{name: "no tick after a throw", code: "process.nextTick(() => console.log('t'))\nthrow new Error('sync')", status: 1, stderr: []string{"Error: sync", "[eval]:2"}},
	{name: "ES module", code: "import 'node:fs'\nPromise.resolve().then(() => console.log('p')); process.nextTick(() => console.log('t')); console.log('s')", stdout: "s\np\nt\n"},
	{name: "ES module with top-level await", code: `import 'node:fs'
Promise.resolve().then(() => console.log('p')); process.nextTick(() => console.log('t'))
await null
console.log('after await')
Promise.resolve().then(() => console.log('p2')); process.nextTick(() => console.log('t2'))
setTimeout(() => { Promise.resolve().then(() => console.log('p3')); process.nextTick(() => console.log('t3')) })`, stdout: "p\nafter await\np2\nt\nt2\nt3\np3\n"},
	{name: "exit in a tick", code: "process.nextTick(() => { console.log('t'); process.exit(3) }); Promise.resolve().then(() => console.log('p'))", stdout: "t\n", status: 3},
}

// rejectionCases: a rejection still unhandled once the ticks and promise
// jobs after its macrotask ran ends the run as an uncaught exception.
var rejectionCases = []loopCase{
	{name: "async main called bare", code: "async function main() {\n  await null\n  throw new Error('lost')\n}\nmain()\nsetTimeout(() => console.log('never'), 5)", status: 1, stderr: []string{"Error: lost", "[eval]:3"}},
	{name: "then without catch", code: "const f = async () => { throw new RangeError('r') }\nf().then(() => 1)\nconsole.log('same tick')", stdout: "same tick\n", status: 1, stderr: []string{"RangeError: r", "[eval]:1"}},
	{name: "in a then callback", code: "Promise.resolve().then(() => { throw new TypeError('in then') })", status: 1, stderr: []string{"TypeError: in then", "[eval]:1"}},
	{name: "error fields", code: "const e = new Error('x'); e.code = 'E_X'; Promise.reject(e)", status: 1, stderr: []string{"Error: x", "[eval]:1", "code: 'E_X'"}},
	{name: "after ticks and jobs", code: "Promise.reject(new Error('e')); process.nextTick(() => console.log('tick')); Promise.resolve().then(() => console.log('job'))", stdout: "tick\njob\n", status: 1, stderr: []string{"Error: e", "[eval]:1"}},
	{name: "in a timer", code: "setTimeout(() => { Promise.reject(new Error('late')); console.log('in timer') }, 1)\nsetTimeout(() => console.log('never'), 50)", stdout: "in timer\n", status: 1, stderr: []string{"Error: late", "[eval]:1"}},
	{name: "handled in a later macrotask", code: "const p = Promise.reject(new Error('x'))\nsetTimeout(() => p.catch(() => console.log('too late')), 0)", status: 1, stderr: []string{"Error: x", "[eval]:1"}},
	{name: "number", code: "Promise.reject(3)", status: 1, stderr: []string{unhandledText("3"), "code: 'ERR_UNHANDLED_REJECTION'"}},
	{name: "string", code: "Promise.reject('str')", status: 1, stderr: []string{unhandledText("str"), "code: 'ERR_UNHANDLED_REJECTION'"}},
	{name: "undefined", code: "new Promise((_, reject) => reject())", status: 1, stderr: []string{unhandledText("undefined"), "code: 'ERR_UNHANDLED_REJECTION'"}},
	{name: "null", code: "Promise.reject(null)", status: 1, stderr: []string{unhandledText("null"), "code: 'ERR_UNHANDLED_REJECTION'"}},
	{name: "symbol", code: "Promise.reject(Symbol('s'))", status: 1, stderr: []string{unhandledText("Symbol(s)"), "code: 'ERR_UNHANDLED_REJECTION'"}},
	{name: "object", code: "Promise.reject({ a: 1 })", status: 1, stderr: []string{unhandledText("#<Object>"), "code: 'ERR_UNHANDLED_REJECTION'"}},
	{name: "instance", code: "class Foo {}; Promise.reject(new Foo())", status: 1, stderr: []string{unhandledText("#<Foo>"), "code: 'ERR_UNHANDLED_REJECTION'"}},
	{name: "array", code: "Promise.reject([1, 'a'])", status: 1, stderr: []string{unhandledText("[object Array]"), "code: 'ERR_UNHANDLED_REJECTION'"}},
	{name: "date", code: "Promise.reject(new Date(0))", status: 1, stderr: []string{unhandledText("[object Date]"), "code: 'ERR_UNHANDLED_REJECTION'"}},
	{name: "error-like object", code: "Promise.reject({ stack: 's', message: 'm' })", status: 1, stderr: []string{"{ stack: 's', message: 'm' }"}},
	{name: "ES module", code: "import 'node:fs'\nPromise.reject(new Error('m'))", status: 1, stderr: []string{"Error: m", "[eval]:2"}},
	{name: "first of two", code: "Promise.reject(new Error('one')); Promise.reject(new Error('two'))", status: 1, stderr: []string{"Error: one", "[eval]:1"}},
	{name: "listener", code: `process.on('unhandledRejection', (r, p) => console.log('listener', r.message, p instanceof Promise))
Promise.reject(new Error('x'))
setTimeout(() => console.log('still running'), 1)`, stdout: "listener x true\nstill running\n"},
	{name: "listener exits", code: "process.on('unhandledRejection', (r) => { console.log('listener', r); process.exit(4) }); Promise.reject(5)", stdout: "listener 5\n", status: 4},
	{name: "over exitCode", code: "process.exitCode = 3; Promise.reject(new Error('x'))", status: 1, stderr: []string{"Error: x", "[eval]:1"}},
	{name: "after exit in an async function", code: "async function f() { await null; console.log('f'); process.exit(2) }\nf()", stdout: "f\n", status: 2},
	{name: "listener throws", code: "process.on('unhandledRejection', () => { throw new Error('from listener') }); Promise.reject(1)", status: 1, stderr: []string{"Error: from listener", "[eval]:1"}},
	{name: "listener removed", code: "const f = () => console.log('no'); process.on('unhandledRejection', f); process.off('unhandledRejection', f); Promise.reject(new Error('x'))", status: 1, stderr: []string{"Error: x", "[eval]:1"}},
}

// handledCases: rejections handled before the end of their macrotask's
// ticks and promise jobs end nothing.
var handledCases = []loopCase{
	{name: "catch", code: "Promise.reject(new Error('x')).catch((e) => console.log('caught', e.message))", stdout: "caught x\n"},
	{name: "then with a rejection handler", code: "Promise.reject(2).then(null, (r) => console.log('then', r))", stdout: "then 2\n"},
	{name: "catch in a later job", code: "const p = Promise.reject(new Error('x'))\nPromise.resolve().then(() => Promise.resolve()).then(() => p.catch((e) => console.log('late', e.message)))", stdout: "late x\n"},
	{name: "catch in a tick", code: "const p = Promise.reject(1)\nprocess.nextTick(() => p.catch(() => console.log('tick catch')))", stdout: "tick catch\n"},
	{name: "catch in a tick from a job", code: "const p = Promise.reject(1)\nPromise.resolve().then(() => process.nextTick(() => p.catch(() => console.log('ok'))))", stdout: "ok\n"},
	{name: "await in try", code: "(async () => { try { await Promise.reject(new Error('a')) } catch (e) { console.log('caught', e.message) } })()", stdout: "caught a\n"},
	{name: "async callers", code: `async function fail(m) { await null; throw new Error(m) }
async function caller() { try { await fail('deep') } catch (e) { return 'recovered ' + e.message } }
caller().then(console.log)`, stdout: "recovered deep\n"},
	{name: "combinators", code: `const fail = (m) => Promise.reject(new Error(m))
Promise.all([fail('all'), Promise.resolve(1)]).catch((e) => console.log('all', e.message))
Promise.allSettled([fail('settled')]).then((r) => console.log('allSettled', r[0].status))
Promise.race([fail('race')]).catch((e) => console.log('race', e.message))
Promise.any([fail('any')]).catch((e) => console.log('any', e.constructor.name))`, stdout: "all all\nallSettled rejected\nrace race\nany AggregateError\n"},
	{name: "chain", code: "Promise.reject(1).then((x) => x).finally(() => console.log('finally')).catch(() => console.log('chain'))", stdout: "finally\nchain\n"},
	{name: "constructor", code: "new Promise((_, reject) => reject(new Error('ctor'))).catch((e) => console.log(e.message))", stdout: "ctor\n"},
	{name: "in a timer", code: "setTimeout(() => { const p = Promise.reject(new Error('t')); Promise.resolve().then(() => p.catch(() => console.log('handled in timer'))) }, 1)", stdout: "handled in timer\n"},
	{name: "fs.promises", code: "require('fs').promises.readFile('/workspace/nope').catch((e) => console.log(e.code))", stdout: "ENOENT\n"},
	{name: "async function inspected", code: "const util = require('util'); async function f() {}\nconsole.log(util.inspect(f), String(f), Object.prototype.toString.call(f(Promise.reject(0).catch(() => {}))))", stdout: "[AsyncFunction: f] async function f() {} [object Promise]\n"},
}

func unhandledText(reason string) string {
	return "UnhandledPromiseRejection: This error originated either by throwing inside of an async function without a catch block, " +
		`or by rejecting a promise which was not handled with .catch(). The promise rejected with the reason "` + reason + `".`
}

func TestNextTick(t *testing.T)            { runLoopCases(t, nextTickCases) }
func TestUnhandledRejections(t *testing.T) { runLoopCases(t, rejectionCases) }
func TestHandledRejections(t *testing.T)   { runLoopCases(t, handledCases) }

func runLoopCases(t *testing.T, cases []loopCase) {
	t.Helper()
	sb := commandtest.New(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// Parallel cases on a busy machine must not meet the 5 s default.
			r := sb.Run(context.Background(), Spec(Config{Timeout: time.Minute}).Func, "", "js-exec", "-c", c.code)
			if got := meaningfulStderr(r.Stderr, "Uncaught "); r.Stdout != c.stdout || r.Code != c.status || !sameLines(got, c.stderr) {
				t.Errorf("js-exec: stdout %q, status %d, stderr %q (meaningful %q)\nwant stdout %q, status %d, stderr %q",
					r.Stdout, r.Code, r.Stderr, got, c.stdout, c.status, c.stderr)
			}
			t.Run("node", func(t *testing.T) {
				node, err := exec.LookPath("node")
				if err != nil {
					testenv.Missing(t, "node is missing (make deps installs it): no comparison with Node")
				}
				args := []string{"-e", c.code}
				if moduleSyntax.MatchString(c.code) {
					args = append([]string{"--input-type=module"}, args...)
				}
				cmd := exec.Command(node, args...)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				status := 0
				if err := cmd.Run(); err != nil {
					var exit *exec.ExitError
					if !errors.As(err, &exit) {
						t.Fatal(err)
					}
					status = exit.ExitCode()
				}
				if got := meaningfulStderr(stderr.String(), ""); stdout.String() != c.stdout || status != c.status || !sameLines(got, c.stderr) {
					t.Errorf("node: stdout %q, status %d, stderr %q (meaningful %q)\nwant stdout %q, status %d, stderr %q",
						stdout.String(), status, stderr.String(), got, c.stdout, c.status, c.stderr)
				}
			})
		})
	}
}

var (
	errorHead = regexp.MustCompile(`^(\w*Error|UnhandledPromiseRejection): .*|^\{ .* \}$`)
	fieldLine = regexp.MustCompile(`^  (\w+: .*?),?$`)
	evalFrame = regexp.MustCompile(`^\s+at .*?\[eval\d*\]:(\d+):\d+\)?(?: \{)?$`)
)

// meaningfulStderr picks from an uncaught error's report what Node and
// js-exec share: the error's first line (after prefix, which js-exec
// prints), its own fields, and the first frame in the script as
// [eval]:LINE (Node's [eval1] in an ES module). Node's source excerpt, internal frames and version line,
// and the columns (js-exec's first line carries a wrapper) are left out.
func meaningfulStderr(stderr, prefix string) []string {
	var out []string
	frame := false
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimPrefix(l, prefix)
		switch {
		case errorHead.MatchString(l):
			out = append(out, strings.TrimSuffix(l, " {"))
		case fieldLine.MatchString(l):
			out = append(out, fieldLine.FindStringSubmatch(l)[1])
		case !frame && evalFrame.MatchString(l):
			out = append(out, "[eval]:"+evalFrame.FindStringSubmatch(l)[1])
			frame = true
		}
	}
	return out
}

func sameLines(got, want []string) bool {
	return strings.Join(got, "\n") == strings.Join(want, "\n")
}

// TestRejectionTrackerPatch: the wasm edit refuses a module that is not
// the QuickJS it knows, and adds one function and one table slot to the
// one it knows.
func TestRejectionTrackerPatch(t *testing.T) {
	if _, _, err := addRejectionTracker([]byte("\x00asm\x01\x00\x00\x00")); err == nil || !strings.Contains(err.Error(), "no section") {
		t.Errorf("an empty module: %v, want a missing section", err)
	}
	wasm, err := wasmWithCap(wasmPages(DefaultMemoryLimit))
	if err != nil {
		t.Fatal(err)
	}
	m, err := readModule(wasm)
	if err != nil {
		t.Fatal(err)
	}
	last := uint64(len(m.funcTypes) - 1)
	if typ := m.types[m.funcTypes[last]]; typ != trackerType {
		t.Errorf("the last function has type %q, want the tracker's", typ)
	}
	if slot := rejectionTrackerSlot(); slot == 0 {
		t.Error("no table slot for the tracker")
	}
	if _, _, err := addRejectionTracker(wasm[:len(wasm)/2]); err == nil {
		t.Error("a truncated module was patched")
	}
	// Another QuickJS, whose JSRuntime has the opaque pointer elsewhere.
	moved := bytes.ReplaceAll(wasm, append([]byte{0x28, 0x02}, appendULEB(nil, rtOpaqueOffset)...), append([]byte{0x28, 0x02}, appendULEB(nil, rtOpaqueOffset+4)...))
	if _, _, err := addRejectionTracker(moved); err == nil || !strings.Contains(err.Error(), "calls of the rejection tracker") {
		t.Errorf("a QuickJS with another JSRuntime layout: %v, want no tracker calls found", err)
	}
}
