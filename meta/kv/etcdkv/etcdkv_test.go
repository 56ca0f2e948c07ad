package etcdkv_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wsfs/wsfs/meta/kv"
	"github.com/wsfs/wsfs/meta/kv/etcdkv"
	"github.com/wsfs/wsfs/meta/kv/etcdkv/etcdtest"
	"github.com/wsfs/wsfs/meta/kv/kvtest"
)

func TestConformance(t *testing.T) {
	c := etcdtest.Start(t, 1)
	kvtest.Run(t, func(t *testing.T) kv.Engine { return c.Engine(t, etcdkv.Options{}) })
}

// TestConformanceSmallLimits runs the suite with small transactions and
// pages, so that scans cross many pages and limits are reached.
func TestConformanceSmallLimits(t *testing.T) {
	c := etcdtest.Start(t, 1)
	kvtest.Run(t, func(t *testing.T) kv.Engine {
		return c.Engine(t, etcdkv.Options{MaxOps: 16, MaxBytes: 256 << 10, PageSize: 7})
	})
}

// TestThreeMembers: the suite on a 3-member cluster, then with one member
// down (a majority serves), then with two down (no quorum: a clear error
// naming etcd, nothing written), then back.
func TestThreeMembers(t *testing.T) {
	c := etcdtest.Start(t, 3)
	kvtest.Run(t, func(t *testing.T) kv.Engine { return c.Engine(t, etcdkv.Options{}) })

	ctx := context.Background()
	e := c.Engine(t, etcdkv.Options{RequestTimeout: 2 * time.Second})
	b := kv.B("q")
	put := func(k string) error {
		return e.Update(ctx, func(tx kv.Txn) error { return tx.Put(b, []byte(k), []byte("v")) })
	}
	if err := put("before"); err != nil {
		t.Fatal(err)
	}
	c.Stop(2)
	if err := put("one-down"); err != nil {
		t.Fatalf("with one member of three down: %v", err)
	}
	c.Stop(1)
	err := put("no-quorum")
	if !errors.Is(err, kv.ErrUnavailable) {
		t.Fatalf("without quorum: %v, want ErrUnavailable", err)
	}
	t.Logf("without quorum: %v", err)
	if msg := err.Error(); !strings.Contains(msg, "etcd") || !strings.Contains(msg, c.Endpoints()[0]) {
		t.Fatalf("the error does not name etcd and its endpoints: %v", err)
	}
	if err := c.Restart(1); err != nil {
		t.Fatal(err)
	}
	// A majority again: the same engine works again, without reopening.
	var last error
	for range 50 {
		if last = put("after"); last == nil {
			break
		}
	}
	if last != nil {
		t.Fatalf("after quorum came back: %v", last)
	}
	var got []string
	e.View(ctx, func(r kv.Reader) error {
		return r.Scan(b, kv.ScanOptions{}, func(k, v []byte) error { got = append(got, string(k)); return nil })
	})
	for _, want := range []string{"after", "before", "one-down"} {
		if !slices.Contains(got, want) {
			t.Fatalf("records after the outage: %q, want %q among them", got, want)
		}
	}
}

func TestOpenUnreachable(t *testing.T) {
	_, err := etcdkv.Open(context.Background(), etcdkv.Options{Endpoints: []string{"127.0.0.1:1"}, DialTimeout: 500 * time.Millisecond, RequestTimeout: time.Second})
	if !errors.Is(err, kv.ErrUnavailable) || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("open of an unreachable etcd: %v", err)
	}
	t.Log(err)
}
