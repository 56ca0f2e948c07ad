package api

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"golang.org/x/net/netutil"
)

// ListenOptions say where and how the API listens on the network.
type ListenOptions struct {
	// Addr is host:port (":0" picks a free port).
	Addr string
	// TLSCert and TLSKey are PEM files; with them the API speaks HTTPS
	// (HTTP/1.1 and HTTP/2).
	TLSCert, TLSKey string
	// Insecure allows plain HTTP on an address other than loopback (behind
	// a proxy that terminates TLS). Without TLS and without it, only a
	// loopback address is accepted: keys must not travel in clear.
	Insecure bool
	// MaxConns bounds the connections served at once (0: 4096).
	MaxConns int
}

// netListener is one network listener of the API.
type netListener struct {
	url string
	srv *http.Server
}

// Listen serves the API on the network as opts say, in the background
// until Close, and records its URL in server.json. It returns the URL
// (with the port a ":0" address was given).
func (s *Server) Listen(ctx context.Context, opts ListenOptions) (string, error) {
	if err := ValidateListen(opts); err != nil {
		return "", err
	}
	secure := opts.TLSCert != ""
	host, _, _ := net.SplitHostPort(opts.Addr)
	var tlsConf *tls.Config
	if secure {
		cert, err := tls.LoadX509KeyPair(opts.TLSCert, opts.TLSKey)
		if err != nil {
			return "", fmt.Errorf("api: loading the TLS certificate %s and key %s: %w", opts.TLSCert, opts.TLSKey, err)
		}
		tlsConf = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", opts.Addr)
	if err != nil {
		return "", fmt.Errorf("api: listening on %s: %w", opts.Addr, err)
	}
	maxConns := opts.MaxConns
	if maxConns <= 0 {
		maxConns = 4096
	}
	ln = netutil.LimitListener(ln, maxConns)
	var protos http.Protocols
	protos.SetHTTP1(true)
	protos.SetHTTP2(true)
	if !secure {
		protos.SetUnencryptedHTTP2(true) // h2c with prior knowledge, for clients that ask
	}
	srv := &http.Server{
		Handler:           s.NetworkHandler(),
		Protocols:         &protos,
		TLSConfig:         tlsConf,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	scheme := "http"
	if secure {
		scheme = "https"
		ln = tls.NewListener(ln, tlsConf)
	}
	url := scheme + "://" + urlHost(ln.Addr().(*net.TCPAddr), host)
	nl := &netListener{url: url, srv: srv}
	s.netMu.Lock()
	s.nets = append(s.nets, nl)
	urls := s.urlsLocked()
	s.netMu.Unlock()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("api: serving the network failed", "url", url, "err", err)
		}
	}()
	if s.socket != "" {
		if err := s.recordListen(urls); err != nil {
			return url, err
		}
	}
	s.log.Info("api: listening", "url", url, "tls", secure)
	return url, nil
}

// ValidateListen checks opts without listening: an address of the form
// host:port, TLS files given together, and plain HTTP only on a loopback
// address unless Insecure.
func ValidateListen(opts ListenOptions) error {
	secure := opts.TLSCert != "" || opts.TLSKey != ""
	if secure && (opts.TLSCert == "" || opts.TLSKey == "") {
		return errors.New("TLS needs both --tls-cert and --tls-key")
	}
	host, _, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return fmt.Errorf("--listen %q is not host:port (127.0.0.1:8080, [::1]:8443, :8443)", opts.Addr)
	}
	if !secure && !opts.Insecure && !isLoopback(host) {
		return fmt.Errorf("--listen %s without TLS would send keys in clear over the network: give --tls-cert and --tls-key, listen on a loopback address (127.0.0.1:PORT), or pass --insecure-listen behind a proxy that terminates TLS", opts.Addr)
	}
	return nil
}

func (s *Server) urlsLocked() []string {
	var out []string
	for _, n := range s.nets {
		out = append(out, n.url)
	}
	return out
}

// recordListen adds the listeners' URLs to server.json.
func (s *Server) recordListen(urls []string) error {
	info, err := ReadInfo(s.cfg.Home)
	if err != nil {
		return err
	}
	info.Listen = urls
	return writeInfo(s.cfg.Home, info)
}

// URLs returns the network listeners' URLs.
func (s *Server) URLs() []string {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	return s.urlsLocked()
}

// closeNetwork stops the network listeners: streams end (closing), calls
// in flight finish until ctx ends.
func (s *Server) closeNetwork(ctx context.Context) error {
	s.netMu.Lock()
	nets := s.nets
	s.nets = nil
	s.netMu.Unlock()
	var errs []error
	for _, n := range nets {
		if err := n.srv.Shutdown(ctx); err != nil {
			n.srv.Close()
			errs = append(errs, fmt.Errorf("api: calls on %s still running at shutdown were cut: %w", n.url, err))
		}
	}
	return errors.Join(errs...)
}

// isLoopback reports whether host names only this machine.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// urlHost is the host:port a client uses for addr, listened on as host.
func urlHost(addr *net.TCPAddr, host string) string {
	h := host
	if h == "" || addr.IP.IsUnspecified() {
		h = "127.0.0.1"
		if addr.IP.To4() == nil && !addr.IP.IsUnspecified() {
			h = "::1"
		}
	}
	return net.JoinHostPort(strings.Trim(h, "[]"), fmt.Sprint(addr.Port))
}
