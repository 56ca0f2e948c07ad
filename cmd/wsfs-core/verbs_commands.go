package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/wsfs/wsfs/runner"
)

func init() {
	register(&verb{name: "commands", args: "[--json] [NAME...]",
		summary: "list the commands wsfs run offers, with their flags (--json for an agent harness's tool description)", run: runCommands})
}

// commandInfo is one runner command as `wsfs commands --json` prints it.
type commandInfo struct {
	Name    string   `json:"name"`
	Summary string   `json:"summary"`
	Flags   []string `json:"flags"`
}

func runCommands(_ context.Context, a *app, args []string) error {
	v := verbs["commands"]
	fs := newFlags(a, v, nil)
	asJSON := fs.Bool("json", false, "print a JSON array of {name, summary, flags}")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	specs := runner.CommandSpecs()
	byName := make(map[string]int, len(specs))
	for i, s := range specs {
		byName[s.Name] = i
	}
	var list []commandInfo
	if fs.NArg() == 0 {
		for _, s := range specs {
			list = append(list, commandInfo{s.Name, s.Summary, s.Flags})
		}
	}
	for _, n := range fs.Args() {
		i, ok := byName[n]
		if !ok {
			return usagef("%q is not a wsfs run command; wsfs commands lists them", n)
		}
		list = append(list, commandInfo{specs[i].Name, specs[i].Summary, specs[i].Flags})
	}
	for i := range list {
		if list[i].Flags == nil {
			list[i].Flags = []string{} // "takes no flags", not "unknown"
		}
	}
	if fs.NArg() == 0 {
		sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	}
	if *asJSON {
		// Flags such as "<" and "&" read better unescaped.
		enc := json.NewEncoder(a.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	tw := newTable(a.stdout)
	fmt.Fprintln(tw, "NAME\tSUMMARY")
	for _, c := range list {
		fmt.Fprintf(tw, "%s\t%s\n", c.Name, c.Summary)
		if fs.NArg() > 0 && len(c.Flags) > 0 {
			fmt.Fprintf(tw, "\tflags: %s\n", strings.Join(c.Flags, "  "))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(a.stdout, "\nShell builtins (cd, echo, printf, read, test, export …) work too; wsfs commands NAME shows a command's flags.")
	}
	return nil
}
