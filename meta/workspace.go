package meta

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wsfs/wsfs/meta/kv"

	"github.com/wsfs/wsfs/objects"
)

// WorkspaceKind says who may use a workspace; the server checks it.
type WorkspaceKind string

// Workspace kinds.
const (
	Private WorkspaceKind = "private" // only its owner
	Shared  WorkspaceKind = "shared"  // every member of its tenant
)

// Quotas are a workspace's limits: the storage quotas that every write
// path enforces (meta on commits, fusefs on the mount), and the runner's
// per-command limits, kept here so they can differ per workspace.
type Quotas struct {
	MaxEntries        int64 `json:"max_entries"`         // files, dirs and symlinks, the root included
	MaxFileBytes      int64 `json:"max_file_bytes"`      // one file's size
	MaxWorkspaceBytes int64 `json:"max_workspace_bytes"` // sum of file sizes
	MaxPathComponents int64 `json:"max_path_components"` // "a/b/c" has 3
	MaxPathBytes      int64 `json:"max_path_bytes"`      // length of the workspace-relative path
	MaxSymlinkTarget  int64 `json:"max_symlink_target"`  // bytes of a symlink's target

	WallTime          time.Duration `json:"wall_time_ns"`        // one command's wall time
	MaxOutputBytes    int64         `json:"max_output_bytes"`    // stdout and stderr tail kept in a result
	JSTime            time.Duration `json:"js_time_ns"`          // js-exec CPU/wall time
	JSMemoryBytes     int64         `json:"js_memory_bytes"`     // js-exec memory
	MaxVisibleEntries int64         `json:"max_visible_entries"` // workspace + scratch entries during a command
}

// DefaultQuotas returns the defaults of the design (those of the product
// wsfs replaces).
func DefaultQuotas() Quotas {
	return Quotas{
		MaxEntries:        200,
		MaxFileBytes:      256 << 10,
		MaxWorkspaceBytes: 5 << 20,
		MaxPathComponents: 32,
		MaxPathBytes:      1024,
		MaxSymlinkTarget:  1024,
		WallTime:          15 * time.Second,
		MaxOutputBytes:    128 << 10,
		JSTime:            5 * time.Second,
		JSMemoryBytes:     64 << 20,
		MaxVisibleEntries: 1000,
	}
}

// Validate reports the first limit that is not positive.
func (q Quotas) Validate() error {
	checks := []struct {
		name string
		v    int64
	}{
		{"max_entries", q.MaxEntries}, {"max_file_bytes", q.MaxFileBytes},
		{"max_workspace_bytes", q.MaxWorkspaceBytes}, {"max_path_components", q.MaxPathComponents},
		{"max_path_bytes", q.MaxPathBytes}, {"max_symlink_target", q.MaxSymlinkTarget},
		{"wall_time", int64(q.WallTime)}, {"max_output_bytes", q.MaxOutputBytes},
		{"js_time", int64(q.JSTime)}, {"js_memory_bytes", q.JSMemoryBytes},
		{"max_visible_entries", q.MaxVisibleEntries},
	}
	for _, c := range checks {
		if c.v <= 0 {
			return fmt.Errorf("meta: quota %s: %w: must be positive, got %d", c.name, ErrInvalid, c.v)
		}
	}
	return nil
}

// CheckPath returns a *QuotaError if the workspace-relative path p (in
// CleanPath form) breaks the path limits (components, bytes, and
// MaxNameBytes per name), else nil.
func (q Quotas) CheckPath(ws, p string) error {
	if n := int64(len(splitPath(p))); n > q.MaxPathComponents {
		return &QuotaError{Kind: QuotaPathComponents, Workspace: ws, Path: p, Limit: q.MaxPathComponents, Usage: n}
	}
	if n := int64(len(p)); n > q.MaxPathBytes {
		return &QuotaError{Kind: QuotaPathBytes, Workspace: ws, Path: p, Limit: q.MaxPathBytes, Usage: n}
	}
	for _, name := range splitPath(p) {
		if len(name) > MaxNameBytes {
			return &QuotaError{Kind: QuotaNameBytes, Workspace: ws, Path: p, Limit: MaxNameBytes, Usage: int64(len(name))}
		}
	}
	return nil
}

// Retention says which revisions a workspace keeps. A revision is kept if
// it is among the last KeepLast or younger than KeepFor; a zero field
// grants nothing, and both zero (the default) keep everything. The head is
// always kept, and the revisions kept are always the newest ones (dropping
// stops at the first revision the policy keeps).
type Retention struct {
	KeepLast int64         `json:"keep_last"`
	KeepFor  time.Duration `json:"keep_for_ns"`
}

// KeepsAll reports whether the policy keeps every revision.
func (r Retention) KeepsAll() bool { return r.KeepLast <= 0 && r.KeepFor <= 0 }

func (r Retention) keeps(n, head RevNum, t, now time.Time) bool {
	if r.KeepsAll() || n >= head {
		return true
	}
	if r.KeepLast > 0 && int64(head-n) < r.KeepLast {
		return true
	}
	if r.KeepFor > 0 && now.Sub(t) < r.KeepFor {
		return true
	}
	return false
}

// Workspace is a workspace's record.
type Workspace struct {
	Name      string        `json:"name"` // tenant/name
	ID        string        `json:"id"`   // this incarnation (a re-created name gets a new one)
	Kind      WorkspaceKind `json:"kind"`
	Owner     string        `json:"owner"`
	Created   time.Time     `json:"created"`
	Updated   time.Time     `json:"updated"`
	Quotas    Quotas        `json:"quotas"`
	Retention Retention     `json:"retention"`
	// ForkedFrom is "tenant/name@N" for a fork.
	ForkedFrom string `json:"forked_from,omitempty"`

	Head   RevNum `json:"head"`
	Oldest RevNum `json:"oldest"` // oldest revision kept by retention
	// HeadRoot, HeadCwd and Usage describe the head revision, so that the
	// mount can start from one read.
	HeadRoot objects.Digest `json:"head_root"`
	HeadCwd  string         `json:"head_cwd"`
	Usage    Stats          `json:"usage"`
	// HeadTime is when the head revision was made (zero in records
	// written before it was kept, until the next commit).
	HeadTime time.Time `json:"head_time,omitzero"`

	// Settings is the digest of the newest settings object in the store,
	// SettingsSeq its sequence number.
	Settings    objects.Digest `json:"settings"`
	SettingsSeq uint64         `json:"settings_seq"`
}

// Entries returns the entry count the entries quota compares (root included).
func (w *Workspace) Entries() int64 { return w.Usage.Entries() + 1 }

// ParseWorkspace validates a workspace key "tenant/name", each part
// matching [a-z0-9][a-z0-9._-]{0,62}. Upper case is refused, naming the
// lower-case key (names are case-sensitive on the mount, so folding would
// make "Acme/x" and the folder acme/x two names of one workspace).
func ParseWorkspace(s string) (string, error) {
	tenant, name, ok := strings.Cut(s, "/")
	if !ok || strings.Contains(name, "/") {
		return "", fmt.Errorf("meta: workspace %q: %w: want tenant/name, as in acme/reports", s, ErrInvalid)
	}
	if lower := strings.ToLower(s); lower != s && checkNamePart(strings.ToLower(tenant)) == nil && checkNamePart(strings.ToLower(name)) == nil {
		return "", fmt.Errorf("meta: workspace %q: %w: names are lower case (a-z, 0-9, '.', '_', '-'): use %s", s, ErrInvalid, lower)
	}
	for _, part := range []string{tenant, name} {
		if err := checkNamePart(part); err != nil {
			return "", fmt.Errorf("meta: workspace %q: %w: %s", s, ErrInvalid, err)
		}
	}
	return s, nil
}

func checkNamePart(p string) error {
	if p == "" {
		return errors.New("empty tenant or name")
	}
	if len(p) > 63 {
		return fmt.Errorf("%q is %d characters, the most is 63", p, len(p))
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if i == 0 && !alnum {
			return fmt.Errorf("%q must start with a letter or digit", p)
		}
		if !alnum && c != '.' && c != '_' && c != '-' {
			return fmt.Errorf("%q: character %q is not allowed (use a-z, 0-9, '.', '_', '-')", p, c)
		}
	}
	return nil
}

// CreateOptions are the settings of a new workspace.
type CreateOptions struct {
	Kind      WorkspaceKind // default Private
	Owner     string
	Quotas    *Quotas // default DefaultQuotas()
	Retention Retention
	Author    string // recorded on revision 1
}

func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func getWorkspace(tx kv.Reader, name string) (*Workspace, error) {
	v, err := tx.Get(bucketWorkspaces, []byte(name))
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, WorkspaceNotFound(name)
	}
	var w Workspace
	if err := json.Unmarshal(v, &w); err != nil {
		return nil, fmt.Errorf("meta: workspace %s: record does not decode: %w", name, err)
	}
	return &w, nil
}

func putWorkspace(tx kv.Txn, w *Workspace) error { return putWorkspaceBy(tx, w, "") }

// putWorkspace writes w's record, tagged with this DB's instance on an
// engine others watch, so that its watch knows its own changes (which it
// reported as it made them) from other servers' (watch.go).
func (db *DB) putWorkspace(tx kv.Txn, w *Workspace) error { return putWorkspaceBy(tx, w, db.instance) }

func putWorkspaceBy(tx kv.Txn, w *Workspace, writer string) error {
	v, err := json.Marshal(struct {
		*Workspace
		Writer string `json:"writer,omitempty"`
	}{w, writer})
	if err != nil {
		return err
	}
	return tx.Put(bucketWorkspaces, []byte(w.Name), v)
}

func (w *Workspace) settingsObject() settingsObject {
	return settingsObject{
		Name: w.Name, ID: w.ID, Seq: w.SettingsSeq, Kind: w.Kind, Owner: w.Owner,
		Created: w.Created.Format(time.RFC3339Nano), Updated: w.Updated.Format(time.RFC3339Nano),
		Quotas: w.Quotas, Retention: w.Retention, ForkedFrom: w.ForkedFrom, Nonce: newID(),
	}
}

// Create makes a new workspace whose revision 1 is the empty directory
// with cwd "/". It fails with ErrExists if the name is taken.
func (db *DB) Create(ctx context.Context, name string, opts CreateOptions) (Workspace, error) {
	name, err := ParseWorkspace(name)
	if err != nil {
		return Workspace{}, err
	}
	if _, err := db.Get(ctx, name); err == nil {
		return Workspace{}, fmt.Errorf("meta: create %s: %w", name, ErrExists)
	} else if !errors.Is(err, ErrNotFound) {
		return Workspace{}, err
	}
	u := db.newUpload()
	defer u.release()
	u.add(pendingObject{d: EmptyTreeDigest, tag: tagTree, size: int64(len(emptyTree)), data: emptyTree, what: "the empty tree"})
	return db.createWith(ctx, name, opts, EmptyTreeDigest, Stats{}, "/", "", "create "+name, nil, u)
}

// createWith writes a new workspace whose revision 1 has the given root,
// storing its settings and manifest with what u holds (nil: nothing).
func (db *DB) createWith(ctx context.Context, name string, opts CreateOptions, root objects.Digest, stats Stats, cwd, forkedFrom, command string, pin *revPin, u *upload) (Workspace, error) {
	if u == nil {
		u = db.newUpload()
		defer u.release()
	}
	q := DefaultQuotas()
	if opts.Quotas != nil {
		q = *opts.Quotas
	}
	if err := q.Validate(); err != nil {
		return Workspace{}, err
	}
	kind := opts.Kind
	if kind == "" {
		kind = Private
	}
	if kind != Private && kind != Shared {
		return Workspace{}, fmt.Errorf("meta: create %s: %w: kind %q (want private or shared)", name, ErrInvalid, kind)
	}
	now := db.now().UTC()
	w := &Workspace{
		Name: name, ID: newID(), Kind: kind, Owner: opts.Owner, Created: now, Updated: now,
		Quotas: q, Retention: opts.Retention, ForkedFrom: forkedFrom,
		Head: 1, Oldest: 1, HeadRoot: root, HeadCwd: cwd, HeadTime: now, Usage: stats, SettingsSeq: 1,
	}
	sb, err := encodeJSONObject(magicSettings, w.settingsObject())
	if err != nil {
		return Workspace{}, err
	}
	w.Settings = objects.Sum(sb)
	u.add(pendingObject{d: w.Settings, tag: tagSettings, size: int64(len(sb)), data: sb, what: "the settings"})
	rev := &Revision{
		Workspace: name, WorkspaceID: w.ID, N: 1, Root: root, Cwd: cwd, Time: now,
		Command: command, Author: opts.Author, Stats: stats, Nonce: newID(),
	}
	mb, err := encodeManifest(rev)
	if err != nil {
		return Workspace{}, err
	}
	rev.Manifest = objects.Sum(mb)
	u.add(pendingObject{d: rev.Manifest, tag: tagManifest, size: int64(len(mb)), data: mb, what: "the manifest", last: true})
	if err := u.run(ctx); err != nil {
		return Workspace{}, fmt.Errorf("meta: create %s: nothing was created: %w", name, err)
	}
	if err := u.fitOrAhead(ctx, 4096); err != nil {
		u.discard(ctx, "a failed create of "+name)
		return Workspace{}, fmt.Errorf("meta: create %s: nothing was created: %w", name, err)
	}
	err = db.update(ctx, func(tx kv.Txn) error {
		if v, err := tx.Get(bucketWorkspaces, []byte(name)); err != nil {
			return err
		} else if v != nil {
			return fmt.Errorf("meta: create %s: %w", name, ErrExists)
		}
		if err := pin.check(tx); err != nil {
			return err
		}
		if err := db.putWorkspace(tx, w); err != nil {
			return err
		}
		if err := u.record(tx); err != nil {
			return err
		}
		return putRevision(tx, w, rev)
	})
	if err != nil {
		// Remove the objects of the workspace that was not created, so
		// that a later Recover does not bring it to life.
		u.discardAfter(ctx, err, "a failed create of "+name)
		return Workspace{}, err
	}
	db.emit(EventCreate, *w)
	return *w, nil
}

// Get returns the workspace's record.
func (db *DB) Get(ctx context.Context, name string) (Workspace, error) {
	name, err := ParseWorkspace(name)
	if err != nil {
		return Workspace{}, err
	}
	if err := ctx.Err(); err != nil {
		return Workspace{}, err
	}
	var w *Workspace
	err = db.view(ctx, func(tx kv.Reader) error {
		var err error
		w, err = getWorkspace(tx, name)
		return err
	})
	if err != nil {
		return Workspace{}, err
	}
	return *w, nil
}

// List returns every workspace whose name starts with prefix ("" for all,
// "acme/" for one tenant), sorted by name.
func (db *DB) List(ctx context.Context, prefix string) ([]Workspace, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []Workspace
	err := db.view(ctx, func(tx kv.Reader) error {
		return tx.Scan(bucketWorkspaces, kv.ScanOptions{From: []byte(prefix), To: prefixEnd([]byte(prefix))}, func(k, v []byte) error {
			var w Workspace
			if err := json.Unmarshal(v, &w); err != nil {
				return corruptf(db.where, "workspace record %q: %v", k, err)
			}
			out = append(out, w)
			return nil
		})
	})
	return out, err
}

// WorkspaceUpdate changes settings of a workspace; nil fields stay as they are.
type WorkspaceUpdate struct {
	Kind      *WorkspaceKind
	Owner     *string
	Quotas    *Quotas
	Retention *Retention
}

// Update changes a workspace's settings and returns the new record. A new
// retention policy takes effect at once (dropped revisions are removed
// from the database; GC reclaims their objects). Lowering a quota below the
// current usage is allowed: writes that would grow usage are then refused.
func (db *DB) Update(ctx context.Context, name string, u WorkspaceUpdate) (Workspace, error) {
	name, err := ParseWorkspace(name)
	if err != nil {
		return Workspace{}, err
	}
	if u.Quotas != nil {
		if err := u.Quotas.Validate(); err != nil {
			return Workspace{}, err
		}
	}
	if u.Kind != nil && *u.Kind != Private && *u.Kind != Shared {
		return Workspace{}, fmt.Errorf("meta: update %s: %w: kind %q (want private or shared)", name, ErrInvalid, *u.Kind)
	}
	for attempt := 0; ; attempt++ {
		cur, err := db.Get(ctx, name)
		if err != nil {
			return Workspace{}, err
		}
		w := cur
		if u.Kind != nil {
			w.Kind = *u.Kind
		}
		if u.Owner != nil {
			w.Owner = *u.Owner
		}
		if u.Quotas != nil {
			w.Quotas = *u.Quotas
		}
		if u.Retention != nil {
			w.Retention = *u.Retention
		}
		w.Updated = db.now().UTC()
		w.SettingsSeq++
		sb, err := encodeJSONObject(magicSettings, w.settingsObject())
		if err != nil {
			return Workspace{}, err
		}
		w.Settings = objects.Sum(sb)
		up := db.newUpload()
		up.add(pendingObject{d: w.Settings, tag: tagSettings, size: int64(len(sb)), data: sb, what: "the settings"})
		if err := up.run(ctx); err != nil {
			up.release()
			return Workspace{}, fmt.Errorf("meta: update %s: nothing was changed: %w", name, err)
		}
		var raced bool
		err = db.update(ctx, func(tx kv.Txn) error {
			raced = false
			now, err := getWorkspace(tx, name)
			if err != nil {
				return err
			}
			if now.ID != cur.ID || now.SettingsSeq != cur.SettingsSeq {
				raced = true
				return nil
			}
			// Keep the head fields as they are in the transaction: a
			// commit may have landed since we read cur.
			w.Head, w.Oldest, w.HeadRoot, w.HeadCwd, w.HeadTime, w.Usage = now.Head, now.Oldest, now.HeadRoot, now.HeadCwd, now.HeadTime, now.Usage
			if err := db.pruneTx(tx, &w); err != nil {
				return err
			}
			if err := up.record(tx); err != nil {
				return err
			}
			return db.putWorkspace(tx, &w)
		})
		if err != nil || raced {
			// Recover takes the settings object with the highest sequence
			// number; this one was never applied.
			up.discardAfter(ctx, err, "a failed update of "+name)
		}
		up.release()
		if err != nil {
			return Workspace{}, err
		}
		if !raced {
			db.emit(EventUpdate, w)
			return w, nil
		}
		if attempt >= 10 {
			return Workspace{}, fmt.Errorf("meta: update %s: %w: settings keep changing underneath; try again", name, ErrStale)
		}
	}
}

// pruneTx drops the revisions that w's retention policy no longer keeps,
// oldest first, stopping at the first one it keeps.
func (db *DB) pruneTx(tx kv.Txn, w *Workspace) error {
	if w.Retention.KeepsAll() || w.Oldest >= w.Head {
		return nil
	}
	now := db.now()
	from, oldest := w.Oldest, w.Head
	// One scan, not a read per revision: on etcd a scan is one compare
	// however many records it reads.
	err := tx.Scan(revBucket(w.ID), kv.ScanOptions{From: revKey(from), To: revKey(w.Head)}, func(k, v []byte) error {
		var rec revisionRecord
		if err := json.Unmarshal(v, &rec); err != nil || len(k) != 8 {
			return corruptf(db.where, "revision %x of %s: %v", k, w.Name, err)
		}
		if n := RevNum(binary.BigEndian.Uint64(k)); w.Retention.keeps(n, w.Head, rec.Revision.Time, now) {
			oldest = n
			return kv.ErrStop
		}
		return nil
	})
	if err != nil {
		return err
	}
	w.Oldest = oldest
	if w.Oldest == from {
		return nil
	}
	return tx.DeleteRange(revBucket(w.ID), revKey(from), revKey(w.Oldest))
}

// Delete removes a workspace and its history from the database. Its blobs
// stay in the store until GC finds them unreached. A tombstone object in the
// store keeps Recover from bringing the workspace back.
func (db *DB) Delete(ctx context.Context, name string) error {
	w, err := db.Get(ctx, name)
	if err != nil {
		return err
	}
	tb, err := encodeJSONObject(magicTombstone, tombstoneObject{Name: w.Name, ID: w.ID, Deleted: db.now().UTC().Format(time.RFC3339Nano), Nonce: newID()})
	if err != nil {
		return err
	}
	td := objects.Sum(tb)
	u := db.newUpload()
	defer u.release()
	u.add(pendingObject{d: td, tag: tagTombstone, size: int64(len(tb)), data: tb, what: "the tombstone"})
	if err := u.run(ctx); err != nil {
		return fmt.Errorf("meta: delete %s: nothing was deleted: %w", w.Name, err)
	}
	db.deleting(w.ID, true)
	err = db.update(ctx, func(tx kv.Txn) error {
		now, err := getWorkspace(tx, w.Name)
		if err != nil {
			return err
		}
		if now.ID != w.ID {
			return fmt.Errorf("meta: delete %s: %w: the workspace was re-created meanwhile", w.Name, ErrStale)
		}
		if err := tx.Delete(bucketWorkspaces, []byte(w.Name)); err != nil {
			return err
		}
		if err := tx.DeleteRange(revBucket(w.ID), nil, nil); err != nil {
			return err
		}
		if err := dropOutputs(tx, w.ID); err != nil {
			return err
		}
		if err := u.record(tx); err != nil {
			return err
		}
		return tx.Put(bucketTombstones, []byte(w.ID), td[:])
	})
	if err != nil {
		// The tombstone names an incarnation that still lives; remove it so
		// that a later Recover does not drop the workspace.
		db.deleting(w.ID, false)
		u.discardAfter(ctx, err, "a failed delete of "+w.Name)
		return err
	}
	db.emit(EventDelete, w)
	return nil
}

// prefixEnd returns the first key after every key that starts with p (nil:
// no end), for a scan of a prefix.
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}
