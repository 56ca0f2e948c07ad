package grep

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"
)

// rg --json writes ripgrep's JSON Lines: for each file with something to
// print, a "begin" message, a "match" message per selected line (with
// its submatches) and a "context" message per context line, then an
// "end" message with the file's statistics; a "summary" closes the run.
// Strings are {"text": …} when they are UTF-8, {"bytes": base64}
// otherwise, escaped as serde_json does (no HTML escapes, U+2028 raw).

// jsonStats are one file's or the run's statistics.
type jsonStats struct {
	elapsed                     time.Duration
	searches, searchesWithMatch int64
	bytesSearched, bytesPrinted int64
	matchedLines, matches       int64
}

func (a *jsonStats) add(b jsonStats) {
	a.elapsed += b.elapsed
	a.searches += b.searches
	a.searchesWithMatch += b.searchesWithMatch
	a.bytesSearched += b.bytesSearched
	a.bytesPrinted += b.bytesPrinted
	a.matchedLines += b.matchedLines
	a.matches += b.matches
}

// appendJSONString appends s as a JSON string, escaped as serde_json
// escapes: quote, backslash and control characters only.
func appendJSONString(b []byte, s []byte) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, c := range s {
		switch {
		case c == '"':
			b = append(b, '\\', '"')
		case c == '\\':
			b = append(b, '\\', '\\')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// appendJSONData appends ripgrep's arbitrary data: text or base64 bytes.
func appendJSONData(b []byte, s []byte) []byte {
	if utf8.Valid(s) {
		b = append(b, `{"text":`...)
		b = appendJSONString(b, s)
	} else {
		b = append(b, `{"bytes":"`...)
		b = append(b, base64.StdEncoding.EncodeToString(s)...)
		b = append(b, '"')
	}
	return append(b, '}')
}

// appendElapsed appends a duration; keys in the order of the end message
// (secs, nanos, human) or of the summary (human, nanos, secs).
func appendElapsed(b []byte, d time.Duration, sorted bool) []byte {
	secs := int64(d / time.Second)
	nanos := int64(d % time.Second)
	human := strconv.FormatFloat(d.Seconds(), 'f', 6, 64) + "s"
	if sorted {
		return fmt.Appendf(b, `{"human":"%s","nanos":%d,"secs":%d}`, human, nanos, secs)
	}
	return fmt.Appendf(b, `{"secs":%d,"nanos":%d,"human":"%s"}`, secs, nanos, human)
}

// jsonWrite writes one message of the current file.
func (s *fileSearch) jsonWrite(msg []byte) {
	s.json.bytesPrinted += int64(len(msg))
	s.g.out.Write(msg)
}

func (s *fileSearch) jsonBegin() {
	if s.jsonBegun {
		return
	}
	s.jsonBegun = true
	b := append([]byte(`{"type":"begin","data":{"path":`), nil...)
	b = appendJSONData(b, []byte(s.name))
	s.jsonWrite(append(b, "}}\n"...))
}

// jsonRecord writes a selected (sep ':') or context (sep '-') record.
func (s *fileSearch) jsonRecord(ls, le int, sep byte) {
	g := s.g
	s.jsonBegin()
	kind := "context"
	if sep == ':' {
		kind = "match"
	}
	text := s.buf[ls:le]
	if le < len(s.buf) {
		text = s.buf[ls : le+1] // the line with its terminator
	}
	s.moveCount(ls)
	b := fmt.Appendf(nil, `{"type":"%s","data":{"path":`, kind)
	b = appendJSONData(b, []byte(s.name))
	b = append(b, `,"lines":`...)
	b = appendJSONData(b, text)
	if g.o.jsonNoLineNumber {
		b = append(b, `,"line_number":null`...)
	} else {
		b = fmt.Appendf(b, `,"line_number":%d`, s.lineno)
	}
	b = fmt.Appendf(b, `,"absolute_offset":%d,"submatches":[`, s.bufBase+int64(ls))
	if sep == ':' {
		s.json.matchedLines++
		if !g.o.invert {
			for i, m := range s.jsonMatches(ls, le) {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"match":`...)
				b = appendJSONData(b, s.buf[ls+m[0]:ls+m[1]])
				b = fmt.Appendf(b, `,"start":%d,"end":%d}`, m[0], m[1])
				s.json.matches++
			}
		}
	}
	s.jsonWrite(append(b, "]}}\n"...))
	s.lastPrintedEnd = after(le, len(s.buf))
	g.anyOutput = true
}

// jsonMatches are a selected line's submatches, empty ones included as
// ripgrep lists them (where the engine is one regexp).
func (s *fileSearch) jsonMatches(ls, le int) [][2]int {
	e := s.g.eng
	line := s.buf[ls:le]
	if e.lineRE != nil && !e.word && !e.wholeLine && (e.uni == nil || isASCII(line)) && e.plainRE != nil {
		var out [][2]int
		for _, m := range e.plainRE.FindAllIndex(line, -1) {
			out = append(out, [2]int{m[0], m[1]})
		}
		return out
	}
	return s.matchesIn(ls, le)
}

// jsonEnd writes a file's end message and adds its statistics to the
// run's.
func (s *fileSearch) jsonEnd() {
	if !s.jsonBegun {
		return
	}
	g := s.g
	st := s.json
	st.elapsed = time.Since(s.start)
	st.searches = 1
	if st.matchedLines > 0 {
		st.searchesWithMatch = 1
	}
	st.bytesSearched = s.bytesRead
	if s.searchedTo > 0 {
		st.bytesSearched = s.searchedTo
	}
	b := append([]byte(`{"type":"end","data":{"path":`), nil...)
	b = appendJSONData(b, []byte(s.name))
	if s.binaryAt >= 0 && s.sawNUL {
		// ripgrep counts the bytes up to the NUL as searched.
		b = fmt.Appendf(b, `,"binary_offset":%d`, s.binaryAt)
		st.bytesSearched = s.binaryAt
	} else {
		b = append(b, `,"binary_offset":null`...)
	}
	b = append(b, `,"stats":{"elapsed":`...)
	b = appendElapsed(b, st.elapsed, false)
	b = fmt.Appendf(b, `,"searches":%d,"searches_with_match":%d,"bytes_searched":%d,"bytes_printed":%d,"matched_lines":%d,"matches":%d}}}`+"\n",
		st.searches, st.searchesWithMatch, st.bytesSearched, st.bytesPrinted, st.matchedLines, st.matches)
	g.out.Write(b)
	g.jsonTotal.add(st)
}

// jsonSummary writes the run's summary message.
func (g *grep) jsonSummary() {
	st := g.jsonTotal
	b := append([]byte(`{"data":{"elapsed_total":`), nil...)
	b = appendElapsed(b, time.Since(g.start), true)
	b = fmt.Appendf(b, `,"stats":{"bytes_printed":%d,"bytes_searched":%d,"elapsed":`, st.bytesPrinted, st.bytesSearched)
	b = appendElapsed(b, st.elapsed, true)
	b = fmt.Appendf(b, `,"matched_lines":%d,"matches":%d,"searches":%d,"searches_with_match":%d}},"type":"summary"}`+"\n",
		st.matchedLines, st.matches, st.searches, st.searchesWithMatch)
	g.out.Write(b)
}
