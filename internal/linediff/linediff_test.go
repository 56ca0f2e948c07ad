package linediff

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/wsfs/wsfs/internal/testenv"
)

func gnuDiff(t testing.TB) string {
	p, err := exec.LookPath("diff")
	if err == nil {
		if out, err := exec.Command(p, "--version").Output(); err == nil && bytes.Contains(out, []byte("GNU diffutils")) {
			return p
		}
	}
	testenv.Missing(t, "GNU diff, the reference for linediff")
	return ""
}

// TestUnifiedIsGNUs compares Unified with GNU diff -u byte for byte on
// random texts made of few distinct lines (many equally short edit
// scripts, so the choice among them shows), with and without final
// newlines, at several context widths.
func TestUnifiedIsGNUs(t *testing.T) {
	bin := gnuDiff(t)
	dir := t.TempDir()
	fa, fb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	rapid.Check(t, func(rt *rapid.T) {
		lines := rapid.SliceOfN(rapid.SampledFrom([]string{"a\n", "b\n", "c\n", "d\n", "\n", "e"}), 0, 40)
		a := strings.Join(lines.Draw(rt, "a"), "")
		b := strings.Join(lines.Draw(rt, "b"), "")
		context := rapid.IntRange(0, 4).Draw(rt, "context")
		got := Unified("a", "b", []byte(a), []byte(b), context)
		os.WriteFile(fa, []byte(a), 0o644)
		os.WriteFile(fb, []byte(b), 0o644)
		want, err := exec.Command(bin, fmt.Sprintf("-U%d", context), "--label", "a", "--label", "b", fa, fb).Output()
		var ee *exec.ExitError
		if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
			rt.Fatalf("GNU diff: %v", err)
		}
		if got != string(want) {
			rt.Fatalf("a %q b %q -U%d\nours:\n%s\nGNU:\n%s", a, b, context, got, want)
		}
		if got != "" {
			if res, err := applyUnified(a, got); err != nil || res != b {
				rt.Fatalf("applying our diff gives %q, %v; want %q", res, err, b)
			}
		}
	})
}

// TestUnifiedLargeIsGNUs: two large, mostly different texts, where GNU's
// too-expensive cutoff gives up on a minimal script; the diff is still
// GNU's and still turns a into b.
func TestUnifiedLargeIsGNUs(t *testing.T) {
	bin := gnuDiff(t)
	var a, b strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&a, "a line %d\n", i%1500)
		fmt.Fprintf(&b, "b line %d\n", i%1700)
		if i%100 == 0 {
			fmt.Fprintf(&a, "shared %d\n", i)
			fmt.Fprintf(&b, "shared %d\n", i)
		}
	}
	got := Unified("a", "b", []byte(a.String()), []byte(b.String()), 3)
	if res, err := applyUnified(a.String(), got); err != nil || res != b.String() {
		t.Fatalf("the diff does not turn a into b: %v", err)
	}
	dir := t.TempDir()
	fa, fb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(fa, []byte(a.String()), 0o644)
	os.WriteFile(fb, []byte(b.String()), 0o644)
	want, _ := exec.Command(bin, "-u", "--label", "a", "--label", "b", fa, fb).Output()
	if got != string(want) {
		t.Errorf("ours (%d bytes) differs from GNU's (%d bytes)", len(got), len(want))
	}
}

func TestCancelled(t *testing.T) {
	a, b := NewText([]byte("x\ny\nz\n")), NewText([]byte("q\ny\nr\n"))
	if got := Diff(a, b, Options{Cancelled: func() bool { return true }}); got != nil {
		t.Errorf("a cancelled diff returned %+v", got)
	}
	if got := Diff(a, b, Options{}); len(got) != 2 {
		t.Errorf("changes %+v, want two", got)
	}
}

// applyUnified applies a unified diff to a, checking every context and
// removed line, as patch would without fuzz.
func applyUnified(a, u string) (string, error) {
	src := strings.SplitAfter(a, "\n")
	if src[len(src)-1] == "" {
		src = src[:len(src)-1]
	}
	var out []string
	pos := 0
	lines := strings.SplitAfter(u, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "@@ ") {
			continue
		}
		var as, ac, bs, bc int
		if _, err := fmt.Sscanf(hunkNorm(l), "@@ -%d,%d +%d,%d @@", &as, &ac, &bs, &bc); err != nil {
			return "", fmt.Errorf("bad hunk header %q: %v", l, err)
		}
		start := as - 1
		if ac == 0 {
			start = as
		}
		if start < pos || start > len(src) {
			return "", fmt.Errorf("hunk %q out of order", l)
		}
		out = append(out, src[pos:start]...)
		pos = start
		for i+1 < len(lines) && lines[i+1] != "" && !strings.HasPrefix(lines[i+1], "@@ ") {
			i++
			body := lines[i]
			text := body[1:]
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\\ No newline") {
				text = strings.TrimSuffix(text, "\n")
				i++
			}
			switch body[0] {
			case ' ', '-':
				if pos >= len(src) || src[pos] != text {
					return "", fmt.Errorf("line %d: want %q", pos+1, text)
				}
				if body[0] == ' ' {
					out = append(out, text)
				}
				pos++
			case '+':
				out = append(out, text)
			}
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, ""), nil
}

// hunkNorm writes "@@ -3 +3 @@" as "@@ -3,1 +3,1 @@".
func hunkNorm(h string) string {
	f := strings.Fields(h)
	for i := 1; i <= 2 && i < len(f); i++ {
		if !strings.Contains(f[i], ",") {
			f[i] += ",1"
		}
	}
	return strings.Join(f, " ")
}
