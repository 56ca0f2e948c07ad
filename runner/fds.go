package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"mvdan.cc/sh/v3/interp"

	"github.com/wsfs/wsfs/runner/command"
)

// fdEntry is an open descriptor above 2 (or a here-document on 1 or 2):
// a host file when there is one (so that reads through it share the
// offset, as dup'd descriptors do), else a reader or writer of the shell.
type fdEntry struct {
	file *os.File  // owned: closed with the entry
	r    io.Reader // when file is nil
	w    io.Writer
}

func (e *fdEntry) close() {
	if e != nil && e.file != nil {
		e.file.Close()
	}
}

// fdSave is one descriptor a command's redirection replaced, to restore.
type fdSave struct {
	group string
	n     int
	prev  *fdEntry
}

// fdTable is the descriptors of one command: shared by its subshells and
// nested shells (bash would copy them into a subshell).
type fdTable struct {
	mu    sync.Mutex
	fds   map[int]*fdEntry
	saved []fdSave
}

func (t *fdTable) get(n int) *fdEntry {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.fds[n]
}

// install sets descriptor n (closing what it held, unless saved).
func (t *fdTable) install(n int, e *fdEntry, save string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.fds == nil {
		t.fds = map[int]*fdEntry{}
	}
	prev := t.fds[n]
	if save != "" {
		t.saved = append(t.saved, fdSave{group: save, n: n, prev: prev})
	} else {
		prev.close()
	}
	if e == nil {
		delete(t.fds, n)
	} else {
		t.fds[n] = e
	}
}

// pop restores what a command's redirections replaced. Records above the
// group's own (commands whose pop a return or break skipped) go too.
func (t *fdTable) pop(group string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	last := -1
	for i, s := range t.saved {
		if s.group == group {
			last = i
		}
	}
	if last < 0 {
		return
	}
	first := last
	for first > 0 && t.saved[first-1].group == group {
		first--
	}
	for i := len(t.saved) - 1; i >= first; i-- {
		s := t.saved[i]
		t.fds[s.n].close()
		if s.prev == nil {
			delete(t.fds, s.n)
		} else {
			t.fds[s.n] = s.prev
		}
	}
	t.saved = t.saved[:first]
}

// size counts the entries the table holds, saved ones included.
func (t *fdTable) size() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.fds) + len(t.saved)
}

// free returns the lowest descriptor from 10 up that is not open.
func (t *fdTable) free() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 10
	for t.fds[n] != nil {
		n++
	}
	return n
}

func (t *fdTable) closeAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range t.fds {
		e.close()
	}
	for _, s := range t.saved {
		s.prev.close()
	}
	t.fds, t.saved = nil, nil
}

// fdBuiltin runs fdCommand (see rewrite.go):
//
//	␁fd push GROUP N OP   a command's redirection of N (restored by pop)
//	␁fd pop GROUP STATUS [N…]  restore, close the Ns, and give STATUS
//	␁fd set N OP          exec's redirection of N
//	␁fd free              print the lowest free descriptor from 10 up
//
// OP is <, >, >|, >>, <>, << (the here-document on stdin), dup (the
// descriptor in WSFS_FD_TARGET) or close; the file name is in
// WSFS_FD_TARGET.
func (st *runState) fdBuiltin(ctx context.Context, args []string) []string {
	hc := interp.HandlerCtx(ctx)
	if len(args) < 2 {
		return statusArgs(2)
	}
	switch args[1] {
	case "free":
		return builtinOutput(hc, "exec", strconv.Itoa(st.fdt.free()), 0)
	case "pop":
		if len(args) < 4 {
			return statusArgs(2)
		}
		st.fdt.pop(args[2])
		for _, a := range args[4:] {
			if n, err := strconv.Atoi(a); err == nil {
				st.fdt.install(n, nil, "")
			}
		}
		code, _ := strconv.Atoi(args[3])
		return statusArgs(code)
	case "push", "set":
		if len(args) < 4 || (args[1] == "push" && len(args) < 5) {
			return statusArgs(2)
		}
		nArg, op, save := args[2], args[3], ""
		if args[1] == "push" {
			save, nArg, op = args[2], args[3], args[4]
		}
		n, err := strconv.Atoi(nArg)
		if err != nil || n < 0 {
			fmt.Fprintf(hc.Stderr, "bash: %s: ambiguous redirect\n", nArg)
			return statusArgs(1)
		}
		if op == "close" {
			st.fdt.install(n, nil, save)
			return statusArgs(0)
		}
		e, msg := st.openFdLimited(ctx, hc, op)
		if msg != "" {
			fmt.Fprintln(hc.Stderr, msg)
			return statusArgs(1)
		}
		st.fdt.install(n, e, save)
		return statusArgs(0)
	}
	return statusArgs(2)
}

// openFdLimited is openFd within the limit of files the shell holds open.
func (st *runState) openFdLimited(ctx context.Context, hc interp.HandlerContext, op string) (*fdEntry, string) {
	st.mu.Lock()
	n := len(st.open)
	st.mu.Unlock()
	if n+st.fdt.size() >= st.lim.MaxOpenFiles {
		st.hit("open-files", fmt.Sprintf("wsfs: open file limit %d reached", st.lim.MaxOpenFiles))
		return nil, "bash: redirection error: Too many open files"
	}
	return st.openFd(ctx, hc, op)
}

// openFd opens what a redirection to a descriptor names, or returns
// bash's message.
func (st *runState) openFd(ctx context.Context, hc interp.HandlerContext, op string) (*fdEntry, string) {
	target := hc.Env.Get(fdTargetVar).String()
	switch op {
	case "<<":
		pr, pw, err := os.Pipe()
		if err != nil {
			return nil, "bash: cannot make a pipe for the here-document: " + err.Error()
		}
		var data []byte
		if hc.Stdin != nil {
			data, _ = io.ReadAll(io.LimitReader(hc.Stdin, maxScriptBytes))
		}
		go func() {
			pw.Write(data)
			pw.Close()
		}()
		return &fdEntry{file: pr}, ""
	case "dup":
		return st.dupFd(hc, target)
	}
	flag := map[string]int{
		"<":  os.O_RDONLY,
		">":  os.O_WRONLY | os.O_CREATE | os.O_TRUNC,
		">|": os.O_WRONLY | os.O_CREATE | os.O_TRUNC,
		">>": os.O_WRONLY | os.O_CREATE | os.O_APPEND,
		"<>": os.O_RDWR | os.O_CREATE,
	}[op]
	if op == ">" {
		target = strings.TrimPrefix(target, clobberMark)
		if err := st.clobberCheck(hc.Dir, target, flag); err != nil {
			return nil, err.Error()
		}
	}
	if fd := devFd(target); fd >= 0 {
		return st.dupFd(hc, strconv.Itoa(fd))
	}
	f, err := st.fsFor(hc.Dir, hc.Stdin, hc.Stdout, hc.Stderr).OpenFile(target, flag, 0o644)
	if err != nil {
		return nil, fmt.Sprintf("bash: %s: %s", target, command.Strerror(err))
	}
	if hf, ok := hostFile(f); ok {
		return &fdEntry{file: hf}, ""
	}
	return &fdEntry{r: f, w: f}, ""
}

// hostFile returns a host descriptor of its own for f when f has one.
func hostFile(f any) (*os.File, bool) {
	fder, ok := f.(interface {
		Fd() uintptr
		Name() string
	})
	if !ok {
		return nil, false
	}
	nfd, err := syscall.Dup(int(fder.Fd()))
	if err != nil {
		return nil, false
	}
	if c, ok := f.(io.Closer); ok {
		c.Close()
	}
	syscall.CloseOnExec(nfd)
	return os.NewFile(uintptr(nfd), fder.Name()), true
}

// dupFd copies descriptor target (N>&M, N<&M).
func (st *runState) dupFd(hc interp.HandlerContext, target string) (*fdEntry, string) {
	m, err := strconv.Atoi(target)
	if err != nil || m < 0 {
		return nil, fmt.Sprintf("bash: %s: ambiguous redirect", target)
	}
	var src *fdEntry
	switch {
	case st.fdt.get(m) != nil:
		src = st.fdt.get(m)
	case m == 0:
		src = &fdEntry{r: hc.Stdin}
	case m == 1:
		src = &fdEntry{w: hc.Stdout}
	case m == 2:
		src = &fdEntry{w: hc.Stderr}
	default:
		return nil, fmt.Sprintf("bash: %d: Bad file descriptor", m)
	}
	if src.file != nil {
		if f, ok := hostFile(dupSource{src.file}); ok {
			return &fdEntry{file: f}, ""
		}
	}
	if src.r == nil && src.w == nil && src.file == nil {
		return nil, fmt.Sprintf("bash: %d: Bad file descriptor", m)
	}
	return &fdEntry{r: src.r, w: src.w}, ""
}

// dupSource hands hostFile a file to copy without closing it.
type dupSource struct{ f *os.File }

func (d dupSource) Fd() uintptr  { return d.f.Fd() }
func (d dupSource) Name() string { return d.f.Name() }

// devFd returns N for "/dev/fd/N", or -1.
func devFd(name string) int {
	s, ok := strings.CutPrefix(name, "/dev/fd/")
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// openDevFd answers a redirection to /dev/fd/N: the table's descriptor,
// or the shell's stdin, stdout or stderr.
func (st *runState) openDevFd(hc interp.HandlerContext, name string, n int) (io.ReadWriteCloser, error) {
	e := st.fdt.get(n)
	if e == nil {
		switch n {
		case 0:
			if hc.Stdin != nil {
				return streamEnd{r: hc.Stdin}, nil
			}
		case 1:
			return streamEnd{w: hc.Stdout}, nil
		case 2:
			return streamEnd{w: hc.Stderr}, nil
		}
		return nil, &os.PathError{Op: "bash:", Path: strconv.Itoa(n), Err: bashErrno{syscall.EBADF}}
	}
	if e.file != nil {
		if f, ok := hostFile(dupSource{e.file}); ok {
			return f, nil
		}
	}
	return streamEnd{r: e.r, w: e.w}, nil
}

// streamEnd is a reader or writer of the shell handed out by a
// redirection; closing it leaves the stream open.
type streamEnd struct {
	r io.Reader
	w io.Writer
}

func (s streamEnd) Read(p []byte) (int, error) {
	if s.r == nil {
		return 0, syscall.EBADF
	}
	return s.r.Read(p)
}

func (s streamEnd) Write(p []byte) (int, error) {
	if s.w == nil {
		return 0, syscall.EBADF
	}
	return s.w.Write(p)
}

func (s streamEnd) Close() error { return nil }

// bashErrno prints an errno as bash does ("No such file or directory")
// and still matches it with errors.Is.
type bashErrno struct{ err error }

func (e bashErrno) Error() string { return command.Strerror(e.err) }
func (e bashErrno) Unwrap() error { return e.err }

// errClobber is bash's refusal under set -o noclobber.
var errClobber = errors.New("cannot overwrite existing file")

// clobberCheck refuses to truncate an existing regular file under
// noclobber.
func (st *runState) clobberCheck(dir, name string, flag int) error {
	if !st.noclobber.Load() || flag&os.O_TRUNC == 0 {
		return nil
	}
	fi, err := st.fsys.WithDir(dir, nil, nil, nil).Stat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	return &os.PathError{Op: "bash:", Path: name, Err: errClobber}
}

// setBuiltin takes noclobber (-C, -o noclobber) out of set's options,
// which mvdan/sh rejects, and keeps it for the open handler.
func (st *runState) setBuiltin(args []string) []string {
	out := []string{args[0]}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || a == "-" || len(a) < 2 || (a[0] != '-' && a[0] != '+'):
			return append(out, args[i:]...)
		case (a == "-o" || a == "+o") && i+1 < len(args) && args[i+1] == "noclobber":
			st.noclobber.Store(a[0] == '-')
			i++
			continue
		case a[1] != 'o' && strings.ContainsRune(a, 'C'):
			st.noclobber.Store(a[0] == '-')
			a = strings.ReplaceAll(a, "C", "")
			if len(a) == 1 {
				continue
			}
		}
		out = append(out, a)
	}
	if len(out) == 1 && len(args) > 1 {
		return statusArgs(0)
	}
	return out
}

// redirError is a failed redirection as the interpreter prints it:
// "bash: NAME: No such file or directory".
func redirError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = le.Err
	}
	return &os.PathError{Op: "bash:", Path: name, Err: bashErrno{err}}
}

// pipeStatuses keeps the stage statuses of the pipelines a script runs,
// for PIPESTATUS (see pipeStatusCommand).
type pipeStatuses struct {
	mu     sync.Mutex
	stages map[string]map[int]string
	last   map[string]string
}

func (st *runState) pipeStatusBuiltin(ctx context.Context, args []string) []string {
	if len(args) < 3 {
		return statusArgs(2)
	}
	p := &st.pipes
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stages == nil {
		p.stages, p.last = map[string]map[int]string{}, map[string]string{}
	}
	id := args[2]
	switch args[1] {
	case "set":
		if len(args) == 5 {
			i, _ := strconv.Atoi(args[3])
			if p.stages[id] == nil {
				p.stages[id] = map[int]string{}
			}
			p.stages[id][i] = args[4]
			code, _ := strconv.Atoi(args[4])
			return statusArgs(code) // the stage's own status, for pipefail
		}
	case "end":
		p.last[id] = args[len(args)-1]
	case "get":
		got := p.stages[id]
		delete(p.stages, id)
		n := 0
		for i := range got {
			n = max(n, i+1)
		}
		codes := make([]string, n)
		for i := range codes {
			codes[i] = cmp.Or(got[i], "1") // a stage stopped by set -e
		}
		p.mu.Unlock()
		defer p.mu.Lock()
		return builtinOutput(interp.HandlerCtx(ctx), "PIPESTATUS", strings.Join(codes, " "), 0)
	case "status":
		code, _ := strconv.Atoi(p.last[id])
		delete(p.last, id)
		return statusArgs(code)
	}
	return statusArgs(0)
}
