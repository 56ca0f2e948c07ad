package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wsfs/wsfs/internal/home"
	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/meta/metaurl"
	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/objects/storeurl"
)

// homeDir returns the state folder from --home, WSFS_HOME or the default.
func (g *globalFlags) homeDir() (string, error) { return home.Dir(g.home) }

// storeURL is the store this command uses: --store, else $WSFS_STORE,
// else the objects folder under home.
func (g *globalFlags) storeURL(home string) (string, error) {
	if g.store != "" {
		return g.store, nil
	}
	return defaultStore(home)
}

// openStore opens the object store named by --store (or the default).
func (g *globalFlags) openStore(ctx context.Context) (objects.Store, string, error) {
	home, err := g.homeDir()
	if err != nil {
		return nil, "", err
	}
	raw, err := g.storeURL(home)
	if err != nil {
		return nil, "", err
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, "", fmt.Errorf("cannot create the state folder %s: %w (set --home or WSFS_HOME to a writable folder)", home, err)
	}
	st, err := storeurl.Open(ctx, raw, storeurl.Options{Home: home})
	if err != nil {
		return nil, "", err
	}
	return st, home, nil
}

// defaultStore is the objects folder under home, unless WSFS_STORE says otherwise.
func defaultStore(home string) (string, error) {
	if env := os.Getenv(storeurl.EnvStore); env != "" {
		return env, nil
	}
	return storeurl.FolderURL(filepath.Join(home, "objects")), nil
}

// metaSpec returns the metadata engine --meta names (meta.db in home by
// default).
func (g *globalFlags) metaSpec(home string) (metaurl.Spec, error) {
	spec, err := metaurl.Parse(g.meta, home)
	if err != nil {
		return metaurl.Spec{}, usageError{msg: err.Error()}
	}
	return spec, nil
}

// openDB opens the store and the metadata engine (meta.db under home by
// default, openMeta); done closes both.
func (g *globalFlags) openDB(ctx context.Context, readOnly bool) (db *meta.DB, done func(), err error) {
	st, home, err := g.openStore(ctx)
	if err != nil {
		return nil, nil, err
	}
	db, closeMeta, err := g.openMeta(ctx, st, home, meta.Options{ReadOnly: readOnly})
	if err != nil {
		closeStore(st)
		return nil, nil, err
	}
	return db, func() { closeMeta(); closeStore(st) }, nil
}

// openMeta opens home's meta.db with st, which must be the store the
// database belongs to (meta refuses another, naming both). A meta.db that
// does not exist is made only for a new home, whose store is empty too,
// and only by a command that writes: a read-only one sees an empty
// database that is not kept, so that a meta.db moved away is not
// silently replaced by an empty one (which `wsfs recover` would then
// have to be told to replace, and gc would take for a store of garbage).
// On a store that has objects, a missing meta.db is refused with the way
// to rebuild it. done closes the database.
func (g *globalFlags) openMeta(ctx context.Context, st objects.Store, home string, opts meta.Options) (db *meta.DB, done func(), err error) {
	raw, err := g.storeURL(home)
	if err != nil {
		return nil, nil, err
	}
	if opts.StoreID, err = storeurl.Identity(raw); err != nil {
		return nil, nil, err
	}
	spec, err := g.metaSpec(home)
	if err != nil {
		return nil, nil, err
	}
	path := spec.Path
	if _, err := os.Stat(path); spec.Kind == metaurl.Bolt && errors.Is(err, os.ErrNotExist) {
		empty, err := storeEmpty(ctx, st)
		if err != nil {
			return nil, nil, fmt.Errorf("no meta.db at %s, and listing the store %s to see whether this home is new failed: %w", path, raw, err)
		}
		if !empty {
			return nil, nil, fmt.Errorf("no meta.db at %s, but the store %s holds objects: `wsfs recover` rebuilds meta.db from the store (or give --home or WSFS_HOME the home that has it)",
				path, raw)
		}
		if opts.ReadOnly {
			return openEmpty(ctx, st, opts)
		}
	}
	db, err = metaurl.Open(ctx, spec, st, opts)
	if err != nil {
		return nil, nil, err
	}
	return db, func() { db.Close() }, nil
}

// openEmpty opens a new database in a temporary folder, for a read-only
// command on a new home; done removes it.
func openEmpty(ctx context.Context, st objects.Store, opts meta.Options) (*meta.DB, func(), error) {
	dir, err := os.MkdirTemp("", "wsfs-empty-")
	if err != nil {
		return nil, nil, err
	}
	opts.ReadOnly, opts.NoSync, opts.StoreID = false, true, ""
	db, err := meta.Open(ctx, filepath.Join(dir, meta.DBFileName), st, opts)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return db, func() { db.Close(); os.RemoveAll(dir) }, nil
}

// errFound stops a listing at its first blob.
var errFound = errors.New("found a blob")

// storeEmpty reports whether st holds no blob at all.
func storeEmpty(ctx context.Context, st objects.Store) (bool, error) {
	err := st.List(ctx, func(objects.Info) error { return errFound })
	switch {
	case errors.Is(err, errFound):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, nil
}

func closeStore(st objects.Store) {
	if c, ok := st.(interface{ Close() error }); ok {
		c.Close()
	}
}
