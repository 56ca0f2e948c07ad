package xan

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// displayWidth is the number of terminal cells s takes: wide (CJK, most
// emoji) runes count two, combining marks none.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Mn, r) || r == '\u200d':
		case width.LookupRune(r).Kind() == width.EastAsianWide || width.LookupRune(r).Kind() == width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}

// cleanCell makes a cell printable on one line: newlines, tabs and other
// control characters are shown as ⏎, → and �.
func cleanCell(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || r == utf8.RuneError }) {
		return s
	}
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '\n':
			b.WriteRune('⏎')
		case r == '\r':
		case r == '\t':
			b.WriteRune('→')
		case r < 0x20 || r == 0x7f:
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// truncate cuts s to at most w display cells, ending in "…" when cut.
func truncate(s string, w int) string {
	if displayWidth(s) <= w {
		return s
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		rw := displayWidth(string(r))
		if n+rw > w-1 {
			break
		}
		b.WriteRune(r)
		n += rw
	}
	return b.String() + "…"
}

// pad fills s with spaces to w display cells.
func pad(s string, w int) string {
	return s + strings.Repeat(" ", max(w-displayWidth(s), 0))
}

var viewCmd = &subcommand{
	name: "view", aliases: []string{"v"},
	summary: "Show CSV as an aligned table for reading",
	usage:   []string{"view [options] [<input>]"},
	about: `
Prints the first rows (100 by default; the rest is not read) as a
box-drawn table with a row index. Cells longer than 40 columns are cut
with … (-e shows them whole), empty ones show as <empty>, newlines as ⏎.`,
	flags: []flagDef{
		{"-s", "--select", "<arg>", "Columns to show."},
		{"-t", "--theme", "<name>", "table (default) or borderless (also compact, slim…)."},
		{"-l", "--limit", "<n>", "Rows to show (default 100; 0: all)."},
		{"-A", "--all", "", "Show every row."},
		{"-e", "--expand", "", "Do not cut long cells."},
		{"-I", "--hide-index", "", "Hide the row index."},
		{"-H", "--hide-headers", "", "Hide the header row."},
		{"-M", "--hide-info", "", "Hide the line saying how much is shown."},
	},
	run: func(c *call) error {
		limit, err := c.limit(100)
		if err != nil {
			return err
		}
		cr, idx, err := c.inputSelected(c.args)
		if cr == nil {
			return err
		}
		// Like xan, read only what is shown (and one row more, to know
		// whether there is more).
		var rows [][]string
		more := false
		if err := eachUntil(cr, func(rec []string) error {
			if limit > 0 && len(rows) == limit {
				more = true
				return errStop
			}
			rows = append(rows, pick(rec, idx))
			return nil
		}); err != nil {
			return err
		}
		headers := pick(cr.Headers(), idx)
		showIndex := !c.has("hide-index")
		if showIndex {
			headers = append([]string{"-"}, headers...)
			for i := range rows {
				rows[i] = append([]string{strconv.Itoa(i)}, rows[i]...)
			}
		}
		if !c.has("hide-info") {
			first := ""
			if more {
				first = " first"
			}
			fmt.Fprintf(c.out.w, "Displaying %d col%s from %d%s rows of %s\n", len(idx), plural(len(idx)), len(rows), first, cr.name)
		}
		maxCell := 40
		if c.has("expand") {
			maxCell = 1 << 30
		}
		cells := func(r []string) []string {
			out := make([]string, len(r))
			for j, v := range r {
				if v == "" {
					v = "<empty>"
				}
				out[j] = truncate(cleanCell(v), maxCell)
			}
			return out
		}
		hideHeaders := c.has("hide-headers") || c.noHeaders
		all := [][]string{cells(headers)}
		for _, r := range rows {
			all = append(all, cells(r))
		}
		if more {
			ellipsis := make([]string, len(headers))
			for j := range ellipsis {
				ellipsis[j] = "…"
			}
			all = append(all, ellipsis)
		}
		widths := make([]int, len(headers))
		for _, r := range all {
			for j, v := range r {
				widths[j] = max(widths[j], displayWidth(v))
			}
		}
		borderless := c.str("theme", "table") != "table"
		w := c.out.w
		rule := func(l, m, r string) {
			if borderless {
				return
			}
			w.WriteString(l)
			for j, wd := range widths {
				if j > 0 {
					w.WriteString(m)
				}
				w.WriteString(strings.Repeat("─", wd+2))
			}
			w.WriteString(r + "\n")
		}
		line := func(r []string) {
			for j, v := range r {
				switch {
				case borderless && j > 0:
					w.WriteString("  ")
				case !borderless:
					w.WriteString("│ ")
				}
				cell := pad(v, widths[j])
				if borderless && j == len(r)-1 {
					cell = strings.TrimRight(cell, " ")
				}
				w.WriteString(cell)
				if !borderless {
					w.WriteString(" ")
				}
			}
			if !borderless {
				w.WriteString("│")
			}
			w.WriteString("\n")
		}
		rule("┌", "┬", "┐")
		if !hideHeaders {
			line(all[0])
			rule("├", "┼", "┤")
		}
		for _, r := range all[1:] {
			line(r)
		}
		rule("└", "┴", "┘")
		return nil
	},
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

var flattenCmd = &subcommand{
	name: "flatten", aliases: []string{"f"},
	summary: "Show each record as lines of field and value",
	usage:   []string{"flatten [options] [<input>]"},
	flags: []flagDef{
		{"-s", "--select", "<arg>", "Columns to show."},
		{"-l", "--limit", "<n>", "Records to show (default all)."},
		{"-c", "--condense", "", "Cut long values with … to fit 80 columns instead of showing them whole."},
		{"", "--csv", "", "Write row,field,value CSV instead (unpivot)."},
		{"", "--row-separator", "<sep>", "Separate records by this line instead of a Row n° header."},
	},
	run: func(c *call) error {
		limit, err := c.num("limit", 0)
		if err != nil {
			return err
		}
		cr, idx, err := c.inputSelected(c.args)
		if cr == nil {
			return err
		}
		headers := pick(cr.Headers(), idx)
		asCSV := c.has("csv")
		if asCSV {
			if err := c.out.Write([]string{"row", "field", "value"}); err != nil {
				return err
			}
		}
		keyWidth := 0
		for _, h := range headers {
			keyWidth = max(keyWidth, displayWidth(cleanCell(h)))
		}
		w := c.out.w
		i := -1
		return eachUntil(cr, func(rec []string) error {
			i++
			if limit > 0 && i >= limit {
				return errStop
			}
			vals := pick(rec, idx)
			if asCSV {
				for j, v := range vals {
					if err := c.out.Write([]string{strconv.Itoa(i), headers[j], v}); err != nil {
						return err
					}
				}
				return nil
			}
			if sep, ok := c.vals["row-separator"]; ok {
				if i > 0 && sep[len(sep)-1] != "" {
					w.WriteString(sep[len(sep)-1] + "\n")
				}
			} else {
				if i > 0 {
					w.WriteString("\n")
				}
				fmt.Fprintf(w, "Row n°%d\n%s\n", i, strings.Repeat("─", 79))
			}
			for j, v := range vals {
				k := pad(cleanCell(headers[j]), keyWidth)
				switch {
				case v == "":
					v = "<empty>"
				case c.has("condense"):
					v = truncate(cleanCell(v), max(79-keyWidth-1, 10))
				default:
					v = strings.ReplaceAll(v, "\n", "\n"+strings.Repeat(" ", keyWidth+1))
				}
				w.WriteString(k + " " + v + "\n")
			}
			return nil
		})
	},
}

var joinCmd = &subcommand{
	name:    "join",
	summary: "Join two CSV files on key columns (inner by default)",
	usage:   []string{"join [options] <columns1> <input1> <columns2> <input2>"},
	about: `
Rows of input1 and input2 whose key columns are equal are written side
by side (input1's columns first). The left input is held in memory, the
right one streamed. Empty keys never match unless --nulls.`,
	flags: []flagDef{
		{"", "--left", "", "Keep every row of input1 (padded when unmatched)."},
		{"", "--right", "", "Keep every row of input2 (padded when unmatched)."},
		{"", "--full", "", "Keep every row of both inputs."},
		{"", "--semi", "", "Only input1's rows that match, input1's columns only."},
		{"", "--anti", "", "Only input1's rows that do not match, input1's columns only."},
		{"-i", "--ignore-case", "", "Compare keys case-insensitively."},
		{"", "--nulls", "", "Let empty keys match."},
		{"-L", "--prefix-left", "<prefix>", "Prefix input1's column names."},
		{"-R", "--prefix-right", "<prefix>", "Prefix input2's column names."},
	},
	run: runJoin,
}

func runJoin(c *call) error {
	if len(c.args) != 4 {
		return usagef("join needs four arguments: <columns1> <input1> <columns2> <input2>")
	}
	if c.args[1] == "-" && c.args[3] == "-" {
		return usagef("only one of the inputs may be stdin")
	}
	mode := "inner"
	for _, m := range []string{"left", "right", "full", "semi", "anti"} {
		if c.has(m) {
			if mode != "inner" {
				return usagef("--%s and --%s cannot be combined", mode, m)
			}
			mode = m
		}
	}
	left, err := c.open(c.args[1])
	if err != nil {
		return err
	}
	right, err := c.open(c.args[3])
	if err != nil {
		return err
	}
	lidx, err := selectColumns(c.args[0], left.Headers(), left.HasHeaders())
	if err != nil {
		return fmt.Errorf("%s: %w", left.name, err)
	}
	ridx, err := selectColumns(c.args[2], right.Headers(), right.HasHeaders())
	if err != nil {
		return fmt.Errorf("%s: %w", right.name, err)
	}
	if len(lidx) != len(ridx) {
		return usagef("the two selections must have as many columns (%d and %d)", len(lidx), len(ridx))
	}
	fold, nulls := c.has("ignore-case"), c.has("nulls")
	key := func(rec []string, idx []int) (string, bool) {
		k := pick(rec, idx)
		empty := true
		for i, v := range k {
			if v != "" {
				empty = false
			}
			if fold {
				k[i] = strings.ToLower(v)
			}
		}
		return rowKey(k), nulls || !empty
	}
	prefix := func(h []string, p string) []string {
		out := make([]string, len(h))
		for i, v := range h {
			out[i] = p + v
		}
		return out
	}
	lh, rh := prefix(left.Headers(), c.str("prefix-left", "")), prefix(right.Headers(), c.str("prefix-right", ""))
	// The left side is indexed; rows keep their order for --left/--full.
	var lrows [][]string
	index := map[string][]int{}
	if err := each(left, func(rec []string) error {
		if k, ok := key(rec, lidx); ok {
			index[k] = append(index[k], len(lrows))
		}
		lrows = append(lrows, rec)
		return nil
	}); err != nil {
		return err
	}
	if mode == "semi" || mode == "anti" {
		seen := map[string]bool{}
		if err := each(right, func(rec []string) error {
			if k, ok := key(rec, ridx); ok {
				seen[k] = true
			}
			return nil
		}); err != nil {
			return err
		}
		if err := c.writeHeaders(lh); err != nil {
			return err
		}
		for _, rec := range lrows {
			k, ok := key(rec, lidx)
			if (ok && seen[k]) == (mode == "semi") {
				if err := c.out.Write(rec); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := c.writeHeaders(append(append([]string(nil), lh...), rh...)); err != nil {
		return err
	}
	lpad, rpad := make([]string, left.width), make([]string, right.width)
	if mode == "left" || mode == "full" {
		// Stream order would interleave unmatched left rows; index the
		// right side instead so the output follows input1.
		rindex := map[string][][]string{}
		var rrows [][]string
		if err := each(right, func(rec []string) error {
			if k, ok := key(rec, ridx); ok {
				rindex[k] = append(rindex[k], rec)
			}
			rrows = append(rrows, rec)
			return nil
		}); err != nil {
			return err
		}
		usedRight := map[string]bool{}
		for _, lrec := range lrows {
			k, ok := key(lrec, lidx)
			if ok && len(rindex[k]) > 0 {
				usedRight[k] = true
				for _, rrec := range rindex[k] {
					if err := c.out.Write(append(append([]string(nil), lrec...), rrec...)); err != nil {
						return err
					}
				}
				continue
			}
			if err := c.out.Write(append(append([]string(nil), lrec...), rpad...)); err != nil {
				return err
			}
		}
		if mode == "full" {
			for _, rrec := range rrows {
				if k, ok := key(rrec, ridx); ok && usedRight[k] {
					continue
				}
				if err := c.out.Write(append(append([]string(nil), lpad...), rrec...)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return each(right, func(rrec []string) error {
		k, ok := key(rrec, ridx)
		hits := index[k]
		if !ok {
			hits = nil
		}
		for _, li := range hits {
			if err := c.out.Write(append(append([]string(nil), lrows[li]...), rrec...)); err != nil {
				return err
			}
		}
		if len(hits) == 0 && mode == "right" {
			return c.out.Write(append(append([]string(nil), lpad...), rrec...))
		}
		return nil
	})
}
