package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/wsfs/wsfs/objects"
)

func clearCredentialEnv(t *testing.T) {
	for _, k := range []string{EnvAccessKey, EnvSecretKey, EnvSessionToken, EnvAWSAccessKey, EnvAWSSecretKey, EnvAWSSessionTok} {
		t.Setenv(k, "")
	}
}

func TestConfigNormalize(t *testing.T) {
	clearCredentialEnv(t)
	creds := Config{AccessKey: "k", SecretKey: "s"}
	with := func(c Config) Config { c.AccessKey, c.SecretKey = creds.AccessKey, creds.SecretKey; return c }
	for _, tc := range []struct {
		cfg        Config
		host       string
		secure     bool
		prefix     string
		wantErrSub string
	}{
		{cfg: with(Config{Endpoint: "127.0.0.1:9000", Bucket: "b12"}), host: "127.0.0.1:9000"},
		{cfg: with(Config{Endpoint: "127.0.0.1:9000", Bucket: "b12", Secure: true, Prefix: "/a/b/"}), host: "127.0.0.1:9000", secure: true, prefix: "a/b"},
		{cfg: with(Config{Endpoint: "https://acct.r2.cloudflarestorage.com", Bucket: "wsfs"}), host: "acct.r2.cloudflarestorage.com", secure: true},
		{cfg: with(Config{Endpoint: "https://acct.r2.cloudflarestorage.com/", Bucket: "wsfs"}), host: "acct.r2.cloudflarestorage.com", secure: true},
		{cfg: with(Config{Endpoint: "http://minio:9000", Bucket: "wsfs", Secure: true}), host: "minio:9000"},
		{cfg: with(Config{Endpoint: "minio:9000"}), wantErrSub: "no bucket given"},
		{cfg: with(Config{Bucket: "wsfs"}), wantErrSub: "no endpoint given"},
		{cfg: with(Config{Endpoint: "ftp://x", Bucket: "wsfs"}), wantErrSub: `endpoint "ftp://x": want host:port`},
		{cfg: with(Config{Endpoint: "https://x/bucket", Bucket: "wsfs"}), wantErrSub: "has a path"},
		{cfg: with(Config{Endpoint: "x y", Bucket: "wsfs"}), wantErrSub: "want host:port"},
		{cfg: with(Config{Endpoint: "x", Bucket: "My_Bucket"}), wantErrSub: `bucket name "My_Bucket" is not valid`},
		{cfg: with(Config{Endpoint: "x", Bucket: "ab"}), wantErrSub: "is not valid"},
		{cfg: with(Config{Endpoint: "x", Bucket: "-ab"}), wantErrSub: "is not valid"},
		{cfg: Config{Endpoint: "x", Bucket: "wsfs"}, wantErrSub: "no credentials: set WSFS_S3_ACCESS_KEY_ID and WSFS_S3_SECRET_ACCESS_KEY (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)"},
		{cfg: Config{Endpoint: "x", Bucket: "wsfs", AccessKey: "k"}, wantErrSub: "access key given without secret key"},
		{cfg: Config{Endpoint: "x", Bucket: "wsfs", Anonymous: true}, host: "x"},
	} {
		name := fmt.Sprintf("%+v", tc.cfg)
		c := tc.cfg
		host, err := c.normalize()
		if tc.wantErrSub != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErrSub) {
				t.Errorf("%s: err = %v, want %q", name, err, tc.wantErrSub)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if host != tc.host || c.Secure != tc.secure || c.Prefix != tc.prefix {
			t.Errorf("%s: host %q secure %v prefix %q, want %q %v %q", name, host, c.Secure, c.Prefix, tc.host, tc.secure, tc.prefix)
		}
		if c.Region != "us-east-1" || c.MaxAttempts != 5 || c.SkipExistingMin != 0 || c.ConditionalWrites != ConditionalAuto {
			t.Errorf("%s: defaults not filled: %+v", name, c)
		}
	}
}

func TestCredentialEnvOrder(t *testing.T) {
	clearCredentialEnv(t)
	t.Setenv(EnvAWSAccessKey, "aws-key")
	t.Setenv(EnvAWSSecretKey, "aws-secret")
	t.Setenv(EnvAWSSessionTok, "aws-token")
	c := Config{Endpoint: "x", Bucket: "wsfs"}
	if _, err := c.normalize(); err != nil || c.AccessKey != "aws-key" || c.SecretKey != "aws-secret" || c.SessionToken != "aws-token" {
		t.Fatalf("AWS_* credentials: %+v, %v", c, err)
	}
	t.Setenv(EnvAccessKey, "wsfs-key")
	t.Setenv(EnvSecretKey, "wsfs-secret")
	c = Config{Endpoint: "x", Bucket: "wsfs"}
	if _, err := c.normalize(); err != nil || c.AccessKey != "wsfs-key" || c.SecretKey != "wsfs-secret" || c.SessionToken != "" {
		t.Fatalf("WSFS_S3_* credentials should win: %+v, %v", c, err)
	}
	c = Config{Endpoint: "x", Bucket: "wsfs", AccessKey: "cfg", SecretKey: "cfg-secret"}
	if _, err := c.normalize(); err != nil || c.AccessKey != "cfg" {
		t.Fatalf("Config credentials should win: %+v, %v", c, err)
	}
	t.Setenv(EnvSecretKey, "")
	c = Config{Endpoint: "x", Bucket: "wsfs"}
	if _, err := c.normalize(); err == nil || !strings.Contains(err.Error(), "WSFS_S3_SECRET_ACCESS_KEY is empty") {
		t.Fatalf("half-set WSFS_S3_*: %v", err)
	}
}

func TestParseAddressing(t *testing.T) {
	for in, want := range map[string]Addressing{
		"": AddressingAuto, "auto": AddressingAuto, "true": AddressingPath, "path": AddressingPath,
		"false": AddressingVirtualHost, "virtual": AddressingVirtualHost, "DNS": AddressingVirtualHost,
	} {
		if got, err := ParseAddressing(in); err != nil || got != want {
			t.Errorf("ParseAddressing(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseAddressing("sideways"); err == nil {
		t.Error("ParseAddressing(sideways) succeeded")
	}
}

func TestParseBlobKey(t *testing.T) {
	d := objects.Sum([]byte("x"))
	h := d.String()
	if got, ok := parseBlobKey(h[:2] + "/" + h); !ok || got != d {
		t.Fatalf("parseBlobKey(good) = %v, %v", got, ok)
	}
	for _, bad := range []string{
		"", h, "00/" + h, h[:2] + "/" + strings.ToUpper(h), h[:2] + "/" + h + ".tmp", h[:2] + "/" + h[:63] + "g",
		h[:2] + "/" + h + "/x", h[:3] + "/" + h, "/" + h,
	} {
		if _, ok := parseBlobKey(bad); ok {
			t.Errorf("parseBlobKey(%q) accepted", bad)
		}
	}
}

func TestRetryable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{minio.ErrorResponse{Code: "SlowDown", StatusCode: 503}, true},
		{minio.ErrorResponse{Code: "InternalError", StatusCode: 500}, true},
		{minio.ErrorResponse{Code: "502 Bad Gateway", StatusCode: 502}, true},
		{minio.ErrorResponse{Code: "TooManyRequests", StatusCode: 429}, true},
		{minio.ErrorResponse{Code: "RequestTimeout", StatusCode: 400}, true},
		{minio.ErrorResponse{Code: "AccessDenied", StatusCode: 403}, false},
		{minio.ErrorResponse{Code: "InvalidAccessKeyId", StatusCode: 403}, false},
		{minio.ErrorResponse{Code: "SignatureDoesNotMatch", StatusCode: 403}, false},
		{minio.ErrorResponse{Code: "NoSuchBucket", StatusCode: 404}, false},
		{minio.ErrorResponse{Code: "NoSuchKey", StatusCode: 404}, false},
		{minio.ErrorResponse{Code: "InvalidArgument", StatusCode: 400}, false},
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), true},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{io.ErrUnexpectedEOF, true},
		{&net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, true},
		{fmt.Errorf("write: %w", net.ErrClosed), true},
		{&net.DNSError{Err: "no such host", Name: "nowhere", IsNotFound: true}, false},
		{&net.DNSError{Err: "timeout", Name: "slow", IsTimeout: true}, true},
		{context.DeadlineExceeded, false},
		{fmt.Errorf("x: %w", context.Canceled), false},
		{errors.New("something else"), false},
	} {
		if got := retryable(tc.err); got != tc.want {
			t.Errorf("retryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestWholeAsRange(t *testing.T) {
	data := []byte("0123456789")
	d := objects.Sum(data)
	for _, tc := range []struct {
		off, length int64
		want        string
	}{{0, -1, "0123456789"}, {0, 20, "0123456789"}, {0, 3, "012"}, {4, 3, "456"}, {7, -1, "789"}, {10, -1, ""}, {15, 2, ""}} {
		rc, err := wholeAsRange(io.NopCloser(strings.NewReader(string(data))), d, 10, tc.off, tc.length)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		if err != nil || string(got) != tc.want {
			t.Errorf("wholeAsRange(%d, %d) = %q, %v; want %q", tc.off, tc.length, got, err, tc.want)
		}
	}
	// A whole read of bytes that do not match is corrupt.
	rc, _ := wholeAsRange(io.NopCloser(strings.NewReader("0123456780")), d, 10, 0, -1)
	if _, err := io.ReadAll(rc); !errors.Is(err, objects.ErrCorrupt) {
		t.Errorf("whole read of wrong bytes: %v, want ErrCorrupt", err)
	}
}

func TestDescribe(t *testing.T) {
	s, err := New(context.Background(), Config{Endpoint: "minio:9000", Bucket: "wsfs", Prefix: "p", AccessKey: "k", SecretKey: "s"})
	if err != nil {
		t.Fatal(err)
	}
	d := objects.Sum([]byte("x"))
	for _, tc := range []struct {
		err  error
		is   error
		want string
	}{
		{minio.ErrorResponse{Code: "NoSuchKey", StatusCode: 404}, objects.ErrNotFound, "s3: open " + d.Short() + ": blob not in s3://wsfs/p (minio:9000)"},
		{minio.ErrorResponse{Code: "NoSuchBucket", StatusCode: 404}, ErrNoBucket, "s3: bucket wsfs does not exist at minio:9000: create it or fix --store"},
		{minio.ErrorResponse{Code: "AccessDenied", StatusCode: 403}, ErrAccess, "access denied: check the credentials in WSFS_S3_ACCESS_KEY_ID/WSFS_S3_SECRET_ACCESS_KEY (or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY) and their permissions on bucket wsfs"},
		{minio.ErrorResponse{Code: "InvalidAccessKeyId", Message: "no\\nsuch key", StatusCode: 403}, ErrAccess, "the server rejected the credentials (InvalidAccessKeyId: no\\nsuch key)"},
		{minio.ErrorResponse{Code: "AuthorizationHeaderMalformed", Region: "eu-west-1", StatusCode: 400}, ErrAccess, "the bucket is in region eu-west-1, not us-east-1: add region=eu-west-1 to --store"},
		{minio.ErrorResponse{Code: "RequestTimeTooSkewed", StatusCode: 403}, ErrAccess, "clock is off"},
		{minio.ErrorResponse{Code: "XAmzContentSHA256Mismatch", StatusCode: 400}, nil, "do not hash to the digest, which were right when sent"},
		{minio.ErrorResponse{Code: "503 Service Unavailable", Message: "<html>\n<body>busy</body>\n</html>", StatusCode: 503}, nil, "s3: open " + d.Short() + " on s3://wsfs/p (minio:9000): 503 Service Unavailable: <html> <body>busy</body> </html>"},
		{&url.Error{Op: "Get", URL: "http://minio:9000/wsfs/p/blobs", Err: &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}}, ErrUnreachable, "cannot reach minio:9000 (connection refused): start the server or fix the endpoint in --store"},
		{&url.Error{Op: "Get", URL: "x", Err: &net.DNSError{Err: "no such host", Name: "minio", IsNotFound: true}}, ErrUnreachable, "cannot resolve minio (no such host): fix the endpoint in --store"},
		{&url.Error{Op: "Get", URL: "x", Err: &net.OpError{Op: "read", Err: os.ErrDeadlineExceeded}}, ErrUnreachable, "minio:9000 did not answer in time"},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), context.DeadlineExceeded, "s3: open " + d.Short() + " on s3://wsfs/p (minio:9000): context deadline exceeded"},
	} {
		got := s.describe("open", d, tc.err)
		if tc.is != nil && !errors.Is(got, tc.is) {
			t.Errorf("describe(%v) = %v: does not wrap %v", tc.err, got, tc.is)
		}
		if !strings.Contains(got.Error(), tc.want) || !strings.HasPrefix(got.Error(), "s3: ") || strings.Contains(got.Error(), "\n") {
			t.Errorf("describe(%v) =\n%q\nwant one line with\n%q", tc.err, got, tc.want)
		}
	}
}
