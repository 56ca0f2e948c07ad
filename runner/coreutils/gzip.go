package coreutils

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

type gzipFlags struct {
	stdout, decompress, keep, force, list, test, quiet, verbose, noName, recursive bool
	level                                                                          int
	suffix                                                                         string
}

var gzipSpec = getopt.Spec{Options: []getopt.Option{
	{Short: 'c', Long: "stdout"}, {Long: "to-stdout", Key: "stdout"}, {Short: 'd', Long: "decompress"},
	{Long: "uncompress", Key: "decompress"}, {Short: 'k', Long: "keep"}, {Short: 'f', Long: "force"},
	{Short: 'l', Long: "list"}, {Short: 't', Long: "test"}, {Short: 'q', Long: "quiet"}, {Short: 'v', Long: "verbose"},
	{Short: 'n', Long: "no-name"}, {Short: 'N', Long: "name"}, {Short: 'r', Long: "recursive"},
	{Short: 'S', Long: "suffix", Arg: getopt.Required, ArgName: "SUF"}, {Short: '1', Long: "fast", Key: "1"},
	{Short: '2', Key: "2", Hidden: true}, {Short: '3', Key: "3", Hidden: true}, {Short: '4', Key: "4", Hidden: true},
	{Short: '5', Key: "5", Hidden: true}, {Short: '6', Key: "6", Hidden: true}, {Short: '7', Key: "7", Hidden: true},
	{Short: '8', Key: "8", Hidden: true}, {Short: '9', Long: "best", Key: "9"},
}}

func runGzip(ctx context.Context, env *command.Env) int { return gzipMain(ctx, env, false, false) }

func runGunzip(ctx context.Context, env *command.Env) int { return gzipMain(ctx, env, true, false) }

func runZcat(ctx context.Context, env *command.Env) int { return gzipMain(ctx, env, true, true) }

func gzipMain(ctx context.Context, env *command.Env, decompress, toStdout bool) int {
	opts, files, code, ok := gzipSpec.Run(env)
	if !ok {
		return code
	}
	f := gzipFlags{stdout: opts.Has("stdout"), decompress: opts.Has("decompress"), keep: opts.Has("keep"),
		force: opts.Has("force"), list: opts.Has("list"), test: opts.Has("test"), quiet: opts.Has("quiet"),
		verbose: opts.Has("verbose"), recursive: opts.Has("recursive"), level: gzip.DefaultCompression, suffix: ".gz"}
	if suffix, ok := opts.Value("suffix"); ok {
		f.suffix = suffix
	}
	for _, o := range opts {
		switch o.Key {
		case "no-name", "name":
			f.noName = o.Key == "no-name"
		case "1", "2", "3", "4", "5", "6", "7", "8", "9":
			f.level = int(o.Key[0] - '0')
		}
	}
	if decompress {
		f.decompress = true
	}
	if toStdout {
		f.stdout = true
	}
	g := &gzipper{ctx: ctx, env: env, f: f, o: newOut(env)}
	if len(files) == 0 {
		files = []string{"-"}
	}
	for _, name := range files {
		if done(ctx) {
			return g.o.finish(env, statusCanceled)
		}
		if f.list {
			g.listOne(name)
			continue
		}
		g.one(name)
	}
	if f.list && g.listed > 1 {
		fmt.Fprintf(g.o, "%19d %19d %s (totals)\n", g.totalIn, g.totalOut, listRatio(g.totalOut, g.totalIn-g.totalHeaders))
	}
	return g.o.finish(env, g.status)
}

type gzipper struct {
	ctx    context.Context
	env    *command.Env
	f      gzipFlags
	o      *out
	status int

	listed                          int
	totalIn, totalOut, totalHeaders int64
}

// listOne prints gzip -l's line for one file: sizes, and the saving
// counted without the gzip header and trailer, as GNU does.
func (g *gzipper) listOne(name string) {
	var in io.Reader = g.env.Stdin
	shown := "stdout"
	if name != "-" {
		fh, err := g.env.FS.Open(name)
		if err != nil {
			g.fail("%s: %s", name, command.Strerror(err))
			return
		}
		defer fh.Close()
		in = fh
		if shown = g.decompressedName(name); shown == "" {
			shown = name
		}
	}
	if in == nil {
		in = strings.NewReader("")
	}
	cr := &countingReader{r: ctxReader{g.ctx, in}}
	zr, err := gzip.NewReader(cr)
	if err != nil {
		g.reportConvertErr(name, err)
		return
	}
	zr.Multistream(false)
	n, err := io.Copy(io.Discard, zr)
	if err != nil {
		g.reportConvertErr(name, err)
		return
	}
	io.Copy(io.Discard, cr)
	header := int64(10 + 8)
	if zr.Name != "" {
		header += int64(len(zr.Name)) + 1
	}
	if zr.Comment != "" {
		header += int64(len(zr.Comment)) + 1
	}
	if zr.Extra != nil {
		header += 2 + int64(len(zr.Extra))
	}
	if g.listed == 0 {
		g.o.WriteString("         compressed        uncompressed  ratio uncompressed_name\n")
	}
	fmt.Fprintf(g.o, "%19d %19d %s %s\n", cr.n, n, listRatio(n, cr.n-header), shown)
	g.listed++
	g.totalIn += cr.n
	g.totalOut += n
	g.totalHeaders += header
}

// listRatio is gzip -l's saving of compressed over uncompressed bytes.
func listRatio(uncompressed, compressed int64) string {
	if uncompressed == 0 {
		return "  0.0%"
	}
	return fmt.Sprintf("%5.1f%%", 100*float64(uncompressed-compressed)/float64(uncompressed))
}

func (g *gzipper) fail(format string, a ...any) {
	g.o.Flush()
	g.env.Errorf(format, a...)
	g.status = 1
}

// warn is gzip's status 2: a warning, unless an error came before.
func (g *gzipper) warn(format string, a ...any) {
	if !g.f.quiet {
		g.o.Flush()
		g.env.Errorf(format, a...)
	}
	if g.status == 0 {
		g.status = 2
	}
}

func (g *gzipper) one(name string) {
	if name == "-" {
		g.stream(g.env.Stdin, "stdin")
		return
	}
	fi, err := g.env.FS.Lstat(name)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 && !g.f.stdout && !g.f.force {
		g.warn("%s: Too many levels of symbolic links", name)
		return
	}
	if err == nil {
		fi, err = g.env.FS.Stat(name)
	}
	if err != nil {
		g.fail("%s: %s", name, command.Strerror(err))
		return
	}
	if fi.IsDir() {
		if g.f.recursive {
			ents, err := g.env.FS.ReadDir(name)
			if err != nil {
				g.fail("%s: %s", name, command.Strerror(err))
				return
			}
			for _, e := range ents {
				if done(g.ctx) {
					return
				}
				g.one(joinPath(name, e.Name()))
			}
			return
		}
		g.warn("%s is a directory -- ignored", name)
		return
	}
	out := ""
	switch {
	case g.f.decompress || g.f.list || g.f.test:
		out = g.decompressedName(name)
		if out == "" {
			if !g.f.stdout && !g.f.test {
				g.warn("%s: unknown suffix -- ignored", name)
				return
			}
		}
	default:
		if strings.HasSuffix(name, g.f.suffix) && !g.f.stdout {
			// GNU warns but keeps status 0 for this one.
			if !g.f.quiet {
				g.o.Flush()
				g.env.Errorf("%s already has %s suffix -- unchanged", name, g.f.suffix)
			}
			return
		}
		out = name + g.f.suffix
	}
	in, err := g.env.FS.Open(name)
	if err != nil {
		g.fail("%s: %s", name, command.Strerror(err))
		return
	}
	defer in.Close()
	if g.f.stdout || g.f.list || g.f.test {
		g.stream(in, name)
		return
	}
	if _, err := g.env.FS.Lstat(out); err == nil {
		if !g.f.force {
			g.fail("%s already exists; not overwritten", out)
			return
		}
		g.env.FS.Remove(out)
	}
	w, err := g.env.FS.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		g.fail("%s: %s", out, command.Strerror(err))
		return
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	inSize, outSize, err := g.convert(bw, in, name, fi)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		g.env.FS.Remove(out)
		if done(g.ctx) {
			return
		}
		g.reportConvertErr(name, err)
		return
	}
	g.env.FS.Chmod(out, goMode(unixMode(fi.Mode())))
	g.env.FS.Chtimes(out, accessTime(fi), fi.ModTime())
	if !g.f.keep {
		if err := g.env.FS.Remove(name); err != nil {
			g.fail("%s: %s", name, command.Strerror(err))
		}
	}
	if g.f.verbose {
		fmt.Fprintf(g.env.Stderr, "%s:\t%s -- replaced with %s\n", name, ratio(inSize, outSize, g.f.decompress), out)
	}
}

// decompressedName strips a known suffix, or returns "".
func (g *gzipper) decompressedName(name string) string {
	lower := strings.ToLower(name)
	for _, s := range []string{g.f.suffix, ".gz", "-gz", ".z", "-z", "_z"} {
		if s != "" && strings.HasSuffix(lower, strings.ToLower(s)) && len(name) > len(s) {
			return name[:len(name)-len(s)]
		}
	}
	switch {
	case strings.HasSuffix(lower, ".tgz"), strings.HasSuffix(lower, ".taz"):
		return name[:len(name)-4] + ".tar"
	}
	return ""
}

// ratio is gzip -v's saving, "40.0%".
func ratio(in, out int64, decompress bool) string {
	orig, comp := in, out
	if decompress {
		orig, comp = out, in
	}
	if orig == 0 {
		return "  0.0%"
	}
	r := 100 * float64(orig-comp) / float64(orig)
	return fmt.Sprintf("%5.1f%%", r)
}

func (g *gzipper) reportConvertErr(name string, err error) {
	switch {
	case errors.Is(err, gzip.ErrHeader):
		g.fail("%s: not in gzip format", name)
	case errors.Is(err, gzip.ErrChecksum):
		g.fail("%s: invalid compressed data--crc error", name)
	case errors.Is(err, io.ErrUnexpectedEOF):
		g.fail("%s: unexpected end of file", name)
	default:
		g.fail("%s: %s", name, command.Strerror(err))
	}
}

// convert compresses or decompresses in to w and returns the sizes read
// and written.
func (g *gzipper) convert(w io.Writer, in io.Reader, name string, fi fs.FileInfo) (int64, int64, error) {
	cr := &countingReader{r: ctxReader{g.ctx, in}}
	cw := &countingWriter{w: w}
	if g.f.decompress || g.f.test || g.f.list {
		zr, err := gzip.NewReader(cr)
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return cr.n, 0, err
		}
		var dst io.Writer = cw
		if g.f.test || g.f.list {
			dst = io.Discard
		}
		n, err := io.Copy(dst, zr)
		if g.f.list {
			return cr.n, n, err
		}
		return cr.n, cw.n, err
	}
	zw, err := gzip.NewWriterLevel(cw, g.f.level)
	if err != nil {
		return 0, 0, err
	}
	if !g.f.noName && fi != nil {
		zw.Name = baseName(name)
		zw.ModTime = fi.ModTime()
	}
	if _, err := io.Copy(zw, cr); err != nil {
		return cr.n, cw.n, err
	}
	err = zw.Close()
	return cr.n, cw.n, err
}

// stream converts to stdout (-c, stdin, zcat) or tests.
func (g *gzipper) stream(in io.Reader, name string) {
	if in == nil {
		in = strings.NewReader("")
	}
	var fi fs.FileInfo
	if f, ok := in.(command.File); ok && name != "stdin" {
		fi, _ = f.Stat()
	}
	_, _, err := g.convert(g.o, in, name, fi)
	if err != nil {
		if done(g.ctx) {
			return
		}
		g.reportConvertErr(name, err)
		return
	}
	if g.f.verbose && g.f.test {
		fmt.Fprintf(g.env.Stderr, "%s:\t OK\n", name)
	}
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
