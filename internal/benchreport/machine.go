package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Machine describes where and when the benchmarks ran.
type Machine struct {
	CPU       string // /proc/cpuinfo's model name
	GoCPU     string // the "cpu:" line of go test, when it says something else
	Cores     int
	MemoryGiB float64
	Kernel    string
	GoVersion string
	Commit    string
	LoadStart string // /proc/loadavg's 1, 5 and 15 minute averages
	LoadEnd   string
	Start     time.Time
	Took      time.Duration
}

// DescribeMachine reads the machine's facts from /proc and the toolchain.
func DescribeMachine(ctx context.Context) Machine {
	m := Machine{Cores: runtime.NumCPU(), Start: time.Now().UTC(), LoadStart: LoadAverage()}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.CPU = procField(string(data), "model name")
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		kb, _ := strconv.ParseFloat(strings.TrimSuffix(procField(string(data), "MemTotal"), " kB"), 64)
		m.MemoryGiB = kb / (1 << 20)
	}
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(data))
	}
	m.GoVersion = command(ctx, "go", "env", "GOVERSION")
	if m.GoVersion == "" {
		m.GoVersion = runtime.Version()
	}
	m.Commit = command(ctx, "git", "rev-parse", "--short", "HEAD")
	if m.Commit != "" && command(ctx, "git", "status", "--porcelain", "--untracked-files=no") != "" {
		m.Commit += " (with uncommitted changes)"
	}
	return m
}

// LoadAverage returns the 1, 5 and 15 minute load averages.
func LoadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// procField returns the value of the first "key: value" line.
func procField(text, key string) string {
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// command returns a command's trimmed output, or "" when it fails.
func command(ctx context.Context, name string, args ...string) string {
	out, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// WriteHeader writes the report's title and the machine table.
func WriteHeader(w io.Writer, m Machine) {
	fmt.Fprintf(w, "# wsfs benchmark report\n\n")
	fmt.Fprintf(w, "Written by `make bench` on %s. Lower times are better; a ratio column \"A ÷ B\" divides A's time by B's, so above 1 means A is slower.\n\n", m.Start.Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(w, "| machine | |\n|---|---|\n")
	rows := [][2]string{
		{"CPU", m.cpuText()},
		{"memory", fmt.Sprintf("%.1f GiB", m.MemoryGiB)},
		{"kernel", "Linux " + orDash(m.Kernel)},
		{"Go", orDash(m.GoVersion)},
		{"commit", orDash(m.Commit)},
		{"load average (1, 5, 15 min) at start", m.LoadStart},
		{"load average at end", orDash(m.LoadEnd)},
		{"run time", orDash(m.tookText())},
	}
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s |\n", r[0], r[1])
	}
	fmt.Fprintln(w)
	if load := max(loadOne(m.LoadStart), loadOne(m.LoadEnd)); m.Cores > 0 && load > float64(m.Cores) {
		fmt.Fprintf(w, "The machine was busy with other work (load average up to %.1f on %d cores): absolute times are inflated "+
			"and noisy; the ratios, taken within one run, are the more telling figures.\n\n", load, m.Cores)
	}
}

// loadOne returns the 1-minute figure of a LoadAverage string (0 when unknown).
func loadOne(load string) float64 {
	f := strings.Fields(load)
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

func (m Machine) cpuText() string {
	cpu := orDash(m.CPU)
	if m.GoCPU != "" && m.GoCPU != m.CPU {
		cpu += fmt.Sprintf(" (go test says %q)", m.GoCPU)
	}
	return fmt.Sprintf("%s, %d cores", cpu, m.Cores)
}

func (m Machine) tookText() string {
	if m.Took == 0 {
		return ""
	}
	return m.Took.Round(time.Second).String()
}
