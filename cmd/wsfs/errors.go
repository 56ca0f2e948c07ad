package main

// exitCodeFor maps a failed operation's error to the exit code that
// `wsfs --help` documents. Domain packages register their sentinels here as
// they land.
func exitCodeFor(err error) int {
	for _, m := range errorCodes {
		if m.match(err) {
			return m.code
		}
	}
	return exitFailure
}

var errorCodes []struct {
	match func(error) bool
	code  int
}
