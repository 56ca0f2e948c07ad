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
// /dev/null and the time-zone files (read), and denies TCP bind and
// connect (Landlock ABI 4 and later); rlimits cap
// the address space (Limits.MaxAddressSpace, default 4 GiB) and CPU time
// (Limits.MaxCPUTime, default twice the wall time). Landlock is best
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
	for _, p := range goReadPaths {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
		case fi.IsDir():
			rules = append(rules, landlock.RODirs(p))
		default:
			rules = append(rules, landlock.ROFiles(p))
		}
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
	cpu := uint64(lim.MaxCPUTime.Seconds())
	if cpu == 0 {
		cpu = uint64(2 * lim.WallTime.Seconds())
	}
	if cpu < 1 {
		cpu = 1
	}
	// The soft limit sends SIGXCPU, the hard one a second later SIGKILL.
	if err := syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: cpu, Max: cpu + 1}); err != nil {
		return rep, fmt.Errorf("runner: confine: cpu rlimit: %w", err)
	}
	rep.MemoryBytes, rep.CPUSeconds = mem, cpu
	return rep, nil
}
