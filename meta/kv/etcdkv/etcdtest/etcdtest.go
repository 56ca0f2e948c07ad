// Package etcdtest starts etcd clusters inside a test process (the etcd
// server's embed package, on loopback ports, data in a temporary folder),
// so that the etcd engine and the servers that share it are tested
// against a real etcd: one member, or three with members stopped and
// started again. It is the only wsfs package that imports the etcd server.
package etcdtest

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/wsfs/wsfs/meta/kv/etcdkv"
)

// Cluster is an embedded etcd cluster.
type Cluster struct {
	dir     string
	members []*member
	mu      sync.Mutex
}

type member struct {
	name    string
	cfg     *embed.Config
	client  string // host:port
	etcd    *embed.Etcd
	stopped bool
}

var seq atomic.Int64

// Start starts a cluster of n members and waits until it serves. It fails
// tb if it cannot; Close (registered with tb.Cleanup when tb is a test)
// stops it.
func Start(tb testing.TB, n int) *Cluster {
	tb.Helper()
	c, err := StartDir(tb.TempDir(), n)
	if err != nil {
		tb.Fatalf("etcdtest: %v", err)
	}
	tb.Cleanup(c.Close)
	return c
}

// StartDir is Start with the members' data under dir, for callers without
// a testing.TB (TestMain, benchmarks' setup).
func StartDir(dir string, n int) (*Cluster, error) {
	c := &Cluster{dir: dir}
	ports, err := freePorts(2 * n)
	if err != nil {
		return nil, err
	}
	var initial []string
	token := fmt.Sprintf("wsfs-test-%d-%d", os.Getpid(), seq.Add(1))
	for i := range n {
		m := &member{name: fmt.Sprintf("m%d", i), client: fmt.Sprintf("127.0.0.1:%d", ports[2*i])}
		peer := fmt.Sprintf("http://127.0.0.1:%d", ports[2*i+1])
		cfg := embed.NewConfig()
		cfg.Name = m.name
		cfg.Dir = filepath.Join(dir, m.name)
		cu, _ := url.Parse("http://" + m.client)
		pu, _ := url.Parse(peer)
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*cu}, []url.URL{*cu}
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*pu}, []url.URL{*pu}
		cfg.InitialClusterToken = token
		cfg.UnsafeNoFsync = true
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
		cfg.LogLevel = "error"
		m.cfg = cfg
		c.members = append(c.members, m)
		initial = append(initial, m.name+"="+peer)
	}
	for _, m := range c.members {
		m.cfg.InitialCluster = strings.Join(initial, ",")
	}
	// Members of a new cluster wait for each other: start them together.
	errs := make(chan error, n)
	for _, m := range c.members {
		go func() { errs <- m.start() }()
	}
	var first error
	for range n {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		c.Close()
		return nil, first
	}
	return c, nil
}

func (m *member) start() error {
	e, err := embed.StartEtcd(m.cfg)
	if err != nil {
		return fmt.Errorf("starting etcd member %s: %w", m.name, err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return fmt.Errorf("etcd member %s: %w", m.name, err)
	case <-time.After(time.Minute):
		e.Close()
		return fmt.Errorf("etcd member %s did not become ready in a minute", m.name)
	}
	m.etcd, m.stopped = e, false
	return nil
}

// Endpoints returns the members' client addresses (host:port), stopped
// ones included.
func (c *Cluster) Endpoints() []string {
	var out []string
	for _, m := range c.members {
		out = append(out, m.client)
	}
	return out
}

// URL returns the --meta URL of the cluster with key prefix prefix.
func (c *Cluster) URL(prefix string) string {
	return "etcd://" + strings.Join(c.Endpoints(), ",") + "/" + prefix
}

// Stop stops member i, as a crash would (its data stays).
func (c *Cluster) Stop(i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.members[i]
	if m.stopped || m.etcd == nil {
		return
	}
	m.etcd.Close()
	m.stopped = true
}

// Restart starts member i again after Stop, from its data, and waits
// until it serves.
func (c *Cluster) Restart(i int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.members[i]
	if !m.stopped {
		return nil
	}
	m.cfg.ClusterState = embed.ClusterStateFlagExisting
	return m.start()
}

// Close stops every member.
func (c *Cluster) Close() {
	for i := range c.members {
		c.Stop(i)
	}
}

var prefixSeq atomic.Int64

// Engine opens an engine on the cluster under a prefix of its own (so that
// tests sharing a cluster do not see each other's records); tb.Cleanup
// closes it.
func (c *Cluster) Engine(tb testing.TB, opts etcdkv.Options) *etcdkv.Engine {
	tb.Helper()
	if opts.Prefix == "" {
		opts.Prefix = fmt.Sprintf("t%d", prefixSeq.Add(1))
	}
	opts.Endpoints = c.Endpoints()
	e, err := etcdkv.Open(context.Background(), opts)
	if err != nil {
		tb.Fatalf("etcdtest: %v", err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

// NewPrefix returns a key prefix no other caller of this process got.
func NewPrefix() string { return fmt.Sprintf("p%d-%d", os.Getpid(), prefixSeq.Add(1)) }

// freePorts returns n loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
