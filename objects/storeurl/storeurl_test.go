package storeurl_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/objects/s3"
	"github.com/wsfs/wsfs/objects/s3/s3test"
	"github.com/wsfs/wsfs/objects/storeurl"
)

func TestMain(m *testing.M) { os.Exit(s3test.Main(m)) }

func clearEnv(t *testing.T) {
	for _, k := range []string{storeurl.EnvStore, storeurl.EnvHome, storeurl.EnvS3Endpoint, storeurl.EnvS3Region,
		s3.EnvAccessKey, s3.EnvSecretKey, s3.EnvSessionToken, s3.EnvAWSAccessKey, s3.EnvAWSSecretKey, s3.EnvAWSSessionTok} {
		t.Setenv(k, "")
	}
}

func TestParse(t *testing.T) {
	clearEnv(t)
	type s3want struct {
		endpoint, bucket, prefix, region string
		secure                           bool
		addr                             s3.Addressing
		cache                            int64
	}
	for _, tc := range []struct {
		raw  string
		path string  // file store folder
		s3   *s3want // s3 store
	}{
		{raw: "file:///var/lib/wsfs/objects", path: "/var/lib/wsfs/objects"},
		{raw: "file:///var/lib/wsfs/objects/", path: "/var/lib/wsfs/objects"},
		{raw: "file://localhost/srv/x", path: "/srv/x"},
		{raw: "file:///srv/a%20b", path: "/srv/a b"},
		{raw: "/srv/blobs/../objects", path: "/srv/objects"},
		{raw: "s3://wsfs", s3: &s3want{"s3.amazonaws.com", "wsfs", "", "", true, s3.AddressingAuto, storeurl.DefaultCacheSize}},
		{raw: "s3://wsfs/prod/ws?endpoint=127.0.0.1:9000&region=us-east-1&secure=false&path_style=true",
			s3: &s3want{"127.0.0.1:9000", "wsfs", "prod/ws", "us-east-1", false, s3.AddressingPath, storeurl.DefaultCacheSize}},
		{raw: "s3://wsfs/prod?endpoint=https://acct.r2.cloudflarestorage.com&region=auto&cache=1GiB",
			s3: &s3want{"https://acct.r2.cloudflarestorage.com", "wsfs", "prod", "auto", true, s3.AddressingAuto, 1 << 30}},
		{raw: "s3://wsfs/?endpoint=http://minio:9000&path_style=false&cache=off",
			s3: &s3want{"http://minio:9000", "wsfs", "", "", false, s3.AddressingVirtualHost, 0}},
		{raw: "s3://wsfs/p?cache=64MB&secure=0", s3: &s3want{"s3.amazonaws.com", "wsfs", "p", "", false, s3.AddressingAuto, 64e6}},
		{raw: "S3://wsfs?cache=1048576&path_style=auto", s3: &s3want{"s3.amazonaws.com", "wsfs", "", "", true, s3.AddressingAuto, 1 << 20}},
	} {
		spec, err := storeurl.Parse(tc.raw)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.raw, err)
			continue
		}
		if tc.s3 == nil {
			if spec.Kind != storeurl.KindFile || spec.Path != tc.path {
				t.Errorf("Parse(%q) = %+v, want folder %s", tc.raw, spec, tc.path)
			}
			continue
		}
		c := spec.S3
		got := s3want{c.Endpoint, c.Bucket, c.Prefix, c.Region, c.Secure, c.Addressing, spec.CacheSize}
		if spec.Kind != storeurl.KindS3 || got != *tc.s3 {
			t.Errorf("Parse(%q) = %+v\nwant %+v", tc.raw, got, *tc.s3)
		}
		// The canonical form parses back to the same spec.
		again, err := storeurl.Parse(spec.String())
		if err != nil || again.S3 != spec.S3 || again.CacheSize != spec.CacheSize {
			t.Errorf("Parse(%q).String() = %q does not round-trip: %+v, %v", tc.raw, spec.String(), again, err)
		}
	}
}

func TestParseEnvDefaults(t *testing.T) {
	clearEnv(t)
	t.Setenv(storeurl.EnvS3Endpoint, "https://acct.r2.cloudflarestorage.com")
	t.Setenv(storeurl.EnvS3Region, "auto")
	spec, err := storeurl.Parse("s3://wsfs/prod")
	if err != nil || spec.S3.Endpoint != "https://acct.r2.cloudflarestorage.com" || spec.S3.Region != "auto" || !spec.S3.Secure {
		t.Fatalf("Parse with env defaults = %+v, %v", spec, err)
	}
	spec, err = storeurl.Parse("s3://wsfs/prod?endpoint=127.0.0.1:9000&region=us-east-1")
	if err != nil || spec.S3.Endpoint != "127.0.0.1:9000" || spec.S3.Region != "us-east-1" {
		t.Fatalf("the URL should win over the env: %+v, %v", spec, err)
	}
}

func TestParseErrors(t *testing.T) {
	clearEnv(t)
	for raw, want := range map[string]string{
		"":                                "empty",
		"objects":                         "not a URL nor an absolute folder path",
		"ftp://host/x":                    `unknown scheme "ftp"`,
		"file://var/lib/wsfs":             "three slashes",
		"file:///x?y=1":                   "takes no query",
		"s3:///prefix":                    "no bucket",
		"s3://key:secret@wsfs/p":          "credentials do not go in the URL",
		"s3://wsfs:9000/p":                "?endpoint=host:port",
		"s3://wsfs/p?secure=maybe":        `secure="maybe": want true or false`,
		"s3://wsfs/p?path_style=sideways": `path_style="sideways"`,
		"s3://wsfs/p?cache=lots":          `cache="lots"`,
		"s3://wsfs/p?conditional=maybe":   `conditional="maybe": want auto (true) or false`,
		"s3://wsfs/p?cache=-1":            `cache="-1"`,
		"s3://wsfs/p?endpiont=x":          `unknown parameter "endpiont"`,
		"s3://wsfs/p?region=a&region=b":   "region given 2 times",
		"s3://wsfs/a//b":                  "empty folder name",
		"s3://wsfs/p?endpoint=%zz":        "bad query",
		"s3://ws fs/p":                    "s3://ws fs/p",
	} {
		_, err := storeurl.Parse(raw)
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want an error with %q", raw, want)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, want) || !strings.HasPrefix(msg, "storeurl: store ") || strings.Contains(msg, "\n") {
			t.Errorf("Parse(%q) = %q, want one line naming the URL and %q", raw, msg, want)
		}
	}
}

func TestHomeAndDefault(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	t.Setenv(storeurl.EnvHome, dir)
	if h, err := storeurl.Home(); err != nil || h != dir {
		t.Fatalf("Home with WSFS_HOME = %q, %v; want %q", h, err, dir)
	}
	if d, err := storeurl.Default(); err != nil || d != "file://"+dir+"/objects" {
		t.Fatalf("Default = %q, %v", d, err)
	}
	t.Setenv(storeurl.EnvStore, "s3://wsfs/p")
	if d, err := storeurl.Default(); err != nil || d != "s3://wsfs/p" {
		t.Fatalf("Default with WSFS_STORE = %q, %v", d, err)
	}

	t.Setenv(storeurl.EnvHome, "")
	t.Setenv("HOME", "/home/someone")
	want := "/home/someone/.local/share/wsfs"
	if os.Geteuid() == 0 {
		want = "/var/lib/wsfs"
	}
	if h, err := storeurl.Home(); err != nil || h != want {
		t.Fatalf("Home = %q, %v; want %q", h, err, want)
	}
}

func TestOpenFile(t *testing.T) {
	clearEnv(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	st, err := storeurl.Open(ctx, "file://"+dir, storeurl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := objects.PutBytes(ctx, st, []byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, d.Key())); err != nil {
		t.Fatalf("blob not in the folder: %v", err)
	}

	// The default store is a folder under WSFS_HOME.
	home := t.TempDir()
	t.Setenv(storeurl.EnvHome, home)
	st, err = storeurl.Open(ctx, "", storeurl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := objects.PutBytes(ctx, st, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, "objects", d.Key())); err != nil {
		t.Fatalf("blob not in the default folder: %v", err)
	}
}

func TestOpenS3(t *testing.T) {
	clearEnv(t)
	srv := s3test.Start(t)
	if srv.Secure {
		t.Skip("the test builds a plain-HTTP URL")
	}
	bucket := srv.Bucket(t)
	ctx := context.Background()
	t.Setenv(storeurl.EnvHome, t.TempDir())
	t.Setenv(s3.EnvAccessKey, srv.AccessKey)
	t.Setenv(s3.EnvSecretKey, srv.SecretKey)
	raw := srv.StoreURL(bucket, "ws")
	st, err := storeurl.Open(ctx, raw+"&cache=off", storeurl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.(*s3.Store); !ok {
		t.Fatalf("Open with cache=off gave %T, want *s3.Store", st)
	}
	d, err := objects.PutBytes(ctx, st, []byte("over s3"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := objects.Get(ctx, st, d); err != nil || string(got) != "over s3" {
		t.Fatalf("Get = %q, %v", got, err)
	}
	for prefix, want := range map[string]error{"ws": nil, "": objects.ErrNotFound} {
		direct, err := s3.New(ctx, s3.Config{Endpoint: srv.Endpoint, Bucket: bucket, Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := direct.Stat(ctx, d); !errors.Is(err, want) {
			t.Errorf("Stat under prefix %q = %v, want %v", prefix, err, want)
		}
	}

	// Open checks the store at once: a missing bucket and wrong
	// credentials are one line, before any command runs.
	_, err = storeurl.Open(ctx, "s3://missing-bucket/ws?endpoint="+srv.Endpoint+"&secure=false", storeurl.Options{})
	if !errors.Is(err, s3.ErrNoBucket) || !strings.Contains(err.Error(), "create it or fix --store") {
		t.Errorf("Open of a missing bucket = %v", err)
	}
	t.Setenv(s3.EnvSecretKey, "wrong")
	if _, err = storeurl.Open(ctx, raw, storeurl.Options{}); !errors.Is(err, s3.ErrAccess) {
		t.Errorf("Open with a wrong secret = %v, want ErrAccess", err)
	}
	if _, err = storeurl.Open(ctx, raw, storeurl.Options{NoCheck: true}); err != nil {
		t.Errorf("Open with NoCheck made a request: %v", err)
	}
	t.Setenv(s3.EnvSecretKey, "")
	t.Setenv(s3.EnvAccessKey, "")
	if _, err = storeurl.Open(ctx, raw, storeurl.Options{}); err == nil || !strings.Contains(err.Error(), "no credentials") {
		t.Errorf("Open without credentials = %v", err)
	}
	// Options.S3 supplies what a URL cannot carry.
	_, err = storeurl.Open(ctx, raw, storeurl.Options{S3: func(c *s3.Config) { c.AccessKey, c.SecretKey = srv.AccessKey, srv.SecretKey }})
	if err != nil {
		t.Errorf("Open with credentials from Options.S3: %v", err)
	}
}

func TestOpenS3Cache(t *testing.T) {
	clearEnv(t)
	srv := s3test.Start(t)
	if srv.Secure {
		t.Skip("the test builds a plain-HTTP URL")
	}
	bucket := srv.Bucket(t)
	ctx := context.Background()
	home := t.TempDir()
	t.Setenv(s3.EnvAccessKey, srv.AccessKey)
	t.Setenv(s3.EnvSecretKey, srv.SecretKey)
	raw := "s3://" + bucket + "/ws?endpoint=" + srv.Endpoint + "&secure=false&cache=1MiB"
	st, err := storeurl.Open(ctx, raw, storeurl.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	cached, ok := st.(*storeurl.CachedStore)
	if !ok {
		t.Fatalf("Open of a remote store gave %T, want *storeurl.CachedStore", st)
	}
	d, err := objects.PutBytes(ctx, st, []byte("cached"))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if got, err := objects.Get(ctx, st, d); err != nil || string(got) != "cached" {
			t.Fatalf("Get = %q, %v", got, err)
		}
	}
	if s := cached.Stats(); s.Hits < 1 || s.Blobs != 1 {
		t.Errorf("cache stats after two Gets: %+v", s)
	}
	dirs, _ := filepath.Glob(filepath.Join(home, "cache", "s3-*", "objects", "blobs", d.Key()[6:8], d.String()))
	if len(dirs) != 1 {
		t.Errorf("cached copy not under %s/cache: %v", home, dirs)
	}

	// A second user of the same cache folder reads the store directly.
	other, err := storeurl.Open(ctx, raw, storeurl.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := other.(*s3.Store); !ok {
		t.Errorf("second Open while the cache is held gave %T, want *s3.Store", other)
	}
	if err := cached.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := storeurl.Open(ctx, raw, storeurl.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := again.(*storeurl.CachedStore); !ok {
		t.Errorf("Open after Close gave %T, want the cache back", again)
	} else {
		c.Close()
	}

	// Another prefix is another store, with a cache of its own.
	st2, err := storeurl.Open(ctx, strings.Replace(raw, "/ws?", "/other?", 1), storeurl.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.(*storeurl.CachedStore).Close()
	if _, err := objects.Get(ctx, st2, d); !errors.Is(err, objects.ErrNotFound) {
		t.Errorf("a blob of prefix ws read through prefix other: %v", err)
	}
}

// FuzzParse checks that Parse never panics, that its errors are one line
// naming the URL, and that an s3 spec's canonical form parses back to it.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"file:///x", "/srv/o", "s3://b/p?endpoint=h:1&secure=false&cache=1MiB", "s3://b", "s3://b/p?path_style=true&region=auto", "s3://b?conditional=false", "x://"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		spec, err := storeurl.Parse(raw)
		if err != nil {
			if strings.Contains(err.Error(), "\n") && !strings.Contains(raw, "\n") {
				t.Fatalf("Parse(%q): error of several lines: %q", raw, err)
			}
			return
		}
		if spec.Kind != storeurl.KindS3 {
			return
		}
		again, err := storeurl.Parse(spec.String())
		if err != nil || again.S3 != spec.S3 || again.CacheSize != spec.CacheSize {
			t.Fatalf("Parse(%q).String() = %q: parses to %+v, %v", raw, spec.String(), again, err)
		}
	})
}

func TestFolderURL(t *testing.T) {
	for _, p := range []string{"/var/lib/wsfs/objects", "/tmp/a b/50%off/#x?y", "/"} {
		spec, err := storeurl.Parse(storeurl.FolderURL(p))
		if err != nil || spec.Kind != storeurl.KindFile || spec.Path != p {
			t.Errorf("Parse(FolderURL(%q) = %q) = %+v, %v", p, storeurl.FolderURL(p), spec, err)
		}
	}
}

func TestConditionalParam(t *testing.T) {
	for raw, want := range map[string]s3.Conditional{
		"s3://b/p":                   s3.ConditionalAuto,
		"s3://b/p?conditional=auto":  s3.ConditionalAuto,
		"s3://b/p?conditional=false": s3.ConditionalOff,
	} {
		spec, err := storeurl.Parse(raw)
		if err != nil || spec.S3.ConditionalWrites != want {
			t.Errorf("Parse(%q) = %v, %v; want conditional %v", raw, spec.S3.ConditionalWrites, err, want)
			continue
		}
		again, err := storeurl.Parse(spec.String())
		if err != nil || again.S3.ConditionalWrites != want {
			t.Errorf("Parse(%q).String() = %q parses to %v, %v", raw, spec.String(), again.S3.ConditionalWrites, err)
		}
	}
}

// TestIdentity: spellings of one store share an identity; another bucket,
// prefix, endpoint or folder does not.
func TestIdentity(t *testing.T) {
	t.Setenv(storeurl.EnvS3Endpoint, "")
	same := [][]string{
		{"file:///var/lib/wsfs/objects", "/var/lib/wsfs/objects", "file:///var/lib/wsfs/objects/", "file://localhost/var/lib/wsfs/./objects"},
		{"s3://b/p?endpoint=127.0.0.1:9000&secure=false", "s3://b/p/?endpoint=http://127.0.0.1:9000&cache=off&region=auto", "s3://b/p?endpoint=127.0.0.1:9000&path_style=true&conditional=false"},
		{"s3://b", "s3://b/?endpoint=s3.amazonaws.com", "s3://b?endpoint=https://s3.amazonaws.com/"},
	}
	seen := map[string]string{}
	for _, group := range same {
		first, err := storeurl.Identity(group[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range group[1:] {
			if id, err := storeurl.Identity(raw); err != nil || id != first {
				t.Errorf("Identity(%q) = %q, %v; want %q as for %q", raw, id, err, first, group[0])
			}
		}
		if other, ok := seen[first]; ok {
			t.Errorf("%q and %q share the identity %q", group[0], other, first)
		}
		seen[first] = group[0]
	}
	for _, raw := range []string{"s3://b/q?endpoint=127.0.0.1:9000", "s3://c/p?endpoint=127.0.0.1:9000", "s3://b/p?endpoint=127.0.0.1:9001", "/var/lib/wsfs/other"} {
		id, err := storeurl.Identity(raw)
		if err != nil {
			t.Fatal(err)
		}
		if other, ok := seen[id]; ok {
			t.Errorf("%q has the identity of %q: %q", raw, other, id)
		}
	}
	if _, err := storeurl.Identity("s4://x"); err == nil {
		t.Error("Identity of a bad URL: no error")
	}
}
