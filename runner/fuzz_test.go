package runner

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"
)

// FuzzRun runs arbitrary scripts through the runner under small limits:
// whatever the script, Run returns (the wall time stops it), never panics (the runner would report "wsfs: internal error"), and the
// next command runs. `go test` runs the seeds; `go test -fuzz FuzzRun
// ./runner` explores.
func FuzzRun(f *testing.F) {
	for _, s := range handDiffCases {
		f.Add(s)
	}
	for _, s := range []string{
		"f(){ f; }; f", "x=$((1/0)); echo $x", "a=(1 2); echo ${a[@]:1:5} ${!a[@]} ${a[-3]}",
		"declare -n r=r; echo $r", "echo ${x:?}", "set -u; echo $nope", "while :; do :; done",
		"cat <(echo a) > >(cat)", "sleep 10 & kill %1; wait", "exec 3>&-; echo >&3", "{ echo; } >&9999",
		"echo $(( 2**63 / -1 )) $(( -2**63 % -1 ))", "[[ a =~ ( ]]; echo $?", "case x in @(a|!(b))) ;; esac",
		"alias a='b '; shopt -s expand_aliases; a a", "trap 'echo t' EXIT ERR RETURN DEBUG; false",
		"printf '%*d' 100000 1 | wc -c", "echo {1..100000} | wc -c", "eval \"$(printf 'eval %.0s' {1..50})\"",
		"read -a a <<< 'x y'; mapfile -t b <<< $'1\\n2'; echo ${a[1]} ${b[1]}", "coproc { cat; }; echo hi >&${COPROC[1]}",
		"$((", "${", "`", "((", "[[", "case", "for ((;;", "<<EOF", "a[", "${x/", "$'\\",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		if len(script) > 4096 {
			return
		}
		ws := t.TempDir()
		lim := Limits{WallTime: 500 * time.Millisecond, MaxOutputBytes: 4096, MaxVisibleEntries: 50, MaxCallDepth: 50, MaxOpenFiles: 32}
		done := make(chan Result, 1)
		scratch := t.TempDir()
		go func() {
			done <- Run(context.Background(), Config{Script: script, WorkspaceDir: ws, ScratchDir: scratch, Limits: lim})
		}()
		var res Result
		select {
		case res = <-done:
		case <-time.After(time.Minute):
			buf := make([]byte, 1<<20)
			t.Fatalf("%q did not return:\n%s", script, buf[:runtime.Stack(buf, true)])
		}
		if strings.Contains(string(res.Stderr), "internal error") {
			t.Fatalf("%q: %s", script, res.Stderr)
		}
		next := Run(context.Background(), Config{Script: "echo ok", WorkspaceDir: ws, ScratchDir: t.TempDir()})
		if string(next.Stdout) != "ok\n" {
			t.Fatalf("after %q the next command gave %q %q", script, next.Stdout, next.Stderr)
		}
	})
}
