package runner

import (
	"strings"
	"testing"
	"time"
)

// scriptCase is a script run in a fresh sandbox and what it must give.
type scriptCase struct {
	name, script, stdout, stderrHas string
	code                            int
}

// runScriptCases runs each case as a subtest; check, if not nil, looks
// further at a result.
func runScriptCases(t *testing.T, cases []scriptCase, lim Limits, check func(*testing.T, Result)) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSandbox(t)
			res := s.run(c.script, lim)
			if string(res.Stdout) != c.stdout || res.ExitCode != c.code || !strings.Contains(string(res.Stderr), c.stderrHas) {
				t.Errorf("%q:\n got %q exit %d stderr %q\nwant %q exit %d stderr containing %q",
					c.script, res.Stdout, res.ExitCode, res.Stderr, c.stdout, c.code, c.stderrHas)
			}
			if check != nil {
				check(t, res)
			}
		})
	}
}

func TestNestedShellsAndScripts(t *testing.T) {
	cases := []scriptCase{
		{"script by path", "printf '#!/bin/bash\\necho \"$0|$#|$1|$2\"\\nexit 3\\n' > s.sh; chmod +x s.sh; ./s.sh a 'b c'", "./s.sh|2|a|b c\n", "", 3},
		{"env shebang", "printf '#!/usr/bin/env bash\\necho $BASH\\n' > s.sh; chmod +x s.sh; ./s.sh", "/bin/bash\n", "", 0},
		{"sh shebang", "printf '#!/bin/sh\\necho $SH $0\\n' > s.sh; chmod +x s.sh; /workspace/s.sh", "/bin/sh /workspace/s.sh\n", "", 0},
		{"shebang options", "printf '#!/bin/bash -e\\nfalse\\necho no\\n' > s.sh; chmod +x s.sh; ./s.sh; echo rc=$?", "rc=1\n", "", 0},
		{"env -S shebang", "printf '#!/usr/bin/env -S bash -eu\\necho $unset\\necho no\\n' > s.sh; chmod +x s.sh; ./s.sh; echo rc=$?", "rc=1\n", "unset", 0},
		{"no shebang runs as bash", "mkdir -p scripts; echo 'echo plain $0' > scripts/x.sh; chmod +x scripts/x.sh; scripts/x.sh", "plain scripts/x.sh\n", "", 0},
		{"not executable", "echo 'echo hi' > x.sh; ./x.sh", "", "x.sh: Permission denied", 126},
		{"missing", "./nope.sh", "", "./nope.sh: No such file or directory", 127},
		{"folder", "mkdir d; ./d", "", "./d: Is a directory", 126},
		{"binary", "printf 'ab\\0cd' > b; chmod +x b; ./b", "", "cannot execute binary file", 126},
		{"python shebang", "printf '#!/usr/bin/env python3\\nprint(1)\\n' > p.py; chmod +x p.py; ./p.py", "", "python3 is not available", 126},
		{"node shebang points at js-exec", "printf '#!/usr/bin/node\\n' > p.js; chmod +x p.js; ./p.js", "", "js-exec", 126},
		{"bash FILE ARGS", "echo 'echo \"$0:$*\"; exit 5' > s.sh; bash s.sh 1 2", "s.sh:1 2\n", "", 5},
		{"bash -c NAME ARGS", "bash -c 'echo \"$0:$1:$#\"' nm a b", "nm:a:2\n", "", 0},
		{"bash -c default $0", "bash -c 'echo $0'; sh -c 'echo $0'", "bash\nsh\n", "", 0},
		{"bash -e -c", "bash -e -c 'false; echo no'; echo rc=$?", "rc=1\n", "", 0},
		{"bash -o pipefail", "bash -o pipefail -c 'false | true'; echo rc=$?", "rc=1\n", "", 0},
		{"bash -ec clustered", "bash -ec 'false; echo no'; echo rc=$?", "rc=1\n", "", 0},
		{"bash -u", "bash -uc 'echo $nope'; echo rc=$?", "rc=127\n", "nope", 0},
		{"bash -x traces", "bash -xc 'echo hi'", "hi\n", "+ echo hi", 0},
		{"bash -s ARGS", "echo 'echo \"s:$*\"' | bash -s a b", "s:a b\n", "", 0},
		{"script on stdin", "echo 'echo piped' | bash; bash < /dev/null; echo rc=$?", "piped\nrc=0\n", "", 0},
		{"bash missing file", "bash nope.sh", "", "nope.sh: No such file or directory", 127},
		{"bash folder", "mkdir d; bash d", "", "d: Is a directory", 126},
		{"bash bad option", "bash -Z -c true", "", "invalid option", 2},
		{"bash --version", "bash --version | head -c 8", "GNU bash", "", 0},
		{"syntax error", "bash -c 'if then'", "", "syntax error", 2},
		{"host paths of shells", "/bin/bash -c 'echo a'; /usr/bin/env sh -c 'echo b'; $BASH -c 'echo c'; $SH -c 'echo d'", "a\nb\nc\nd\n", "", 0},
		{"host paths of commands", "/usr/bin/printf x; $(command -v echo) y", "xy\n", "", 0},
		{"variables do not leak up", "x=1; export y=2; bash -c 'echo \"[$x][$y]\"; z=3; export w=4'; echo \"[$z][$w]\"", "[][2]\n[][]\n", "", 0},
		{"env passes down", "env A=1 bash -c 'echo $A'; A=2 bash -c 'echo $A'", "1\n2\n", "", 0},
		{"cwd does not leak up", "mkdir -p sub; bash -c 'cd sub; pwd'; pwd", "/workspace/sub\n/workspace\n", "", 0},
		{"set -e in caller", "set -e; bash -c 'exit 2'; echo no", "", "", 2},
		{"nested in pipeline", "printf '3\\n1\\n2\\n' | bash -c 'sort' | head -n 1", "1\n", "", 0},
		{"xargs and find run scripts", "echo 'echo ran $1' > s.sh; chmod +x s.sh; echo z | xargs ./s.sh; find . -name s.sh -exec bash {} q \\;", "ran z\nran q\n", "", 0},
		{"source with args", "echo 'echo \"$# $1\"; v=set' > lib.sh; source lib.sh a b; . ./lib.sh c; echo $v", "2 a\n1 c\nset\n", "", 0},
		{"background job in nested shell", "bash -c 'sleep 1 & wait; echo waited'", "waited\n", "", 0},
		{"process substitution in script", "printf 'cat <(echo x)\\n' > s.sh; chmod +x s.sh; ./s.sh", "x\n", "", 0},
		{"confined", "bash -c 'cat /etc/passwd'; echo rc=$?", "rc=1\n", "No such file", 0},
		{"exit status of exit", "bash -c 'exit 300'; echo $?", "44\n", "", 0},
		{"functions stay in the child", "bash -c 'f() { echo f; }; f'; type f >/dev/null 2>&1 || echo nofunc", "f\nnofunc\n", "", 0},
		{"version variables", "echo $BASH ${BASH_VERSINFO[0]} ${BASH_VERSION%%.*}", "/bin/bash 5 5\n", "", 0},
		{"not available list", "bash -c true && sh -c true && echo ok", "ok\n", "", 0},
		{"shells are commands", "which bash sh; command -v bash; type sh; help bash | head -c 5; \"$(command -v bash)\" -c 'echo in'; timeout 5 sh -c 'echo t'", "/usr/bin/bash\n/usr/bin/sh\n/usr/bin/bash\nsh is /usr/bin/sh\nbash:in\nt\n", "", 0},
	}
	runScriptCases(t, cases, Limits{WallTime: 5 * time.Second}, nil)
}

func TestNestedShellLimits(t *testing.T) {
	t.Run("recursive script", func(t *testing.T) {
		s := newSandbox(t)
		res := s.run("echo './r.sh' > r.sh; chmod +x r.sh; ./r.sh", Limits{WallTime: 10 * time.Second, MaxCallDepth: 200})
		if res.ExitCode == 0 || len(res.LimitsHit) == 0 {
			t.Fatalf("recursion not stopped: exit %d, limits %q, stderr %.300q", res.ExitCode, res.LimitsHit, res.Stderr)
		}
	})
	t.Run("wall time", func(t *testing.T) {
		s := newSandbox(t)
		res := s.run("bash -c 'while :; do :; done'; echo after", Limits{WallTime: 200 * time.Millisecond})
		if res.ExitCode != StatusTimeout || strings.Contains(string(res.Stdout), "after") {
			t.Fatalf("exit %d stdout %q", res.ExitCode, res.Stdout)
		}
	})
	t.Run("entries shared with the caller", func(t *testing.T) {
		s := newSandbox(t)
		res := s.run("touch a b c; bash -c 'touch d e f'; echo rc=$?", Limits{MaxVisibleEntries: 4})
		if string(res.Stdout) != "rc=1\n" || !strings.Contains(string(res.Stderr), "entry limit 4") {
			t.Fatalf("stdout %q stderr %q", res.Stdout, res.Stderr)
		}
	})
}
