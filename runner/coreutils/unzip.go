package coreutils

import (
	"archive/zip"
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/wsfs/wsfs/runner/command"
)

var unzipOptions = []infozipOption{
	{letter: 'l', help: "list files (short format)"}, {letter: 'v', help: "list verbosely"},
	{letter: 't', help: "test compressed archive data"}, {letter: 'p', help: "extract files to pipe, no messages"},
	{letter: 'c', help: "extract files to stdout with names"}, {letter: 'o', help: "overwrite files without prompting"},
	{letter: 'n', help: "never overwrite existing files"}, {letter: 'q', help: "quiet mode (-qq: quieter)"},
	{letter: 'j', help: "junk paths"}, {letter: 'd', arg: "EXDIR", help: "extract files into exdir"},
	{letter: 'x', list: true, arg: "PATTERN...", help: "exclude files that follow"},
	{letter: 'Z', help: "zipinfo mode (-Z1: names only)"}, {letter: 'a', help: "auto-convert text files (accepted, no conversion)"},
	{letter: 'C', help: "match filenames case-insensitively"},
}

// maxUnzipBytes bounds what one unzip may expand, whatever the
// destination: the runner's guard against zip bombs (the workspace's
// quotas refuse a write to /workspace sooner).
const maxUnzipBytes = 256 << 20

// unzipper is one unzip run.
type unzipper struct {
	ctx     context.Context
	env     *command.Env
	mode    byte // 0 extract, 'l', 'v', 't', 'p', 'c', 'Z'
	zinfo1  bool // -Z1
	quiet   int
	over    byte // 'o', 'n', 0 (ask), 'A' (all, answered), 'N' (none, answered)
	junk    bool
	fold    bool
	exdir   string
	excl    []string
	answers *bufio.Reader
	status  int
	written int64
	archive string
	rawFile command.File
	rawSize int64
}

func (u *unzipper) setStatus(s int) {
	if s > u.status {
		u.status = s
	}
}

// runUnzip implements Info-ZIP's unzip 6.0: extract (-d -o -n -j -x, with
// its prompt before overwriting, answered from stdin), list (-l, -v, -Z,
// -Z1), test (-t), print (-p, -c). Names in the archive that climb out
// of the destination ("../", "/") are cut as Info-ZIP cuts them, and an
// archive that would expand past 256 MiB is refused before anything is
// written.
func runUnzip(ctx context.Context, env *command.Env) int {
	u := &unzipper{ctx: ctx, env: env}
	var operands []string
	args := env.Args[1:]
	versionOnly := true
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' {
			operands = append(operands, a)
			versionOnly = false
			continue
		}
		if a == "--" {
			operands = append(operands, args[i+1:]...)
			break
		}
		if strings.HasPrefix(a, "--") {
			if a == "--help" {
				fmt.Fprintln(env.Stdout, "Usage: unzip [-Z] [-opts[modifiers]] file[.zip] [list] [-x xlist] [-d exdir]\nSee the runner's `help unzip` for the supported options.")
				return 0
			}
			fmt.Fprintf(env.Stderr, "unzip:  error in command line: unknown option %s\n", a)
			return 10
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			switch c {
			case 'l', 't', 'p', 'c':
				u.mode = c
			case 'v':
				if u.mode == 0 {
					u.mode = 'v'
				}
			case 'Z':
				u.mode = 'Z'
				if j+1 < len(a) && a[j+1] == '1' {
					u.zinfo1 = true
					j++
				}
			case '1':
				u.zinfo1 = true
			case 'o', 'n':
				u.over = c
			case 'q':
				u.quiet++
			case 'j':
				u.junk = true
			case 'a':
			case 'C':
				u.fold = true
			case 'd':
				val := a[j+1:]
				if val == "" {
					if i+1 >= len(args) {
						fmt.Fprintf(env.Stderr, "error:  must specify directory to which to extract with -d option\n")
						return 10
					}
					i++
					val = args[i]
				}
				u.exdir = val
				j = len(a)
			case 'x':
				for i+1 < len(args) && !(len(args[i+1]) > 1 && args[i+1][0] == '-') {
					i++
					u.excl = append(u.excl, args[i])
				}
				j = len(a)
			case 'h':
				fmt.Fprintln(env.Stdout, "Usage: unzip [-Z] [-opts[modifiers]] file[.zip] [list] [-x xlist] [-d exdir]\nSee the runner's `help unzip` for the supported options.")
				return 0
			default:
				fmt.Fprintf(env.Stderr, "unzip:  error in command line: invalid option -%c\n", c)
				return 10
			}
		}
	}
	if len(operands) == 0 {
		if versionOnly && u.mode == 'v' {
			fmt.Fprintln(env.Stdout, "UnZip 6.00 (the wsfs runner's reimplementation of Info-ZIP's unzip).")
			return 0
		}
		fmt.Fprintln(env.Stdout, "Usage: unzip [-Z] [-opts[modifiers]] file[.zip] [list] [-x xlist] [-d exdir]")
		return 0
	}
	u.answers = bufio.NewReader(env.Stdin)
	return u.run(operands[0], operands[1:])
}

// open finds the archive as NAME, NAME.zip or NAME.ZIP.
func (u *unzipper) open(name string) (*zip.Reader, command.File, int64, string, int) {
	env := u.env
	for _, n := range []string{name, name + ".zip", name + ".ZIP"} {
		f, err := env.FS.Open(n)
		if err != nil {
			continue
		}
		fi, err := f.Stat()
		if err != nil || fi.IsDir() {
			f.Close()
			continue
		}
		zr, err := zip.NewReader(f, fi.Size())
		if err != nil {
			f.Close()
			fmt.Fprintf(env.Stderr, "  End-of-central-directory signature not found.  Either this file is not\n"+
				"  a zipfile, or it constitutes one disk of a multi-part archive.  In the\n"+
				"  latter case the central directory and zipfile comment will be found on\n"+
				"  the last disk(s) of this archive.\n"+
				"unzip:  cannot find zipfile directory in one of %s or\n        %s.zip, and cannot find %s.ZIP, period.\n", name, name, name)
			fmt.Fprintf(env.Stdout, "Archive:  %s\n", n)
			return nil, nil, 0, "", 9
		}
		return zr, f, fi.Size(), n, 0
	}
	fmt.Fprintf(env.Stderr, "unzip:  cannot find or open %s, %s.zip or %s.ZIP.\n", name, name, name)
	return nil, nil, 0, "", 9
}

func (u *unzipper) run(name string, patterns []string) int {
	env := u.env
	zr, f, size, archive, st := u.open(name)
	if st != 0 {
		return st
	}
	defer f.Close()
	u.archive, u.rawFile, u.rawSize = archive, f, size
	// Select the members.
	matched := make([]bool, len(patterns))
	var files []*zip.File
	for _, zf := range zr.File {
		if len(patterns) > 0 {
			in := false
			for i, p := range patterns {
				if fnmatch(p, zf.Name, u.fold) {
					in, matched[i] = true, true
				}
			}
			if !in {
				continue
			}
		}
		out := false
		for _, p := range u.excl {
			if fnmatch(p, zf.Name, u.fold) {
				out = true
			}
		}
		if !out {
			files = append(files, zf)
		}
	}
	if u.mode == 0 && u.exdir != "" {
		// Info-ZIP makes the destination first, whatever matches.
		if err := env.FS.MkdirAll(u.exdir, 0o777); err != nil {
			fmt.Fprintf(env.Stderr, "checkdir:  cannot create extraction directory: %s\n           %s\n", u.exdir, command.Strerror(err))
			return 3
		}
	}
	for i, p := range patterns {
		if !matched[i] {
			fmt.Fprintf(env.Stderr, "caution: filename not matched:  %s\n", p)
			u.setStatus(11)
		}
	}
	if len(patterns) > 0 && len(files) == 0 {
		if u.mode != 'p' && u.mode != 'Z' && u.quiet == 0 {
			fmt.Fprintf(env.Stdout, "Archive:  %s\n", archive)
		}
		return 11
	}
	out := bufio.NewWriter(env.Stdout)
	defer out.Flush()
	switch u.mode {
	case 'l':
		u.list(out, files, archive)
	case 'v':
		u.verbose(out, files, archive)
	case 'Z':
		u.zipinfo(out, files, archive, size)
	case 't':
		u.test(out, files, archive)
	default:
		// Extract, or print: the expanded size is bounded first.
		var total uint64
		for _, zf := range files {
			total += zf.UncompressedSize64
		}
		if total > maxUnzipBytes {
			out.Flush()
			fmt.Fprintf(env.Stderr, "unzip:  %s would expand to %d bytes, over the runner's limit of %d bytes for one unzip (a zip bomb?); extract fewer members: unzip %s NAME...\n",
				archive, total, maxUnzipBytes, archive)
			return 50
		}
		if u.mode != 'p' && u.quiet == 0 {
			fmt.Fprintf(out, "Archive:  %s\n", archive)
		}
		for _, zf := range files {
			if err := u.ctx.Err(); err != nil {
				return 80
			}
			if u.mode == 'p' || u.mode == 'c' {
				u.print(out, zf)
				continue
			}
			if !u.extract(out, zf) {
				break
			}
		}
	}
	return u.status
}

// memberDate is a member's modification time as unzip shows it: the
// extended timestamp (UTC) in local time, else the MS-DOS fields as they
// are.
func memberDate(zf *zip.File) time.Time {
	if hasExtendedTime(zf.Extra) {
		return zf.Modified.Local()
	}
	return zf.Modified
}

func hasExtendedTime(extra []byte) bool {
	for len(extra) >= 4 {
		tag := binary.LittleEndian.Uint16(extra)
		size := int(binary.LittleEndian.Uint16(extra[2:]))
		if tag == 0x5455 {
			return true
		}
		if 4+size > len(extra) {
			return false
		}
		extra = extra[4+size:]
	}
	return false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (u *unzipper) list(out *bufio.Writer, files []*zip.File, archive string) {
	if u.quiet == 0 {
		fmt.Fprintf(out, "Archive:  %s\n", archive)
	}
	if u.quiet < 2 {
		fmt.Fprintf(out, "  Length      Date    Time    Name\n---------  ---------- -----   ----\n")
	}
	var total uint64
	for _, zf := range files {
		t := memberDate(zf)
		fmt.Fprintf(out, "%9d  %s %s   %s\n", zf.UncompressedSize64, t.Format("2006-01-02"), t.Format("15:04"), zf.Name)
		total += zf.UncompressedSize64
	}
	if u.quiet < 2 {
		fmt.Fprintf(out, "---------                     -------\n%9d                     %d %s\n", total, len(files), plural(len(files), "file", "files"))
	}
}

// unzipRatio is unzip's compression ratio in percent, rounded.
func unzipRatio(usize, csize uint64) int {
	if usize == 0 {
		return 0
	}
	r := (1000*(int64(usize)-int64(csize))/int64(usize) + 5) / 10
	if int64(usize) < int64(csize) {
		r = (1000*(int64(usize)-int64(csize))/int64(usize) - 5) / 10
	}
	return int(r)
}

func methodName(zf *zip.File) string {
	switch zf.Method {
	case zip.Store:
		return "Stored"
	case zip.Deflate:
		return "Defl:" + string("NXFS"[zf.Flags>>1&3])
	}
	return fmt.Sprintf("Unk:%03d", zf.Method)
}

func (u *unzipper) verbose(out *bufio.Writer, files []*zip.File, archive string) {
	if u.quiet == 0 {
		fmt.Fprintf(out, "Archive:  %s\n", archive)
	}
	if u.quiet < 2 {
		fmt.Fprintf(out, " Length   Method    Size  Cmpr    Date    Time   CRC-32   Name\n--------  ------  ------- ---- ---------- ----- --------  ----\n")
	}
	var tu, tc uint64
	for _, zf := range files {
		t := memberDate(zf)
		fmt.Fprintf(out, "%8d  %-6s %8d %3d%% %s %s %08x  %s\n", zf.UncompressedSize64, methodName(zf), zf.CompressedSize64,
			unzipRatio(zf.UncompressedSize64, zf.CompressedSize64), t.Format("2006-01-02"), t.Format("15:04"), zf.CRC32, zf.Name)
		tu += zf.UncompressedSize64
		tc += zf.CompressedSize64
	}
	if u.quiet < 2 {
		fmt.Fprintf(out, "--------          -------  ---                            -------\n%8d         %8d %3d%%                            %d %s\n",
			tu, tc, unzipRatio(tu, tc), len(files), plural(len(files), "file", "files"))
	}
}

// zipinfo prints -Z's listing (or -Z1's names), reading the attributes
// archive/zip does not expose (version made by, internal attributes)
// from the central directory itself.
func (u *unzipper) zipinfo(out *bufio.Writer, files []*zip.File, archive string, size int64) {
	if u.zinfo1 {
		for _, zf := range files {
			fmt.Fprintln(out, zf.Name)
		}
		return
	}
	attrs := centralAttrs(u.rawFile, size)
	fmt.Fprintf(out, "Archive:  %s\nZip file size: %d bytes, number of entries: %d\n", archive, size, len(files))
	var tu, tc uint64
	for _, zf := range files {
		a := attrs[zf.Name]
		mode := zf.Mode()
		host := "unx"
		if zf.CreatorVersion>>8 == 0 {
			host = "fat"
		}
		kind := "b"
		if a.internal&1 != 0 {
			kind = "t"
		}
		ext := "-"
		if len(zf.Extra) > 0 {
			ext = "x"
		}
		if zf.Flags&8 != 0 {
			ext = "l"
			if len(zf.Extra) > 0 {
				ext = "X"
			}
		}
		meth := "stor"
		if zf.Method == zip.Deflate {
			meth = "def" + string("NXFS"[zf.Flags>>1&3])
		}
		t := memberDate(zf)
		fmt.Fprintf(out, "%s  %d.%d %s %8d %s%s %s %s %s %s\n", unixModeString(mode), (zf.CreatorVersion&0xff)/10,
			(zf.CreatorVersion&0xff)%10, host, zf.UncompressedSize64, kind, ext, meth,
			t.Format("06-Jan-02"), t.Format("15:04"), zf.Name)
		tu += zf.UncompressedSize64
		tc += zf.CompressedSize64
	}
	pct := 0.0
	if tu > 0 {
		pct = 100 * (float64(tu) - float64(tc)) / float64(tu)
	}
	fmt.Fprintf(out, "%d %s, %d bytes uncompressed, %d bytes compressed:  %.1f%%\n", len(files), plural(len(files), "file", "files"), tu, tc, pct)
}

// unixModeString renders a mode as ls does: drwxr-xr-x.
func unixModeString(m fs.FileMode) string {
	b := []byte("----------")
	switch {
	case m.IsDir():
		b[0] = 'd'
	case m&fs.ModeSymlink != 0:
		b[0] = 'l'
	}
	const rwx = "rwxrwxrwx"
	for i := 0; i < 9; i++ {
		if m&(1<<(8-i)) != 0 {
			b[1+i] = rwx[i]
		}
	}
	return string(b)
}

type centralAttr struct{ internal uint16 }

// centralAttrs reads each central directory header's internal attributes.
func centralAttrs(r io.ReaderAt, size int64) map[string]centralAttr {
	out := map[string]centralAttr{}
	tailLen := min(size, 65557)
	tail := make([]byte, tailLen)
	if _, err := r.ReadAt(tail, size-tailLen); err != nil && err != io.EOF {
		return out
	}
	i := strings.LastIndex(string(tail), "PK\x05\x06")
	if i < 0 || i+22 > len(tail) {
		return out
	}
	cdSize := int64(binary.LittleEndian.Uint32(tail[i+12:]))
	cdOff := int64(binary.LittleEndian.Uint32(tail[i+16:]))
	if cdOff+cdSize > size || cdSize > 64<<20 {
		return out
	}
	cd := make([]byte, cdSize)
	if _, err := r.ReadAt(cd, cdOff); err != nil && err != io.EOF {
		return out
	}
	for p := 0; p+46 <= len(cd) && string(cd[p:p+4]) == "PK\x01\x02"; {
		nl := int(binary.LittleEndian.Uint16(cd[p+28:]))
		el := int(binary.LittleEndian.Uint16(cd[p+30:]))
		cl := int(binary.LittleEndian.Uint16(cd[p+32:]))
		if p+46+nl > len(cd) {
			break
		}
		out[string(cd[p+46:p+46+nl])] = centralAttr{internal: binary.LittleEndian.Uint16(cd[p+36:])}
		p += 46 + nl + el + cl
	}
	return out
}

// test checks every member's data and CRC.
func (u *unzipper) test(out *bufio.Writer, files []*zip.File, archive string) {
	if u.quiet == 0 {
		fmt.Fprintf(out, "Archive:  %s\n", archive)
	}
	bad := 0
	for _, zf := range files {
		if u.ctx.Err() != nil {
			return
		}
		err := u.copyMember(io.Discard, zf, 1<<62)
		switch {
		case err == nil:
			if u.quiet == 0 {
				fmt.Fprintf(out, "    testing: %-22s   OK\n", zf.Name)
			}
		default:
			bad++
			fmt.Fprintf(out, "    testing: %-22s   %s\n", zf.Name, testError(err))
		}
	}
	switch {
	case bad > 0:
		fmt.Fprintf(out, "At least one error was detected in %s.\n", archive)
		u.setStatus(2)
	case u.quiet < 2:
		fmt.Fprintf(out, "No errors detected in compressed data of %s.\n", archive)
	}
}

func testError(err error) string {
	if errors.Is(err, zip.ErrChecksum) {
		return "bad CRC"
	}
	return "error: " + err.Error()
}

// copyMember writes a member's data to w, counting it against the
// runner's bound and stopping with the context.
func (u *unzipper) copyMember(w io.Writer, zf *zip.File, limit int64) error {
	rc, err := zf.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	n, err := io.Copy(w, ctxReader{ctx: u.ctx, r: io.LimitReader(rc, limit+1)})
	u.written += n
	if err == nil && n > limit {
		return fmt.Errorf("expands past the runner's limit of %d bytes", maxUnzipBytes)
	}
	return err
}

func (u *unzipper) print(out *bufio.Writer, zf *zip.File) {
	if strings.HasSuffix(zf.Name, "/") {
		return
	}
	if u.mode == 'c' && u.quiet == 0 {
		fmt.Fprintf(out, " extracting: %-22s  \n", zf.Name)
	}
	if err := u.copyMember(out, zf, maxUnzipBytes-u.written); err != nil {
		out.Flush()
		fmt.Fprintf(u.env.Stderr, "unzip: %s: %s\n", zf.Name, err)
		u.setStatus(2)
		return
	}
	if u.mode == 'c' {
		out.WriteString("\n")
	}
}

// safeName cuts what would climb out of the destination: a leading "/",
// and ".." components, as Info-ZIP does (with its warning).
func (u *unzipper) safeName(name string) string {
	n := name
	cut := false
	for strings.HasPrefix(n, "/") {
		n, cut = n[1:], true
	}
	var parts []string
	for _, p := range strings.Split(n, "/") {
		if p == ".." {
			cut = true
			continue
		}
		parts = append(parts, p)
	}
	n = strings.Join(parts, "/")
	if cut {
		fmt.Fprintf(u.env.Stderr, "warning:  skipped \"../\" path component(s) in %s\n", name)
	}
	return n
}

// extract writes one member; false stops the run (a [N]one answer was
// not given: that only skips; false is for fatal write errors).
func (u *unzipper) extract(out *bufio.Writer, zf *zip.File) bool {
	env := u.env
	name := u.safeName(zf.Name)
	isDir := strings.HasSuffix(zf.Name, "/")
	if u.junk {
		if isDir {
			return true
		}
		name = path.Base(name)
	}
	if name == "" || name == "." {
		return true
	}
	dest := name
	if u.exdir != "" {
		dest = path.Join(u.exdir, name)
		if isDir {
			dest += "/"
		}
	}
	if isDir {
		if _, err := env.FS.Stat(dest); err != nil {
			if u.quiet == 0 {
				fmt.Fprintf(out, "   creating: %s\n", dest)
			}
			if err := env.FS.MkdirAll(strings.TrimSuffix(dest, "/"), 0o777); err != nil {
				return u.writeFailed(out, dest, err)
			}
		}
		return true
	}
	if dir := path.Dir(dest); dir != "." {
		if err := env.FS.MkdirAll(dir, 0o777); err != nil {
			return u.writeFailed(out, dest, err)
		}
	}
	if _, err := env.FS.Lstat(dest); err == nil {
		switch u.over {
		case 'o', 'A':
		case 'n', 'N':
			return true
		default:
			out.Flush()
			fmt.Fprintf(env.Stderr, "replace %s? [y]es, [n]o, [A]ll, [N]one, [r]ename: ", dest)
			for {
				line, err := u.answers.ReadString('\n')
				ans := strings.TrimSpace(line)
				if err != nil && line == "" {
					fmt.Fprintf(env.Stderr, " NULL\n(EOF or read error, treating as \"[N]one\" ...)\n")
					u.over = 'N'
					u.setStatus(1)
					return true
				}
				switch {
				case strings.HasPrefix(ans, "y"):
				case strings.HasPrefix(ans, "A"):
					u.over = 'A'
				case strings.HasPrefix(ans, "n"):
					return true
				case strings.HasPrefix(ans, "N"):
					u.over = 'N'
					return true
				case strings.HasPrefix(ans, "r"):
					fmt.Fprintf(env.Stderr, "new name: ")
					nn, _ := u.answers.ReadString('\n')
					if nn = strings.TrimSpace(nn); nn == "" {
						u.setStatus(1)
						return true
					}
					dest = nn
				default:
					fmt.Fprintf(env.Stderr, "error:  invalid response [%s]\nreplace %s? [y]es, [n]o, [A]ll, [N]one, [r]ename: ", ans, dest)
					continue
				}
				break
			}
		}
	}
	verb := "inflating"
	if zf.Method == zip.Store {
		verb = "extracting"
	}
	if u.quiet == 0 {
		fmt.Fprintf(out, "%11s: %-22s  \n", verb, dest)
	}
	mode := zf.Mode()
	if mode&fs.ModeSymlink != 0 {
		var b strings.Builder
		if err := u.copyMember(&b, zf, 4096); err != nil {
			return u.writeFailed(out, dest, err)
		}
		env.FS.Remove(dest)
		if err := env.FS.Symlink(b.String(), dest); err != nil {
			return u.writeFailed(out, dest, err)
		}
		return true
	}
	perm := mode.Perm()
	if perm == 0 {
		perm = 0o644
	}
	f, err := env.FS.OpenFile(dest, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC, perm)
	if err != nil {
		return u.writeFailed(out, dest, err)
	}
	err = u.copyMember(f, zf, maxUnzipBytes-u.written)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if errors.Is(err, zip.ErrChecksum) || errors.Is(err, zip.ErrFormat) || errors.Is(err, io.ErrUnexpectedEOF) {
			out.Flush()
			fmt.Fprintf(env.Stderr, "%s:  bad CRC or damaged data (%s)\n", dest, err)
			u.setStatus(2)
			return true
		}
		return u.writeFailed(out, dest, err)
	}
	env.FS.Chmod(dest, perm)
	t := zf.Modified
	env.FS.Chtimes(dest, t, t)
	return true
}

// writeFailed reports a file that could not be written (a quota, a
// folder in the way) and stops: what follows would fail the same way.
func (u *unzipper) writeFailed(out *bufio.Writer, dest string, err error) bool {
	out.Flush()
	msg := command.Strerror(err)
	switch {
	case errors.Is(err, syscall.EFBIG):
		msg += " (the workspace's limit on one file's size)"
	case errors.Is(err, syscall.EDQUOT):
		msg += " (the workspace's quota, or the command's entry limit)"
	}
	fmt.Fprintf(u.env.Stderr, "error:  cannot create %s\n        %s\n", dest, msg)
	u.setStatus(50)
	return !errors.Is(err, syscall.EDQUOT) && !errors.Is(err, syscall.ENOSPC)
}
