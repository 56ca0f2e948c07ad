package fusefs

import "io/fs"

// Unix permission bits beyond rwx, as stat and chmod use them.
const (
	unixSetuid = 0o4000
	unixSetgid = 0o2000
	unixSticky = 0o1000
)

// permToMode converts unix permission bits to the fs.FileMode meta stores.
func permToMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	if m&unixSetuid != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unixSetgid != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unixSticky != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

// modeExtra returns the setuid, setgid and sticky bits of m as unix bits.
func modeExtra(m fs.FileMode) uint32 {
	var u uint32
	if m&fs.ModeSetuid != 0 {
		u |= unixSetuid
	}
	if m&fs.ModeSetgid != 0 {
		u |= unixSetgid
	}
	if m&fs.ModeSticky != 0 {
		u |= unixSticky
	}
	return u
}
