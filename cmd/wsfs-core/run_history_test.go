package main

import "testing"

// TestRunHistoryThroughServer: `history` in wsfs run lists the commands
// the workspace's revisions recorded, and this one.
func TestRunHistoryThroughServer(t *testing.T) {
	requireFUSE(t)
	home := noServerHome(t)
	mustOK(t, home, "", "create", "acme/h")
	mustOK(t, home, "", "run", "-w", "acme/h", "mkdir src")
	mustOK(t, home, "", "run", "-w", "acme/h", "ls") // changes nothing: no revision
	mustOK(t, home, "", "run", "-w", "acme/h", "touch src/a")
	want := "    1  mkdir src\n    2  touch src/a\n    3  history; hostname; whoami\nwsfs\nagent\n"
	if out := mustOK(t, home, "", "run", "-w", "acme/h", "history; hostname; whoami"); out != want {
		t.Fatalf("history printed %q, want %q", out, want)
	}
}
