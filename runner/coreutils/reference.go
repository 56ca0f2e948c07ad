package coreutils

import "github.com/wsfs/wsfs/runner/command"

// referenceCommands are the rest of the reference agent shell's set:
// GNU commands run as commands (printf, echo, test, [), expr, file,
// install, truncate, mktemp, and the session commands with fixed answers
// (hostname, whoami, clear, history).
func referenceCommands() []command.Spec {
	return []command.Spec{
		{Name: "printf", Summary: "format and print data (GNU's, when run as a command; the shell's printf is bash's)", Func: runPrintf, Flags: []string{"FORMAT [ARGUMENT]...", "--help", "--version"}},
		{Name: "expr", Summary: "evaluate an expression: arithmetic, comparison, STRING : REGEX, length, substr, index, match", Func: runExpr, Flags: []string{"ARG1 | ARG2", "ARG1 & ARG2", "< <= = == != >= >", "+ - * / %", "STRING : REGEX", "match STRING REGEX", "substr STRING POS LEN", "index STRING CHARS", "length STRING", "+ TOKEN", "( EXPRESSION )"}},
		{Name: "echo", Summary: "display a line of text (GNU's, when run as a command; the shell's echo is bash's)", Func: runEcho, Flags: []string{"-n", "-e", "-E"}},
	}
}
