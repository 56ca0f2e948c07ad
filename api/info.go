package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/wsfs/wsfs/internal/home"
)

// ProtocolVersion is the version of this API. A client refuses a server
// that speaks another one (the two binaries differ: restart the server).
const ProtocolVersion = 2

// SocketPath returns where the server of home listens (internal/home has
// the rule).
func SocketPath(h string) string { return home.Of(h).ControlSocket() }

// Info is what server.json records about a running server.
type Info struct {
	PID      int       `json:"pid"`
	MountDir string    `json:"mount_dir,omitempty"` // "" for a server without a mount
	Socket   string    `json:"socket"`
	Store    string    `json:"store"`
	Home     string    `json:"home"`
	Started  time.Time `json:"started"`
	Protocol int       `json:"protocol"`
	Version  string    `json:"version"`
	// Shared marks a server that `wsfs run` started (see Config.Shared).
	Shared bool `json:"shared,omitempty"`
	// Listen holds the URLs the API listens on over the network
	// (wsfs serve --listen).
	Listen []string `json:"listen,omitempty"`
}

// ErrNoServer reports that no server.json names a server for a home.
var ErrNoServer = errors.New("api: no wsfs server is running for this home")

// ReadInfo reads home/server.json. It returns ErrNoServer when there is
// none; it does not check that the server is alive (Dial does).
func ReadInfo(h string) (Info, error) {
	var info Info
	path := home.Of(h).Info()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return info, ErrNoServer
	}
	if err != nil {
		return info, fmt.Errorf("api: reading %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &info); err != nil {
		return info, fmt.Errorf("api: %s is damaged (%v); if no server runs, remove it", path, err)
	}
	return info, nil
}

// Alive reports whether the process info names still runs. A zombie (it
// exited and its parent has not reaped it yet) counts as gone.
func (info Info) Alive() bool {
	if info.PID <= 0 {
		return false
	}
	if err := syscall.Kill(info.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", info.PID))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	// The state follows the command name, which is in parentheses.
	if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
		return b[i+2] != 'Z' && b[i+2] != 'X'
	}
	return true
}

// writeInfo writes server.json atomically (write beside, rename).
func writeInfo(h string, info Info) error {
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return fmt.Errorf("api: %w", err)
	}
	path := home.Of(h).Info()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("api: writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("api: writing %s: %w", path, err)
	}
	return nil
}

// RemoveStale removes the server.json and socket of a server that is no
// longer running (its PID is gone). It leaves a live server's files alone
// and reports it.
func RemoveStale(h string) error {
	info, err := ReadInfo(h)
	if errors.Is(err, ErrNoServer) {
		return nil
	}
	if err == nil && info.Alive() && info.PID != os.Getpid() {
		return fmt.Errorf("api: server PID %d is still running", info.PID)
	}
	if err == nil && info.Socket != "" {
		os.Remove(info.Socket)
	}
	if err := os.Remove(home.Of(h).Info()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("api: %w", err)
	}
	return nil
}
