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

// classedError is an error with its own message that still has the
// class (and so the exit code) of a sentinel.
type classedError struct {
	msg   string
	class error
}

func (e classedError) Error() string { return e.msg }
func (e classedError) Unwrap() error { return e.class }
