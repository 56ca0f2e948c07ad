// Package grep implements grep, egrep, fgrep and rg for the runner, over
// the runner's confined file access. grep follows GNU grep 3.8 in a UTF-8
// locale; patterns are read by runner/internal/gnuregex.
package grep
