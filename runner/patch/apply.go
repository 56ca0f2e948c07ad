package patch

import (
	"strings"
)

// fileLine is one line of the file being patched.
type fileLine struct {
	text  string // without its newline
	noEOL bool   // the file's last line, without a newline
}

func splitFile(data string) []fileLine {
	var out []fileLine
	for data != "" {
		i := strings.IndexByte(data, '\n')
		if i < 0 {
			out = append(out, fileLine{text: data, noEOL: true})
			break
		}
		out = append(out, fileLine{text: data[:i]})
		data = data[i+1:]
	}
	return out
}

func joinFile(lines []fileLine) string {
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(l.text)
		if !l.noEOL || i < len(lines)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// applier applies the hunks of one file as GNU patch does: each hunk is
// looked for where its line numbers and the offsets of the hunks before
// it say, then at growing distances either side, first exactly and then
// with up to maxFuzz context lines ignored at each end.
type applier struct {
	input       []fileLine
	out         []fileLine
	copied      int // input lines consumed so far (0-based next line)
	lastFrozen  int // GNU's last_frozen_line: the last input line (1-based) the output holds
	inOffset    int // GNU's in_offset
	ignoreSpace bool
}

// lineMatches compares a pattern line with a file line: their text, and
// whether each lacks its newline (a patch's last line without one does
// not match a file's with one).
func (a *applier) lineMatches(h hunkLine, f fileLine) bool {
	if h.noEOL != f.noEOL {
		return false
	}
	if !a.ignoreSpace {
		return h.text == f.text
	}
	return strings.Join(strings.Fields(h.text), " ") == strings.Join(strings.Fields(f.text), " ")
}

// patchMatch reports whether the hunk's pattern lines, fuzz lines cut at
// each end, match the input at base+offset (1-based).
func (a *applier) patchMatch(pattern []hunkLine, base, offset, prefixFuzz, suffixFuzz int) bool {
	first := base + offset
	for i := prefixFuzz; i < len(pattern)-suffixFuzz; i++ {
		n := first + i - 1 // 0-based input index
		if n < 0 || n >= len(a.input) || !a.lineMatches(pattern[i], a.input[n]) {
			return false
		}
	}
	return true
}

// locate finds where the hunk applies with fuzz ignored context lines:
// the 1-based input line, 0 when it does not. It moves inOffset as GNU's
// locate_hunk does.
func (a *applier) locate(h *hunk, fuzz int) int {
	pattern := h.oldLines()
	firstGuess := h.oldFirst + a.inOffset
	patLines := len(pattern)
	prefix, suffix := h.prefixContext(), h.suffixContext()
	context := max(prefix, suffix)
	prefixFuzz := fuzz + prefix - context
	suffixFuzz := fuzz + suffix - context
	inputLines := len(a.input)
	maxWhere := inputLines - (patLines - suffixFuzz) + 1
	minWhere := a.lastFrozen + 1 - (prefix - prefixFuzz)
	maxPosOffset := maxWhere - firstGuess
	maxNegOffset := firstGuess - minWhere
	maxOffset := max(maxPosOffset, maxNegOffset)
	if patLines == 0 {
		return firstGuess
	}
	if firstGuess <= maxNegOffset {
		maxNegOffset = firstGuess - 1
	}
	if prefixFuzz < 0 && h.oldFirst <= 1 {
		// Only the start of the file will do.
		if suffixFuzz < 0 && (patLines != inputLines || prefix < a.lastFrozen) {
			return 0
		}
		offset := 1 - firstGuess
		if a.lastFrozen <= prefix && offset <= maxPosOffset &&
			a.patchMatch(pattern, firstGuess, offset, 0, max(suffixFuzz, 0)) {
			a.inOffset += offset
			return firstGuess + offset
		}
		return 0
	} else if prefixFuzz < 0 {
		prefixFuzz = 0
	}
	if suffixFuzz < 0 {
		// Only the end of the file will do.
		offset := firstGuess - (inputLines - patLines + 1)
		if offset <= maxNegOffset && a.patchMatch(pattern, firstGuess, -offset, prefixFuzz, 0) {
			a.inOffset -= offset
			return firstGuess - offset
		}
		return 0
	}
	for offset := 0; offset <= maxOffset; offset++ {
		if offset <= maxPosOffset && a.patchMatch(pattern, firstGuess, offset, prefixFuzz, suffixFuzz) {
			a.inOffset += offset
			return firstGuess + offset
		}
		if offset > 0 && offset <= maxNegOffset && a.patchMatch(pattern, firstGuess, -offset, prefixFuzz, suffixFuzz) {
			a.inOffset -= offset
			return firstGuess - offset
		}
	}
	return 0
}

// apply writes the hunk at where (1-based): input lines up to it are
// copied, then the hunk's new side, the file's own lines kept for the
// context (which may differ under fuzz).
func (a *applier) apply(h *hunk, where int) {
	for a.copied < where-1 && a.copied < len(a.input) {
		a.out = append(a.out, a.input[a.copied])
		a.copied++
	}
	for _, l := range h.lines {
		switch l.kind {
		case ' ':
			if a.copied < len(a.input) {
				a.out = append(a.out, a.input[a.copied])
				a.copied++
			}
		case '-':
			a.copied++
		case '+':
			a.out = append(a.out, fileLine{text: l.text, noEOL: l.noEOL})
		}
	}
	a.lastFrozen = a.copied
}

// finish copies the rest of the input and returns the new file.
func (a *applier) finish() []fileLine {
	for a.copied < len(a.input) {
		a.out = append(a.out, a.input[a.copied])
		a.copied++
	}
	// A line that lost its place as the last one gets its newline.
	for i := 0; i < len(a.out)-1; i++ {
		if a.out[i].noEOL {
			a.out[i].noEOL = false
		}
	}
	return a.out
}
