// Package fusefs presents every workspace as a live directory through FUSE
// (go-fuse v2, of which it is the only importer): write spooling, exact
// quota enforcement, read-only history views, and the one place where
// domain errors map to errno (MapErrno).
//
// # Layout
//
//	DIR/<tenant>/<name>/…                 a workspace's live tree
//	DIR/.history/<tenant>/<name>/<rev>/…  every retained revision, read-only (EROFS)
//
// mkdir DIR/<tenant> makes a tenant folder (kept in memory until it holds a
// workspace); mkdir DIR/<tenant>/<name> creates a workspace with the default
// quotas; a bad name is EINVAL and a log line. rmdir of a workspace is EPERM:
// deleting history takes `wsfs rm`. With Options.Workspace one workspace is
// mounted at DIR itself; Options.Except leaves one workspace out of a full
// mount (a server that mounts one workspace for people mounts the others
// privately for commands, and each workspace is live in one mount only).
//
// # The live tree
//
// Each mounted workspace has a live tree of entries in memory, loaded lazily
// from its head revision's Merkle trees. FUSE nodes are thin wrappers that
// point at entries. File content stays in the object store until a file is
// opened: reads are served from a verified local copy of the whole blob (a
// blob failing verification gives EIO and a log line with workspace, path
// and digest — never wrong bytes, never ENOENT), and the first write copies
// the file into a private spool file (a truncate to 0, as O_TRUNC, copies
// nothing, so a file whose blob is damaged can still be overwritten).
// A spool's descriptor is open only while a handle on the file is, and
// once the file is committed and closed its spool becomes the verified
// copy of its new blob: the server holds descriptors for the open files
// and spool space for the files not yet committed, not for every file ever
// written. The verified copies are bounded by Options.BlobCacheBytes, the
// least recently opened removed first. Writes land in the live tree as
// they are made; a file open for writing holds back the autocommit until
// it is closed, so a commit made by the autocommit sees each file as of
// its last close.
//
// Snapshot commits the live tree as a revision: under the workspace's lock
// it freezes the changed part of the tree (pinning the spools of the
// changed files), then, without the lock, the changed files are hashed in
// parallel, only the trees on changed paths are built (clean directories
// keep their digests), all in a meta.Batch, and meta.CommitBatch stores
// what the store lacks with the revision's manifest (one upload, a pack,
// for a commit of small files) and records the revision with the
// stale-revision check; a short lock then installs the digests
// and clears the dirty marks of what did not change meanwhile. Edits made
// during the upload stay dirty for the next commit and are never lost; a
// file written during it moves to a new spool, so the commit keeps the
// content it froze. Edits made directly on the mount
// are committed after a quiet period (Options.QuietPeriod, default 2 s) and
// at Unmount. Hold pauses a workspace's autocommit (a run's turn, a
// change made through the server); Flush commits its pending edits.
//
// The mount follows meta's events (follow.go) rather than being told to
// reload: a commit made behind it (put, import, restore, another server)
// is merged into the live tree — paths the mount changed since its last
// commit, or holds open for writing, keep the mount's version, which its
// next commit records on top; every other path takes the new one, in
// place, and the kernel is told to forget what it cached. A settings
// change updates the quotas and never the tree; a create or a delete
// shows at once. So no write made on the mount is dropped by a change
// made beside it.
//
// # Quotas
//
// Every path that adds entries or bytes checks the workspace's quotas
// synchronously, before anything changes: create, mkdir, symlink, mknod
// (FIFOs, sockets, devices), link, write, truncate, fallocate, setxattr,
// rename (path limits of everything moved) and copy_file_range (the kernel
// falls back to writes). The root counts as an entry; every name counts as
// one. Errnos: entries and workspace bytes EDQUOT, bytes per file EFBIG,
// path components, path bytes, NAME_MAX (255) and symlink target length
// ENAMETOOLONG. Every refusal is logged with limit, usage and path and kept
// for Refusals, so the runner can print the server's words. statfs reports
// the quota as size and free space, so df tells the truth.
//
// # What the mount keeps
//
// The mount is a POSIX file system; a revision keeps what it holds (tree
// format 2, see meta), so restore, fork, export and .history/ show it too:
//
//   - Owners: uid and gid on every entry. A new entry takes the uid of the
//     process that makes it (from the FUSE request) and its gid, or the
//     directory's group when the directory has the setgid bit (a new
//     directory inherits the bit). The kernel checks who may do what
//     (default_permissions: modes, sticky directories, chown by root,
//     chgrp by the owner to one of its groups, utimes, moving a directory
//     to another parent) and clears SUID/SGID on chown and on a write or
//     truncate by another user, sending it as a mode change the mount
//     stores. Entries of trees written before owners were kept, and
//     entries made by put or import, have no recorded owner: they show as
//     the mount's user, as before (a chown records one).
//   - Hard links within a workspace: link(2), st_nlink, one inode for
//     every name (a write through one is seen through all), unlink and
//     rename over names; a revision records the names as one link group.
//     A link across workspaces is EXDEV. Each name counts as an entry and
//     counts the file's bytes, as in the revision's totals.
//   - FIFOs and unix sockets (mknod, mkfifo, bind): the kernel carries
//     their data on the live mount; revisions record them as entries of
//     their kind. mknod of a regular file makes an empty file. Device
//     nodes (root only, as the kernel checks) are recorded with their
//     number; the mount is nodev, so opening one is EACCES.
//   - O_TMPFILE: a nameless file, counted in no quota until linkat(2)
//     gives it a name; dropped at its last close otherwise.
//   - Extended attributes: user.* (on files and directories, by their
//     permissions) and trusted.* (root only) are kept with the entry,
//     within Linux's limits (names of 255 bytes, values of 64 KiB), and
//     their names and values count in the workspace's bytes quota (on
//     every name of a linked file). security.* and system.* (POSIX ACLs)
//     are not kept: getxattr finds none (ENODATA), setxattr is EOPNOTSUPP
//     for root (other users get the kernel's EPERM first); cp -a, tar and
//     rsync -X go on without them. The workspace's root has no entry in a
//     tree: its owner, mode and attributes are not kept in revisions.
//   - fsync and fdatasync of files and directories succeed: edits become
//     durable when they are committed as a revision (after the quiet
//     period, at a run's end, at unmount), not earlier.
//   - Times: mtime is kept in revisions; ctime changes with every change
//     of the inode (write, truncate, chmod, chown, utimes including an
//     atime-only touch, link, unlink, rename, xattrs) and atime is set by
//     utimes; both start as mtime when a tree is loaded.
//
// # What is not supported, and the errno
//
//   - fallocate other than mode 0 and FALLOC_FL_KEEP_SIZE: EOPNOTSUPP.
//   - SEEK_DATA/SEEK_HOLE: the kernel's generic answer (the whole file is data).
//   - Byte-range locks: the kernel's local locks; FUSE locking is not implemented.
//   - Opening a FIFO, socket or device through the file system's open: ENXIO
//     (the kernel handles FIFOs and sockets itself; devices are EACCES on a
//     nodev mount before the mount is asked).
//
// # Locks
//
// No lock that a getattr needs is held across store I/O: one slow GET or
// PUT stalls the operation that needs it, not the workspace. The order,
// outermost first (none is taken while holding one below it):
//
//  1. workspace.commitMu: one commit of a workspace at a time, held across
//     its uploads and CommitBatch (whose event reaches follow, which takes
//     FS.mu and workspace.pendMu).
//  2. FS.mu: the table of workspaces, tenants, holds and the workspaces a
//     mkdir is creating.
//  3. entry.io: the store and spool I/O of one entry (fetching its blob,
//     copying it to a spool, reading its tree), one entry at a time. Taken
//     only without workspace.mu: an operation that needs I/O lets go of
//     workspace.mu, takes entry.io, does the I/O, takes workspace.mu again
//     and checks that the entry is still as it was (load, makeWritable,
//     openBlob; operations that check several things before changing any,
//     like rename, start again when that happened: retrying).
//  4. workspace.mu: the live tree, its counters and quotas. Held only for
//     memory work and local spool calls, never across store I/O.
//  5. workspace.pendMu: whether a commit is under way and the newest event
//     that waits for it (follow.go); nothing is taken under it.
//  6. blobCache.mu: the cache's list (its per-digest fetch locks are taken
//     under entry.io, never under workspace.mu).
//
// Kernel caching is set explicitly (entry, attribute and negative timeouts,
// 1 s by default): go-fuse applies its default only when its options are nil.
package fusefs
