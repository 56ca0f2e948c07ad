// Package runner runs an agent's command: the runner's bash (package
// runner/bash, an interpreter of its own over mvdan.cc/sh's parser) whose
// commands are Go code confined to the workspace, with path confinement,
// limits and the command's result. It imports no other wsfs package but
// its own subpackages. Run is the worker core of `wsfs run`;
// StartConfined starts the worker process inside its second wall.
//
// # What an agent sees
//
// "/" holds /workspace (the workspace; the first cwd), /tmp (scratch for
// this command only), /dev (null, zero, full, random, urandom, stdin,
// stdout, stderr, and /dev/fd/N for the shell's descriptors) and /bin and
// /usr/bin, which list the runner's commands (CommandSpecs: coreutils,
// textutils, grep, sed, awk, jq, js-exec …) as empty executable files;
// nothing else exists. PATH is /usr/local/bin:/usr/bin:/bin, so `command
// -v cat`, `ls /usr/bin` and `[ -x "$(command -v cat)" ]` agree with what
// runs; a workspace folder added to PATH makes its scripts runnable by
// name. Unknown names give "bash: line N: NAME: command not found" (127).
// Variables do not persist between commands; the cwd does (Result.Cwd).
//
// # The shell
//
// runner/bash's package documentation describes the interpreter: how a
// command is resolved (function, builtin, runner command, script), the
// order of expansions, descriptors and redirections, background jobs and
// process substitution in goroutines, and how its limits are enforced.
// bash and sh (also /bin/bash, $BASH, $SH, #!/bin/bash) run a nested
// shell in the same process, sandbox, limits and revision. A file run by
// path or found in PATH needs its x bit ("Permission denied" 126; missing:
// 127) and runs as a shell script when its #! line names bash or sh or it
// has none, as a runner command when #! names one (#!/usr/bin/awk -f);
// any other interpreter is refused with 126 and a message naming it.
//
// # Confinement layers
//
//  1. Every file the shell or a command touches goes through
//     command.RootFS, which resolves symlinks and ".." in the agent's
//     namespace over os.Root handles. No host program is ever run: a name
//     resolves to a builtin, a function, a runner command or a script of
//     the agent's files.
//  2. The worker process: StartConfined starts it inside Landlock
//     (filesystem to the workspace and its private folder, no network
//     where the kernel has ABI 4), and it caps its own memory and each
//     command's CPU time (LimitProcess, LimitCPU).
//
// # Limits
//
// Wall time (exit 124, "wsfs: time limit 15s reached"): background jobs
// and process substitutions are stopped with the command. Output (the
// last 128 KiB of each stream kept in the Result, Truncated set,
// everything streamed to the live writers). Entries created in /workspace
// and /tmp (1,000; further creations fail with EDQUOT). Files the shell
// holds open (256; the redirection fails with "Too many open files").
// Nested function calls, sources, evals and shells (1,000). Goroutines
// running pipeline stages, jobs and substitutions (2,048). Optionally the
// process heap (Limits.MaxMemoryBytes). Each limit hit prints one line on
// stderr and is listed in Result.LimitsHit.
//
// # Deliberate differences from bash
//
//   - No host programs, users or terminal: `hostname` is wsfs, every
//     file belongs to agent (root inside the view), job control is off.
//   - $SH is set (to /bin/bash or /bin/sh) beside $BASH; $BASH_VERSION says
//     5.2.15. `sh` is bash's dialect, not dash.
//   - help lists the runner's commands (CommandSpecs) instead of bash's
//     builtins; `help NAME` prints a command's summary and flags.
//   - Background jobs still running when the command ends are stopped
//     rather than left behind; process substitutions are waited for.
package runner
