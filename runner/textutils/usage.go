package textutils

import (
	"fmt"

	"github.com/wsfs/wsfs/runner/internal/getopt"
)

// noOptions is the command line of a tool that takes only operands (and
// --help and --version).
var noOptions = getopt.Spec{}

// usage prints a usage problem found after parsing the GNU way and
// returns status.
func (r *run) usage(status int, format string, a ...any) int {
	r.env.Errorf(format, a...)
	fmt.Fprintf(r.env.Stderr, "Try '%s --help' for more information.\n", r.env.Name())
	return status
}
