package sed

import (
	"strings"
	"testing"
)

func tc(stdin string, args ...string) sedCase { return sedCase{args: args, stdin: stdin} }

func tf(files map[string]string, stdin string, args ...string) sedCase {
	return sedCase{args: args, stdin: stdin, files: files}
}

const lines5 = "one\ntwo\nthree\nfour\nfive\n"
const nums = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"

var abc = map[string]string{"a.txt": "alpha\nbeta\ngamma\n", "b.txt": "one\ntwo", "c.txt": "x\ny\nz\n"}

// handCases cover every command, flag and address form, the GNU special
// cases and the error paths.
var handCases = []sedCase{
	// basics and options
	tc(lines5, "p"), tc(lines5, "-n", "p"), tc(lines5, "--quiet", "2p"), tc(lines5, "--silent", "2p"),
	tc(lines5, "-e", "1d", "-e", "3d"), tc(lines5, "--expression=2d"), tc(lines5, "--expression", "2d"),
	tc(lines5, "-ne", "3p"), tc(lines5, "-n", "-e3p"), tc("a b\n", "-E", "s/(a) (b)/\\2 \\1/"),
	tc("a b\n", "-r", "s/(a) (b)/\\2 \\1/"), tc("a b\n", "--regexp-extended", "s/(a|b)+/X/g"),
	tc("a\x00b\x00", "-z", "s/^/>/"), tc("a\x00b", "--null-data", "$!d"), tc("a\nb\x00c\n", "-z", "N;s/\\n/|/g;l"),
	tc(lines5, "--posix", "2d"), tc(lines5, "-u", "2d"), tc(lines5, "--unbuffered", "p"), tc(lines5, "-b", "1d"),
	tc("x\n", "--debug-nope"), tc("x\n", "-k"), tc("x\n"), tc("x\n", "-e"), tc("x\n", "--expr=p"),
	tc("x\n", "-s", "p"), tc(lines5, "-n", "--line-length=5", "l"), tc(lines5, "-l", "3", "-n", "l"),
	tc("#n\np\n", "-f", "-"), tc(lines5, "#n\n3p"), tc(lines5, "#n"), tc(lines5, " #n\n3p"), tc(lines5, "#no\n3p"),
	tf(map[string]string{"s.sed": "2d\n# comment\ns/o/0/g\n"}, lines5, "-f", "s.sed"),
	tf(map[string]string{"s.sed": "#n\n2p\n"}, lines5, "--file=s.sed"),
	tf(map[string]string{"s.sed": "2{\np\n"}, lines5, "-f", "s.sed"),
	tf(map[string]string{"s.sed": "a\\\nfoo\\\nbar\n"}, "x\n", "-f", "s.sed"),
	tf(nil, lines5, "-f", "nosuch.sed"),
	tc(lines5, "--", "2d"), tc(lines5, "-n", "--", "2p"),

	// files and -s
	tf(abc, "", "p", "a.txt", "b.txt"), tf(abc, "", "-n", "$p", "a.txt", "b.txt", "c.txt"),
	tf(abc, "", "-s", "-n", "$p", "a.txt", "b.txt", "c.txt"), tf(abc, "", "--separate", "1d", "a.txt", "c.txt"),
	tf(abc, "", "-n", "F;=", "a.txt", "b.txt"), tf(abc, "stdin\n", "F", "a.txt", "-", "c.txt"),
	tf(abc, "", "p", "a.txt", "missing.txt", "c.txt"), tf(abc, "", "-n", "$=", "missing.txt"),
	tf(abc, "", "-s", "1F", "a.txt", "b.txt"), tf(abc, "", "2q", "a.txt", "c.txt"),
	tf(abc, "", "$d", "b.txt"), tf(abc, "", "N;N;s/\\n/+/g", "a.txt", "c.txt"),

	// in place
	tf(abc, "", "-i", "s/a/A/g", "a.txt"), tf(abc, "", "-i.bak", "1d", "a.txt", "c.txt"),
	tf(abc, "", "--in-place=.orig", "s/^/>/", "b.txt"), tf(abc, "", "-i", "$d", "a.txt", "c.txt"),
	tf(abc, "", "-i", "2q", "a.txt", "c.txt"), tf(abc, "", "-i", "1Q", "a.txt"),
	tf(abc, "", "-i", "-n", "2p", "a.txt", "missing", "c.txt"), tf(abc, "", "-i", "F;=", "a.txt"),
	tf(abc, "", "-i", "w /dev/stdout", "a.txt"), tf(abc, "", "-ibak_*", "s/x/X/", "c.txt"),
	tf(abc, "", "-s", "-i", "1i\\\nhead", "a.txt", "c.txt"), tf(abc, "", "-E", "-i", "s/(.)(.)/\\2\\1/", "c.txt", "a.txt"),
	tf(abc, "", "-i", "p"), tf(abc, "", "-n", "-i", "$p", "b.txt"),

	// addresses
	tc(nums, "-n", "3p"), tc(nums, "-n", "$p"), tc(nums, "-n", "3,5p"), tc(nums, "-n", "5,3p"), tc(nums, "-n", "/4/,/6/p"),
	tc(nums, "-n", "/1/,/1/p"), tc(nums, "-n", "\\,5,p"), tc(nums, "-n", "\\%5%,$p"), tc(nums, "-n", "1~3p"), tc(nums, "-n", "0~4p"),
	tc(nums, "-n", "2~0p"), tc(nums, "-n", "0~0p"), tc(nums, "-n", "3,+2p"), tc(nums, "-n", "/2/,+1p"), tc(nums, "-n", "3,~4p"),
	tc(nums, "-n", "4,~4p"), tc(nums, "-n", "5,~0p"), tc(nums, "-n", "0,/1/p"), tc(nums, "-n", "1,/1/p"), tc(nums, "-n", "0,/5/p"),
	tc(nums, "-n", "0,3p"), tc(nums, "-n", "2!p"), tc(nums, "-n", "2,8!p"), tc(nums, "-n", "/1/!p"), tc(nums, "-n", "$!p"),
	tc(nums, "-n", "1 , 3 p"), tc(nums, "-n", "2 ! p"), tc(nums, "-n", "2!!p"), tc(nums, "-n", "/[02468]$/,+1p"),
	tc("Abc\nabc\nABC\n", "-n", "/abc/Ip"), tc("Abc\nabc\nABC\n", "-n", "/abc/I,/ABC/p"), tc("Abc\nabc\n", "/B/I d"),
	tc("a\nb\nc\n", "N;N;/^b$/Ms/^/>/Mg"), tc("a\nb\nc\n", "N;N;/^b$/s/^/>/g"), tc(nums, "-n", "/[3-5]/{/4/!p}"),
	tc(nums, "-n", "2,4{p;p}"), tc(nums, "-n", "2,4{\np\n}\n"), tc(nums, "{{{p}}}"), tc(nums, "-n", "$!{$!{3,5p}}"),
	tc(nums, "2,3{N;N;d}"), tc(nums, "-n", "2,3{N;N;p}"), tc(nums, "-n", "/3/,/[0-9]/{=;p}"), tc(nums, "-n", "/3/,3p"),
	tc(nums, "-n", "$,1p"), tc(nums, "-n", "/x/,$p"), tc(nums, "-n", "8,$p"), tc(nums, "0p"), tc(nums, "1,2,3p"),
	tc(nums, "-n", "/2/,/3/p;/2/,/3/="), tc(nums, "3,5!d"), tc(nums, "-n", "2,/[0-9]/p"), tc(nums, "-n", "1~2{n;p}"),

	// s command
	tc("hello world\n", "s/o/0/"), tc("hello world\n", "s/o/0/g"), tc("hello world\n", "s/o/0/2"), tc("aaaaa\n", "s/a/b/3g"),
	tc("abxxc\n", "s/x*/-/g"), tc("abxxc\n", "s/x*/-/2"), tc("abxxc\n", "s/x*/-/3g"), tc("baaac\n", "s/a*/x/g"),
	tc("abc\n", "s/b*/X/g"), tc("abc\n", "s/$/X/g"), tc("abc\n", "s/^/X/g"), tc("abc\n", "s/\\`/X/g"), tc("\n", "s/x*/-/g"),
	tc("hello\n", "s/l/L/gp"), tc("hello\n", "-n", "s/l/L/p"), tc("hello\n", "-n", "s/z/L/p"), tc("Hello hELLO\n", "s/hello/X/Ig"),
	tc("Hello hELLO\n", "s/hello/X/ig"), tc("a.b.c\n", "s/\\./-/g"), tc("a/b/c\n", "s|/|-|g"), tc("a/b/c\n", "s,/,\\,,g"),
	tc("path/to/x\n", "s#path/to#new/path#"), tc("hello\n", "s/hello/[&]/"), tc("hello\n", "s/hello/[\\&]/"), tc("ab\n", "s/\\(a\\)\\(b\\)/\\2\\1\\0/"),
	tc("hello world\n", "s/\\w\\+/<&>/g"), tc("hello world\n", "s/\\W/_/g"), tc("a  b\tc\n", "s/\\s\\+/ /g"), tc("a  b\tc\n", "s/\\S/X/g"),
	tc("hello world\n", "s/.*/\\U&/"), tc("Hello World\n", "s/.*/\\L&/"), tc("hello world\n", "s/\\w\\+/\\u&/g"), tc("HELLO\n", "s/.*/\\L\\u&/"),
	tc("hello\n", "s/\\(.\\)\\(.*\\)/\\2\\U\\1\\Edone/"), tc("ab\n", "-E", "s/(.)(.)/\\U\\1\\l\\2x/"), tc("foo bar\n", "s/\\(foo\\) \\(bar\\)/\\U\\1\\E \\2/"),
	tc("foo\n", "s/o/\\n/"), tc("foo\n", "s/o/\\t|/g"), tc("foo\n", "s/f/a\\\nb/"), tc("a\tb\n", "s/\\t/<tab>/"), tc("abc\n", "s/b/\\x41\\o102\\d067/"),
	tc("a*b\n", "s/\\x2a/X/"), tc("aa*\n", "s/a\\x2a/X/"), tc("x\n", "s/x/\\x26\\x26/"), tc("a^b\n", "s/\\x5e/X/"), tc("a\x01b\n", "s/\\cA/X/"),
	tc("a|b\n", "s|a\\|b|X|"), tc("a.b axb\n", "s.a\\.b.X."), tc("aab a*b\n", "s*a\\*b*X*"), tc("a\n", "s&a&\\&&"), tc("a/b\n", "s/[/]/X/"),
	tc("hello\n", "s/l/L/w out.txt"), tc("hello\nxyz\n", "s/l/L/gw /dev/stdout"), tc("hello\n", "s/l/L/w /dev/stderr"),
	tc("abc\n", "s/b/x/;s//y/"), tc("abc\nb\n", "/b/s//[&]/"), tc("abc\n", "s/c/x/ ; p"), tc("abc\n", "s/c/x/ g"),
	tc("aaa bbb\n", "s/\\(a*\\) \\(b*\\)/\\2 \\1/"), tc("one two three\n", "-E", "s/(\\w+) (\\w+)/\\2 \\1/"), tc("x\n", "s/x/a\\cb/"),
	tc("aXbXc\n", "s/X/\\\n/g"), tc("a b\n", "s/ /\\\\/"), tc("ab\n", "s/\\(a\\)\\|b/[\\1]/g"), tc("abcabc\n", "s/b/X/2"),
	tc("hello\n", "s/L/X/I2"), tc("héllo wörld\n", "s/./X/g"), tc("héllo\n", "s/.*/\\U&/"), tc("ÉCOLE\n", "s/.*/\\L&/"),
	tc("é\n", "s/É/x/I"), tc("aé b\n", "s/\\w\\+/[&]/g"), tc("a1 b2\n", "s/[[:alpha:]][[:digit:]]/X/g"),

	// regex syntax
	tc("aaa\n", "s/a\\{2\\}/X/"), tc("aaaa\n", "s/a\\{2,\\}/X/"), tc("aaaa\n", "s/a\\{1,3\\}/X/g"), tc("aaa\n", "-E", "s/a{2}/X/"),
	tc("abab\n", "s/\\(ab\\)*/X/"), tc("abab\n", "-E", "s/(ab)+/X/"), tc("a+b?\n", "s/a+b?/X/"), tc("aab\n", "s/a\\+b\\?/X/"),
	tc("a+b\n", "-E", "s/a\\+b/X/"), tc("a*b\n", "s/*/X/"), tc("*a\n", "s/^*/X/"), tc("a*\n", "s/\\(*\\)/X/"),
	tc("a$b\n", "s/a$b/X/"), tc("a^b\n", "s/a^b/X/"), tc("a$b\n", "-E", "s/a\\$b/X/"), tc("aa\n", "s/\\(^a\\)/X/g"),
	tc("aa\n", "s/x\\|^a/X/g"), tc("ab\n", "-E", "s/a|b$/X/g"), tc("a]\n", "s/[]]/X/g"), tc("a]b\n", "s/[^]a]/X/g"),
	tc("a-b\n", "s/[[.-.]]/X/g"), tc("ab\n", "s/[[=a=]]/X/g"), tc("a\\b\n", "s/[\\]/X/"), tc("a\tb\n", "s/[\\t]/X/"),
	tc("anb\\\n", "s/[\\n]/X/g"), tc("a b1_\n", "s/[[:space:][:digit:]]/_/g"), tc("aBcD\n", "s/[[:upper:]]/X/g"), tc("aBcD\n", "s/[^[:lower:]]/X/g"),
	tc("a.b,c!\n", "s/[[:punct:]]/X/g"), tc("ab12\n", "s/[[:alnum:]]/X/2g"), tc("0x1F\n", "s/[[:xdigit:]]\\+/X/g"), tc("a\tb c\n", "s/[[:blank:]]/X/g"),
	tc("abcd\n", "s/[a-c]/X/g"), tc("a-z\n", "s/[a-]/X/g"), tc("a-z\n", "s/[-z]/X/g"), tc("ab b bb\n", "s/\\<b/X/g"),
	tc("ab b bb\n", "s/b\\>/X/g"), tc("ab b bb\n", "s/\\bb/X/g"), tc("ab b bb\n", "s/\\Bb/X/g"), tc("foo bar\n", "s/\\<./X/g"),
	tc("foo bar\n", "s/.\\>/X/g"), tc("aabbcd\n", "s/\\(.\\)\\1/<&>/g"), tc("aabbcd\n", "-E", "s/(.)\\1/<&>/g"),
	tc("abcabc\n", "s/\\(abc\\)\\1/X/"), tc("xyzzyx\n", "-E", "s/(.)(.)(.)\\3\\2\\1/P/"), tc("aA\n", "s/\\(a\\)\\1/X/I"),
	tc("hello\n", "-E", "s/l{2}/X/"), tc("a{b\n", "s/a{b/X/"), tc("a(b)\n", "s/(b)/X/"), tc("a(b)\n", "-E", "s/\\(b\\)/X/"),
	tc("ab\n", "-E", "s/a|b/X/g"), tc("ab\n", "s/a|b/X/g"), tc("a|b\n", "s/a|b/X/g"), tc("abcd\n", "-E", "s/(a|ab)(c|bcd)/[\\1,\\2]/"),
	tc("xyz\n", "-E", "s/x(y?)+z/[\\1]/"), tc("a\nb\n", "N;s/a.b/X/"), tc("a\nb\n", "N;s/a[^x]b/X/"), tc("a\nb\n", "N;s/a.b/X/M"),
	tc("a\nb\n", "N;s/^/>/Mg"), tc("a\nb\n", "N;s/$/</Mg"), tc("a\nb\n", "N;s/\\`/>/Mg"), tc("a\nb\n", "N;s/\\'/</Mg"),
	tc("a\nb\n", "N;s/^b/X/"), tc("a\nb\n", "N;s/^b/X/M"), tc("a\nb\n", "N;s/a$/X/M"), tc("a\nb\n", "N;s/\\n/,/"),
	tc("aaa\n", "s/a**/X/"), tc("abc\n", "-E", "s/()/X/g"), tc("abc\n", "-E", "s/(|a)b/X/"), tc("a\n", "s/\\(\\)/X/"),
	tc("aaaa\n", "s/a\\{,2\\}/X/"), tc("x\n", "s/x\\{0\\}/Y/"), tc("abc\n", "s/./(&)/3"),

	// regex errors
	tc("x\n", "s/\\(a/X/"), tc("x\n", "s/a\\)/X/"), tc("x\n", "-E", "s/(a/X/"), tc("x\n", "-E", "s/a)/X/"), tc("x\n", "s/[a/X/"),
	tc("x\n", "s/[[:foo:]]/X/"), tc("x\n", "s/[z-a]/X/"), tc("x\n", "s/a\\{2,1\\}/X/"), tc("x\n", "s/a\\{x\\}/X/"),
	tc("x\n", "s/\\(a\\)\\2/X/"), tc("x\n", "s/a/\\1/"), tc("x\n", "-E", "s/*/X/"), tc("x\n", "-E", "s/a{/X/"),
	tc("x\n", "s/\\{/X/"), tc("x\n", "s/a\\{/X/"), tc("x\n", "s/a/b/gg"), tc("x\n", "s/a/b/pp"), tc("x\n", "s/a/b/0"),
	tc("x\n", "s/a/b/2/3"), tc("x\n", "s/a/b/q"), tc("x\n", "s/a/b"), tc("x\n", "s/a"), tc("x\n", "s"),
	tc("x\n", "s//x/"), tc("x\n", "s/a/b/w"), tc("x\n", "s/x/y/1g2"), tc("x\n", "/x/Ms//y/"),

	// y
	tc("hello\n", "y/abcdefghij/ABCDEFGHIJ/"), tc("a/b\n", "y,/,|,"), tc("a\tb\n", "y/\\t/X/"), tc("a\\b\n", "y/\\\\/X/"),
	tc("a\nb\n", "N;y/\\n/X/"), tc("abc\n", "y/abc/\\n\\t-/"), tc("héllo\n", "y/éh/eH/"), tc("x\n", "y/ab/c/"), tc("x\n", "y/a/b"),
	tc("x\n", "y/a/b/g"), tc("aab\n", "y/aa/bc/"), tc("a/b\n", "y/\\//|/"),

	// a i c
	tc("x\ny\n", "a foo"), tc("x\ny\n", "1a\\\nfoo"), tc("x\ny\n", "a\\foo"), tc("x\ny\n", "a\\  foo"), tc("x\ny\n", "a   foo"),
	tc("x\n", "a\\\n   text\\\n  more"), tc("x\n", "a foo\\tbar\\\\nbaz\\q"), tc("x\n", "a foo\\nbar"), tc("x\n", "-e", "a\\", "-e", "foo"),
	tc("x\n", "a"), tc("x\n", "a\\"), tc("x\n", "1{a foo\n}"), tc("x\n", "1{a foo}"), tc("x\ny\n", "i\\\nbar"), tc("x\ny\n", "i bar"),
	tc("x\ny\n", "2i\\  bar"), tc("x\ny\n", "c\\\nnew"), tc("x\ny\n", "$c new"), tc(lines5, "2,4c\\X"), tc(lines5, "2,4!c\\X"),
	tc(lines5, "$!N;c\\X"), tc(lines5, "2,4{c\\X\n}"), tc(lines5, "/t/c\\X"), tc("x\n", "a foo; p"), tc("x\n", "a\\\n"),
	tc("x\ny\n", "1a one\n1a two\n1i zero"), tc("x\n", "a\\\nl1\\\\\nl2"), tc("x", "a foo"), tc("x", "i foo"), tc("x", "c foo"),
	tc("x\ny\n", "-s", "a --"), tc("x\n", "a \\  two"), tc("x\n", "$a\\"), tc("x\n", "a\\", "a.txt"),
	tc("x\n", "-e", "a one\\", "-e", "two"), tc("x\ny\n", "2c\\\nA\\\nB"), tc("x\ny\n", "1,2c\\\nA"), tc("x\ny\n", "-n", "1,2c\\\nA"),
	tc("x\n", "i\\"), tc("x\n", "c"), tc("a\nb\nc\n", "2{i\\\nI\na\\\nA\nc\\\nC\n}"),

	// d D n N p P h H g G x z = l F q Q
	tc(lines5, "2d"), tc(lines5, "$!N;P;D"), tc(lines5, "N;P;D"), tc(lines5, "1{N;N};D"), tc("a\nb\n", "N;D"), tc(lines5, "$!D"),
	tc(lines5, "n;d"), tc(lines5, "-n", "n;p"), tc(lines5, "N;s/\\n/-/"), tc(lines5, "N;N;s/\\n/-/g"), tc("a\nb\nc\n", "N"),
	tc("a\nb\nc\n", "$!N"), tc("a\nb\nc\n", "-n", "N;p"), tc("a\nb\nc\n", "N;N;N;N"), tc("a\nb\nc\n", "-n", "$!{N};P;D"),
	sedCase{args: []string{"N"}, stdin: "a\nb\nc\n", env: []string{"POSIXLY_CORRECT=1"}}, tc("a\nb\nc\n", "--posix", "N"),
	tc("a\nb\nc\n", "P"), tc("a\nb\nc\n", "-n", "N;P"), tc("a\nb\nc\n", "-n", "h;n;G;p"), tc("a\nb\nc\n", "-n", "H;${x;p}"),
	tc("a\nb\nc\n", "-n", "H;${g;p}"), tc("a\nb\nc\n", "x"), tc("a\nb\nc\n", "G"), tc("a\nb\nc\n", "1!G;h;$!d"), tc("a\nb\nc\n", "g"),
	tc("a\nb\nc\n", "z;s/^$/empty/"), tc("a\nb\nc\n", "="), tc("a\nb\nc\n", "-n", "$="), tc("a\nb\nc\n", "-n", "/b/="),
	tc("a\tb\\c\x01\x7f\n", "-n", "l"), tc("abcdefghijkl\n", "-n", "l 5"), tc("abcdefghijkl\n", "-n", "l 1"), tc("abcdefghijkl\n", "-n", "l 0"),
	tc(strings.Repeat("abcdefghij", 20)+"\n", "-n", "l"), tc(strings.Repeat("abcdefghi\x01", 20)+"\n", "-n", "l;l 30"),
	tc("é\x80\n", "-n", "l"), tc("a\nb\n", "-n", "N;l"), tc("x", "-n", "l"), tc("a\nb\n", "-n", "l2"), tc("a\nb\n", "l;d"),
	tc("a\nb\n", "F"), tc(lines5, "2q"), tc(lines5, "2q5"), tc(lines5, "2q 7"), tc(lines5, "2Q"), tc(lines5, "2Q3"), tc(lines5, "-n", "2q"),
	tc(lines5, "$q"), tc(lines5, "1,2q"), tc(lines5, "2{a foo\nq}"), tc(lines5, "2{a foo\nQ}"), tc(lines5, "2{i\\\nfoo\nq7}"),
	tc(lines5, "q;p"), tc("", "p"), tc("", "$="), tc("", "q5"), tc("x", "p"), tc("x", "-n", "p"), tc("x", "G"), tc("x\ny", "N;P;D"),
	tc("a\n\nb\n", "/^$/d"), tc("a\nb\n", "x;G"), tc("a\nb", "$!d"), tc("a\nb", "s/b/c/w out"),

	// b t T labels
	tc("aaa\n", ":a;s/a/b/;ta"), tc("aaa\n", ":a\ns/a/b/\nta"), tc("a\nb\nc\n", ":a;N;$!ba;s/\\n/ /g"), tc("abc\n", "s/x/y/;Tend;s/a/A/;:end"),
	tc("abc\n", "s/a/y/;Tend;s/b/B/;:end"), tc("abc\n", "bend;s/a/A/;:end"), tc("abc\n", "b;s/a/A/"), tc("abc\n", "s/a/A/;t;s/b/B/"),
	tc("abc\n", "b end ; s/a/X/ ; :end"), tc("abc\n", ": a;s/a/X/;t a"), tc("x\n", "bfoo"), tc("x\n", ":a;:a"), tc("x\n", "1:a"), tc("x\n", ":"),
	tc("a1\nb2\n", "s/[0-9]//;t;s/^/no:/"), tc("a\nb\n", "s/a/A/;n;t x;s/^/-/;:x"), tc("a\nb\n", "s/a/A/;N;t x;s/^/-/;:x"),
	tc("aXbXc\n", ":x;/X/{s/X/\\n/;bx}"), tc("a b c\n", "-E", ":r;s/^([^ ]*) /\\1\\n/;tr"), tc("x\n", "b};"), tc("x\n", "{b};p"),

	// r R w W
	tf(abc, "1\n2\n3\n", "r c.txt"), tf(abc, "1\n2\n3\n", "2r c.txt"), tf(abc, "1\n2\n3\n", "r b.txt"), tf(abc, "1\n2\n3\n", "r nosuch"),
	tf(abc, "1\n2\n3\n", "R c.txt"), tf(abc, "1\n2\n3\n4\n5\n", "R b.txt"), tf(abc, "1\n2\n", "R a.txt\nR a.txt"), tf(abc, "1\n2\n", "$r /dev/stdin", "c.txt"),
	tf(abc, "1\n2\n3\n", "w out.txt"), tf(abc, "1\n2\n3\n", "-n", "2w out.txt"), tf(abc, "1\n2\n3\n", "w out.txt\ns/^/x/w out.txt"),
	tf(abc, "1\n2\n3\n", "N;W out.txt"), tf(abc, "1\n2\n3\n", "-n", "w /dev/stdout"), tf(abc, "1\n2\n3\n", "w /dev/stderr"),
	tf(abc, "1\n2\n3\n", "1{r c.txt\n};2a after"), tf(abc, "1\n2\n3\n", "r c.txt\nd"), tf(abc, "1\n2\n3\n", "-n", "r c.txt"),
	tf(abc, "1\n2\n3\n", "r"), tf(abc, "1\n2\n3\n", "w"), tf(abc, "1\n2\n3\n", "r c.txt;p"), tf(abc, "1\n2\n3\n", "2{r c.txt\nN}"),
	tf(abc, "1\n2\n3\n", "1{r c.txt\nn}"), tf(abc, "1\n2\n3\n", "1{a x\nD}"), tf(abc, "1\n2\n3\n", "W out\nw out2"),

	// parse errors and oddities
	tc("x\n", "k"), tc("x\n", "/x"), tc("x\n", "\\%x"), tc("x\n", "px"), tc("x\n", "p}"), tc("x\n", "}"), tc("x\n", "{p"), tc("x\n", "1,p"),
	tc("x\n", "1}"), tc("x\n", "1{p}p"), tc("x\n", "1{p};p"), tc("x\n", "1{p}"), tc("x\n", "{p;};p"), tc("x\n", "p;;  ;p"),
	tc("x\n", "1"), tc("x\n", "1!"), tc("x\n", "q q"), tc("x\n", "dp"), tc("x\n", "p # comment"), tc("x\n", "p#comment"),
	tc("x\n", "s/x/y/#c"), tc("x\n", "y/x/y/;p"), tc("x\n", "y/x/y/ p"), tc("x\n", "l 5 p"), tc("x\n", "=p"), tc("x\n", "v;p"),
	tc("x\n", "v 4.2"), tc("x\n", "/x/I,/y/Mp"), tc("x\n", "//p"), tc("x\n", "0~1p"), tc("x\n", "1,+p"), tc("x\n", "$!{p"),
	tc("x\n", "-e", "1{", "-e", "p", "-e", "}"), tc("x\n", "a\\", "-e", "p"), tc("x\n", "s/x/\\\n/"), tc("x\n", "y/x/\\n/"),

	// second round: -z, escapes, delimiters, odd corners
	tc("a\x00b\x00c\x00", "-z", "N;N;s/^b$/X/M;s/a$/Y/M"), tc("a\x00b\x00", "-z", "G;l"), tc("a\nb\x00c\x00", "-z", "$!d;="),
	tc("a\nb\x00c", "-z", "s/\\n/N/;s/$/E/"), tc("a\x00b\x00", "-z", "-s", "F"), tc("a\x00b\x00", "-z", "i\\\nX"),
	tc("a b\n", "s a b "), tc("a\tb\n", "s\ta\tb\t"), tc("axb\n", "sxaxbx"), tc("a1b\n", "s1a1b1"), tc("a;b\n", "s;\\;;-;"),
	tc("abc\n", "y;abc;xyz;"), tc("abc\n", "y/abc/\\n\\t\\\\/"), tc("a,b\n", "y,\\,,;,"),
	tc("hello\n", "s/\\(x*\\)\\(.*\\)/\\u\\1\\2/"), tc("HELLO\n", "s/.*/\\u\\L&/"), tc("hello\n", "s/l/\\d065\\o102\\x43/"),
	tc("a&b\n", "s/&/\\x26/"), tc("ab\n", "s/a/\\cM/"), tc("ab\n", "s/a/[\\&\\\\]/"), tc("ab\n", "s/\\(a\\)\\(b\\)/\\2\\n\\1/"),
	tc("foo bar\n", "s/\\w\\+/\\L\\u&/g"), tc("foo bar\n", "-E", "s/(\\w)(\\w*)/\\U\\1\\E\\2/g"), tc("Ab\n", "s/\\(.\\)/\\l\\1/"),
	tc("abab\n", "s/\\(a\\|b\\)*\\1/X/"), tc("abcabc\n", "-E", "s/((a)(b)c)\\1/[\\2\\3]/"), tc("aaa\n", "-E", "s/a{1}{2}/X/"),
	tc("aaa\n", "s/a\\{0,\\}/X/"), tc("\n", "s/.*/[&]/"), tc("abc\n", "s/\\'/!/"), tc("ab\n", "-E", "s/a$|b/X/g"), tc("xy\n", "s/x\\?y/Z/"),
	tc("a.b\n", "s/[.]/X/"), tc("a^b\n", "s/[\\^]/X/g"), tc("a-b]\n", "s/[]-]/X/g"), tc("ab\n", "s/[^[:upper:]]/X/g"),
	tc("1\n2\n3\n4\n5\n", "-n", "/2/I,+2p"), tc("A\nb\na\n", "-n", "0,/a/Ip"), tc("a\nb\n", "N;/^b/Mp;d"),
	tc("x", "a foo"), tc("x", "i foo"), tc("x", "="), tc("x", "$!d;l"), tc("x", "r b.txt"), tc("x\ny", "R b.txt"),
	tf(abc, "1\n2\n", "r b.txt"), tf(abc, "1\n2\n", "w out file.txt"), tf(abc, "1\n2\n", "1w o.txt\n2w o.txt"),
	tf(abc, "1\n2\n3\n", "R c.txt\nR c.txt"), tf(abc, "1\n2\n", "-n", "$p", "a.txt", "missing"), tf(abc, "1\n", "F", "-"),
	tf(abc, "", "-i", "n", "a.txt"), tf(abc, "", "-i", "$a end", "a.txt", "b.txt"), tf(abc, "", "-s", "$a end", "a.txt", "b.txt"),
	tf(abc, "", "$a end", "a.txt", "b.txt"), tf(abc, "", "-s", "-n", "$=", "a.txt", "b.txt", "c.txt"), tf(abc, "", "-s", "H;$!d;x", "a.txt", "c.txt"),
	tf(abc, "", "-s", "0,/a/d", "a.txt", "c.txt"), tf(abc, "", "-s", "2,3d", "a.txt", "c.txt"), tf(abc, "", "2,3d", "a.txt", "c.txt"),
	tc("x\n", "é"), tc("x\n", "1,2,3p"), tc("x\n", "s/x/y/w"), tc("x\n", "1{p}}"), tc("x\n", "{p}\n}"), tc("x\n", "/x/{/y/!{s/x/z/}}"),
	tc("x\n", "y/abc/xyz"), tc("x\n", "y/a/\\"), tc("x\n", "s/x/\\"), tc("x\n", "b x; :x"), tc("x\n", "bx;:x;p"), tc("x\n", "b x#c\n:x"),
	tc("x\n", ":x#c\np"), tc("x\n", "t;p"), tc("ab\n", "s/a/A/;T;s/b/B/"), tc("ab\n", "s/x/A/;T;s/b/B/"),
	tc(nums, "-n", "2{n;n;p}"), tc(nums, "-n", "$!{n;n;n;p}"), tc(nums, "3q;n"), tc(nums, "N;N;N;D"), tc(nums, "-n", "N;N;P;D"),
	tc(nums, "5,$!d;h;G"), tc(nums, "1~3d;2~3s/$/!/"), tc(nums, "-n", "/1/,/0/{//!p}"), tc(nums, "-n", "/[24]/{s//X/p}"),
	tc(nums, "-n", "2,4!{p}"), tc(nums, "-n", "$!N;/\\n.*1/p"), tc(nums, "-s", "-n", "$p"), tc(nums, "-n", "5,+3{=}"),
	tc("one two\n", "s/\\</[/g;s/\\>/]/g"), tc("one two\n", "s/\\b/|/g"), tc("one two\n", "s/\\B/-/g"), tc("a b\n", "s/\\>/X/"),
	tc("é à\n", "s/\\</[/g"), tc("éa b\n", "s/\\bb/X/"), tc("x\n", "s/x/\\U\\x61/"), tc("hello\n", "s/l*/X/g"), tc("hello\n", "s/l*/X/3"),
	tc("a\x80b\n", "s/./X/g"), tc("a\x80b\n", "s/[^a]/X/g"), tc("a\x80b\n", "s/\\W/X/g"), tc("a\x80b\n", "s/\\x80/X/g"),
	tc("a\x80b\n", "s/a.b/X/g"), tc("a\x80b\n", "s/a*/X/g"), tc("a\x80b\n", "s/[\\x80]/X/g"), tc("a\x80b\n", "s/.*/[&]/"),
	tc("a\x80b\n", "s/\\(.\\)/\\1\\1/g"), tc("a\x80b\xc3\n", "y/a/b/;l"), tc("a\x80b\n", "-E", "s/(a|\\x80)+/<&>/g"),
	tf(map[string]string{"d/x": "1\n"}, "", "p", "d"), tf(map[string]string{"d/x": "1\n"}, "", "-i", "p", "d"),
	tf(map[string]string{"d/x": "1\n"}, "", "-n", "$p", "d/x", "d"),
	tc("ab\n", "-e", "s/(a)/[\\1]/", "-E"), tc("ab\n", "s/(a)/[\\1]/", "-E"), tc("ab\n", "-E", "-e", "s/(a)/[\\1]/", "-r"),
	tc("(a)b\n", "-e", "s/(a)/[&]/", "-E", "-e", "s/(b)/<\\1>/"),
	tc("x\n", "2,1!d"), tc("x\n", "=;="), tc("x\n", ";;p;;"), tc("x\n", "\n\np\n\n"), tc("x\n", "{;p;}"), tc("x\n", "{p}}"),
}

func TestGNUHandCases(t *testing.T) {
	t.Parallel()
	sedPath := gnuSed(t)
	pass, sameStderr := 0, 0
	gnuResults := runGNUAll(t, sedPath, handCases)
	for i, c := range handCases {
		gnu := gnuResults[i]
		ours := runOurs(t, c)
		if d := compare(gnu, ours); len(d) > 0 {
			t.Errorf("case %d sed %q stdin %q:\n  %s", i, c.args, c.stdin, strings.Join(d, "\n  "))
			continue
		}
		pass++
		if g := strings.ReplaceAll(gnu.stderr, sedPath+":", "sed:"); g == ours.stderr {
			sameStderr++
		} else {
			t.Logf("stderr differs: sed %q: gnu %q ours %q", c.args, g, ours.stderr)
		}
	}
	t.Logf("hand-written cases: %d/%d match GNU sed (stdout, exit code, files, stderr class); %d with the very same stderr",
		pass, len(handCases), sameStderr)
}

// TestRefusesExec checks the deliberate refusal of e and s///e, which
// would run host programs.
func TestRefusesExec(t *testing.T) {
	for _, args := range [][]string{{"e ls"}, {"s/x/ls/e"}, {"1e"}, {"-n", "/x/{e echo\n}"}, {"s/x/y/ge"}} {
		r := runOurs(t, tc("x\n", args...))
		if r.code != 1 || r.stdout != "" || r.stderr != "sed: "+refusedExec+"\n" {
			t.Errorf("sed %q: got %d %q %q, want status 1 and the refusal", args, r.code, r.stdout, r.stderr)
		}
	}
}
