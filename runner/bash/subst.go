package bash

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// maxSubstBytes bounds what one command substitution may capture.
const maxSubstBytes = 512 << 20

// captureBuffer collects a command substitution's output.
type captureBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	over bool
}

func (c *captureBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.buf.Len()+len(p) > maxSubstBytes {
		c.over = true
		return 0, errBrokenPipe
	}
	return c.buf.Write(p)
}

// cmdSubst runs $( … ) or ` … ` in a subshell and returns its output
// without trailing newlines.
func (sh *Shell) cmdSubst(p *syntax.CmdSubst) (string, error) {
	if name, ok := catFileSubst(p); ok {
		return sh.readFileSubst(name)
	}
	if !sh.checkDepth() {
		return "", &expandError{msg: "", printed: true}
	}
	sub := sh.fork()
	sub.depth++
	sub.inSubst = true
	sub.traceLevel++
	if !sh.shopts.inheritErrexit && !sh.opts.posix {
		sub.errexitOff = true
	}
	capture := &captureBuffer{}
	out := streamFile("pipe", nil, capture)
	sub.fds.set(1, out)
	sh.runForked(sub, func(s *Shell) {
		s.stmts(p.Stmts)
		if s.flow == flowReturn {
			s.flow = flowNone
		}
	})
	sh.substStatus = sub.status
	sh.hadSubst = true
	if capture.over {
		sh.run.limit("subst", fmt.Sprintf("wsfs: command substitution output larger than %d MiB", maxSubstBytes>>20))
		return "", &expandError{msg: "", printed: true}
	}
	data := capture.buf.Bytes()
	if bytes.IndexByte(data, 0) >= 0 {
		sh.errorf("warning: command substitution: ignored null byte in input")
		data = bytes.ReplaceAll(data, []byte{0}, nil)
	}
	return string(bytes.TrimRight(data, "\n")), nil
}

// catFileSubst recognizes $(< file).
func catFileSubst(p *syntax.CmdSubst) (*syntax.Word, bool) {
	if len(p.Stmts) != 1 {
		return nil, false
	}
	s := p.Stmts[0]
	if s.Cmd != nil || len(s.Redirs) != 1 || s.Negated || s.Background {
		return nil, false
	}
	r := s.Redirs[0]
	if r.Op != syntax.RdrIn || r.N != nil {
		return nil, false
	}
	return r.Word, true
}

// readFileSubst is $(< file): the file's content.
func (sh *Shell) readFileSubst(w *syntax.Word) (string, error) {
	name, err := sh.expandString(w)
	if err != nil {
		return "", err
	}
	f, err := sh.view().Open(name)
	if err != nil {
		sh.errorf("%s: %s", name, errText(err))
		sh.substStatus = 1
		sh.hadSubst = true
		return "", nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSubstBytes))
	if err != nil {
		sh.errorf("%s: %s", name, errText(err))
	}
	sh.substStatus = 0
	sh.hadSubst = true
	return string(bytes.TrimRight(bytes.ReplaceAll(data, []byte{0}, nil), "\n")), nil
}

// procSubst starts <( … ) or >( … ) and returns the /dev/fd/N name of
// its end of the pipe, open in this shell until the command using it
// ends.
func (sh *Shell) procSubst(p *syntax.ProcSubst) (string, error) {
	if !sh.checkDepth() {
		return "", &expandError{msg: "", printed: true}
	}
	rd, wr := sh.run.pipeFiles()
	sub := sh.fork()
	sub.depth++
	var mine *openFile
	if p.Op == syntax.CmdIn {
		sub.fds.set(1, wr)
		mine = rd
	} else {
		sub.fds.set(0, rd)
		mine = wr
	}
	fd := 63
	for fd > 10 && sh.fds.get(fd) != nil {
		fd--
	}
	if sh.fds.get(fd) != nil {
		fd = sh.fds.free(64)
	}
	sh.fds.set(fd, mine)
	sh.procFds = append(sh.procFds, fd)
	j := sh.newJob(sub, "")
	j.procSubst = true
	ok := sh.goroutine(func() {
		sh.runForked(sub, func(s *Shell) { s.stmts(p.Stmts) })
		j.end(sub.status)
	})
	if !ok {
		sub.finish()
		return "", &expandError{msg: "", printed: true}
	}
	sh.lastBg = j.pid
	return "/dev/fd/" + strconv.Itoa(fd), nil
}

// closeProcFds closes the descriptors of process substitutions made
// since mark (the command that used them has ended).
func (sh *Shell) closeProcFds(mark int) {
	for _, fd := range sh.procFds[mark:] {
		sh.fds.set(fd, nil)
	}
	sh.procFds = sh.procFds[:mark]
}
