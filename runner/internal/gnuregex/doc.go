// Package gnuregex is the runner's one regular-expression engine: grep,
// sed, awk, find -regex and expr read and match their patterns here.
//
// # Dialects
//
// A Syntax is a set of glibc's re_syntax_options bits (regex.h), and the
// parser follows glibc's regcomp over them, so each dialect reads a
// pattern as the GNU tool's regcomp does, errors and their messages
// included ("Unmatched ( or \(", "Invalid preceding regular expression"):
//
//   - BRE and ERE are GNU grep's (RE_SYNTAX_GREP and _EGREP) with what
//     grep's dfa.c adds: "* at start of expression" warnings, a leading
//     {m,n} dropped whole, an anchor repeated by a following * or {m,n}
//     (^* , ${2}), the "[:space:]" error; glibc's reading where GNU grep
//     lets glibc decide (back-references, word anchors, and brackets its
//     dfa.c cannot build in UTF-8).
//   - SedBRE and SedERE are GNU sed's (POSIX basic and extended; a
//     leading repetition, an unmatched ")" and a "{" that opens no
//     interval are errors in -E). sed converts \n \t \xHH … itself first.
//   - AWK is gawk's (RE_SYNTAX_GNU_AWK): gawk's escapes (\y a word
//     boundary, \b a backspace, \ddd octal, no back-references), escapes
//     inside brackets, an ordinary leading "*" and "{".
//   - FindSyntax gives find -regextype's thirteen types (emacs, the
//     default, has \( \| groups, + ? operators, no intervals and no
//     [[:classes:]]); Pattern.Whole makes -regex match a whole path.
//   - Expr is GNU expr's (POSIX basic, empty ranges allowed), PosixERE
//     what regcomp(REG_EXTENDED) reads (bash's [[ =~ ]]).
//
// GNU's extensions work in every dialect that has them: \w \W \s \S, \b
// \B \< \> \` \', back-references \1 … \9, intervals up to 32767. The
// named classes are glibc's in C.UTF-8 (alpha holds every letter and the
// non-ASCII digits, punct every graphic character that is not alnum …);
// word characters are [_[:alnum:]], and a byte of invalid UTF-8 counts as
// its Latin-1 character for word boundaries, as in glibc. No bracket
// expression and no "." matches a byte of invalid UTF-8; a literal byte in
// the pattern matches itself.
//
// Options.Lines is glibc's REG_NEWLINE (grep's lines, sed's M flag): ^ and
// $ also match around the line separator, and "." and [^…] never match
// it. Without it the text is one record, whose newlines "." matches.
//
// # Matching rule
//
// Matches are POSIX's leftmost-longest: the match starting earliest, and
// of those the longest. Submatches follow POSIX too (each group, left to
// right, as long as it can be), with glibc's rule for a group in a
// repetition: an empty last iteration does not replace its earlier
// non-empty match, ((y?)+ on "y" leaves \1 "y"), except where a back-
// reference needs it. Successive matches (FindAll: s///g, gsub, grep -o)
// skip an empty match right after a match.
//
// # Complexity
//
// Every pattern without back-references is matched in time linear in the
// text: grep decides lines with the package's lazy DFA (NewDFA, a state
// cache of bounded size; on overflow grep falls back to the next engine),
// and everything else runs on Go's regexp (RE2, an NFA simulation,
// leftmost-longest), to which the pattern is translated (GoSyntax). None
// of those paths backtracks, whatever the pattern and the text.
//
// The backtracking Matcher runs only what they cannot: back-references
// (which need backtracking: matching them is NP-hard), and a few forms
// RE2 cannot say — \< or \> next to something that may not be a word
// character, word boundaries in a text that is not ASCII (Go's \b knows
// ASCII word characters only), repetition counts above 1000, bytes of
// invalid UTF-8 in the pattern, anchors at a NUL line separator (sed -z
// with M), and the submatches of a repeated group that can match empty.
// Each search there has a step budget (DefaultBudget, 20 million steps)
// and watches its context: a pattern that would take longer stops with
// ErrBudget, whose message says to simplify the pattern, never hangs.
//
// Use Compile (or Parse then Pattern.Compile) for a Regexp with submatches
// (sed, awk, find, expr); grep drives Parse, Alternate, NewDFA, GoSyntax
// and NewMatcher itself. A Regexp and a Matcher are not safe for
// concurrent use.
package gnuregex
