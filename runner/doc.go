// Package runner runs an agent's command: a restricted bash (mvdan.cc/sh
// interp, bash dialect) whose commands are Go code confined to the
// workspace, with preflight checks, path confinement, limits and the
// command's result. It imports no other wsfs package but its own
// subpackages. Run is the worker core of `wsfs run`; StartConfined starts
// the worker process inside its second wall.
//
// # What an agent sees
//
// "/" holds /workspace (the workspace; the first cwd), /tmp (scratch for
// this command only) and /dev with null, stdin, stdout and stderr; nothing
// else exists. PATH is empty and every command name resolves in the
// command table (CommandSpecs: coreutils, textutils, grep, sed, awk, jq,
// js-exec …); /bin/NAME, /usr/bin/NAME and the like name the same
// commands. Unknown names give "NAME: command not found" (127); names
// reserved for commands still to come (NotAvailableYet) give "NAME: not
// available yet" (127). Variables do not persist between commands; the
// cwd does (Result.Cwd).
//
// # Nested shells and scripts
//
// bash and sh (also /bin/bash, /usr/bin/env bash, $BASH, $SH) run a
// nested interpreter in the same sandbox, limits and revision: `bash FILE
// ARGS`, `bash -c SCRIPT [NAME [ARGS]]`, `bash -s ARGS` or a script on
// stdin, with -e -u -x -f -n -a, -o NAME and clusters such as -ec. A file
// run by path (./build.sh, scripts/x.sh, /workspace/x.sh) needs its x bit
// ("Permission denied" 126; missing: 127) and runs as bash when its #!
// line names bash or sh (directly or through env, with options) or when
// it has none; any other interpreter is refused with 126 and a message
// naming it (js-exec runs JavaScript). $0, the positional parameters,
// exit statuses and set -e follow bash; exported variables pass down,
// nothing comes back up, and the caller's cwd stays. A nested script gets
// the same preflight, and BASH_SOURCE names a script file.
//
// # Confinement layers
//
//  1. Preflight: background jobs (&), coproc and process substitution are
//     refused before anything runs (status 2, the construct and position
//     named); they would outlive the command or make FIFOs on the host.
//     Code the interpreter parses itself (eval's arguments, a sourced
//     file, a trap's action) gets the same check when it is about to run.
//  2. Every interpreter handler (open, readdir, stat, access, exec, call)
//     goes through command.RootFS, which resolves symlinks and ".." in the
//     agent's namespace over os.Root handles. The exec handler never calls
//     the interpreter's default (host) exec; `type` and `command -v` answer
//     from the command table instead of statting host paths.
//  3. The worker process: StartConfined starts it inside Landlock
//     (filesystem to the workspace and its private folder, no network
//     where the kernel has ABI 4), and it caps its own memory and each
//     command's CPU time (LimitProcess, LimitCPU).
//
// # Limits
//
// Wall time (exit 124, "wsfs: time limit 15s reached"); output (the last
// 128 KiB of each stream kept in the Result, Truncated set, everything
// streamed to the live writers); entries created in /workspace and /tmp
// (1,000; further creations fail with EDQUOT); files the shell holds open;
// nested function calls (mvdan/sh does not bound them, and Go's stack
// overflow is fatal to the process); pipeline goroutines; optionally the
// process heap (Limits.MaxMemoryBytes). Each limit hit prints one line on
// stderr and is listed in Result.LimitsHit.
//
// # Deliberate differences from bash
//
//   - No background jobs, coprocesses or process substitution (above).
//   - No host programs: a path runs only as a shell script (above) or as
//     a runner command (/bin/NAME); other files give bash's errors.
//   - `type ls` says "ls is /bin/ls" and `command -v ls` "/bin/ls", as
//     `which` does, though no such file exists in the agent's view.
//   - Builtins run by other commands (xargs echo, find -exec test) run in
//     a fresh interpreter with the same confinement.
//   - TMPDIR is unset (the interpreter's FIFO folder points where no agent
//     path reaches). $SH is set (to /bin/bash or /bin/sh) beside $BASH;
//     $BASH_VERSION says 5.2.15. `sh` is bash's dialect, not dash.
//   - help lists the runner's commands (CommandSpecs) instead of bash's
//     builtins; `help NAME` prints a command's summary and flags.
//   - printf and echo are the runner's own (bash's formats, %q, -v, format
//     reuse; echo's -ne clusters); mvdan/sh's lack most of them. A write
//     they cannot make (a full quota) fails them, as in bash.
//   - A command whose output pipe closed stops quietly with status 141, as
//     a GNU tool killed by SIGPIPE.
//   - Descriptors above 2 (exec 3<f, read -u 3, >&3, {var}>f, 3<<EOF),
//     noclobber (set -C, >|) and PIPESTATUS are the runner's, by a rewrite
//     of the script (and of sourced files and eval's code) before it runs
//     (rewrite.go): the descriptors are one table per command, so one a
//     subshell opens with exec stays open in its parent; PIPESTATUS is
//     set after pipelines only; set -x shows read -u 3 as read.
//   - Some alias and associative-array behaviour, heredoc words with
//     expansions and $(( … )) holding a command follow mvdan/sh, not bash.
package runner
