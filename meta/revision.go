package meta

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wsfs/wsfs/meta/kv"

	"github.com/wsfs/wsfs/objects"
)

// RevNum numbers the revisions of one workspace: 1 is the empty workspace
// written by Create (or the forked tree of a Fork), and each commit adds
// one. 0 means "no revision" (the parent of revision 1) and, where an
// argument takes a revision, "the head".
type RevNum uint64

// ChangeAction says what happened to a path in a revision.
type ChangeAction string

// Change actions, as Show and Diff report them.
const (
	Added    ChangeAction = "added"
	Modified ChangeAction = "modified"
	Removed  ChangeAction = "removed"
)

// PathChange is one changed path of a revision.
type PathChange struct {
	Path   string       `json:"path"`
	Action ChangeAction `json:"action"`
	Kind   EntryKind    `json:"kind"` // the new kind, or the old one for Removed
}

// Revision is one immutable snapshot of a workspace. Its manifest (this
// struct as JSON, after the "wsfs-rev1\n" line) is stored in the object
// store too, under Manifest.
type Revision struct {
	Workspace   string `json:"workspace"`
	WorkspaceID string `json:"workspace_id"`
	N           RevNum `json:"n"`
	Parent      RevNum `json:"parent"` // 0 for revision 1
	// ParentManifest is the digest of the parent's manifest (zero for
	// revision 1), so the manifests in the store form a chain.
	ParentManifest objects.Digest `json:"parent_manifest"`
	Root           objects.Digest `json:"root"`
	// Cwd is the working directory after the command, relative to the
	// workspace and starting with "/" ("/" is the workspace's top).
	Cwd      string        `json:"cwd"`
	Time     time.Time     `json:"time"`
	Command  string        `json:"command"`
	ExitCode int           `json:"exit_code"`
	Duration time.Duration `json:"duration_ns"`
	Author   string        `json:"author"`
	Stats    Stats         `json:"stats"`
	Changes  []PathChange  `json:"changes"`
	// ChangesOmitted counts changed paths left out of Changes. The
	// database keeps at most MaxInlineChanges per revision so that a huge
	// import does not slow every later commit; Log returns that short list,
	// while Show and Commit return the full one (Show reads the manifest).
	ChangesOmitted int `json:"changes_omitted,omitempty"`
	// CommandOmitted counts the bytes of Command left out: the database
	// keeps at most MaxInlineCommand bytes of it (a script can be
	// megabytes, more than one etcd transaction takes). Log returns the
	// short command; Show and Commit return the full one.
	CommandOmitted int `json:"command_omitted,omitempty"`

	// Nonce is random. It makes every manifest unique, so that removing
	// the manifest of a failed commit can never remove another's.
	Nonce string `json:"nonce"`

	// Manifest is the digest of this revision's manifest object. It is not
	// part of the manifest itself.
	Manifest objects.Digest `json:"-"`
}

// revisionRecord is how a revision is kept in the engine.
type revisionRecord struct {
	Manifest objects.Digest `json:"manifest"`
	Revision Revision       `json:"revision"`
}

func encodeManifest(r *Revision) ([]byte, error) {
	return encodeJSONObject(magicRevision, r)
}

func decodeManifest(b []byte) (*Revision, error) {
	var r Revision
	if err := decodeJSONObject(magicRevision, b, &r); err != nil {
		return nil, err
	}
	if r.N == 0 || r.WorkspaceID == "" {
		return nil, fmt.Errorf("manifest without revision number or workspace id")
	}
	return &r, nil
}

// MaxInlineChanges is how many changed paths a revision keeps in the
// database (see Revision.ChangesOmitted).
const MaxInlineChanges = 100

// MaxInlineCommand is how many bytes of a revision's command the database
// keeps (see Revision.CommandOmitted).
const MaxInlineCommand = 16 << 10

func putRevision(tx kv.Txn, ws *Workspace, r *Revision) error {
	rec := revisionRecord{Manifest: r.Manifest, Revision: *r}
	if n := len(rec.Revision.Command); n > MaxInlineCommand {
		cut := MaxInlineCommand
		for cut > 0 && !utf8.RuneStart(rec.Revision.Command[cut]) {
			cut--
		}
		rec.Revision.Command = rec.Revision.Command[:cut]
		rec.Revision.CommandOmitted = n - cut
	}
	if n := len(rec.Revision.Changes); n > MaxInlineChanges {
		rec.Revision.Changes = rec.Revision.Changes[:MaxInlineChanges]
		rec.Revision.ChangesOmitted = n - MaxInlineChanges
	}
	v, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return tx.Put(revBucket(ws.ID), revKey(r.N), v)
}

// getRevision reads revision n of ws; the returned value owns its memory.
func (db *DB) getRevision(tx kv.Reader, ws *Workspace, n RevNum) (*Revision, error) {
	if n == 0 {
		n = ws.Head
	}
	if n > ws.Head {
		return nil, fmt.Errorf("meta: %s@%d: %w: revision %d does not exist (the head is %d)", ws.Name, n, ErrNotFound, n, ws.Head)
	}
	if n < ws.Oldest {
		return nil, fmt.Errorf("meta: %s@%d: %w: revision %d was dropped by the retention policy (the oldest kept is %d)", ws.Name, n, ErrNotFound, n, ws.Oldest)
	}
	v, err := tx.Get(revBucket(ws.ID), revKey(n))
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, corruptf(db.where, "revision %d of %s is missing", n, ws.Name)
	}
	var rec revisionRecord
	if err := json.Unmarshal(v, &rec); err != nil {
		return nil, corruptf(db.where, "revision %d of %s: %v", n, ws.Name, err)
	}
	rec.Revision.Manifest = rec.Manifest
	return &rec.Revision, nil
}

// Ref names a revision of a workspace: "tenant/name@12", or "tenant/name"
// for the head (Rev 0).
type Ref struct {
	Workspace string `json:"workspace"`
	Rev       RevNum `json:"rev"`
}

func (r Ref) String() string {
	if r.Rev == 0 {
		return r.Workspace
	}
	return fmt.Sprintf("%s@%d", r.Workspace, r.Rev)
}

// ParseRef parses "tenant/name[@N]" (no @ means the head).
func ParseRef(s string) (Ref, error) {
	name, rev, hasRev := strings.Cut(s, "@")
	ws, err := ParseWorkspace(name)
	if err != nil {
		return Ref{}, err
	}
	if !hasRev {
		return Ref{Workspace: ws}, nil
	}
	n, err := strconv.ParseUint(rev, 10, 64)
	if err != nil || n == 0 {
		return Ref{}, fmt.Errorf("meta: revision %q: %w: want a revision number from 1 (as in %s@3)", s, ErrInvalid, ws)
	}
	return Ref{Workspace: ws, Rev: RevNum(n)}, nil
}

// scanRevisions calls fn for the revisions from through to of w, in
// order (newest first if reverse), in one scan (one round trip per page on
// etcd rather than one per revision). A revision missing in between is
// damage; fn returning kv.ErrStop ends the scan without error.
func (db *DB) scanRevisions(tx kv.Reader, w *Workspace, from, to RevNum, reverse bool, fn func(*Revision) error) error {
	if from == 0 {
		from = 1
	}
	if from > to {
		return nil
	}
	next, stopped := from, false
	if reverse {
		next = to
	}
	err := tx.Scan(revBucket(w.ID), kv.ScanOptions{From: revKey(from), To: revKey(to + 1), Reverse: reverse}, func(k, v []byte) error {
		if len(k) != 8 {
			return corruptf(db.where, "a revision key of %s has %d bytes", w.Name, len(k))
		}
		n := RevNum(binary.BigEndian.Uint64(k))
		if n != next {
			return corruptf(db.where, "revision %d of %s is missing", next, w.Name)
		}
		var rec revisionRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return corruptf(db.where, "revision %d of %s: %v", n, w.Name, err)
		}
		rec.Revision.Manifest = rec.Manifest
		if reverse {
			next--
		} else {
			next++
		}
		err := fn(&rec.Revision)
		if errors.Is(err, kv.ErrStop) {
			stopped = true
		}
		return err
	})
	if errors.Is(err, kv.ErrStop) {
		return nil
	}
	if err == nil && !stopped && (!reverse && next != to+1 || reverse && next != from-1) {
		return corruptf(db.where, "revision %d of %s is missing", next, w.Name)
	}
	return err
}
