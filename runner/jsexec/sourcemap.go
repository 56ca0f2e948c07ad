package jsexec

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// lineMap maps positions in esbuild's output back to the source file, so
// that the stack of an uncaught exception names the lines the agent wrote
// (TypeScript loses its type-only lines, ES modules are reprinted).
type lineMap struct {
	lines [][]segment // by generated line (0-based), sorted by column
}

type segment struct {
	genCol, srcLine, srcCol int
}

// parseSourceMap decodes the mappings of an esbuild source map of one
// source; nil when it cannot.
func parseSourceMap(raw []byte) *lineMap {
	var sm struct {
		Mappings string `json:"mappings"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &sm) != nil {
		return nil
	}
	m := &lineMap{}
	srcLine, srcCol := 0, 0
	for _, line := range strings.Split(sm.Mappings, ";") {
		var segs []segment
		genCol := 0
		for _, s := range strings.Split(line, ",") {
			f, ok := vlqFields(s)
			if !ok {
				return nil
			}
			if len(f) < 4 {
				continue
			}
			genCol += f[0]
			srcLine += f[2]
			srcCol += f[3]
			segs = append(segs, segment{genCol, srcLine, srcCol})
		}
		sort.Slice(segs, func(i, j int) bool { return segs[i].genCol < segs[j].genCol })
		m.lines = append(m.lines, segs)
	}
	return m
}

const base64Digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// vlqFields decodes one segment's base64 VLQ numbers.
func vlqFields(s string) ([]int, bool) {
	var out []int
	v, shift := 0, 0
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte(base64Digits, s[i])
		if d < 0 {
			return nil, false
		}
		v |= (d & 31) << shift
		if d&32 != 0 {
			shift += 5
			continue
		}
		n := v >> 1
		if v&1 != 0 {
			n = -n
		}
		out = append(out, n)
		v, shift = 0, 0
	}
	return out, shift == 0
}

// source returns the 1-based source line and column of a 1-based
// generated position.
func (m *lineMap) source(line, col int) (int, int, bool) {
	if m == nil || line < 1 || line > len(m.lines) {
		return 0, 0, false
	}
	segs := m.lines[line-1]
	i := sort.Search(len(segs), func(i int) bool { return segs[i].genCol > col-1 }) - 1
	if i < 0 {
		if len(segs) == 0 {
			return 0, 0, false
		}
		i = 0
	}
	return segs[i].srcLine + 1, segs[i].srcCol + 1, true
}

var stackFrame = regexp.MustCompile(`\(([^()\s]+):(\d+):(\d+)\)`)

// mapStack rewrites the "(file:line:col)" frames of a stack whose file
// went through esbuild to the source's positions.
func mapStack(text string, maps map[string]*lineMap) string {
	if len(maps) == 0 {
		return text
	}
	return stackFrame.ReplaceAllStringFunc(text, func(f string) string {
		sub := stackFrame.FindStringSubmatch(f)
		m := maps[sub[1]]
		line, _ := strconv.Atoi(sub[2])
		col, _ := strconv.Atoi(sub[3])
		if l, c, ok := m.source(line, col); ok {
			return "(" + sub[1] + ":" + strconv.Itoa(l) + ":" + strconv.Itoa(c) + ")"
		}
		return f
	})
}
