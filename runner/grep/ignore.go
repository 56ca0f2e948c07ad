package grep

import (
	"path"
	"regexp"
	"strings"
)

// globRule is one line of a .gitignore-style file, or one -g glob.
type globRule struct {
	re       *regexp.Regexp
	negated  bool // "!pattern"
	dirOnly  bool // "pattern/"
	anchored bool // holds a "/": matched against the path from the base
}

// ignoreSet is the rules of one ignore file (or the -g globs), relative
// to the directory base ("" for the search root).
type ignoreSet struct {
	base  string
	rules []globRule
}

// parseIgnore reads gitignore lines: "#" comments, "!" negation, "\"
// escapes, a trailing "/" for directories only, a "/" elsewhere anchoring
// the pattern, "*" "?" "[...]" within a name and "**" across names.
func parseIgnore(base, text string) *ignoreSet {
	s := &ignoreSet{base: base}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if r, ok := parseGlobRule(line); ok {
			s.rules = append(s.rules, r)
		}
	}
	return s
}

func parseGlobRule(line string) (globRule, bool) {
	var r globRule
	if line == "" || strings.HasPrefix(line, "#") {
		return r, false
	}
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
		line = line[:len(line)-1]
	}
	if strings.HasPrefix(line, "!") {
		r.negated = true
		line = line[1:]
	} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return r, false
	}
	if strings.Contains(line, "/") {
		r.anchored = true
		line = strings.TrimPrefix(line, "/")
	}
	re, err := regexp.Compile("^" + globToRegexp(line) + "$")
	if err != nil {
		return r, false
	}
	r.re = re
	return r, true
}

// globToRegexp translates a gitignore glob.
func globToRegexp(g string) string {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case strings.HasPrefix(g[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(g[i:], "/**") && i+3 == len(g):
			b.WriteString("/.*")
			i += 2
		case strings.HasPrefix(g[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			j := i + 1
			if j < len(g) && (g[j] == '!' || g[j] == '^') {
				j++
			}
			if j < len(g) && g[j] == ']' {
				j++
			}
			for j < len(g) && g[j] != ']' {
				j++
			}
			if j >= len(g) {
				b.WriteString(`\[`)
				continue
			}
			class := g[i+1 : j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i = j
		case c == '\\' && i+1 < len(g):
			i++
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		default:
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		}
	}
	return b.String()
}

// match reports whether rel (slash-separated, relative to the search
// root) is matched by the set, and whether as an ignore or a negation.
// The last matching rule wins.
func (s *ignoreSet) match(rel string, isDir bool) (matched, negated bool) {
	sub := rel
	if s.base == "/" {
		sub = strings.TrimPrefix(rel, "/")
	} else if s.base != "" {
		if !strings.HasPrefix(rel, s.base+"/") {
			return false, false
		}
		sub = rel[len(s.base)+1:]
	}
	for i := len(s.rules) - 1; i >= 0; i-- {
		r := s.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		subject := sub
		if !r.anchored {
			subject = path.Base(sub)
		}
		if r.re.MatchString(subject) {
			return true, r.negated
		}
	}
	return false, false
}

// ignoreStack is the ignore files in force in one directory, outermost
// first; deeper files take precedence.
type ignoreStack []*ignoreSet

func (st ignoreStack) ignored(rel string, isDir bool) bool {
	for i := len(st) - 1; i >= 0; i-- {
		if m, neg := st[i].match(rel, isDir); m {
			return !neg
		}
	}
	return false
}
