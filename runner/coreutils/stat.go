package coreutils

import (
	"context"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

const (
	statDefault = "  File: %N\n  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\n" +
		"Device: %Hd,%Ld\tInode: %-10i  Links: %h\n" +
		"Access: (%04a/%10.10A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\n" +
		"Access: %x\nModify: %y\nChange: %z\n Birth: %w\n"
	statDefaultDev = "  File: %N\n  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\n" +
		"Device: %Hd,%Ld\tInode: %-10i  Links: %-5h Device type: %Hr,%Lr\n" +
		"Access: (%04a/%10.10A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\n" +
		"Access: %x\nModify: %y\nChange: %z\n Birth: %w\n"
	statTerse = "%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %W %o\n"
)

var statSpec = getopt.Spec{
	Usage: []string{"[OPTION]... FILE..."},
	Options: []getopt.Option{
		{Short: 'L', Long: "dereference"}, {Short: 't', Long: "terse"},
		{Short: 'c', Long: "format", Arg: getopt.Required, ArgName: "FORMAT"},
		{Long: "printf", Arg: getopt.Required, ArgName: "FORMAT"}, {Short: 'f', Long: "file-system"},
	},
}

func runStat(ctx context.Context, env *command.Env) int {
	opts, files, code, ok := statSpec.Run(env)
	if !ok {
		return code
	}
	deref, terse := opts.Has("dereference"), opts.Has("terse")
	format, printf := "", false
	for _, o := range opts {
		switch o.Key {
		case "format":
			format, printf = o.Value+"\n", false
		case "printf":
			format, printf = o.Value, true
		}
	}
	if len(files) == 0 {
		return usageFail(env, 1, "missing operand")
	}
	if printf {
		format = unescapeC(format)
	}
	o := newOut(env)
	status := 0
	for _, name := range files {
		if done(ctx) {
			return o.finish(env, statusCanceled)
		}
		var fi fs.FileInfo
		var err error
		if deref {
			fi, err = env.FS.Stat(name)
		} else {
			fi, err = env.FS.Lstat(name)
		}
		if err != nil {
			o.Flush()
			env.Errorf("cannot statx %s: %s", quote(name), command.Strerror(err))
			status = 1
			continue
		}
		f := format
		def := false
		switch {
		case f != "":
		case terse:
			f = statTerse
		case fi.Mode()&fs.ModeDevice != 0:
			f, def = statDefaultDev, true
		default:
			f, def = statDefault, true
		}
		o.WriteString(statFormat(env, f, name, fi, def))
	}
	return o.finish(env, status)
}

// unescapeC interprets the backslash escapes of stat --printf.
func unescapeC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '\\':
			b.WriteByte('\\')
		case '"':
			b.WriteByte('"')
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n, j := 0, 0
			for j < 3 && i < len(s) && s[i] >= '0' && s[i] <= '7' {
				n = n*8 + int(s[i]-'0')
				i++
				j++
			}
			i--
			b.WriteByte(byte(n))
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// statTime is stat's time format.
func statTime(t time.Time) string {
	return strftime("%Y-%m-%d %H:%M:%S.%N %z", t.In(time.Local))
}

// statFormat expands stat's %-directives for one file.
func statFormat(env *command.Env, format, name string, fi fs.FileInfo, defaultFormat bool) string {
	st := statOf(fi)
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		ch := format[i]
		if ch != '%' {
			b.WriteByte(ch)
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-#0+ '", format[j]) >= 0 {
			j++
		}
		for j < len(format) && (format[j] >= '0' && format[j] <= '9' || format[j] == '.') {
			j++
		}
		spec := format[i+1 : j]
		if j >= len(format) {
			b.WriteString(format[i:])
			break
		}
		conv := format[j]
		if conv == 'H' || conv == 'L' {
			if j+1 < len(format) && (format[j+1] == 'd' || format[j+1] == 'r') {
				j++
				dev := st.dev
				if format[j] == 'r' {
					dev = st.rdev
				}
				n := dev>>8&0xfff | dev>>32&^0xfff // major
				if conv == 'L' {
					n = dev&0xff | dev>>12&^0xff // minor
				}
				b.WriteString(fmt.Sprintf("%"+spec+"d", n))
				i = j
				continue
			}
		}
		i = j
		var val string
		numeric := true
		switch conv {
		case '%':
			b.WriteByte('%')
			continue
		case 'n':
			val, numeric = name, false
		case 'N':
			numeric = false
			if defaultFormat {
				val = name
			} else {
				val = quote(name)
			}
			if fi.Mode()&fs.ModeSymlink != 0 {
				if t, err := env.FS.Readlink(name); err == nil {
					if defaultFormat {
						val += " -> " + t
					} else {
						val += " -> " + quote(t)
					}
				}
			}
		case 's':
			val = strconv.FormatInt(fi.Size(), 10)
		case 'b':
			val = strconv.FormatUint(st.blocks, 10)
		case 'B':
			val = "512"
		case 'o':
			val = strconv.FormatInt(st.blksize, 10)
		case 'F':
			val, numeric = fileTypeName(fi), false
		case 'a':
			val = strconv.FormatUint(uint64(unixMode(fi.Mode())), 8)
			if strings.Contains(spec, "#") {
				val = "0" + val
			}
		case 'A':
			val, numeric = modeString(fi.Mode()), false
		case 'f':
			val = strconv.FormatUint(uint64(rawMode(fi.Mode())), 16)
		case 'U':
			val, numeric = ownerName, false
		case 'G':
			val, numeric = groupName, false
		case 'u':
			val = strconv.FormatUint(uint64(st.uid), 10)
		case 'g':
			val = strconv.FormatUint(uint64(st.gid), 10)
		case 'i':
			val = strconv.FormatUint(st.ino, 10)
		case 'h':
			val = strconv.FormatUint(st.nlink, 10)
		case 'd':
			val = strconv.FormatUint(st.dev, 10)
		case 'D':
			val = strconv.FormatUint(st.dev, 16)
		case 't':
			val = strconv.FormatUint(st.rdev>>8&0xfff, 16)
		case 'T':
			val = strconv.FormatUint(st.rdev&0xff, 16)
		case 'x':
			val, numeric = statTime(st.atime), false
		case 'y':
			val, numeric = statTime(fi.ModTime()), false
		case 'z':
			val, numeric = statTime(st.ctime), false
		case 'w':
			val, numeric = "-", false
		case 'X':
			val = strconv.FormatInt(st.atime.Unix(), 10)
		case 'Y':
			val = strconv.FormatInt(fi.ModTime().Unix(), 10)
			if p := strings.IndexByte(spec, '.'); p >= 0 {
				digits, _ := strconv.Atoi(spec[p+1:])
				if digits == 0 {
					digits = 9
				}
				ns := fmt.Sprintf("%09d", fi.ModTime().Nanosecond())
				if digits < 9 {
					ns = ns[:digits]
				}
				val += "." + ns
				spec = spec[:p]
				numeric = false
			}
		case 'Z':
			val = strconv.FormatInt(st.ctime.Unix(), 10)
		case 'W':
			val = "0"
		case 'm':
			val, numeric = mountPoint(env, name), false
		case 'C':
			val, numeric = "?", false
		default:
			b.WriteString("?")
			continue
		}
		if numeric {
			if n, err := strconv.ParseInt(val, 10, 64); err == nil && conv != 'f' && conv != 'D' && conv != 't' && conv != 'T' && conv != 'a' {
				b.WriteString(fmt.Sprintf("%"+spec+"d", n))
				continue
			}
			if conv == 'a' && spec != "" {
				n, _ := strconv.ParseInt(val, 8, 64)
				b.WriteString(fmt.Sprintf("%"+strings.ReplaceAll(spec, "#", "")+"o", n))
				continue
			}
		}
		b.WriteString(fmt.Sprintf("%"+strings.TrimLeft(spec, "0#+ '")+"s", val))
	}
	return b.String()
}

// rawMode is st_mode as stat %f prints it.
func rawMode(m fs.FileMode) uint32 {
	u := unixMode(m)
	switch typeChar(m) {
	case 'd':
		u |= 0o040000
	case 'l':
		u |= 0o120000
	case 'p':
		u |= 0o010000
	case 's':
		u |= 0o140000
	case 'c':
		u |= 0o020000
	case 'b':
		u |= 0o060000
	default:
		u |= 0o100000
	}
	return u
}

// mountPoint is the agent directory a name lies in (stat %m).
func mountPoint(env *command.Env, name string) string {
	abs := env.FS.Abs(name)
	if abs == "/" {
		return "/"
	}
	first, _, _ := strings.Cut(abs[1:], "/")
	return "/" + first
}
