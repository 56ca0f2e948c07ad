package runner

import (
	"strings"
	"testing"
)

func TestRewrittenFeatures(t *testing.T) {
	cases := []scriptCase{
		{"xtrace hides the hidden commands", "set -x; read -u 3 l 3<<< x; false | true; echo ${PIPESTATUS[0]}", "1\n", "+ read l\n", 0},
		{"noclobber refuses with bash's words", "echo a > f; set -o noclobber; echo b > f", "", "bash: f: cannot overwrite existing file", 1},
		{"noclobber spares /dev/null and appends", "set -C; echo a > /dev/null; echo b >> f; echo c >> f; cat f", "b\nc\n", "", 0},
		{"here-document on stdout", "echo hi 1<<EOF\nx\nEOF", "", "write error", 1},
		{"missing descriptor", "echo x >&7", "", "bash: 7: Bad file descriptor", 1},
		{"redirection errors as bash prints them", "cat < nope", "", "bash: nope: No such file or directory", 1},
		{"descriptor scoped to its command", "echo data > f; cat <&3 3< f; cat <&3", "data\n", "Bad file descriptor", 1},
		{"shopt -s lastpipe", "shopt -s lastpipe; echo x | read v; echo \"[$v]\"", "[x]\n", "", 0},
		{"pipeline stages in subshells", "x=1; echo 2 | read x; echo $x | cat; echo y | { read z; echo $z; }", "1\ny\n", "", 0},
		{"PIPESTATUS in a nested shell", "bash -c 'false | true; echo ${PIPESTATUS[*]}'", "1 0\n", "", 0},
		{"sourced file rewritten", "printf 'exec 3< n\\necho x | read v\\nfalse | true; p=${PIPESTATUS[0]}\\n' > lib.sh; echo data > n; . ./lib.sh; read -u 3 l; echo \"[$v] $p $l\"; cat lib.sh | wc -l", "[] 1 data\n3\n", "", 0},
		{"eval rewritten", "eval 'exec 4> o; echo hi >&4; exec 4>&-'; cat o; eval 'true | false; echo ${PIPESTATUS[1]}'", "hi\n1\n", "", 0},
		{"descriptors in a function", "printf '1\\n2\\n' > n; f() { while read -u 9 a; do echo \"<$a>\"; [ $a = 1 ] && return 0; done; }; f 9< n; f 9< n", "<1>\n<1>\n", "", 0},
	}
	runScriptCases(t, cases, Limits{}, func(t *testing.T, res Result) {
		if strings.Contains(string(res.Stderr), "wsfs-") {
			t.Errorf("stderr shows a hidden command: %q", res.Stderr)
		}
	})
}
