// Package sed is the runner's sed: GNU sed 4.9 as agents use it, written
// in Go over a command.Env (standard streams and the runner's confined
// file access). Commands() gives its entry for the runner's command table.
//
// # Invocation
//
//	sed [OPTION]... {script-only-if-no-other-script} [input-file]...
//
// Options (short ones cluster, long ones may be abbreviated, options may
// follow file names, "--" ends them): -n --quiet --silent; -e SCRIPT
// --expression=SCRIPT; -f FILE --file=FILE ("-" is standard input);
// -E -r --regexp-extended; -i[SUFFIX] --in-place[=SUFFIX]; -s --separate;
// -z --null-data --zero-terminated; -l N --line-length=N; -u --unbuffered;
// -b --binary; --posix; --follow-symlinks; --sandbox; --debug; --help;
// --version. A first script line starting with "#n" acts as -n. As in
// GNU, -e and -f pieces are compiled when they are read, so a later -E
// does not apply to them. --follow-symlinks makes -i edit (and F name) a
// link's target; without it -i replaces the link by a regular file.
//
// Exit status: 0; 1 for a script or usage error; 2 when an input file
// could not be read (the others are still processed); 4 for an I/O error,
// a missing label, a w file that cannot be opened, or when the command is
// stopped (the context ended); the code given to q or Q.
//
// # Script syntax
//
// Commands are separated by newlines or ";" and may be grouped in { }
// (nested; "}" may follow a command directly, as in "1{p}"). Addresses:
// N, $, /RE/ and \cREc (flags I and M), first~step, addr1,addr2,
// addr1,+N, addr1,~N, 0,/RE/, each optionally followed by "!". Range
// rules are GNU's: a line-number first address starts its range on the
// first line at or past it, a regex second address is checked from the
// next line on, and a second line number at or before the first line
// gives a one-line range. "0r FILE" inserts FILE before the first line.
//
// Commands: { } : b t T (labels end at ; space # or }), = a i c (the
// one-line GNU form "a text" and the "a\" multi-line form, whose text
// continues over backslash-newlines and across -e pieces), d D g G h H
// l [N] n N p P q [CODE] Q [CODE] r R w W (FILE to the end of the line;
// /dev/stdin for r and R, /dev/stdout and /dev/stderr for w), s y x z F,
// v and # comments.
//
// s/RE/REPLACEMENT/FLAGS takes the flags g, p, N (the Nth match; with g,
// the Nth and all after it), i/I, m/M and w FILE. The replacement knows
// & and \0…\9, \n and the other character escapes, a backslash-newline,
// and the case conversions \U \L \u \l \E. Empty matches follow GNU:
// s/x*/-/g on "abc" gives "-a-b-c-", and an empty match right after a
// match is skipped. The empty regex (//) reuses the last regex used.
//
// Regular expressions are GNU sed's dialects of the runner's one engine
// (runner/internal/gnuregex: glibc's POSIX basic syntax, or extended with
// -E, read as glibc reads them): \( \) \{m,n\} \+ \? \| in BRE;
// back-references \1…\9 in both; bracket expressions with [:class:]
// [=x=] [.x.]; \w \W \s \S \b \B \< \> \` \'; the character escapes \a
// \f \n \r \t \v \cX \dNNN \oNNN \xHH (inserted raw into the regex, as
// GNU does); POSIX leftmost-longest matching. M makes ^ and $ match at
// embedded newlines (NULs with -z) and keeps . and [^…] from matching
// them. Character classes follow the C.UTF-8 locale: letters of every
// script are [[:alpha:]] and \w, and . matches a whole UTF-8 character.
// Patterns without back-references match in linear time; a back-reference
// search that needs more than its step budget stops sed with status 4 and
// a message to simplify the pattern. A literal pattern is searched with
// bytes.Index.
//
// Every loop checks the context (every 1024 commands or lines, and inside
// the backtracking matcher), so the runner's time limit stops ":a;ba";
// the first write error ends sed with status 4.
//
// -i writes each file's output to a temporary file in the same folder
// (through the confined FS), gives it the original's permission bits,
// renames the original to the backup name when a SUFFIX is given ("*" in
// it stands for the file's base name) and renames the temporary file over
// the original. With -i or -s every file starts with line 1, an empty hold
// space and fresh ranges, as in GNU.
//
// # Deliberate differences from GNU sed
//
//   - The e command and the e flag of s are refused once the script has
//     compiled (so errors GNU reports first still come first): "sed: the
//     e command runs host programs and is not available in wsfs",
//     status 1.
//   - File names in r, R, w, W, s///w, -f and the input files go through
//     the runner's confined view: files outside it do not exist (r reads
//     nothing, w fails with status 4).
//   - After an empty match, s///g steps over one whole UTF-8 character;
//     GNU steps one byte and so can split a multibyte character (s/x*/-/g
//     on "é" gives "-é-" here, invalid UTF-8 in GNU).
//   - --posix and POSIXLY_CORRECT only change N at the end of input (it
//     then quits without printing); the GNU extensions stay enabled.
//   - -b and --debug are accepted and change nothing; -u flushes the
//     output after every line.
//   - The usage text ends with a note about wsfs instead of GNU's links;
//     --version names this implementation.
//   - Matching is always UTF-8 (GNU's C.UTF-8 locale); the l command
//     prints bytes of multibyte characters in octal, as GNU 4.9 does.
//   - Subexpression positions come from Go's leftmost-longest matcher
//     (or the backtracker); for rare ambiguous patterns such as
//     (a|ab)(c|bcd) the overall match is the same as GNU's but a group's
//     boundaries may differ.
package sed
