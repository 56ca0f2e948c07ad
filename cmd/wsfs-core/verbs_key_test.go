package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestKeyVerbs(t *testing.T) {
	c := newCLI(t)
	secret, errs, code := c.run("", "key", "create", "--tenant", "Acme", "--scope", "run", "--name", "ci", "--expires", "30d")
	if code != 0 || !strings.HasPrefix(secret, "wsfs_") || strings.Count(secret, "\n") != 1 || !strings.Contains(errs, "shown this once") {
		t.Fatalf("key create: exit %d, stdout %q, stderr %q", code, secret, errs)
	}
	var made struct {
		ID, Tenant, Workspace, Scope, Secret string
		Expires                              time.Time
	}
	if err := json.Unmarshal([]byte(c.ok("", "key", "create", "--tenant", "acme", "--workspace", "acme/one", "--scope", "read", "--json")), &made); err != nil {
		t.Fatal(err)
	}
	if made.Workspace != "acme/one" || made.Scope != "read" || !strings.HasPrefix(made.Secret, "wsfs_"+made.ID+"_") || !made.Expires.IsZero() {
		t.Fatalf("key create --json: %+v", made)
	}
	ls := c.ok("", "key", "ls")
	if !strings.Contains(ls, made.ID) || !strings.Contains(ls, "acme/one") || strings.Contains(ls, made.Secret) || strings.Contains(ls, strings.TrimSpace(secret)) {
		t.Fatalf("key ls:\n%s", ls)
	}
	if out := c.ok("", "key", "revoke", made.ID); !strings.Contains(out, "revoked key "+made.ID) {
		t.Fatalf("key revoke: %q", out)
	}
	if ls := c.ok("", "key", "ls", "--tenant", "acme"); !strings.Contains(ls, "revoked") {
		t.Fatalf("key ls after revoke:\n%s", ls)
	}
	c.fails(exitUsage, "--scope is required", "key", "create", "--tenant", "acme")
	c.fails(exitUsage, "want read, run or admin", "key", "create", "--tenant", "acme", "--scope", "write")
	c.fails(exitUsage, "--expires", "key", "create", "--tenant", "acme", "--scope", "read", "--expires", "yesterday")
	c.fails(exitUsage, "must belong to the key's tenant", "key", "create", "--tenant", "acme", "--workspace", "other/x", "--scope", "read")
	c.fails(exitNotFound, "000000000000", "key", "revoke", "000000000000")
	c.fails(exitUsage, "unknown action", "key", "make")
}

func TestParseExpiry(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"90d": now.Add(90 * 24 * time.Hour), "1w": now.Add(7 * 24 * time.Hour), "12h": now.Add(12 * time.Hour),
		"2026-12-31T18:00:00Z": time.Date(2026, 12, 31, 18, 0, 0, 0, time.UTC),
	} {
		got, err := parseExpiry(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseExpiry(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"-1h", "0d", "2020-01-01", "soon"} {
		if _, err := parseExpiry(bad, now); err == nil {
			t.Errorf("parseExpiry(%q) accepted it", bad)
		}
	}
}
