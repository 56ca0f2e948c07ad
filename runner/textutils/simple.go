package textutils

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

// eachInput runs fn over every operand ("-" when none), reporting open
// errors as "name: error" and returning the exit status.
func (r *run) eachInput(operands []string, fn func(name string, f io.Reader) error) int {
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	status := 0
	for _, name := range operands {
		if r.stopped() {
			break
		}
		f, err := r.open(name)
		if err != nil {
			r.env.Errorf("%s: %s", name, command.Strerror(err))
			status = 1
			continue
		}
		err = fn(name, f)
		f.Close()
		if err != nil && r.ctx.Err() == nil && r.sink.err == nil {
			r.env.Errorf("%s: %s", name, command.Strerror(err))
			status = 1
		}
	}
	return status
}

var nlSpec = getopt.Spec{
	Options: []getopt.Option{
		{Short: 'b', Long: "body-numbering", Arg: getopt.Required, ArgName: "STYLE"},
		{Short: 'h', Long: "header-numbering", Arg: getopt.Required, ArgName: "STYLE"},
		{Short: 'f', Long: "footer-numbering", Arg: getopt.Required, ArgName: "STYLE"},
		{Short: 'd', Long: "section-delimiter", Arg: getopt.Required, ArgName: "CC"},
		{Short: 'i', Long: "line-increment", Arg: getopt.Required, ArgName: "NUMBER"},
		{Short: 'l', Long: "join-blank-lines", Arg: getopt.Required, ArgName: "NUMBER"},
		{Short: 'n', Long: "number-format", Arg: getopt.Required, ArgName: "FORMAT"}, {Short: 'p', Long: "no-renumber"},
		{Short: 's', Long: "number-separator", Arg: getopt.Required, ArgName: "STRING"},
		{Short: 'v', Long: "starting-line-number", Arg: getopt.Required, ArgName: "NUMBER"},
		{Short: 'w', Long: "number-width", Arg: getopt.Required, ArgName: "NUMBER"},
	},
}

// Nl implements nl.
func Nl(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	flags, operands, st, ok := nlSpec.Run(env)
	if !ok {
		return st
	}
	styles := [3]string{"n", "t", "n"} // header, body, footer
	var regs [3]*regexp.Regexp
	delim := "\\:"
	incr, start, width, blankJoin := int64(1), int64(1), 6, int64(1)
	format := "rn"
	sep := "\t"
	renumber := true
	for _, f := range flags {
		switch f.Key {
		case "body-numbering", "header-numbering", "footer-numbering":
			idx := map[string]int{"header-numbering": 0, "body-numbering": 1, "footer-numbering": 2}[f.Key]
			what := map[int]string{0: "header", 1: "body", 2: "footer"}[idx]
			switch {
			case f.Value == "a" || f.Value == "t" || f.Value == "n":
				styles[idx] = f.Value
			case len(f.Value) > 0 && f.Value[0] == 'p':
				re, err := regexp.Compile(breToERE(f.Value[1:]))
				if err != nil {
					env.Errorf("invalid regular expression %s", quote(f.Value[1:]))
					return 1
				}
				styles[idx], regs[idx] = "p", re
			default:
				return r.usage(1, "invalid %s numbering style: %s", what, quote(f.Value))
			}
		case "section-delimiter":
			delim = f.Value
			if len(delim) == 1 {
				delim += ":"
			}
		case "line-increment", "starting-line-number", "number-width", "join-blank-lines":
			n, err := strconv.ParseInt(f.Value, 10, 64)
			bad := err != nil || (f.Key == "number-width" && n < 1) || (f.Key == "join-blank-lines" && n < 1)
			if bad {
				what := map[string]string{"line-increment": "line number increment", "starting-line-number": "starting line number",
					"number-width": "line number field width", "join-blank-lines": "line number of blank lines"}[f.Key]
				env.Errorf("invalid %s: %s", what, quote(f.Value))
				return 1
			}
			switch f.Key {
			case "line-increment":
				incr = n
			case "starting-line-number":
				start = n
			case "number-width":
				width = int(min(n, 1<<20))
			case "join-blank-lines":
				blankJoin = n
			}
		case "number-format":
			if f.Value != "ln" && f.Value != "rn" && f.Value != "rz" {
				return r.usage(1, "invalid line numbering format: %s", quote(f.Value))
			}
			format = f.Value
		case "no-renumber":
			renumber = false
		case "number-separator":
			sep = f.Value
		}
	}
	num := start
	section := 1
	blanks := int64(0)
	pad := fmt.Sprintf("%*s", width+len(sep), "")
	pad = pad[:width] + string(bytes.Repeat([]byte{' '}, len(sep)))
	status := r.eachInput(operands, func(name string, f io.Reader) error {
		lr := newLineReader(f, '\n')
		for {
			if r.stopped() {
				return nil
			}
			line, _, ok := lr.next()
			if !ok {
				return lr.err
			}
			s := string(line)
			if delim != "" {
				switch s {
				case delim + delim + delim, delim + delim, delim:
					section = map[int]int{3: 0, 2: 1, 1: 2}[len(s)/len(delim)]
					if renumber {
						num = start
					}
					r.out.WriteByte('\n')
					continue
				}
			}
			number := false
			switch styles[section] {
			case "a":
				if len(line) == 0 {
					blanks++
					if blanks >= blankJoin {
						number, blanks = true, 0
					}
				} else {
					number, blanks = true, 0
				}
			case "t":
				number = len(line) > 0
			case "p":
				number = regs[section].Match(line)
			}
			if number {
				switch format {
				case "ln":
					fmt.Fprintf(r.out, "%-*d", width, num)
				case "rn":
					fmt.Fprintf(r.out, "%*d", width, num)
				case "rz":
					if num < 0 {
						fmt.Fprintf(r.out, "-%0*d", width-1, -num)
					} else {
						fmt.Fprintf(r.out, "%0*d", width, num)
					}
				}
				r.out.WriteString(sep)
				num += incr
			} else {
				r.out.WriteString(pad)
			}
			r.out.Write(line)
			r.out.WriteByte('\n')
		}
	})
	return r.finish(status)
}

// breToERE turns a POSIX basic regular expression into Go syntax: \( \)
// \{ \} \| \+ \? are the operators, bare ( ) { } | + ? are literals.
func breToERE(s string) string {
	var b bytes.Buffer
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			n := s[i+1]
			switch n {
			case '(', ')', '{', '}', '|', '+', '?':
				b.WriteByte(n)
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
			i++
			continue
		}
		switch c {
		case '(', ')', '{', '}', '|', '+', '?':
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

var tacSpec = getopt.Spec{
	Options: []getopt.Option{
		{Short: 'b', Long: "before"}, {Short: 'r', Long: "regex"},
		{Short: 's', Long: "separator", Arg: getopt.Required, ArgName: "STRING"},
	},
}

// Tac implements tac.
func Tac(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	flags, operands, st, ok := tacSpec.Run(env)
	if !ok {
		return st
	}
	before, isRegex := false, false
	sep := "\n"
	for _, f := range flags {
		switch f.Key {
		case "before":
			before = true
		case "regex":
			isRegex = true
		case "separator":
			if f.Value == "" {
				env.Errorf("separator cannot be empty")
				return 1
			}
			sep = f.Value
		}
	}
	var re *regexp.Regexp
	if isRegex {
		var err error
		if re, err = regexp.Compile(breToERE(sep)); err != nil {
			env.Errorf("%s", err)
			return 1
		}
	} else {
		re = regexp.MustCompile(regexp.QuoteMeta(sep))
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	status := 0
	for _, name := range operands {
		data, err := r.readFile(name)
		if err != nil {
			if r.ctx.Err() != nil {
				break
			}
			if isOpenErr(err) {
				env.Errorf("failed to open %s for reading: %s", quote(name), command.Strerror(err))
			} else {
				env.Errorf("%s: read error: %s", name, command.Strerror(err))
			}
			status = 1
			continue
		}
		matches := re.FindAllIndex(data, -1)
		var recs [][]byte
		prev := 0
		for _, m := range matches {
			if m[1] == m[0] {
				continue
			}
			if before {
				if m[0] > prev || prev == 0 && m[0] > 0 {
					recs = append(recs, data[prev:m[0]])
				}
				prev = m[0]
			} else {
				recs = append(recs, data[prev:m[1]])
				prev = m[1]
			}
		}
		if prev < len(data) {
			recs = append(recs, data[prev:])
		}
		for i := len(recs) - 1; i >= 0; i-- {
			if r.stopped() {
				break
			}
			r.out.Write(recs[i])
		}
	}
	return r.finish(status)
}

// Rev implements rev (util-linux): each line's characters reversed.
func Rev(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	_, operands, st, ok := noOptions.Run(env)
	if !ok {
		return st
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	status := 0
	buf := make([]byte, 0, 256)
	for _, name := range operands {
		f, err := r.open(name)
		if err != nil {
			env.Errorf("cannot open %s: %s", name, command.Strerror(err))
			status = 1
			continue
		}
		lr := newLineReader(f, '\n')
		for !r.stopped() {
			line, hadNL, ok := lr.next()
			if !ok {
				break
			}
			buf = buf[:0]
			for i := len(line); i > 0; {
				_, size := utf8.DecodeLastRune(line[:i])
				buf = append(buf, line[i-size:i]...)
				i -= size
			}
			r.out.Write(buf)
			if hadNL {
				r.out.WriteByte('\n')
			}
		}
		f.Close()
		if lr.err != nil && r.ctx.Err() == nil {
			env.Errorf("%s: %s", name, command.Strerror(lr.err))
			status = 1
		}
	}
	return r.finish(status)
}

var foldSpec = getopt.Spec{
	Options: []getopt.Option{
		{Short: 'b', Long: "bytes"}, {Short: 's', Long: "spaces"},
		{Short: 'w', Long: "width", Arg: getopt.Required, ArgName: "WIDTH"},
	},
}

// Fold implements fold, counting columns per byte as GNU fold does.
func Fold(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	args := env.Args
	if len(args) > 1 && len(args[1]) > 1 && args[1][0] == '-' && isDigit(args[1][1]) {
		env.Args = append([]string{args[0], "-w", args[1][1:]}, args[2:]...)
	}
	flags, operands, st, ok := foldSpec.Run(env)
	if !ok {
		return st
	}
	width := 80
	countBytes, breakSpaces := false, false
	for _, f := range flags {
		switch f.Key {
		case "bytes":
			countBytes = true
		case "spaces":
			breakSpaces = true
		case "width":
			n, err := strconv.Atoi(f.Value)
			if err != nil || n < 1 {
				env.Errorf("invalid number of columns: %s", quote(f.Value))
				return 1
			}
			width = n
		}
	}
	adjust := func(col int, c byte) int {
		if countBytes {
			return col + 1
		}
		switch c {
		case '\b':
			if col > 0 {
				return col - 1
			}
			return 0
		case '\r':
			return 0
		case '\t':
			return col + 8 - col%8
		}
		return col + 1
	}
	status := r.eachInput(operands, func(name string, f io.Reader) error {
		br := bufio.NewReaderSize(f, 64<<10)
		var line []byte
		col := 0
		for n := 0; ; n++ {
			if n&4095 == 0 && r.stopped() {
				return nil
			}
			c, err := br.ReadByte()
			if err == io.EOF {
				break
			}
			if err != nil {
				r.out.Write(line)
				return err
			}
			if c == '\n' {
				line = append(line, c)
				r.out.Write(line)
				line, col = line[:0], 0
				continue
			}
		rescan:
			col = adjust(col, c)
			if col > width {
				if breakSpaces {
					end := -1
					for k := len(line) - 1; k >= 0; k-- {
						if line[k] == ' ' || line[k] == '\t' {
							end = k
							break
						}
					}
					if end >= 0 {
						end++
						r.out.Write(line[:end])
						r.out.WriteByte('\n')
						line = append(line[:0], line[end:]...)
						col = 0
						for _, b := range line {
							col = adjust(col, b)
						}
						goto rescan
					}
				}
				if len(line) == 0 {
					line = append(line, c)
					continue
				}
				r.out.Write(line)
				r.out.WriteByte('\n')
				line, col = line[:0], 0
				goto rescan
			}
			line = append(line, c)
		}
		r.out.Write(line)
		return nil
	})
	return r.finish(status)
}
