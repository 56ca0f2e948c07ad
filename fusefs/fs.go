package fusefs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
)

// Options configure a mount.
type Options struct {
	DB       *meta.DB
	SpoolDir string // local folder for write spooling and verified blob copies (created, emptied at mount)
	// QuietPeriod is how long a workspace edited on the mount must stay
	// quiet before its edits are committed (default 2 s; < 0 disables).
	QuietPeriod time.Duration
	// Workspace, if set, mounts that one workspace at the mount point.
	Workspace string
	// Except, if set, leaves that workspace out of a mount of all of
	// them: another mount (its own, with Workspace) serves it, and one
	// workspace must be live in one mount only.
	Except     string
	AllowOther bool
	// Kernel caching, set explicitly (go-fuse's 1 s default applies only
	// when its options are nil). Zero means 1 s; a negative value, none.
	EntryTimeout, AttrTimeout, NegativeTimeout time.Duration
	Logger                                     *slog.Logger
	// BlobCacheBytes bounds the verified copies of blobs kept in the
	// spool folder for reads (zero means DefaultBlobCacheBytes). Files
	// being written are not counted: each keeps its spool until it is
	// committed and closed.
	BlobCacheBytes int64
	Debug          bool
}

// FS is a mounted wsfs file system.
type FS struct {
	db       *meta.DB
	store    objects.Store
	opts     Options
	log      *slog.Logger
	spoolDir string
	blobs    *blobCache
	server   *fuse.Server
	dir      string
	uid, gid uint32
	// started is when the mount was made: the time of the folders it
	// makes up (the top, tenants, the history levels).
	started time.Time

	ino atomic.Uint64

	root      *gofs.Inode       // the top node, set when go-fuse adds it
	synthetic map[string]uint64 // inode numbers of tenant and history folders

	mu         sync.Mutex
	workspaces map[string]*workspace
	tenants    map[string]bool                      // tenants made by mkdir that have no workspace yet
	holds      map[string]int                       // workspaces whose autocommit is paused
	creating   map[string]bool                      // workspaces a mkdir on the mount is creating
	histLinks  map[objects.Digest]map[uint64]uint32 // link group sizes of recently seen revisions (linkCounts)

	unsubscribe func() // from meta's events (follow.go)

	stop      chan struct{}
	stopped   chan struct{}
	unmounted sync.Once
}

func (f *FS) nextIno() uint64 { return f.ino.Add(1) }

func timeout(d time.Duration) *time.Duration {
	switch {
	case d == 0:
		d = time.Second
	case d < 0:
		d = 0
	}
	return &d
}

// Mount mounts the workspaces of opts.DB at dir and serves them until
// Unmount. A stale FUSE mount at dir (left by a killed server) is cleaned
// first.
func Mount(ctx context.Context, dir string, opts Options) (*FS, error) {
	if opts.DB == nil {
		return nil, errors.New("fusefs: mount: no database")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("fusefs: mount %s: %w", dir, err)
	}
	if err := CleanStale(abs); err != nil {
		return nil, err
	}
	if opts.QuietPeriod == 0 {
		opts.QuietPeriod = 2 * time.Second
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if opts.SpoolDir == "" {
		return nil, errors.New("fusefs: mount: no spool folder")
	}
	if err := emptyDir(opts.SpoolDir); err != nil {
		return nil, fmt.Errorf("fusefs: emptying the spool folder %s: %w", opts.SpoolDir, err)
	}
	if err := os.MkdirAll(opts.SpoolDir, 0o700); err != nil {
		return nil, fmt.Errorf("fusefs: spool folder %s: %w", opts.SpoolDir, err)
	}
	f := &FS{db: opts.DB, store: opts.DB.Store(), opts: opts, log: log, spoolDir: opts.SpoolDir, dir: abs, started: time.Now(),
		uid: uint32(os.Getuid()), gid: uint32(os.Getgid()),
		workspaces: map[string]*workspace{}, tenants: map[string]bool{}, holds: map[string]int{}, creating: map[string]bool{},
		histLinks: map[objects.Digest]map[uint64]uint32{},
		stop:      make(chan struct{}), stopped: make(chan struct{})}
	f.ino.Store(firstDynamicIno)
	if f.blobs, err = newBlobCache(f.store, CopiesDir(opts.SpoolDir), cmp.Or(opts.BlobCacheBytes, DefaultBlobCacheBytes)); err != nil {
		return nil, err
	}
	// Following meta's events starts before any workspace loads, so that
	// no change falls between a load and the subscription.
	f.unsubscribe = f.db.Subscribe(f.follow)
	var root gofs.InodeEmbedder
	if opts.Workspace != "" {
		name, err := meta.ParseWorkspace(opts.Workspace)
		if err != nil {
			return nil, fmt.Errorf("fusefs: mount: %w", err)
		}
		ws, err := f.workspace(ctx, name)
		if err != nil {
			f.unsubscribe()
			return nil, fmt.Errorf("fusefs: mount %s: %w", name, err)
		}
		node := &wsNode{ws: ws, e: ws.root}
		ws.rootInode = node
		root = node
	} else {
		root = &rootNode{fsys: f}
	}
	mopts := &gofs.Options{
		EntryTimeout:    timeout(opts.EntryTimeout),
		AttrTimeout:     timeout(opts.AttrTimeout),
		NegativeTimeout: timeout(opts.NegativeTimeout),
		NullPermissions: true,
		UID:             f.uid,
		GID:             f.gid,
		MountOptions: fuse.MountOptions{
			AllowOther:    opts.AllowOther,
			FsName:        "wsfs",
			Name:          "wsfs",
			Options:       []string{"default_permissions"},
			MaxBackground: 64,
			Debug:         opts.Debug,
			DirectMount:   true,
		},
	}
	server, err := gofs.Mount(abs, root, mopts)
	if err != nil {
		f.unsubscribe()
		return nil, fmt.Errorf("fusefs: mount %s: %w (is /dev/fuse available and are you root or in the fuse group?)", abs, err)
	}
	f.server = server
	if err := closeDeviceOnExec(); err != nil {
		f.log.Warn("fusefs: programs started from now on may inherit /dev/fuse", "err", err)
	}
	go f.autocommit()
	return f, nil
}

// Dir returns the mount point.
func (f *FS) Dir() string { return f.dir }

// Wait blocks until the file system is unmounted.
func (f *FS) Wait() { f.server.Wait() }

// Unmount commits every workspace's pending edits, then unmounts.
func (f *FS) Unmount(ctx context.Context) error {
	var first error
	f.unmounted.Do(func() {
		close(f.stop)
		<-f.stopped
		for _, name := range f.workspaceNames() {
			if err := f.Flush(ctx, name); err != nil {
				f.log.Error("fusefs: pending edits not committed at unmount", "workspace", name, "err", err)
				if first == nil {
					first = err
				}
			}
		}
		f.unsubscribe()
		if err := f.server.Unmount(); err != nil {
			f.log.Warn("fusefs: unmount failed, detaching lazily", "dir", f.dir, "err", err)
			if err2 := syscall.Unmount(f.dir, syscall.MNT_DETACH); err2 != nil && first == nil {
				first = fmt.Errorf("fusefs: unmount %s: %w", f.dir, err)
			}
		}
		f.mu.Lock()
		for _, ws := range f.workspaces {
			ws.mu.Lock()
			closeSpools(ws.root)
			ws.mu.Unlock()
		}
		f.mu.Unlock()
		os.RemoveAll(f.spoolDir)
	})
	return first
}

func closeSpools(e *entry) {
	e.closeLocal()
	for _, c := range e.children {
		closeSpools(c)
	}
}

func (f *FS) workspaceNames() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	names := make([]string, 0, len(f.workspaces))
	for n := range f.workspaces {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// workspace returns the live state of a workspace, loading its head the
// first time.
func (f *FS) workspace(ctx context.Context, name string) (*workspace, error) {
	f.mu.Lock()
	ws, ok := f.workspaces[name]
	f.mu.Unlock()
	if ok {
		return ws, nil
	}
	ws, err := f.loadWorkspace(ctx, name)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if other, ok := f.workspaces[name]; ok {
		return other, nil
	}
	f.workspaces[name] = ws
	return ws, nil
}

// WorkspaceDir returns the host path of a workspace's live tree.
func (f *FS) WorkspaceDir(name string) (string, error) {
	n, err := meta.ParseWorkspace(name)
	if err != nil {
		return "", err
	}
	if f.opts.Workspace != "" {
		if n != f.opts.Workspace {
			return "", fmt.Errorf("fusefs: %s is not mounted (this mount shows only %s)", n, f.opts.Workspace)
		}
		return f.dir, nil
	}
	if n == f.opts.Except {
		return "", fmt.Errorf("fusefs: %s is not on this mount (another mount serves it)", n)
	}
	return filepath.Join(f.dir, filepath.FromSlash(n)), nil
}

// Snapshot commits ws's live tree as a new revision on top of base. No
// change gives committed false and the base revision.
func (f *FS) Snapshot(ctx context.Context, name string, base meta.RevNum, cwd string, info meta.CommitInfo) (meta.Revision, bool, error) {
	ws, err := f.workspace(ctx, name)
	if err != nil {
		return meta.Revision{}, false, err
	}
	return ws.commit(ctx, base, cwd, info)
}

// Flush commits the edits made on the mount since the last commit. A
// commit already under way (the autocommit's) ends first, so that what
// Flush returns after is in the history.
func (f *FS) Flush(ctx context.Context, name string) error {
	return f.flush(ctx, name, false)
}

// flush is Flush; unlessHeld (the autocommit) skips a held workspace,
// checked once no other commit of it runs.
func (f *FS) flush(ctx context.Context, name string, unlessHeld bool) error {
	f.mu.Lock()
	ws, ok := f.workspaces[name]
	f.mu.Unlock()
	if !ok {
		return nil // never loaded: nothing edited
	}
	ws.commitMu.Lock()
	defer ws.commitMu.Unlock()
	if unlessHeld {
		f.mu.Lock()
		held := f.holds[name] > 0
		f.mu.Unlock()
		if held {
			return nil
		}
	}
	ws.mu.Lock()
	dirty, base := ws.root.dirty, ws.head
	ws.mu.Unlock()
	if !dirty {
		return nil
	}
	_, _, err := ws.commitLocked(ctx, base, "", meta.CommitInfo{Command: "(edits on the mount)", Author: "mount"})
	return err
}

// Hold pauses the autocommit of a workspace until release is called. An
// autocommit already under way ends before Hold returns: while held, the
// workspace's head moves only through its holder (and changes made
// behind the mount).
func (f *FS) Hold(name string) (release func()) {
	f.mu.Lock()
	f.holds[name]++
	ws := f.workspaces[name]
	f.mu.Unlock()
	if ws != nil {
		ws.waitCommit()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			if f.holds[name]--; f.holds[name] <= 0 {
				delete(f.holds, name)
			}
			f.mu.Unlock()
		})
	}
}

// forget drops a deleted workspace's live state.
func (f *FS) forget(name string) {
	f.mu.Lock()
	ws, ok := f.workspaces[name]
	delete(f.workspaces, name)
	f.mu.Unlock()
	if ok {
		ws.mu.Lock()
		detach(ws.root)
		ws.mu.Unlock()
		if parent := f.tenantInode(strings.SplitN(name, "/", 2)[0]); parent != nil {
			parent.NotifyEntry(strings.SplitN(name, "/", 2)[1])
		}
	}
}

// detach marks a subtree unreachable, releasing spools nobody holds open.
func detach(e *entry) {
	e.unlinked = true
	e.releaseLocal()
	for _, c := range e.children {
		detach(c)
	}
}

// Refusals returns and clears the quota refusals of a workspace, oldest
// first (at most the last 100).
func (f *FS) Refusals(name string) []*meta.QuotaError {
	f.mu.Lock()
	ws, ok := f.workspaces[name]
	f.mu.Unlock()
	if !ok {
		return nil
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	r := ws.refusals
	ws.refusals = nil
	return r
}

// autocommit commits edits made on the mount after a quiet period.
func (f *FS) autocommit() {
	defer close(f.stopped)
	if f.opts.QuietPeriod < 0 {
		<-f.stop
		return
	}
	tick := time.NewTicker(max(f.opts.QuietPeriod/4, 50*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-f.stop:
			return
		case <-tick.C:
		}
		for _, name := range f.workspaceNames() {
			f.mu.Lock()
			ws, held := f.workspaces[name], f.holds[name] > 0
			f.mu.Unlock()
			if ws == nil || held {
				continue
			}
			ws.mu.Lock()
			due := ws.root.dirty && time.Since(ws.changed) >= f.opts.QuietPeriod && !hasWriters(ws.root)
			ws.mu.Unlock()
			if !due {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			if err := f.flush(ctx, name, true); err != nil {
				f.log.Error("fusefs: autocommit failed; the edits stay on the mount and are tried again", "workspace", name, "err", err)
				ws.mu.Lock()
				ws.changed = time.Now()
				ws.mu.Unlock()
			}
			cancel()
		}
	}
}

// hasWriters reports files still open for writing in a changed subtree:
// their content has not landed yet.
func hasWriters(d *entry) bool {
	for _, c := range d.children {
		if c.writers > 0 || (c.isDir() && c.dirty && hasWriters(c)) {
			return true
		}
	}
	return false
}

func (f *FS) logBlobError(ws, p string, d objects.Digest, err error) {
	f.log.Error("fusefs: cannot read a file's content", "workspace", ws, "path", p, "digest", d.String(), "err", err)
}

// CleanStale detaches a FUSE mount left at dir by a process that died, so
// a new mount can take its place. A live mount is left alone and reported.
func CleanStale(dir string) error {
	// statfs always reaches the file system; stat may be answered from
	// the kernel's attribute cache for a moment after the server died.
	var st syscall.Statfs_t
	err := syscall.Statfs(dir, &st)
	if err == nil {
		if mounted(dir) {
			return fmt.Errorf("fusefs: %s is already a mount point that answers; unmount it first (wsfs umount %s)", dir, dir)
		}
		return nil
	}
	if errors.Is(err, syscall.ENOTCONN) || errors.Is(err, syscall.ECONNABORTED) {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			return fmt.Errorf("fusefs: %s is a stale mount (its server died) and cannot be detached: %w; run fusermount3 -uz %s", dir, err, dir)
		}
		return nil
	}
	if errors.Is(err, syscall.ENOENT) {
		return fmt.Errorf("fusefs: mount point %s does not exist; create it first (mkdir -p %s)", dir, dir)
	}
	return fmt.Errorf("fusefs: mount point %s: %w", dir, err)
}

// mounted reports whether dir is listed as a FUSE mount in /proc/mounts.
func mounted(dir string) bool {
	b, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		fields := strings.Fields(line)
		if len(fields) >= 3 && fields[1] == dir && strings.HasPrefix(fields[2], "fuse") {
			return true
		}
	}
	return false
}

// Inode numbers: 1 is the root, 2 the .history folder; entries and
// synthetic folders count up from firstDynamicIno.
const firstDynamicIno = 16

// emptyDir removes everything dir holds but not dir itself, which may be
// a mount point (a spool on a disk of its own).
func emptyDir(dir string) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
