package grep

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"time"
	"unicode/utf8"
)

// chunkSize is how much is read at a time; a longer line grows the buffer.
const chunkSize = 256 << 10

// fileSearch is the state of searching one file.
type fileSearch struct {
	g    *grep
	name string
	buf  []byte
	eol  byte

	lineno  int64 // number of the record starting at cntPos
	cntPos  int
	bufBase int64 // offset of buf[0] in the file

	lastPrintedEnd int // buffer position after the last printed record; -1: none in view
	pendingAfter   int
	selected       int64
	matchCount     int64 // rg --count-matches
	column         int   // rg --column of the record being printed (1-based)
	numWidth       int   // -T: numbers are padded to this width
	tabBeforeText  bool  // -T: GNU writes no tab before an empty line
	binary         bool
	binaryMatched  bool
	binaryAt       int64 // offset of the first NUL (rg says where)
	encodingErr    bool
	done           bool
	maxDone        bool // -m reached: only trailing context is left

	// rg --json: the file's begin message was written, its statistics,
	// when its search began, the bytes read and whether a NUL was seen
	// (binaryAt is then its offset).
	jsonBegun bool
	json      jsonStats
	start     time.Time
	bytesRead int64
	sawNUL    bool
	// searchedTo: where -m ended the search (0: it did not).
	searchedTo int64
}

func (g *grep) searchReader(name string, r io.Reader) {
	g.searched++
	s := &fileSearch{g: g, name: name, eol: g.eng.eol, lineno: 1, lastPrintedEnd: -1, binaryAt: -1}
	if g.o.json {
		s.start = time.Now()
	}
	if g.matchNothing {
		if g.o.listNonMatching {
			s.finish()
		}
		return
	}
	if g.o.initialTab {
		s.numWidth = tabNumberWidth(r)
	}
	if cap(g.buf) < chunkSize {
		g.buf = make([]byte, 0, chunkSize)
	}
	s.buf = g.buf[:0]
	start := 0
	eof := false
	for !s.done && !g.stopAll {
		if err := g.ctx.Err(); err != nil {
			g.searchErr = err
			g.stopAll = true
			break
		}
		if len(s.buf) == cap(s.buf) {
			grown := make([]byte, len(s.buf), 2*cap(s.buf))
			copy(grown, s.buf)
			s.buf = grown
		}
		old := len(s.buf)
		n, err := r.Read(s.buf[old:cap(s.buf)])
		s.buf = s.buf[:old+n]
		s.bytesRead += int64(n)
		if err == io.EOF {
			eof = true
		} else if err != nil {
			g.fileError(name, err)
			break
		}
		if n > 0 && s.checkBinary(old) {
			// -I: a binary file never matches (rg: skipped silently).
			if !g.o.rg {
				s.selected = 0
				s.finish()
			}
			return
		}
		lim := len(s.buf)
		if !eof {
			i := bytes.LastIndexByte(s.buf[start:], s.eol)
			if i < 0 {
				continue // no whole record yet
			}
			lim = start + i + 1
		}
		if err := s.process(start, lim); err != nil {
			g.searchErr = err
			g.stopAll = true
			break
		}
		start = lim
		if eof {
			break
		}
		start = s.compact(start)
	}
	if cap(s.buf) <= 4*chunkSize {
		g.buf = s.buf[:0]
	}
	s.finish()
}

// checkBinary looks for NUL bytes in each buffer read (data at
// buf[from:]), as GNU does, unless -a or -z. A binary file's NULs then end records too.
// It returns true when the file must be skipped (-I).
func (s *fileSearch) checkBinary(from int) bool {
	o := s.g.o
	if o.binary == binaryText || o.nullData {
		return false
	}
	if o.json && s.g.rgBinaryExplicit {
		// rg --json searches a named binary file as text and reports
		// where its first NUL is.
		if !s.sawNUL {
			if i := bytes.IndexByte(s.buf[from:], 0); i >= 0 {
				s.sawNUL = true
				s.binaryAt = s.bufBase + int64(from+i)
			}
		}
		return false
	}
	if !s.binary {
		i := bytes.IndexByte(s.buf[from:], 0)
		if i < 0 {
			return false
		}
		if o.binary == binaryNoMatch || o.rg && !s.g.rgBinaryExplicit {
			return true
		}
		s.binary = true
		s.binaryAt = s.bufBase + int64(from+i)
		from = 0
	}
	for i, c := range s.buf[from:] {
		if c == 0 {
			s.buf[from+i] = s.eol
		}
	}
	return false
}

// compact drops the processed part of the buffer, keeping the records
// -B may still print, and returns the new processing start.
func (s *fileSearch) compact(start int) int {
	keep := start
	if b := s.g.o.before; b > 0 {
		floor := s.lastPrintedEnd
		if floor < 0 {
			floor = 0
		}
		for i := 0; i < b && keep > floor; i++ {
			j := bytes.LastIndexByte(s.buf[floor:keep-1], s.eol)
			if j < 0 {
				keep = floor
				break
			}
			keep = floor + j + 1
		}
	}
	if keep == 0 {
		return start
	}
	if s.g.o.lineNumber {
		s.moveCount(keep)
	}
	s.cntPos -= keep
	s.bufBase += int64(keep)
	if s.lastPrintedEnd >= 0 {
		s.lastPrintedEnd -= keep
		if s.lastPrintedEnd < 0 {
			s.lastPrintedEnd = -2 // printed, but out of view: never adjacent
		}
	}
	n := copy(s.buf, s.buf[keep:])
	s.buf = s.buf[:n]
	return start - keep
}

// moveCount brings the record count to position pos.
func (s *fileSearch) moveCount(pos int) {
	if pos >= s.cntPos {
		s.lineno += int64(bytes.Count(s.buf[s.cntPos:pos], []byte{s.eol}))
	} else {
		s.lineno -= int64(bytes.Count(s.buf[pos:s.cntPos], []byte{s.eol}))
	}
	s.cntPos = pos
}

// recordEnd returns the end of the record starting at p (its terminator's
// index, or lim).
func (s *fileSearch) recordEnd(p, lim int) int {
	i := bytes.IndexByte(s.buf[p:lim], s.eol)
	if i < 0 {
		return lim
	}
	return p + i
}

func after(le, lim int) int {
	if le >= lim {
		return lim
	}
	return le + 1
}

// process handles the whole records in buf[p:lim].
func (s *fileSearch) process(p, lim int) error {
	g := s.g
	ctx := g.ctx
	for p < lim && !s.done && !g.stopAll {
		if s.maxDone {
			s.unselected(p, lim)
			if s.pendingAfter == 0 {
				s.done = true
			}
			return nil
		}
		ms, me, err := g.eng.nextMatch(ctx, s.buf, p, lim)
		if err != nil {
			return err
		}
		if ms < 0 {
			ms, me = lim, lim
		}
		if !g.o.invert {
			s.unselected(p, ms)
			if ms >= lim {
				return nil
			}
			s.selectedRecord(ms, me)
			p = after(me, lim)
			continue
		}
		for p < ms && !s.done && !g.stopAll {
			if s.maxDone {
				break
			}
			le := s.recordEnd(p, ms)
			s.selectedRecord(p, le)
			p = after(le, ms)
		}
		if s.maxDone || s.done || ms >= lim {
			continue
		}
		s.unselected(ms, after(me, lim))
		p = after(me, lim)
	}
	return nil
}

// unselected passes over the records in buf[p:q], printing the ones
// owed as trailing context. It returns where it stopped (q, or earlier
// when -m's trailing context ran out).
func (s *fileSearch) unselected(p, q int) int {
	for s.pendingAfter > 0 && p < q && !s.g.stopAll {
		le := s.recordEnd(p, q)
		s.printRecord(p, le, '-')
		s.pendingAfter--
		p = after(le, q)
	}
	if s.maxDone {
		return p
	}
	return q
}

// selectedRecord handles one selected record buf[ls:le].
func (s *fileSearch) selectedRecord(ls, le int) {
	g, o := s.g, s.g.o
	s.selected++
	g.anySelect = true
	if o.maxCount > 0 && s.selected >= o.maxCount {
		s.maxDone = true
		// ripgrep stops searching there: what follows is only context.
		s.searchedTo = s.bufBase + int64(after(le, len(s.buf)))
	}
	switch {
	case o.quiet:
		g.stopAll = true
		s.done = true
		return
	case o.listMatching || o.listNonMatching:
		s.done = true
		return
	case o.count:
		if o.countMatches {
			s.matchCount += s.countMatchesIn(ls, le)
		}
		if s.maxDone {
			s.done = true
		}
		return
	case s.binary:
		s.binaryMatched = true
		s.done = true
		return
	}
	if o.before > 0 {
		s.printBefore(ls)
	}
	if g.contextOn && g.anyOutput && s.lastPrintedEnd != ls {
		s.writeGroupSeparator()
	}
	switch {
	case o.onlyMatching && o.rg && o.invert:
		s.printRecord(ls, le, ':') // ripgrep prints the whole line
	case o.onlyMatching:
		if !o.invert {
			s.printMatches(ls, le, ':')
		}
		s.lastPrintedEnd = after(le, len(s.buf)) // printed, if silently
	default:
		s.printRecord(ls, le, ':')
	}
	// GNU's "used": a later group gets its separator even when -o printed
	// nothing for this one.
	g.anyOutput = true
	s.pendingAfter = o.after
	if s.maxDone && s.pendingAfter == 0 {
		s.done = true
	}
}

// writeGroupSeparator prints the line between context groups.
func (s *fileSearch) writeGroupSeparator() {
	o := s.g.o
	switch {
	case o.json:
	case o.noGroupSeparator && o.groupSeparator == nil:
	case o.groupSeparator != nil:
		s.g.out.WriteString(*o.groupSeparator)
		s.g.out.WriteByte('\n')
	default:
		s.g.out.WriteString("--\n")
	}
}

// printBefore prints up to -B records before ls that were not printed.
func (s *fileSearch) printBefore(ls int) {
	floor := s.lastPrintedEnd
	if floor < 0 {
		floor = 0
	}
	first := ls
	for i := 0; i < s.g.o.before && first > floor; i++ {
		j := bytes.LastIndexByte(s.buf[floor:first-1], s.eol)
		if j < 0 {
			first = floor
			break
		}
		first = floor + j + 1
	}
	if first == ls {
		return
	}
	if s.g.anyOutput && s.lastPrintedEnd != first {
		s.writeGroupSeparator()
	}
	for p := first; p < ls; {
		le := s.recordEnd(p, ls)
		s.printRecord(p, le, '-')
		p = le + 1
	}
}

// printRecord prints one record with its prefix; sep is ':' for a
// selected record and '-' for context.
func (s *fileSearch) printRecord(ls, le int, sep byte) {
	g := s.g
	if g.o.json {
		s.jsonRecord(ls, le, sep)
		return
	}
	line := s.buf[ls:le]
	if g.o.onlyMatching && !(g.o.rg && (sep == '-' || g.o.invert)) {
		// -o prints the matches of context lines too (there are some only
		// with -v), and GNU separates the groups. ripgrep prints context
		// lines, and -o -v lines, whole.
		if sep == '-' {
			s.printMatches(ls, le, '-')
		}
		s.lastPrintedEnd = after(le, len(s.buf))
		return
	}
	if g.o.binary != binaryText && !g.o.rg && !utf8.Valid(line) {
		s.encodingErr = true
		return
	}
	switch {
	case g.o.vimgrep && sep == ':':
		s.printVimgrep(ls, le)
	case g.o.rg && sep == ':' && (g.o.replace != nil || g.o.column):
		s.printRgLine(ls, le)
	default:
		s.tabBeforeText = len(line) > 0
		s.writePrefix(ls, ls, sep)
		g.out.Write(line)
		g.out.WriteByte(s.eolOut())
	}
	s.lastPrintedEnd = after(le, len(s.buf))
	g.anyOutput = true
	if g.o.lineBuffered {
		g.out.Flush()
	}
}

func (s *fileSearch) eolOut() byte {
	if s.g.o.nullData {
		return 0
	}
	return '\n'
}

func (s *fileSearch) writePrefix(ls, at int, sep byte) {
	g, o := s.g, s.g.o
	if g.withName {
		g.out.WriteString(s.name)
		if o.nullAfterName {
			g.out.WriteByte(0)
		} else {
			g.out.WriteByte(sep)
		}
	}
	if o.lineNumber {
		s.moveCount(ls)
		s.writeNumber(s.lineno)
		g.out.WriteByte(sep)
	}
	if o.column && s.column > 0 {
		g.out.WriteString(strconv.Itoa(s.column))
		g.out.WriteByte(sep)
	}
	if o.byteOffset {
		s.writeNumber(s.bufBase + int64(at))
		g.out.WriteByte(sep)
	}
	if o.initialTab && (g.withName || o.lineNumber || o.byteOffset) && s.tabBeforeText {
		g.out.WriteByte('\t')
	}
}

func (s *fileSearch) writeNumber(n int64) {
	num := strconv.FormatInt(n, 10)
	for i := len(num); i < s.numWidth; i++ {
		s.g.out.WriteByte(' ')
	}
	s.g.out.WriteString(num)
}

// tabNumberWidth is how wide GNU's -T pads numbers: the digits of the
// file's size, or of the largest offset when the size is unknown.
func tabNumberWidth(r io.Reader) int {
	if st, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() {
			return len(strconv.FormatInt(fi.Size(), 10))
		}
	}
	return 19
}

// matchesIn lists the non-empty matches of record buf[ls:le].
func (s *fileSearch) matchesIn(ls, le int) [][2]int {
	var out [][2]int
	err := s.g.eng.eachMatch(s.g.ctx, s.buf[ls:le], func(a, b int) bool {
		out = append(out, [2]int{a, b})
		return true
	})
	if err != nil && s.g.searchErr == nil {
		s.g.searchErr = err
		s.g.stopAll = true
	}
	return out
}

func (s *fileSearch) countMatchesIn(ls, le int) int64 {
	return int64(len(s.matchesIn(ls, le)))
}

// replaced returns rg -r's replacement for the match line[a:b].
func (s *fileSearch) replaced(line []byte, a, b int) []byte {
	re := s.g.eng.plainRE
	if re == nil {
		return []byte(*s.g.o.replace)
	}
	m := re.FindSubmatchIndex(line[a:b])
	if m == nil {
		return []byte(*s.g.o.replace)
	}
	return re.Expand(nil, []byte(*s.g.o.replace), line[a:b], m)
}

// printRgLine prints a selected record for rg with --column or -r.
func (s *fileSearch) printRgLine(ls, le int) {
	g := s.g
	line := s.buf[ls:le]
	ms := s.matchesIn(ls, le)
	if len(ms) > 0 && g.o.column {
		s.column = ms[0][0] + 1
	}
	s.writePrefix(ls, ls, ':')
	s.column = 0
	if g.o.replace == nil || g.o.invert {
		g.out.Write(line)
	} else {
		prev := 0
		for _, m := range ms {
			g.out.Write(line[prev:m[0]])
			g.out.Write(s.replaced(line, m[0], m[1]))
			prev = m[1]
		}
		g.out.Write(line[prev:])
	}
	g.out.WriteByte(s.eolOut())
}

// printVimgrep prints the record once per match, as rg --vimgrep does
// (once, without a column, for a -v line).
func (s *fileSearch) printVimgrep(ls, le int) {
	g := s.g
	line := s.buf[ls:le]
	if g.o.invert {
		s.writePrefix(ls, ls, ':')
		g.out.Write(line)
		g.out.WriteByte(s.eolOut())
		return
	}
	ms := s.matchesIn(ls, le)
	text := line
	starts := make([]int, len(ms))
	for i, m := range ms {
		starts[i] = m[0]
	}
	if g.o.replace != nil && len(ms) > 0 {
		// ripgrep reports columns and offsets in the replaced line.
		var b []byte
		prev := 0
		for i, m := range ms {
			b = append(b, line[prev:m[0]]...)
			starts[i] = len(b)
			b = append(b, s.replaced(line, m[0], m[1])...)
			prev = m[1]
		}
		text = append(b, line[prev:]...)
	}
	for _, start := range starts {
		s.column = start + 1
		s.writePrefix(ls, ls+start, ':')
		g.out.Write(text)
		g.out.WriteByte(s.eolOut())
	}
	s.column = 0
}

// printMatches prints each match of a selected record (-o).
func (s *fileSearch) printMatches(ls, le int, sep byte) {
	g := s.g
	line := s.buf[ls:le]
	err := g.eng.eachMatch(g.ctx, line, func(ms, me int) bool {
		text := line[ms:me]
		if g.o.binary != binaryText && !g.o.rg && !utf8.Valid(text) {
			s.encodingErr = true
			return !g.stopAll
		}
		if g.o.column {
			s.column = ms + 1
		}
		s.tabBeforeText = true
		s.writePrefix(ls, ls+ms, sep)
		s.column = 0
		if g.o.replace != nil {
			text = s.replaced(line, ms, me)
		}
		g.out.Write(text)
		g.out.WriteByte(s.eolOut())
		g.anyOutput = true
		return !g.stopAll
	})
	if err != nil && g.searchErr == nil {
		g.searchErr = err
		g.stopAll = true
	}
	s.lastPrintedEnd = after(le, len(s.buf))
	if g.o.lineBuffered {
		g.out.Flush()
	}
}

// finish prints what is said once per file: -c, -l, -L and the binary
// file notice.
func (s *fileSearch) finish() {
	g, o := s.g, s.g.o
	if g.stopAll && o.quiet {
		return
	}
	nameEnd := func() {
		if o.nullAfterName {
			g.out.WriteByte(0)
		} else {
			g.out.WriteByte('\n')
		}
	}
	switch {
	case o.listMatching:
		if s.selected > 0 {
			g.out.WriteString(s.name)
			nameEnd()
		}
		return
	case o.listNonMatching:
		if s.selected == 0 {
			g.out.WriteString(s.name)
			nameEnd()
			g.listedNonMatching = true
		}
		return
	case o.count:
		if o.rg && s.selected == 0 {
			return // ripgrep prints no zero counts
		}
		if g.withName {
			g.out.WriteString(s.name)
			if o.nullAfterName {
				g.out.WriteByte(0)
			} else {
				g.out.WriteByte(':')
			}
		}
		n := s.selected
		if o.maxCount > 0 && n > o.maxCount {
			n = o.maxCount
		}
		if o.countMatches && !o.invert {
			n = s.matchCount
		}
		g.out.WriteString(strconv.FormatInt(n, 10))
		g.out.WriteByte('\n')
		return
	}
	if o.json {
		s.jsonEnd()
		return
	}
	if o.rg {
		if s.binaryMatched && !o.quiet {
			if g.withName {
				g.out.WriteString(s.name + ": ")
			}
			fmt.Fprintf(g.out, "binary file matches (found \"\\0\" byte around offset %d)\n", s.binaryAt)
		}
		return
	}
	if (s.binaryMatched || s.encodingErr) && !o.quiet {
		g.out.Flush()
		g.env.Errorf("%s: binary file matches", s.name)
	}
}
