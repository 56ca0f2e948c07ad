// Package grep implements grep, egrep, fgrep and rg for the runner, over
// the runner's confined file access (command.Env.FS). grep follows GNU
// grep 3.8 in a UTF-8 locale; rg follows ripgrep 14 writing to a pipe.
// Patterns are read and matched by the runner's one regex engine,
// runner/internal/gnuregex (GNU grep's dialects; record selection on its
// lazy DFA, Go's RE2 otherwise, and a backtracker with a step budget for
// back-references and for \b \< \> on lines with non-ASCII text).
//
// # grep, egrep, fgrep
//
// Pattern syntax: -G (BRE, default), -E (ERE), -F (fixed strings), -P
// (Go RE2 syntax); -e PATTERNS (repeatable), -f FILE ("-" is stdin), a
// newline in a pattern separates patterns; -i/-y, --no-ignore-case, -w,
// -x. BRE and ERE are read as GNU does: \( \) \{ \} \| \+ \? in BRE;
// \< \> \b \B \w \W \s \S \` \'; [[:alpha:]] and the other classes,
// [=c=] and [.c.]; back-references \1-\9 in BRE and ERE; intervals up to
// 32767; a leading "*" is literal in BRE and dropped (with GNU's warning)
// in ERE; "{" that opens no interval is literal in ERE; an unmatched ")"
// is literal in ERE; a back-reference may not name a group of another
// alternative. Errors and warnings carry GNU's messages.
//
// Output: -c, -l, -L, -o, -q, -s, -n, -b, -H, -h, --label, -Z, -z, -T,
// -A/-B/-C/-NUM with "--" between groups (--group-separator=SEP,
// --no-group-separator), -m, -v, --color[=WHEN]
// (accepted; output is never colored), --line-buffered, -U (no-op), -u
// (GNU's obsolescence warning). Files: -r, -R, --include, --exclude,
// --exclude-from, --exclude-dir, -d read|skip|recurse, -D read|skip,
// -a/--text, -I, --binary-files=binary|text|without-match. "-r" without
// a file searches "." and prints paths without "./". A file with a NUL
// byte is binary: NULs end records, its lines are not printed, and
// "grep: FILE: binary file matches" goes to stderr; a line with invalid
// UTF-8 is withheld the same way. Exit status: 0 if a line was selected,
// 1 if none, 2 on any error (even with matches) unless -q selected a
// line; -q overrides -l/-L, which override -c.
//
// Deliberate differences from GNU grep:
//   - -P is Go's RE2 syntax (leftmost-first, as Perl): lookaround,
//     back-references, atomic and possessive groups, \K and recursion are
//     refused with status 2 and a message naming RE2; \d \w \s \b are
//     ASCII there.
//   - Only a UTF-8 locale is emulated (LC_ALL is not read).
//   - A back-reference pattern that needs more than 20 million
//     backtracking steps on one line stops grep with status 2 ("pattern
//     too complex") instead of running for minutes.
//   - Corner cases where glibc and GNU's DFA disagree are not reproduced:
//     an anchor inside a repeated group (`\(\<a*\)\{0,2\}`), an empty
//     iteration of a group holding an anchor feeding a back-reference, a
//     repetition right after an anchor ({...} in ERE after \< or \b).
//     GNU's -o -w retry after a first match (which misses some words) is
//     reproduced.
//   - -r visits directory entries in name order (GNU: directory order);
//     -R stops following directory links 40 deep instead of detecting
//     cycles by inode; files are never probed for holes.
//   - egrep and fgrep do not print GNU 3.8's "obsolescent" warning.
//
// # rg
//
// Flags: -e, -f, -i, -s, -S (smart case), -v, -w, -x, -F, -n/-N, -c,
// --count-matches, -l, --files-without-match, -o, -q, -H/-I, -L (follow
// links), --hidden/-., --no-ignore, --no-ignore-vcs, -u (repeatable), -a,
// -0, -b, -g/--glob and --iglob (gitignore globs, "!" excludes), -t/-T
// TYPE, --type-add, --type-clear, --type-list, --files, --max-depth/-d,
// -m, -A/-B/-C, -r/--replace ($1, ${name}), --column, --vimgrep,
// --context-separator, --no-context-separator; --color, --sort, -j, -M and
// friends are accepted and change nothing. As in ripgrep, -c and
// --count-matches beat -l and --files-without-match, the later of -w and
// -x wins, a later -A or -B drops an earlier -C, and a -g glob that
// selects a file overrides hidden, ignore-file and -t checks.
//
// Output is ripgrep's when standard output is not a terminal: no line
// numbers unless -n, --column or --vimgrep; no headings; no color;
// "path:line" only when more than one file can be searched; paths as
// given ("rg x" prints "a.txt", "rg x ." prints "./a.txt"); "<stdin>" for
// standard input; -c and -l skip files without matches; -o prints
// context lines and -v lines whole. Walking skips
// hidden entries, binary files (a NUL byte) and what .gitignore (inside a
// git work tree: a .git at or above the searched directory), .ignore and
// .rgignore files say, including those of parent directories; files named
// on the command line are always searched. A named binary file prints
// `binary file matches (found "\0" byte around offset N)`. Standard input
// is searched when no path is given and stdin is a file, a pipe, or a
// reader that holds data. When no file at all was searched under the
// default path, rg says "No files were searched, …" and exits 2.
//
// The rg tests pin this output; with RG_REFERENCE=/path/to/rg they also
// compare against a real ripgrep (13.0 from Debian agrees on all 381
// cases, order aside).
//
// rg --json prints ripgrep's JSON Lines (rgjson.go): begin, match (with
// submatches and their byte offsets), context and end messages per file
// with something to print, each end with the file's statistics, and a
// summary; text that is not UTF-8 is {"bytes": base64}. As ripgrep's,
// --json refuses -c, -l, -L and --files and ignores -o, -r, --column and
// -b; -N makes line_number null. TestRgJSONAgainstRipgrep compares it
// with ripgrep 13, timings aside.
//
// Deliberate differences from ripgrep:
//   - Regexes are Go's RE2, not Rust's regex crate: \d \w \s \b are ASCII;
//     look-around is refused as ripgrep without PCRE2 refuses it.
//   - Not supported (status 2 with a message): -P/--pcre2,
//     -U/--multiline, -z/--search-zip, --pre, --passthru, --stats,
//     -p/--pretty and --heading.
//   - Output is in path order (as --sort path), searched one file at a
//     time.
//   - The global gitignore (core.excludesFile) and .git/info/exclude are
//     not read.
//   - The built-in type table holds the common types (go, py, js, ts,
//     rust, c, cpp, java, md, json, yaml, sh, html, css, …), not all of
//     ripgrep's.
package grep
