// Package awk is the runner's awk: an interpreter for the POSIX awk
// language plus the gawk extensions agents use, over the runner's confined
// files (command.Env.FS) and its own commands (command.Env.Exec). It never
// runs a host program.
//
// The program is lexed, parsed into a tree whose variables are resolved to
// slots (globals, function locals, special variables; which names are
// arrays is settled across function calls before running), and then
// walked. Records are read with one allocation each; fields are split only
// when a field or NF is used, and $0 is rebuilt with OFS only when it is
// read after a field or NF changed.
//
// # Language
//
// Everything in POSIX awk: BEGIN and END (several of each), expression and
// regex patterns, ranges, pattern-only and action-only rules; fields, NF
// assignment (which rebuilds $0 with OFS), $0 assignment (which re-splits);
// FS as a single space (runs of blanks and newlines), a single character
// (taken literally, tab included), a regular expression, or "" (one field
// per character); RS as a single character, "" (paragraph mode, where a
// newline also separates fields) or a regular expression, with RT; NR FNR
// FILENAME SUBSEP ENVIRON ARGV ARGC (var=value operands are assignments,
// done when reached), CONVFMT OFMT RSTART RLENGTH; arrays with in, (i,j) in,
// delete a[i] and delete a; user functions with recursion, arrays passed by
// reference and the extra-parameter locals idiom; every getline form;
// printf and sprintf with %c %d %i %o %x %X %u %e %E %f %F %g %G %s %%,
// widths, precisions, * and the flags - + space # 0; the built-ins length
// substr index split sub gsub match sprintf tolower toupper int sqrt exp
// log sin cos atan2 rand srand close fflush; dynamic and literal regexes;
// strnum semantics (fields, getline input, ARGV, ENVIRON, -v values and
// split elements compare as numbers when they look numeric); output with
// > >> and |; next, nextfile, exit (END still runs), return, break,
// continue, do-while, for-in; newlines after && || , { do else and
// backslash-newline continue a line.
//
// gawk extensions: length(array), gensub, match with an array, asort,
// asorti, PROCINFO["sorted_in"] with gawk's named orders (@ind_str_asc,
// @ind_num_desc, @val_num_asc, ...), systime,
// strftime, mktime, the ** and **= operators, hex and octal constants in
// program text, \y \B \< \> \s \S \w \W \` \' in regexes, -v var=value
// (with escapes), -F fs (with escapes, so -F '\t' is a tab), -f progfile
// (repeatable, mixable with -e), --, and "/dev/stdout", "/dev/stderr",
// "-" as file names.
//
// Regular expressions are gawk's dialect of the runner's one engine
// (runner/internal/gnuregex): POSIX EREs with gawk's escapes (\y for a
// word boundary, \b a backspace, \ddd octal, no back-references),
// matched leftmost-longest, as POSIX requires. "." matches a newline, a
// leading "*" "+" "?" is literal, "{" that does not start an interval and
// an unmatched ")" are literal, and backslash escapes work inside
// brackets, as in gawk.
//
// Strings are UTF-8: length, substr, index, match and printf widths count
// characters, as gawk does in a UTF-8 locale.
//
// # Commands
//
// `cmd | getline` and `print | "cmd"` run runner commands through
// Env.Exec, never host programs. A command line made of plain words (with
// '...', "..." and \ quoting) runs directly; anything that needs a shell
// (pipes, redirections, $variables, globs, ;) is handed to the runner's
// "sh -c" and fails with status 127 while no sh is in the command table.
// Output to a command is collected and the command runs when the pipe is
// closed (close() or the end of the program), with the collected text as
// its standard input; close() returns its exit status. system() is refused
// with a fatal error ("system() runs host programs and is not available in
// wsfs"), except system("") which only flushes output, as the idiom wants.
//
// # Limits and errors
//
// Every loop, record read and function call checks the context, so the
// runner's time limit stops `BEGIN { while (1); }`. Output stops at the
// first write error (status 2). Function calls nest at most 30000 deep, NF
// and field indexes stop at 1000000, and one string built by concatenation
// or printf at 256 MiB: past those the program fails instead of exhausting
// the runner's memory.
// Syntax errors print gawk's two-line message with the source line and a
// caret and exit with status 1, as gawk does (not 2); fatal run-time errors
// (division by zero, an unopenable input file, a bad regex) name the source
// line and input position as gawk does ("awk: cmd. line:4: (FILENAME=x
// FNR=2) fatal: division by zero attempted") and exit with 2.
//
// # Deliberate differences from gawk
//
//   - Whether a name is an array is settled when the program is parsed,
//     where gawk settles it while running: a program that uses one name
//     both ways fails before it starts (status 2), and length(x) of a
//     name not yet used does not stop x from becoming an array later.
//   - Without PROCINFO["sorted_in"], for-in visits keys in a fixed order
//     (integer keys ascending, then strings sorted) instead of gawk's hash
//     order. A sorted_in naming a user function is not supported.
//   - rand() is a different generator: the same seed gives a repeatable
//     sequence, but not gawk's numbers. srand() returns the previous seed.
//   - |& (coprocesses), system(), BEGINFILE/ENDFILE, @include, @namespace,
//     indirect function calls, PROCINFO entries other than sorted_in, SYMTAB, IGNORECASE, FIELDWIDTHS,
//     FPAT, patsplit, the fourth argument of split and
//     --posix/--traditional modes are not implemented (the mode flags are
//     accepted and ignored).
//   - -Ft means FS="t", as in gawk's default mode (POSIX awks read it as a
//     tab); use -F '\t'.
package awk
