package sed

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// endless is an input that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "ab\n"[i%3]
	}
	return len(p), nil
}

// cancelAfter cancels a context once n bytes were written to it.
type cancelAfter struct {
	n      int
	cancel context.CancelFunc
}

func (w *cancelAfter) Write(p []byte) (int, error) {
	w.n -= len(p)
	if w.n <= 0 {
		w.cancel()
	}
	return len(p), nil
}

func TestStopsWhenContextEnds(t *testing.T) {
	sb := commandtest.New(t)
	scripts := [][]string{
		{":a;ba"},                         // loops without reading
		{":a;s/x*/y/;ta"},                 // substitutes forever
		{"-n", ":a;N;ba"},                 // grows the pattern space from endless input
		{"p"},                             // prints endless input
		{`s/\(a*\)*\1b/x/`},               // back-reference search
		{"-n", "$p"},                      // reads ahead forever
		{":a;s/^/\\n/;/\\n\\{200\\}/!ba"}, // loop with a condition
	}
	for _, args := range scripts {
		ctx, cancel := context.WithCancel(context.Background())
		out := &cancelAfter{n: 1 << 16, cancel: cancel}
		var errb strings.Builder
		if args[0] != "p" {
			cancel() // nothing is printed: stop from the start
		}
		code := Run(ctx, sb.Env("/workspace", append([]string{"sed"}, args...), endless{}, out, &errb))
		cancel()
		if code == 0 || !strings.Contains(errb.String(), "sed: stopped") {
			t.Errorf("sed %q: exit %d, stderr %q; want a stop", args, code, errb.String())
		}
	}
}

type failingWriter struct{ writes int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.writes++
	return 0, errors.New("write /dev/stdout: no space left on device")
}

func TestStopsOnWriteError(t *testing.T) {
	sb := commandtest.New(t)
	w := &failingWriter{}
	var errb strings.Builder
	code := Run(context.Background(), sb.Env("/workspace", []string{"sed", "p"}, endless{}, w, &errb))
	if code != 4 || !strings.Contains(errb.String(), "sed: couldn't write") {
		t.Fatalf("exit %d, stderr %q; want 4 and a write error", code, errb.String())
	}
	if w.writes != 1 {
		t.Errorf("%d writes after the first error; want the first only", w.writes)
	}
}

func TestInPlaceKeepsModeAndWritesBackup(t *testing.T) {
	sb := commandtest.New(t)
	p := filepath.Join(sb.Workspace, "dir", "f.txt")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("hello\nworld\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	r := sb.Run(context.Background(), Run, "", "sed", "-i.bak", "s/o/0/g", "dir/f.txt")
	if r.Code != 0 || r.Stdout != "" || r.Stderr != "" {
		t.Fatalf("sed -i: %+v", r)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "hell0\nw0rld\n" {
		t.Errorf("edited file %q", got)
	}
	bak, _ := os.ReadFile(p + ".bak")
	if string(bak) != "hello\nworld\n" {
		t.Errorf("backup %q", bak)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode after -i: %v %v; want 0640", fi.Mode(), err)
	}
	ents, _ := os.ReadDir(filepath.Dir(p))
	if len(ents) != 2 {
		t.Errorf("folder holds %d entries after -i; want the file and its backup only", len(ents))
	}
}

func TestFilesAreConfined(t *testing.T) {
	sb := commandtest.New(t)
	r := sb.Run(context.Background(), Run, "x\n", "sed", "r /etc/passwd")
	if r.Code != 0 || r.Stdout != "x\n" {
		t.Errorf("r outside the view: %+v; want the file treated as missing", r)
	}
	r = sb.Run(context.Background(), Run, "x\n", "sed", "w /etc/sed-out")
	if r.Code != 4 || !strings.Contains(r.Stderr, "couldn't open file /etc/sed-out") {
		t.Errorf("w outside the view: %+v", r)
	}
	r = sb.Run(context.Background(), Run, "x\n", "sed", "-n", "p", "../../etc/passwd")
	if r.Code != 2 || r.Stdout != "" {
		t.Errorf("input outside the view: %+v", r)
	}
	r = sb.Run(context.Background(), Run, "x\n", "sed", "s/x/y/w /tmp/out")
	data, _ := os.ReadFile(filepath.Join(sb.Tmp, "out"))
	if r.Code != 0 || string(data) != "y\n" {
		t.Errorf("s///w /tmp/out: %+v, file %q", r, data)
	}
}

func TestLongLines(t *testing.T) {
	sb := commandtest.New(t)
	long := strings.Repeat("abc", 100000)
	r := sb.Run(context.Background(), Run, long+"\n"+long, "sed", "s/c/C/2;$s/$/!/")
	want := strings.Replace(long, "c", "C", 2)
	want = strings.Replace(want, "C", "c", 1) + "\n" + strings.Replace(strings.Replace(long, "c", "C", 2), "C", "c", 1) + "!"
	if r.Code != 0 || r.Stdout != want {
		t.Errorf("long lines: exit %d, %d bytes out, want %d", r.Code, len(r.Stdout), len(want))
	}
}

func TestCommandsSpec(t *testing.T) {
	specs := Commands()
	if len(specs) != 1 || specs[0].Name != "sed" || specs[0].Func == nil || specs[0].Summary == "" || len(specs[0].Flags) == 0 {
		t.Fatalf("Commands() = %+v", specs)
	}
	var out strings.Builder
	sb := commandtest.New(t)
	if code := specs[0].Func(context.Background(), sb.Env("/workspace", []string{"sed", "--help"}, strings.NewReader(""), &out, io.Discard)); code != 0 || !strings.Contains(out.String(), "Usage: sed") {
		t.Errorf("--help: %d %q", code, out.String())
	}
}

func TestFollowSymlinks(t *testing.T) {
	sb := commandtest.New(t)
	sb.WriteFiles(t, map[string]string{"real/f.txt": "one\n"})
	if err := os.Symlink("real/f.txt", filepath.Join(sb.Workspace, "link")); err != nil {
		t.Fatal(err)
	}
	r := sb.Run(context.Background(), Run, "", "sed", "-i", "--follow-symlinks", "s/one/two/;F", "link")
	data, _ := os.ReadFile(filepath.Join(sb.Workspace, "real", "f.txt"))
	fi, err := os.Lstat(filepath.Join(sb.Workspace, "link"))
	if r.Code != 0 || string(data) != "real/f.txt\ntwo\n" || err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("--follow-symlinks: %+v, target %q, link %v %v", r, data, fi, err)
	}
	r = sb.Run(context.Background(), Run, "", "sed", "-i", "s/two/three/", "link")
	fi, err = os.Lstat(filepath.Join(sb.Workspace, "link"))
	if r.Code != 0 || err != nil || !fi.Mode().IsRegular() {
		t.Errorf("-i without --follow-symlinks should replace the link by a file: %+v %v %v", r, fi, err)
	}
}

// TestBacktrackingBudgetIsAnError: a back-reference search that would run
// for minutes stops sed with status 4 and a message saying what to do.
func TestBacktrackingBudgetIsAnError(t *testing.T) {
	sb := commandtest.New(t)
	line := strings.Repeat("a", 60) + "cb\n"
	r := sb.Run(context.Background(), Run, line, "sed", `s/\(a*\)*\1\1b/x/`)
	if r.Code != 4 || !strings.Contains(r.Stderr, "too complex") || !strings.Contains(r.Stderr, "simplify") {
		t.Errorf("got code %d stderr %q; want 4 and a clear message", r.Code, r.Stderr)
	}
}
