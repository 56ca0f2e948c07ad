package textutils

import (
	"context"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

func displayWidth(s string) int {
	w := 0
	for _, r := range s {
		if r == utf8.RuneError {
			w++
			continue
		}
		w += runeWidth(r)
	}
	return w
}

var columnSpec = getopt.Spec{
	Options: []getopt.Option{
		{Short: 't', Long: "table"}, {Short: 's', Long: "separator", Arg: getopt.Required, ArgName: "SEP"},
		{Short: 'o', Long: "output-separator", Arg: getopt.Required, ArgName: "SEP"},
		{Short: 'c', Long: "output-width", Arg: getopt.Required, ArgName: "WIDTH"}, {Short: 'x', Long: "fillrows"},
		{Short: 'R', Long: "table-right", Arg: getopt.Required, ArgName: "LIST"},
		{Short: 'N', Long: "table-columns", Arg: getopt.Required, ArgName: "LIST"}, {Short: 'L', Long: "keep-empty-lines"},
		{Short: 'n', Long: "table-name", Arg: getopt.Required, ArgName: "NAME"},
	},
}

// Column implements util-linux column: fill mode (columns first, or rows
// with -x) padded with tabs, and table mode (-t).
func Column(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	flags, operands, st, ok := columnSpec.Run(env)
	if !ok {
		return st
	}
	table, fillRows, keepEmpty := false, false, false
	seps := ""
	outSep := "  "
	width := 80
	if c := env.Getenv("COLUMNS"); c != "" {
		if n, err := strconv.Atoi(c); err == nil && n > 0 {
			width = n
		}
	}
	var right map[int]bool
	var names []string
	for _, f := range flags {
		switch f.Key {
		case "table":
			table = true
		case "separator":
			seps = f.Value
		case "output-separator":
			outSep = f.Value
		case "output-width":
			n, err := strconv.Atoi(f.Value)
			if err != nil || n < 0 {
				env.Errorf("invalid columns argument: '%s'", f.Value)
				return 1
			}
			width = n
		case "fillrows":
			fillRows = true
		case "keep-empty-lines":
			keepEmpty = true
		case "table-columns":
			names = strings.Split(f.Value, ",")
		case "table-right":
			right = map[int]bool{}
			for _, s := range strings.Split(f.Value, ",") {
				if n, err := strconv.Atoi(s); err == nil {
					right[n-1] = true
				} else {
					for i, name := range names {
						if name == s {
							right[i] = true
						}
					}
				}
			}
		}
	}
	var lines []string
	status := r.eachInput(operands, func(name string, f io.Reader) error {
		lr := newLineReader(f, '\n')
		for !r.stopped() {
			line, _, ok := lr.next()
			if !ok {
				return lr.err
			}
			s := string(line)
			if strings.TrimSpace(s) == "" && !(table && keepEmpty) {
				continue
			}
			lines = append(lines, s)
		}
		return nil
	})
	if status != 0 || len(lines) == 0 {
		return r.finish(status)
	}
	if table {
		var rows [][]string
		ncols := 0
		for _, l := range lines {
			var cells []string
			if seps == "" {
				cells = strings.FieldsFunc(l, func(r rune) bool { return r == ' ' || r == '\t' })
			} else {
				cells = splitAny(l, seps)
			}
			rows = append(rows, cells)
			ncols = max(ncols, len(cells))
		}
		if names != nil {
			rows = append([][]string{names}, rows...)
			ncols = max(ncols, len(names))
		}
		widths := make([]int, ncols)
		for _, row := range rows {
			for i, c := range row {
				widths[i] = max(widths[i], displayWidth(c))
			}
		}
		for _, row := range rows {
			if r.stopped() {
				break
			}
			var b strings.Builder
			for i := 0; i < ncols; i++ {
				c := ""
				if i < len(row) {
					c = row[i]
				}
				padding := widths[i] - displayWidth(c)
				if right[i] {
					b.WriteString(strings.Repeat(" ", padding))
					b.WriteString(c)
				} else {
					b.WriteString(c)
					if i < ncols-1 {
						b.WriteString(strings.Repeat(" ", padding))
					}
				}
				if i < ncols-1 {
					b.WriteString(outSep)
				}
			}
			r.out.WriteString(b.String())
			r.out.WriteByte('\n')
		}
		return r.finish(0)
	}
	maxLen := 0
	for _, l := range lines {
		maxLen = max(maxLen, displayWidth(l))
	}
	if maxLen >= width {
		for _, l := range lines {
			r.out.WriteString(l)
			r.out.WriteByte('\n')
		}
		return r.finish(0)
	}
	maxLen = (maxLen + 8) &^ 7
	numCols := max(width/maxLen, 1)
	tabTo := func(chcnt, endcol int) int {
		for {
			cnt := (chcnt + 8) &^ 7
			if cnt > endcol {
				return chcnt
			}
			r.out.WriteByte('\t')
			chcnt = cnt
		}
	}
	if fillRows {
		chcnt, col, endcol := 0, 0, maxLen
		for i, l := range lines {
			r.out.WriteString(l)
			chcnt += displayWidth(l)
			if i == len(lines)-1 {
				break
			}
			col++
			if col == numCols {
				chcnt, col, endcol = 0, 0, maxLen
				r.out.WriteByte('\n')
			} else {
				chcnt = tabTo(chcnt, endcol)
				endcol += maxLen
			}
		}
		if chcnt > 0 {
			r.out.WriteByte('\n')
		}
		return r.finish(0)
	}
	numRows := (len(lines) + numCols - 1) / numCols
	for row := 0; row < numRows; row++ {
		if r.stopped() {
			break
		}
		endcol, chcnt := maxLen, 0
		for base, col := row, 0; col < numCols; col++ {
			r.out.WriteString(lines[base])
			chcnt += displayWidth(lines[base])
			base += numRows
			if base >= len(lines) {
				break
			}
			chcnt = tabTo(chcnt, endcol)
			endcol += maxLen
		}
		r.out.WriteByte('\n')
	}
	return r.finish(0)
}

// splitAny splits s at every rune of seps, keeping empty cells.
func splitAny(s, seps string) []string {
	var out []string
	start := 0
	for i, c := range s {
		if strings.ContainsRune(seps, c) {
			out = append(out, s[start:i])
			start = i + utf8.RuneLen(c)
		}
	}
	return append(out, s[start:])
}
