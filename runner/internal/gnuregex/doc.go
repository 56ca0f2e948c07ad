// Package gnuregex reads regular expressions as GNU grep and sed do (BRE
// and ERE with GNU's extensions: \< \> \b \B \w \W \s \S \` \', [[:alpha:]]
// classes, back-references, intervals, a leading "*" taken literally in
// BRE) and runs them. A pattern RE2 can express is translated to Go's
// regexp syntax (GoSyntax) and run by Go's linear-time engine in
// leftmost-longest mode; one that RE2 cannot express (back-references,
// \< or \> next to a non-word item) runs on a backtracking Matcher with a
// step budget that also watches its context.
//
// Use Compile for one pattern with capturing groups (sed, awk), or Parse,
// Alternate and GoSyntax/NewMatcher to drive matching yourself (grep).
// Word characters are Unicode letters, digits and "_", except that Go's
// \b, used for \b \B \< \> on the RE2 path, knows only ASCII ones.
package gnuregex
