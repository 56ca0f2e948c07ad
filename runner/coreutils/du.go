package coreutils

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

type duFlags struct {
	summarize, human, si, all, total, apparent, deref, nullEnd bool
	unit                                                       uint64
	maxDepth                                                   int
	excludes                                                   []string
}

var duSpec = getopt.Spec{Options: []getopt.Option{
	{Short: 's', Long: "summarize"}, {Short: 'h', Long: "human-readable"}, {Long: "si"}, {Short: 'a', Long: "all"},
	{Short: 'c', Long: "total"}, {Long: "apparent-size"}, {Short: 'b', Long: "bytes"}, {Short: 'k'}, {Short: 'm'},
	{Short: 'L', Long: "dereference"}, {Short: 'P', Long: "no-dereference"}, {Short: 'x', Long: "one-file-system"},
	{Short: '0', Long: "null"}, {Short: 'd', Long: "max-depth", Arg: getopt.Required, ArgName: "N"},
	{Long: "exclude", Arg: getopt.Required, ArgName: "PATTERN"},
	{Short: 'B', Long: "block-size", Arg: getopt.Required, ArgName: "SIZE"},
}}

func runDu(ctx context.Context, env *command.Env) int {
	opts, files, code, ok := duSpec.Run(env)
	if !ok {
		return code
	}
	f := duFlags{unit: 1024, maxDepth: math.MaxInt}
	for _, o := range opts {
		switch o.Key {
		case "summarize":
			f.summarize = true
		case "human-readable":
			f.human = true
		case "si":
			f.human, f.si = true, true
		case "all":
			f.all = true
		case "total":
			f.total = true
		case "apparent-size":
			f.apparent = true
		case "bytes":
			f.apparent, f.unit, f.human = true, 1, false
		case "k":
			f.unit, f.human = 1024, false
		case "m":
			f.unit, f.human = 1<<20, false
		case "dereference":
			f.deref = true
		case "no-dereference":
			f.deref = false
		case "null":
			f.nullEnd = true
		case "max-depth":
			n, err := strconv.Atoi(o.Value)
			if err != nil || n < 0 {
				return usageFail(env, 1, fmt.Sprintf("invalid maximum depth %s", lquote(o.Value)))
			}
			f.maxDepth = n
		case "exclude":
			f.excludes = append(f.excludes, o.Value)
		case "block-size":
			v := o.Value
			n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSuffix(v, "K"), "k"), 10, 64)
			if err != nil || n == 0 {
				return usageFail(env, 1, fmt.Sprintf("invalid -B argument %s", lquote(v)))
			}
			if strings.HasSuffix(strings.ToUpper(v), "K") {
				n *= 1024
			}
			f.unit = n
		}
	}
	if f.summarize {
		if f.maxDepth != math.MaxInt && f.maxDepth != 0 {
			env.Errorf("cannot both summarize and show all entries")
			return usageFail(env, 1, "")
		}
		f.maxDepth = 0
	}
	if f.summarize && f.all {
		env.Errorf("cannot both summarize and show all entries")
		return usageFail(env, 1, "")
	}
	if len(files) == 0 {
		files = []string{"."}
	}
	d := &duer{ctx: ctx, env: env, f: f, o: newOut(env), seen: map[[2]uint64]bool{}}
	var grand uint64
	for _, name := range files {
		if done(ctx) {
			break
		}
		var fi fs.FileInfo
		var err error
		if f.deref {
			fi, err = env.FS.Stat(name)
		} else {
			fi, err = env.FS.Lstat(name)
		}
		if err != nil {
			d.errorf("cannot access %s: %s", quote(name), command.Strerror(err))
			continue
		}
		grand += d.walk(name, fi, 0)
	}
	if f.total {
		d.line(grand, "total")
	}
	if done(ctx) {
		return d.o.finish(env, statusCanceled)
	}
	return d.o.finish(env, d.status)
}

type duer struct {
	ctx    context.Context
	env    *command.Env
	f      duFlags
	o      *out
	status int
	seen   map[[2]uint64]bool
}

func (d *duer) errorf(format string, a ...any) {
	d.o.Flush()
	d.env.Errorf(format, a...)
	d.status = 1
}

// size is what one file adds: bytes for --apparent-size, else disk usage.
func (d *duer) size(fi fs.FileInfo) uint64 {
	st := statOf(fi)
	if st.nlink > 1 && !fi.IsDir() && st.ino != 0 {
		key := [2]uint64{st.dev, st.ino}
		if d.seen[key] {
			return 0
		}
		d.seen[key] = true
	}
	if d.f.apparent {
		if fi.IsDir() && fi.Sys() == nil {
			return 0
		}
		return uint64(fi.Size())
	}
	return st.blocks * 512
}

func (d *duer) line(n uint64, name string) {
	var s string
	switch {
	case d.f.human:
		base := uint64(1024)
		if d.f.si {
			base = 1000
		}
		s = humanSize(n, 1, base)
		if n == 0 {
			s = "0"
		}
	default:
		s = strconv.FormatUint(ceilDiv(n, d.f.unit), 10)
	}
	end := "\n"
	if d.f.nullEnd {
		end = "\x00"
	}
	d.o.WriteString(s + "\t" + name + end)
}

func (d *duer) excluded(name string) bool {
	for _, p := range d.f.excludes {
		if fnmatch(p, baseName(name), false) || fnmatch(p, name, false) {
			return true
		}
	}
	return false
}

func (d *duer) walk(name string, fi fs.FileInfo, depth int) uint64 {
	if done(d.ctx) || d.o.failed() {
		return 0
	}
	total := d.size(fi)
	if fi.IsDir() {
		ents, err := d.env.FS.ReadDir(name)
		if err != nil {
			d.errorf("cannot read directory %s: %s", quote(name), command.Strerror(err))
		}
		for _, e := range ents {
			p := joinPath(name, e.Name())
			if d.excluded(p) {
				continue
			}
			var cfi fs.FileInfo
			var err error
			if d.f.deref {
				cfi, err = d.env.FS.Stat(p)
			} else {
				cfi, err = e.Info()
			}
			if err != nil {
				d.errorf("cannot access %s: %s", quote(p), command.Strerror(err))
				continue
			}
			total += d.walk(p, cfi, depth+1)
		}
	}
	if (fi.IsDir() || d.f.all || depth == 0) && depth <= d.f.maxDepth {
		d.line(total, name)
	}
	return total
}

type treeFlags struct {
	all, dirsOnly, fullPath, noReport, ascii, dirsFirst, classify, noIndent bool
	level                                                                   int
	ignore, include                                                         []string
}

var treeSpec = getopt.Spec{
	Usage: []string{"[-adfFi] [-L level] [-I pattern] [-P pattern] [--noreport] [--dirsfirst] [--charset=X] [DIRECTORY...]"},
	Options: []getopt.Option{
		{Short: 'a'}, {Short: 'd'}, {Short: 'f'}, {Short: 'F'}, {Short: 'i'}, {Long: "noreport"}, {Long: "dirsfirst"},
		{Short: 'L', Arg: getopt.Required, ArgName: "LEVEL"}, {Short: 'I', Arg: getopt.Required, ArgName: "PATTERN"},
		{Short: 'P', Arg: getopt.Required, ArgName: "PATTERN"}, {Long: "charset", Arg: getopt.Required, ArgName: "X"},
		{Short: 'n'}, {Short: 'N'}, {Short: 'C'}, {Short: 'l'},
	},
}

func runTree(ctx context.Context, env *command.Env) int {
	opts, dirs, code, ok := treeSpec.Run(env)
	if !ok {
		return code
	}
	f := treeFlags{all: opts.Has("a"), dirsOnly: opts.Has("d"), fullPath: opts.Has("f"), classify: opts.Has("F"),
		noIndent: opts.Has("i"), noReport: opts.Has("noreport"), dirsFirst: opts.Has("dirsfirst")}
	for _, o := range opts {
		switch o.Key {
		case "L":
			n, err := strconv.Atoi(o.Value)
			if err != nil || n < 1 {
				return usageFail(env, 1, "Invalid level, must be greater than 0.")
			}
			f.level = n
		case "I":
			f.ignore = append(f.ignore, strings.Split(o.Value, "|")...)
		case "P":
			f.include = append(f.include, strings.Split(o.Value, "|")...)
		case "charset":
			f.ascii = !strings.EqualFold(o.Value, "utf-8") && !strings.EqualFold(o.Value, "utf8")
		}
	}
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	t := &treer{ctx: ctx, env: env, f: f, o: newOut(env)}
	status := 0
	for _, d := range dirs {
		fi, err := env.FS.Stat(d)
		if err != nil || !fi.IsDir() {
			t.o.WriteString(d + "  [error opening dir]\n")
			status = 2
			continue
		}
		t.o.WriteString(d + "\n")
		t.list(d, "", 1)
	}
	if !f.noReport {
		dirWord, fileWord := "directories", "files"
		if t.dirs == 1 {
			dirWord = "directory"
		}
		if t.files == 1 {
			fileWord = "file"
		}
		if f.dirsOnly {
			fmt.Fprintf(t.o, "\n%d %s\n", t.dirs, dirWord)
		} else {
			fmt.Fprintf(t.o, "\n%d %s, %d %s\n", t.dirs, dirWord, t.files, fileWord)
		}
	}
	if done(ctx) {
		return t.o.finish(env, statusCanceled)
	}
	return t.o.finish(env, status)
}

type treer struct {
	ctx         context.Context
	env         *command.Env
	f           treeFlags
	o           *out
	dirs, files int
}

type treeEntry struct {
	name  string
	fi    fs.FileInfo
	isDir bool // a directory, or a link to one
}

func (t *treer) list(dir, prefix string, level int) {
	if done(t.ctx) || t.o.failed() {
		return
	}
	ents, err := t.env.FS.ReadDir(dir)
	if err != nil {
		return
	}
	var list []treeEntry
	for _, e := range ents {
		n := e.Name()
		if !t.f.all && strings.HasPrefix(n, ".") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		isDir := fi.IsDir()
		if fi.Mode()&fs.ModeSymlink != 0 {
			if tfi, err := t.env.FS.Stat(joinPath(dir, n)); err == nil && tfi.IsDir() {
				isDir = true
			}
		}
		if t.f.dirsOnly && !isDir {
			continue
		}
		if t.matchesAny(t.f.ignore, n) {
			continue
		}
		if len(t.f.include) > 0 && !isDir && !t.matchesAny(t.f.include, n) {
			continue
		}
		list = append(list, treeEntry{name: n, fi: fi, isDir: isDir})
	}
	if t.f.dirsFirst {
		var ds, fsl []treeEntry
		for _, e := range list {
			if e.isDir {
				ds = append(ds, e)
			} else {
				fsl = append(fsl, e)
			}
		}
		list = append(ds, fsl...)
	}
	branch, last, pipe, blank := "├── ", "└── ", "│   ", "    "
	if t.f.ascii {
		branch, last, pipe = "|-- ", "`-- ", "|   "
	}
	for i, e := range list {
		p := joinPath(dir, e.name)
		connector, next := branch, pipe
		if i == len(list)-1 {
			connector, next = last, blank
		}
		shown := e.name
		if t.f.fullPath {
			shown = p
		}
		if e.fi.Mode()&fs.ModeSymlink != 0 {
			if target, err := t.env.FS.Readlink(p); err == nil {
				shown += " -> " + target
			}
		}
		if t.f.classify {
			switch {
			case e.fi.IsDir():
				shown += "/"
			case e.fi.Mode()&fs.ModeSymlink != 0:
			case e.fi.Mode()&0o111 != 0:
				shown += "*"
			}
		}
		if t.f.noIndent {
			t.o.WriteString(shown + "\n")
		} else {
			t.o.WriteString(prefix + connector + shown + "\n")
		}
		if e.isDir {
			t.dirs++
			if e.fi.IsDir() && (t.f.level == 0 || level < t.f.level) {
				t.list(p, prefix+next, level+1)
			}
		} else {
			t.files++
		}
	}
}

func (t *treer) matchesAny(pats []string, name string) bool {
	for _, p := range pats {
		if fnmatch(p, name, false) {
			return true
		}
	}
	return false
}
