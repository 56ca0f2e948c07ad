//go:build !linux

package runner

import (
	"log/slog"
)

// Confine is a no-op outside Linux: the worker is confined by os.Root
// only. It logs so.
func Confine(cfg Config) (ConfineReport, error) {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	logger.Warn("runner: Landlock and rlimits are Linux-only; the worker is confined by os.Root only")
	return ConfineReport{}, nil
}

// LimitCPU does nothing outside Linux.
func LimitCPU(Limits) (uint64, error) { return 0, nil }
