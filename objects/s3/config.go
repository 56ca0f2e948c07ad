package s3

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Addressing chooses how the bucket appears in request URLs.
type Addressing int

const (
	// AddressingAuto uses virtual-host style for AWS (and the other clouds
	// minio-go knows) and path style for everything else (MinIO, R2 both
	// accept path style).
	AddressingAuto Addressing = iota
	// AddressingPath puts the bucket in the path: https://host/bucket/key.
	AddressingPath
	// AddressingVirtualHost puts the bucket in the host name:
	// https://bucket.host/key.
	AddressingVirtualHost
)

// ParseAddressing parses "auto", "path" / "true" or "virtual" / "false"
// (the last two spellings answer the question "path style?").
func ParseAddressing(s string) (Addressing, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return AddressingAuto, nil
	case "path", "true", "1", "yes":
		return AddressingPath, nil
	case "virtual", "virtual-host", "dns", "false", "0", "no":
		return AddressingVirtualHost, nil
	}
	return AddressingAuto, fmt.Errorf("s3: addressing %q: want auto, path (true) or virtual (false)", s)
}

func (a Addressing) String() string {
	switch a {
	case AddressingPath:
		return "path"
	case AddressingVirtualHost:
		return "virtual"
	}
	return "auto"
}

// Config describes one store: where the bucket is, which part of it the
// store owns, and how to authenticate.
type Config struct {
	// Endpoint is "host[:port]" or "http(s)://host[:port]". A scheme
	// overrides Secure.
	Endpoint string
	// Secure selects HTTPS for an endpoint given without scheme.
	Secure bool
	// Bucket must exist; the store never creates it.
	Bucket string
	// Prefix is the folder inside the bucket the store owns ("" for the
	// bucket root). Leading and trailing slashes are ignored.
	Prefix string
	// Region is the bucket's region: "auto" for R2, "us-east-1" for MinIO.
	// Empty means us-east-1.
	Region string
	// Addressing chooses path or virtual-host style; the zero value is auto.
	Addressing Addressing

	// AccessKey, SecretKey and SessionToken authenticate requests. When
	// AccessKey is empty they come from the environment (see the package
	// doc); with none there either, New fails unless Anonymous is set.
	AccessKey    string
	SecretKey    string
	SessionToken string
	// Anonymous sends unsigned requests (public buckets only).
	Anonymous bool

	// MaxAttempts bounds the tries of one call (first try included) on
	// transient errors. Zero means 5.
	MaxAttempts int
	// RetryBaseDelay is the backoff before the second try; it doubles on
	// each retry up to RetryMaxDelay, with full jitter. Zero means 100ms
	// and 5s.
	RetryBaseDelay time.Duration
	RetryMaxDelay  time.Duration

	// ConditionalWrites chooses whether Put sends "If-None-Match: *", so
	// that the server stores the blob only if the key is free and answers
	// 412 otherwise: one request whether or not the blob was stored, and a
	// stored blob is never rewritten. S3, R2 and MinIO support it.
	// ConditionalAuto (the zero value) sends it and, if the server answers
	// that it does not implement it (501), falls back to the unconditional
	// PUT for the rest of the store's life; ConditionalOff never sends it.
	ConditionalWrites Conditional

	// SkipExistingMin is the blob size from which Put first asks the
	// server (HEAD) whether the blob is already stored with that size,
	// and skips the upload if it is. Zero means 8 MiB while conditional
	// writes are in use (a blob that large takes long enough to send that
	// a round trip to learn it is stored pays off) and 64 KiB without
	// them; 1 means every non-empty blob, a negative value never asks.
	//
	// Measured on a local MinIO (BenchmarkPut): the HEAD adds 1.5-2.5 ms
	// to the put of a new blob (5-11 ms) and turns the unconditional re-put
	// of a stored one from 10-20 ms (MinIO rewrites the object) into
	// 1.5 ms. Over a WAN the HEAD costs a round trip, the same as a small
	// upload, so small blobs go straight to PUT and only large ones, whose
	// upload time dominates, are looked up first.
	SkipExistingMin int64

	// SpoolDir holds the temp files Put uses to hash blobs above 8 MiB
	// before uploading them. Empty means os.TempDir().
	SpoolDir string

	// Transport replaces the HTTP transport (tests, proxies). Nil uses
	// minio-go's default.
	Transport http.RoundTripper
}

// Conditional chooses the use of conditional writes (Config.ConditionalWrites).
type Conditional int

const (
	// ConditionalAuto uses conditional writes until the server says it
	// does not implement them.
	ConditionalAuto Conditional = iota
	// ConditionalOff never sends If-None-Match (a server that mishandles it).
	ConditionalOff
)

// ParseConditional parses "auto" (or "", "true") or "false" ("off").
func ParseConditional(s string) (Conditional, error) {
	switch strings.ToLower(s) {
	case "", "auto", "true", "on", "1", "yes":
		return ConditionalAuto, nil
	case "false", "off", "0", "no":
		return ConditionalOff, nil
	}
	return ConditionalAuto, fmt.Errorf("s3: conditional %q: want auto (true) or false", s)
}

func (c Conditional) String() string {
	if c == ConditionalOff {
		return "false"
	}
	return "auto"
}

// Environment variables New reads for credentials, in order of preference.
const (
	EnvAccessKey     = "WSFS_S3_ACCESS_KEY_ID"
	EnvSecretKey     = "WSFS_S3_SECRET_ACCESS_KEY"
	EnvSessionToken  = "WSFS_S3_SESSION_TOKEN"
	EnvAWSAccessKey  = "AWS_ACCESS_KEY_ID"
	EnvAWSSecretKey  = "AWS_SECRET_ACCESS_KEY"
	EnvAWSSessionTok = "AWS_SESSION_TOKEN"
)

const (
	defaultMaxAttempts     = 5
	defaultRetryBaseDelay  = 100 * time.Millisecond
	defaultRetryMaxDelay   = 5 * time.Second
	defaultSkipExistingMin = 64 << 10 // without conditional writes
	condSkipExistingMin    = 8 << 20  // with them
	defaultRegion          = "us-east-1"
)

// normalize checks c and fills in defaults and credentials. It returns the
// endpoint host (without scheme) and the error for a malformed config.
func (c *Config) normalize() (host string, err error) {
	if c.Bucket == "" {
		return "", fmt.Errorf("s3: no bucket given: name one (s3://BUCKET/prefix)")
	}
	if err := checkBucketName(c.Bucket); err != nil {
		return "", err
	}
	if c.Endpoint == "" {
		return "", fmt.Errorf("s3: bucket %s: no endpoint given: set endpoint=host:port (for R2: https://<account>.r2.cloudflarestorage.com)", c.Bucket)
	}
	host = c.Endpoint
	if strings.Contains(host, "://") {
		u, err := url.Parse(host)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return "", fmt.Errorf("s3: endpoint %q: want host:port or http(s)://host[:port]", c.Endpoint)
		}
		if u.Path != "" && u.Path != "/" {
			return "", fmt.Errorf("s3: endpoint %q has a path: give only the host (the bucket goes in the store URL)", c.Endpoint)
		}
		host, c.Secure = u.Host, u.Scheme == "https"
	}
	if strings.ContainsAny(host, "/?# ") {
		return "", fmt.Errorf("s3: endpoint %q: want host:port or http(s)://host[:port]", c.Endpoint)
	}
	c.Prefix = strings.Trim(c.Prefix, "/")
	if c.Region == "" {
		c.Region = defaultRegion
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = defaultMaxAttempts
	}
	if c.RetryBaseDelay <= 0 {
		c.RetryBaseDelay = defaultRetryBaseDelay
	}
	if c.RetryMaxDelay <= 0 {
		c.RetryMaxDelay = defaultRetryMaxDelay
	}
	if c.Anonymous || c.AccessKey != "" {
		if !c.Anonymous && c.SecretKey == "" {
			return "", fmt.Errorf("s3: bucket %s: access key given without secret key: give both", c.Bucket)
		}
		return host, nil
	}
	switch {
	case os.Getenv(EnvAccessKey) != "":
		c.AccessKey, c.SecretKey, c.SessionToken = os.Getenv(EnvAccessKey), os.Getenv(EnvSecretKey), os.Getenv(EnvSessionToken)
		if c.SecretKey == "" {
			return "", fmt.Errorf("s3: bucket %s: %s is set but %s is empty: set both", c.Bucket, EnvAccessKey, EnvSecretKey)
		}
	case os.Getenv(EnvAWSAccessKey) != "":
		c.AccessKey, c.SecretKey, c.SessionToken = os.Getenv(EnvAWSAccessKey), os.Getenv(EnvAWSSecretKey), os.Getenv(EnvAWSSessionTok)
		if c.SecretKey == "" {
			return "", fmt.Errorf("s3: bucket %s: %s is set but %s is empty: set both", c.Bucket, EnvAWSAccessKey, EnvAWSSecretKey)
		}
	default:
		return "", fmt.Errorf("s3: bucket %s: no credentials: set %s and %s (or %s and %s)",
			c.Bucket, EnvAccessKey, EnvSecretKey, EnvAWSAccessKey, EnvAWSSecretKey)
	}
	return host, nil
}

// checkBucketName applies the S3 naming rules (3-63 characters of
// lower-case letters, digits, dots and hyphens, starting and ending with a
// letter or digit) so that a typo fails before any request.
func checkBucketName(b string) error {
	bad := len(b) < 3 || len(b) > 63
	for i := 0; i < len(b) && !bad; i++ {
		ch := b[i]
		edge := i == 0 || i == len(b)-1
		switch {
		case ch >= 'a' && ch <= 'z', ch >= '0' && ch <= '9':
		case (ch == '-' || ch == '.') && !edge:
		default:
			bad = true
		}
	}
	if bad {
		return fmt.Errorf("s3: bucket name %q is not valid: use 3-63 lower-case letters, digits, '-' or '.'", b)
	}
	return nil
}
