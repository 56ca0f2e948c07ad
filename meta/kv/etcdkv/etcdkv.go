// Package etcdkv is the etcd engine of meta (kv.Engine): records in an etcd
// cluster that several wsfs servers share. It is the only wsfs package
// that imports the etcd client.
//
// # Keys
//
// A record of bucket ("revisions", "<id>") with key k is the etcd key
// "<prefix>/revisions/<id>/" followed by k's bytes, so a bucket is a key
// prefix and deleting a bucket is one DeleteRange. Several wsfs
// installations can share a cluster under different prefixes.
//
// # Transactions
//
// A View reads at one etcd revision: the first read takes the current
// one, and every later read of the view asks for that revision, so a view
// is one consistent snapshot however many pages its scans take. An Update
// reads the same way and buffers its writes (later reads of the same
// transaction see them); at the end it sends one etcd Txn whose compares
// say that every key it read still has the modification revision it had
// (0: still absent) and that no key of a range it scanned changed after
// its snapshot, and whose operations are its writes. When a compare
// fails, another server wrote first: the function runs again on a new
// snapshot, up to 64 times, with a short random pause growing each time.
// A scan's compare cannot see a key deleted from its range, so callers
// that delete records others scan also write one that they read with Get
// (kv's package doc).
//
// One transaction stays within etcd's limits: at most Options.MaxOps
// compares and as many writes (etcd's --max-txn-ops, default 128), and
// Options.MaxBytes of keys and values (below etcd's --max-request-bytes,
// 1.5 MiB by default). A transaction over them fails with kv.ErrTooLarge
// before anything is sent.
//
// # Failures
//
// Every request has a deadline (Options.RequestTimeout, 5 s): with etcd
// down or without quorum, an operation fails with kv.ErrUnavailable and a
// message naming etcd and its endpoints, instead of waiting. A Txn that
// fails once sent may have been applied: its error also matches
// kv.ErrUncertain, so that meta keeps what such a commit names.
package etcdkv

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/wsfs/wsfs/meta/kv"
)

// Options configure an Engine.
type Options struct {
	// Endpoints are the cluster's client URLs or host:port pairs.
	Endpoints []string
	// Prefix is the key prefix of every record (no leading or trailing
	// '/'; default "wsfs").
	Prefix string
	// TLS, when set, is used to reach the endpoints.
	TLS *tls.Config
	// Username and Password authenticate to etcd, when set.
	Username, Password string
	// DialTimeout bounds the first connection (default 5 s).
	DialTimeout time.Duration
	// RequestTimeout bounds every request (default 5 s).
	RequestTimeout time.Duration
	// MaxOps and MaxBytes bound one transaction (defaults 128, and 1 MiB
	// of the 1.5 MiB etcd takes by default, leaving room for framing).
	MaxOps, MaxBytes int
	// PageSize is how many records one request of a scan reads (default
	// 1000).
	PageSize int
	// Logger receives warnings (default slog.Default()).
	Logger *slog.Logger
}

// Engine is an etcd cluster as a kv.Engine.
type Engine struct {
	cli    *clientv3.Client
	prefix string // with its trailing '/'
	opts   Options
	where  string
	owned  bool // Close closes cli
}

var _ kv.Engine = (*Engine)(nil)

func (o *Options) setDefaults() {
	if o.Prefix == "" {
		o.Prefix = "wsfs"
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = 5 * time.Second
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 5 * time.Second
	}
	if o.MaxOps <= 0 {
		o.MaxOps = 128
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 1 << 20
	}
	if o.PageSize <= 0 {
		o.PageSize = 1000
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// Open connects to the cluster and checks that it answers (one read within
// the request timeout). Errors wrap kv.ErrUnavailable and name etcd, its
// endpoints and what to do.
func Open(ctx context.Context, opts Options) (*Engine, error) {
	opts.setDefaults()
	if len(opts.Endpoints) == 0 {
		return nil, errors.New("etcd: no endpoints given")
	}
	if strings.HasPrefix(opts.Prefix, "/") || strings.HasSuffix(opts.Prefix, "/") {
		return nil, fmt.Errorf("etcd: key prefix %q: want no leading or trailing '/'", opts.Prefix)
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:            opts.Endpoints,
		DialTimeout:          opts.DialTimeout,
		TLS:                  opts.TLS,
		Username:             opts.Username,
		Password:             opts.Password,
		Context:              context.WithoutCancel(ctx),
		DialKeepAliveTime:    10 * time.Second,
		DialKeepAliveTimeout: 5 * time.Second,
		Logger:               nopLogger(),
		MaxCallSendMsgSize:   4 << 20,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: etcd at %s: %v: start etcd or fix the endpoints in --meta", kv.ErrUnavailable, strings.Join(opts.Endpoints, ","), err)
	}
	e := newEngine(cli, opts)
	e.owned = true
	rctx, cancel := context.WithTimeout(ctx, opts.RequestTimeout)
	defer cancel()
	if _, err := cli.Get(rctx, e.prefix, clientv3.WithCountOnly()); err != nil {
		cli.Close()
		return nil, e.wrap(err, false)
	}
	return e, nil
}

// New returns an engine over a client the caller owns (Close leaves it
// open): servers share one client between the engine and their leases.
func New(cli *clientv3.Client, opts Options) *Engine {
	opts.setDefaults()
	opts.Endpoints = cli.Endpoints()
	return newEngine(cli, opts)
}

func newEngine(cli *clientv3.Client, opts Options) *Engine {
	return &Engine{
		cli:    cli,
		prefix: opts.Prefix + "/",
		opts:   opts,
		where:  "etcd at " + strings.Join(opts.Endpoints, ",") + "/" + opts.Prefix,
	}
}

// Client returns the etcd client, for what is etcd's own (leases, watches,
// elections) rather than records.
func (e *Engine) Client() *clientv3.Client { return e.cli }

// Prefix returns the key prefix of the engine's records, with its
// trailing '/'.
func (e *Engine) Prefix() string { return e.prefix }

// Key returns the etcd key of key in bucket b.
func (e *Engine) Key(b kv.Bucket, key []byte) string { return e.bucketPrefix(b) + string(key) }

// BucketPrefix returns the etcd key prefix of bucket b.
func (e *Engine) BucketPrefix(b kv.Bucket) string { return e.bucketPrefix(b) }

func (e *Engine) bucketPrefix(b kv.Bucket) string { return e.prefix + b.String() + "/" }

// String implements kv.Engine.
func (e *Engine) String() string { return e.where }

// Limits implements kv.Engine.
func (e *Engine) Limits() kv.Limits { return kv.Limits{Ops: e.opts.MaxOps, Bytes: e.opts.MaxBytes} }

// RequestTimeout returns the deadline of one request.
func (e *Engine) RequestTimeout() time.Duration { return e.opts.RequestTimeout }

// Close implements kv.Engine.
func (e *Engine) Close() error {
	if !e.owned {
		return nil
	}
	return e.cli.Close()
}

// Empty implements kv.Engine: no key under the prefix.
func (e *Engine) Empty(ctx context.Context) (bool, error) {
	rctx, cancel := context.WithTimeout(ctx, e.opts.RequestTimeout)
	defer cancel()
	resp, err := e.cli.Get(rctx, e.prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return false, e.wrap(err, false)
	}
	return resp.Count == 0, nil
}

// Wrap turns an error of the etcd client into one that names etcd and
// wraps kv.ErrUnavailable (and kv.ErrUncertain when sent is true and the
// request may have been applied).
func (e *Engine) Wrap(err error, sent bool) error { return e.wrap(err, sent) }

func (e *Engine) wrap(err error, sent bool) error {
	if err == nil {
		return nil
	}
	switch {
	case errors.Is(err, rpctypes.ErrTooManyOps), errors.Is(err, rpctypes.ErrRequestTooLarge), errors.Is(err, rpctypes.ErrGRPCRequestTooLarge), errors.Is(err, rpctypes.ErrGRPCTooManyOps):
		return fmt.Errorf("%w: %s refused a transaction as too large (%v): raise etcd's --max-txn-ops or --max-request-bytes, or lower max-txn-ops/max-request-bytes in the --meta URL", kv.ErrTooLarge, e.where, err)
	case errors.Is(err, rpctypes.ErrPermissionDenied), errors.Is(err, rpctypes.ErrAuthFailed), errors.Is(err, rpctypes.ErrUserEmpty),
		errors.Is(err, rpctypes.ErrGRPCPermissionDenied), errors.Is(err, rpctypes.ErrGRPCAuthFailed), errors.Is(err, rpctypes.ErrGRPCUserEmpty), errors.Is(err, rpctypes.ErrGRPCInvalidAuthToken):
		return fmt.Errorf("%s refused wsfs's credentials (%v): check WSFS_ETCD_USERNAME and WSFS_ETCD_PASSWORD, and that the user may read and write %s", e.where, err, e.prefix)
	case errors.Is(err, rpctypes.ErrCompacted), errors.Is(err, rpctypes.ErrGRPCCompacted):
		return fmt.Errorf("%w: %s: %v", errCompacted, e.where, err)
	}
	why := err.Error()
	if s, ok := status.FromError(err); ok && s.Code() == codes.DeadlineExceeded || errors.Is(err, context.DeadlineExceeded) {
		why = fmt.Sprintf("no answer within %s", e.opts.RequestTimeout)
	}
	msg := fmt.Sprintf("%s is unavailable (%s): start etcd, or wait for a majority of its members", e.where, why)
	if sent {
		return &uncertainError{msg: msg + "; the last change may or may not have been applied (check with wsfs log)", err: err}
	}
	return &unavailableError{msg: msg, err: err}
}

var errCompacted = errors.New("etcd: the revision was compacted")

type unavailableError struct {
	msg string
	err error
}

func (e *unavailableError) Error() string        { return e.msg }
func (e *unavailableError) Unwrap() []error      { return []error{kv.ErrUnavailable, e.err} }
func (e *unavailableError) Is(target error) bool { return target == kv.ErrUnavailable }

type uncertainError struct {
	msg string
	err error
}

func (e *uncertainError) Error() string   { return e.msg }
func (e *uncertainError) Unwrap() []error { return []error{kv.ErrUnavailable, kv.ErrUncertain, e.err} }

// View implements kv.Engine.
func (e *Engine) View(ctx context.Context, fn func(kv.Reader) error) error {
	for attempt := 0; ; attempt++ {
		r := &reader{e: e, ctx: ctx}
		err := fn(r)
		if errors.Is(err, errCompacted) && attempt < 3 {
			continue // the snapshot was compacted away: take a newer one
		}
		return err
	}
}

// maxAttempts bounds the runs of one Update's function.
const maxAttempts = 64

// Update implements kv.Engine.
func (e *Engine) Update(ctx context.Context, fn func(kv.Txn) error) error {
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		t := &txn{reader: reader{e: e, ctx: ctx}, reads: map[string]int64{}}
		if err := fn(t); err != nil {
			if errors.Is(err, errCompacted) && attempt < maxAttempts {
				continue
			}
			return err
		}
		ok, err := t.commit()
		if err != nil || ok {
			return err
		}
		if attempt+1 >= maxAttempts {
			return fmt.Errorf("%w: %s: what the transaction read kept changing (%d tries); try again", kv.ErrConflict, e.where, maxAttempts)
		}
		// Others wrote what we read: pause a little, longer each time, so
		// that racing servers do not collide again in step.
		pause := time.Duration(rand.Int64N(int64(time.Millisecond)<<min(attempt, 6))) + time.Millisecond
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
	}
}

// reader reads at one etcd revision, the one its first read saw.
type reader struct {
	e   *Engine
	ctx context.Context
	rev int64
}

func (r *reader) get(key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	if r.rev > 0 {
		opts = append(opts, clientv3.WithRev(r.rev))
	}
	ctx, cancel := context.WithTimeout(r.ctx, r.e.opts.RequestTimeout)
	defer cancel()
	resp, err := r.e.cli.Get(ctx, key, opts...)
	if err != nil {
		if cerr := r.ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, r.e.wrap(err, false)
	}
	if r.rev == 0 {
		r.rev = resp.Header.Revision
	}
	return resp, nil
}

func checkBucket(b kv.Bucket) error {
	if !b.Valid() {
		return fmt.Errorf("kv: bad bucket path %q", b.String())
	}
	return nil
}

func (r *reader) Get(b kv.Bucket, key []byte) ([]byte, error) {
	v, _, err := r.getRev(b, key)
	return v, err
}

// getRev returns the value of key and its modification revision (0:
// absent).
func (r *reader) getRev(b kv.Bucket, key []byte) ([]byte, int64, error) {
	if err := checkBucket(b); err != nil {
		return nil, 0, err
	}
	resp, err := r.get(r.e.Key(b, key))
	if err != nil || len(resp.Kvs) == 0 {
		return nil, 0, err
	}
	v := resp.Kvs[0].Value
	if v == nil {
		v = []byte{}
	}
	return v, resp.Kvs[0].ModRevision, nil
}

// keyRange returns the etcd range [start, end) of a scan of b.
func (r *reader) keyRange(b kv.Bucket, from, to []byte) (start, end string) {
	p := r.e.bucketPrefix(b)
	start = p + string(from)
	if to != nil {
		end = p + string(to)
	} else {
		end = clientv3.GetPrefixRangeEnd(p)
	}
	return start, end
}

func (r *reader) Scan(b kv.Bucket, opts kv.ScanOptions, fn func(k, v []byte) error) error {
	if err := checkBucket(b); err != nil {
		return err
	}
	start, end := r.keyRange(b, opts.From, opts.To)
	plen := len(r.e.bucketPrefix(b))
	n := 0
	err := r.pages(start, end, opts.Reverse, opts.Limit, func(k, v []byte) error {
		if err := fn(k[plen:], v); err != nil {
			return err
		}
		n++
		if opts.Limit > 0 && n >= opts.Limit {
			return kv.ErrStop
		}
		return nil
	})
	if errors.Is(err, kv.ErrStop) {
		return nil
	}
	return err
}

// pages reads [start, end) in pages at the reader's revision and calls fn
// for each key (the full etcd key) in order.
func (r *reader) pages(start, end string, reverse bool, limit int, fn func(k, v []byte) error) error {
	if start >= end {
		return nil
	}
	for {
		page := r.e.opts.PageSize
		if limit > 0 && limit < page {
			page = limit
		}
		order := clientv3.SortAscend
		if reverse {
			order = clientv3.SortDescend
		}
		resp, err := r.get(start, clientv3.WithRange(end), clientv3.WithLimit(int64(page)), clientv3.WithSort(clientv3.SortByKey, order))
		if err != nil {
			return err
		}
		for _, kvp := range resp.Kvs {
			v := kvp.Value
			if v == nil {
				v = []byte{}
			}
			if err := fn(kvp.Key, v); err != nil {
				return err
			}
		}
		if !resp.More || len(resp.Kvs) == 0 {
			return nil
		}
		last := string(resp.Kvs[len(resp.Kvs)-1].Key)
		if reverse {
			end = last
		} else {
			start = last + "\x00"
		}
		if start >= end {
			return nil
		}
	}
}

// txn is an Update's transaction: reads at one revision, remembered for
// the compares, and buffered writes.
type txn struct {
	reader
	reads  map[string]int64 // etcd key → modification revision read (0: absent)
	ranges [][2]string      // scanned etcd ranges
	writes []write          // in order
}

type write struct {
	key, end string // end set: a delete of [key, end)
	value    []byte // nil: a delete
}

func (w write) covers(k string) bool {
	if w.end != "" {
		return k >= w.key && k < w.end
	}
	return k == w.key
}

func (t *txn) Get(b kv.Bucket, key []byte) ([]byte, error) {
	if err := checkBucket(b); err != nil {
		return nil, err
	}
	k := t.e.Key(b, key)
	for i := len(t.writes) - 1; i >= 0; i-- {
		if w := t.writes[i]; w.covers(k) {
			return w.value, nil
		}
	}
	v, rev, err := t.getRev(b, key)
	if err != nil {
		return nil, err
	}
	if _, seen := t.reads[k]; !seen {
		t.reads[k] = rev
	}
	return v, nil
}

func (t *txn) Scan(b kv.Bucket, opts kv.ScanOptions, fn func(k, v []byte) error) error {
	if err := checkBucket(b); err != nil {
		return err
	}
	start, end := t.keyRange(b, opts.From, opts.To)
	t.ranges = append(t.ranges, [2]string{start, end})
	touched := false
	for _, w := range t.writes {
		if w.end != "" && w.key < end && start < w.end || w.end == "" && w.key >= start && w.key < end {
			touched = true
			break
		}
	}
	if !touched {
		return t.reader.Scan(b, opts, fn)
	}
	// The transaction wrote in this range: read it all, then lay the
	// writes over it.
	recs := map[string][]byte{}
	if err := t.pages(start, end, false, 0, func(k, v []byte) error {
		recs[string(k)] = v
		return nil
	}); err != nil {
		return err
	}
	for _, w := range t.writes {
		switch {
		case w.end != "":
			for k := range recs {
				if w.covers(k) {
					delete(recs, k)
				}
			}
		case w.key < start || w.key >= end:
		case w.value == nil:
			delete(recs, w.key)
		default:
			recs[w.key] = w.value
		}
	}
	keys := make([]string, 0, len(recs))
	for k := range recs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if opts.Reverse {
		for i, j := 0, len(keys)-1; i < j; i, j = i+1, j-1 {
			keys[i], keys[j] = keys[j], keys[i]
		}
	}
	plen := len(t.e.bucketPrefix(b))
	for i, k := range keys {
		if opts.Limit > 0 && i >= opts.Limit {
			break
		}
		if err := fn([]byte(k[plen:]), recs[k]); err != nil {
			if errors.Is(err, kv.ErrStop) {
				return nil
			}
			return err
		}
	}
	return nil
}

func (t *txn) Put(b kv.Bucket, key, value []byte) error {
	if err := checkBucket(b); err != nil {
		return err
	}
	if value == nil {
		value = []byte{}
	}
	t.writes = append(t.writes, write{key: t.e.Key(b, key), value: bytes.Clone(value)})
	return nil
}

func (t *txn) Delete(b kv.Bucket, key []byte) error {
	if err := checkBucket(b); err != nil {
		return err
	}
	t.writes = append(t.writes, write{key: t.e.Key(b, key)})
	return nil
}

func (t *txn) DeleteRange(b kv.Bucket, from, to []byte) error {
	if err := checkBucket(b); err != nil {
		return err
	}
	start, end := t.keyRange(b, from, to)
	if start >= end {
		return nil
	}
	t.writes = append(t.writes, write{key: start, end: end})
	return nil
}

// ops reduces the writes to etcd operations that say the same thing and
// that etcd takes in one Txn: each key written at most once, and no put
// inside a range deleted by the same Txn (etcd refuses both).
func (t *txn) ops() (ops []clientv3.Op, size int) {
	puts := map[string][]byte{}
	dels := map[string]bool{}
	var ranges [][2]string
	for _, w := range t.writes {
		switch {
		case w.end != "":
			for k := range puts {
				if w.covers(k) {
					delete(puts, k)
				}
			}
			for k := range dels {
				if w.covers(k) {
					delete(dels, k)
				}
			}
			ranges = append(ranges, [2]string{w.key, w.end})
		case w.value != nil:
			delete(dels, w.key)
			puts[w.key] = w.value
			// Cut the key out of a deleted range that holds it.
			for i := 0; i < len(ranges); i++ {
				if r := ranges[i]; w.key >= r[0] && w.key < r[1] {
					ranges = append(ranges[:i], ranges[i+1:]...)
					if r[0] < w.key {
						ranges = append(ranges, [2]string{r[0], w.key})
					}
					if next := w.key + "\x00"; next < r[1] {
						ranges = append(ranges, [2]string{next, r[1]})
					}
					break
				}
			}
		default:
			delete(puts, w.key)
			inRange := false
			for _, r := range ranges {
				if w.key >= r[0] && w.key < r[1] {
					inRange = true
				}
			}
			if !inRange {
				dels[w.key] = true
			}
		}
	}
	keys := make([]string, 0, len(puts))
	for k := range puts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ops = append(ops, clientv3.OpPut(k, string(puts[k])))
		size += len(k) + len(puts[k])
	}
	for k := range dels {
		ops = append(ops, clientv3.OpDelete(k))
		size += len(k)
	}
	for _, r := range ranges {
		ops = append(ops, clientv3.OpDelete(r[0], clientv3.WithRange(r[1])))
		size += len(r[0]) + len(r[1])
	}
	return ops, size
}

// commit sends the transaction; ok false means a compare failed.
func (t *txn) commit() (bool, error) {
	ops, size := t.ops()
	if len(ops) == 0 {
		return true, nil
	}
	var cmps []clientv3.Cmp
	for k, rev := range t.reads {
		cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(k), "=", rev))
		size += len(k)
	}
	for _, r := range t.ranges {
		cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(r[0]).WithRange(r[1]), "<", t.rev+1))
		size += len(r[0]) + len(r[1])
	}
	lim := t.e.Limits()
	if len(ops) > lim.Ops || len(cmps) > lim.Ops || size > lim.Bytes {
		return false, fmt.Errorf("%w: one change to %s needs %d writes, %d reads and %d bytes; one etcd transaction takes at most %d writes, %d reads and %d bytes",
			kv.ErrTooLarge, t.e.where, len(ops), len(cmps), size, lim.Ops, lim.Ops, lim.Bytes)
	}
	ctx, cancel := context.WithTimeout(t.ctx, t.e.opts.RequestTimeout)
	defer cancel()
	resp, err := t.e.cli.Txn(ctx).If(cmps...).Then(ops...).Commit()
	if err != nil {
		if errors.Is(err, rpctypes.ErrTooManyOps) || errors.Is(err, rpctypes.ErrRequestTooLarge) ||
			errors.Is(err, rpctypes.ErrGRPCTooManyOps) || errors.Is(err, rpctypes.ErrGRPCRequestTooLarge) {
			return false, t.e.wrap(err, false)
		}
		return false, t.e.wrap(err, true)
	}
	return resp.Succeeded, nil
}
