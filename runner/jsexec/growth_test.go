package jsexec_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/wsfs/wsfs/runner"
	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/jsexec"
)

// TestMemoryGrowth: however a script grows its memory — step by step or
// at once, typed arrays, arrays, strings, objects, from timers or promise
// jobs, caught or not — it ends with js-exec's own memory line and status
// 1, the worker's heap watch never fires, and the script after js-exec
// goes on. Before the engine's memory moved out of the Go heap, gradual
// growth reallocated the wasm memory on every step, and the garbage copies
// passed the worker's 256 MiB first, ending the whole command.
func TestMemoryGrowth(t *testing.T) {
	// js-exec's time limit is far away so that only memory can end these,
	// however busy the machine.
	table := runner.DefaultCommands()
	table["js-exec"] = jsexec.Spec(jsexec.Config{Timeout: 2 * time.Minute})
	for _, tc := range []struct{ name, code string }{
		{"typed arrays", "const a=[]; for(let i=0;i<10;i++) a.push(new Uint8Array(10<<20))"},
		{"filled arrays", "const a=[]; while(true) a.push(new Array(1e6).fill(1))"},
		{"buffers", "const a=[]; while(true) a.push(Buffer.alloc(1<<20))"},
		{"small array buffers", "const a=[]; while(true) a.push(new ArrayBuffer(1<<16))"},
		{"strings", "const a=[]; while(true) a.push('x'.repeat(1<<20)+a.length)"},
		{"string doubling", "let s='x'; while(true) s+=s"},
		{"map of objects", "const m=new Map(); for(let i=0;;i++) m.set(i,{i})"},
		{"caught", "const m=new Map(); try { for(let i=0;;i++) m.set(i,{i}) } catch (e) { m.clear(); console.log('caught', e) }"},
		{"objects", "const a=[]; for(let i=0;;i++) a.push({i, s: 'v'+i})"},
		{"file reads", "const fs=require('fs'); fs.writeFileSync('/tmp/f', 'x'.repeat(200000)); const a=[]; while(true) a.push(fs.readFileSync('/tmp/f'))"},
		{"timer", "const a=[]; setInterval(() => a.push(new Uint8Array(4<<20)), 1)"},
		{"promise jobs", "(async () => { const a=[]; for(;;) { a.push(new Uint8Array(4<<20)); await null } })()"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			res := runner.Run(context.Background(), runner.Config{
				Script:       `js-exec -c "` + tc.code + `"; echo "js status $?"`,
				WorkspaceDir: t.TempDir(), ScratchDir: t.TempDir(), Commands: table,
				Limits: runner.Limits{MaxMemoryBytes: runner.DefaultWorkerHeap, WallTime: 5 * time.Minute},
				Stdout: &out, Stderr: &errb})
			if res.ExitCode != 0 || string(res.Stdout) != "js status 1\n" || string(res.Stderr) != "js-exec: memory limit 64 MiB reached\n" {
				t.Errorf("got status %d, out %q, err %q; want status 0, out %q, err %q", res.ExitCode, res.Stdout, res.Stderr,
					"js status 1\n", "js-exec: memory limit 64 MiB reached\n")
			}
			if len(res.LimitsHit) != 1 || res.LimitsHit[0] != "js-exec: memory limit 64 MiB reached" {
				t.Errorf("limits hit: %q", res.LimitsHit)
			}
		})
	}
	// Memory up to the limit stays usable, at once or in steps.
	r := runScriptWith(t, table, "js-exec -c \"const a=new Uint8Array(60<<20); a[a.length-1]=7; console.log(a.length, a[a.length-1])\"; js-exec -c \"const a=[]; for(let i=0;i<5;i++) a.push(new Uint8Array(10<<20)); console.log(a.length)\"")
	if string(r.Stdout) != "62914560 7\n5\n" || r.ExitCode != 0 {
		t.Errorf("below the limit: status %d, out %q, err %q", r.ExitCode, r.Stdout, r.Stderr)
	}
	// One allocation larger than the limit is an error the script can catch.
	r = runScriptWith(t, table, "js-exec -c \"try { new Uint8Array(70<<20) } catch (e) { console.log('caught', e.message) }\"")
	if string(r.Stdout) != "caught out of memory\n" || r.ExitCode != 0 {
		t.Errorf("one large allocation: status %d, out %q, err %q", r.ExitCode, r.Stdout, r.Stderr)
	}
}

func runScriptWith(t *testing.T, table map[string]command.Spec, script string) runner.Result {
	t.Helper()
	return runner.Run(context.Background(), runner.Config{Script: script, WorkspaceDir: t.TempDir(), ScratchDir: t.TempDir(),
		Commands: table, Limits: runner.Limits{MaxMemoryBytes: runner.DefaultWorkerHeap, WallTime: 5 * time.Minute}})
}
