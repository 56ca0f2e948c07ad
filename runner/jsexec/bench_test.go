package jsexec

import (
	"context"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/fastschema/qjs"

	"github.com/wsfs/wsfs/internal/testenv"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// BenchmarkStart measures js-exec -c 'console.log(1)' in process, from
// three states of QuickJS's compiled wasm:
//
//	cold:  compiled from the wasm first (a new process with no cache)
//	cache: loaded from wazero's compilation cache folder first (a new
//	       worker after Prepare with the server's cache folder)
//	warm:  already loaded (every run after the first in a process)
func BenchmarkStart(b *testing.B) {
	sb := commandtest.New(b)
	fn := Spec(Config{}).Func
	run := func(b *testing.B) {
		if r := sb.Run(context.Background(), fn, "", "js-exec", "-c", "console.log(1)"); r.Stdout != "1\n" || r.Code != 0 {
			b.Fatalf("%+v", r)
		}
	}
	wasm, err := wasmWithCap(wasmPages(DefaultMemoryLimit))
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	// reload replaces the process's compiled QuickJS by a fresh compile
	// (cacheDir "") or a load from cacheDir.
	reload := func(b *testing.B, cacheDir string) {
		rt, err := qjs.New(qjs.Option{CWD: root, Context: context.Background(), CloseOnContextDone: true, DisableBuildCache: true,
			CacheDir: cacheDir, QuickJSWasmBytes: wasm, Stdout: io.Discard, Stderr: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		rt.Close()
	}
	// Besides wall time each reports the process's CPU time per run,
	// steadier on a busy machine.
	loop := func(b *testing.B, each func()) {
		start := cpuTime()
		for b.Loop() {
			each()
		}
		b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
	b.Run("cold", func(b *testing.B) {
		loop(b, func() {
			reload(b, "")
			run(b)
		})
	})
	b.Run("cache", func(b *testing.B) {
		dir := b.TempDir()
		reload(b, dir) // fills the cache folder
		loop(b, func() {
			reload(b, dir)
			run(b)
		})
	})
	b.Run("warm", func(b *testing.B) {
		run(b)
		loop(b, func() { run(b) })
	})
}

// BenchmarkJustBash runs the same script through the just-bash CLI
// (testenv.JustBash; its js-exec under testenv.Node22), for comparison;
// "echo" is its start-up floor.
func BenchmarkJustBash(b *testing.B) {
	script := testenv.JustBash(b)
	root := b.TempDir()
	for _, c := range []struct{ name, script string }{
		{"js-exec", "js-exec -c 'console.log(1)'"},
		{"echo", "echo 1"},
	} {
		b.Run(c.name, func(b *testing.B) {
			// just-bash's js-exec imports module.stripTypeScriptTypes
			// (Node 22.13 and later); the machine's node may be older.
			node := "node"
			if c.name == "js-exec" {
				node = testenv.Node22(b)
			}
			cmd := func() (string, error) {
				out, err := exec.Command(node, script, "--javascript", "--allow-write", "--root", root, "-c", c.script).Output()
				return string(out), err
			}
			if out, err := cmd(); err != nil || out != "1\n" {
				b.Skipf("just-bash does not print 1 for %s here (%v): %s", c.script, err, strings.TrimSpace(out))
			}
			for b.Loop() {
				if _, err := cmd(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
