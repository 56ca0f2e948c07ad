package coreutils

import "github.com/wsfs/wsfs/runner/command"

// referenceCommands are the rest of the reference agent shell's set:
// GNU commands run as commands (printf, echo, test, [), expr, file,
// install, truncate, mktemp, and the session commands with fixed answers
// (hostname, whoami, clear, history).
// testFlags are test's operators.
var testFlags = []string{"! EXPR", "( EXPR )", "EXPR -a EXPR", "EXPR -o EXPR", "-n STRING", "-z STRING", "STRING = STRING", "STRING != STRING",
	"INT -eq|-ne|-lt|-le|-gt|-ge INT", "-l STRING", "FILE -nt|-ot|-ef FILE", "-e -f -d -s -r -w -x -L -h -b -c -p -S -u -g -k -O -G -N -t FILE"}

func referenceCommands() []command.Spec {
	return []command.Spec{
		{Name: "printf", Summary: "format and print data (GNU's, when run as a command; the shell's printf is bash's)", Func: runPrintf, Flags: []string{"FORMAT [ARGUMENT]...", "--help", "--version"}},
		{Name: "expr", Summary: "evaluate an expression: arithmetic, comparison, STRING : REGEX, length, substr, index, match", Func: runExpr, Flags: []string{"ARG1 | ARG2", "ARG1 & ARG2", "< <= = == != >= >", "+ - * / %", "STRING : REGEX", "match STRING REGEX", "substr STRING POS LEN", "index STRING CHARS", "length STRING", "+ TOKEN", "( EXPRESSION )"}},
		{Name: "test", Summary: "check file types and compare values (GNU's, when run as a command; the shell's test is bash's)", Func: runTest, Flags: testFlags},
		{Name: "[", Summary: "check file types and compare values; the last argument must be ]", Func: runTest, Flags: testFlags},
		{Name: "install", Summary: "copy files and set their mode (0755 unless -m), or make directories with -d", Func: runInstall, Flags: installSpec.Flags()},
		{Name: "truncate", Summary: "shrink or extend files to a size (-s [+-<>/%]SIZE[KMG…]) or another file's (-r)", Func: runTruncate, Flags: truncateSpec.Flags()},
		{Name: "mktemp", Summary: "create a unique temporary file or directory (in /tmp by default) and print its name", Func: runMktemp, Flags: mktempSpec.Flags()},
		{Name: "hostname", Summary: "print the host name, always wsfs (-i: 127.0.0.1); setting it is refused", Func: runHostname, Flags: hostnameSpec.Flags()},
		{Name: "whoami", Summary: "print the user name, always agent", Func: runWhoami, Flags: whoamiSpec.Flags()},
		{Name: "clear", Summary: "clear the terminal screen (prints the xterm sequence; nothing for TERM=dumb)", Func: runClear, Flags: clearSpec.Flags()},
		{Name: "history", Summary: "list the workspace's recent commands (from its revision log), numbered", Func: runHistory, Flags: []string{"N"}},
		{Name: "file", Summary: "determine file type from content (text encoding, scripts, JSON, images, archives …)", Func: runFile, Flags: fileSpec.Flags()},
		{Name: "echo", Summary: "display a line of text (GNU's, when run as a command; the shell's echo is bash's)", Func: runEcho, Flags: []string{"-n", "-e", "-E"}},
	}
}
