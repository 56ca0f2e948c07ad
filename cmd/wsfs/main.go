// Command wsfs is the small front of wsfs that agents and people call. It
// hands every verb but one to wsfs-core (the server, the mount, the
// history verbs) by exec, so it costs one process start rather than the
// core's; `wsfs run` goes straight to the server and never starts the
// core for the command (see run.go).
//
// wsfs-core is looked up as $WSFS_CORE, then next to this executable, then
// on PATH.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/wsfs/wsfs/runsvc/runwire"
)

// exitNoCore is the shell's "command not found" status: the front is
// installed without the core it hands its work to.
const exitNoCore = 127

func main() {
	// Global flags may come before the verb (wsfs --home DIR run ...);
	// anything wrong with them is the core's to say.
	if globals, rest, err := runwire.LeadingGlobals(os.Args[1:]); err == nil && len(rest) > 0 && rest[0] == "run" {
		os.Exit(fastRun(append(globals, rest[1:]...)))
	}
	core, err := corePath()
	if err != nil {
		fmt.Fprintf(os.Stderr, "wsfs: %v\n", err)
		os.Exit(exitNoCore)
	}
	err = syscall.Exec(core, append([]string{core}, os.Args[1:]...), os.Environ())
	fmt.Fprintf(os.Stderr, "wsfs: starting %s: %v\n", core, err)
	os.Exit(exitNoCore)
}

// coreName is the core binary's file name.
const coreName = "wsfs-core"

// corePath finds wsfs-core.
func corePath() (string, error) {
	if p := os.Getenv("WSFS_CORE"); p != "" {
		if !isExecutable(p) {
			return "", fmt.Errorf("WSFS_CORE=%s is not an executable file: point it at the wsfs-core binary, or unset it", p)
		}
		return p, nil
	}
	looked := "PATH"
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		p := filepath.Join(filepath.Dir(exe), coreName)
		if isExecutable(p) {
			return p, nil
		}
		looked = filepath.Dir(exe) + " and on PATH"
	}
	if p, err := exec.LookPath(coreName); err == nil {
		return p, nil
	} else if !errors.Is(err, exec.ErrNotFound) {
		return "", fmt.Errorf("looking for %s on PATH: %w", coreName, err)
	}
	return "", fmt.Errorf("cannot find %s (looked in %s): build both binaries with `make build` (bin/wsfs and bin/wsfs-core) or `go install github.com/wsfs/wsfs/cmd/...`, or set WSFS_CORE", coreName, looked)
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}
