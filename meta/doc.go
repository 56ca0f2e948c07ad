// Package meta owns the namespace and the history of every workspace: the
// bbolt schema, workspaces and their quotas, Merkle trees of directories,
// revisions, commit with the stale-revision check, history operations, gc,
// fsck and recover. It is the only importer of bbolt.
//
// # Data model
//
// A workspace is keyed "tenant/name" (ParseWorkspace). Its record
// (Workspace) holds its quotas (storage limits that every write path
// enforces, and the runner's per-command limits), kind, owner, retention
// policy, and its head: the head revision's number, root tree, cwd and
// usage, so that a mount can start from one read. Each incarnation of a
// name has its own ID; a deleted and re-created name starts a new history.
//
// A directory is a Tree: entries sorted by name, each {name, kind (file,
// dir, symlink), mode, size, mtime, digest | target}, encoded
// deterministically (encodeTree) and stored under the SHA-256 of that
// encoding, so equal directories share one object and a tree's digest
// names its whole content (a Merkle tree, as in git). A directory entry
// also carries what its subtree holds (Entry.Sub), so a commit keeps the
// workspace's totals, and checks the entries and bytes quotas, without
// walking subtrees. A file's content is a blob named by its digest.
//
// A Revision is an immutable snapshot {n, parent, root tree, cwd, time,
// command, exit code, duration, author, stats, changed paths}. Revision 1
// is the empty directory with cwd "/", written by Create (or the source
// revision's tree, for a Fork); each commit adds one. Paths are relative
// to the workspace, slash-separated, without a leading slash ("" is the
// top; CleanPath); the cwd is the same path with a leading slash ("/" is
// the top, "/src" a subdirectory), as the agent sees it under /workspace.
//
// Commit(ws, base, change) applies path operations (put, mkdir, symlink,
// remove, chmod, chtimes, rename) to revision base. It loads and rewrites
// only the directories on the changed paths, so its cost grows with the
// change, not with the workspace. It uploads the missing blobs and the new
// trees (in parallel: nothing committed names them yet), then the
// revision's manifest, and only then runs one bbolt transaction that
// checks the head is still base (else ErrStale, nothing written) and
// records the revision. A change that leaves the tree and the
// cwd as they were writes nothing. CommitTree commits a whole new root tree
// (built with WriteTree, or taken from another revision by Restore).
//
// History is never rewritten: Restore adds a revision equal to an older
// one, Fork starts a new workspace from any revision without copying a
// blob, and retention (keep the last N and/or those younger than D; the
// default keeps everything; the head is always kept) only drops the oldest
// revisions from the database. GC later reclaims what no retained revision
// reaches.
//
// # For a mount (fusefs) and the server (api)
//
//   - Start from Get(ws): HeadRoot, HeadCwd, Usage and Quotas in one read;
//     ReadTree lists a directory (cached, verified), LookupTree finds a
//     path, Store().Open reads a file's blob by range.
//   - Enforce quotas live with Quotas.CheckPath and the Usage totals; a
//     *QuotaError's Kind maps to an errno (NameTooLong: ENAMETOOLONG,
//     QuotaFileBytes: EFBIG, the others: EDQUOT). Commit enforces the same
//     limits again, so every write path holds them.
//   - Upload spooled files with Store().Put while holding their digests
//     (Hold) and commit the dirty paths as Ops with a nil Source on the
//     base the mount started from; ErrStale means someone else committed
//     (an admin restore, say): re-read and retry. Or build trees with
//     WriteTree (FileEntry, DirEntry, SymlinkEntry) and CommitTree the root.
//   - Subscribe reports every change this DB makes (commit, restore,
//     settings, delete) with the new Workspace record, so the mount can
//     drop its view of a workspace after a restore or a quota change.
//
// # Object store layout
//
// The object store (objects.Store) knows only digests: every object is a
// blob under "blobs/<2 hex>/<64 hex>". Besides file contents, meta writes
// four kinds of metadata objects, told apart by a first line:
//
//	"wsfs-tree1\n"  a directory (binary encoding, see encodeTree)
//	"wsfs-tree2\n"  a directory with owners, link groups (hard links),
//	                FIFOs, sockets, devices or extended attributes; a
//	                directory that needs none of these is still written as
//	                wsfs-tree1, so the trees stored before format 2 keep
//	                their digests and nothing had to be rewritten
//	"wsfs-rev1\n"   a revision manifest: the Revision as JSON, including
//	                the digest of its parent's manifest, so manifests chain
//	"wsfs-ws1\n"    a workspace's settings (name, id, quotas, retention,
//	                kind, owner), rewritten with a growing sequence number
//	                on every Update
//	"wsfs-del1\n"   a tombstone: this workspace incarnation was deleted
//
// Because everything meta.db knows is also in the store, Recover rebuilds
// meta.db from the bucket alone: it lists the blobs, reads the first bytes
// of each to classify it, takes the newest settings of every incarnation
// that has no tombstone, and follows the chain of manifests back from the
// newest one. meta.db is the index that makes reads fast and commits
// atomic; the store is the record.
//
// # meta.db
//
// One bbolt file (bucket layout and version in schema.go); one exported
// operation is one transaction, and no bbolt byte slice leaves it. Open
// waits at most Options.LockTimeout (1 s) for the file lock and otherwise
// names the owning process (meta.db.pid beside the file). A damaged file
// is reported with its path and the next step (wsfs recover) and never
// rewritten; a file from a newer wsfs is refused.
//
// # Invariants (each has a test)
//
//   - A committed revision is never changed or damaged, whether a commit
//     is killed at any point (crash_test.go), the store dies mid-commit, a
//     quota is hit or commits race on one base (ops_test.go).
//   - Blobs and trees are stored before the transaction that names them.
//   - GC deletes only blobs that no retained revision reaches and that are
//     older than the grace period, never one a commit in progress uses, and
//     it deletes nothing after a listing or read error (gc_test.go).
//   - The model test (model_test.go) checks commit, restore, fork, delete
//     and retention against a plain in-memory model.
package meta
