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

// openStore opens the object store named by --store (or the default).
func (g *globalFlags) openStore(ctx context.Context) (objects.Store, string, error) {
	home, err := g.homeDir()
	if err != nil {
		return nil, "", err
	}
	raw := g.store
	if raw == "" {
		if raw, err = defaultStore(home); err != nil {
			return nil, "", err
		}
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
// default).
func (g *globalFlags) openDB(ctx context.Context, readOnly bool) (*meta.DB, error) {
	return g.openDBWith(ctx, readOnly, meta.Options{})
}

func (g *globalFlags) openDBWith(ctx context.Context, readOnly bool, opts meta.Options) (*meta.DB, error) {
	st, home, err := g.openStore(ctx)
	if err != nil {
		return nil, err
	}
	spec, err := g.metaSpec(home)
	if err != nil {
		closeStore(st)
		return nil, err
	}
	if spec.Kind == metaurl.Bolt {
		if _, err := os.Stat(spec.Path); errors.Is(err, os.ErrNotExist) {
			readOnly = false // a fresh home: create the empty database
		}
	}
	opts.ReadOnly = readOnly
	db, err := metaurl.Open(ctx, spec, st, opts)
	if err != nil {
		closeStore(st)
		return nil, err
	}
	return db, nil
}

func closeStore(st objects.Store) {
	if c, ok := st.(interface{ Close() error }); ok {
		c.Close()
	}
}

func closeDB(db *meta.DB) {
	st := db.Store()
	db.Close()
	closeStore(st)
}
