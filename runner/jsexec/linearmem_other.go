//go:build !unix

package jsexec

// newLinearMemory keeps the engine's memory on the Go heap outside unix.
func newLinearMemory(max uint64) linearMemory { return &heapMemory{max: max} }
