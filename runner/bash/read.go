package bash

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// read and mapfile (readarray).

type readOpts struct {
	array   string
	delim   byte
	nchars  int // -n: at most
	exact   int // -N: exactly
	raw     bool
	silent  bool
	prompt  string
	timeout float64
	hasTime bool
	fd      int
	names   []string
}

func builtinRead(sh *Shell, args []string) int {
	o := readOpts{delim: '\n', nchars: -1, exact: -1}
	rest := args[1:]
	for len(rest) > 0 {
		a := rest[0]
		if a == "--" {
			rest = rest[1:]
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		rest = rest[1:]
		for j := 1; j < len(a); j++ {
			c := a[j]
			switch c {
			case 'r':
				o.raw = true
				continue
			case 's':
				o.silent = true
				continue
			case 'e':
				continue
			}
			// options with a value: the rest of this word or the next
			val := a[j+1:]
			if val == "" {
				if len(rest) == 0 {
					sh.errorf("read: -%c: option requires an argument", c)
					fmt.Fprintln(sh.stderr(), "read: usage: read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]")
					return 2
				}
				val = rest[0]
				rest = rest[1:]
			}
			switch c {
			case 'a':
				o.array = val
			case 'd':
				if val == "" {
					o.delim = 0
				} else {
					o.delim = val[0]
				}
			case 'i':
			case 'n', 'N':
				n, err := strconv.Atoi(val)
				if err != nil || n < 0 {
					sh.errorf("read: %s: invalid number", val)
					return 2
				}
				if c == 'n' {
					o.nchars = n
				} else {
					o.exact = n
				}
			case 'p':
				o.prompt = val
			case 't':
				f, err := strconv.ParseFloat(val, 64)
				if err != nil || f < 0 {
					sh.errorf("read: %s: invalid timeout specification", val)
					return 2
				}
				o.timeout, o.hasTime = f, true
			case 'u':
				n, err := strconv.Atoi(val)
				if err != nil || n < 0 {
					sh.errorf("read: %s: invalid file descriptor specification", val)
					return 1
				}
				o.fd = n
			default:
				sh.errorf("read: -%c: invalid option", c)
				fmt.Fprintln(sh.stderr(), "read: usage: read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]")
				return 2
			}
			break
		}
	}
	o.names = rest
	for _, n := range o.names {
		name := n
		if b, _, ok := splitSubscript(n); ok {
			name = b
		}
		if !isValidName(name) {
			sh.errorf("read: `%s': not a valid identifier", n)
			return 1
		}
	}
	if o.array != "" && !isValidName(o.array) {
		sh.errorf("read: `%s': not a valid identifier", o.array)
		return 1
	}
	of := sh.fds.get(o.fd)
	if of == nil || of.r == nil {
		sh.errorf("read: %d: invalid file descriptor: Bad file descriptor", o.fd)
		return 1
	}
	if o.hasTime && o.timeout == 0 {
		return boolStatus(inputReady(of))
	}
	var line field
	var eof bool
	var err error
	if o.hasTime {
		type result struct {
			f   field
			eof bool
			err error
		}
		ch := make(chan result, 1)
		go func() {
			f, e, er := sh.readRecord(of, o)
			ch <- result{f, e, er}
		}()
		select {
		case r := <-ch:
			line, eof, err = r.f, r.eof, r.err
		case <-time.After(time.Duration(o.timeout * float64(time.Second))):
			return 142
		case <-sh.ctx.Done():
			return 124
		}
	} else {
		line, eof, err = sh.readRecord(of, o)
	}
	if err != nil {
		sh.errorf("read: read error: %d: %s", o.fd, errText(unwrapPath(err)))
		return 1
	}
	line = dropNUL(line)
	status := 0
	if eof {
		status = 1
	}
	if o.exact >= 0 && len(o.names) > 0 {
		// -N: the characters go to the first name as they are.
		line = field{b: line.b, m: make([]uint8, len(line.b))}
		vals := []string{string(line.b)}
		for i, n := range o.names {
			v := ""
			if i < len(vals) {
				v = vals[i]
			}
			if err := sh.setVar(n, v); err != nil {
				sh.errorf("read: %v", err)
				return 1
			}
		}
		return status
	}
	if o.array != "" {
		parts := splitField(markSplit(line), sh.ifs())
		vals := make([]arrayValue, 0, len(parts))
		for _, p := range parts {
			if len(p.b) == 0 && !p.quoted {
				continue
			}
			vals = append(vals, arrayValue{val: string(p.b)})
		}
		if err := sh.setArray(o.array, vals, false, false); err != nil {
			sh.errorf("read: %v", err)
			return 1
		}
		return status
	}
	if len(o.names) == 0 {
		if err := sh.setVar("REPLY", string(line.b)); err != nil {
			sh.errorf("read: %v", err)
			return 1
		}
		return status
	}
	vals := readSplit(line, sh.ifs(), len(o.names))
	for i, n := range o.names {
		v := ""
		if i < len(vals) {
			v = vals[i]
		}
		var err error
		if b, sub, ok := splitSubscript(n); ok {
			err = sh.setElement(b, sub, v, false)
		} else {
			err = sh.setVar(n, v)
		}
		if err != nil {
			sh.errorf("read: %v", err)
			return 1
		}
	}
	return status
}

// dropNUL removes NUL bytes, which read ignores.
func dropNUL(f field) field {
	if strings.IndexByte(string(f.b), 0) < 0 {
		return f
	}
	var out field
	for i, c := range f.b {
		if c != 0 {
			out.b = append(out.b, c)
			out.m = append(out.m, f.m[i])
		}
	}
	out.quoted = f.quoted
	return out
}

// inputReady is read -t 0: whether input is waiting.
func inputReady(of *openFile) bool {
	of.mu.Lock()
	n := len(of.pending)
	of.mu.Unlock()
	if n > 0 || of.file != nil {
		return true
	}
	if pr, ok := of.r.(*pipeReader); ok {
		p := pr.p
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.buf) > 0 || p.wClosed
	}
	return true
}

// markSplit marks a read record's unescaped bytes as splittable.
func markSplit(f field) field { return f }

// readRecord reads one record: up to the delimiter (or -n/-N
// characters), with backslash escapes unless -r. Escaped characters are
// marked quoted so that splitting leaves them alone.
func (sh *Shell) readRecord(of *openFile, o readOpts) (field, bool, error) {
	var f field
	if o.exact >= 0 || o.nchars >= 0 {
		limit := o.exact
		if limit < 0 {
			limit = o.nchars
		}
		count := 0
		escape := false
		for count < limit {
			b, err := readRune(of)
			if len(b) == 0 {
				if err == io.EOF || err == nil {
					return f, true, nil
				}
				return f, false, err
			}
			if o.exact < 0 && !escape && b[0] == o.delim {
				return f, false, nil
			}
			if !o.raw && !escape && b[0] == '\\' {
				escape = true
				continue
			}
			if escape {
				escape = false
				if b[0] == '\n' {
					continue
				}
				f.add(string(b), mQuoted)
			} else {
				f.add(string(b), mExpand)
			}
			count++
		}
		return f, false, nil
	}
	for {
		chunk, err := of.readUntil(o.delim, 0)
		complete := len(chunk) > 0 && chunk[len(chunk)-1] == o.delim && err == nil
		if complete {
			chunk = chunk[:len(chunk)-1]
		}
		if o.raw {
			f.add(string(chunk), mExpand)
		} else {
			cont := false
			for i := 0; i < len(chunk); i++ {
				c := chunk[i]
				if c == '\\' {
					if i+1 < len(chunk) {
						i++
						f.addByte(chunk[i], mQuoted)
						continue
					}
					// A backslash before the delimiter continues the line.
					if complete {
						cont = true
						continue
					}
					continue
				}
				f.addByte(c, mExpand)
			}
			if cont {
				if err != nil {
					return f, true, nil
				}
				continue
			}
		}
		if complete {
			return f, false, nil
		}
		if err == io.EOF {
			return f, true, nil
		}
		if err != nil {
			return f, false, err
		}
		return f, true, nil
	}
}

// readRune reads one character (a UTF-8 sequence, or one byte).
func readRune(of *openFile) ([]byte, error) {
	b, err := of.readN(1)
	if len(b) == 0 {
		return nil, err
	}
	if b[0] < 0x80 {
		return b, nil
	}
	need := 0
	switch {
	case b[0]&0xe0 == 0xc0:
		need = 1
	case b[0]&0xf0 == 0xe0:
		need = 2
	case b[0]&0xf8 == 0xf0:
		need = 3
	}
	for i := 0; i < need; i++ {
		c, _ := of.peekByte()
		if c&0xc0 != 0x80 {
			break
		}
		nb, _ := of.readN(1)
		b = append(b, nb...)
	}
	if !utf8.Valid(b) {
		return b[:1], nil
	}
	return b, nil
}

// readSplit splits a read record among n names: IFS splitting, the last
// name taking the rest of the line (trailing IFS white space dropped,
// and a single trailing delimiter when the rest is one field).
func readSplit(f field, ifs string, n int) []string {
	if ifs == "" {
		return []string{string(f.b)}
	}
	isSep := func(i int) bool { return f.m[i]&mSplit != 0 && strings.IndexByte(ifs, f.b[i]) >= 0 }
	isWS := func(i int) bool { return isSep(i) && isIFSWhite(f.b[i]) }
	i := 0
	for i < len(f.b) && isWS(i) {
		i++
	}
	var out []string
	for len(out) < n-1 && i < len(f.b) {
		start := i
		for i < len(f.b) && !isSep(i) {
			i++
		}
		out = append(out, string(f.b[start:i]))
		// the separator run
		for i < len(f.b) && isWS(i) {
			i++
		}
		if i < len(f.b) && isSep(i) && !isIFSWhite(f.b[i]) {
			i++
			for i < len(f.b) && isWS(i) {
				i++
			}
		}
	}
	if i < len(f.b) {
		end := len(f.b)
		for end > i && isWS(end-1) {
			end--
		}
		rest := f.b[i:end]
		// One field followed by one delimiter: the delimiter goes.
		if end > i && isSep(end-1) {
			single := true
			for k := i; k < end-1; k++ {
				if isSep(k) {
					single = false
					break
				}
			}
			if single {
				rest = f.b[i : end-1]
			}
		}
		out = append(out, string(rest))
	}
	return out
}

// builtinMapfile is mapfile and readarray.
func builtinMapfile(sh *Shell, args []string) int {
	delim := byte('\n')
	count, origin, skip, fd := 0, 0, 0, 0
	trim := false
	callback, quantum := "", 5000
	rest := args[1:]
	for len(rest) > 0 {
		a := rest[0]
		if a == "--" {
			rest = rest[1:]
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		rest = rest[1:]
		c := a[1]
		if c == 't' && len(a) == 2 {
			trim = true
			continue
		}
		val := a[2:]
		if val == "" {
			if len(rest) == 0 {
				sh.errorf("%s: -%c: option requires an argument", args[0], c)
				return 2
			}
			val = rest[0]
			rest = rest[1:]
		}
		num := func() (int, bool) {
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 {
				sh.errorf("%s: %s: invalid number", args[0], val)
				return 0, false
			}
			return n, true
		}
		var ok bool
		switch c {
		case 'd':
			if val == "" {
				delim = 0
			} else {
				delim = val[0]
			}
			ok = true
		case 'n':
			count, ok = num()
		case 'O':
			origin, ok = num()
		case 's':
			skip, ok = num()
		case 'u':
			fd, ok = num()
		case 'C':
			callback, ok = val, true
		case 'c':
			quantum, ok = num()
		default:
			sh.errorf("%s: -%c: invalid option", args[0], c)
			fmt.Fprintf(sh.stderr(), "%s: usage: %s [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback] [-c quantum] [array]\n", args[0], args[0])
			return 2
		}
		if !ok {
			return 1
		}
	}
	name := "MAPFILE"
	if len(rest) > 0 {
		name = rest[0]
	}
	if !isValidName(name) {
		sh.errorf("%s: `%s': not a valid identifier", args[0], name)
		return 1
	}
	of := sh.fds.get(fd)
	if of == nil || of.r == nil {
		sh.errorf("%s: %d: invalid file descriptor: Bad file descriptor", args[0], fd)
		return 1
	}
	if origin == 0 {
		if v := sh.lookup(name); v != nil && v.attrs&aReadonly != 0 {
			sh.errorf("%s: %s: readonly variable", args[0], name)
			return 1
		}
		sh.unsetVar(name, false)
	}
	var vals []arrayValue
	n := 0
	for i := 0; count == 0 || n < count; i++ {
		if sh.stopped() {
			break
		}
		line, err := of.readUntil(delim, 0)
		if len(line) == 0 {
			break
		}
		if i < skip {
			continue
		}
		if trim && line[len(line)-1] == delim {
			line = line[:len(line)-1]
		}
		if k := bytes.IndexByte(line, 0); k >= 0 {
			line = line[:k] // mapfile stores C strings
		}
		idx := origin + n
		vals = append(vals, arrayValue{index: idx, hasIndex: true, val: string(line)})
		n++
		if callback != "" && quantum > 0 && n%quantum == 0 {
			sh.runText(callback+" "+strconv.Itoa(idx)+" "+shellQuote(string(line)), "", sh.line-1)
		}
		if err != nil {
			break
		}
	}
	if err := sh.setArray(name, vals, origin > 0, false); err != nil {
		sh.errorf("%s: %v", args[0], err)
		return 1
	}
	if v := sh.lookup(name); v != nil {
		v = sh.own(name, v)
		v.set = true
		if v.attrs&aIndexed == 0 && v.attrs&aAssoc == 0 {
			v.attrs |= aIndexed
			v.arr = &indexed{}
		}
	}
	return 0
}
