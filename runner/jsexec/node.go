package jsexec

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/fastschema/qjs"
)

// The Node modules written in plain JavaScript (assert, buffer, events, os,
// url, util, stream, ...) live in node/ as CommonJS sources. QuickJS parses
// source slowly under WebAssembly (util.js alone takes milliseconds), so
// each module is compiled to bytecode once per process, and a run loads
// the bytecode of the modules its script names before the prelude runs
// (loading bytecode cannot happen later: qjs's Eval drains the job queue,
// which inside a require would run promise callbacks out of turn). The
// prelude compiles any other module from source on its first require.
//
//go:embed node
var nodeModules embed.FS

// nodeWrapper is the function each module's source becomes; the prelude
// calls it with the module's exports, require and module.
func nodeWrapper(src string) string {
	return "(function (exports, require, module) {" + src + "\n})"
}

// nodeSource is the prelude's __wsfs_builtin: the source of the module
// named by its argument ("events", "assert/strict", "internal/globals"),
// or undefined when js-exec has no such module.
func nodeSource(this *qjs.This) (*qjs.Value, error) {
	src, ok := nodeModuleSource(argString(this, 0))
	if !ok {
		return this.Context().NewUndefined(), nil
	}
	return this.Context().NewString(src), nil
}

func nodeModuleSource(name string) (string, bool) {
	if !fs.ValidPath(name) {
		return "", false
	}
	b, err := nodeModules.ReadFile("node/" + name + ".js")
	if err != nil {
		return "", false
	}
	return string(b), true
}

var (
	nodeIndexOnce sync.Once
	nodeDeps      map[string][]string // module → the modules it requires
	nodeNamePat   *regexp.Regexp      // a module name in a script's text
	nodeBytecode  sync.Map            // file name → []byte (bytecodeOnce)
)

// Globals that load a module on first use (internal/globals.js).
var nodeGlobalUses = map[string]string{
	"Buffer": "buffer", "atob": "buffer", "btoa": "buffer", "TextEncoder": "internal/encoding",
	"TextDecoder": "internal/encoding", "URL": "url", "URLSearchParams": "url", "structuredClone": "internal/clone",
	"console": "util", "Event": "internal/event_target", "CustomEvent": "internal/event_target",
	"EventTarget": "internal/event_target", "AbortController": "internal/event_target",
	"AbortSignal": "internal/event_target",
}

var requirePat = regexp.MustCompile(`require\("([a-z_/]+)"\)`)

func nodeIndex() {
	nodeIndexOnce.Do(func() {
		nodeDeps = map[string][]string{}
		var names []string
		_ = fs.WalkDir(nodeModules, "node", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".js") {
				return err
			}
			name := strings.TrimSuffix(strings.TrimPrefix(p, "node/"), ".js")
			src, _ := nodeModuleSource(name)
			for _, m := range requirePat.FindAllStringSubmatch(src, -1) {
				nodeDeps[name] = append(nodeDeps[name], m[1])
			}
			if !strings.HasPrefix(name, "internal/") {
				names = append(names, regexp.QuoteMeta(name))
			}
			return nil
		})
		// Longest first, so that "assert/strict" wins over "assert".
		sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
		globals := make([]string, 0, len(nodeGlobalUses))
		for g := range nodeGlobalUses {
			globals = append(globals, g)
		}
		sort.Strings(globals)
		nodeNamePat = regexp.MustCompile(`['"\x60](?:node:)?(` + strings.Join(names, "|") + `)['"\x60]|\b(` +
			strings.Join(globals, "|") + `)\b`)
	})
}

// nodeModulesNamed returns the modules that src names (as a string such as
// 'node:events', or a global such as Buffer), with their dependencies, and
// internal/globals, which every run loads.
func nodeModulesNamed(src string) []string {
	nodeIndex()
	seen := map[string]bool{}
	var order []string
	var add func(string)
	add = func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		for _, d := range nodeDeps[name] {
			add(d)
		}
		order = append(order, name)
	}
	add("internal/globals")
	for _, m := range nodeNamePat.FindAllStringSubmatch(src, -1) {
		if m[1] != "" {
			add(m[1])
		} else {
			add(nodeGlobalUses[m[2]])
		}
	}
	return order
}

// preloadNode defines __wsfs_compiled, an object of the compiled wrapper
// functions of the modules that src names; it runs before the prelude,
// while no JavaScript job is pending.
func preloadNode(c *qjs.Context, src string) error {
	obj := c.NewObject()
	for _, name := range nodeModulesNamed(src) {
		bc, err := nodeModuleBytecode(c, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // a name in a comment; require will say it is missing
		}
		if err != nil {
			obj.Free()
			return err
		}
		fn, err := c.Eval("node:"+name, qjs.Bytecode(bc))
		if err != nil {
			obj.Free()
			return fmt.Errorf("jsexec: loading node:%s: %w", name, err)
		}
		obj.SetPropertyStr(name, fn)
	}
	c.Global().SetPropertyStr("__wsfs_compiled", obj)
	return nil
}

func nodeModuleBytecode(c *qjs.Context, name string) ([]byte, error) {
	src, ok := nodeModuleSource(name)
	if !ok {
		return nil, fmt.Errorf("jsexec: node module %q: %w", name, fs.ErrNotExist)
	}
	return bytecodeOnce(c, "node:"+name, nodeWrapper(src))
}

// bytecodeOnce compiles code under the file name name the first time a
// process asks for it and returns the same bytecode afterwards (QuickJS
// bytecode holds no pointers into the runtime that compiled it). Any
// fixed script (the prelude too) loads from it far faster than from
// source.
func bytecodeOnce(c *qjs.Context, name, code string) ([]byte, error) {
	if bc, ok := nodeBytecode.Load(name); ok {
		return bc.([]byte), nil
	}
	bc, err := c.Compile(name, qjs.Code(code))
	if err != nil {
		return nil, fmt.Errorf("jsexec: compiling %s: %w", name, err)
	}
	nodeBytecode.Store(name, bc)
	return bc, nil
}
