// Package meta owns the namespace and the history of every workspace: the
// record layout, workspaces and their quotas, Merkle trees of directories,
// revisions, commit with the stale-revision check, history operations, gc,
// fsck and recover. Its records live in an engine (package kv): bbolt, one
// file (meta.db) on one machine, by default; etcd when several servers
// share one bucket. meta imports neither library: kv/boltkv is the only
// importer of bbolt.
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
// change, not with the workspace. It stores what the store lacks of the
// new contents and trees, with the revision's manifest (see "Packs and
// the object index" below: usually one upload in all), and only then runs
// one transaction of the engine that checks the head is still base (else
// ErrStale, nothing written), records the revision and indexes what was
// stored. A change that leaves the tree and the cwd as they were writes
// nothing. CommitTree commits a whole new root tree (taken from another
// revision by Restore, or built with WriteTree); CommitBatch commits one
// built in a Batch, whose objects then travel with the manifest.
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
//   - Commit a mount's changes in a Batch: add each written file with
//     PutBlob (its digest and a source to read it from, only read if the
//     store lacks it), build the changed directories with Batch.WriteTree
//     (FileEntry, DirEntry, SymlinkEntry) and CommitBatch the root on the
//     base the mount started from; ErrStale means someone else committed
//     (an admin restore, say): re-read and retry. Store().Put and Hold
//     remain for layers that upload ahead of a commit of Ops with a nil
//     Source.
//   - Subscribe reports every change this DB makes (commit, restore,
//     settings, delete) with the new Workspace record, so the mount can
//     drop its view of a workspace after a restore or a quota change.
//
// # Object store layout
//
// The object store (objects.Store) knows only digests: every blob is
// stored under "blobs/<2 hex>/<64 hex>". Besides file contents, meta
// writes five kinds of metadata objects, told apart by a first line:
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
//	"wsfs-oref1\n"  a kept command output's reference: the workspace
//	                incarnation and the output's digest (PutOutput)
//
// # Packs and the object index
//
// An object smaller than objects.PackThreshold (512 KiB) is not stored as
// a blob of its own: the objects an operation stores go up together in a
// pack (objects.EncodePack: one blob holding many objects, with its own
// index of digest, tag and length; at most 8 MiB each), so that a commit
// of 100 small files is one upload instead of 200 requests. The tag of
// each packed object is its kind (tagFile, tagTree, tagManifest,
// tagSettings, tagTombstone, tagOutput, tagOutputRef). A larger object is
// a single blob, stored with one conditional write. The manifest travels
// in the last pack, uploaded once everything it names is stored.
//
// The object index (objindex.go, its own bucket) maps every digest meta
// knows to where it is: a single blob, or a pack with offset and length,
// and a mark for a copy found damaged. Commits look objects up there, not
// in the store, so an object already stored costs no request; readers
// (Store() is an objects.Packed over the index) fetch a packed object with
// one ranged read of its pack, verified against the object's digest. The
// index never names what is not stored (a pack is recorded in the
// transaction that commits what uses it; gc drops objects from it before
// it deletes them); it may miss what is: objects of a store written
// before packs are found with Stat when a commit needs them, and indexed
// then. On a local store (objects.Local) a commit that finds its content
// already stored reads the copy back before trusting it, so writing the
// same content again heals a damaged copy; on a remote store, a copy a
// read finds damaged is marked, and the next write stores a good one.
//
// Because everything meta.db knows is also in the store, Recover rebuilds
// meta.db from the bucket alone: it lists the blobs, reads the first bytes
// of each to classify it, reads every pack (its index, then its objects,
// each verified), takes the newest settings of every incarnation that has
// no tombstone, follows the chain of manifests back from the newest one,
// references the kept outputs again, and writes the object index anew.
// meta.db is the index that makes reads fast and commits atomic; the
// store is the record.
//
// # The engine
//
// meta keeps its records in a kv.Engine (package kv: buckets of ordered
// records, consistent views, and transactions that take effect only if
// nothing they read has changed; the layout and version are in
// schema.go). One exported operation is one transaction, and no byte
// slice of the engine leaves it; a transaction's function may run more
// than once (etcd's optimistic concurrency), so it starts from what it
// reads each time. An engine may bound a transaction (etcd: 128
// operations, 1.5 MiB): a commit whose object-index records would not fit
// beside the revision records them first, in transactions of their own
// (the index may name stored objects that nothing uses yet; it must never
// name missing ones), and packs hold few enough objects that a pack's
// record fits in a quarter of one transaction.
//
// Open opens meta.db, a bbolt file (kv/boltkv); it waits at most
// Options.LockTimeout (1 s) for the file lock and otherwise names the
// owning process (meta.db.pid beside the file). A damaged file is
// reported with its path and the next step (wsfs recover) and never
// rewritten; a file from a newer wsfs is refused. OpenEngine opens meta on
// any other engine: etcd (kv/etcdkv; meta/metaurl opens it from a --meta
// URL), whose records several servers share. There, every transaction
// compares the modification revisions of what it read, so a commit's
// stale check is etcd's compare of the workspace record: of two servers
// committing on one base, exactly one wins, and the other gets ErrStale.
// An etcd failure after a commit was sent leaves its outcome unknown
// (kv.ErrUncertain): the commit's packs then stay in the store, so a
// revision that did land is never left without its objects.
//
// # Several servers: watches, leases, owners
//
// On an engine that several servers share, each DB watches the workspace
// records (watch.go) and emits the changes of other servers as events, so
// a mount follows commits made elsewhere; its own changes it reports as
// it makes them (it tags the records it writes). A server that Joins gets
// an etcd lease that it renews while it runs and registers under it
// (servers/<id>); a workspace is owned by the server whose record
// (owners/<name>, under that server's lease) names it. Commit takes the
// workspace when nobody owns it, refuses with ErrNotOwner (naming the
// owner) when another server does, and reads the owner record in its
// transaction: the commit applies only if the record is still this
// server's under this lease, the fencing token that keeps a stalled
// server whose lease expired from committing over the next owner. When a
// server dies its lease expires and its workspaces are free; Leave (and
// Close) revokes the lease at once (owner.go). A commit holds, in the
// engine, the objects it uses without storing them, so that a gc on
// another server keeps them (holds.go).
//
// # Invariants (each has a test)
//
//   - A committed revision is never changed or damaged, whether a commit
//     is killed at any point (crash_test.go), the store dies mid-commit, a
//     quota is hit or commits race on one base (ops_test.go).
//   - Blobs and trees are stored before the transaction that names them,
//     and a manifest only after everything it names (packs_test.go counts
//     the uploads of each operation).
//   - GC deletes only blobs (and packs) that no retained revision reaches
//     and that are older than the grace period, never one a commit in
//     progress uses; it writes the live objects of the packs it repacks
//     (mostly garbage, or small ones it combines) to a new pack before the
//     old ones go, and it deletes nothing after a listing or read error
//     (gc_test.go, packs_test.go, stress_test.go).
//   - A store written before packs keeps working (compat_test.go opens
//     testdata/v2store).
//   - The model test (model_test.go) checks commit, restore, fork, delete
//     and retention against a plain in-memory model.
package meta
