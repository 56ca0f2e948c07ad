package bash

import (
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/shpattern"
)

// maxBraceWords bounds what one word's brace expansion may produce.
const maxBraceWords = 1 << 18

// splitBraces returns the brace expansions of a word, or the word
// itself. mvdan/sh's SplitBraces rewrites a word's parts, so it works on
// a copy: the tree stays as parsed (and walkable).
func (sh *Shell) splitBraces(w *syntax.Word) []*syntax.Word {
	if !sh.opts.braceexpand || !hasBraceLit(w) {
		return []*syntax.Word{w}
	}
	cp := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}
	if !syntax.SplitBraces(cp) {
		return []*syntax.Word{w}
	}
	return braceWords(cp, &sh.braceCount)
}

func hasBraceLit(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

// braceWords multiplies out a word's brace expansions.
func braceWords(w *syntax.Word, count *int) []*syntax.Word {
	for i, p := range w.Parts {
		br, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		var alts [][]syntax.WordPart
		if br.Sequence {
			items, ok := braceSeq(br)
			if !ok {
				// Not a valid sequence: the text stays as it is.
				lit := &syntax.Lit{Value: braceText(br)}
				nw := &syntax.Word{Parts: append(append(append([]syntax.WordPart(nil), w.Parts[:i]...), lit), w.Parts[i+1:]...)}
				return braceWords(nw, count)
			}
			for _, it := range items {
				alts = append(alts, []syntax.WordPart{&syntax.Lit{Value: it}})
			}
		} else {
			for _, e := range br.Elems {
				alts = append(alts, e.Parts)
			}
		}
		var out []*syntax.Word
		for _, a := range alts {
			if *count > maxBraceWords {
				break
			}
			parts := make([]syntax.WordPart, 0, len(w.Parts)+len(a))
			parts = append(parts, w.Parts[:i]...)
			parts = append(parts, a...)
			parts = append(parts, w.Parts[i+1:]...)
			out = append(out, braceWords(&syntax.Word{Parts: parts}, count)...)
		}
		return out
	}
	*count++
	return []*syntax.Word{w}
}

// braceSeq expands {x..y[..step]}: integers (zero-padded to the wider
// end when either has leading zeros) or single characters.
func braceSeq(br *syntax.BraceExp) ([]string, bool) {
	if len(br.Elems) < 2 || len(br.Elems) > 3 {
		return nil, false
	}
	from, to := br.Elems[0].Lit(), br.Elems[1].Lit()
	step := 1
	if len(br.Elems) == 3 {
		n, err := strconv.Atoi(br.Elems[2].Lit())
		if err != nil {
			return nil, false
		}
		if n < 0 {
			n = -n
		}
		if n == 0 {
			n = 1
		}
		step = n
	}
	a, errA := strconv.Atoi(from)
	b, errB := strconv.Atoi(to)
	var out []string
	switch {
	case errA == nil && errB == nil:
		width := 0
		if hasLeadingZero(from) || hasLeadingZero(to) {
			width = max(len(from), len(to))
		}
		if (b-a)/step > maxBraceWords {
			return nil, false
		}
		if a <= b {
			for i := a; i <= b; i += step {
				out = append(out, padInt(i, width))
			}
		} else {
			for i := a; i >= b; i -= step {
				out = append(out, padInt(i, width))
			}
		}
	case len(from) == 1 && len(to) == 1 && errA != nil && errB != nil:
		x, y := int(from[0]), int(to[0])
		if x <= y {
			for c := x; c <= y; c += step {
				out = append(out, string(rune(c)))
			}
		} else {
			for c := x; c >= y; c -= step {
				out = append(out, string(rune(c)))
			}
		}
	default:
		return nil, false
	}
	return out, true
}

func hasLeadingZero(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return len(s) > 1 && s[0] == '0'
}

func padInt(n, width int) string {
	s := strconv.Itoa(n)
	if width == 0 {
		return s
	}
	neg := n < 0
	if neg {
		s = s[1:]
		width--
	}
	for len(s) < width {
		s = "0" + s
	}
	if neg {
		s = "-" + s
	}
	return s
}

// braceText prints a brace expansion back as written.
func braceText(br *syntax.BraceExp) string {
	var b strings.Builder
	b.WriteByte('{')
	sep := ","
	if br.Sequence {
		sep = ".."
	}
	for i, e := range br.Elems {
		if i > 0 {
			b.WriteString(sep)
		}
		for _, p := range e.Parts {
			switch p := p.(type) {
			case *syntax.Lit:
				b.WriteString(p.Value)
			case *syntax.BraceExp:
				b.WriteString(braceText(p))
			default:
				syntax.NewPrinter().Print(&b, &syntax.Word{Parts: []syntax.WordPart{p}})
			}
		}
	}
	b.WriteByte('}')
	return b.String()
}

// globFlags are the pattern flags of pathname expansion for the shell's
// options.
func (sh *Shell) globFlags() shpattern.Flags {
	var f shpattern.Flags
	if sh.shopts.extglob {
		f |= shpattern.Extended
	}
	if sh.shopts.nocaseglob {
		f |= shpattern.NoCase
	}
	if !sh.shopts.dotglob && !sh.globIgnoreSet() {
		f |= shpattern.Filename
	}
	return f
}

func (sh *Shell) globIgnoreSet() bool {
	v, ok := sh.getVar("GLOBIGNORE")
	return ok && v != ""
}

// glob expands a pattern against the agent's files; the names come back
// sorted, relative when the pattern is.
func (sh *Shell) glob(pat string) ([]string, error) {
	fsys := sh.run.cfg.FS.WithDir(sh.dir, nil, nil, nil)
	flags := sh.globFlags()
	abs := strings.HasPrefix(pat, "/")
	comps := strings.Split(pat, "/")
	start := []string{""}
	if abs {
		start = []string{"/"}
		comps = comps[1:]
	}
	// Drop empty components (a//b) but keep a trailing slash's meaning.
	trailing := strings.HasSuffix(pat, "/") && len(pat) > 1
	var clean []string
	for _, c := range comps {
		if c != "" {
			clean = append(clean, c)
		}
	}
	matches := start
	for i, comp := range clean {
		last := i == len(clean)-1
		var next []string
		if sh.stopped() {
			return nil, nil
		}
		if comp == "**" && sh.shopts.globstar {
			for _, m := range matches {
				next = append(next, sh.globStar(fsys, m, last && !trailing, flags)...)
			}
			matches = next
			continue
		}
		if !shpattern.HasMeta(comp, flags&shpattern.Extended) {
			lit := unescapeGlob(comp)
			for _, m := range matches {
				p := joinGlob(m, lit)
				if _, err := fsys.Lstat(p); err == nil || (!last && isDirPath(fsys, p)) {
					next = append(next, p)
				}
			}
			matches = next
			continue
		}
		cp := shpattern.Cached(comp, flags)
		for _, m := range matches {
			dir := m
			if dir == "" {
				dir = "."
			}
			ents, err := fsys.ReadDir(dir)
			if err != nil {
				continue
			}
			if !sh.shopts.globskipdots && strings.HasPrefix(comp, ".") {
				ents = append([]fs.DirEntry{dotEntry("."), dotEntry("..")}, ents...)
			}
			for _, e := range ents {
				name := e.Name()
				if (name == "." || name == "..") && sh.shopts.globskipdots {
					continue
				}
				if !cp.Match(name) {
					continue
				}
				p := joinGlob(m, name)
				if !last || trailing {
					if !isDirPath(fsys, p) {
						continue
					}
				}
				next = append(next, p)
			}
		}
		matches = next
	}
	if len(matches) == 1 && matches[0] == start[0] {
		return nil, nil
	}
	if trailing {
		for i := range matches {
			matches[i] += "/"
		}
	}
	matches = sh.globIgnore(matches)
	sort.Strings(matches)
	return matches, nil
}

// globStar expands "**": base itself and every folder below it (every
// file too when it is the last component).
func (sh *Shell) globStar(fsys *command.RootFS, base string, files bool, flags shpattern.Flags) []string {
	var out []string
	if base != "" {
		out = append(out, base)
	} else {
		out = append(out, "")
	}
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if depth > 64 || sh.stopped() {
			return
		}
		d := dir
		if d == "" {
			d = "."
		}
		ents, err := fsys.ReadDir(d)
		if err != nil {
			return
		}
		for _, e := range ents {
			name := e.Name()
			if strings.HasPrefix(name, ".") && flags&shpattern.Filename != 0 {
				continue
			}
			p := joinGlob(dir, name)
			isDir := e.IsDir()
			if isDir {
				out = append(out, p)
				walk(p, depth+1)
			} else if files {
				out = append(out, p)
			}
		}
	}
	walk(base, 0)
	if base == "" {
		// "" stands for the current folder: it matches nothing itself
		// when ** is last ("**" lists what is below).
		out = out[1:]
		if !files {
			out = append([]string{""}, out...)
		}
	}
	return out
}

// dotEntry is "." or ".." for globbing without globskipdots.
type dotEntry string

func (d dotEntry) Name() string               { return string(d) }
func (d dotEntry) IsDir() bool                { return true }
func (d dotEntry) Type() fs.FileMode          { return fs.ModeDir }
func (d dotEntry) Info() (fs.FileInfo, error) { return nil, fs.ErrNotExist }

func joinGlob(dir, name string) string {
	switch {
	case dir == "":
		return name
	case strings.HasSuffix(dir, "/"):
		return dir + name
	}
	return dir + "/" + name
}

func isDirPath(fsys *command.RootFS, p string) bool {
	fi, err := fsys.Stat(p)
	return err == nil && fi.IsDir()
}

// unescapeGlob removes a pattern's backslash escapes.
func unescapeGlob(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// splitIgnoreSpec splits GLOBIGNORE at colons outside bracket
// expressions ([[:alnum:]] holds two).
func splitIgnoreSpec(v string) []string {
	var out []string
	start := 0
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '[':
			if _, n := shpattern.ClassLen(v[i:]); n > 0 {
				i += n - 1
			}
		case ':':
			out = append(out, v[start:i])
			start = i + 1
		}
	}
	return append(out, v[start:])
}

// globIgnore drops the names GLOBIGNORE's patterns match (and . and ..
// whenever it is set).
func (sh *Shell) globIgnore(names []string) []string {
	v, ok := sh.getVar("GLOBIGNORE")
	if !ok || v == "" {
		return names
	}
	pats := splitIgnoreSpec(v)
	out := names[:0]
	for _, n := range names {
		base := path.Base(strings.TrimSuffix(n, "/"))
		if base == "." || base == ".." {
			continue
		}
		ignored := false
		for _, p := range pats {
			if p != "" && shpattern.Match(p, n, sh.globFlags()&^shpattern.Filename) {
				ignored = true
				break
			}
		}
		if !ignored {
			out = append(out, n)
		}
	}
	return out
}
