package gnuregex

// Syntax is a dialect: which characters are operators and what GNU does
// with the odd cases (a repetition with nothing to repeat, an unmatched
// parenthesis, a brace that opens no interval …). Its bits are glibc's
// re_syntax_options (regex.h), so each dialect is the syntax the GNU tool
// hands to glibc's regcomp, plus what the tool changes around it.
type Syntax uint32

// The bits, as glibc names them (RE_…).
const (
	synBackslashEscapeInLists Syntax = 1 << iota // \ quotes the next character inside [ ]
	synBkPlusQM                                  // \+ \? are operators; + ? are ordinary
	synCharClasses                               // [[:alpha:]] and the other classes exist
	synContextIndepAnchors                       // ^ $ are anchors anywhere
	synContextIndepOps                           // a leading * + ? {…} is dropped
	synContextInvalidOps                         // a leading * + ? {…} is an error
	synDotNewline                                // . matches a newline (outside Lines mode)
	synDotNotNull                                // . does not match NUL
	synIntervals                                 // {m,n} intervals exist
	synLimitedOps                                // no + ? | at all
	synNewlineAlt                                // a newline alternates, as |
	synNoBkBraces                                // { } delimit intervals, not \{ \}
	synNoBkParens                                // ( ) group, not \( \)
	synNoBkRefs                                  // \1 … \9 are not back-references
	synNoBkVbar                                  // | alternates, not \|
	synNoEmptyRanges                             // [z-a] is an error, not an empty range
	synUnmatchedRightParenOrd                    // an unmatched ) is ordinary
	synNoGnuOps                                  // no \w \W \s \S \b \B \< \> \` \'
	synInvalidIntervalOrd                        // a { that opens no valid interval is ordinary
	synContextInvalidDup                         // a leading \{, and * or \{ after a repetition, are errors

	// synGrepDFA is what GNU grep's dfa.c adds: a dropped leading
	// repetition warns ("* at start of expression") and a leading {m,n}
	// is dropped whole.
	synGrepDFA
	// synClassCheck: "[:space:]" outside brackets is an error (grep's and
	// sed's dfa.c), not a bracket of five characters.
	synClassCheck
	// synAwkEscapes reads escapes as gawk does before its regcomp: \n \t
	// \r \f \v \a \b (a backspace) \ddd (octal) \xHH \/ \" are
	// characters, \y is a word boundary, and any other escaped character
	// stands for itself; there are no back-references.
	synAwkEscapes

	// synDialect marks a Syntax that was set: the zero Syntax is BRE
	// (glibc's emacs syntax has no bit set of its own).
	synDialect Syntax = 1 << 31
)

const (
	posixCommon = synCharClasses | synDotNewline | synDotNotNull | synIntervals | synNoEmptyRanges
	posixBasic  = posixCommon | synBkPlusQM | synContextInvalidDup
	posixExt    = posixCommon | synContextIndepAnchors | synContextIndepOps | synNoBkBraces | synNoBkParens |
		synNoBkVbar | synContextInvalidOps | synUnmatchedRightParenOrd
	reSyntaxAWK = synBackslashEscapeInLists | synDotNotNull | synNoBkParens | synNoBkRefs | synNoBkVbar |
		synNoEmptyRanges | synDotNewline | synContextIndepAnchors | synCharClasses | synUnmatchedRightParenOrd | synNoGnuOps
	reSyntaxGnuAWK   = (posixExt | synBackslashEscapeInLists | synInvalidIntervalOrd) &^ (synDotNotNull | synContextIndepOps | synContextInvalidOps)
	reSyntaxPosixAWK = posixExt | synBackslashEscapeInLists | synIntervals | synNoGnuOps | synInvalidIntervalOrd
	reSyntaxGrep     = (posixBasic | synNewlineAlt) &^ (synContextInvalidDup | synDotNotNull)
	reSyntaxEgrep    = (posixExt | synInvalidIntervalOrd | synNewlineAlt) &^ (synContextInvalidOps | synDotNotNull)
	reSyntaxMinBasic = posixCommon | synLimitedOps
)

// The dialects of the runner's tools.
const (
	// BRE is GNU grep's basic syntax (grep, grep -G): \( \) \{ \} \| \+ \?
	// are operators.
	BRE = synDialect | reSyntaxGrep | synGrepDFA | synClassCheck
	// ERE is GNU grep's extended syntax (grep -E): ( ) { } | + ? are
	// operators; a brace that opens no interval and an unmatched ) are
	// ordinary; a leading repetition is dropped with a warning.
	ERE = synDialect | reSyntaxEgrep | synGrepDFA | synClassCheck
	// SedBRE is GNU sed's basic syntax: glibc's POSIX basic, in which a
	// leading \{ and a * or \{ right after a repetition are errors.
	SedBRE = synDialect | (posixBasic|synClassCheck)&^synDotNotNull
	// SedERE is sed -E: glibc's POSIX extended, in which a leading
	// repetition, an unmatched ) and a brace that opens no interval are
	// errors.
	SedERE = synDialect | (posixExt|synClassCheck)&^(synDotNotNull|synUnmatchedRightParenOrd)
	// AWK is gawk's: POSIX extended with gawk's escapes (see
	// synAwkEscapes), escapes inside brackets, an ordinary leading * and
	// an ordinary { when it opens no interval.
	AWK = synDialect | reSyntaxGnuAWK | synAwkEscapes | synNoBkRefs
	// PosixERE is what regcomp(REG_EXTENDED) reads, as bash's [[ =~ ]]
	// hands it: glibc's POSIX extended syntax, unchanged.
	PosixERE = synDialect | posixExt
	// Expr is GNU expr's: glibc's POSIX basic without the leading-\{
	// error and with empty ranges allowed.
	Expr = synDialect | posixBasic&^(synContextInvalidDup|synNoEmptyRanges)
)

// findSyntaxes are find -regextype's types (findutils' regextype.c).
var findSyntaxes = map[string]Syntax{
	"findutils-default":   0,
	"emacs":               0,
	"ed":                  posixBasic,
	"sed":                 posixBasic,
	"posix-basic":         posixBasic,
	"posix-minimal-basic": reSyntaxMinBasic,
	"posix-extended":      posixExt,
	"posix-egrep":         reSyntaxEgrep,
	"egrep":               reSyntaxEgrep,
	"grep":                reSyntaxGrep,
	"awk":                 reSyntaxAWK,
	"posix-awk":           reSyntaxPosixAWK,
	"gnu-awk":             reSyntaxGnuAWK,
}

// FindSyntax returns the dialect of find -regextype NAME.
func FindSyntax(name string) (Syntax, bool) {
	s, ok := findSyntaxes[name]
	return s | synDialect, ok
}

// FindSyntaxNames lists find's -regextype names in the order GNU find
// lists them.
func FindSyntaxNames() []string {
	return []string{"findutils-default", "ed", "emacs", "gnu-awk", "grep", "posix-awk", "awk",
		"posix-basic", "posix-egrep", "egrep", "posix-extended", "posix-minimal-basic", "sed"}
}

func (s Syntax) has(bit Syntax) bool { return s&bit != 0 }
