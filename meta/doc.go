// Package meta owns the namespace and the history of every workspace: the
// bbolt schema, workspaces and their quotas, Merkle trees of directories,
// revisions, commit with the stale-revision check, history operations, gc,
// fsck and recover. It is the only importer of bbolt.
package meta
