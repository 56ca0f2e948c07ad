package gnuregex

import (
	"sort"
	"sync"
	"unicode"
)

// The named classes are glibc's in the C.UTF-8 locale, built from Go's
// Unicode tables the way glibc's gen-unicode-ctype builds them: alpha is
// the Alphabetic property plus the non-ASCII decimal digits (C keeps
// "digit" to 0-9 but wants iswalnum to hold for them), space is the ASCII
// white space and the Unicode separators that are not no-break spaces,
// punct is every graphic character that is not alphanumeric, and so on.
// Characters newer than the machine's glibc may differ.

// runeSet is a sorted list of disjoint inclusive ranges: lo, hi, lo, hi …
type runeSet []rune

func (s runeSet) has(r rune) bool {
	i := sort.Search(len(s)/2, func(i int) bool { return s[2*i+1] >= r })
	return i < len(s)/2 && s[2*i] <= r
}

func fromTable(t *unicode.RangeTable) runeSet {
	var s runeSet
	add := func(lo, hi, stride rune) {
		if stride == 1 {
			s = append(s, lo, hi)
			return
		}
		for r := lo; r <= hi; r += stride {
			s = append(s, r, r)
		}
	}
	for _, r := range t.R16 {
		add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
	}
	for _, r := range t.R32 {
		add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
	}
	return normalize(s)
}

func fromRanges(pairs ...rune) runeSet { return normalize(append(runeSet(nil), pairs...)) }

// normalize sorts ranges and merges those that touch or overlap.
func normalize(s runeSet) runeSet {
	type span struct{ lo, hi rune }
	spans := make([]span, 0, len(s)/2)
	for i := 0; i+1 < len(s); i += 2 {
		spans = append(spans, span{s[i], s[i+1]})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	var out runeSet
	for _, sp := range spans {
		if n := len(out); n > 0 && sp.lo <= out[n-1]+1 {
			out[n-1] = max(out[n-1], sp.hi)
			continue
		}
		out = append(out, sp.lo, sp.hi)
	}
	return out
}

func union(sets ...runeSet) runeSet {
	var all runeSet
	for _, s := range sets {
		all = append(all, s...)
	}
	return normalize(all)
}

// minus returns a without b.
func minus(a, b runeSet) runeSet {
	var out runeSet
	j := 0
	for i := 0; i+1 < len(a); i += 2 {
		lo, hi := a[i], a[i+1]
		for j+1 < len(b) && b[j+1] < lo {
			j += 2
		}
		for k := j; k+1 < len(b) && b[k] <= hi && lo <= hi; k += 2 {
			if b[k] > lo {
				out = append(out, lo, b[k]-1)
			}
			lo = b[k+1] + 1
		}
		if lo <= hi {
			out = append(out, lo, hi)
		}
	}
	return out
}

// caseChanging lists the runes whose simple mapping to (upper or lower)
// case changes them.
func caseChanging(to int) runeSet {
	var s runeSet
	for _, cr := range unicode.CaseRanges {
		for r := rune(cr.Lo); r <= rune(cr.Hi); r++ {
			if unicode.To(to, r) != r {
				s = append(s, r, r)
			}
		}
	}
	return normalize(s)
}

var classSets = sync.OnceValue(func() map[string]runeSet {
	digit := fromRanges('0', '9')
	alpha := union(fromTable(unicode.L), fromTable(unicode.Nl), fromTable(unicode.Other_Alphabetic),
		minus(fromTable(unicode.Nd), digit))
	noBreak := fromRanges(0xa0, 0xa0, 0x2007, 0x2007, 0x202f, 0x202f)
	separators := minus(union(fromTable(unicode.Zs), fromTable(unicode.Zl), fromTable(unicode.Zp)), noBreak)
	space := union(fromRanges('\t', '\r', ' ', ' '), separators)
	print := minus(union(fromTable(unicode.L), fromTable(unicode.M), fromTable(unicode.N), fromTable(unicode.P),
		fromTable(unicode.S), fromTable(unicode.Zs), fromTable(unicode.Cf), fromTable(unicode.Co)), fromRanges(0x2028, 0x2029))
	graph := minus(print, space)
	return map[string]runeSet{
		"alpha":  alpha,
		"upper":  union(fromTable(unicode.Lu), fromTable(unicode.Other_Uppercase), caseChanging(unicode.LowerCase)),
		"lower":  union(fromTable(unicode.Ll), fromTable(unicode.Other_Lowercase), caseChanging(unicode.UpperCase)),
		"digit":  digit,
		"xdigit": fromRanges('0', '9', 'A', 'F', 'a', 'f'),
		"alnum":  union(alpha, digit),
		"space":  space,
		"blank":  union(fromRanges('\t', '\t'), minus(fromTable(unicode.Zs), noBreak)),
		"cntrl":  union(fromTable(unicode.Cc), fromRanges(0x2028, 0x2029)),
		"print":  print,
		"graph":  graph,
		"punct":  minus(minus(graph, alpha), digit),
	}
})

// asciiWord says which ASCII characters are word constituents.
var asciiWord = func() (t [128]bool) {
	for r := range t {
		t[r] = r == '_' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	return t
}()

var alnumSet = sync.OnceValue(func() runeSet { return classSets()["alnum"] })

// isWordRune is GNU's word constituent: [_[:alnum:]].
func isWordRune(r rune) bool {
	if r < 128 {
		return r >= 0 && asciiWord[r]
	}
	return r < rawByteBase && alnumSet().has(r)
}
