package main

import (
	"context"
	"fmt"
	"runtime/debug"
)

func init() {
	register(&verb{name: "version", summary: "print the wsfs version", run: runVersion})
}

func runVersion(_ context.Context, a *app, args []string) error {
	v := verbs["version"]
	fs := newFlags(a, v, nil)
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("takes no arguments")
	}
	fmt.Fprintf(a.stdout, "wsfs %s\n", versionString())
	return nil
}

// versionString is the module version and VCS revision of this binary.
func versionString() string {
	version := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				version += " " + s.Value[:12]
			}
		}
	}
	return version
}
