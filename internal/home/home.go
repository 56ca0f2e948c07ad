// Package home names the files of a wsfs home (--home, $WSFS_HOME, or
// the default): one function for each path, used alike by the server, the
// verbs and the small front (which imports only the standard library and
// this package). Nothing here creates a file.
package home

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// EnvHome names the environment variable that sets the home.
const EnvHome = "WSFS_HOME"

// Dir returns the home, absolute: flag (--home) when given, else
// $WSFS_HOME, else /var/lib/wsfs for root and ~/.local/share/wsfs for
// others.
func Dir(flag string) (string, error) {
	h := flag
	if h == "" {
		h = os.Getenv(EnvHome)
	}
	if h != "" {
		abs, err := filepath.Abs(h)
		if err != nil {
			return "", fmt.Errorf("home folder %s: %w", h, err)
		}
		return abs, nil
	}
	if os.Geteuid() == 0 {
		return "/var/lib/wsfs", nil
	}
	uhome, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home folder to put wsfs's data in (%v): set --home or %s", err, EnvHome)
	}
	return filepath.Join(uhome, ".local", "share", "wsfs"), nil
}

// Paths are the files of the home at Root.
type Paths struct{ Root string }

// Of returns the paths of the home at root.
func Of(root string) Paths { return Paths{Root: root} }

// DB is the metadata database.
func (p Paths) DB() string { return filepath.Join(p.Root, "meta.db") }

// Objects is the default object store (a folder).
func (p Paths) Objects() string { return filepath.Join(p.Root, "objects") }

// Info is the running server's record (server.json).
func (p Paths) Info() string { return filepath.Join(p.Root, "server.json") }

// Spool is the mount's spool folder.
func (p Paths) Spool() string { return filepath.Join(p.Root, "spool") }

// OthersSpool is the spool folder of the private mount of the other
// workspaces that a server mounting one workspace keeps (SharedMount).
func (p Paths) OthersSpool() string { return filepath.Join(p.Root, "spool-others") }

// Cache is the object store's read cache.
func (p Paths) Cache() string { return filepath.Join(p.Root, "cache") }

// JSCache is js-exec's compilation cache.
func (p Paths) JSCache() string { return filepath.Join(p.Root, "cache", "qjs") }

// SharedMount is where a server started for `wsfs run` (not by wsfs
// mount) mounts the workspaces, and where a server that mounts one
// workspace mounts the others, privately, for their commands.
func (p Paths) SharedMount() string { return filepath.Join(p.Root, "run-mount") }

// ServerLog is the log of a server started for `wsfs run`.
func (p Paths) ServerLog() string { return filepath.Join(p.Root, "server.log") }

// StartLock is locked (flock) by whoever starts a server for `wsfs run`,
// so that concurrent commands start one between them.
func (p Paths) StartLock() string { return filepath.Join(p.Root, "server.lock") }

// ControlSocket is the server's control socket (JSON over HTTP).
func (p Paths) ControlSocket() string { return p.socket("wsfs.sock", "") }

// RunSocket is the socket the server takes `wsfs run` jobs on.
func (p Paths) RunSocket() string { return p.socket("run.sock", "-run") }

// maxSocketPath is the longest unix socket path Linux takes (sun_path is
// 108 bytes with the terminating NUL).
const maxSocketPath = 107

// socket is name in the home, or, when that path is too long for a unix
// socket address (the server binds in a private folder beside it first,
// whose path must fit too), a short path keyed by a hash of the home:
// under /run/wsfs for root, else under the temp folder.
func (p Paths) socket(name, suffix string) string {
	if len(filepath.Join(p.Root, ".s000000", "s")) <= maxSocketPath {
		return filepath.Join(p.Root, name)
	}
	sum := sha256.Sum256([]byte(p.Root))
	short := "wsfs-" + hex.EncodeToString(sum[:8]) + suffix + ".sock"
	if os.Getuid() == 0 {
		return filepath.Join("/run/wsfs", short)
	}
	return filepath.Join(os.TempDir(), "wsfs-"+strconv.Itoa(os.Getuid()), short)
}
