// Package s3 is the objects.Store on any S3-compatible bucket: Cloudflare R2,
// MinIO, AWS S3. It is the only wsfs package that imports minio-go.
//
// A blob lives at "<prefix>/blobs/<first 2 hex>/<64 hex>" in the bucket, so
// several stores can share a bucket under different prefixes and List skips
// any key that is not one of its blobs.
//
// # Configuration
//
// New takes a Config. The endpoint is "host[:port]" (then Secure chooses
// HTTPS) or a URL "https://host" / "http://host:port". Credentials come from
// the Config, else from WSFS_S3_ACCESS_KEY_ID and WSFS_S3_SECRET_ACCESS_KEY
// (and WSFS_S3_SESSION_TOKEN), else from AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN.
//
// Cloudflare R2: endpoint https://<account id>.r2.cloudflarestorage.com,
// region "auto", an R2 API token's access key id and secret:
//
//	s3.New(ctx, s3.Config{
//		Endpoint: "https://0123456789abcdef.r2.cloudflarestorage.com",
//		Region:   "auto",
//		Bucket:   "wsfs",
//		Prefix:   "prod",
//	})
//
// R2 also accepts us-east-1 (the default) as an alias of auto.
//
// MinIO: endpoint host:port, Secure false for plain HTTP, region us-east-1
// (the default), path-style addressing (chosen automatically for endpoints
// that are not AWS).
//
// Check (bucket exists, credentials work, one request) is what commands
// call at start; objects/storeurl does it when it opens a store.
//
// # Behaviour
//
// Put hashes the bytes before uploading (in memory up to 8 MiB, in a temp
// file above) and stores nothing if they do not match the digest. The
// upload carries the SHA-256 as its signed payload hash, so the server also
// refuses bytes damaged on the way (and Put sends them again). It is a
// conditional write ("If-None-Match: *", which S3, R2 and MinIO support):
// one request stores a new blob, and a stored one is neither rewritten nor
// looked up first (the server answers 412, which Put takes as success). A
// server that does not implement conditional writes (501) gets plain PUTs
// from then on, with a HEAD first for large blobs; Config.ConditionalWrites
// and Config.SkipExistingMin tune this. Rewrite (objects.Rewriter) is the
// unconditional PUT that replaces a damaged blob. Whole-blob reads are
// verified with objects.VerifyingReader; ranges are plain Range GETs.
//
// Every call is retried on transient failures (5xx, 429/SlowDown, timeouts,
// connection reset or refused) with exponential backoff and jitter, within
// the caller's context and Config.MaxAttempts. A download cut in the middle
// resumes where it broke (a Range GET pinned to the object's ETag); a
// listing resumes after the last key it saw. Authentication errors, a wrong
// region and a missing bucket are never retried.
//
// Errors are one line naming the store and the fix. They wrap ErrNoBucket,
// ErrAccess or ErrUnreachable where those apply, besides
// objects.ErrNotFound, objects.ErrCorrupt and objects.ErrDigestMismatch.
package s3
