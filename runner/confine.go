package runner

// DefaultWorkerMemory is the worker's address-space limit when
// Limits.MaxAddressSpace is zero. Go reserves address space generously, so
// this is well above what a command may really use.
const DefaultWorkerMemory = 4 << 30

// DefaultWorkerHeap is the heap a `wsfs run` worker's command may use
// (Limits.MaxMemoryBytes): a memory bomb stops with a clear line well
// before the address-space rlimit would crash the process.
const DefaultWorkerHeap = 256 << 20

// ConfineReport tells what Confine enforced.
type ConfineReport struct {
	LandlockABI int  // 0: the kernel has no Landlock
	Filesystem  bool // file access limited to the workspace and scratch folders
	Network     bool // TCP bind and connect denied
	MemoryBytes uint64
	CPUSeconds  uint64
	TempDir     string // the worker's private host temporary folder (TMPDIR)
}
