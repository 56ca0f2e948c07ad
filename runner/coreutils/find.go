package coreutils

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/gnuregex"
)

// findVisit is one file met during the walk.
type findVisit struct {
	path  string // as printed: the start point joined with the names below
	start string
	depth int
	fi    fs.FileInfo // lstat, or stat when following links
	prune bool
}

// findNode is a node of find's expression.
type findNode interface {
	eval(f *finder, v *findVisit) bool
}

type (
	findAnd   struct{ l, r findNode }
	findOr    struct{ l, r findNode }
	findNot   struct{ x findNode }
	findComma struct{ l, r findNode }
	findPred  func(f *finder, v *findVisit) bool
)

func (n findAnd) eval(f *finder, v *findVisit) bool   { return n.l.eval(f, v) && n.r.eval(f, v) }
func (n findOr) eval(f *finder, v *findVisit) bool    { return n.l.eval(f, v) || n.r.eval(f, v) }
func (n findNot) eval(f *finder, v *findVisit) bool   { return !n.x.eval(f, v) }
func (n findComma) eval(f *finder, v *findVisit) bool { n.l.eval(f, v); return n.r.eval(f, v) }
func (p findPred) eval(f *finder, v *findVisit) bool  { return p(f, v) }

type finder struct {
	ctx    context.Context
	env    *command.Env
	o      *out
	now    time.Time
	status int
	quit   bool

	maxDepth, minDepth int
	depthFirst         bool
	follow             byte // 'P' (default), 'L', 'H'
	hasAction          bool
	regexType          string
	batches            []*execBatch

	// parsing state
	args []string
	pos  int
	last string // the last predicate parsed, for messages
}

type execBatch struct {
	argv  []string // with "{}" last, replaced by the files
	files []string
}

// errFind is a parse error, printed as "find: message".
type errFind string

func (e errFind) Error() string { return string(e) }

func runFind(ctx context.Context, env *command.Env) int {
	f := &finder{ctx: ctx, env: env, o: newOut(env), now: time.Now(), maxDepth: math.MaxInt, follow: 'P', regexType: "emacs"}
	args := env.Args[1:]
	i := 0
	for ; i < len(args); i++ {
		switch args[i] {
		case "-P", "-L", "-H":
			f.follow = args[i][1]
			continue
		case "-D", "-O":
			i++
			continue
		case "--help":
			fmt.Fprintln(env.Stdout, "Usage: find [-H] [-L] [-P] [path...] [expression]")
			return 0
		case "--version":
			fmt.Fprintln(env.Stdout, "find (wsfs runner)")
			return 0
		}
		break
	}
	var starts []string
	for ; i < len(args); i++ {
		a := args[i]
		if (strings.HasPrefix(a, "-") && a != "-") || a == "(" || a == "!" || a == ")" || a == "," {
			break
		}
		starts = append(starts, a)
	}
	f.args = args[i:]
	var expr findNode
	if len(f.args) > 0 {
		var err error
		expr, err = f.parseComma()
		if err == nil && f.pos < len(f.args) {
			a := f.args[f.pos]
			if a == ")" {
				err = errFind("invalid expression; you have too many ')'")
			} else {
				err = errFind(fmt.Sprintf("paths must precede expression: `%s'", a))
				if f.last != "" {
					err = errFind(fmt.Sprintf("paths must precede expression: `%s'\nfind: possible unquoted pattern after predicate `%s'?", a, f.last))
				}
			}
		}
		if err != nil {
			env.Errorf("%s", err.Error())
			return 1
		}
	}
	if expr == nil {
		expr = findPred(func(*finder, *findVisit) bool { return true })
	}
	if !f.hasAction {
		expr = findAnd{expr, findPred(printPred("\n"))}
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	for _, s := range starts {
		if f.quit || done(ctx) || f.o.failed() {
			break
		}
		f.walkStart(s, expr)
	}
	for _, b := range f.batches {
		f.flushBatch(b)
	}
	if done(ctx) {
		return f.o.finish(env, statusCanceled)
	}
	return f.o.finish(env, f.status)
}

func (f *finder) errorf(format string, a ...any) {
	f.o.Flush()
	f.env.Errorf(format, a...)
	f.status = 1
}

func (f *finder) walkStart(start string, expr findNode) {
	var fi fs.FileInfo
	var err error
	if f.follow != 'P' {
		fi, err = f.env.FS.Stat(start)
		if err != nil {
			fi, err = f.env.FS.Lstat(start)
		}
	} else {
		fi, err = f.env.FS.Lstat(start)
	}
	if err != nil {
		f.errorf("%s: %s", lquote(start), command.Strerror(err))
		return
	}
	f.walk(&findVisit{path: start, start: start, fi: fi}, expr, map[string]bool{})
}

func (f *finder) walk(v *findVisit, expr findNode, ancestors map[string]bool) {
	if f.quit || done(f.ctx) || f.o.failed() {
		return
	}
	if !f.depthFirst && v.depth >= f.minDepth {
		expr.eval(f, v)
	}
	if v.fi.IsDir() && !v.prune && v.depth < f.maxDepth && !f.quit {
		key := ""
		if f.follow == 'L' {
			key, _ = canonicalize(f.env.FS, v.path, canonAll)
			if ancestors[key] {
				f.errorf("File system loop detected; %s is part of the same file system loop as %s.", lquote(v.path), lquote(v.path))
				return
			}
			ancestors[key] = true
			defer delete(ancestors, key)
		}
		ents, err := f.env.FS.ReadDir(v.path)
		if err != nil {
			f.errorf("%s: %s", lquote(v.path), command.Strerror(err))
		}
		for _, e := range ents {
			if f.quit || done(f.ctx) {
				return
			}
			p := joinPath(v.path, e.Name())
			var fi fs.FileInfo
			var err error
			if f.follow == 'L' {
				fi, err = f.env.FS.Stat(p)
				if err != nil {
					fi, err = f.env.FS.Lstat(p)
				}
			} else {
				fi, err = e.Info()
			}
			if err != nil {
				f.errorf("%s: %s", lquote(p), command.Strerror(err))
				continue
			}
			f.walk(&findVisit{path: p, start: v.start, depth: v.depth + 1, fi: fi}, expr, ancestors)
		}
	}
	if f.depthFirst && v.depth >= f.minDepth && !f.quit {
		expr.eval(f, v)
	}
}

// --- parsing ---

func (f *finder) peek() string {
	if f.pos < len(f.args) {
		return f.args[f.pos]
	}
	return ""
}

func (f *finder) parseComma() (findNode, error) {
	l, err := f.parseOr()
	if err != nil {
		return nil, err
	}
	for f.peek() == "," {
		f.pos++
		r, err := f.parseOr()
		if err != nil {
			return nil, err
		}
		l = findComma{l, r}
	}
	return l, nil
}

func (f *finder) parseOr() (findNode, error) {
	l, err := f.parseAnd()
	if err != nil {
		return nil, err
	}
	for f.peek() == "-o" || f.peek() == "-or" {
		op := f.peek()
		f.pos++
		if f.pos >= len(f.args) || f.peek() == ")" {
			return nil, errFind(fmt.Sprintf("expected an expression after '%s'", op))
		}
		r, err := f.parseAnd()
		if err != nil {
			return nil, err
		}
		l = findOr{l, r}
	}
	return l, nil
}

func (f *finder) parseAnd() (findNode, error) {
	l, err := f.parseUnary()
	if err != nil {
		return nil, err
	}
	for {
		switch p := f.peek(); p {
		case "", ")", "-o", "-or", ",":
			return l, nil
		case "-a", "-and":
			f.pos++
			if f.pos >= len(f.args) {
				return nil, errFind(fmt.Sprintf("expected an expression after '%s'", p))
			}
		}
		r, err := f.parseUnary()
		if err != nil {
			return nil, err
		}
		l = findAnd{l, r}
	}
}

func (f *finder) parseUnary() (findNode, error) {
	switch p := f.peek(); p {
	case "!", "-not":
		f.pos++
		if f.pos >= len(f.args) {
			return nil, errFind(fmt.Sprintf("expected an expression after '%s'", p))
		}
		x, err := f.parseUnary()
		if err != nil {
			return nil, err
		}
		return findNot{x}, nil
	case "(":
		f.pos++
		if f.peek() == ")" {
			return nil, errFind("invalid expression; empty parentheses are not allowed.")
		}
		x, err := f.parseComma()
		if err != nil {
			return nil, err
		}
		if f.peek() != ")" {
			return nil, errFind("invalid expression; I was expecting to find a ')' somewhere but did not see one.")
		}
		f.pos++
		return x, nil
	case "":
		return nil, errFind("invalid expression")
	}
	return f.parsePrimary()
}

func (f *finder) arg(pred string) (string, error) {
	if f.pos >= len(f.args) {
		return "", errFind(fmt.Sprintf("missing argument to `%s'", pred))
	}
	a := f.args[f.pos]
	f.pos++
	return a, nil
}

var alwaysTrue = findPred(func(*finder, *findVisit) bool { return true })

// numCmp parses find's [+-]N and returns a comparison on a value.
func numCmp(s string) (func(n int64) bool, int64, bool) {
	sign := byte(0)
	if s != "" && (s[0] == '+' || s[0] == '-') {
		sign, s = s[0], s[1:]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return nil, 0, false
	}
	switch sign {
	case '+':
		return func(v int64) bool { return v > n }, n, true
	case '-':
		return func(v int64) bool { return v < n }, n, true
	}
	return func(v int64) bool { return v == n }, n, true
}

func (f *finder) parsePrimary() (findNode, error) {
	pred := f.args[f.pos]
	f.pos++
	f.last = pred
	switch pred {
	case "-maxdepth", "-mindepth":
		a, err := f.arg(pred)
		if err != nil {
			return nil, err
		}
		n, err2 := strconv.Atoi(a)
		if err2 != nil || n < 0 {
			return nil, errFind(fmt.Sprintf("Expected a positive decimal integer argument to %s, but got %s", pred, lquote(a)))
		}
		if pred == "-maxdepth" {
			f.maxDepth = n
		} else {
			f.minDepth = n
		}
		return alwaysTrue, nil
	case "-depth", "-d":
		f.depthFirst = true
		return alwaysTrue, nil
	case "-follow":
		f.follow = 'L'
		return alwaysTrue, nil
	case "-xdev", "-mount", "-noleaf", "-ignore_readdir_race", "-noignore_readdir_race", "-nowarn", "-warn", "-daystart":
		return alwaysTrue, nil
	case "-regextype":
		a, err := f.arg(pred)
		if err != nil {
			return nil, err
		}
		if _, ok := gnuregex.FindSyntax(a); !ok {
			return nil, errFind(fmt.Sprintf("Unknown regular expression type %s; valid types are %s.", lquote(a), findRegexTypes()))
		}
		f.regexType = a
		return alwaysTrue, nil
	case "-true":
		return alwaysTrue, nil
	case "-false":
		return findPred(func(*finder, *findVisit) bool { return false }), nil
	case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-lname", "-ilname":
		pat, err := f.arg(pred)
		if err != nil {
			return nil, err
		}
		fold := strings.HasPrefix(pred, "-i")
		switch strings.TrimPrefix(strings.TrimPrefix(pred, "-"), "i") {
		case "name":
			return findPred(func(_ *finder, v *findVisit) bool { return fnmatch(pat, findBase(v.path), fold) }), nil
		case "lname":
			return findPred(func(f *finder, v *findVisit) bool {
				if v.fi.Mode()&fs.ModeSymlink == 0 {
					return false
				}
				t, err := f.env.FS.Readlink(v.path)
				return err == nil && fnmatch(pat, t, fold)
			}), nil
		}
		return findPred(func(_ *finder, v *findVisit) bool { return fnmatch(pat, v.path, fold) }), nil
	case "-regex", "-iregex":
		pat, err := f.arg(pred)
		if err != nil {
			return nil, err
		}
		re, rerr := compileFindRegex(pat, f.regexType, pred == "-iregex")
		if rerr != nil {
			return nil, errFind(fmt.Sprintf("failed to compile regular expression '%s': %v", pat, rerr))
		}
		return findPred(func(f *finder, v *findVisit) bool {
			ok, err := re.MatchString(f.ctx, v.path)
			if err != nil && f.ctx.Err() == nil {
				f.errorf("%s: %v", v.path, err)
			}
			return ok
		}), nil
	case "-type", "-xtype":
		a, err := f.arg(pred)
		if err != nil {
			return nil, err
		}
		types := strings.Split(a, ",")
		for _, t := range types {
			if len(t) != 1 || !strings.Contains("fdlpsbcD", t) {
				if t == "" {
					return nil, errFind(fmt.Sprintf("Arguments to %s should contain at least one letter", pred))
				}
				return nil, errFind(fmt.Sprintf("Unknown argument to %s: %s", pred, t))
			}
		}
		xtype := pred == "-xtype"
		return findPred(func(f *finder, v *findVisit) bool {
			fi := v.fi
			if xtype != (f.follow == 'L') && fi.Mode()&fs.ModeSymlink != 0 {
				if t, err := f.env.FS.Stat(v.path); err == nil {
					fi = t
				}
			} else if xtype && f.follow == 'L' {
				if t, err := f.env.FS.Lstat(v.path); err == nil {
					fi = t
				}
			}
			c := string(typeChar(fi.Mode()))
			if c == "-" {
				c = "f"
			}
			for _, t := range types {
				if t == c {
					return true
				}
			}
			return false
		}), nil
	case "-size":
		a, err := f.arg(pred)
		if err != nil {
			return nil, err
		}
		unit := int64(512)
		num := a
		if n := len(a); n > 0 {
			switch a[n-1] {
			case 'c':
				unit, num = 1, a[:n-1]
			case 'w':
				unit, num = 2, a[:n-1]
			case 'b':
				unit, num = 512, a[:n-1]
			case 'k':
				unit, num = 1024, a[:n-1]
			case 'M':
				unit, num = 1<<20, a[:n-1]
			case 'G':
				unit, num = 1<<30, a[:n-1]
			}
		}
		cmp, _, ok := numCmp(num)
		if !ok {
			return nil, errFind(fmt.Sprintf("invalid -size type %s", lquote(a)))
		}
		return findPred(func(_ *finder, v *findVisit) bool {
			size := v.fi.Size()
			return cmp((size + unit - 1) / unit)
		}), nil
	case "-mtime", "-atime", "-ctime", "-mmin", "-amin", "-cmin":
		a, err := f.arg(pred)
		if err != nil {
			return nil, err
		}
		cmp, _, ok := numCmp(a)
		if !ok {
			return nil, errFind(fmt.Sprintf("invalid argument %s to %s", lquote(a), lquote(pred)))
		}
		unit := 24 * time.Hour
		if strings.HasSuffix(pred, "min") {
			unit = time.Minute
		}
		which := pred[1]
		return findPred(func(f *finder, v *findVisit) bool {
			t := fileTime(v.fi, which)
			age := f.now.Sub(t)
			n := int64(math.Floor(float64(age) / float64(unit)))
			if unit == time.Minute {
				n = int64(math.Ceil(float64(age) / float64(unit)))
			}
			return cmp(n)
		}), nil
	case "-newer", "-anewer", "-cnewer":
		a, err := f.arg(pred)
		if err != nil {
			return nil, err
		}
		rfi, serr := f.env.FS.Stat(a)
		if serr != nil {
			return nil, errFind(fmt.Sprintf("%s: %s", lquote(a), command.Strerror(serr)))
		}
		ref := rfi.ModTime()
		which := byte('m')
		if pred != "-newer" {
			which = pred[1]
		}
		return findPred(func(_ *finder, v *findVisit) bool { return fileTime(v.fi, which).After(ref) }), nil
	case "-empty":
		return findPred(func(f *finder, v *findVisit) bool {
			switch {
			case v.fi.Mode().IsRegular():
				return v.fi.Size() == 0
			case v.fi.IsDir():
				ents, err := f.env.FS.ReadDir(v.path)
				return err == nil && len(ents) == 0
			}
			return false
		}), nil
	case "-perm":
		a, err := f.arg(pred)
		if err != nil {
			return nil, err
		}
		kind := byte(0)
		spec := a
		if spec != "" && (spec[0] == '-' || spec[0] == '/') {
			kind, spec = spec[0], spec[1:]
		}
		want, ok := applyMode(spec, 0, false)
		if !ok {
			return nil, errFind(fmt.Sprintf("invalid mode %s", lquote(a)))
		}
		return findPred(func(_ *finder, v *findVisit) bool {
			m := unixMode(v.fi.Mode())
			switch kind {
			case '-':
				return m&want == want
			case '/':
				return want == 0 || m&want != 0
			}
			return m == want
		}), nil
	case "-links", "-inum", "-uid", "-gid":
		a, err := f.arg(pred)
		if err != nil {
			return nil, err
		}
		cmp, _, ok := numCmp(a)
		if !ok {
			return nil, errFind(fmt.Sprintf("invalid argument %s to %s", lquote(a), lquote(pred)))
		}
		return findPred(func(_ *finder, v *findVisit) bool {
			st := statOf(v.fi)
			switch pred {
			case "-links":
				return cmp(int64(st.nlink))
			case "-inum":
				return cmp(int64(st.ino))
			case "-uid":
				return cmp(int64(st.uid))
			}
			return cmp(int64(st.gid))
		}), nil
	case "-user", "-group":
		a, err := f.arg(pred)
		if err != nil {
			return nil, err
		}
		return findPred(func(*finder, *findVisit) bool { return a == ownerName }), nil
	case "-nouser", "-nogroup":
		return findPred(func(*finder, *findVisit) bool { return false }), nil
	case "-readable", "-writable", "-executable":
		bit := map[string]uint32{"-readable": 0o400, "-writable": 0o200, "-executable": 0o100}[pred]
		return findPred(func(_ *finder, v *findVisit) bool { return unixMode(v.fi.Mode())&bit != 0 }), nil
	case "-samefile":
		a, err := f.arg(pred)
		if err != nil {
			return nil, err
		}
		rfi, serr := f.env.FS.Lstat(a)
		if serr != nil {
			return nil, errFind(fmt.Sprintf("%s: %s", lquote(a), command.Strerror(serr)))
		}
		return findPred(func(_ *finder, v *findVisit) bool { return os.SameFile(rfi, v.fi) }), nil
	case "-newermt", "-newerat", "-newerct":
		a, err := f.arg(pred)
		if err != nil {
			return nil, err
		}
		ref, perr := parseDate(a, f.now, time.Local)
		if perr != nil {
			return nil, errFind(fmt.Sprintf("I cannot figure out how to interpret %s as a date or time", lquote(a)))
		}
		which := pred[6]
		return findPred(func(_ *finder, v *findVisit) bool { return fileTime(v.fi, which).After(ref) }), nil
	case "-prune":
		return findPred(func(_ *finder, v *findVisit) bool { v.prune = true; return true }), nil
	case "-quit":
		f.hasAction = true
		return findPred(func(f *finder, _ *findVisit) bool { f.quit = true; return true }), nil
	case "-print":
		f.hasAction = true
		return findPred(printPred("\n")), nil
	case "-print0":
		f.hasAction = true
		return findPred(printPred("\x00")), nil
	case "-printf":
		f.hasAction = true
		a, err := f.arg(pred)
		if err != nil {
			return nil, err
		}
		return findPred(func(f *finder, v *findVisit) bool { f.o.WriteString(f.printf(a, v)); return true }), nil
	case "-ls":
		f.hasAction = true
		return findPred(func(f *finder, v *findVisit) bool { f.o.WriteString(f.lsLine(v)); return true }), nil
	case "-delete":
		f.hasAction = true
		f.depthFirst = true
		return findPred(func(f *finder, v *findVisit) bool {
			if v.path == "." {
				return true
			}
			if err := f.env.FS.Remove(v.path); err != nil {
				f.errorf("cannot delete %s: %s", lquote(v.path), command.Strerror(err))
				return false
			}
			return true
		}), nil
	case "-exec", "-ok", "-execdir", "-okdir":
		f.hasAction = true
		var argv []string
		for {
			if f.pos >= len(f.args) {
				return nil, errFind(fmt.Sprintf("missing argument to `%s'", pred))
			}
			a := f.args[f.pos]
			f.pos++
			if a == ";" {
				break
			}
			if a == "+" && len(argv) > 0 && argv[len(argv)-1] == "{}" {
				if pred != "-exec" {
					return nil, errFind(fmt.Sprintf("%s ... + is not supported in the runner", pred))
				}
				b := &execBatch{argv: argv}
				f.batches = append(f.batches, b)
				return findPred(func(f *finder, v *findVisit) bool {
					b.files = append(b.files, v.path)
					if len(b.files) >= 4096 {
						f.flushBatch(b)
					}
					return true
				}), nil
			}
			argv = append(argv, a)
		}
		if len(argv) == 0 {
			return nil, errFind(fmt.Sprintf("missing argument to `%s'", pred))
		}
		if pred != "-exec" {
			return nil, errFind(fmt.Sprintf("%s is not supported in the runner; use -exec", pred))
		}
		return findPred(func(f *finder, v *findVisit) bool {
			args := make([]string, len(argv))
			for i, a := range argv {
				args[i] = strings.ReplaceAll(a, "{}", v.path)
			}
			return f.exec(args) == 0
		}), nil
	}
	if strings.HasPrefix(pred, "-") {
		return nil, errFind(fmt.Sprintf("unknown predicate `%s'", pred))
	}
	f.pos--
	return nil, errFind(fmt.Sprintf("paths must precede expression: `%s'", pred))
}

func (f *finder) exec(args []string) int {
	if f.env.Exec == nil {
		f.errorf("cannot run %s: not supported here", lquote(args[0]))
		return 126
	}
	f.o.Flush()
	return f.env.Exec(f.ctx, args, f.env.Stdin, f.env.Stdout, f.env.Stderr)
}

func (f *finder) flushBatch(b *execBatch) {
	if len(b.files) == 0 {
		return
	}
	args := append(append([]string{}, b.argv[:len(b.argv)-1]...), b.files...)
	b.files = b.files[:0]
	if f.exec(args) != 0 {
		f.status = 1
	}
}

func printPred(end string) func(f *finder, v *findVisit) bool {
	return func(f *finder, v *findVisit) bool {
		f.o.WriteString(v.path + end)
		return true
	}
}

// findBase is the name -name matches: the last component, "/" for "/".
func findBase(p string) string {
	b := baseName(p)
	if b == "" {
		return p
	}
	return b
}

func fileTime(fi fs.FileInfo, which byte) time.Time {
	switch which {
	case 'a':
		return statOf(fi).atime
	case 'c':
		return statOf(fi).ctime
	}
	return fi.ModTime()
}

// compileFindRegex compiles a -regex pattern of a -regextype, which must
// match the whole path ("." matches a newline in most types, as glibc's
// RE_DOT_NEWLINE says).
func compileFindRegex(pat, typ string, fold bool) (*gnuregex.Regexp, error) {
	syn, _ := gnuregex.FindSyntax(typ)
	p, err := gnuregex.Parse(pat, gnuregex.Options{Syntax: syn, IgnoreCase: fold})
	if err != nil {
		return nil, err
	}
	return p.Whole().Compile()
}

// findRegexTypes lists -regextype's types as GNU's message does.
func findRegexTypes() string {
	names := gnuregex.FindSyntaxNames()
	for i, n := range names {
		names[i] = lquote(n)
	}
	return strings.Join(names, ", ")
}

// printf expands find -printf's directives for one file.
func (f *finder) printf(format string, v *findVisit) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c == '\\' && i+1 < len(format) {
			i++
			switch format[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case '0':
				b.WriteByte(0)
			case '\\':
				b.WriteByte('\\')
			case 'a':
				b.WriteByte('\a')
			case 'r':
				b.WriteByte('\r')
			case 'c':
				return b.String()
			default:
				b.WriteByte('\\')
				b.WriteByte(format[i])
			}
			continue
		}
		if c != '%' || i+1 >= len(format) {
			b.WriteByte(c)
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0123456789.", format[j]) >= 0 {
			j++
		}
		if j >= len(format) {
			b.WriteString(format[i:])
			break
		}
		spec := format[i+1 : j]
		conv := format[j]
		i = j
		st := statOf(v.fi)
		var val string
		switch conv {
		case '%':
			b.WriteByte('%')
			continue
		case 'p':
			val = v.path
		case 'f':
			val = findBase(v.path)
		case 'h':
			val = dirName(v.path)
			if !strings.Contains(strings.TrimRight(v.path, "/"), "/") {
				val = "."
			}
		case 'P':
			val = strings.TrimPrefix(strings.TrimPrefix(v.path, v.start), "/")
		case 'H':
			val = v.start
		case 'd':
			val = strconv.Itoa(v.depth)
		case 's':
			val = strconv.FormatInt(v.fi.Size(), 10)
		case 'k':
			val = strconv.FormatUint(ceilDiv(st.blocks, 2), 10)
		case 'b':
			val = strconv.FormatUint(st.blocks, 10)
		case 'm':
			val = strconv.FormatUint(uint64(unixMode(v.fi.Mode())), 8)
		case 'M':
			val = modeString(v.fi.Mode())
		case 'y':
			val = findType(v.fi)
		case 'Y':
			val = findType(v.fi)
			if v.fi.Mode()&fs.ModeSymlink != 0 {
				if t, err := f.env.FS.Stat(v.path); err == nil {
					val = findType(t)
				} else {
					val = "N"
				}
			}
		case 'l':
			if v.fi.Mode()&fs.ModeSymlink != 0 {
				val, _ = f.env.FS.Readlink(v.path)
			}
		case 'u', 'g':
			val = ownerName
		case 'U':
			val = strconv.FormatUint(uint64(st.uid), 10)
		case 'G':
			val = strconv.FormatUint(uint64(st.gid), 10)
		case 'i':
			val = strconv.FormatUint(st.ino, 10)
		case 'n':
			val = strconv.FormatUint(st.nlink, 10)
		case 'D':
			val = strconv.FormatUint(st.dev, 10)
		case 'a', 'c', 't', 'A', 'C', 'T':
			which := map[byte]byte{'a': 'a', 'A': 'a', 'c': 'c', 'C': 'c', 't': 'm', 'T': 'm'}[conv]
			t := fileTime(v.fi, which).In(time.Local)
			if conv >= 'a' {
				val = strftime("%a %b %e %H:%M:%S", t) + fmt.Sprintf(".%09d0 ", t.Nanosecond()) + strftime("%Y", t)
				break
			}
			if i+1 >= len(format) {
				break
			}
			i++
			k := format[i]
			switch k {
			case '@':
				val = fmt.Sprintf("%d.%09d0", t.Unix(), t.Nanosecond())
			case '+':
				val = strftime("%Y-%m-%d+%H:%M:%S", t) + fmt.Sprintf(".%09d0", t.Nanosecond())
			case 'S':
				val = fmt.Sprintf("%02d.%09d0", t.Second(), t.Nanosecond())
			default:
				val = strftime("%"+string(k), t)
			}
		default:
			b.WriteString("%" + spec + string(conv))
			continue
		}
		if spec != "" {
			val = fmt.Sprintf("%"+strings.TrimLeft(spec, "+ #0")+"s", val)
		}
		b.WriteString(val)
	}
	return b.String()
}

func findType(fi fs.FileInfo) string {
	c := typeChar(fi.Mode())
	if c == '-' {
		return "f"
	}
	return string(c)
}

// lsLine is find -ls's line.
func (f *finder) lsLine(v *findVisit) string {
	st := statOf(v.fi)
	t := v.fi.ModTime().In(time.Local)
	date := strftime("%b %e %H:%M", t)
	if !t.After(f.now.Add(-sixMonths)) || t.After(f.now) {
		date = strftime("%b %e  %Y", t)
	}
	name := v.path
	if v.fi.Mode()&fs.ModeSymlink != 0 {
		if target, err := f.env.FS.Readlink(v.path); err == nil {
			name += " -> " + target
		}
	}
	return fmt.Sprintf("%9d %6d %s %3d %-8s %-8s %8d %s %s\n", st.ino, ceilDiv(st.blocks, 2), modeString(v.fi.Mode()),
		st.nlink, ownerName, groupName, v.fi.Size(), date, name)
}
