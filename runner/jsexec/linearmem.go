package jsexec

import (
	"context"
	"sync"

	"github.com/tetratelabs/wazero/experimental"
)

// linearMemory is a wasm memory that the run releases itself, after the
// engine is gone (see mmapMemory.Free).
type linearMemory interface {
	experimental.LinearMemory
	release()
}

// heapMemory is a wasm memory on the Go heap that reserves its maximum at
// the first growth, so that it is allocated once rather than once per
// growth (the fallback when no mapping outside the heap can be made).
type heapMemory struct {
	buf []byte
	max uint64
}

func (m *heapMemory) Reallocate(size uint64) []byte {
	if size > m.max {
		return nil
	}
	if uint64(cap(m.buf)) < size {
		nb := make([]byte, size, m.max)
		copy(nb, m.buf)
		m.buf = nb
	}
	m.buf = m.buf[:size]
	return m.buf
}

func (m *heapMemory) Free() {}

func (m *heapMemory) release() { m.buf = nil }

// engineMemory is the memory of one run's engine: it hands wazero a
// linear memory that refuses to grow past the run's limit, calls full the
// first time it refuses, and releases the memory when the run ends, even
// when the engine was stopped before wazero closed its module.
//
// Reaching the limit ends the run, as exhausting its heap ends a Node
// process: QuickJS's own handling of a failed allocation is not to be
// trusted (it may throw null, or leave a half-built object behind), and a
// script that caught the error would go on in an engine with no memory
// left.
type engineMemory struct {
	limit uint64 // bytes
	full  func() // called once, when a growth is refused

	mu      sync.Mutex
	mem     []linearMemory
	reached bool
}

// context returns ctx carrying the allocator; the engine must be
// instantiated with it.
func (e *engineMemory) context(ctx context.Context) context.Context {
	return experimental.WithMemoryAllocator(ctx, experimental.MemoryAllocatorFunc(func(_, max uint64) experimental.LinearMemory {
		m := newLinearMemory(max)
		e.mu.Lock()
		e.mem = append(e.mem, m)
		e.mu.Unlock()
		return &limitedMemory{linearMemory: m, e: e}
	}))
}

// reachedLimit reports whether the engine asked for more than the limit.
func (e *engineMemory) reachedLimit() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.reached
}

// free releases every memory handed out; the engine must not run again.
func (e *engineMemory) free() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, m := range e.mem {
		m.release()
	}
	e.mem = nil
}

// limitedMemory refuses growth past its engine's limit.
type limitedMemory struct {
	linearMemory
	e *engineMemory
}

func (m *limitedMemory) Reallocate(size uint64) []byte {
	if size > m.e.limit {
		m.e.mu.Lock()
		first := !m.e.reached
		m.e.reached = true
		m.e.mu.Unlock()
		if first && m.e.full != nil {
			m.e.full()
		}
		return nil
	}
	return m.linearMemory.Reallocate(size)
}
