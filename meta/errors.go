package meta

import (
	"errors"
	"fmt"
	"strings"
)

// ErrStale reports that a commit's base revision is no longer the
// workspace's head: another commit landed first. Nothing was written; the
// caller re-reads the head and retries or reports the conflict.
var ErrStale = errors.New("stale base revision")

// ErrNotFound reports a missing workspace, revision or path. The wrapping
// error says which one.
var ErrNotFound = errors.New("not found")

// ErrExists reports that a workspace or a path already exists.
var ErrExists = errors.New("already exists")

// ErrCorruptDB reports a meta.db that cannot be read as a wsfs database
// (truncated, overwritten, not a bbolt file, or damaged pages). The wrapping
// error names the file and the next step (wsfs recover); meta never rewrites
// such a file.
var ErrCorruptDB = errors.New("meta: database is corrupt")

// ErrInUse reports that another process holds the database.
var ErrInUse = errors.New("meta: database in use")

// ErrSchemaTooNew reports a database written by a newer wsfs.
var ErrSchemaTooNew = errors.New("meta: database schema is newer than this wsfs")

// ErrInvalid reports bad input: a bad workspace name, path, tar entry or
// option. The wrapping error says what and why.
var ErrInvalid = errors.New("invalid")

// ErrStore reports that the object store failed during an operation. The
// wrapping error says what was left as it was (for a commit: the head).
var ErrStore = errors.New("the object store failed")

// QuotaKind says which limit a QuotaError is about, so that the FUSE layer
// can map it to an errno: QuotaEntries and QuotaWorkspaceBytes to EDQUOT,
// QuotaFileBytes to EFBIG, the name limits (NameTooLong) to ENAMETOOLONG.
type QuotaKind int

// The limits a write can hit.
const (
	QuotaEntries QuotaKind = iota + 1
	QuotaFileBytes
	QuotaWorkspaceBytes
	QuotaPathComponents
	QuotaPathBytes
	QuotaSymlinkTarget
	QuotaNameBytes // one path component longer than MaxNameBytes
)

// MaxNameBytes is the longest name of a directory entry (NAME_MAX).
const MaxNameBytes = 255

var quotaKindNames = map[QuotaKind]string{
	QuotaEntries:        "entries",
	QuotaFileBytes:      "file-bytes",
	QuotaWorkspaceBytes: "workspace-bytes",
	QuotaPathComponents: "path-components",
	QuotaPathBytes:      "path-bytes",
	QuotaSymlinkTarget:  "symlink-target",
	QuotaNameBytes:      "name-bytes",
}

// String returns a short stable name ("entries", "file-bytes", ...).
func (k QuotaKind) String() string {
	if s, ok := quotaKindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("quota-kind-%d", int(k))
}

// MarshalText implements encoding.TextMarshaler.
func (k QuotaKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// NameTooLong reports whether the limit is about names (ENAMETOOLONG).
func (k QuotaKind) NameTooLong() bool {
	return k == QuotaPathComponents || k == QuotaPathBytes || k == QuotaSymlinkTarget || k == QuotaNameBytes
}

// QuotaError reports a write refused by a workspace quota. It names the
// limit, the usage and the path, so an agent can act on it.
type QuotaError struct {
	Kind      QuotaKind `json:"kind"`
	Workspace string    `json:"workspace"`
	Path      string    `json:"path"`
	Limit     int64     `json:"limit"`
	// Usage is what the workspace (entries, workspace bytes) has now, or
	// what the path would have (file bytes, components, path bytes, symlink
	// target bytes).
	Usage int64 `json:"usage"`
}

func (e *QuotaError) Error() string {
	switch e.Kind {
	case QuotaEntries:
		return fmt.Sprintf("meta: quota: %d entries (workspace %s has %d): %s", e.Limit, e.Workspace, e.Usage, e.Path)
	case QuotaFileBytes:
		return fmt.Sprintf("meta: quota: %d bytes per file (the file would have %d): %s", e.Limit, e.Usage, e.Path)
	case QuotaWorkspaceBytes:
		return fmt.Sprintf("meta: quota: %d bytes per workspace (workspace %s has %d): %s", e.Limit, e.Workspace, e.Usage, e.Path)
	case QuotaPathComponents:
		return fmt.Sprintf("meta: quota: %d path components (the path has %d): %s", e.Limit, e.Usage, e.Path)
	case QuotaPathBytes:
		return fmt.Sprintf("meta: quota: %d bytes per path (the path has %d): %s", e.Limit, e.Usage, e.Path)
	case QuotaSymlinkTarget:
		return fmt.Sprintf("meta: quota: %d bytes per symlink target (the target has %d): %s", e.Limit, e.Usage, e.Path)
	case QuotaNameBytes:
		return fmt.Sprintf("meta: quota: %d bytes per name (a name has %d): %s", e.Limit, e.Usage, e.Path)
	}
	return fmt.Sprintf("meta: quota: %s limit %d (usage %d): %s", e.Kind, e.Limit, e.Usage, e.Path)
}

// corruptf wraps ErrCorruptDB with the path and the next step.
func corruptf(path string, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s; the file was left as it is: move it aside and run `wsfs recover` to rebuild it from the object store",
		ErrCorruptDB, path, fmt.Sprintf(format, args...))
}

// markedError is an error with its own text that still matches a sentinel
// with errors.Is.
type markedError struct {
	msg    string
	target error
}

func (e *markedError) Error() string        { return e.msg }
func (e *markedError) Is(target error) bool { return target == e.target }

// inContext returns err with "meta: where: " before its text (dropping the
// "meta: " it starts with), still wrapping it.
func inContext(where string, err error) error {
	return &contextError{msg: "meta: " + where + ": " + strings.TrimPrefix(err.Error(), "meta: "), err: err}
}

type contextError struct {
	msg string
	err error
}

func (e *contextError) Error() string { return e.msg }
func (e *contextError) Unwrap() error { return e.err }
