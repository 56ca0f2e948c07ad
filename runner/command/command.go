// Package command defines what a runner command sees and nothing more: its
// arguments, its standard streams, its working directory and a confined view
// of files (FS). Every command of the runner (coreutils, grep, sed, awk, jq,
// js-exec) is a Func over an Env, so it can be tested without a shell, a
// mount or a server, and it can reach no file the runner did not map.
//
// Paths handed to an FS are agent paths: absolute ("/workspace/a.txt",
// "/tmp/x", "/dev/null") or relative to Env.Dir. The agent's view holds
// only /workspace, /tmp, a few /dev files (with /dev/fd/N when a shell runs
// the command) and, when the runner lists its commands, /bin and /usr/bin
// holding one empty executable file per command; everything else does not
// exist.
package command

import (
	"context"
	"io"
	"io/fs"
	"time"
)

// Func is a command's implementation. It returns the exit status (0 success,
// 1 usual failure, 2 usage error, as GNU tools do) after writing its own
// diagnostics to env.Stderr in the form "name: what failed". It must return
// promptly once ctx is done.
type Func func(ctx context.Context, env *Env) int

// Env is one invocation of a command.
type Env struct {
	Args   []string // Args[0] is the name the command was called by
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Dir    string // the agent's working directory, absolute, e.g. "/workspace/src"
	FS     FS     // confined file access; relative names resolve against Dir
	// Getenv returns a shell variable exported to the command.
	Getenv func(name string) string
	// Environ lists the exported variables as "NAME=value".
	Environ []string
	// Exec runs another runner command (for xargs, find -exec, timeout,
	// awk's command pipes). It never runs a host program; an unknown name
	// gives status 127. Nil when the caller offers no sub-commands.
	Exec func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
	// HasCommand reports whether name is a runner command (for `which`).
	// Nil when the caller offers no command table.
	HasCommand func(name string) bool
	// History lists the workspace's recent commands, oldest first (for
	// `history`); nil when the caller keeps none.
	History []string
	// LimitHit records a limit the command reached (the line it printed)
	// in the run's result; nil when nobody collects them. Use Limitf.
	LimitHit func(line string)
}

type environKey struct{}

// WithEnviron returns a context asking Exec to run the sub-command with
// exactly these "NAME=value" variables (env VAR=x cmd, env -i cmd) instead
// of the caller's. Exec implementations must honour it.
func WithEnviron(ctx context.Context, environ []string) context.Context {
	return context.WithValue(ctx, environKey{}, append([]string(nil), environ...))
}

// EnvironFrom returns the variables set by WithEnviron, if any.
func EnvironFrom(ctx context.Context) ([]string, bool) {
	v, ok := ctx.Value(environKey{}).([]string)
	return v, ok
}

// File is an open file of an FS. *os.File satisfies it.
type File interface {
	io.Reader
	io.Writer
	io.Seeker
	io.ReaderAt
	io.Closer
	Stat() (fs.FileInfo, error)
	ReadDir(n int) ([]fs.DirEntry, error)
	Truncate(size int64) error
	Name() string
}

// FS is the confined file access of a command. Errors are *fs.PathError
// (wrapping fs.ErrNotExist, fs.ErrPermission, syscall errnos …) naming the
// agent path, so "name: " + err.Error() reads like GNU's messages.
type FS interface {
	Open(name string) (File, error)
	OpenFile(name string, flag int, perm fs.FileMode) (File, error)
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	Mkdir(name string, perm fs.FileMode) error
	MkdirAll(name string, perm fs.FileMode) error
	Remove(name string) error
	RemoveAll(name string) error
	Rename(oldname, newname string) error
	Symlink(target, linkname string) error
	Link(oldname, newname string) error
	Readlink(name string) (string, error)
	Chmod(name string, mode fs.FileMode) error
	Chtimes(name string, atime, mtime time.Time) error
	// Abs returns the cleaned absolute agent path of name.
	Abs(name string) string
}
