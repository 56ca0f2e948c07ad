package coreutils

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

type tarFlags struct {
	mode                               byte // 'c', 'x', 't'
	file                               string
	gzip, verbose, toStdout, keepOld   bool
	deref, noSameOwner, absoluteNames  bool
	dir                                string
	strip                              int
	excludes                           []string
	autoCompress, overwrite, touchTime bool
}

var tarSpec = getopt.Spec{
	Usage:       []string{"[OPTION...] [FILE]..."},
	Operands:    true,
	UsageStatus: 64,
	Fail: func(name string, w getopt.Writer, msg string) int {
		fmt.Fprintf(w, "%s: %s\nTry '%s --help' or '%s --usage' for more information.\n", name, msg, name, name)
		return 64
	},
	Options: []getopt.Option{
		{Short: 'c', Long: "create"}, {Short: 'x', Long: "extract"}, {Long: "get", Key: "extract"},
		{Short: 't', Long: "list"}, {Short: 'f', Long: "file", Arg: getopt.Required, ArgName: "ARCHIVE"},
		{Short: 'z', Long: "gzip"}, {Long: "gunzip", Key: "gzip"}, {Long: "ungzip", Key: "gzip"},
		{Short: 'a', Long: "auto-compress"}, {Short: 'v', Long: "verbose"}, {Short: 'O', Long: "to-stdout"},
		{Short: 'k', Long: "keep-old-files"}, {Long: "overwrite"}, {Short: 'h', Long: "dereference"},
		{Short: 'm', Long: "touch"}, {Short: 'P', Long: "absolute-names"}, {Long: "no-same-owner"},
		{Short: 'p', Long: "preserve-permissions"}, {Long: "same-owner"}, {Long: "no-same-permissions"},
		{Short: 'C', Long: "directory", Arg: getopt.Required, ArgName: "DIR"},
		{Long: "strip-components", Arg: getopt.Required, ArgName: "NUMBER"},
		{Long: "exclude", Arg: getopt.Required, ArgName: "PATTERN"}, {Short: 'j', Long: "bzip2"}, {Short: 'J', Long: "xz"},
	},
}

// expandOldTarArgs turns tar's old style ("tar cvf a.tar x") into dashed
// options, giving letters that take a value their values in order.
func expandOldTarArgs(args []string) []string {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return args
	}
	letters := args[0]
	rest := args[1:]
	var out []string
	for i := 0; i < len(letters); i++ {
		l := letters[i]
		out = append(out, "-"+string(l))
		if strings.IndexByte("fCT", l) >= 0 && len(rest) > 0 {
			out = append(out, rest[0])
			rest = rest[1:]
		}
	}
	return append(out, rest...)
}

func tarFail(env *command.Env, msg string) int {
	env.Errorf("%s", msg)
	fmt.Fprintf(env.Stderr, "Try '%s --help' or '%s --usage' for more information.\n", env.Name(), env.Name())
	return 2
}

func runTar(ctx context.Context, env *command.Env) int {
	var f tarFlags
	var modeErr string
	if a := env.Args[1:]; len(a) > 0 && !strings.HasPrefix(a[0], "-") {
		need := 0
		for _, l := range a[0] {
			if strings.ContainsRune("fCT", l) {
				need++
				if need > len(a)-1 {
					env.Errorf("Old option '%c' requires an argument.", l)
					fmt.Fprintf(env.Stderr, "Try '%s --help' or '%s --usage' for more information.\n", env.Name(), env.Name())
					return 2
				}
			}
		}
	}
	sub := *env
	sub.Args = append([]string{env.Args[0]}, expandOldTarArgs(env.Args[1:])...)
	opts, rest, code, ok := tarSpec.Run(&sub)
	if !ok {
		return code
	}
	var members, memberDirs []string // memberDirs: the -C in effect for each member
	for _, o := range opts {
		switch o.Key {
		case "":
			members, memberDirs = append(members, o.Value), append(memberDirs, f.dir)
		case "create", "extract", "list":
			m := map[string]byte{"create": 'c', "extract": 'x', "list": 't'}[o.Key]
			if f.mode != 0 && f.mode != m {
				modeErr = "You may not specify more than one '-Acdtrux', '--delete' or  '--test-label' option"
			}
			f.mode = m
		case "file":
			f.file = o.Value
		case "gzip":
			f.gzip = true
		case "auto-compress":
			f.autoCompress = true
		case "verbose":
			f.verbose = true
		case "to-stdout":
			f.toStdout = true
		case "keep-old-files":
			f.keepOld = true
		case "overwrite":
			f.overwrite = true
		case "dereference":
			f.deref = true
		case "touch":
			f.touchTime = true
		case "absolute-names":
			f.absoluteNames = true
		case "no-same-owner":
			f.noSameOwner = true
		case "directory":
			// Each -C is relative to the one before, as GNU's chdir.
			v := o.Value
			if f.dir != "" && !path.IsAbs(v) {
				v = joinPath(f.dir, v)
			}
			f.dir = v
		case "strip-components":
			n, err := strconv.Atoi(o.Value)
			if err != nil || n < 0 {
				return tarSpec.Usagef(env, "Invalid number of elements: %s", lquote(o.Value))
			}
			f.strip = n
		case "exclude":
			f.excludes = append(f.excludes, o.Value)
		case "bzip2":
			return tarSpec.Usagef(env, "bzip2 compression is not available in the runner; use -z")
		case "xz":
			return tarSpec.Usagef(env, "xz compression is not available in the runner; use -z")
		}
	}
	for _, m := range rest {
		members, memberDirs = append(members, m), append(memberDirs, f.dir)
	}
	if modeErr != "" {
		return tarFail(env, modeErr)
	}
	if f.mode == 0 {
		return tarFail(env, "You must specify one of the '-Acdtrux', '--delete' or '--test-label' options")
	}
	if f.file == "" {
		f.file = "-"
	}
	t := &tarrer{ctx: ctx, env: env, f: f, o: newOut(env), dirTimes: map[string]time.Time{}}
	switch f.mode {
	case 'c':
		if len(members) == 0 {
			env.Errorf("Cowardly refusing to create an empty archive")
			fmt.Fprintf(env.Stderr, "Try '%s --help' or '%s --usage' for more information.\n", env.Name(), env.Name())
			return 2
		}
		t.create(members, memberDirs)
	default:
		t.read(members)
	}
	if done(ctx) {
		return t.o.finish(env, statusCanceled)
	}
	if t.status != 0 && !t.fatal {
		t.o.Flush()
		env.Errorf("Exiting with failure status due to previous errors")
	}
	return t.o.finish(env, t.status)
}

type tarrer struct {
	ctx      context.Context
	env      *command.Env
	f        tarFlags
	o        *out
	status   int
	fatal    bool
	warned   map[string]bool
	dirTimes map[string]time.Time
}

func (t *tarrer) errorf(status int, format string, a ...any) {
	t.o.Flush()
	t.env.Errorf(format, a...)
	if status > t.status {
		t.status = status
	}
}

// warnOnce prints a warning once per run, as GNU's member name notices.
func (t *tarrer) warnOnce(msg string) {
	if t.warned == nil {
		t.warned = map[string]bool{}
	}
	if !t.warned[msg] {
		t.warned[msg] = true
		t.o.Flush()
		t.env.Errorf("%s", msg)
	}
}

// verboseOut is where -v names go: stderr when the archive is stdout.
func (t *tarrer) verboseOut() io.Writer {
	if t.f.mode == 'c' && t.f.file == "-" {
		return t.env.Stderr
	}
	return t.o
}

// at joins a name to the -C directory.
func (t *tarrer) at(name string) string {
	if t.f.dir == "" || path.IsAbs(name) {
		return name
	}
	return joinPath(t.f.dir, name)
}

// memberName strips what GNU tar strips from names it stores or extracts:
// leading "/" and leading "../" components.
func (t *tarrer) memberName(name string) string {
	if t.f.absoluteNames {
		return name
	}
	if strings.HasPrefix(name, "/") {
		t.warnOnce("Removing leading `/' from member names")
		name = strings.TrimLeft(name, "/")
	}
	// Everything up to the last ".." component goes, as GNU strips it.
	parts := strings.Split(name, "/")
	for i := len(parts) - 1; i >= 0; i-- {
		if parts[i] == ".." {
			prefix := strings.Join(parts[:i+1], "/") + "/"
			t.warnOnce("Removing leading `" + prefix + "' from member names")
			name = strings.Join(parts[i+1:], "/")
			break
		}
	}
	return name
}

func (t *tarrer) excluded(name string) bool {
	for _, p := range t.f.excludes {
		if fnmatch(p, baseName(name), false) || fnmatch(p, name, false) {
			return true
		}
	}
	return false
}

func (t *tarrer) create(members, dirs []string) {
	var w io.Writer
	if t.f.file == "-" {
		w = t.o
	} else {
		fh, err := t.env.FS.OpenFile(t.f.file, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			t.errorf(2, "%s: Cannot open: %s", t.f.file, command.Strerror(err))
			t.errorf(2, "Error is not recoverable: exiting now")
			t.fatal = true
			return
		}
		defer func() {
			if err := fh.Close(); err != nil {
				t.errorf(2, "%s: Cannot close: %s", t.f.file, command.Strerror(err))
			}
		}()
		bw := bufio.NewWriterSize(fh, 64<<10)
		defer bw.Flush()
		w = bw
	}
	useGzip := t.f.gzip || t.f.autoCompress && (strings.HasSuffix(t.f.file, ".gz") || strings.HasSuffix(t.f.file, ".tgz"))
	var gz *gzip.Writer
	if useGzip {
		gz = gzip.NewWriter(w)
		w = gz
	}
	tw := tar.NewWriter(w)
	links := map[[2]uint64]string{}
	archiveAbs := ""
	if t.f.file != "-" {
		archiveAbs = t.env.FS.Abs(t.f.file)
	}
	for i, m := range members {
		if done(t.ctx) {
			return
		}
		if i < len(dirs) {
			t.f.dir = dirs[i]
		}
		t.add(tw, m, t.memberName(m), true, links, archiveAbs)
	}
	if err := tw.Close(); err != nil {
		t.errorf(2, "%s: Cannot write: %s", t.f.file, command.Strerror(err))
	}
	if gz != nil {
		if err := gz.Close(); err != nil {
			t.errorf(2, "%s: Cannot write: %s", t.f.file, command.Strerror(err))
		}
	}
}

func (t *tarrer) add(tw *tar.Writer, src, name string, top bool, links map[[2]uint64]string, archiveAbs string) {
	if done(t.ctx) || t.o.failed() || t.excluded(name) {
		return
	}
	p := t.at(src)
	var fi fs.FileInfo
	var err error
	if t.f.deref {
		fi, err = t.env.FS.Stat(p)
	} else {
		fi, err = t.env.FS.Lstat(p)
	}
	if err != nil {
		t.errorf(2, "%s: Cannot stat: %s", src, command.Strerror(err))
		return
	}
	if archiveAbs != "" && t.env.FS.Abs(p) == archiveAbs {
		t.errorf(0, "%s: file is the archive; not dumped", src)
		return
	}
	link := ""
	if fi.Mode()&fs.ModeSymlink != 0 {
		link, _ = t.env.FS.Readlink(p)
	}
	hdr, err := tar.FileInfoHeader(fi, link)
	if err != nil {
		t.errorf(2, "%s: %s", src, err)
		return
	}
	hdr.Name = name
	hdr.Uname, hdr.Gname = ownerName, groupName
	hdr.ModTime = fi.ModTime().Truncate(time.Second)
	hdr.AccessTime, hdr.ChangeTime = time.Time{}, time.Time{}
	hdr.Format = tar.FormatGNU
	if fi.IsDir() && !strings.HasSuffix(hdr.Name, "/") {
		hdr.Name += "/"
	}
	st := statOf(fi)
	if fi.Mode().IsRegular() && st.nlink > 1 {
		key := [2]uint64{st.dev, st.ino}
		if first, ok := links[key]; ok {
			hdr.Typeflag, hdr.Linkname, hdr.Size = tar.TypeLink, first, 0
		} else {
			links[key] = name
		}
	}
	if t.f.verbose {
		fmt.Fprintln(t.verboseOut(), hdr.Name)
	}
	if err := tw.WriteHeader(hdr); err != nil {
		t.errorf(2, "%s: Cannot write: %s", src, err)
		return
	}
	if hdr.Typeflag == tar.TypeReg {
		fh, err := t.env.FS.Open(p)
		if err != nil {
			t.errorf(2, "%s: Cannot open: %s", src, command.Strerror(err))
			return
		}
		n, err := io.Copy(tw, ctxReader{t.ctx, fh})
		fh.Close()
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			t.errorf(2, "%s: Read error: %s", src, command.Strerror(err))
			// Pad the member so the archive stays readable.
			io.Copy(tw, io.LimitReader(zeroReader{}, hdr.Size-n))
		}
	}
	if fi.IsDir() {
		ents, err := t.env.FS.ReadDir(p)
		if err != nil {
			t.errorf(2, "%s: Cannot open: %s", src, command.Strerror(err))
			return
		}
		for _, e := range ents {
			t.add(tw, joinPath(src, e.Name()), joinPath(strings.TrimSuffix(name, "/"), e.Name()), false, links, archiveAbs)
		}
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// openArchive opens the archive for reading, undoing gzip when the data
// says so (as GNU tar detects compression on extraction).
func (t *tarrer) openArchive() (io.Reader, func(), bool) {
	var r io.Reader
	closeFn := func() {}
	if t.f.file == "-" {
		r = t.env.Stdin
		if r == nil {
			r = strings.NewReader("")
		}
	} else {
		fh, err := t.env.FS.Open(t.f.file)
		if err != nil {
			t.errorf(2, "%s: Cannot open: %s", t.f.file, command.Strerror(err))
			t.errorf(2, "Error is not recoverable: exiting now")
			t.fatal = true
			return nil, nil, false
		}
		r, closeFn = fh, func() { fh.Close() }
	}
	br := bufio.NewReaderSize(ctxReader{t.ctx, r}, 64<<10)
	magic, _ := br.Peek(2)
	if bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			closeFn()
			t.errorf(2, "This does not look like a tar archive")
			t.fatal = true
			return nil, nil, false
		}
		return &countingReader{r: gz}, closeFn, true
	}
	if t.f.gzip && len(magic) > 0 {
		closeFn()
		t.errorf(2, "gzip: stdin: not in gzip format")
		t.errorf(2, "Child returned status 1")
		t.errorf(2, "Error is not recoverable: exiting now")
		t.fatal = true
		return nil, nil, false
	}
	return &countingReader{r: br}, closeFn, true
}

// sawData reports whether the archive stream had any bytes at all (an
// empty stream is not an archive; a zero block is an empty one).
func sawData(r io.Reader) bool {
	if c, ok := r.(*countingReader); ok {
		return c.n > 0
	}
	return true
}

// countingReader counts the bytes of the archive stream.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// selected reports whether a member was asked for (or all when none were).
func selected(members []string, name string, used map[string]bool) bool {
	if len(members) == 0 {
		return true
	}
	clean := strings.TrimSuffix(name, "/")
	for _, m := range members {
		mc := strings.TrimSuffix(m, "/")
		if clean == mc || strings.HasPrefix(clean, mc+"/") || fnmatch(mc, clean, false) && strings.ContainsAny(mc, "*?[") {
			used[m] = true
			return true
		}
	}
	return false
}

func (t *tarrer) read(members []string) {
	r, closeFn, ok := t.openArchive()
	if !ok {
		return
	}
	defer closeFn()
	if t.f.mode == 'x' && t.f.dir != "" {
		if fi, err := t.env.FS.Stat(t.f.dir); err != nil || !fi.IsDir() {
			if err == nil {
				err = syscall.ENOTDIR
			}
			t.errorf(2, "%s: Cannot open: %s", t.f.dir, command.Strerror(err))
			t.errorf(2, "Error is not recoverable: exiting now")
			t.fatal = true
			return
		}
	}
	tr := tar.NewReader(r)
	used := map[string]bool{}
	type delayedLink struct{ target, name string }
	var symlinks []delayedLink
	count := 0
	for {
		if done(t.ctx) {
			return
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			if count == 0 && !sawData(r) {
				t.errorf(2, "This does not look like a tar archive")
			}
			break
		}
		if err != nil {
			if count == 0 {
				t.errorf(2, "This does not look like a tar archive")
			} else {
				t.errorf(2, "Unexpected EOF in archive")
				t.errorf(2, "Error is not recoverable: exiting now")
				t.fatal = true
			}
			return
		}
		count++
		name := hdr.Name
		if !selected(members, name, used) || t.excluded(name) {
			continue
		}
		if t.f.mode == 't' {
			t.memberName(name) // GNU warns about the names it would strip
			t.list(hdr)
			continue
		}
		name = t.memberName(name)
		if hasDotDot(hdr.Name) && !t.f.absoluteNames {
			t.errorf(2, "%s: Member name contains '..'", hdr.Name)
			continue
		}
		if t.f.strip > 0 {
			parts := strings.Split(strings.TrimSuffix(name, "/"), "/")
			if len(parts) <= t.f.strip {
				continue
			}
			name = strings.Join(parts[t.f.strip:], "/")
		}
		if name == "" || name == "." || name == "./" {
			if hdr.Typeflag != tar.TypeDir {
				continue
			}
		}
		if t.f.verbose {
			fmt.Fprintln(t.o, hdr.Name)
		}
		if t.f.toStdout {
			if hdr.Typeflag == tar.TypeReg {
				copyCtx(t.ctx, t.o, tr)
			}
			continue
		}
		dest := t.at(name)
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := t.env.FS.MkdirAll(dest, 0o777); err != nil {
				t.errorf(2, "%s: Cannot mkdir: %s", name, command.Strerror(err))
				continue
			}
			t.env.FS.Chmod(dest, goMode(uint32(hdr.Mode)&0o7777))
			t.dirTimes[dest] = hdr.ModTime
		case tar.TypeReg, tar.TypeChar, tar.TypeBlock, tar.TypeFifo, tar.TypeGNUSparse:
			if hdr.Typeflag != tar.TypeReg && hdr.Typeflag != tar.TypeGNUSparse {
				t.errorf(2, "%s: Cannot create special files in the runner", name)
				continue
			}
			if !t.prepare(dest, name) {
				continue
			}
			fh, err := t.env.FS.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_EXCL, 0o600)
			if err != nil {
				t.errorf(2, "%s: Cannot open: %s", name, command.Strerror(err))
				continue
			}
			_, err = io.Copy(fh, tr)
			fh.Close()
			if err != nil {
				if done(t.ctx) {
					return
				}
				t.errorf(2, "%s: Cannot write: %s", name, command.Strerror(err))
				continue
			}
			t.env.FS.Chmod(dest, goMode(uint32(hdr.Mode)&0o7777&^agentUmask|uint32(hdr.Mode)&0o700))
			if !t.f.touchTime {
				t.env.FS.Chtimes(dest, hdr.ModTime, hdr.ModTime)
			}
		case tar.TypeSymlink:
			if !t.prepare(dest, name) {
				continue
			}
			// Links are made last, so no member is written through one.
			symlinks = append(symlinks, delayedLink{hdr.Linkname, dest})
		case tar.TypeLink:
			if !t.prepare(dest, name) {
				continue
			}
			target := t.memberName(hdr.Linkname)
			if t.f.strip > 0 {
				parts := strings.Split(target, "/")
				if len(parts) <= t.f.strip {
					continue
				}
				target = strings.Join(parts[t.f.strip:], "/")
			}
			if hasDotDot(target) {
				t.errorf(2, "%s: Member name contains '..'", hdr.Linkname)
				continue
			}
			if err := t.env.FS.Link(t.at(target), dest); err != nil {
				t.errorf(2, "%s: Cannot hard link to %s: %s", name, quote(target), command.Strerror(err))
			}
		default:
			t.errorf(2, "%s: Unknown file type; file ignored", name)
		}
	}
	for _, l := range symlinks {
		if err := t.env.FS.Symlink(l.target, l.name); err != nil {
			t.errorf(2, "%s: Cannot create symlink to %s: %s", l.name, quote(l.target), command.Strerror(err))
		}
	}
	for d, mt := range t.dirTimes {
		if !t.f.touchTime {
			t.env.FS.Chtimes(d, mt, mt)
		}
	}
	for _, m := range members {
		if !used[m] {
			t.errorf(2, "%s: Not found in archive", m)
		}
	}
}

// prepare makes a member's parent folders and removes what is in its way,
// as GNU tar unlinks an existing file before extracting over it.
func (t *tarrer) prepare(dest, name string) bool {
	if dir := path.Dir(dest); dir != "." {
		if err := t.env.FS.MkdirAll(dir, 0o777); err != nil {
			t.errorf(2, "%s: Cannot mkdir: %s", name, command.Strerror(err))
			return false
		}
	}
	fi, err := t.env.FS.Lstat(dest)
	if err != nil {
		return true
	}
	if t.f.keepOld {
		t.errorf(2, "%s: Cannot open: File exists", name)
		return false
	}
	if fi.IsDir() {
		if err := t.env.FS.Remove(dest); err != nil {
			t.errorf(2, "%s: Cannot open: %s", name, command.Strerror(err))
			return false
		}
		return true
	}
	if err := t.env.FS.Remove(dest); err != nil {
		t.errorf(2, "%s: Cannot unlink: %s", name, command.Strerror(err))
		return false
	}
	return true
}

func hasDotDot(name string) bool {
	for _, c := range strings.Split(name, "/") {
		if c == ".." {
			return true
		}
	}
	return false
}

// list prints a member for -t (and -tv in GNU's long form).
func (t *tarrer) list(hdr *tar.Header) {
	if !t.f.verbose {
		fmt.Fprintln(t.o, hdr.Name)
		return
	}
	mode := fs.FileMode(hdr.Mode).Perm()
	if hdr.Mode&0o4000 != 0 {
		mode |= fs.ModeSetuid
	}
	if hdr.Mode&0o2000 != 0 {
		mode |= fs.ModeSetgid
	}
	if hdr.Mode&0o1000 != 0 {
		mode |= fs.ModeSticky
	}
	typ := byte('-')
	switch hdr.Typeflag {
	case tar.TypeDir:
		typ = 'd'
	case tar.TypeSymlink:
		typ = 'l'
	case tar.TypeLink:
		typ = 'h'
	case tar.TypeChar:
		typ = 'c'
	case tar.TypeBlock:
		typ = 'b'
	case tar.TypeFifo:
		typ = 'p'
	}
	owner := hdr.Uname
	if owner == "" {
		owner = strconv.Itoa(hdr.Uid)
	}
	group := hdr.Gname
	if group == "" {
		group = strconv.Itoa(hdr.Gid)
	}
	ug := owner + "/" + group
	size := strconv.FormatInt(hdr.Size, 10)
	width := 19 - len(ug)
	if width < len(size) {
		width = len(size)
	}
	name := hdr.Name
	switch hdr.Typeflag {
	case tar.TypeSymlink:
		name += " -> " + hdr.Linkname
	case tar.TypeLink:
		name += " link to " + hdr.Linkname
	}
	fmt.Fprintf(t.o, "%c%s %s %*s %s %s\n", typ, permString(unixMode(mode)), ug, width, size,
		strftime("%Y-%m-%d %H:%M", hdr.ModTime.In(time.Local)), name)
}
