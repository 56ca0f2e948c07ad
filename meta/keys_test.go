package meta

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta/kv"
)

func TestKeys(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	db := openTestDB(t, nil) // on bbolt, then on etcd
	db.now = clock

	k, token, err := db.CreateKey(ctx, KeySpec{Name: "ci", Tenant: "Acme", Scope: ScopeRun, CreatedBy: "root"})
	if err != nil {
		t.Fatal(err)
	}
	if k.Tenant != "acme" || k.Scope != ScopeRun || !strings.HasPrefix(token, KeyPrefix+k.ID+"_") {
		t.Fatalf("key %+v, token %q", k, token)
	}
	got, err := db.Authenticate(ctx, token)
	if err != nil || got.ID != k.ID {
		t.Fatalf("Authenticate = %+v, %v", got, err)
	}
	// The secret is not stored: the record holds its hash only.
	if err := db.view(ctx, func(tx kv.Reader) error {
		v, err := tx.Get(bucketKeys, []byte(k.ID))
		if strings.Contains(string(v), token[len(KeyPrefix)+keyIDLen+1:]) {
			t.Error("the key record holds the secret")
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}

	for _, bad := range []string{"", "nonsense", token[:len(token)-1], token + "x", KeyPrefix + "0123456789ab_secret",
		strings.Replace(token, k.ID, strings.ToUpper(k.ID), 1)} {
		if _, err := db.Authenticate(ctx, bad); !errors.Is(err, ErrKeyRefused) {
			t.Errorf("Authenticate(%q) = %v, want ErrKeyRefused", bad, err)
		} else if strings.Contains(err.Error(), token[len(KeyPrefix)+keyIDLen+1:]) {
			t.Errorf("the refusal %q shows the secret", err)
		}
	}

	exp, etoken, err := db.CreateKey(ctx, KeySpec{Tenant: "acme", Workspace: "acme/one", Scope: ScopeRead, Expires: now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if !exp.Sees("acme/one") || exp.Sees("acme/two") || !k.Sees("acme/two") || k.Sees("acme2/x") {
		t.Error("Sees does not hold the tenant and workspace")
	}
	if _, err := db.Authenticate(ctx, etoken); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Hour)
	if _, err := db.Authenticate(ctx, etoken); !errors.Is(err, ErrKeyExpired) {
		t.Errorf("an expired key: %v", err)
	}
	if _, err := db.RevokeKey(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Authenticate(ctx, token); !errors.Is(err, ErrKeyRevoked) {
		t.Errorf("a revoked key: %v", err)
	}
	if r, err := db.RevokeKey(ctx, k.ID); err != nil || r.Revoked.IsZero() {
		t.Errorf("revoking again: %+v %v", r, err)
	}
	if _, err := db.RevokeKey(ctx, "000000000000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("revoking an unknown key: %v", err)
	}

	if _, _, err := db.CreateKey(ctx, KeySpec{Tenant: "other", Scope: ScopeAdmin}); err != nil {
		t.Fatal(err)
	}
	list, err := db.Keys(ctx, "acme")
	if err != nil || len(list) != 2 {
		t.Fatalf("Keys(acme) = %+v, %v", list, err)
	}
	for _, l := range list {
		if l.ID == k.ID && l.Revoked.IsZero() || l.Tenant != "acme" {
			t.Fatalf("Keys(acme) = %+v", list)
		}
	}
	if all, _ := db.Keys(ctx, ""); len(all) != 3 {
		t.Errorf("Keys() lists %d keys, want 3", len(all))
	}

	for _, spec := range []KeySpec{
		{Tenant: "", Scope: ScopeRead},
		{Tenant: "a/b", Scope: ScopeRead},
		{Tenant: "acme", Scope: "write"},
		{Tenant: "acme", Workspace: "other/x", Scope: ScopeRead},
		{Tenant: "acme", Scope: ScopeRead, Expires: now.Add(-time.Second)},
		{Tenant: "acme", Scope: ScopeRead, MaxRuns: -1},
	} {
		if _, _, err := db.CreateKey(ctx, spec); !errors.Is(err, ErrInvalid) {
			t.Errorf("CreateKey(%+v) = %v, want ErrInvalid", spec, err)
		}
	}
	if !ScopeAdmin.Allows(ScopeRun) || !ScopeRun.Allows(ScopeRead) || ScopeRead.Allows(ScopeRun) || KeyScope("").Allows(ScopeRead) {
		t.Error("scopes do not nest")
	}
}
