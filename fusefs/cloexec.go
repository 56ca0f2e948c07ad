package fusefs

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// closeDeviceOnExec marks every descriptor of this process that is open on
// /dev/fuse close-on-exec. go-fuse opens the device (or receives it from
// fusermount3) without O_CLOEXEC, so every program the server starts
// afterwards — its warm workers above all — would hold the file system's
// own device: a confined process able to answer FUSE requests, and a mount
// that hangs instead of failing with ENOTCONN once the server dies.
func closeDeviceOnExec() error {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("fusefs: listing this process's descriptors: %w", err)
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err != nil || target != "/dev/fuse" {
			continue
		}
		syscall.CloseOnExec(fd)
	}
	return nil
}
