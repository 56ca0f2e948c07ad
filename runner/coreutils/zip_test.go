package coreutils

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/wsfs/wsfs/internal/testenv"
	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// zipSources are the files the archives of the tests hold.
var zipSources = map[string]string{
	"a.txt":       "hello\n",
	"big.txt":     strings.Repeat("line of text, repeated to compress well\n", 200),
	"d/x.txt":     "x\n",
	"d/e/y.txt":   "y\n",
	"empty.txt":   "",
	"bin.dat":     "\x00\x01\x02\xff\xfe binary",
	"sp ace.txt":  "space\n",
	"d/e/deep.md": "# deep\n",
}

func requireHost(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Missing(t, fmt.Sprintf("the reference %s is not installed (scripts/deps.sh installs it): %v", tool, err))
		}
	}
}

// hostZip builds an archive with Info-ZIP's zip from files and returns
// its bytes.
func hostZip(t *testing.T, files map[string]string, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	commandtest.WriteTree(t, dir, files)
	// Fixed times, so listings do not depend on when the test ran.
	when := time.Date(2024, 3, 5, 14, 7, 0, 0, time.UTC)
	filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, when, when) })
	cmd := exec.Command("zip", append([]string{"-q", "out.zip"}, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "TZ=UTC"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("zip %v: %v\n%s", args, err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out.zip"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestUnzipGNU compares unzip with Info-ZIP's on archives Info-ZIP's zip
// made: listings, tests, extraction (the files written), prompts
// answered from stdin, and errors.
func TestUnzipGNU(t *testing.T) {
	requireHost(t, "zip", "unzip")
	defer func(l *time.Location) { time.Local = l }(time.Local)
	time.Local = time.UTC // as the reference runs (TZ=UTC)
	files := map[string]string{
		"t.zip":       hostZip(t, zipSources, "-r", "a.txt", "big.txt", "d", "empty.txt", "bin.dat", "sp ace.txt"),
		"s.zip":       hostZip(t, zipSources, "-0", "a.txt", "big.txt"),
		"j.zip":       hostZip(t, zipSources, "-j", "d/x.txt", "d/e/y.txt"),
		"nd.zip":      hostZip(t, zipSources, "-rD", "d"),
		"notzip":      "just text\n",
		"exist/a.txt": "old\n",
	}
	var cases []commandtest.Case
	for _, line := range []string{
		"unzip -l t.zip", "unzip -l s.zip", "unzip -lq t.zip", "unzip -lqq t.zip", "unzip -v t.zip", "unzip -v s.zip",
		"unzip -t t.zip", "unzip -tq t.zip", "unzip -Z1 t.zip", "unzip -Z t.zip", "unzip -Z j.zip",
		"unzip t.zip", "unzip -d out t.zip", "unzip -q t.zip", "unzip -qq -d o t.zip", "unzip -d out t.zip a.txt",
		"unzip -d out t.zip 'd/*'", "unzip -d out t.zip -x 'd/*'", "unzip -j -d out t.zip", "unzip -d out t.zip nope",
		"unzip -d out t.zip a.txt nope", "unzip -p t.zip a.txt", "unzip -p t.zip", "unzip -c t.zip a.txt d/x.txt",
		"unzip t", "unzip nope.zip", "unzip nope", "unzip notzip", "unzip -l nope", "unzip nd.zip", "unzip s.zip",
		"unzip -o -d exist t.zip a.txt", "unzip -n -d exist t.zip a.txt", "unzip -d exist t.zip a.txt",
		"unzip -l t.zip 'd/*'", "unzip -l t.zip -x '*.txt'", "unzip -C -l t.zip 'A.TXT'", "unzip -d out -o t.zip",
	} {
		cases = append(cases, commandtest.Case{Line: line})
	}
	cases = append(cases,
		commandtest.Case{Line: "unzip -d exist t.zip a.txt", Stdin: "y\n"},
		commandtest.Case{Line: "unzip -d exist t.zip a.txt", Stdin: "n\n"},
		commandtest.Case{Line: "unzip -d exist t.zip a.txt", Stdin: "N\n"},
		commandtest.Case{Line: "unzip -d exist t.zip", Stdin: "A\n"},
	)
	d := commandtest.Differential{Commands: map[string]command.Func{"unzip": runUnzip}, Files: files}
	d.Run(t, cases)
}

// TestZipGNU compares zip with Info-ZIP's: its messages and status, and
// archives Info-ZIP's unzip tests clean and extracts to the same files.
func TestZipGNU(t *testing.T) {
	requireHost(t, "zip", "unzip")
	files := map[string]string{}
	for k, v := range zipSources {
		files[k] = v
	}
	files["old.zip"] = hostZip(t, zipSources, "a.txt", "d/x.txt")
	pass, total := 0, 0
	for _, line := range []string{
		"zip t.zip a.txt big.txt", "zip t a.txt", "zip -r r.zip d", "zip -q q.zip a.txt", "zip n.zip nope",
		"zip n2.zip a.txt nope", "zip -j j.zip d/x.txt d/e/y.txt", "zip e.zip empty.txt", "zip -0 s.zip big.txt",
		"zip -9 n.zip big.txt", "zip -r x.zip d -x '*.md'", "zip -rD dd.zip d", "zip -r i.zip d -i '*.txt'",
		"zip old.zip a.txt", "zip old.zip big.txt", "zip -d old.zip a.txt", "zip -d old.zip nope", "zip -d old.zip 'd/*'",
		"zip -u old.zip a.txt", "zip -x", "zip t.zip", "zip -r r2.zip d/", "zip -r r3.zip ./d", "zip b.zip bin.dat",
		"zip d.zip d", "zip sp.zip 'sp ace.txt'", "zip -m m.zip empty.txt", "zip -rq - a.txt",
	} {
		total++
		argv := commandtest.Words(line)
		host := t.TempDir()
		commandtest.WriteTree(t, host, files)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = host, []string{"PATH=/usr/bin:/bin", "TZ=UTC"}
		var ho, he bytes.Buffer
		cmd.Stdout, cmd.Stderr = &ho, &he
		hcode := 0
		if err := cmd.Run(); err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatal(err)
			}
			hcode = ee.ExitCode()
		}
		sb := commandtest.New(t)
		commandtest.WriteTree(t, sb.Workspace, files)
		r := sb.Run(t.Context(), runZip, "", argv...)
		ok := true
		stdout := r.Stdout
		if strings.Contains(line, " - ") {
			// The archive went to stdout: compare what it holds.
			stdout, ho = "", bytes.Buffer{}
		}
		if sortLines(stdout) != sortLines(ho.String()) || r.Code != hcode || r.Stderr != he.String() {
			t.Errorf("%s:\n stdout %q\n   want %q\n exit %d, want %d\n stderr %q\n   want %q", line, r.Stdout, ho.String(), r.Code, hcode, r.Stderr, he.String())
			ok = false
		}
		// Every archive both made must hold the same members and data,
		// and Info-ZIP must find ours sound.
		hostAfter, oursAfter := commandtest.Snapshot(host), commandtest.Snapshot(sb.Workspace)
		for name := range hostAfter {
			if !strings.HasSuffix(name, ".zip") {
				if hostAfter[name] != oursAfter[name] {
					t.Errorf("%s: %s is %q, want %q", line, name, oursAfter[name], hostAfter[name])
					ok = false
				}
				continue
			}
			if want, got := zipContents(t, host, name), zipContents(t, sb.Workspace, name); got != want {
				t.Errorf("%s: %s holds\n%s\nwant\n%s", line, name, got, want)
				ok = false
			}
		}
		for name := range oursAfter {
			if _, found := hostAfter[name]; !found {
				t.Errorf("%s: made %s, which Info-ZIP did not", line, name)
				ok = false
			}
		}
		if ok {
			pass++
		}
	}
	t.Logf("%d/%d cases match the host's zip", pass, total)
}

// zipContents tests an archive with Info-ZIP's unzip and describes it:
// each member (sorted) with its data.
func zipContents(t *testing.T, dir, name string) string {
	t.Helper()
	test := exec.Command("unzip", "-tqq", name)
	test.Dir = dir
	if out, err := test.CombinedOutput(); err != nil {
		return fmt.Sprintf("unzip -t failed: %v %s", err, out)
	}
	list, err := exec.Command("unzip", "-Z1", filepath.Join(dir, name)).Output()
	if err != nil {
		return "unzip -Z1 failed: " + err.Error()
	}
	var b strings.Builder
	names := strings.Fields(strings.ReplaceAll(string(list), " ", "\x00"))
	sort.Strings(names)
	for _, n := range names {
		n = strings.ReplaceAll(n, "\x00", " ")
		data, _ := exec.Command("unzip", "-p", filepath.Join(dir, name), n).Output()
		fmt.Fprintf(&b, "%s: %q\n", n, data)
	}
	return b.String()
}

// TestUnzipBounds: an archive that would expand past the runner's bound
// is refused before anything is written; one whose sizes lie stops at the
// lie; names that climb out of the destination stay in it.
func TestUnzipBounds(t *testing.T) {
	build := func(entries func(zw *zip.Writer)) string {
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		entries(zw)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	bomb := build(func(zw *zip.Writer) {
		for i := range 3 {
			// Declared as 100 MiB each; the data is never read.
			w, _ := zw.CreateRaw(&zip.FileHeader{Name: fmt.Sprintf("z%d", i), Method: zip.Store,
				UncompressedSize64: 100 << 20, CompressedSize64: 4})
			w.Write([]byte("zzzz"))
		}
	})
	var zeros bytes.Buffer
	fw, _ := flate.NewWriter(&zeros, 9)
	fw.Write(make([]byte, 1<<20))
	fw.Close()
	liar := build(func(zw *zip.Writer) {
		w, _ := zw.CreateRaw(&zip.FileHeader{Name: "small.txt", Method: zip.Deflate,
			UncompressedSize64: 10, CompressedSize64: uint64(zeros.Len()), CRC32: 0})
		w.Write(zeros.Bytes())
	})
	slip := build(func(zw *zip.Writer) {
		for _, n := range []string{"../evil.txt", "/abs.txt", "a/../../up.txt"} {
			w, _ := zw.Create(n)
			w.Write([]byte("x"))
		}
	})
	sb := commandtest.New(t)
	sb.WriteFiles(t, map[string]string{"bomb.zip": bomb, "liar.zip": liar, "slip.zip": slip})
	r := sb.Run(t.Context(), runUnzip, "", "unzip", "-d", "out", "bomb.zip")
	if r.Code != 50 || !strings.Contains(r.Stderr, "would expand to 314572800 bytes, over the runner's limit") {
		t.Errorf("bomb: %+v", r)
	}
	if ents, _ := os.ReadDir(filepath.Join(sb.Workspace, "out")); len(ents) != 0 {
		t.Errorf("bomb: wrote %v", ents)
	}
	r = sb.Run(t.Context(), runUnzip, "", "unzip", "-d", "out2", "liar.zip")
	if r.Code == 0 || !strings.Contains(r.Stderr, "damaged") {
		t.Errorf("liar: %+v", r)
	}
	if fi, err := os.Stat(filepath.Join(sb.Workspace, "out2", "small.txt")); err == nil && fi.Size() > 64<<10 {
		t.Errorf("liar: wrote %d bytes for a 10-byte member", fi.Size())
	}
	r = sb.Run(t.Context(), runUnzip, "", "unzip", "-d", "in", "slip.zip")
	for _, p := range []string{"in/evil.txt", "in/abs.txt", "in/a/up.txt"} {
		if _, err := os.Stat(filepath.Join(sb.Workspace, p)); err != nil {
			t.Errorf("slip: %s missing: %v (%+v)", p, err, r)
		}
	}
	for _, p := range []string{"evil.txt", "up.txt", "abs.txt"} {
		if _, err := os.Stat(filepath.Join(sb.Workspace, p)); err == nil {
			t.Errorf("slip: %s was written outside the destination", p)
		}
	}
	if !strings.Contains(r.Stderr, `warning:  skipped "../" path component(s) in ../evil.txt`) {
		t.Errorf("slip: %q", r.Stderr)
	}
}
