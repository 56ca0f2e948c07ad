package main

import (
	"os"
	"strings"
	"testing"
)

func parseFile(t *testing.T, name string) *Output {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// fusefs-fs.txt is a real `go test -bench '^BenchmarkFS$' ./fusefs` run.
func TestParseRecordedFusefs(t *testing.T) {
	out := parseFile(t, "fusefs-fs.txt")
	if len(out.Results) != 15 {
		t.Fatalf("%d results, want 15", len(out.Results))
	}
	if out.CPU != "Oxide Virtual Turin-like Processor" || len(out.Pkgs) != 1 || out.Pkgs[0] != "github.com/wsfs/wsfs/fusefs" {
		t.Errorf("header: cpu %q pkgs %q", out.CPU, out.Pkgs)
	}
	if out.Fail || len(out.Skipped) != 0 || len(out.Failed) != 0 {
		t.Errorf("a passing run read as fail=%v skipped=%v failed=%v", out.Fail, out.Skipped, out.Failed)
	}
	first := out.Results[0]
	if first.Name != "BenchmarkFS/create4k/tmpfs" || first.Procs != 2 || first.N != 10000 || first.Metrics["ns/op"] != 106069 {
		t.Errorf("first result: %+v", first)
	}
	rw, ok := out.Find("BenchmarkFS/rw256k/wsfs")
	if !ok || rw.Metrics["ns/op"] != 1577824 || rw.Metrics["MB/s"] != 332.29 || strings.Join(rw.Units, ",") != "ns/op,MB/s" {
		t.Errorf("rw256k/wsfs: %+v %v", rw, ok)
	}
	untar, _ := out.Find("BenchmarkFS/untar1500/loopback")
	if untar.N != 1 || untar.Metrics["ns/op"] != 1690275471 {
		t.Errorf("untar1500/loopback: %+v", untar)
	}
}

// sample-v.txt is real `go test -v -benchmem` output of a package with a
// custom metric, a skipped sub-benchmark, a failing one, stray stdout and
// a skipped top-level benchmark.
func TestParseVerboseSkipsAndFailures(t *testing.T) {
	out := parseFile(t, "sample-v.txt")
	if len(out.Results) != 2 {
		t.Fatalf("%d results, want 2: %+v", len(out.Results), out.Results)
	}
	echo, ok := out.Find("BenchmarkRun/wsfs-echo")
	if !ok || echo.Metrics["p50-ms"] != 0.12 || echo.Metrics["B/op"] != 5 || echo.Metrics["allocs/op"] != 0 ||
		strings.Join(echo.Units, ",") != "ns/op,p50-ms,B/op,allocs/op" {
		t.Errorf("wsfs-echo: %+v", echo)
	}
	if _, ok := out.Find("BenchmarkRun/noisy"); !ok {
		t.Error("the benchmark after stray output is lost")
	}
	if got := out.Skipped["BenchmarkRun/justbash-echo"]; got != "just-bash CLI not installed: npm i -g just-bash" {
		t.Errorf("skip reason %q", got)
	}
	if got := out.Skipped["BenchmarkSkipped"]; got != "needs /dev/fuse" {
		t.Errorf("top-level skip reason %q", got)
	}
	if got := out.Failed["BenchmarkRun/broken"]; got != "store: connection refused" {
		t.Errorf("failure %q", got)
	}
	if _, ok := out.Failed["BenchmarkRun"]; !ok || !out.Fail {
		t.Errorf("parent failure not seen: %v fail=%v", out.Failed, out.Fail)
	}
	if _, ok := out.Failed["BenchmarkRun/noisy"]; ok {
		t.Error("a log line of a passing benchmark read as a failure")
	}
}

// Without -v, a failure's message follows its verdict line.
func TestParseQuietFailure(t *testing.T) {
	out := parseFile(t, "sample.txt")
	if len(out.Results) != 2 || !out.Fail {
		t.Fatalf("%d results, fail=%v", len(out.Results), out.Fail)
	}
	if got := out.Failed["BenchmarkRun/broken"]; got != "store: connection refused" {
		t.Errorf("failure %q", got)
	}
	if len(out.Skipped) != 0 {
		t.Errorf("skips are invisible without -v, got %v", out.Skipped)
	}
}

func TestParseBuildFailure(t *testing.T) {
	out, err := Parse(strings.NewReader("# github.com/wsfs/wsfs/x\nx/a.go:3:1: syntax error\nFAIL\tgithub.com/wsfs/wsfs/x [build failed]\nFAIL\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !out.Fail || len(out.Results) != 0 {
		t.Errorf("fail=%v results=%v", out.Fail, out.Results)
	}
}

func TestParseRejectsMalformedLines(t *testing.T) {
	for _, line := range []string{
		"BenchmarkX-2   100   12 ns/op 7",          // a value without unit
		"BenchmarkX-2   100   twelve ns/op",        // not a number
		"BenchmarkX-2   99999999999999999999 1 ns", // iterations overflow
	} {
		if _, err := Parse(strings.NewReader(line + "\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: error %v, want one naming line 1", line, err)
		}
	}
}

func TestParseNamesAndSuffixes(t *testing.T) {
	out, err := Parse(strings.NewReader("BenchmarkCommitOneFile/files=10000-8   \t  500\t 2100 ns/op\t 1.5e+03 ns/large\n" +
		"BenchmarkPut/4KiB/store-new-default   10   3 ns/op\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r := out.Results[0]; r.Name != "BenchmarkCommitOneFile/files=10000" || r.Procs != 8 || r.Metrics["ns/large"] != 1500 {
		t.Errorf("%+v", r)
	}
	// GOMAXPROCS=1 prints no suffix; the name stays whole.
	if r := out.Results[1]; r.Name != "BenchmarkPut/4KiB/store-new-default" || r.Procs != 1 {
		t.Errorf("%+v", r)
	}
}

func TestFailureText(t *testing.T) {
	build := "# github.com/wsfs/wsfs/cmd/wsfs-core [github.com/wsfs/wsfs/cmd/wsfs-core.test]\n" +
		"cmd/wsfs-core/run_test.go:41:22: not enough arguments in call to runVerb\n\thave (string)\n\twant ([]string, io.Reader)\n" +
		"FAIL\tgithub.com/wsfs/wsfs/cmd/wsfs-core [build failed]\nFAIL\n"
	if got := failureText(build); got != "cmd/wsfs-core/run_test.go:41:22: not enough arguments in call to runVerb" {
		t.Errorf("build failure: %q", got)
	}
	if got := failureText("a\n\nb\nc\npanic: test timed out after 5m0s\n"); got != "b / c / panic: test timed out after 5m0s" {
		t.Errorf("timeout: %q", got)
	}
}
