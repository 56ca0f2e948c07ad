package main

import (
	"os"

	"github.com/wsfs/wsfs/runsvc/runwire"
)

// `wsfs run` never starts the core for the command itself: the front
// parses the flags into a job, reads the script, and sends both once to
// the home's server over its run socket with its own stdin, stdout and
// stderr attached; the server runs the command in a worker and answers
// the report (runwire.Main). With no server running, the front starts one
// for the home (wsfs-core mount --shared, which stops once idle) and the
// commands that come meanwhile use it too.

// fastRun runs `wsfs run args` and returns its exit status.
func fastRun(args []string) int {
	return runwire.Main(args, os.Stdin, os.Stdout, os.Stderr, func(home, store string) ([]string, error) {
		core, err := corePath()
		if err != nil {
			return nil, err
		}
		argv := []string{core, "mount", "--shared", "--home", home}
		if store != "" {
			argv = append(argv, "--store", store)
		}
		return argv, nil
	})
}
