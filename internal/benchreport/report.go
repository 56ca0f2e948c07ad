package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Run is one `go test -bench` invocation.
type Run struct {
	Pkg       string // "./fusefs"
	Bench     string // the -bench pattern
	Benchtime string // the -benchtime value: "1s", "20x"
}

// Cell places one benchmark in a comparison table.
type Cell struct {
	Pkg  string // the package the benchmark lives in, as in Run.Pkg
	Name string // full benchmark name without the -GOMAXPROCS suffix
	Row  string
	Col  string
}

// Comparison is a table of one metric with rows of operations and columns
// of contenders, plus a ratio column for every subject against every
// baseline.
type Comparison struct {
	Title     string
	Metric    string   // the unit shown: "ns/op", "p50-ms"
	Columns   []string // contenders, in the order shown
	Subjects  []string // columns compared against the baselines
	Baselines []string
	Cells     []Cell
}

// MetricRow is one benchmark of a MetricTable.
type MetricRow struct {
	Pkg   string
	Name  string
	Label string
}

// MetricTable shows chosen metrics of a few benchmarks side by side, for
// benchmarks that measure their own comparison (a "ratio" metric) or that
// report figures other than time per operation.
type MetricTable struct {
	Title   string
	Metrics []string
	Rows    []MetricRow
}

// Section is one comparison of the report: its runs and its tables.
type Section struct {
	Title       string
	Intro       string
	Runs        []Run
	Comparisons []Comparison
	Metrics     []MetricTable
	// Notes follow the tables: figures kept from an earlier run, say.
	Notes string
}

// Results holds the parsed output of every run by package, and why a run
// produced nothing when it failed as a whole.
type Results struct {
	ByPkg  map[string]*Output
	RunErr map[string]string // package → error of a run (build failure, timeout)
}

// NewResults returns an empty Results.
func NewResults() *Results {
	return &Results{ByPkg: map[string]*Output{}, RunErr: map[string]string{}}
}

// Add merges a run's output into the package's results.
func (rs *Results) Add(pkg string, o *Output) {
	cur, ok := rs.ByPkg[pkg]
	if !ok {
		rs.ByPkg[pkg] = o
		return
	}
	if cur.CPU == "" {
		cur.CPU = o.CPU
	}
	cur.Pkgs = append(cur.Pkgs, o.Pkgs...)
	cur.Results = append(cur.Results, o.Results...)
	cur.Fail = cur.Fail || o.Fail
	for k, v := range o.Skipped {
		cur.Skipped[k] = v
	}
	for k, v := range o.Failed {
		cur.Failed[k] = v
	}
}

// Lookup returns the last result named name in pkg.
func (rs *Results) Lookup(pkg, name string) (Result, bool) {
	o, ok := rs.ByPkg[pkg]
	if !ok {
		return Result{}, false
	}
	for i := len(o.Results) - 1; i >= 0; i-- {
		if o.Results[i].Name == name {
			return o.Results[i], true
		}
	}
	return Result{}, false
}

// WhyMissing says why pkg's benchmark name has no result: it or a parent
// was skipped or failed, the run failed, or it was never printed (not
// written yet).
func (rs *Results) WhyMissing(pkg, name string) string {
	o, ok := rs.ByPkg[pkg]
	if e := rs.RunErr[pkg]; e != "" && (!ok || len(o.Results) == 0) {
		return "run failed: " + e
	}
	if ok {
		for n := name; n != ""; n = parent(n) {
			who := ""
			if n != name {
				who = n + " "
			}
			if why, ok := o.Skipped[n]; ok {
				return who + "skipped: " + orDash(why)
			}
			if why, ok := o.Failed[n]; ok {
				if why == "" {
					return who + "failed"
				}
				return who + "failed: " + why
			}
		}
	}
	return fmt.Sprintf("not in the output of %s (benchmark not written yet?)", pkg)
}

func parent(name string) string {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return ""
	}
	return name[:i]
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// WriteSection writes one section's tables in markdown.
func WriteSection(w io.Writer, s Section, rs *Results) {
	fmt.Fprintf(w, "## %s\n\n", s.Title)
	if s.Intro != "" {
		fmt.Fprintf(w, "%s\n\n", s.Intro)
	}
	for _, c := range s.Comparisons {
		writeComparison(w, c, rs)
	}
	for _, m := range s.Metrics {
		writeMetricTable(w, m, rs)
	}
	var cmds []string
	for _, r := range s.Runs {
		cmds = append(cmds, fmt.Sprintf("`go test -run '^$' -bench '%s' -benchtime %s %s`", r.Bench, r.Benchtime, r.Pkg))
	}
	if len(cmds) > 0 {
		fmt.Fprintf(w, "Measured with %s.\n\n", strings.Join(cmds, " and "))
	}
	if s.Notes != "" {
		fmt.Fprintf(w, "%s\n\n", strings.TrimSpace(s.Notes))
	}
}

func writeComparison(w io.Writer, c Comparison, rs *Results) {
	var rows []string
	values := map[[2]string]float64{}
	var missing []missingCell
	for _, cell := range c.Cells {
		if !slices.Contains(rows, cell.Row) {
			rows = append(rows, cell.Row)
		}
		res, ok := rs.Lookup(cell.Pkg, cell.Name)
		v, has := res.Metrics[c.Metric]
		if !ok || !has {
			why := rs.WhyMissing(cell.Pkg, cell.Name)
			if ok {
				why = "no " + c.Metric + " metric"
			}
			missing = append(missing, missingCell{fmt.Sprintf("%s (%s)", cell.Name, cell.Col), why})
			continue
		}
		values[[2]string{cell.Row, cell.Col}] = v
	}
	if c.Title != "" {
		fmt.Fprintf(w, "**%s** (%s)\n\n", c.Title, metricLabel(c.Metric))
	}
	header := append([]string{""}, c.Columns...)
	var ratios [][2]string
	for _, s := range c.Subjects {
		for _, b := range c.Baselines {
			ratios = append(ratios, [2]string{s, b})
			header = append(header, s+" ÷ "+b)
		}
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(header, " | "))
	fmt.Fprintf(w, "|---%s|\n", strings.Repeat("|--:", len(header)-1))
	for _, row := range rows {
		line := []string{row}
		for _, col := range c.Columns {
			if v, ok := values[[2]string{row, col}]; ok {
				line = append(line, FormatValue(c.Metric, v))
			} else {
				line = append(line, "—")
			}
		}
		for _, r := range ratios {
			s, okS := values[[2]string{row, r[0]}]
			b, okB := values[[2]string{row, r[1]}]
			if okS && okB && b != 0 {
				line = append(line, FormatRatio(s/b))
			} else {
				line = append(line, "—")
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(line, " | "))
	}
	fmt.Fprintln(w)
	writeMissing(w, missing)
}

// missingCell is a benchmark a table wanted and did not get, and why.
type missingCell struct{ what, why string }

// writeMissing lists the missing benchmarks, one line per reason.
func writeMissing(w io.Writer, missing []missingCell) {
	if len(missing) == 0 {
		return
	}
	var reasons []string
	byReason := map[string][]string{}
	seen := map[missingCell]bool{} // a benchmark may fill cells of several rows
	for _, m := range missing {
		if seen[m] {
			continue
		}
		seen[m] = true
		if _, ok := byReason[m.why]; !ok {
			reasons = append(reasons, m.why)
		}
		byReason[m.why] = append(byReason[m.why], m.what)
	}
	fmt.Fprintln(w, "Missing:")
	fmt.Fprintln(w)
	for _, why := range reasons {
		fmt.Fprintf(w, "- %s: %s\n", strings.Join(byReason[why], ", "), why)
	}
	fmt.Fprintln(w)
}

func writeMetricTable(w io.Writer, m MetricTable, rs *Results) {
	if m.Title != "" {
		fmt.Fprintf(w, "**%s**\n\n", m.Title)
	}
	header := []string{""}
	for _, unit := range m.Metrics {
		header = append(header, metricLabel(unit))
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(header, " | "))
	fmt.Fprintf(w, "|---%s|\n", strings.Repeat("|--:", len(m.Metrics)))
	var missing []missingCell
	for _, row := range m.Rows {
		res, ok := rs.Lookup(row.Pkg, row.Name)
		if !ok {
			missing = append(missing, missingCell{fmt.Sprintf("%s (%s)", row.Name, row.Label), rs.WhyMissing(row.Pkg, row.Name)})
		}
		line := []string{cellText(row.Label)}
		for _, unit := range m.Metrics {
			if v, has := res.Metrics[unit]; ok && has {
				line = append(line, FormatValue(unit, v))
			} else {
				line = append(line, "—")
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(line, " | "))
	}
	fmt.Fprintln(w)
	writeMissing(w, missing)
}

// cellText escapes what would end a markdown table cell.
func cellText(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// WriteAll writes every parsed result of every package, for the record.
func WriteAll(w io.Writer, rs *Results, pkgs []string) {
	for _, pkg := range pkgs {
		o, ok := rs.ByPkg[pkg]
		if !ok || len(o.Results) == 0 {
			continue
		}
		fmt.Fprintf(w, "`%s`\n\n| benchmark | iterations | metrics |\n|---|--:|---|\n", pkg)
		for _, r := range o.Results {
			var ms []string
			for _, u := range r.Units {
				ms = append(ms, fmt.Sprintf("%s %s", trimFloat(r.Metrics[u]), u))
			}
			fmt.Fprintf(w, "| %s | %d | %s |\n", r.Name, r.N, strings.Join(ms, ", "))
		}
		fmt.Fprintln(w)
	}
}

// metricLabel names a unit for a table header.
func metricLabel(unit string) string {
	switch unit {
	case "ns/op":
		return "time per operation"
	case "B/op":
		return "bytes allocated per operation"
	case "allocs/op":
		return "allocations per operation"
	case "ns/wsfs":
		return "wsfs"
	case "ns/gnu":
		return "GNU"
	case "x-gnu":
		return "wsfs ÷ GNU"
	}
	return unit
}

// FormatValue prints a metric for people: ns/op and ns/… as a duration,
// everything else with three significant digits.
func FormatValue(unit string, v float64) string {
	if unit == "ns/op" || strings.HasPrefix(unit, "ns/") {
		return FormatDuration(v)
	}
	return sig3(v)
}

// FormatDuration prints nanoseconds with three significant digits in the
// unit that suits them.
func FormatDuration(ns float64) string {
	switch {
	case ns >= 1e9:
		return sig3(ns/1e9) + " s"
	case ns >= 1e6:
		return sig3(ns/1e6) + " ms"
	case ns >= 1e3:
		return sig3(ns/1e3) + " µs"
	}
	return sig3(ns) + " ns"
}

// FormatRatio prints a ratio as "2.53×".
func FormatRatio(r float64) string {
	if r >= 100 {
		return fmt.Sprintf("%.0f×", r)
	}
	return fmt.Sprintf("%.2f×", r)
}

// sig3 prints v with three significant digits (all integer digits when it
// has more).
func sig3(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func trimFloat(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}
