package meta

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/wsfs/wsfs/objects"
)

// textDiff fills d.Unified (or d.Binary) for a file diff.
func (db *DB) textDiff(ctx context.Context, d *FileDiff, opts DiffOptions) error {
	isFile := func(e *Entry) bool { return e == nil || e.Kind == KindFile }
	if !isFile(d.Old) || !isFile(d.New) || (d.Old == nil && d.New == nil) {
		return nil
	}
	if d.Old != nil && d.New != nil && d.Old.Digest == d.New.Digest {
		return nil // mode or mtime only
	}
	max := opts.MaxTextBytes
	if max <= 0 {
		max = 1 << 20
	}
	read := func(e *Entry) ([]byte, bool, error) {
		if e == nil {
			return nil, true, nil
		}
		if e.Size > max {
			return nil, false, nil
		}
		b, err := objects.Get(ctx, db.store, e.Digest)
		if err != nil {
			return nil, false, fmt.Errorf("meta: diff %s: %w", d.Path, err)
		}
		return b, isText(b), nil
	}
	a, okA, err := read(d.Old)
	if err != nil {
		return err
	}
	b, okB, err := read(d.New)
	if err != nil {
		return err
	}
	if !okA || !okB {
		d.Binary = true
		return nil
	}
	ctxLines := opts.Context
	if ctxLines <= 0 {
		ctxLines = 3
	}
	from, to := "a/"+d.Path, "b/"+d.Path
	if d.Old == nil {
		from = "/dev/null"
	}
	if d.New == nil {
		to = "/dev/null"
	}
	d.Unified = UnifiedDiff(from, to, string(a), string(b), ctxLines)
	return nil
}

func isText(b []byte) bool {
	return bytes.IndexByte(b, 0) < 0 && utf8.Valid(b)
}

// splitLines splits s into lines that keep their "\n".
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// editKind is one step of an edit script.
type editKind byte

const (
	editEqual editKind = iota
	editDelete
	editInsert
)

// maxEditCost bounds the work of the Myers search; past it the diff falls
// back to deleting what remains of a and inserting what remains of b,
// which is still a correct (if not minimal) diff.
const maxEditCost = 1500

// diffLines returns an edit script turning a into b (Myers' O(ND)
// algorithm on the part between the common prefix and suffix).
func diffLines(a, b []string) []editKind {
	var script []editKind
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	for i := 0; i < pre; i++ {
		script = append(script, editEqual)
	}
	script = append(script, myers(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for i := 0; i < suf; i++ {
		script = append(script, editEqual)
	}
	return script
}

func myers(a, b []string) []editKind {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		out := make([]editKind, 0, n+m)
		for i := 0; i < n; i++ {
			out = append(out, editDelete)
		}
		for i := 0; i < m; i++ {
			out = append(out, editInsert)
		}
		return out
	}
	max := n + m
	limit := max
	if limit > maxEditCost {
		limit = maxEditCost
	}
	off := max + 1
	v := make([]int, 2*max+3)
	// trace[d] keeps v[off-d-1 : off+d+2] as it was before step d, which
	// is all the walk back reads; memory is O(D²), not O((N+M)·D).
	var trace [][]int
	found := -1
	for d := 0; d <= limit && found < 0; d++ {
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = d
				break
			}
		}
	}
	if found < 0 {
		out := make([]editKind, 0, n+m)
		for i := 0; i < n; i++ {
			out = append(out, editDelete)
		}
		for i := 0; i < m; i++ {
			out = append(out, editInsert)
		}
		return out
	}
	// Walk back through the saved frontiers.
	var rev []editKind
	x, y := n, m
	for d := found; d > 0; d-- {
		snap := trace[d]
		vd := func(k int) int { return snap[k+d+1] }
		k := x - y
		var pk int
		if k == -d || (k != d && vd(k-1) < vd(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := vd(pk)
		py := px - pk
		for x > px && y > py {
			rev = append(rev, editEqual)
			x--
			y--
		}
		if x == px {
			rev = append(rev, editInsert)
			y--
		} else {
			rev = append(rev, editDelete)
			x--
		}
	}
	for x > 0 && y > 0 {
		rev = append(rev, editEqual)
		x--
		y--
	}
	out := make([]editKind, len(rev))
	for i := range rev {
		out[i] = rev[len(rev)-1-i]
	}
	return out
}

// UnifiedDiff returns a unified diff of two texts with ctx lines of
// context, as diff -u prints it ("" when they are equal). A last line
// without a newline is marked "\ No newline at end of file".
func UnifiedDiff(fromName, toName, a, b string, ctx int) string {
	if a == b {
		return ""
	}
	al, bl := splitLines(a), splitLines(b)
	script := diffLines(al, bl)
	type line struct {
		kind editKind
		text string
		ai   int // index in a (equal, delete) or next a index (insert)
		bi   int
	}
	lines := make([]line, 0, len(script))
	ai, bi := 0, 0
	for _, k := range script {
		switch k {
		case editEqual:
			lines = append(lines, line{k, al[ai], ai, bi})
			ai++
			bi++
		case editDelete:
			lines = append(lines, line{k, al[ai], ai, bi})
			ai++
		case editInsert:
			lines = append(lines, line{k, bl[bi], ai, bi})
			bi++
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", fromName, toName)
	for i := 0; i < len(lines); {
		if lines[i].kind == editEqual {
			i++
			continue
		}
		// A hunk: from ctx lines before this change to ctx lines after the
		// last change that is within 2*ctx of the previous one.
		start := i - ctx
		if start < 0 {
			start = 0
		}
		end := i
		for j := i; j < len(lines); j++ {
			if lines[j].kind != editEqual {
				end = j
			} else if j-end > 2*ctx {
				break
			}
		}
		stop := end + ctx + 1
		if stop > len(lines) {
			stop = len(lines)
		}
		aStart, bStart := lines[start].ai, lines[start].bi
		var aCount, bCount int
		for _, l := range lines[start:stop] {
			if l.kind != editInsert {
				aCount++
			}
			if l.kind != editDelete {
				bCount++
			}
		}
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(aStart, aCount), hunkRange(bStart, bCount))
		for _, l := range lines[start:stop] {
			prefix := " "
			switch l.kind {
			case editDelete:
				prefix = "-"
			case editInsert:
				prefix = "+"
			}
			sb.WriteString(prefix)
			sb.WriteString(l.text)
			if !strings.HasSuffix(l.text, "\n") {
				sb.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = stop
	}
	return sb.String()
}

func hunkRange(start, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}
