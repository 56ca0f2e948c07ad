package bash

import (
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Redirections work on the shell's own descriptor table (fd.go): for a
// command they replace entries and restore them afterwards; with exec
// they stay. A program gets descriptors 0–2 as its streams and the rest
// as /dev/fd/N. Files are opened through the agent's view, with the
// runner's limits; the count of open files is bounded.

// fdSave is a descriptor a redirection replaced.
type fdSave struct {
	fd   int
	prev *openFile
}

// redirect applies rs in order. restore undoes them (nil work for
// permanent ones); ok is false when one failed (its message printed).
func (sh *Shell) redirect(rs []*syntax.Redirect, permanent bool) (restore func(), ok bool) {
	var saved []fdSave
	restore = func() {
		for i := len(saved) - 1; i >= 0; i-- {
			sh.fds.set(saved[i].fd, saved[i].prev)
		}
		saved = nil
	}
	install := func(fd int, f *openFile, keep bool) {
		if permanent || keep {
			sh.fds.set(fd, f)
			return
		}
		prev := sh.fds.swap(fd, f)
		saved = append(saved, fdSave{fd, prev})
	}
	for _, r := range rs {
		if !sh.redirect1(r, install) {
			return restore, false
		}
	}
	return restore, true
}

// redirect1 applies one redirection through install.
func (sh *Shell) redirect1(r *syntax.Redirect, install func(fd int, f *openFile, keep bool)) bool {
	fd := -1
	varName := ""
	if r.N != nil {
		n := r.N.Value
		if strings.HasPrefix(n, "{") && strings.HasSuffix(n, "}") {
			varName = n[1 : len(n)-1]
		} else {
			v, err := strconv.Atoi(n)
			if err != nil || v >= maxFd {
				sh.errorf("%s: Bad file descriptor", n)
				return false
			}
			fd = v
		}
	}
	if fd < 0 && varName == "" {
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			fd = 0
		default:
			fd = 1
		}
	}
	// {var}>&- closes the descriptor the variable holds.
	if varName != "" && (r.Op == syntax.DplOut || r.Op == syntax.DplIn) && r.Word != nil && r.Word.Lit() == "-" {
		v, _ := sh.getVar(varName)
		if b, sub, ok := splitSubscript(varName); ok {
			v, _ = sh.element(sh.resolve(b).name, sub)
		}
		n, err := strconv.Atoi(v)
		if err != nil || sh.fds.get(n) == nil {
			sh.errorf("%s: Bad file descriptor", v)
			return false
		}
		sh.fds.set(n, nil)
		return true
	}
	if varName != "" {
		base := varName
		if b, _, ok := splitSubscript(varName); ok {
			base = b
		}
		if !isValidName(base) {
			sh.errorf("%s: bad variable name", "{"+varName+"}")
			return false
		}
		fd = sh.fds.free(10)
		var err error
		if b, sub, ok := splitSubscript(varName); ok {
			err = sh.setElement(sh.resolve(b).name, sub, strconv.Itoa(fd), false)
		} else {
			err = sh.setVar(varName, strconv.Itoa(fd))
		}
		if err != nil {
			sh.errorf("%v", err)
			return false
		}
	}
	keep := varName != ""
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		body, err := sh.heredocBody(r)
		if err != nil {
			sh.expandFailed(err)
			return false
		}
		install(fd, stringFile(body), keep)
		return true
	case syntax.WordHdoc:
		s, err := sh.expandString(r.Word)
		if err != nil {
			sh.expandFailed(err)
			return false
		}
		install(fd, stringFile(s+"\n"), keep)
		return true
	}
	target, ok := sh.redirTarget(r)
	if !ok {
		return false
	}
	switch r.Op {
	case syntax.DplIn, syntax.DplOut:
		if target == "-" {
			install(fd, nil, keep)
			return true
		}
		move := strings.HasSuffix(target, "-")
		num := strings.TrimSuffix(target, "-")
		src, err := strconv.Atoi(num)
		if err != nil {
			if r.Op == syntax.DplOut && !move && fd == 1 && r.N == nil {
				// >&file is &>file
				return sh.openTarget(target, syntax.RdrAll, 1, install, keep)
			}
			sh.errorf("%s: ambiguous redirect", target)
			return false
		}
		of := sh.fds.get(src)
		if of == nil || src >= maxFd {
			sh.errorf("%d: Bad file descriptor", src)
			return false
		}
		if src == fd {
			return true
		}
		install(fd, of.acquire(), keep)
		if move {
			install(src, nil, false)
		}
		return true
	}
	return sh.openTarget(target, r.Op, fd, install, keep)
}

// redirTarget expands a redirection's word to exactly one name.
func (sh *Shell) redirTarget(r *syntax.Redirect) (string, bool) {
	fields, err := sh.expandFields(r.Word)
	if err != nil {
		sh.expandFailed(err)
		return "", false
	}
	if len(fields) != 1 {
		sh.errorf("%s: ambiguous redirect", sh.nodeText(r.Word))
		return "", false
	}
	return fields[0], true
}

// openTarget opens a file for a redirection and installs it at fd (both
// 1 and 2 for &> and &>>).
func (sh *Shell) openTarget(name string, op syntax.RedirOperator, fd int, install func(int, *openFile, bool), keep bool) bool {
	var flag int
	read, write := false, false
	switch op {
	case syntax.RdrIn:
		flag, read = os.O_RDONLY, true
	case syntax.RdrInOut:
		flag, read, write = os.O_RDWR|os.O_CREATE, true, true
	case syntax.AppOut, syntax.AppAll:
		flag, write = os.O_WRONLY|os.O_CREATE|os.O_APPEND, true
	default: // > >| &>
		flag, write = os.O_WRONLY|os.O_CREATE|os.O_TRUNC, true
	}
	of, ok := sh.openFor(name, flag, read, write, op == syntax.RdrOut || op == syntax.RdrAll)
	if !ok {
		return false
	}
	if op == syntax.RdrAll || op == syntax.AppAll {
		install(1, of, keep)
		install(2, of.acquire(), keep)
		return true
	}
	install(fd, of, keep)
	return true
}

// openFor opens name as a redirection does: /dev/fd/N and /dev/std*
// duplicate the shell's descriptors, noclobber refuses to truncate an
// existing file, the count of open files is bounded.
func (sh *Shell) openFor(name string, flag int, read, write, clobberCheck bool) (*openFile, bool) {
	if n, ok := devFdNumber(name); ok {
		of := sh.fds.get(n)
		if of == nil {
			sh.errorf("%s: No such file or directory", name)
			return nil, false
		}
		return of.acquire(), true
	}
	if name == "" {
		sh.errorf(": No such file or directory")
		return nil, false
	}
	if clobberCheck && sh.opts.noclobber {
		if fi, err := sh.view().Stat(name); err == nil && fi.Mode().IsRegular() {
			sh.errorf("%s: cannot overwrite existing file", name)
			return nil, false
		}
	}
	if int(sh.run.openFiles.Load()) >= sh.run.cfg.MaxOpenFiles {
		if sh.run.cfg.Limit != nil {
			sh.run.cfg.Limit("open-files", fmt.Sprintf("wsfs: open file limit %d reached", sh.run.cfg.MaxOpenFiles))
		}
		sh.errorf("%s: Too many open files", name)
		return nil, false
	}
	fsys := sh.commandFS(sh.dir, sh.stdio())
	f, err := fsys.OpenFile(name, flag, 0o666)
	if err != nil {
		sh.errorf("%s: %s", name, errText(unwrapPath(err)))
		return nil, false
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() && write {
		f.Close()
		sh.errorf("%s: Is a directory", name)
		return nil, false
	}
	return sh.run.newOpenFile(name, f, read, write), true
}

func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	if le, ok := err.(*os.LinkError); ok {
		return le.Err
	}
	return err
}

// devFdNumber returns N for /dev/fd/N, /dev/stdin (0), /dev/stdout (1)
// and /dev/stderr (2), which bash opens as duplicates of its own
// descriptors.
func devFdNumber(name string) (int, bool) {
	switch name {
	case "/dev/stdin":
		return 0, true
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	s, ok := strings.CutPrefix(name, "/dev/fd/")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// heredocBody expands a here-document: literal when its delimiter was
// quoted, else with parameter, arithmetic and command substitution.
func (sh *Shell) heredocBody(r *syntax.Redirect) (string, error) {
	if r.Hdoc == nil {
		return "", nil
	}
	body := r.Hdoc
	if r.Op == syntax.DashHdoc {
		body = stripTabs(body)
	}
	quoted := false
	for _, p := range r.Word.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			quoted = true
		case *syntax.Lit:
			if strings.Contains(p.Value, "\\") {
				quoted = true
			}
		}
	}
	if quoted {
		var b strings.Builder
		for _, p := range body.Parts {
			if l, ok := p.(*syntax.Lit); ok {
				b.WriteString(l.Value)
			} else {
				syntax.NewPrinter().Print(&b, &syntax.Word{Parts: []syntax.WordPart{p}})
			}
		}
		return b.String(), nil
	}
	x := expander{sh: sh, mode: modeHeredoc}
	if err := x.word(body); err != nil {
		return "", err
	}
	return string(x.cur.b), nil
}

// stripTabs drops the leading tabs of every line of a <<- body (those
// the script wrote, not those an expansion gives).
func stripTabs(w *syntax.Word) *syntax.Word {
	out := &syntax.Word{}
	atStart := true
	for _, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			out.Parts = append(out.Parts, p)
			atStart = false
			continue
		}
		var b strings.Builder
		for i := 0; i < len(l.Value); i++ {
			c := l.Value[i]
			if atStart && c == '\t' {
				continue
			}
			atStart = c == '\n'
			b.WriteByte(c)
		}
		cp := *l
		cp.Value = b.String()
		out.Parts = append(out.Parts, &cp)
	}
	return out
}
