// Package textutils holds the runner's text tools: head, tail, wc, sort,
// uniq, cut, tr, paste, join, comm, nl, tac, rev, fold, expand, unexpand,
// column, seq, shuf, tee, xargs, diff, cmp, base64, the checksum tools, od,
// xxd, strings, split and iconv. Each is a command.Func that reads and
// writes only through its Env, so it stays inside the agent's view. Output
// follows GNU coreutils 9.1
// (util-linux 2.38 for column and rev, diffutils 3.8 for diff and cmp,
// findutils for xargs, binutils for strings, vim 9.0 for xxd) byte for
// byte for the flags agents use; diff's matching and hunks are
// internal/linediff's, shared with `wsfs diff`.
//
// The locale is C.UTF-8, the build machine's default: collation is code
// point order, which for UTF-8 is byte order, so sort, uniq, comm and join
// compare bytes and -f/-i fold ASCII only; wc -m/-L, rev and column count
// UTF-8 characters; cut -c, tr and fold work on bytes, as GNU's do.
//
// Every loop polls the context and stops at the first failed write to
// stdout, so the runner's time and output limits end a runaway command.
package textutils

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"
	"slices"
	"strings"
	"syscall"

	"github.com/wsfs/wsfs/runner/command"
)

// Commands lists the text tools for the runner's command table.
func Commands() []command.Spec {
	return []command.Spec{
		{Name: "head", Summary: "output the first part of files", Flags: headSpec.Flags(), Func: Head},
		{Name: "tail", Summary: "output the last part of files", Flags: tailSpec.Flags(), Func: Tail},
		{Name: "wc", Summary: "print newline, word, and byte counts", Flags: wcSpec.Flags(), Func: Wc},
		{Name: "sort", Summary: "sort lines of text", Flags: sortSpec.Flags(), Func: Sort},
		{Name: "uniq", Summary: "report or omit repeated lines", Flags: uniqSpec.Flags(), Func: Uniq},
		{Name: "cut", Summary: "remove sections from each line", Flags: cutSpec.Flags(), Func: Cut},
		{Name: "tr", Summary: "translate or delete characters", Flags: trSpec.Flags(), Func: Tr},
		{Name: "paste", Summary: "merge lines of files", Flags: pasteSpec.Flags(), Func: Paste},
		{Name: "join", Summary: "join lines of two files on a common field", Flags: joinCmdline.Flags(), Func: Join},
		{Name: "comm", Summary: "compare two sorted files line by line", Flags: commSpec.Flags(), Func: Comm},
		{Name: "nl", Summary: "number lines of files", Flags: nlSpec.Flags(), Func: Nl},
		{Name: "tac", Summary: "concatenate and print files in reverse", Flags: tacSpec.Flags(), Func: Tac},
		{Name: "rev", Summary: "reverse lines characterwise", Flags: noOptions.Flags(), Func: Rev},
		{Name: "fold", Summary: "wrap each input line to fit in specified width", Flags: foldSpec.Flags(), Func: Fold},
		{Name: "expand", Summary: "convert tabs to spaces", Flags: expandSpec.Flags(), Func: Expand},
		{Name: "unexpand", Summary: "convert spaces to tabs", Flags: unexpandSpec.Flags(), Func: Unexpand},
		{Name: "column", Summary: "columnate lists", Flags: columnSpec.Flags(), Func: Column},
		{Name: "seq", Summary: "print a sequence of numbers", Flags: seqSpec.Flags(), Func: Seq},
		{Name: "shuf", Summary: "generate random permutations", Flags: shufSpec.Flags(), Func: Shuf},
		{Name: "tee", Summary: "copy standard input to files and standard output", Flags: teeSpec.Flags(), Func: Tee},
		{Name: "xargs", Summary: "build and run commands from standard input", Flags: xargsSpec.Flags(), Func: Xargs},
		{Name: "diff", Summary: "compare files line by line", Flags: diffSpec.Flags(), Func: Diff},
		{Name: "iconv", Summary: "convert text from one character encoding to another", Flags: iconvSpec.Flags(), Func: Iconv},
		{Name: "cmp", Summary: "compare two files byte by byte", Flags: cmpSpec.Flags(), Func: Cmp},
		{Name: "base64", Summary: "base64 encode/decode data", Flags: base64Spec.Flags(), Func: Base64},
		{Name: "md5sum", Summary: "compute and check MD5 message digests", Flags: checksumSpec.Flags(), Func: Md5sum},
		{Name: "sha1sum", Summary: "compute and check SHA1 message digests", Flags: checksumSpec.Flags(), Func: Sha1sum},
		{Name: "sha256sum", Summary: "compute and check SHA256 message digests", Flags: checksumSpec.Flags(), Func: Sha256sum},
		{Name: "sha512sum", Summary: "compute and check SHA512 message digests", Flags: checksumSpec.Flags(), Func: Sha512sum},
		{Name: "od", Summary: "dump files in octal and other formats", Flags: odCmdline.Flags(), Func: Od},
		{Name: "xxd", Summary: "make a hex dump or do the reverse", Flags: xxdFlags(), Func: Xxd},
		{Name: "strings", Summary: "print the printable strings in files", Flags: stringsSpec.Flags(), Func: Strings},
		{Name: "split", Summary: "split a file into pieces", Flags: splitSpec.Flags(), Func: Split},
	}
}

// run holds what every tool needs during one invocation: its Env, a
// buffered stdout whose first write error stops the work, and a counter
// that polls the context every few thousand steps.
type run struct {
	ctx   context.Context
	env   *command.Env
	out   *bufio.Writer
	sink  *stickyWriter
	steps int
}

func newRun(ctx context.Context, env *command.Env) *run {
	sink := &stickyWriter{w: env.Stdout}
	return &run{ctx: ctx, env: env, sink: sink, out: bufio.NewWriterSize(sink, 64<<10)}
}

// stickyWriter remembers the first write error so that a capped or closed
// stdout stops a tool instead of being retried line after line.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err != nil {
		s.err = err
	}
	return n, err
}

// stopped reports whether the tool should give up: the context is done or
// stdout failed. It checks the context only every 256 calls.
func (r *run) stopped() bool {
	r.steps++
	if r.steps&255 == 0 && r.ctx.Err() != nil {
		return true
	}
	return r.sink.err != nil
}

// finish flushes stdout and turns a write error or a cancelled context
// into a diagnostic and status 1; otherwise it returns status.
func (r *run) finish(status int) int {
	if err := r.out.Flush(); err != nil {
		if !errors.Is(err, context.Canceled) {
			r.env.Errorf("write error: %s", command.Strerror(err))
		}
		return 1
	}
	if r.ctx.Err() != nil {
		return 1
	}
	return status
}

// open opens an input operand; "-" is standard input, which is never closed.
func (r *run) open(name string) (io.ReadCloser, error) {
	if name == "-" {
		return io.NopCloser(r.env.Stdin), nil
	}
	f, err := r.env.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// create opens an output file, truncating or appending.
func (r *run) create(name string, appendMode bool) (command.File, error) {
	flag := syscall.O_WRONLY | syscall.O_CREAT
	if appendMode {
		flag |= syscall.O_APPEND
	} else {
		flag |= syscall.O_TRUNC
	}
	return r.env.FS.OpenFile(name, flag, 0o666)
}

// readAll reads a whole input operand, checking the context between chunks.
func (r *run) readAll(rd io.Reader) ([]byte, error) {
	return r.readInto(nil, rd)
}

// maxWholeInput bounds an input a tool must hold whole (shuf, iconv),
// under the worker's memory limit: more is refused with a message rather
// than ending the command at that limit.
const maxWholeInput = 64 << 20

// errInputTooLarge is an input over maxWholeInput.
var errInputTooLarge = errors.New("input is over the runner's limit of 64 MiB for what this command holds in memory")

// readAllBounded is readAll for an input held whole: at most
// maxWholeInput bytes.
func (r *run) readAllBounded(rd io.Reader) ([]byte, error) {
	b, err := r.readInto(nil, io.LimitReader(rd, maxWholeInput+1))
	if err == nil && len(b) > maxWholeInput {
		return nil, errInputTooLarge
	}
	return b, err
}

// readInto appends all of rd to buf, reading straight into its spare room.
func (r *run) readInto(buf []byte, rd io.Reader) ([]byte, error) {
	for {
		if r.ctx.Err() != nil {
			return buf, r.ctx.Err()
		}
		if cap(buf)-len(buf) < 32<<10 {
			buf = slices.Grow(buf, max(64<<10, len(buf)))
		}
		n, err := rd.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// readFile reads a whole operand by name ("-" is stdin).
func (r *run) readFile(name string) ([]byte, error) {
	f, err := r.open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, ok := f.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
			buf := make([]byte, 0, fi.Size()+1)
			return r.readInto(buf, f)
		}
	}
	return r.readAll(f)
}

// quote renders a file name as GNU's quote() does in the C locale.
func quote(s string) string {
	if strings.ContainsAny(s, "'") {
		return "\"" + s + "\""
	}
	return "'" + s + "'"
}

// bufferedWriter is a bufio.Writer as an io.Writer with Flush.
type bufferedWriter interface {
	io.Writer
	Flush() error
}

func newBuffered(w io.Writer) bufferedWriter { return bufio.NewWriterSize(w, 64<<10) }
