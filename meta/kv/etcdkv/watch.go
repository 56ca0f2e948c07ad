package etcdkv

import (
	"context"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/wsfs/wsfs/meta/kv"
)

var _ kv.Watcher = (*Engine)(nil)

// Watch implements kv.Watcher with an etcd watch on the bucket's prefix,
// with the previous values, from the revision after the one current when
// Watch is called. The client takes a broken watch up again from the last
// revision it saw; a watch etcd cancels because that revision was
// compacted starts again from the current one, after a nil Change.
func (e *Engine) Watch(ctx context.Context, b kv.Bucket, fn func(*kv.Change)) (<-chan struct{}, error) {
	if err := checkBucket(b); err != nil {
		return nil, err
	}
	p := e.bucketPrefix(b)
	current := func() (int64, error) {
		rctx, cancel := context.WithTimeout(ctx, e.opts.RequestTimeout)
		defer cancel()
		resp, err := e.cli.Get(rctx, p, clientv3.WithCountOnly())
		if err != nil {
			return 0, e.wrap(err, false)
		}
		return resp.Header.Revision + 1, nil
	}
	rev, err := current()
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if rev == 0 {
				r, err := current()
				if err != nil {
					pause(ctx)
					continue
				}
				rev = r
				fn(nil)
			}
			wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
			for resp := range e.cli.Watch(wctx, p, clientv3.WithPrefix(), clientv3.WithPrevKV(), clientv3.WithRev(rev)) {
				if resp.CompactRevision > 0 {
					rev = 0
					break
				}
				if resp.Err() != nil {
					break
				}
				for _, ev := range resp.Events {
					c := &kv.Change{Key: ev.Kv.Key[len(p):]}
					if ev.Type == clientv3.EventTypePut {
						c.Value = ev.Kv.Value
						if c.Value == nil {
							c.Value = []byte{}
						}
					}
					if ev.PrevKv != nil {
						c.Prev = ev.PrevKv.Value
					}
					fn(c)
					rev = ev.Kv.ModRevision + 1
				}
			}
			cancel()
			// The watch ended (no leader, a lost connection): take it up
			// again after a pause, from the revision after the last seen.
			pause(ctx)
		}
	}()
	return done, nil
}

func pause(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(200 * time.Millisecond):
	}
}
