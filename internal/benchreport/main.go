// Command benchreport runs wsfs's comparison benchmarks and prints one
// markdown report: the mount against go-fuse's loopback and tmpfs, `wsfs
// run` against bash and just-bash, js-exec, commit cost against workspace
// size, and the local store against MinIO, each with ratios against its
// baselines, under a header that names the machine and its load.
//
// `make bench` runs it from the repository root:
//
//	go run ./internal/benchreport -o docs/BENCH.md
//
// It runs `go test -run '^$' -bench … -benchtime … -v` once per group of
// benchmarks (see sections.go), so a missing, skipped or failing benchmark
// shows up in its table as missing, with the reason, instead of stopping
// the report. The exit status is 1 when a benchmark or a build failed.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"time"
)

func main() {
	outPath := flag.String("o", "", "also write the report to this file (make bench: docs/BENCH.md)")
	only := flag.String("only", "", "run only the sections whose title matches this regular expression")
	runTimeout := flag.Duration("run-timeout", 5*time.Minute, "time limit of one go test run")
	verbose := flag.Bool("v", false, "copy go test's output to stderr as it runs")
	flag.Parse()
	if err := run(*outPath, *only, *runTimeout, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// errFailures is returned when the report was written but some benchmark
// or build failed.
var errFailures = errors.New("benchreport: some benchmarks failed (see the report)")

func run(outPath, only string, runTimeout time.Duration, verbose bool) error {
	ctx := context.Background()
	sections := Sections()
	if only != "" {
		re, err := regexp.Compile(only)
		if err != nil {
			return fmt.Errorf("benchreport: -only %q: %w", only, err)
		}
		sections = slices.DeleteFunc(sections, func(s Section) bool { return !re.MatchString(s.Title) })
		if len(sections) == 0 {
			return fmt.Errorf("benchreport: -only %q matches no section", only)
		}
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	machine := DescribeMachine(ctx)
	rs := NewResults()
	var pkgs []string
	failed := false
	for _, s := range sections {
		for _, r := range s.Runs {
			if !slices.Contains(pkgs, r.Pkg) {
				pkgs = append(pkgs, r.Pkg)
			}
			log.Info("benchreport: running", "pkg", r.Pkg, "bench", r.Bench, "benchtime", r.Benchtime)
			start := time.Now()
			out, err := goTestBench(ctx, r, runTimeout, verbose)
			if err != nil {
				failed = true
				rs.RunErr[r.Pkg] = err.Error()
				log.Error("benchreport: run failed", "pkg", r.Pkg, "err", err)
			}
			if out != nil {
				failed = failed || out.Fail
				if machine.GoCPU == "" {
					machine.GoCPU = out.CPU
				}
				rs.Add(r.Pkg, out)
			}
			log.Info("benchreport: done", "pkg", r.Pkg, "took", time.Since(start).Round(time.Second))
		}
	}
	machine.LoadEnd = LoadAverage()
	machine.Took = time.Since(machine.Start)

	var buf bytes.Buffer
	WriteReport(&buf, machine, sections, rs, pkgs)
	os.Stdout.Write(buf.Bytes())
	if outPath != "" {
		if err := os.WriteFile(outPath, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("benchreport: writing the report: %w", err)
		}
	}
	if failed {
		return errFailures
	}
	return nil
}

// WriteReport writes the whole report: header, sections, every result.
func WriteReport(w io.Writer, m Machine, sections []Section, rs *Results, pkgs []string) {
	WriteHeader(w, m)
	for _, s := range sections {
		WriteSection(w, s, rs)
	}
	fmt.Fprintf(w, "## Every result\n\n<details><summary>All benchmark lines of this run, parsed</summary>\n\n")
	WriteAll(w, rs, pkgs)
	fmt.Fprintf(w, "</details>\n")
}

// goTestBench runs one group of benchmarks and parses what it printed. The
// error names the run and quotes the end of its output when go test failed
// without printing any benchmark (a build failure, a timeout).
func goTestBench(ctx context.Context, r Run, timeout time.Duration, verbose bool) (*Output, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", r.Bench, "-benchtime", r.Benchtime,
		"-count", "1", "-v", "-timeout", timeout.String(), r.Pkg)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if verbose {
		cmd.Stdout = io.MultiWriter(&buf, os.Stderr)
		cmd.Stderr = cmd.Stdout
	}
	runErr := cmd.Run()
	out, err := Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		return nil, fmt.Errorf("benchreport: %s: %w", r.Pkg, err)
	}
	if runErr != nil && len(out.Results) == 0 && len(out.Failed) == 0 {
		return out, fmt.Errorf("go test -bench '%s' %s: %w: %s", r.Bench, r.Pkg, runErr, failureText(buf.String()))
	}
	return out, nil
}

// compileError is the first line of a compiler or vet message.
var compileError = regexp.MustCompile(`(?m)^\S+\.go:\d+:\d+: .*$`)

// failureText picks what explains a failed run: the first compile error,
// else the last three non-empty lines.
func failureText(s string) string {
	if m := compileError.FindString(s); m != "" {
		return m
	}
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	return strings.Join(lines, " / ")
}
