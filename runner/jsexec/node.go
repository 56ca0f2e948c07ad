package jsexec

import (
	"embed"
	"io/fs"

	"github.com/fastschema/qjs"
)

// The Node modules written in plain JavaScript (assert, buffer, events, os,
// url, util, stream, ...) live in node/ as CommonJS sources. The prelude
// asks for one by name the first time a script requires it, so a run pays
// only for the modules it uses.
//
//go:embed node
var nodeModules embed.FS

// nodeSource is the prelude's __wsfs_builtin: the source of the module
// named by its argument ("events", "assert/strict", "internal/globals"),
// or undefined when js-exec has no such module.
func nodeSource(this *qjs.This) (*qjs.Value, error) {
	name := argString(this, 0)
	if !fs.ValidPath(name) {
		return this.Context().NewUndefined(), nil
	}
	b, err := nodeModules.ReadFile("node/" + name + ".js")
	if err != nil {
		return this.Context().NewUndefined(), nil
	}
	return this.Context().NewString(string(b)), nil
}
