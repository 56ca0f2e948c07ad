package textutils

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// transliterations are iconv //TRANSLIT's replacements for characters
// that Unicode's compatibility decomposition (NFKD, accents dropped)
// does not turn into plain letters: ligatures and letters with strokes or
// hooks, punctuation, currency signs (as their ISO 4217 codes, as glibc
// writes them), fractions, arrows and symbols.
var transliterations = map[rune]string{
	// Letters.
	'Æ': "AE", 'æ': "ae", 'Ð': "D", 'ð': "d", 'Ø': "O", 'ø': "o", 'Þ': "TH", 'þ': "th", 'ß': "ss",
	'Đ': "D", 'đ': "d", 'Ħ': "H", 'ħ': "h", 'ı': "i", 'ĸ': "q", 'Ŀ': "L", 'ŀ': "l", 'Ł': "L", 'ł': "l",
	'ŉ': "'n", 'Ŋ': "N", 'ŋ': "n", 'Œ': "OE", 'œ': "oe", 'Ŧ': "T", 'ŧ': "t",
	'ƀ': "b", 'Ɓ': "B", 'Ƃ': "B", 'ƃ': "b", 'Ƈ': "C", 'ƈ': "c", 'Ɖ': "D", 'Ɗ': "D", 'Ƌ': "D", 'ƌ': "d",
	'Ɛ': "E", 'Ƒ': "F", 'ƒ': "f", 'Ɠ': "G", 'ƕ': "hv", 'Ɩ': "I", 'Ɨ': "I", 'Ƙ': "K", 'ƙ': "k", 'ƚ': "l",
	'Ɲ': "N", 'ƞ': "n", 'Ƣ': "OI", 'ƣ': "oi", 'Ƥ': "P", 'ƥ': "p", 'ƫ': "t", 'Ƭ': "T", 'ƭ': "t", 'Ʈ': "T",
	'Ʋ': "V", 'Ƴ': "Y", 'ƴ': "y", 'Ƶ': "Z", 'ƶ': "z", 'Ǥ': "G", 'ǥ': "g", 'ȡ': "d", 'Ȥ': "Z", 'ȥ': "z",
	'ȴ': "l", 'ȵ': "n", 'ȶ': "t", 'ȷ': "j", 'ȸ': "db", 'ȹ': "qp", 'Ⱥ': "A", 'Ȼ': "C", 'ȼ': "c", 'Ƚ': "L",
	'Ⱦ': "T", 'ȿ': "s", 'ɀ': "z", 'Ƀ': "B", 'Ʉ': "U", 'Ɇ': "E", 'ɇ': "e", 'Ɉ': "J", 'ɉ': "j", 'Ɍ': "R",
	'ɍ': "r", 'Ɏ': "Y", 'ɏ': "y",
	// Latin-1 symbols.
	'¡': "!", '¢': "c", '£': "GBP", '¥': "JPY", '¦': "|", '©': "(C)", 'ª': "a", '«': "<<", '¬': "!",
	'\u00ad': "-", '®': "(R)", '±': "+-", '´': "'", 'µ': "u", '·': ".", '¸': ",", 'º': "o", '»': ">>",
	'¼': " 1/4 ", '½': " 1/2 ", '¾': " 3/4 ", '¿': "?", '×': "x", '÷': "/",
	// Punctuation.
	'\u200b': "", '\u2060': "", '\u2061': "", '\u2062': "", '\u2063': "", '\ufeff': "",
	'‐': "-", '‑': "-", '‒': "-", '–': "-", '—': "--", '―': "-", '‘': "'", '’': "'", '‚': ",", '‛': "'",
	'“': "\"", '”': "\"", '„': ",,", '‟': "\"", '†': "+", '•': "o", '‵': "`", '‶': "``", '‷': "```",
	'‹': "<", '›': ">", '⁄': "/", '⁊': "&", '…': "...",
	// Currency.
	'₠': "CE", '₡': "C=", '₢': "Cr", '₣': "Fr.", '₤': "L.", '₧': "Pts", '₩': "KRW", '₪': "ILS", '₫': "Dong",
	'€': "EUR", '₯': "GRD", '₱': "PHP", '₴': "UAH", '₸': "KZT", '₹': "INR", '₺': "TL", '₽': "RUB", '₾': "GEL",
	// Letterlike symbols, fractions, arrows, operators.
	'℞': "Rx", '™': "(TM)", '℮': "e", '⅐': " 1/7 ", '⅑': " 1/9 ", '⅒': " 1/10 ", '⅓': " 1/3 ", '⅔': " 2/3 ",
	'⅕': " 1/5 ", '⅖': " 2/5 ", '⅗': " 3/5 ", '⅘': " 4/5 ", '⅙': " 1/6 ", '⅚': " 5/6 ", '⅛': " 1/8 ",
	'⅜': " 3/8 ", '⅝': " 5/8 ", '⅞': " 7/8 ", '⅟': " 1/ ", '↉': " 0/3 ",
	'←': "<-", '→': "->", '↔': "<->", '↮': "!<->", '⇍': "!<=", '⇎': "!<=>", '⇏': "!=>", '⇐': "<=", '⇒': "=>", '⇔': "<=>",
	'−': "-", '∕': "/", '∖': "\\", '∗': "*", '∣': "|", '∶': ":", '∼': "~", '≤': "<=", '≥': ">=", '≠': "!=",
	'≪': "<<", '≫': ">>",
}

// transliterate returns what //TRANSLIT writes for r when the target set
// has no such character: a replacement every character of which encode
// accepts, or "" and false when there is none (the caller writes '?').
func transliterate(r rune, encodable func(rune) bool) (string, bool) {
	all := func(s string) bool {
		for _, c := range s {
			if !encodable(c) {
				return false
			}
		}
		return true
	}
	if t, ok := transliterations[r]; ok {
		return t, all(t)
	}
	// Compatibility decomposition without the accents: é → e, ﬁ → fi,
	// ² → 2; each remaining character once more through the table
	// (Ǣ → Æ → AE). A decomposition that is only blanks (a spacing
	// accent) or that negates with an overlay (↚) is no replacement.
	d := norm.NFKD.String(string(r))
	bare := strings.Map(func(c rune) rune {
		if unicode.Is(unicode.Mn, c) {
			return -1
		}
		return c
	}, d)
	if d == string(r) || strings.TrimSpace(bare) == "" || strings.ContainsRune(d, '\u0338') || r >= 'Ǆ' && r <= 'ǆ' {
		// glibc has no replacement for DŽ, Dž and dž either.
		return "", false
	}
	if r >= '①' && r <= '⑳' {
		d = "(" + d + ")" // circled numbers, as glibc writes them
	}
	var b strings.Builder
	for _, c := range d {
		if unicode.Is(unicode.Mn, c) {
			continue
		}
		if encodable(c) {
			b.WriteRune(c)
			continue
		}
		t, ok := transliterations[c]
		if !ok || !all(t) {
			return "", false
		}
		b.WriteString(t)
	}
	if b.Len() == 0 {
		return "", false
	}
	return b.String(), true
}
