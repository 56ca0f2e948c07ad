package meta

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/wsfs/wsfs/meta/kv"
)

// API keys: the credentials of the network API (wsfs serve). A key
// belongs to one tenant (and, optionally, one workspace of it) and has a
// scope. Its secret is shown once, when it is made; the database keeps
// only the secret's SHA-256, which a request's secret is compared with in
// constant time. The secret is 256 random bits, so a plain hash is enough
// (no password stretching: nothing guessable is hashed).
//
// Keys are records of the engine, so every server that shares an etcd
// cluster sees the same keys and revocations at once. They are not written
// to the object store: `wsfs recover` does not bring them back, and keys
// must be made again after a recovery (a revoked key can never come back
// to life that way).

// KeyScope is what a key may do. Each scope includes the ones before it.
type KeyScope string

const (
	// ScopeRead reads workspaces, files, history, outputs and live output.
	ScopeRead KeyScope = "read"
	// ScopeRun also runs commands and changes files (write, delete,
	// mkdir, restore, fork, a private workspace made on first use).
	ScopeRun KeyScope = "run"
	// ScopeAdmin also creates and deletes workspaces, changes quotas,
	// manages the tenant's keys, and runs gc and fsck.
	ScopeAdmin KeyScope = "admin"
)

// ParseKeyScope reads a scope name.
func ParseKeyScope(s string) (KeyScope, error) {
	switch KeyScope(strings.ToLower(s)) {
	case ScopeRead:
		return ScopeRead, nil
	case ScopeRun:
		return ScopeRun, nil
	case ScopeAdmin:
		return ScopeAdmin, nil
	}
	return "", fmt.Errorf("meta: key scope %q: %w: want read, run or admin", s, ErrInvalid)
}

func (s KeyScope) rank() int {
	switch s {
	case ScopeRead:
		return 1
	case ScopeRun:
		return 2
	case ScopeAdmin:
		return 3
	}
	return 0
}

// Allows reports whether a key of scope s may do what needs scope need.
func (s KeyScope) Allows(need KeyScope) bool { return s.rank() > 0 && s.rank() >= need.rank() }

// Key is an API key as listed: everything but its secret.
type Key struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
	// Tenant is the tenant the key sees; Workspace, when set, the one
	// workspace of it the key sees.
	Tenant    string    `json:"tenant"`
	Workspace string    `json:"workspace,omitempty"`
	Scope     KeyScope  `json:"scope"`
	Created   time.Time `json:"created"`
	CreatedBy string    `json:"created_by,omitempty"`
	Expires   time.Time `json:"expires,omitzero"`
	Revoked   time.Time `json:"revoked,omitzero"`
	// Rate (requests a second) and MaxRuns (commands queued or running
	// at once) override the server's limits for this key; 0 keeps them.
	Rate    float64 `json:"rate,omitempty"`
	MaxRuns int     `json:"max_runs,omitempty"`
}

// Sees reports whether the key reaches workspace ws (a valid name).
func (k Key) Sees(ws string) bool {
	if k.Workspace != "" {
		return ws == k.Workspace
	}
	return strings.HasPrefix(ws, k.Tenant+"/")
}

// WorkspaceNotFound is the error of a workspace that does not exist; the
// API answers it too for a workspace a key may not see, so that nothing
// tells the two apart.
func WorkspaceNotFound(name string) error {
	return fmt.Errorf("meta: workspace %s: %w (create it with `wsfs create %s`)", name, ErrNotFound, name)
}

// KeySpec is a key to make.
type KeySpec struct {
	Name      string
	Tenant    string
	Workspace string
	Scope     KeyScope
	Expires   time.Time // zero: never
	CreatedBy string
	Rate      float64
	MaxRuns   int
}

// keyRecord is a key as the engine keeps it.
type keyRecord struct {
	Key
	Hash string `json:"hash"` // hex SHA-256 of the secret
}

// bucketKeys holds one record per API key, by ID (see schema.go).
var bucketKeys = kv.B("keys")

// KeyPrefix starts every key's token: "wsfs_<id>_<secret>".
const KeyPrefix = "wsfs_"

// keyIDLen is the length of a key's ID (hex).
const keyIDLen = 12

// Errors of Authenticate. Each wraps ErrKeyRefused.
var (
	// ErrKeyRefused is the class of every refused key.
	ErrKeyRefused = errors.New("key refused")
	ErrKeyExpired = fmt.Errorf("%w: expired", ErrKeyRefused)
	ErrKeyRevoked = fmt.Errorf("%w: revoked", ErrKeyRefused)
)

// ParseTenant checks a tenant name (one part of a workspace name) and
// returns it in lower case.
func ParseTenant(s string) (string, error) {
	lower := strings.ToLower(s)
	if err := checkNamePart(lower); err != nil {
		return "", fmt.Errorf("meta: tenant %q: %w: %s", s, ErrInvalid, err)
	}
	return lower, nil
}

// CreateKey makes a key and returns it with its token, the only time the
// secret is seen: the database keeps its hash.
func (db *DB) CreateKey(ctx context.Context, spec KeySpec) (Key, string, error) {
	tenant, err := ParseTenant(spec.Tenant)
	if err != nil {
		return Key{}, "", err
	}
	if _, err := ParseKeyScope(string(spec.Scope)); err != nil {
		return Key{}, "", err
	}
	ws := ""
	if spec.Workspace != "" {
		if ws, err = ParseWorkspace(spec.Workspace); err != nil {
			return Key{}, "", err
		}
		if !strings.HasPrefix(ws, tenant+"/") {
			return Key{}, "", fmt.Errorf("meta: key for %s: %w: the workspace must belong to the key's tenant %s", ws, ErrInvalid, tenant)
		}
	}
	now := db.now().UTC()
	if !spec.Expires.IsZero() && !spec.Expires.After(now) {
		return Key{}, "", fmt.Errorf("meta: key: %w: it would expire at %s, which is past", ErrInvalid, spec.Expires.UTC().Format(time.RFC3339))
	}
	if spec.Rate < 0 || spec.MaxRuns < 0 {
		return Key{}, "", fmt.Errorf("meta: key: %w: a rate or run limit must be 0 (the server's) or more", ErrInvalid)
	}
	if len(spec.Name) > 200 {
		return Key{}, "", fmt.Errorf("meta: key: %w: a name of %d bytes, the most is 200", ErrInvalid, len(spec.Name))
	}
	var idb [keyIDLen / 2]byte
	var secret [32]byte
	_, _ = rand.Read(idb[:])
	_, _ = rand.Read(secret[:])
	k := Key{ID: hex.EncodeToString(idb[:]), Name: spec.Name, Tenant: tenant, Workspace: ws, Scope: KeyScope(strings.ToLower(string(spec.Scope))),
		Created: now, CreatedBy: spec.CreatedBy, Rate: spec.Rate, MaxRuns: spec.MaxRuns}
	if !spec.Expires.IsZero() {
		k.Expires = spec.Expires.UTC()
	}
	sec := base64.RawURLEncoding.EncodeToString(secret[:])
	sum := sha256.Sum256([]byte(sec))
	rec, err := json.Marshal(keyRecord{Key: k, Hash: hex.EncodeToString(sum[:])})
	if err != nil {
		return Key{}, "", fmt.Errorf("meta: key: %w", err)
	}
	err = db.update(ctx, func(tx kv.Txn) error {
		if v, err := tx.Get(bucketKeys, []byte(k.ID)); err != nil {
			return err
		} else if v != nil {
			return fmt.Errorf("meta: key %s: %w", k.ID, ErrExists)
		}
		return tx.Put(bucketKeys, []byte(k.ID), rec)
	})
	if err != nil {
		return Key{}, "", err
	}
	return k, KeyPrefix + k.ID + "_" + sec, nil
}

// Keys lists the keys of tenant ("" for every tenant's), revoked ones
// included, by tenant then creation time.
func (db *DB) Keys(ctx context.Context, tenant string) ([]Key, error) {
	if tenant != "" {
		t, err := ParseTenant(tenant)
		if err != nil {
			return nil, err
		}
		tenant = t
	}
	var out []Key
	err := db.view(ctx, func(tx kv.Reader) error {
		return tx.Scan(bucketKeys, kv.ScanOptions{}, func(k, v []byte) error {
			rec, err := db.decodeKey(k, v)
			if err != nil {
				return err
			}
			if tenant == "" || rec.Tenant == tenant {
				out = append(out, rec.Key)
			}
			return nil
		})
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].Tenant != out[j].Tenant {
			return out[i].Tenant < out[j].Tenant
		}
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].ID < out[j].ID
	})
	return out, err
}

// GetKey returns the key with this ID (ErrNotFound when there is none).
func (db *DB) GetKey(ctx context.Context, id string) (Key, error) {
	var rec keyRecord
	err := db.view(ctx, func(tx kv.Reader) error {
		r, err := db.getKey(tx, id)
		rec = r
		return err
	})
	return rec.Key, err
}

func (db *DB) getKey(tx kv.Reader, id string) (keyRecord, error) {
	if !validKeyID(id) {
		return keyRecord{}, fmt.Errorf("meta: key %q: %w: a key ID is %d hex digits (wsfs key ls lists them)", id, ErrNotFound, keyIDLen)
	}
	v, err := tx.Get(bucketKeys, []byte(id))
	if err != nil {
		return keyRecord{}, err
	}
	if v == nil {
		return keyRecord{}, fmt.Errorf("meta: key %s: %w", id, ErrNotFound)
	}
	return db.decodeKey([]byte(id), v)
}

func (db *DB) decodeKey(k, v []byte) (keyRecord, error) {
	var rec keyRecord
	if err := json.Unmarshal(v, &rec); err != nil {
		return rec, corruptf(db.where, "key record %q: %v", k, err)
	}
	return rec, nil
}

func validKeyID(id string) bool {
	if len(id) != keyIDLen {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil && strings.ToLower(id) == id
}

// RevokeKey revokes a key at once: every request it makes from then on is
// refused. The record stays (wsfs key ls shows when it was revoked).
// Revoking a revoked key changes nothing.
func (db *DB) RevokeKey(ctx context.Context, id string) (Key, error) {
	var out Key
	err := db.update(ctx, func(tx kv.Txn) error {
		rec, err := db.getKey(tx, id)
		if err != nil {
			return err
		}
		if rec.Revoked.IsZero() {
			rec.Revoked = db.now().UTC()
			b, err := json.Marshal(rec)
			if err != nil {
				return err
			}
			if err := tx.Put(bucketKeys, []byte(id), b); err != nil {
				return err
			}
		}
		out = rec.Key
		return nil
	})
	return out, err
}

// Authenticate returns the key a token ("wsfs_<id>_<secret>") names, if
// its secret matches (compared in constant time), it is not revoked and it
// has not expired. Every refusal wraps ErrKeyRefused; its message says
// which key and what to do, never the secret.
func (db *DB) Authenticate(ctx context.Context, token string) (Key, error) {
	rest, ok := strings.CutPrefix(token, KeyPrefix)
	if !ok || len(rest) < keyIDLen+2 || rest[keyIDLen] != '_' || !validKeyID(rest[:keyIDLen]) {
		return Key{}, fmt.Errorf("%w: this is not a wsfs key (a key reads wsfs_<id>_<secret>, as wsfs key create prints it)", ErrKeyRefused)
	}
	id, secret := rest[:keyIDLen], rest[keyIDLen+1:]
	var rec keyRecord
	err := db.view(ctx, func(tx kv.Reader) error {
		r, err := db.getKey(tx, id)
		rec = r
		return err
	})
	if errors.Is(err, ErrNotFound) {
		return Key{}, fmt.Errorf("%w: no key %s (it was never made here, or the database was recovered: make one with wsfs key create)", ErrKeyRefused, id)
	}
	if err != nil {
		return Key{}, err
	}
	want, err := hex.DecodeString(rec.Hash)
	if err != nil {
		return Key{}, corruptf(db.where, "key record %s: bad hash", id)
	}
	got := sha256.Sum256([]byte(secret))
	if subtle.ConstantTimeCompare(got[:], want) != 1 {
		return Key{}, fmt.Errorf("%w: the secret of key %s does not match (copy the whole key as wsfs key create printed it)", ErrKeyRefused, id)
	}
	now := db.now()
	switch {
	case !rec.Revoked.IsZero():
		return Key{}, fmt.Errorf("%w: key %s was revoked at %s; ask for a new one (wsfs key create)", ErrKeyRevoked, id, rec.Revoked.Format(time.RFC3339))
	case !rec.Expires.IsZero() && !now.Before(rec.Expires):
		return Key{}, fmt.Errorf("%w: key %s expired at %s; ask for a new one (wsfs key create)", ErrKeyExpired, id, rec.Expires.Format(time.RFC3339))
	}
	return rec.Key, nil
}
