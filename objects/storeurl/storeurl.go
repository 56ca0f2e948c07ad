// Package storeurl turns the --store flag (or WSFS_STORE) into an open
// objects.Store, so that every wsfs command selects its store the same way.
//
// A store URL is one of:
//
//	file:///var/lib/wsfs/objects        a local folder (created if missing)
//	/var/lib/wsfs/objects               the same, as a plain absolute path
//	s3://bucket/prefix?endpoint=host:port&region=us-east-1&secure=false&path_style=true&cache=256MiB&conditional=auto
//
// For s3, every query parameter is optional: endpoint defaults to
// $WSFS_S3_ENDPOINT, else s3.amazonaws.com; region to $WSFS_S3_REGION, else
// us-east-1; secure to true (an endpoint written as http://... or
// https://... decides by itself); path_style to auto (true, false or auto);
// cache, the size of the local read cache, to 256MiB ("0" or "off" turns it
// off); conditional to auto (uploads are conditional writes, If-None-Match,
// unless the server answers that it does not implement them; false never
// sends them). Credentials never go in the URL: they come from
// WSFS_S3_ACCESS_KEY_ID / WSFS_S3_SECRET_ACCESS_KEY, else AWS_ACCESS_KEY_ID /
// AWS_SECRET_ACCESS_KEY (and the matching session token variables).
//
// Cloudflare R2:
//
//	s3://wsfs/prod?endpoint=https://<account id>.r2.cloudflarestorage.com&region=auto
//
// With no URL, Default picks $WSFS_STORE, else the folder "objects" under
// Home ($WSFS_HOME, else ~/.local/share/wsfs, or /var/lib/wsfs for root),
// where the server also keeps meta.db and its state.
package storeurl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/wsfs/wsfs/internal/home"
	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/objects/s3"
)

// Environment variables read by this package.
const (
	EnvStore      = "WSFS_STORE"       // the store URL when --store is not given
	EnvHome       = home.EnvHome       // wsfs's own folder (meta.db, state, cache, default store)
	EnvS3Endpoint = "WSFS_S3_ENDPOINT" // default endpoint of s3:// URLs
	EnvS3Region   = "WSFS_S3_REGION"   // default region of s3:// URLs
)

// DefaultCacheSize is the local read cache of a remote store when the URL
// does not say.
const DefaultCacheSize = 256 << 20

const defaultS3Endpoint = "s3.amazonaws.com"

// Kind is the sort of store a URL names.
type Kind string

// The kinds of store.
const (
	KindFile Kind = "file"
	KindS3   Kind = "s3"
)

// Spec is a parsed store URL.
type Spec struct {
	Kind Kind
	// Path is the folder of a file store (absolute, cleaned).
	Path string
	// S3 configures an s3 store; credentials are left for s3.New to find
	// in the environment.
	S3 s3.Config
	// CacheSize is the local read cache of a remote store in bytes; 0
	// means no cache.
	CacheSize int64
}

// String gives the canonical URL of the spec (without credentials, which a
// spec never holds).
func (s Spec) String() string {
	if s.Kind == KindFile {
		return FolderURL(s.Path)
	}
	q := url.Values{}
	q.Set("endpoint", s.S3.Endpoint)
	q.Set("region", s.S3.Region)
	q.Set("secure", strconv.FormatBool(s.S3.Secure))
	q.Set("path_style", s.S3.Addressing.String())
	q.Set("cache", formatSize(s.CacheSize))
	if s.S3.ConditionalWrites != s3.ConditionalAuto {
		q.Set("conditional", s.S3.ConditionalWrites.String())
	}
	u := url.URL{Scheme: "s3", Host: s.S3.Bucket, RawQuery: q.Encode()}
	if s.S3.Prefix != "" {
		u.Path = "/" + s.S3.Prefix
	}
	return u.String()
}

// Identity names the objects the spec reaches: a folder's URL, or an S3
// store's bucket, prefix and endpoint (without its scheme), leaving out
// the settings that do not change which objects it holds (region, cache,
// path style, conditional writes). A database records it (meta's
// Options.StoreID), so two spellings of one store are one store.
func (s Spec) Identity() string {
	if s.Kind == KindFile {
		return FolderURL(s.Path)
	}
	u := url.URL{Scheme: "s3", Host: s.S3.Bucket, RawQuery: "endpoint=" + endpointHost(s.S3.Endpoint)}
	if s.S3.Prefix != "" {
		u.Path = "/" + s.S3.Prefix
	}
	return u.String()
}

// Identity is the identity of the store raw names (Spec.Identity).
func Identity(raw string) (string, error) {
	spec, err := Parse(raw)
	if err != nil {
		return "", err
	}
	return spec.Identity(), nil
}

// endpointHost is an endpoint without its scheme and trailing slash.
func endpointHost(ep string) string {
	return strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(ep, "https://"), "http://"), "/")
}

// malformed builds the one-line error for a bad URL.
func malformed(raw, why string) error {
	return fmt.Errorf("storeurl: store %q: %s (want file:///path or s3://bucket/prefix?endpoint=host:port)", raw, why)
}

// Parse parses a store URL. It reads WSFS_S3_ENDPOINT and WSFS_S3_REGION
// for defaults but checks nothing over the network.
func Parse(raw string) (Spec, error) {
	if strings.TrimSpace(raw) == "" {
		return Spec{}, malformed(raw, "empty")
	}
	if !strings.Contains(raw, "://") {
		if filepath.IsAbs(raw) {
			return Spec{Kind: KindFile, Path: filepath.Clean(raw)}, nil
		}
		return Spec{}, malformed(raw, "not a URL nor an absolute folder path")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Spec{}, malformed(raw, strings.TrimPrefix(err.Error(), "parse "+strconv.Quote(raw)+": "))
	}
	switch strings.ToLower(u.Scheme) {
	case "file":
		return parseFile(raw, u)
	case "s3":
		return parseS3(raw, u)
	}
	return Spec{}, malformed(raw, fmt.Sprintf("unknown scheme %q", u.Scheme))
}

func parseFile(raw string, u *url.URL) (Spec, error) {
	if u.Host != "" && u.Host != "localhost" {
		return Spec{}, malformed(raw, fmt.Sprintf("file URL with host %q: write file:///%s%s (three slashes)", u.Host, u.Host, u.Path))
	}
	if u.RawQuery != "" || u.User != nil {
		return Spec{}, malformed(raw, "a file URL takes no query or user")
	}
	if u.Path == "" || !filepath.IsAbs(u.Path) {
		return Spec{}, malformed(raw, "file URL without an absolute path")
	}
	return Spec{Kind: KindFile, Path: filepath.Clean(u.Path)}, nil
}

func parseS3(raw string, u *url.URL) (Spec, error) {
	if u.User != nil {
		return Spec{}, malformed(raw, "credentials do not go in the URL: set WSFS_S3_ACCESS_KEY_ID and WSFS_S3_SECRET_ACCESS_KEY")
	}
	if u.Host == "" {
		return Spec{}, malformed(raw, "no bucket: write s3://BUCKET/prefix")
	}
	if u.Port() != "" {
		return Spec{}, malformed(raw, "a port after the bucket name: the server goes in ?endpoint=host:port")
	}
	spec := Spec{Kind: KindS3, CacheSize: DefaultCacheSize}
	c := &spec.S3
	c.Bucket = u.Host
	c.Prefix = strings.Trim(u.Path, "/")
	if strings.Contains(c.Prefix, "//") {
		return Spec{}, malformed(raw, "empty folder name in the prefix")
	}
	c.Endpoint = os.Getenv(EnvS3Endpoint)
	c.Region = os.Getenv(EnvS3Region)
	c.Secure = true
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return Spec{}, malformed(raw, "bad query: "+err.Error())
	}
	for k, vs := range q {
		if len(vs) != 1 {
			return Spec{}, malformed(raw, fmt.Sprintf("%s given %d times", k, len(vs)))
		}
		v := vs[0]
		switch k {
		case "endpoint":
			c.Endpoint = v
		case "region":
			c.Region = v
		case "secure":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return Spec{}, malformed(raw, fmt.Sprintf("secure=%q: want true or false", v))
			}
			c.Secure = b
		case "path_style":
			a, err := s3.ParseAddressing(v)
			if err != nil {
				return Spec{}, malformed(raw, fmt.Sprintf("path_style=%q: want true, false or auto", v))
			}
			c.Addressing = a
		case "cache":
			n, err := parseSize(v)
			if err != nil {
				return Spec{}, malformed(raw, fmt.Sprintf("cache=%q: want a size such as 256MiB, or 0/off", v))
			}
			spec.CacheSize = n
		case "conditional":
			cw, err := s3.ParseConditional(v)
			if err != nil {
				return Spec{}, malformed(raw, fmt.Sprintf("conditional=%q: want auto (true) or false", v))
			}
			c.ConditionalWrites = cw
		default:
			return Spec{}, malformed(raw, fmt.Sprintf("unknown parameter %q (known: endpoint, region, secure, path_style, cache, conditional)", k))
		}
	}
	if c.Endpoint == "" {
		c.Endpoint = defaultS3Endpoint
	}
	// An explicit http:// endpoint means plain HTTP whatever secure says;
	// s3.New applies that, but the spec should say it too.
	if strings.HasPrefix(c.Endpoint, "http://") {
		c.Secure = false
	} else if strings.HasPrefix(c.Endpoint, "https://") {
		c.Secure = true
	}
	return spec, nil
}

// parseSize parses "256MiB", "1GiB", "512MB", "64k", "1048576", "0", "off".
func parseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "off" || t == "none" || t == "0" {
		return 0, nil
	}
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{
		{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
		{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
		{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40}, {"b", 1},
	} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("storeurl: size %q", s)
	}
	return n * mult, nil
}

func formatSize(n int64) string {
	switch {
	case n == 0:
		return "0"
	case n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return strconv.FormatInt(n, 10)
}

// Home returns wsfs's own folder: $WSFS_HOME, else /var/lib/wsfs for root,
// else ~/.local/share/wsfs (internal/home has the rule). It does not
// create it.
func Home() (string, error) { return home.Dir("") }

// Default returns the store URL to use when none is given: $WSFS_STORE,
// else the folder "objects" under Home.
func Default() (string, error) {
	if s := os.Getenv(EnvStore); s != "" {
		return s, nil
	}
	h, err := Home()
	if err != nil {
		return "", err
	}
	return FolderURL(home.Of(h).Objects()), nil
}

// FolderURL returns the file:// store URL of an absolute folder path,
// escaped so that any path (spaces, '%', '?', '#') parses back to itself.
func FolderURL(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.Clean(path)}).String()
}

// Options tune Open.
type Options struct {
	// Home replaces Home() for the cache folder (tests, --home flags).
	Home string
	// NoCheck skips the start-up check of a remote store (bucket exists,
	// credentials work). Commands keep it false so that a wrong --store
	// fails at once with one line.
	NoCheck bool
	// S3 is applied to the s3.Config parsed from the URL before s3.New,
	// for settings a URL does not carry (credentials from flags, retry
	// tuning, a test transport).
	S3 func(*s3.Config)
}

// Open opens the store named by raw (Default() when raw is empty). A
// remote store is checked (unless opts.NoCheck) and fronted by the local
// read cache under Home/cache; the store returned then is a *CachedStore,
// which the caller should Close (any store may be tested for io.Closer).
func Open(ctx context.Context, raw string, opts Options) (objects.Store, error) {
	if raw == "" {
		d, err := Default()
		if err != nil {
			return nil, err
		}
		raw = d
	}
	spec, err := Parse(raw)
	if err != nil {
		return nil, err
	}
	return OpenSpec(ctx, spec, opts)
}

// OpenSpec opens a parsed store URL; see Open.
func OpenSpec(ctx context.Context, spec Spec, opts Options) (objects.Store, error) {
	switch spec.Kind {
	case KindFile:
		return objects.OpenDir(spec.Path)
	case KindS3:
		cfg := spec.S3
		if opts.S3 != nil {
			opts.S3(&cfg)
		}
		st, err := s3.New(ctx, cfg)
		if err != nil {
			return nil, err
		}
		if !opts.NoCheck {
			if err := st.Check(ctx); err != nil {
				return nil, err
			}
		}
		return withCache(st, spec, opts)
	}
	return nil, errors.New("storeurl: spec of unknown kind " + strconv.Quote(string(spec.Kind)))
}

// withCache fronts a remote store with the local read cache, in a folder
// of its own under Home/cache (one per store URL, so that two stores never
// answer for each other's blobs). A cache folder belongs to one process at
// a time: if another process holds it, this one reads the remote directly.
func withCache(st objects.Store, spec Spec, opts Options) (objects.Store, error) {
	if spec.CacheSize == 0 {
		return st, nil
	}
	home := opts.Home
	if home == "" {
		h, err := Home()
		if err != nil {
			return nil, err
		}
		home = h
	}
	key := objects.Sum([]byte(cacheKey(spec))).Short()
	dir := filepath.Join(home, "cache", string(spec.Kind)+"-"+key)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("storeurl: cache folder %s: %w; fix its permissions, set %s, or add cache=off to the store URL", dir, err, EnvHome)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("storeurl: cache folder %s: %w; fix its permissions, set %s, or add cache=off to the store URL", dir, err, EnvHome)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		slog.Info("storeurl: read cache in use by another process; reading the store directly", "cache", dir)
		return st, nil
	}
	cache, err := objects.NewCache(st, filepath.Join(dir, "objects"), spec.CacheSize)
	if err != nil {
		lock.Close()
		return nil, err
	}
	return &CachedStore{Cache: cache, lock: lock}, nil
}

// cacheKey identifies a remote store: endpoint, bucket and prefix.
func cacheKey(spec Spec) string {
	ep := strings.TrimPrefix(strings.TrimPrefix(spec.S3.Endpoint, "https://"), "http://")
	return ep + "/" + spec.S3.Bucket + "/" + spec.S3.Prefix
}

// CachedStore is a remote store behind its local read cache, as Open
// returns it. Close releases the cache folder for other processes.
type CachedStore struct {
	*objects.Cache
	lock *os.File
}

// Close releases the cache folder; the store must not be used afterwards.
func (c *CachedStore) Close() error {
	if c.lock == nil {
		return nil
	}
	err := c.lock.Close() // closing the descriptor drops the flock
	c.lock = nil
	return err
}
