package runner

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"syscall"

	"github.com/wsfs/wsfs/runner/command"
)

// limitFS is the agent's view with the entry limit applied to creations:
// every file, folder and link a command or a redirection creates in
// /workspace and /tmp counts, and past Limits.MaxVisibleEntries creating
// fails with EDQUOT.
type limitFS struct {
	command.FS
	st *runState
}

// reserve counts n new entries, or fails once the limit is reached.
func (l *limitFS) reserve(op, name string, n int) error {
	if n <= 0 {
		return nil
	}
	st := l.st
	st.mu.Lock()
	ok := st.created+n <= st.lim.MaxVisibleEntries
	if ok {
		st.created += n
	}
	st.mu.Unlock()
	if !ok {
		st.hit("entries", fmt.Sprintf("wsfs: entry limit %d reached: no more files or folders can be created by this command", st.lim.MaxVisibleEntries))
		return &fs.PathError{Op: op, Path: name, Err: syscall.EDQUOT}
	}
	return nil
}

func (l *limitFS) missing(name string) bool {
	_, err := l.FS.Lstat(name)
	return err != nil
}

func (l *limitFS) Open(name string) (command.File, error) {
	return l.OpenFile(name, os.O_RDONLY, 0)
}

func (l *limitFS) OpenFile(name string, flag int, perm fs.FileMode) (command.File, error) {
	if flag&os.O_CREATE != 0 {
		if _, err := l.FS.Stat(name); err != nil && l.missing(name) {
			if err := l.reserve("open", name, 1); err != nil {
				return nil, err
			}
		}
	}
	f, err := l.FS.OpenFile(name, flag, perm)
	if err == nil && l.st.wrapFile != nil {
		f = l.st.wrapFile(f)
	}
	return f, err
}

func (l *limitFS) Mkdir(name string, perm fs.FileMode) error {
	if l.missing(name) {
		if err := l.reserve("mkdir", name, 1); err != nil {
			return err
		}
	}
	return l.FS.Mkdir(name, perm)
}

func (l *limitFS) MkdirAll(name string, perm fs.FileMode) error {
	n := 0
	for p := l.Abs(name); p != "/" && l.missing(p); p = path.Dir(p) {
		n++
	}
	if err := l.reserve("mkdir", name, n); err != nil {
		return err
	}
	return l.FS.MkdirAll(name, perm)
}

func (l *limitFS) Symlink(target, linkname string) error {
	if err := l.reserve("symlink", linkname, 1); err != nil {
		return &os.LinkError{Op: "symlink", Old: target, New: linkname, Err: syscall.EDQUOT}
	}
	return l.FS.Symlink(target, linkname)
}

func (l *limitFS) Link(oldname, newname string) error {
	if err := l.reserve("link", newname, 1); err != nil {
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: syscall.EDQUOT}
	}
	return l.FS.Link(oldname, newname)
}
