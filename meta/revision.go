package meta

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

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

	// Nonce is random. It makes every manifest unique, so that removing
	// the manifest of a failed commit can never remove another's.
	Nonce string `json:"nonce"`

	// Manifest is the digest of this revision's manifest object. It is not
	// part of the manifest itself.
	Manifest objects.Digest `json:"-"`
}

// revisionRecord is how a revision is kept in bbolt.
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

func putRevision(tx *bolt.Tx, ws *Workspace, r *Revision) error {
	b, err := tx.Bucket(bucketRevisions).CreateBucketIfNotExists([]byte(ws.ID))
	if err != nil {
		return err
	}
	rec := revisionRecord{Manifest: r.Manifest, Revision: *r}
	if n := len(rec.Revision.Changes); n > MaxInlineChanges {
		rec.Revision.Changes = rec.Revision.Changes[:MaxInlineChanges]
		rec.Revision.ChangesOmitted = n - MaxInlineChanges
	}
	v, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return b.Put(revKey(r.N), v)
}

// getRevision reads revision n of ws; the returned value owns its memory.
func (db *DB) getRevision(tx *bolt.Tx, ws *Workspace, n RevNum) (*Revision, error) {
	if n == 0 {
		n = ws.Head
	}
	if n > ws.Head {
		return nil, fmt.Errorf("meta: %s@%d: %w: revision %d does not exist (the head is %d)", ws.Name, n, ErrNotFound, n, ws.Head)
	}
	if n < ws.Oldest {
		return nil, fmt.Errorf("meta: %s@%d: %w: revision %d was dropped by the retention policy (the oldest kept is %d)", ws.Name, n, ErrNotFound, n, ws.Oldest)
	}
	b := tx.Bucket(bucketRevisions).Bucket([]byte(ws.ID))
	var v []byte
	if b != nil {
		v = b.Get(revKey(n))
	}
	if v == nil {
		return nil, corruptf(db.path, "revision %d of %s is missing", n, ws.Name)
	}
	var rec revisionRecord
	if err := json.Unmarshal(v, &rec); err != nil {
		return nil, corruptf(db.path, "revision %d of %s: %v", n, ws.Name, err)
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
