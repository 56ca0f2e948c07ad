package textutils

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

// trElem is one parsed element of a tr set: a character, a range, a
// class, or a [c*n] repeat (n == -1: fill up to the length of set 1).
type trElem struct {
	kind   byte // 'c' char, 'r' range, 'k' class, '*' repeat
	lo, hi byte
	class  string
	n      int
}

var trClasses = map[string]func(c byte) bool{
	"alnum":  func(c byte) bool { return isAlpha(c) || isDigit(c) },
	"alpha":  isAlpha,
	"blank":  func(c byte) bool { return c == ' ' || c == '\t' },
	"cntrl":  func(c byte) bool { return c < 32 || c == 127 },
	"digit":  isDigit,
	"graph":  func(c byte) bool { return c > 32 && c < 127 },
	"lower":  func(c byte) bool { return c >= 'a' && c <= 'z' },
	"print":  func(c byte) bool { return c >= 32 && c < 127 },
	"punct":  func(c byte) bool { return c > 32 && c < 127 && !isAlpha(c) && !isDigit(c) },
	"space":  func(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' },
	"upper":  func(c byte) bool { return c >= 'A' && c <= 'Z' },
	"xdigit": func(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' },
}

// trUnescape reads one possibly backslash-escaped byte at s[i:].
func trUnescape(s string, i int) (byte, int) {
	if s[i] != '\\' || i+1 >= len(s) {
		return s[i], i + 1
	}
	c := s[i+1]
	switch c {
	case 'a':
		return 7, i + 2
	case 'b':
		return 8, i + 2
	case 'f':
		return 12, i + 2
	case 'n':
		return '\n', i + 2
	case 'r':
		return '\r', i + 2
	case 't':
		return '\t', i + 2
	case 'v':
		return 11, i + 2
	}
	if c >= '0' && c <= '7' {
		n, j := 0, i+1
		for j < len(s) && j < i+4 && s[j] >= '0' && s[j] <= '7' && n*8+int(s[j]-'0') < 256 {
			n = n*8 + int(s[j]-'0')
			j++
		}
		return byte(n), j
	}
	return c, i + 2
}

func parseTrSet(s string) ([]trElem, string) {
	var out []trElem
	for i := 0; i < len(s); {
		if s[i] == '[' && i+1 < len(s) {
			// [:class:], [=c=], [c*n]
			if s[i+1] == ':' {
				if j := indexFrom(s, ":]", i+2); j >= 0 {
					name := s[i+2 : j]
					if _, ok := trClasses[name]; !ok {
						return nil, fmt.Sprintf("invalid character class %s", quote(name))
					}
					out = append(out, trElem{kind: 'k', class: name})
					i = j + 2
					continue
				}
			}
			if s[i+1] == '=' {
				if j := indexFrom(s, "=]", i+2); j == i+3 {
					out = append(out, trElem{kind: 'c', lo: s[i+2]})
					i = j + 2
					continue
				}
			}
			if i+2 < len(s) {
				c, j := trUnescape(s, i+1)
				if j < len(s) && s[j] == '*' {
					if k := indexFrom(s, "]", j+1); k >= 0 {
						num := s[j+1 : k]
						n := -1
						if num != "" {
							base := 10
							if num[0] == '0' {
								base = 8
							}
							v, err := strconv.ParseInt(num, base, 32)
							if err != nil {
								return nil, fmt.Sprintf("invalid repeat count %s in [c*n] construct", quote(num))
							}
							n = int(v)
							if n == 0 {
								n = -1
							}
						}
						out = append(out, trElem{kind: '*', lo: c, n: n})
						i = k + 1
						continue
					}
				}
			}
		}
		c, j := trUnescape(s, i)
		if j < len(s)-1 && s[j] == '-' {
			hi, k := trUnescape(s, j+1)
			if hi < c {
				return nil, fmt.Sprintf("range-endpoints of %s are in reverse collating sequence order", quote(s[i:k]))
			}
			out = append(out, trElem{kind: 'r', lo: c, hi: hi})
			i = k
			continue
		}
		out = append(out, trElem{kind: 'c', lo: c})
		i = j
	}
	return out, ""
}

func indexFrom(s, sub string, from int) int {
	for i := from; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// expandTr lists the bytes of a set; fill is the length [c*] fills up to.
func expandTr(elems []trElem, fill int) []byte {
	var out []byte
	fixed := 0
	for _, e := range elems {
		switch e.kind {
		case 'c':
			fixed++
		case 'r':
			fixed += int(e.hi-e.lo) + 1
		case 'k':
			for c := 0; c < 256; c++ {
				if trClasses[e.class](byte(c)) {
					fixed++
				}
			}
		case '*':
			if e.n > 0 {
				fixed += e.n
			}
		}
	}
	for _, e := range elems {
		switch e.kind {
		case 'c':
			out = append(out, e.lo)
		case 'r':
			for c := int(e.lo); c <= int(e.hi); c++ {
				out = append(out, byte(c))
			}
		case 'k':
			for c := 0; c < 256; c++ {
				if trClasses[e.class](byte(c)) {
					out = append(out, byte(c))
				}
			}
		case '*':
			n := e.n
			if n < 0 {
				n = max(fill-fixed, 0)
			}
			for k := 0; k < n; k++ {
				out = append(out, e.lo)
			}
		}
	}
	return out
}

var trSpec = getopt.Spec{
	Options: []getopt.Option{
		{Short: 'c', Key: "complement"}, {Short: 'C', Key: "complement"}, {Long: "complement"}, {Short: 'd', Long: "delete"},
		{Short: 's', Long: "squeeze-repeats"}, {Short: 't', Long: "truncate-set1"},
	},
}

// Tr implements tr over bytes, as GNU tr does.
func Tr(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	flags, operands, st, ok := trSpec.Run(env)
	if !ok {
		return st
	}
	var complement, del, squeeze, truncate bool
	for _, f := range flags {
		switch f.Key {
		case "complement":
			complement = true
		case "delete":
			del = true
		case "squeeze-repeats":
			squeeze = true
		case "truncate-set1":
			truncate = true
		}
	}
	need := 1
	if (del && squeeze) || (!del && !squeeze) {
		need = 2
	}
	switch {
	case len(operands) == 0:
		return r.usage(1, "missing operand")
	case len(operands) < need:
		why := "Two strings must be given when translating."
		if del {
			why = "Two strings must be given when both deleting and squeezing repeats."
		}
		env.Errorf("missing operand after %s", quote(operands[len(operands)-1]))
		fmt.Fprintln(env.Stderr, why)
		fmt.Fprintf(env.Stderr, "Try '%s --help' for more information.\n", env.Name())
		return 1
	case len(operands) > need && !(need == 1 && squeeze && len(operands) == 2):
		if del && !squeeze && len(operands) == 2 {
			env.Errorf("extra operand %s", quote(operands[1]))
			fmt.Fprintln(env.Stderr, "Only one string may be given when deleting without squeezing repeats.")
			fmt.Fprintf(env.Stderr, "Try '%s --help' for more information.\n", env.Name())
			return 1
		}
		return r.usage(1, "extra operand %s", quote(operands[need]))
	}
	e1, msg := parseTrSet(operands[0])
	if msg != "" {
		env.Errorf("%s", msg)
		return 1
	}
	for _, e := range e1 {
		if e.kind == '*' && e.n < 0 {
			env.Errorf("the [c*] repeat construct may not appear in string1")
			return 1
		}
	}
	set1 := expandTr(e1, 0)
	if complement {
		var in [256]bool
		for _, c := range set1 {
			in[c] = true
		}
		set1 = set1[:0]
		for c := 0; c < 256; c++ {
			if !in[c] {
				set1 = append(set1, byte(c))
			}
		}
	}
	var set2 []byte
	translating := len(operands) == 2 && !del
	if len(operands) == 2 {
		e2, msg := parseTrSet(operands[1])
		if msg != "" {
			env.Errorf("%s", msg)
			return 1
		}
		if translating {
			for i, e := range e2 {
				if e.kind == 'k' && e.class != "upper" && e.class != "lower" {
					env.Errorf("when translating, the only character classes that may appear in\nstring2 are 'upper' and 'lower'")
					return 1
				}
				if e.kind == 'k' && (i >= len(e1) || e1[i].kind != 'k' || e1[i].class == e.class) {
					env.Errorf("misaligned [:upper:] and/or [:lower:] construct")
					return 1
				}
			}
		}
		set2 = expandTr(e2, len(set1))
		if translating && !truncate && len(set1) > len(set2) && len(e2) > 0 && e2[len(e2)-1].kind == 'k' {
			env.Errorf("when translating with string1 longer than string2,\nthe latter string must not end with a character class")
			return 1
		}
		hasClass := false
		for _, e := range e1 {
			hasClass = hasClass || e.kind == 'k'
		}
		if translating && complement && hasClass {
			for _, c := range set2 {
				if c != set2[0] {
					env.Errorf("when translating with complemented character classes,\nstring2 must map all characters in the domain to one")
					return 1
				}
			}
		}
	}
	var xlate [256]byte
	for i := range xlate {
		xlate[i] = byte(i)
	}
	if translating {
		if len(set2) == 0 && !truncate && len(set1) > 0 {
			env.Errorf("when not truncating set1, string2 must be non-empty")
			return 1
		}
		for i, c := range set1 {
			if i >= len(set2) {
				if truncate {
					break
				}
				xlate[c] = set2[len(set2)-1]
				continue
			}
			xlate[c] = set2[i]
		}
	}
	var deleteSet, squeezeSet [256]bool
	if del {
		for _, c := range set1 {
			deleteSet[c] = true
		}
	}
	if squeeze {
		sq := set1
		if len(operands) == 2 {
			sq = set2
		}
		for _, c := range sq {
			squeezeSet[c] = true
		}
	}
	buf := make([]byte, 64<<10)
	out := make([]byte, 0, 64<<10)
	last := -1
	for {
		if r.stopped() {
			break
		}
		n, err := env.Stdin.Read(buf)
		out = out[:0]
		for _, c := range buf[:n] {
			if deleteSet[c] {
				continue
			}
			c = xlate[c]
			if squeezeSet[c] && int(c) == last {
				continue
			}
			last = int(c)
			out = append(out, c)
		}
		r.out.Write(out)
		if err == io.EOF {
			break
		}
		if err != nil {
			env.Errorf("read error: %s", command.Strerror(err))
			r.finish(1)
			return 1
		}
	}
	return r.finish(0)
}
