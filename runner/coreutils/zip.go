package coreutils

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math/rand/v2"
	"path"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wsfs/wsfs/runner/command"
)

// Info-ZIP's command lines are their own: single-letter options that
// bundle ("-rq", "-9r") and may come anywhere, and -x/-i take the
// arguments after them up to the next option. infozipOption describes
// one, for the parser and the command table.
type infozipOption struct {
	letter byte
	arg    string // the value's name when the option takes the next argument
	list   bool   // takes the following arguments as a list (-x, -i)
	help   string
}

var zipOptions = []infozipOption{
	{letter: 'r', help: "recurse into directories"}, {letter: 'j', help: "junk (don't record) directory names"},
	{letter: 'q', help: "quiet operation"}, {letter: 'd', help: "delete entries in zipfile"},
	{letter: 'u', help: "update: only changed or new files"}, {letter: 'f', help: "freshen: only changed files"},
	{letter: 'm', help: "move into zipfile (delete OS files)"}, {letter: 'D', help: "do not add directory entries"},
	{letter: 'y', help: "store symbolic links as the link instead of the referenced file"},
	{letter: '0', help: "store only"}, {letter: '1', help: "compress faster"}, {letter: '9', help: "compress better"},
	{letter: '@', help: "read names from stdin"},
	{letter: 'x', list: true, arg: "PATTERN...", help: "exclude the following names"},
	{letter: 'i', list: true, arg: "PATTERN...", help: "include only the following names"},
}

func infozipFlags(opts []infozipOption) []string {
	var out []string
	for _, o := range opts {
		f := "-" + string(o.letter)
		if o.arg != "" {
			f += " " + o.arg
		}
		out = append(out, f)
	}
	return out
}

// maxZipEntryBuffer is the largest entry zip compresses in memory; a
// larger one is compressed twice (once to measure it), as streaming.
const maxZipEntryBuffer = 8 << 20

// zipper is one zip run.
type zipper struct {
	ctx     context.Context
	env     *command.Env
	quiet   bool
	recurse bool
	junk    bool
	del     bool
	update  bool
	freshen bool
	move    bool
	noDirs  bool
	links   bool
	level   int
	excl    []string
	incl    []string
	warned  bool
	// toStdout: the archive is written to standard output ("-").
	toStdout bool
}

// messages is where Info-ZIP writes its warnings and errors: standard
// output, unless the archive goes there.
func (z *zipper) messages() io.Writer {
	if z.toStdout {
		return z.env.Stderr
	}
	return z.env.Stdout
}

// fail prints Info-ZIP's "zip error:" line (after a blank line) and
// returns its status.
func (z *zipper) fail(status int, format string, a ...any) int {
	fmt.Fprintf(z.messages(), "\nzip error: %s\n", fmt.Sprintf(format, a...))
	return status
}

func (z *zipper) warn(format string, a ...any) {
	z.warned = true
	fmt.Fprintf(z.messages(), "\tzip warning: %s\n", fmt.Sprintf(format, a...))
}

// runZip implements Info-ZIP's zip 3.0 for the forms agents use: create
// or update an archive (-r -j -D -0…-9 -x -i -u -f -m -y -q -@), delete
// entries (-d). Archives are standard zip files (deflate or stored, Unix
// modes and modification times), readable by any unzip.
func runZip(ctx context.Context, env *command.Env) int {
	z := &zipper{ctx: ctx, env: env, level: 6}
	var operands []string
	args := env.Args[1:]
	namesFromStdin := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' {
			operands = append(operands, a)
			continue
		}
		if a == "--" {
			operands = append(operands, args[i+1:]...)
			break
		}
		if strings.HasPrefix(a, "--") {
			switch a {
			case "--recurse-paths":
				z.recurse = true
			case "--quiet":
				z.quiet = true
			case "--junk-paths":
				z.junk = true
			case "--delete":
				z.del = true
			case "--help":
				fmt.Fprintf(env.Stdout, "Usage: zip [-options] zipfile [file ...] [-x pattern ...] [-i pattern ...]\nSee the runner's `help zip` for the supported options.\n")
				return 0
			default:
				return z.fail(16, "Invalid command arguments (long option '%s' not supported)", strings.TrimPrefix(a, "--"))
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			var opt *infozipOption
			for k := range zipOptions {
				if zipOptions[k].letter == c {
					opt = &zipOptions[k]
				}
			}
			if opt == nil && c >= '0' && c <= '9' {
				opt = &infozipOption{letter: c}
			}
			if opt == nil {
				return z.fail(16, "Invalid command arguments (short option '%c' not supported)", c)
			}
			switch {
			case opt.list:
				var list []string
				for i+1 < len(args) && !(len(args[i+1]) > 1 && args[i+1][0] == '-') {
					i++
					list = append(list, args[i])
				}
				if len(list) == 0 {
					name := "exclude files matching patterns"
					if c == 'i' {
						name = "include only files matching patterns"
					}
					return z.fail(16, "Invalid command arguments (option '%c' (%s) requires a value)", c, name)
				}
				if c == 'x' {
					z.excl = append(z.excl, list...)
				} else {
					z.incl = append(z.incl, list...)
				}
				j = len(a)
			case c >= '0' && c <= '9':
				z.level = int(c - '0')
			case c == 'r':
				z.recurse = true
			case c == 'j':
				z.junk = true
			case c == 'q':
				z.quiet = true
			case c == 'd':
				z.del = true
			case c == 'u':
				z.update = true
			case c == 'f':
				z.freshen = true
			case c == 'm':
				z.move = true
			case c == 'D':
				z.noDirs = true
			case c == 'y':
				z.links = true
			case c == '@':
				namesFromStdin = true
			}
		}
	}
	if len(operands) == 0 {
		return z.fail(16, "Invalid command arguments (nothing to select from)")
	}
	archive := operands[0]
	names := operands[1:]
	z.toStdout = archive == "-"
	if archive != "-" && !strings.Contains(path.Base(archive), ".") {
		archive += ".zip"
	}
	if namesFromStdin {
		data, err := io.ReadAll(env.Stdin)
		if err != nil {
			return z.fail(18, "could not read names from stdin: %s", command.Strerror(err))
		}
		for _, n := range strings.Split(string(data), "\n") {
			if n = strings.TrimRight(n, "\r"); n != "" {
				names = append(names, n)
			}
		}
	}
	return z.run(archive, names)
}

// zipItem is one entry of the archive being written.
type zipItem struct {
	name string
	old  *zip.File // an entry kept from the existing archive
	src  string    // or a file to add
	fi   fs.FileInfo
	verb string // "adding" or "updating"; "" for a kept entry
}

func (z *zipper) run(archive string, names []string) int {
	env := z.env
	// The existing archive.
	var items []*zipItem
	byName := map[string]*zipItem{}
	var oldFile command.File
	if archive != "-" {
		if f, err := env.FS.Open(archive); err == nil {
			fi, err := f.Stat()
			if err != nil || fi.IsDir() {
				f.Close()
				return z.fail(15, "Could not open %s for reading", archive)
			}
			zr, err := zip.NewReader(f, fi.Size())
			if err != nil {
				f.Close()
				return z.fail(3, "Zip file structure invalid (%s)", archive)
			}
			oldFile = f
			defer oldFile.Close()
			for _, zf := range zr.File {
				it := &zipItem{name: zf.Name, old: zf}
				items = append(items, it)
				byName[zf.Name] = it
			}
		}
	}
	changed := false
	if z.del {
		var kept []*zipItem
		matched := map[string]bool{}
		for _, it := range items {
			hit := false
			for _, p := range names {
				if fnmatch(p, it.name, false) {
					hit, matched[p] = true, true
				}
			}
			if hit {
				if !z.quiet {
					fmt.Fprintf(z.messages(), "deleting: %s\n", it.name)
				}
				changed = true
				continue
			}
			kept = append(kept, it)
		}
		for _, p := range names {
			if !matched[p] {
				z.warn("name not matched: %s", p)
			}
		}
		items = kept
	} else {
		var adds []*zipItem
		for _, n := range names {
			if err := z.ctx.Err(); err != nil {
				return 1
			}
			if n == "-" {
				adds = append(adds, &zipItem{name: "-", src: "-"})
				continue
			}
			fi, err := z.stat(n)
			if err != nil {
				z.warn("name not matched: %s", n)
				continue
			}
			adds = append(adds, z.collect(n, fi)...)
		}
		for _, a := range adds {
			if !z.selected(a.name) {
				continue
			}
			if old, ok := byName[a.name]; ok {
				if z.update || z.freshen {
					if a.fi != nil && !a.fi.ModTime().After(old.old.Modified.Add(time.Second)) {
						continue
					}
				}
				old.old, old.src, old.fi, old.verb = nil, a.src, a.fi, "updating"
				changed = true
				continue
			}
			if z.freshen {
				continue
			}
			a.verb = "adding"
			items = append(items, a)
			byName[a.name] = a
			changed = true
		}
	}
	if !changed {
		if z.update && len(names) > 0 && !z.warned {
			return 12
		}
		return z.fail(12, "Nothing to do! (%s)", archive)
	}
	return z.write(archive, items)
}

// stat looks a name up, following symbolic links unless -y.
func (z *zipper) stat(name string) (fs.FileInfo, error) {
	if z.links {
		return z.env.FS.Lstat(name)
	}
	return z.env.FS.Stat(name)
}

// entryName is the name a path is stored under: no leading "./" or "/",
// no folder under -j; folders end in "/".
func (z *zipper) entryName(p string, dir bool) string {
	n := path.Clean(p)
	for strings.HasPrefix(n, "../") {
		n = n[3:]
	}
	n = strings.TrimLeft(n, "/")
	if z.junk {
		n = path.Base(n)
	}
	if dir && n != "" && n != "." {
		n += "/"
	}
	return n
}

// collect lists what adding p brings: the file, or the folder's entry
// and, under -r, everything below it (in name order).
func (z *zipper) collect(p string, fi fs.FileInfo) []*zipItem {
	if !fi.IsDir() {
		return []*zipItem{{name: z.entryName(p, false), src: p, fi: fi}}
	}
	var out []*zipItem
	if !z.noDirs && !z.junk {
		if n := z.entryName(p, true); n != "./" && n != "" {
			out = append(out, &zipItem{name: n, src: p, fi: fi})
		}
	}
	if !z.recurse {
		return out
	}
	ents, err := z.env.FS.ReadDir(p)
	if err != nil {
		z.warn("could not read directory %s: %s", p, command.Strerror(err))
		return out
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	for _, e := range ents {
		if z.ctx.Err() != nil {
			return out
		}
		child := path.Join(p, e.Name())
		cfi, err := z.stat(child)
		if err != nil {
			z.warn("could not open for reading: %s", child)
			continue
		}
		out = append(out, z.collect(child, cfi)...)
	}
	return out
}

// selected applies -i and -x to an entry name.
func (z *zipper) selected(name string) bool {
	if len(z.incl) > 0 {
		in := false
		for _, p := range z.incl {
			if fnmatch(p, name, false) {
				in = true
			}
		}
		if !in {
			return false
		}
	}
	for _, p := range z.excl {
		if fnmatch(p, name, false) {
			return false
		}
	}
	return true
}

// write writes the archive to a temporary file beside it and renames it
// over the old one, as Info-ZIP does, so a failed run leaves the old
// archive as it was.
func (z *zipper) write(archive string, items []*zipItem) int {
	env := z.env
	var out io.Writer = env.Stdout
	var tmp string
	var tf command.File
	if archive != "-" {
		tmp = path.Join(path.Dir(archive), fmt.Sprintf("zi%06d", rand.IntN(1000000)))
		f, err := env.FS.OpenFile(tmp, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL, 0o644)
		if err != nil {
			return z.fail(15, "Could not create output file (%s): %s", archive, command.Strerror(err))
		}
		tf, out = f, f
	}
	cleanup := func() {
		if tf != nil {
			tf.Close()
			env.FS.Remove(tmp)
		}
	}
	zw := zip.NewWriter(out)
	for _, it := range items {
		if err := z.ctx.Err(); err != nil {
			cleanup()
			return 1
		}
		if it.old != nil {
			r, err := it.old.OpenRaw()
			if err == nil {
				var w io.Writer
				if w, err = zw.CreateRaw(&it.old.FileHeader); err == nil {
					_, err = io.Copy(w, r)
				}
			}
			if err != nil {
				cleanup()
				return z.fail(14, "write error copying %s: %s", it.name, command.Strerror(err))
			}
			continue
		}
		if st := z.addEntry(zw, it); st != 0 {
			cleanup()
			return st
		}
	}
	if err := zw.Close(); err != nil {
		cleanup()
		return z.fail(14, "write error (%s): %s", archive, command.Strerror(err))
	}
	if tf != nil {
		if err := tf.Close(); err != nil {
			env.FS.Remove(tmp)
			return z.fail(14, "write error (%s): %s", archive, command.Strerror(err))
		}
		if err := env.FS.Rename(tmp, archive); err != nil {
			env.FS.Remove(tmp)
			return z.fail(15, "could not rename %s to %s: %s", tmp, archive, command.Strerror(err))
		}
	}
	if z.move {
		// Files first, then folders (deepest first) that are now empty.
		var dirs []string
		for _, it := range items {
			if it.verb == "" || it.src == "-" {
				continue
			}
			if it.fi != nil && it.fi.IsDir() {
				dirs = append(dirs, it.src)
				continue
			}
			env.FS.Remove(it.src)
		}
		sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
		for _, d := range dirs {
			env.FS.Remove(d)
		}
	}
	return 0
}

// addEntry compresses one new entry into the archive and reports it as
// Info-ZIP does: "  adding: NAME (deflated 53%)".
func (z *zipper) addEntry(zw *zip.Writer, it *zipItem) int {
	env := z.env
	hdr := &zip.FileHeader{Name: it.name, Method: zip.Store}
	var data []byte
	var src io.Reader
	isDir := it.fi != nil && it.fi.IsDir()
	isLink := it.fi != nil && it.fi.Mode()&fs.ModeSymlink != 0
	switch {
	case it.src == "-":
		b, err := io.ReadAll(env.Stdin)
		if err != nil {
			return z.fail(18, "could not read standard input: %s", command.Strerror(err))
		}
		data = b
		hdr.Modified = time.Now()
		hdr.SetMode(0o600)
	case isDir:
		hdr.Modified = it.fi.ModTime()
		hdr.SetMode(it.fi.Mode())
	case isLink:
		target, err := env.FS.Readlink(it.src)
		if err != nil {
			z.warn("could not open for reading: %s", it.src)
			return 0
		}
		data = []byte(target)
		hdr.Modified = it.fi.ModTime()
		hdr.SetMode(it.fi.Mode())
	default:
		f, err := env.FS.Open(it.src)
		if err != nil {
			z.warn("could not open for reading: %s", it.src)
			return 0
		}
		defer f.Close()
		hdr.Modified = it.fi.ModTime()
		hdr.SetMode(it.fi.Mode())
		if it.fi.Size() <= maxZipEntryBuffer {
			if data, err = io.ReadAll(f); err != nil {
				return z.fail(18, "could not read %s: %s", it.src, command.Strerror(err))
			}
		} else {
			src = f
		}
	}
	var size, csize int64
	var crc uint32
	var comp []byte
	if src == nil {
		size = int64(len(data))
		crc = crc32.ChecksumIEEE(data)
		csize = size
		if z.level > 0 && size > 0 && !isLink {
			var b bytes.Buffer
			fw, _ := flate.NewWriter(&b, z.level)
			fw.Write(data)
			fw.Close()
			if int64(b.Len()) < size {
				comp, csize = b.Bytes(), int64(b.Len())
				hdr.Method = zip.Deflate
			}
		}
	} else {
		// A large file: measure it, then write it.
		f := src.(command.File)
		h := crc32.NewIEEE()
		cw := &countWriter{}
		fw, _ := flate.NewWriter(cw, max(z.level, 1))
		n, err := io.Copy(io.MultiWriter(h, fw), ctxReader{ctx: z.ctx, r: f})
		fw.Close()
		if err != nil {
			return z.fail(18, "could not read %s: %s", it.src, command.Strerror(err))
		}
		size, crc, csize = n, h.Sum32(), n
		if z.level > 0 && cw.n < n {
			csize = cw.n
			hdr.Method = zip.Deflate
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return z.fail(18, "could not read %s: %s", it.src, command.Strerror(err))
		}
	}
	hdr.CRC32 = crc
	hdr.UncompressedSize64 = uint64(size)
	hdr.CompressedSize64 = uint64(csize)
	w, err := zw.CreateRaw(hdr)
	if err != nil {
		return z.fail(14, "write error (%s): %s", it.name, command.Strerror(err))
	}
	switch {
	case src != nil && hdr.Method == zip.Deflate:
		fw, _ := flate.NewWriter(w, max(z.level, 1))
		_, err = io.Copy(fw, ctxReader{ctx: z.ctx, r: src})
		if err == nil {
			err = fw.Close()
		}
	case src != nil:
		_, err = io.Copy(w, ctxReader{ctx: z.ctx, r: src})
	case comp != nil:
		_, err = w.Write(comp)
	default:
		_, err = w.Write(data)
	}
	if err != nil {
		return z.fail(14, "write error (%s): %s", it.name, command.Strerror(err))
	}
	if !z.quiet {
		how := "stored 0%"
		if hdr.Method == zip.Deflate {
			how = "deflated " + strconv.Itoa(zipPercent(size, csize)) + "%"
		}
		fmt.Fprintf(z.messages(), "%8s: %s (%s)\n", it.verb, it.name, how)
	}
	return 0
}

// zipPercent is Info-ZIP's reduction percentage, rounded half up.
func zipPercent(n, m int64) int {
	if n <= m {
		return 0
	}
	return int((1 + 200*(n-m)/n) / 2)
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}
