//go:build unix

package jsexec

import (
	"sync"
	"syscall"
)

// mmapMemory is QuickJS's wasm memory outside the Go heap: one anonymous
// mapping of the memory's maximum size, reserved at start and touched
// page by page as the engine grows it, so growing never copies. wazero's
// own memory is a Go slice that grows by append: each memory.grow past
// its capacity allocated a new, larger slice and left the old one as
// garbage, so a script that grew its heap step by step (arrays pushed in
// a loop) made the worker's Go heap several times the wasm cap and hit
// the worker's memory limit, which ends the whole command, before the
// engine's own limit could end the script.
type mmapMemory struct {
	mu  sync.Mutex
	buf []byte // the whole mapping; nil once freed
	max uint64
}

// newLinearMemory maps max bytes for one engine's memory, or falls back
// to the Go heap when the mapping fails.
func newLinearMemory(max uint64) linearMemory {
	if max == 0 || max > 1<<32 {
		return &heapMemory{max: max}
	}
	buf, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return &heapMemory{max: max}
	}
	return &mmapMemory{buf: buf, max: max}
}

// Reallocate implements experimental.LinearMemory: the memory never moves.
func (m *mmapMemory) Reallocate(size uint64) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.buf == nil || size > m.max {
		return nil
	}
	return m.buf[:size:size]
}

// Free implements experimental.LinearMemory. wazero calls it when the
// module closes, which a stopped engine does while qjs and the run still
// hold slices of the memory (the run's deferred clean-up writes to it), so
// it unmaps nothing: release does, once the run is over.
func (m *mmapMemory) Free() {}

// release unmaps the memory. It is safe to call twice.
func (m *mmapMemory) release() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.buf != nil {
		_ = syscall.Munmap(m.buf)
		m.buf = nil
	}
}
