package bash

import (
	"fmt"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/wsfs/wsfs/runner/internal/shpattern"
)

// compgen, complete and compopt: completion specifications and the
// candidates they generate (a script can call compgen; nothing completes
// interactively).

// compSpec is a completion specification.
type compSpec struct {
	actions  []string // alias, builtin, command, directory, export, file, function, keyword, variable …
	options  []string // -o: default, filenames, nospace …
	words    string   // -W
	function string   // -F
	command  string   // -C
	glob     string   // -G
	filter   string   // -X
	prefix   string   // -P
	suffix   string   // -S
	// the order the spec was written in, for complete -p
	text string
}

var actionLetters = map[byte]string{'a': "alias", 'b': "builtin", 'c': "command", 'd': "directory",
	'e': "export", 'f': "file", 'g': "group", 'j': "job", 'k': "keyword", 's': "service", 'u': "user", 'v': "variable"}

var actionNames = map[string]bool{"alias": true, "arrayvar": true, "binding": true, "builtin": true,
	"command": true, "directory": true, "disabled": true, "enabled": true, "export": true, "file": true,
	"function": true, "group": true, "helptopic": true, "hostname": true, "job": true, "keyword": true,
	"running": true, "service": true, "setopt": true, "shopt": true, "signal": true, "stopped": true,
	"user": true, "variable": true}

var compOptions = map[string]bool{"bashdefault": true, "default": true, "dirnames": true, "filenames": true,
	"noquote": true, "nosort": true, "nospace": true, "plusdirs": true}

// parseCompSpec reads complete's or compgen's options; it returns the
// spec, the operands and the status of an error (0: none).
func (sh *Shell) parseCompSpec(name string, args []string, allowPR bool) (*compSpec, []string, map[byte]bool, int) {
	spec := &compSpec{}
	flags := map[byte]bool{}
	var parts []string
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			args = args[1:]
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		args = args[1:]
		for j := 1; j < len(a); j++ {
			c := a[j]
			if act, ok := actionLetters[c]; ok {
				spec.actions = append(spec.actions, act)
				parts = append(parts, "-"+string(c))
				continue
			}
			switch c {
			case 'p', 'r', 'D', 'E', 'I':
				if !allowPR {
					sh.errorf("%s: -%c: invalid option", name, c)
					return nil, nil, nil, 2
				}
				flags[c] = true
				continue
			}
			val := a[j+1:]
			if val == "" {
				if len(args) == 0 {
					sh.errorf("%s: -%c: option requires an argument", name, c)
					return nil, nil, nil, 2
				}
				val = args[0]
				args = args[1:]
			}
			switch c {
			case 'A':
				if !actionNames[val] {
					sh.errorf("%s: %s: invalid action name", name, val)
					return nil, nil, nil, 2
				}
				spec.actions = append(spec.actions, val)
				parts = append(parts, "-A "+val)
			case 'o':
				if !compOptions[val] {
					sh.errorf("%s: %s: invalid option name", name, val)
					return nil, nil, nil, 2
				}
				spec.options = append(spec.options, val)
				parts = append(parts, "-o "+val)
			case 'W':
				spec.words = val
				parts = append(parts, "-W "+shellQuote(val))
			case 'F':
				spec.function = val
				parts = append(parts, "-F "+val)
			case 'C':
				spec.command = val
				parts = append(parts, "-C "+shellQuote(val))
			case 'G':
				spec.glob = val
				parts = append(parts, "-G "+shellQuote(val))
			case 'X':
				spec.filter = val
				parts = append(parts, "-X "+shellQuote(val))
			case 'P':
				spec.prefix = val
				parts = append(parts, "-P "+shellQuote(val))
			case 'S':
				spec.suffix = val
				parts = append(parts, "-S "+shellQuote(val))
			default:
				sh.errorf("%s: -%c: invalid option", name, c)
				return nil, nil, nil, 2
			}
			break
		}
	}
	spec.text = strings.Join(parts, " ")
	return spec, args, flags, 0
}

func builtinComplete(sh *Shell, args []string) int {
	spec, names, flags, st := sh.parseCompSpec("complete", args[1:], true)
	if st != 0 {
		return st
	}
	if sh.completions == nil {
		sh.completions = map[string]*compSpec{}
	}
	if flags['D'] {
		names = append(names, "-D")
	}
	if flags['E'] {
		names = append(names, "-E")
	}
	if flags['r'] {
		if len(names) == 0 {
			clear(sh.completions)
			return 0
		}
		for _, n := range names {
			delete(sh.completions, n)
		}
		return 0
	}
	if flags['p'] || len(names) == 0 && spec.text == "" {
		list := names
		if len(list) == 0 {
			list = sortedKeys(sh.completions)
		}
		status := 0
		for _, n := range list {
			s, ok := sh.completions[n]
			if !ok {
				sh.errorf("complete: %s: no completion specification", n)
				status = 1
				continue
			}
			fmt.Fprintf(sh.stdout(), "complete %s %s\n", s.text, n)
		}
		return status
	}
	for _, n := range names {
		sh.completions[n] = spec
	}
	return 0
}

func builtinCompopt(sh *Shell, args []string) int {
	for i := 1; i < len(args); i++ {
		a := args[i]
		if (a == "-o" || a == "+o") && i+1 < len(args) {
			if !compOptions[args[i+1]] {
				sh.errorf("compopt: %s: invalid option name", args[i+1])
				return 2
			}
			i++
			continue
		}
		if a == "-D" || a == "-E" || a == "-I" {
			continue
		}
		if strings.HasPrefix(a, "-") {
			sh.errorf("compopt: %s: invalid option", a)
			return 2
		}
	}
	if sh.inFunc == 0 {
		sh.errorf("compopt: not currently executing completion function")
		return 1
	}
	return 0
}

func builtinCompgen(sh *Shell, args []string) int {
	spec, rest, _, st := sh.parseCompSpec("compgen", args[1:], false)
	if st != 0 {
		return st
	}
	word := ""
	if len(rest) > 0 {
		word = rest[0]
	}
	cands, status := sh.completeWord(spec, word, rest)
	if status != 0 {
		return status
	}
	if len(cands) == 0 {
		return 1
	}
	var b strings.Builder
	for _, c := range cands {
		b.WriteString(spec.prefix + c + spec.suffix + "\n")
	}
	return sh.writeOut("compgen", b.String())
}

// completeWord generates the candidates of a spec for word.
func (sh *Shell) completeWord(spec *compSpec, word string, args []string) ([]string, int) {
	var out []string
	add := func(names []string) {
		for _, n := range names {
			if strings.HasPrefix(n, word) {
				out = append(out, n)
			}
		}
	}
	for _, act := range spec.actions {
		switch act {
		case "alias":
			add(sortedKeys(sh.aliases))
		case "builtin", "enabled":
			names := make([]string, 0, len(builtins))
			for n := range builtins {
				if act == "builtin" || sh.builtinEnabled(n) {
					names = append(names, n)
				}
			}
			sort.Strings(names)
			add(names)
		case "disabled":
			var names []string
			for n := range sh.disabled {
				names = append(names, n)
			}
			sort.Strings(names)
			add(names)
		case "command":
			var names []string
			names = append(names, sortedKeys(sh.aliases)...)
			for n := range builtins {
				names = append(names, n)
			}
			names = append(names, sh.sortedFuncNames()...)
			names = append(names, keywords...)
			names = append(names, sh.run.programs()...)
			names = append(names, sh.pathFiles()...)
			sort.Strings(names)
			add(dedupe(names))
		case "directory":
			out = append(out, sh.completeFiles(word, true)...)
		case "file":
			out = append(out, sh.completeFiles(word, false)...)
		case "export":
			var names []string
			for _, n := range sh.varNames() {
				if v := sh.lookup(n); v != nil && v.attrs&aExport != 0 && v.set {
					names = append(names, n)
				}
			}
			add(names)
		case "variable":
			var names []string
			for _, n := range sh.varNames() {
				if v := sh.lookup(n); v != nil && (v.set || v.isArray()) {
					names = append(names, n)
				}
			}
			add(names)
		case "arrayvar":
			var names []string
			for _, n := range sh.varNames() {
				if v := sh.lookup(n); v != nil && v.isArray() {
					names = append(names, n)
				}
			}
			add(names)
		case "function":
			add(sh.sortedFuncNames())
		case "keyword":
			add(keywords)
		case "setopt":
			add(sortedOptionNames())
		case "shopt":
			add(sortedKeys(sh.shopts.m))
		case "signal":
			var names []string
			for i := 1; i < len(signals); i++ {
				names = append(names, "SIG"+signals[i])
			}
			add(names)
		case "helptopic":
			names := make([]string, 0, len(builtins))
			for n := range builtins {
				names = append(names, n)
			}
			sort.Strings(names)
			add(names)
		case "user":
			add([]string{"agent", "root"})
		case "group":
			add([]string{"agent", "root"})
		case "job", "running", "stopped":
			sh.jobs.mu.Lock()
			var names []string
			for _, j := range sh.jobs.list {
				names = append(names, j.text)
			}
			sh.jobs.mu.Unlock()
			add(names)
		case "hostname":
			add([]string{"wsfs"})
		}
	}
	for _, o := range spec.options {
		switch o {
		case "default", "bashdefault":
			out = append(out, sh.completeFiles(word, false)...)
		case "dirnames", "plusdirs":
			out = append(out, sh.completeFiles(word, true)...)
		}
	}
	if spec.glob != "" {
		m, _ := sh.glob(spec.glob)
		out = append(out, m...)
	}
	if spec.words != "" {
		ws, err := sh.compWords(spec.words)
		if err != nil {
			return nil, 1
		}
		add(ws)
	}
	if spec.function != "" {
		fn, ok := sh.funcs[spec.function]
		if !ok {
			return nil, 1
		}
		cword := "-1"
		comp := []string{spec.function, "compgen", "", ""}
		if len(args) > 0 {
			comp[2] = args[0]
		}
		sh.setArray("COMP_WORDS", nil, false, false)
		sh.setVar("COMP_CWORD", cword)
		sh.setVar("COMP_LINE", "")
		sh.setVar("COMP_POINT", "0")
		sh.unsetVar("COMPREPLY", false)
		sh.callFunction(fn, comp)
		if sh.flow == flowAbort {
			sh.flow = flowNone
			return nil, 1
		}
		out = append(out, sh.values("COMPREPLY")...)
	}
	if spec.filter != "" {
		neg := strings.HasPrefix(spec.filter, "!")
		pat := strings.TrimPrefix(spec.filter, "!")
		pat = strings.ReplaceAll(pat, "&", word)
		kept := out[:0]
		for _, c := range out {
			m := shpattern.Match(pat, c, sh.globFlags()&^shpattern.Filename|shpattern.Extended)
			if m == neg {
				kept = append(kept, c)
			}
		}
		out = kept
	}
	return out, 0
}

// compWords expands -W's word list as bash does: expansions, then
// splitting on IFS.
func (sh *Shell) compWords(text string) ([]string, error) {
	w, err := newParser().Document(strings.NewReader(text))
	if err != nil {
		return nil, err
	}
	x := expander{sh: sh, mode: modeFields}
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			x.cur.add(l.Value, mExpand)
			continue
		}
		if err := x.part(p, false); err != nil {
			return nil, err
		}
	}
	x.endWord()
	var out []string
	for _, f := range x.fields {
		for _, p := range splitField(f, sh.ifs()) {
			out = append(out, string(p.b))
		}
	}
	return out, nil
}

// completeFiles lists the files (or folders) whose names start with
// word.
func (sh *Shell) completeFiles(word string, dirsOnly bool) []string {
	dir, base := "", word
	if i := strings.LastIndex(word, "/"); i >= 0 {
		dir, base = word[:i+1], word[i+1:]
	}
	lookIn := dir
	if lookIn == "" {
		lookIn = "."
	}
	ents, err := sh.view().ReadDir(lookIn)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, base) {
			continue
		}
		if strings.HasPrefix(n, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		if dirsOnly && !isDirPath(sh.view(), dir+n) {
			continue
		}
		out = append(out, dir+n)
	}
	return out
}

// pathFiles lists the executable files of PATH's workspace folders.
func (sh *Shell) pathFiles() []string {
	pathVar, _ := sh.getVar("PATH")
	var out []string
	for _, d := range strings.Split(pathVar, ":") {
		if d == "" || binDirs[d] {
			continue
		}
		ents, err := sh.view().ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if sh.executable(d + "/" + e.Name()) {
				out = append(out, e.Name())
			}
		}
	}
	return out
}

func dedupe(sorted []string) []string {
	out := sorted[:0]
	for i, s := range sorted {
		if i == 0 || s != sorted[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// keywords are bash's reserved words.
var keywords = []string{"!", "[[", "]]", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for",
	"function", "if", "in", "select", "then", "time", "until", "while", "{", "}"}
