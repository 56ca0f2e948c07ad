package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunStdin: the caller's stdin is the command's (issue 15: it never
// reached it), whichever way the script comes and whichever command reads
// it, through the front and through wsfs-core; no stdin reads as EOF; a
// stream larger than the worker's heap limit passes through.
func TestRunStdin(t *testing.T) {
	requireFUSE(t)
	home, mnt := newMountDirs(t)
	s := startServer(t, home, mnt, "--quiet", "1h")
	const ws = "acme/stdin"
	mustOK(t, home, "", "create", ws)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "count.sh"), []byte("wc -l\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "input.txt"), []byte("a\nb\nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := front{t: t, home: home, env: []string{"WSFS_CORE=" + failingCore(t)}, dir: dir}
	const lines = "l1\nl2\n"
	for _, tc := range []struct {
		name, script string
		want         string
	}{
		{"wc", "wc -l", "2\n"},
		{"read", "read a; read b; echo $b $a", "l2 l1\n"},
		{"pipeline", "cat | tr a-z A-Z", "L1\nL2\n"},
		{"nested bash -c", "bash -c 'cat' | wc -l", "2\n"},
		{"nested sh -s", "sh -s <<'EOF'\necho from here-doc\nEOF\ncat", "from here-doc\nl1\nl2\n"},
		{"js-exec process.stdin", `js-exec -c "let d='';process.stdin.on('data',c=>d+=c);process.stdin.on('end',()=>console.log(JSON.stringify(d)))"`, "\"l1\\nl2\\n\"\n"},
		{"js-exec readline", `js-exec -c "const rl=require('readline').createInterface({input:process.stdin});let n=[];rl.on('line',l=>n.push(l));rl.on('close',()=>console.log(n.join('+')))"`, "l1+l2\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if out := f.ok(lines, "run", "-w", ws, tc.script); out != tc.want {
				t.Errorf("front: %q printed %q, want %q", tc.script, out, tc.want)
			}
		})
	}
	if out := mustOK(t, home, lines, "run", "-w", ws, "wc -l"); out != "2\n" {
		t.Errorf("wsfs-core run: wc -l printed %q", out)
	}
	if out := f.ok(lines, "run", "-w", ws, "-f", "count.sh"); out != "2\n" {
		t.Errorf("-f count.sh: printed %q", out)
	}
	out := f.ok(lines, "run", "--json", "-w", ws, "wc -l")
	var res runOut
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Stdout != "2\n" {
		t.Errorf("--json: %q %v", out, err)
	}

	// stdin from a file (< input.txt), and none at all (EOF).
	in, err := os.Open(filepath.Join(dir, "input.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := f.cmd("", "run", "-w", ws, "wc -l")
	cmd.Stdin = in
	b, err := cmd.Output()
	in.Close()
	if err != nil || string(b) != "3\n" {
		t.Errorf("< input.txt: %q %v", b, err)
	}
	cmd = f.cmd("", "run", "-w", ws, "cat; echo end")
	cmd.Stdin = nil // /dev/null
	if b, err := cmd.Output(); err != nil || string(b) != "end\n" {
		t.Errorf("no stdin: %q %v", b, err)
	}
	// The script on stdin leaves the command none.
	if out := f.ok("cat; echo end\n", "run", "-w", ws); out != "end\n" {
		t.Errorf("a script on stdin: %q", out)
	}

	// More than the worker's heap limit (256 MiB) streams through.
	const big = 300 << 20
	cmd = f.cmd("", "run", "-w", ws, "cat | wc -c")
	cmd.Stdin = io.LimitReader(zeros{}, big)
	var errb strings.Builder
	cmd.Stderr = &errb
	if b, err := cmd.Output(); err != nil || strings.TrimSpace(string(b)) != "314572800" {
		t.Errorf("300 MiB on stdin: %q %v\n%s", b, err, errb.String())
	}
	if err := s.stop(os.Interrupt); err != nil {
		t.Fatalf("server: %v\n%s", err, s.stderr)
	}
}

// zeros reads as an endless stream of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
