package patch

import (
	"regexp"
	"strconv"
	"strings"
)

// diffFormat is the format of one file's diff.
type diffFormat int

const (
	formatUnified diffFormat = iota
	formatContext
	formatNormal
)

func (f diffFormat) String() string {
	return [...]string{"a unified diff", "a new-style context diff", "a normal diff"}[f]
}

// hunkLine is one line of a hunk: ' ' context, '-' removed, '+' added.
type hunkLine struct {
	kind  byte
	text  string // without its newline
	noEOL bool   // "\ No newline at end of file" follows
}

// hunk is one change: where it was made (1-based old and new starts, as
// GNU's pch_first and pch_newfirst: for a pure insertion the line it
// goes before) and its lines.
type hunk struct {
	oldFirst, oldLen int
	newFirst, newLen int
	lines            []hunkLine
	startLine        int // the patch's line where it starts
	// A context diff's two sections as written (marks ' ', '-', '!' and
	// ' ', '+', '!'), which its reject file shows again.
	ctxOld, ctxNew []hunkLine
}

func (h *hunk) oldLines() []hunkLine {
	var out []hunkLine
	for _, l := range h.lines {
		if l.kind != '+' {
			out = append(out, l)
		}
	}
	return out
}

// prefixContext and suffixContext count the context lines that open and
// close the hunk.
func (h *hunk) prefixContext() int {
	n := 0
	for _, l := range h.lines {
		if l.kind != ' ' {
			break
		}
		n++
	}
	return n
}

func (h *hunk) suffixContext() int {
	n := 0
	for i := len(h.lines) - 1; i >= 0 && h.lines[i].kind == ' '; i-- {
		n++
	}
	if n == len(h.lines) {
		return 0
	}
	return n
}

// reverse swaps the hunk's sides (-R).
func (h *hunk) reverse() {
	h.oldFirst, h.newFirst = h.newFirst, h.oldFirst
	h.oldLen, h.newLen = h.newLen, h.oldLen
	flip := func(ls []hunkLine) []hunkLine {
		out := append([]hunkLine(nil), ls...)
		for i := range out {
			switch out[i].kind {
			case '-':
				out[i].kind = '+'
			case '+':
				out[i].kind = '-'
			}
		}
		return out
	}
	h.ctxOld, h.ctxNew = flip(h.ctxNew), flip(h.ctxOld)
	// The removed lines of a change come before the added ones.
	var out []hunkLine
	for i := 0; i < len(h.lines); {
		if h.lines[i].kind == ' ' {
			out = append(out, h.lines[i])
			i++
			continue
		}
		var minus, plus []hunkLine
		for ; i < len(h.lines) && h.lines[i].kind != ' '; i++ {
			l := h.lines[i]
			if l.kind == '-' {
				l.kind = '+'
				plus = append(plus, l)
			} else {
				l.kind = '-'
				minus = append(minus, l)
			}
		}
		out = append(append(out, minus...), plus...)
	}
	h.lines = out
}

// filePatch is the diff of one file.
type filePatch struct {
	format  diffFormat
	oldName string // as the header names it ("" when none)
	newName string
	index   string // an Index: line's name
	gitOld  string // diff --git's names
	gitNew  string
	isGit   bool
	newFile bool // /dev/null as the old name, or git's "new file mode"
	delFile bool // /dev/null as the new name, or git's "deleted file mode"
	mode    uint32
	rename  bool
	header  []string // the lines before the first hunk (for messages)
	// oldRest and newRest follow the names in the header lines (a tab
	// and a timestamp), which the reject file repeats.
	oldRest, newRest string
	hunks            []*hunk
	hunkLine         int // the patch's line of the first hunk
}

var (
	unifiedHunkRE = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)
	contextOldRE  = regexp.MustCompile(`^\*\*\* (\d+)(?:,(\d+))? \*\*\*\*`)
	contextNewRE  = regexp.MustCompile(`^--- (\d+)(?:,(\d+))? ----`)
	normalRE      = regexp.MustCompile(`^(\d+)(?:,(\d+))?([acd])(\d+)(?:,(\d+))?$`)
)

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// rangeLen is the length of a unified range "start,len" (1 when no len).
func rangeLen(s string) int {
	if s == "" {
		return 1
	}
	return atoi(s)
}

// parser reads a patch's files one at a time.
type parser struct {
	lines []string // without newlines
	pos   int
}

// next returns the next file's diff, the garbage before it, and false at
// the end of the input.
func (p *parser) next() (*filePatch, bool) {
	fp := &filePatch{}
	start := p.pos
	for p.pos < len(p.lines) {
		l := p.lines[p.pos]
		switch {
		case strings.HasPrefix(l, "diff --git "):
			if fp.isGit || fp.oldName != "" {
				goto done
			}
			fp.isGit = true
			fp.gitOld, fp.gitNew = gitNames(strings.TrimPrefix(l, "diff --git "))
			fp.header = p.lines[start : p.pos+1]
			p.pos++
			// Git's extended headers.
			for p.pos < len(p.lines) {
				h := p.lines[p.pos]
				switch {
				case strings.HasPrefix(h, "new file mode "):
					fp.newFile = true
					fp.mode = parseMode(strings.TrimPrefix(h, "new file mode "))
				case strings.HasPrefix(h, "deleted file mode "):
					fp.delFile = true
				case strings.HasPrefix(h, "rename from "), strings.HasPrefix(h, "copy from "):
					fp.rename = strings.HasPrefix(h, "rename")
				case strings.HasPrefix(h, "rename to "), strings.HasPrefix(h, "copy to "),
					strings.HasPrefix(h, "similarity index"), strings.HasPrefix(h, "dissimilarity index"),
					strings.HasPrefix(h, "index "), strings.HasPrefix(h, "old mode "):
				case strings.HasPrefix(h, "new mode "):
					fp.mode = parseMode(strings.TrimPrefix(h, "new mode "))
				default:
					goto gitDone
				}
				fp.header = p.lines[start : p.pos+1]
				p.pos++
			}
		gitDone:
			if p.pos >= len(p.lines) || !strings.HasPrefix(p.lines[p.pos], "--- ") && !strings.HasPrefix(p.lines[p.pos], "Binary files ") {
				// A git diff with no hunks (a new empty file, a mode
				// change, a rename).
				return fp, true
			}
			continue
		case strings.HasPrefix(l, "Index: "):
			fp.index = strings.TrimSpace(strings.TrimPrefix(l, "Index: "))
		case strings.HasPrefix(l, "--- ") && p.pos+1 < len(p.lines) && strings.HasPrefix(p.lines[p.pos+1], "+++ "):
			fp.format = formatUnified
			fp.oldName, fp.oldRest = headerName(l[4:])
			fp.newName, fp.newRest = headerName(p.lines[p.pos+1][4:])
			fp.header = p.lines[start : p.pos+2]
			p.pos += 2
			p.readUnified(fp)
			return fp, true
		case strings.HasPrefix(l, "*** ") && p.pos+1 < len(p.lines) && strings.HasPrefix(p.lines[p.pos+1], "--- ") &&
			!contextOldRE.MatchString(l):
			fp.format = formatContext
			fp.oldName, fp.oldRest = headerName(l[4:])
			fp.newName, fp.newRest = headerName(p.lines[p.pos+1][4:])
			fp.header = p.lines[start : p.pos+2]
			p.pos += 2
			p.readContext(fp)
			return fp, true
		case normalRE.MatchString(l) && !fp.isGit:
			fp.format = formatNormal
			fp.header = p.lines[start:p.pos]
			p.readNormal(fp)
			return fp, true
		}
		p.pos++
	}
done:
	if fp.isGit {
		return fp, true
	}
	return nil, false
}

// gitNames splits "a/x b/y" (names may be quoted).
func gitNames(s string) (string, string) {
	if strings.HasPrefix(s, "\"") {
		a, rest := unquote(s)
		b, _ := unquote(strings.TrimSpace(rest))
		return a, b
	}
	// Unquoted names may hold spaces: split where " b/" starts when both
	// names are equal lengths, else at the last " b/".
	if i := strings.LastIndex(s, " b/"); i >= 0 {
		return s[:i], s[i+1:]
	}
	if i := strings.Index(s, " "); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, s
}

func parseMode(s string) uint32 {
	n, _ := strconv.ParseUint(strings.TrimSpace(s), 8, 32)
	return uint32(n)
}

// headerName splits a ---/+++ line into the file name and what follows
// it: the name ends at a tab (a timestamp follows) or before a trailing
// date; a quoted name is unquoted.
func headerName(s string) (string, string) {
	if strings.HasPrefix(s, "\"") {
		return unquote(s)
	}
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		return s[:i], s[i:]
	}
	// "name 2024-01-02 10:00:00.000000000 +0000" or "name Mon Jan  2 …"
	if m := trailingDate.FindStringIndex(s); m != nil {
		return s[:m[0]], s[m[0]:]
	}
	return strings.TrimRight(s, " "), ""
}

var trailingDate = regexp.MustCompile(` +(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d|(Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z][a-z] [ \d]\d \d\d:\d\d:\d\d).*$`)

// unquote reads a C-quoted name as git writes it; it returns the name
// and what follows the closing quote.
func unquote(s string) (string, string) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), s[i+1:]
		case c == '\\' && i+1 < len(s):
			i++
			switch d := s[i]; d {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case '\\', '"':
				b.WriteByte(d)
			default:
				if d >= '0' && d <= '7' && i+2 < len(s) {
					v, err := strconv.ParseUint(s[i:i+3], 8, 8)
					if err == nil {
						b.WriteByte(byte(v))
						i += 2
						continue
					}
				}
				b.WriteByte(d)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}

func (p *parser) readUnified(fp *filePatch) {
	for p.pos < len(p.lines) {
		m := unifiedHunkRE.FindStringSubmatch(p.lines[p.pos])
		if m == nil {
			return
		}
		if fp.hunkLine == 0 {
			fp.hunkLine = p.pos + 1
		}
		h := &hunk{oldFirst: atoi(m[1]), oldLen: rangeLen(m[2]), newFirst: atoi(m[3]), newLen: rangeLen(m[4]), startLine: p.pos + 1}
		p.pos++
		oldLeft, newLeft := h.oldLen, h.newLen
		for (oldLeft > 0 || newLeft > 0) && p.pos < len(p.lines) {
			l := p.lines[p.pos]
			kind := byte(' ')
			text := ""
			if l != "" {
				kind, text = l[0], l[1:]
			}
			switch kind {
			case ' ':
				oldLeft--
				newLeft--
			case '-':
				oldLeft--
			case '+':
				newLeft--
			case '\\':
				if n := len(h.lines); n > 0 {
					h.lines[n-1].noEOL = true
				}
				p.pos++
				continue
			default:
				oldLeft, newLeft = 0, 0 // a malformed hunk ends here
				continue
			}
			h.lines = append(h.lines, hunkLine{kind: kind, text: text})
			p.pos++
		}
		if p.pos < len(p.lines) && strings.HasPrefix(p.lines[p.pos], "\\") {
			if n := len(h.lines); n > 0 {
				h.lines[n-1].noEOL = true
			}
			p.pos++
		}
		if h.oldLen == 0 {
			h.oldFirst++ // an insertion goes after the line named
		}
		if h.newLen == 0 {
			h.newFirst++
		}
		fp.hunks = append(fp.hunks, h)
	}
}

func (p *parser) readContext(fp *filePatch) {
	for p.pos < len(p.lines) && strings.HasPrefix(p.lines[p.pos], "***************") {
		if fp.hunkLine == 0 {
			fp.hunkLine = p.pos + 1
		}
		h := &hunk{startLine: p.pos + 1}
		p.pos++
		if p.pos >= len(p.lines) {
			return
		}
		m := contextOldRE.FindStringSubmatch(p.lines[p.pos])
		if m == nil {
			return
		}
		p.pos++
		var old, nw []hunkLine
		readSection := func(into *[]hunkLine, stop func(string) bool) {
			for p.pos < len(p.lines) && !stop(p.lines[p.pos]) {
				l := p.lines[p.pos]
				if strings.HasPrefix(l, "\\") {
					if n := len(*into); n > 0 {
						(*into)[n-1].noEOL = true
					}
				} else if len(l) >= 2 && strings.IndexByte(" -+!", l[0]) >= 0 && l[1] == ' ' {
					*into = append(*into, hunkLine{kind: l[0], text: l[2:]})
				} else if l == "" {
					*into = append(*into, hunkLine{kind: ' '})
				} else {
					return
				}
				p.pos++
			}
		}
		readSection(&old, func(l string) bool { return contextNewRE.MatchString(l) })
		oldStart, oldEnd := atoi(m[1]), atoi(m[1])
		if m[2] != "" {
			oldEnd = atoi(m[2])
		}
		if p.pos >= len(p.lines) {
			return
		}
		n := contextNewRE.FindStringSubmatch(p.lines[p.pos])
		if n == nil {
			return
		}
		p.pos++
		readSection(&nw, func(l string) bool { return strings.HasPrefix(l, "***************") })
		newStart, newEnd := atoi(n[1]), atoi(n[1])
		if n[2] != "" {
			newEnd = atoi(n[2])
		}
		h.oldLen, h.newLen = oldEnd-oldStart+1, newEnd-newStart+1
		if oldEnd < oldStart || oldStart == 0 && oldEnd == 0 {
			h.oldLen = 0
		}
		if newEnd < newStart || newStart == 0 && newEnd == 0 {
			h.newLen = 0
		}
		h.oldFirst, h.newFirst = oldStart, newStart
		if h.oldLen == 0 {
			h.oldFirst++
		}
		if h.newLen == 0 {
			h.newFirst++
		}
		// A side with no lines listed is the other side's context.
		if len(old) == 0 && h.oldLen > 0 {
			for _, l := range nw {
				if l.kind == ' ' {
					old = append(old, l)
				}
			}
		}
		if len(nw) == 0 && h.newLen > 0 {
			for _, l := range old {
				if l.kind == ' ' {
					nw = append(nw, l)
				}
			}
		}
		h.ctxOld, h.ctxNew = old, nw
		// Merge the sides: common context, then each change's removed
		// and added lines.
		i, j := 0, 0
		for i < len(old) || j < len(nw) {
			if i < len(old) && j < len(nw) && old[i].kind == ' ' && nw[j].kind == ' ' {
				h.lines = append(h.lines, old[i])
				i, j = i+1, j+1
				continue
			}
			moved := false
			for i < len(old) && old[i].kind != ' ' {
				l := old[i]
				l.kind = '-'
				h.lines = append(h.lines, l)
				i++
				moved = true
			}
			for j < len(nw) && nw[j].kind != ' ' {
				l := nw[j]
				l.kind = '+'
				h.lines = append(h.lines, l)
				j++
				moved = true
			}
			if !moved {
				// Sides out of step (a malformed hunk): take what is left.
				for ; i < len(old); i++ {
					l := old[i]
					l.kind = '-'
					h.lines = append(h.lines, l)
				}
				for ; j < len(nw); j++ {
					l := nw[j]
					l.kind = '+'
					h.lines = append(h.lines, l)
				}
			}
		}
		fp.hunks = append(fp.hunks, h)
	}
}

func (p *parser) readNormal(fp *filePatch) {
	for p.pos < len(p.lines) {
		m := normalRE.FindStringSubmatch(p.lines[p.pos])
		if m == nil {
			return
		}
		if fp.hunkLine == 0 {
			fp.hunkLine = p.pos + 1
		}
		h := &hunk{startLine: p.pos + 1}
		p.pos++
		o1, o2 := atoi(m[1]), atoi(m[1])
		if m[2] != "" {
			o2 = atoi(m[2])
		}
		n1, n2 := atoi(m[4]), atoi(m[4])
		if m[5] != "" {
			n2 = atoi(m[5])
		}
		switch m[3] {
		case "a":
			h.oldFirst, h.oldLen = o1+1, 0
			h.newFirst, h.newLen = n1, n2-n1+1
		case "d":
			h.oldFirst, h.oldLen = o1, o2-o1+1
			h.newFirst, h.newLen = n1+1, 0
		default:
			h.oldFirst, h.oldLen = o1, o2-o1+1
			h.newFirst, h.newLen = n1, n2-n1+1
		}
		for p.pos < len(p.lines) {
			l := p.lines[p.pos]
			switch {
			case strings.HasPrefix(l, "< "):
				h.lines = append(h.lines, hunkLine{kind: '-', text: l[2:]})
			case strings.HasPrefix(l, "> "):
				h.lines = append(h.lines, hunkLine{kind: '+', text: l[2:]})
			case l == "---":
			case strings.HasPrefix(l, "\\"):
				if n := len(h.lines); n > 0 {
					h.lines[n-1].noEOL = true
				}
			default:
				goto end
			}
			p.pos++
		}
	end:
		fp.hunks = append(fp.hunks, h)
	}
}
