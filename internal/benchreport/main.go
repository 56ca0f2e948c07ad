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
// It builds each package's test binary once (`go test -c`) and runs it
// with -test.bench … -test.benchtime … -test.v once per group of benchmarks
// (see sections.go), so a missing, skipped or failing benchmark shows up
// in its table as missing, with the reason, instead of stopping the
// report. The exit status is 1 when a benchmark or a build failed.
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
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	outPath := flag.String("o", "", "also write the report to this file (make bench: docs/BENCH.md)")
	only := flag.String("only", "", "run only the sections whose title matches this regular expression")
	runTimeout := flag.Duration("run-timeout", 5*time.Minute, "time limit of one go test run")
	verbose := flag.Bool("v", false, "copy go test's output to stderr as it runs")
	commit := flag.String("commit", "", "the commit to name in the header when the tree is not a git checkout (a git archive export)")
	flag.Parse()
	if err := run(*outPath, *only, *commit, *runTimeout, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// errFailures is returned when the report was written but some benchmark
// or build failed.
var errFailures = errors.New("benchreport: some benchmarks failed (see the report)")

func run(outPath, only, commit string, runTimeout time.Duration, verbose bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
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
	br, err := newBenchRunner(runTimeout, verbose)
	if err != nil {
		return err
	}
	defer br.Close()
	machine := DescribeMachine(ctx)
	if commit != "" {
		machine.Commit = commit
	}
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
			out, err := br.run(ctx, r)
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
	if ctx.Err() != nil {
		return fmt.Errorf("benchreport: interrupted; no report written (%s left as it was)", orDash(outPath))
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

// benchRunner builds each package's test binary once (`go test -c`) and
// runs it for every group of benchmarks of that package, as go test would:
// in the package's folder.
type benchRunner struct {
	dir     string            // where the test binaries go
	built   map[string]string // package → its test binary
	failed  map[string]error  // package → why it did not build
	timeout time.Duration
	verbose bool
}

func newBenchRunner(timeout time.Duration, verbose bool) (*benchRunner, error) {
	dir, err := os.MkdirTemp("", "wsfs-benchreport-")
	if err != nil {
		return nil, fmt.Errorf("benchreport: a folder for the test binaries: %w", err)
	}
	return &benchRunner{dir: dir, built: map[string]string{}, failed: map[string]error{}, timeout: timeout, verbose: verbose}, nil
}

func (br *benchRunner) Close() { os.RemoveAll(br.dir) }

// binary returns pkg's test binary, building it the first time.
func (br *benchRunner) binary(ctx context.Context, pkg string) (string, error) {
	if bin, ok := br.built[pkg]; ok {
		return bin, nil
	}
	if err := br.failed[pkg]; err != nil {
		return "", err
	}
	bin := filepath.Join(br.dir, strings.Trim(strings.NewReplacer("/", "_", ".", "_").Replace(pkg), "_")+".test")
	ctx, cancel := context.WithTimeout(ctx, br.timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "test", "-c", "-o", bin, pkg).CombinedOutput()
	if err == nil {
		if _, serr := os.Stat(bin); serr != nil {
			err = fmt.Errorf("no test binary (no test files?): %w", serr)
		}
	}
	if err != nil {
		err = fmt.Errorf("go test -c %s: %w: %s", pkg, err, failureText(string(out)))
		br.failed[pkg] = err
		return "", err
	}
	br.built[pkg] = bin
	return bin, nil
}

// run runs one group of benchmarks and parses what it printed. The error
// names the run and quotes what explains it when the build failed or the
// run printed no benchmark at all (a panic, a timeout).
func (br *benchRunner) run(ctx context.Context, r Run) (*Output, error) {
	bin, err := br.binary(ctx, r.Pkg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, br.timeout+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run", "^$", "-test.bench", r.Bench, "-test.benchtime", r.Benchtime,
		"-test.count", "1", "-test.v", "-test.timeout", br.timeout.String())
	cmd.Dir, err = filepath.Abs(r.Pkg)
	if err != nil {
		return nil, fmt.Errorf("benchreport: %s: %w", r.Pkg, err)
	}
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if br.verbose {
		cmd.Stdout = io.MultiWriter(&buf, os.Stderr)
		cmd.Stderr = cmd.Stdout
	}
	runErr := cmd.Run()
	out, err := Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		return nil, fmt.Errorf("benchreport: %s: %w", r.Pkg, err)
	}
	if runErr != nil && len(out.Results) == 0 && len(out.Failed) == 0 {
		return out, fmt.Errorf("-bench '%s' %s: %w: %s", r.Bench, r.Pkg, runErr, failureText(buf.String()))
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
