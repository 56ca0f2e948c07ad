//go:build !linux

package runner

import (
	"log/slog"
	"os/exec"
)

// StartConfined starts cmd with no confinement but os.Root's outside
// Linux (Landlock and rlimits are Linux-only), and logs so.
func StartConfined(cmd *exec.Cmd, c Confinement, logger *slog.Logger) (ConfineReport, error) {
	if logger == nil {
		logger = slog.Default()
	}
	logger.Warn("runner: Landlock and rlimits are Linux-only; the worker is confined by os.Root only")
	return ConfineReport{}, cmd.Start()
}

// LimitProcess does nothing outside Linux.
func LimitProcess(Limits) (uint64, error) { return 0, nil }

// LimitCPU does nothing outside Linux.
func LimitCPU(Limits) (uint64, error) { return 0, nil }
