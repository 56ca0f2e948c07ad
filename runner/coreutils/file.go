package coreutils

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gabriel-vasile/mimetype"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

// fileSniffBytes is how much of a file `file` reads to classify it.
const fileSniffBytes = 64 << 10

type fileFlags struct {
	brief, mimeType, mimeEncoding, deref, noPad, nul bool
	sep, namesFrom                                   string
}

var fileSpec = getopt.Spec{
	Usage: []string{"[-bLhiN] [--mime-type] [--mime-encoding] [-F SEP] [-f NAMEFILE] FILE..."},
	Options: []getopt.Option{
		{Short: 'b', Long: "brief"}, {Short: 'i', Long: "mime"}, {Long: "mime-type"}, {Long: "mime-encoding"},
		{Short: 'L', Long: "dereference"}, {Short: 'h', Long: "no-dereference"}, {Short: 'N', Long: "no-pad"},
		{Short: '0', Long: "print0"}, {Short: 'F', Long: "separator", Arg: getopt.Required, ArgName: "SEP"},
		{Short: 'f', Long: "files-from", Arg: getopt.Required, ArgName: "NAMEFILE"}, {Short: 's', Long: "special-files"},
		{Short: 'E'}, {Short: 'z', Long: "uncompress"}, {Short: 'k', Long: "keep-going"},
	},
}

// runFile names the kind of each file from its content, as file(1) does
// for the common kinds (text and its encoding and line ends, scripts,
// JSON, HTML, XML, images with their sizes, archives, PDF …); other
// formats come from github.com/gabriel-vasile/mimetype, with its MIME
// type as the description. Symlinks are described, not followed, unless
// -L.
func runFile(ctx context.Context, env *command.Env) int {
	opts, names, code, ok := fileSpec.Run(env)
	if !ok {
		return code
	}
	mime := opts.Has("mime")
	f := fileFlags{brief: opts.Has("brief"), noPad: opts.Has("no-pad"), nul: opts.Has("print0"), sep: ":",
		mimeType: mime || opts.Has("mime-type"), mimeEncoding: mime || opts.Has("mime-encoding")}
	if sep, ok := opts.Value("separator"); ok {
		f.sep = sep
	}
	f.namesFrom, _ = opts.Value("files-from")
	for _, o := range opts {
		if o.Key == "dereference" || o.Key == "no-dereference" {
			f.deref = o.Key == "dereference"
		}
	}
	if f.namesFrom != "" {
		more, err := readNames(env, f.namesFrom)
		if err != nil {
			env.Errorf("cannot open `%s' (%s)", f.namesFrom, command.Strerror(err))
			return 1
		}
		names = append(names, more...)
	}
	if len(names) == 0 {
		fmt.Fprintln(env.Stderr, "Usage: file [-bcCdEhikLlNnprsSvzZ0] [--apple] [--extension] [--mime-encoding]\n            [--mime-type] [-e <testname>] [-F <separator>]  [-f <namefile>]\n            [-m <magicfiles>] [-P <parameter=value>] [--exclude-quiet]\n            <file> ...\n       file -C [-m <magicfiles>]\n       file [--help]")
		return 1
	}
	width := 0
	for _, n := range names {
		width = max(width, utf8.RuneCountInString(n)+len(f.sep))
	}
	o := newOut(env)
	for _, n := range names {
		if done(ctx) {
			return o.finish(env, statusCanceled)
		}
		desc := describeFile(env, n, f)
		switch {
		case f.brief:
			fmt.Fprintln(o, desc)
		case f.nul:
			fmt.Fprintf(o, "%s\x00 %s\n", n, desc)
		case f.noPad:
			fmt.Fprintf(o, "%s%s %s\n", n, f.sep, desc)
		default:
			label := n + f.sep
			fmt.Fprintf(o, "%s%s %s\n", label, strings.Repeat(" ", width-utf8.RuneCountInString(label)), desc)
		}
	}
	return o.finish(env, 0)
}

func readNames(env *command.Env, from string) ([]string, error) {
	var r io.Reader = env.Stdin
	if from != "-" {
		fh, err := env.FS.Open(from)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		r = fh
	}
	var names []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if sc.Text() != "" {
			names = append(names, sc.Text())
		}
	}
	return names, sc.Err()
}

// fileKind is one classification: the description and MIME type and
// encoding (charset) as file -i prints them.
type fileKind struct{ desc, mime, charset string }

func (k fileKind) format(f fileFlags) string {
	switch {
	case f.mimeType && f.mimeEncoding:
		return k.mime + "; charset=" + k.charset
	case f.mimeType:
		return k.mime
	case f.mimeEncoding:
		return k.charset
	}
	return k.desc
}

func describeFile(env *command.Env, name string, f fileFlags) string {
	fi, err := env.FS.Lstat(name)
	if err == nil && f.deref && fi.Mode()&fs.ModeSymlink != 0 {
		fi, err = env.FS.Stat(name)
	}
	if err != nil {
		return fmt.Sprintf("cannot open `%s' (%s)", name, command.Strerror(err))
	}
	m := fi.Mode()
	switch {
	case m&fs.ModeSymlink != 0:
		target, _ := env.FS.Readlink(name)
		k := fileKind{"symbolic link to " + target, "inode/symlink", "binary"}
		if _, err := env.FS.Stat(name); err != nil {
			k.desc = "broken symbolic link to " + target
		}
		return k.format(f)
	case m.IsDir():
		return fileKind{"directory", "inode/directory", "binary"}.format(f)
	case m&fs.ModeNamedPipe != 0:
		return fileKind{"fifo (named pipe)", "inode/fifo", "binary"}.format(f)
	case m&fs.ModeCharDevice != 0:
		return fileKind{"character special", "inode/chardevice", "binary"}.format(f)
	case m&fs.ModeDevice != 0:
		return fileKind{"block special", "inode/blockdevice", "binary"}.format(f)
	case m&fs.ModeSocket != 0:
		return fileKind{"socket", "inode/socket", "binary"}.format(f)
	case fi.Size() == 0:
		return fileKind{"empty", "inode/x-empty", "binary"}.format(f)
	}
	fh, err := env.FS.Open(name)
	if err != nil {
		return fmt.Sprintf("cannot open `%s' (%s)", name, command.Strerror(err))
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, fileSniffBytes))
	if err != nil {
		return fmt.Sprintf("cannot read `%s' (%s)", name, command.Strerror(err))
	}
	k := classifyContent(data, fi.Size() > int64(len(data)))
	if k.mime == "application/gzip" && fi.Size() >= 18 {
		// The trailer holds the uncompressed size modulo 2^32.
		var tail [4]byte
		if _, err := fh.ReadAt(tail[:], fi.Size()-4); err == nil {
			k.desc += fmt.Sprintf(", original size modulo 2^32 %d", binary.LittleEndian.Uint32(tail[:]))
		}
	}
	return k.format(f)
}

// classifyContent names content: binary formats first, then text.
func classifyContent(data []byte, truncated bool) fileKind {
	if k, ok := binaryKind(data); ok {
		return k
	}
	enc, charset, ok := textEncoding(data)
	if !ok {
		mt := mimetype.Detect(data)
		if mt.Is("application/octet-stream") {
			return fileKind{"data", "application/octet-stream", "binary"}
		}
		return fileKind{mimeDescription(mt), mt.String(), "binary"}
	}
	text := enc + " text"
	mime := "text/plain"
	kind := ""
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	switch {
	case bytes.HasPrefix(data, []byte("#!")):
		kind, mime = scriptKind(data)
		text += " executable"
	case json.Valid(data) && (trimmed[0] == '{' || trimmed[0] == '['):
		return fileKind{"JSON text data", "application/json", charset}
	case hasPrefixFold(trimmed, "<?xml"):
		version := "1.0"
		if i := bytes.Index(trimmed, []byte(`version="`)); i >= 0 && i < 40 {
			if j := bytes.IndexByte(trimmed[i+9:], '"'); j > 0 {
				version = string(trimmed[i+9 : i+9+j])
			}
		}
		kind, mime = "XML "+version+" document", "text/xml"
	case hasPrefixFold(trimmed, "<!doctype html") || hasPrefixFold(trimmed, "<html") || hasPrefixFold(trimmed, "<head") || hasPrefixFold(trimmed, "<body"):
		kind, mime = "HTML document", "text/html"
	case bytes.HasPrefix(data, []byte("#include")) || bytes.Contains(data, []byte("\n#include")):
		kind, mime = "C source", "text/x-c"
	}
	desc := text + lineNotes(data, truncated)
	if kind != "" {
		desc = kind + ", " + desc
	}
	return fileKind{desc, mime, charset}
}

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && strings.EqualFold(string(b[:len(prefix)]), prefix)
}

// textEncoding says whether data is text and in which encoding, as
// file's encoding tests do.
func textEncoding(data []byte) (desc, charset string, ok bool) {
	ascii, high, c1 := true, false, false
	for _, c := range data {
		switch {
		case c >= 0x80:
			ascii = false
			high = true
			if c < 0xa0 {
				c1 = true
			}
		case c < 0x20 && !strings.ContainsRune("\a\b\t\n\v\f\r\x1b", rune(c)), c == 0x7f:
			return "", "", false
		}
	}
	switch {
	case ascii:
		return "ASCII", "us-ascii", true
	case utf8.Valid(data) || validUTF8Prefix(data):
		if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
			return "Unicode text, UTF-8 (with BOM)", "utf-8", true
		}
		return "Unicode text, UTF-8", "utf-8", true
	case high && !c1:
		return "ISO-8859", "iso-8859-1", true
	}
	return "Non-ISO extended-ASCII", "unknown-8bit", true
}

// validUTF8Prefix accepts data cut inside its last character.
func validUTF8Prefix(data []byte) bool {
	for i := 1; i < utf8.UTFMax && i < len(data); i++ {
		if utf8.Valid(data[:len(data)-i]) && !utf8.FullRune(data[len(data)-i:]) {
			return true
		}
	}
	return false
}

// lineNotes are file's remarks on line ends and long lines.
func lineNotes(data []byte, truncated bool) string {
	var crlf, lf, cr, longest, cur int
	esc := bytes.IndexByte(data, 0x1b) >= 0
	over := bytes.IndexByte(data, '\b') >= 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '\r':
			if i+1 < len(data) && data[i+1] == '\n' {
				crlf++
				i++
			} else {
				cr++
			}
			longest, cur = max(longest, cur), 0
		case '\n':
			lf++
			longest, cur = max(longest, cur), 0
		default:
			cur++
		}
	}
	longest = max(longest, cur)
	var notes []string
	if longest > 300 {
		notes = append(notes, fmt.Sprintf("very long lines (%d)", longest))
	}
	var ends []string
	if crlf > 0 {
		ends = append(ends, "CRLF")
	}
	if cr > 0 {
		ends = append(ends, "CR")
	}
	if lf > 0 && len(ends) > 0 {
		ends = append(ends, "LF")
	}
	switch {
	case crlf+cr+lf == 0 && !truncated:
		notes = append(notes, "no line terminators")
	case len(ends) > 0:
		notes = append(notes, strings.Join(ends, ", ")+" line terminators")
	}
	if esc {
		notes = append(notes, "escape sequences")
	}
	if over {
		notes = append(notes, "overstriking")
	}
	if len(notes) == 0 {
		return ""
	}
	return ", with " + strings.Join(notes, ", with ")
}

// scriptKind names a #! script by its interpreter.
func scriptKind(data []byte) (desc, mime string) {
	line, _, _ := bytes.Cut(data[2:], []byte("\n"))
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return "a script", "text/plain"
	}
	interp := fields[0]
	if strings.HasSuffix(interp, "/env") && len(fields) > 1 {
		interp = fields[1]
	}
	base := interp[strings.LastIndexByte(interp, '/')+1:]
	switch {
	case base == "bash":
		return "Bourne-Again shell script", "text/x-shellscript"
	case base == "sh" || base == "dash":
		return "POSIX shell script", "text/x-shellscript"
	case base == "zsh":
		return "Paul Falstad's zsh script", "text/x-shellscript"
	case strings.HasPrefix(base, "python"):
		return "Python script", "text/x-script.python"
	case base == "node" || base == "nodejs":
		return "Node.js script", "application/javascript"
	case base == "ruby":
		return "Ruby script", "text/x-ruby"
	case base == "perl":
		return "Perl script", "text/x-perl"
	}
	return "a " + strings.Join(fields, " ") + " script", "text/plain"
}

// binaryKind recognises the binary formats file describes in detail.
func binaryKind(data []byte) (fileKind, bool) {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) && len(data) >= 29 && string(data[12:16]) == "IHDR":
		w, h := binary.BigEndian.Uint32(data[16:]), binary.BigEndian.Uint32(data[20:])
		depth, color, interlace := data[24], data[25], data[28]
		colors := map[byte]string{0: "grayscale", 2: "RGB", 3: "colormap", 4: "gray+alpha", 6: "RGBA"}[color]
		il := "non-interlaced"
		if interlace == 1 {
			il = "interlaced"
		}
		return fileKind{fmt.Sprintf("PNG image data, %d x %d, %d-bit/color %s, %s", w, h, depth, colors, il), "image/png", "binary"}, true
	case (bytes.HasPrefix(data, []byte("GIF87a")) || bytes.HasPrefix(data, []byte("GIF89a"))) && len(data) >= 10:
		w, h := binary.LittleEndian.Uint16(data[6:]), binary.LittleEndian.Uint16(data[8:])
		return fileKind{fmt.Sprintf("GIF image data, version %s, %d x %d", data[3:6], w, h), "image/gif", "binary"}, true
	case bytes.HasPrefix(data, []byte("%PDF-")) && len(data) >= 8:
		v, _, _ := bytes.Cut(data[5:], []byte("\n"))
		return fileKind{"PDF document, version " + strings.TrimSpace(string(v)), "application/pdf", "binary"}, true
	case bytes.HasPrefix(data, []byte("\x1f\x8b")):
		return fileKind{gzipDescription(data), "application/gzip", "binary"}, true
	case len(data) >= 263 && string(data[257:262]) == "ustar":
		desc := "POSIX tar archive"
		if string(data[257:265]) == "ustar  \x00" {
			desc += " (GNU)"
		}
		return fileKind{desc, "application/x-tar", "binary"}, true
	case bytes.HasPrefix(data, []byte("SQLite format 3\x00")) && len(data) >= 100:
		return fileKind{"SQLite 3.x database", "application/vnd.sqlite3", "binary"}, true
	case bytes.HasPrefix(data, []byte("PK\x03\x04")) && len(data) >= 30:
		if mt := mimetype.Detect(data); !mt.Is("application/zip") {
			return fileKind{mimeDescription(mt), mt.String(), "binary"}, true
		}
		return fileKind{"Zip archive data", "application/zip", "binary"}, true
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return fileKind{"JPEG image data", "image/jpeg", "binary"}, true
	}
	return fileKind{}, false
}

// gzipDescription reads a gzip header as file does (the time in UTC).
func gzipDescription(data []byte) string {
	desc := "gzip compressed data"
	if len(data) < 10 {
		return desc
	}
	flags := data[3]
	rest := data[10:]
	if flags&0x04 != 0 && len(rest) >= 2 { // FEXTRA
		n := int(binary.LittleEndian.Uint16(rest))
		rest = rest[min(len(rest), 2+n):]
	}
	if flags&0x08 != 0 { // FNAME
		if name, _, ok := bytes.Cut(rest, []byte{0}); ok {
			desc += fmt.Sprintf(", was %q", name)
		}
	}
	if mtime := binary.LittleEndian.Uint32(data[4:]); mtime != 0 {
		desc += ", last modified: " + time.Unix(int64(mtime), 0).UTC().Format("Mon Jan _2 15:04:05 2006")
	}
	switch data[8] {
	case 2:
		desc += ", max compression"
	case 4:
		desc += ", max speed"
	}
	if data[9] == 3 {
		desc += ", from Unix"
	}
	return desc
}

// mimeDescription describes a format file has no words for here: the
// kind mimetype names, with its MIME type.
func mimeDescription(mt *mimetype.MIME) string {
	ext := strings.TrimPrefix(mt.Extension(), ".")
	if ext == "" {
		return mt.String() + " data"
	}
	return strings.ToUpper(ext) + " data (" + mt.String() + ")"
}
