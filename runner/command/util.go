package command

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"syscall"
)

// Spec describes one command for the runner's command table, `help` and
// `wsfs commands --json`.
type Spec struct {
	Name    string   // the name agents call it by
	Summary string   // one line, as `help` prints it
	Flags   []string // supported flags, e.g. "-n", "--include=GLOB"
	Func    Func
}

// Errorf writes "name: message" and a newline to the command's stderr, the
// form GNU tools use for diagnostics.
func (e *Env) Errorf(format string, a ...any) {
	name := "command"
	if len(e.Args) > 0 {
		name = path.Base(e.Args[0])
	}
	fmt.Fprintf(e.Stderr, "%s: %s\n", name, fmt.Sprintf(format, a...))
}

// Limitf prints a limit the command reached, as Errorf does, and records
// the line in the run's result (limits_hit).
func (e *Env) Limitf(format string, a ...any) {
	name := e.Name()
	if name == "" {
		name = "command"
	}
	line := name + ": " + fmt.Sprintf(format, a...)
	fmt.Fprintln(e.Stderr, line)
	if e.LimitHit != nil {
		e.LimitHit(line)
	}
}

// Name returns the name the command was called by.
func (e *Env) Name() string {
	if len(e.Args) == 0 {
		return ""
	}
	return path.Base(e.Args[0])
}

// Strerror returns the C library's text for the error inside err, as GNU
// tools print it: "No such file or directory", "Permission denied", …
// Errors that carry no errno print as they are.
func Strerror(err error) string {
	var errno syscall.Errno
	switch {
	case errors.As(err, &errno):
		s := errno.Error()
		if s != "" {
			return string(s[0]-'a'+'A') + s[1:]
		}
	case errors.Is(err, fs.ErrNotExist):
		return "No such file or directory"
	case errors.Is(err, fs.ErrExist):
		return "File exists"
	case errors.Is(err, fs.ErrPermission):
		return "Permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}
