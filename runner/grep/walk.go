package grep

import (
	"io/fs"
	"path"
	"strings"
)

// maxLinkDepth bounds how many directory symlinks -R follows in one
// chain, so a link cycle ends.
const maxLinkDepth = 40

// walk searches a directory for -r / -R, in name order.
func (g *grep) walk(dir string, linkDepth int) {
	if g.stopAll {
		return
	}
	if err := g.ctx.Err(); err != nil {
		g.searchErr = err
		g.stopAll = true
		return
	}
	ents, err := g.env.FS.ReadDir(dir)
	if err != nil {
		g.fileError(dir, err)
		return
	}
	o := g.o
	for _, ent := range ents {
		if g.stopAll {
			return
		}
		child := dir + "/" + ent.Name()
		if dir == "." && g.implicitRd {
			child = ent.Name()
		} else if dir == "/" {
			child = "/" + ent.Name()
		}
		typ := ent.Type()
		depth := linkDepth
		if typ&fs.ModeSymlink != 0 {
			if o.recursive < 2 {
				continue
			}
			fi, err := g.env.FS.Stat(child)
			if err != nil {
				g.fileError(child, err)
				continue
			}
			typ = fi.Mode().Type()
			if fi.IsDir() {
				depth++
				if depth > maxLinkDepth {
					g.env.Errorf("%s: %s", child, "Too many levels of symbolic links")
					g.hadError = true
					continue
				}
			}
		}
		switch {
		case typ.IsDir():
			if excludedName(o.excludeDirs, nil, ent.Name(), false) {
				continue
			}
			g.walk(child, depth)
		case typ.IsRegular():
			if excludedName(o.excludes, o.includes, ent.Name(), false) {
				continue
			}
			g.searchFile(child)
		default:
			// Devices, FIFOs and sockets found while recursing are skipped.
		}
	}
}

// excludedName applies --exclude (and --include) globs to a file name:
// the base name of a file found while recursing, or any trailing part of
// a command-line name.
func excludedName(excludes, includes []string, name string, commandLine bool) bool {
	candidates := []string{name}
	if commandLine {
		for i := 0; i < len(name); i++ {
			if name[i] == '/' && i+1 < len(name) {
				candidates = append(candidates, name[i+1:])
			}
		}
	}
	matchAny := func(globs []string) bool {
		for _, glob := range globs {
			for _, c := range candidates {
				if ok, _ := path.Match(glob, c); ok {
					return true
				}
				if strings.HasSuffix(glob, "/") {
					if ok, _ := path.Match(strings.TrimSuffix(glob, "/"), c); ok {
						return true
					}
				}
			}
		}
		return false
	}
	if matchAny(excludes) {
		return true
	}
	return len(includes) > 0 && !matchAny(includes)
}
