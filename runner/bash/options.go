package bash

import (
	"fmt"
	"maps"
	"sort"
	"strings"
)

// options are the shell's set -o options.
type options struct {
	allexport, braceexpand, emacs, errexit, errtrace, functrace, hashall, histexpand, history,
	ignoreeof, interactiveComments, keyword, monitor, noclobber, noexec, noglob, nolog, notify,
	nounset, onecmd, physical, pipefail, posix, privileged, verbose, vi, xtrace bool
	// cmdString: the shell runs a -c string ($- shows "c")
	cmdString bool
	debug     bool // a DEBUG trap is set
}

func (o *options) debugTrap() bool { return o.debug }

func defaultOptions() options {
	return options{braceexpand: true, hashall: true, interactiveComments: true, cmdString: true}
}

// setOption is one set -o option: its name, its letter (0: none) and
// where it lives.
type setOption struct {
	name   string
	letter byte
	field  func(*options) *bool
}

var setOptions = []setOption{
	{"allexport", 'a', func(o *options) *bool { return &o.allexport }},
	{"braceexpand", 'B', func(o *options) *bool { return &o.braceexpand }},
	{"emacs", 0, func(o *options) *bool { return &o.emacs }},
	{"errexit", 'e', func(o *options) *bool { return &o.errexit }},
	{"errtrace", 'E', func(o *options) *bool { return &o.errtrace }},
	{"functrace", 'T', func(o *options) *bool { return &o.functrace }},
	{"hashall", 'h', func(o *options) *bool { return &o.hashall }},
	{"histexpand", 'H', func(o *options) *bool { return &o.histexpand }},
	{"history", 0, func(o *options) *bool { return &o.history }},
	{"ignoreeof", 0, func(o *options) *bool { return &o.ignoreeof }},
	{"interactive-comments", 0, func(o *options) *bool { return &o.interactiveComments }},
	{"keyword", 'k', func(o *options) *bool { return &o.keyword }},
	{"monitor", 'm', func(o *options) *bool { return &o.monitor }},
	{"noclobber", 'C', func(o *options) *bool { return &o.noclobber }},
	{"noexec", 'n', func(o *options) *bool { return &o.noexec }},
	{"noglob", 'f', func(o *options) *bool { return &o.noglob }},
	{"nolog", 0, func(o *options) *bool { return &o.nolog }},
	{"notify", 'b', func(o *options) *bool { return &o.notify }},
	{"nounset", 'u', func(o *options) *bool { return &o.nounset }},
	{"onecmd", 't', func(o *options) *bool { return &o.onecmd }},
	{"physical", 'P', func(o *options) *bool { return &o.physical }},
	{"pipefail", 0, func(o *options) *bool { return &o.pipefail }},
	{"posix", 0, func(o *options) *bool { return &o.posix }},
	{"privileged", 'p', func(o *options) *bool { return &o.privileged }},
	{"verbose", 'v', func(o *options) *bool { return &o.verbose }},
	{"vi", 0, func(o *options) *bool { return &o.vi }},
	{"xtrace", 'x', func(o *options) *bool { return &o.xtrace }},
}

// flagOrder is the order of $-'s letters.
const flagOrder = "abefhkmnptuvxBCEHPT"

func findSetOption(name string) *setOption {
	for i := range setOptions {
		if setOptions[i].name == name {
			return &setOptions[i]
		}
	}
	return nil
}

func findSetLetter(c byte) *setOption {
	for i := range setOptions {
		if setOptions[i].letter == c {
			return &setOptions[i]
		}
	}
	return nil
}

// flagString is $-.
func (sh *Shell) flagString() string {
	var b strings.Builder
	for i := 0; i < len(flagOrder); i++ {
		if o := findSetLetter(flagOrder[i]); o != nil && *o.field(&sh.opts) {
			b.WriteByte(flagOrder[i])
		}
	}
	if sh.opts.cmdString {
		b.WriteByte('c')
	}
	return b.String()
}

// shellopts is $SHELLOPTS.
func (sh *Shell) shellopts() string {
	var on []string
	for _, o := range setOptions {
		if *o.field(&sh.opts) {
			on = append(on, o.name)
		}
	}
	return strings.Join(on, ":")
}

// shopts are the shell's shopt options.
type shopts struct {
	m   map[string]bool
	own bool // m is this shell's own (else shared: copy before writing)
	// the ones the interpreter reads often, mirrored from m
	extglob, nullglob, failglob, dotglob, globstar, nocaseglob, nocasematch, lastpipe,
	expandAliases, inheritErrexit, patsubReplacement, sourcepath, xpgEcho, localvarInherit,
	localvarUnset, globskipdots, shiftVerbose, execfail, assocExpandOnce bool
}

// shoptNames lists every shopt option with its default.
var shoptNames = map[string]bool{
	"autocd": false, "assoc_expand_once": false, "cdable_vars": false, "cdspell": false, "checkhash": false,
	"checkjobs": false, "checkwinsize": true, "cmdhist": true, "compat31": false, "compat32": false,
	"compat40": false, "compat41": false, "compat42": false, "compat43": false, "compat44": false,
	"complete_fullquote": true, "direxpand": false, "dirspell": false, "dotglob": false, "execfail": false,
	"expand_aliases": false, "extdebug": false, "extglob": false, "extquote": true, "failglob": false,
	"force_fignore": true, "globasciiranges": true, "globskipdots": true, "globstar": false,
	"gnu_errfmt": false, "histappend": false, "histreedit": false, "histverify": false,
	"hostcomplete": true, "huponexit": false, "inherit_errexit": false, "interactive_comments": true,
	"lastpipe": false, "lithist": false, "localvar_inherit": false, "localvar_unset": false,
	"login_shell": false, "mailwarn": false, "no_empty_cmd_completion": false, "nocaseglob": false,
	"nocasematch": false, "noexpand_translation": false, "nullglob": false, "patsub_replacement": true,
	"progcomp": true, "progcomp_alias": false, "promptvars": true, "restricted_shell": false,
	"shift_verbose": false, "sourcepath": true, "varredir_close": false, "xpg_echo": false,
}

// newShopts gives the defaults; the map is shoptNames itself until an
// option is set (set copies it).
func newShopts() shopts {
	s := shopts{m: shoptNames}
	s.sync()
	return s
}

// set changes an option, copying the map first when it is shared.
func (s *shopts) set(name string, on bool) {
	if !s.own {
		s.m = maps.Clone(s.m)
		s.own = true
	}
	s.m[name] = on
	s.sync()
}

func (s *shopts) sync() {
	s.extglob, s.nullglob, s.failglob, s.dotglob = s.m["extglob"], s.m["nullglob"], s.m["failglob"], s.m["dotglob"]
	s.globstar, s.nocaseglob, s.nocasematch, s.lastpipe = s.m["globstar"], s.m["nocaseglob"], s.m["nocasematch"], s.m["lastpipe"]
	s.expandAliases, s.inheritErrexit, s.patsubReplacement = s.m["expand_aliases"], s.m["inherit_errexit"], s.m["patsub_replacement"]
	s.sourcepath, s.xpgEcho, s.localvarInherit, s.localvarUnset = s.m["sourcepath"], s.m["xpg_echo"], s.m["localvar_inherit"], s.m["localvar_unset"]
	s.globskipdots, s.shiftVerbose, s.execfail, s.assocExpandOnce = s.m["globskipdots"], s.m["shift_verbose"], s.m["execfail"], s.m["assoc_expand_once"]
}

// bashopts is $BASHOPTS.
func (sh *Shell) bashopts() string {
	var on []string
	for _, k := range sortedKeys(sh.shopts.m) {
		if sh.shopts.m[k] {
			on = append(on, k)
		}
	}
	return strings.Join(on, ":")
}

// applyInvocationOptions applies a shell's command-line options.
func (sh *Shell) applyInvocationOptions(opts []string) {
	for i := 0; i < len(opts); i++ {
		o := opts[i]
		if (o == "-o" || o == "+o" || o == "-O" || o == "+O") && i+1 < len(opts) {
			if o[1] == 'o' {
				if so := findSetOption(opts[i+1]); so != nil {
					*so.field(&sh.opts) = o[0] == '-'
				}
			} else if _, ok := sh.shopts.m[opts[i+1]]; ok {
				sh.shopts.set(opts[i+1], o[0] == '-')
			}
			i++
			continue
		}
		for j := 1; j < len(o); j++ {
			if so := findSetLetter(o[j]); so != nil {
				*so.field(&sh.opts) = o[0] == '-'
			}
		}
	}
}

// builtinSet is set: options, and the positional parameters.
func builtinSet(sh *Shell, args []string) int {
	args = args[1:]
	if len(args) == 0 {
		sh.printVars()
		return 0
	}
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			sh.params = append([]string(nil), args[1:]...)
			return 0
		}
		if a == "+" {
			args = args[1:]
			continue
		}
		if a == "-" {
			sh.opts.xtrace, sh.opts.verbose = false, false
			args = args[1:]
			if len(args) > 0 {
				sh.params = append([]string(nil), args...)
			}
			return 0
		}
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			break
		}
		on := a[0] == '-'
		args = args[1:]
		for j := 1; j < len(a); j++ {
			c := a[j]
			if c == 'o' {
				if len(args) == 0 {
					if on {
						sh.printSetO(false)
					} else {
						sh.printSetO(true)
					}
					continue
				}
				name := args[0]
				args = args[1:]
				so := findSetOption(name)
				if so == nil {
					sh.errorf("set: %s: invalid option name", name)
					return 2
				}
				*so.field(&sh.opts) = on
				sh.optionChanged(so.name, on)
				continue
			}
			so := findSetLetter(c)
			if so == nil {
				sh.errorf("set: %c%c: invalid option", a[0], c)
				fmt.Fprintln(sh.stderr(), "set: usage: set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...]")
				return 2
			}
			*so.field(&sh.opts) = on
			sh.optionChanged(so.name, on)
		}
	}
	if len(args) > 0 {
		sh.params = append([]string(nil), args...)
	}
	return 0
}

// optionChanged keeps options that exclude each other apart.
func (sh *Shell) optionChanged(name string, on bool) {
	if !on {
		return
	}
	switch name {
	case "vi":
		sh.opts.emacs = false
	case "emacs":
		sh.opts.vi = false
	}
}

// printSetO prints set -o's table, or set +o's commands.
func (sh *Shell) printSetO(commands bool) {
	w := sh.stdout()
	for _, o := range setOptions {
		on := *o.field(&sh.opts)
		if commands {
			sign := "+"
			if on {
				sign = "-"
			}
			fmt.Fprintf(w, "set %so %s\n", sign, o.name)
			continue
		}
		state := "off"
		if on {
			state = "on"
		}
		fmt.Fprintf(w, "%-15s\t%s\n", o.name, state)
	}
}

// printVars prints every variable (set with no arguments) and the
// functions.
func (sh *Shell) printVars() {
	w := sh.stdout()
	for _, name := range sh.varNames() {
		v := sh.lookup(name)
		if v == nil || (!v.set && !v.isArray()) {
			continue
		}
		switch {
		case v.isArray():
			fmt.Fprintln(w, name+"="+sh.arrayLiteral(v))
		default:
			s, _ := sh.scalarOf(v)
			fmt.Fprintln(w, name+"="+setQuote(s))
		}
	}
	for _, name := range sortedKeys(sh.funcs) {
		fmt.Fprint(w, sh.funcText(sh.funcs[name]))
	}
}

// setQuote quotes a value as set and declare -p print it for plain
// variables: bare when safe, else '…' or $'…'.
func setQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_-./:,@%+=", c) >= 0) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return shellQuote(s)
}

// builtinShopt is shopt.
func builtinShopt(sh *Shell, args []string) int {
	args = args[1:]
	set, unset, print, quiet, setO := false, false, false, false, false
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
		a := args[0]
		if a == "--" {
			args = args[1:]
			break
		}
		for _, c := range a[1:] {
			switch c {
			case 's':
				set = true
			case 'u':
				unset = true
			case 'p':
				print = true
			case 'q':
				quiet = true
			case 'o':
				setO = true
			default:
				sh.errorf("shopt: -%c: invalid option", c)
				fmt.Fprintln(sh.stderr(), "shopt: usage: shopt [-pqsu] [-o] [optname ...]")
				return 2
			}
		}
		args = args[1:]
	}
	if set && unset {
		sh.errorf("shopt: cannot set and unset shell options simultaneously")
		return 1
	}
	w := sh.stdout()
	if setO {
		names := args
		if len(names) == 0 {
			for _, o := range setOptions {
				if (!set && !unset) || *o.field(&sh.opts) == set {
					names = append(names, o.name)
				}
			}
		}
		status := 0
		for _, n := range names {
			o := findSetOption(n)
			if o == nil {
				sh.errorf("shopt: %s: invalid option name", n)
				status = 1
				continue
			}
			switch {
			case set || unset:
				*o.field(&sh.opts) = set
			case quiet:
				if !*o.field(&sh.opts) {
					status = 1
				}
			default:
				on := *o.field(&sh.opts)
				if print {
					sign := "+"
					if on {
						sign = "-"
					}
					fmt.Fprintf(w, "set %so %s\n", sign, n)
				} else {
					fmt.Fprintf(w, "%-15s\t%s\n", n, onOff(on))
				}
				if !on {
					status = 1
				}
			}
		}
		return status
	}
	names := args
	all := len(names) == 0
	if all {
		names = sortedKeys(sh.shopts.m)
	}
	status := 0
	for _, n := range names {
		on, ok := sh.shopts.m[n]
		if !ok {
			sh.errorf("shopt: %s: invalid shell option name", n)
			status = 1
			continue
		}
		switch {
		case set || unset:
			if !all {
				sh.shopts.set(n, set)
			}
		case quiet:
			if !on {
				status = 1
			}
		default:
			if all && (set || unset) {
				continue
			}
			if print {
				flag := "-u"
				if on {
					flag = "-s"
				}
				fmt.Fprintf(w, "shopt %s %s\n", flag, n)
			} else {
				fmt.Fprintf(w, "%-15s\t%s\n", n, onOff(on))
			}
			if !on && !all {
				status = 1
			}
		}
	}
	if all && (set || unset) {
		// shopt -s / -u with no names lists those set / unset.
		for _, n := range sortedKeys(sh.shopts.m) {
			if sh.shopts.m[n] == set {
				if print {
					flag := "-u"
					if set {
						flag = "-s"
					}
					fmt.Fprintf(w, "shopt %s %s\n", flag, n)
				} else {
					fmt.Fprintf(w, "%-15s\t%s\n", n, onOff(set))
				}
			}
		}
	}
	sh.shopts.sync()
	return status
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// sortedOptionNames lists set -o names (for compgen -A setopt).
func sortedOptionNames() []string {
	var out []string
	for _, o := range setOptions {
		out = append(out, o.name)
	}
	sort.Strings(out)
	return out
}
