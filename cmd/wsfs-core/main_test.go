package main

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cli runs wsfs in-process with its own state folder.
type cli struct {
	t    *testing.T
	home string
}

func newCLI(t *testing.T) *cli {
	home := t.TempDir()
	t.Setenv("WSFS_HOME", home)
	t.Setenv("WSFS_STORE", "")
	return &cli{t: t, home: home}
}

func (c *cli) run(stdin string, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

func (c *cli) ok(stdin string, args ...string) string {
	c.t.Helper()
	out, errs, code := c.run(stdin, args...)
	if code != 0 {
		c.t.Fatalf("wsfs %s: exit %d\n%s", strings.Join(args, " "), code, errs)
	}
	return out
}

func (c *cli) fails(wantCode int, wantErr string, args ...string) {
	c.t.Helper()
	_, errs, code := c.run("", args...)
	if code != wantCode || !strings.Contains(errs, wantErr) {
		c.t.Fatalf("wsfs %s: exit %d, stderr %q; want exit %d and %q", strings.Join(args, " "), code, errs, wantCode, wantErr)
	}
}

func TestHistoryVerbs(t *testing.T) {
	c := newCLI(t)
	c.fails(exitUsage, "names are lower case (a-z, 0-9, '.', '_', '-'): use acme/demo", "create", "Acme/Demo")
	c.ok("", "create", "acme/demo")
	c.ok("name,score\nAlpha,8\n", "put", "acme/demo", "reports/scores.csv")
	c.fails(exitFailure, "--force", "put", "acme/demo", "reports/scores.csv")
	c.ok("name,score\nAlpha,9\n", "put", "--force", "acme/demo", "reports/scores.csv")

	var revs []struct {
		N       int    `json:"n"`
		Command string `json:"command"`
	}
	if err := json.Unmarshal([]byte(c.ok("", "log", "acme/demo", "--json")), &revs); err != nil {
		t.Fatal(err)
	}
	if len(revs) != 3 || revs[0].N != 3 || !strings.Contains(revs[0].Command, "--force") {
		t.Fatalf("log: %+v", revs)
	}
	if got := c.ok("", "cat", "acme/demo@2", "reports/scores.csv"); got != "name,score\nAlpha,8\n" {
		t.Fatalf("cat @2 = %q", got)
	}
	diff := c.ok("", "diff", "acme/demo@2", "acme/demo@3")
	if !strings.Contains(diff, "-Alpha,8") || !strings.Contains(diff, "+Alpha,9") {
		t.Fatalf("diff:\n%s", diff)
	}
	if show := c.ok("", "show", "acme/demo@2"); !strings.Contains(show, "added") || !strings.Contains(show, "reports/scores.csv") {
		t.Fatalf("show:\n%s", show)
	}
	c.ok("", "restore", "acme/demo@2")
	if got := c.ok("", "cat", "acme/demo", "reports/scores.csv"); got != "name,score\nAlpha,8\n" {
		t.Fatalf("after restore: %q", got)
	}
	c.ok("", "fork", "acme/demo@3", "acme/copy")
	if got := c.ok("", "cat", "acme/copy", "reports/scores.csv"); got != "name,score\nAlpha,9\n" {
		t.Fatalf("fork: %q", got)
	}

	// export → import round trip into a fresh workspace.
	tarball := c.ok("", "export", "acme/demo@3")
	tr := tar.NewReader(strings.NewReader(tarball))
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
	}
	if strings.Join(names, " ") != "reports/ reports/scores.csv" {
		t.Fatalf("export lists %v", names)
	}
	c.ok("", "create", "acme/imported")
	c.ok(tarball, "import", "acme/imported", "-")
	if got := c.ok("", "cat", "acme/imported", "reports/scores.csv"); got != "name,score\nAlpha,9\n" {
		t.Fatalf("import: %q", got)
	}

	c.ok("", "quota", "acme/demo", "set", "entries=3", "keep-last=2")
	c.fails(exitFailure, "quota", "put", "acme/demo", "reports/more.csv")
	c.fails(exitUsage, "unknown key", "quota", "acme/demo", "set", "nonsense=1")
	if out := c.ok("", "fsck"); !strings.Contains(out, "no problems") {
		t.Fatalf("fsck:\n%s", out)
	}
	if out := c.ok("", "gc"); !strings.Contains(out, "dry run") {
		t.Fatalf("gc:\n%s", out)
	}
	c.ok("", "rm", "acme/copy")
	c.fails(exitNotFound, "not found", "log", "acme/copy")
}

func TestBadInput(t *testing.T) {
	c := newCLI(t)
	c.fails(exitUsage, "unknown command", "frobnicate")
	c.fails(exitUsage, "invalid", "create", "bad name")
	c.fails(exitUsage, "takes one workspace name", "create")
	c.fails(exitUsage, "-nosuchflag", "log", "-nosuchflag", "acme/a")
	c.fails(exitNotFound, "not found", "log", "acme/missing")
	c.ok("", "create", "acme/a")
	c.fails(exitNotFound, "revision 9", "cat", "acme/a@9", "x")
	c.fails(exitUsage, "REV", "restore", "acme/a")

	// A tar that climbs out of the workspace is refused and commits nothing.
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: "../escape.txt", Mode: 0o644, Size: 1, Typeflag: tar.TypeReg})
	tw.Write([]byte("x"))
	tw.Close()
	bad := filepath.Join(t.TempDir(), "bad.tar")
	if err := os.WriteFile(bad, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := c.run("", "import", "acme/a", bad)
	if code == 0 || !strings.Contains(errs, "..") {
		t.Fatalf("import of ../ tar: exit %d, %q", code, errs)
	}
	if out := c.ok("", "log", "acme/a"); strings.Count(out, "\n") != 2 {
		t.Fatalf("a refused import committed something:\n%s", out)
	}

	// A malformed store URL names the URL and exits non-zero.
	_, errs, code = c.run("", "ls", "--store", "s4://nope")
	if code == 0 || !strings.Contains(errs, "s4://nope") {
		t.Fatalf("bad store: exit %d, %q", code, errs)
	}
	// A corrupt meta.db is reported with the next step, never rewritten.
	dbPath := filepath.Join(c.home, "meta.db")
	junk := bytes.Repeat([]byte("junk"), 4096)
	if err := os.WriteFile(dbPath, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	_, errs, code = c.run("", "ls")
	if code == 0 || !strings.Contains(errs, "recover") {
		t.Fatalf("corrupt db: exit %d, %q", code, errs)
	}
	if b, _ := os.ReadFile(dbPath); !bytes.Equal(b, junk) {
		t.Fatal("the corrupt meta.db was rewritten")
	}
}

// TestJSONErrors: with --json, every verb's failure is JSON on stdout,
// {"error": {"code", "message", "exit"}}, with the exit status it gives.
func TestJSONErrors(t *testing.T) {
	c := newCLI(t)
	c.ok("", "create", "acme/a")
	for _, tc := range []struct {
		args []string
		code string
		exit int
		msg  string
	}{
		{[]string{"log", "--json", "acme/missing"}, "not_found", exitNotFound, "acme/missing"},
		{[]string{"show", "--json", "acme/a@9"}, "not_found", exitNotFound, "revision 9"},
		{[]string{"create", "--json", "bad name"}, "invalid", exitUsage, "bad name"},
		{[]string{"ls", "--json", "a", "b"}, "invalid", exitUsage, "usage: wsfs ls"},
		{[]string{"log", "--json", "--bogus", "acme/a"}, "invalid", exitUsage, "-bogus"},
		{[]string{"create", "--json", "acme/a"}, "exists", exitFailure, "acme/a"},
		{[]string{"quota", "--json", "acme/a", "set", "entries=-1"}, "invalid", exitUsage, "entries"},
		{[]string{"ps", "--json", "extra"}, "invalid", exitUsage, "takes no arguments"},
	} {
		out, errs, code := c.run("", tc.args...)
		var got struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
				Exit    int    `json:"exit"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || code != tc.exit || got.Error.Code != tc.code ||
			got.Error.Exit != tc.exit || !strings.Contains(got.Error.Message, tc.msg) || errs != "" {
			t.Errorf("wsfs %q: exit %d stdout %q stderr %q (%v), want %s, exit %d, %q", tc.args, code, out, errs, err, tc.code, tc.exit, tc.msg)
		}
	}
}

func TestRecoverVerb(t *testing.T) {
	c := newCLI(t)
	c.ok("", "create", "acme/r")
	c.ok("one\n", "put", "acme/r", "a.txt")
	c.ok("two\n", "put", "--force", "acme/r", "a.txt")
	c.fails(exitFailure, "move it aside", "recover")
	if err := os.Rename(filepath.Join(c.home, "meta.db"), filepath.Join(c.home, "meta.db.bad")); err != nil {
		t.Fatal(err)
	}
	c.ok("", "recover")
	if got := c.ok("", "cat", "acme/r@2", "a.txt"); got != "one\n" {
		t.Fatalf("after recover @2: %q", got)
	}
	if got := c.ok("", "cat", "acme/r", "a.txt"); got != "two\n" {
		t.Fatalf("after recover head: %q", got)
	}
	c.ok("", "fsck")
}
