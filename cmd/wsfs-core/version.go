package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

func init() {
	register(&verb{name: "version", summary: "print the wsfs version, its commit and the Go it was built with", run: runVersion})
}

// version and commit are stamped at build time (make build: -ldflags
// "-X main.version=$(git describe) -X main.commit=$(git rev-parse HEAD)").
// Without them the version comes from the Go build information.
var version, commit string

func runVersion(_ context.Context, a *app, args []string) error {
	v := verbs["version"]
	fs := newFlags(a, v, nil)
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("takes no arguments")
	}
	fmt.Fprintf(a.stdout, "wsfs %s (%s)\n", versionString(), runtime.Version())
	return nil
}

// versionString is this binary's version and commit: as stamped at build
// time, else as the Go build information has them ("devel" and the VCS
// revision for a go build in a checkout).
func versionString() string {
	v, c, modified := version, commit, false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && c == "":
				c = s.Value
			case s.Key == "vcs.modified" && commit == "":
				modified = s.Value == "true"
			}
		}
	}
	if v == "" {
		v = "devel"
	}
	if c == "" {
		return v
	}
	if len(c) > 12 {
		c = c[:12]
	}
	if modified {
		c += ", modified"
	}
	return fmt.Sprintf("%s, commit %s", v, c)
}
