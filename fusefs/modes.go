package fusefs

import (
	"io/fs"

	"github.com/wsfs/wsfs/meta"
)

// unixSetgid is the setgid bit as stat and chmod use it.
const unixSetgid = 0o2000

// permToMode converts unix permission bits to the fs.FileMode meta stores.
func permToMode(m uint32) fs.FileMode { return meta.ModeFromUnix(m) }

// modeExtra returns the setuid, setgid and sticky bits of m as unix bits.
func modeExtra(m fs.FileMode) uint32 { return meta.UnixMode(m) &^ 0o777 }
