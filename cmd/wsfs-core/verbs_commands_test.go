package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner"
)

func TestCommandsVerb(t *testing.T) {
	c := newCLI(t)
	var list []commandInfo
	if err := json.Unmarshal([]byte(c.ok("", "commands", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	specs := runner.CommandSpecs()
	if len(list) != len(specs) {
		t.Fatalf("--json lists %d commands, the runner has %d", len(list), len(specs))
	}
	seen := map[string]commandInfo{}
	for _, ci := range list {
		if ci.Summary == "" || ci.Flags == nil {
			t.Errorf("%s: summary %q, flags %v: every command needs a summary and a flags list", ci.Name, ci.Summary, ci.Flags)
		}
		seen[ci.Name] = ci
	}
	for _, n := range []string{"ls", "grep", "sed", "awk", "jq", "expr", "file", "history", "mktemp", "sqlite3", "yq", "cmp", "xxd", "shuf", "iconv", "bc", "zip", "unzip", "patch"} {
		if _, ok := seen[n]; !ok {
			t.Errorf("%s is missing from wsfs commands --json", n)
		}
	}
	if f := seen["grep"].Flags; !slices.Contains(f, "-i, --ignore-case") {
		t.Errorf("grep's flags %v lack -i, --ignore-case", f)
	}

	table := c.ok("", "commands")
	for _, line := range []string{"NAME", "expr", "mktemp"} {
		if !strings.Contains(table, "\n"+line) && !strings.HasPrefix(table, line) {
			t.Errorf("the table has no line for %s:\n%s", line, table)
		}
	}
	one := c.ok("", "commands", "truncate")
	if !strings.Contains(one, "flags: -c, --no-create") || strings.Contains(one, "\nls") {
		t.Errorf("wsfs commands truncate:\n%s", one)
	}
	c.fails(exitUsage, "not a wsfs run command", "commands", "nosuch")
}
