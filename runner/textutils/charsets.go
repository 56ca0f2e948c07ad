package textutils

import (
	"encoding/binary"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/transform"
)

// charset is one coded character set iconv converts from or to.
type charset struct {
	name    string   // as iconv -l lists it
	aliases []string // other names, upper case
	// decode reads one character at the start of b: its code point and
	// size, size 0 for an incomplete character at the end of the input
	// (atEOF) or one that needs more bytes, -1 for an illegal sequence.
	decode func(b []byte, atEOF bool, st *decodeState) (rune, int)
	// encode appends r, or reports that the set has no such character.
	encode func(dst []byte, r rune, st *encodeState) ([]byte, bool)
	// flush appends what ends the output (a stateful encoding's return to
	// its initial state); nil when nothing does.
	flush func(dst []byte, st *encodeState) []byte
}

// decodeState is what a decoder carries from one character to the next:
// the byte order a BOM set, and whether the BOM was looked for.
type decodeState struct {
	started bool
	little  bool
	dec     transform.Transformer // the x/text decoder of a multibyte set
}

// encodeState is an encoder's: whether the BOM was written.
type encodeState struct {
	started bool
	enc     transform.Transformer
}

// charsets are the sets iconv knows, found by name or alias.
var charsets = func() map[string]*charset {
	var all []*charset
	add := func(c *charset) { all = append(all, c) }

	add(&charset{name: "UTF-8", aliases: []string{"UTF8"},
		decode: decodeUTF8, encode: func(dst []byte, r rune, _ *encodeState) ([]byte, bool) { return utf8.AppendRune(dst, r), true }})
	ascii := &charset{name: "ANSI_X3.4-1968", aliases: []string{"ASCII", "US-ASCII", "ISO646-US", "ANSI_X3.4", "ISO_646.IRV:1991", "US", "IBM367", "CP367", "CSASCII", "ANSI_X3.4-1986", "ISO-IR-6"},
		decode: func(b []byte, _ bool, _ *decodeState) (rune, int) {
			if b[0] < 0x80 {
				return rune(b[0]), 1
			}
			return 0, -1
		},
		encode: func(dst []byte, r rune, _ *encodeState) ([]byte, bool) {
			if r < 0x80 {
				return append(dst, byte(r)), true
			}
			return dst, false
		}}
	add(ascii)

	// UTF-16 and UTF-32 as glibc has them: without an order in the name,
	// input takes a BOM's order (big-endian without one) and output is
	// little-endian behind a BOM; UCS-2 is the machine's order (little
	// here) and UCS-4 big-endian, neither with a BOM.
	add(unicodeSet("UTF-16", []string{"UTF16"}, 2, bomIn, bomLittle))
	add(unicodeSet("UTF-16LE", []string{"UTF16LE"}, 2, fixedLittle, fixedLittle))
	add(unicodeSet("UTF-16BE", []string{"UTF16BE"}, 2, fixedBig, fixedBig))
	add(unicodeSet("UCS-2", []string{"UCS2", "CSUNICODE"}, 2, fixedLittle|ucs2, fixedLittle|ucs2))
	add(unicodeSet("UCS-2LE", []string{"UNICODELITTLE"}, 2, fixedLittle|ucs2, fixedLittle|ucs2))
	add(unicodeSet("UCS-2BE", []string{"UNICODEBIG"}, 2, fixedBig|ucs2, fixedBig|ucs2))
	add(unicodeSet("UTF-32", []string{"UTF32"}, 4, bomIn, bomLittle))
	add(unicodeSet("UTF-32LE", []string{"UTF32LE"}, 4, fixedLittle, fixedLittle))
	add(unicodeSet("UTF-32BE", []string{"UTF32BE"}, 4, fixedBig, fixedBig))
	add(unicodeSet("UCS-4", []string{"UCS4", "ISO-10646", "10646-1:1993", "CSUCS4", "UCS-4BE"}, 4, fixedBig, fixedBig))
	add(unicodeSet("UCS-4LE", nil, 4, fixedLittle, fixedLittle))
	add(unicodeSet("WCHAR_T", nil, 4, fixedLittle, fixedLittle))

	iso := []*charmap.Charmap{nil, charmap.ISO8859_1, charmap.ISO8859_2, charmap.ISO8859_3, charmap.ISO8859_4,
		charmap.ISO8859_5, charmap.ISO8859_6, charmap.ISO8859_7, charmap.ISO8859_8, charmap.ISO8859_9,
		charmap.ISO8859_10, nil, nil, charmap.ISO8859_13, charmap.ISO8859_14, charmap.ISO8859_15, charmap.ISO8859_16}
	latin := map[int][]string{1: {"LATIN1", "L1", "CP819", "IBM819", "CSISOLATIN1", "ISO-IR-100"},
		2: {"LATIN2", "L2", "CSISOLATIN2", "ISO-IR-101"}, 3: {"LATIN3", "L3", "ISO-IR-109"}, 4: {"LATIN4", "L4", "ISO-IR-110"},
		5: {"CYRILLIC", "ISO-IR-144"}, 6: {"ARABIC", "ECMA-114", "ASMO-708", "ISO-IR-127"}, 7: {"GREEK", "GREEK8", "ECMA-118", "ELOT_928", "ISO-IR-126"},
		8: {"HEBREW", "ISO-IR-138"}, 9: {"LATIN5", "L5", "ISO-IR-148"}, 10: {"LATIN6", "L6", "ISO-IR-157"},
		13: {"LATIN7", "L7", "ISO-IR-179"}, 14: {"LATIN8", "L8", "ISO-CELTIC", "ISO-IR-199"},
		15: {"LATIN-9", "LATIN9", "ISO_8859-15:1998"}, 16: {"LATIN10", "L10", "ISO-IR-226", "ISO_8859-16:2001"}}
	for n, cm := range iso {
		if cm == nil {
			continue
		}
		d := strconv.Itoa(n)
		aliases := []string{"ISO8859-" + d, "ISO_8859-" + d, "ISO8859" + d}
		if n == 13 {
			aliases = aliases[:1] // glibc has no ISO_8859-13
		}
		add(byteSet("ISO-8859-"+d, append(aliases, latin[n]...), cm))
	}
	windows := []struct {
		n       int
		cm      *charmap.Charmap
		aliases []string
	}{
		{1250, charmap.Windows1250, []string{"MS-EE"}}, {1251, charmap.Windows1251, []string{"MS-CYRL"}},
		{1252, charmap.Windows1252, []string{"MS-ANSI"}}, {1253, charmap.Windows1253, []string{"MS-GREEK"}},
		{1254, charmap.Windows1254, []string{"MS-TURK"}}, {1255, charmap.Windows1255, []string{"MS-HEBR"}},
		{1256, charmap.Windows1256, []string{"MS-ARAB"}}, {1257, charmap.Windows1257, []string{"WINBALTRIM"}},
		{1258, charmap.Windows1258, nil}, {874, charmap.Windows874, nil},
	}
	for _, w := range windows {
		d := strconv.Itoa(w.n)
		add(byteSet("CP"+d, append([]string{"WINDOWS-" + d}, w.aliases...), w.cm))
	}
	add(byteSet("KOI8-R", []string{"KOI8R"}, charmap.KOI8R))
	add(byteSet("KOI8-U", []string{"KOI8U"}, charmap.KOI8U))
	add(byteSet("IBM437", []string{"CP437", "437", "CSPC8CODEPAGE437"}, charmap.CodePage437))
	add(byteSet("IBM850", []string{"CP850", "850", "CSPC850MULTILINGUAL"}, charmap.CodePage850))
	add(byteSet("IBM852", []string{"CP852", "852"}, charmap.CodePage852))
	add(byteSet("IBM855", []string{"CP855", "855"}, charmap.CodePage855))
	add(byteSet("IBM866", []string{"CP866", "866"}, charmap.CodePage866))
	add(byteSet("IBM037", []string{"CP037", "EBCDIC-CP-US", "EBCDIC-CP-CA", "EBCDIC-CP-WT", "EBCDIC-CP-NL"}, charmap.CodePage037))
	add(byteSet("MACINTOSH", []string{"MAC", "CSMACINTOSH"}, charmap.Macintosh))

	add(multiByteSet("SHIFT_JIS", []string{"SHIFT-JIS", "SJIS", "MS_KANJI", "CSSHIFTJIS"}, japanese.ShiftJIS))
	add(multiByteSet("EUC-JP", []string{"EUCJP", "UJIS"}, japanese.EUCJP))
	add(multiByteSet("ISO-2022-JP", []string{"CSISO2022JP"}, japanese.ISO2022JP))
	add(multiByteSet("EUC-KR", []string{"EUCKR", "CSEUCKR"}, korean.EUCKR))
	add(multiByteSet("GBK", []string{"CP936", "MS936", "WINDOWS-936"}, simplifiedchinese.GBK))
	add(multiByteSet("GB18030", nil, simplifiedchinese.GB18030))
	add(multiByteSet("BIG5", []string{"BIG-5", "BIG-FIVE", "BIGFIVE", "CN-BIG5", "CP950"}, traditionalchinese.Big5))

	m := map[string]*charset{}
	for _, c := range all {
		m[c.name] = c
		for _, a := range c.aliases {
			m[a] = c
		}
	}
	return m
}()

// charsetNames lists every name and alias, as iconv -l prints them.
func charsetNames() []string {
	var names []string
	for n := range charsets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// lookupCharset finds a set by name, case-insensitively.
func lookupCharset(name string) *charset {
	return charsets[strings.ToUpper(name)]
}

func decodeUTF8(b []byte, atEOF bool, _ *decodeState) (rune, int) {
	if b[0] < 0x80 {
		return rune(b[0]), 1
	}
	if !utf8.FullRune(b) {
		// A prefix of a valid sequence waits for more; anything else is
		// illegal already.
		if validUTF8Prefix(b) {
			return 0, 0
		}
		return 0, -1
	}
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError && n <= 1 {
		return 0, -1
	}
	return r, n
}

// validUTF8Prefix reports whether b, shorter than its lead byte says,
// could still become a valid sequence.
func validUTF8Prefix(b []byte) bool {
	c := b[0]
	lo, hi := byte(0x80), byte(0xbf)
	switch {
	case c >= 0xc2 && c <= 0xdf:
	case c == 0xe0:
		lo = 0xa0
	case c == 0xed:
		hi = 0x9f
	case c >= 0xe1 && c <= 0xef:
	case c == 0xf0:
		lo = 0x90
	case c == 0xf4:
		hi = 0x8f
	case c >= 0xf1 && c <= 0xf3:
	default:
		return false
	}
	for i, x := range b[1:] {
		if i == 0 && (x < lo || x > hi) || i > 0 && (x < 0x80 || x > 0xbf) {
			return false
		}
	}
	return true
}

// Byte orders of a UTF-16/32 set, for input and for output.
const (
	fixedBig    = 0
	fixedLittle = 1
	bomIn       = 2 // input: a BOM sets the order, the machine's (little-endian) without one
	bomLittle   = 3 // output: a BOM, then little-endian
	ucs2        = 4 // no surrogate pairs: only the Basic Multilingual Plane
)

func unicodeSet(name string, aliases []string, width int, in, out int) *charset {
	c := &charset{name: name, aliases: aliases}
	c.decode = func(b []byte, atEOF bool, st *decodeState) (rune, int) {
		skip := 0
		if !st.started {
			st.started = true
			st.little = in&3 != fixedBig
			if in&3 == bomIn && len(b) >= width {
				switch {
				case width == 2 && b[0] == 0xfe && b[1] == 0xff, width == 4 && string(b[:4]) == "\x00\x00\xfe\xff":
					skip, st.little = width, false
				case width == 2 && b[0] == 0xff && b[1] == 0xfe, width == 4 && string(b[:4]) == "\xff\xfe\x00\x00":
					skip, st.little = width, true
				}
				if skip > 0 && len(b) == skip {
					return -2, skip // the BOM alone: no character
				}
			}
		}
		b = b[skip:]
		if len(b) < width {
			return 0, 0
		}
		unit := func(p []byte) uint32 {
			if width == 2 {
				if st.little {
					return uint32(binary.LittleEndian.Uint16(p))
				}
				return uint32(binary.BigEndian.Uint16(p))
			}
			if st.little {
				return binary.LittleEndian.Uint32(p)
			}
			return binary.BigEndian.Uint32(p)
		}
		u := unit(b)
		if width == 4 {
			if u > 0x10ffff || u >= 0xd800 && u < 0xe000 {
				return 0, -1
			}
			return rune(u), skip + 4
		}
		switch {
		case u >= 0xd800 && u < 0xdc00:
			if in&ucs2 != 0 {
				return 0, -1
			}
			if len(b) < 4 {
				return 0, 0
			}
			u2 := unit(b[2:])
			if u2 < 0xdc00 || u2 >= 0xe000 {
				return 0, -1
			}
			return utf16.DecodeRune(rune(u), rune(u2)), skip + 4
		case u >= 0xdc00 && u < 0xe000:
			return 0, -1
		}
		return rune(u), skip + 2
	}
	c.encode = func(dst []byte, r rune, st *encodeState) ([]byte, bool) {
		little := out&3 == fixedLittle || out&3 == bomLittle
		put := func(u uint32) {
			if width == 2 {
				if little {
					dst = binary.LittleEndian.AppendUint16(dst, uint16(u))
				} else {
					dst = binary.BigEndian.AppendUint16(dst, uint16(u))
				}
			} else if little {
				dst = binary.LittleEndian.AppendUint32(dst, u)
			} else {
				dst = binary.BigEndian.AppendUint32(dst, u)
			}
		}
		if width == 2 && r > 0xffff && out&ucs2 != 0 {
			return dst, false
		}
		if !st.started {
			st.started = true
			if out&3 == bomLittle {
				put(0xfeff)
			}
		}
		if width == 2 && r > 0xffff {
			r1, r2 := utf16.EncodeRune(r)
			put(uint32(r1))
			put(uint32(r2))
			return dst, true
		}
		put(uint32(r))
		return dst, true
	}
	return c
}

// byteSet is a single-byte set from x/text's tables. x/text follows the
// WHATWG, which gives every byte a character; glibc has none for a few,
// and reading one is an illegal sequence there (undefinedBytes).
//
// The ISO 8859 sets have the C1 controls at 0x80–0x9F in glibc, as in
// the standard; x/text leaves them out.
func byteSet(name string, aliases []string, cm *charmap.Charmap) *charset {
	undefined := undefinedBytes[name]
	c1 := strings.HasPrefix(name, "ISO-8859-")
	own := ownBytes[name]
	ownRunes := map[rune]byte{}
	for b, r := range own {
		ownRunes[r] = b
	}
	return &charset{name: name, aliases: aliases,
		decode: func(b []byte, _ bool, _ *decodeState) (rune, int) {
			if c1 && b[0] >= 0x80 && b[0] < 0xa0 {
				return rune(b[0]), 1
			}
			if strings.IndexByte(undefined, b[0]) >= 0 {
				return 0, -1
			}
			if r, ok := own[b[0]]; ok {
				return r, 1
			}
			r := cm.DecodeByte(b[0])
			if r == utf8.RuneError {
				return 0, -1
			}
			return r, 1
		},
		encode: func(dst []byte, r rune, _ *encodeState) ([]byte, bool) {
			if c1 && r >= 0x80 && r < 0xa0 {
				return append(dst, byte(r)), true
			}
			if c, ok := ownRunes[r]; ok {
				return append(dst, c), true
			}
			c, ok := cm.EncodeRune(r)
			if _, mine := own[c]; !ok || mine || strings.IndexByte(undefined, c) >= 0 {
				return dst, false
			}
			return append(dst, c), true
		}}
}

// ownBytes are the bytes glibc maps otherwise than x/text: KOI8-U as RFC
// 2319 has it (box drawing where KOI8-RU has Belarusian letters), and
// Mac OS Roman's delta and Apple sign as glibc reads them.
var ownBytes = map[string]map[byte]rune{
	"KOI8-U":    {0xae: '╝', 0xbe: '╬'},
	"MACINTOSH": {0xc6: 'Δ', 0xf0: '\ue01e'},
}

// undefinedBytes are the bytes a set leaves undefined in glibc.
var undefinedBytes = map[string]string{
	"CP1250":     "\x81\x83\x88\x90\x98",
	"CP1251":     "\x98",
	"CP1252":     "\x81\x8d\x8f\x90\x9d",
	"CP1253":     "\x81\x88\x8a\x8c\x8d\x8e\x8f\x90\x98\x9a\x9c\x9d\x9e\x9f\xaa\xd2\xff",
	"CP1254":     "\x81\x8d\x8e\x8f\x90\x9d\x9e",
	"CP1255":     "\x81\x8a\x8c\x8d\x8e\x8f\x90\x9a\x9c\x9d\x9e\x9f\xca\xd9\xda\xdb\xdc\xdd\xde\xdf\xfb\xfc\xff",
	"CP1256":     "",
	"CP1257":     "\x81\x83\x88\x8a\x8c\x90\x98\x9a\x9c\x9f\xa1\xa5",
	"CP1258":     "\x81\x8a\x8d\x8e\x8f\x90\x9a\x9d\x9e",
	"CP874":      "\x81\x82\x83\x84\x86\x87\x88\x89\x8a\x8b\x8c\x8d\x8e\x8f\x90\x98\x99\x9a\x9b\x9c\x9d\x9e\x9f\xdb\xdc\xdd\xde\xfc\xfd\xfe\xff",
	"ISO-8859-3": "\xa5\xae\xbe\xc3\xd0\xe3\xf0",
	"ISO-8859-6": "\xa1\xa2\xa3\xa5\xa6\xa7\xa8\xa9\xaa\xab\xae\xaf\xb0\xb1\xb2\xb3\xb4\xb5\xb6\xb7\xb8\xb9\xba\xbc\xbd\xbe\xc0\xdb\xdc\xdd\xde\xdf\xf3\xf4\xf5\xf6\xf7\xf8\xf9\xfa\xfb\xfc\xfd\xfe\xff",
	"ISO-8859-7": "\xae\xd2\xff",
	"ISO-8859-8": "\xa1\xbf\xc0\xc1\xc2\xc3\xc4\xc5\xc6\xc7\xc8\xc9\xca\xcb\xcc\xcd\xce\xcf\xd0\xd1\xd2\xd3\xd4\xd5\xd6\xd7\xd8\xd9\xda\xdb\xdc\xdd\xde\xfb\xfc\xff",
}

// multiByteSet is a CJK set from x/text, whose decoders and encoders keep
// their state across characters (ISO-2022-JP's escapes).
func multiByteSet(name string, aliases []string, e encoding.Encoding) *charset {
	return &charset{name: name, aliases: aliases,
		decode: func(b []byte, atEOF bool, st *decodeState) (rune, int) {
			if st.dec == nil {
				st.dec = e.NewDecoder()
			}
			var dst [16]byte
			// One character at a time: the shortest prefix that decodes.
			for n := 1; n <= len(b) && n <= 8; n++ {
				nDst, nSrc, err := st.dec.Transform(dst[:], b[:n], atEOF && n == len(b))
				if err == transform.ErrShortSrc {
					continue
				}
				if err != nil {
					return 0, -1
				}
				if nDst == 0 {
					if nSrc == n {
						return -2, n // an escape sequence: no character
					}
					continue
				}
				r, size := utf8.DecodeRune(dst[:nDst])
				if r == utf8.RuneError || size != nDst {
					return 0, -1
				}
				return r, nSrc
			}
			if atEOF || len(b) >= 8 {
				if atEOF {
					return 0, 0
				}
				return 0, -1
			}
			return 0, 0
		},
		encode: func(dst []byte, r rune, st *encodeState) ([]byte, bool) {
			if st.enc == nil {
				st.enc = e.NewEncoder()
			}
			var src [4]byte
			n := utf8.EncodeRune(src[:], r)
			var buf [16]byte
			nDst, _, err := st.enc.Transform(buf[:], src[:n], false)
			if err != nil {
				return dst, false
			}
			return append(dst, buf[:nDst]...), true
		},
		flush: func(dst []byte, st *encodeState) []byte {
			if st.enc == nil {
				return dst
			}
			var buf [16]byte
			nDst, _, _ := st.enc.Transform(buf[:], nil, true)
			return append(dst, buf[:nDst]...)
		}}
}
