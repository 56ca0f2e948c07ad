package xan

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// This file holds the subcommands built on named expressions: map adds
// columns computed per row, agg and groupby aggregate rows.

// namedExpr is one "expr as name" item of a comma-separated list.
type namedExpr struct {
	name string
	fn   evalFn
	agg  *aggSpec // for agg and groupby
}

// compileNamed parses "expr [as name], …". With aggregate set, every
// item must be an aggregation call such as sum(a + b) or count().
func compileNamed(src string, headers []string, named, aggregate bool) ([]namedExpr, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, headers: headers, named: named}
	var out []namedExpr
	for {
		start := p.peek().pos
		var ne namedExpr
		if aggregate {
			if ne.agg, err = p.aggCall(); err != nil {
				return nil, err
			}
		} else if ne.fn, err = p.expr(0); err != nil {
			return nil, err
		}
		ne.name = strings.TrimSpace(src[start:p.peek().pos])
		if t := p.peek(); t.kind == tIdent && t.text == "as" {
			p.next()
			nt := p.next()
			if nt.kind != tIdent && nt.kind != tStr {
				return nil, fmt.Errorf("expression: expected a column name after \"as\" at offset %d", nt.pos)
			}
			ne.name = nt.text
		}
		out = append(out, ne)
		t := p.next()
		if t.kind == tEOF {
			return out, nil
		}
		if t.kind != tOp || t.text != "," {
			return nil, fmt.Errorf("expression: expected \",\" or the end at offset %d, found %q", t.pos, t.text)
		}
	}
}

var mapCmd = &subcommand{
	name:    "map",
	summary: "Add columns computed by expressions: xan map 'a + b as c'",
	usage:   []string{"map [options] <expression> [<input>]"},
	about: `
Each comma-separated item "expression as name" adds a column (named after
the expression's text when "as" is left out). The expression language is
filter's: see xan filter --help.`,
	flags: []flagDef{
		{"-f", "--evaluate-file", "", "The expression argument is a file holding it."},
	},
	run: func(c *call) error {
		cr, exprs, err := c.namedExprs(false)
		if cr == nil {
			return err
		}
		h := cr.Headers()
		for _, e := range exprs {
			h = append(h[:len(h):len(h)], e.name)
		}
		if err := c.writeHeaders(h); err != nil {
			return err
		}
		row := -1
		return each(cr, func(rec []string) error {
			row++
			out := append(make([]string, 0, len(rec)+len(exprs)), rec...)
			for _, e := range exprs {
				v, err := e.fn(rec)
				if err != nil {
					return fmt.Errorf("row %d: %s: %w", row, e.name, err)
				}
				out = append(out, cellString(v))
			}
			return c.out.Write(out)
		})
	},
}

// expression returns the expression argument (or the file -f names) and
// the remaining arguments.
func (c *call) expression() (string, []string, error) {
	if len(c.args) == 0 {
		return "", nil, usagef("missing the expression")
	}
	src := c.args[0]
	if c.has("evaluate-file") {
		raw, err := c.openRaw(src)
		if err != nil {
			return "", nil, err
		}
		b, err := readLimited(raw, 1<<20)
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", src, err)
		}
		src = string(b)
	}
	return src, c.args[1:], nil
}

// namedExprs reads the expression argument, opens the input after it and
// compiles the expression list against its headers; cr is nil when the
// input is empty or on error.
func (c *call) namedExprs(aggregate bool) (*csvReader, []namedExpr, error) {
	src, args, err := c.expression()
	if err != nil {
		return nil, nil, err
	}
	cr, err := c.input(args)
	if cr == nil {
		return nil, nil, err
	}
	exprs, err := compileNamed(src, cr.Headers(), cr.HasHeaders(), aggregate)
	if err != nil {
		return nil, nil, err
	}
	return cr, exprs, nil
}

// cellString writes a value into a CSV cell: lists as JSON arrays.
func cellString(v any) string {
	l, ok := v.([]any)
	if !ok {
		return toString(v)
	}
	parts := make([]string, len(l))
	for i, e := range l {
		switch e.(type) {
		case number, bool, nil:
			if e == nil {
				parts[i] = "null"
			} else {
				parts[i] = toString(e)
			}
		case []any:
			parts[i] = cellString(e)
		default:
			parts[i] = jsonString(toString(e))
		}
	}
	return "[" + strings.Join(parts, ",") + "]"
}

var aggCmd = &subcommand{
	name:    "agg",
	summary: "Aggregate all rows: xan agg 'sum(n) as total, mean(n)'",
	usage:   []string{"agg [options] <expression> [<input>]"},
	about: `
Each comma-separated item is an aggregation function over an expression
evaluated per row, optionally named with "as". Functions: ` + strings.Join(aggNames(), ", ") + `.
Empty values are ignored; numeric aggregations fail on cells that are
not numbers. count() counts rows, count(expr) the truthy values.`,
	flags: []flagDef{
		{"-f", "--evaluate-file", "", "The expression argument is a file holding it."},
	},
	run: func(c *call) error { return c.aggregate(false) },
}

var groupbyCmd = &subcommand{
	name:    "groupby",
	summary: "Aggregate rows per group: xan groupby city 'count() as n, mean(age)'",
	usage:   []string{"groupby [options] <column> <expression> [<input>]"},
	about: `
Groups rows by the selected columns (any selection: name,surname) and
writes one row per group, in order of first appearance: the group's
values, then one column per aggregation (see xan agg --help).`,
	flags: []flagDef{
		{"-f", "--evaluate-file", "", "The expression argument is a file holding it."},
		{"-S", "--sorted", "", "The input is sorted on the groups: constant memory."},
	},
	run: func(c *call) error { return c.aggregate(true) },
}

func (c *call) aggregate(grouped bool) error {
	var groupSel string
	if grouped {
		if len(c.args) < 2 {
			return usagef("groupby needs a column selection and an expression")
		}
		groupSel, c.args = c.args[0], c.args[1:]
	}
	cr, exprs, err := c.namedExprs(true)
	if cr == nil {
		return err
	}
	var gidx []int
	var h []string
	if grouped {
		if gidx, err = selectColumns(groupSel, cr.Headers(), cr.HasHeaders()); err != nil {
			return err
		}
		h = pick(cr.Headers(), gidx)
	}
	for _, e := range exprs {
		h = append(h, e.name)
	}
	if err := c.out.Write(h); err != nil {
		return err
	}
	type group struct {
		key    []string
		states []*aggState
	}
	newGroup := func(key []string) *group {
		g := &group{key: key}
		for _, e := range exprs {
			g.states = append(g.states, &aggState{spec: e.agg})
		}
		return g
	}
	emit := func(g *group) error {
		out := append([]string(nil), g.key...)
		for _, s := range g.states {
			out = append(out, s.result())
		}
		return c.out.Write(out)
	}
	var order []*group
	groups := map[string]*group{}
	var current *group
	sorted := c.has("sorted")
	row := -1
	if err := each(cr, func(rec []string) error {
		row++
		key := pick(rec, gidx)
		var g *group
		switch {
		case sorted:
			if current == nil || !slices.Equal(current.key, key) {
				if current != nil {
					if err := emit(current); err != nil {
						return err
					}
				}
				current = newGroup(key)
			}
			g = current
		default:
			k := rowKey(key)
			if g = groups[k]; g == nil {
				g = newGroup(key)
				groups[k] = g
				order = append(order, g)
			}
		}
		for i, s := range g.states {
			if err := s.add(rec); err != nil {
				return fmt.Errorf("row %d: %s: %w", row, exprs[i].name, err)
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if sorted {
		if current != nil {
			return emit(current)
		}
		return nil
	}
	if !grouped && len(order) == 0 {
		order = append(order, newGroup(nil))
	}
	for _, g := range order {
		if err := emit(g); err != nil {
			return err
		}
	}
	return nil
}

// aggSpec is one aggregation call: the function, its per-row argument
// (nil for count()) and a constant separator for values-like ones.
type aggSpec struct {
	fn  string
	arg evalFn
	sep string
}

var aggArity = map[string][2]int{
	"count": {0, 1}, "sum": {1, 1}, "mean": {1, 1}, "avg": {1, 1}, "min": {1, 1}, "max": {1, 1},
	"median": {1, 1}, "first": {1, 1}, "last": {1, 1}, "lex_first": {1, 1}, "lex_last": {1, 1},
	"cardinality": {1, 1}, "distinct_values": {1, 2}, "values": {1, 2}, "mode": {1, 1},
	"all": {1, 1}, "any": {1, 1}, "var": {1, 1}, "var_pop": {1, 1}, "var_sample": {1, 1},
	"stddev": {1, 1}, "stddev_pop": {1, 1}, "stddev_sample": {1, 1},
}

func aggNames() []string {
	var n []string
	for k := range aggArity {
		n = append(n, k)
	}
	slices.Sort(n)
	return n
}

func (p *parser) aggCall() (*aggSpec, error) {
	t := p.next()
	arity, ok := aggArity[t.text]
	if t.kind != tIdent || !ok || !(p.peek().kind == tOp && p.peek().text == "(") {
		return nil, fmt.Errorf("expression: expected an aggregation such as sum(col) at offset %d, found %q (aggregations: %s)",
			t.pos, t.text, strings.Join(aggNames(), ", "))
	}
	args, err := p.args()
	if err != nil {
		return nil, err
	}
	if len(args) < arity[0] || len(args) > arity[1] {
		return nil, fmt.Errorf("expression: %s() takes %d to %d argument(s), got %d", t.text, arity[0], arity[1], len(args))
	}
	spec := &aggSpec{fn: t.text, sep: "|"}
	if len(args) > 0 {
		spec.arg = args[0]
	}
	if len(args) == 2 {
		v, err := args[1](nil)
		if err != nil {
			return nil, fmt.Errorf("expression: %s()'s separator must be a constant", t.text)
		}
		spec.sep = toString(v)
	}
	return spec, nil
}

// aggState accumulates one aggregation over the rows of one group.
type aggState struct {
	spec     *aggSpec
	count    int
	nums     columnStats // sum, welford, min, max of the numbers
	values   []float64   // median
	strs     []string    // values
	freq     map[string]int
	first    string
	last     string
	seen     bool
	allTrue  bool
	anyTrue  bool
	anySeen  bool
	lexFirst string
	lexLast  string
}

func (s *aggState) add(rec []string) error {
	if s.spec.arg == nil {
		s.count++
		return nil
	}
	v, err := s.spec.arg(rec)
	if err != nil {
		return err
	}
	switch s.spec.fn {
	case "count":
		if truthy(v) {
			s.count++
		}
		return nil
	case "all", "any":
		if !s.anySeen {
			s.allTrue = true
		}
		s.anySeen = true
		s.allTrue = s.allTrue && truthy(v)
		s.anyTrue = s.anyTrue || truthy(v)
		return nil
	}
	str := toString(v)
	if v == nil || str == "" {
		return nil
	}
	switch s.spec.fn {
	case "sum", "mean", "avg", "min", "max", "median", "var", "var_pop", "var_sample", "stddev", "stddev_pop", "stddev_sample":
		n, err := toNumber(v)
		if err != nil {
			return fmt.Errorf("%s(): %w", s.spec.fn, err)
		}
		s.nums.add(n.String(), false)
		if s.spec.fn == "median" {
			s.values = append(s.values, n.float())
		}
	case "values":
		s.strs = append(s.strs, str)
	case "cardinality", "distinct_values", "mode":
		if s.freq == nil {
			s.freq = map[string]int{}
		}
		s.freq[str]++
	}
	if !s.seen {
		s.first, s.lexFirst, s.lexLast = str, str, str
	}
	s.seen, s.last = true, str
	s.lexFirst, s.lexLast = min(s.lexFirst, str), max(s.lexLast, str)
	return nil
}

func (s *aggState) result() string {
	n := &s.nums
	switch s.spec.fn {
	case "count":
		return strconv.Itoa(s.count)
	case "all":
		return strconv.FormatBool(s.allTrue || !s.anySeen)
	case "any":
		return strconv.FormatBool(s.anyTrue)
	case "first":
		return s.first
	case "last":
		return s.last
	case "lex_first":
		return s.lexFirst
	case "lex_last":
		return s.lexLast
	case "values":
		return strings.Join(s.strs, s.spec.sep)
	case "cardinality":
		return strconv.Itoa(len(s.freq))
	case "distinct_values":
		keys := make([]string, 0, len(s.freq))
		for k := range s.freq {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return strings.Join(keys, s.spec.sep)
	case "mode":
		best, mode := 0, ""
		for k, c := range s.freq {
			if c > best || (c == best && k < mode) {
				best, mode = c, k
			}
		}
		return mode
	}
	if n.numbers == 0 {
		return ""
	}
	switch s.spec.fn {
	case "sum":
		if n.sumIsInt {
			return strconv.FormatInt(n.sumInt, 10)
		}
		return formatFloat(n.sumFloat)
	case "mean", "avg":
		return formatFloat(n.mean)
	case "min":
		return n.min.String()
	case "max":
		return n.max.String()
	case "median":
		return formatFloat(median(s.values))
	case "var", "var_pop":
		return formatFloat(n.m2 / float64(n.n))
	case "stddev", "stddev_pop":
		return formatFloat(math.Sqrt(n.m2 / float64(n.n)))
	case "var_sample", "stddev_sample":
		if n.n < 2 {
			return ""
		}
		v := n.m2 / float64(n.n-1)
		if s.spec.fn == "stddev_sample" {
			v = math.Sqrt(v)
		}
		return formatFloat(v)
	}
	return ""
}

// median interpolates between the middle values on even counts.
func median(v []float64) float64 {
	slices.SortFunc(v, cmp.Compare[float64])
	m := len(v) / 2
	if len(v)%2 == 1 {
		return v[m]
	}
	return (v[m-1] + v[m]) / 2
}

var transformCmd = &subcommand{
	name:    "transform",
	summary: "Rewrite columns with an expression where _ is the cell: xan transform name 'upper(_)'",
	usage:   []string{"transform [options] <column> <expression> [<input>]"},
	about: `
Each selected column's cell is replaced by the expression's value, with _
standing for the cell (a function name alone, as upper, is called with
it). The expression language is filter's: see xan filter --help.`,
	flags: []flagDef{
		{"-f", "--evaluate-file", "", "The expression argument is a file holding it."},
		{"-r", "--rename", "<name>", "New name for the transformed column (one column only)."},
	},
	run: func(c *call) error {
		if len(c.args) < 2 {
			return usagef("transform needs a column selection and an expression")
		}
		sel := c.args[0]
		c.args = c.args[1:]
		src, args, err := c.expression()
		if err != nil {
			return err
		}
		cr, err := c.input(args)
		if cr == nil {
			return err
		}
		idx, err := selectColumns(sel, cr.Headers(), cr.HasHeaders())
		if err != nil {
			return err
		}
		slot, fn, err := compileTransform(src, cr.Headers(), cr.HasHeaders())
		if err != nil {
			return err
		}
		h := append([]string(nil), cr.Headers()...)
		if c.has("rename") {
			if len(idx) != 1 {
				return usagef("--rename needs a selection of exactly one column, not %d", len(idx))
			}
			h[idx[0]] = c.str("rename", "")
		}
		if err := c.writeHeaders(h); err != nil {
			return err
		}
		row := -1
		return each(cr, func(rec []string) error {
			row++
			out := append([]string(nil), rec...)
			for _, i := range idx {
				*slot = rec[i]
				v, err := fn(rec)
				if err != nil {
					return fmt.Errorf("row %d: %s: %w", row, h[i], err)
				}
				out[i] = cellString(v)
			}
			return c.out.Write(out)
		})
	},
}

// compileTransform compiles src with _ bound to *slot; a lone function
// name is called with _.
func compileTransform(src string, headers []string, named bool) (*any, evalFn, error) {
	slot := new(any)
	if name := strings.TrimSpace(src); functions[name].min > 0 || functions[name].lazy != nil {
		src = name + "(_)"
	}
	toks, err := lex(src)
	if err != nil {
		return nil, nil, err
	}
	p := &parser{toks: toks, headers: headers, named: named, piped: slot}
	fn, err := p.expr(0)
	if err != nil {
		return nil, nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, nil, fmt.Errorf("expression: unexpected %q at offset %d", t.text, t.pos)
	}
	return slot, fn, nil
}

var enumCmd = &subcommand{
	name:    "enum",
	summary: "Prepend an index column (0, 1, 2, …)",
	usage:   []string{"enum [options] [<input>]"},
	flags: []flagDef{
		{"-c", "--column-name", "<arg>", "Name of the column (default index)."},
		{"-S", "--start", "<n>", "Number to count from (default 0)."},
	},
	run: func(c *call) error {
		start, err := c.num("start", 0)
		if err != nil {
			return err
		}
		cr, err := c.input(c.args)
		if cr == nil {
			return err
		}
		if err := c.writeHeaders(append([]string{c.str("column-name", "index")}, cr.Headers()...)); err != nil {
			return err
		}
		i := start
		return each(cr, func(rec []string) error {
			i++
			return c.out.Write(append([]string{strconv.Itoa(i - 1)}, rec...))
		})
	},
}
