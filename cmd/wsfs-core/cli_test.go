package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGlobalFlagsBeforeVerb: --store and --home work before the verb as
// after it (issue 20, item 9).
func TestGlobalFlagsBeforeVerb(t *testing.T) {
	c := newCLI(t)
	other := t.TempDir()
	store := filepath.Join(t.TempDir(), "objects")
	c.ok("", "--home", other, "--store", "file://"+store, "create", "acme/g")
	if out := c.ok("", "--home="+other, "--store="+"file://"+store, "ls"); !strings.Contains(out, "acme/g") {
		t.Fatalf("ls before the verb:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(other, "meta.db")); err != nil {
		t.Fatalf("--home before the verb was not used: %v", err)
	}
	if _, err := os.Stat(filepath.Join(c.home, "meta.db")); err == nil {
		t.Fatal("the home of WSFS_HOME was used despite --home before the verb")
	}
	if out := c.ok("", "--home", other, "--store", "file://"+store, "version"); !strings.HasPrefix(out, "wsfs ") {
		t.Fatalf("version after global flags: %q", out)
	}
	c.fails(exitUsage, "unknown flag --frob before the command", "--frob", "ls")
	c.fails(exitUsage, "flag --store needs a value", "--store")
}

// TestUnknownFlagsAndVerbs: an unknown flag is named as such with the
// verb's usage; help of an unknown verb is an error; a mistyped verb gets
// the nearest one (issue 20, item 10).
func TestUnknownFlagsAndVerbs(t *testing.T) {
	c := newCLI(t)
	_, errs, code := c.run("", "log", "--frob", "acme/a")
	if code != exitUsage || !strings.Contains(errs, "wsfs log: unknown flag --frob\n") ||
		!strings.Contains(errs, "usage: wsfs log [--json]") || !strings.Contains(errs, "--limit N") {
		t.Fatalf("log --frob: exit %d\n%s", code, errs)
	}
	// A --json the verb does not know still asks for a JSON error.
	if out, _, code := c.run("", "output", "--json", strings.Repeat("a", 64)); code != exitUsage || !strings.Contains(out, `"message": "unknown flag --json`) {
		t.Fatalf("output --json: exit %d, %s", code, out)
	}
	c.fails(exitUsage, `flag --limit: "x" is not a valid value`, "log", "--limit", "x", "acme/a")
	c.fails(exitUsage, `no command "nope"`, "help", "nope")
	c.fails(exitUsage, `did you mean "log"?`, "lgo")
	c.fails(exitUsage, `did you mean "log"?`, "help", "lgo")
	c.fails(exitUsage, `did you mean "restore"?`, "restor")
	c.fails(exitUsage, `did you mean "fsck"?`, "fcsk")
	_, errs, _ = c.run("", "xyzzy")
	if !strings.Contains(errs, `unknown command "xyzzy"`) || strings.Contains(errs, "did you mean") {
		t.Fatalf("no suggestion expected for xyzzy: %q", errs)
	}
	if out := c.ok("", "help", "log"); !strings.Contains(out, "usage: wsfs log") {
		t.Fatalf("help log:\n%s", out)
	}
	if out := c.ok("", "help"); !strings.Contains(out, "commands:") {
		t.Fatalf("help:\n%s", out)
	}
}

// TestGCGraceZero: --grace 0s spares nothing, rather than meaning an hour
// (issue 20, item 6).
func TestGCGraceZero(t *testing.T) {
	c := newCLI(t)
	c.ok("", "create", "acme/g")
	c.ok("old content\n", "put", "acme/g", "f.txt")
	c.ok("new content\n", "put", "--force", "acme/g", "f.txt")
	c.ok("", "quota", "acme/g", "set", "keep-last=1")
	// The old content is unreached once retention drops revision 2, but
	// young: the default grace keeps it.
	if out := c.ok("", "gc", "--delete"); !strings.Contains(out, "deleted: 0 blobs") {
		t.Fatalf("gc --delete with the default grace:\n%s", out)
	}
	out := c.ok("", "gc", "--delete", "--grace", "0s")
	if !strings.Contains(out, "deleted: ") || strings.Contains(out, "deleted: 0 ") {
		t.Fatalf("gc --delete --grace 0s deleted nothing:\n%s", out)
	}
	if got := c.ok("", "cat", "acme/g", "f.txt"); got != "new content\n" {
		t.Fatalf("head after gc: %q", got)
	}
	c.ok("", "fsck")
	c.fails(exitUsage, "--grace must not be negative", "gc", "--grace", "-1s")
}
