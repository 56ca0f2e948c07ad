package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// damageContent flips a byte of content where the folder store under home
// holds it (in a pack or a blob of its own), as a disk fault would, and
// returns the file it damaged.
func damageContent(t *testing.T, home, content string) string {
	t.Helper()
	var hit string
	err := filepath.WalkDir(filepath.Join(home, "objects", "blobs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || hit != "" {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if i := bytes.Index(b, []byte(content)); i >= 0 {
			b[i+len(content)/2] ^= 0x20
			os.Chmod(p, 0o644)
			hit = p
			return os.WriteFile(p, b, 0o444)
		}
		return nil
	})
	if err != nil || hit == "" {
		t.Fatalf("the content %q is nowhere in the store (%v)", content, err)
	}
	return hit
}

// TestWriteAgainHeals is issue 20's first item: a byte flipped in the
// store, then the same content written again (wsfs put --force): both
// files read well and fsck is clean. Before, the folder store kept the
// damaged copy and the new file was unreadable too.
func TestWriteAgainHeals(t *testing.T) {
	c := newCLI(t)
	const good = "name,score\nAlpha,8\nBeta,9\n"
	c.ok("", "create", "acme/heal")
	c.ok(good, "put", "acme/heal", "data.csv")
	damageContent(t, c.home, good)
	if _, errs, code := c.run("", "cat", "acme/heal", "data.csv"); code == 0 || !strings.Contains(errs, "fsck --repair") {
		t.Fatalf("cat of a damaged file: exit %d, %q; want a failure that names wsfs fsck --repair", code, errs)
	}
	if _, _, code := c.run("", "fsck"); code != exitFailure {
		t.Fatalf("fsck of a damaged store: exit %d, want %d", code, exitFailure)
	}
	c.ok(good, "put", "--force", "acme/heal", "new.csv")
	for _, p := range []string{"data.csv", "new.csv"} {
		if got := c.ok("", "cat", "acme/heal", p); got != good {
			t.Fatalf("%s after writing the content again: %q", p, got)
		}
	}
	c.ok("", "fsck")
}

// TestFsckRepair: a damaged file with a good copy in another store (a
// copy of the folder from before) is healed by fsck --repair --from; one
// with no copy anywhere is listed with the revisions it breaks.
func TestFsckRepair(t *testing.T) {
	c := newCLI(t)
	c.ok("", "create", "acme/fix")
	const kept, lost = "kept safe elsewhere\n", "written after the copy\n"
	c.ok(kept, "put", "acme/fix", "kept.txt")
	backup := filepath.Join(t.TempDir(), "backup")
	if err := os.CopyFS(backup, os.DirFS(filepath.Join(c.home, "objects"))); err != nil {
		t.Fatal(err)
	}
	c.ok(lost, "put", "acme/fix", "lost.txt")
	c.ok("more\n", "put", "acme/fix", "more.txt")
	damageContent(t, c.home, kept)
	damageContent(t, c.home, lost)

	c.fails(exitUsage, "--repair", "fsck", "--from", "file://"+backup)
	out, _, code := c.run("", "fsck", "--repair", "--from", "file://"+backup)
	if code != exitFailure {
		t.Fatalf("fsck --repair with one file beyond repair: exit %d\n%s", code, out)
	}
	for _, want := range []string{"object index rebuilt", "repaired: blob-corrupt", "written again from folder store " + backup,
		"1 damaged or missing objects", "lost.txt", "acme/fix@3 acme/fix@4"} {
		if !strings.Contains(out, want) {
			t.Errorf("fsck --repair output lacks %q:\n%s", want, out)
		}
	}
	if got := c.ok("", "cat", "acme/fix", "kept.txt"); got != kept {
		t.Fatalf("kept.txt after repair: %q", got)
	}
	var rep struct {
		Damaged []struct {
			Revisions []string `json:"revisions"`
		} `json:"damaged"`
	}
	js, _, _ := c.run("", "fsck", "--json")
	if err := json.Unmarshal([]byte(js), &rep); err != nil || len(rep.Damaged) != 1 || len(rep.Damaged[0].Revisions) != 2 {
		t.Fatalf("fsck --json after repair: %v %+v\n%s", err, rep, js)
	}
	// Written again, the lost file heals too.
	c.ok(lost, "put", "--force", "acme/fix", "lost.txt")
	if out, _, code := c.run("", "fsck"); code != 0 {
		t.Fatalf("fsck after writing the lost file again: exit %d\n%s", code, out)
	}
}
