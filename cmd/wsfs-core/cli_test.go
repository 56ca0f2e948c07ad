package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestVersionStamped: make build's -X flags reach wsfs version (issue 20,
// item 12).
func TestVersionStamped(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "wsfs-core")
	if out, err := exec.Command("go", "build", "-ldflags", "-X main.version=v9.9.9-test -X main.commit=0123456789abcdef0123", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "wsfs v9.9.9-test, commit 0123456789ab (go1.") {
		t.Fatalf("wsfs version: %q %v", out, err)
	}
	c := newCLI(t)
	if out := c.ok("", "version"); !strings.HasPrefix(out, "wsfs ") || strings.Contains(out, "(devel)") {
		t.Fatalf("unstamped version: %q", out)
	}
}

// TestSizesAndUpdated: sizes under 1 KiB keep their unit, and ls's
// UPDATED is the head revision's time, not the settings' (issue 20, item
// 12).
func TestSizesAndUpdated(t *testing.T) {
	c := newCLI(t)
	c.ok("", "create", "acme/s")
	c.ok("abc\n", "put", "acme/s", "f.txt")
	if out := c.ok("", "show", "acme/s"); !strings.Contains(out, "(1 files, 0 dirs, 0 symlinks, 4 B)") {
		t.Fatalf("show:\n%s", out)
	}
	if out := c.ok("", "gc"); !strings.Contains(out, "garbage: 0 blobs and packs, 0 B") {
		t.Fatalf("gc:\n%s", out)
	}
	var revs []struct {
		Time time.Time `json:"time"`
	}
	if err := json.Unmarshal([]byte(c.ok("", "log", "--json", "acme/s")), &revs); err != nil || len(revs) != 2 {
		t.Fatalf("log: %v %v", revs, err)
	}
	c.ok("", "quota", "acme/s", "set", "keep-for=9999h")
	var list []struct {
		HeadTime time.Time `json:"head_time"`
		Updated  time.Time `json:"updated"`
	}
	if err := json.Unmarshal([]byte(c.ok("", "ls", "--json")), &list); err != nil || len(list) != 1 {
		t.Fatalf("ls --json: %v %v", list, err)
	}
	if !list[0].HeadTime.Equal(revs[0].Time) || !list[0].Updated.After(revs[0].Time) {
		t.Fatalf("head_time %s updated %s, want the head revision's time %s", list[0].HeadTime, list[0].Updated, revs[0].Time)
	}
	if out := c.ok("", "ls"); !strings.Contains(out, "4 B") || !strings.Contains(out, shortTime(revs[0].Time)) {
		t.Fatalf("ls:\n%s", out)
	}
}
