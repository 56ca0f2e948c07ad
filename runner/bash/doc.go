// Package bash is the runner's shell: an interpreter of bash, as GNU bash
// 5.2 behaves, over the syntax tree of mvdan.cc/sh/v3/syntax. Every
// command it runs is Go code of the runner (the command table), a
// builtin, a function or a script of the agent's own files; no host
// program runs, and every path goes through command.RootFS (os.Root over
// the workspace and scratch folders).
//
// # Execution model
//
// A Shell is one bash process: variables (with attributes, indexed and
// associative arrays, namerefs, dynamic scoping of locals), functions,
// aliases, options, traps, a descriptor table, a directory, positional
// parameters. A subshell — ( … ), a pipeline stage, $( … ), <( … ), a
// background job — is a forked copy: the variable table is shared until
// either side writes (copy on write), descriptors are shared open file
// descriptions (dup'd, reference counted). Pipeline stages, background
// jobs, process and command substitutions run in goroutines (pipelines
// concurrently, joined by in-process pipes); a nested bash (bash -c,
// a script run by path or through PATH) is a fresh Shell in the same run.
//
// A script is read as bash reads it (exec.go, parse.go): it is parsed,
// then run a line at a time; what precedes a syntax error runs, an
// expansion error abandons its own line only, aliases (alias.go) defined
// on one line apply from the next, by re-parsing a line whose command
// words name aliases. Where mvdan/sh's parser refuses valid bash
// (cat <<EOF$(x), $((echo a) | wc), arithmetic it cannot read), a
// fallback rewrites the text and parses again.
//
// # How a command is resolved
//
// A simple command's words are expanded, then its redirections applied,
// then its assignments expanded (call.go). The name is then, in order: a
// function; a builtin (builtins.go and the files named there); a name
// with a slash is a path; else PATH is searched (commands.go): /bin and
// /usr/bin hold the runner's commands (command.RootFS.SetPrograms lists
// them there, so ls, test -x and command -v agree with what runs), and
// any other folder of PATH holds the agent's scripts. A file runs as a
// shell script (its #! names bash or sh, or nothing), as a runner command
// named by #! (#!/usr/bin/awk -f), or is refused with bash's message.
// Commands that run others (xargs, find -exec, env, timeout) go through
// the same PATH lookup, never a builtin or a function, as exec(3) would.
//
// # Expansion
//
// Words are expanded in bash's order (expand.go, param.go): brace
// expansion, tilde, parameter and variable expansion, arithmetic and
// command substitution left to right, word splitting on IFS, pathname
// expansion (glob.go, with runner/internal/shpattern for bash's patterns
// and extglob), quote removal. Each byte of an expanded word records
// whether it is quoted and whether it came from an expansion, which is
// all splitting, globbing and pattern matching need. Arithmetic (arith.go,
// arithtext.go) is evaluated from text, as bash does: the expression's
// text with its expansions replaced, then parsed and evaluated at once,
// so precedence after expansion, short-circuiting and bash's error
// messages ("division by 0 (error token is …)") come out the same.
//
// # Redirections and descriptors
//
// The descriptor table is the shell's own (fd.go, redirect.go): any
// number, {var}>file, exec's permanent redirections, here-documents and
// here-strings, noclobber, >&-, N>&M-. A runner command gets descriptors
// 0–2 as its streams and the others as /dev/fd/N, which its view opens
// through the table (so <( … ) and read_from_fd-style programs work).
// Pipes are in-process, bounded buffers; a write into a pipe whose reader
// is gone fails with EPIPE, and the command stops with status 141, as
// SIGPIPE would make it.
//
// # Limits
//
// The caller's context carries the wall time: every loop and every
// statement checks it, and pipes are broken when it ends, so nothing
// blocks past it. Nesting (function calls, source, eval, subshells,
// nested shells) is bounded by Config.MaxCallDepth, goroutines by
// MaxGoroutines, open files by MaxOpenFiles; a command substitution
// captures at most 512 MiB; brace expansion makes at most 262,144 words.
// A limit reached prints its one line (Config.Limit) and, except for open
// files, ends the command (Config.Stop). Background jobs still running
// when the command ends are stopped.
package bash
