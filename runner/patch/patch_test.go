package patch

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"fmt"
	"github.com/wsfs/wsfs/internal/testenv"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

func seqLines(from, to int, edit map[int]string) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		if s, ok := edit[i]; ok {
			if s != "" {
				b.WriteString(s + "\n")
			}
			continue
		}
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

const uniDiff = `--- a/f.txt	2024-01-01 00:00:00.000000000 +0000
+++ b/f.txt	2024-01-01 00:00:01.000000000 +0000
@@ -2,7 +2,7 @@
 2
 3
 4
-5
+five
 6
 7
 8
@@ -12,7 +12,7 @@
 12
 13
 14
-15
+fifteen
 16
 17
 18
`

const ctxDiff = `*** f.txt	2024-01-01 00:00:00.000000000 +0000
--- f.txt	2024-01-01 00:00:01.000000000 +0000
***************
*** 2,8 ****
  2
  3
  4
! 5
  6
  7
  8
--- 2,8 ----
  2
  3
  4
! five
  6
  7
  8
***************
*** 17,20 ****
  17
  18
  19
- 20
--- 17,19 ----
`

const ctxAddDiff = `*** f.txt
--- f.txt
***************
*** 1,2 ****
--- 1,3 ----
+ zero
  1
  2
`

const normalDiff = `5c5
< 5
---
> five
10a11,12
> ten-a
> ten-b
15,16d16
< 15
< 16
`

const gitDiff = `diff --git a/x.txt b/x.txt
index 1234567..89abcde 100644
--- a/x.txt
+++ b/x.txt
@@ -1,3 +1,3 @@
 a
-b
+B
 c
diff --git a/new.txt b/new.txt
new file mode 100755
index 0000000..1111111
--- /dev/null
+++ b/new.txt
@@ -0,0 +1,2 @@
+hello
+world
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
index 2222222..0000000
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-keep
`

const renameDiff = `diff --git a/old.txt b/renamed.txt
similarity index 80%
rename from old.txt
rename to renamed.txt
index 1234567..89abcde 100644
--- a/old.txt
+++ b/renamed.txt
@@ -1,3 +1,3 @@
 a
-b
+B
 c
`

const noEOLDiff = `--- a/n.txt
+++ b/n.txt
@@ -1,3 +1,3 @@
 a
-b
+B
 c
\ No newline at end of file
`

const addEOLDiff = `--- a/n.txt
+++ b/n.txt
@@ -1,3 +1,3 @@
 a
 b
-c
\ No newline at end of file
+c
`

const zeroCtxDiff = `--- f.txt
+++ f.txt
@@ -5 +5 @@
-5
+five
@@ -10,0 +11,2 @@
+ten-a
+ten-b
`

const twoFiles = `--- a/f.txt
+++ b/f.txt
@@ -1,3 +1,3 @@
-1
+one
 2
 3
--- a/x.txt
+++ b/x.txt
@@ -1,3 +1,4 @@
 a
 b
 c
+d
`

// TestPatchGNU compares patch with GNU patch 2.7: the files it writes
// (.orig and .rej included), its messages and status.
func TestPatchGNU(t *testing.T) {
	files := map[string]string{
		"f.txt": seqLines(1, 20, nil), "x.txt": "a\nb\nc\n", "gone.txt": "keep\n", "old.txt": "a\nb\nc\n",
		"n.txt": "a\nb\nc", "n2.txt": "a\nb\nc\n",
		"off.txt":  "x\ny\n" + seqLines(1, 20, nil),
		"fz.txt":   seqLines(1, 20, map[int]string{2: "TWO", 18: "X"}),
		"fz2.txt":  seqLines(1, 20, map[int]string{3: "THREE", 17: "Y"}),
		"fail.txt": seqLines(1, 20, map[int]string{5: "zz"}),
		"half.txt": "x\ny\n" + seqLines(1, 20, map[int]string{15: "zz"}),
		"done.txt": seqLines(1, 20, map[int]string{5: "five", 15: "fifteen"}),
		"dup.txt":  seqLines(1, 8, nil) + seqLines(1, 20, nil),
		"u.diff":   uniDiff, "c.diff": ctxDiff, "ca.diff": ctxAddDiff, "n.diff": normalDiff, "g.diff": gitDiff, "r.diff": renameDiff,
		"noeol.diff": noEOLDiff, "addeol.diff": addEOLDiff, "z.diff": zeroCtxDiff, "two.diff": twoFiles,
		"sub/f.txt": seqLines(1, 20, nil), "garbage.diff": "just some text\nnothing here\n",
	}
	var cases []commandtest.Case
	add := func(line, stdin string) { cases = append(cases, commandtest.Case{Line: line, Stdin: stdin}) }
	for _, target := range []string{"f.txt", "off.txt", "fz.txt", "fz2.txt", "fail.txt", "half.txt", "done.txt", "dup.txt"} {
		add("patch "+target, uniDiff)
		add("patch --dry-run "+target, uniDiff)
		add("patch -F0 "+target, uniDiff)
		add("patch -F1 "+target, uniDiff)
		add("patch -N "+target, uniDiff)
		add("patch -t "+target, uniDiff)
		add("patch -f "+target, uniDiff)
		add("patch -R "+target, uniDiff)
		add("patch -b "+target, uniDiff)
		add("patch --no-backup-if-mismatch "+target, uniDiff)
		add("patch -o out.txt "+target, uniDiff)
	}
	for _, line := range []string{
		"patch -p1 -i u.diff", "patch -i u.diff", "patch -p0 -i u.diff", "patch -p2 -i u.diff", "patch -t -p2 -i u.diff",
		"patch -p1 -i g.diff", "patch -p1 -R -i g.diff", "patch -p1 --dry-run -i g.diff", "patch -i g.diff",
		"patch -p1 -i r.diff", "patch -p1 -i noeol.diff", "patch -p1 -i addeol.diff", "patch n2.txt -i noeol.diff",
		"patch -i c.diff", "patch -i n.diff f.txt", "patch -i z.diff", "patch -p1 -i two.diff", "patch -s -p1 -i two.diff",
		"patch -i garbage.diff", "patch -d sub -i ../u.diff", "patch -p1 -r my.rej -i u.diff fail.txt",
		"patch --verbose -p1 -i g.diff", "patch -i nope.diff", "patch -p x -i u.diff", "patch f.txt u.diff",
		"patch -E -p1 -i g.diff", "patch -l -i u.diff f.txt", "patch --frob", "patch -i n.diff fail.txt",
		"patch -i c.diff fail.txt", "patch -R -i c.diff done.txt", "patch -i ca.diff", "patch -i ca.diff fail.txt",
		"patch -R -i ca.diff", "patch -N -i ca.diff",
	} {
		add(line, "")
	}
	add("patch", "")
	add("patch -p1", gitDiff)
	add("patch -p1 -N", gitDiff)
	d := commandtest.Differential{Commands: map[string]command.Func{"patch": Patch}, Files: files}
	d.Run(t, cases)
}

// TestPatchGNURandom makes diffs of random files with the host's diff
// (unified and context, 0 to 3 lines of context) and applies them to
// altered copies (lines inserted, removed or changed elsewhere, so
// hunks land at offsets, with fuzz, or fail), as GNU patch does.
func TestPatchGNURandom(t *testing.T) {
	if _, err := exec.LookPath("diff"); err != nil {
		testenv.Missing(t, "the reference diff is not installed (scripts/deps.sh installs it)")
	}
	r := rand.New(rand.NewPCG(5, 9))
	words := []string{"alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "iota", "kappa"}
	randFile := func(n int) []string {
		var l []string
		for range n {
			l = append(l, fmt.Sprintf("%s %d", words[r.IntN(len(words))], r.IntN(50)))
		}
		return l
	}
	edit := func(l []string, k int) []string {
		out := append([]string(nil), l...)
		for range k {
			i := r.IntN(len(out) + 1)
			switch r.IntN(3) {
			case 0:
				out = append(out[:i], append([]string{"inserted " + strconv.Itoa(r.IntN(99))}, out[i:]...)...)
			case 1:
				if i < len(out) {
					out = append(out[:i], out[i+1:]...)
				}
			default:
				if i < len(out) {
					out[i] = "changed " + strconv.Itoa(r.IntN(99))
				}
			}
		}
		return out
	}
	join := func(l []string) string {
		if len(l) == 0 {
			return ""
		}
		return strings.Join(l, "\n") + "\n"
	}
	var cases []commandtest.Case
	for range 80 {
		orig := randFile(20 + r.IntN(40))
		changed := edit(orig, 1+r.IntN(4))
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "a"), []byte(join(orig)), 0o644)
		os.WriteFile(filepath.Join(dir, "b"), []byte(join(changed)), 0o644)
		flag := []string{"-u", "-U0", "-U1", "-c", "-C1", ""}[r.IntN(6)]
		args := []string{"a", "b"}
		if flag != "" {
			args = append([]string{flag}, args...)
		}
		out, _ := exec.Command("diff", args...).Output()
		target := edit(orig, r.IntN(4))
		cases = append(cases, commandtest.Case{Line: "patch -i p.diff t.txt", Files: map[string]string{
			"p.diff": string(out), "t.txt": join(target)}})
	}
	d := commandtest.Differential{Commands: map[string]command.Func{"patch": Patch}}
	d.Run(t, cases)
}
