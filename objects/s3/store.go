package s3

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/wsfs/wsfs/objects"
)

// memSpoolMax is the largest blob Put hashes in memory; larger ones go
// through a temp file so that memory stays bounded.
const memSpoolMax = 8 << 20

// CheckTimeout bounds Check when its context has no deadline.
const CheckTimeout = 30 * time.Second

// singlePutMax is the largest object S3 accepts in one PUT.
const singlePutMax = 5 << 30

// Store is an objects.Store on an S3 bucket. It is safe for concurrent use.
type Store struct {
	cfg      Config
	endpoint string // host:port
	name     string // "s3://bucket/prefix (endpoint)" for messages
	prefix   string // "" or "prefix/"
	client   *minio.Client
	core     minio.Core
	listPage int // keys per listing request; 0 lets the server choose (1000)
	// noConditional is set once the server has answered that it does not
	// implement conditional writes (or Config turned them off).
	noConditional atomic.Bool
}

var _ objects.Store = (*Store)(nil)

// New returns the store described by cfg. It makes no request: call Check
// to learn whether the bucket exists and the credentials work.
func New(ctx context.Context, cfg Config) (*Store, error) {
	_ = ctx // reserved: credential providers that fetch tokens
	host, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	var creds *credentials.Credentials
	if cfg.Anonymous {
		creds = credentials.New(&credentials.Static{Value: credentials.Value{SignerType: credentials.SignatureAnonymous}})
	} else {
		creds = credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, cfg.SessionToken)
	}
	lookup := minio.BucketLookupAuto
	switch cfg.Addressing {
	case AddressingPath:
		lookup = minio.BucketLookupPath
	case AddressingVirtualHost:
		lookup = minio.BucketLookupDNS
	}
	client, err := minio.New(host, &minio.Options{
		Creds:        creds,
		Secure:       cfg.Secure,
		Region:       cfg.Region,
		BucketLookup: lookup,
		Transport:    cfg.Transport,
		MaxRetries:   1, // the store retries itself, with its own rules
	})
	if err != nil {
		return nil, fmt.Errorf("s3: endpoint %q: %w", cfg.Endpoint, err)
	}
	client.SetAppInfo("wsfs", "1")
	s := &Store{cfg: cfg, endpoint: host, client: client, core: minio.Core{Client: client}}
	s.noConditional.Store(cfg.ConditionalWrites == ConditionalOff)
	s.name = "s3://" + cfg.Bucket
	if cfg.Prefix != "" {
		s.prefix = cfg.Prefix + "/"
		s.name += "/" + cfg.Prefix
	}
	s.name += " (" + host + ")"
	return s, nil
}

// String names the store for messages: "s3://bucket/prefix (host:port)".
func (s *Store) String() string { return s.name }

func (s *Store) key(d objects.Digest) string { return s.prefix + d.Key() }

// Check verifies that the bucket exists and that the credentials may list
// it, with one request. Commands call it at start so that a wrong --store
// fails at once with a one-line reason.
//
// Without a deadline on ctx, Check gives up after CheckTimeout, so that an
// endpoint that swallows packets fails the command instead of hanging it.
func (s *Store) Check(ctx context.Context) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, CheckTimeout)
		defer cancel()
	}
	err := s.retry(ctx, func(ctx context.Context) error {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		for obj := range s.client.ListObjectsIter(ctx, s.cfg.Bucket, minio.ListObjectsOptions{Prefix: s.prefix, MaxKeys: 1}) {
			return obj.Err // the first entry answers the question either way
		}
		return ctx.Err() // the iterator ends silently when ctx does
	})
	if err != nil {
		return s.describe("check", objects.Digest{}, err)
	}
	return nil
}

// Put stores the size bytes read from r under d; see objects.Store. It
// sends one conditional PUT ("If-None-Match: *"): a blob already stored is
// neither sent again by the server nor rewritten, and the 412 that says so
// is a success. A server without conditional writes gets a HEAD first for
// large blobs (SkipExistingMin) and a plain PUT.
func (s *Store) Put(ctx context.Context, d objects.Digest, r io.Reader, size int64) error {
	return s.put(ctx, d, r, size, false)
}

// Rewrite stores the size bytes read from r under d even if a blob is
// stored there already, replacing it in one request: it heals a stored
// copy that was damaged. It implements objects.Rewriter.
func (s *Store) Rewrite(ctx context.Context, d objects.Digest, r io.Reader, size int64) error {
	return s.put(ctx, d, r, size, true)
}

func (s *Store) put(ctx context.Context, d objects.Digest, r io.Reader, size int64, replace bool) error {
	if size < 0 {
		return fmt.Errorf("s3: put %s: negative size %d: %w", d.Short(), size, objects.ErrDigestMismatch)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("s3: put %s on %s: %w", d.Short(), s.name, err)
	}
	body, cleanup, err := s.spool(d, r, size)
	if err != nil {
		return err
	}
	defer cleanup()
	if err := ctx.Err(); err != nil { // cancelled while the bytes were read
		return fmt.Errorf("s3: put %s on %s: %w", d.Short(), s.name, err)
	}

	conditional := !replace && !s.noConditional.Load() && size <= singlePutMax
	if skipMin := s.skipExistingMin(conditional); !replace && skipMin >= 0 && size >= skipMin {
		info, err := s.Stat(ctx, d)
		if err == nil && info.Size == size {
			return nil
		}
		if err != nil && !errors.Is(err, objects.ErrNotFound) {
			return err
		}
	}

	key := s.key(d)
	for {
		err = s.retry(ctx, func(ctx context.Context) error {
			rd := io.NewSectionReader(body, 0, size)
			if size > singlePutMax {
				_, err := s.client.PutObject(ctx, s.cfg.Bucket, key, rd, size, minio.PutObjectOptions{ContentType: "application/octet-stream"})
				return err
			}
			// The digest is the SHA-256 of the payload, so it doubles as the
			// signed payload hash: the server refuses bytes that differ.
			opts := minio.PutObjectOptions{ContentType: "application/octet-stream", DisableContentSha256: true}
			if conditional {
				opts.SetMatchETagExcept("*")
			}
			_, err := s.core.PutObject(ctx, s.cfg.Bucket, key, rd, size, "", d.String(), opts)
			return err
		})
		er, isS3 := s3Error(err)
		switch {
		case err == nil:
			return nil
		case conditional && isS3 && (er.Code == minio.PreconditionFailed || er.StatusCode == http.StatusPreconditionFailed):
			// The key is taken: the blob is stored (the key is its digest).
			return nil
		case conditional && isS3 && (er.Code == minio.NotImplemented || er.StatusCode == http.StatusNotImplemented):
			slog.Info("s3: the server does not implement conditional writes; using plain PUTs", "store", s.name)
			s.noConditional.Store(true)
			conditional = false
			continue
		}
		return s.describe("put", d, err)
	}
}

// skipExistingMin is the size from which Put asks (HEAD) before uploading.
func (s *Store) skipExistingMin(conditional bool) int64 {
	switch {
	case s.cfg.SkipExistingMin != 0:
		return s.cfg.SkipExistingMin
	case conditional:
		return condSkipExistingMin
	}
	return defaultSkipExistingMin
}

// spool reads exactly size bytes from r, checks they hash to d, and
// returns them as a ReaderAt (memory or temp file) for the upload and its
// retries.
func (s *Store) spool(d objects.Digest, r io.Reader, size int64) (io.ReaderAt, func(), error) {
	h := sha256.New()
	mismatch := func(format string, args ...any) error {
		return fmt.Errorf("s3: put %s: %s: %w", d.Short(), fmt.Sprintf(format, args...), objects.ErrDigestMismatch)
	}
	var extra [1]byte
	if size <= memSpoolMax {
		buf := make([]byte, size)
		if n, err := io.ReadFull(r, buf); err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return nil, nil, mismatch("got %d bytes, want %d", n, size)
			}
			return nil, nil, fmt.Errorf("s3: put %s: read: %w", d.Short(), err)
		}
		if n, _ := io.ReadFull(r, extra[:]); n > 0 {
			return nil, nil, mismatch("more than %d bytes", size)
		}
		h.Write(buf)
		if objects.Digest(h.Sum(nil)) != d {
			return nil, nil, mismatch("bytes hash to %x", h.Sum(nil)[:6])
		}
		return bytes.NewReader(buf), func() {}, nil
	}
	f, err := os.CreateTemp(s.cfg.SpoolDir, "wsfs-s3-put-")
	if err != nil {
		return nil, nil, fmt.Errorf("s3: put %s: spool file: %w", d.Short(), err)
	}
	cleanup := func() { f.Close(); os.Remove(f.Name()) }
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(r, size))
	if err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("s3: put %s: spool: %w", d.Short(), err)
	}
	if n != size {
		cleanup()
		return nil, nil, mismatch("got %d bytes, want %d", n, size)
	}
	if m, _ := io.ReadFull(r, extra[:]); m > 0 {
		cleanup()
		return nil, nil, mismatch("more than %d bytes", size)
	}
	if objects.Digest(h.Sum(nil)) != d {
		cleanup()
		return nil, nil, mismatch("bytes hash to %x", h.Sum(nil)[:6])
	}
	return f, cleanup, nil
}

// Open returns length bytes of the blob from off; see objects.Store.
func (s *Store) Open(ctx context.Context, d objects.Digest, off, length int64) (io.ReadCloser, error) {
	if off < 0 {
		return nil, fmt.Errorf("s3: open %s: negative offset %d", d.Short(), off)
	}
	if length == 0 {
		// No byte to fetch, but a missing blob must still say so, and an
		// empty blob read from 0 is a whole-blob read to verify.
		info, err := s.Stat(ctx, d)
		if err != nil {
			return nil, err
		}
		if off == 0 && info.Size == 0 {
			return objects.VerifyingReader(io.NopCloser(bytes.NewReader(nil)), d, 0), nil
		}
		return io.NopCloser(bytes.NewReader(nil)), nil
	}
	var opts minio.GetObjectOptions
	if off > 0 || length > 0 {
		end := int64(0) // with off > 0: "bytes=off-", to the end
		if length > 0 && length <= math.MaxInt64-off {
			end = off + length - 1
		} else if off == 0 {
			length = -1 // a range too long to write is the whole blob
		}
		if length != -1 || off > 0 {
			if err := opts.SetRange(off, end); err != nil {
				return nil, fmt.Errorf("s3: open %s: %w", d.Short(), err)
			}
		}
	}
	var (
		body   io.ReadCloser
		header map[string][]string
		info   minio.ObjectInfo
	)
	err := s.retry(ctx, func(ctx context.Context) error {
		var err error
		body, info, header, err = s.core.GetObject(ctx, s.cfg.Bucket, s.key(d), opts)
		return err
	})
	if err != nil {
		if er, ok := s3Error(err); ok && er.Code == minio.InvalidRange {
			// off is at or past the end; the blob exists (or S3 would
			// have said NoSuchKey), so the range is empty.
			return s.Open(ctx, d, off, 0)
		}
		return nil, s.describe("open", d, err)
	}
	rd := &bodyReader{ctx: ctx, s: s, d: d, body: body, pos: off, end: off + info.Size, etag: info.ETag}
	total := info.Size
	if cr := firstHeader(header, "Content-Range"); cr != "" {
		total = rangeTotal(cr, total)
	} else if opts.Header().Get("Range") != "" {
		// The server ignored the Range header and sent the whole blob:
		// serve the range out of it rather than the wrong bytes.
		rd.pos, rd.end = 0, total
		return wholeAsRange(rd, d, total, off, length)
	}
	if off == 0 && info.Size == total {
		return objects.VerifyingReader(rd, d, total), nil
	}
	return rd, nil
}

// wholeAsRange serves bytes [off, off+length) of a whole-blob body of the
// given size, verifying it when the range covers the blob.
func wholeAsRange(body io.ReadCloser, d objects.Digest, size, off, length int64) (io.ReadCloser, error) {
	if off == 0 && (length < 0 || length >= size) {
		return objects.VerifyingReader(body, d, size), nil
	}
	if _, err := io.CopyN(io.Discard, body, min(off, size)); err != nil {
		body.Close()
		return nil, fmt.Errorf("s3: open %s: skipping to %d: %w", d.Short(), off, err)
	}
	n := max(size-off, 0)
	if length >= 0 {
		n = min(n, length)
	}
	return struct {
		io.Reader
		io.Closer
	}{io.LimitReader(body, n), body}, nil
}

// bodyReader reads a GET response body. If the connection breaks in the
// middle (reset, unexpected EOF, timeout), it asks for the rest with a
// Range GET pinned to the same ETag, with the store's backoff and attempt
// budget, so that a hiccup does not fail a large read. Other failures, and
// ctx ending, become one-line store errors.
type bodyReader struct {
	ctx     context.Context
	s       *Store
	d       objects.Digest
	body    io.ReadCloser
	pos     int64  // offset in the blob of the next byte
	end     int64  // offset just past the last byte of the range
	etag    string // the object version being read
	resumes int
}

func (r *bodyReader) Read(p []byte) (int, error) {
	for {
		// The transport notices a cancelled request asynchronously, and
		// bytes already received would still be served; a read after
		// cancellation must fail every time.
		if err := r.ctx.Err(); err != nil {
			return 0, fmt.Errorf("s3: read %s on %s: %w", r.d.Short(), r.s.name, err)
		}
		n, err := r.body.Read(p)
		r.pos += int64(n)
		if err == io.EOF && r.pos < r.end {
			err = io.ErrUnexpectedEOF
		}
		if err == nil || err == io.EOF {
			return n, err
		}
		if r.ctx.Err() != nil {
			return n, fmt.Errorf("s3: read %s on %s: %w", r.d.Short(), r.s.name, r.ctx.Err())
		}
		if !retryable(err) || r.resumes+1 >= r.s.cfg.MaxAttempts || r.etag == "" {
			return n, r.s.describe("read", r.d, err)
		}
		slog.Debug("s3: download cut, resuming", "store", r.s.name, "blob", r.d.Short(), "at", r.pos, "err", err)
		if rerr := r.resume(); rerr != nil {
			return n, rerr
		}
		if n > 0 {
			return n, nil
		}
	}
}

// resume replaces the broken body with one for the bytes not read yet.
func (r *bodyReader) resume() error {
	r.body.Close()
	r.resumes++
	if err := r.s.backoff(r.ctx, r.resumes); err != nil {
		return fmt.Errorf("s3: read %s on %s: %w", r.d.Short(), r.s.name, err)
	}
	var opts minio.GetObjectOptions
	if err := opts.SetRange(r.pos, r.end-1); err != nil {
		return fmt.Errorf("s3: read %s: %w", r.d.Short(), err)
	}
	if err := opts.SetMatchETag(r.etag); err != nil {
		return fmt.Errorf("s3: read %s: %w", r.d.Short(), err)
	}
	body, _, header, err := r.s.core.GetObject(r.ctx, r.s.cfg.Bucket, r.s.key(r.d), opts)
	if err != nil {
		r.body = io.NopCloser(bytes.NewReader(nil))
		return r.s.describe("read", r.d, err)
	}
	if firstHeader(header, "Content-Range") == "" {
		body.Close() // the server sent the whole object again, not the rest
		r.body = io.NopCloser(bytes.NewReader(nil))
		return fmt.Errorf("s3: read %s on %s: connection lost and the server does not resume with Range", r.d.Short(), r.s.name)
	}
	r.body = body
	return nil
}

func (r *bodyReader) Close() error { return r.body.Close() }

func firstHeader(h map[string][]string, k string) string {
	if v := h[k]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// rangeTotal parses the total size out of "bytes 0-99/1234".
func rangeTotal(cr string, fallback int64) int64 {
	i := strings.LastIndexByte(cr, '/')
	if i < 0 {
		return fallback
	}
	n, err := strconv.ParseInt(cr[i+1:], 10, 64)
	if err != nil {
		return fallback
	}
	return n
}

// Stat returns the blob's size and store time; see objects.Store.
func (s *Store) Stat(ctx context.Context, d objects.Digest) (objects.Info, error) {
	var info minio.ObjectInfo
	err := s.retry(ctx, func(ctx context.Context) error {
		var err error
		info, err = s.client.StatObject(ctx, s.cfg.Bucket, s.key(d), minio.StatObjectOptions{})
		return err
	})
	if err != nil {
		return objects.Info{}, s.describe("stat", d, err)
	}
	return objects.Info{Digest: d, Size: info.Size, ModTime: info.LastModified}, nil
}

// Delete removes the blob; a missing blob is not an error.
func (s *Store) Delete(ctx context.Context, d objects.Digest) error {
	err := s.retry(ctx, func(ctx context.Context) error {
		return s.client.RemoveObject(ctx, s.cfg.Bucket, s.key(d), minio.RemoveObjectOptions{})
	})
	if err != nil {
		if er, ok := s3Error(err); ok && er.Code == minio.NoSuchKey {
			return nil
		}
		return s.describe("delete", d, err)
	}
	return nil
}

// List calls fn for every blob under the store's prefix; see
// objects.Store. Keys that are not blobs of this store are skipped. A
// listing that fails for a transient reason resumes after the last key
// seen; any other failure is returned, never a partial success.
func (s *Store) List(ctx context.Context, fn func(objects.Info) error) error {
	listPrefix := s.prefix + "blobs/"
	var after string
	var fnErr error
	listFrom := func(ctx context.Context) error {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		opts := minio.ListObjectsOptions{Prefix: listPrefix, Recursive: true, StartAfter: after, MaxKeys: s.listPage}
		for obj := range s.client.ListObjectsIter(ctx, s.cfg.Bucket, opts) {
			if obj.Err != nil {
				return obj.Err
			}
			after = obj.Key
			d, ok := parseBlobKey(strings.TrimPrefix(obj.Key, listPrefix))
			if !ok {
				continue
			}
			if err := fn(objects.Info{Digest: d, Size: obj.Size, ModTime: obj.LastModified}); err != nil {
				fnErr = err
				return nil
			}
		}
		return ctx.Err() // the iterator ends silently when ctx does: not a complete listing
	}
	for {
		start := after
		err := s.retry(ctx, listFrom)
		if fnErr != nil {
			return fnErr
		}
		if err == nil {
			return nil
		}
		// A long listing may meet several unrelated hiccups: each stretch
		// of progress earns a fresh retry budget.
		if after != start && retryable(err) && ctx.Err() == nil {
			continue
		}
		return s.describe("list", objects.Digest{}, err)
	}
}

// parseBlobKey parses "<2 hex>/<64 hex>" and checks that the shard matches.
func parseBlobKey(rest string) (objects.Digest, bool) {
	shard, name, ok := strings.Cut(rest, "/")
	if !ok || len(shard) != 2 || len(name) != 2*objects.DigestSize || strings.ToLower(name) != name {
		return objects.Digest{}, false
	}
	d, err := objects.ParseDigest(name)
	if err != nil || name[:2] != shard {
		return objects.Digest{}, false
	}
	return d, true
}
