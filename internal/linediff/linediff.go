// Package linediff compares two texts line by line as GNU diff does, for
// the runner's diff command and for `wsfs diff` (meta's file diffs): the
// same edit script GNU diffutils 3.8 chooses, grouped into the same hunks
// and written as `diff -u` writes them, so both print what GNU prints.
//
// The pipeline is GNU's: the identical prefix and suffix are set aside
// (find_identical_ends, keeping as many lines of them next to the changes
// as the output shows as context), lines get equivalence classes (exact
// bytes, or a Key such as diff -i or -w make), lines without a match on
// the other side are discarded from the search (discard_confusing_lines),
// the O(ND) search of diffseq.h runs with its too-expensive cutoff (so a
// large, very different pair of files costs O(N·√N)-ish time, not O(N·D)),
// and changes slide to GNU's boundaries (shift_boundaries).
//
// A last line without a newline differs from the same line with one, and
// is marked "\ No newline at end of file".
package linediff

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Text is one side of a comparison.
type Text struct {
	Data  []byte
	Lines [][]byte // without their newlines
	NoEOL bool     // the last line lacks its newline
}

// NewText splits data into lines.
func NewText(data []byte) *Text {
	t := &Text{Data: data}
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			t.Lines = append(t.Lines, data)
			t.NoEOL = true
			break
		}
		t.Lines = append(t.Lines, data[:i])
		data = data[i+1:]
	}
	return t
}

// Change is one run of changed lines: Del lines of a from line A and Ins
// lines of b from line B (0-based; A is where b's lines go when Del is 0).
type Change struct {
	A, B     int
	Del, Ins int
}

// Options shape a comparison.
type Options struct {
	// Horizon is how many lines of the identical prefix and suffix stay in
	// the comparison: the context lines of the output (GNU's horizon).
	Horizon int
	// Key maps a line to what is compared (diff -i, -w, -b,
	// --strip-trailing-cr); nil compares bytes.
	Key func(line []byte) string
	// Minimal searches for a minimal edit script without the cutoff
	// (diff -d).
	Minimal bool
	// Cancelled, when set, is polled during the search; once it says true
	// Diff returns nil.
	Cancelled func() bool
}

// Diff returns the changes that turn a into b, in order.
func Diff(a, b *Text, o Options) []Change {
	cancelled := o.Cancelled
	if cancelled == nil {
		cancelled = func() bool { return false }
	}
	pre, suf := 0, 0
	if o.Key == nil {
		// Lines that differ only in what a Key ignores are not
		// byte-identical, so only exact comparisons set ends aside.
		pre, suf = identicalEnds(a.Data, b.Data, a.NoEOL, b.NoEOL, o.Horizon)
		suf = min(suf, len(a.Lines)-pre, len(b.Lines)-pre)
	}
	classes := map[string]int{}
	eq := func(t *Text) []int {
		lines := t.Lines[pre : len(t.Lines)-suf]
		out := make([]int, len(lines))
		for i, l := range lines {
			k := string(l)
			if o.Key != nil {
				k = o.Key(l)
			}
			if t.NoEOL && suf == 0 && i == len(lines)-1 {
				k += "\x00noeol"
			}
			c, ok := classes[k]
			if !ok {
				c = len(classes) + 1
				classes[k] = c
			}
			out[i] = c
		}
		return out
	}
	e0, e1 := eq(a), eq(b)
	changes := compare(e0, e1, len(classes), o.Minimal, cancelled)
	for i := range changes {
		changes[i].A += pre
		changes[i].B += pre
	}
	return changes
}

// identicalEnds counts the lines of the common prefix and suffix that GNU
// diff leaves out of the comparison (io.c find_identical_ends), keeping
// horizon lines of each next to the changes.
func identicalEnds(d0, d1 []byte, miss0, miss1 bool, horizon int) (int, int) {
	n0, n1 := len(d0), len(d1)
	p := 0
	for p < n0 && p < n1 && d0[p] == d1[p] {
		p++
	}
	if (n0-boolInt(miss0) < p) != (n1-boolInt(miss1) < p) {
		p--
	}
	for i := horizon; p > 0; {
		if d0[p-1] != '\n' {
			p--
			continue
		}
		if i > 0 {
			i--
			p--
			continue
		}
		break
	}
	prefix := bytes.Count(d0[:p], []byte{'\n'})
	if miss0 != miss1 {
		return prefix, 0
	}
	q0, q1 := n0, n1
	beg := p + max(n0-n1, 0)
	for q0 != beg {
		q0--
		q1--
		if d0[q0] != d1[q1] {
			q0++
			q1++
			break
		}
	}
	atStart := (q0 == 0 || d0[q0-1] == '\n') && (q1 == 0 || d1[q1-1] == '\n')
	for i := horizon + boolInt(!atStart); i > 0 && q0 != n0; i-- {
		for q0 < n0 && d0[q0] != '\n' {
			q0++
		}
		q0++
	}
	q0 = min(q0, n0)
	suffix := bytes.Count(d0[q0:], []byte{'\n'})
	if miss0 && q0 < n0 {
		suffix++
	}
	return prefix, suffix
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Hunk is a group of changes printed together with their context, as
// diff -u and -c group them: lines A0..A1 of a and B0..B1 of b (0-based,
// inclusive; A1 < A0 when the hunk shows no line of a).
type Hunk struct {
	Changes        []Change
	A0, A1, B0, B1 int
}

// Hunks groups changes whose context would touch or overlap (fewer than
// 2·context+1 unchanged lines between them).
func Hunks(changes []Change, a, b *Text, context int) []Hunk {
	var hunks []Hunk
	thresh := 2*context + 1
	for start := 0; start < len(changes); {
		end := start
		for end+1 < len(changes) && changes[end+1].A-(changes[end].A+changes[end].Del) < thresh {
			end++
		}
		group := changes[start : end+1]
		last := group[len(group)-1]
		hunks = append(hunks, Hunk{Changes: group,
			A0: max(group[0].A-context, 0), A1: min(last.A+last.Del-1+context, len(a.Lines)-1),
			B0: max(group[0].B-context, 0), B1: min(last.B+last.Ins-1+context, len(b.Lines)-1)})
		start = end + 1
	}
	return hunks
}

// WriteLine writes one line of t with its prefix, and GNU's marker when
// it is a last line without a newline.
func WriteLine(w io.Writer, prefix string, t *Text, i int) error {
	line := make([]byte, 0, len(prefix)+len(t.Lines[i])+1)
	line = append(append(append(line, prefix...), t.Lines[i]...), '\n')
	if i == len(t.Lines)-1 && t.NoEOL {
		line = append(line, "\\ No newline at end of file\n"...)
	}
	_, err := w.Write(line)
	return err
}

// WriteUnified writes changes as diff -u does: the "---" and "+++" lines
// with the headers given (a name, and GNU's tab and time if wanted), then
// each hunk.
func WriteUnified(w io.Writer, fromHeader, toHeader string, a, b *Text, changes []Change, context int) error {
	if _, err := fmt.Fprintf(w, "--- %s\n+++ %s\n", fromHeader, toHeader); err != nil {
		return err
	}
	for _, h := range Hunks(changes, a, b, context) {
		if _, err := fmt.Fprintf(w, "@@ -%s +%s @@\n", unifiedRange(h.A0, h.A1), unifiedRange(h.B0, h.B1)); err != nil {
			return err
		}
		i, j, k := h.A0, h.B0, 0
		for i <= h.A1 || j <= h.B1 {
			if k >= len(h.Changes) || i < h.Changes[k].A {
				if err := WriteLine(w, " ", a, i); err != nil {
					return err
				}
				i++
				j++
				continue
			}
			for n := 0; n < h.Changes[k].Del; n++ {
				if err := WriteLine(w, "-", a, i); err != nil {
					return err
				}
				i++
			}
			for n := 0; n < h.Changes[k].Ins; n++ {
				if err := WriteLine(w, "+", b, j); err != nil {
					return err
				}
				j++
			}
			k++
		}
	}
	return nil
}

// unifiedRange is a hunk's "start,count" for lines first..last (0-based).
func unifiedRange(first, last int) string {
	switch {
	case last < first:
		return strconv.Itoa(last+1) + ",0"
	case last == first:
		return strconv.Itoa(first + 1)
	}
	return strconv.Itoa(first+1) + "," + strconv.Itoa(last-first+1)
}

// Unified returns GNU's `diff -u --label fromName --label toName` of two
// texts with context lines of context, or "" when they are equal.
func Unified(fromName, toName string, a, b []byte, context int) string {
	if bytes.Equal(a, b) {
		return ""
	}
	ta, tb := NewText(a), NewText(b)
	var sb strings.Builder
	WriteUnified(&sb, fromName, toName, ta, tb, Diff(ta, tb, Options{Horizon: context}), context) // a Builder does not fail
	return sb.String()
}
