package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wsfs/wsfs/internal/testenv"
)

// diffFiles are the files every differential case starts with.
var diffFiles = map[string]string{
	"a.txt":         "one\ntwo\nthree\ntwo\n",
	"nums.txt":      "10\n9\n100\n-3\n7\n7\n",
	"words.txt":     "apple banana\ncherry apple\nbanana banana date\n",
	"data.csv":      "name,age,city\nann,31,paris\nbob,25,rome\ncid,40,oslo\n",
	"src/main.go":   "package main\n\nfunc main() {}\n",
	"src/util.go":   "package main\n\n// TODO: more\nfunc util() {}\n",
	"src/README.md": "# readme\nTODO: write\n",
	"empty":         "",
	"sp ace.txt":    "spaced name\n",
	"j.json":        `{"a":1,"b":[1,2,3],"c":{"d":"x"}}` + "\n",
}

// handDiffCases exercise the shell language and the runner's commands.
var handDiffCases = []string{
	// loops
	"for i in 1 2 3; do echo $i; done",
	"for ((i=0; i<5; i+=2)); do echo $i; done",
	"i=0; while [ $i -lt 3 ]; do i=$((i+1)); echo $i; done",
	"i=5; until [ $i -le 2 ]; do echo $i; i=$((i-1)); done",
	"for i in a b c; do [ $i = b ] && continue; echo $i; done",
	"for i in 1 2 3 4; do [ $i = 3 ] && break; echo $i; done",
	"for x in *.txt; do echo \"$x\"; done",
	"for f in src/*; do echo ${f##*/}; done",
	"while read -r l; do echo \"<$l>\"; done < a.txt",
	"while IFS=, read -r n a c; do echo \"$c:$n\"; done < data.csv",
	"cat a.txt | while read l; do echo x$l; done",
	"for i in $(seq 3); do for j in $(seq $i); do printf '%s' $j; done; echo; done",
	// functions
	"f() { echo \"args:$# first:$1\"; }; f a b c",
	"f() { local x=1; echo $x; }; x=2; f; echo $x",
	"f() { return 3; }; f; echo $?",
	"fact() { if [ $1 -le 1 ]; then echo 1; else echo $(( $1 * $(fact $(($1-1))) )); fi; }; fact 6",
	"f() { echo \"$@\"; }; f 'a b' c",
	"f() { for a in \"$@\"; do echo \"[$a]\"; done; }; f 'a b' '' c",
	"f() { shift; echo $*; }; f 1 2 3",
	"g() { echo g; }; f() { g; g; }; f | wc -l",
	// case
	"for w in apple banana cherry 42 ''; do case $w in a*) echo A;; b*|c*) echo BC;; [0-9]*) echo N;; '') echo E;; esac; done",
	"case x.tar.gz in *.gz) echo gz;& *.tar) echo fall;; *) echo no;; esac",
	"case abc in ?b?) echo yes;; esac",
	// here-docs and strings
	"cat <<EOF\nhello $((1+2))\n$(echo sub)\nEOF",
	"cat <<'EOF'\nliteral $HOME $(x)\nEOF",
	"cat <<-EOF\n\tindented\n\tEOF",
	"wc -l <<< 'one line'",
	"x=world; cat <<EOF | tr a-z A-Z\nhello $x\nEOF",
	// quoting
	"echo 'single $x' \"double $((2*3))\" \\$escaped",
	"echo \"a\\\"b\" 'c'\\''d'",
	"x='a  b'; echo $x; echo \"$x\"",
	"echo $'tab\\there' $'nl\\\\n'",
	"set -- 'x y' z; echo $#; for a; do echo $a; done",
	"a=(one two three); echo ${#a[@]} ${a[1]} ${a[@]:1}",
	"a=(x y); a+=(z); echo \"${a[*]}\"",
	"declare -A m; m[k]=v; m[j]=w; echo ${m[k]} ${#m[@]}",
	"IFS=:; x='a:b:c'; for p in $x; do echo $p; done",
	"echo {1..5} {a..c} x{1,2}y",
	"echo ~ | grep -c workspace",
	// echo and printf builtins
	"echo -n no-newline; echo",
	"echo -e 'a\\tb\\nc'",
	"echo -E 'a\\tb'",
	"printf '%s-%s\\n' a b c d",
	"printf '%5s|%-5s|\\n' ab cd",
	"printf '%d %i %x %X %o\\n' 255 -3 255 255 8",
	"printf '%.3f %e %g\\n' 3.14159 12345.678 0.0001",
	"printf '%c%c\\n' hello world",
	"printf '%%|%b|\\n' 'a\\nb'",
	"printf '%05d|%+d|% d\\n' 42 42 42",
	"printf '%s\\n'",
	"printf -v v '%03d' 7; echo $v",
	// exit codes and operators
	"true && echo yes || echo no",
	"false || echo fallback",
	"! false; echo $?",
	"(exit 4); echo $?",
	"{ echo a; echo b; } | wc -l",
	"set -e; false; echo not-here",
	"set -o pipefail; false | true; echo $?",
	"false | true; echo $?",
	"x=$(exit 3); echo $?",
	"exit 7",
	"echo out; echo err >&2; exit 1",
	"nosuchcommand",
	"cat missing.txt",
	"cat missing.txt 2>/dev/null; echo $?",
	"[ -f a.txt ] && echo file; [ -d src ] && echo dir; [ -e nope ] || echo none",
	"[[ abc == a* ]] && echo glob; [[ abc =~ ^a(b)c$ ]] && echo ${BASH_REMATCH[1]}",
	"test 3 -gt 2 && echo gt; test -z '' && echo z; test -n x && echo n",
	"[ -s empty ] || echo empty; [ -s a.txt ] && echo full",
	// redirections
	"echo one > out.txt; echo two >> out.txt; cat out.txt",
	"echo x 2>&1 >/dev/null | wc -c",
	"ls nope 2>&1 | wc -l",
	"{ echo a; echo b >&2; } 2>err.txt; cat err.txt",
	"echo hi &> both.txt; cat both.txt",
	"cat < a.txt > copy.txt; cmp a.txt copy.txt 2>/dev/null; diff a.txt copy.txt && echo same",
	"mkdir -p d/e && cd d/e && echo deep > f && cd ../.. && cat d/e/f",
	"cd src; ls; cd ..; ls src | wc -l",
	// pipelines of the runner's commands
	"sort a.txt | uniq -c",
	"sort -n nums.txt | head -n 3",
	"sort -nr nums.txt | uniq | tail -n 2",
	"cut -d, -f1,3 data.csv | tail -n +2",
	"tr ' ' '\\n' < words.txt | sort | uniq -c | sort -rn | head -n 2",
	"grep -rn TODO src | sort",
	"grep -c apple words.txt",
	"grep -l TODO src/* | wc -l",
	"sed -n '2p' a.txt",
	"sed 's/two/2/g' a.txt",
	"awk -F, 'NR>1 {s+=$2} END {print s}' data.csv",
	"awk '{print NF}' words.txt",
	"jq -r '.b[]' j.json",
	"jq -c '.c' j.json",
	"wc -l a.txt nums.txt",
	"head -c 5 a.txt; echo",
	"tac a.txt | rev",
	"seq 5 | paste -sd+ | bc 2>/dev/null || seq 5 | awk '{s+=$1} END {print s}'",
	"find . -name '*.go' | sort",
	"find src -type f | wc -l",
	"ls | head -n 3",
	"ls -1 src",
	"basename /a/b/c.txt .txt; dirname /a/b/c.txt",
	"cat 'sp ace.txt'",
	"printf 'b\\na\\n' | sort | tee sorted.txt | wc -l; cat sorted.txt",
	"echo hello | md5sum",
	"echo hello | sha256sum",
	"echo hello | base64; echo aGVsbG8K | base64 -d",
	"seq 10 | xargs -n 3 echo",
	"seq 3 | xargs -I{} echo item-{}",
	"nl a.txt",
	"fold -w 3 <<< abcdefgh",
	"cat a.txt | head -n 2 | tail -n 1",
	"echo a,b,c | tr , '\\n' | sort -r",
	"diff <(echo) a.txt 2>/dev/null; echo refused-or-ran",
	"comm -12 <(sort a.txt) <(sort a.txt)",
	"x=$(wc -l < a.txt); echo $((x * 2))",
	"echo $(( $(grep -c two a.txt) + 1 ))",
	"v=$(cat a.txt); echo \"${v//$'\\n'/,}\"",
	// descriptors above 2, noclobber, PIPESTATUS, the last pipeline stage
	"exec 3< a.txt; read -u 3 x; read y <&3; echo \"$x $y\"; exec 3<&-; read -u 3 z; echo rc=$?",
	"exec 4> o.txt; echo one >&4; echo two 1>&4; exec 4>&-; cat o.txt",
	"while read -r -u 5 l; do echo \"<$l>\"; done 5< a.txt",
	"f() { read -u 3 a; echo \"f:$a\"; }; f 3< nums.txt; f 3< words.txt",
	"{ echo out; echo err >&2; } 3>&1 1>/dev/null 2>&3 | tr a-z A-Z",
	"exec {fd}< a.txt; read -u $fd l; echo \"$l\"; exec {fd}<&-; [ $fd -ge 10 ] && echo ten-or-more",
	"cat <&7; echo rc=$?",
	"exec {o}>&1; echo via >&$o; exec {o}>&-; echo after >&$o; echo rc=$?",
	"exec 3>&2 2>/dev/null; ls nosuch; exec 2>&3 3>&-; echo restored",
	"{ cat; read -u 0 l; echo \"[$l]\"; } < a.txt | tail -n 2",
	"f() { while read -u 4 a && read -u 5 b; do echo \"$a=$b\"; done; } ; f 4< a.txt 5< nums.txt",
	"exec 6<> rw.txt; echo data >&6; exec 6>&-; cat rw.txt",
	"printf 'exec 3< a.txt\\nread -u 3 f\\necho x | read v\\n' > lib.sh; source lib.sh; read -u 3 g; echo \"$f $g [$v]\"",
	"eval 'false | true; echo ${PIPESTATUS[0]}; exec 5> e.txt'; echo z >&5; cat e.txt",
	"echo x >&9; echo rc=$?",
	"read -u 3 v 3<<< 'here string'; echo $v",
	"set -o noclobber; echo a > n.txt; echo b > n.txt; echo rc=$?; echo c >| n.txt; echo d >> n.txt; cat n.txt",
	"set -C; echo a > n2.txt; echo b > n2.txt 2>/dev/null || echo refused; set +C; echo c > n2.txt; cat n2.txt",
	"false | true | false; echo ${PIPESTATUS[*]} ${#PIPESTATUS[@]}",
	"true | (exit 3) | true; echo \"${PIPESTATUS[@]}\"; set -o pipefail; true | false | true; echo $? ${PIPESTATUS[1]}",
	"echo hi | read v; echo \"v=[$v]\"",
	"n=0; printf '1\\n2\\n' | while read l; do n=$((n+l)); done; echo n=$n",
	"echo x | exit 3; echo still $?",
	"cat nosuch.txt 2>&1 | grep -c 'No such file'; cat < nosuch.txt 2>&1 | grep -c 'No such file'",
	"echo -ne 'a\\tb\\n' | od -c | head -n 1; echo -e 'x\\cy'; echo -n; echo -- -n",
}

// generatedDiffCases enumerates arithmetic, parameter expansion and
// printf combinations.
func generatedDiffCases() []string {
	var cases []string
	nums := []string{"0", "1", "7", "-3", "255", "1024"}
	rhs := []string{"1", "2", "5", "-2"}
	ops := []string{"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", "<=", "==", "!=", "&&", "||"}
	for i, a := range nums {
		for j, op := range ops {
			b := rhs[(i+j)%len(rhs)]
			if (op == "<<" || op == ">>") && strings.HasPrefix(b, "-") {
				b = "3"
			}
			cases = append(cases, fmt.Sprintf("echo $(( %s %s %s ))", a, op, b))
		}
	}
	cases = append(cases, "echo $(( 2 ** 10 )) $(( -7 / 2 )) $(( -7 % 3 )) $(( 1 ? 2 : 3 )) $(( ~5 )) $(( !0 ))",
		"x=5; echo $(( x++ )) $x $(( ++x )) $(( x += 3 )) $(( x *= 2 ))", "echo $(( 1 / 0 ))", "echo $(( 0x1f + 010 + 2#101 ))")
	values := []string{"", "hello.world.txt", "a b  c", "/usr/local/bin/", "Mixed Case"}
	exps := []string{"${v:-def}", "${v-def}", "${v:+alt}", "${#v}", "${v#*.}", "${v##*.}", "${v%.*}", "${v%%.*}",
		"${v/o/0}", "${v//o/0}", "${v:2}", "${v:1:3}", "${v: -3}", "${v^}", "${v^^}", "${v,,}", "${v/#h/H}", "${v/%t/T}", "${v%/}", "${v##*/}"}
	for _, v := range values {
		for _, e := range exps {
			cases = append(cases, fmt.Sprintf("v='%s'; echo \"[%s]\"", v, e))
		}
	}
	formats := []string{"%s", "%5s", "%-5s|", "%.2s", "%d", "%5d", "%-5d|", "%05d", "%x", "%o", "%.2f", "%10.3f", "%e", "%c", "%q"}
	args := []string{"42", "hello", "3.5", "-17"}
	for i, f := range formats {
		a := args[i%len(args)]
		if strings.ContainsAny(f, "dxo") && (a == "hello" || a == "3.5") {
			a = "42"
		}
		cases = append(cases, fmt.Sprintf("printf '%s\\n' %s", f, a))
	}
	return cases
}

// nestedShellDiffCases run script bodies as a file by path (with each
// shebang), through bash FILE, bash -c, sh FILE and source, with
// arguments, and check what leaks back to the caller.
func nestedShellDiffCases() []string {
	bodies := []string{
		`echo "$0|$#|$1|$2"`,
		`echo "$@"; shift; echo "$*|$#"`,
		`exit 3`,
		`set -e; false; echo not-here`,
		`false; echo "after false $?"`,
		`x=inner; export y=exp; echo "$x|$y|${outer-unset}|$expd"`,
		`f() { echo "f:$1"; return 4; }; f "$@"`,
		`echo "${1:-none}"; [ $# -gt 1 ] && echo many || echo few`,
		`cd src && ls | head -n 1`,
		`echo err >&2; exit 2`,
		`for a in "$@"; do printf '[%s]' "$a"; done; echo`,
		`grep -c o a.txt; wc -l < words.txt`,
	}
	var cases []string
	for _, body := range bodies {
		for _, run := range []string{
			"./s.sh a 'b c'", "bash s.sh a 'b c'", "bash -c \"$(tail -n +2 s.sh)\" name a 'b c'",
			"sh s.sh a 'b c'", "source ./s.sh a 'b c'", "tail -n +2 s.sh | bash -s a 'b c'",
		} {
			for _, shebang := range []string{"#!/bin/bash", "#!/usr/bin/env bash"} {
				if shebang != "#!/bin/bash" && !strings.HasPrefix(run, "./") {
					continue
				}
				if strings.HasPrefix(run, "source") && strings.Contains(body, "exit") {
					continue // exits the calling shell, before the leak check
				}
				cases = append(cases, "x=outer; here=$PWD; export expd=E; cat > s.sh <<'EOF'\n"+shebang+"\n"+body+
					"\nEOF\nchmod +x s.sh\n"+run+"\necho \"rc=$? x=$x y=${y-unset}\"; [ \"$PWD\" = \"$here\" ] || echo moved")
			}
		}
	}
	return append(cases,
		"echo 'echo hi' > s.sh; ./s.sh; echo rc=$?",
		"./nope.sh; echo rc=$?",
		"bash nope.sh; echo rc=$?",
		"mkdir -p d; ./d; echo rc=$?",
		"echo 'echo $1-$2' > s.sh; chmod +x s.sh; seq 4 | xargs -n 2 ./s.sh",
		"printf 'echo in-sh\\n' | sh",
		"bash -c 'exit 7'; echo $?",
		"bash -ec 'false; echo no'; echo $?",
		"bash -c 'echo \"$0 $#\"' only",
		"f() { bash -c 'echo \"$1\"' _ \"$@\"; }; f 'a b' c",
		"env V=1 bash -c 'echo $V'",
		"V=2 bash -c 'echo $V'; echo ${V-unset}",
		"echo 'echo \"${BASH_SOURCE-x} $#\"' > lib.sh; . ./lib.sh p q",
		"mkdir -p sub; printf 'cd \"$(dirname \"${BASH_SOURCE[0]}\")\"; echo ${PWD##*/} ${#BASH_SOURCE[@]}\\n' > sub/s.sh; chmod +x sub/s.sh; ./sub/s.sh; bash sub/s.sh",
		"echo 'exit 5' > e.sh; chmod +x e.sh; ./e.sh || echo failed $?",
		"set -e; printf '#!/bin/bash\\nexit 1\\n' > f.sh; chmod +x f.sh; ./f.sh; echo not-here",
		"printf '#!/bin/sh\\necho \"$0 $1\"\\n' > p.sh; chmod +x p.sh; ./p.sh one; sh ./p.sh two",
		// what agents' scripts do
		"cat > b.sh <<'EOF'\n#!/usr/bin/env bash\nset -euo pipefail\ntrap 'echo cleanup' EXIT\nusage() { echo \"usage: $0 [-v] NAME\" >&2; exit 2; }\nv=0\nwhile getopts 'vn:' o; do case $o in v) v=1;; n) n=$OPTARG;; *) usage;; esac; done\nshift $((OPTIND-1))\n[ $# -ge 1 ] || usage\necho \"v=$v n=${n:-} name=$1\"\nEOF\nchmod +x b.sh; ./b.sh -v -n 3 x; echo rc=$?; ./b.sh; echo rc=$?; ./b.sh -q y; echo rc=$?",
		"cat > c.sh <<'EOF'\nset -u\necho \"${1:-}\" \"$undefined_var\"\necho not-here\nEOF\nbash c.sh a; echo rc=$?",
		"cat > d.sh <<'EOF'\n#!/bin/bash\nmain() { local out; out=$(grep -c two \"$1\") || return 3; echo \"count=$out\"; }\nmain \"$@\"\nEOF\nchmod +x d.sh; ./d.sh a.txt; ./d.sh nums.txt; echo rc=$?",
		"cat > e.sh <<'EOF'\n#!/bin/bash\nfor f in \"$@\"; do [ -f \"$f\" ] || { echo \"missing $f\" >&2; continue; }; wc -l < \"$f\"; done | sort -n | tail -n 1\nEOF\nchmod +x e.sh; ./e.sh a.txt nope words.txt",
		"mkdir -p scripts; printf '#!/bin/bash\\necho lib-$1\\n' > scripts/lib.sh; printf '#!/bin/bash\\nsource \"$(dirname \"$0\")/lib.sh\" x\\n\"$(dirname \"$0\")\"/lib.sh y\\n' > scripts/main.sh; chmod +x scripts/*.sh; scripts/main.sh; bash scripts/main.sh",
		"printf 'echo \"$1\" | tr a-z A-Z\\n' > up.sh; chmod +x up.sh; for w in ab cd; do ./up.sh $w; done | paste -sd,",
		"bash -c 'echo $$ >/dev/null; echo ${#BASH_VERSION} >/dev/null; echo ok'",
		"bash -c 'trap \"echo bye\" EXIT; exit 4'; echo rc=$?",
	)
}

// bashPath returns GNU bash, or skips (fails under CI) without it.
func bashPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("bash")
	if err != nil {
		testenv.Missing(t, "GNU bash is missing")
	}
	return p
}

func writeFilesErr(dir string, files map[string]string) error {
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

type bashResult struct {
	stdout, stderr string
	code           int
	err            error
}

// runBash runs script under GNU bash in a fresh folder holding diffFiles.
func runBash(t *testing.T, bash, script string) (r bashResult) {
	bdir := t.TempDir()
	if r.err = writeFilesErr(bdir, diffFiles); r.err != nil {
		return r
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-c", script)
	cmd.Args[0] = "bash" // $0, as the runner gives it
	cmd.Dir = bdir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "HOME=/workspace"}
	var bout, berr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &bout, &berr
	err := cmd.Run()
	r.stdout, r.stderr = bout.String(), berr.String()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else {
		r.err = err
	}
	return r
}

// interpDiffCases cover what the recorded corpora test little: jobs,
// process substitution and coprocesses, descriptors, scoping, traps,
// options, the builtins' flags and formats.
var interpDiffCases = []string{
	// jobs, process substitution, coprocesses
	`sleep 0.1 & pid=$!; wait $pid; echo waited $?`,
	`(exit 3) & wait $!; echo $?`,
	`f() { echo in-bg; }; f & wait; echo after`,
	`true & false & wait -n; echo any`,
	`sleep 5 & kill %1; wait %1; echo $?`,
	`sleep 5 & kill $!; wait $! 2>/dev/null; echo $?`,
	`diff <(printf 'a\nb\n') <(printf 'a\nc\n'); echo $?`,
	`paste <(seq 3) <(seq 4 6)`,
	`while read -r l; do echo "<$l>"; done < <(printf 'x y\nz\n')`,
	`echo hi > >(tr a-z A-Z); wait $!`,
	`coproc up { tr a-z A-Z; }; echo hello >&${up[1]}; exec {up[1]}>&-; read -r r <&${up[0]}; echo $r`,
	`cat < <(echo one) | cat`,
	// descriptors
	`exec 3> f.txt; echo a >&3; echo b >&3; exec 3>&-; cat f.txt`,
	`exec {fd}<a.txt; read -r -u $fd l; echo $l; read -r -u $fd l; echo $l; exec {fd}<&-`,
	`{ echo out; echo err >&2; } 2>&1 >/dev/null | tr a-z A-Z`,
	`exec 4<>rw.txt; echo abc >&4; exec 4>&-; cat rw.txt`,
	`echo x >&- 2>/dev/null; echo $?`,
	`f() { echo to-3 >&3; }; f 3>three.txt; cat three.txt`,
	"cat <<EOF 4<<E4\none $((1+1))\nEOF\nfour\nE4",
	`set -C; echo a > nc.txt; echo b > nc.txt 2>/dev/null; echo $?; echo c >| nc.txt; cat nc.txt`,
	// variables, arrays, scoping
	`declare -A m=([b]=2 [a]=1 [c]=3); echo ${!m[@]}; declare -p m`,
	`a=(x [5]=y z); declare -p a; echo ${#a[@]} ${!a[@]}`,
	`a=(1 2 3 4 5); unset 'a[1]'; echo ${a[@]:1:2}; a+=(6); declare -p a`,
	`declare -i n=3; n+=4; n='n*2'; echo $n; declare -u u=hi; echo $u; declare -l l=HI; echo $l`,
	`x=outer; f() { local x=inner; g; }; g() { echo $x; }; f; echo $x`,
	`f() { local -n r=$1; r=changed; }; v=orig; f v; echo $v`,
	`declare -n ref=arr; arr=(1 2); ref+=(3); echo ${arr[@]} ${#ref[@]}`,
	`readonly r=1; (r=2) 2>/dev/null; echo $? $r`,
	`x=1; f() { x=2 g; echo $x; }; g() { echo $x; }; f`,
	`set -- a 'b c' d; echo $# "$*"; shift; printf '[%s]' "$@"; echo`,
	`IFS=: read -r a b c <<< 'x:y:z:w'; echo "$a|$b|$c"`,
	`mapfile -t -s 1 -n 2 lines < a.txt; declare -p lines`,
	`v=abcdef; echo ${v:2:3} ${v: -2} ${v/c*/X} ${v^^} ${#v} ${v@Q}`,
	`v='a b'; printf '%s\n' ${v@Q} "${v@A}"; arr=(1 2); echo "${arr[@]@Q}"`,
	`unset x; echo ${x-unset} ${x:-empty} ${x+set}; x=; echo ${x-unset} ${x:-empty} ${x+set}`,
	`pre_a=1 pre_b=2; echo ${!pre_*}; n=pre_a; echo ${!n}`,
	`echo $(( 7 / 2 )) $(( -7 % 3 )) $(( 2 ** 62 )) $(( 1 << 70 )) $(( 16#ff )) $(( 0x10 + 010 ))`,
	`a=(5 6 7); (( a[1] += 10, a[2]++ )); echo ${a[@]}`,
	`declare -A c; for w in a b a c a; do (( c[$w]++ )); done; for k in a b c; do echo $k=${c[$k]}; done`,
	// control flow and options
	`for i in 1 2 3; do for j in a b; do [ $j = b ] && continue 2; echo $i$j; done; done`,
	`i=0; while :; do (( i++ >= 3 )) && break; echo $i; done`,
	`set -e; f() { false; echo not-here; }; f || echo caught; echo after`,
	`set -e; false | true; echo piped; ! true; echo negated`,
	`set -o pipefail; false | true; echo $?; true | (exit 4) | true; echo $?`,
	`set -u; echo ${unset-default}; (echo $unset) 2>/dev/null; echo $?`,
	`trap 'echo exit-trap' EXIT; echo body`,
	`trap 'echo err-trap $?' ERR; false; echo next`,
	`f() { trap 'echo ret' RETURN; echo in; }; f; echo out`,
	`trap 'echo got-usr1' USR1; kill -USR1 $$; echo after`,
	`set -x; echo traced 'a b' 2>/dev/null; set +x`,
	"shopt -s extglob\ncase foo.txt in @(*.txt|*.md)) echo doc;; esac; shopt -s nocasematch; [[ ABC == abc ]] && echo nocase",
	`shopt -s nullglob; echo *.nomatch | wc -c; shopt -u nullglob; echo *.nomatch`,
	`shopt -s dotglob; echo src/* | tr ' ' '\n' | sort | head -2`,
	`shopt -s lastpipe; echo x | read v; echo v=$v`,
	"shopt -s expand_aliases; alias say='echo said'\nsay hi",
	"shopt -s expand_aliases; alias LEFT='(' RIGHT=')'\nLEFT echo sub RIGHT; echo after",
	"shopt -s expand_aliases; alias again='echo x; again' LEFT='('\nLEFT again )\necho $?",
	"shopt -s expand_aliases; alias e=''\ne (( 2 > 1 )) && echo arith",
	"shopt -s expand_aliases; alias kw='for ' in2='in '\nkw i in2 a b; do echo $i; done",
	`echo {a..e..2} {10..1..3} {01..3} x{,y}z`,
	// builtins and formats
	`printf '%5.2f|%-4s|%04d|%x|%o|%e\n' 3.14159 ab 42 255 8 12345`,
	`printf -v out '%s-%s' a b; echo $out; printf '%q\n' 'a b	c' "it's"`,
	`printf '%(%Y)T\n' 0 | wc -c`,
	`echo -e 'a\tb\x41\0101'; echo -n n; echo; echo -E 'x\ny'`,
	`test -f a.txt && test ! -d a.txt && [ -s a.txt ] && echo files; [ a \< b ] && echo lt`,
	`[[ foo123 =~ ^([a-z]+)([0-9]+)$ ]] && echo ${BASH_REMATCH[1]} ${BASH_REMATCH[2]}`,
	`while getopts 'ab:c' o -a -b val -c rest; do echo $o ${OPTARG-}; done; echo $OPTIND`,
	`f() { :; }; type -t f echo ls if; command -v echo; type cd`,
	`cd src; basename $PWD; cd ..; pushd src >/dev/null; dirs | wc -w; popd >/dev/null; ls -d src`,
	`compgen -W 'apple banana apricot' ap; compgen -v | grep -c '^PWD$'`,
	`declare -f nosuch; echo $?; f() { echo body; }; declare -F f`,
	`let 'x = 2 * 3' y=x+1; echo $x $y`,
	`eval 'a=1; b=2'; echo $a$b; source /dev/null; echo $?`,
	`f() { caller 0 | cut -d' ' -f2; }; f`,
	`echo $BASH_VERSION | cut -c1-3; echo ${#BASH_VERSINFO[@]}; echo $((RANDOM < 32768))`,
	`f() { echo ${FUNCNAME[0]} $#; }; f a b; echo ${FUNCNAME[0]-none}`,
	"echo $LINENO\necho $LINENO",
	`echo $((1/0)); echo after-abort`,
	`x=$(exit 7); echo $?; y=$(echo out; exit 3) || echo st=$? $y`,
	`echo 'a' | { read v; echo ${PIPESTATUS[0]} $v; }`,
}

// TestDifferentialAgainstBash runs each case under GNU bash (cwd a temp
// folder) and under Run (workspace another folder with the same files),
// and compares stdout, exit code and whether stderr is empty. Scripts the
// runner refuses on purpose (process substitution) are counted apart.
func TestDifferentialAgainstBash(t *testing.T) {
	bash := bashPath(t)
	cases := append(append(append([]string(nil), handDiffCases...), printfDiffCases...), generatedDiffCases()...)
	cases = append(cases, nestedShellDiffCases()...)
	cases = append(cases, interpDiffCases...)
	table := DefaultCommands()
	// Both shells run in parallel workers first; the comparison follows.
	results := make([]bashResult, len(cases))
	runs := make([]Result, len(cases))
	work := make(chan int)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := range work {
				results[i] = runBash(t, bash, cases[i])
				wdir := t.TempDir()
				if err := writeFilesErr(wdir, diffFiles); err != nil {
					results[i].err = err
					continue
				}
				runs[i] = Run(context.Background(), Config{Script: cases[i], WorkspaceDir: wdir, ScratchDir: t.TempDir(), Commands: table})
			}
		})
	}
	for i := range cases {
		work <- i
	}
	close(work)
	wg.Wait()

	pass := 0
	for i, script := range cases {
		b := results[i]
		if b.err != nil {
			t.Fatalf("%q: bash: %v", script, b.err)
		}
		res := runs[i]
		switch {
		case string(res.Stdout) != b.stdout:
			t.Errorf("%q: stdout\n got %q\nwant %q (stderr %q)", script, res.Stdout, b.stdout, res.Stderr)
		case res.ExitCode != b.code:
			t.Errorf("%q: exit %d, bash %d (stderr %q / %q)", script, res.ExitCode, b.code, res.Stderr, b.stderr)
		case (len(res.Stderr) == 0) != (b.stderr == ""):
			t.Errorf("%q: stderr %q, bash's %q", script, res.Stderr, b.stderr)
		default:
			pass++
		}
	}
	t.Logf("differential against bash: %d passed, %d failed, of %d", pass, len(cases)-pass, len(cases))
}

// printfDiffCases compare the runner's printf with bash's.
var printfDiffCases = []string{
	"printf '%d %i %x %X %o %u\\n' 255 -3 255 255 8 -1",
	"printf '%.3f %e %E %g %G\\n' 3.14159 12345.678 0.5 0.0001 1e20",
	"printf '%g %g %g %g\\n' 100000 1000000 1.5 0.00001234",
	"printf '%#x %#o %+.2e\\n' 255 8 -1234.5",
	"printf '%*d|%-*d|%.*f\\n' 5 42 4 7 2 3.14159",
	"printf '%5.1s|%.0s|\\n' abc def",
	"printf '[%s]\\n' a b c",
	"printf '%s=%d\\n' a 1 b 2 c",
	"printf 'no args\\n' extra ignored",
	"printf '%d\\n' 0x1F 010 \"'A\" -0",
	"printf '%d\\n' abc; echo $?",
	"printf '%d\\n' 12abc; echo $?",
	"printf '%b\\n' 'a\\tb' 'c\\0101d' 'stop\\cnever'; echo",
	"printf 'tab\\there\\\\back \\x41\\101 \\u00e9\\n'",
	"printf '%q\\n' 'a b' \"it's\" '$HOME' 'x;y' plain 'tab\there'",
	"printf '%c|%5c|%-3c|\\n' hello w x",
	"printf '%%d\\n'",
	"printf '%z\\n' 1; echo $?",
	"printf -v out '%s-%s' a b; echo \"[$out]\"",
	"f() { local v; printf -v v '%03d' 5; echo $v; }; f",
	"printf -- '-%s\\n' x",
	"printf '%s\\n' \"$(printf '%05.1f' 2.25)\"",
	"printf '%10.4s|\\n' abcdefgh",
	"printf '%i %d\\n' 9223372036854775807 -9223372036854775808",
}
