package runner

import (
	"fmt"
	"log/slog"
	"os"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// goReadPaths are host paths a confined worker may still read: what the Go
// runtime and the date command look at. Missing ones are skipped.
var goReadPaths = []string{"/usr/share/zoneinfo", "/etc/localtime", "/etc/timezone"}

// Confine restricts the current process, for good, to what one `wsfs
// run` worker needs: Landlock limits file access to the workspace and
// scratch folders and a private temporary folder (read-write; TMPDIR
// points there; the confined process cannot remove it, so whoever started
// the worker removes ConfineReport.TempDir, made under the TMPDIR it gave),
// /dev/null, the time-zone files and Config.ReadOnlyDirs (read), and
// Config.Sockets (connect), and denies TCP bind and connect (Landlock ABI 4 and later); rlimits cap the
// address space (Limits.MaxAddressSpace, default 4 GiB) and CPU time
// (Limits.MaxCPUTime, default twice the wall time; per command with
// Config.Reusable, see LimitCPU). Landlock is best
// effort: on a kernel without it (or with an older ABI) Confine logs what
// is not enforced and relies on os.Root confinement alone. Call it once,
// before Run, in a process that serves nothing else.
func Confine(cfg Config) (ConfineReport, error) {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	lim := cfg.Limits.withDefaults()
	rep := ConfineReport{}
	abi, abiErr := llsys.LandlockGetABIVersion()
	if abiErr != nil || abi < 1 {
		logger.Warn("runner: Landlock is not supported by this kernel; the worker is confined by os.Root and rlimits only", "err", abiErr)
	} else {
		rep.LandlockABI = abi
	}

	var rules []landlock.Rule
	var rw []string
	for _, d := range []string{cfg.WorkspaceDir, cfg.ScratchDir} {
		if d != "" {
			rw = append(rw, d)
		}
	}
	if len(rw) == 0 {
		return rep, fmt.Errorf("runner: confine: no workspace folder given")
	}
	// Commands that need a private host folder (js-exec's empty WASI root)
	// make it under os.TempDir; give the worker its own, outside the
	// agent's view, and point TMPDIR there.
	private, err := os.MkdirTemp("", "wsfs-worker-")
	if err != nil {
		return rep, fmt.Errorf("runner: confine: private temporary folder: %w", err)
	}
	if err := os.Setenv("TMPDIR", private); err != nil {
		return rep, fmt.Errorf("runner: confine: %w", err)
	}
	rep.TempDir = private
	rw = append(rw, private)
	rules = append(rules, landlock.RWDirs(rw...).WithRefer())
	rules = append(rules, landlock.RWFiles("/dev/null"))
	for _, p := range append(goReadPaths[:len(goReadPaths):len(goReadPaths)], cfg.ReadOnlyDirs...) {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
		case fi.IsDir():
			rules = append(rules, landlock.RODirs(p))
		default:
			rules = append(rules, landlock.ROFiles(p))
		}
	}
	for _, sock := range cfg.Sockets {
		rules = append(rules, landlock.PathAccess(0, sock).WithResolveUnix())
	}
	if rep.LandlockABI > 0 {
		if err := landlock.V9.BestEffort().Restrict(rules...); err != nil {
			return rep, fmt.Errorf("runner: confine: landlock: %w", err)
		}
		rep.Filesystem = true
		rep.Network = rep.LandlockABI >= 4
		if !rep.Network {
			logger.Warn("runner: Landlock ABI below 4: network access is not restricted", "abi", rep.LandlockABI)
		}
	}

	mem := lim.MaxAddressSpace
	if mem == 0 {
		mem = DefaultWorkerMemory
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: mem, Max: mem}); err != nil {
		return rep, fmt.Errorf("runner: confine: memory rlimit: %w", err)
	}
	if cfg.Reusable {
		cpu, err := LimitCPU(cfg.Limits)
		if err != nil {
			return rep, err
		}
		rep.MemoryBytes, rep.CPUSeconds = mem, cpu
		return rep, nil
	}
	cpu := cpuSeconds(lim)
	// The soft limit sends SIGXCPU, the hard one a second later SIGKILL.
	if err := syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: cpu, Max: cpu + 1}); err != nil {
		return rep, fmt.Errorf("runner: confine: cpu rlimit: %w", err)
	}
	rep.MemoryBytes, rep.CPUSeconds = mem, cpu
	return rep, nil
}

// cpuSeconds is one command's CPU time: Limits.MaxCPUTime, else twice the
// wall time, at least a second.
func cpuSeconds(lim Limits) uint64 {
	cpu := uint64(lim.MaxCPUTime.Seconds())
	if cpu == 0 {
		cpu = uint64(2 * lim.WallTime.Seconds())
	}
	return max(cpu, 1)
}

// LimitCPU gives the next command of a reusable worker (Config.Reusable)
// its CPU time (Limits.MaxCPUTime, else twice the wall time) on top of
// what the process has used so far, and returns it in seconds. Only the
// soft limit moves, since a process without CAP_SYS_RESOURCE cannot raise
// its hard limit again: the kernel sends SIGXCPU when the command reaches
// it, which the Go runtime ignores, so the caller must act on the signal
// (os/signal) and end the process.
func LimitCPU(l Limits) (uint64, error) {
	cpu := cpuSeconds(l.withDefaults())
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("runner: cpu rlimit: %w", err)
	}
	used := uint64(ru.Utime.Sec+ru.Stime.Sec) + 1 // the started second counts
	var cur syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_CPU, &cur); err != nil {
		return 0, fmt.Errorf("runner: cpu rlimit: %w", err)
	}
	soft := min(used+cpu, cur.Max)
	if err := syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: soft, Max: cur.Max}); err != nil {
		return 0, fmt.Errorf("runner: cpu rlimit: %w", err)
	}
	return cpu, nil
}
