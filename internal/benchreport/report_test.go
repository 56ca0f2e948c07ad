package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		unit string
		v    float64
		want string
	}{
		{"ns/op", 15311, "15.3 µs"},
		{"ns/op", 1690275471, "1.69 s"},
		{"ns/op", 206188903, "206 ms"},
		{"ns/op", 12, "12.0 ns"},
		{"ns/op", 0.5, "0.5 ns"},
		{"ns/large", 2100, "2.10 µs"},
		{"p50-ms", 0.1234567, "0.123"},
		{"p50-ms", 48.25, "48.2"},
		{"MiB-rss-idle", 61, "61.0"},
		{"ratio", 1.0, "1.00"},
		{"ms/start", 1234.4, "1234"},
	} {
		if got := FormatValue(tc.unit, tc.v); got != tc.want {
			t.Errorf("FormatValue(%s, %v) = %q, want %q", tc.unit, tc.v, got, tc.want)
		}
	}
	for v, want := range map[float64]string{11.397: "11.40×", 0.5: "0.50×", 250.4: "250×"} {
		if got := FormatRatio(v); got != want {
			t.Errorf("FormatRatio(%v) = %q, want %q", v, got, want)
		}
	}
}

// The file-system section on a recorded run, table for table.
func TestFileSystemSectionOnRecordedRun(t *testing.T) {
	rs := NewResults()
	rs.Add("./fusefs", parseFile(t, "fusefs-fs.txt"))
	var buf bytes.Buffer
	WriteSection(&buf, fileSystem(), rs)
	want := `## The mount: wsfs vs go-fuse loopback vs tmpfs

The same operations on tmpfs itself, on go-fuse's loopback file system over that tmpfs, and on a wsfs mount whose store and spool are on the same tmpfs (same kernel cache timeouts for both FUSE mounts).

|  | tmpfs | loopback | wsfs | wsfs ÷ tmpfs | wsfs ÷ loopback |
|---|--:|--:|--:|--:|--:|
| create a 4 KiB file | 106 µs | 478 µs | 1.21 ms | 11.40× | 2.53× |
| stat a file | 15.3 µs | 12.6 µs | 19.6 µs | 1.28× | 1.55× |
| list a folder of 1,000 files | 1.09 ms | 34.6 ms | 17.0 ms | 15.60× | 0.49× |
| untar 1,500 small files in 30 folders | 206 ms | 1.69 s | 1.22 s | 5.93× | 0.72× |
| write then read 256 KiB | 656 µs | 3.46 ms | 1.58 ms | 2.40× | 0.46× |

Measured with ` + "`go test -run '^$' -bench '^BenchmarkFS$' -benchtime 1s ./fusefs`" + `.

`
	if got := buf.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// A benchmark that is not written yet, one that was skipped, one whose
// parent failed and one whose run failed to build each show as missing
// with their reason, and their ratios as "—".
func TestMissingBenchmarksAreNamed(t *testing.T) {
	rs := NewResults()
	rs.Add("./cmd/wsfs-core", parseFile(t, "sample-v.txt"))
	rs.RunErr["./runner"] = "go test -bench '^Benchmark(RunEchoHi|BashEchoHi)$' ./runner: exit status 1: FAIL ./runner [build failed]"
	var buf bytes.Buffer
	WriteSection(&buf, commands(), rs)
	got := buf.String()
	for _, want := range []string{
		"| echo hi | 0.12 | — | — | — | — |", // median: wsfs-echo is there, the rest is not
		"- BenchmarkRun/justbash-echo (just-bash): skipped: just-bash CLI not installed: npm i -g just-bash\n",
		// Their parent failed (through BenchmarkRun/broken): one line for all.
		"- BenchmarkRun/bash-echo (bash -c), BenchmarkRun/wsfs-echo-first (wsfs run), BenchmarkRun/wsfs-write (wsfs run), BenchmarkRun/wsfs-jsexec (wsfs run), " +
			"BenchmarkRun/justbash-jsexec (just-bash), BenchmarkRun/wsfs-jsexec-first (wsfs run): BenchmarkRun failed\n",
		"- BenchmarkRunEchoHi (wsfs run), BenchmarkBashEchoHi (bash -c): run failed: go test -bench '^Benchmark(RunEchoHi|BashEchoHi)$' ./runner: exit status 1",
		"| echo hi | 1.11 ms | — | — | — | — |", // mean
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	rs.Add("./x", parseFile(t, "sample-v.txt"))
	if why := rs.WhyMissing("./x", "BenchmarkRun/broken"); why != "failed: store: connection refused" {
		t.Errorf("a failed benchmark: %q", why)
	}
	if why := rs.WhyMissing("./x", "BenchmarkRun/broken/sub"); why != "BenchmarkRun/broken failed: store: connection refused" {
		t.Errorf("a child of a failed benchmark: %q", why)
	}
	if why := rs.WhyMissing("./x", "BenchmarkSkipped/any"); why != "BenchmarkSkipped skipped: needs /dev/fuse" {
		t.Errorf("a child of a skipped benchmark: %q", why)
	}
	if why := rs.WhyMissing("./x", "BenchmarkNew"); why != "not in the output of ./x (benchmark not written yet?)" {
		t.Errorf("a benchmark not written yet: %q", why)
	}
}

func TestMetricTable(t *testing.T) {
	out, err := Parse(strings.NewReader("BenchmarkCommitScaling-2   3000   350000 ns/op   1.08 ratio   168000 ns/small   182000 ns/large\n"))
	if err != nil {
		t.Fatal(err)
	}
	rs := NewResults()
	rs.Add("./meta", out)
	var buf bytes.Buffer
	writeMetricTable(&buf, MetricTable{Title: "Interleaved", Metrics: []string{"ns/small", "ns/large", "ratio"},
		Rows: []MetricRow{{Pkg: "./meta", Name: "BenchmarkCommitScaling", Label: "one-file commit"},
			{Pkg: "./meta", Name: "BenchmarkGone", Label: "gone|away"}}}, rs)
	want := `**Interleaved**

|  | ns/small | ns/large | ratio |
|---|--:|--:|--:|
| one-file commit | 168 µs | 182 µs | 1.08 |
| gone\|away | — | — | — |

Missing:

- BenchmarkGone (gone|away): not in the output of ./meta (benchmark not written yet?)

`
	if got := buf.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestWriteReport(t *testing.T) {
	rs := NewResults()
	rs.Add("./fusefs", parseFile(t, "fusefs-fs.txt"))
	m := Machine{CPU: "Test CPU", Cores: 2, MemoryGiB: 23.4, Kernel: "6.1.0", GoVersion: "go1.26.8", Commit: "abc1234",
		LoadStart: "5.17 2.95 4.71", LoadEnd: "3.00 2.00 1.00", Start: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), Took: 421 * time.Second}
	var buf bytes.Buffer
	WriteReport(&buf, m, []Section{fileSystem()}, rs, []string{"./fusefs"})
	got := buf.String()
	for _, want := range []string{
		"# wsfs benchmark report\n",
		"on 2026-11-30 12:00 UTC",
		"| CPU | Test CPU, 2 cores |",
		"| memory | 23.4 GiB |",
		"| kernel | Linux 6.1.0 |",
		"| Go | go1.26.8 |",
		"| load average (1, 5, 15 min) at start | 5.17 2.95 4.71 |",
		"| load average at end | 3.00 2.00 1.00 |",
		"| run time | 7m1s |",
		"## The mount: wsfs vs go-fuse loopback vs tmpfs",
		"| BenchmarkFS/rw256k/wsfs | 661 | 1577824 ns/op, 332.29 MB/s |",
		"</details>\n",
		"busy with other work (load average up to 5.2 on 2 cores)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	m.LoadStart, m.LoadEnd = "0.50 0.40 0.30", "1.90 1.00 0.50"
	buf.Reset()
	WriteHeader(&buf, m)
	if strings.Contains(buf.String(), "busy") {
		t.Errorf("a quiet machine called busy:\n%s", buf.String())
	}
}

// Every cell of every section names a package that one of the section's
// runs benchmarks, and a benchmark that the run's -bench pattern selects.
func TestSectionsRunWhatTheyShow(t *testing.T) {
	for _, s := range Sections() {
		check := func(pkg, name string) {
			for _, r := range s.Runs {
				if r.Pkg == pkg && benchSelects(t, r.Bench, name) {
					return
				}
			}
			t.Errorf("%s: %s %s is not selected by any of its runs", s.Title, pkg, name)
		}
		for _, c := range s.Comparisons {
			for _, cell := range c.Cells {
				check(cell.Pkg, cell.Name)
			}
		}
		for _, m := range s.Metrics {
			for _, row := range m.Rows {
				check(row.Pkg, row.Name)
			}
		}
	}
}

// benchSelects reports whether go test's -bench pattern selects name: the
// pattern's slash-separated parts match the name's parts, level by level.
func benchSelects(t *testing.T, pattern, name string) bool {
	t.Helper()
	var parts []string
	depth, start := 0, 0
	for i, c := range pattern {
		switch c {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case '/':
			if depth == 0 {
				parts = append(parts, pattern[start:i])
				start = i + 1
			}
		}
	}
	parts = append(parts, pattern[start:])
	elems := strings.Split(name, "/")
	for i, p := range parts {
		if i >= len(elems) {
			break
		}
		if !regexp.MustCompile(p).MatchString(elems[i]) {
			return false
		}
	}
	return true
}

// benchRunner builds a package's test binary once, runs it in the
// package's folder, and parses results, skips and failures.
func TestBenchRunner(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	br, err := newBenchRunner(2*time.Minute, false)
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	ctx := context.Background()
	const pkg = "./testdata/samplebench"
	out, err := br.run(ctx, Run{Pkg: pkg, Bench: "^BenchmarkRun$", Benchtime: "3x"})
	if err != nil {
		t.Fatal(err)
	}
	echo, ok := out.Find("BenchmarkRun/wsfs-echo")
	if !ok || echo.N != 3 || echo.Metrics["p50-ms"] != 0.5 {
		t.Errorf("wsfs-echo: %+v, %v", echo, ok)
	}
	if _, ok := out.Find("BenchmarkRun/here"); !ok {
		t.Errorf("the benchmark that needs the package's folder did not run: %+v", out)
	}
	if out.Skipped["BenchmarkRun/justbash-echo"] != "just-bash is not installed" || out.Fail {
		t.Errorf("skipped %v, fail %v", out.Skipped, out.Fail)
	}
	bin := br.built[pkg]
	out, err = br.run(ctx, Run{Pkg: pkg, Bench: "^BenchmarkBroken$", Benchtime: "1x"})
	if err != nil || !out.Fail || out.Failed["BenchmarkBroken"] != "store: connection refused" {
		t.Errorf("a failing benchmark: %+v, %v", out, err)
	}
	if br.built[pkg] != bin || len(br.built) != 1 {
		t.Errorf("the package was built again: %v", br.built)
	}
	if _, err := br.run(ctx, Run{Pkg: "./testdata/nosuchpkg", Bench: ".", Benchtime: "1x"}); err == nil || !strings.Contains(err.Error(), "go test -c ./testdata/nosuchpkg") {
		t.Errorf("a package that does not build: %v", err)
	}
}
