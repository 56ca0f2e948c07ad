package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// Result is one benchmark line of `go test -bench` output.
type Result struct {
	Name    string             // full name without the -GOMAXPROCS suffix, e.g. "BenchmarkFS/stat/wsfs"
	Procs   int                // the -N suffix (1 when absent)
	N       int64              // iterations
	Metrics map[string]float64 // unit → value: "ns/op", "B/op", "MB/s", custom ones such as "p50-ms"
	Units   []string           // the units in the order the line printed them
}

// Output is what one `go test -bench` run printed, parsed.
type Output struct {
	CPU     string            // the "cpu:" header line
	Pkgs    []string          // the "pkg:" header lines
	Results []Result          // benchmark lines, in order
	Skipped map[string]string // benchmark name → why it was skipped
	Failed  map[string]string // benchmark name → its failure message
	Fail    bool              // a FAIL line was printed (a benchmark or the build failed)
}

// Find returns the result named name (without the -N suffix).
func (o *Output) Find(name string) (Result, bool) {
	for _, r := range o.Results {
		if r.Name == name {
			return r, true
		}
	}
	return Result{}, false
}

var (
	// benchLine is "BenchmarkName-2   \t  1000\t  123 ns/op\t 45 B/op ...".
	benchLine = regexp.MustCompile(`^(Benchmark\S*)\s+(\d+)\s+(\S.*)$`)
	// nameOnly is the line `go test -v` prints when a benchmark starts; its
	// log lines (indented) follow.
	nameOnly    = regexp.MustCompile(`^(Benchmark\S*)$`)
	procsSuffix = regexp.MustCompile(`^(.*)-(\d+)$`)
	// verdictLine is "--- SKIP: BenchmarkX" or "--- FAIL: BenchmarkX/sub".
	verdictLine = regexp.MustCompile(`^--- (SKIP|FAIL): (Benchmark\S*)`)
)

// Parse reads `go test -bench` output, preferably of `go test -v`, which
// is the only mode that tells skipped benchmarks and why. Lines it does not
// know (logs, PASS, ok) are ignored; a malformed benchmark line is an
// error, so that a change in the format cannot go unnoticed.
func Parse(r io.Reader) (*Output, error) {
	out := &Output{Skipped: map[string]string{}, Failed: map[string]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	// Under -v a benchmark's log lines come between its name line and its
	// verdict; without -v they follow the verdict. Both are kept.
	logs := map[string][]string{}
	var current string // the benchmark whose name line came last
	var verdict, verdictName string
	var after []string // indented lines after a verdict
	flush := func() {
		if verdictName == "" {
			return
		}
		msg := strings.Join(append(logs[verdictName], after...), "; ")
		if verdict == "SKIP" {
			out.Skipped[verdictName] = msg
		} else {
			out.Failed[verdictName] = msg
		}
		verdictName, after = "", nil
	}
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimRight(sc.Text(), " \t\r")
		indented := strings.HasPrefix(line, "    ")
		if verdictName != "" && indented {
			after = append(after, logText(line))
			continue
		}
		flush()
		if m := verdictLine.FindStringSubmatch(line); m != nil {
			verdict, verdictName = m[1], m[2]
			if verdict == "FAIL" {
				out.Fail = true
			}
			current = ""
			continue
		}
		switch {
		case indented:
			if current != "" {
				logs[current] = append(logs[current], logText(line))
			}
		case strings.HasPrefix(line, "cpu: "):
			out.CPU = strings.TrimSpace(strings.TrimPrefix(line, "cpu: "))
		case strings.HasPrefix(line, "pkg: "):
			out.Pkgs = append(out.Pkgs, strings.TrimSpace(strings.TrimPrefix(line, "pkg: ")))
		case line == "FAIL" || strings.HasPrefix(line, "FAIL\t"):
			out.Fail = true
		case nameOnly.MatchString(line):
			current = line
		case benchLine.MatchString(line):
			m := benchLine.FindStringSubmatch(line)
			res, err := newResult(m[1], m[2], m[3])
			if err != nil {
				return nil, fmt.Errorf("benchreport: line %d: %w", lineNo, err)
			}
			out.Results = append(out.Results, res)
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("benchreport: reading benchmark output: %w", err)
	}
	return out, nil
}

// logText drops the indentation and the "file_test.go:12: " prefix of a
// log line.
func logText(line string) string {
	line = strings.TrimSpace(line)
	if file, rest, ok := strings.Cut(line, ": "); ok && strings.Contains(file, ".go:") && !strings.Contains(file, " ") {
		return rest
	}
	return line
}

// newResult parses the parts of one benchmark line: name, iterations and
// the "value unit" pairs.
func newResult(name, iters, rest string) (Result, error) {
	res := Result{Name: name, Procs: 1, Metrics: map[string]float64{}}
	if m := procsSuffix.FindStringSubmatch(name); m != nil {
		res.Name = m[1]
		res.Procs, _ = strconv.Atoi(m[2])
	}
	n, err := strconv.ParseInt(iters, 10, 64)
	if err != nil {
		return Result{}, fmt.Errorf("%s: iterations %q: %w", name, iters, err)
	}
	res.N = n
	fields := strings.Fields(rest)
	if len(fields)%2 != 0 {
		return Result{}, fmt.Errorf("%s: %q is not a list of \"value unit\" pairs", name, rest)
	}
	for i := 0; i < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return Result{}, fmt.Errorf("%s: value %q of %s: %w", name, fields[i], fields[i+1], err)
		}
		unit := fields[i+1]
		if _, dup := res.Metrics[unit]; !dup {
			res.Units = append(res.Units, unit)
		}
		res.Metrics[unit] = v
	}
	return res, nil
}
