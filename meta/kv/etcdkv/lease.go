package etcdkv

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/wsfs/wsfs/meta/kv"
)

var _ kv.Leaser = (*Engine)(nil)

// Session implements kv.Leaser with an etcd lease of ttl (whole seconds,
// at least 1) that the client keeps alive.
func (e *Engine) Session(ctx context.Context, ttl time.Duration) (kv.Session, error) {
	secs := int(ttl.Round(time.Second) / time.Second)
	if secs < 1 {
		secs = 1
	}
	// Grant with a deadline (a session would wait for etcd forever), then
	// keep it alive for as long as the session lasts.
	rctx, cancel := context.WithTimeout(ctx, e.opts.RequestTimeout)
	lease, err := e.cli.Grant(rctx, int64(secs))
	cancel()
	if err != nil {
		return nil, e.wrap(err, false)
	}
	s, err := concurrency.NewSession(e.cli, concurrency.WithLease(lease.ID), concurrency.WithTTL(secs), concurrency.WithContext(context.WithoutCancel(ctx)))
	if err != nil {
		return nil, e.wrap(err, false)
	}
	return &session{e: e, s: s}, nil
}

type session struct {
	e *Engine
	s *concurrency.Session
}

func (s *session) ID() int64             { return int64(s.s.Lease()) }
func (s *session) Done() <-chan struct{} { return s.s.Done() }
func (s *session) Orphan()               { s.s.Orphan() }
func (s *session) Close() error          { return s.s.Close() }

func (s *session) Put(ctx context.Context, b kv.Bucket, key, value []byte) error {
	if err := checkBucket(b); err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, s.e.opts.RequestTimeout)
	defer cancel()
	_, err := s.e.cli.Put(rctx, s.e.Key(b, key), string(value), clientv3.WithLease(s.s.Lease()))
	return s.e.wrap(err, true)
}

func (s *session) Create(ctx context.Context, b kv.Bucket, key, value []byte) (bool, []byte, error) {
	if err := checkBucket(b); err != nil {
		return false, nil, err
	}
	k := s.e.Key(b, key)
	rctx, cancel := context.WithTimeout(ctx, s.e.opts.RequestTimeout)
	defer cancel()
	resp, err := s.e.cli.Txn(rctx).
		If(clientv3.Compare(clientv3.CreateRevision(k), "=", 0)).
		Then(clientv3.OpPut(k, string(value), clientv3.WithLease(s.s.Lease()))).
		Else(clientv3.OpGet(k)).Commit()
	if err != nil {
		return false, nil, s.e.wrap(err, true)
	}
	if resp.Succeeded {
		return true, nil, nil
	}
	if rs := resp.Responses[0].GetResponseRange(); rs != nil && len(rs.Kvs) > 0 {
		return false, rs.Kvs[0].Value, nil
	}
	return false, nil, fmt.Errorf("etcd: %s: the holder of %s vanished while it was read; try again", s.e.where, k)
}

func (s *session) Delete(ctx context.Context, b kv.Bucket, key, value []byte) error {
	if err := checkBucket(b); err != nil {
		return err
	}
	k := s.e.Key(b, key)
	rctx, cancel := context.WithTimeout(ctx, s.e.opts.RequestTimeout)
	defer cancel()
	_, err := s.e.cli.Txn(rctx).If(clientv3.Compare(clientv3.Value(k), "=", string(value))).Then(clientv3.OpDelete(k)).Commit()
	return s.e.wrap(err, true)
}
