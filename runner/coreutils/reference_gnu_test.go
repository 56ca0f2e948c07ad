package coreutils

import (
	"regexp"
	"strings"
	"testing"
)

// TestGNUPrintfEcho compares printf and echo run as commands with GNU's.
func TestGNUPrintfEcho(t *testing.T) {
	requireGNU(t, "printf", "echo")
	var cases []gnuCase
	for _, args := range [][]string{
		{"printf", `%s-%d\n`, "a", "1", "b", "2", "c"},
		{"printf", `%d\n`, "abc"}, {"printf", `%d\n`, "12abc"}, {"printf", `%d\n`, "99999999999999999999"},
		{"printf", `%q\n`, "a'b", "a b", "a\nb", "", "é", "~x", "a=b", "#", "a#", "a'b c", "a'$b", "'", "a\\b", "a\tb", "\x7f", "a\xffb",
			"a]b", "{", "a{", "a'é", "a'#", "'\t", "%x", "-x", "a*", "[a", "!a", "a\"b'c"},
		{"printf", `a\cb\n`}, {"printf", `%z`}, {"printf", `%`}, {"printf", `%5`}, {"printf", `x`, "y"},
		{"printf", `\u00e9\n`}, {"printf", `%b\n`, `x\u00e9\101\0101\c`, "more"}, {"printf", `%d\n`, "'é"}, {"printf", `%d\n`, "'"},
		{"printf", `%.3s|%-5d|%5s|\n`, "abcdef", "3", "x"}, {"printf", `%i %x %o %u\n`, "0x1f", "255", "8", "-3"},
		{"printf", `%f %e %G %.2f\n`, "1e3", "abc", "1e-10", "3.14159"}, {"printf", `%5q|\n`, "a"}, {"printf", "-v", "x"},
		{"printf", "--"}, {"printf"}, {"printf", "--", `%s\n`, "x"}, {"printf", `\x41\101\x\n`}, {"printf", `%*d|%.*f\n`, "5", "3", "2", "3.14159"},
		{"printf", `\q\'\?\"\\\n`}, {"printf", `%c|\n`, "héllo"}, {"printf", `%%|%s\n`, "a"}, {"printf", `%'d\n`, "1234567"},
		{"printf", `%s %s\n`, "a"}, {"printf", `%b`, `a\cb`}, {"printf", `%d\n`, "'ab"}, {"printf", `\e\E\n`},
		{"echo", "a", "b"}, {"echo", "-n", "a"}, {"echo", "-e", `a\101b\0101c\u00e9d\x41\x\q\c zz`, "more"}, {"echo", "-neE", "x"},
		{"echo", "-nx", "y"}, {"echo", "--", "a"}, {"echo", "-E", `a\tb`}, {"echo", "-e", `\e\n\t|`}, {"echo"}, {"echo", "-e", `a\`},
		{"echo", "-n", "--help"}, {"echo", "-e", `\x4g\0\00101`},
	} {
		cases = append(cases, gnuCase{args: args})
	}
	checkGNUStderr(t, cases)
}

// checkGNUStderr is checkGNU that also wants GNU's diagnostics word for
// word.
func checkGNUStderr(t *testing.T, cases []gnuCase) {
	t.Helper()
	for i := range cases {
		cases[i].exactStderr = true
	}
	checkGNU(t, cases)
}

func TestGNUExpr(t *testing.T) {
	requireGNU(t, "expr")
	var cases []gnuCase
	for _, args := range [][]string{
		{"abc", ":", "^a"}, {"héllo", ":", ".*"}, {"length", "héllo"}, {"substr", "héllo", "2", "3"}, {"index", "héllo", "l"},
		{"1", "+", "2"}, {"5", "/", "0"}, {"7", "%", "3"}, {"-7", "/", "2"}, {"-7", "%", "2"}, {"a", "+", "1"}, {"3", "<", "10"},
		{"3", "<", "a"}, {"10", "<", "9a"}, {"", "|", "0"}, {"0", "&", "5"}, {"5", "&", "0"}, {"5", "&", "x"}, {"0", "|", "x"},
		{"abc", ":", `a\(b\)`}, {"abc", ":", `x\(b\)`}, {"abc", ":", "x"}, {}, {"1", "+"}, {"(", "1", "+", "2", ")", "*", "3"},
		{"match", "abc", "a."}, {"+", "match"}, {"99999999999999999999", "+", "1"}, {"2", "=", "2"}, {"a", "=", "a"},
		{"a", "!=", "b"}, {"01", "=", "1"}, {"abc", ":", `a\|b`}, {"cab", ":", `a\|b`}, {"a", ":", `a\{`}, {"9223372036854775807", "+", "1"},
		{"1", "-", "-1"}, {"--", "5"}, {"0"}, {""}, {"00"}, {"-0"}, {"-"}, {"substr", "abc", "0", "1"}, {"substr", "abc", "2", "-1"},
		{"substr", "abc", "2", "99"}, {"substr", "abc", "x", "1"}, {"x", ">", "X"}, {"ab", ":", "a", "b"}, {"(", "1"}, {"(", "1", "2"},
		{")"}, {"1", "|", "5", "/", "0"}, {"0", "&", "5", "/", "0"}, {"2", "*", "3", "+", "4", "*", "5"}, {"10", "-", "2", "-", "3"},
		{"a", "<", "b", "=", "1"}, {"length", "length"}, {"length"}, {"index", "abc", ""}, {"foo.txt", ":", `\(.*\)\.txt`},
		{"foo.c", ":", `\(.*\)\.txt`}, {"x", "\\>", "y"}, {"1", "<=", "1"}, {"2", ">=", "3"}, {"abc", "==", "abc"},
		{"a\nb", ":", "a.b"}, {"ab", ":", "a$"}, {"+5", "+", "1"}, {"5", "+", "+", "1"}, {"3", "*", "-4"}, {"abc", ":", `\(a\)\(b\)`},
		{"aaa", ":", "a*"}, {"xyz", ":", ".*y"},
	} {
		cases = append(cases, gnuCase{args: append([]string{"expr"}, args...)})
	}
	checkGNUStderr(t, cases)
}

const testSetup = `printf x > f && : > empty && mkdir d && ln -s f lf && ln -s nowhere dangling && chmod 755 f &&
touch -d 2020-01-01 empty`

func TestGNUTest(t *testing.T) {
	requireGNU(t, "test", "[")
	var cases []gnuCase
	for _, a := range []string{
		"", "a", "-q", "!", "! a", "! ! a", "-n", "-n x", "-z x", "-z ''", "a b", "a = a", "a = b", "a == a", "a != b", "a -eq b",
		"1 -eq", "( a", "( a b c d e", "( a )", "( a = a ) -a b", "a = b -o c", "-l abc -eq 3", "' 5 ' -eq 5", "5 -a", "-t 1", "a < b",
		"99999999999999999999 -gt 1", "-5 -lt +3", "1 -ne 1", "3 -ge 3", "2 -le 1", "-f f", "-f d", "-d d", "-e nope", "-s f", "-s empty",
		"-L lf", "-h f", "-L dangling", "-e dangling", "-x f", "-x d", "-p f", "-f lf", "f -nt empty", "f -ot empty", "empty -nt f",
		"f -nt nope", "nope -ot f", "f -ef lf", "f -ef empty", "-O f", "-G f", "-k d", "-u f", "-g f", "-b f", "-c f", "-S f",
		"! -f f -o -d d", "-f f -a ! -d f", "( -f f )", "a -a b -o ''", "'' -o ''", "x -a ''", "-o", "-a", "( )", ") a",
		"a b c d e f", "! ( a = b )", "-z", "x -x y", "-e",
	} {
		args := append([]string{"test"}, shellWords(a)...)
		cases = append(cases, gnuCase{setup: testSetup, args: args})
		cases = append(cases, gnuCase{setup: testSetup, args: append(append([]string{"["}, args[1:]...), "]")})
	}
	cases = append(cases, gnuCase{args: []string{"[", "a"}}, gnuCase{args: []string{"[", "--help"}}, gnuCase{args: []string{"[", "]"}},
		gnuCase{args: []string{"test", "--help"}})
	for i := range cases {
		if cases[i].args[0] == "[" && len(cases[i].args) == 2 && cases[i].args[1] == "--help" {
			cases[i].mask = func(string) string { return "" } // the help texts differ
		}
	}
	checkGNUStderr(t, cases)
}

// shellWords splits on spaces, with ” for an empty word and '...'
// around words holding spaces.
func shellWords(s string) []string {
	var out []string
	for len(s) > 0 {
		s = strings.TrimLeft(s, " ")
		if s == "" {
			break
		}
		if s[0] == '\'' {
			end := strings.IndexByte(s[1:], '\'') + 1
			out = append(out, s[1:end])
			s = s[end+1:]
			continue
		}
		w, rest, _ := strings.Cut(s, " ")
		out = append(out, w)
		s = rest
	}
	return out
}

const fileSetup = `printf 'hello\n' > a && chmod 600 a && printf '%0100d' 0 > big && mkdir d && printf 'x\n' > d/in &&
touch -d '2021-02-03 04:05:06' a big d/in`

func TestGNUTruncateInstall(t *testing.T) {
	requireGNU(t, "truncate", "install")
	var cases []gnuCase
	for _, a := range []string{
		"truncate f", "truncate -s 10 f", "truncate -s +5K big", "truncate -s <50 big", "truncate -s >500 big", "truncate -s %7 big",
		"truncate -s /7 big", "truncate -c -s 5 g", "truncate -s 1x big", "truncate -s -1000 big", "truncate -r big -s 5 h",
		"truncate -r big h", "truncate -r big -s +1 i", "truncate -s 5 nodir/x", "truncate -s 5 .", "truncate -s 1KB j",
		"truncate -s 1KiB k", "truncate -s 1.5K k", "truncate -s 5", "truncate -s %0 big", "truncate -o -s 2 big", "truncate -s 0 a big",
		"truncate --size=3 a", "truncate -r nope a", "truncate -s 2M sp", "truncate -s 1kB x", "truncate -o f", "truncate -s +-1 a",
		"install a b", "install -m 644 a c", "install -d x/y/z", "install -D a p/q/r", "install -v a b2", "install -v -D a v/w",
		"install -v -d dd/ee", "install a d", "install -t d a big", "install a", "install nope z", "install -m 8 a z", "install -d",
		"install a big d", "install a big nope", "install -T a d", "install d z", "install -m u=rw,go=r a s", "install -d -m 700 m",
		"install -p a pp", "install -C -m 600 a a2", "install -D -t n/o a big", "install a a", "install -m 4755 a suid",
		"install -T a big x", "install -dv d d/new", "install -o root a owned",
	} {
		cases = append(cases, gnuCase{setup: fileSetup, args: shellWords(a), after: stateTimes})
	}
	checkGNUStderr(t, cases)
}

func TestGNUMktemp(t *testing.T) {
	requireGNU(t, "mktemp")
	random := regexp.MustCompile(`(zz|tmp\.)[A-Za-z0-9]{3,}`)
	mask := func(s string) string { return random.ReplaceAllString(s, "${1}RANDOM") }
	var cases []gnuCase
	for _, a := range []string{
		"mktemp zzXXX", "mktemp zz", "mktemp zzXX", "mktemp -p . zzXXX", "mktemp -u -p . zzXXX", "mktemp --suffix=.txt zzXXX",
		"mktemp zzXXX.txt", "mktemp -q foo", "mktemp -p nodir", "mktemp nodir/zzXXX", "mktemp a b", "mktemp XXX/zzXXX",
		"mktemp -t nodir/zzXXX", "mktemp --tmpdir=. zzXXX", "mktemp -d -p . zzXXXX", "mktemp -p . /tmp/abs.XXXXXX",
		"mktemp --suffix=x yyy", "mktemp -d zzXXXXXX", "mktemp -p d zzXXX", "mktemp --suffix=a/b zzXXX", "mktemp -u zzXXX",
		"mktemp -dq nodir/zzXXX",
	} {
		cases = append(cases, gnuCase{setup: "mkdir d", args: shellWords(a), after: stateFiles, mask: mask})
	}
	checkGNUStderr(t, cases)
}

// fileSetup makes one file of each kind the file command describes.
const fileKindsSetup = `printf 'hello\n' > a.txt; : > empty; mkdir d; ln -s a.txt l; ln -s nope dl; printf '{"a":1}\n' > j.json
printf 'héllo\n' > u.txt; printf '#!/bin/bash\necho hi\n' > s.sh; printf '#!/usr/bin/env python3\nprint(1)\n' > p.py
printf 'a,b\n1,2\n' > c.csv; printf '<html><body>x</body></html>\n' > h.html; printf '<?xml version="1.0"?><a/>\n' > x.xml
printf 'a\r\nb\r\n' > crlf.txt; printf '\x00\x01\x02' > bin; printf 'hello' > nonl
printf '\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x03\x00\x00\x00\x02\x08\x02\x00\x00\x00\x12\x16\xf1M' > i.png
printf 'GIF89a\x02\x00\x03\x00\x00\x00\x00;' > g.gif; printf '%%PDF-1.4\n' > f.pdf; printf '# Title\n\nSome *text*.\n' > r.md
printf '#include <stdio.h>\nint main(){}\n' > c.c; printf 'key: value\n' > y.yaml; printf 'caf\xe9\n' > latin.txt
printf '\xef\xbb\xbfbom\n' > bom.txt; printf 'a\rb\r' > cr.txt; printf 'a\r\nb\n' > mixed.txt; printf '#!/bin/sh\n:\n' > posix.sh
printf 'x%.0s' $(seq 400) > long.txt; printf '\x1b[1mbold\n' > esc.txt; printf '<!DOCTYPE html>\n<p>x</p>\n' > doc.html
printf '[1, 2]\n' > arr.json; printf '{"a":\n' > bad.json; printf 'x\n' | gzip -n > n.gz; printf 'y\n' > y; gzip -9 y; touch -d '2021-01-01 00:00:00' y.gz`

func TestGNUFile(t *testing.T) {
	requireGNU(t, "file", "gzip")
	names := "a.txt arr.json bad.json bin bom.txt c.c c.csv cr.txt crlf.txt d dl doc.html empty esc.txt f.pdf g.gif h.html i.png j.json l " +
		"latin.txt long.txt mixed.txt nonl p.py posix.sh r.md s.sh u.txt x.xml y.yaml n.gz y.gz nope"
	var cases []gnuCase
	for _, a := range []string{
		"file " + names, "file -b a.txt d", "file -L l dl", "file -N a.txt d", "file -F | a.txt bin", "file -h l",
		"file -i a.txt u.txt j.json empty d i.png bin latin.txt l s.sh", "file --mime-type " + names, "file --mime-encoding a.txt u.txt bin latin.txt",
		"file -bi h.html", "file", "file -L --mime-type l",
	} {
		cases = append(cases, gnuCase{setup: fileKindsSetup, args: shellWords(a)})
	}
	checkGNU(t, cases)
}
