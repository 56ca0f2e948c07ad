package textutils

import (
	"bytes"
	"context"
	"strconv"
	"strings"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/internal/getopt"
)

type joinLine struct {
	text   []byte
	fields [][]byte
}

type joinSpec struct {
	file, field int // file 0 means the join field
}

var joinCmdline = getopt.Spec{
	Options: []getopt.Option{
		{Short: 'a', Arg: getopt.Required, ArgName: "FILENUM"}, {Short: 'v', Arg: getopt.Required, ArgName: "FILENUM"},
		{Short: 'e', Arg: getopt.Required, ArgName: "STRING"}, {Short: 'i', Long: "ignore-case"},
		{Short: 'j', Arg: getopt.Required, ArgName: "FIELD"}, {Short: '1', Arg: getopt.Required, ArgName: "FIELD"},
		{Short: '2', Arg: getopt.Required, ArgName: "FIELD"}, {Short: 'o', Arg: getopt.Required, ArgName: "FORMAT"},
		{Short: 't', Arg: getopt.Required, ArgName: "CHAR"}, {Long: "check-order"}, {Long: "nocheck-order"}, {Long: "header"},
		{Short: 'z', Long: "zero-terminated"},
	},
}

// Join implements join.
func Join(ctx context.Context, env *command.Env) int {
	r := newRun(ctx, env)
	flags, operands, st, ok := joinCmdline.Run(env)
	if !ok {
		return st
	}
	tab := -1
	var unpaired [2]bool
	printPairs := true
	empty := ""
	emptySet := false
	ignoreCase := false
	joinField := [2]int{0, 0}
	var format []joinSpec
	autoFormat := false
	check := 0
	header := false
	eol := byte('\n')
	fieldNum := func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			env.Errorf("invalid field number: %s", quote(s))
			return 0, false
		}
		return n - 1, true
	}
	for _, f := range flags {
		switch f.Key {
		case "a", "v":
			if f.Value != "1" && f.Value != "2" {
				env.Errorf("invalid field number: %s", quote(f.Value))
				return 1
			}
			unpaired[f.Value[0]-'1'] = true
			if f.Key == "v" {
				printPairs = false
			}
		case "e":
			empty, emptySet = f.Value, true
		case "ignore-case":
			ignoreCase = true
		case "j", "1", "2":
			n, ok := fieldNum(f.Value)
			if !ok {
				return 1
			}
			if f.Key != "2" {
				joinField[0] = n
			}
			if f.Key != "1" {
				joinField[1] = n
			}
		case "o":
			if f.Value == "auto" {
				autoFormat = true
				continue
			}
			for _, item := range strings.FieldsFunc(f.Value, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
				if item == "0" {
					format = append(format, joinSpec{})
					continue
				}
				a, b, ok := strings.Cut(item, ".")
				if !ok || (a != "1" && a != "2") {
					env.Errorf("invalid field specifier: %s", quote(item))
					return 1
				}
				n, okn := fieldNum(b)
				if !okn {
					return 1
				}
				format = append(format, joinSpec{file: int(a[0] - '0'), field: n})
			}
		case "t":
			if len(f.Value) > 1 {
				if f.Value == "\\0" {
					tab = 0
					continue
				}
				env.Errorf("multi-character tab %s", quote(f.Value))
				return 1
			}
			tab = '\n' // an empty -t: the whole line is the field
			if f.Value != "" {
				tab = int(f.Value[0])
			}
		case "check-order":
			check = 1
		case "nocheck-order":
			check = -1
		case "header":
			header = true
		case "zero-terminated":
			eol = 0
		}
	}
	switch {
	case len(operands) == 0:
		return r.usage(1, "missing operand")
	case len(operands) == 1:
		return r.usage(1, "missing operand after %s", quote(operands[0]))
	case len(operands) > 2:
		return r.usage(1, "extra operand %s", quote(operands[2]))
	}
	if operands[0] == "-" && operands[1] == "-" {
		env.Errorf("both files cannot be standard input")
		return 1
	}
	split := func(line []byte) [][]byte {
		if tab >= 0 {
			if len(line) == 0 {
				return nil
			}
			return bytes.Split(line, []byte{byte(tab)})
		}
		return bytes.FieldsFunc(line, func(c rune) bool { return c == ' ' || c == '\t' || c == '\n' })
	}
	var lrs [2]*lineReader
	for i, name := range operands {
		f, err := r.open(name)
		if err != nil {
			env.Errorf("%s: %s", name, command.Strerror(err))
			return 1
		}
		defer f.Close()
		lrs[i] = newLineReader(f, eol)
	}
	var lineNo [2]int
	readLine := func(i int) (joinLine, bool) {
		line, _, ok := lrs[i].next()
		if !ok {
			return joinLine{}, false
		}
		lineNo[i]++
		t := append([]byte(nil), line...)
		return joinLine{text: t, fields: split(t)}, true
	}
	key := func(l joinLine, i int) []byte {
		if joinField[i] < len(l.fields) {
			return l.fields[joinField[i]]
		}
		return nil
	}
	cmpKeys := func(a, b []byte) int {
		if ignoreCase {
			return compareTranslated(a, b, 0, true)
		}
		return bytes.Compare(a, b)
	}
	outSep := " "
	if tab >= 0 && tab != '\n' {
		outSep = string(rune(tab))
		if tab >= 0x80 {
			outSep = string([]byte{byte(tab)})
		}
	}
	autoCount := [2]int{-1, -1}
	prField := func(l *joinLine, n int) {
		if l != nil && n < len(l.fields) {
			r.out.Write(l.fields[n])
		} else if emptySet {
			r.out.WriteString(empty)
		}
	}
	prJoin := func(l1, l2 *joinLine) {
		if len(format) > 0 {
			for k, s := range format {
				if k > 0 {
					r.out.WriteString(outSep)
				}
				switch {
				case s.file == 0:
					if l1 != nil {
						prField(l1, joinField[0])
					} else {
						prField(l2, joinField[1])
					}
				case s.file == 1:
					prField(l1, s.field)
				default:
					prField(l2, s.field)
				}
			}
			r.out.WriteByte(eol)
			return
		}
		if l1 != nil {
			prField(l1, joinField[0])
		} else {
			prField(l2, joinField[1])
		}
		for i, l := range []*joinLine{l1, l2} {
			n := 0
			if l != nil {
				n = len(l.fields)
			}
			if autoFormat && autoCount[i] >= 0 {
				n = autoCount[i]
			}
			for k := 0; k < n; k++ {
				if k == joinField[i] {
					continue
				}
				r.out.WriteString(outSep)
				prField(l, k)
			}
		}
		r.out.WriteByte(eol)
	}
	var cur [2]joinLine
	var have [2]bool
	cur[0], have[0] = readLine(0)
	cur[1], have[1] = readLine(1)
	if autoFormat {
		for i := range cur {
			if have[i] {
				autoCount[i] = len(cur[i].fields)
			}
		}
	}
	if header && (have[0] || have[1]) {
		var h1, h2 *joinLine
		if have[0] {
			h1 = &cur[0]
		}
		if have[1] {
			h2 = &cur[1]
		}
		prJoin(h1, h2)
		cur[0], have[0] = readLine(0)
		cur[1], have[1] = readLine(1)
	}
	seenUnpairable := false
	warned := [2]bool{}
	failed := false
	// advance reads the next line of file i and checks its order.
	advance := func(i int) {
		prev := cur[i]
		cur[i], have[i] = readLine(i)
		if have[i] && check >= 0 && (check == 1 || seenUnpairable) && !warned[i] {
			if cmpKeys(key(prev, i), key(cur[i], i)) > 0 {
				env.Errorf("%s:%d: is not sorted: %s", operands[i], lineNo[i], cur[i].text)
				warned[i] = true
				if check == 1 {
					failed = true
				}
			}
		}
	}
	for have[0] && have[1] && !failed {
		if r.stopped() {
			break
		}
		d := cmpKeys(key(cur[0], 0), key(cur[1], 1))
		if d < 0 {
			seenUnpairable = true
			if unpaired[0] {
				prJoin(&cur[0], nil)
			}
			advance(0)
			continue
		}
		if d > 0 {
			seenUnpairable = true
			if unpaired[1] {
				prJoin(nil, &cur[1])
			}
			advance(1)
			continue
		}
		var group [2][]joinLine
		for i := 0; i < 2; i++ {
			k := append([]byte(nil), key(cur[i], i)...)
			for have[i] && cmpKeys(key(cur[i], i), k) == 0 && !failed {
				group[i] = append(group[i], cur[i])
				advance(i)
			}
		}
		if printPairs {
			for a := range group[0] {
				for b := range group[1] {
					prJoin(&group[0][a], &group[1][b])
				}
			}
		}
	}
	for i := 0; i < 2 && !failed; i++ {
		for have[i] && !failed {
			if r.stopped() {
				break
			}
			seenUnpairable = true
			if unpaired[i] {
				if i == 0 {
					prJoin(&cur[0], nil)
				} else {
					prJoin(nil, &cur[1])
				}
			}
			advance(i)
		}
	}
	for i, lr := range lrs {
		if lr.err != nil {
			env.Errorf("%s: %s", operands[i], command.Strerror(lr.err))
			failed = true
		}
	}
	if failed {
		r.finish(1)
		return 1
	}
	if warned[0] || warned[1] {
		r.finish(1)
		env.Errorf("input is not in sorted order")
		return 1
	}
	return r.finish(0)
}
