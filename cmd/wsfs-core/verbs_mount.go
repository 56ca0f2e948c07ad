package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/wsfs/wsfs/api"
	"github.com/wsfs/wsfs/fusefs"
	"github.com/wsfs/wsfs/internal/home"
	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/runsvc"
	"github.com/wsfs/wsfs/runsvc/runwire"
)

func init() {
	register(&verb{name: "mount", args: "[--workspace T/N] [--quiet 2s] [--allow-other] DIR",
		summary: "serve every workspace as a live directory at DIR (the wsfs server: FUSE mount and control socket)", run: runMount})
	register(&verb{name: "serve", args: "--listen ADDR [--tls-cert FILE --tls-key FILE] [--insecure-listen] [--rate N] [--burst N] [--max-runs N]",
		summary: "serve the HTTP API (/v1, live output, MCP) for agents on the network: the wsfs server, its mount private to it", run: runServe})
	register(&verb{name: "umount", args: "[DIR]", summary: "stop the server of DIR (without DIR: the home's server, wsfs serve's): commit pending edits, unmount, remove the socket", run: runUmount})
}

// shutdownTimeout bounds the clean stop of a server: calls in flight, the
// commit of pending edits and the unmount.
const shutdownTimeout = time.Minute

// serverFlags are the flags of a server: wsfs mount's and wsfs serve's.
type serverFlags struct {
	workspace        *string
	quiet            *time.Duration
	allowOther       *bool
	debug            *bool
	removeMountPoint *bool
	workers          *int
	parked           *int
	shared           *bool
	idle             *time.Duration
	lease            *time.Duration
	net              netFlags
	serve            bool // wsfs serve: the mount is the server's own
}

// netFlags say how a server serves the API on the network.
type netFlags struct {
	listen          []string
	tlsCert, tlsKey *string
	insecure        *bool
	rate            *float64
	burst, maxRuns  *int
}

func addServerFlags(fs *flag.FlagSet, mount bool) *serverFlags {
	f := &serverFlags{}
	if mount {
		f.workspace = fs.String("workspace", "", "mount this one workspace (TENANT/NAME) at DIR instead of all of them")
		f.allowOther = fs.Bool("allow-other", false, "let other users reach the mount (needs user_allow_other in /etc/fuse.conf for non-root)")
		f.removeMountPoint = fs.Bool("remove-mount-point", false, "remove DIR after unmounting")
		f.shared = fs.Bool("shared", false, "a server started by wsfs run: it stops once idle (--idle), and a wsfs mount takes its place")
	} else {
		f.workspace, f.allowOther, f.removeMountPoint, f.shared = new(string), new(bool), new(bool), new(bool)
	}
	f.quiet = fs.Duration("quiet", 2*time.Second, "commit edits made on the mount after they have been quiet this long (negative: only at unmount)")
	f.debug = fs.Bool("debug", false, "log every FUSE request")
	f.workers = fs.Int("workers", runsvc.DefaultMaxRunning, "wsfs run commands that run at once, across workspaces (the others wait their turn)")
	f.parked = fs.Int("parked", runsvc.DefaultParked, "workers kept confined to a workspace for its next command, 30 to 60 MiB each (0: none)")
	f.lease = fs.Duration("lease", 0, "with --meta etcd://…: register this server and own each workspace it commits to, until it has not answered etcd for this long (0: share every workspace, with the stale check alone)")
	f.idle = fs.Duration("idle", 0, "stop once no command or change has come for this long (0: never; default with --shared: "+runwire.SharedIdle.String()+")")
	fs.Func("listen", "serve the HTTP API (/v1, MCP) on this address, host:port (repeatable); plain HTTP only on a loopback address unless --tls-cert/--tls-key or --insecure-listen", func(s string) error {
		f.net.listen = append(f.net.listen, s)
		return nil
	})
	f.net.tlsCert = fs.String("tls-cert", "", "the API's TLS certificate (PEM); with --tls-key it speaks HTTPS (HTTP/1.1 and HTTP/2)")
	f.net.tlsKey = fs.String("tls-key", "", "the TLS certificate's private key (PEM)")
	f.net.insecure = fs.Bool("insecure-listen", false, "allow plain HTTP on an address other than loopback (behind a proxy that terminates TLS)")
	f.net.rate = fs.Float64("rate", api.DefaultLimits.Rate, "requests a second one API key may make")
	f.net.burst = fs.Int("burst", api.DefaultLimits.Burst, "requests one API key may make at once above its rate")
	f.net.maxRuns = fs.Int("max-runs", api.DefaultLimits.MaxRuns, "commands one API key may have queued or running at once")
	return f
}

// check validates the flags as a usage error.
func (f *serverFlags) check() error {
	if *f.workspace != "" {
		name, err := meta.ParseWorkspace(*f.workspace)
		if err != nil {
			return usagef("--workspace: %v", err)
		}
		*f.workspace = name
	}
	switch {
	case *f.quiet == 0:
		return usagef("--quiet must not be 0 (use a negative value to commit only at unmount)")
	case *f.parked < 0:
		return usagef("--parked must be 0 or more")
	case *f.workers < 1:
		return usagef("--workers must be 1 or more")
	case *f.idle < 0:
		return usagef("--idle must be 0 (never) or more")
	case *f.lease < 0 || *f.lease > 0 && *f.lease < time.Second:
		return usagef("--lease must be 0 (no ownership) or at least 1s")
	case (*f.net.tlsCert == "") != (*f.net.tlsKey == ""):
		return usagef("--tls-cert and --tls-key go together")
	case len(f.net.listen) == 0 && (*f.net.tlsCert != "" || *f.net.insecure):
		return usagef("--tls-cert, --tls-key and --insecure-listen are for --listen ADDR")
	case *f.net.rate <= 0 || *f.net.burst < 1 || *f.net.maxRuns < 1:
		return usagef("--rate, --burst and --max-runs must be more than 0")
	}
	for _, addr := range f.net.listen {
		if err := api.ValidateListen(f.listenOptions(addr)); err != nil {
			return usagef("%v", err)
		}
	}
	if *f.shared && *f.idle == 0 {
		*f.idle = runwire.SharedIdle
	}
	return nil
}

func (f *serverFlags) listenOptions(addr string) api.ListenOptions {
	return api.ListenOptions{Addr: addr, TLSCert: *f.net.tlsCert, TLSKey: *f.net.tlsKey, Insecure: *f.net.insecure}
}

func runMount(ctx context.Context, a *app, args []string) error {
	v := verbs["mount"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	sf := addServerFlags(fs, true)
	foreground := fs.Bool("foreground", true, "wsfs mount always stays in the foreground, serving until stopped (the flag is accepted for mount helpers; --foreground=false is refused): run it under a service manager (systemd) or with & to detach")
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("takes one mount point")
	}
	if !*foreground {
		return usagef("--foreground=false is not supported: run wsfs mount under a service manager (systemd, supervisord) or with & to detach")
	}
	if err := sf.check(); err != nil {
		return err
	}
	dir, err := filepath.Abs(fs.Arg(0))
	if err != nil {
		return err
	}
	return runServer(ctx, a, &g, sf, dir)
}

// runServe is wsfs serve: the server, with its mount in the home (the
// workspaces are reached through the API, not a folder people open) and
// the API on the network. It is wsfs mount with --listen: one process
// holds meta.db and the mount, so the network plane is a listener of the
// server, not a process of its own (see docs/DESIGN.md).
func runServe(ctx context.Context, a *app, args []string) error {
	v := verbs["serve"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	sf := addServerFlags(fs, false)
	sf.serve = true
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("takes flags only (wsfs mount DIR --listen ADDR also shows the workspaces in a folder)")
	}
	if len(sf.net.listen) == 0 {
		return usagef("--listen ADDR is required (127.0.0.1:8080 for this machine; another address needs --tls-cert and --tls-key)")
	}
	if err := sf.check(); err != nil {
		return err
	}
	h, err := g.homeDir()
	if err != nil {
		return err
	}
	dir := home.Of(h).SharedMount()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("the server's mount point %s: %w", dir, err)
	}
	return runServer(ctx, a, &g, sf, dir)
}

// runServer is the wsfs server: it mounts every workspace at dir (or one,
// with --workspace), runs commands, serves the control socket and, with
// --listen, the API on the network, until a signal, wsfs umount or idle.
func runServer(ctx context.Context, a *app, g *globalFlags, sf *serverFlags, dir string) error {
	workspace, quiet, shared, idle := *sf.workspace, *sf.quiet, *sf.shared, *sf.idle
	home, err := g.homeDir()
	if err != nil {
		return err
	}
	level := slog.LevelInfo
	if os.Getenv("WSFS_DEBUG") != "" {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))

	if err := clearServer(ctx, a, home, shared); err != nil {
		return err
	}
	if fi, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("mount point %s does not exist; create it first (mkdir -p %s)", dir, dir)
	} else if err == nil && !fi.IsDir() {
		return fmt.Errorf("mount point %s is not a directory", dir)
	}
	if isStaleMount(dir) {
		fmt.Fprintf(a.stderr, "wsfs mount: %s is a stale mount left by a wsfs server that died; detaching it before mounting (edits not committed before the crash are lost; committed revisions are intact)\n", dir)
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			return fmt.Errorf("the stale mount %s cannot be detached: %w; run fusermount3 -uz %s", dir, err, dir)
		}
	}

	st, home, err := g.openStore(ctx)
	if err != nil {
		return err
	}
	defer closeStore(st)
	storeURL, err := g.storeURL(home)
	if err != nil {
		return err
	}
	// A server that wsfs run starts waits for the verbs that have meta.db
	// open (they open it directly while no server runs) to let it go.
	lockWait := time.Second
	if shared {
		lockWait = heldWait
	}
	db, closeDB, err := g.openMeta(ctx, st, home, meta.Options{Logger: log, LockTimeout: lockWait})
	if errors.Is(err, meta.ErrInUse) {
		return heldError(home, err)
	}
	if err != nil {
		return err
	}
	defer closeDB()
	if lease := *sf.lease; lease > 0 {
		m, err := db.Join(ctx, meta.ServerInfo{}, lease)
		if err != nil {
			return err
		}
		if m == nil {
			return usagef("--lease needs an engine that several servers share (--meta etcd://…)")
		}
		log.Info("wsfs: registered on "+db.String(), "server", m.Info().ID, "lease", lease.String())
		go func() {
			<-m.Done()
			if ctx.Err() == nil {
				log.Error("wsfs: this server's lease on etcd ended (etcd did not hear from it for "+lease.String()+"): other servers may take its workspaces, and its commits are refused; restart the server", "server", m.Info().ID)
			}
		}()
	}

	fsys, err := fusefs.Mount(ctx, dir, fusefs.Options{DB: db, SpoolDir: filepath.Join(home, "spool"), QuietPeriod: quiet,
		Workspace: workspace, AllowOther: *sf.allowOther, Logger: log, Debug: *sf.debug})
	if err != nil {
		return err
	}
	var mount runsvc.Mount = fsys
	unmount := fsys.Unmount
	if workspace != "" {
		others, err := mountOthers(ctx, home, db, workspace, quiet, log)
		if err != nil {
			fsys.Unmount(context.Background())
			return err
		}
		both := oneAndOthers{name: workspace, one: fsys, others: others}
		mount, unmount = both, both.unmountBoth
	}
	exe, err := os.Executable()
	if err != nil {
		unmount(context.Background())
		return fmt.Errorf("finding this binary to start wsfs run's workers: %w", err)
	}
	parkedMax := *sf.parked
	if parkedMax == 0 {
		parkedMax = -1
	}
	svc, err := runsvc.New(runsvc.Config{DB: db, Mount: mount, Program: exe, JSCache: jsCacheDir(home), Store: storeURL,
		MaxRunning: *sf.workers, MaxParked: parkedMax, Unconfined: os.Getenv("WSFS_NO_CONFINE") != "", Logger: log})
	if err != nil {
		unmount(context.Background())
		return err
	}
	srv := api.NewServer(api.Config{DB: db, Runs: svc, MountDir: dir, Home: home, Store: storeURL, Version: versionString(),
		Logger: log, Shared: shared, Limits: api.Limits{Rate: *sf.net.rate, Burst: *sf.net.burst, MaxRuns: *sf.net.maxRuns}})
	info, err := srv.Start(ctx)
	if err != nil {
		uctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		svc.Close(uctx)
		if uerr := unmount(uctx); uerr != nil {
			log.Error("wsfs mount: unmount after a failed start", "err", uerr)
		}
		return err
	}
	var urls []string
	for _, addr := range sf.net.listen {
		url, err := srv.Listen(ctx, sf.listenOptions(addr))
		if err != nil {
			uctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
			defer cancel()
			srv.Close(uctx)
			svc.Close(uctx)
			if uerr := unmount(uctx); uerr != nil {
				log.Error("wsfs mount: unmount after a failed start", "err", uerr)
			}
			return err
		}
		urls = append(urls, url)
	}
	// One readiness line, once everything answers.
	switch {
	case len(urls) == 0:
		fmt.Fprintf(a.stdout, "wsfs: serving %s (socket %s)\n", dir, info.Socket)
	case sf.serve:
		fmt.Fprintf(a.stdout, "wsfs: serving the API on %s (socket %s)\n", strings.Join(urls, " and "), info.Socket)
	default:
		fmt.Fprintf(a.stdout, "wsfs: serving %s and the API on %s (socket %s)\n", dir, strings.Join(urls, " and "), info.Socket)
	}

	unmounted := make(chan struct{})
	go func() { fsys.Wait(); close(unmounted) }()
	idled := idleWatch(ctx, svc, idle)
	reason := ""
	select {
	case <-ctx.Done():
		reason = "signal"
	case <-srv.ShutdownRequested():
		reason = "wsfs umount"
	case <-unmounted:
		reason = "unmounted from outside (fusermount -u)"
	case <-idled:
		reason = fmt.Sprintf("no command for %s", idle)
	}
	log.Info("wsfs mount: stopping", "dir", dir, "reason", reason)
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	// Stop taking calls and commands first (those under way finish), then
	// commit the pending edits and unmount, and only then let go of
	// meta.db.
	serr := srv.Close(sctx)
	if err := svc.Close(sctx); err != nil && serr == nil {
		serr = err
	}
	uerr := unmount(sctx)
	if uerr != nil {
		return fmt.Errorf("unmounting %s: %w (run wsfs umount %s to detach it)", dir, uerr, dir)
	}
	if serr != nil {
		return serr
	}
	if *sf.removeMountPoint {
		if err := os.Remove(dir); err != nil {
			log.Warn("wsfs mount: the mount point stays", "dir", dir, "err", err)
		}
	}
	log.Info("wsfs mount: stopped cleanly", "dir", dir)
	return nil
}

// idleWatch returns a channel closed once svc has had no command or change
// for d (never, for d 0).
func idleWatch(ctx context.Context, svc *runsvc.Service, d time.Duration) <-chan struct{} {
	idled := make(chan struct{})
	if d <= 0 {
		return idled
	}
	go func() {
		tick := time.NewTicker(min(d/4, time.Second))
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if since, ok := svc.IdleSince(); ok && time.Since(since) >= d {
				close(idled)
				return
			}
		}
	}()
	return idled
}

// clearServer handles the home's server.json before a mount: a live
// server that answers means the store is taken, unless it is one that
// wsfs run started (and this mount is not one), which is asked to stop
// (its commands finish first) and replaced; a dead one's leftovers (its
// stale mount, socket and server.json) are cleaned with a message.
func clearServer(ctx context.Context, a *app, home string, shared bool) error {
	c, err := api.Dial(ctx, home)
	if err == nil {
		h := c.Health()
		defer c.Close()
		if !h.Shared || shared {
			return fmt.Errorf("this store is already served by PID %d at %s; stop it first with wsfs umount %s", h.PID, h.MountDir, h.MountDir)
		}
		fmt.Fprintf(a.stderr, "wsfs mount: the server that wsfs run started (PID %d) stops for this one once its commands end\n", h.PID)
		if err := c.Shutdown(ctx); err != nil {
			return fmt.Errorf("asking the server PID %d that wsfs run started to stop: %w", h.PID, err)
		}
		return waitGone(ctx, h.PID, h.MountDir)
	}
	info, rerr := api.ReadInfo(home)
	if rerr != nil || info.Alive() {
		// No server.json, or a live process that does not answer: meta.Open
		// names it if it holds meta.db.
		return nil
	}
	fmt.Fprintf(a.stderr, "wsfs mount: the server PID %d (started %s) died without cleaning up; removing its socket and server.json\n",
		info.PID, shortTime(info.Started))
	if info.MountDir != "" && isStaleMount(info.MountDir) {
		fmt.Fprintf(a.stderr, "wsfs mount: detaching its stale mount at %s\n", info.MountDir)
		if err := syscall.Unmount(info.MountDir, syscall.MNT_DETACH); err != nil {
			return fmt.Errorf("the stale mount %s of dead server PID %d cannot be detached: %w; run fusermount3 -uz %s", info.MountDir, info.PID, err, info.MountDir)
		}
	}
	return api.RemoveStale(home)
}

// isStaleMount reports a FUSE mount whose server is gone: stat or statfs
// fails with ENOTCONN (or ECONNABORTED). Statfs always reaches the FUSE
// connection, while stat may be answered from the kernel's attribute cache
// for a moment after the server died.
func isStaleMount(dir string) bool {
	dead := func(err error) bool { return errors.Is(err, syscall.ENOTCONN) || errors.Is(err, syscall.ECONNABORTED) }
	var st syscall.Stat_t
	if dead(syscall.Stat(dir, &st)) {
		return true
	}
	var sfs syscall.Statfs_t
	return mountedFUSE(dir) && dead(syscall.Statfs(dir, &sfs))
}

// mountedFUSE reports whether /proc/self/mounts lists a FUSE mount at dir.
func mountedFUSE(dir string) bool {
	b, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && unescapeMount(f[1]) == dir && strings.HasPrefix(f[2], "fuse") {
			return true
		}
	}
	return false
}

// unescapeMount undoes the octal escapes of /proc/mounts (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			var n int
			if _, err := fmt.Sscanf(s[i+1:i+4], "%3o", &n); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func runUmount(ctx context.Context, a *app, args []string) error {
	v := verbs["umount"]
	var g globalFlags
	fs := newFlags(a, v, &g)
	if err := parse(a, v, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usagef("takes one mount point, or none for the home's server (wsfs serve's)")
	}
	home, err := g.homeDir()
	if err != nil {
		return err
	}
	dir := ""
	if fs.NArg() == 1 {
		if dir, err = filepath.Abs(fs.Arg(0)); err != nil {
			return err
		}
	}
	c, err := api.Dial(ctx, home)
	if err == nil {
		defer c.Close()
		h := c.Health()
		if dir == "" {
			dir = h.MountDir
		}
		if h.MountDir != dir {
			return fmt.Errorf("the wsfs server of %s (PID %d) serves %s, not %s; name that folder, or set --home/WSFS_HOME to the home of the server of %s", home, h.PID, h.MountDir, dir, dir)
		}
		if err := c.Shutdown(ctx); err != nil {
			return fmt.Errorf("asking server PID %d to stop: %w", h.PID, err)
		}
		if err := waitGone(ctx, h.PID, dir); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "wsfs: unmounted %s (pending edits committed)\n", dir)
		return nil
	}
	if !errors.Is(err, api.ErrNoServer) && !errors.Is(err, api.ErrUnreachable) {
		return err
	}
	if dir == "" {
		return fmt.Errorf("no wsfs server runs for %s: %w", home, meta.ErrNotFound)
	}
	switch {
	case isStaleMount(dir):
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			return fmt.Errorf("%s is a stale mount (its server died) and cannot be detached: %w; run fusermount3 -uz %s", dir, err, dir)
		}
		fmt.Fprintf(a.stderr, "wsfs umount: no server answers for %s: it was a stale mount left by a server that died; detached it lazily (edits not committed before the crash are lost; committed revisions are intact)\n", dir)
		if info, rerr := api.ReadInfo(home); rerr == nil && info.MountDir == dir {
			_ = api.RemoveStale(home)
		}
		return nil
	case mountedFUSE(dir):
		return fmt.Errorf("%s is a FUSE mount that answers but no wsfs server of %s serves it; set --home/WSFS_HOME to its server's home, or force it with fusermount3 -uz %s", dir, home, dir)
	}
	return fmt.Errorf("%s is not mounted (no wsfs server runs for %s): %w", dir, home, meta.ErrNotFound)
}

// waitGone waits until the server process pid has exited and dir is no
// longer mounted.
func waitGone(ctx context.Context, pid int, dir string) error {
	ctx, cancel := context.WithTimeout(ctx, shutdownTimeout)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if !(api.Info{PID: pid}).Alive() && !mountedFUSE(dir) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("server PID %d did not stop within %s (is a file on %s still busy?): %w", pid, shutdownTimeout, dir, ctx.Err())
		case <-tick.C:
		}
	}
}
