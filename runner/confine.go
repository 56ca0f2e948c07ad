package runner

// DefaultWorkerMemory is the worker's address-space limit when
// Limits.MaxMemoryBytes is zero. Go reserves address space generously, so
// this is well above what a command may really use.
const DefaultWorkerMemory = 4 << 30

// ConfineReport tells what Confine enforced.
type ConfineReport struct {
	LandlockABI int  // 0: the kernel has no Landlock
	Filesystem  bool // file access limited to the workspace and scratch folders
	Network     bool // TCP bind and connect denied
	MemoryBytes uint64
	CPUSeconds  uint64
	TempDir     string // the worker's private host temporary folder (TMPDIR)
}
