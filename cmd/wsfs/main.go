// Command wsfs is the workspace filesystem for AI agents: flags,
// subcommands and wiring of the wsfs packages, nothing more.
package main

import (
	"fmt"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fmt.Fprintln(os.Stderr, "wsfs: no subcommands yet")
	return 2
}
