package objects

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// VerifyingReader wraps the reader of a whole blob. At EOF it checks that
// exactly size bytes hashing to d were read; otherwise it returns an error
// wrapping ErrCorrupt instead of io.EOF. Stores use it to keep the
// verify-on-read promise of Store.Open.
func VerifyingReader(r io.ReadCloser, d Digest, size int64) io.ReadCloser {
	return &verifyingReader{r: r, d: d, want: size, h: sha256.New()}
}

type verifyingReader struct {
	r    io.ReadCloser
	d    Digest
	want int64
	n    int64
	h    hash.Hash
	err  error
}

func (v *verifyingReader) Read(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	n, err := v.r.Read(p)
	if n > 0 {
		v.h.Write(p[:n])
		v.n += int64(n)
		if v.want >= 0 && v.n > v.want {
			v.err = fmt.Errorf("%w: blob %s is longer than %d bytes", ErrCorrupt, v.d.Short(), v.want)
			return 0, v.err
		}
	}
	if err == io.EOF {
		if v.want >= 0 && v.n != v.want {
			v.err = fmt.Errorf("%w: blob %s has %d bytes, want %d", ErrCorrupt, v.d.Short(), v.n, v.want)
			return n, v.err
		}
		if Digest(v.h.Sum(nil)) != v.d {
			v.err = fmt.Errorf("%w: blob %s does not hash to its digest", ErrCorrupt, v.d.Short())
			return n, v.err
		}
		v.err = io.EOF
	} else if err != nil {
		v.err = err
	}
	return n, err
}

func (v *verifyingReader) Close() error { return v.r.Close() }
