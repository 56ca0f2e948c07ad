package fusefs

import "syscall"

func unmountLazy(dir string) error { return syscall.Unmount(dir, syscall.MNT_DETACH) }
