package grep

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/wsfs/wsfs/runner/command"
)

var rgFlags = []string{"-e PATTERN", "-f FILE", "-i", "-s", "-S", "-v", "-w", "-x", "-F", "-n", "-N", "-c",
	"--count-matches", "-l", "--files-without-match", "-o", "-q", "-H", "-I", "-L", "-u", "--hidden", "--no-ignore",
	"-a", "-0", "-b", "-g GLOB", "--iglob GLOB", "-t TYPE", "-T TYPE", "--type-list", "--files", "--max-depth NUM",
	"-m NUM", "-A NUM", "-B NUM", "-C NUM", "-r REPLACEMENT", "--column", "--vimgrep", "--no-heading",
	"--color WHEN", "--sort path", "-j NUM", "--no-messages", "--type-add SPEC", "--type-clear TYPE",
	"--context-separator SEP", "--no-context-separator", "--json"}

// rgOptions is what an rg command line asks beyond grep's options.
type rgOptions struct {
	caseMode    byte // 's' sensitive (default), 'i', 'S' smart
	fixed       bool
	hidden      bool
	noIgnore    bool
	noIgnoreVCS bool
	follow      bool
	maxDepth    int // -1: none
	globs       []string
	iglobs      []string
	types       []string
	notTypes    []string
	typeAdds    []string
	typeClears  []string
	typeDefs    map[string][]string // builtinTypes with this command line's changes
	listFiles   bool
	typeList    bool
	noMessages  bool
	lineNumber  int  // -1 unset, 0 -N, 1 -n
	contextBoth bool // the last context flag was -C
	paths       []string
}

// builtinTypes is ripgrep's built-in file types that agents use most;
// each invocation works on its own copy (--type-add, --type-clear).
var builtinTypes = map[string][]string{
	"c":          {"*.c", "*.h", "*.H", "*.cats"},
	"cpp":        {"*.C", "*.cc", "*.cpp", "*.cxx", "*.c++", "*.h", "*.H", "*.hh", "*.hpp", "*.hxx", "*.inl"},
	"cs":         {"*.cs"},
	"css":        {"*.css", "*.scss"},
	"docker":     {"*Dockerfile*", "*dockerfile*"},
	"go":         {"*.go"},
	"h":          {"*.h", "*.hh", "*.hpp"},
	"html":       {"*.htm", "*.html", "*.ejs"},
	"java":       {"*.java", "*.jsp", "*.jspx", "*.properties"},
	"js":         {"*.js", "*.jsx", "*.mjs", "*.cjs", "*.vue"},
	"json":       {"*.json", "*.jsonl", "*.json5"},
	"kotlin":     {"*.kt", "*.kts"},
	"lua":        {"*.lua"},
	"make":       {"[Gg][Nn][Uu]makefile", "[Mm]akefile", "[Gg][Nn][Uu]makefile.am", "[Gg][Nn][Uu]makefile.in", "[Mm]akefile.am", "[Mm]akefile.in", "*.mk", "*.mak"},
	"markdown":   {"*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx", "*.ron"},
	"md":         {"*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx", "*.ron"},
	"php":        {"*.php", "*.php3", "*.php4", "*.php5", "*.phtml"},
	"proto":      {"*.proto"},
	"py":         {"*.py", "*.pyi"},
	"python":     {"*.py", "*.pyi"},
	"rb":         {"*.rb", "*.gemspec", "Gemfile", "Rakefile", "*.rake"},
	"ruby":       {"*.rb", "*.gemspec", "Gemfile", "Rakefile", "*.rake"},
	"rust":       {"*.rs"},
	"scala":      {"*.scala", "*.sbt"},
	"sh":         {"*.bash", "*.bashrc", ".bashrc", ".bash_profile", "*.sh", "*.zsh", ".zshrc", ".profile", "*.ksh"},
	"sql":        {"*.sql", "*.psql"},
	"swift":      {"*.swift"},
	"toml":       {"*.toml", "Cargo.lock"},
	"ts":         {"*.ts", "*.tsx", "*.cts", "*.mts"},
	"typescript": {"*.ts", "*.tsx", "*.cts", "*.mts"},
	"txt":        {"*.txt"},
	"xml":        {"*.xml", "*.xml.dist", "*.dtd", "*.xsl", "*.xslt", "*.xsd", "*.xjb", "*.rng", "*.sch", "*.xhtml"},
	"yaml":       {"*.yaml", "*.yml"},
	"zig":        {"*.zig"},
}

// rgUsage is the usage part of ripgrep 13's argument errors.
const rgUsage = `USAGE:
    
    rg [OPTIONS] PATTERN [PATH ...]
    rg [OPTIONS] -e PATTERN ... [PATH ...]
    rg [OPTIONS] -f PATTERNFILE ... [PATH ...]
    rg [OPTIONS] --files [PATH ...]
    rg [OPTIONS] --type-list
    command | rg [OPTIONS] PATTERN
    rg [OPTIONS] --help
    rg [OPTIONS] --version

For more information try --help
`

// rgUnsupported are real ripgrep flags this rg refuses with a message.
var rgUnsupported = map[string]string{
	"--pcre2": "PCRE2", "-P": "PCRE2", "--multiline": "multi-line search",
	"-U": "multi-line search", "--search-zip": "searching compressed files", "-z": "searching compressed files",
	"--pre": "preprocessors", "--stats": "statistics", "--heading": "headings (output is never a terminal)",
	"-p": "pretty output", "--pretty": "pretty output", "--passthru": "--passthru", "--passthrough": "--passthru",
}

// rgArgFlags take a value ("-g GLOB" or "-gGLOB" or "--glob=GLOB").
var rgArgFlags = map[string]bool{
	"-e": true, "--regexp": true, "-f": true, "--file": true, "-g": true, "--glob": true, "--iglob": true,
	"-t": true, "--type": true, "-T": true, "--type-not": true, "-A": true, "--after-context": true,
	"-B": true, "--before-context": true, "-C": true, "--context": true, "-m": true, "--max-count": true,
	"-r": true, "--replace": true, "-d": true, "--max-depth": true, "--maxdepth": true, "-M": true,
	"--max-columns": true, "-j": true, "--threads": true, "--color": true, "--colour": true, "--colors": true,
	"--sort": true, "--sortr": true, "--type-add": true, "--type-clear": true, "-E": true, "--encoding": true,
	"--max-filesize": true, "--context-separator": true, "--path-separator": true, "--ignore-file": true,
}

// Rg is ripgrep, on grep's engine: Rust regex syntax as Go's RE2 reads
// it, output as ripgrep prints it when standard output is not a terminal.
func Rg(ctx context.Context, env *command.Env) int {
	o := &options{rg: true, withFilename: -1, after: -1, before: -1, maxCount: -1}
	ro := &rgOptions{caseMode: 's', maxDepth: -1, lineNumber: -1}
	var positional []string
	args := env.Args[1:]
	readFile := func(p string) (string, error) {
		r := stdinOf(env)
		if p != "-" {
			f, err := env.FS.Open(p)
			if err != nil {
				return "", err
			}
			defer f.Close()
			r = f
		}
		b, err := io.ReadAll(r)
		return string(b), err
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			positional = append(positional, a)
			continue
		}
		// Split "-gGLOB", "--glob=GLOB" and clusters like "-inw".
		var flags []string
		var value *string
		if strings.HasPrefix(a, "--") {
			name, v, ok := strings.Cut(a, "=")
			flags = []string{name}
			if ok {
				value = &v
			}
		} else {
			for j := 1; j < len(a); j++ {
				f := "-" + a[j:j+1]
				flags = append(flags, f)
				if rgArgFlags[f] {
					if j+1 < len(a) {
						v := a[j+1:]
						value = &v
					}
					break
				}
			}
		}
		for _, f := range flags {
			val := ""
			if rgArgFlags[f] {
				if value != nil {
					val = *value
				} else {
					if i+1 >= len(args) {
						env.Errorf("flag %s requires a value", f)
						return 2
					}
					i++
					val = args[i]
				}
			}
			if code, done := applyRgFlag(env, o, ro, f, val, readFile); done {
				return code
			}
		}
	}
	ro.typeDefs = make(map[string][]string, len(builtinTypes))
	for name, globs := range builtinTypes {
		ro.typeDefs[name] = globs
	}
	for _, name := range ro.typeClears {
		delete(ro.typeDefs, name)
	}
	for _, spec := range ro.typeAdds {
		name, glob, ok := strings.Cut(spec, ":")
		if !ok {
			env.Errorf("invalid definition (format is type:glob, e.g., html:*.html): %s", spec)
			return 2
		}
		if other, ok := strings.CutPrefix(glob, "include:"); ok {
			for _, o := range strings.Split(other, ",") {
				ro.typeDefs[name] = slices.Concat(ro.typeDefs[name], ro.typeDefs[o])
			}
			continue
		}
		ro.typeDefs[name] = slices.Concat(ro.typeDefs[name], []string{glob})
	}
	if ro.typeList {
		names := make([]string, 0, len(ro.typeDefs))
		for n := range ro.typeDefs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(env.Stdout, "%s: %s\n", n, strings.Join(ro.typeDefs[n], ", "))
		}
		return 0
	}
	if !o.havePatterns && !ro.listFiles {
		if len(positional) == 0 {
			env.Errorf("ripgrep requires at least one pattern to execute a search")
			return 2
		}
		o.patterns = []string{positional[0]}
		positional = positional[1:]
	}
	ro.paths = positional
	for _, t := range append(append([]string(nil), ro.types...), ro.notTypes...) {
		if _, ok := ro.typeDefs[t]; !ok && t != "all" {
			env.Errorf("error parsing flag -t: unrecognized file type: %s", t)
			return 2
		}
	}
	if o.json {
		// ripgrep's argument parser refuses these with --json.
		for _, c := range []struct {
			on   bool
			name string
		}{{o.count && !o.countMatches, "--count"}, {o.countMatches, "--count-matches"},
			{o.listMatching, "--files-with-matches"}, {o.listNonMatching, "--files-without-match"},
			{ro.listFiles, "--files"}} {
			if c.on {
				fmt.Fprintf(env.Stderr, "error: The argument '%s' cannot be used with '--json'\n\n%s", c.name, rgUsage)
				return 2
			}
		}
		// JSON lines are whole, numbered, and carry no replacement.
		o.onlyMatching, o.replace, o.column, o.vimgrep, o.byteOffset = false, nil, false, false, false
		o.jsonNoLineNumber = ro.lineNumber == 0
		ro.lineNumber = 1
	}
	eng, err := newRgEngine(o, ro)
	if err != nil {
		env.Errorf("regex parse error:\n    %s\nerror: %s", strings.Join(o.patterns, "|"), err)
		return 2
	}
	g := &grep{ctx: ctx, env: env, o: o, eng: eng, start: time.Now()}
	g.out = bufio.NewWriterSize(&errWriter{w: env.Stdout, g: g}, 64<<10)
	if o.count {
		// As ripgrep: counting beats listing, whatever the order.
		o.listMatching, o.listNonMatching = false, false
	}
	if o.quiet {
		o.listMatching, o.listNonMatching, o.count = false, false, false
	}
	g.contextOn = (o.after > 0 || o.before > 0) && !o.listMatching && !o.listNonMatching && !o.count
	if o.after < 0 {
		o.after = 0
	}
	if o.before < 0 {
		o.before = 0
	}
	o.lineNumber = ro.lineNumber == 1 || (ro.lineNumber < 0 && (o.column || o.vimgrep))
	if o.vimgrep {
		o.column = true
	}
	w := &rgWalker{g: g, ro: ro}
	return w.run()
}

func applyRgFlag(env *command.Env, o *options, ro *rgOptions, f, val string, readFile func(string) (string, error)) (int, bool) {
	num := func() (int, bool) {
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 {
			env.Errorf("error parsing flag %s: invalid number: %s", f, val)
			return 0, false
		}
		return n, true
	}
	switch f {
	case "-e", "--regexp":
		o.patterns = append(o.patterns, val)
		o.havePatterns = true
	case "-f", "--file":
		text, err := readFile(val)
		if err != nil {
			env.Errorf("%s: %s", val, command.Strerror(err))
			return 2, true
		}
		if text != "" {
			o.patterns = append(o.patterns, strings.Split(strings.TrimSuffix(text, "\n"), "\n")...)
		}
		o.havePatterns = true
	case "-i", "--ignore-case":
		ro.caseMode = 'i'
	case "-s", "--case-sensitive":
		ro.caseMode = 's'
	case "-S", "--smart-case":
		ro.caseMode = 'S'
	case "-v", "--invert-match":
		o.invert = true
	case "-w", "--word-regexp":
		o.word, o.wholeLine = true, false // the later of -w and -x wins
	case "-x", "--line-regexp":
		o.word, o.wholeLine = false, true
	case "-F", "--fixed-strings":
		ro.fixed = true
	case "--no-fixed-strings":
		ro.fixed = false
	case "-n", "--line-number":
		ro.lineNumber = 1
	case "-N", "--no-line-number":
		ro.lineNumber = 0
	case "-c", "--count":
		o.count, o.countMatches = true, false
	case "--count-matches":
		o.count, o.countMatches = true, true
	case "-l", "--files-with-matches":
		o.listMatching, o.listNonMatching = true, false
	case "--files-without-match":
		o.listMatching, o.listNonMatching = false, true
	case "-o", "--only-matching":
		o.onlyMatching = true
	case "-q", "--quiet":
		o.quiet = true
	case "-H", "--with-filename":
		o.withFilename = 1
	case "-I", "--no-filename":
		o.withFilename = 0
	case "-L", "--follow":
		ro.follow = true
	case "-.", "--hidden":
		ro.hidden = true
	case "--no-hidden":
		ro.hidden = false
	case "--no-ignore":
		ro.noIgnore = true
	case "--no-ignore-vcs":
		ro.noIgnoreVCS = true
	case "-u", "--unrestricted":
		// -u: no ignore files; -uu: and hidden files; -uuu: and binary.
		switch {
		case ro.hidden && ro.noIgnore:
			o.binary = binaryText
		case ro.noIgnore:
			ro.hidden = true
		}
		ro.noIgnore = true
	case "-a", "--text":
		o.binary = binaryText
	case "-0", "--null":
		o.nullAfterName = true
	case "-b", "--byte-offset":
		o.byteOffset = true
	case "-g", "--glob":
		ro.globs = append(ro.globs, val)
	case "--iglob":
		ro.iglobs = append(ro.iglobs, val)
	case "-t", "--type":
		ro.types = append(ro.types, val)
	case "-T", "--type-not":
		ro.notTypes = append(ro.notTypes, val)
	case "--type-add":
		ro.typeAdds = append(ro.typeAdds, val)
	case "--type-clear":
		ro.typeClears = append(ro.typeClears, val)
	case "--type-list":
		ro.typeList = true
	case "--files":
		ro.listFiles = true
	case "-d", "--max-depth", "--maxdepth":
		n, ok := num()
		if !ok {
			return 2, true
		}
		ro.maxDepth = n
	case "-m", "--max-count":
		n, ok := num()
		if !ok {
			return 2, true
		}
		o.maxCount = int64(n)
	case "-A", "--after-context", "-B", "--before-context", "-C", "--context":
		n, ok := num()
		if !ok {
			return 2, true
		}
		// As ripgrep: -C sets both sides; a later -A or -B drops it.
		switch f {
		case "-A", "--after-context":
			if ro.contextBoth {
				o.before, ro.contextBoth = -1, false
			}
			o.after = n
		case "-B", "--before-context":
			if ro.contextBoth {
				o.after, ro.contextBoth = -1, false
			}
			o.before = n
		default:
			o.after, o.before, ro.contextBoth = n, n, true
		}
	case "-r", "--replace":
		o.replace = &val
	case "--json":
		o.json = true
	case "--no-json":
		o.json = false
	case "--column":
		o.column = true
	case "--no-column":
		o.column = false
	case "--vimgrep":
		o.vimgrep = true
	case "--no-messages":
		ro.noMessages = true
		o.noMessages = true
	case "--no-heading", "--no-config", "--no-require-git", "--line-buffered", "--block-buffered",
		"--no-mmap", "--mmap", "--one-file-system", "--crlf", "--no-unicode", "--no-pcre2", "--trim",
		"--no-ignore-parent", "--no-ignore-dot", "--no-ignore-global", "--no-ignore-exclude", "--ignore",
		"--no-follow", "--no-text", "--no-binary", "--binary":
		// Accepted: no effect here (output is never a terminal and files
		// are always read whole).
	case "--context-separator":
		o.groupSeparator = &val
	case "--no-context-separator":
		o.groupSeparator, o.noGroupSeparator = nil, true
	case "--color", "--colour", "--colors", "--sort", "--sortr", "-j", "--threads", "-M", "--max-columns",
		"-E", "--encoding", "--max-filesize", "--path-separator", "--ignore-file":
		// Accepted with their value: output is sorted by path and never colored.
	case "-h", "--help":
		fmt.Fprintf(env.Stdout, "Usage: rg [OPTIONS] PATTERN [PATH ...]\nSupported flags: %s\n", strings.Join(rgFlags, " "))
		return 0, true
	case "-V", "--version":
		fmt.Fprintln(env.Stdout, "ripgrep 14.1.1 (wsfs)")
		return 0, true
	default:
		if what, ok := rgUnsupported[f]; ok {
			env.Errorf("%s is not supported here (%s)", f, what)
			return 2, true
		}
		env.Errorf("unrecognized flag %s", f)
		return 2, true
	}
	return 0, false
}

// newRgEngine compiles rg's patterns (RE2 syntax, leftmost-first) so
// that no match crosses a newline, which lets one regexp run over a
// whole buffer.
func newRgEngine(o *options, ro *rgOptions) (*engine, error) {
	e := &engine{eol: '\n', word: o.word && !o.wholeLine, wholeLine: o.wholeLine}
	if len(o.patterns) == 0 {
		e.none = true
		return e, nil
	}
	parts := make([]string, len(o.patterns))
	fold := ro.caseMode == 'i'
	if ro.caseMode == 'S' {
		fold = !hasUppercaseLiteral(o.patterns)
	}
	for i, p := range o.patterns {
		if ro.fixed {
			p = regexp.QuoteMeta(p)
		}
		parts[i] = "(?:" + p + ")"
	}
	// ripgrep reads ^ and $ as line anchors (multi-line mode).
	flags := syntax.Perl &^ syntax.OneLine
	if fold {
		flags |= syntax.FoldCase
	}
	tree, err := syntax.Parse(strings.Join(parts, "|"), flags)
	if err != nil {
		return nil, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	if hasLiteralNewline(tree) {
		return nil, fmt.Errorf("the literal %q is not allowed in a regex (multi-line search is not supported)", "\n")
	}
	noNewline(tree)
	expr := tree.String()
	if err := e.compileGo("(?m)", expr, false); err != nil {
		return nil, err
	}
	if !usesTextAnchors(tree) {
		// \A and \z mean the record's ends: only per-record matching
		// keeps that meaning.
		e.bufRE = e.lineRE
	}
	if prefix, _ := e.plainRE.LiteralPrefix(); prefix != "" && !fold {
		e.literal = []byte(prefix)
	}
	return e, nil
}

func hasLiteralNewline(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral && slices.Contains(re.Rune, '\n') {
		return true
	}
	for _, s := range re.Sub {
		if hasLiteralNewline(s) {
			return true
		}
	}
	return false
}

func usesTextAnchors(re *syntax.Regexp) bool {
	if re.Op == syntax.OpBeginText || re.Op == syntax.OpEndText {
		return true
	}
	for _, s := range re.Sub {
		if usesTextAnchors(s) {
			return true
		}
	}
	return false
}

// noNewline makes a parsed regexp unable to match "\n", as ripgrep does
// by default.
func noNewline(re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpCharClass:
		var out []rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if lo <= '\n' && '\n' <= hi {
				if lo < '\n' {
					out = append(out, lo, '\n'-1)
				}
				if hi > '\n' {
					out = append(out, '\n'+1, hi)
				}
				continue
			}
			out = append(out, lo, hi)
		}
		re.Rune = out
	}
	for _, s := range re.Sub {
		noNewline(s)
	}
}

// hasUppercaseLiteral is ripgrep's smart-case test: an upper-case letter
// that is not part of an escape such as \W or \P{…}.
func hasUppercaseLiteral(patterns []string) bool {
	for _, p := range patterns {
		rs := []rune(p)
		for i := 0; i < len(rs); i++ {
			if rs[i] == '\\' {
				i++
				if i < len(rs) && (rs[i] == 'p' || rs[i] == 'P') && i+1 < len(rs) && rs[i+1] == '{' {
					for i < len(rs) && rs[i] != '}' {
						i++
					}
				}
				continue
			}
			if unicode.IsUpper(rs[i]) {
				return true
			}
		}
	}
	return false
}

// rgWalker finds the files rg searches.
type rgWalker struct {
	g         *grep
	ro        *rgOptions
	overrides *ignoreSet // -g and --iglob, as whitelist/blacklist
	anyWhite  bool
	listed    bool
	root      string // the operand being walked
}

func (w *rgWalker) run() int {
	g, ro, o := w.g, w.ro, w.g.o
	w.overrides = parseIgnore("", strings.Join(ro.globs, "\n"))
	for _, gl := range ro.iglobs {
		if r, ok := parseGlobRule(gl); ok {
			r.re = regexp.MustCompile("(?i)" + r.re.String())
			w.overrides.rules = append(w.overrides.rules, r)
		}
	}
	for _, r := range w.overrides.rules {
		if !r.negated {
			w.anyWhite = true
		}
	}
	paths := ro.paths
	implicit := false
	if len(paths) == 0 {
		if stdinReadable(g.env.Stdin) && !ro.listFiles {
			paths = []string{"-"}
		} else {
			paths = []string{"."}
			implicit = true
		}
	}
	switch o.withFilename {
	case 1:
		g.withName = true
	case 0:
		g.withName = false
	default:
		g.withName = o.vimgrep || !(len(paths) == 1 && (paths[0] == "-" || g.isPlainFile(paths[0])))
	}
	for _, p := range paths {
		if g.stopAll {
			break
		}
		if p == "-" {
			g.searchReader("<stdin>", stdinOf(g.env))
			continue
		}
		fi, err := g.env.FS.Stat(p)
		if err != nil {
			w.fileError(p, err)
			continue
		}
		if !fi.IsDir() {
			if ro.listFiles {
				w.printPath(p)
				continue
			}
			g.rgBinaryExplicit = true
			g.searchFile(p)
			continue
		}
		g.implicitRd = implicit
		root := trimSlashes(p)
		w.root = root
		w.walk(root, w.parentIgnores(root), 1)
	}
	if o.json && !o.quiet {
		g.jsonSummary()
	}
	if err := g.out.Flush(); err != nil && g.writeErr == nil {
		g.writeErr = err
	}
	if g.writeErr != nil {
		return 2
	}
	if g.searchErr != nil {
		g.env.Errorf("%s", g.searchErr.Error())
		return 2
	}
	if ro.listFiles || o.listNonMatching && !o.quiet {
		// Success means a path was printed.
		if w.listed || g.listedNonMatching {
			return 0
		}
		return 1
	}
	if g.searched == 0 && implicit && !g.hadError {
		// ripgrep says so only when it searched its default path.
		g.env.Errorf("No files were searched, which means ripgrep probably applied a filter you didn't expect.\nRunning with --debug will show why files are being skipped.")
		return 2
	}
	switch {
	case o.quiet && g.anySelect:
		return 0
	case g.hadError:
		return 2
	case g.anySelect:
		return 0
	}
	return 1
}

func (w *rgWalker) fileError(name string, err error) {
	w.g.hadError = true
	if !w.ro.noMessages {
		w.g.out.Flush()
		w.g.env.Errorf("%s: %s (os error %d)", name, command.Strerror(err), errnoOf(err))
	}
}

func errnoOf(err error) int {
	switch command.Strerror(err) {
	case "No such file or directory":
		return 2
	case "Permission denied":
		return 13
	case "Not a directory":
		return 20
	}
	return 5
}

func (w *rgWalker) printPath(p string) {
	w.listed = true
	w.g.anySelect = true
	w.g.out.WriteString(p)
	if w.g.o.nullAfterName {
		w.g.out.WriteByte(0)
	} else {
		w.g.out.WriteByte('\n')
	}
}

// inGitRepo reports whether dir (an agent path) or one of its parents
// holds .git: only then does ripgrep read .gitignore files.
func (w *rgWalker) inGitRepo(dir string) bool {
	abs := w.g.env.FS.Abs(dir)
	for {
		if _, err := w.g.env.FS.Stat(path.Join(abs, ".git")); err == nil {
			return true
		}
		if abs == "/" {
			return false
		}
		abs = path.Dir(abs)
	}
}

// ignoreFilesIn reads the ignore files of one directory.
func (w *rgWalker) ignoreFilesIn(dir string, git bool) []*ignoreSet {
	if w.ro.noIgnore {
		return nil
	}
	names := []string{".ignore", ".rgignore"}
	if git && !w.ro.noIgnoreVCS {
		names = []string{".gitignore", ".ignore", ".rgignore"}
	}
	abs := w.g.env.FS.Abs(dir)
	var out []*ignoreSet
	for _, n := range names {
		f, err := w.g.env.FS.Open(path.Join(abs, n))
		if err != nil {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(f, 1<<20))
		f.Close()
		if err == nil {
			out = append(out, parseIgnore(abs, string(b)))
		}
	}
	return out
}

// parentIgnores loads the ignore files of the directories above root, as
// ripgrep does.
func (w *rgWalker) parentIgnores(root string) ignoreStack {
	abs := w.g.env.FS.Abs(root)
	git := w.inGitRepo(root)
	var dirs []string
	for d := path.Dir(abs); ; d = path.Dir(d) {
		dirs = append(dirs, d)
		if d == "/" {
			break
		}
	}
	var st ignoreStack
	for i := len(dirs) - 1; i >= 0; i-- {
		st = append(st, w.ignoreFilesIn(dirs[i], git)...)
	}
	return st
}

// walk searches dir, whose entries lie depth levels below the root.
func (w *rgWalker) walk(dir string, st ignoreStack, depth int) {
	g := w.g
	if g.stopAll || w.ro.maxDepth >= 0 && depth > w.ro.maxDepth {
		return
	}
	if err := g.ctx.Err(); err != nil {
		g.searchErr = err
		g.stopAll = true
		return
	}
	ents, err := g.env.FS.ReadDir(dir)
	if err != nil {
		w.fileError(dir, err)
		return
	}
	git := w.inGitRepo(dir)
	st = append(st[:len(st):len(st)], w.ignoreFilesIn(dir, git)...)
	for _, ent := range ents {
		if g.stopAll {
			return
		}
		name := ent.Name()
		child := dir + "/" + name
		if dir == "." && g.implicitRd {
			child = name
		} else if dir == "/" {
			child = "/" + name
		}
		isDir := ent.IsDir()
		if ent.Type()&fs.ModeSymlink != 0 {
			if !w.ro.follow {
				continue
			}
			fi, err := g.env.FS.Stat(child)
			if err != nil {
				continue
			}
			isDir = fi.IsDir()
			if !isDir && !fi.Mode().IsRegular() {
				continue
			}
		} else if !isDir && !ent.Type().IsRegular() {
			continue
		}
		abs := g.env.FS.Abs(child)
		// A -g glob decides first: a whitelisted file skips the hidden,
		// ignore-file and type checks, as in ripgrep.
		whitelisted := false
		if m, neg := w.overrides.match(w.relative(child), isDir); m {
			if neg {
				continue
			}
			whitelisted = true
		} else {
			if strings.HasPrefix(name, ".") && !w.ro.hidden {
				continue
			}
			if st.ignored(abs, isDir) {
				continue
			}
			if w.anyWhite && !isDir {
				continue
			}
		}
		if isDir {
			w.walk(child, st, depth+1)
			continue
		}
		if !whitelisted && !w.typeAllowed(name) {
			continue
		}
		if w.ro.listFiles {
			w.printPath(child)
			continue
		}
		g.rgBinaryExplicit = false
		g.searchFile(child)
	}
}

// relative gives the subject a -g glob is matched against: the path
// below the search root.
func (w *rgWalker) relative(child string) string {
	if w.root == "." && w.g.implicitRd {
		return child
	}
	return strings.TrimPrefix(child, w.root+"/")
}

func (w *rgWalker) typeAllowed(name string) bool {
	matches := func(t string) bool {
		if t == "all" {
			for tn := range w.ro.typeDefs {
				if w.typeMatches(tn, name) {
					return true
				}
			}
			return false
		}
		return w.typeMatches(t, name)
	}
	for _, t := range w.ro.notTypes {
		if matches(t) {
			return false
		}
	}
	if len(w.ro.types) == 0 {
		return true
	}
	for _, t := range w.ro.types {
		if matches(t) {
			return true
		}
	}
	return false
}

func (w *rgWalker) typeMatches(t, name string) bool {
	for _, glob := range w.ro.typeDefs[t] {
		if ok, _ := path.Match(glob, name); ok {
			return true
		}
	}
	return false
}

// stdinReadable is ripgrep's test for searching standard input when no
// path is given: a file or a pipe, not a terminal or nothing. Readers
// that cannot say (a bytes or strings reader) count when they hold data.
func stdinReadable(r io.Reader) bool {
	if r == nil {
		return false
	}
	if st, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		fi, err := st.Stat()
		if err != nil {
			return false
		}
		m := fi.Mode()
		return m.IsRegular() || m&fs.ModeNamedPipe != 0
	}
	if l, ok := r.(interface{ Len() int }); ok {
		return l.Len() > 0
	}
	return true
}
