package textutils

import (
	"context"
	"io"
	"io/fs"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

type wcCounts struct{ lines, words, chars, bytes, maxLen int64 }

var wcSpec = getopt.Spec{
	Options: []getopt.Option{
		{Short: 'l', Long: "lines"}, {Short: 'w', Long: "words"}, {Short: 'c', Long: "bytes"}, {Short: 'm', Long: "chars"},
		{Short: 'L', Long: "max-line-length"},
	},
}

// Wc implements wc. Characters are UTF-8 (the runner's locale is C.UTF-8);
// invalid bytes count as bytes but not as characters, as GNU does.
func Wc(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	flags, operands, st, ok := wcSpec.Run(env)
	if !ok {
		return st
	}
	var pl, pw, pc, pb, pL bool
	for _, f := range flags {
		switch f.Key {
		case "lines":
			pl = true
		case "words":
			pw = true
		case "chars":
			pc = true
		case "bytes":
			pb = true
		case "max-line-length":
			pL = true
		}
	}
	if !pl && !pw && !pc && !pb && !pL {
		pl, pw, pb = true, true, true
	}
	nprint := 0
	for _, b := range []bool{pl, pw, pc, pb, pL} {
		if b {
			nprint++
		}
	}
	stdinOnly := len(operands) == 0
	if stdinOnly {
		operands = []string{"-"}
	}
	// GNU sizes the columns from the inputs' sizes when it can stat them.
	width := 1
	if !(len(operands) == 1 && nprint == 1) {
		minWidth := 1
		var total int64
		for i, name := range operands {
			var fi fs.FileInfo
			var err error
			if name == "-" {
				if s, ok := env.Stdin.(interface{ Stat() (fs.FileInfo, error) }); ok {
					fi, err = s.Stat()
				}
			} else {
				fi, err = env.FS.Stat(name)
			}
			if err != nil {
				if i == 0 {
					minWidth, total = 1, 0
					break
				}
				continue
			}
			if fi != nil && fi.Mode().IsRegular() {
				total += fi.Size()
			} else {
				minWidth = 7
			}
		}
		for ; total >= 10; total /= 10 {
			width++
		}
		if width < minWidth {
			width = minWidth
		}
	}
	print := func(c wcCounts, name string) {
		first := true
		put := func(n int64) {
			s := strconv.FormatInt(n, 10)
			if !first {
				r.out.WriteByte(' ')
			}
			first = false
			for i := len(s); i < width; i++ {
				r.out.WriteByte(' ')
			}
			r.out.WriteString(s)
		}
		if pl {
			put(c.lines)
		}
		if pw {
			put(c.words)
		}
		if pc {
			put(c.chars)
		}
		if pb {
			put(c.bytes)
		}
		if pL {
			put(c.maxLen)
		}
		if name != "" {
			r.out.WriteByte(' ')
			r.out.WriteString(name)
		}
		r.out.WriteByte('\n')
	}
	status := 0
	var total wcCounts
	for _, name := range operands {
		if r.stopped() {
			break
		}
		f, err := r.open(name)
		if err != nil {
			env.Errorf("%s: %s", name, command.Strerror(err))
			status = 1
			continue
		}
		c, err := r.wcCount(f, pw || pc || pL)
		f.Close()
		if err != nil {
			if r.ctx.Err() != nil {
				break
			}
			env.Errorf("%s: %s", name, command.Strerror(err))
			status = 1
		}
		display := name
		if stdinOnly {
			display = ""
		}
		print(c, display)
		total.lines += c.lines
		total.words += c.words
		total.chars += c.chars
		total.bytes += c.bytes
		total.maxLen = max(total.maxLen, c.maxLen)
	}
	if len(operands) > 1 {
		print(total, "total")
	}
	return r.finish(status)
}

func (r *run) wcCount(f io.Reader, slow bool) (wcCounts, error) {
	var c wcCounts
	buf := make([]byte, 64<<10)
	inWord := false
	var col int64
	var pending []byte // an incomplete UTF-8 sequence at a buffer's end
	for {
		if r.ctx.Err() != nil {
			return c, r.ctx.Err()
		}
		n, err := f.Read(buf)
		chunk := buf[:n]
		c.bytes += int64(n)
		if !slow {
			for _, b := range chunk {
				if b == '\n' {
					c.lines++
				}
			}
		} else {
			if len(pending) > 0 {
				chunk = append(pending, chunk...)
				pending = nil
			}
			for i := 0; i < len(chunk); {
				b := chunk[i]
				if b < utf8.RuneSelf {
					i++
					c.chars++
					switch b {
					case '\n':
						c.lines++
						c.maxLen = max(c.maxLen, col)
						col = 0
						inWord = false
					case '\t':
						col += 8 - col%8
						inWord = false
					case ' ':
						col++
						inWord = false
					case '\v':
						inWord = false
					case '\r', '\f':
						c.maxLen = max(c.maxLen, col)
						col = 0
						inWord = false
					default:
						if b >= 0x20 && b < 0x7f {
							col++
						}
						if !inWord {
							c.words++
							inWord = true
						}
					}
					continue
				}
				if !utf8.FullRune(chunk[i:]) && err == nil {
					pending = append([]byte(nil), chunk[i:]...)
					break
				}
				ru, size := utf8.DecodeRune(chunk[i:])
				i += size
				if ru == utf8.RuneError && size == 1 {
					continue
				}
				c.chars++
				if unicode.IsSpace(ru) {
					inWord = false
					continue
				}
				col += int64(runeWidth(ru))
				if !inWord {
					c.words++
					inWord = true
				}
			}
		}
		if err == io.EOF {
			c.maxLen = max(c.maxLen, col)
			return c, nil
		}
		if err != nil {
			return c, err
		}
	}
}

// runeWidth is the terminal width of a printable rune: 0 for combining
// marks, 2 for East Asian wide characters, 1 otherwise (wcwidth's rules).
func runeWidth(r rune) int {
	switch {
	case r == 0:
		return 0
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || unicode.Is(unicode.Cf, r):
		return 0
	case r < 0x1100:
		if !unicode.IsPrint(r) {
			return 0
		}
		return 1
	case r <= 0x115f, r == 0x2329, r == 0x232a,
		r >= 0x2e80 && r <= 0xa4cf && r != 0x303f,
		r >= 0xac00 && r <= 0xd7a3,
		r >= 0xf900 && r <= 0xfaff,
		r >= 0xfe30 && r <= 0xfe6f,
		r >= 0xff00 && r <= 0xff60,
		r >= 0xffe0 && r <= 0xffe6,
		r >= 0x1f300 && r <= 0x1f64f,
		r >= 0x1f900 && r <= 0x1f9ff,
		r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	if !unicode.IsPrint(r) {
		return 0
	}
	return 1
}
