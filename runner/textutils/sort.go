package textutils

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

// sortKey is one -k specification (or the whole line), with its ordering
// options, as GNU sort's struct keyfield.
type sortKey struct {
	sword, schar int // start field and character, 0-based; sword -1: line start
	eword, echar int // end field (0-based) and character (0: end of field); eword -1: line end
	skipsBlanks  bool
	skipeBlanks  bool
	ignore       int // 0 none, 'd' dictionary, 'i' nonprinting
	fold         bool
	numeric      bool
	general      bool
	human        bool
	month        bool
	version      bool
	random       bool
	reverse      bool
}

func (k *sortKey) hasOrdering() bool {
	return k.ignore != 0 || k.fold || k.skipsBlanks || k.skipeBlanks || k.numeric || k.general ||
		k.human || k.month || k.version || k.random || k.reverse
}

// setOrdering applies option letters; it returns the rest of s.
func (k *sortKey) setOrdering(s string, end bool) string {
	for len(s) > 0 {
		switch s[0] {
		case 'b':
			if end {
				k.skipeBlanks = true
			} else {
				k.skipsBlanks = true
			}
		case 'd':
			k.ignore = 'd'
		case 'i':
			if k.ignore == 0 {
				k.ignore = 'i'
			}
		case 'f':
			k.fold = true
		case 'g':
			k.general = true
		case 'h':
			k.human = true
		case 'M':
			k.month = true
		case 'n':
			k.numeric = true
		case 'R':
			k.random = true
		case 'r':
			k.reverse = true
		case 'V':
			k.version = true
		default:
			return s
		}
		s = s[1:]
	}
	return s
}

// conflicts returns GNU's "options '-gn' are incompatible" letters, or "".
func (k *sortKey) conflicts() string {
	var s string
	n := 0
	for _, o := range []struct {
		on bool
		c  string
	}{{k.ignore == 'd', "d"}, {k.general, "g"}, {k.human, "h"}, {k.ignore == 'i', "i"}, {k.month, "M"}, {k.numeric, "n"}, {k.random, "R"}, {k.version, "V"}} {
		if o.on {
			s += o.c
			if o.c != "d" && o.c != "i" {
				n++
			}
		}
	}
	if n > 1 || (strings.Contains(s, "d") || strings.Contains(s, "i")) && n > 0 && !k.random {
		if n > 1 || k.numeric || k.general || k.human || k.month {
			return s
		}
	}
	return ""
}

type sortOpts struct {
	keys     []sortKey
	global   sortKey
	tab      int // -1 for blank-separated fields
	unique   bool
	stable   bool
	check    int // 0 no, 'c' diagnose, 'C' quiet
	output   string
	hasOut   bool
	delim    byte
	seed     maphash.Seed
	operands []string
}

// countField parses the leading digits of s for a key position.
func countField(s string) (int, string, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, s, false
	}
	n, err := strconv.Atoi(s[:i])
	if err != nil {
		n = math.MaxInt32
	}
	return n, s[i:], true
}

func parseKeySpec(spec string) (sortKey, string) {
	k := sortKey{eword: -1}
	bad := func(why string) (sortKey, string) {
		return k, fmt.Sprintf("%s: invalid field specification %s", why, quote(spec))
	}
	n, s, ok := countField(spec)
	if !ok {
		return k, fmt.Sprintf("invalid number at field start: invalid count at start of %s", quote(spec))
	}
	if n == 0 {
		return bad("field number is zero")
	}
	k.sword = n - 1
	if strings.HasPrefix(s, ".") {
		c, rest, ok := countField(s[1:])
		if !ok {
			return k, fmt.Sprintf("invalid number after '.': invalid count at start of %s", quote(s[1:]))
		}
		if c == 0 {
			return bad("character offset is zero")
		}
		k.schar = c - 1
		s = rest
	}
	if k.sword == 0 && k.schar == 0 {
		k.sword = -1
	}
	s = k.setOrdering(s, false)
	if strings.HasPrefix(s, ",") {
		n, rest, ok := countField(s[1:])
		if !ok {
			return k, fmt.Sprintf("invalid number after ',': invalid count at start of %s", quote(s[1:]))
		}
		if n == 0 {
			return bad("field number is zero")
		}
		k.eword = n - 1
		s = rest
		if strings.HasPrefix(s, ".") {
			c, rest, ok := countField(s[1:])
			if !ok {
				return k, fmt.Sprintf("invalid number after '.': invalid count at start of %s", quote(s[1:]))
			}
			k.echar = c
			s = rest
		}
		s = k.setOrdering(s, true)
	}
	if s != "" {
		return bad("stray character in field spec")
	}
	return k, ""
}

// Sort implements sort. Lines compare as bytes (C.UTF-8 collation is code
// point order, which is byte order for UTF-8); -f folds ASCII only.
func Sort(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	o, st, ok := parseSortOpts(r)
	if !ok {
		return st
	}
	var data []byte
	for _, name := range o.operands {
		b, err := r.readFile(name)
		if err != nil {
			if r.ctx.Err() != nil {
				return r.finish(2)
			}
			if isOpenErr(err) {
				env.Errorf("cannot read: %s: %s", name, command.Strerror(err))
			} else {
				env.Errorf("read failed: %s: %s", name, command.Strerror(err))
			}
			return 2
		}
		if data == nil {
			data = b
		} else {
			data = append(data, b...)
		}
		if len(data) > 0 && data[len(data)-1] != o.delim {
			data = append(data, o.delim)
		}
	}
	s := newSorter(o, data)
	if o.check != 0 {
		for i := 1; i < len(s.lines); i++ {
			if r.stopped() {
				return r.finish(2)
			}
			c := s.compare(i-1, i)
			if c > 0 || (o.unique && c == 0) {
				if o.check == 'c' {
					name := "-"
					if len(o.operands) > 0 {
						name = o.operands[0]
					}
					fmt.Fprintf(env.Stderr, "%s: %s:%d: disorder: %s\n", env.Name(), name, i+1, s.lines[i])
				}
				return 1
			}
		}
		return 0
	}
	idx := s.sort(ctx)
	if ctx.Err() != nil {
		return 2
	}
	var w io.Writer = r.out
	var outFile command.File
	if o.hasOut {
		f, err := r.create(o.output, false)
		if err != nil {
			env.Errorf("open failed: %s: %s", o.output, command.Strerror(err))
			return 2
		}
		outFile = f
		w = &stickyWriter{w: f}
	}
	bw := w
	if outFile != nil {
		bw = newBuffered(w)
	}
	for n, i := range idx {
		if n&1023 == 0 && r.stopped() {
			break
		}
		if o.unique && n > 0 && s.sameKeys(idx[n-1], i) {
			continue
		}
		bw.Write(s.lines[i])
		bw.Write([]byte{o.delim})
	}
	if outFile != nil {
		err := bw.(interface{ Flush() error }).Flush()
		if cerr := outFile.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			env.Errorf("write failed: %s: %s", o.output, command.Strerror(err))
			return 2
		}
	}
	return r.finish(0)
}

func isOpenErr(err error) bool {
	s := err.Error()
	return strings.HasPrefix(s, "open ")
}

var sortSpec = getopt.Spec{
	UsageStatus: 2,
	Options: []getopt.Option{
		{Short: 'b', Long: "ignore-leading-blanks"}, {Short: 'd', Long: "dictionary-order"},
		{Short: 'f', Long: "ignore-case"}, {Short: 'g', Long: "general-numeric-sort"},
		{Short: 'h', Long: "human-numeric-sort"}, {Short: 'i', Long: "ignore-nonprinting"}, {Short: 'M', Long: "month-sort"},
		{Short: 'n', Long: "numeric-sort"}, {Short: 'R', Long: "random-sort"}, {Short: 'r', Long: "reverse"},
		{Short: 'V', Long: "version-sort"}, {Long: "sort", Arg: getopt.Required, ArgName: "WORD"}, {Short: 'c', Key: "c"},
		{Long: "check", Arg: getopt.Optional, Key: "check", ArgName: "diagnose-first"}, {Short: 'C', Key: "C"},
		{Short: 'k', Long: "key", Arg: getopt.Required, ArgName: "KEYDEF"}, {Short: 'm', Long: "merge"},
		{Short: 'o', Long: "output", Arg: getopt.Required, ArgName: "FILE"}, {Short: 's', Long: "stable"},
		{Short: 'S', Long: "buffer-size", Arg: getopt.Required, ArgName: "SIZE"},
		{Short: 't', Long: "field-separator", Arg: getopt.Required, ArgName: "SEP"},
		{Short: 'T', Long: "temporary-directory", Arg: getopt.Required, ArgName: "DIR"},
		{Long: "parallel", Arg: getopt.Required, ArgName: "N"}, {Short: 'u', Long: "unique"},
		{Short: 'z', Long: "zero-terminated"}, {Long: "random-source", Arg: getopt.Required, ArgName: "FILE"},
		{Long: "batch-size", Arg: getopt.Required, ArgName: "NMERGE"},
		{Long: "compress-program", Arg: getopt.Required, ArgName: "PROG"}, {Long: "debug"},
		{Long: "files0-from", Arg: getopt.Required, ArgName: "F"},
	},
}

func parseSortOpts(r *run) (sortOpts, int, bool) {
	o := sortOpts{tab: -1, delim: '\n', seed: maphash.MakeSeed()}
	o.global.eword = -1
	o.global.sword = -1
	flags, operands, st, ok := sortSpec.Run(r.env)
	if !ok {
		return o, st, false
	}
	for _, f := range flags {
		switch f.Key {
		case "ignore-leading-blanks":
			o.global.skipsBlanks, o.global.skipeBlanks = true, true
		case "dictionary-order":
			o.global.ignore = 'd'
		case "ignore-case":
			o.global.fold = true
		case "general-numeric-sort":
			o.global.general = true
		case "human-numeric-sort":
			o.global.human = true
		case "ignore-nonprinting":
			if o.global.ignore == 0 {
				o.global.ignore = 'i'
			}
		case "month-sort":
			o.global.month = true
		case "numeric-sort":
			o.global.numeric = true
		case "random-sort":
			o.global.random = true
		case "reverse":
			o.global.reverse = true
		case "version-sort":
			o.global.version = true
		case "sort":
			letter := map[string]string{"general-numeric": "g", "human-numeric": "h", "month": "M", "numeric": "n", "random": "R", "version": "V"}[f.Value]
			if letter == "" {
				return o, r.usage(2, "invalid argument %s for '--sort'", quote(f.Value)), false
			}
			o.global.setOrdering(letter, false)
		case "c":
			o.check = 'c'
		case "check":
			switch f.Value {
			case "", "diagnose-first":
				o.check = 'c'
			case "quiet", "silent":
				o.check = 'C'
			default:
				return o, r.usage(2, "invalid argument %s for '--check'", quote(f.Value)), false
			}
		case "C":
			o.check = 'C'
		case "key":
			k, msg := parseKeySpec(f.Value)
			if msg != "" {
				r.env.Errorf("%s", msg)
				return o, 2, false
			}
			o.keys = append(o.keys, k)
		case "output":
			if o.hasOut && o.output != f.Value {
				r.env.Errorf("multiple output files specified")
				return o, 2, false
			}
			o.output, o.hasOut = f.Value, true
		case "stable":
			o.stable = true
		case "field-separator":
			sep := f.Value
			if sep == "" {
				r.env.Errorf("empty tab")
				return o, 2, false
			}
			if sep == "\\0" {
				sep = "\x00"
			}
			if len(sep) > 1 {
				r.env.Errorf("multi-character tab %s", quote(sep))
				return o, 2, false
			}
			if o.tab >= 0 && o.tab != int(sep[0]) {
				r.env.Errorf("incompatible tabs")
				return o, 2, false
			}
			o.tab = int(sep[0])
		case "unique":
			o.unique = true
		case "zero-terminated":
			o.delim = 0
		case "debug", "files0-from", "compress-program":
			r.env.Errorf("option --%s is not supported in the runner", f.Key)
			return o, 2, false
		}
	}
	for i := range o.keys {
		k := &o.keys[i]
		if !k.hasOrdering() {
			g := o.global
			g.sword, g.schar, g.eword, g.echar = k.sword, k.schar, k.eword, k.echar
			*k = g
		}
	}
	if len(o.keys) == 0 && (o.global.hasOrdering() && !(onlyReverse(o.global))) {
		o.keys = []sortKey{o.global}
	}
	all := append([]sortKey{o.global}, o.keys...)
	for _, k := range all {
		if c := k.conflicts(); c != "" {
			r.env.Errorf("options '-%s' are incompatible", c)
			return o, 2, false
		}
	}
	if o.check != 0 && len(operands) > 1 {
		return o, r.usage(2, "extra operand %s not allowed with -%c", quote(operands[1]), o.check), false
	}
	if o.check != 0 && o.hasOut {
		r.env.Errorf("options '-%co' are incompatible", o.check)
		return o, 2, false
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	o.operands = operands
	return o, 0, true
}

func onlyReverse(k sortKey) bool {
	k.reverse = false
	return !k.hasOrdering()
}

// sorter holds the lines and their precomputed keys.
type sorter struct {
	o     sortOpts
	lines [][]byte
	keys  []keyVal // len(lines)*len(o.keys)
	nkeys int
}

// keyVal is one line's key: its text and, for numeric keys, what the
// comparison needs, computed once per line.
type keyVal struct {
	text []byte
	num  numVal
	f    float64
	fok  bool
	unit int
	mon  int
	hash uint64
}

// numVal is a decimal number as GNU's strnumcmp sees it.
type numVal struct {
	neg        bool
	intDigits  []byte // without leading zeros
	fracDigits []byte // without trailing zeros
}

func newSorter(o sortOpts, data []byte) *sorter {
	s := &sorter{o: o, nkeys: len(o.keys)}
	if len(data) > 0 {
		n := bytes.Count(data, []byte{o.delim})
		s.lines = make([][]byte, 0, n)
		for len(data) > 0 {
			i := bytes.IndexByte(data, o.delim)
			s.lines = append(s.lines, data[:i:i])
			data = data[i+1:]
		}
	}
	if s.numericFast() {
		return s
	}
	if s.nkeys > 0 {
		s.keys = make([]keyVal, len(s.lines)*s.nkeys)
		for i, l := range s.lines {
			for j := range o.keys {
				s.keys[i*s.nkeys+j] = s.makeKey(&o.keys[j], l)
			}
		}
	}
	return s
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

func (s *sorter) keyRange(k *sortKey, line []byte) []byte {
	lim := len(line)
	beg := 0
	if k.sword >= 0 {
		p := 0
		for w := k.sword; p < lim && w > 0; w-- {
			if s.o.tab >= 0 {
				for p < lim && int(line[p]) != s.o.tab {
					p++
				}
				if p < lim {
					p++
				}
			} else {
				for p < lim && isBlank(line[p]) {
					p++
				}
				for p < lim && !isBlank(line[p]) {
					p++
				}
			}
		}
		beg = p
	}
	if k.skipsBlanks {
		for beg < lim && isBlank(line[beg]) {
			beg++
		}
	}
	beg = min(lim, beg+k.schar)
	end := lim
	if k.eword >= 0 {
		p := 0
		w := k.eword
		if k.echar == 0 {
			w++
		}
		for ; p < lim && w > 0; w-- {
			if s.o.tab >= 0 {
				for p < lim && int(line[p]) != s.o.tab {
					p++
				}
				if p < lim && (w > 1 || k.echar != 0) {
					p++
				}
			} else {
				for p < lim && isBlank(line[p]) {
					p++
				}
				for p < lim && !isBlank(line[p]) {
					p++
				}
			}
		}
		if k.echar != 0 {
			if k.skipeBlanks {
				for p < lim && isBlank(line[p]) {
					p++
				}
			}
			p = min(lim, p+k.echar)
		}
		end = p
	}
	if end < beg {
		end = beg
	}
	return line[beg:end]
}

func (s *sorter) makeKey(k *sortKey, line []byte) keyVal {
	kv := keyVal{text: s.keyRange(k, line)}
	switch {
	case k.numeric:
		kv.num = parseNum(kv.text)
	case k.human:
		kv.num = parseNum(kv.text)
		kv.unit = unitOrder(kv.text)
	case k.general:
		kv.f, kv.fok = parseGeneral(kv.text)
	case k.month:
		kv.mon = monthOf(kv.text)
	case k.random:
		kv.hash = maphash.Bytes(s.o.seed, kv.text)
	}
	return kv
}

func trimBlanks(b []byte) []byte {
	for len(b) > 0 && isBlank(b[0]) {
		b = b[1:]
	}
	return b
}

func parseNum(b []byte) numVal {
	b = trimBlanks(b)
	var v numVal
	if len(b) > 0 && b[0] == '-' {
		v.neg = true
		b = b[1:]
	}
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	ip := b[:i]
	for len(ip) > 0 && ip[0] == '0' {
		ip = ip[1:]
	}
	v.intDigits = ip
	if i < len(b) && b[i] == '.' {
		j := i + 1
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		fp := b[i+1 : j]
		for len(fp) > 0 && fp[len(fp)-1] == '0' {
			fp = fp[:len(fp)-1]
		}
		v.fracDigits = fp
	}
	if len(v.intDigits) == 0 && len(v.fracDigits) == 0 {
		v.neg = false
	}
	return v
}

func compareNum(a, b numVal) int {
	if a.neg != b.neg {
		if a.neg {
			return -1
		}
		return 1
	}
	c := 0
	if len(a.intDigits) != len(b.intDigits) {
		c = cmpInt(len(a.intDigits), len(b.intDigits))
	} else if c = bytes.Compare(a.intDigits, b.intDigits); c == 0 {
		c = bytes.Compare(a.fracDigits, b.fracDigits)
	}
	if a.neg {
		return -c
	}
	return c
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

var unitOrders = map[byte]int{'K': 1, 'k': 1, 'M': 2, 'G': 3, 'T': 4, 'P': 5, 'E': 6, 'Z': 7, 'Y': 8, 'R': 9, 'Q': 10}

func unitOrder(b []byte) int {
	b = trimBlanks(b)
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	nonzero := false
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		nonzero = nonzero || b[i] != '0'
		i++
	}
	if i < len(b) && b[i] == '.' {
		i++
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			nonzero = nonzero || b[i] != '0'
			i++
		}
	}
	if !nonzero || i >= len(b) {
		return 0
	}
	u := unitOrders[b[i]]
	if neg {
		return -u
	}
	return u
}

// parseGeneral reads the longest prefix strtold accepts.
func parseGeneral(b []byte) (float64, bool) {
	s := string(trimBlanks(b))
	if l := strings.ToLower(s); strings.HasPrefix(l, "-nan") || strings.HasPrefix(l, "+nan") {
		nan := math.NaN()
		if l[0] == '-' {
			nan = math.Copysign(nan, -1)
		}
		return nan, true
	}
	best := -1
	var val float64
	// Try successively shorter prefixes of the plausible number characters.
	end := 0
	for end < len(s) && strings.IndexByte("0123456789+-.eEpPxXabcdefABCDEFinftyINFTYnN", s[end]) >= 0 {
		end++
	}
	for l := end; l > 0; l-- {
		p := s[:l]
		lp := strings.ToLower(p)
		if strings.HasPrefix(lp, "0x") || strings.HasPrefix(lp, "-0x") || strings.HasPrefix(lp, "+0x") {
			if !strings.Contains(lp, "p") {
				p += "p0"
			}
		}
		if f, err := strconv.ParseFloat(p, 64); err == nil || isRangeErr(err) {
			if strings.HasPrefix(strings.TrimLeft(lp, "+-"), "infinity") || strings.HasPrefix(strings.TrimLeft(lp, "+-"), "inf") || strings.HasPrefix(strings.TrimLeft(lp, "+-"), "nan") || strings.ContainsAny(lp[:1], "0123456789+-.") {
				best, val = l, f
				break
			}
		}
	}
	if best < 0 {
		return 0, false
	}
	return val, true
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

var months = []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}

func monthOf(b []byte) int {
	b = trimBlanks(b)
	if len(b) < 3 {
		return 0
	}
	m := strings.ToUpper(string(b[:3]))
	for i, name := range months {
		if m == name {
			return i + 1
		}
	}
	return 0
}

func (s *sorter) compareKeys(i, j int) int {
	for n := range s.o.keys {
		k := &s.o.keys[n]
		a, b := &s.keys[i*s.nkeys+n], &s.keys[j*s.nkeys+n]
		var c int
		switch {
		case k.numeric:
			c = compareNum(a.num, b.num)
		case k.human:
			c = cmpInt(a.unit, b.unit)
			if c == 0 {
				c = compareNum(a.num, b.num)
			}
		case k.general:
			c = compareGeneral(a, b)
		case k.month:
			c = cmpInt(a.mon, b.mon)
		case k.version:
			c = filevercmp(a.text, b.text)
		case k.random:
			c = cmpUint(a.hash, b.hash)
			if c == 0 {
				c = bytes.Compare(a.text, b.text)
			}
		case k.ignore != 0 || k.fold:
			c = compareTranslated(a.text, b.text, k.ignore, k.fold)
		default:
			c = bytes.Compare(a.text, b.text)
		}
		if c != 0 {
			if k.reverse {
				return -c
			}
			return c
		}
	}
	return 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sameKeys reports lines that -u treats as duplicates.
func (s *sorter) sameKeys(i, j int) bool {
	if s.nkeys == 0 {
		return bytes.Equal(s.lines[i], s.lines[j])
	}
	if s.keys == nil {
		k := &s.o.keys[0]
		return compareNum(parseNum(s.keyRange(k, s.lines[i])), parseNum(s.keyRange(k, s.lines[j]))) == 0
	}
	return s.compareKeys(i, j) == 0
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func compareGeneral(a, b *keyVal) int {
	if !a.fok {
		if !b.fok {
			return 0
		}
		return -1
	}
	if !b.fok {
		return 1
	}
	x, y := a.f, b.f
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	case x == y:
		return 0
	case y == y: // x is NaN
		return -1
	case x == x:
		return 1
	}
	// Two NaNs: GNU compares their bytes, which puts "nan" before "-nan".
	return cmpInt(boolInt(math.Signbit(x)), boolInt(math.Signbit(y)))
}

func ignored(c byte, ignore int) bool {
	switch ignore {
	case 'd':
		return !(c == ' ' || c == '\t' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
	case 'i':
		return c < 0x20 || c >= 0x7f
	}
	return false
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 32
	}
	return c
}

func compareTranslated(a, b []byte, ignore int, fold bool) int {
	i, j := 0, 0
	for {
		for i < len(a) && ignored(a[i], ignore) {
			i++
		}
		for j < len(b) && ignored(b[j], ignore) {
			j++
		}
		if i >= len(a) || j >= len(b) {
			return cmpInt(len(a)-i, len(b)-j) // the longer remainder is greater
		}
		x, y := a[i], b[j]
		if fold {
			x, y = upper(x), upper(y)
		}
		if x != y {
			return cmpInt(int(x), int(y))
		}
		i++
		j++
	}
}

// compare is the full ordering: the keys, then (unless -s or -u) the whole
// lines as bytes, reversed by a global -r.
func (s *sorter) compare(i, j int) int {
	if s.nkeys > 0 {
		c := s.compareKeys(i, j)
		if c != 0 || s.o.unique || s.o.stable {
			return c
		}
	}
	c := bytes.Compare(s.lines[i], s.lines[j])
	if s.o.global.reverse {
		return -c
	}
	return c
}

// sort returns the line indexes in output order. Once the context is done
// every comparison answers "equal", so the sort ends quickly and the caller
// discards its result.
func (s *sorter) sort(ctx context.Context) []int {
	var cancelled atomic.Bool
	stop := context.AfterFunc(ctx, func() { cancelled.Store(true) })
	defer stop()
	stable := s.o.stable || s.o.unique
	if s.numericFast() {
		return s.sortNumeric(&cancelled, stable)
	}
	idx := make([]int, len(s.lines))
	for i := range idx {
		idx[i] = i
	}
	parallelSort(idx, func(a, b int) int {
		if cancelled.Load() {
			return 0
		}
		return s.compare(a, b)
	}, stable)
	return idx
}

// numItem is a line in the -n fast path: the key as a float64 when that
// is exact (at most 15 significant digits), else a flag to compare the
// decimal digits.
type numItem struct {
	f     float64
	exact bool
	line  int32
}

// numericFast reports a sort by one numeric key, which sortNumeric
// handles without the general per-line keys.
func (s *sorter) numericFast() bool {
	return s.nkeys == 1 && s.o.keys[0].numeric && s.o.check == 0 && len(s.lines) < math.MaxInt32
}

func (s *sorter) sortNumeric(cancelled *atomic.Bool, stable bool) []int {
	items := make([]numItem, len(s.lines))
	inexact := map[int32]numVal{}
	key := &s.o.keys[0]
	for i, line := range s.lines {
		nv := parseNum(s.keyRange(key, line))
		n := &nv
		it := numItem{line: int32(i)}
		if len(n.intDigits)+len(n.fracDigits) <= 15 {
			it.exact = true
			var v float64
			for _, d := range n.intDigits {
				v = v*10 + float64(d-'0')
			}
			if len(n.fracDigits) > 0 {
				var frac float64
				for _, d := range n.fracDigits {
					frac = frac*10 + float64(d-'0')
				}
				// Exact: both parts are integers below 2^53, and the
				// division rounds once.
				v = (v*pow10[len(n.fracDigits)] + frac) / pow10[len(n.fracDigits)]
			}
			if n.neg {
				v = -v
			}
			it.f = v
		} else {
			inexact[int32(i)] = nv
		}
		items[i] = it
	}
	reverse := s.o.keys[0].reverse
	parallelSort(items, func(a, b numItem) int {
		if cancelled.Load() {
			return 0
		}
		var c int
		if a.exact && b.exact {
			switch {
			case a.f < b.f:
				c = -1
			case a.f > b.f:
				c = 1
			}
		} else {
			c = compareNum(s.numOf(a, inexact), s.numOf(b, inexact))
		}
		if c != 0 {
			if reverse {
				return -c
			}
			return c
		}
		if stable {
			return 0
		}
		c = bytes.Compare(s.lines[a.line], s.lines[b.line])
		if s.o.global.reverse {
			return -c
		}
		return c
	}, stable)
	idx := make([]int, len(items))
	for i, it := range items {
		idx[i] = int(it.line)
	}
	return idx
}

// numOf returns an item's decimal digits (the exact items' are rebuilt
// on demand; they compare with an inexact one only rarely).
func (s *sorter) numOf(it numItem, inexact map[int32]numVal) numVal {
	if !it.exact {
		return inexact[it.line]
	}
	return parseNum(s.keyRange(&s.o.keys[0], s.lines[it.line]))
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// parallelSort sorts halves of large inputs on two goroutines and merges
// them, keeping equal elements in input order when stable.
func parallelSort[T any](items []T, cmp func(a, b T) int, stable bool) {
	sortPart := func(part []T) {
		if stable {
			slices.SortStableFunc(part, cmp)
		} else {
			slices.SortFunc(part, cmp)
		}
	}
	if len(items) < 1<<16 || runtime.GOMAXPROCS(0) < 2 {
		sortPart(items)
		return
	}
	mid := len(items) / 2
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sortPart(items[:mid])
	}()
	sortPart(items[mid:])
	wg.Wait()
	merged := make([]T, 0, len(items))
	i, j := 0, mid
	for i < mid && j < len(items) {
		if cmp(items[j], items[i]) < 0 {
			merged = append(merged, items[j])
			j++
		} else {
			merged = append(merged, items[i])
			i++
		}
	}
	merged = append(merged, items[i:mid]...)
	merged = append(merged, items[j:]...)
	copy(items, merged)
}
