package fusefs

import (
	"context"
	"errors"
	"io/fs"
	"syscall"

	"github.com/wsfs/wsfs/meta"
	"github.com/wsfs/wsfs/objects"
)

// MapErrno is the one place where the domain errors of meta, objects and
// this package become the errno a process on the mount sees. go-fuse's own
// fs.ToErrno cannot be used: it turns any wrapped error into ENOTSUP.
func MapErrno(err error) syscall.Errno {
	if err == nil {
		return 0
	}
	var errno syscall.Errno
	var qe *meta.QuotaError
	switch {
	case errors.As(err, &qe):
		switch {
		case qe.Kind == meta.QuotaFileBytes:
			return syscall.EFBIG
		case qe.Kind.NameTooLong():
			return syscall.ENAMETOOLONG
		default:
			return syscall.EDQUOT
		}
	case errors.Is(err, objects.ErrCorrupt):
		return syscall.EIO
	case errors.Is(err, meta.ErrInvalid):
		return syscall.EINVAL
	case errors.Is(err, meta.ErrExists), errors.Is(err, fs.ErrExist):
		return syscall.EEXIST
	case errors.Is(err, meta.ErrNotFound), errors.Is(err, objects.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		// A blob named by a committed tree that the store cannot find is
		// damage, not a missing file: the name exists.
		if errors.Is(err, objects.ErrNotFound) {
			return syscall.EIO
		}
		return syscall.ENOENT
	case errors.Is(err, meta.ErrStale):
		return syscall.EAGAIN
	case errors.Is(err, context.Canceled):
		return syscall.EINTR
	case errors.Is(err, context.DeadlineExceeded):
		return syscall.ETIMEDOUT
	case errors.As(err, &errno):
		return errno
	case errors.Is(err, fs.ErrPermission):
		return syscall.EACCES
	}
	return syscall.EIO
}
