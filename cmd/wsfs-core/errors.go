package main

import "github.com/wsfs/wsfs/runsvc"

// exitCodeFor maps a failed operation's error to the exit code that
// `wsfs --help` documents. Errors that came over the control socket keep
// their class (api rebuilds the sentinels), so one mapping serves both
// paths: runsvc's.
func exitCodeFor(err error) int {
	_, exit := runsvc.Classify(err)
	return exit
}
