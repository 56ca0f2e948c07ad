package api

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta"
)

// lockedBuffer is a log sink tests read while the server writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// netEnv is a server listening on loopback, with keys.
type netEnv struct {
	*testEnv
	url  string
	logs *lockedBuffer
}

func newNetEnv(t *testing.T, limits Limits) *netEnv {
	t.Helper()
	logs := &lockedBuffer{}
	e := newEnvWith(t, func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		c.Limits = limits
	})
	url, err := e.srv.Listen(context.Background(), ListenOptions{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	return &netEnv{testEnv: e, url: url, logs: logs}
}

func (e *netEnv) key(t *testing.T, spec meta.KeySpec) string {
	t.Helper()
	_, token, err := e.db.CreateKey(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// call makes one request and decodes a JSON answer into out (if not nil).
func (e *netEnv) call(t *testing.T, method, path, key string, body any, out any) *http.Response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %s: %v\n%s", method, path, resp.Status, err, b)
		}
	}
	return resp
}

func TestNetworkKeys(t *testing.T) {
	e := newNetEnv(t, Limits{})
	ctx := context.Background()
	admin := e.key(t, meta.KeySpec{Tenant: "acme", Scope: meta.ScopeAdmin})
	reader := e.key(t, meta.KeySpec{Tenant: "acme", Scope: meta.ScopeRead})
	other := e.key(t, meta.KeySpec{Tenant: "other", Scope: meta.ScopeAdmin})

	var h Health
	if resp := e.call(t, "GET", "/v1/health", "", nil, &h); resp.StatusCode != 200 || h.Protocol != ProtocolVersion || h.PID != 0 || h.Store != "" {
		t.Fatalf("health without a key: %s %+v (where the server runs is not the network's business)", resp.Status, h)
	}
	var we wireError
	if resp := e.call(t, "GET", "/v1/whoami", "", nil, &we); resp.StatusCode != 401 || we.Code != CodeUnauthorized || !strings.Contains(we.Message, "Bearer") {
		t.Fatalf("no key: %s %+v", resp.Status, we)
	}
	if resp := e.call(t, "GET", "/v1/whoami", "wsfs_nonsense", nil, &we); resp.StatusCode != 401 || we.Code != CodeUnauthorized {
		t.Fatalf("a bad key: %s %+v", resp.Status, we)
	}
	var me Whoami
	if resp := e.call(t, "GET", "/v1/whoami", reader, nil, &me); resp.StatusCode != 200 || me.Tenant != "acme" || me.Scope != "read" || me.Limits != DefaultLimits {
		t.Fatalf("whoami: %s %+v", resp.Status, me)
	}

	// An admin makes keys for its own tenant only; a read key makes none.
	var nk NewKey
	if resp := e.call(t, "POST", "/v1/keys", admin, KeyRequest{Tenant: "acme", Scope: "run", Name: "agent"}, &nk); resp.StatusCode != 201 || nk.Secret == "" || nk.Tenant != "acme" {
		t.Fatalf("create a key: %s %+v", resp.Status, nk)
	}
	if _, err := e.db.Authenticate(ctx, nk.Secret); err != nil {
		t.Fatalf("the new key: %v", err)
	}
	if resp := e.call(t, "POST", "/v1/keys", admin, KeyRequest{Tenant: "other", Scope: "admin"}, &we); resp.StatusCode != 403 || we.Code != CodeForbidden {
		t.Fatalf("a key for another tenant: %s %+v", resp.Status, we)
	}
	if resp := e.call(t, "POST", "/v1/keys", reader, KeyRequest{Tenant: "acme", Scope: "read"}, &we); resp.StatusCode != 403 || we.Code != CodeForbidden || !strings.Contains(we.Message, "scope admin") {
		t.Fatalf("a read key making a key: %s %+v", resp.Status, we)
	}
	var keys []meta.Key
	if resp := e.call(t, "GET", "/v1/keys", admin, nil, &keys); resp.StatusCode != 200 || len(keys) != 3 {
		t.Fatalf("list keys: %s %+v", resp.Status, keys)
	}
	for _, k := range keys {
		if k.Tenant != "acme" {
			t.Errorf("acme's admin lists a key of %s", k.Tenant)
		}
	}
	// Another tenant's key cannot be revoked: it does not exist for them.
	if resp := e.call(t, "DELETE", "/v1/keys/"+nk.ID, other, nil, &we); resp.StatusCode != 404 || we.Code != "not_found" {
		t.Fatalf("revoking another tenant's key: %s %+v", resp.Status, we)
	}
	if resp := e.call(t, "DELETE", "/v1/keys/"+nk.ID, admin, nil, nil); resp.StatusCode != 200 {
		t.Fatalf("revoke: %s", resp.Status)
	}
	if resp := e.call(t, "GET", "/v1/whoami", nk.Secret, nil, &we); resp.StatusCode != 401 || we.Code != CodeKeyRevoked {
		t.Fatalf("a revoked key: %s %+v", resp.Status, we)
	}
	_, expiring, err := e.db.CreateKey(ctx, meta.KeySpec{Tenant: "acme", Scope: meta.ScopeRead, Expires: time.Now().Add(50 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	for e.call(t, "GET", "/v1/whoami", expiring, nil, nil).StatusCode == 200 {
		time.Sleep(10 * time.Millisecond)
	}
	if resp := e.call(t, "GET", "/v1/whoami", expiring, nil, &we); resp.StatusCode != 401 || we.Code != CodeKeyExpired {
		t.Fatalf("an expired key: %s %+v", resp.Status, we)
	}

	// Unknown routes and methods are JSON too.
	if resp := e.call(t, "GET", "/v1/nothing", admin, nil, &we); resp.StatusCode != 404 || we.Code != CodeNoRoute {
		t.Fatalf("no route: %s %+v", resp.Status, we)
	}
	if resp := e.call(t, "PUT", "/v1/keys", admin, nil, &we); resp.StatusCode != 405 || we.Code != CodeMethod || resp.Header.Get("Allow") != "GET, POST" {
		t.Fatalf("a wrong method: %s %+v %q", resp.Status, we, resp.Header.Get("Allow"))
	}
	if resp := e.call(t, "GET", "/v1/keys/../whoami", admin, nil, &we); resp.StatusCode != 400 || we.Code != "invalid" {
		t.Fatalf("a .. segment: %s %+v", resp.Status, we)
	}
	if resp := e.call(t, "POST", "/v1/keys", admin, `{"tenant":"acme","scope":"read","color":"red"}`, &we); resp.StatusCode != 400 || !strings.Contains(we.Message, `unknown field "color"`) {
		t.Fatalf("an unknown field: %s %+v", resp.Status, we)
	}
	if resp := e.call(t, "POST", "/v1/keys", admin, strings.Repeat(" ", maxJSONBody+1), &we); resp.StatusCode != 413 || we.Code != CodeTooLarge || we.Limit != maxJSONBody || !strings.Contains(we.Message, "1 MiB") {
		t.Fatalf("an oversized body: %s %+v", resp.Status, we)
	}

	// The log names keys, never their secrets.
	logs := e.logs.String()
	for _, secret := range []string{admin, reader, other, nk.Secret, expiring} {
		if strings.Contains(logs, secret[len(meta.KeyPrefix)+13:]) {
			t.Fatalf("the log holds a key's secret:\n%s", logs)
		}
	}
	if !strings.Contains(logs, `op="GET /v1/whoami"`) || !strings.Contains(logs, "status=401") {
		t.Fatalf("the request log lacks the operation or the status:\n%s", logs)
	}
}

func TestNetworkRateLimit(t *testing.T) {
	e := newNetEnv(t, Limits{Rate: 1, Burst: 3})
	k := e.key(t, meta.KeySpec{Tenant: "acme", Scope: meta.ScopeRead})
	fast := e.key(t, meta.KeySpec{Tenant: "acme", Scope: meta.ScopeRead, Rate: 1000})
	for i := range 3 {
		if resp := e.call(t, "GET", "/v1/whoami", k, nil, nil); resp.StatusCode != 200 {
			t.Fatalf("request %d within the burst: %s", i, resp.Status)
		}
	}
	var we wireError
	resp := e.call(t, "GET", "/v1/whoami", k, nil, &we)
	if resp.StatusCode != 429 || we.Code != CodeRateLimited || resp.Header.Get("Retry-After") != "1" || we.RetryAfter != 1 {
		t.Fatalf("past the burst: %s %+v Retry-After %q", resp.Status, we, resp.Header.Get("Retry-After"))
	}
	// Limits are per key: another key is not held up.
	for i := range 10 {
		if resp := e.call(t, "GET", "/v1/whoami", fast, nil, nil); resp.StatusCode != 200 {
			t.Fatalf("another key's request %d: %s", i, resp.Status)
		}
	}
}

func TestListenRules(t *testing.T) {
	for _, o := range []ListenOptions{
		{Addr: "0.0.0.0:0"},
		{Addr: ":8080"},
		{Addr: "10.1.2.3:80"},
		{Addr: "localhost"},
		{Addr: "127.0.0.1:0", TLSCert: "c.pem"},
	} {
		if err := ValidateListen(o); err == nil {
			t.Errorf("ValidateListen(%+v) accepted it", o)
		}
	}
	for _, o := range []ListenOptions{
		{Addr: "127.0.0.1:0"}, {Addr: "[::1]:0"}, {Addr: "localhost:80"},
		{Addr: ":8080", Insecure: true}, {Addr: ":8443", TLSCert: "c", TLSKey: "k"},
	} {
		if err := ValidateListen(o); err != nil {
			t.Errorf("ValidateListen(%+v): %v", o, err)
		}
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "wsfs test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

func TestNetworkTLSAndHTTP2(t *testing.T) {
	e := newEnv(t)
	certFile, keyFile, pool := selfSigned(t)
	url, err := e.srv.Listen(context.Background(), ListenOptions{Addr: "127.0.0.1:0", TLSCert: certFile, TLSKey: keyFile})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(url, "https://127.0.0.1:") {
		t.Fatalf("url %s", url)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(url + "/v1/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ProtoMajor != 2 {
		t.Fatalf("over TLS: %s %s, want HTTP/2", resp.Status, resp.Proto)
	}
	// Plain HTTP/2 (h2c, prior knowledge) on a loopback listener.
	plain, err := e.srv.Listen(context.Background(), ListenOptions{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	var protos http.Protocols
	protos.SetUnencryptedHTTP2(true)
	h2c := &http.Transport{Protocols: &protos}
	defer h2c.CloseIdleConnections()
	resp, err = (&http.Client{Transport: h2c}).Get(plain + "/v1/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ProtoMajor != 2 {
		t.Fatalf("h2c: %s %s", resp.Status, resp.Proto)
	}
	info, err := ReadInfo(e.home)
	if err != nil || len(info.Listen) != 2 || info.Listen[0] != url {
		t.Fatalf("server.json's listeners: %+v %v", info.Listen, err)
	}
}
