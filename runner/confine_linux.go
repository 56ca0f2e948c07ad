package runner

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// goReadPaths are host paths a confined worker may still read: what the Go
// runtime and the date command look at. Missing ones are skipped.
var goReadPaths = []string{"/usr/share/zoneinfo", "/etc/localtime", "/etc/timezone"}

// StartConfined starts cmd (this program's own executable, as a worker)
// confined from its first instruction, for good: Landlock limits file
// access to c's folders, /dev/null, the time-zone files and the program
// with the libraries it maps (to execute and read), and denies TCP bind
// and connect (Landlock ABI 4 and later) and signals and abstract sockets
// beyond the worker (ABI 6).
//
// The confinement is put on a locked OS thread of this process that
// starts cmd and then ends with its goroutine (go-landlock's
// NewRulesetFD): the child inherits the thread's Landlock domain, and
// every thread it ever starts inherits it in turn. Restricting a running
// Go program instead must reach each of its threads, which libpsx does by
// re-opening /proc/PID/task after the first thread is restricted, and
// that open fails whenever the kernel has dropped the folder's dentry
// meanwhile (issue 15: 19 of 20 first commands killed under a
// drop_caches loop). For the same reason cmd may not ask for a parent
// death signal: the thread that starts it ends at once.
//
// Landlock is best effort: on a kernel without it (or with an older ABI)
// StartConfined logs what is not enforced and relies on os.Root's
// confinement alone. The worker sets its own rlimits (LimitProcess,
// LimitCPU).
func StartConfined(cmd *exec.Cmd, c Confinement, logger *slog.Logger) (ConfineReport, error) {
	if logger == nil {
		logger = slog.Default()
	}
	if cmd.SysProcAttr != nil && cmd.SysProcAttr.Pdeathsig != 0 {
		return ConfineReport{}, errors.New("runner: a confined worker cannot have a parent death signal (its starting thread ends at once); watch its socket instead")
	}
	rep := ConfineReport{}
	abi, abiErr := llsys.LandlockGetABIVersion()
	if abiErr != nil || abi < 1 {
		logger.Warn("runner: Landlock is not supported by this kernel; the worker is confined by os.Root and rlimits only", "err", abiErr)
		return rep, cmd.Start()
	}
	rep.LandlockABI = abi
	rules, err := confinementRules(cmd.Path, c)
	if err != nil {
		return rep, err
	}
	fd, flags, err := landlock.V9.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return rep, fmt.Errorf("runner: confine: landlock: %w", err)
	}
	if fd < 0 {
		return rep, cmd.Start() // nothing the kernel can enforce
	}
	defer unix.Close(fd)
	rep.Filesystem, rep.Network = true, abi >= 4
	if !rep.Network {
		logger.Warn("runner: Landlock ABI below 4: network access is not restricted", "abi", abi)
	}
	errc := make(chan error, 1)
	go func() {
		// Never unlocked: the Go runtime ends the thread with this
		// goroutine instead of giving it, restricted, to another.
		runtime.LockOSThread()
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			errc <- fmt.Errorf("runner: confine: no_new_privs: %w", err)
			return
		}
		if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
			errc <- fmt.Errorf("runner: confine: landlock: %w", err)
			return
		}
		errc <- cmd.Start()
	}()
	return rep, <-errc
}

// confinementRules are the Landlock rules of a worker running program.
func confinementRules(program string, c Confinement) ([]landlock.Rule, error) {
	if len(c.ReadWrite) == 0 {
		return nil, errors.New("runner: confine: no workspace folder given")
	}
	rules := []landlock.Rule{
		landlock.RWDirs(c.ReadWrite...).WithRefer(),
		landlock.RWFiles("/dev/null"),
	}
	for _, p := range append(goReadPaths[:len(goReadPaths):len(goReadPaths)], c.ReadOnly...) {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
		case fi.IsDir():
			rules = append(rules, landlock.RODirs(p))
		default:
			rules = append(rules, landlock.ROFiles(p))
		}
	}
	exe, err := filepath.Abs(program)
	if err != nil {
		return nil, fmt.Errorf("runner: confine: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	run := []string{exe}
	// A cgo build maps the dynamic loader and libc: the worker, the same
	// program, needs them to start.
	for _, lib := range mappedFiles() {
		if lib != exe {
			run = append(run, lib)
		}
	}
	rules = append(rules, landlock.PathAccess(landlock.AccessFSSet(llsys.AccessFSExecute|llsys.AccessFSReadFile), run...))
	return rules, nil
}

// mappedFiles lists the files this process maps executable (its program,
// the dynamic loader, shared libraries), read once: a server starts many
// workers and its mappings of files do not change.
var mappedFiles = sync.OnceValue(readMappedFiles)

func readMappedFiles() []string {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return nil
	}
	defer f.Close()
	seen := map[string]bool{}
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 6 || !strings.Contains(fields[1], "x") || !strings.HasPrefix(fields[5], "/") || seen[fields[5]] {
			continue
		}
		seen[fields[5]] = true
		if _, err := os.Stat(fields[5]); err == nil {
			out = append(out, fields[5])
		}
	}
	return out
}

// LimitProcess caps this worker process's address space
// (Limits.MaxAddressSpace, default DefaultWorkerMemory) and returns it.
func LimitProcess(l Limits) (uint64, error) {
	mem := l.MaxAddressSpace
	if mem == 0 {
		mem = DefaultWorkerMemory
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: mem, Max: mem}); err != nil {
		return 0, fmt.Errorf("runner: memory rlimit: %w", err)
	}
	return mem, nil
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

// LimitCPU gives the next command of a worker its CPU time
// (Limits.MaxCPUTime, else twice the wall time) on top of what the
// process has used so far, and returns it in seconds. Only the soft limit
// moves, since a process without CAP_SYS_RESOURCE cannot raise its hard
// limit again: the kernel sends SIGXCPU when the command reaches it,
// which the Go runtime ignores, so the caller must act on the signal
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
