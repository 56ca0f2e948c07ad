package xan

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

var headersCmd = &subcommand{
	name: "headers", aliases: []string{"h"},
	summary: "Print the column names, with their index",
	usage:   []string{"headers [options] [<input>...]"},
	flags:   []flagDef{{"-j", "--just-names", "", "Only show the names (hide the column index)."}},
	run: func(c *call) error {
		ins := c.inputs(c.args)
		for k, name := range ins {
			cr, err := c.openWith(name, false, true)
			if err != nil {
				return err
			}
			if len(ins) > 1 {
				if k > 0 {
					c.out.w.WriteString("\n")
				}
				c.out.w.WriteString(cr.name + "\n")
			}
			width := max(len(strconv.Itoa(max(len(cr.headers)-1, 0))), 4)
			for i, h := range cr.headers {
				if !c.has("just-names") {
					fmt.Fprintf(c.out.w, "%-*d", width, i)
				}
				c.out.w.WriteString(h + "\n")
			}
		}
		return nil
	},
}

var countCmd = &subcommand{
	name: "count", aliases: []string{"c"},
	summary: "Print the number of records (the header row excluded)",
	usage:   []string{"count [options] [<input>]"},
	flags:   []flagDef{{"-c", "--check-alignment", "", "Fail on rows whose field count differs from the first row's."}},
	run: func(c *call) error {
		name, err := c.oneInput(c.args)
		if err != nil {
			return err
		}
		cr, err := c.openWith(name, c.noHeaders, !c.has("check-alignment"))
		if err != nil {
			return err
		}
		n := 0
		for {
			if _, err := cr.Read(); err == io.EOF {
				break
			} else if err != nil {
				return err
			}
			n++
		}
		fmt.Fprintln(c.out.w, n)
		return nil
	},
}

var selectCmd = &subcommand{
	name:    "select",
	summary: "Select, reorder, duplicate or drop columns",
	usage:   []string{"select [options] [--] <selection> [<input>]"},
	about: `
Columns are named, or given by zero-based index (negative from the end).
Ranges are inclusive: 0:3, name:other, 2: (from the third), :-2.
!col drops a column (alone: keep all others). "name[1]" is the second column
called name; pre* and *suf match by prefix or suffix; * is every column.
Quote names holding , : ! * [ ] inside the selection: '"a:b",c'.
Use -- before a selection starting with a minus: xan select -- -1.`,
	flags: []flagDef{{"-e", "--evaluate", "", "Not supported here (xan's expression selection); use filter or jq."}},
	run: func(c *call) error {
		if c.has("evaluate") {
			return usagef("-e/--evaluate (expression selection) is not supported; select by names or indices")
		}
		if len(c.args) == 0 {
			return usagef("missing the column selection")
		}
		cr, err := c.input(c.args[1:])
		if cr == nil {
			return err
		}
		idx, err := selectColumns(c.args[0], cr.Headers(), cr.HasHeaders())
		if err != nil {
			return err
		}
		if err := c.writeHeaders(pick(cr.Headers(), idx)); err != nil {
			return err
		}
		return each(cr, func(rec []string) error { return c.out.Write(pick(rec, idx)) })
	},
}

// each calls fn for every remaining record of cr.
func each(cr *csvReader, fn func([]string) error) error {
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
}

var errStop = fmt.Errorf("stop")

// eachUntil is each where fn may return errStop to end early.
func eachUntil(cr *csvReader, fn func([]string) error) error {
	if err := each(cr, fn); err != nil && err != errStop {
		return err
	}
	return nil
}

var sliceCmd = &subcommand{
	name:    "slice",
	summary: "Return the rows in a range (zero-based, half-open, header excluded)",
	usage:   []string{"slice [options] [<input>]"},
	flags: []flagDef{
		{"-s", "--start", "<n>", "Index of the first record to return."},
		{"-e", "--end", "<n>", "Index of the record to stop before."},
		{"-l", "--len", "<n>", "Number of records to return (instead of --end)."},
		{"-i", "--index", "<i>", "Return the records at these indices (comma-separated)."},
		{"-L", "--last", "<n>", "Return the last n records."},
	},
	run: func(c *call) error {
		name, err := c.oneInput(c.args)
		if err != nil {
			return err
		}
		if c.has("last") {
			n, err := c.num("last", 0)
			if err != nil {
				return err
			}
			return c.tail(name, n)
		}
		start, err := c.num("start", 0)
		if err != nil {
			return err
		}
		end := -1
		if c.has("end") {
			if end, err = c.num("end", 0); err != nil {
				return err
			}
		}
		if c.has("len") {
			n, err := c.num("len", 0)
			if err != nil {
				return err
			}
			end = start + n
		}
		var want map[int]bool
		if c.has("index") {
			want = map[int]bool{}
			for _, s := range strings.Split(c.str("index", ""), ",") {
				i, err := strconv.Atoi(strings.TrimSpace(s))
				if err != nil || i < 0 {
					return usagef("--index needs non-negative integers separated by commas, not %q", s)
				}
				want[i] = true
				end = max(end, i+1)
			}
		}
		return c.slice(name, start, end, want)
	},
}

// slice writes records [start, end) (end < 0: to the end), or those in
// want, and stops reading once past the range.
func (c *call) slice(name string, start, end int, want map[int]bool) error {
	cr, err := c.openData(name)
	if cr == nil {
		return err
	}
	if err := c.writeHeaders(cr.Headers()); err != nil {
		return err
	}
	i := -1
	return eachUntil(cr, func(rec []string) error {
		i++
		if end >= 0 && i >= end {
			return errStop
		}
		if (want == nil && i >= start) || want[i] {
			return c.out.Write(rec)
		}
		return nil
	})
}

// tail writes the last n records, keeping only n in memory.
func (c *call) tail(name string, n int) error {
	cr, err := c.openData(name)
	if cr == nil {
		return err
	}
	if err := c.writeHeaders(cr.Headers()); err != nil {
		return err
	}
	if n == 0 {
		return each(cr, func([]string) error { return nil })
	}
	ring := make([][]string, 0, min(n, 4096))
	next := 0
	if err := each(cr, func(rec []string) error {
		if len(ring) < n {
			ring = append(ring, rec)
		} else {
			ring[next] = rec
			next = (next + 1) % n
		}
		return nil
	}); err != nil {
		return err
	}
	for k := range ring {
		if err := c.out.Write(ring[(next+k)%len(ring)]); err != nil {
			return err
		}
	}
	return nil
}

var headCmd = &subcommand{
	name:    "head",
	summary: "Return the first rows (as slice -l)",
	usage:   []string{"head [options] [<input>]"},
	flags:   []flagDef{{"-l", "--limit", "<n>", "Number of rows to return (default 10)."}},
	run:     func(c *call) error { return c.headOrTail(false) },
}

var tailCmd = &subcommand{
	name:    "tail",
	summary: "Return the last rows (as slice -L)",
	usage:   []string{"tail [options] [<input>]"},
	flags:   []flagDef{{"-l", "--limit", "<n>", "Number of rows to return (default 10)."}},
	run:     func(c *call) error { return c.headOrTail(true) },
}

func (c *call) headOrTail(last bool) error {
	name, err := c.oneInput(c.args)
	if err != nil {
		return err
	}
	n, err := c.num("limit", 10)
	if err != nil {
		return err
	}
	if last {
		return c.tail(name, n)
	}
	return c.slice(name, 0, n, nil)
}

var beheadCmd = &subcommand{
	name: "behead", aliases: []string{"guillotine"},
	summary: "Drop the header row",
	usage:   []string{"behead [options] [<input>]"},
	run: func(c *call) error {
		name, err := c.oneInput(c.args)
		if err != nil {
			return err
		}
		cr, err := c.openWith(name, false, true)
		if err != nil {
			return err
		}
		return each(cr, c.out.Write)
	},
}

var renameCmd = &subcommand{
	name:    "rename",
	summary: "Rename columns (or add a header row with -n)",
	usage: []string{
		"rename [options] <columns> [<input>]",
		"rename [options] --prefix <prefix> [<input>]",
	},
	about: `
The new names are one CSV row: xan rename 'id,"name, full"' file.csv.
With -s, only the selected columns are renamed; with -n, the names become
the header of a headless file.`,
	flags: []flagDef{
		{"-s", "--select", "<arg>", "Columns to rename."},
		{"-p", "--prefix", "<prefix>", "Prefix every (selected) column name."},
		{"-f", "--force", "", "Ignore selected columns that do not exist."},
	},
	run: func(c *call) error {
		args := c.args
		var newNames []string
		if !c.has("prefix") {
			if len(args) == 0 {
				return usagef("missing the new column names")
			}
			rec, err := parseRow(args[0])
			if err != nil {
				return usagef("the new names are not a valid CSV row: %v", err)
			}
			newNames, args = rec, args[1:]
		}
		cr, err := c.input(args)
		if cr == nil {
			return err
		}
		headers := append([]string(nil), cr.Headers()...)
		var idx []int
		if c.has("select") && c.has("force") {
			for _, it := range strings.Split(c.str("select", ""), ",") {
				if i, err := selectColumns(it, headers, cr.HasHeaders()); err == nil {
					idx = append(idx, i...)
				}
			}
		} else if idx, err = c.selection("select", cr); err != nil {
			return err
		}
		if newNames != nil && len(newNames) != len(idx) {
			return fmt.Errorf("got %d new names for %d columns (%s)", len(newNames), len(idx), strings.Join(pick(headers, idx), ", "))
		}
		for k, i := range idx {
			if newNames != nil {
				headers[i] = newNames[k]
			} else {
				headers[i] = c.str("prefix", "") + headers[i]
			}
		}
		if err := c.out.Write(headers); err != nil {
			return err
		}
		return each(cr, c.out.Write)
	},
}

var dedupCmd = &subcommand{
	name:    "dedup",
	summary: "Drop rows whose selected columns repeat an earlier row's",
	usage:   []string{"dedup [options] [<input>]"},
	flags: []flagDef{
		{"-s", "--select", "<arg>", "Columns that make a row's identity (default all)."},
		{"-S", "--sorted", "", "The input is sorted on the selection: constant memory."},
		{"-l", "--keep-last", "", "Keep the last row of each identity instead of the first."},
		{"", "--check", "", "Only check for duplicates: status 1 and a message at the first one."},
	},
	run: func(c *call) error {
		cr, idx, err := c.inputSelected(c.args)
		if cr == nil {
			return err
		}
		check := c.has("check")
		if !check {
			if err := c.writeHeaders(cr.Headers()); err != nil {
				return err
			}
		}
		sorted, keepLast := c.has("sorted"), c.has("keep-last")
		switch {
		case keepLast:
			last := map[string]int{}
			var rows [][]string
			if err := each(cr, func(rec []string) error {
				last[rowKey(pick(rec, idx))] = len(rows)
				rows = append(rows, rec)
				return nil
			}); err != nil {
				return err
			}
			for i, rec := range rows {
				if last[rowKey(pick(rec, idx))] == i {
					if err := c.out.Write(rec); err != nil {
						return err
					}
				}
			}
			return nil
		case sorted:
			prev, first := "", true
			return each(cr, func(rec []string) error {
				k := rowKey(pick(rec, idx))
				if !first && k == prev {
					if check {
						return fmt.Errorf("duplicate found at row %d: %s", cr.rows-1, strings.Join(pick(rec, idx), ","))
					}
					return nil
				}
				first, prev = false, k
				if check {
					return nil
				}
				return c.out.Write(rec)
			})
		}
		seen := map[string]bool{}
		return each(cr, func(rec []string) error {
			k := rowKey(pick(rec, idx))
			if seen[k] {
				if check {
					return fmt.Errorf("duplicate found at row %d: %s", cr.rows-1, strings.Join(pick(rec, idx), ","))
				}
				return nil
			}
			seen[k] = true
			if check {
				return nil
			}
			return c.out.Write(rec)
		})
	},
}

// rowKey encodes fields unambiguously (length-prefixed) for map keys.
func rowKey(fields []string) string {
	var b strings.Builder
	for _, f := range fields {
		b.WriteString(strconv.Itoa(len(f)))
		b.WriteByte(':')
		b.WriteString(f)
	}
	return b.String()
}

var reverseCmd = &subcommand{
	name:    "reverse",
	summary: "Reverse the order of the rows",
	usage:   []string{"reverse [options] [<input>]"},
	run: func(c *call) error {
		rows, cr, err := c.readAll()
		if err != nil || cr == nil {
			return err
		}
		if err := c.writeHeaders(cr.Headers()); err != nil {
			return err
		}
		for i := len(rows) - 1; i >= 0; i-- {
			if err := c.out.Write(rows[i]); err != nil {
				return err
			}
		}
		return nil
	},
}

// readAll reads the single input whole; cr is nil for an empty input.
func (c *call) readAll() ([][]string, *csvReader, error) {
	cr, err := c.input(c.args)
	if cr == nil {
		return nil, nil, err
	}
	var rows [][]string
	err = each(cr, func(rec []string) error {
		rows = append(rows, rec)
		return nil
	})
	return rows, cr, err
}

var transposeCmd = &subcommand{
	name:    "transpose",
	summary: "Swap rows and columns (the header row becomes the first column)",
	usage:   []string{"transpose [options] [<input>]"},
	run: func(c *call) error {
		rows, cr, err := c.readAll()
		if err != nil || cr == nil {
			return err
		}
		if !c.noHeaders {
			rows = append([][]string{cr.Headers()}, rows...)
		}
		for col := 0; col < cr.width; col++ {
			out := make([]string, len(rows))
			for r, rec := range rows {
				out[r] = rec[col]
			}
			if err := c.out.Write(out); err != nil {
				return err
			}
		}
		return nil
	},
}

var catCmd = &subcommand{
	name:    "cat",
	summary: "Concatenate CSV files by rows or by columns",
	usage: []string{
		"cat rows [options] [<inputs>...]",
		"cat columns [options] [<inputs>...]",
	},
	about: `
cat rows keeps the header of the first input; every input must have the
same number of columns. cat columns pastes the inputs side by side and
stops at the shortest, unless -p pads.`,
	flags: []flagDef{
		{"-p", "--pad", "", "cat columns: pad short inputs with empty fields."},
		{"-S", "--source-column", "<name>", "cat rows: prepend a column holding each row's input."},
	},
	run: func(c *call) error {
		if len(c.args) == 0 || (c.args[0] != "rows" && c.args[0] != "columns") {
			return usagef("say cat rows or cat columns")
		}
		ins := c.inputs(c.args[1:])
		if c.args[0] == "rows" {
			return c.catRows(ins)
		}
		return c.catColumns(ins)
	},
}

func (c *call) catRows(ins []string) error {
	source := c.str("source-column", "")
	// Every input is opened (and its width checked) before a row is
	// written, so a mismatch leaves no partial output.
	var readers []*csvReader
	for _, name := range ins {
		cr, err := c.open(name)
		if err != nil {
			return err
		}
		if cr.eof && cr.width == 0 {
			continue
		}
		if len(readers) > 0 && cr.width != readers[0].width {
			return fmt.Errorf("%s has %d columns but %s has %d: cat rows needs the same columns (use xan select first)",
				cr.name, cr.width, readers[0].name, readers[0].width)
		}
		readers = append(readers, cr)
	}
	for k, cr := range readers {
		if k == 0 {
			h := cr.Headers()
			if source != "" {
				h = append([]string{source}, h...)
			}
			if err := c.writeHeaders(h); err != nil {
				return err
			}
		}
		if err := each(cr, func(rec []string) error {
			if source != "" {
				rec = append([]string{cr.name}, rec...)
			}
			return c.out.Write(rec)
		}); err != nil {
			return err
		}
	}
	return nil
}

func (c *call) catColumns(ins []string) error {
	var readers []*csvReader
	var headers []string
	for _, name := range ins {
		cr, err := c.open(name)
		if err != nil {
			return err
		}
		readers = append(readers, cr)
		headers = append(headers, cr.Headers()...)
	}
	if err := c.writeHeaders(headers); err != nil {
		return err
	}
	pad := c.has("pad")
	for {
		var row []string
		live := 0
		for _, cr := range readers {
			rec, err := cr.Read()
			if err == io.EOF {
				if !pad {
					return nil
				}
				rec = make([]string, cr.width)
			} else if err != nil {
				return err
			} else {
				live++
			}
			row = append(row, rec...)
		}
		if live == 0 {
			return nil
		}
		if err := c.out.Write(row); err != nil {
			return err
		}
	}
}

// parseRow parses one CSV row given on the command line.
func parseRow(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inQuote := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case inQuote && ch == '"' && i+1 < len(s) && s[i+1] == '"':
			cur.WriteByte('"')
			i++
		case ch == '"':
			inQuote = !inQuote
		case ch == ',' && !inQuote:
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(ch)
		}
	}
	if inQuote {
		return nil, fmt.Errorf("unbalanced quote in %q", s)
	}
	return append(out, cur.String()), nil
}

var fixlengthsCmd = &subcommand{
	name:    "fixlengths",
	summary: "Pad (or cut, with -l) rows so every one has the same number of fields",
	usage:   []string{"fixlengths [options] [<input>]"},
	about: `
Without -l, rows are padded with empty fields to the longest row's length
(trailing empty fields not counted, at least 1): a file is read twice,
stdin is held in memory. With -l, every row is padded or cut to n fields
in one pass. The header row is a row like the others here.`,
	flags: []flagDef{{"-l", "--length", "<n>", "Force every row to n fields (cutting longer ones)."}},
	run: func(c *call) error {
		name, err := c.oneInput(c.args)
		if err != nil {
			return err
		}
		length, err := c.num("length", 0)
		if err != nil {
			return err
		}
		if c.has("length") && length == 0 {
			return usagef("--length must be at least 1")
		}
		var held [][]string
		if length == 0 {
			cr, err := c.openWith(name, true, true)
			if err != nil {
				return err
			}
			if err := each(cr, func(rec []string) error {
				n := 1
				for i, f := range rec {
					if f != "" {
						n = max(n, i+1)
					}
				}
				length = max(length, n)
				if name == "-" {
					held = append(held, rec)
				}
				return nil
			}); err != nil {
				return err
			}
		}
		fix := func(rec []string) error {
			if len(rec) < length {
				rec = append(rec, make([]string, length-len(rec))...)
			}
			return c.out.Write(rec[:length])
		}
		if name == "-" && held != nil {
			for _, rec := range held {
				if err := fix(rec); err != nil {
					return err
				}
			}
			return nil
		}
		cr, err := c.openWith(name, true, true)
		if err != nil {
			return err
		}
		return each(cr, fix)
	},
}
