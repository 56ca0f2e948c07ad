package textutils

import (
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// TestIconvGNU compares iconv with glibc's: output bytes, messages and
// status, for the common sets, BOMs, //TRANSLIT, //IGNORE and -c.
func TestIconvGNU(t *testing.T) {
	high := ""
	for c := 0x80; c < 0x100; c++ {
		high += string(rune(c)) // as UTF-8: U+0080..U+00FF
	}
	var allBytesFile strings.Builder
	for c := 0x20; c < 0x100; c++ {
		allBytesFile.WriteByte(byte(c))
	}
	files := map[string]string{
		"u8":       "caf\u00e9 \u20ac \u201cq\u201d \u0153 \u00df \ufb01 \u2122 \u00bd \u4e2d\n",
		"latin":    "na\u00efve r\u00e9sum\u00e9 \u00c5ngstr\u00f6m \u00a9 \u00b1\n",
		"high":     high + "\n",
		"good":     "xyz\n",
		"bad1":     "a\xffb",
		"trunc":    "ab\xc3",
		"bom8":     "\xef\xbb\xbfhi\n",
		"u16be":    "\xfe\xff\x00h\x00i",
		"u16le":    "\xff\xfeh\x00i\x00",
		"u16nobom": "\x00h\x00i",
		"u16odd":   "\x00h\x00",
		"u16surr":  "\xd8\x3d\xde\x00",
		"u16lone":  "\x00a\xdc\x00",
		"u32le":    "\xff\xfe\x00\x00h\x00\x00\x00",
		"u32bad":   "\x00\x11\x00\x00",
		"l1bytes":  "caf\xe9 \xa9\n",
		"cp1252":   "\x80 \x93q\x94 \x85\n",
		"bytes":    allBytesFile.String(),
		"emoji":    "a\U0001F600b\n",
		"mixed":    "Ærøskøbing – “Łódź” — ½ → ™ …\n",
		"sjis":     "\x82\xa0\x82\xa2\n",
		"cjk":      "日本語テキスト\n",
		"symbols":  "¦ ① ⑫ ¨ ↚ ¼ µ × ‘x’ ‹y› €5 £ ¥ … → ≤ ﬂ Ǆ\n",
		"d":        "<dir>",
	}
	d := commandtest.Differential{Commands: map[string]command.Func{"iconv": Iconv}, Files: files}
	var cases []commandtest.Case
	for _, line := range []string{
		"iconv -f UTF-8 -t ASCII//TRANSLIT u8", "iconv -f UTF-8 -t ASCII u8", "iconv -c -f UTF-8 -t ASCII u8",
		"iconv -f UTF-8 -t ISO-8859-1//TRANSLIT u8", "iconv -f UTF-8 -t ASCII//IGNORE u8", "iconv -f UTF-8 -t ascii//translit u8",
		"iconv -f utf-8 -t ascii//TRANSLIT//IGNORE u8", "iconv -c -f utf-8 -t ascii//TRANSLIT u8", "iconv -c -s -f utf-8 -t ascii//IGNORE u8",
		"iconv -f UTF-8 -t ASCII//TRANSLIT latin", "iconv -f UTF-8 -t ASCII//TRANSLIT mixed", "iconv -f UTF-8 -t ASCII//TRANSLIT symbols", "iconv -f UTF-8 -t LATIN1//TRANSLIT symbols", "iconv -f UTF-8 -t LATIN1//TRANSLIT mixed",
		"iconv -f UTF-8 -t CP1252//TRANSLIT mixed", "iconv -f UTF-8 -t ISO-8859-15//TRANSLIT u8",
		"iconv -f UTF-8 -t LATIN1 latin", "iconv -f utf8 -t latin1 latin", "iconv -f UTF-8 -t ISO_8859-1 latin", "iconv -f UTF-8 -t L1 latin",
		"iconv -f ISO-8859-1 -t UTF-8 l1bytes", "iconv -f LATIN1 l1bytes", "iconv -f CP1252 -t UTF-8 cp1252", "iconv -f WINDOWS-1252 cp1252",
		"iconv -f UTF-8 -t UTF-16 good", "iconv -f UTF-8 -t UTF-16LE good", "iconv -f UTF-8 -t UTF-16BE good",
		"iconv -f UTF-8 -t UTF-32 good", "iconv -f UTF-8 -t UTF-32LE good", "iconv -f UTF-8 -t UTF-32BE good",
		"iconv -f UTF-8 -t UCS-2 good", "iconv -f UTF-8 -t UCS-4 good", "iconv -f UTF-8 -t UCS-2 emoji", "iconv -f UTF-8 -t UTF-16 emoji",
		"iconv -f UTF-8 -t UTF-16BE emoji", "iconv -f UTF-8 -t UTF-32 emoji",
		"iconv -f UTF-16 -t UTF-8 u16be", "iconv -f UTF-16 -t UTF-8 u16le", "iconv -f UTF-16 -t UTF-8 u16nobom",
		"iconv -f UTF-16LE -t UTF-8 u16le", "iconv -f UTF-16BE -t UTF-8 u16be", "iconv -f UTF-16 u16odd", "iconv -f UTF-16BE u16surr",
		"iconv -f UTF-16BE u16lone", "iconv -f UTF-32 u32le", "iconv -f UTF-32BE u32bad", "iconv -f UCS-2BE u16surr",
		"iconv -f UTF-8 -t UTF-16LE bom8", "iconv -f UTF-8 -t ASCII bom8", "iconv -f UTF-8 -t ASCII//TRANSLIT bom8",
		"iconv -f UTF-8 -t UTF-8 bad1", "iconv -c -f UTF-8 -t UTF-8 bad1", "iconv -f UTF-8 -t UTF-16 bad1", "iconv -f UTF-8 trunc",
		"iconv -f UTF-8 -t ascii bad1 good", "iconv -f utf-8 -t ascii good bad1 good", "iconv -c -f utf-8 -t ascii good bad1 good",
		"iconv -t UTF-16 good good", "iconv -f utf-8 -t ascii nope good", "iconv -f utf-8 -t ascii d",
		"iconv -f UTF-8 -t ASCII -o out bad1", "iconv -f UTF-8 -t ASCII -o out good", "iconv -o out nope", "iconv -o nodir/x good",
		"iconv --verbose -f utf-8 -t ascii good good", "iconv -s -f utf-8 -t ascii bad1",
		"iconv -f CP1252 -t UTF-8 -c bytes", "iconv -f ISO-8859-2 -t UTF-8 bytes", "iconv -f ISO-8859-5 -t UTF-8 bytes",
		"iconv -f ISO-8859-7 -t UTF-8 -c bytes", "iconv -f ISO-8859-15 bytes", "iconv -f CP1250 -c bytes", "iconv -f CP1251 -c bytes",
		"iconv -f CP1253 -c bytes", "iconv -f CP1254 -c bytes", "iconv -f CP1257 -c bytes", "iconv -f KOI8-R bytes",
		"iconv -f CP437 bytes", "iconv -f CP850 bytes", "iconv -c -f CP1255 bytes", "iconv -c -f CP1256 bytes", "iconv -c -f CP874 bytes", "iconv -c -f ISO-8859-3 bytes", "iconv -c -f ISO-8859-6 bytes", "iconv -c -f ISO-8859-8 bytes", "iconv -f ISO-8859-4 bytes", "iconv -f ISO-8859-9 bytes", "iconv -f ISO-8859-10 bytes", "iconv -f ISO-8859-13 bytes", "iconv -f ISO-8859-14 bytes", "iconv -f ISO-8859-16 bytes", "iconv -f KOI8-U bytes", "iconv -f CP852 bytes", "iconv -f CP866 bytes", "iconv -f MACINTOSH bytes", "iconv -f CP1255 bytes", "iconv -f ASCII bytes", "iconv -c -f ASCII bytes",
		"iconv -f UTF-8 -t CP1252 high", "iconv -c -f UTF-8 -t CP1252 high", "iconv -f UTF-8 -t ISO-8859-2//TRANSLIT latin",
		"iconv -f SHIFT_JIS sjis", "iconv -f UTF-8 -t SHIFT_JIS cjk", "iconv -f UTF-8 -t EUC-JP cjk", "iconv -f UTF-8 -t GBK -c cjk",
		"iconv -x", "iconv --frob", "iconv -f", "iconv -f UTF-8 -t ASCII --verbose",
	} {
		cases = append(cases, commandtest.Case{Line: line})
	}
	// glibc's message for an unknown set is "failed to start conversion
	// processing: No such file or directory"; ours names the set.
	for _, line := range []string{"iconv -f FOO -t UTF-8 good", "iconv -f UTF-8 -t BAR good", "iconv -f FOO -t BAR good", "iconv -t latin-1 good"} {
		cases = append(cases, commandtest.Case{Line: line, LooseStderr: true})
	}
	cases = append(cases,
		commandtest.Case{Line: "iconv -f UTF-8 -t UTF-16", Stdin: "from stdin\n"},
		commandtest.Case{Line: "iconv -t UTF-16 nope -", Stdin: "x"},
		commandtest.Case{Line: "iconv -t ASCII//TRANSLIT -", Stdin: "\u00e0 la carte \u2013 na\u00efve\n"},
	)
	d.Run(t, cases)
}

// TestIconvList: every set iconv -l names is one glibc knows by that name.
func TestIconvList(t *testing.T) {
	sb := commandtest.New(t)
	r := sb.Run(t.Context(), Iconv, "", "iconv", "-l")
	if r.Code != 0 || !strings.Contains(r.Stdout, "UTF-8//\n") || !strings.Contains(r.Stdout, "ISO-8859-1//\n") {
		t.Fatalf("iconv -l: %+v", r)
	}
	host := commandtest.HostOutput(t, "iconv", "-l")
	known := map[string]bool{}
	for _, l := range strings.Split(host, "\n") {
		known[l] = true
	}
	for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		if !known[l] {
			t.Errorf("iconv -l lists %s, which glibc does not know", l)
		}
	}
}
