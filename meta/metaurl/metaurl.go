// Package metaurl opens meta on the engine a --meta URL names, as
// objects/storeurl opens stores: it is the one package that knows every
// engine.
//
//	bolt:///var/lib/wsfs/meta.db     a meta.db file (or just the path)
//	etcd://host:2379,host:2379/wsfs  an etcd cluster, records under "wsfs/"
//	etcds://host:2379/wsfs           the same over TLS
//
// etcd parameters: cacert, cert and key (PEM files; cacert alone also
// turns TLS on), server-name, user (or WSFS_ETCD_USERNAME; the password
// only from WSFS_ETCD_PASSWORD, never the URL), timeout (per request,
// default 5s), dial-timeout, max-txn-ops and max-request-bytes (when
// etcd runs with other limits than its defaults).
package metaurl

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/meta/kv"
	"github.com/wsfs/wsfs/meta/kv/boltkv"
	"github.com/wsfs/wsfs/meta/kv/etcdkv"
	"github.com/wsfs/wsfs/objects"
)

// Kind is an engine.
type Kind string

// The engines.
const (
	Bolt Kind = "bolt"
	Etcd Kind = "etcd"
)

// Spec is a parsed --meta URL.
type Spec struct {
	Kind Kind
	Path string         // Bolt: the meta.db file
	Etcd etcdkv.Options // Etcd
	URL  string         // as given, without secrets (there are none in it)
}

// String returns the URL.
func (s Spec) String() string { return s.URL }

// Default is the spec of meta.db in home.
func Default(home string) Spec {
	p := filepath.Join(home, meta.DBFileName)
	return Spec{Kind: Bolt, Path: p, URL: "bolt://" + p}
}

const want = "want bolt:///path/meta.db or etcd://host:2379[,host:2379]/prefix"

// Parse parses a --meta URL ("" is meta.db in home).
func Parse(raw, home string) (Spec, error) {
	if raw == "" {
		return Default(home), nil
	}
	if !strings.Contains(raw, "://") {
		if !filepath.IsAbs(raw) {
			return Spec{}, fmt.Errorf("meta %q: a meta.db path must be absolute (%s)", raw, want)
		}
		return Spec{Kind: Bolt, Path: filepath.Clean(raw), URL: "bolt://" + filepath.Clean(raw)}, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Spec{}, fmt.Errorf("meta %q: %v (%s)", raw, err, want)
	}
	switch u.Scheme {
	case "bolt", "file":
		p := u.Path
		if u.Host != "" || p == "" || !filepath.IsAbs(p) {
			return Spec{}, fmt.Errorf("meta %q: the path of a meta.db must be absolute, as bolt:///var/lib/wsfs/meta.db (%s)", raw, want)
		}
		if u.RawQuery != "" {
			return Spec{}, fmt.Errorf("meta %q: bolt:// takes no parameters", raw)
		}
		p = filepath.Clean(p)
		return Spec{Kind: Bolt, Path: p, URL: "bolt://" + p}, nil
	case "etcd", "etcds":
		return parseEtcd(raw, u)
	}
	return Spec{}, fmt.Errorf("meta %q: unknown scheme %q (%s)", raw, u.Scheme, want)
}

func parseEtcd(raw string, u *url.URL) (Spec, error) {
	bad := func(format string, args ...any) (Spec, error) {
		return Spec{}, fmt.Errorf("meta %q: %s (%s)", raw, fmt.Sprintf(format, args...), want)
	}
	if _, has := u.User.Password(); has {
		return bad("a password in the URL: give it in WSFS_ETCD_PASSWORD")
	}
	if u.Host == "" {
		return bad("no etcd endpoint")
	}
	o := etcdkv.Options{Username: os.Getenv("WSFS_ETCD_USERNAME"), Password: os.Getenv("WSFS_ETCD_PASSWORD")}
	if u.User != nil && u.User.Username() != "" {
		o.Username = u.User.Username()
	}
	for _, h := range strings.Split(u.Host, ",") {
		if h == "" {
			return bad("an empty endpoint")
		}
		if _, port, ok := strings.Cut(h, ":"); !ok || port == "" {
			h += ":2379"
		} else if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
			return bad("endpoint %q: bad port", h)
		}
		o.Endpoints = append(o.Endpoints, h)
	}
	o.Prefix = strings.Trim(u.Path, "/")
	if o.Prefix == "" {
		o.Prefix = "wsfs"
	}
	if strings.Contains(o.Prefix, "//") {
		return bad("an empty part in the key prefix %q", o.Prefix)
	}
	q := u.Query()
	useTLS := u.Scheme == "etcds"
	var tc tls.Config
	for key, vals := range q {
		v := vals[len(vals)-1]
		switch key {
		case "cacert":
			pem, err := os.ReadFile(v)
			if err != nil {
				return bad("cacert: %v", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return bad("cacert %s holds no PEM certificate", v)
			}
			tc.RootCAs, useTLS = pool, true
		case "cert", "key":
		case "server-name":
			tc.ServerName, useTLS = v, true
		case "user":
			o.Username = v
		case "tls":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return bad("tls=%q: want true or false", v)
			}
			useTLS = b
		case "timeout", "dial-timeout":
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return bad("%s=%q: want a duration such as 5s", key, v)
			}
			if key == "timeout" {
				o.RequestTimeout = d
			} else {
				o.DialTimeout = d
			}
		case "max-txn-ops", "max-request-bytes":
			n, err := strconv.Atoi(v)
			if err != nil || n < 8 {
				return bad("%s=%q: want a number of at least 8", key, v)
			}
			if key == "max-txn-ops" {
				o.MaxOps = n
			} else {
				// Room for the request's own framing.
				o.MaxBytes = n * 2 / 3
			}
		default:
			return bad("unknown parameter %q", key)
		}
	}
	if cert, key := q.Get("cert"), q.Get("key"); cert != "" || key != "" {
		if cert == "" || key == "" {
			return bad("cert and key go together")
		}
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return bad("client certificate: %v", err)
		}
		tc.Certificates, useTLS = []tls.Certificate{pair}, true
	}
	if useTLS {
		tc.MinVersion = tls.VersionTLS12
		o.TLS = &tc
	}
	clean := *u
	clean.User = nil
	if o.Username != "" && u.User != nil {
		clean.User = url.User(o.Username)
	}
	return Spec{Kind: Etcd, Etcd: o, URL: clean.String()}, nil
}

// OpenEngine opens the engine of spec alone, without meta (`wsfs meta
// copy` moves records between engines).
func OpenEngine(ctx context.Context, spec Spec, readOnly bool) (kv.Engine, error) {
	switch spec.Kind {
	case Etcd:
		e, err := etcdkv.Open(ctx, spec.Etcd)
		if err != nil {
			return nil, fmt.Errorf("meta: %w", err)
		}
		return e, nil
	case Bolt:
		if readOnly {
			if _, err := os.Stat(spec.Path); err != nil {
				return nil, fmt.Errorf("meta: %w", err)
			}
		}
		e, err := boltkv.Open(spec.Path, boltkv.Options{LockTimeout: time.Second, ReadOnly: readOnly})
		switch {
		case errors.Is(err, kv.ErrLocked):
			return nil, fmt.Errorf("meta: %s is in use by another process (a running server?): stop it first", spec.Path)
		case err != nil:
			return nil, fmt.Errorf("meta: %s: %w", spec.Path, err)
		}
		return e, nil
	}
	return nil, fmt.Errorf("metaurl: no engine %q", spec.Kind)
}

// Open opens meta on the engine of spec, with store as its object store.
func Open(ctx context.Context, spec Spec, store objects.Store, opts meta.Options) (*meta.DB, error) {
	switch spec.Kind {
	case Bolt:
		return meta.Open(ctx, spec.Path, store, opts)
	case Etcd:
		eo := spec.Etcd
		eo.Logger = opts.Logger
		eng, err := etcdkv.Open(ctx, eo)
		if err != nil {
			return nil, fmt.Errorf("meta: %w", err)
		}
		return meta.OpenEngine(ctx, eng, store, opts)
	}
	return nil, fmt.Errorf("metaurl: no engine %q", spec.Kind)
}
