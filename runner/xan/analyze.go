package xan

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var searchCmd = &subcommand{
	name:    "search",
	summary: "Keep rows where a column contains (or matches) a pattern",
	usage: []string{
		"search [options] <pattern> [-P <pattern>...] [<input>]",
		"search [options] --empty [<input>]",
		"search [options] --non-empty [<input>]",
	},
	about: `
By default a row matches when any selected cell contains the pattern as a
substring; -e wants the whole cell, -r a regular expression (Go RE2
syntax, close to Rust's regex). -A wants every selected cell to match.`,
	flags: []flagDef{
		{"-e", "--exact", "", "Match whole cells."},
		{"-r", "--regex", "", "The pattern is a regular expression."},
		{"-E", "--empty", "", "Match empty cells (no pattern)."},
		{"-N", "--non-empty", "", "Match non-empty cells (no pattern)."},
		{"-i", "--ignore-case", "", "Case-insensitive match."},
		{"-v", "--invert-match", "", "Keep the rows that do not match."},
		{"-s", "--select", "<arg>", "Columns to search (default all)."},
		{"-A", "--all", "", "A row matches only when all selected cells match."},
		{"-P", "--add-pattern", "<pattern>", "Another pattern (any may match)."},
		{"-l", "--limit", "<n>", "Stop after n matching rows."},
		{"-f", "--flag", "<column>", "Keep every row and add a column: 1 when it matched, else 0."},
	},
	run: func(c *call) error {
		args := c.args
		var patterns []string
		if !c.has("empty") && !c.has("non-empty") {
			if len(args) == 0 {
				return usagef("missing the pattern")
			}
			patterns, args = []string{args[0]}, args[1:]
		}
		patterns = append(patterns, c.vals["add-pattern"]...)
		match, err := c.matcher(patterns)
		if err != nil {
			return err
		}
		limit, err := c.num("limit", 0)
		if err != nil {
			return err
		}
		cr, idx, err := c.inputSelected(args)
		if cr == nil {
			return err
		}
		flag := c.str("flag", "")
		h := cr.Headers()
		if flag != "" {
			h = append(h[:len(h):len(h)], flag)
		}
		if err := c.writeHeaders(h); err != nil {
			return err
		}
		all, invert := c.has("all"), c.has("invert-match")
		emitted := 0
		return eachUntil(cr, func(rec []string) error {
			hit := all && len(idx) > 0
			for _, i := range idx {
				m := match(rec[i])
				if all && !m {
					hit = false
					break
				}
				if !all && m {
					hit = true
					break
				}
			}
			if hit == invert && flag == "" {
				return nil
			}
			if flag != "" {
				v := "0"
				if hit != invert {
					v = "1"
				}
				rec = append(rec, v)
			}
			if err := c.out.Write(rec); err != nil {
				return err
			}
			emitted++
			if limit > 0 && emitted >= limit {
				return errStop
			}
			return nil
		})
	},
}

func (c *call) matcher(patterns []string) (func(string) bool, error) {
	fold := c.has("ignore-case")
	switch {
	case c.has("empty"):
		return func(s string) bool { return s == "" }, nil
	case c.has("non-empty"):
		return func(s string) bool { return s != "" }, nil
	case c.has("regex"):
		var res []*regexp.Regexp
		for _, p := range patterns {
			if fold {
				p = "(?i)" + p
			}
			re, err := regexp.Compile(p)
			if err != nil {
				return nil, usagef("invalid regular expression: %v", err)
			}
			res = append(res, re)
		}
		return func(s string) bool {
			for _, re := range res {
				if re.MatchString(s) {
					return true
				}
			}
			return false
		}, nil
	}
	exact := c.has("exact")
	if fold {
		for i := range patterns {
			patterns[i] = strings.ToLower(patterns[i])
		}
	}
	return func(s string) bool {
		if fold {
			s = strings.ToLower(s)
		}
		for _, p := range patterns {
			if (exact && s == p) || (!exact && strings.Contains(s, p)) {
				return true
			}
		}
		return false
	}, nil
}

var sortCmd = &subcommand{
	name:    "sort",
	summary: "Sort rows (lexicographic, or numeric with -N)",
	usage:   []string{"sort [options] [<input>]"},
	about: `
Sorts on the selected columns (default all), byte-wise, stable. With -N,
cells that are not numbers sort before all numbers.`,
	flags: []flagDef{
		{"-s", "--select", "<arg>", "Columns to sort by."},
		{"-N", "--numeric", "", "Compare cells as numbers."},
		{"-R", "--reverse", "", "Descending order."},
		{"-u", "--uniq", "", "Drop rows equal (on the selection) to the previous one."},
		{"-c", "--count", "<name>", "With -u: add a column counting each kept row's duplicates."},
		{"", "--check", "", "Only check whether the input is sorted (status 1 if not)."},
	},
	run: func(c *call) error {
		rows, cr, err := c.readAll()
		if err != nil || cr == nil {
			return err
		}
		idx, err := c.selection("select", cr)
		if err != nil {
			return err
		}
		numeric, reverse := c.has("numeric"), c.has("reverse")
		order := func(a, b []string) int {
			for _, i := range idx {
				var r int
				if numeric {
					r = compareNumeric(a[i], b[i])
				} else {
					r = strings.Compare(a[i], b[i])
				}
				if r != 0 {
					if reverse {
						return -r
					}
					return r
				}
			}
			return 0
		}
		if c.has("check") {
			for i := 1; i < len(rows); i++ {
				if order(rows[i-1], rows[i]) > 0 {
					return fmt.Errorf("file is not sorted! (row %d comes before row %d)", i-1, i)
				}
			}
			_, err := c.out.w.WriteString("file is correctly sorted!\n")
			return err
		}
		countCol := c.str("count", "")
		uniq := c.has("uniq")
		if countCol != "" && !uniq {
			return usagef("--count can only be used with --uniq")
		}
		slices.SortStableFunc(rows, order)
		h := cr.Headers()
		if countCol != "" {
			h = append(h[:len(h):len(h)], countCol)
		}
		if err := c.writeHeaders(h); err != nil {
			return err
		}
		// -u keeps the first of each run of rows whose selected cells are
		// equal as strings (as xan does, even with -N).
		same := func(a, b []string) bool { return slices.Equal(pick(a, idx), pick(b, idx)) }
		for i := 0; i < len(rows); {
			j := i + 1
			for uniq && j < len(rows) && same(rows[i], rows[j]) {
				j++
			}
			rec := rows[i]
			if countCol != "" {
				rec = append(rec[:len(rec):len(rec)], strconv.Itoa(j-i))
			}
			if !uniq {
				j = i + 1
			}
			if err := c.out.Write(rec); err != nil {
				return err
			}
			i = j
		}
		return nil
	},
}

func compareNumeric(a, b string) int {
	na, oka := parseNumber(a)
	nb, okb := parseNumber(b)
	switch {
	case !oka && !okb:
		return 0
	case !oka:
		return -1
	case !okb:
		return 1
	}
	return compareNumbers(na, nb)
}

// compareNumbers compares exactly when both are integers.
func compareNumbers(a, b number) int {
	if a.isInt && b.isInt {
		return cmp.Compare(a.i, b.i)
	}
	return cmp.Compare(a.float(), b.float())
}

var frequencyCmd = &subcommand{
	name: "frequency", aliases: []string{"freq"},
	summary: "Frequency table of values per column: field,value,count",
	usage:   []string{"frequency [options] [<input>]"},
	about: `
For each selected column, the most frequent values by descending count
(ties in byte order of the value, as xan). Empty cells count as <empty>; values
beyond the limit are summed in a <rest> row. With -n, field is the column
index.`,
	flags: []flagDef{
		{"-s", "--select", "<arg>", "Columns to count (default all)."},
		{"-l", "--limit", "<n>", "Keep the n most frequent values (default 10; 0: all)."},
		{"-A", "--all", "", "No limit."},
		{"-N", "--no-extra", "", "Leave out empty cells and the <rest> row."},
		{"", "--sep", "<char>", "Split cells on this separator and count the parts."},
	},
	run: func(c *call) error {
		limit, err := c.limit(10)
		if err != nil {
			return err
		}
		cr, idx, err := c.inputSelected(c.args)
		if cr == nil {
			return err
		}
		type counter struct {
			counts map[string]int
			order  []string
		}
		counters := make([]counter, len(idx))
		for k := range counters {
			counters[k].counts = map[string]int{}
		}
		noExtra, sep := c.has("no-extra"), c.str("sep", "")
		add := func(ct *counter, v string) {
			if v == "" {
				if noExtra {
					return
				}
				v = "<empty>"
			}
			if _, ok := ct.counts[v]; !ok {
				ct.order = append(ct.order, v)
			}
			ct.counts[v]++
		}
		if err := each(cr, func(rec []string) error {
			for k, i := range idx {
				if sep != "" {
					for _, part := range strings.Split(rec[i], sep) {
						add(&counters[k], part)
					}
				} else {
					add(&counters[k], rec[i])
				}
			}
			return nil
		}); err != nil {
			return err
		}
		if err := c.out.Write([]string{"field", "value", "count"}); err != nil {
			return err
		}
		headers := cr.Headers()
		for k, i := range idx {
			ct := counters[k]
			vals := ct.order
			slices.SortFunc(vals, func(a, b string) int {
				return cmp.Or(cmp.Compare(ct.counts[b], ct.counts[a]), strings.Compare(a, b))
			})
			rest := 0
			if limit > 0 && len(vals) > limit {
				for _, v := range vals[limit:] {
					rest += ct.counts[v]
				}
				vals = vals[:limit]
			}
			for _, v := range vals {
				if err := c.out.Write([]string{headers[i], v, strconv.Itoa(ct.counts[v])}); err != nil {
					return err
				}
			}
			if rest > 0 && !noExtra {
				if err := c.out.Write([]string{headers[i], "<rest>", strconv.Itoa(rest)}); err != nil {
					return err
				}
			}
		}
		return nil
	},
}

var statsCmd = &subcommand{
	name:    "stats",
	summary: "Descriptive statistics per column (count, nulls, type, sum, mean, min, max, …)",
	usage:   []string{"stats [options] [<input>]"},
	about: `
Output columns, as xan's default set: field, count (non-empty cells),
count_empty, type (most likely: string, float, int or empty), types (all
seen, |-separated), sum, mean, variance and stddev (population), min and
max (numbers only), lex_first, lex_last, min_length, max_length (bytes).
-c adds cardinality, mode and tied_for_mode. Dates and URLs count as
string. Runs in constant memory per column unless -c is given.`,
	flags: []flagDef{
		{"-s", "--select", "<arg>", "Columns to describe (default all)."},
		{"-c", "--cardinality", "", "Add cardinality, mode and tied_for_mode (holds distinct values in memory)."},
		{"", "--nulls", "", "Count empty cells as 0 in mean, variance and stddev."},
	},
	run: func(c *call) error {
		cr, idx, err := c.inputSelected(c.args)
		if cr == nil {
			return err
		}
		card, nulls := c.has("cardinality"), c.has("nulls")
		cols := make([]*columnStats, len(idx))
		for k := range cols {
			cols[k] = &columnStats{}
			if card {
				cols[k].freq = map[string]int{}
			}
		}
		if err := each(cr, func(rec []string) error {
			for k, i := range idx {
				cols[k].add(rec[i], nulls)
			}
			return nil
		}); err != nil {
			return err
		}
		h := []string{"field", "count", "count_empty", "type", "types", "sum", "mean", "variance", "stddev", "min", "max"}
		if card {
			h = append(h, "cardinality", "mode", "tied_for_mode")
		}
		h = append(h, "lex_first", "lex_last", "min_length", "max_length")
		if err := c.out.Write(h); err != nil {
			return err
		}
		headers := cr.Headers()
		for k, i := range idx {
			if err := c.out.Write(cols[k].row(headers[i], card)); err != nil {
				return err
			}
		}
		return nil
	},
}

// columnStats accumulates one column's statistics in one pass.
type columnStats struct {
	count, empty         int
	hasInt, hasFloat     bool
	hasString            bool
	sumInt               int64
	sumFloat             float64
	sumIsInt, sumStarted bool
	n                    int // welford population
	mean, m2             float64
	min, max             number
	numbers              int
	lexFirst, lexLast    string
	lexSeen              bool
	minLen, maxLen       int
	lenSeen              bool
	freq                 map[string]int
	freqOrder            []string
}

func (s *columnStats) add(cell string, nulls bool) {
	l := len(cell)
	if !s.lenSeen || l < s.minLen {
		s.minLen = l
	}
	if !s.lenSeen || l > s.maxLen {
		s.maxLen = l
	}
	s.lenSeen = true
	if cell == "" {
		s.empty++
		if nulls {
			s.welford(0)
		}
		return
	}
	s.count++
	if n, ok := parseNumber(cell); ok {
		if n.isInt {
			s.hasInt = true
		} else {
			s.hasFloat = true
		}
		s.addSum(n)
		s.welford(n.float())
		if s.numbers == 0 || n.float() < s.min.float() {
			s.min = n
		}
		if s.numbers == 0 || n.float() > s.max.float() {
			s.max = n
		}
		s.numbers++
	} else {
		s.hasString = true
	}
	if s.freq != nil {
		if _, ok := s.freq[cell]; !ok {
			s.freqOrder = append(s.freqOrder, cell)
		}
		s.freq[cell]++
	}
	if !s.lexSeen || cell < s.lexFirst {
		s.lexFirst = cell
	}
	if !s.lexSeen || cell > s.lexLast {
		s.lexLast = cell
	}
	s.lexSeen = true
}

func (s *columnStats) addSum(n number) {
	if !s.sumStarted {
		s.sumStarted, s.sumIsInt = true, true
	}
	if s.sumIsInt && n.isInt {
		if r := s.sumInt + n.i; (n.i > 0 && r < s.sumInt) || (n.i < 0 && r > s.sumInt) {
			s.sumIsInt, s.sumFloat = false, float64(s.sumInt)+float64(n.i)
		} else {
			s.sumInt = r
		}
		return
	}
	if s.sumIsInt {
		s.sumIsInt, s.sumFloat = false, float64(s.sumInt)
	}
	s.sumFloat += n.float()
}

func (s *columnStats) welford(x float64) {
	s.n++
	d := x - s.mean
	s.mean += d / float64(s.n)
	s.m2 += d * (x - s.mean)
}

func (s *columnStats) row(field string, card bool) []string {
	typ := ""
	switch {
	case s.hasString:
		typ = "string"
	case s.hasFloat:
		typ = "float"
	case s.hasInt:
		typ = "int"
	case s.empty > 0:
		typ = "empty"
	}
	var types []string
	for _, t := range []struct {
		ok   bool
		name string
	}{{s.hasInt, "int"}, {s.hasFloat, "float"}, {s.hasString, "string"}, {s.empty > 0, "empty"}} {
		if t.ok {
			types = append(types, t.name)
		}
	}
	var sum, mean, variance, stddev, minS, maxS string
	if s.sumStarted {
		if s.sumIsInt {
			sum = strconv.FormatInt(s.sumInt, 10)
		} else {
			sum = formatFloat(s.sumFloat)
		}
	}
	if s.n > 0 {
		v := s.m2 / float64(s.n)
		mean, variance, stddev = formatFloat(s.mean), formatFloat(v), formatFloat(math.Sqrt(v))
	}
	if s.numbers > 0 {
		minS, maxS = s.min.String(), s.max.String()
	}
	out := []string{field, strconv.Itoa(s.count), strconv.Itoa(s.empty), typ, strings.Join(types, "|"), sum, mean, variance, stddev, minS, maxS}
	if card {
		mode, tied := "", ""
		best := 0
		for _, v := range s.freqOrder {
			if s.freq[v] > best {
				best, mode = s.freq[v], v
			}
		}
		if best > 0 {
			t := 0
			for _, v := range s.freqOrder {
				if s.freq[v] == best {
					t++
				}
			}
			tied = strconv.Itoa(t)
		}
		out = append(out, strconv.Itoa(len(s.freq)), mode, tied)
	}
	var minL, maxL string
	if s.lenSeen {
		minL, maxL = strconv.Itoa(s.minLen), strconv.Itoa(s.maxLen)
	}
	return append(out, s.lexFirst, s.lexLast, minL, maxL)
}
