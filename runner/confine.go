package runner

// DefaultWorkerMemory is the worker's address-space limit when
// Limits.MaxAddressSpace is zero. Go reserves address space generously, so
// this is well above what a command may really use.
const DefaultWorkerMemory = 4 << 30

// DefaultWorkerHeap is the heap a `wsfs run` worker's command may use
// (Limits.MaxMemoryBytes): a memory bomb stops with a clear line well
// before the address-space rlimit would crash the process.
const DefaultWorkerHeap = 256 << 20

// Confinement is what a worker process started by StartConfined may
// reach, for its whole life.
type Confinement struct {
	// ReadWrite are the folders it may read, write, create in and rename
	// across: the workspace's folder on the mount, and its own private
	// folder (its TMPDIR, each command's /tmp below it).
	ReadWrite []string
	// ReadOnly are folders or files it may read only, such as js-exec's
	// compilation cache (a worker that could write it could plant code
	// for every other one).
	ReadOnly []string
}

// ConfineReport tells what StartConfined enforced.
type ConfineReport struct {
	LandlockABI int  // 0: the kernel has no Landlock
	Filesystem  bool // file access limited to the Confinement's folders
	Network     bool // TCP bind and connect denied
}
