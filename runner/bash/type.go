package bash

import (
	"fmt"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// type, command, hash, builtin, enable and help: what a name is, and
// running it past functions.

// nameKind is what a command name resolves to.
type nameKind int

const (
	kindNone nameKind = iota
	kindAlias
	kindKeyword
	kindFunction
	kindBuiltin
	kindFile
)

// kindsOf lists what name is, in bash's order; with all, every match
// (every file in PATH too).
func (sh *Shell) kindsOf(name string, all, aliases bool, skipFuncs ...bool) []struct {
	kind nameKind
	path string
} {
	type k = struct {
		kind nameKind
		path string
	}
	var out []k
	if aliases && sh.shopts.expandAliases {
		if _, ok := sh.aliases[name]; ok {
			out = append(out, k{kind: kindAlias})
		}
	}
	if syntax.IsKeyword(name) {
		out = append(out, k{kind: kindKeyword})
	}
	if _, ok := sh.funcs[name]; ok && len(skipFuncs) == 0 {
		out = append(out, k{kind: kindFunction})
	}
	if _, ok := builtins[name]; ok && sh.builtinEnabled(name) {
		out = append(out, k{kind: kindBuiltin})
	}
	if strings.Contains(name, "/") {
		if sh.executable(name) {
			out = append(out, k{kind: kindFile, path: name})
		}
		return out
	}
	if all {
		pathVar, _ := sh.getVar("PATH")
		for _, dir := range strings.Split(pathVar, ":") {
			if dir == "" {
				dir = "."
			}
			cand := dir + "/" + name
			if sh.executable(cand) {
				out = append(out, k{kind: kindFile, path: cand})
			}
		}
		return out
	}
	if len(out) == 0 {
		if p, ok := sh.lookPathNoHash(name); ok {
			out = append(out, k{kind: kindFile, path: p})
		}
	}
	return out
}

// lookPathNoHash searches PATH without touching the hash table.
func (sh *Shell) lookPathNoHash(name string) (string, bool) {
	if p, ok := sh.hash[name]; ok {
		return p, true
	}
	pathVar, _ := sh.getVar("PATH")
	for _, dir := range strings.Split(pathVar, ":") {
		if dir == "" {
			dir = "."
		}
		cand := dir + "/" + name
		if sh.executable(cand) {
			if dir == "." {
				return "./" + name, true
			}
			return cand, true
		}
	}
	return "", false
}

func builtinType(sh *Shell, args []string) int {
	args = args[1:]
	all, typeOnly, pathOnly, forcePath, noFuncs := false, false, false, false, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		a := args[0]
		if a == "--" {
			args = args[1:]
			break
		}
		for _, c := range a[1:] {
			switch c {
			case 'a':
				all = true
			case 't':
				typeOnly = true
			case 'p':
				pathOnly = true
			case 'P':
				forcePath = true
			case 'f':
				noFuncs = true
			default:
				sh.errorf("type: -%c: invalid option", c)
				fmt.Fprintln(sh.stderr(), "type: usage: type [-afptP] name [name ...]")
				return 2
			}
		}
		args = args[1:]
	}
	w := sh.stdout()
	status := 0
	for _, name := range args {
		if forcePath {
			found := false
			if all {
				for _, k := range sh.kindsOf(name, true, false) {
					if k.kind == kindFile {
						fmt.Fprintln(w, k.path)
						found = true
					}
				}
			} else if p, ok := sh.lookPathNoHash(name); ok {
				fmt.Fprintln(w, p)
				found = true
			}
			if !found {
				status = 1
			}
			continue
		}
		var kinds []struct {
			kind nameKind
			path string
		}
		if noFuncs {
			kinds = sh.kindsOf(name, all, true, true)
		} else {
			kinds = sh.kindsOf(name, all, true)
		}
		if len(kinds) == 0 {
			if !typeOnly && !pathOnly {
				sh.errorf("type: %s: not found", name)
			}
			status = 1
			continue
		}
		if !all {
			kinds = kinds[:1]
		}
		for _, k := range kinds {
			switch {
			case pathOnly:
				if k.kind == kindFile {
					fmt.Fprintln(w, k.path)
				}
			case typeOnly:
				fmt.Fprintln(w, [...]string{"", "alias", "keyword", "function", "builtin", "file"}[k.kind])
			default:
				switch k.kind {
				case kindAlias:
					fmt.Fprintf(w, "%s is aliased to `%s'\n", name, sh.aliases[name])
				case kindKeyword:
					fmt.Fprintf(w, "%s is a shell keyword\n", name)
				case kindFunction:
					fmt.Fprintf(w, "%s is a function\n", name)
					fmt.Fprint(w, sh.funcText(sh.funcs[name]))
				case kindBuiltin:
					fmt.Fprintf(w, "%s is a shell builtin\n", name)
				case kindFile:
					if p, ok := sh.hash[name]; ok && !all && p == k.path {
						fmt.Fprintf(w, "%s is hashed (%s)\n", name, p)
					} else {
						fmt.Fprintf(w, "%s is %s\n", name, k.path)
					}
				}
			}
		}
	}
	return status
}

func builtinCommand(sh *Shell, args []string) int {
	args = args[1:]
	verbose, short, defaultPath := false, false, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		a := args[0]
		if a == "--" {
			args = args[1:]
			break
		}
		for _, c := range a[1:] {
			switch c {
			case 'v':
				short = true
			case 'V':
				verbose = true
			case 'p':
				defaultPath = true
			default:
				sh.errorf("command: -%c: invalid option", c)
				fmt.Fprintln(sh.stderr(), "command: usage: command [-pVv] command [arg ...]")
				return 2
			}
		}
		args = args[1:]
	}
	if len(args) == 0 {
		return 0
	}
	if short || verbose {
		w := sh.stdout()
		status := 0
		for _, name := range args {
			kinds := sh.kindsOf(name, false, true)
			if len(kinds) == 0 {
				if verbose {
					sh.errorf("command: %s: not found", name)
				}
				status = 1
				continue
			}
			k := kinds[0]
			if verbose {
				builtinType(sh, []string{"type", name})
				continue
			}
			switch k.kind {
			case kindAlias:
				fmt.Fprintf(w, "alias %s=%s\n", name, shellQuote(sh.aliases[name]))
			case kindFile:
				fmt.Fprintln(w, k.path)
			default:
				fmt.Fprintln(w, name)
			}
		}
		return status
	}
	// Run past functions: a builtin, else PATH.
	name := args[0]
	if b, ok := builtins[name]; ok && sh.builtinEnabled(name) {
		return b(sh, args)
	}
	if defaultPath {
		saved, had := sh.getVar("PATH")
		sh.setVar("PATH", DefaultPath)
		sh.hash = nil
		status := sh.external(args, nil)
		if had {
			sh.setVar("PATH", saved)
		}
		sh.hash = nil
		return status
	}
	return sh.external(args, nil)
}

func builtinBuiltin(sh *Shell, args []string) int {
	if len(args) > 1 && args[1] == "--" {
		args = append(args[:1:1], args[2:]...)
	}
	if len(args) < 2 {
		return 0
	}
	b, ok := builtins[args[1]]
	if !ok || !sh.builtinEnabled(args[1]) {
		sh.errorf("builtin: %s: not a shell builtin", args[1])
		return 1
	}
	return b(sh, args[1:])
}

func builtinHash(sh *Shell, args []string) int {
	args = args[1:]
	w := sh.stdout()
	printPath, list := false, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		switch args[0] {
		case "-r":
			sh.hash = nil
			args = args[1:]
			continue
		case "-t":
			printPath = true
		case "-l":
			list = true
		case "-d":
			if len(args) > 1 {
				delete(sh.hash, args[1])
				args = args[2:]
				continue
			}
		case "-p":
			if len(args) > 2 {
				if sh.hash == nil {
					sh.hash = map[string]string{}
				}
				sh.hash[args[2]] = args[1]
				return 0
			}
		case "--":
		default:
			sh.errorf("hash: %s: invalid option", args[0])
			fmt.Fprintln(sh.stderr(), "hash: usage: hash [-lr] [-p pathname] [-dt] [name ...]")
			return 2
		}
		args = args[1:]
	}
	if len(args) == 0 {
		if len(sh.hash) == 0 {
			fmt.Fprintln(w, "hash: hash table empty")
			return 0
		}
		names := make([]string, 0, len(sh.hash))
		for n := range sh.hash {
			names = append(names, n)
		}
		sort.Strings(names)
		if list {
			for _, n := range names {
				fmt.Fprintf(w, "builtin hash -p %s %s\n", sh.hash[n], n)
			}
			return 0
		}
		fmt.Fprintln(w, "hits\tcommand")
		for _, n := range names {
			fmt.Fprintf(w, "%4d\t%s\n", sh.hashHits[n], sh.hash[n])
		}
		return 0
	}
	status := 0
	for _, n := range args {
		if printPath {
			p, ok := sh.hash[n]
			if !ok {
				sh.errorf("hash: %s: not found", n)
				status = 1
				continue
			}
			fmt.Fprintln(w, p)
			continue
		}
		if _, ok := builtins[n]; ok {
			continue
		}
		if _, ok := sh.lookPath(n); !ok {
			sh.errorf("hash: %s: not found", n)
			status = 1
		}
	}
	return status
}

func builtinEnable(sh *Shell, args []string) int {
	args = args[1:]
	disable, listAll := false, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		for _, c := range args[0][1:] {
			switch c {
			case 'n':
				disable = true
			case 'a':
				listAll = true
			case 'p', 's':
			default:
				sh.errorf("enable: -%c: invalid option", c)
				return 2
			}
		}
		args = args[1:]
	}
	if len(args) == 0 {
		names := make([]string, 0, len(builtins))
		for n := range builtins {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			on := sh.builtinEnabled(n)
			switch {
			case listAll && !on:
				fmt.Fprintf(sh.stdout(), "enable -n %s\n", n)
			case on && !disable || listAll && on:
				fmt.Fprintf(sh.stdout(), "enable %s\n", n)
			case !on && disable:
				fmt.Fprintf(sh.stdout(), "enable -n %s\n", n)
			}
		}
		return 0
	}
	status := 0
	for _, n := range args {
		if _, ok := builtins[n]; !ok {
			sh.errorf("enable: %s: not a shell builtin", n)
			status = 1
			continue
		}
		if sh.disabled == nil {
			sh.disabled = map[string]bool{}
		}
		if disable {
			sh.disabled[n] = true
		} else {
			delete(sh.disabled, n)
		}
	}
	return status
}

// builtinHelp lists the runner's commands with their summaries (bash's
// help lists its builtins; an agent needs the commands), or the flags of
// the names given.
func builtinHelp(sh *Shell, args []string) int {
	w := sh.stdout()
	table := sh.run.cfg.Commands
	names := args[1:]
	if len(names) > 0 && names[0] == "-s" {
		names = names[1:]
	}
	if len(names) == 0 {
		fmt.Fprintln(w, "Commands (shell builtins such as cd, echo, printf, read, test also work):")
		for _, n := range sh.run.programs() {
			fmt.Fprintf(w, "  %-10s %s\n", n, table[n].Summary)
		}
		return 0
	}
	status := 0
	for _, n := range names {
		spec, ok := table[n]
		if !ok {
			if _, isBuiltin := builtins[n]; isBuiltin {
				fmt.Fprintf(w, "%s: a shell builtin (as GNU bash's)\n", n)
				continue
			}
			sh.errorf("help: no help topics match `%s'.  Try `help help' or `man -k %s' or `info %s'.", n, n, n)
			status = 1
			continue
		}
		fmt.Fprintf(w, "%s: %s\n", n, spec.Summary)
		if len(spec.Flags) > 0 {
			fmt.Fprintf(w, "  flags: %s\n", strings.Join(spec.Flags, "  "))
		}
	}
	return status
}
